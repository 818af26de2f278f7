r"""Did agreement change? The difference of one coefficient between two data sets, with its test (issue 27, item 1).

Paired when the two data sets share items (before/after a guideline revision on the same items, two annotator
groups on the same items): the test runs on the shared items with the difference of Gwet's linearised per-item
terms (Gwet 2016), t with n - 1 degrees of freedom. Independent otherwise (two batches, two projects): the two
analytic variances add, z test (Gwet 2021, §9.3). Either way a bootstrap over items is an option.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, AnyOf, Choice, Flag, validate
from iaa_engine.base._policy import undefined
from iaa_engine.base._results import ScalarResult
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.inference._analytic import ANALYTIC_METRICS, LinearTerms, linear_terms
from iaa_engine.metrics._weighted import KAPPA_WEIGHTS

__all__ = ["Comparison", "compare", "COMPARE_METHODS"]

#: How :func:`compare` gets the standard error of the difference.
COMPARE_METHODS = ("analytic", "bootstrap")


@dataclass(frozen=True, eq=False, repr=False)
class Comparison(ScalarResult):
    r"""The difference of one agreement coefficient between two data sets, with its standard error, interval and
    test: the result of :func:`compare`.

    Attributes
    ----------
    metric : str
        The coefficient, with its weights or level in brackets (``'fleiss_kappa'``, ``'gwet_ac1[quadratic]'``).
    estimate : float
        The difference :math:`\hat\kappa_b - \hat\kappa_a` (second data set minus first).
    estimate_a, estimate_b : float
        The coefficient on each data set (on the shared items when paired).
    se : float
        Standard error of the difference.
    lower, upper : float
        Its confidence interval.
    statistic : float
        t (paired, analytic), z (independent, or bootstrap): the difference over its standard error.
    df : float
        Degrees of freedom of t (n - 1); nan for a z test.
    p_value : float
        Two-sided test of "no difference".
    confidence : float
        The interval's coverage.
    n_items : int
        Items the test rests on: the shared items when paired, both data sets' items otherwise.
    n_a, n_b : int
        Items of each data set used.
    se_a, se_b : float
        Each coefficient's own standard error.
    paired : bool
        Whether the two data sets were compared on their shared items.
    method : str
        How the standard error, interval and p-value were computed.
    details : dict
        ``correlation`` of the two coefficients' per-item terms (paired), ``items_only_a`` and ``items_only_b``
        (items left out of a paired test), ``n_boot`` and ``n_undefined`` (bootstrap).

    References
    ----------
    Gwet, K. L. (2016). Testing the difference of correlated agreement coefficients for statistical significance.
    Educational and Psychological Measurement 76(4), 609–637.

    Gwet, K. L. (2021). Handbook of Inter-Rater Reliability, Volume 1: Analysis of Categorical Ratings (5th ed.),
    §9.3. AgreeStat Analytics.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> a = [[1, 1, 2], [1, 1, 2], [2, 2, 2], [1, 2, 1], [3, 3, 3], [1, 1, 1]]
    >>> b = [[1, 1, 1], [1, 1, 1], [2, 2, 2], [1, 1, 1], [3, 3, 3], [1, 1, 1]]
    >>> c = ie.compare(a, b, metric="fleiss_kappa")
    >>> c.paired, round(c.estimate, 4), c.df
    (True, 0.5455, 5.0)
    >>> round(c.estimate, 12) == round(ie.fleiss_kappa(b) - ie.fleiss_kappa(a), 12)
    True
    """

    metric: str
    estimate: float
    estimate_a: float
    estimate_b: float
    se: float
    lower: float
    upper: float
    statistic: float
    df: float
    p_value: float
    confidence: float
    n_items: int
    n_a: int
    n_b: int
    se_a: float
    se_b: float
    paired: bool
    method: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        kind = f"t({self.df:g})" if np.isfinite(self.df) else "z"
        how = f"paired on {self.n_items} items" if self.paired else f"independent, {self.n_a} and {self.n_b} items"
        return (
            f"Comparison({self.metric}: b - a = {self.estimate:.4f} ({self.estimate_a:.4f} -> "
            f"{self.estimate_b:.4f}), SE {self.se:.4f}, {self.confidence:.0%} CI [{self.lower:.4f}, "
            f"{self.upper:.4f}], {kind} = {self.statistic:.3f}, p = {self.p_value:.3g}, {how})"
        )


def _with_rows(data: Annotations) -> Annotations:
    """``data`` with one row per annotation: a count table's whole counts spread out (no annotator identities)."""
    if data.item is not None:
        return data
    if data.fractional:
        raise ValueError(
            "compare needs whole-number counts (it matches and resamples items); this count table has fractional counts"
        )
    c = data.counts
    k = c.count.astype(np.int64)
    return Annotations(np.repeat(c.item, k), None, np.repeat(c.category, k), items=data.items, annotators=None,
                       categories=data.categories, level=data.level)  # fmt: skip


def _rated_items(data: Annotations) -> pd.Index:
    """The names of the items with at least one annotation, in the data's order."""
    return data.items[np.unique(data.item)]


def _on_items(data: Annotations, names: pd.Index) -> Annotations:
    """``data``'s annotations of the items ``names`` (which must be among its items), coded in that order."""
    pos = names.get_indexer(data.items)[data.item]
    keep = pos >= 0
    ann = None if data.annotator is None else data.annotator[keep]
    return Annotations(
        pos[keep],
        ann,
        data.label[keep],
        items=names,
        annotators=data.annotators,
        categories=data.categories,
        level=data.level,
    )


def _terms(data: Annotations, metric: str, weights: Any) -> LinearTerms:
    return linear_terms(data, metric, weights=weights)


def _paired_terms(
    a: Annotations, b: Annotations, shared: pd.Index, metric: str, weights: Any
) -> tuple[LinearTerms, LinearTerms, pd.Index]:
    """Both coefficients on the shared items, restricted until both have a term on every item (Cohen's kappa and
    Scott's pi have terms only where both annotators labelled)."""
    for _ in range(3):
        ta = _terms(_on_items(a, shared), metric, weights)
        tb = _terms(_on_items(b, shared), metric, weights)
        common = np.intersect1d(ta.items, tb.items)
        if common.size == shared.size:
            return ta, tb, shared
        shared = shared[common]
    return ta, tb, shared  # pragma: no cover - the second restriction always settles


def _resample(data: Annotations) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of ``data`` sorted by item: ``(order, start, length)`` per item code."""
    order = np.argsort(data.item, kind="stable")
    length = np.bincount(data.item, minlength=data.n_items)
    start = np.concatenate(([0], np.cumsum(length)[:-1]))
    return order, start, length


def _draw(data: Annotations, layout: tuple[np.ndarray, np.ndarray, np.ndarray], idx: np.ndarray) -> Annotations:
    """The data on the items ``idx`` drawn with replacement (a drawn item twice is two items)."""
    order, start, length = layout
    size = length[idx]
    total = int(size.sum())
    offset = np.arange(total) - np.repeat(np.cumsum(size) - size, size)
    rows = order[np.repeat(start[idx], size) + offset]
    ann = None if data.annotator is None else data.annotator[rows]
    return Annotations(
        np.repeat(np.arange(idx.size), size),
        ann,
        data.label[rows],
        items=pd.RangeIndex(idx.size),
        annotators=data.annotators,
        categories=data.categories,
        level=data.level,
    )


def _bootstrap(
    a: Annotations, b: Annotations, metric: str, weights: Any, paired: bool, n_boot: int, seed: Any
) -> np.ndarray:
    """``n_boot`` replicates of the difference b - a: items drawn with replacement, jointly when paired."""
    import warnings

    from iaa_engine.base._policy import UndefinedMetricWarning

    rng = np.random.default_rng(seed)
    a = _on_items(a, _rated_items(a))
    b = _on_items(b, _rated_items(b))
    la, lb = _resample(a), _resample(b)
    out = np.empty(n_boot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for k in range(n_boot):  # one replicate per pass: each rebuilds the coefficient on its own draw of items
            ia = rng.integers(0, a.n_items, a.n_items)
            ib = ia if paired else rng.integers(0, b.n_items, b.n_items)
            ea = _terms(_draw(a, la, ia), metric, weights).estimate
            eb = _terms(_draw(b, lb, ib), metric, weights).estimate
            out[k] = eb - ea
    return out


def _test(diff: float, se: float, df: float, confidence: float) -> tuple[float, float, float, float]:
    """``(statistic, p, lower, upper)``: t with ``df`` degrees of freedom, or z when ``df`` is nan."""
    from scipy import special  # the t and normal distributions without importing scipy.stats

    if not (np.isfinite(diff) and np.isfinite(se)):
        nan = float("nan")
        return nan, nan, nan, nan
    if se == 0.0:
        stat = 0.0 if diff == 0.0 else math.copysign(math.inf, diff)
        return stat, 1.0 if diff == 0.0 else 0.0, diff, diff
    stat = diff / se
    if np.isfinite(df):
        p = float(2.0 * special.stdtr(df, -abs(stat)))
        crit = float(special.stdtrit(df, (1.0 + confidence) / 2.0))
    else:
        p = float(2.0 * special.ndtr(-abs(stat)))
        crit = float(special.ndtri((1.0 + confidence) / 2.0))
    return float(stat), p, diff - crit * se, diff + crit * se


@validate(
    b=ANY,
    metric=Choice(*ANALYTIC_METRICS),
    weights=KAPPA_WEIGHTS,
    paired=AnyOf(Flag(), Choice("auto"), what="True, False or 'auto'"),
    method=Choice(*COMPARE_METHODS),
)
def compare(
    a: Any,
    b: Any,
    *,
    metric: str = "fleiss_kappa",
    weights: str | np.ndarray = "identity",
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    paired: bool | Literal["auto"] = "auto",
    method: str = "analytic",
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: Any = None,
) -> Comparison:
    r"""Test the difference of one agreement coefficient between two data sets (``b`` minus ``a``).

    **Paired** (the data sets share items; ``paired='auto'`` when they share at least two): both coefficients are
    computed on the :math:`n` shared items, and with :math:`x^a_i, x^b_i` their linearised per-item terms (Gwet
    2008; the terms whose spread gives :func:`estimate`'s standard error, their mean the coefficient),

    .. math::

        d_i = x^b_i - x^a_i,\qquad \hat\Delta = \hat\kappa_b - \hat\kappa_a = \bar d,\qquad
        \mathrm{SE}(\hat\Delta) = \sqrt{\frac{1}{n(n-1)}\sum_i (d_i - \bar d)^2},\qquad
        t = \hat\Delta / \mathrm{SE}

    with :math:`n - 1` degrees of freedom (Gwet 2016): the correlation of the two coefficients through their
    common items is in the :math:`d_i`. Items rated in only one data set are left out (``details`` names how
    many).

    **Independent** (no shared items, or ``paired=False``): the variances add (Gwet 2021, §9.3),
    :math:`\mathrm{SE} = \sqrt{\mathrm{SE}_a^2 + \mathrm{SE}_b^2}`, :math:`z = \hat\Delta / \mathrm{SE}` against
    the standard normal.

    **Bootstrap** (``method='bootstrap'``): items are drawn with replacement (the shared items jointly when
    paired, each data set's items separately otherwise), both coefficients recomputed on each draw; the standard
    error is the replicates' standard deviation, the interval their percentile interval and the p-value that of
    :math:`z = \hat\Delta/\mathrm{SE}`.

    Each coefficient is the one :func:`estimate` computes on its data set (its own categories); Krippendorff's
    alpha uses Gwet's linearisation of alpha here (pairedCAC's ``alpha.linear.i``), not :func:`estimate`'s
    jackknife, so that the paired and independent tests rest on the same terms.

    Parameters
    ----------
    a, b : Annotations or convertible
        The two data sets (``b`` is the later, or the one compared with the reference ``a``). Items are matched
        by name (a wide matrix without item names: by row position, as pairedCAC does).
    metric : str, default 'fleiss_kappa'
        One of :data:`ANALYTIC_METRICS`: ``'fleiss_kappa'``, ``'multi_kappa'`` (Conger), ``'gwet_ac1'`` (AC2 when
        weighted), ``'brennan_prediger'``, ``'percent_agreement_weighted'``, ``'krippendorff_alpha'`` (at the
        data's level or ``level``), ``'cohen_kappa'`` and ``'scott_pi'`` (data with two annotators).
    weights : str or array, default 'identity'
        Agreement weights between categories (see :func:`fleiss_kappa`); ``'identity'`` for alpha.
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Re-read both data sets at this level (Krippendorff's alpha weighs differences by it).
    paired : bool or 'auto', default 'auto'
        ``'auto'``: paired when the data sets share at least two items, independent otherwise.
    method : {'analytic', 'bootstrap'}, default 'analytic'
    confidence : float, default 0.95
        Coverage of the interval.
    n_boot : int, default 2000
        Bootstrap replicates (``method='bootstrap'``).
    seed : int or numpy Generator, optional
        The bootstrap's random draws.

    Returns
    -------
    Comparison
        ``estimate`` (b - a), ``estimate_a``, ``estimate_b``, ``se``, ``lower``, ``upper``, ``statistic``,
        ``df``, ``p_value``, ``n_items``, ``paired``, ``method``; ``to_frame()``, ``to_json()``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        ``paired=True`` and the data sets share fewer than two items; a data set has no annotator identities
        (a count table) and the metric needs them; a count table has fractional counts; Cohen's kappa or Scott's
        pi on data with more than two annotators.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    British Journal of Mathematical and Statistical Psychology 61(1), 29–48.

    Gwet, K. L. (2016). Testing the difference of correlated agreement coefficients for statistical significance.
    Educational and Psychological Measurement 76(4), 609–637.

    Gwet, K. L. (2021). Handbook of Inter-Rater Reliability, Volume 1 (5th ed.), §9.3. AgreeStat Analytics.

    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch. 13. Chapman & Hall.

    Examples
    --------
    pairedCAC's ``ratings1`` and ``ratings2`` (15 items rated twice by four raters; Gwet's README prints Fleiss'
    kappas 0.3857 and 0.7248, difference 0.3392, SE 0.1574, t 2.154, p 0.0491):

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> r1 = pd.DataFrame({"A": [1,1,1,2,1,2,2,2,3,1,1,3,3,1,2], "B": [1,1,1,2,2,1,2,3,3,1,1,3,2,2,1],
    ...                    "C": [1,2,2,2,1,1,2,2,3,1,2,3,3,1,1], "D": [1,3,3,3,1,1,2,2,3,1,3,3,3,1,1]})
    >>> r2 = pd.DataFrame({"A": [1,3,3,1,1,1,2,2,3,1,2,3,3,1,3], "B": [1,3,3,1,1,1,2,2,3,1,2,3,3,2,3],
    ...                    "C": [1,3,3,2,1,1,2,1,3,1,2,3,3,1,3], "D": [1,2,3,1,1,1,2,1,3,3,2,3,3,1,3]})
    >>> a = ie.Annotations.from_wide(r1, annotators_as="columns")
    >>> b = ie.Annotations.from_wide(r2, annotators_as="columns")
    >>> c = ie.compare(a, b, metric="fleiss_kappa")
    >>> round(c.estimate, 4), round(c.se, 4), round(c.statistic, 3), round(c.p_value, 4), c.n_items
    (0.3392, 0.1574, 2.154, 0.0491, 15)
    """
    da = _with_rows(as_annotations(a, level=level))
    db = _with_rows(as_annotations(b, level=level))
    rated_a, rated_b = _rated_items(da), _rated_items(db)
    shared = rated_a.intersection(rated_b, sort=False)
    if paired == "auto":
        paired = shared.size >= 2
    if paired and shared.size < 2:
        raise ValueError(
            f"paired=True compares the coefficients on the items both data sets rated; they share {shared.size} "
            "item(s) and the test needs at least 2 (pass paired=False for independent data sets)"
        )
    details: dict[str, Any] = {}
    if paired:
        ta, tb, shared = _paired_terms(da, db, shared, metric, weights)
        n = n_a = n_b = int(shared.size)
        details["items_only_a"] = int(rated_a.size - n)
        details["items_only_b"] = int(rated_b.size - n)
        df = float(n - 1)
        how = "Gwet (2016) paired test on the shared items: difference of the linearised per-item terms"
    else:
        ta, tb = _terms(da, metric, weights), _terms(db, metric, weights)
        n_a, n_b = ta.n, tb.n
        n = n_a + n_b
        df = float("nan")
        how = "independent data sets (Gwet 2021, §9.3): the two variances add"
    name = f"{tb.metric}" if tb.metric == ta.metric else f"{ta.metric} vs {tb.metric}"
    diff = tb.estimate - ta.estimate
    nan = float("nan")
    if not np.isfinite(diff) or ta.terms is None or tb.terms is None:
        undefined(f"the difference of {name}", "a coefficient is undefined on its data set", nan)
        return Comparison(name, nan, ta.estimate, tb.estimate, nan, nan, nan, nan, df, nan, float(confidence), n,
                          n_a, n_b, ta.se, tb.se, bool(paired), how, details)  # fmt: skip
    if method == "bootstrap":
        reps = _bootstrap(
            _on_items(da, shared) if paired else da, _on_items(db, shared) if paired else db,
            metric, weights, bool(paired), int(n_boot), seed,
        )  # fmt: skip
        ok = reps[np.isfinite(reps)]
        details.update(n_boot=int(n_boot), n_undefined=int(n_boot - ok.size))
        se = float(np.std(ok, ddof=1)) if ok.size > 1 else nan
        stat, p, _, _ = _test(diff, se, nan, confidence)
        lower, upper = (
            (float(v) for v in np.quantile(ok, [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]))
            if ok.size > 1
            else (nan, nan)
        )
        df = nan
        how = f"bootstrap over items ({n_boot} replicates{', shared items drawn jointly' if paired else ''}): " \
              "percentile interval, z test with the replicates' standard deviation"  # fmt: skip
    elif paired:
        x_a, x_b = ta.terms, tb.terms
        d = x_b - x_a
        se = float(np.sqrt(np.sum((d - d.mean()) ** 2) / (n * (n - 1.0))))
        if np.std(x_a) > 0 and np.std(x_b) > 0:
            details["correlation"] = float(np.corrcoef(x_a, x_b)[0, 1])
        stat, p, lower, upper = _test(diff, se, df, confidence)
        how += f"; t test with {n - 1} df"
    else:
        se = float(np.hypot(ta.se, tb.se))
        stat, p, lower, upper = _test(diff, se, nan, confidence)
        how += "; z test"
    return Comparison(name, float(diff), ta.estimate, tb.estimate, se, float(lower), float(upper), float(stat), df,
                      float(p), float(confidence), n, n_a, n_b, ta.se, tb.se, bool(paired), how, details)  # fmt: skip
