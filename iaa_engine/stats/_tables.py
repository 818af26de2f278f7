"""Sufficient statistics shared by every metric.

All metrics of :mod:`iaa_engine` are functions of three tables, each a sum over
items, so each can be computed on a partition of the items and combined by
:meth:`combine` (concatenation for per-item rows, addition for the rest):

* :class:`ItemCounts` -- the items × categories count table ``n_ic`` stored as
  sparse entries sorted by item (an item's entries never span partitions once
  the data is grouped by item);
* :class:`AnnotatorStats` -- annotators × categories counts ``n_ak``;
* :class:`PairStats` -- for every ordered pair of annotators (a, b) and labels
  (k, l), the number of items on which a said k and b said l. Shared-item
  counts, agreement counts and the marginals that Cohen's kappa needs are
  reductions of it.

Everything is built with ``numpy.bincount`` and one sparse matrix product; no
Python loop runs over annotations.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["ItemCounts", "AnnotatorStats", "PairStats", "pair_cells", "check_parts"]

#: Above this many cells the count table is built by sorting instead of a dense bincount.
_DENSE_CELLS = 1 << 26
#: Up to this many (annotator, label) × (annotator, label) cells, pairs are counted with bincount.
_PAIR_CELLS = 1 << 26
#: Pairs enumerated at once (bounds the temporary memory to about 100 MB).
_PAIR_CHUNK = 1 << 22


def _grouped_by_item(item: np.ndarray, v: np.ndarray, n_items: int):
    """Yield ``(n, g)``: for each annotation count n >= 2, the codes of items with n annotations as a (items, n)
    block, a bounded number of items at a time."""
    # a stable counting sort of the annotations by item, done in C: one column per annotation, so nothing is summed
    import scipy.sparse as sp  # imported when needed: a plain report never loads SciPy

    order = sp.coo_matrix(
        (np.ones(item.size, dtype=np.int8), (item, np.arange(item.size))), shape=(n_items, item.size)
    ).tocsr()
    indptr = order.indptr.astype(np.int64)
    grouped = v[order.indices.astype(np.int64)].astype(np.int64)
    sizes = np.diff(indptr)
    starts = indptr[:-1]
    for n in np.unique(sizes[sizes >= 2]):  # distinct annotation counts, not annotations
        n = int(n)
        first = starts[sizes == n]
        step = max(1, _PAIR_CHUNK // (n * n))
        for lo in range(0, first.size, step):
            yield n, grouped[first[lo : lo + step, None] + np.arange(n)]  # (items, n)


def pair_entries(item: np.ndarray, v: np.ndarray, n_items: int, ac: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sparse counts of ordered pairs (v_j, v_j') of annotations of one item: ``(row, col, count)``.

    The within-item pairs are enumerated (as in :func:`pair_cells`) and counted with a sort of their keys, so time
    and memory follow the number of pairs, whatever the size of the (A·C)² table.
    """
    keys = []
    for n, g in _grouped_by_item(item, v, n_items):
        iu, iw = np.triu_indices(n, 1)
        lo, hi = np.minimum(g[:, iu], g[:, iw]), np.maximum(g[:, iu], g[:, iw])
        keys.append((lo * ac + hi).ravel())
    if not keys:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    uniq, count = np.unique(np.concatenate(keys), return_counts=True)
    row, col = np.divmod(uniq, ac)
    off = row != col  # (x, y) and (y, x) are the same unordered pair: both orders below
    return (
        np.concatenate([row, col[off]]),
        np.concatenate([col, row[off]]),
        np.concatenate([count, count[off]]).astype(np.int64)
        * np.where(np.concatenate([~off, np.zeros(int(off.sum()), bool)]), 2, 1),
    )


def pair_cells(item: np.ndarray, v: np.ndarray, n_items: int, ac: int) -> np.ndarray:
    """Dense counts of ordered pairs (v_j, v_j') of annotations of one item (flattened ac × ac).

    Items are grouped by their number of annotations n; for each n the codes
    form a (g × n) matrix, the n(n-1)/2 unordered position pairs are counted
    at once, and the table is symmetrised. Pairs of an annotation with itself
    are never formed.
    """
    cells = np.zeros(ac * ac, dtype=np.int64)
    for n, g in _grouped_by_item(item, v, n_items):
        iu, iw = np.triu_indices(n, 1)  # unordered position pairs; the other order is the transpose
        cells += np.bincount((g[:, iu] * ac + g[:, iw]).ravel(), minlength=ac * ac)
    square = cells.reshape(ac, ac)
    return (square + square.T).ravel()  # ordered pairs: each unordered pair in both orders


def check_parts(parts: list) -> int:
    """The shared category count of per-partition statistics to combine (at least one, one coding)."""
    if not parts:
        raise ValueError("combine needs at least one part")
    c = parts[0].n_categories
    if any(p.n_categories != c for p in parts):
        raise ValueError("all parts must share one category coding")
    return int(c)


@dataclass(frozen=True, eq=False)
class ItemCounts:
    """Sparse items × categories count table.

    Attributes
    ----------
    item, category, count : ndarray of int64, shape (nnz,)
        One entry per (item, category) with a non-zero count, sorted by item
        then category.
    n_items, n_categories : int
    """

    item: np.ndarray
    category: np.ndarray
    count: np.ndarray
    n_items: int
    n_categories: int

    @classmethod
    def from_codes(cls, item: np.ndarray, label: np.ndarray, n_items: int, n_categories: int) -> ItemCounts:
        """Count annotations per (item, category)."""
        c = max(int(n_categories), 1)
        key = np.multiply(item, c, dtype=np.int64)  # in place from here: one temporary per annotation, not two
        key += label
        # dense only while the table is not much larger than the annotations: a dense items × categories table of
        # many labels would cost O(items × categories), quadratic in the rows (issue 25)
        if n_items * c <= min(_DENSE_CELLS, max(1 << 20, 16 * key.size)):
            dense = np.bincount(key, minlength=n_items * c)
            cells = np.flatnonzero(dense)
            counts = dense[cells]
        else:
            cells, counts = np.unique(key, return_counts=True)
        it, cat = np.divmod(cells, c)
        return cls(it, cat, counts.astype(np.int64), int(n_items), int(n_categories))

    @classmethod
    def from_dense(cls, table: np.ndarray) -> ItemCounts:
        """From a dense (n_items, n_categories) array of counts (whole numbers as int64; fractional ones kept)."""
        table = np.asarray(table)
        it, cat = np.nonzero(table)  # only the non-zero cells are converted: no full-size temporaries
        values = table[it, cat]
        if np.issubdtype(values.dtype, np.integer) or np.array_equal(values, np.round(values)):
            values = values.astype(np.int64)
        else:
            values = values.astype(float)
        return cls(it.astype(np.int64), cat.astype(np.int64), values, table.shape[0], table.shape[1])

    @classmethod
    def combine(cls, parts: list[ItemCounts]) -> ItemCounts:
        """Stack count tables of disjoint item sets (item codes are offset in order)."""
        c = check_parts(parts)
        offsets = np.cumsum([0] + [p.n_items for p in parts[:-1]])
        return cls(
            np.concatenate([p.item + o for p, o in zip(parts, offsets)]),
            np.concatenate([p.category for p in parts]),
            np.concatenate([p.count for p in parts]),
            int(sum(p.n_items for p in parts)),
            c,
        )

    def to_dense(self) -> np.ndarray:
        """The full (n_items, n_categories) array."""
        out = np.zeros((self.n_items, self.n_categories), dtype=np.int64)
        out[self.item, self.category] = self.count
        return out

    def to_sparse(self) -> sp.csr_matrix:
        """As a SciPy CSR matrix."""
        import scipy.sparse as sp  # imported when needed: a plain report never loads SciPy

        return sp.csr_matrix((self.count, (self.item, self.category)), shape=(self.n_items, self.n_categories))

    @cached_property
    def n_i(self) -> np.ndarray:
        """Annotations per item, ``n_i = sum_c n_ic``."""
        return np.bincount(self.item, weights=self.count, minlength=self.n_items)

    @cached_property
    def sumsq_i(self) -> np.ndarray:
        """``sum_c n_ic^2`` per item."""
        return np.bincount(self.item, weights=self.count.astype(float) ** 2, minlength=self.n_items)

    @cached_property
    def max_i(self) -> np.ndarray:
        """Largest category count per item (``n_i`` means unanimous)."""
        out = np.zeros(self.n_items)
        if self.item.size:
            starts = np.flatnonzero(np.r_[True, self.item[1:] != self.item[:-1]])
            out[self.item[starts]] = np.maximum.reduceat(self.count, starts)
        return out

    @cached_property
    def pairable(self) -> np.ndarray:
        """Boolean mask of items with two or more annotations."""
        return self.n_i >= 2

    def category_totals(self, items: np.ndarray | None = None) -> np.ndarray:
        """``n_c = sum_i n_ic`` over all items, or over the items where ``items`` (a mask) is true."""
        if items is None:
            return np.bincount(self.category, weights=self.count, minlength=self.n_categories)
        keep = items[self.item]
        return np.bincount(self.category[keep], weights=self.count[keep], minlength=self.n_categories)

    def item_proportion_totals(self, items: np.ndarray) -> np.ndarray:
        """``sum_i n_ic / n_i`` over the items in the mask ``items``."""
        keep = items[self.item]
        w = self.count[keep] / self.n_i[self.item[keep]]
        return np.bincount(self.category[keep], weights=w, minlength=self.n_categories)

    def coincidences(self) -> sp.coo_matrix:
        """Krippendorff's coincidence matrix ``o_ck = sum_i (n_ic n_ik - [c=k] n_ic) / (n_i - 1)``.

        Only items with ``n_i >= 2`` contribute. Returned sparse (C × C).
        """
        w = np.zeros(self.n_items)
        ok = self.pairable
        w[ok] = 1.0 / (self.n_i[ok] - 1.0)
        n = self.to_sparse().astype(float)
        import scipy.sparse as sp  # imported when needed: a plain report never loads SciPy

        o = (n.T @ sp.diags(w) @ n).tocoo()
        diag = np.bincount(self.category, weights=self.count * w[self.item], minlength=self.n_categories)
        o = (o - sp.diags(diag)).tocoo()
        o.eliminate_zeros()
        return o


@dataclass(frozen=True, eq=False)
class AnnotatorStats:
    """Annotators × categories counts ``n_ak`` (dense)."""

    counts: np.ndarray

    @classmethod
    def from_codes(
        cls, annotator: np.ndarray, label: np.ndarray, n_annotators: int, n_categories: int
    ) -> AnnotatorStats:
        c = max(int(n_categories), 1)
        dense = np.bincount(annotator * c + label, minlength=n_annotators * c)
        return cls(dense.reshape(n_annotators, c))

    @classmethod
    def combine(cls, parts: list[AnnotatorStats]) -> AnnotatorStats:
        """Sum per-partition statistics (same annotator and category coding)."""
        return cls(np.add.reduce([p.counts for p in parts]))

    @cached_property
    def n_a(self) -> np.ndarray:
        """Annotations per annotator."""
        return self.counts.sum(axis=1)

    @cached_property
    def distributions(self) -> np.ndarray:
        """``P(k | a) = n_ak / n_a``; rows of annotators without annotations are 0."""
        n = self.n_a[:, None].astype(float)
        return np.divide(self.counts, n, out=np.zeros(self.counts.shape), where=n > 0)


@dataclass(frozen=True, eq=False)
class PairStats:
    """Cross-tabulation of labels for every ordered pair of distinct annotators.

    Attributes
    ----------
    a, k, b, l, count : ndarray of int64
        Sparse entries: ``count`` items on which annotator ``a`` said ``k`` and
        annotator ``b`` said ``l`` (a != b; both orders are present).
    n_annotators, n_categories : int
    """

    a: np.ndarray
    k: np.ndarray
    b: np.ndarray
    l: np.ndarray  # noqa: E741 - the label of annotator b, as in the formulas
    count: np.ndarray
    n_annotators: int
    n_categories: int
    items_per_annotator: np.ndarray

    @classmethod
    def from_codes(
        cls,
        item: np.ndarray,
        annotator: np.ndarray,
        label: np.ndarray,
        n_items: int,
        n_annotators: int,
        n_categories: int,
    ) -> PairStats:
        """Cross-tabulate the labels of every ordered pair of annotations on the same item.

        With ``v = a*C + k`` for each annotation, the table is ``X^T X`` for
        ``X[i, v] = [a said k on i]``. When the (A·C)² cells fit in memory the
        pairs are enumerated within items and counted with ``bincount``;
        otherwise one sparse matrix product computes it.
        """
        c = max(int(n_categories), 1)
        ac = int(n_annotators) * c
        per_annotator = np.bincount(annotator, minlength=n_annotators)
        v = annotator * c + label
        n_i = np.bincount(item, minlength=n_items).astype(float)
        pairs = float(np.sum(n_i * (n_i - 1.0)))  # ordered within-item pairs: the entries at most
        # the dense table only while it is not much larger than the pairs themselves: with many labels its
        # (A·C)² cells would cost far more than the pairs (quadratic in the rows, issue 25)
        if ac * ac <= min(_PAIR_CELLS, max(1 << 20, 16.0 * pairs)):
            return cls.from_cells(pair_cells(item, v, n_items, ac), n_annotators, n_categories, per_annotator)
        else:
            from iaa_engine.base._policy import check_memory

            check_memory(
                48.0 * pairs + 32.0 * item.size,
                f"the annotator-pair table ({n_annotators} annotators, {n_categories} categories)",
                "leave out the pairwise statistics (pairwise=False, CLI --pairwise no)",
            )
            row, col, data = pair_entries(item, v, n_items, ac)
        return cls._from_entries(row, col, data, n_annotators, n_categories, per_annotator)

    @classmethod
    def from_cells(
        cls, cells: np.ndarray, n_annotators: int, n_categories: int, items_per_annotator: np.ndarray
    ) -> PairStats:
        """From the dense flattened (A·C) × (A·C) table of pair counts (see :meth:`to_cells`)."""
        ac = int(n_annotators) * max(int(n_categories), 1)
        flat = np.flatnonzero(cells)
        return cls._from_entries(flat // ac, flat % ac, cells[flat], n_annotators, n_categories, items_per_annotator)

    @classmethod
    def _from_entries(
        cls,
        row: np.ndarray,
        col: np.ndarray,
        count: np.ndarray,
        n_annotators: int,
        n_categories: int,
        items_per_annotator: np.ndarray,
    ) -> PairStats:
        """From entries of the (A·C) × (A·C) table (row ``a*C + k``, column ``b*C + l``), the diagonal left out."""
        c = max(int(n_categories), 1)
        a, k = np.divmod(row, c)
        b, l = np.divmod(col, c)
        off = a != b
        return cls(
            a[off],
            k[off],
            b[off],
            l[off],
            np.asarray(count)[off].astype(np.int64),
            int(n_annotators),
            int(n_categories),
            np.asarray(items_per_annotator),
        )

    def to_cells(self) -> np.ndarray:
        """The dense flattened (A·C) × (A·C) table of pair counts; partitions combine by adding these."""
        c = max(self.n_categories, 1)
        ac = self.n_annotators * c
        return np.bincount(
            (self.a * c + self.k) * ac + self.b * c + self.l, weights=self.count, minlength=ac * ac
        ).astype(np.int64)

    @classmethod
    def combine(cls, parts: list[PairStats]) -> PairStats:
        """Concatenate per-partition entries (duplicated keys are summed by every reduction)."""
        first = parts[0]
        return cls(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in ("a", "k", "b", "l", "count")),
            first.n_annotators,
            first.n_categories,
            np.add.reduce([p.items_per_annotator for p in parts]),
        )  # type: ignore[call-arg]

    def compact(self) -> PairStats:
        """Sum entries that share a key (after :meth:`combine`), keeping the table small."""
        c, m = self.n_categories, self.n_annotators
        key = ((self.a * c + self.k) * m + self.b) * c + self.l
        uniq, inverse = np.unique(key, return_inverse=True)
        count = np.bincount(inverse, weights=self.count, minlength=uniq.size).astype(np.int64)
        rest, l = np.divmod(uniq, c)
        rest, b = np.divmod(rest, m)
        a, k = np.divmod(rest, c)
        return PairStats(a, k, b, l, count, m, c, self.items_per_annotator)

    def _pair_sum(self, weights: np.ndarray) -> np.ndarray:
        m = self.n_annotators
        return np.bincount(self.a * m + self.b, weights=weights, minlength=m * m).reshape(m, m)

    @cached_property
    def n_shared(self) -> np.ndarray:
        """Items annotated by both a and b; the diagonal holds each annotator's item count."""
        out = self._pair_sum(self.count.astype(float)).astype(np.int64)
        np.fill_diagonal(out, self.items_per_annotator)
        return out

    @cached_property
    def n_agree(self) -> np.ndarray:
        """Shared items on which a and b gave the same label (diagonal: the annotator's item count)."""
        out = self._pair_sum(np.where(self.k == self.l, self.count, 0).astype(float)).astype(np.int64)
        np.fill_diagonal(out, self.items_per_annotator)
        return out

    @cached_property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, row)``: the ordered pairs ``a*A + b`` that share an item (sorted), and each entry's row among
        them."""
        keys, row = np.unique(self.a * self.n_annotators + self.b, return_inverse=True)
        return keys, row.ravel()

    @cached_property
    def pair_marginals(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """``(R, S)``, sparse (pairs × C): on the shared items of pair p = (a, b), how often a said k (``R[p, k]``)
        and how often b said k (``S[p, k]``). Rows follow :attr:`pairs`; memory O(entries), never A² × C."""
        keys, row = self.pairs
        shape = (keys.size, max(self.n_categories, 1))
        w = self.count.astype(float)
        import scipy.sparse as sp  # imported when needed: a plain report never loads SciPy

        return (sp.csr_matrix((w, (row, self.k)), shape=shape), sp.csr_matrix((w, (row, self.l)), shape=shape))

    def pair_label_totals(self) -> sp.csr_matrix:
        """``t[p, k] = R[p, k] + S[p, k]``: both annotators' labels k on the shared items of pair p (sparse)."""
        r, s = self.pair_marginals
        out = (r + s).tocsr()
        out.sort_indices()
        return out

    def per_pair(self, values: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """Scatter one value per pair of :attr:`pairs` into a dense A × A array (``fill`` elsewhere)."""
        m = self.n_annotators
        out = np.full(m * m, fill, dtype=float)
        out[self.pairs[0]] = values
        return out.reshape(m, m)
