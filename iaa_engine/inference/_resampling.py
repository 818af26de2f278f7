"""The bootstrap's resampling units as sums that add across partitions (the same intervals in memory and on Dask).

Two kinds of statistics feed :func:`iaa_engine.bootstrap`:

* the count metrics: the items' distinct count vectors (patterns) and how many items share each
  (:func:`pattern_tally`, merged by :func:`merge_patterns`, ordered by :func:`order_patterns` exactly as
  :func:`iaa_engine.inference._inference.count_patterns` orders them);
* multi-coder kappa and the bias B: per resampling unit, the annotators × categories counts and the observed
  agreement's sums (:class:`UnitSums`). Each item's unit comes from a hash of its id (:func:`item_keys`), never
  from its position in the data, so a partition computes its items' share of every unit alone and the shares add.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.stats._tables import ItemCounts

__all__ = ["item_keys", "pattern_tally", "merge_patterns", "order_patterns", "UnitSums", "PATTERN_CELLS"]

#: The count metrics' bootstrap holds the distinct count vectors densely: at most this many cells.
PATTERN_CELLS = 50_000_000


def item_keys(ids: Any) -> np.ndarray:
    """A 64-bit key per item id, a function of the id alone (:func:`pandas.util.hash_array`, SipHash of the text
    of a text id, of the value of a number): the same on every machine, in every partition, for every order."""
    arr = np.asarray(ids)
    if arr.dtype.kind in "iub":
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "fcmM":
        arr = np.asarray(arr, dtype=object)
    return pd.util.hash_array(arr, categorize=False)


def _pattern_keys(counts: ItemCounts) -> tuple[np.ndarray, int, np.ndarray] | None:
    """Each item's counts as one base-``base`` number, exact in float64 sums: ``(keys, base, powers)``, or None
    where the numbers would not be exact (the caller then sorts the dense rows). Refuses a dense table above
    :data:`PATTERN_CELLS` cells."""
    if counts.n_items * max(counts.n_categories, 1) > PATTERN_CELLS:
        raise ValueError(
            f"the bootstrap builds a dense items × categories table; {counts.n_items} × {counts.n_categories} is "
            "too large (more than 50 million cells)"
        )
    c = counts.n_categories
    base = int(counts.count.max(initial=0)) + 1
    if c * np.log2(max(base, 2)) >= 52:
        return None
    powers = base ** np.arange(c, dtype=np.int64)
    keys = np.bincount(counts.item, weights=counts.count * powers[counts.category], minlength=counts.n_items).astype(
        np.int64
    )
    return keys, base, powers


def pattern_tally(counts: ItemCounts) -> tuple[np.ndarray, np.ndarray]:
    """The distinct count vectors of ``counts``' items (dense rows) and how many items share each, in the order of
    :func:`order_patterns` (a partition's share of the tally; :func:`merge_patterns` adds shares)."""
    packed = _pattern_keys(counts)
    if packed is not None:
        keys, base, powers = packed
        c = counts.n_categories
        if base**c <= 1 << 24:  # a tally instead of a sort (same order: by key)
            tally = np.bincount(keys)
            uniq = np.flatnonzero(tally)
            mult = tally[uniq]
        else:
            uniq, mult = np.unique(keys, return_counts=True)
        return (uniq[:, None] // powers) % base, mult
    uniq_rows, mult = np.unique(counts.to_dense(), axis=0, return_counts=True)
    return uniq_rows, mult


#: The tally of (annotation cell, count pattern) pairs behind Conger's kappa's standard error holds at most this many.
ENTRY_PATTERN_CELLS = 1 << 22


def entry_patterns(
    counts: ItemCounts, item: np.ndarray, cell: np.ndarray
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray] | None]:
    """A partition's count patterns (rows, multiplicities) and, per annotation cell (``cell``: annotator · C +
    label) and pattern, how many of its items with that pattern carry that annotation: ``(cells, patterns,
    counts)`` (None above :data:`ENTRY_PATTERN_CELLS` entries)."""
    packed = _pattern_keys(counts)
    if packed is not None:
        keys, base, powers = packed
        uniq, inverse, mult = np.unique(keys, return_inverse=True, return_counts=True)
        rows = (uniq[:, None] // powers) % base
    else:
        rows, inverse, mult = np.unique(counts.to_dense(), axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    n_pat = rows.shape[0]
    tally = None
    if cell.size:
        key, n = _tally(cell.astype(np.int64) * n_pat + inverse[item], (int(cell.max()) + 1) * n_pat)
        if key.size <= ENTRY_PATTERN_CELLS:
            e, pat = np.divmod(key, n_pat)
            tally = (e, pat, n.astype(np.int64))
    return (rows.astype(np.int64), mult.astype(np.int64)), tally


def merge_entry_patterns(
    parts: Sequence[tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray] | None]],
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray] | None]:
    """Add the shares of :func:`entry_patterns` (patterns merged by row; the cells' pattern codes follow)."""
    rows = np.concatenate([p[0][0] for p in parts])
    mult = np.concatenate([p[0][1] for p in parts])
    uniq, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    merged = (uniq, np.bincount(inverse, weights=mult, minlength=uniq.shape[0]).astype(np.int64))
    if any(p[1] is None for p in parts):
        return merged, None
    offsets = np.cumsum([0] + [p[0][0].shape[0] for p in parts[:-1]])
    e = np.concatenate([p[1][0] for p in parts])  # type: ignore[index]
    pat = np.concatenate([inverse[p[1][1] + o] for p, o in zip(parts, offsets)])  # type: ignore[index]
    n = np.concatenate([p[1][2] for p in parts])  # type: ignore[index]
    key, back = np.unique(e * uniq.shape[0] + pat, return_inverse=True)
    if key.size > ENTRY_PATTERN_CELLS:
        return merged, None
    e, pat = np.divmod(key, uniq.shape[0])
    return merged, (e, pat, np.bincount(back.ravel(), weights=n, minlength=key.size).astype(np.int64))


def merge_patterns(parts: Sequence[tuple[np.ndarray, np.ndarray] | None]) -> tuple[np.ndarray, np.ndarray] | None:
    """Add tallies of disjoint item sets (None: a share that could not be tallied, which makes the sum None)."""
    if any(p is None for p in parts):
        return None
    shares = [p for p in parts if p is not None and p[1].size]
    if not shares:
        return parts[0] if parts else None
    rows = np.concatenate([p[0] for p in shares])
    mult = np.concatenate([p[1] for p in shares])
    uniq, inverse = np.unique(rows, axis=0, return_inverse=True)
    return uniq, np.bincount(inverse.ravel(), weights=mult, minlength=uniq.shape[0]).astype(np.int64)


def order_patterns(rows: np.ndarray, mult: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tally in :func:`count_patterns`' order: by the base-b number whose digit k is category k's count
    (b = the largest count + 1; the last category most significant) while that number fits in 52 bits, else rows
    in lexicographic order (first category first)."""
    order = pattern_order(rows)
    return rows[order], mult[order]


def pattern_order(rows: np.ndarray) -> np.ndarray:
    """The permutation that puts distinct count vectors in :func:`count_patterns`' order (:func:`order_patterns`)."""
    c = rows.shape[1]
    base = int(rows.max(initial=0)) + 1
    if c * np.log2(max(base, 2)) < 52:
        return np.lexsort(rows.T)  # the last key (category c - 1) primary: the order of the base-b numbers
    return np.lexsort(rows.T[::-1])


@dataclass
class UnitSums:
    """Multi-coder kappa's and the bias's sums per resampling unit, additive over disjoint item sets.

    With ``blocks`` units at most (:func:`annotator_blocks` of the data's annotators and categories), item i's
    block is ``item_keys(id_i) % blocks``. Per block: the annotators × categories counts (``cells``: sparse
    ``block · A·C + annotator · C + label`` keys and counts) and, per number of annotations n ≥ 2, the pairable
    items and their integer sum of :math:`\\sum_k n_{ik}^2 - n` (``pairs``: keys ``n · blocks + block``, the items
    and the sums), from which the sum of :math:`P_i` per block is finished in one fixed order. While the items
    are at most ``blocks``, each item is its own unit: ``items`` keeps their keys, :math:`n_i`,
    :math:`\\sum_k n_{ik}^2` and their (item, annotator · C + label) entries.
    """

    blocks: int
    n_items: int
    n_ann: int
    n_cat: int
    cells: tuple[np.ndarray, np.ndarray]
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray]
    items: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None

    @classmethod
    def from_codes(
        cls,
        keys: np.ndarray,
        item: np.ndarray,
        annotator: np.ndarray,
        label: np.ndarray,
        counts: ItemCounts,
        n_ann: int,
        n_cat: int,
        blocks: int,
    ) -> UnitSums:
        """One partition's sums (``keys``: :func:`item_keys` of its items, in its item codes' order)."""
        n_items = counts.n_items
        block = (keys % np.uint64(blocks)).astype(np.int64)
        ac = n_ann * n_cat
        cells = _tally(block[item] * ac + annotator * n_cat + label, blocks * ac)
        n_i = counts.n_i
        sq = counts.sumsq_i
        ok = n_i >= 2
        pk, inverse = np.unique(n_i[ok].astype(np.int64) * blocks + block[ok], return_inverse=True)
        pairs = (
            pk,
            np.bincount(inverse, minlength=pk.size).astype(np.int64),
            np.bincount(inverse, weights=(sq - n_i)[ok], minlength=pk.size).astype(np.int64),
        )  # sparse: a partition holds a few of the (n, block) cells
        per_item = None
        if n_items <= blocks:
            per_item = (keys.astype(np.uint64), n_i, sq, item.astype(np.int64), annotator * n_cat + label)
        return cls(blocks, n_items, n_ann, n_cat, (cells[0], cells[1].astype(np.int64)), pairs, per_item)

    @classmethod
    def combine(cls, parts: Sequence[UnitSums]) -> UnitSums:
        """The sums of disjoint item sets."""
        first = parts[0]
        n_items = sum(p.n_items for p in parts)
        cells = _add_keyed([p.cells[0] for p in parts], [p.cells[1] for p in parts])
        pk = np.concatenate([p.pairs[0] for p in parts])
        uniq, inverse = np.unique(pk, return_inverse=True)
        pairs = (
            uniq,
            np.bincount(inverse, weights=np.concatenate([p.pairs[1] for p in parts]), minlength=uniq.size).astype(
                np.int64
            ),
            np.bincount(inverse, weights=np.concatenate([p.pairs[2] for p in parts]), minlength=uniq.size).astype(
                np.int64
            ),
        )
        per_item = None
        if n_items <= first.blocks and all(p.items is not None for p in parts):
            offsets = np.cumsum([0] + [p.n_items for p in parts[:-1]])
            held = [p.items for p in parts if p.items is not None]
            per_item = (
                np.concatenate([h[0] for h in held]),
                np.concatenate([h[1] for h in held]),
                np.concatenate([h[2] for h in held]),
                np.concatenate([h[3] + o for h, o in zip(held, offsets)]),
                np.concatenate([h[4] for h in held]),
            )
        return cls(first.blocks, n_items, first.n_ann, first.n_cat, cells, pairs, per_item)

    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The (n, block) sums as :func:`pair_tables` gives them."""
        keys, n_ok, agree = self.pairs
        n, block = np.divmod(keys, self.blocks)
        values, row = np.unique(n, return_inverse=True)
        items = np.zeros((values.size, self.blocks))
        sums = np.zeros((values.size, self.blocks))
        items[row, block] = n_ok
        sums[row, block] = agree
        return values, items, sums


def _tally(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` (in ``[0, size)``) in ascending order and how often each occurs: counted (no sort)
    while ``size`` is at most the number of keys (then a count beats numpy's sort), else sorted."""
    if size <= max(keys.size, 1 << 16):
        tally = np.bincount(keys, minlength=size)
        uniq = np.flatnonzero(tally)
        return uniq, tally[uniq]
    return np.unique(keys, return_counts=True)


def _add_keyed(keys: list[np.ndarray], values: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    k = np.concatenate(keys)
    uniq, inverse = np.unique(k, return_inverse=True)
    return uniq, np.bincount(inverse, weights=np.concatenate(values), minlength=uniq.size).astype(np.int64)


def pair_tables(n_i: np.ndarray, agree: np.ndarray, block: np.ndarray, blocks: int) -> tuple:
    """``(values, items, sums)``: per distinct n ≥ 2 (``values``, ascending) and block, the pairable items and their
    integer sum of :math:`\\sum_k n_{ik}^2 - n_i` (``agree``), as two (values, blocks) float tables (counting, no
    sort, while n is small)."""
    ok = n_i >= 2
    n, a, b = n_i[ok].astype(np.int64), agree[ok], block[ok]
    top = int(n.max(initial=0))
    if top <= 4 * n.size + 1024:
        present = np.bincount(n, minlength=top + 1) > 0
        values = np.flatnonzero(present)
        row = (np.cumsum(present) - 1)[n]
    else:
        values, row = np.unique(n, return_inverse=True)
    key = row * blocks + b
    size = values.size * blocks
    items = np.bincount(key, minlength=size).reshape(values.size, blocks).astype(float)
    sums = np.bincount(key, weights=a, minlength=size).reshape(values.size, blocks)
    return values, items, sums


def block_features(values: np.ndarray, items: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """``(blocks, 2)``: per block the pairable items and the sum of their :math:`P_i = (\\sum_k n_{ik}^2 - n_i) /
    (n_i(n_i - 1))`, finished from the integer sums per (n, block) of :func:`pair_tables` in one order (by n), so
    that the same sums give the same floats wherever they were added."""
    fv = values.astype(float)
    p = sums / (fv * (fv - 1.0))[:, None]
    return np.stack([items.sum(axis=0), p.sum(axis=0)], axis=1)


def item_p(n_i: np.ndarray, sumsq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: pairable (n ≥ 2, as 0/1) and :math:`P_i` (0 where not pairable)."""
    ok = n_i >= 2
    p = np.zeros(n_i.size)
    p[ok] = (sumsq[ok] - n_i[ok]) / (n_i[ok] * (n_i[ok] - 1.0))
    return ok.astype(float), p
