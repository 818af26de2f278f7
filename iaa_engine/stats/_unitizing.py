"""Sufficient sums of Krippendorff's unitizing alpha (α_U), per document and category and pooled per category.

The units are arrays (document, annotator, category codes; begin and end relative to the document's begin). For
category c and R annotators Krippendorff (1995; 2004, §12.4) defines on a continuum of length L

* the observed disagreement ``D_o(c) = Σ_i Σ_{j≠i} Σ_g Σ_h δ²(g, h) / (R (R-1) L²)`` over the segments g of
  annotator i and h of annotator j (units of c and the gaps between them), with δ² = (b_g - b_h)² + (e_g - e_h)²
  for two units that overlap (b_g < e_h and b_h < e_g), l_g² for a unit g that lies inside a gap h, and 0
  otherwise;
* the expected disagreement ``D_e(c) = (2/L) Σ_u [(N_c - 1) l_u(l_u-1)(2l_u-1)/3 + l_u² Σ_{gaps g ≥ l_u}
  (g - l_u + 1)] / (R L (R L - 1) - Σ_u l_u(l_u - 1))`` over the N_c units u of c and the gaps of every annotator.

The observed numerator adds over documents. The expected one does not (every unit meets every gap of the whole
continuum), so its parts are kept as what combines: unit counts and the sums Σ l(l-1)(2l-1)/3 and Σ l(l-1), and the
unit × gap term evaluated on sorted gap lengths with prefix sums (a unit's gaps ≥ l are a suffix: no unit × gap
loop). A document's gaps end at its boundaries (a unit cannot cross one), so the pooled sums do not depend on the
order of the documents. No Python loop runs over units: searches in sorted composite keys find, for every unit and
every other annotator, the units it overlaps (a contiguous run, because one annotator's units of one category do
not overlap) and the gaps at least as long as it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

__all__ = ["UnitizingSums", "unitizing_sums", "LeaveOneOutSums", "leave_one_out_sums", "concatenated_expected"]


@dataclass(frozen=True, eq=False)
class UnitizingSums:
    """The sums α_U needs, per (document, category) pair that holds a unit and pooled per category.

    Attributes
    ----------
    pair_document, pair_category : int arrays (P,)
        The document and category code of each pair that holds at least one unit (sorted).
    pair_units : float (P,)
        Units of the pair.
    pair_observed : float (P,)
        Σ over ordered annotator pairs and their segments of δ² (the numerator of D_o before R(R-1)L²).
    pair_expected : float (P,)
        The numerator of D_e before 2/L: (N - 1) Σ l(l-1)(2l-1)/3 + Σ_u l_u² Σ_{g ≥ l_u} (g - l_u + 1).
    pair_squares : float (P,)
        Σ l(l - 1) over the pair's units (subtracted in D_e's denominator).
    category_units, category_observed, category_expected, category_squares : float (C,)
        The same for each category over all documents laid end to end.
    pair_involving : float (P, R) or None
        With ``involving=True``: the part of ``pair_observed`` from the ordered pairs that involve each rater code
        (every term involves two raters and is counted for both), so that leaving rater r out of the pair's document
        removes ``pair_involving[:, r]`` from its observed sum.
    """

    pair_document: np.ndarray
    pair_category: np.ndarray
    pair_units: np.ndarray
    pair_observed: np.ndarray
    pair_expected: np.ndarray
    pair_squares: np.ndarray
    category_units: np.ndarray
    category_observed: np.ndarray
    category_expected: np.ndarray
    category_squares: np.ndarray
    pair_involving: np.ndarray | None = None


def _ranks(values: np.ndarray, *queries: np.ndarray) -> tuple[int, list[np.ndarray]]:
    """Integer ranks of ``queries`` in the sorted distinct ``values`` (exact for floats: no arithmetic on them)."""
    distinct, inverse = np.unique(values, return_inverse=True)
    inverse = inverse.reshape(-1)
    if sum(q.size for q in queries) == values.size:  # the queries are ``values`` cut in pieces: one sort serves all
        cuts = np.cumsum([q.size for q in queries])[:-1]
        return distinct.size + 1, list(np.split(inverse, cuts))
    return distinct.size + 1, [np.searchsorted(distinct, q) for q in queries]


def _tail_sums(
    item_group: np.ndarray,
    item_value: np.ndarray,
    item_weight: np.ndarray,
    query_group: np.ndarray,
    query_value: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """For each query: Σ w·v and Σ w over the items of its group whose value is ≥ the query's value.

    One sort of the items by (group, value), prefix sums, and two searches per query in composite integer keys
    (group × rank of the value): O((items + queries) log items).
    """
    if item_value.size == 0 or query_value.size == 0:
        return np.zeros(query_value.size), np.zeros(query_value.size)
    m, (item_rank, query_rank) = _ranks(np.concatenate([item_value, query_value]), item_value, query_value)
    item_key = item_group.astype(np.int64) * m + item_rank
    order = np.argsort(item_key, kind="stable")
    item_key = item_key[order]
    weight = item_weight[order].astype(float)
    csum_w = np.concatenate([[0.0], np.cumsum(weight)])
    csum_v = np.concatenate([[0.0], np.cumsum(weight * item_value[order])])
    group = query_group.astype(np.int64)
    first = np.searchsorted(item_key, group * m + query_rank, side="left")
    stop = np.searchsorted(item_key, (group + 1) * m, side="left")
    return csum_v[stop] - csum_v[first], csum_w[stop] - csum_w[first]


def unitizing_sums(
    document: np.ndarray,
    rater: np.ndarray,
    category: np.ndarray,
    begin: np.ndarray,
    end: np.ndarray,
    document_length: np.ndarray,
    n_raters: int,
    n_categories: int,
    document_raters: np.ndarray | None = None,
    involving: bool = False,
) -> UnitizingSums:
    """The sums of :class:`UnitizingSums` for units given by their codes and positions.

    ``begin`` and ``end`` are relative to the begin of the unit's document (0 ≤ begin ≤ end ≤ that document's
    length); one annotator's units of one category in one document must not overlap (b_next ≥ every earlier end):
    the converter (:mod:`iaa_engine.data._spans`) refuses or merges them before this runs.

    ``rater`` codes run over ``n_raters``; ``document_raters`` (optional) is the number R_d of raters taking part in
    each document (default ``n_raters`` everywhere): only those raters' gaps count in the expected sums (a rater
    without a unit of a category in a document contributes one whole-document gap there only if they took part).
    The observed sums need no R_d: they visit the pairs of raters with units, whatever their number.
    """
    R = int(n_raters)
    n_cat = int(n_categories)
    document_length = np.asarray(document_length, dtype=float)
    doc_raters: np.ndarray
    if document_raters is None:
        doc_raters = np.full(document_length.size, float(R))
    else:
        doc_raters = np.asarray(document_raters, dtype=float)
    n = int(np.size(begin))
    empty = np.zeros(0)
    if n == 0:
        zeros = np.zeros(n_cat)
        return UnitizingSums(
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
            empty,
            empty,
            empty,
            empty,
            zeros,
            zeros,
            zeros,
            zeros,
            np.zeros((0, R)) if involving else None,
        )
    order = np.lexsort((end, begin, rater, category, document))
    d = np.asarray(document, np.int64)[order]
    c = np.asarray(category, np.int64)[order]
    r = np.asarray(rater, np.int64)[order]
    b = np.asarray(begin, float)[order]
    e = np.asarray(end, float)[order]
    length = e - b

    pair_key, pair = np.unique(d * n_cat + c, return_inverse=True)
    pair = pair.reshape(-1)
    n_pairs = pair_key.size
    pair_doc, pair_cat = pair_key // n_cat, pair_key % n_cat
    group = pair * R + r  # (document, category, annotator): non-decreasing in the sorted order

    # --- observed: for each unit u and each other annotator j, j's units overlapping u are one run [lo, hi)
    m, (rank_b, rank_e) = _ranks(np.concatenate([b, e]), b, e)
    key_begin = group * m + rank_b
    key_end = group * m + rank_e  # sorted too: within a group ends never decrease (no overlaps)
    observed = np.zeros(n_pairs)
    involved = np.zeros(n_pairs * R) if involving else None
    if R >= 2:
        # one block of queries per shift k (other = (r + k) mod R): each block is nearly sorted, which searchsorted
        # exploits; a loop over annotators, not over units
        unit = np.tile(np.arange(n), R - 1)
        other = (np.tile(r, R - 1) + np.repeat(np.arange(1, R, dtype=np.int64), n)) % R
        target = pair[unit] * R + other
        hi = np.searchsorted(key_begin, target * m + rank_e[unit], side="left")
        lo = np.searchsorted(key_end, target * m + rank_b[unit], side="right")
        count = np.maximum(hi - lo, 0)
        # raters are codes 0 .. R_d - 1 of the document (slots, with participants): a code beyond is nobody
        present = other < doc_raters[d[unit]]
        # a unit inside another annotator's gap: l² (counted for (i, j) and again, mirrored, for (j, i))
        alone = (count == 0) & present
        observed += 2.0 * np.bincount(pair[unit[alone]], weights=length[unit[alone]] ** 2, minlength=n_pairs)
        if involved is not None:
            w = 2.0 * length[unit[alone]] ** 2
            p_alone = pair[unit[alone]] * R
            involved += np.bincount(p_alone + r[unit[alone]], weights=w, minlength=n_pairs * R)
            involved += np.bincount(p_alone + other[alone], weights=w, minlength=n_pairs * R)
        # overlapping units: (b_u - b_v)² + (e_u - e_v)², every ordered pair once
        total = int(count.sum())
        if total:
            u = np.repeat(unit, count)
            start = np.repeat(lo, count)
            v = start + np.arange(total) - np.repeat(np.cumsum(count) - count, count)
            delta = (b[u] - b[v]) ** 2 + (e[u] - e[v]) ** 2
            observed += np.bincount(pair[u], weights=delta, minlength=n_pairs)
            if involved is not None:
                involved += np.bincount(pair[u] * R + r[u], weights=delta, minlength=n_pairs * R)
                involved += np.bincount(pair[u] * R + r[v], weights=delta, minlength=n_pairs * R)

    # --- expected: the units' sums and their gaps
    cubes = length * (length - 1.0) * (2.0 * length - 1.0) / 3.0
    squares = length * (length - 1.0)
    pair_units = np.bincount(pair, minlength=n_pairs).astype(float)
    pair_cubes = np.bincount(pair, weights=cubes, minlength=n_pairs)
    pair_squares = np.bincount(pair, weights=squares, minlength=n_pairs)

    # gaps of each (document, category, annotator) with units: before the first unit, between units, after the last
    new_group = np.concatenate([[True], group[1:] != group[:-1]])
    last = np.concatenate([group[1:] != group[:-1], [True]])
    previous_end = np.concatenate([[0.0], e[:-1]])
    previous_end[new_group] = 0.0
    inner = b - previous_end
    trailing = document_length[d[last]] - e[last]
    gap_length = np.concatenate([inner, trailing])
    gap_pair = np.concatenate([pair, pair[last]])
    keep = gap_length > 0
    gap_length, gap_pair = gap_length[keep], gap_pair[keep]
    # annotators without a unit of the category in the document: the whole document is one gap
    raters_with_units = np.bincount(pair[new_group], minlength=n_pairs).astype(float)
    pair_length = document_length[pair_doc]

    # per (document, category): explicit gaps and R - k whole-document gaps
    s, w = _tail_sums(
        np.concatenate([gap_pair, np.arange(n_pairs)]),
        np.concatenate([gap_length, pair_length]),
        np.concatenate([np.ones(gap_length.size), doc_raters[pair_doc] - raters_with_units]),
        pair,
        length,
    )
    cross = length**2 * (s - (length - 1.0) * w)
    pair_expected = (pair_units - 1.0) * pair_cubes + np.bincount(pair, weights=cross, minlength=n_pairs)

    # pooled per category: explicit gaps, whole documents for every annotator (R per document) less the k_dc
    # annotators who have units in (d, c)
    unit_cat = pair_cat[pair]
    s, w = _tail_sums(
        np.concatenate([pair_cat[gap_pair], pair_cat]),
        np.concatenate([gap_length, pair_length]),
        np.concatenate([np.ones(gap_length.size), -raters_with_units]),
        unit_cat,
        length,
    )
    s_all, w_all = _tail_sums(
        np.zeros(document_length.size, np.int64),
        document_length,
        doc_raters,
        np.zeros(n, np.int64),
        length,
    )
    cross = length**2 * ((s + s_all) - (length - 1.0) * (w + w_all))
    category_units = np.bincount(pair_cat, weights=pair_units, minlength=n_cat)
    category_cubes = np.bincount(pair_cat, weights=pair_cubes, minlength=n_cat)
    category_expected = (category_units - 1.0) * category_cubes + np.bincount(unit_cat, weights=cross, minlength=n_cat)
    return UnitizingSums(
        pair_document=pair_doc,
        pair_category=pair_cat,
        pair_units=pair_units,
        pair_observed=observed,
        pair_expected=pair_expected,
        pair_squares=pair_squares,
        category_units=category_units,
        category_observed=np.bincount(pair_cat, weights=observed, minlength=n_cat),
        category_expected=category_expected,
        category_squares=np.bincount(pair_cat, weights=pair_squares, minlength=n_cat),
        pair_involving=None if involved is None else involved.reshape(n_pairs, R),
    )


@dataclass(frozen=True, eq=False)
class LeaveOneOutSums:
    """The pooled sums of α_U with each annotator left out of every document, per (annotator, category).

    ``observed`` is Σ_d O_d(c) / (R_d - 1) (the coincidence form's numerator), ``expected`` and ``squares`` as
    :class:`UnitizingSums`'s ``category_expected`` and ``category_squares``; ``positions`` N = Σ_d R_d L_d and
    ``length`` L over the documents that keep two raters or more. Arrays (A, C) and (A,).
    """

    observed: np.ndarray
    expected: np.ndarray
    squares: np.ndarray
    positions: np.ndarray
    length: np.ndarray


def _head_sums(
    item_group: np.ndarray, item_value: np.ndarray, query_group: np.ndarray, query_value: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each query: the count, Σ v² and Σ v³ over the items of its group whose value is ≤ the query's value."""
    if item_value.size == 0 or query_value.size == 0:
        zeros = np.zeros(query_value.size)
        return zeros, zeros, zeros
    m, (item_rank, query_rank) = _ranks(np.concatenate([item_value, query_value]), item_value, query_value)
    item_key = item_group.astype(np.int64) * m + item_rank
    order = np.argsort(item_key, kind="stable")
    item_key = item_key[order]
    v = item_value[order].astype(float)
    c1 = np.concatenate([[0.0], np.cumsum(np.ones(v.size))])
    c2 = np.concatenate([[0.0], np.cumsum(v * v)])
    c3 = np.concatenate([[0.0], np.cumsum(v * v * v)])
    group = query_group.astype(np.int64)
    first = np.searchsorted(item_key, group * m, side="left")
    stop = np.searchsorted(item_key, group * m + query_rank, side="right")
    return c1[stop] - c1[first], c2[stop] - c2[first], c3[stop] - c3[first]


def leave_one_out_sums(
    document: np.ndarray,
    annotator: np.ndarray,
    slot: np.ndarray,
    category: np.ndarray,
    begin: np.ndarray,
    end: np.ndarray,
    document_length: np.ndarray,
    document_raters: np.ndarray,
    participant_document: np.ndarray,
    participant_annotator: np.ndarray,
    participant_slot: np.ndarray,
    sums: UnitizingSums,
    n_annotators: int,
    n_categories: int,
) -> LeaveOneOutSums:
    """The pooled sums of α_U without each annotator, from the sums with everyone (no recomputation per annotator).

    The units are those of documents with R_d ≥ 2 (``document_raters``), their ``slot`` the rater codes ``sums``
    was computed with (``involving=True``), ``annotator`` the study's codes; participants are (document,
    annotator, slot) triples. Leaving annotator a out removes a's units and gaps, and in a document where a is one
    of two raters the other's too (the document then has no pair). The unit × gap sum of the expected disagreement
    is a sum over (unit, gap) pairs with l_u ≤ G of l_u² (G - l_u + 1): without a it is the total, less the pairs
    whose unit is removed, less those whose gap is removed, plus those whose unit and gap both are (each a sorted
    search: no loop over units or annotators). The observed sum of a's documents loses the terms involving a and
    is re-weighed by 1/(R_d - 2).
    """
    A, C = int(n_annotators), int(n_categories)
    Ld = np.asarray(document_length, float)
    Rd = np.asarray(document_raters, float)
    document = np.asarray(document, np.int64)
    annotator = np.asarray(annotator, np.int64)
    category = np.asarray(category, np.int64)
    begin = np.asarray(begin, float)
    end = np.asarray(end, float)
    p_doc = np.asarray(participant_document, np.int64)
    p_ann = np.asarray(participant_annotator, np.int64)
    p_slot = np.asarray(participant_slot, np.int64)
    used_p = Rd[p_doc] >= 2
    p_doc, p_ann, p_slot = p_doc[used_p], p_ann[used_p], p_slot[used_p]
    length = end - begin

    # --- the gaps, explicitly: inner and trailing gaps of each (document, category, annotator) with units, and a
    # whole-document gap for each participant without a unit of the category in the document
    order = np.lexsort((end, begin, annotator, category, document))
    d, c, a = document[order], category[order], annotator[order]
    b, e = begin[order], end[order]
    if order.size:
        new = np.concatenate([[True], (d[1:] != d[:-1]) | (c[1:] != c[:-1]) | (a[1:] != a[:-1])])
        last = np.concatenate([new[1:], [True]])
        previous = np.concatenate([[0.0], e[:-1]])
        previous[new] = 0.0
        g_len = np.concatenate([b - previous, Ld[d[last]] - e[last]])
        g_doc = np.concatenate([d, d[last]])
        g_cat = np.concatenate([c, c[last]])
        g_ann = np.concatenate([a, a[last]])
        has_key = np.unique((d[new] * C + c[new]) * A + a[new])
    else:
        g_len = g_doc = g_cat = g_ann = np.zeros(0, np.int64)
        has_key = np.zeros(0, np.int64)
    whole_doc = np.repeat(p_doc, C)
    whole_cat = np.tile(np.arange(C, dtype=np.int64), p_doc.size)
    whole_ann = np.repeat(p_ann, C)
    missing = ~np.isin((whole_doc * C + whole_cat) * A + whole_ann, has_key)
    g_len = np.concatenate([np.asarray(g_len, float), Ld[whole_doc[missing]]])
    g_doc = np.concatenate([g_doc, whole_doc[missing]]).astype(np.int64)
    g_cat = np.concatenate([g_cat, whole_cat[missing]]).astype(np.int64)
    g_ann = np.concatenate([g_ann, whole_ann[missing]]).astype(np.int64)
    keep = g_len > 0
    g_len, g_doc, g_cat, g_ann = g_len[keep], g_doc[keep], g_cat[keep], g_ann[keep]

    # --- who removes what: an item goes with its owner, and in a two-rater document with the other rater too
    doc_start = np.searchsorted(p_doc, np.arange(Ld.size))
    two = Rd == 2

    def attributed(doc: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(item index, annotator whose leaving removes it): the owner, and the other of a two-rater document."""
        idx = np.arange(doc.size)
        pair = two[doc]
        first = p_ann[doc_start[doc[pair]]]
        second = p_ann[doc_start[doc[pair]] + 1]
        other = np.where(first == owner[pair], second, first)
        return np.concatenate([idx, idx[pair]]), np.concatenate([owner, other])

    u_idx, u_by = attributed(document, annotator)
    g_idx, g_by = attributed(g_doc, g_ann)

    # --- expected: unit × gap pairs
    s, w = _tail_sums(g_cat, g_len, np.ones(g_len.size), category, length)
    x = length**2 * (s - (length - 1.0) * w)  # l² Σ_{G ≥ l} (G - l + 1) over every gap
    _, s2, s3 = _head_sums(category, length, g_cat, g_len)
    q = (g_len + 1.0) * s2 - s3  # Σ_{u: l ≤ G} l² (G - l + 1) over every unit
    cubes = length * (length - 1.0) * (2.0 * length - 1.0) / 3.0
    squares = length * (length - 1.0)
    total_x = np.bincount(category, weights=x, minlength=C)
    total_units = np.bincount(category, minlength=C).astype(float)
    total_cubes = np.bincount(category, weights=cubes, minlength=C)
    total_squares = np.bincount(category, weights=squares, minlength=C)

    key_u = u_by * C + category[u_idx]
    key_g = g_by * C + g_cat[g_idx]
    AC = A * C
    removed_units = np.bincount(key_u, minlength=AC).astype(float)
    removed_cubes = np.bincount(key_u, weights=cubes[u_idx], minlength=AC)
    removed_squares = np.bincount(key_u, weights=squares[u_idx], minlength=AC)
    removed_x = np.bincount(key_u, weights=x[u_idx], minlength=AC)
    removed_q = np.bincount(key_g, weights=q[g_idx], minlength=AC)
    s, w = _tail_sums(key_g, g_len[g_idx], np.ones(g_idx.size), key_u, length[u_idx])
    ul = length[u_idx]
    both = np.bincount(key_u, weights=ul**2 * (s - (ul - 1.0) * w), minlength=AC)
    units_left = np.tile(total_units, A) - removed_units
    cubes_left = np.tile(total_cubes, A) - removed_cubes
    cross_left = np.tile(total_x, A) - removed_x - removed_q + both
    expected = (units_left - 1.0) * cubes_left + cross_left
    squares_left = np.tile(total_squares, A) - removed_squares

    # --- observed: Σ_d O_d(c) / (R_d - 1), a's documents re-weighed without the terms involving a
    P = sums.pair_document.size
    pair_doc, pair_cat = sums.pair_document, sums.pair_category
    pair_w = sums.pair_observed / np.maximum(Rd[pair_doc] - 1.0, 1.0)
    total_o = np.bincount(pair_cat, weights=pair_w, minlength=C)
    # each participation (d, a, slot) over the (d, c) pairs of its document
    pair_start = np.searchsorted(pair_doc, np.arange(Ld.size))
    pair_count = np.bincount(pair_doc, minlength=Ld.size)[p_doc]
    rows = np.repeat(np.arange(p_doc.size), pair_count)
    pidx = (
        np.repeat(pair_start[p_doc], pair_count)
        + np.arange(rows.size)
        - np.repeat(np.cumsum(pair_count) - pair_count, pair_count)
    )
    if P:
        left = sums.pair_observed[pidx] - cast(np.ndarray, sums.pair_involving)[pidx, p_slot[rows]]
    else:
        left = np.zeros(0)
    r_d = Rd[pair_doc[pidx]]
    change = np.where(r_d >= 3, left / np.maximum(r_d - 2.0, 1.0), 0.0) - pair_w[pidx]
    observed = np.tile(total_o, A) + np.bincount(p_ann[rows] * C + pair_cat[pidx], weights=change, minlength=AC)

    # --- positions and length
    N = float(np.sum((Rd * Ld)[Rd >= 2]))
    L = float(np.sum(Ld[Rd >= 2]))
    lost_n = np.bincount(p_ann, weights=Ld[p_doc] * np.where(Rd[p_doc] == 2, 2.0, 1.0), minlength=A)
    lost_l = np.bincount(p_ann, weights=Ld[p_doc] * (Rd[p_doc] == 2), minlength=A)
    return LeaveOneOutSums(
        observed=observed.reshape(A, C),
        expected=expected.reshape(A, C),
        squares=squares_left.reshape(A, C),
        positions=N - lost_n,
        length=L - lost_l,
    )


def concatenated_expected(
    rater: np.ndarray,
    category: np.ndarray,
    begin: np.ndarray,
    end: np.ndarray,
    total_length: float,
    n_raters: int,
    n_categories: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The expected sums (numerator of D_e before 2/L, and Σ l(l - 1)) per category of one continuum of length
    ``total_length`` holding every unit at its position in it (documents laid end to end, as INCEpTION and DKPro
    Agreement do), for ``n_raters`` raters. Only the gaps differ from :func:`unitizing_sums`' pooled sums (a rater's
    last gap of one document runs on into the next), and the observed sums are the same, so only these are computed:
    one sort of the units by (category, rater, position) and one search per unit.
    """
    C, R = int(n_categories), int(n_raters)
    rater = np.asarray(rater, np.int64)
    category = np.asarray(category, np.int64)
    begin = np.asarray(begin, float)
    end = np.asarray(end, float)
    length = end - begin
    cubes = length * (length - 1.0) * (2.0 * length - 1.0) / 3.0
    squares = length * (length - 1.0)
    units = np.bincount(category, minlength=C).astype(float)
    if begin.size == 0:
        return np.zeros(C), np.zeros(C)
    order = np.lexsort((end, begin, rater, category))
    c, r, b, e = category[order], rater[order], begin[order], end[order]
    new = np.concatenate([[True], (c[1:] != c[:-1]) | (r[1:] != r[:-1])])
    last = np.concatenate([new[1:], [True]])
    previous = np.concatenate([[0.0], e[:-1]])
    previous[new] = 0.0
    gap_length = np.concatenate([b - previous, total_length - e[last]])
    gap_cat = np.concatenate([c, c[last]])
    keep = gap_length > 0
    # raters without a unit of the category: the whole continuum is one gap
    raters_with = np.bincount(c[new], minlength=C)
    gap_length = np.concatenate([gap_length[keep], np.full(C, float(total_length))])
    gap_cat = np.concatenate([gap_cat[keep], np.arange(C)])
    weight = np.concatenate([np.ones(int(keep.sum())), (R - raters_with).astype(float)])
    s, w = _tail_sums(gap_cat, gap_length, weight, category, length)
    cross = length**2 * (s - (length - 1.0) * w)
    expected = (units - 1.0) * np.bincount(category, weights=cubes, minlength=C) + np.bincount(
        category, weights=cross, minlength=C
    )
    return expected, np.bincount(category, weights=squares, minlength=C)
