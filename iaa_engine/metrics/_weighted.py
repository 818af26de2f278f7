r"""Weighted chance-corrected coefficients and Gwet's analytic variance, on the sparse counts.

Notation (Gwet 2014, ch. 2–5; irrCAC): :math:`r_{ik}` annotations of item :math:`i` in category :math:`k`,
:math:`r_i = \sum_k r_{ik}`, :math:`n` items with at least one annotation, :math:`n_2` items with two or more,
:math:`w_{kl}` the agreement weights (:mod:`iaa_engine.stats._weights`), :math:`q` categories.

.. math::

    p_a = \frac{1}{n_2} \sum_{i: r_i \ge 2} \frac{\sum_k r_{ik} (r^\star_{ik} - 1)}{r_i (r_i - 1)},\quad
    r^\star_{ik} = \sum_l w_{kl} r_{il},\qquad
    \pi_k = \frac1n \sum_i \frac{r_{ik}}{r_i}

and :math:`\kappa = (p_a - p_e)/(1 - p_e)` with the chance agreement :math:`p_e` of each coefficient: Fleiss
:math:`\sum_{kl} w_{kl}\pi_k\pi_l`; Gwet's AC2 :math:`\frac{T_w}{q(q-1)}\sum_k \pi_k(1-\pi_k)` with
:math:`T_w = \sum_{kl} w_{kl}`; Brennan–Prediger :math:`T_w / q^2`; Conger
:math:`\sum_{kl} w_{kl}\frac{S_k S_l - \sum_g p_{gk}p_{gl}}{r(r-1)}` with :math:`p_{gk}` annotator :math:`g`'s share
of category :math:`k` over the items :math:`g` labelled and :math:`S_k = \sum_g p_{gk}`.

The variance is Gwet's linearisation, conditional on the annotators:

.. math::

    \kappa_i = \frac{n}{n_2}\frac{p_{a|i} - p_e [r_i \ge 2]}{1 - p_e},\quad
    \kappa^\star_i = \kappa_i - 2(1 - \kappa)\frac{p_{e|i} - p_e}{1 - p_e},\quad
    \widehat{\operatorname{Var}}(\kappa) = \frac{1 - f}{n(n-1)} \sum_i (\kappa^\star_i - \kappa)^2

with :math:`p_{e|i}` each coefficient's per-item chance agreement (none for Brennan–Prediger and percent agreement),
:math:`f` the sampling fraction of items (0 for an infinite population). The interval is
:math:`\kappa \pm t_{n-1} \operatorname{SE}` (upper end capped at 1, as irrCAC does) and the p-value is the
two-sided t test of :math:`\kappa = 0`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import AnyOf, Choice, SquareArray
from iaa_engine.base._policy import EPS, undefined
from iaa_engine.data._errors import InputError
from iaa_engine.data._model import Annotations
from iaa_engine.stats._weight_sums import DenseWeights, FamilyWeights, Weights, as_weights
from iaa_engine.stats._weights import AGREEMENT_WEIGHTS, check_weight_matrix

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = [
    "GWET_KINDS",
    "KAPPA_WEIGHTS",
    "resolve_weights",
    "check_order",
    "is_identity",
    "gwet_coefficient",
    "gwet_parts",
    "category_values",
    "GwetParts",
    "pair_weighted",
    "pair_data",
]

#: What ``weights=`` of the kappa family accepts: a family of agreement weights by name, or a q × q array.
KAPPA_WEIGHTS = AnyOf(
    Choice(*AGREEMENT_WEIGHTS),
    SquareArray(),
    what="one of "
    + ", ".join(repr(w) for w in AGREEMENT_WEIGHTS)
    + ", or a square array of weights in [0, 1] with 1 on the diagonal (a row and a column per category)",
)

#: The multi-annotator coefficients of Gwet's framework, by the name of the public function.
GWET_KINDS = ("fleiss_kappa", "gwet_ac1", "brennan_prediger", "multi_kappa", "percent_agreement")


def category_values(data: Annotations) -> np.ndarray:
    """The categories' numbers when every category is a number, else their positions 1..q in the data's order."""
    cats = data.categories
    if pd.api.types.is_numeric_dtype(cats.dtype) and not pd.api.types.is_bool_dtype(cats.dtype):
        values = cats.to_numpy(dtype=float)
        if np.isfinite(values).all():
            return values
    elif _numbers(cats):
        return np.asarray(list(cats), dtype=float)
    return np.arange(1, len(cats) + 1, dtype=float)


def _numbers(cats: pd.Index) -> bool:
    """Every category is a finite number (an object index of numbers)."""
    return all(
        isinstance(c, (int, float, np.integer, np.floating)) and not isinstance(c, bool) and math.isfinite(float(c))
        for c in cats
    )


def has_order(data: Annotations) -> bool:
    """Whether the categories have an order of their own: numbers, or the order given for ordinal data."""
    cats = data.categories
    numeric = pd.api.types.is_numeric_dtype(cats.dtype) and not pd.api.types.is_bool_dtype(cats.dtype)
    return numeric or data.level == "ordinal" or data.n_categories <= 1 or _numbers(cats)


def check_order(data: Annotations, family: str) -> None:
    """Refuse a weight family on categories without an order (text is never ordered alphabetically)."""
    if family == "identity" or has_order(data):
        return
    shown = ", ".join(repr(c) for c in list(data.categories[:3]))
    why = (
        f"{family} weights need the order of the categories, and labels that are not numbers ({shown}, ...) are "
        "never ordered alphabetically: give their order with "
    )
    raise InputError(
        why + "categories=[lowest, ..., highest] at the ordinal level, e.g. data.with_level('ordinal', "
        "categories=[...]) or ie.read(..., level='ordinal', categories=[...])",
        cli=why + "--level ordinal --categories lowest,...,highest",
    )


def resolve_weights(data: Annotations, weights: Any) -> Weights:
    """The weights ``weights`` (a family name or a square array) over ``data``'s categories, as :class:`Weights`.

    A family is never a q × q matrix: its sums come from closed forms (:mod:`iaa_engine.stats._weight_sums`).
    """
    if isinstance(weights, Weights):
        return weights
    if isinstance(weights, str):
        if weights not in AGREEMENT_WEIGHTS:  # the public functions validate the name first
            raise ValueError(f"unknown weight family {weights!r}")
        check_order(data, weights)
        cache = data.__dict__.setdefault("_family_weights", {})  # the categories' values, sorted once per data
        if weights not in cache:
            cache[weights] = FamilyWeights(weights, category_values(data))
        return cache[weights]
    return DenseWeights(check_weight_matrix(weights, data.n_categories))


def is_identity(weights: Any) -> bool:
    return isinstance(weights, str) and weights == "identity"


@dataclass(frozen=True)
class GwetParts:
    """Per-item and overall quantities shared by the multi-annotator coefficients (items with ≥ 1 annotation)."""

    counts: sp.csr_matrix  # n × q, r_ik
    r: np.ndarray  # r_i
    pa_i: np.ndarray  # per-item weighted agreement, 0 where r_i < 2
    pa: float
    pi: np.ndarray  # pi_k
    n: int
    n2: int
    rows: np.ndarray  # the data's item code of each row
    #: How many items each row stands for: None (one item per row), or, for data summarised on a cluster, the
    #: multiplicities of its distinct count vectors (each row one pattern; every sum over items is weighted by them)
    weight: np.ndarray | None = None


def gwet_parts(data: Annotations, w: Weights | np.ndarray) -> GwetParts:
    """:math:`r_{ik}`, :math:`p_{a|i}`, :math:`p_a` and :math:`\\pi_k` from the sparse counts.

    Computed once per data and weights: the report's five weighted coefficients share them.
    """
    op = as_weights(w)
    cache = data.__dict__.setdefault("_gwet_parts", {})
    if op.key not in cache:
        cache[op.key] = _gwet_parts(data, op)
    return cache[op.key]


def _gwet_parts(data: Annotations, w: Weights) -> GwetParts:
    if not data.has_item_counts and getattr(data, "_patterns", None) is not None:
        return _pattern_parts(data, w)
    c = data.counts
    n_all = c.n_items
    import scipy.sparse as sp  # imported when needed: a plain report never loads SciPy

    table = sp.csr_matrix((c.count.astype(float), (c.item, c.category)), shape=(n_all, data.n_categories))
    r_all = np.asarray(table.sum(axis=1)).ravel()
    rows = np.flatnonzero(r_all > 0)
    table = table[rows]
    r = r_all[rows]
    n, q = rows.size, data.n_categories
    quad = w.row_forms(table)  # r_i^T W r_i
    two = r >= 2
    pa_i = np.zeros(n)
    pa_i[two] = (quad[two] - r[two]) / (r[two] * (r[two] - 1.0))
    n2 = int(two.sum())
    pa = float(pa_i[two].sum() / n2) if n2 else float("nan")
    pi = np.asarray(table.multiply(1.0 / r[:, None]).sum(axis=0)).ravel() / n if n else np.zeros(q)
    return GwetParts(table.tocsr(), r, pa_i, pa, pi, n, n2, rows)


def _pattern_parts(data: Annotations, w: Weights) -> GwetParts:
    """:class:`GwetParts` from the items' distinct count vectors and their multiplicities (data summarised on a
    cluster): one row per pattern, every sum over items a sum over patterns weighted by the multiplicities."""
    import scipy.sparse as sp

    patterns, mult = data._patterns  # type: ignore[attr-defined]
    table = sp.csr_matrix(np.asarray(patterns, dtype=float))
    m = np.asarray(mult, dtype=float)
    r = np.asarray(table.sum(axis=1)).ravel()
    quad = w.row_forms(table)
    two = r >= 2
    pa_i = np.zeros(r.size)
    pa_i[two] = (quad[two] - r[two]) / (r[two] * (r[two] - 1.0))
    n, n2 = int(m.sum()), int(m[two].sum())
    pa = float(m[two] @ pa_i[two] / n2) if n2 else float("nan")
    share = np.asarray(table.multiply(1.0 / r[:, None]).todense())
    pi = (m @ share) / n if n else np.zeros(data.n_categories)
    return GwetParts(table, r, pa_i, pa, np.asarray(pi).ravel(), n, n2, np.arange(r.size), m)


def _conger_parts(data: Annotations, w: Weights, parts: GwetParts) -> tuple[float, np.ndarray]:
    """Conger's chance agreement and its per-item terms (Gwet 2014, §5; irrCAC ``conger``), from the annotations.

    irrCAC builds an items × annotators matrix; the same sum is, per item, one term per annotation plus a constant:
    :math:`\\sum_g \\lambda_{ig} = \\sum_{g \\text{ labelled } i} \\frac{n}{n_g}(c_{g,\\ell_{ig}} - b_g) + \\sum_g b_g`
    with :math:`a_{gk} = S_k - p_{gk}`, :math:`c_g = W^\\top a_g = W^\\top S - W^\\top p_g`,
    :math:`b_g = c_g \\cdot p_g`; :math:`W^\\top p_g` is needed only at the categories annotator :math:`g` used.
    """
    stats = data.annotator_stats
    n_all = stats.n_a.astype(float)
    present = n_all > 0
    g_index = np.cumsum(present) - 1  # annotator code -> row of p
    g_code, k_of = np.nonzero(stats.counts)  # the entries p_gk > 0, row-major: by (annotator, category)
    g_of = g_index[g_code]
    p_e = stats.counts[g_code, k_of] / n_all[g_code]
    n_g = n_all[present]
    n_r = n_g.size
    s = np.bincount(k_of, weights=p_e, minlength=data.n_categories)  # S_k = sum_g p_gk
    wt = w.T
    ws = wt.matvec(s)  # (W^T S)_l
    wtp = wt.group_sums(g_of, k_of, p_e)  # (W^T p_g)_l at annotator g's categories
    pe = float((s @ ws - p_e @ wtp) / (n_r * (n_r - 1.0))) if n_r > 1 else float("nan")
    c_e = ws[k_of] - wtp  # c_gl at the same entries
    b = np.bincount(g_of, weights=p_e * c_e, minlength=n_r)
    pos = np.full(data.n_items, -1, dtype=np.int64)
    pos[parts.rows] = np.arange(parts.n)
    entry = np.zeros(stats.counts.shape, dtype=np.int64)  # (annotator, category) -> its entry (as large as n_gk)
    entry[g_code, k_of] = np.arange(g_code.size)
    ann = g_index[data.annotator]
    term = parts.n / n_g[ann] * (c_e[entry[data.annotator, data.label]] - b[ann])
    lam = np.bincount(pos[data.item], weights=term, minlength=parts.n) + b.sum()
    pe_i = lam / (n_r * (n_r - 1.0)) if n_r > 1 else np.full(parts.n, np.nan)
    return pe, pe_i


def _conger_entry_terms(data: Annotations, w: Weights, n: int) -> tuple[float, np.ndarray, float, int]:
    r"""Conger's chance agreement :math:`p_e` and, per annotation cell (annotator g, label l), the term
    :math:`t_{gl} = \frac{n}{n_g}(c_{gl} - b_g)` that an annotation adds to its item's :math:`\lambda_i`
    (:func:`_conger_parts`), as a dense annotators × categories array; also :math:`\sum_g b_g` and the number of
    annotators with an annotation."""
    stats = data.annotator_stats
    n_all = stats.n_a.astype(float)
    present = n_all > 0
    g_index = np.cumsum(present) - 1
    g_code, k_of = np.nonzero(stats.counts)
    g_of = g_index[g_code]
    p_e = stats.counts[g_code, k_of] / n_all[g_code]
    n_r = int(present.sum())
    s = np.bincount(k_of, weights=p_e, minlength=data.n_categories)
    wt = w.T
    ws = wt.matvec(s)
    wtp = wt.group_sums(g_of, k_of, p_e)
    pe = float((s @ ws - p_e @ wtp) / (n_r * (n_r - 1.0))) if n_r > 1 else float("nan")
    c_e = ws[k_of] - wtp
    b = np.bincount(g_of, weights=p_e * c_e, minlength=n_r)
    t = np.zeros(stats.counts.shape)
    t[g_code, k_of] = n / n_all[g_code] * (c_e - b[g_of])
    return pe, t, float(b.sum()), n_r


def _conger_from_patterns(
    data: Annotations, w: Weights, parts: GwetParts, with_variance: bool, population: float | None
) -> GwetEstimate:
    r"""Conger's kappa and Gwet's variance from sums (data summarised on a cluster).

        With :math:`D = r(r-1)` (r annotators), :math:`L_i = \sum_{	ext{annotations } (g,l) 	ext{ of } i} t_{gl}`
        (:func:`_conger_entry_terms`), each item's linearised term is
        :math:`\kappa^\star_i - \hat\kappa = y_{p(i)} - c L_i` with :math:`y_p` a function of the item's count pattern
        p and :math:`c = 2(1-\hat\kappa)/((1-p_e)D)`, so

        .. math::

            \sum_i (\kappa^\star_i - \hat\kappa)^2 = \sum_p m_p y_p^2 - 2c \sum_{(g,l),p} T_{gl,p}\, t_{gl}\, y_p
            + c^2 \Big(\sum_{g,l} n_{gl} t_{gl}^2 + \sum_{a
    e b} n_{ak,bl}\, t_{ak} t_{bl}\Big)

        with :math:`m_p` the pattern's items, :math:`T_{gl,p}` those of them carrying annotation (g, l), :math:`n_{gl}`
        the annotator × label counts and :math:`n_{ak,bl}` the annotator pairs' co-annotation counts: every sum is
        over partitions' sums.
    """
    parts_n = parts.n
    pe, t, b_sum, n_r = _conger_entry_terms(data, w, parts_n)
    pa = parts.pa
    est = (pa - pe) / (1.0 - pe) if np.isfinite(pe) and 1.0 - pe > EPS else float("nan")
    se = float("nan")
    entries = getattr(data, "_entry_patterns", None)
    if with_variance and entries is not None and parts_n >= 2 and parts.n2 and np.isfinite(est) and n_r > 1:
        m = cast(np.ndarray, parts.weight)
        two = parts.r >= 2
        d = n_r * (n_r - 1.0)
        k = parts_n / parts.n2 * (parts.pa_i - pe * two) / (1.0 - pe)
        y = k - est - 2.0 * (1.0 - est) * (b_sum / d - pe) / (1.0 - pe)
        c = 2.0 * (1.0 - est) / ((1.0 - pe) * d)
        e, pat, cnt = entries
        flat = t.ravel()
        cross = float(np.sum(cnt * flat[e] * y[pat]))
        ps = data.pair_stats
        square = float(np.sum(data.annotator_stats.counts.ravel() * flat**2)) + float(
            np.sum(ps.count * t[ps.a, ps.k] * t[ps.b, ps.l])
        )
        total = float(m @ y**2) - 2.0 * c * cross + c * c * square
        f = 0.0 if population is None else parts_n / population
        se = float(np.sqrt(max(total, 0.0) * (1.0 - f) / (parts_n * (parts_n - 1.0))))
    return GwetEstimate(float(est), float(pa), float(pe), se, parts_n)


@dataclass(frozen=True)
class GwetEstimate:
    estimate: float
    pa: float
    pe: float
    se: float
    n: int
    #: Gwet's linearised per-item terms :math:`\kappa^\star_i` (mean: the estimate), one per item with an
    #: annotation, in the order of ``gwet_parts(data, w).rows``; ``None`` unless the variance was computed.
    terms: np.ndarray | None = None


def gwet_coefficient(
    data: Annotations, kind: str, w: Weights | np.ndarray, *, with_variance: bool, population: float | None = None
) -> GwetEstimate:
    """One multi-annotator coefficient of :data:`GWET_KINDS` with weights ``w`` (and Gwet's variance if asked).

    Undefined results come back as nan; the public functions apply the undefined-result policy.
    """
    op = as_weights(w)
    parts = gwet_parts(data, op)
    q = data.n_categories
    pe_i = None
    if kind == "percent_agreement":
        pe = 0.0
    elif kind == "fleiss_kappa":
        w_pi = op.matvec(parts.pi)
        pe = float(parts.pi @ w_pi)
        pi_w = w_pi if op.symmetric else (w_pi + op.T.matvec(parts.pi)) / 2.0
        pe_i = (parts.counts @ pi_w) / parts.r
    elif kind == "gwet_ac1":
        t_w = op.total() if q >= 2 else float("nan")
        pe = t_w * float(np.sum(parts.pi * (1.0 - parts.pi))) / (q * (q - 1.0)) if q >= 2 else float("nan")
        pe_i = t_w / (q * (q - 1.0)) * (parts.counts @ (1.0 - parts.pi)) / parts.r if q >= 2 else None
    elif kind == "brennan_prediger":
        pe = op.total() / q**2 if q >= 2 else float("nan")
    elif kind == "multi_kappa":
        if parts.weight is not None:
            return _conger_from_patterns(data, op, parts, with_variance, population)
        pe, pe_i = _conger_parts(data, op, parts)
    else:  # pragma: no cover - the public functions name only GWET_KINDS
        raise ValueError(f"unknown coefficient {kind!r}")
    pa = parts.pa
    if kind == "percent_agreement":
        est = pa
    else:
        est = (pa - pe) / (1.0 - pe) if np.isfinite(pe) and 1.0 - pe > EPS else float("nan")
    se = float("nan")
    n = parts.n
    if with_variance and n >= 2 and parts.n2 and np.isfinite(est):
        two = parts.r >= 2
        if kind == "percent_agreement":
            x = n / parts.n2 * parts.pa_i
        else:
            k_i = n / parts.n2 * (parts.pa_i - pe * two) / (1.0 - pe)
            x = k_i if pe_i is None else k_i - 2.0 * (1.0 - est) * (pe_i - pe) / (1.0 - pe)
        f = 0.0 if population is None else n / population
        dev = (x - est) ** 2
        se = float(np.sqrt((1.0 - f) / (n * (n - 1.0)) * (np.sum(dev) if parts.weight is None else parts.weight @ dev)))
        return GwetEstimate(float(est), float(pa), float(pe), se, n, x)
    return GwetEstimate(float(est), float(pa), float(pe), se, n)


def pair_weighted(data: Annotations, w: Weights | np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(observed, expected, n_shared)`` A × A with weights ``w``: Cohen (``w`` as given, a's label the row) or
    Scott (the pooled distribution of the pair, ``w`` symmetrised)."""
    op = as_weights(w)
    ps = data.pair_stats
    s = ps.n_shared.astype(float)
    keys, row = ps.pairs  # ordered pairs (a, b) and (b, a) both, each entry's pair
    n_pairs = keys.size
    # observed: the weight of (a's label, b's label), summed over the shared items
    wo = op if kind == "cohen" else op.symmetrised()
    obs_pair = np.bincount(row, weights=ps.count * wo.at(ps.k, ps.l), minlength=n_pairs)
    r_m, t_m = ps.pair_marginals  # a's and b's label counts on their shared items, sparse (pairs × q)
    rc, tc = r_m.tocoo(), t_m.tocoo()
    q = max(data.n_categories, 1)
    cells, inv = np.unique(np.r_[rc.row * q + rc.col, tc.row * q + tc.col], return_inverse=True)
    inv = inv.ravel()
    r_v = np.bincount(inv[: rc.nnz], weights=rc.data, minlength=cells.size)
    t_v = np.bincount(inv[rc.nnz :], weights=tc.data, minlength=cells.size)
    pair, cat = cells // q, cells % q
    if kind == "cohen":  # r^T W t
        exp_pair = np.bincount(pair, weights=r_v * op.group_sums(pair, cat, t_v), minlength=n_pairs)
    else:  # pooled^T W pooled
        pooled = (r_v + t_v) / 2.0
        exp_pair = np.bincount(pair, weights=pooled * wo.group_sums(pair, cat, pooled), minlength=n_pairs)
    observed = np.full(s.shape, np.nan)
    expected = np.full(s.shape, np.nan)
    ok = s > 0
    observed[ok] = (ps.per_pair(obs_pair))[ok] / s[ok]
    expected[ok] = (ps.per_pair(exp_pair))[ok] / (s[ok] * s[ok])
    return observed, expected, ps.n_shared


def pair_data(data: Annotations, i: int, j: int) -> Annotations:
    """The annotations of annotators ``i`` and ``j`` only (codes 0 and 1), over the data's items and categories."""
    ann = cast(np.ndarray, data.annotator)  # the callers require annotators
    mine = (ann == i) | (ann == j)
    return Annotations(
        data.item[mine],
        (ann[mine] == j).astype(np.int64),
        data.label[mine],
        items=data.items,
        annotators=cast(pd.Index, data.annotators)[[i, j]],
        categories=data.categories,
        level=data.level,
    )


def finish(value: float, metric: str, reason: str, replace_undefined_by: float) -> float:
    """``value``, or the undefined-result policy with ``reason`` when it is not finite."""
    return float(value) if np.isfinite(value) else undefined(metric, reason, replace_undefined_by)
