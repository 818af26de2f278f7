"""The best alignment of Mathet, Widlöcher and Métivier's gamma (γ): dissimilarities, pruned candidate unitary
alignments, and the minimum-disorder partition of the units solved as a set-partitioning integer program (SciPy's
HiGHS, ``scipy.optimize.milp``).

The units are arrays (group, annotator and category codes; begin and end). A *group* is one continuum (a document,
or a document of a sampled continuum): no unitary alignment crosses two groups. With n annotators a unitary
alignment holds at most one unit of each annotator (the others are the empty unit ∅); its disorder is the mean of
the dissimilarities of its C(n, 2) pairs (Mathet et al. 2015, §4.2), a pair with ∅ worth Δ∅ (an ∅-∅ pair too, as
pygamma-agreement and DKPro Agreement count it: a unit alone costs Δ∅). Between two units

    d(u, v) = α Δ∅ ((|b_u - b_v| + |e_u - e_v|) / (l_u + l_v))² + β Δ∅ d_cat(c_u, c_v)

(positional-sporadic and categorical dissimilarities; d_cat is 0/1 or a given matrix in [0, 1]).

Pruning (§5.1.1 of the paper, in a form that bounds the enumeration). Splitting a unit u off a unitary alignment
S of k real units (into S∖u and u alone) changes the summed pair dissimilarities by
``Σ_{v∈S∖u} d(u, v) - (C(n,2) + k - 1) Δ∅``; when that is ≥ 0 the split is no worse, so an optimal partition
exists whose every part satisfies ``Σ_{v∈S∖u} d(u, v) < (C(n,2) + k - 1) Δ∅`` for each of its members (split
repeatedly: the number of parts grows, so it ends). Only those tuples are candidates; in particular every pair
in one has ``d < (C(n,2) + n - 1) Δ∅``, a bound on the positional term that limits each unit's partners to a
window of starts found by sorted search (by length class, so one long unit does not widen every window). Tuples
are grown one annotator at a time from each unit as its first member, vectorised over all partial tuples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, linprog, milp
from scipy.sparse.csgraph import connected_components

__all__ = [
    "GammaDissimilarity",
    "TooManyAlignmentsError",
    "SpanArrays",
    "Alignment",
    "best_alignment",
    "pair_dissimilarity",
]


class TooManyAlignmentsError(ValueError):
    """The candidate unitary alignments (or the pairs of units to examine) exceed the limit given."""


@dataclass(frozen=True)
class GammaDissimilarity:
    """The combined dissimilarity: weights α (positional) and β (categorical), the empty unit's Δ∅, and the
    categorical dissimilarity matrix (None: 0 for equal categories, 1 otherwise)."""

    alpha: float = 1.0
    beta: float = 1.0
    delta_empty: float = 1.0
    categorical: np.ndarray | None = None


def pair_dissimilarity(
    diss: GammaDissimilarity,
    b1: np.ndarray,
    e1: np.ndarray,
    c1: np.ndarray,
    b2: np.ndarray,
    e2: np.ndarray,
    c2: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(combined d, positional Δ∅ p², categorical Δ∅ d_cat) of units 1 and 2, elementwise (lengths > 0)."""
    ratio = (np.abs(b1 - b2) + np.abs(e1 - e2)) / ((e1 - b1) + (e2 - b2))
    positional = ratio * ratio * diss.delta_empty
    if diss.categorical is None:
        categorical = (c1 != c2).astype(float) * diss.delta_empty
    else:
        categorical = diss.categorical[c1, c2] * diss.delta_empty
    return diss.alpha * positional + diss.beta * categorical, positional, categorical


@dataclass(frozen=True, eq=False)
class SpanArrays:
    """Units as arrays: group (continuum), annotator and category codes, begin and end; n annotators.

    ``group_n`` (optional): the annotators taking part in each group (coded 0 .. group_n - 1 there; default n
    everywhere); a unitary alignment of group g then has C(group_n[g], 2) pairs.
    """

    group: np.ndarray
    annotator: np.ndarray
    begin: np.ndarray
    end: np.ndarray
    category: np.ndarray
    n: int
    group_n: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Alignment:
    """A best alignment: its unitary alignments as rows of unit indices (-1: the empty unit), one column per
    annotator, with each one's group and disorder, and the number of candidates the program chose from."""

    members: np.ndarray
    group: np.ndarray
    disorder: np.ndarray
    n_candidates: int


def _too_many(what: str, limit: str) -> TooManyAlignmentsError:
    return TooManyAlignmentsError(
        f"gamma's best alignment would {what} (more than {limit}); ways out: split the study into shorter "
        "documents (no alignment crosses a document), compare fewer annotators at a time, weigh positions "
        "more (a larger alpha: distant units are then not worth aligning; delta_empty scales every dissimilarity "
        "alike and does not help), or raise max_alignments if memory and time allow"
    )


def _pairs(units: SpanArrays, diss: GammaDissimilarity, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (u, v) of units of annotators a(u) < a(v) in one group with d(u, v) < (C(n,2) + n - 1) Δ∅."""
    group, annotator, begin, end, category, n = (
        units.group,
        units.annotator,
        units.begin,
        units.end,
        units.category,
        units.n,
    )
    bound = (n * (n - 1) / 2 + n - 1) * diss.delta_empty
    reach = np.sqrt(bound / (diss.alpha * diss.delta_empty)) if diss.alpha > 0 else np.inf
    length = end - begin
    # each group on a line of its own: shifted so that groups are disjoint, windows clipped to the group
    n_groups = int(group.max()) + 1
    low = np.full(n_groups, np.inf)
    high = np.full(n_groups, -np.inf)
    np.minimum.at(low, group, begin)
    np.maximum.at(high, group, begin)
    extent = np.where(np.isfinite(low), high - low, 0.0)
    offset = np.concatenate([[0.0], np.cumsum(extent + 1.0)[:-1]])
    origin = np.where(np.isfinite(low), low, 0.0)
    x = begin - origin[group] + offset[group]
    first = offset[group]
    last = offset[group] + extent[group]
    slack = 1e-9 * (1.0 + np.abs(x))
    lengths_class = np.floor(np.log2(length)).astype(np.int64)
    out_u, out_v, out_d = [], [], []
    examined = 0
    for a in range(n):
        units_a = np.flatnonzero(annotator == a)
        for b in range(a + 1, n):
            of_b = annotator == b
            for cls in np.unique(lengths_class[of_b]):
                units_b = np.flatnonzero(of_b & (lengths_class == cls))
                units_b = units_b[np.argsort(x[units_b], kind="stable")]
                xb = x[units_b]
                half = reach * (length[units_a] + length[units_b].max()) if np.isfinite(reach) else np.inf
                lo = np.searchsorted(xb, np.maximum(x[units_a] - half, first[units_a]) - slack[units_a], "left")
                hi = np.searchsorted(xb, np.minimum(x[units_a] + half, last[units_a]) + slack[units_a], "right")
                counts = hi - lo
                total = int(counts.sum())
                examined += total
                if examined > 4 * limit:
                    raise _too_many(
                        f"examine at least {examined:,} pairs of units", f"4 x max_alignments = {4 * limit:,}"
                    )
                if total == 0:
                    continue
                u = np.repeat(units_a, counts)
                start = np.repeat(lo - (np.cumsum(counts) - counts), counts)
                v = units_b[start + np.arange(total)]
                keep = group[u] == group[v]
                u, v = u[keep], v[keep]
                d = pair_dissimilarity(diss, begin[u], end[u], category[u], begin[v], end[v], category[v])[0]
                keep = d < bound
                out_u.append(u[keep])
                out_v.append(v[keep])
                out_d.append(d[keep])
    if not out_u:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(out_u), np.concatenate(out_v), np.concatenate(out_d)


def _candidates(units: SpanArrays, diss: GammaDissimilarity, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The candidate unitary alignments (rows of unit indices, -1 for ∅) and their disorders."""
    annotator, n, N = units.annotator, units.n, units.begin.size
    pu, pv, pd = _pairs(units, diss, limit)
    key = pu * N + pv
    order = np.argsort(key, kind="stable")
    key, pu, pv, pd = key[order], pu[order], pv[order], pd[order]
    # neighbours of u in annotator t: pairs sorted by (u, annotator of v)
    by = np.lexsort((annotator[pv], pu))
    nb_u, nb_t, nb_v = pu[by], annotator[pv][by], pv[by]
    nb_key = nb_u * n + nb_t

    def has_pair(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        if key.size == 0:
            return np.zeros(u.size, bool)
        k = u * N + v
        at = np.minimum(np.searchsorted(key, k), key.size - 1)
        return key[at] == k

    blocks = []
    count = 0
    for t in range(n):
        seeds = np.flatnonzero(annotator == t)
        cur = np.full((seeds.size, n), -1, np.int64)
        cur[:, t] = seeds
        for t2 in range(t + 1, n):
            first = cur[:, t]
            lo = np.searchsorted(nb_key, first * n + t2, "left")
            hi = np.searchsorted(nb_key, first * n + t2, "right")
            counts = hi - lo
            total = int(counts.sum())
            if count + cur.shape[0] + total > limit:
                raise _too_many(
                    f"choose from at least {count + cur.shape[0] + total:,} candidate unitary alignments",
                    f"max_alignments={limit:,}",
                )
            if total == 0:
                continue
            rows = np.repeat(np.arange(cur.shape[0]), counts)
            js = nb_v[np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(total)]
            ok = np.ones(total, bool)
            for t3 in range(t + 1, t2):
                m = cur[rows, t3]
                real = m >= 0
                ok[real] &= has_pair(m[real], js[real])
            new = cur[rows[ok]]
            new[:, t2] = js[ok]
            cur = np.concatenate([cur, new])
        count += cur.shape[0]
        blocks.append(cur)
    members = np.concatenate(blocks) if blocks else np.zeros((0, n), np.int64)

    # disorders, and the pruning rule of each member
    real = members >= 0
    if units.group_n is None:
        C = n * (n - 1) / 2
    else:  # each candidate's group: that of its first real member
        m_g = np.asarray(units.group_n, float)[units.group[np.where(real, members, N).min(axis=1)]]
        C = m_g * (m_g - 1) / 2
    k = real.sum(axis=1)
    pair_sum = np.zeros(members.shape[0])
    member_sum = np.zeros(members.shape, float)
    for a in range(n):
        for b in range(a + 1, n):
            both = real[:, a] & real[:, b]
            if not both.any():
                continue
            k_ab = members[both, a] * N + members[both, b]
            d = pd[np.searchsorted(key, k_ab)]
            pair_sum[both] += d
            member_sum[both, a] += d
            member_sum[both, b] += d
    useful = np.all(~real | (member_sum < ((C + k - 1) * diss.delta_empty)[:, None]), axis=1) | (k == 1)
    members, pair_sum, k = members[useful], pair_sum[useful], k[useful]
    if np.ndim(C):
        C = np.asarray(C)[useful]
    disorder = (pair_sum + (C - k * (k - 1) / 2) * diss.delta_empty) / C
    return members, disorder


def _program(sub: np.ndarray, N: int) -> tuple[np.ndarray, sparse.csr_array, np.ndarray]:
    """The rows (units) and the covering matrix of the candidates ``sub``: (units, A, unit of each row)."""
    real = sub >= 0
    involved = np.unique(sub[real])
    row_of = np.full(N, -1, np.int64)
    row_of[involved] = np.arange(involved.size)
    cols = np.repeat(np.arange(sub.shape[0]), real.sum(axis=1))
    rows = row_of[sub[real]]
    A = sparse.csr_array((np.ones(rows.size), (rows, cols)), shape=(involved.size, sub.shape[0]))
    return row_of, A, involved


def _parts(sub: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Independent parts (units linked by a candidate that holds both): the part of each candidate, the part of
    each unit (row) and each unit's rank within its part; rows are the units in ``sub`` (sorted)."""
    row_of, _, involved = _program(sub, N)
    real = sub >= 0
    lead = row_of[sub.max(axis=1)]
    cols = np.repeat(np.arange(sub.shape[0]), real.sum(axis=1))
    rows = row_of[sub[real]]
    link = sparse.csr_array((np.ones(rows.size), (rows, lead[cols])), shape=(involved.size, involved.size))
    unit_part = np.asarray(connected_components(link, directed=False)[1])
    order = np.argsort(unit_part, kind="stable")
    first = np.searchsorted(unit_part[order], unit_part[order])
    rank = np.empty(involved.size, np.int64)
    rank[order] = np.arange(involved.size) - first
    return unit_part[lead], unit_part, rank


def _set_partitions(items: list[int]) -> list[list[list[int]]]:
    if not items:
        return [[]]
    out = []
    for rest in _set_partitions(items[1:]):
        out.append([[items[0]], *rest])
        out += [rest[:i] + [[items[0], *rest[i]]] + rest[i + 1 :] for i in range(len(rest))]
    return out


#: For a part of m ≤ 4 units (bits 0..m-1): every partition of them, as a row of which subsets (masks) it uses.
_PATTERNS = {
    m: np.array([[any(sum(1 << b for b in block) == mask for block in p) for mask in range(16)]
                 for p in _set_partitions(list(range(m)))])
    for m in (2, 3, 4)
}  # fmt: skip


def _exact_cover(sub: np.ndarray, cost: np.ndarray, N: int, integer: bool) -> np.ndarray:
    """HiGHS on the covering program of ``sub``: the optimal x (the integer program, or its relaxation)."""
    _, A, involved = _program(sub, N)
    if integer:
        result = milp(
            c=cost,
            constraints=LinearConstraint(A, 1.0, 1.0),
            integrality=np.ones(sub.shape[0]),
            bounds=Bounds(0.0, 1.0),
            options={"mip_rel_gap": 0.0},
        )
    else:
        result = linprog(cost, A_eq=A, b_eq=np.ones(involved.size), bounds=(0.0, 1.0), method="highs")
    if result.status != 0 or result.x is None:
        raise RuntimeError(f"HiGHS found no optimal alignment: {result.message}")
    return np.asarray(result.x)


def _solve(sub: np.ndarray, cost: np.ndarray, N: int) -> np.ndarray:
    """The candidates of a minimum-cost exact cover of the units they hold (a boolean mask over ``sub``).

    The program falls apart into independent parts (units linked by a candidate that holds both). A part of at
    most 4 units has at most 15 partitions: all are priced at once (vectorised over the parts) and the cheapest
    is taken. The other parts go to the linear relaxation (HiGHS); where its optimum is integral it is the
    answer, and only the parts where it is fractional go to the integer program (branch and bound on a few
    dozen units, not on every sampled continuum).
    """
    part, unit_part, rank = _parts(sub, N)
    n_parts = int(unit_part.max()) + 1
    size = np.bincount(unit_part, minlength=n_parts)
    # parts of at most 4 units: every partition of them priced at once (Bell(4) = 15), the cheapest taken
    row_of = np.full(N, -1, np.int64)
    row_of[np.unique(sub[sub >= 0])] = np.arange(rank.size)
    easy = size[part] <= 4
    bits = np.where(sub >= 0, np.left_shift(1, np.minimum(rank[row_of[np.maximum(sub, 0)]], 4)), 0)
    mask = np.where(easy, bits.sum(axis=1), 0)
    table = np.full((n_parts, 16), np.inf)
    table[part[easy], mask[easy]] = cost[easy]
    chosen = np.zeros((n_parts, 16), bool)
    for m, patterns in _PATTERNS.items():
        which = np.flatnonzero(size == m)
        if which.size:
            totals = np.where(patterns[None, :, :], table[which][:, None, :], 0.0).sum(axis=2)
            chosen[which] = patterns[np.argmin(totals, axis=1)]
    picked = easy & chosen[part, mask]
    rest = np.flatnonzero(~easy)
    if rest.size == 0:
        return picked
    x = _exact_cover(sub[rest], cost[rest], N, integer=False)
    picked[rest] = x > 0.5
    fractional = (x > 1e-9) & (x < 1.0 - 1e-9)
    if fractional.any():
        hard = np.zeros(n_parts, bool)
        hard[part[rest[fractional]]] = True
        inside = rest[hard[part[rest]]]
        picked[inside] = _exact_cover(sub[inside], cost[inside], N, integer=True) > 0.5
    return picked


def best_alignment(units: SpanArrays, diss: GammaDissimilarity, limit: int) -> Alignment:
    """A partition of all units into unitary alignments of minimum total disorder (exact, HiGHS).

    Units that share no candidate with another stay alone (disorder Δ∅) without entering the program; the rest
    form one set-partitioning program: a binary variable per candidate, each unit covered exactly once (its
    parts of at most 4 units by pricing their every partition, the linear relaxation next, the integer program on
    the parts where the relaxation is fractional).

    Raises
    ------
    TooManyAlignmentsError
        When the pairs to examine exceed 4 × ``limit`` or the candidates exceed ``limit`` (before the program).
    RuntimeError
        If HiGHS does not reach an optimal solution (it always should: the singletons are feasible).
    """
    n, N = units.n, units.begin.size
    if N == 0:
        return Alignment(np.zeros((0, n), np.int64), np.zeros(0, np.int64), np.zeros(0), 0)
    members, disorder = _candidates(units, diss, limit)
    real = members >= 0
    k = real.sum(axis=1)
    multi = k >= 2
    in_multi = np.zeros(N, bool)
    in_multi[members[multi][real[multi]]] = True
    # a candidate enters the program if it is a multi-unit one or the singleton of a unit that has one
    single_unit = np.where(k == 1, members.max(axis=1), -1)
    enter = multi | ((k == 1) & in_multi[np.maximum(single_unit, 0)])
    chosen = ~enter & (k == 1)
    n_candidates = int(members.shape[0])
    if enter.any():
        picked = _solve(members[enter], disorder[enter], N)
        chosen[np.flatnonzero(enter)[picked]] = True
    out = members[chosen]
    first = np.where(out >= 0, out, N).min(axis=1)
    return Alignment(out, units.group[first], disorder[chosen], n_candidates)
