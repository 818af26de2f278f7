"""Inference: bootstrap confidence intervals, the delta-method variance of alpha, SPA's standard error."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

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
    """Bootstrap distribution and percentile intervals of agreement metrics.

    Attributes
    ----------
    table : pandas.DataFrame
        Indexed by metric: ``estimate`` (on the data), ``se`` (standard
        deviation of the replicates), ``lower``, ``upper`` (percentile
        interval), ``n_undefined`` (replicates where the metric was undefined
        and that were left out of the interval).
    replicates : pandas.DataFrame
        One row per replicate, one column per metric.
    confidence : float
    n_boot : int
    seed : int or None
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

    n_items, n_ann, n_cat = data.n_items, data.n_annotators, data.n_categories
    ac = n_ann * n_cat
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
    key = block[data.item] * ac + data.annotator * n_cat + data.label
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

    Seed 004 §6.1, Algorithm 2: draw the items with replacement B times,
    recompute each metric, and take the :math:`\gamma/2` and
    :math:`1 - \gamma/2` quantiles of the replicates (``confidence`` = 1 − γ).

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
    data : Annotations or convertible
    n_boot : int
        Number of replicates B.
    confidence : float
        Interval coverage, in (0, 1).
    seed : int, optional
        Seed of ``numpy.random.default_rng``; the same seed gives the same intervals.
    level : level of Krippendorff's alpha (default: the data's level).
    weights : SPA scheme of ``spa_kappa`` (every scheme's SPA is bootstrapped).
    annotator_metrics : bool
        Also bootstrap multi-coder kappa and bias (needs annotator identities).
    progress : bool, optional
        Show progress on stderr (default: only on a terminal).
    estimates : mapping of str to float, optional
        The point estimates already computed on ``data`` (metric name -> value, SPA schemes as
        ``'spa[<scheme>]'``, undefined as nan), e.g. by :func:`iaa_engine.report`, which passes its own so that
        nothing is computed twice. Computed here when omitted.
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
    """Krippendorff's alpha with its delta-method and jackknife variances (:func:`alpha_variance`).

    Attributes
    ----------
    alpha, d_o, d_e : float
        The estimate and its observed and expected disagreement.
    var_d_o, var_d_e : float
        Jackknife variances of :math:`D_o` and :math:`D_e`.
    var_delta, se_delta : float
        Delta-method variance and standard error of alpha (eq. 20, without the covariance).
    var_jackknife, se_jackknife : float
        Jackknife variance and standard error of alpha itself.
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
    r"""Delta-method variance of Krippendorff's alpha (seed 004 §6.2, eq. 20).

    .. math::

        \operatorname{Var}(\alpha) \approx \Big(\frac{\partial\alpha}{\partial D_o}\Big)^2 \operatorname{Var}(D_o)
        + \Big(\frac{\partial\alpha}{\partial D_e}\Big)^2 \operatorname{Var}(D_e)
        = \frac{\operatorname{Var}(D_o)}{D_e^2} + \frac{D_o^2 \operatorname{Var}(D_e)}{D_e^4}

    :math:`\operatorname{Var}(D_o)` and :math:`\operatorname{Var}(D_e)` are
    delete-one-item jackknife estimates (items as the sampling units). Eq. (20)
    ignores the covariance of :math:`D_o` and :math:`D_e`; the result also
    gives ``var_jackknife``, the jackknife variance of alpha itself, which keeps it.

    Returns
    -------
    AlphaVariance
        ``alpha``, ``d_o``, ``d_e``, ``var_d_o``, ``var_d_e``, ``var_delta``,
        ``se_delta``, ``var_jackknife``, ``se_jackknife`` (as attributes, or ``result["se_delta"]``).
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

        \operatorname{SE}(\bar P_{\mathrm{spa}}) = \frac{\sqrt{\sum_i k_i^2 \operatorname{Var}[\hat P_i]}}{\sum_i k_i}

    with :math:`\operatorname{Var}[\hat P_i]` the exact item variance of
    :func:`iaa_engine.item_agreement_variance` under the observed class
    distribution (seed 000 §5.4: labels drawn independently from p) and items
    independent. It describes SPA's sampling noise under that model; the
    bootstrap's SE also covers differences in difficulty between items.
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
