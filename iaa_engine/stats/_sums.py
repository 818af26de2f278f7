"""Count-based metrics as functions of sums over items.

Every count-based coefficient (SPA, joint probability, percentage agreement,
Fleiss' kappa, Gwet's AC1, Brennan-Prediger, Krippendorff's alpha) is a smooth
function of a handful of sums over items of per-item features of the count
vector ``n_i.`` (:class:`CountSums`). The point estimate takes each item once;
the bootstrap (:mod:`iaa_engine.inference._inference`) takes each *pattern* of counts
with multinomial multiplicities, with a leading replicate axis on every sum.
Both go through the same finalisers below, so there is one formula per metric.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iaa_engine.base._policy import EPS
from iaa_engine.stats._differences import delta, expected_sum, positions_from
from iaa_engine.stats._tables import ItemCounts, check_parts

__all__ = ["CountSums", "ExactSums", "distinct_values", "int_bincount", "spa_weight_table", "variance_from_moments"]


def variance_from_moments(n: np.ndarray, q: np.ndarray | float, r: np.ndarray | float) -> np.ndarray:
    """``Var[P_hat] = 2 (q(1-q) + 2(n-2)(r-q^2)) / (n(n-1))`` (broadcasting; n >= 2)."""
    return 2.0 * (q * (1.0 - q) + 2.0 * (n - 2.0) * (r - q * q)) / (n * (n - 1.0))


@dataclass(frozen=True, eq=False)
class CountSums:
    """Sums over items (optionally batched on leading axes).

    Attributes
    ----------
    n_pairable : items with ``n_i >= 2``
    n_items : items with ``n_i >= 1``
    sum_p : ``sum P_i`` over pairable items
    sum_unanimous : pairable items whose annotations all agree
    sum_props : ``sum_i n_ic / n_i`` (shape ..., C)
    totals : ``sum_i n_ic`` (shape ..., C)
    p_by_n, items_by_n : ``sum P_i`` and item counts by number of annotations n (shape ..., len(n_values))
    o_row, o_col : category pairs of the coincidence entries (shared by all batches)
    o_val : coincidence values (shape ..., nnz)
    n_categories : int
    n_values : float array
        The numbers of annotations n that the ``*_by_n`` columns stand for (only those that occur: a count
        table whose item has 10**9 annotations needs one column, not 10**9).
    """

    n_pairable: np.ndarray
    n_items: np.ndarray
    sum_p: np.ndarray
    sum_unanimous: np.ndarray
    sum_props: np.ndarray
    totals: np.ndarray
    p_by_n: np.ndarray
    items_by_n: np.ndarray
    o_row: np.ndarray
    o_col: np.ndarray
    o_val: np.ndarray
    n_categories: int
    n_values: np.ndarray

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_counts(cls, c: ItemCounts) -> CountSums:
        """Each item once (the point estimate), through the exact integer tables of :class:`ExactSums`."""
        return ExactSums.from_counts(c).finish()

    @classmethod
    def pattern_features(cls, patterns: np.ndarray, o_row: np.ndarray, o_col: np.ndarray) -> np.ndarray:
        """Per-pattern feature rows (U × d) whose weighted sums are the fields of :class:`CountSums`.

        ``patterns`` is a dense (U, C) array of count vectors; the coincidence
        entries are restricted to the given (o_row, o_col) pairs (which must
        cover every pair with a non-zero coincidence in the data).
        """
        u, c = patterns.shape
        n = patterns.sum(axis=1).astype(float)
        ok = n >= 2
        p = np.zeros(u)
        p[ok] = (np.sum(patterns[ok].astype(float) ** 2, axis=1) - n[ok]) / (n[ok] * (n[ok] - 1.0))
        n_values, column = np.unique(n, return_inverse=True)
        by_n = np.zeros((u, n_values.size))
        by_n[np.arange(u), column.ravel()] = 1.0
        w = np.where(ok, 1.0 / np.maximum(n - 1.0, 1.0), 0.0)
        pc, pk = patterns[:, o_row].astype(float), patterns[:, o_col].astype(float)
        o = (pc * pk - np.where(o_row == o_col, pc, 0.0)) * w[:, None]
        return np.hstack(
            [
                ok[:, None].astype(float),
                (n >= 1)[:, None].astype(float),
                (p * ok)[:, None],
                (ok & (patterns.max(axis=1) == n))[:, None].astype(float),
                patterns / np.maximum(n, 1.0)[:, None],
                patterns.astype(float),
                by_n * p[:, None],
                by_n,
                o,
            ]
        )

    @staticmethod
    def pattern_n_values(patterns: np.ndarray) -> np.ndarray:
        """The distinct numbers of annotations of the patterns: the ``*_by_n`` columns of :meth:`pattern_features`."""
        return np.unique(patterns.sum(axis=1).astype(float))

    @classmethod
    def from_features(
        cls, weighted: np.ndarray, c: int, n_values: np.ndarray, o_row: np.ndarray, o_col: np.ndarray
    ) -> CountSums:
        """Unpack ``weights @ pattern_features`` (shape ..., d) into sums (``n_values``: :meth:`pattern_n_values`)."""
        size = len(n_values)
        cut = np.cumsum([1, 1, 1, 1, c, c, size, size])
        parts = np.split(weighted, cut, axis=-1)
        return cls(
            parts[0][..., 0],
            parts[1][..., 0],
            parts[2][..., 0],
            parts[3][..., 0],
            parts[4],
            parts[5],
            parts[6],
            parts[7],
            o_row,
            o_col,
            parts[8],
            c,
            np.asarray(n_values, dtype=float),
        )

    # ------------------------------------------------------------------ finalisers (nan where undefined)

    def _div(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        num, den = np.asarray(num, float), np.asarray(den, float)
        out = np.full(np.broadcast(num, den).shape, np.nan)
        np.divide(num, den, out=out, where=np.abs(den) > EPS)
        return out

    def _chance(self, observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
        return self._div(observed - expected, 1.0 - expected)

    def joint_probability(self) -> np.ndarray:
        return self._div(self.sum_p, self.n_pairable)

    def percent_agreement(self) -> np.ndarray:
        return self._div(self.sum_unanimous, self.n_pairable)

    def class_distribution(self) -> np.ndarray:
        """Observed class distribution ``p_c = n_c / n`` over all annotations."""
        return self.totals / np.maximum(self.totals.sum(axis=-1, keepdims=True), EPS)

    def spa(self, scheme: str) -> np.ndarray:
        k = spa_weight_table(self.n_values, scheme, self.n_categories, self.class_distribution())
        return self._div(np.sum(k * self.p_by_n, axis=-1), np.sum(k * self.items_by_n, axis=-1))

    def value_totals(self) -> np.ndarray:
        """``n_c = sum_k o_ck``, the pairable values per category (batched on leading axes of ``o_val``).

        Summed through the sparse coincidence entries: memory O(entries + C) per batch row, never entries × C.
        """
        c = max(self.n_categories, 1)
        if self.o_val.ndim == 1:
            return np.bincount(self.o_row, weights=self.o_val, minlength=c).astype(float)
        import scipy.sparse as sp

        lead = self.o_val.shape[:-1]
        if self.o_row.size == 0:
            return np.zeros((*lead, c))
        flat = self.o_val.reshape(-1, self.o_row.size)
        to_cat = sp.csr_matrix(
            (np.ones(self.o_row.size), (np.arange(self.o_row.size), self.o_row)), shape=(self.o_row.size, c)
        )
        return np.asarray((to_cat.T @ flat.T).T).reshape(*lead, c)

    def pairable_expected(self) -> np.ndarray:
        """``sum_c n_c (n_c - 1) / (n (n - 1))`` over the pairable values: two distinct values agree by chance."""
        totals = self.value_totals()
        n = totals.sum(axis=-1)
        return self._div(np.sum(totals * (totals - 1.0), axis=-1), n * (n - 1.0))

    def spa_kappa(self, scheme: str) -> np.ndarray:
        return self._chance(self.spa(scheme), self.pairable_expected())

    def fleiss_expected(self) -> np.ndarray:
        pk = self._div(self.sum_props, self.n_items[..., None])
        return np.sum(pk * pk, axis=-1)

    def fleiss_kappa(self) -> np.ndarray:
        return self._chance(self.joint_probability(), self.fleiss_expected())

    def gwet_expected(self) -> np.ndarray:
        q = self.n_categories
        pk = self._div(self.sum_props, self.n_items[..., None])
        return np.sum(pk * (1.0 - pk), axis=-1) / (q - 1.0) if q >= 2 else np.full(pk.shape[:-1], np.nan)

    def gwet_ac1(self) -> np.ndarray:
        return self._chance(self.joint_probability(), self.gwet_expected())

    def brennan_prediger(self) -> np.ndarray:
        q = self.n_categories
        if q < 2:
            return np.full(np.shape(self.sum_p), np.nan)
        return self._chance(self.joint_probability(), np.full(np.shape(self.sum_p), 1.0 / q))

    def alpha_parts(self, level: str, values: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Krippendorff's ``(D_o, D_e)`` from the coincidences; see :func:`iaa_engine.krippendorff_alpha`."""
        c = self.n_categories
        totals = self.value_totals()  # n_c of the pairable values (..., C)
        n = totals.sum(axis=-1)
        x = positions_from(level, totals, values, c)
        if level == "ordinal":
            xr, xc = x[..., self.o_row], x[..., self.o_col]
        else:
            xr, xc = x[self.o_row], x[self.o_col]
        d_o = self._div(np.sum(self.o_val * delta(level, xr, xc), axis=-1), n)
        d_e = self._div(expected_sum(level, totals, x), n * (n - 1.0))
        return d_o, d_e

    def krippendorff_alpha(self, level: str, values: np.ndarray | None) -> np.ndarray:
        d_o, d_e = self.alpha_parts(level, values)
        return 1.0 - self._div(d_o, d_e)


#: ExactSums.from_counts computes the coincidences of each annotation count m from a dense items × labels table (one
#: k × k matrix product per m) while there are at most this many labels and the table has at most this many cells;
#: otherwise from a sparse table per m (SciPy's sparse product).
DENSE_COINCIDENCE_LABELS = 64
DENSE_COINCIDENCE_CELLS = 1 << 24  # 128 MiB of float64


@dataclass(frozen=True, eq=False)
class ExactSums:
    """Integer sums over items, grouped by the number of annotations n of an item.

    Every field of :class:`CountSums` is a ratio of integer sums per n
    (e.g. :math:`\\sum_i P_i = \\sum_n \\sum_{i: n_i = n} (\\sum_c n_{ic}^2 - n) / (n(n-1))`),
    so accumulating the integers and dividing once makes the statistics exact
    and independent of how the items are ordered or partitioned: a cluster run
    (:meth:`combine`) gives the in-memory floats to the last bit.

    Attributes
    ----------
    n_values : int64 (U,)   the distinct numbers of annotations n of the items, ascending
    items_by_n : int64 (U,)   items with n annotations
    agree_by_n : int64 (U,)   ``sum (sum_c n_ic^2 - n)`` over those items
    unanimous_by_n : int64 (U,)   of those, items whose annotations all agree
    counts_by_n : int64 (U, C)    ``sum n_ic`` over those items
    coinc_n, coinc_key, coinc_val : int64 (nnz,)   coincidence numerators
        ``sum (n_ic n_ik - [c=k] n_ic)`` over items with n annotations, at key ``c*C + k``
    n_categories : int
    """

    n_values: np.ndarray
    items_by_n: np.ndarray
    agree_by_n: np.ndarray
    unanimous_by_n: np.ndarray
    counts_by_n: np.ndarray
    coinc_n: np.ndarray
    coinc_key: np.ndarray
    coinc_val: np.ndarray
    n_categories: int

    @classmethod
    def from_counts(cls, c: ItemCounts) -> ExactSums:
        n = int_bincount(c.item, c.count, c.n_items)
        n_values, col = distinct_values(n)
        size = n_values.size
        k = max(c.n_categories, 1)
        ok = n >= 2
        agree = int_bincount(c.item, c.count * c.count, c.n_items) - n  # exact even for huge counts
        unanimous = ok & (c.max_i.astype(np.int64) == n)
        parts_n, parts_key, parts_val = [], [], []
        total = float(c.count.sum()) if c.count.size else 0.0
        if k <= DENSE_COINCIDENCE_LABELS and c.n_items * k <= DENSE_COINCIDENCE_CELLS and total * total < 2.0**53:
            # few labels: the items × labels table dense, and per annotation count m the k × k product of its rows
            # (a BLAS product of whole numbers, exact while every sum stays below 2**53: all are at most total²)
            table = np.zeros((c.n_items, k))
            table[c.item, c.category] = c.count
            for m in np.unique(n[ok]):  # distinct annotation counts, not items
                rows = table[n == m]
                mat = np.rint(rows.T @ rows).astype(np.int64)
                mat[np.diag_indices(k)] -= np.rint(rows.sum(axis=0)).astype(np.int64)
                row, other = np.nonzero(mat)
                parts_n.append(np.full(row.size, m, dtype=np.int64))
                parts_key.append(row.astype(np.int64) * k + other)
                parts_val.append(mat[row, other])
            del table
        else:
            import scipy.sparse as sp  # imported when needed: a plain report on few labels never loads SciPy

            n_of = n[c.item]
            for m in np.unique(n[ok]):
                keep = n_of == m
                nm = sp.csr_matrix((c.count[keep], (c.item[keep], c.category[keep])), shape=(c.n_items, k))
                prod = (nm.T @ nm).tocoo()
                diag = int_bincount(c.category[keep], c.count[keep], k)
                key = prod.row.astype(np.int64) * k + prod.col
                val = prod.data.astype(np.int64) - np.where(prod.row == prod.col, diag[prod.row], 0)
                nz = val != 0
                parts_n.append(np.full(int(nz.sum()), m, dtype=np.int64))
                parts_key.append(key[nz])
                parts_val.append(val[nz])
        empty = np.zeros(0, np.int64)
        return cls(
            n_values=n_values.astype(np.int64),
            items_by_n=int_bincount(col, np.ones_like(n), size),
            agree_by_n=int_bincount(col[ok], agree[ok], size),
            unanimous_by_n=int_bincount(col[unanimous], np.ones(int(unanimous.sum()), dtype=np.int64), size),
            counts_by_n=int_bincount(col[c.item] * k + c.category, c.count, size * k).reshape(size, k),
            coinc_n=np.concatenate(parts_n) if parts_n else empty,
            coinc_key=np.concatenate(parts_key) if parts_key else empty,
            coinc_val=np.concatenate(parts_val) if parts_val else empty,
            n_categories=c.n_categories,
        )

    @classmethod
    def combine(cls, parts: list[ExactSums]) -> ExactSums:
        """Add the integer sums of disjoint sets of items (e.g. partitions of a cluster run)."""
        k = check_parts(parts)
        n_values = np.unique(np.concatenate([p.n_values for p in parts])).astype(np.int64)

        def total(field: str) -> np.ndarray:
            out = np.zeros((n_values.size,) + getattr(parts[0], field).shape[1:], dtype=np.int64)
            for p in parts:
                out[np.searchsorted(n_values, p.n_values)] += getattr(p, field)
            return out

        n = np.concatenate([p.coinc_n for p in parts])
        key = np.concatenate([p.coinc_key for p in parts])
        val = np.concatenate([p.coinc_val for p in parts])
        uniq, inverse = (
            np.unique(np.stack([n, key]), axis=1, return_inverse=True)
            if n.size
            else (np.zeros((2, 0), np.int64), np.zeros(0, np.int64))
        )
        summed = int_bincount(inverse.ravel(), val, uniq.shape[1])
        return cls(
            n_values,
            total("items_by_n"),
            total("agree_by_n"),
            total("unanimous_by_n"),
            total("counts_by_n"),
            uniq[0],
            uniq[1],
            summed,
            k,
        )

    def finish(self) -> CountSums:
        """The float sums, each computed once from the integers in a fixed order."""
        k = self.n_categories
        n = self.n_values.astype(float)
        pairs = np.where(n >= 2, n * (n - 1.0), np.inf)
        p_by_n = self.agree_by_n / pairs
        totals = self.counts_by_n.sum(axis=0).astype(float)
        some = n >= 1
        props = (self.counts_by_n[some] / n[some, None]).sum(axis=0) if some.any() else np.zeros(k)
        order = np.lexsort((self.coinc_n, self.coinc_key))
        key, m, val = self.coinc_key[order], self.coinc_n[order], self.coinc_val[order]
        uniq, first = np.unique(key, return_index=True)
        o_val = np.add.reduceat(val / (m - 1.0), first) if key.size else np.zeros(0)
        return CountSums(
            # unbatched: numpy scalars where a batch has arrays (both index and broadcast alike)
            n_pairable=np.float64(self.items_by_n[n >= 2].sum()),  # type: ignore[arg-type]
            n_items=np.float64(self.items_by_n[some].sum()),  # type: ignore[arg-type]
            sum_p=np.float64(p_by_n.sum()),  # type: ignore[arg-type]
            sum_unanimous=np.float64(self.unanimous_by_n.sum()),  # type: ignore[arg-type]
            sum_props=props,
            totals=totals,
            p_by_n=p_by_n,
            items_by_n=self.items_by_n.astype(float),
            o_row=uniq // max(k, 1),
            o_col=uniq % max(k, 1),
            o_val=o_val,
            n_categories=k,
            n_values=n,
        )


def distinct_values(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, position)``: the distinct non-negative integers of ``n`` ascending and each entry's position among
    them (as ``numpy.unique(..., return_inverse=True)``, by counting when the values are small)."""
    top = int(n.max(initial=0))
    if top <= 4 * n.size + 1024:
        values = np.flatnonzero(np.bincount(n, minlength=1))
        lookup = np.zeros(top + 1, dtype=np.int64)
        lookup[values] = np.arange(values.size)
        return values.astype(np.int64), lookup[n]
    values, position = np.unique(n, return_inverse=True)
    return values.astype(np.int64), position.ravel()


def int_bincount(keys: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Exact integer bincount.

    numpy accumulates weights in float64, which is exact while the sums stay below 2**53; larger sums (count
    tables with huge counts) are added in int64 after a sort, and sums beyond int64 are refused.
    """
    w = np.asarray(weights)
    total = float(np.abs(w).sum()) if w.size else 0.0
    if total < 2.0**53:
        return np.rint(np.bincount(keys, weights=w.astype(float), minlength=size)).astype(np.int64)
    if total >= 2.0**62:
        raise OverflowError(f"integer sums of about {total:.3g} exceed what 64-bit integers hold exactly")
    order = np.argsort(keys, kind="stable")
    k, v = np.asarray(keys)[order], w.astype(np.int64)[order]
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    out = np.zeros(size, dtype=np.int64)
    out[k[starts]] = np.add.reduceat(v, starts)
    return out


def spa_weight_table(n: np.ndarray, scheme: str, n_categories: int, p: np.ndarray) -> np.ndarray:
    """SPA weight of an item with n annotations, for each n in ``n`` (batched over leading axes of ``p``);
    0 for n < 2."""
    n = np.asarray(n, dtype=float)
    if scheme == "flat":
        k = np.ones(n.shape)
    elif scheme == "annotations":
        k = n.copy()
    elif scheme == "annotations_m1":
        k = n - 1.0
    elif scheme == "edges":
        k = n * (n - 1.0) / 2.0
    else:
        if scheme == "inv_var":
            c = max(n_categories, 1)
            p = np.full(c, 1.0 / c)
        q = np.sum(p * p, axis=-1)[..., None]
        r = np.sum(p * p * p, axis=-1)[..., None]
        safe_n = np.maximum(n, 2.0)
        var = variance_from_moments(safe_n, q, r)
        degenerate = q * (1.0 - q) <= EPS
        with np.errstate(divide="ignore", invalid="ignore"):
            k = np.where(degenerate, safe_n * (safe_n - 1.0) / 2.0, 1.0 / np.where(degenerate, 1.0, var))
    return np.where(n >= 2, k, 0.0)
