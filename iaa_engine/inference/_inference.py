"""Inference: bootstrap confidence intervals, the delta-method variance of alpha, SPA's standard error."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import Instance, NoneOr, validate
from iaa_engine.base._policy import EPS, undefined
from iaa_engine.base._progress import Progress
from iaa_engine.base._results import Result, ScalarResult
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.metrics._registry import COUNT_METRICS, count_metric_values
from iaa_engine.stats._sums import CountSums, spa_weight_table, variance_from_moments

__all__ = [
    "AlphaVariance",
    "BootstrapResult",
    "bootstrap",
    "alpha_variance",
    "spa_standard_error",
    "COUNT_METRICS",
    "count_patterns",
]


@dataclass(frozen=True, eq=False)
class BootstrapResult(Result):
    """Bootstrap distribution and percentile intervals of agreement metrics (the result of :func:`bootstrap`).

    Attributes
    ----------
    table : pandas.DataFrame
        Indexed by metric (index name ``metric``): ``estimate`` (on the data),
        ``se`` (standard deviation of the replicates), ``lower``, ``upper``
        (percentile interval), ``n_undefined`` (replicates where the metric was
        undefined and that were left out of the interval).
    replicates : pandas.DataFrame
        One row per replicate, one column per metric (nan where undefined).
    confidence : float
        Coverage of the intervals, 1 − γ.
    n_boot : int
        Number of replicates B.
    seed : int, numpy.random.Generator or None
        The ``seed`` argument as given (``None``: fresh entropy, not reproducible).

    References
    ----------
    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025), §6.1, Algorithm 2.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> res = ie.bootstrap(data, n_boot=200, seed=0, progress=False)
    >>> list(res.to_frame().columns)
    ['metric', 'estimate', 'se', 'lower', 'upper', 'n_undefined']
    >>> res.replicates.shape  # 200 replicates of 15 metrics
    (200, 15)
    >>> sorted(res.to_dict())
    ['confidence', 'intervals', 'n_boot', 'seed']
    """

    table: pd.DataFrame
    replicates: pd.DataFrame
    confidence: float
    n_boot: int
    seed: int | None

    def to_frame(self) -> pd.DataFrame:
        """One row per metric: ``estimate``, ``se``, ``lower``, ``upper``, ``n_undefined``."""
        return self.table.reset_index()

    def to_dict(self) -> dict:
        from iaa_engine.base._results import nan_to_none

        return nan_to_none(
            {
                "confidence": self.confidence,
                "n_boot": self.n_boot,
                "seed": self.seed,
                "intervals": {m: row.to_dict() for m, row in self.table.iterrows()},
            }
        )


def count_patterns(data: Annotations) -> tuple[np.ndarray, np.ndarray]:
    """Distinct count vectors of the items and how many items share each (items are interchangeable within one)."""
    counts = data.counts
    if counts.n_items * max(counts.n_categories, 1) > 50_000_000:
        raise ValueError(
            f"the bootstrap builds a dense items × categories table; {counts.n_items} × {counts.n_categories} is "
            "too large (more than 50 million cells)"
        )
    dense = counts.to_dense()
    base = int(dense.max(initial=0)) + 1
    if dense.shape[1] * np.log2(max(base, 2)) < 62:
        keys = dense @ (base ** np.arange(dense.shape[1], dtype=np.int64))
        _, first, mult = np.unique(keys, return_index=True, return_counts=True)
        return dense[first], mult
    uniq, mult = np.unique(dense, axis=0, return_counts=True)
    return uniq, mult


def _point_estimates(
    data: Annotations, level: str, values: np.ndarray | None, spa_weights: str, with_annotators: bool
) -> dict[str, float]:
    """The estimates on the data themselves, by the same finalisers as the replicates (nan where undefined)."""
    import warnings

    from iaa_engine.base._policy import UndefinedMetricWarning
    from iaa_engine.metrics._kappa import annotator_bias, multi_kappa

    est = {k: float(v) for k, v in count_metric_values(data.count_sums, level, values, spa_weights).items()}
    if with_annotators:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            est["multi_kappa"], est["bias"] = multi_kappa(data), annotator_bias(data)
    return est


def _count_replicates(
    data: Annotations,
    level: str,
    values: np.ndarray | None,
    n_boot: int,
    rng: np.random.Generator,
    bar: Progress,
    spa_weights: str = "annotations_m1",
    chunk: int = 256,
) -> dict[str, np.ndarray]:
    patterns, mult = count_patterns(data)
    sums = data.count_sums
    features = CountSums.pattern_features(patterns, sums.o_row, sums.o_col)
    size = CountSums.pattern_n_values(patterns)
    n_items = int(mult.sum())
    out: dict[str, list[np.ndarray]] = {m: [] for m in COUNT_METRICS}
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        draws = rng.multinomial(n_items, mult / n_items, size=b).astype(float)  # items resampled with replacement
        s = CountSums.from_features(draws @ features, data.n_categories, size, sums.o_row, sums.o_col)
        for name, vals in count_metric_values(s, level, values, spa_weights).items():
            out[name].append(vals)
        done += b
        bar.update(b)
    return {k: np.concatenate(v) for k, v in out.items()}


#: Up to this many items the annotator-level replicates resample items; above, this many random blocks of items.
ANNOTATOR_BLOCKS = 4096


def _annotator_replicates(
    data: Annotations,
    n_boot: int,
    rng: np.random.Generator,
    bar: Progress,
    chunk: int | None = None,
    blocks: int = ANNOTATOR_BLOCKS,
) -> dict[str, np.ndarray]:
    """Multi-coder kappa and bias: resample items (or random blocks of items), re-estimate each annotator's
    label distribution.

    Both metrics are functions of sums over items: ``sum ok_i``, ``sum P_i`` (observed agreement) and the
    annotators × categories counts ``n_ak``. With at most ``blocks`` items each item is a unit and the replicates
    are the items bootstrap exactly. With more, the items are dealt at random (a seeded permutation) into
    ``blocks`` blocks of equal size (±1), each block's sums are computed once, and blocks are resampled: the sum of
    a replicate then has the items bootstrap's mean and variance (the blocks are i.i.d. because the items are),
    while each replicate costs O(blocks × annotators × categories) instead of O(annotations).
    """
    import scipy.sparse as sp

    n_items, n_ann, n_cat = data.n_items, cast(int, data.n_annotators), data.n_categories
    ac = n_ann * n_cat
    block: np.ndarray
    if n_items <= blocks:
        block, g = np.arange(n_items), n_items
    else:
        block, g = rng.permutation(n_items) % blocks, blocks
    sums = data.counts
    ok = sums.pairable
    p = np.zeros(n_items)
    p[ok] = (sums.sumsq_i[ok] - sums.n_i[ok]) / (sums.n_i[ok] * (sums.n_i[ok] - 1.0))
    block_feats = np.stack(
        [np.bincount(block, weights=ok.astype(float), minlength=g), np.bincount(block, weights=p, minlength=g)], axis=1
    )  # (g, 2)
    key = block[data.item] * ac + cast(np.ndarray, data.annotator) * n_cat + data.label
    if g * ac <= 1 << 25:
        table = np.bincount(key, minlength=g * ac).reshape(g, ac).astype(float)
        per_block = sp.csr_matrix(table)
    else:
        cells, counts = np.unique(key, return_counts=True)
        per_block = sp.csr_matrix((counts.astype(float), np.divmod(cells, ac)), shape=(g, ac))
    per_block_t = per_block.T.tocsr()  # (ac, g)
    step = chunk or max(1, min(256, (1 << 22) // max(ac, g, 1)))
    kappas, biases = [], []
    done = 0
    while done < n_boot:
        b = min(step, n_boot - done)
        idx = rng.integers(0, g, size=(b, g))
        w = np.bincount((idx + (np.arange(b) * g)[:, None]).ravel(), minlength=b * g).reshape(b, g).astype(float)
        ao = w @ block_feats
        with np.errstate(all="ignore"):
            a_o = ao[:, 1] / ao[:, 0]
            counts = np.asarray(per_block_t @ w.T).T.reshape(b, n_ann, n_cat)
            n_a = counts.sum(axis=2, keepdims=True)
            present = n_a[..., 0] > 0
            dist = np.where(n_a > 0, counts / np.where(n_a > 0, n_a, 1.0), 0.0)
            c = present.sum(axis=1).astype(float)
            col = dist.sum(axis=1)
            ae_k = np.sum(col**2 - np.sum(dist**2, axis=1), axis=1) / (c * (c - 1.0))
            mean = col / c[:, None]
            var = np.sum(np.where(present[..., None], (dist - mean[:, None, :]) ** 2, 0.0), axis=1) / c[:, None]
            kappas.append((a_o - ae_k) / (1.0 - ae_k))
            biases.append(var.sum(axis=1) / (c - 1.0))
        done += b
        bar.update(b)
    return {"multi_kappa": np.concatenate(kappas), "bias": np.concatenate(biases)}


@validate(estimates=NoneOr(Instance(Mapping, "a mapping of metric names to numbers")))
def bootstrap(
    data: Any,
    *,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int | None = None,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    weights: str = "annotations_m1",
    annotator_metrics: bool = True,
    progress: bool | None = None,
    estimates: Mapping[str, float] | None = None,
) -> BootstrapResult:
    r"""Percentile bootstrap intervals for every scalar metric of the report, resampling items.

    The *Mathematical Foundations of Inter-Annotator Agreement Analysis*
    technical report (2025), §6.1, Algorithm 2 (the percentile bootstrap of
    Efron & Tibshirani 1993, ch. 13): draw the N items with replacement B
    times, recompute each metric :math:`\theta` on each draw, and take
    quantiles of the replicates :math:`\theta^*_1, \dots, \theta^*_B`:

    .. math::

        [L, U] = \big[\hat F^{*-1}(\gamma/2),\ \hat F^{*-1}(1 - \gamma/2)\big],\qquad
        \widehat{\mathrm{se}} = \Big(\frac{1}{B' - 1} \sum_{b} (\theta^*_b - \bar\theta^*)^2\Big)^{1/2}

    with :math:`\hat F^*` the empirical distribution of the :math:`B'` defined
    replicates (``numpy.quantile``, linear interpolation) and ``confidence`` =
    1 − γ.

    Count-based metrics (``COUNT_METRICS``: SPA under every scheme, the
    chance-corrected SPA, joint probability, percentage agreement, Fleiss' kappa, Krippendorff's alpha,
    Gwet's AC1, Brennan-Prediger) are computed for all replicates at once:
    items with the same count vector are interchangeable, so resampling items is
    exactly a multinomial draw over the distinct count vectors, and each metric
    is a function of sums of per-pattern features (:mod:`iaa_engine.stats._sums`).
    Multi-coder kappa and bias depend on who labelled what; they are
    bootstrapped by resampling items up to 4,096 items (``ANNOTATOR_BLOCKS``)
    and, above, by resampling 4,096 random blocks of equal size into which the
    items are dealt once per call (a seeded permutation): each metric is a
    function of sums over items, and a sum over resampled i.i.d. blocks has
    the mean and variance of the sum over resampled items, at a cost per
    replicate independent of the number of annotations.

    Replicates in which a metric is undefined (e.g. all labels equal) are left
    out of its interval and counted in ``n_undefined``. Pairwise matrices are
    not bootstrapped.

    The bias B is a variance of the annotators' label distributions, and
    resampling items adds sampling noise to each distribution, so B's
    replicates sit above its estimate and its percentile interval can exclude
    the estimate: read it as the spread of B, not as an unbiased interval.

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
        The annotations, with per-item counts (not only sums over items).
    n_boot : int, default 1000
        Number of replicates B, from 2 to 100,000.
    confidence : float, default 0.95
        Interval coverage 1 − γ, in (0, 1).
    seed : int or numpy.random.Generator, optional
        Seed of ``numpy.random.default_rng``; the same seed gives the same intervals.
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level of Krippendorff's alpha (default: the data's level).
    weights : {'flat', 'annotations', 'annotations_m1', 'edges', 'inv_var', 'inv_var_class'}, default 'annotations_m1'
        SPA scheme of ``spa_kappa`` (every scheme's SPA is bootstrapped).
    annotator_metrics : bool, default True
        Also bootstrap multi-coder kappa and bias (skipped when the data has no
        annotator identities).
    progress : bool, optional
        Show progress on stderr (default: only on a terminal).
    estimates : mapping of str to float, optional
        The point estimates already computed on ``data`` (metric name -> value, SPA schemes as
        ``'spa[<scheme>]'``, undefined as nan), e.g. by :func:`iaa_engine.report`, which passes its own so that
        nothing is computed twice. Computed here when omitted.

    Returns
    -------
    BootstrapResult
        ``table`` (``estimate``, ``se``, ``lower``, ``upper``, ``n_undefined``
        per metric) and the ``replicates`` themselves.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a pandas DataFrame or a 2-D
        array-like of labels.
    ValueError
        ``data`` holds only sums over items (e.g. from :func:`summarize_dask`);
        its items × categories table has more than 50 million cells; the
        interval or ratio level meets labels that are not numbers.

    See Also
    --------
    alpha_variance : Analytic (delta-method) and jackknife variances of alpha.
    spa_standard_error : Model-based standard error of SPA.

    References
    ----------
    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025), §6.1, Algorithm 2.

    Artstein, R., & Poesio, M. (2005). Bias decreases in proportion to the number of annotators. Proceedings of
    FG-MoL 2005.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> res = ie.bootstrap(data, n_boot=200, seed=0, progress=False)
    >>> row = res.table.loc["krippendorff_alpha"]
    >>> round(float(row["estimate"]), 4)  # krippendorff_alpha(data)
    0.6083
    >>> bool(row["lower"] < row["estimate"] < row["upper"]), int(row["n_undefined"])
    (True, 0)
    """
    data = as_annotations(data, level=level)
    level = data.level
    values = data.category_values(level) if level in ("interval", "ratio") else None
    rng = np.random.default_rng(seed)
    with_annotators = annotator_metrics and data.annotators is not None and data.label is not None
    est = dict(estimates) if estimates is not None else _point_estimates(data, level, values, weights, with_annotators)
    total = n_boot * (2 if with_annotators else 1)
    with Progress(total, "bootstrap", show=progress) as bar:
        reps = _count_replicates(data, level, values, int(n_boot), rng, bar, weights)
        if with_annotators:
            reps.update(_annotator_replicates(data, int(n_boot), rng, bar))
    frame = pd.DataFrame(reps)
    alpha = (1.0 - confidence) / 2.0
    rows = {}
    for name, col in frame.items():
        v = col.to_numpy()
        good = v[np.isfinite(v)]
        point = est.get(name, np.nan)
        lo, hi = np.quantile(good, [alpha, 1.0 - alpha]) if good.size else (np.nan, np.nan)
        rows[name] = {
            "estimate": np.nan if point is None else point,
            "se": float(np.std(good, ddof=1)) if good.size > 1 else np.nan,
            "lower": float(lo),
            "upper": float(hi),
            "n_undefined": int(v.size - good.size),
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "metric"
    return BootstrapResult(table, frame, float(confidence), int(n_boot), seed)


@dataclass(frozen=True, eq=False)
class AlphaVariance(ScalarResult):
    """Krippendorff's alpha with its delta-method and jackknife variances (the result of :func:`alpha_variance`).

    Fields read as attributes or as ``result["se_delta"]``; ``to_dict()`` gives them all, with ``None`` for nan.

    Attributes
    ----------
    alpha, d_o, d_e : float
        The estimate and its observed and expected disagreement.
    var_d_o, var_d_e : float
        Jackknife variances of :math:`D_o` and :math:`D_e`.
    var_delta, se_delta : float
        Delta-method variance and standard error of alpha (eq. (20) of the
        technical report, without the covariance).
    var_jackknife, se_jackknife : float
        Jackknife variance and standard error of alpha itself.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025), §6.2, eq. (20).

    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall. Ch. 11 (the jackknife).

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> result = ie.alpha_variance(data)
    >>> result.keys()
    ['alpha', 'd_o', 'd_e', 'var_d_o', 'var_d_e', 'var_delta', 'se_delta', 'var_jackknife', 'se_jackknife']
    >>> round(result.alpha, 4), round(result["se_delta"], 4)
    (0.6083, 0.1284)
    """

    alpha: float
    d_o: float
    d_e: float
    var_d_o: float
    var_d_e: float
    var_delta: float
    se_delta: float
    var_jackknife: float
    se_jackknife: float


@validate()
def alpha_variance(
    data: Any,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    replace_undefined_by: float = float("nan"),
) -> AlphaVariance:
    r"""Delta-method variance of Krippendorff's alpha, with jackknife variances.

    The delta method of the technical report *Mathematical Foundations of
    Inter-Annotator Agreement Analysis* (2025), §6.2, eq. (20), for
    :math:`\alpha = 1 - D_o / D_e`:

    .. math::

        \operatorname{Var}(\alpha) \approx \Big(\frac{\partial\alpha}{\partial D_o}\Big)^2 \operatorname{Var}(D_o)
        + \Big(\frac{\partial\alpha}{\partial D_e}\Big)^2 \operatorname{Var}(D_e)
        = \frac{\operatorname{Var}(D_o)}{D_e^2} + \frac{D_o^2 \operatorname{Var}(D_e)}{D_e^4}

    :math:`\operatorname{Var}(D_o)` and :math:`\operatorname{Var}(D_e)` are
    delete-one-item jackknife estimates (Efron & Tibshirani 1993, ch. 11),
    with the N items of the data as the sampling units:

    .. math::

        \operatorname{Var}_J(\theta) = \frac{N - 1}{N} \sum_{i=1}^{N} \big(\theta_{(i)} - \theta_{(\cdot)}\big)^2

    where :math:`\theta_{(i)}` is computed without item i and
    :math:`\theta_{(\cdot)}` is the mean of the :math:`\theta_{(i)}`. Eq. (20)
    ignores the covariance of :math:`D_o` and :math:`D_e`; the result also
    gives ``var_jackknife``, the jackknife variance of alpha itself, which keeps it.

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
        The annotations, with per-item counts (not only sums over items).
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level of measurement of alpha, as in :func:`krippendorff_alpha` (default: the data's level).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, as ``alpha``,
        ``var_delta``, ``se_delta``, ``var_jackknife`` and ``se_jackknife``
        when alpha is undefined: no item has two or more annotations, or the
        expected disagreement is 0 (every annotation in the same category).
        ``d_o``, ``d_e``, ``var_d_o`` and ``var_d_e`` keep their computed
        values (nan when there is no pairable item).

    Returns
    -------
    AlphaVariance
        ``alpha``, ``d_o``, ``d_e``, ``var_d_o``, ``var_d_e``, ``var_delta``,
        ``se_delta``, ``var_jackknife``, ``se_jackknife`` (as attributes, or ``result["se_delta"]``).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a pandas DataFrame or a 2-D
        array-like of labels.
    ValueError
        ``data`` holds only sums over items (e.g. from :func:`summarize_dask`);
        its items × categories table has more than 50 million cells; the
        interval or ratio level meets labels that are not numbers.

    Warns
    -----
    UndefinedMetricWarning
        Alpha is undefined (see ``replace_undefined_by``); the message says why.

    See Also
    --------
    krippendorff_alpha : The coefficient.
    bootstrap : Percentile intervals by resampling items.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025), §6.2, eq. (20).

    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> result = ie.alpha_variance(data)
    >>> round(result.alpha, 4), round(result.se_delta, 4), round(result.se_jackknife, 4)
    (0.6083, 0.1284, 0.1324)

    Every annotation the same: alpha is 0/0, and the replacement comes back with a warning:

    >>> same = pd.DataFrame({"item": ["a", "a", "b", "b"], "annotator": ["x", "y", "x", "y"], "label": "u"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     undefined = ie.alpha_variance(same, replace_undefined_by=1.0)
    >>> undefined.alpha, caught[0].category.__name__
    (1.0, 'UndefinedMetricWarning')
    """
    data = as_annotations(data, level=level)
    level = data.level
    values = data.category_values(level) if level in ("interval", "ratio") else None
    patterns, mult = count_patterns(data)
    sums = data.count_sums
    feats = CountSums.pattern_features(patterns, sums.o_row, sums.o_col)
    size = CountSums.pattern_n_values(patterns)
    total = mult @ feats
    full = CountSums.from_features(total, data.n_categories, size, sums.o_row, sums.o_col)
    loo = CountSums.from_features(total[None, :] - feats, data.n_categories, size, sums.o_row, sums.o_col)
    with np.errstate(all="ignore"):
        d_o, d_e = (float(v) for v in full.alpha_parts(level, values))
        lo_o, lo_e = loo.alpha_parts(level, values)
        lo_a = 1.0 - lo_o / lo_e
    n = mult.sum()

    def jack(v: np.ndarray) -> float:
        mean = np.sum(mult * v) / n
        return float((n - 1.0) / n * np.sum(mult * (v - mean) ** 2))

    var_o, var_e = jack(lo_o), jack(lo_e)
    if not (np.isfinite(d_e) and d_e > EPS):
        reason = (
            "no item has two or more annotations"
            if not np.isfinite(d_e)
            else "the expected disagreement is 0 (every annotation is in the same category), so alpha is 0/0"
        )
        fill = undefined("alpha_variance", reason, replace_undefined_by)
        return AlphaVariance(fill, d_o, d_e, var_o, var_e, fill, fill, fill, fill)
    var_delta = var_o / d_e**2 + d_o**2 * var_e / d_e**4
    var_jack = jack(lo_a)
    return AlphaVariance(
        alpha=1.0 - d_o / d_e,
        d_o=d_o,
        d_e=d_e,
        var_d_o=var_o,
        var_d_e=var_e,
        var_delta=var_delta,
        se_delta=float(np.sqrt(var_delta)),
        var_jackknife=var_jack,
        se_jackknife=float(np.sqrt(var_jack)),
    )


@validate()
def spa_standard_error(
    data: Any, *, weights: str = "annotations_m1", replace_undefined_by: float = float("nan")
) -> float:
    r"""Model-based standard error of SPA from its item variances.

    .. math::

        \operatorname{SE}(\bar P_{\mathrm{spa}}) = \frac{\sqrt{\sum_i k_i^2 \operatorname{Var}[\hat P_i]}}{\sum_i k_i},
        \qquad
        \operatorname{Var}[\hat P_i] = \frac{2\,\big(q(1-q) + 2(n_i-2)(r - q^2)\big)}{n_i(n_i-1)}

    over the items with :math:`n_i \ge 2`, with :math:`k_i` the SPA weights
    (:func:`spa_item_weights`), :math:`q = \sum_c p_c^2`, :math:`r = \sum_c
    p_c^3` and p the observed class distribution.
    :math:`\operatorname{Var}[\hat P_i]` is the exact item variance of
    :func:`iaa_engine.item_agreement_variance` when an item's labels are drawn
    independently from p (Nørregaard & Derczynski 2022, §5.4 and Appendix B,
    eq. (50), in closed form), and items are independent. It describes SPA's
    sampling noise under that model; the bootstrap's SE also covers
    differences in difficulty between items.

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
        The annotations, with per-item counts (not only sums over items).
    weights : {'flat', 'annotations', 'annotations_m1', 'edges', 'inv_var', 'inv_var_class'}, default 'annotations_m1'
        The SPA weighting scheme :math:`k_i`, as in :func:`spa`.
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when no item has two
        or more annotations (SPA and its standard error are undefined).

    Returns
    -------
    float
        The standard error; ``replace_undefined_by`` when undefined.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a pandas DataFrame or a 2-D
        array-like of labels.
    ValueError
        ``data`` holds only sums over items (e.g. from :func:`summarize_dask`).

    Warns
    -----
    UndefinedMetricWarning
        No item has two or more annotations (see ``replace_undefined_by``).

    See Also
    --------
    spa : The estimate.
    item_agreement_variance : The item variance used here.
    bootstrap : Percentile intervals by resampling items.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Examples
    --------
    Every classroom item has 3 annotations, so the weights are equal and the
    SE is :math:`\sqrt{\operatorname{Var}[\hat P] / 15}`:

    >>> import warnings
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> round(ie.spa_standard_error(data), 4)
    0.0704
    >>> round(float(ie.item_agreement_variance(3, [15 / 45, 16 / 45, 14 / 45]) / 15) ** 0.5, 4)
    0.0704

    One annotation per item: undefined, the replacement comes back with a warning:

    >>> single = pd.DataFrame({"item": ["a", "b"], "annotator": ["x", "y"], "label": ["u", "v"]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
    ...     ie.spa_standard_error(single, replace_undefined_by=0.0)
    0.0
    """
    data = as_annotations(data)
    sums = data.count_sums
    p = sums.class_distribution()
    n = data.counts.n_i
    ok = n >= 2
    k = spa_weight_table(n, weights, data.n_categories, p)
    var = variance_from_moments(np.where(ok, n, 2.0), float(np.sum(p**2)), float(np.sum(p**3)))
    den = float(np.sum(k[ok]))
    if den <= 0:
        return undefined("spa_standard_error", "no item has two or more annotations", replace_undefined_by)
    return float(np.sqrt(np.sum(k[ok] ** 2 * var[ok])) / den)
