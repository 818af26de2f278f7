"""The one registry of the report's scalar metrics: name, display label, the function that computes it, what it
needs, how its bootstrap replicates are finalised, and where it comes from.

The report, its text / JSON / HTML presentations, the bootstrap, the Excel add-in and the tests read the metrics
from here; a new coefficient joins the report by one entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from iaa_engine.base._choices import SPA_WEIGHTS
from iaa_engine.metrics._agreement import joint_probability, percent_agreement, spa_kappa
from iaa_engine.metrics._alpha import krippendorff_alpha
from iaa_engine.metrics._kappa import annotator_bias, brennan_prediger, fleiss_kappa, gwet_ac1, multi_kappa
from iaa_engine.stats._sums import CountSums

__all__ = ["MetricSpec", "METRICS", "REPORT_METRICS", "COUNT_METRICS", "metric_spec", "count_metric_values"]


@dataclass(frozen=True)
class MetricSpec:
    """One scalar metric of the report.

    Attributes
    ----------
    name : str
        Its key in ``Report.values``, the JSON report, the bootstrap table and the Excel report.
    label : str
        How people read it (text report, HTML page, Excel).
    function : callable
        The public function, ``function(data, **options)``.
    options : tuple of str
        The report options it takes (``'weights'``: the SPA scheme of the chance-corrected SPA).
    needs_annotators : bool
        Undefined for count tables (it needs who labelled what).
    from_sums : callable or None
        ``from_sums(sums, level, values, weights)``: the metric from :class:`~iaa_engine.stats._sums.CountSums`,
        also batched over bootstrap replicates (``None``: not a function of the count sums).
    group : str
        ``'raw'``, ``'chance'`` or ``'bias'``: its section of the HTML page.
    source : str
        Where its formula is published (short form, e.g. ``'Krippendorff (2011)'``; full citations below).

    Notes
    -----
    The entries of :data:`METRICS` are the report's scalar metrics; :meth:`compute` passes each function only
    the report options it takes, so one call site serves them all.

    References
    ----------
    The ``source`` of each entry of :data:`METRICS`:

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378-382.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Artstein, R., & Poesio, M. (2005). Bias decreases in proportion to the number of annotators. Proceedings of
    FG-MoL 2005.

    Conger, A. J. (1980). Integration and generalization of kappas for multiple raters. Psychological Bulletin
    88(2), 322-328.

    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    British Journal of Mathematical and Statistical Psychology 61(1), 29-48.

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and alternatives. Educational
    and Psychological Measurement 41(3), 687-699.

    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025), §3 (percentage agreement).

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> [spec.name for spec in ie.METRICS][:4]
    ['joint_probability', 'percent_agreement', 'fleiss_kappa', 'krippendorff_alpha']
    >>> alpha = ie.METRICS[3]
    >>> alpha.label, alpha.source, alpha.needs_annotators
    ("Krippendorff's alpha", 'Krippendorff (2011)', False)
    >>> round(alpha.compute(data, weights="flat"), 4)  # 'weights' is not among its options: ignored
    0.6083
    """

    name: str
    label: str
    function: Callable[..., float]
    options: tuple[str, ...] = ()
    needs_annotators: bool = False
    from_sums: Callable[..., np.ndarray] | None = None
    group: str = "chance"
    source: str = ""

    def compute(self, data: Any, **options: Any) -> float:
        """The metric on ``data`` with the report options it takes (the others are ignored)."""
        return self.function(data, **{k: v for k, v in options.items() if k in self.options})


REPORT_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "joint_probability",
        "Joint probability of agreement (P-bar)",
        joint_probability,
        from_sums=lambda s, level, values, weights: s.joint_probability(),
        group="raw",
        source="Fleiss (1971); SPA paper eq. 2",
    ),
    MetricSpec(
        "percent_agreement",
        "Percentage agreement (unanimous items)",
        percent_agreement,
        from_sums=lambda s, level, values, weights: s.percent_agreement(),
        group="raw",
        source="hierarchical-label report §3",
    ),
    MetricSpec(
        "fleiss_kappa",
        "Fleiss' kappa",
        fleiss_kappa,
        from_sums=lambda s, level, values, weights: s.fleiss_kappa(),
        source="Fleiss (1971); Gwet (2014)",
    ),
    MetricSpec(
        "krippendorff_alpha",
        "Krippendorff's alpha",
        krippendorff_alpha,
        from_sums=lambda s, level, values, weights: s.krippendorff_alpha(level, values),
        source="Krippendorff (2011)",
    ),
    MetricSpec(
        "multi_kappa",
        "Multi-coder kappa (Artstein & Poesio)",
        multi_kappa,
        needs_annotators=True,
        source="Artstein & Poesio (2005); Conger (1980)",
    ),
    MetricSpec(
        "bias",
        "Annotator bias B",
        annotator_bias,
        needs_annotators=True,
        group="bias",
        source="Artstein & Poesio (2005)",
    ),
    MetricSpec(
        "gwet_ac1",
        "Gwet's AC1",
        gwet_ac1,
        from_sums=lambda s, level, values, weights: s.gwet_ac1(),
        source="Gwet (2008, 2014)",
    ),
    MetricSpec(
        "brennan_prediger",
        "Brennan-Prediger kappa",
        brennan_prediger,
        from_sums=lambda s, level, values, weights: s.brennan_prediger(),
        source="Brennan & Prediger (1981)",
    ),
    MetricSpec(
        "spa_kappa",
        "Chance-corrected SPA",
        spa_kappa,
        options=("weights",),
        from_sums=lambda s, level, values, weights: s.spa_kappa(weights),
        source="Nørregaard & Derczynski (SPA paper); docs/spa-missingness.md",
    ),
)

#: The registry of the report's scalar metrics (``iaa_engine.METRICS``): a tuple of :class:`MetricSpec`, one per
#: metric, in the report's order: joint probability, percentage agreement, Fleiss' kappa, Krippendorff's alpha,
#: multi-coder kappa, annotator bias, Gwet's AC1, Brennan-Prediger and the chance-corrected SPA. Each entry gives
#: the metric's key, display label, function, the report options it takes, whether it needs annotator identities,
#: and where its formula is published. The report, its presentations and the bootstrap read the metrics from here.
METRICS = REPORT_METRICS

_BY_NAME = {spec.name: spec for spec in REPORT_METRICS}

#: Metrics bootstrapped from the count sums (vectorised over replicates): the registry's, and SPA per scheme.
COUNT_METRICS: tuple[str, ...] = (
    *(s.name for s in REPORT_METRICS if s.from_sums is not None),
    *(f"spa[{w}]" for w in SPA_WEIGHTS),
)


def metric_spec(name: str) -> MetricSpec:
    """The registry entry of ``name`` (``KeyError`` naming the known metrics otherwise)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no metric {name!r} in the registry; known: {sorted(_BY_NAME)}") from None


def count_metric_values(
    sums: CountSums, level: str, values: np.ndarray | None, weights: str
) -> Mapping[str, np.ndarray]:
    """Every count-based metric from ``sums`` (one item set, or replicates on a leading axis): the
    :data:`COUNT_METRICS`, by the registry's finalisers and :meth:`CountSums.spa` per scheme."""
    with np.errstate(all="ignore"):
        out = {s.name: s.from_sums(sums, level, values, weights) for s in REPORT_METRICS if s.from_sums is not None}
        for w in SPA_WEIGHTS:
            out[f"spa[{w}]"] = sums.spa(w)
    return out
