"""Raw agreement: per-item agreement, joint probability of agreement, SPA, percentage agreement."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from iaa_engine.base._choices import SPA_WEIGHTS
from iaa_engine.base._params import ANY, validate
from iaa_engine.base._policy import check_replacement, safe_ratio, undefined
from iaa_engine.base._results import PairwiseMatrix
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.stats._sums import spa_weight_table, variance_from_moments

__all__ = [
    "SPA_WEIGHTS",
    "item_agreement",
    "joint_probability",
    "item_agreement_variance",
    "spa_item_weights",
    "spa",
    "spa_kappa",
    "percent_agreement",
    "percent_agreement_matrix",
]

SpaScheme = Literal["flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class"]


def _item_p(data: Annotations) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n_i, P_i, pairable mask)`` with ``P_i`` nan where ``n_i < 2``."""
    c = data.counts
    n = c.n_i
    ok = c.pairable
    p = safe_ratio(c.sumsq_i - n, n * (n - 1.0), np.nan)
    p[~ok] = np.nan
    return n, p, ok


@validate()
def item_agreement(data: Any, *, replace_undefined_by: float = np.nan) -> pd.Series:
    r"""Agreement of every item: the share of agreeing pairs among its annotations.

    .. math::

        P_i = \frac{1}{n_i (n_i - 1)} \sum_c n_{ic} (n_{ic} - 1)

    Seed 000 eq. (1) / (7); seed 001 (``P_j``); Fleiss (1971).

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
    replace_undefined_by : float, default nan
        Value for items with fewer than two annotations (their agreement is undefined).

    Returns
    -------
    pandas.Series
        Indexed by item name.
    """
    data = as_annotations(data)
    fill = check_replacement(replace_undefined_by)
    _, p, ok = _item_p(data)
    p[~ok] = fill
    return pd.Series(p, index=data.items, name="agreement")


@validate()
def joint_probability(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Joint probability of agreement: the mean item agreement over items with two or more annotations.

    .. math::

        \bar P = \frac{1}{I'} \sum_{i : n_i \ge 2} P_i

    Seed 000 eq. (2); Fleiss (1971) :math:`\bar P`; equal to :func:`spa` with
    ``weights='flat'``. Undefined (see :mod:`iaa_engine.base._policy`) when no item has
    two annotations.
    """
    return spa(data, weights="flat", replace_undefined_by=replace_undefined_by)


@validate(p=ANY)
def item_agreement_variance(n: Any, p: Any) -> np.ndarray:
    r"""Exact variance of an item's agreement when its n labels are drawn i.i.d. from ``p``.

    .. math::

        q = \sum_c p_c^2,\quad r = \sum_c p_c^3,\qquad
        \operatorname{Var}[\hat P] = \frac{2\,\big(q(1-q) + 2(n-2)(r - q^2)\big)}{n(n-1)}

    This is the closed form of seed 000 eq. (50) (Appendix B, with its
    ``1/(4N^2)``; eqs. (20)-(22) carry typos, see ``shared/notes/spec.md``):
    :math:`\hat P` is the mean of :math:`N = n(n-1)/2` pair-agreement indicators
    with mean q; pairs sharing one annotation covary by :math:`r - q^2`.
    For uniform p, :math:`r = q^2` and the variance is :math:`q(1-q)/N`.

    Parameters
    ----------
    n : int or array of int
        Annotations on the item.
    p : array of float
        Class distribution (non-negative, sums to 1).

    Returns
    -------
    ndarray
        The variance; ``inf`` where ``n < 2`` (seed 000 §5.5).
    """
    n = np.asarray(n, dtype=float)
    p = np.asarray(p, dtype=float)
    if p.ndim != 1 or p.size == 0 or (p < 0).any() or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"p must be a probability vector (non-negative, summing to 1); got {p!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        var = variance_from_moments(n, float(np.sum(p**2)), float(np.sum(p**3)))
    return np.where(n >= 2, np.maximum(var, 0.0), np.inf)


@validate()
def spa_item_weights(data: Any, *, weights: SpaScheme = "annotations_m1") -> pd.Series:
    r"""The weight :math:`k_i` SPA gives each item under a weighting scheme (seed 000 §5).

    ===================  ==========================================================
    ``flat``             1
    ``annotations``      :math:`n_i`
    ``annotations_m1``   :math:`n_i - 1`
    ``edges``            :math:`n_i (n_i - 1) / 2`
    ``inv_var``          :math:`1/\operatorname{Var}[\hat P_i]` with a uniform class distribution over the C categories
    ``inv_var_class``    :math:`1/\operatorname{Var}[\hat P_i]` under the observed classes :math:`p_c = n_c / n`
    ===================  ==========================================================

    Items with fewer than two annotations get weight 0 in every scheme. The
    variance is :func:`item_agreement_variance`. When the class distribution is
    degenerate (a single category), every item's agreement is 1 with no
    variance; the weights then fall back to ``edges`` (the uniform limit).
    """
    data = as_annotations(data)
    sums = data.count_sums
    n = data.counts.n_i
    return pd.Series(
        spa_weight_table(n, weights, data.n_categories, sums.class_distribution()),
        index=data.items,
        name=f"weight[{weights}]",
    )


@validate()
def spa(
    data: Any,
    *,
    weights: SpaScheme = "annotations_m1",
    replace_undefined_by: float = np.nan,
) -> float:
    r"""Sparse Probability of Agreement (Nørregaard & Derczynski, seed 000).

    .. math::

        \bar P_{\mathrm{spa}} = \frac{\sum_i k_i \hat P_i}{\sum_i k_i},\qquad
        \hat P_i = \frac{1}{n_i(n_i - 1)} \sum_c n_{ic}(n_{ic} - 1)

    The probability that two annotations of the same item agree, estimated
    from items annotated by different numbers of annotators. Unbiased for the
    complete data's agreement when annotations are missing at random (seed 000
    §4). With ``flat`` weights on complete data it is Fleiss' :math:`\bar P`;
    with ``annotations`` weights it is Krippendorff's nominal :math:`1 - D_o`
    (seed 000 eq. 6); with ``edges`` it pools every pair of annotations.

    Parameters
    ----------
    data : Annotations or convertible
    weights : {'flat', 'annotations', 'annotations_m1', 'edges', 'inv_var', 'inv_var_class'}
        The weighting scheme, see :func:`spa_item_weights`. Default
        ``annotations_m1``, the paper's recommendation (§6.4).
    replace_undefined_by : float, default nan
        Returned (with an :class:`UndefinedMetricWarning`) when no item has two
        annotations.

    Returns
    -------
    float
    """
    data = as_annotations(data)
    sums = data.count_sums
    if sums.n_pairable <= 0:
        return undefined("SPA", "no item has two or more annotations", replace_undefined_by)
    return float(sums.spa(weights))


@validate()
def spa_kappa(
    data: Any,
    *,
    weights: SpaScheme = "annotations_m1",
    replace_undefined_by: float = np.nan,
) -> float:
    r"""Chance-corrected SPA, with an expected agreement that stays unbiased under missing annotations.

    .. math::

        \kappa_{\mathrm{spa}} = \frac{\bar P_{\mathrm{spa}} - P_e}{1 - P_e},\qquad
        P_e = \frac{\sum_c n_c (n_c - 1)}{n (n - 1)}

    where :math:`n_c` counts category c among the n pairable annotations
    (items with two or more). :math:`P_e` is the chance that two *distinct*
    annotations agree: a U-statistic, unbiased for :math:`\sum_c p_c^2` under
    i.i.d. sampling and, under random removal of annotations, for the complete
    data's value, whereas the Fleiss-style :math:`\sum_c (n_c/n)^2` is biased
    upwards by about :math:`(1 - \sum_c p_c^2)/n` and the bias grows as
    annotations go missing. This is Krippendorff's expected agreement
    (Krippendorff 2011); with ``weights='annotations'`` the coefficient
    equals nominal Krippendorff's alpha exactly. The ratio keeps the
    :math:`O(1/n)` bias of any ratio estimator (Nørregaard & Derczynski, section 4.4);
    :func:`iaa_engine.missingness_simulation` measures both corrections.

    Undefined (``replace_undefined_by`` with a warning) when no item has two
    annotations or every pairable annotation has the same label.
    """
    data = as_annotations(data)
    sums = data.count_sums
    if sums.n_pairable <= 0:
        return undefined("chance-corrected SPA", "no item has two or more annotations", replace_undefined_by)
    from iaa_engine.base._policy import chance_corrected

    return chance_corrected(
        float(sums.spa(weights)), float(sums.pairable_expected()), "chance-corrected SPA", replace_undefined_by
    )


@validate()
def percent_agreement(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Overall percentage agreement: the share of items on which all annotators gave the same label.

    .. math::

        P_{\mathrm{overall}} = \frac{1}{I'} \sum_{i: n_i \ge 2} \mathbf 1\{x_{1i} = \dots = x_{n_i i}\}

    Seed 004 §3.1 eq. (8), over the items with two or more annotations.
    """
    data = as_annotations(data)
    sums = data.count_sums
    if sums.n_pairable <= 0:
        return undefined("percentage agreement", "no item has two or more annotations", replace_undefined_by)
    return float(sums.percent_agreement())


@validate()
def percent_agreement_matrix(data: Any, *, replace_undefined_by: float = np.nan) -> PairwiseMatrix:
    r"""Pairwise percentage agreement for every pair of annotators, on the items both annotated.

    .. math::

        P_{ab} = \frac{|\{i \in J_{ab} : x_{ai} = x_{bi}\}|}{|J_{ab}|}

    Seed 004 §3.2 eqs. (9)-(10); seed 001 ``A_xy``. Entries with no shared item
    are undefined and hold ``replace_undefined_by``.
    """
    data = as_annotations(data)
    data.require_annotators("the pairwise agreement matrix")
    fill = check_replacement(replace_undefined_by)
    ps = data.pair_stats
    vals = safe_ratio(ps.n_agree, ps.n_shared, fill)
    return PairwiseMatrix("percent_agreement", list(data.annotators), vals, ps.n_shared.copy())
