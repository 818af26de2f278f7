r"""One coefficient with its analytic standard error, confidence interval and p-value (Gwet's linearisation)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import scipy.sparse as sp

from iaa_engine.base._params import ANY, Choice, NoneOr, Real, validate
from iaa_engine.base._policy import invalid, undefined
from iaa_engine.base._results import Estimate
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.metrics._kappa import pick_pair
from iaa_engine.metrics._weighted import (
    KAPPA_WEIGHTS,
    gwet_coefficient,
    gwet_parts,
    pair_data,
    resolve_weights,
)
from iaa_engine.stats._weight_sums import FamilyWeights, Weights

__all__ = ["estimate", "ANALYTIC_METRICS", "LinearTerms", "linear_terms"]

METHOD = "Gwet (2008) linearisation, conditional on the annotators; t interval and test with n - 1 df"

#: The coefficients :func:`estimate` gives a standard error for (Gwet's variance, conditional on the annotators).
ANALYTIC_METRICS = (
    "fleiss_kappa",
    "gwet_ac1",
    "brennan_prediger",
    "multi_kappa",
    "percent_agreement_weighted",
    "cohen_kappa",
    "scott_pi",
    "krippendorff_alpha",
)

_GWET = {
    "fleiss_kappa": "fleiss_kappa",
    "gwet_ac1": "gwet_ac1",
    "brennan_prediger": "brennan_prediger",
    "multi_kappa": "multi_kappa",
    "percent_agreement_weighted": "percent_agreement",
}


def _interval(est: float, se: float, n: int, confidence: float) -> tuple[float, float, float]:
    """``(lower, upper, p)`` from the t distribution with n - 1 degrees of freedom (upper end capped at 1)."""
    from scipy import special  # the t distribution's CDF and quantile without importing scipy.stats (~1.5 s)

    if not (np.isfinite(est) and np.isfinite(se)) or n < 2:
        return float("nan"), float("nan"), float("nan")
    df = n - 1
    if se == 0.0:
        return est, min(1.0, est), 0.0 if est != 0 else 1.0
    t = float(special.stdtrit(df, (1.0 + confidence) / 2.0))
    p = float(2.0 * special.stdtr(df, -abs(est / se)))
    return est - t * se, min(1.0, est + t * se), p


def _cohen_variance(sub: Annotations, w: Weights) -> tuple[float, float, float, float, int]:
    """Cohen's weighted kappa on the pair's shared items with Gwet's variance: ``(kappa, pa, pe, se, n)``."""
    kappa, pa, pe, x, _, n = _cohen_terms(sub, w)
    if x is None:
        return kappa, pa, pe, float("nan"), n
    se = float(np.sqrt(np.sum((x - kappa) ** 2) / (n * (n - 1.0)))) if n > 1 else float("nan")
    return kappa, pa, pe, se, n


def _cohen_terms(sub: Annotations, w: Weights) -> tuple[float, float, float, np.ndarray | None, np.ndarray, int]:
    """Cohen's weighted kappa on the pair's shared items with Gwet's linearised per-item terms:
    ``(kappa, pa, pe, terms, item codes, n)`` (``terms`` None when kappa is undefined).

    With :math:`k_i, l_i` the two labels of shared item :math:`i`, :math:`p^a, p^b` the annotators' label shares on
    the shared items: :math:`p_{a|i} = w_{k_i l_i}`, :math:`p_e = p^{a\\top} W p^b`,
    :math:`p_{e|i} = ((W p^b)_{k_i} + (W^\\top p^a)_{l_i}) / 2`.
    """
    codes = cast(np.ndarray, sub.annotator)
    order = np.lexsort((codes, sub.item))
    item, ann, lab = sub.item[order], codes[order], sub.label[order]
    first = np.flatnonzero(ann == 0)
    both = first[(first + 1 < item.size)]
    both = both[(item[both + 1] == item[both]) & (ann[both + 1] == 1)]
    k, l = lab[both], lab[both + 1]  # noqa: E741 - a's label and b's label
    n = k.size
    if n == 0:
        return float("nan"), float("nan"), float("nan"), None, item[both], 0
    q = sub.n_categories
    pa_share = np.bincount(k, minlength=q) / n
    pb_share = np.bincount(l, minlength=q) / n
    pa_i = w.at(k, l)
    pa = float(pa_i.mean())
    w_pb = w.matvec(pb_share)
    pe = float(pa_share @ w_pb)
    if 1.0 - pe <= 1e-12:
        return float("nan"), pa, pe, None, item[both], n
    kappa = (pa - pe) / (1.0 - pe)
    pe_i = (w_pb[k] + w.T.matvec(pa_share)[l]) / 2.0
    x = (pa_i - pe) / (1.0 - pe) - 2.0 * (1.0 - kappa) * (pe_i - pe) / (1.0 - pe)
    return float(kappa), pa, pe, x, item[both], n


@validate(
    metric=Choice(*ANALYTIC_METRICS),
    weights=KAPPA_WEIGHTS,
    population=NoneOr(Real(1)),
    annotator_a=ANY,
    annotator_b=ANY,
)
def estimate(
    data: Any,
    metric: str,
    *,
    weights: str | np.ndarray = "identity",
    confidence: float = 0.95,
    population: float | None = None,
    annotator_a: Any = None,
    annotator_b: Any = None,
    replace_undefined_by: float = float("nan"),
) -> Estimate:
    r"""A coefficient of the kappa family with its standard error, confidence interval and p-value.

    The standard error is Gwet's (2008, 2014) linearisation, conditional on the annotators (the sampling units are
    the items), with missing annotations handled as in Gwet's multi-rater framework:

    .. math::

        \kappa_i = \frac{n}{n_2}\,\frac{p_{a|i} - p_e [r_i \ge 2]}{1 - p_e},\qquad
        \kappa^\star_i = \kappa_i - 2(1 - \hat\kappa)\frac{p_{e|i} - p_e}{1 - p_e},\qquad
        \widehat{\operatorname{Var}}(\hat\kappa) = \frac{1 - f}{n(n - 1)}\sum_i (\kappa^\star_i - \hat\kappa)^2

    over the :math:`n` items with an annotation (:math:`n_2` of them with two or more), :math:`f = n / N` for a
    finite population of :math:`N` items. The interval is :math:`\hat\kappa \pm t_{n-1}\,\mathrm{SE}` (the upper
    end capped at 1) and the p-value the two-sided t test of 0, as irrCAC reports them. Cohen's kappa and Scott's
    pi use the pair's shared items (:math:`n` = shared items, complete data).

    Parameters
    ----------
    data : Annotations or convertible
    metric : str
        The coefficient, one of :data:`ANALYTIC_METRICS`: ``'fleiss_kappa'``, ``'gwet_ac1'`` (AC2 when
        weighted), ``'brennan_prediger'``, ``'multi_kappa'`` (Conger's kappa), ``'percent_agreement_weighted'``,
        ``'cohen_kappa'``, ``'scott_pi'``; or ``'krippendorff_alpha'`` at the data's level, whose standard error
        is the delete-one-item jackknife of :func:`alpha_variance` (``weights`` must stay ``'identity'``).
    weights : str or array, default 'identity'
        Agreement weights between categories (see :func:`fleiss_kappa`).
    confidence : float, default 0.95
        Coverage of the interval, in (0, 1).
    population : float, optional
        Number of items in the population, for the finite-population correction :math:`1 - n/N`: at least the
        number of items rated in the data (equal: the whole population is rated, the standard error is 0).
    annotator_a, annotator_b : optional
        The pair, for ``cohen_kappa`` and ``scott_pi`` (may be omitted when the data has two annotators).
    replace_undefined_by : float, default nan
        The estimate returned, with an :class:`UndefinedMetricWarning`, when the coefficient is undefined.

    Returns
    -------
    Estimate
        ``estimate``, ``se``, ``lower``, ``upper``, ``p_value``, ``n_items``; ``details`` holds the observed and
        chance agreement ``pa``, ``pe`` and the degrees of freedom ``df``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came); ``population`` is
        smaller than the number of items rated in the data.
    ValueError
        The data has no annotator identities and the metric needs them (``multi_kappa``, ``cohen_kappa``,
        ``scott_pi``); an annotator named is not in the data.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    British Journal of Mathematical and Statistical Psychology 61(1), 29–48.

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    The 4 raters × 12 items of Gwet (2014), with missing ratings (irrCAC's ``cac.raw4raters``):

    >>> import numpy as np, pandas as pd
    >>> import iaa_engine as ie
    >>> nan = np.nan
    >>> table = pd.DataFrame({
    ...     "r1": [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...     "r2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
    ...     "r3": [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    ...     "r4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]})
    >>> data = ie.Annotations.from_wide(table, annotators_as="columns")
    >>> e = ie.estimate(data, "gwet_ac1")
    >>> round(e.estimate, 5), round(e.se, 5)  # irrCAC: AC1 0.77544, SE 0.14295
    (0.77544, 0.14295)
    """
    data = as_annotations(data)
    if population is not None and data.has_item_counts:  # a sample cannot be larger than its population
        rated = int(np.count_nonzero(data.counts.n_i))
        if population < rated:
            raise invalid("population", f"at least the number of items rated ({rated})", population)
    name = metric if isinstance(weights, str) and weights == "identity" else f"{metric}[{_name(weights)}]"
    if metric == "krippendorff_alpha":
        return _alpha_estimate(data, weights, confidence, population, replace_undefined_by)
    if metric in ("cohen_kappa", "scott_pi"):
        sub, w = _pair(data, metric, weights, annotator_a, annotator_b)
        if metric == "cohen_kappa":
            est, pa, pe, se, n = _cohen_variance(sub, w)
        else:
            shared = _shared_only(sub)
            g = gwet_coefficient(shared, "fleiss_kappa", w.symmetrised(), with_variance=True)
            est, pa, pe, se, n = g.estimate, g.pa, g.pe, g.se, g.n
    else:
        if metric == "multi_kappa":
            data.require_annotators(metric)
        g = gwet_coefficient(data, _GWET[metric], resolve_weights(data, weights), with_variance=True)
        est, pa, pe, se, n = g.estimate, g.pa, g.pe, g.se, g.n
    if population is not None and np.isfinite(se):  # Var scales by 1 - f, f = n / N
        se = float(se * np.sqrt(max(0.0, 1.0 - n / population)))
    if not np.isfinite(est):
        est = undefined(name, "no item has two annotations, or the chance agreement is 1", replace_undefined_by)
        nan = float("nan")
        return Estimate(name, est, nan, nan, nan, nan, float(confidence), n, METHOD, {"pa": pa, "pe": pe})
    lower, upper, p = _interval(est, se, n, confidence)
    details = {"pa": float(pa), "pe": float(pe), "df": n - 1}
    return Estimate(name, float(est), float(se), lower, upper, p, float(confidence), int(n), METHOD, details)


def _alpha_estimate(
    data: Annotations, weights: Any, confidence: float, population: float | None, replace_undefined_by: float
) -> Estimate:
    """Krippendorff's alpha at the data's level with its delete-one-item jackknife SE (:func:`alpha_variance`)."""
    from iaa_engine.inference._inference import alpha_variance, count_patterns

    if not (isinstance(weights, str) and weights == "identity"):
        raise invalid(
            "weights", "'identity' for krippendorff_alpha (its level of measurement weighs the differences)", weights
        )
    name = f"krippendorff_alpha[{data.level}]"
    av = alpha_variance(data, replace_undefined_by=replace_undefined_by)
    if data.has_item_counts:
        n = int(np.count_nonzero(data.counts.n_i))
    else:  # summarised on a cluster: the items of the count patterns (each has an annotation)
        n = int(np.sum(count_patterns(data)[1]))
    se = float(av.se_jackknife) if np.isfinite(av.d_e) and av.d_e > 0 else float("nan")
    if population is not None and np.isfinite(se):
        se = float(se * np.sqrt(max(0.0, 1.0 - n / population)))
    details = {"d_o": av.d_o, "d_e": av.d_e, "se_delta": av.se_delta, "df": n - 1}
    method = "delete-one-item jackknife of alpha (alpha_variance); t interval and test with n - 1 df"
    lower, upper, p = _interval(float(av.alpha), se, n, confidence) if np.isfinite(se) else (np.nan,) * 3
    return Estimate(name, float(av.alpha), se, float(lower), float(upper), float(p), float(confidence), n, method,
                    details)  # fmt: skip


def _pair(data: Annotations, metric: str, weights: Any, a: Any, b: Any) -> tuple[Annotations, Weights]:
    """The two annotators' data (codes 0 and 1) and the weights, for Cohen's kappa and Scott's pi."""
    data.require_annotators(metric)
    i, j = pick_pair(data, a, b, metric)
    return pair_data(data, i, j), resolve_weights(data, weights)


def _name(weights: Any) -> str:
    return weights if isinstance(weights, str) else "custom"


def _shared_only(sub: Annotations) -> Annotations:
    """The two annotators' annotations on the items both labelled."""
    per_item = np.bincount(sub.item, minlength=sub.n_items)
    keep = per_item[sub.item] == 2
    return Annotations(
        sub.item[keep],
        cast(np.ndarray, sub.annotator)[keep],
        sub.label[keep],
        items=sub.items,
        annotators=sub.annotators,
        categories=sub.categories,
        level=sub.level,
    )


@dataclass(frozen=True)
class LinearTerms:
    r"""A coefficient with Gwet's linearised per-item terms (their mean is the estimate).

    ``items`` are the data's item codes the terms belong to; ``se`` is
    :math:`\sqrt{\sum_i (x_i - \hat\kappa)^2 / (n(n-1))}`, the standard error of :func:`estimate` (for
    Krippendorff's alpha: Gwet's linearisation, not :func:`estimate`'s jackknife).
    """

    metric: str
    estimate: float
    terms: np.ndarray | None
    items: np.ndarray
    pa: float
    pe: float

    @property
    def n(self) -> int:
        return int(self.items.size)

    @property
    def se(self) -> float:
        n = self.n
        if self.terms is None or n < 2 or not np.isfinite(self.estimate):
            return float("nan")
        return float(np.sqrt(np.sum((self.terms - self.estimate) ** 2) / (n * (n - 1.0))))


def linear_terms(
    data: Annotations,
    metric: str,
    *,
    weights: str | np.ndarray = "identity",
    annotator_a: Any = None,
    annotator_b: Any = None,
) -> LinearTerms:
    """The coefficient ``metric`` (one of :data:`ANALYTIC_METRICS`) on ``data`` with its per-item linearised terms.

    The terms are those whose spread gives :func:`estimate`'s standard error (Gwet 2008; Gwet 2016, eq. 9 for the
    difference of two coefficients on the same items); Krippendorff's alpha uses Gwet's linearisation of alpha
    (Gwet 2014, §4.2; irrCAC ``krippen.alpha.raw``, pairedCAC ``alpha.linear.i``) at the data's level. Undefined
    coefficients come back as nan with ``terms`` None.
    """
    name = metric if isinstance(weights, str) and weights == "identity" else f"{metric}[{_name(weights)}]"
    if metric == "krippendorff_alpha":
        if not (isinstance(weights, str) and weights == "identity"):
            raise invalid(
                "weights", "'identity' for krippendorff_alpha (its level of measurement weighs the differences)",
                weights,
            )  # fmt: skip
        return _alpha_terms(data)
    if metric in ("cohen_kappa", "scott_pi"):
        sub, w = _pair(data, metric, weights, annotator_a, annotator_b)
        if metric == "cohen_kappa":
            est, pa, pe, x, items, _ = _cohen_terms(sub, w)
            return LinearTerms(name, est, x, items, pa, pe)
        shared = _shared_only(sub)
        ws = w.symmetrised()
        g = gwet_coefficient(shared, "fleiss_kappa", ws, with_variance=True)
        return LinearTerms(name, g.estimate, g.terms, gwet_parts(shared, ws).rows, g.pa, g.pe)
    if metric == "multi_kappa":
        data.require_annotators(metric)
    w = resolve_weights(data, weights)
    g = gwet_coefficient(data, _GWET[metric], w, with_variance=True)
    return LinearTerms(name, g.estimate, g.terms, gwet_parts(data, w).rows, g.pa, g.pe)


def _alpha_weights(data: Annotations, totals: np.ndarray) -> Weights:
    r"""Agreement weights :math:`1 - \delta^2_{kl} / \max \delta^2` of the data's level (alpha is invariant to
    the scale of :math:`\delta^2`): identity, quadratic on the values, ratio, or quadratic on the mid-ranks of the
    pairable values (Krippendorff's ordinal metric)."""
    if data.level == "nominal":
        return resolve_weights(data, "identity")
    if data.level == "ordinal":
        return FamilyWeights("quadratic", np.cumsum(totals) - totals / 2.0)
    return FamilyWeights("quadratic" if data.level == "interval" else "ratio", data.category_values(data.level))


def _alpha_terms(data: Annotations) -> LinearTerms:
    r"""Krippendorff's alpha with Gwet's linearised per-item terms (Gwet 2014, §4.2; pairedCAC ``alpha.linear.i``).

    Over the :math:`n''` items with :math:`r_i \ge 2`, :math:`\bar r` their mean number of values,
    :math:`\epsilon = 1/\sum_i r_i`: :math:`p_{a|i} = \sum_k r_{ik}(r^\star_{ik} - 1) / (\bar r (r_i - 1))`,
    :math:`p_a = (1-\epsilon)\overline{p_{a|i}} + \epsilon`, :math:`\pi_k = \overline{r_{ik}} / \bar r`,
    :math:`p_e = \pi^\top W \pi`; the term of item :math:`i` is
    :math:`\alpha_i - 2(1-\alpha)(p_{e|i} - p_e)/(1 - p_e)` with
    :math:`\alpha_i = ((1-\epsilon)(p_{a|i} - \overline{p_{a|i}}(r_i - \bar r)/\bar r) + \epsilon - p_e)/(1-p_e)`
    and :math:`p_{e|i} = r_i^\top \bar\pi_w / \bar r - (\sum_k \pi_k)(r_i - \bar r)/\bar r`. The
    :math:`n - n''` items with one value carry the term :math:`\alpha` and the others are scaled by
    :math:`n/n''` about it (the ratio estimator's linearisation; nothing changes when every item has two values).
    """
    name = f"krippendorff_alpha[{data.level}]"
    c = data.counts
    table_all = sp.csr_matrix((c.count.astype(float), (c.item, c.category)), shape=(c.n_items, data.n_categories))
    r_all = np.asarray(table_all.sum(axis=1)).ravel()
    rated = np.flatnonzero(r_all > 0)
    two = np.flatnonzero(r_all >= 2)
    nan = float("nan")
    if two.size == 0:
        return LinearTerms(name, nan, None, rated, nan, nan)
    table = table_all[two]
    r = r_all[two]
    totals = np.asarray(table.sum(axis=0)).ravel()
    w = _alpha_weights(data, totals)
    r_bar = float(r.mean())
    eps = 1.0 / float(r.sum())
    sum_q = w.row_forms(table) - r
    pa_i = sum_q / (r_bar * (r - 1.0))
    pa_v = float(pa_i.mean())
    pa = (1.0 - eps) * pa_v + eps
    pi = totals / (two.size * r_bar)
    w_pi = w.matvec(pi)
    pe = float(pi @ w_pi)
    if not 1.0 - pe > 1e-12:
        return LinearTerms(name, nan, None, rated, pa, pe)
    alpha = (pa - pe) / (1.0 - pe)
    pa_i = (1.0 - eps) * (pa_i - pa_v * (r - r_bar) / r_bar) + eps
    pi_w = w_pi if w.symmetric else (w_pi + w.T.matvec(pi)) / 2.0
    pe_i = (table @ pi_w) / r_bar - float(pi.sum()) * (r - r_bar) / r_bar
    x = (pa_i - pe) / (1.0 - pe) - 2.0 * (1.0 - alpha) * (pe_i - pe) / (1.0 - pe)
    terms = np.full(rated.size, alpha)
    terms[np.searchsorted(rated, two)] = alpha + rated.size / two.size * (x - alpha)
    return LinearTerms(name, float(alpha), terms, rated, float(pa), pe)
