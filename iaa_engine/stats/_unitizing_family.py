"""Sufficient sums of Krippendorff, Mathet, Bouvry and Widlöcher's (2016) unitizing family: uα, |uα, cuα, (k)uα.

Each annotator (coder) i of m partitions a document's continuum into segments: its units (valued c = 1..C) and
the gaps between them (the value ∅, coded 0 here). The observed coincidences are lengths of intersections
(Krippendorff et al. 2016, eq. 1; Krippendorff 2019, §12.6):

    l_ck = 1/(m-1) Σ_i Σ_{j≠i} Σ_g Σ_h |s_ig ∩ s_jh|      (g valued c by i, h valued k by j)

so the margin l_c. is the total length the annotators gave value c and l.. = m L. They add over documents. The
expected coincidences need, besides the margins, the self-pairing sums S_c = Σ_i Σ_{g valued c} l_g² for valued c
and S_∅ = l_∅. (a gap is taken as l single-length pieces, not as one unit), and for cuα the same over the
intersections with the other annotators' units: unit g of annotator i adds y_g = Σ_{j≠i} x_ijg / (m-1) to the
margins of cuα's matrix (x_ijg the length of g covered by j's units), so its self-pairs are y_g² and
S*_c = Σ_{g valued c} y_g² (for two annotators y_g = x_ijg).

Computation (no Python loop over units): the breakpoints of every annotator in a document cut it into elementary
intervals; each unit covers a contiguous run of them (found by searchsorted), so an (interval × annotator) table of
values follows by one repeat; the coincidences are then bincounts over the R(R-1)/2 pairs of annotator columns (a
loop over annotators, not units), ∅-∅ coincidences following from the margins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "FamilySums",
    "family_sums",
    "partition_clashes",
    "family_coefficients",
    "pooled_matrix",
    "document_coefficients",
]

_DENSE = 1 << 24  # keyed sums up to this many cells by bincount, beyond it by sorting the keys


@dataclass(frozen=True, eq=False)
class FamilySums:
    """The observed coincidences (per document, sparse) and the self-pairing sums of the unitizing family.

    Values are coded 0 (∅, no unit) and 1..C (category + 1).

    Attributes
    ----------
    entry_document, entry_row, entry_col : int arrays (E,)
        Document and the two values of each non-zero observed coincidence of a document (both (c, k) and (k, c)).
    entry_length : float (E,)
        l_ck of that document (already divided by m - 1).
    margin_document, margin_value : int arrays (M,)
        Each (document, value) with a non-zero margin.
    margin_length : float (M,)
        l_c. (the length the annotators gave value c in the document).
    margin_self : float (M,)
        S_c: Σ l_g² over the units valued c; for ∅ the gap length l_∅. itself.
    margin_coded : float (M,)
        l*_c. = Σ_{k ≠ ∅} l_ck (0 for ∅).
    margin_coded_self : float (M,)
        S*_c = Σ_{g valued c} y_g² with y_g = Σ_{j≠i} x_ijg / (m-1) (0 for ∅).
    """

    entry_document: np.ndarray
    entry_row: np.ndarray
    entry_col: np.ndarray
    entry_length: np.ndarray
    margin_document: np.ndarray
    margin_value: np.ndarray
    margin_length: np.ndarray
    margin_self: np.ndarray
    margin_coded: np.ndarray
    margin_coded_self: np.ndarray


def _keyed_sum(key: np.ndarray, weight: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys, Σ weight per key), keys with a non-zero sum only; dense bincount when the key space is small."""
    if n_keys <= _DENSE:
        total = np.bincount(key, weights=weight, minlength=n_keys)
        present = np.flatnonzero(total)
        return present, total[present]
    distinct, inverse = np.unique(key, return_inverse=True)
    total = np.bincount(inverse.reshape(-1), weights=weight, minlength=distinct.size)
    keep = total != 0
    return distinct[keep], total[keep]


def _cell_sums(
    doc: np.ndarray, row: np.ndarray, col: np.ndarray, weight: np.ndarray, n_docs: int, n_values: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Σ weight per distinct (document, row value, column value), non-zero sums only.

    The (row, column) pairs that occur get compact codes first (few of the V² pairs occur), so the documents ×
    pairs key space stays small enough for a bincount far more often than documents × V².
    """
    V = int(n_values)
    code = row * V + col
    if V * V <= _DENSE:
        present = np.flatnonzero(np.bincount(code, minlength=V * V))
        compact = np.zeros(V * V, np.int64)
        compact[present] = np.arange(present.size)
        P = max(present.size, 1)
        key, total = _keyed_sum(doc * P + compact[code], weight, int(n_docs) * P)
        pair = present[key % P] if present.size else key
        return key // P, pair // V, pair % V, total
    key, total = _keyed_sum(doc * (V * V) + code, weight, int(n_docs) * V * V)
    return key // (V * V), key % (V * V) // V, key % V, total


def partition_clashes(document: np.ndarray, rater: np.ndarray, begin: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Mask of the units (of positive length) that start before an earlier unit of the same rater and document ends.

    The 2016 family needs each annotator's units apart, whatever their labels (one partition per annotator).
    """
    n = int(np.size(begin))
    if n == 0:
        return np.zeros(0, bool)
    order = np.lexsort((end, begin, rater, document))
    d, r, b, e = document[order], rater[order], begin[order], end[order]
    same = np.concatenate([[False], (d[1:] == d[:-1]) & (r[1:] == r[:-1])])
    # running maximum of the ends within each (document, rater) run, exact: integer ranks of the ends offset by run
    distinct, rank = np.unique(e, return_inverse=True)
    run = np.cumsum(~same) - 1
    shifted = run.astype(np.int64) * (distinct.size + 1) + rank.reshape(-1)
    reach = distinct[np.maximum.accumulate(shifted) - run * (distinct.size + 1)]
    clash = np.zeros(n, bool)
    clash[1:] = same[1:] & (b[1:] < reach[:-1])
    out = np.zeros(n, bool)
    out[order] = clash
    return out


def family_sums(
    document: np.ndarray,
    rater: np.ndarray,
    category: np.ndarray,
    begin: np.ndarray,
    end: np.ndarray,
    document_length: np.ndarray,
    n_raters: int,
    document_raters: np.ndarray | None = None,
) -> FamilySums:
    """The sums of :class:`FamilySums` for units of positive length that do not overlap within a (document, rater).

    ``begin``/``end`` are relative to the unit's document (0 ≤ begin < end ≤ that document's length). ``rater``
    codes run over ``n_raters``; ``document_raters`` (optional, default ``n_raters``) is the number m_d of raters
    taking part in each document, coded 0 .. m_d - 1 there: only their segments meet, and a document's pairs are
    weighed 1/(m_d - 1), so its matrix adds up to m_d L_d and the documents' matrices add up (Krippendorff 2019,
    §12.6, with m_d for m).
    """
    R = int(n_raters)
    D = int(np.size(document_length))
    doc_raters: np.ndarray
    if document_raters is None:
        doc_raters = np.full(D, float(R))
    else:
        doc_raters = np.asarray(document_raters, float)
    document = np.asarray(document, np.int64)
    rater = np.asarray(rater, np.int64)
    value = np.asarray(category, np.int64) + 1
    begin = np.asarray(begin, float)
    end = np.asarray(end, float)
    doc_length = np.asarray(document_length, float)
    n = int(begin.size)
    V = int(value.max()) + 1 if n else 1
    length = end - begin

    # margins and self-pairing sums of the valued units, per (document, value)
    unit_key = document * V + value
    valued_key, valued_length = _keyed_sum(unit_key, length, D * V)
    _, valued_self = _keyed_sum(unit_key, length * length, D * V)
    valued_doc = valued_key // V
    gap_length = doc_raters * doc_length - np.bincount(valued_doc, weights=valued_length, minlength=D)

    # elementary intervals: every document's breakpoints (its ends and every unit boundary), sorted per document
    point_doc = np.concatenate([np.arange(D), np.arange(D), document, document])
    point_pos = np.concatenate([np.zeros(D), doc_length, begin, end])
    order = np.lexsort((point_pos, point_doc))
    sorted_doc, sorted_pos = point_doc[order], point_pos[order]
    keep = np.concatenate([[True], (sorted_doc[1:] != sorted_doc[:-1]) | (sorted_pos[1:] != sorted_pos[:-1])])
    # each original point's index among the distinct breakpoints: its unit's begin and end (no search needed)
    distinct_index = np.empty(order.size, np.int64)
    distinct_index[order] = np.cumsum(keep) - 1
    t_begin = distinct_index[2 * D : 2 * D + n]
    t_end = distinct_index[2 * D + n :]
    point_doc, point_pos = sorted_doc[keep], sorted_pos[keep]
    # interval t runs from breakpoint t to breakpoint t + 1 (width 0 where they belong to two documents)
    T = max(point_pos.size - 1, 0)
    width = np.zeros(T)
    if T:
        inside = point_doc[1:] == point_doc[:-1]
        width = np.where(inside, point_pos[1:] - point_pos[:-1], 0.0)
    interval_doc = point_doc[:-1] if T else np.zeros(0, np.int64)

    # (rater × interval) table of values (0 = gap): each unit fills the contiguous run of intervals it covers
    covered = t_end - t_begin
    total = int(covered.sum())
    val = np.zeros(R * T, np.int64)
    owner = np.repeat(np.arange(n), covered)
    interval = np.repeat(t_begin, covered) + np.arange(total) - np.repeat(np.cumsum(covered) - covered, covered)
    val[rater[owner] * T + interval] = value[owner]
    val = val.reshape(R, T)
    interval_raters = doc_raters[interval_doc]  # a pair (i, j), i < j, meets only where j takes part

    # observed coincidences per document: pairs of rater rows (a loop over raters, not over units); ∅-∅ later
    VV = V * V
    if D * VV <= _DENSE:
        dense = np.zeros(D * VV)
        base = interval_doc * VV
        for i in range(R):
            for j in range(i + 1, R):
                weight = width * (j < interval_raters)
                dense += np.bincount(base + val[i] * V + val[j], weights=weight, minlength=D * VV)
        dense.reshape(D, VV)[:, 0] = 0.0
        key = np.flatnonzero(dense)
        e_doc, e_row, e_col, pair_sum = key // VV, key % VV // V, key % V, dense[key]
    else:
        docs, rows, cols, weights = [], [], [], []
        for i in range(R):
            for j in range(i + 1, R):
                mask = ((val[i] > 0) | (val[j] > 0)) & (j < interval_raters)
                docs.append(interval_doc[mask])
                rows.append(val[i][mask])
                cols.append(val[j][mask])
                weights.append(width[mask])
        e_doc, e_row, e_col, pair_sum = _cell_sums(
            np.concatenate(docs), np.concatenate(rows), np.concatenate(cols), np.concatenate(weights), D, V
        )
    # mirror (c, k) -> (k, c): each unordered rater pair counted both ways (diagonal entries twice)
    e_doc, e_row, e_col, e_len = _cell_sums(
        np.concatenate([e_doc, e_doc]),
        np.concatenate([e_row, e_col]),
        np.concatenate([e_col, e_row]),
        np.concatenate([pair_sum, pair_sum]) / np.maximum(doc_raters[np.concatenate([e_doc, e_doc])] - 1.0, 1.0),
        D,
        V,
    )
    # ∅-∅: the gap margin less the gap's coincidences with units
    gap_unit = np.bincount(e_doc[(e_row == 0) & (e_col > 0)], weights=e_len[(e_row == 0) & (e_col > 0)], minlength=D)
    gap_gap = gap_length - gap_unit
    has = gap_gap > 0
    e_doc = np.concatenate([e_doc, np.flatnonzero(has)])
    e_row = np.concatenate([e_row, np.zeros(int(has.sum()), np.int64)])
    e_col = np.concatenate([e_col, np.zeros(int(has.sum()), np.int64)])
    e_len = np.concatenate([e_len, gap_gap[has]])

    # cuα's sums: l*_c. per (document, value) and S*_c from the x_ijg
    coded = (e_row > 0) & (e_col > 0)
    coded_key, coded_length = _keyed_sum(e_doc[coded] * V + e_row[coded], e_len[coded], D * V)
    # y_g = Σ_{j≠i} x_ijg / (m-1), x_ijg the length of i's unit g covered by j's units: over the intervals g covers,
    # width × (raters with a unit there - 1); g's share of the cuα margins, its self-pairs y_g² (as l_g² for uα)
    others = (val > 0).sum(axis=0) - 1
    y = np.bincount(owner, weights=width[interval] * others[interval], minlength=n) / np.maximum(
        doc_raters[document] - 1.0, 1.0
    )
    self_key, coded_self = _keyed_sum(unit_key, y * y, D * V)

    # one row per (document, value) with any margin
    m_key = np.unique(np.concatenate([valued_key, np.flatnonzero(gap_length > 0) * V]))
    m_length = np.zeros(m_key.size)
    m_self = np.zeros(m_key.size)
    m_coded = np.zeros(m_key.size)
    m_coded_self = np.zeros(m_key.size)
    m_length[np.searchsorted(m_key, valued_key)] = valued_length
    m_self[np.searchsorted(m_key, valued_key)] = valued_self
    gaps = np.flatnonzero(gap_length > 0)
    m_length[np.searchsorted(m_key, gaps * V)] = gap_length[gaps]
    m_self[np.searchsorted(m_key, gaps * V)] = gap_length[gaps]
    m_coded[np.searchsorted(m_key, coded_key)] = coded_length
    m_coded_self[np.searchsorted(m_key, self_key)] = coded_self
    return FamilySums(
        entry_document=e_doc,
        entry_row=e_row,
        entry_col=e_col,
        entry_length=e_len,
        margin_document=m_key // V,
        margin_value=m_key % V,
        margin_length=m_length,
        margin_self=m_self,
        margin_coded=m_coded,
        margin_coded_self=m_coded_self,
    )


#: An expected disagreement below this share of the coincidences is zero up to rounding: the coefficient is undefined
#: (one value only gives D_e = l.. - l..(l..² - S)/(l..² - S), which rounds to ~1e-16 l.., not to 0).
_TOL = 1e-12


def family_coefficients(
    matrix: np.ndarray, self_sums: np.ndarray, coded_self: np.ndarray
) -> dict[str, float | np.ndarray]:
    """uα, |uα, cuα and (k)uα with coverages from one (pooled or per-document) coincidence matrix.

    ``matrix`` is the (V × V) observed matrix l_ck with ∅ first; ``self_sums`` S_c and ``coded_self`` S*_c per
    value. Undefined values (a zero expected disagreement) are nan.
    """
    l_c = matrix.sum(axis=1)
    total = np.float64(l_c.sum())  # numpy scalars: a zero denominator gives nan, not ZeroDivisionError
    S = np.float64(self_sums.sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        # no expected coincidences when l..² = Σ S (e.g. a single segment): every coefficient is undefined
        scale = total / (total * total - S) if total * total > S else np.float64(np.nan)
        expected = scale * (np.outer(l_c, l_c) - np.diag(self_sums))
        d_o = total - float(np.trace(matrix))
        d_e = total - float(np.trace(expected))
        u = 1.0 - d_o / d_e if d_e > _TOL * total else np.nan
        # |uα: all units one value against ∅
        binary_o = float(l_c[0] - matrix[0, 0]) if l_c.size else 0.0
        binary_e = float(expected[0, 1:].sum()) if l_c.size > 1 else 0.0
        binary = 1.0 - binary_o / binary_e if binary_e > _TOL * total else np.nan
        # cuα: the coincidences between units only
        coded = matrix[1:, 1:]
        lc = coded.sum(axis=1)
        ctotal = np.float64(lc.sum())
        cS = np.float64(coded_self[1:].sum())
        cscale = ctotal / (ctotal * ctotal - cS) if ctotal * ctotal > cS else np.float64(np.nan)
        cexp = cscale * (np.outer(lc, lc) - np.diag(coded_self[1:]))
        c_o = ctotal - float(np.trace(coded))
        c_e = ctotal - float(np.trace(cexp))
        cu = 1.0 - c_o / c_e if c_e > _TOL * ctotal else np.nan
        # (k)uα: one value k against the other values, among the coincidences between units
        ek = cexp.sum(axis=1)
        ekk = np.diag(cexp)
        k_o = lc - np.diag(coded)
        k_e = ek - ekk
        k_alpha = np.where((k_e > _TOL * lc) & (lc > 0), 1.0 - (ek / lc) * k_o / k_e, np.nan)
        k_coverage = np.where(l_c[1:] > 0, lc / l_c[1:], np.nan)
        coverage = ctotal / total if total > 0 else np.nan
    return {
        "u": u,
        "d_o": d_o / total if total > 0 else np.nan,
        "d_e": d_e / total if total > 0 else np.nan,
        "binary": binary,
        "coded": cu,
        "coverage": coverage,
        "expected": expected,
        "k_alpha": k_alpha,
        "k_coverage": k_coverage,
        "k_length": lc,
    }


def pooled_matrix(sums: FamilySums, n_values: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pooled (V × V) observed matrix, S_c and S*_c: sums of the documents' entries and margins."""
    V = int(n_values)
    matrix = np.bincount(sums.entry_row * V + sums.entry_col, weights=sums.entry_length, minlength=V * V)
    self_sums = np.bincount(sums.margin_value, weights=sums.margin_self, minlength=V)
    coded_self = np.bincount(sums.margin_value, weights=sums.margin_coded_self, minlength=V)
    return matrix.reshape(V, V), self_sums, coded_self


def document_coefficients(sums: FamilySums, n_documents: int) -> dict[str, np.ndarray]:
    """uα, |uα, cuα and cuα's coverage of every document (its own matrix), vectorised over documents.

    The same formulas as :func:`family_coefficients`, written with per-document sums: l.., Σ_c l_cc, Σ_c l_c.²,
    Σ_c S_c, l_∅., l_∅∅ and their cuα counterparts. Undefined values are nan.
    """
    D = int(n_documents)

    def per(doc: np.ndarray, weight: np.ndarray) -> np.ndarray:
        return np.bincount(doc, weights=weight, minlength=D)

    md, mv = sums.margin_document, sums.margin_value
    ed, er, ec, el = sums.entry_document, sums.entry_row, sums.entry_col, sums.entry_length
    total = per(md, sums.margin_length)
    S = per(md, sums.margin_self)
    M2 = per(md, sums.margin_length**2)
    agree = per(ed[er == ec], el[er == ec])
    gap = per(md[mv == 0], sums.margin_length[mv == 0])
    gap_gap = per(ed[(er == 0) & (ec == 0)], el[(er == 0) & (ec == 0)])
    ctotal = per(md, sums.margin_coded)
    cS = per(md, sums.margin_coded_self)
    cM2 = per(md, sums.margin_coded**2)
    cagree = per(ed[(er == ec) & (er > 0)], el[(er == ec) & (er > 0)])
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(total * total > S, total / (total * total - S), np.nan)
        d_o = total - agree
        d_e = total - scale * (M2 - S)
        u = np.where(d_e > _TOL * total, 1.0 - d_o / d_e, np.nan)
        b_o = gap - gap_gap
        b_e = scale * gap * (total - gap)
        binary = np.where(b_e > _TOL * total, 1.0 - b_o / b_e, np.nan)
        c_o = ctotal - cagree
        c_e = ctotal - np.where(ctotal * ctotal > cS, ctotal / (ctotal * ctotal - cS), np.nan) * (cM2 - cS)
        coded = np.where(c_e > _TOL * ctotal, 1.0 - c_o / c_e, np.nan)
        coverage = np.where(total > 0, ctotal / total, np.nan)
    return {"u": u, "binary": binary, "coded": coded, "coverage": coverage}
