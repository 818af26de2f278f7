"""The kappa family: Cohen, Scott, Fleiss, Artstein & Poesio's multi-coder kappa and bias, Gwet's AC1,
Brennan-Prediger."""

from __future__ import annotations

from typing import Any

import numpy as np

from iaa_engine.base._params import validate
from iaa_engine.base._policy import chance_corrected, check_replacement, safe_ratio, undefined
from iaa_engine.base._results import PairwiseMatrix
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.stats._tables import PairStats

__all__ = [
    "cohen_kappa",
    "cohen_kappa_matrix",
    "scott_pi",
    "scott_pi_matrix",
    "fleiss_kappa",
    "multi_kappa",
    "annotator_bias",
    "gwet_ac1",
    "brennan_prediger",
]


# --------------------------------------------------------------------------- pairwise (two annotators)


def _pair_expected(ps: PairStats, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(observed, expected, n_shared)`` for every ordered annotator pair; Cohen or Scott expectation."""
    s = ps.n_shared.astype(float)
    observed = safe_ratio(ps.n_agree, s, np.nan)
    r, t = ps.pair_marginals  # (pair, k): a's and b's labels on their shared items, sparse
    if kind == "cohen":
        # E_ab = sum_k n_a(k|J_ab) n_b(k|J_ab) / |J_ab|^2
        per_pair = np.asarray(r.multiply(t).sum(axis=1)).ravel()
    else:
        # Scott: one pooled distribution of both annotators' labels on J_ab
        tot = ps.pair_label_totals()
        per_pair = np.asarray(tot.multiply(tot).sum(axis=1)).ravel() / 4.0
    cross = ps.per_pair(per_pair)
    expected = safe_ratio(cross, s * s, np.nan)
    return observed, expected, ps.n_shared


def _pair_matrix(data: Any, kind: str, metric: str, replace_undefined_by: float) -> PairwiseMatrix:
    data = as_annotations(data)
    data.require_annotators(metric)
    fill = check_replacement(replace_undefined_by)
    obs, exp, shared = _pair_expected(data.pair_stats, kind)
    vals = safe_ratio(obs - exp, 1.0 - exp, fill)
    vals[(shared == 0) | ~np.isfinite(vals)] = fill
    has_items = np.diag(shared) > 0
    np.fill_diagonal(vals, np.where(has_items, 1.0, fill))
    return PairwiseMatrix(metric, list(data.annotators), vals, shared.copy())


def _pick_pair(data: Annotations, a: Any, b: Any, metric: str) -> tuple[int, int]:
    names = list(data.annotators)
    if a is None and b is None:
        if len(names) != 2:
            raise ValueError(
                f"{metric} compares two annotators; the data has {len(names)} ({names[:6]!r}...). "
                "Name them with annotator_a= and annotator_b=, or use the matrix function"
            )
        return 0, 1
    if a is None or b is None:
        raise ValueError("give both annotator_a and annotator_b, or neither")
    out = []
    for who in (a, b):
        hit = data.annotators.get_indexer([who])[0]
        if hit < 0:
            raise ValueError(f"annotator {who!r} is not in the data; annotators are {names[:10]!r}")
        out.append(int(hit))
    if out[0] == out[1]:
        raise ValueError(f"annotator_a and annotator_b must differ; both are {a!r}")
    return out[0], out[1]


def _pair_scalar(data: Any, a: Any, b: Any, kind: str, metric: str, replace_undefined_by: float) -> float:
    data = as_annotations(data)
    data.require_annotators(metric)
    i, j = _pick_pair(data, a, b, metric)
    names = (data.annotators[i], data.annotators[j])
    ps = data.__dict__.get("pair_stats")
    if ps is None:  # only this pair's annotations: memory and time O(their annotations), not every pair's
        mine = (data.annotator == i) | (data.annotator == j)
        ps = PairStats.from_codes(
            data.item[mine],
            (data.annotator[mine] == j).astype(np.int64),
            data.label[mine],
            data.n_items,
            2,
            data.n_categories,
        )
        i, j = 0, 1
    obs, exp, shared = _pair_expected(ps, kind)
    if shared[i, j] == 0:
        return undefined(metric, f"annotators {names[0]!r} and {names[1]!r} share no item", replace_undefined_by)
    return chance_corrected(obs[i, j], exp[i, j], metric, replace_undefined_by)


@validate()
def cohen_kappa(
    data: Any, annotator_a: Any = None, annotator_b: Any = None, *, replace_undefined_by: float = np.nan
) -> float:
    r"""Cohen's kappa between two annotators on the items both annotated.

    .. math::

        A_{xy} = \frac{|\{j \in J : a_{xj} = a_{yj}\}|}{|J|},\quad
        E_{xy} = \sum_k \frac{n_x(k)}{|J|}\frac{n_y(k)}{|J|},\quad
        \kappa_{xy} = \frac{A_{xy} - E_{xy}}{1 - E_{xy}}

    where J is the set of items annotated by both, and :math:`n_x(k)` counts
    x's labels k on J (seed 001, "Cohen's Kappa"; Cohen 1960). Equals
    ``sklearn.metrics.cohen_kappa_score`` on the shared items.

    Parameters
    ----------
    data : Annotations or convertible
    annotator_a, annotator_b : optional
        Names of the two annotators; may be omitted when the data has exactly two.
    replace_undefined_by : float, default nan
        Returned with a warning when the pair shares no item or ``E = 1``.
    """
    return _pair_scalar(data, annotator_a, annotator_b, "cohen", "Cohen's kappa", replace_undefined_by)


@validate()
def cohen_kappa_matrix(data: Any, *, replace_undefined_by: float = np.nan) -> PairwiseMatrix:
    """Cohen's kappa for every pair of annotators, with the number of shared items.

    See :func:`cohen_kappa` for the formula; entries of pairs that share no item
    or whose expected agreement is 1 hold ``replace_undefined_by``.
    """
    return _pair_matrix(data, "cohen", "cohen_kappa", replace_undefined_by)


@validate()
def scott_pi(
    data: Any, annotator_a: Any = None, annotator_b: Any = None, *, replace_undefined_by: float = np.nan
) -> float:
    r"""Scott's pi between two annotators on the items both annotated.

    .. math::

        P(k) = \frac{n_k}{2|J|},\qquad A_e^\pi = \sum_k P(k)^2,\qquad
        \pi = \frac{A_o - A_e^\pi}{1 - A_e^\pi}

    with :math:`n_k` the labels k given by either annotator on the shared
    items J (Scott 1955; seed 003 §13.2).
    """
    return _pair_scalar(data, annotator_a, annotator_b, "scott", "Scott's pi", replace_undefined_by)


@validate()
def scott_pi_matrix(data: Any, *, replace_undefined_by: float = np.nan) -> PairwiseMatrix:
    """Scott's pi for every pair of annotators; see :func:`scott_pi`."""
    return _pair_matrix(data, "scott", "scott_pi", replace_undefined_by)


# --------------------------------------------------------------------------- many annotators


def _observed(data: Annotations) -> tuple[float, int]:
    """Fleiss' observed agreement (mean P_i over items with n_i >= 2) and the number of such items."""
    sums = data.count_sums
    return float(sums.joint_probability()), int(sums.n_pairable)


@validate()
def fleiss_kappa(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Fleiss' kappa (the multi-annotator generalisation of Scott's pi).

    .. math::

        \bar P = \frac{1}{I'} \sum_{i: n_i\ge 2} \frac{\sum_k n_{ik}(n_{ik}-1)}{n_i(n_i-1)},\qquad
        p_k = \frac{1}{I} \sum_i \frac{n_{ik}}{n_i},\qquad
        \bar P_e = \sum_k p_k^2,\qquad
        \kappa = \frac{\bar P - \bar P_e}{1 - \bar P_e}

    Seed 001 ("Fleiss' Kappa"), seed 000 eqs. (3)-(4), Fleiss (1971). With a
    constant number of annotations per item, :math:`p_k` is the pooled
    proportion of the seeds; with varying numbers it is the mean of the items'
    proportions, as in Gwet, *Handbook of Inter-Rater Reliability* (4th ed.,
    2014, ch. 5) and the irrCAC package. Equals ``statsmodels``'
    ``fleiss_kappa`` on complete data.
    """
    data = as_annotations(data)
    p_bar, n_pairable = _observed(data)
    return chance_corrected(
        p_bar, float(data.count_sums.fleiss_expected()), "Fleiss' kappa", replace_undefined_by, n_pairs=n_pairable
    )


def _coder_expected(data: Annotations) -> tuple[float, float, np.ndarray]:
    """``(A_e^pi, A_e^kappa, P(k|c))`` from the annotators' label distributions (seed 003 §13.4)."""
    dist = data.annotator_stats.distributions
    dist = dist[data.annotator_stats.n_a > 0]
    c = dist.shape[0]
    mean = dist.mean(axis=0)
    ae_pi = float(np.sum(mean**2))
    col = dist.sum(axis=0)
    ae_kappa = float(np.sum(col**2 - np.sum(dist**2, axis=0)) / (c * (c - 1.0))) if c > 1 else float("nan")
    return ae_pi, ae_kappa, dist


@validate()
def multi_kappa(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Artstein & Poesio's multi-coder kappa (seed 003 §13.4; Conger's kappa, 1980).

    .. math::

        A_o = \bar P,\qquad
        A_e^\kappa = \sum_k \binom{c}{2}^{-1} \sum_{m<n} P(k|c_m)\,P(k|c_n),\qquad
        \kappa = \frac{A_o - A_e^\kappa}{1 - A_e^\kappa}

    Each annotator keeps their own distribution :math:`P(k|c) = n_{ck}/n_c`
    over the items they labelled (seed 003 writes :math:`n_{ck}/i` for complete
    data, where :math:`n_c = i`). Equals irrCAC's ``conger`` also on sparse data.
    Needs annotator identities and at least two annotators.
    """
    data = as_annotations(data)
    data.require_annotators("the multi-coder kappa")
    a_o, ok = _observed(data)
    _, ae_kappa, dist = _coder_expected(data)
    if dist.shape[0] < 2:
        return undefined("multi-coder kappa", "it needs at least two annotators", replace_undefined_by)
    return chance_corrected(a_o, ae_kappa, "multi-coder kappa", replace_undefined_by, n_pairs=ok)


@validate()
def annotator_bias(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Artstein & Poesio's annotator bias B (seed 003 §13.3-13.4).

    .. math::

        B = A_e^\pi - A_e^\kappa = \frac{1}{c - 1} \sum_k \sigma^2_{P(k|c)}

    where :math:`A_e^\pi = \sum_k \bar P(k)^2` uses the mean of the annotators'
    distributions and :math:`\sigma^2` is the (population) variance of
    :math:`P(k|c)` across the c annotators. B is 0 when all annotators share
    one distribution; it shrinks in proportion to :math:`1/(c-1)`. On complete
    data :math:`A_e^\pi` is Fleiss' :math:`\bar P_e` and B is the difference of
    the expected agreements of :func:`fleiss_kappa` and :func:`multi_kappa`.
    """
    data = as_annotations(data)
    data.require_annotators("the annotator bias")
    _, _, dist = _coder_expected(data)
    c = dist.shape[0]
    if c < 2:
        return undefined("annotator bias", "it needs at least two annotators", replace_undefined_by)
    # the variance form: never negative, unlike the difference of two nearly equal sums
    return float(np.sum(dist.var(axis=0)) / (c - 1.0))


@validate()
def gwet_ac1(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Gwet's AC1 for any number of annotators and missing data.

    .. math::

        p_a = \bar P,\qquad
        p_e = \frac{1}{Q - 1} \sum_k \pi_k (1 - \pi_k),\qquad
        \pi_k = \frac{1}{I}\sum_i \frac{n_{ik}}{n_i},\qquad
        AC_1 = \frac{p_a - p_e}{1 - p_e}

    Q is the number of categories (the given ``categories``, or those
    observed). Gwet (2008), *Br. J. Math. Stat. Psychol.* 61:29-48; Gwet,
    *Handbook of Inter-Rater Reliability* (2014), eq. (2.5). Equals irrCAC's
    ``gwet``. Undefined with a single category (Q = 1).
    """
    data = as_annotations(data)
    p_a, ok = _observed(data)
    q = data.n_categories
    if q < 2:
        return undefined("Gwet's AC1", "it needs at least two categories", replace_undefined_by)
    p_e = float(data.count_sums.gwet_expected())
    return chance_corrected(p_a, p_e, "Gwet's AC1", replace_undefined_by, n_pairs=ok)


@validate()
def brennan_prediger(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Brennan & Prediger's kappa: chance agreement from a uniform choice among Q categories.

    .. math::

        \kappa_{BP} = \frac{\bar P - 1/Q}{1 - 1/Q}

    Brennan & Prediger (1981), *Educ. Psychol. Meas.* 41:687-699; Gwet (2014)
    ch. 4. Equals irrCAC's ``bp``. Q as in :func:`gwet_ac1`.
    """
    data = as_annotations(data)
    p_a, ok = _observed(data)
    q = data.n_categories
    if q < 2:
        return undefined("Brennan-Prediger kappa", "it needs at least two categories", replace_undefined_by)
    return chance_corrected(p_a, 1.0 / q, "Brennan-Prediger kappa", replace_undefined_by, n_pairs=ok)
