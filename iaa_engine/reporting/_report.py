"""One call that computes every applicable metric for a dataset."""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import Choice, NoneOr, validate
from iaa_engine.base._policy import NotEnoughMemoryError, UndefinedMetricWarning, check_memory
from iaa_engine.base._results import Estimate, PairwiseMatrix, Result, nan_to_none, printable
from iaa_engine.data._model import as_annotations
from iaa_engine.inference._benchmark import BENCHMARK_SCALES
from iaa_engine.metrics._agreement import SPA_WEIGHTS, percent_agreement_matrix, spa
from iaa_engine.metrics._alpha import krippendorff_alpha_matrix
from iaa_engine.metrics._kappa import cohen_kappa_matrix
from iaa_engine.metrics._registry import REPORT_METRICS
from iaa_engine.metrics._weighted import check_order
from iaa_engine.stats._weight_sums import TooManyCategoriesError
from iaa_engine.stats._weights import AGREEMENT_WEIGHTS

__all__ = ["Report", "report"]

#: Above this many annotators the pairwise matrices are skipped unless asked for (they need A² memory).
PAIRWISE_AUTO_LIMIT = 100


@dataclass(frozen=True, eq=False)
class Report(Result):
    """Every applicable agreement metric of one dataset: the result of :func:`report`.

    Convert with :meth:`to_dict` (JSON-ready, undefined values are ``None``),
    :meth:`to_json` or :meth:`to_frame`; ``print(report)`` shows a readable table.

    Attributes
    ----------
    n_items, n_annotations, n_categories : int
        Size of the data.
    n_annotators : int or None
        ``None`` for a count table (no annotator identities).
    n_items_excluded : int
        Items with fewer than two annotations (they take no part in agreement).
    level : str
        Level of measurement of Krippendorff's alpha.
    spa_weights : str
        The SPA weighting scheme of the headline SPA and of ``spa_kappa``.
    values : dict of str to float
        Each scalar metric of :data:`METRICS` by name (``joint_probability``,
        ``percent_agreement``, ``fleiss_kappa``, ``krippendorff_alpha``,
        ``multi_kappa``, ``bias``, ``gwet_ac1``, ``brennan_prediger``,
        ``spa_kappa``); nan when undefined.
    spa : dict of str to float
        SPA under every weighting scheme of :data:`SPA_WEIGHTS`.
    matrices : dict of str to PairwiseMatrix
        ``cohen_kappa``, ``percent_agreement_matrix`` and ``krippendorff_alpha_matrix`` (empty when the pairwise
        matrices were not computed).
    notes : list of str
        Why values are undefined or parts were skipped.
    reasons : dict of str to str
        For each undefined metric (SPA schemes as ``'spa[<scheme>]'``), why.
    kappa_weights : str or None
        The agreement weights of the weighted coefficients in ``estimates`` (None: none computed).
    estimates : dict of str to Estimate
        Coefficients with analytic standard error, interval and p-value: the weighted kappa family
        (``'fleiss_kappa[quadratic]'``, ...; :func:`iaa_engine.estimate`), the unweighted kappa family with
        ``ci=True``, and for interval and ratio data the six intraclass correlations of Shrout & Fleiss,
        ``'ICC(1,1)'``, ``'ICC(2,1)'``, ``'ICC(3,1)'``, ``'ICC(1,k)'``, ``'ICC(2,k)'``, ``'ICC(3,k)'``, each with its
        F interval (:func:`iaa_engine.icc`; the one-way two only, without annotator identities).
    intervals : BootstrapResult or None
        Bootstrap intervals (``ci=True``).
    hierarchy : HierarchyResult or None
        Hierarchical agreement (``hierarchy=``).
    strata : StrataResult or None
        Frequency strata (``strata=``).
    readings : dict of str to BenchmarkReading
        ``benchmark=``: each coefficient of ``estimates`` with a standard error read on that benchmark scale with
        its uncertainty (:func:`iaa_engine.benchmark_reading`, Gwet 2014, ch. 6).
    by : AgreementBy or None
        ``by=`` or ``time=``: the coefficients per group or time window with the tests between them
        (:func:`iaa_engine.agreement_by`).

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Artstein, R., & Poesio, M. (2005). Bias decreases in proportion to the number of annotators. Proceedings of
    FG-MoL 2005.

    Artstein, R., & Poesio, M. (2008). Inter-coder agreement for computational linguistics. Computational
    Linguistics 34(4), 555–596.

    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    British Journal of Mathematical and Statistical Psychology 61(1), 29–48.

    Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and alternatives.
    Educational and Psychological Measurement 41(3), 687–699.

    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37–46.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> rep = ie.report(ie.read(files("iaa_engine") / "examples" / "classroom.csv"))
    >>> rep.n_items, rep.n_annotators, rep.n_items_excluded
    (15, 3, 0)
    >>> round(rep.values["fleiss_kappa"], 4), round(rep.spa["annotations_m1"], 4)
    (0.5994, 0.7333)
    >>> rep.to_dict()["cohen_kappa"]["annotators"]
    ['annotator_0', 'annotator_1', 'annotator_2']
    """

    n_items: int
    n_annotators: int | None
    n_annotations: int
    n_categories: int
    n_items_excluded: int
    level: str
    spa_weights: str
    values: dict[str, float]
    spa: dict[str, float]
    matrices: dict[str, PairwiseMatrix] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)  # metric name -> why it is undefined
    kappa_weights: str | None = None
    estimates: dict[str, Estimate] = field(default_factory=dict)
    intervals: Any = None  # BootstrapResult
    hierarchy: Any = None  # HierarchyResult
    strata: Any = None  # StrataResult
    readings: dict[str, Any] = field(default_factory=dict)  # metric -> BenchmarkReading (benchmark=)
    by: Any = None  # AgreementBy (by= or time=)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain Python data (keys as in ``iaa report --json``)."""
        out: dict[str, Any] = {
            "n_items": self.n_items,
            "n_annotators": self.n_annotators,
            "n_annotations": self.n_annotations,
            "n_categories": self.n_categories,
            "n_items_excluded": self.n_items_excluded,
            "level": self.level,
            "spa_weights": self.spa_weights,
            "spa": dict(self.spa),
        }
        out.update(self.values)
        for name in ("cohen_kappa", "percent_agreement_matrix", "krippendorff_alpha_matrix"):
            m = self.matrices.get(name)
            out[name] = m.to_dict() if m is not None else None
        out["kappa_weights"] = self.kappa_weights
        out["estimates"] = {k: e.to_dict() for k, e in self.estimates.items()}
        if self.intervals is not None:
            out["intervals"] = self.intervals.to_dict()
        if self.hierarchy is not None:
            out["hierarchy"] = self.hierarchy.to_dict()
        if self.strata is not None:
            out["strata"] = self.strata.to_dict()
        if self.readings:
            out["readings"] = {k: r.to_dict() for k, r in self.readings.items()}
        if self.by is not None:
            out["by"] = self.by.to_dict()
        out["notes"] = list(self.notes)
        return nan_to_none(out)

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), **kwargs)

    def to_frame(self) -> pd.DataFrame:
        """One row per scalar metric: columns ``metric`` and ``value``."""
        rows = [(f"spa[{k}]", v) for k, v in self.spa.items()]
        rows += list(self.values.items())
        rows += [(k, e.estimate) for k, e in self.estimates.items() if k not in self.values]
        return pd.DataFrame(rows, columns=["metric", "value"])

    def __repr__(self) -> str:
        """A short summary (the data's size, the headline values, what else is inside); ``print`` shows the table."""
        ann = "" if self.n_annotators is None else f", {self.n_annotators} annotators"
        values = ", ".join(
            f"{k} {'undefined' if v is None or not np.isfinite(v) else f'{v:.4f}'}" for k, v in self.values.items()
        )
        parts = [f"{len(self.matrices)} pairwise matrices"] if self.matrices else []
        parts += [f"{len(self.estimates)} estimates with standard errors"] if self.estimates else []
        named = (("intervals", "bootstrap intervals"), ("hierarchy", "hierarchy"), ("strata", "strata"),
                 ("by", "agreement by group"))  # fmt: skip
        parts += [text for attr, text in named if getattr(self, attr) is not None]
        parts += [f"{len(self.notes)} notes"] if self.notes else []
        inside = f"; {', '.join(parts)}" if parts else ""
        return (
            f"Report({self.n_items} items ({self.n_items_excluded} excluded){ann}, {self.n_annotations} annotations, "
            f"{self.n_categories} categories, level {self.level!r}; {values}{inside}; print() it for the full report, "
            ".to_dict() for every value)"
        )

    def __str__(self) -> str:
        def fmt(v: float | None) -> str:
            return "undefined" if v is None or not np.isfinite(v) else f"{v:.4f}"

        ann = "unknown (count table)" if self.n_annotators is None else str(self.n_annotators)
        lines = [
            "Inter-annotator agreement report",
            f"  items: {self.n_items} ({self.n_items_excluded} with fewer than 2 annotations, excluded)",
            f"  annotators: {ann}   annotations: {self.n_annotations}   categories: {self.n_categories}",
            f"  level: {self.level}",
            "",
            f"  {'metric':<44} value",
        ]
        for spec in REPORT_METRICS:
            if spec.name in self.values:
                name = f"{spec.label} [{self.level}]" if spec.name == "krippendorff_alpha" else spec.label
                lines.append(f"  {name:<44} {fmt(self.values[spec.name])}")
        lines += ["", "  SPA (sparse probability of agreement) by weighting scheme"]
        for k, v in self.spa.items():
            mark = "  <- default" if k == self.spa_weights else ""
            lines.append(f"    {k:<42} {fmt(v)}{mark}")
        ck = self.matrices.get("cohen_kappa")
        if ck is not None:
            lines += ["", "  Cohen's kappa per annotator pair (items both annotated)"]
            if len(ck.annotators) <= 12:
                frame = ck.to_frame().map(lambda v: "   -  " if not np.isfinite(v) else f"{v:6.3f}")
                frame.index = [printable(a) for a in frame.index]
                frame.columns = [printable(a) for a in frame.columns]
                lines += ["    " + line for line in frame.to_string().splitlines()]
            else:
                off = ck.values[np.triu_indices(len(ck.annotators), 1)]  # each pair once (the matrix is symmetric)
                off = off[np.isfinite(off)]
                if off.size:
                    lines.append(
                        f"    {len(ck.annotators)} annotators; {off.size} defined pairs: "
                        f"mean {off.mean():.4f}, min {off.min():.4f}, max {off.max():.4f} (full matrix: --json)"
                    )
                else:
                    lines.append("    no pair of annotators shares an item")
        if self.estimates:
            lines += [
                "",
                "  With analytic standard errors (kappa family: Gwet; ICC: delta method, F test and interval)"
                + (f"; weights: {self.kappa_weights}" if self.kappa_weights else ""),
                f"    {'metric':<38} {'estimate':>9} {'s.e.':>9} {'lower':>9} {'upper':>9} {'p':>9}",
            ]
            for name, e in self.estimates.items():
                p = "undefined" if not np.isfinite(e.p_value) else f"{e.p_value:.2g}"
                se = fmt(e.se) if np.isfinite(e.se) or not np.isfinite(e.estimate) else "-"  # the ICC: F interval
                lines.append(
                    f"    {printable(name):<38} {fmt(e.estimate):>9} {se:>9} {fmt(e.lower):>9} {fmt(e.upper):>9} {p:>9}"
                )
            if any(name.startswith("ICC(") for name in self.estimates):
                lines.append(
                    "    ICC (Shrout & Fleiss): 1 one-way random, 2 two-way random (absolute agreement), 3 two-way "
                    "mixed (consistency); ·,1 one rater, ·,k the mean of k"
                )
        if self.readings:
            first = next(iter(self.readings.values()))
            lines += [
                "",
                f"  Benchmark reading ({first.scale} scale; Gwet's probabilistic benchmarking: the first band, from "
                f"the top, reached with probability {first.threshold:g})",
                f"    {'metric':<38} {'estimate':>9} {'s.e.':>9}  reading",
            ]
            for name, r in self.readings.items():
                word = (
                    "undefined"
                    if r.reading is None
                    else f"{r.reading} or better (P = {r.probability:.3f}); point estimate in {r.point_band}"
                )
                lines.append(f"    {printable(name):<38} {fmt(r.estimate):>9} {fmt(r.se):>9}  {word}")
        if self.intervals is not None:
            t = self.intervals.table
            lines += [
                "",
                f"  Bootstrap {self.intervals.confidence:.0%} intervals ({self.intervals.n_boot} replicates "
                f"of the items, seed {self.intervals.seed}); BCa: bias-corrected and accelerated (Efron 1987);",
                "  basic: twice the estimate minus the replicates' quantiles, centred on the bias-corrected estimate",
                "  (the estimate less the bootstrap's estimate of its bias), which is shown beside it",
                f"    {'metric':<24} {'estimate':>9} {'lower':>9} {'upper':>9} {'s.e.':>9}  interval",
            ]
            for name, row in t.iterrows():
                how = "BCa" if row["method"] == "bca" else str(row["method"])
                if row["method"] == "basic" and "corrected" in row.index:
                    how += f" (bias-corrected estimate {fmt(row['corrected'])})"
                lines.append(
                    f"    {name:<24} {fmt(row['estimate']):>9} {fmt(row['lower']):>9} {fmt(row['upper']):>9} "
                    f"{fmt(row['se']):>9}  {how}"
                )
        if self.hierarchy is not None:
            h = self.hierarchy
            lines += [
                "",
                "  Hierarchical labels (Krippendorff's alpha, nominal)",
                f"    parent {fmt(h.alpha_parent)}   child {fmt(h.alpha_child)}   full {fmt(h.alpha_full)}   "
                f"consistency gamma {fmt(h.gamma)}",
                "    child agreement within each parent:",
            ]
            for name, row in h.conditional.iterrows():
                lines.append(f"      {printable(name):<28} {fmt(row['alpha'])}  ({row['n_items']} items)")
        if self.strata is not None:
            st = self.strata
            lines += ["", "  Agreement by label frequency"]
            for name, row in st.strata.iterrows():
                lines.append(
                    f"    {printable(name):<12} alpha {fmt(row['alpha'])}  {len(row['labels'])} labels, "
                    f"{row['n_items']} items"
                )
            r = st.regression
            lines.append(
                f"    per-label alpha = {fmt(r.get('beta0'))} + {fmt(r.get('beta1'))} log(frequency)   "
                f"(R² {fmt(r.get('r2'))}, p {fmt(r.get('p_value'))}, {r['n']} labels)"
            )
        if self.by is not None:
            lines += ["", *("  " + line if line else line for line in str(self.by).splitlines())]
        if self.notes:
            lines += ["", "  Notes"] + [f"    - {printable(n)}" for n in self.notes]
        return "\n".join(lines)


def _icc_forms(
    data: Any, has_ann: bool, notes: list[str], reasons: dict[str, str], compute: Any = None
) -> dict[str, Estimate]:
    """The six Shrout & Fleiss forms (the one-way two without annotator identities), each with its interval; what
    several forms share (the items they rest on, why an interval is undefined) is one note naming them.
    ``compute(data, forms)`` computes them (default :func:`~iaa_engine.metrics._icc.icc_forms`; on a cluster, the
    Dask engine's sums)."""
    from iaa_engine.metrics._icc import ICC_FORMS, icc_forms

    compute = icc_forms if compute is None else compute

    out: dict[str, Estimate] = {}
    said: list[str] = []
    one_way, two_way = ICC_FORMS[0::3], ICC_FORMS[1::3] + ICC_FORMS[2::3]
    for design in (one_way, two_way) if has_ann else (one_way,):  # one items × ratings table per design
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedMetricWarning)
            try:
                out.update(compute(data, design))
            except NotEnoughMemoryError as exc:
                notes.append(f"{', '.join(design)} not computed: {exc}")
        for w in caught:
            if issubclass(w.category, UndefinedMetricWarning):
                said.append(str(w.message).split("; returning")[0])
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    out = {form: out[form] for form in ICC_FORMS if form in out}
    shared: dict[str, list[str]] = {}  # a note with "{}" for the forms -> the forms it is about
    for form, e in out.items():
        own = [m for m in said if m.startswith((f"{form} ", f"{form}'s "))]
        if own:
            reasons.setdefault(form, own[0])  # why it (or its interval) is undefined
        for msg in [*own, e.details.get("note", "")]:
            if msg:
                shared.setdefault(msg.replace(form, "{}"), []).append(form)
    for text, forms in shared.items():
        if len(forms) > 1:
            text = text.replace("{}'s ", "{}: ").replace("{} rests on", "{} rest on")
        notes.append(text.replace("{}", ", ".join(forms)))
    return out


#: The start of the note that data summarised on a cluster has no ICC in :func:`report` (the CLI adds them).
ICC_NOT_COMPUTED = "summarised on a cluster: the intraclass correlations (ICC) are not computed here"

#: The weights ``kappa_weights='auto'`` picks for each level (nominal: none).
AUTO_KAPPA_WEIGHTS = {"ordinal": "quadratic", "interval": "quadratic", "ratio": "ratio"}

#: The kappa family's coefficients with an analytic standard error, in the report's order.
ANALYTIC_IN_REPORT = ("percent_agreement_weighted", "fleiss_kappa", "gwet_ac1", "brennan_prediger", "multi_kappa")


@validate(kappa_weights=NoneOr(Choice("auto", *AGREEMENT_WEIGHTS)), benchmark=NoneOr(Choice(*BENCHMARK_SCALES)))
def report(
    data: Any,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    weights: str = "annotations_m1",
    pairwise: bool | Literal["auto"] = "auto",
    ci: bool = False,
    n_boot: int = 1000,
    seed: int | None = 0,
    hierarchy: str | None = None,
    strata: int | None = None,
    progress: bool | None = None,
    kappa_weights: str | None = "auto",
    benchmark: str | None = None,
    by: str | None = None,
    time: str | None = None,
    freq: str = "W",
) -> Report:
    r"""Compute every applicable metric of ``data``.

    The scalar metrics of :data:`METRICS` (joint probability of agreement
    :math:`\bar P`, percentage agreement, Fleiss' kappa, Krippendorff's alpha,
    Artstein & Poesio's multi-coder kappa and bias, Gwet's AC1,
    Brennan-Prediger kappa, chance-corrected SPA), SPA under every weighting
    scheme, and the annotator × annotator matrices. The chance-corrected
    coefficients share one form,

    .. math::

        \kappa = \frac{A_o - A_e}{1 - A_e}

    with observed agreement :math:`A_o` and each coefficient's own chance
    agreement :math:`A_e` (Krippendorff's alpha is the same in disagreements,
    :math:`1 - D_o / D_e`); the formulas are in each metric's documentation.

    Parameters
    ----------
    data : Annotations or convertible
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level for Krippendorff's alpha (default: the data's level). The kappa
        family and SPA always treat labels as nominal categories.
    weights : str, default 'annotations_m1'
        The SPA scheme reported as the headline ``spa`` value and used by
        ``spa_kappa``; all six are in ``Report.spa``.
    pairwise : bool or 'auto', default 'auto'
        Whether to compute the annotator × annotator matrices (Cohen's kappa,
        percentage agreement, Krippendorff's alpha). ``'auto'`` computes them up
        to 100 annotators (a larger matrix is not read, and it takes memory and time quadratic in the
        annotator count; a note says so).
    ci : bool, default False
        Add bootstrap intervals (BCa; basic for the bias B: :func:`iaa_engine.bootstrap`, ``n_boot``
        replicates, ``seed``) for every scalar metric.
    n_boot : int, default 1000
        Bootstrap replicates (with ``ci=True``; 2 to 100,000).
    seed : int, optional, default 0
        Seed of the bootstrap; the same seed gives the same intervals.
    hierarchy : str, optional
        Treat labels as hierarchical paths split on this separator (e.g. ``"/"``)
        and add :func:`iaa_engine.hierarchical_agreement`.
    strata : int, optional
        Add :func:`iaa_engine.frequency_strata` with this many strata.
    progress : bool, optional
        Progress of the bootstrap on stderr (default: on a terminal).
    kappa_weights : str or None, default 'auto'
        Agreement weights for the weighted kappa family (Gwet's AC2, weighted Fleiss, Conger, Brennan–Prediger
        and percent agreement, each with its analytic standard error in ``Report.estimates``): a family name of
        :data:`AGREEMENT_WEIGHTS`; ``'auto'`` picks ``quadratic`` for ordinal and interval data, ``ratio`` for
        ratio data and none for nominal data; None computes none. (``weights`` is SPA's item weighting.)
        The sums behind them never build a categories × categories matrix (closed forms for ``linear``,
        ``quadratic``, ``ordinal`` and ``circular``); where a family cannot run on this many categories, the
        report carries the rest and says so in ``notes``.
        Interval and ratio data also get the six intraclass correlations, ICC(1,1) to ICC(3,k), with intervals.
    benchmark : {'landis_koch', 'fleiss', 'altman', 'krippendorff'}, optional
        Read every coefficient with a standard error on this benchmark scale, with its uncertainty
        (:func:`iaa_engine.benchmark_reading`: the probability of each band, the first band reached with
        probability 0.95); adds the unweighted kappa family and Krippendorff's alpha with their standard errors
        to ``estimates``. Never a bare word: each reading carries its probability.
    by, time : str, optional
        A kept column (``ie.read(path, keep=[...])``) whose values (``by``) or time windows (``time``) are groups:
        adds :func:`iaa_engine.agreement_by` (percent agreement, Fleiss' kappa, Gwet's AC1 and Krippendorff's alpha
        per group with their analytic intervals, consecutive groups tested, Holm-adjusted) as ``Report.by``; the
        kappa family takes the report's agreement weights.
    freq : {'D', 'W', 'M'}, default 'W'
        The windows of ``time``.

    Returns
    -------
    Report
        Undefined metrics are ``nan`` (``None`` in :meth:`Report.to_dict`) and
        the reason is recorded in ``Report.notes`` and ``Report.reasons``
        (instead of a warning). A count table has no annotator identities: its
        multi-coder kappa, bias and pairwise matrices are not computed.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The labels do not fit ``level``; ``kappa_weights`` names a family of weights for labels that are not
        numbers and have no given order (text is never ordered alphabetically; read the data at the ordinal level
        with ``categories=``); the pairwise matrices would need more memory than is available
        (pass ``pairwise=False``); or ``ci``, ``hierarchy`` or ``strata`` is asked of data that holds only
        statistics (they need per-item counts or the annotations themselves).

    See Also
    --------
    write_html_report : The same report as a self-contained HTML page with pictures.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Artstein, R., & Poesio, M. (2005). Bias decreases in proportion to the number of annotators. Proceedings of
    FG-MoL 2005.

    Artstein, R., & Poesio, M. (2008). Inter-coder agreement for computational linguistics. Computational
    Linguistics 34(4), 555–596.

    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    British Journal of Mathematical and Statistical Psychology 61(1), 29–48.

    Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and alternatives.
    Educational and Psychological Measurement 41(3), 687–699.

    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37–46.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> rep = ie.report(ie.read(files("iaa_engine") / "examples" / "classroom.csv"))
    >>> print(str(rep).split("\n\n")[1])  # the scalar metrics
      metric                                       value
      Joint probability of agreement (P-bar)       0.7333
      Percentage agreement (unanimous items)       0.6000
      Fleiss' kappa                                0.5994
      Krippendorff's alpha [nominal]               0.6083
      Multi-coder kappa (Artstein & Poesio)        0.6044
      Annotator bias B                             0.0084
      Gwet's AC1                                   0.6003
      Brennan-Prediger kappa                       0.6000
      Chance-corrected SPA                         0.6083
    >>> rep.matrices["cohen_kappa"].to_frame().round(3)
                 annotator_0  annotator_1  annotator_2
    annotator_0        1.000        0.698        0.708
    annotator_1        0.698        1.000        0.408
    annotator_2        0.708        0.408        1.000
    """
    data = as_annotations(data, level=level)
    if kappa_weights not in (None, "auto"):
        check_order(data, kappa_weights)  # asked for: text labels are never ordered alphabetically
    notes: list[str] = []

    def run(fn: Callable[[], Any], name: str | None = None) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedMetricWarning)
            out = fn()
        for w in caught:
            if issubclass(w.category, UndefinedMetricWarning):
                msg = str(w.message).split("; returning")[0]
                if name is not None:
                    reasons.setdefault(name, msg)
                if msg not in notes:
                    notes.append(msg)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return out

    reasons: dict[str, str] = {}
    has_ann = data.annotators is not None
    values: dict[str, float] = {}
    for spec in REPORT_METRICS:  # the registry's order is the report's order
        if spec.needs_annotators and not has_ann:
            values[spec.name] = float("nan")
            reasons[spec.name] = "count-table input has no annotator identities"
            continue
        values[spec.name] = run(functools.partial(spec.compute, data, weights=weights), spec.name)
    if not has_ann:
        notes.append(
            "count-table input has no annotator identities: multi-coder kappa, bias and "
            "the pairwise matrices are not computed"
        )
    spa_all = {w: run(functools.partial(spa, data, weights=cast(Any, w)), f"spa[{w}]") for w in SPA_WEIGHTS}

    matrices: dict[str, PairwiseMatrix] = {}
    want_pairs = has_ann and (pairwise is True or (pairwise == "auto" and data.n_annotators <= PAIRWISE_AUTO_LIMIT))
    if has_ann and not want_pairs and pairwise == "auto":
        notes.append(
            f"{data.n_annotators} annotators: pairwise matrices skipped (more than "
            f"{PAIRWISE_AUTO_LIMIT}; pass pairwise=True to compute them)"
        )
    if want_pairs:
        m = float(data.n_annotators)
        check_memory(
            12 * 8 * m * m,
            f"the pairwise matrices of {data.n_annotators} annotators",
            "compute the scalar metrics alone with pairwise=False (CLI: --pairwise no)",
        )
        matrices["cohen_kappa"] = cohen_kappa_matrix(data)
        matrices["percent_agreement_matrix"] = percent_agreement_matrix(data)
        matrices["krippendorff_alpha_matrix"] = krippendorff_alpha_matrix(data)
    n_excluded = int(data.n_items - data.count_sums.n_pairable)
    extras: dict[str, Any] = {}
    if ci:
        from iaa_engine.inference._inference import bootstrap

        point = {**values, **{f"spa[{w}]": v for w, v in spa_all.items()}}
        extras["intervals"] = run(
            lambda: bootstrap(data, n_boot=n_boot, seed=seed, weights=weights, progress=progress, estimates=point)
        )
    chosen = AUTO_KAPPA_WEIGHTS.get(data.level) if kappa_weights == "auto" else kappa_weights
    estimates: dict[str, Estimate] = {}
    wanted = chosen is not None or ci or benchmark is not None or data.level in ("interval", "ratio")
    patterns_only = not data.has_item_counts  # summarised on a cluster: the items' count patterns, if carried
    no_conger = patterns_only and getattr(data, "_entry_patterns", None) is None
    if wanted and patterns_only and getattr(data, "_patterns", None) is None:
        notes.append(
            "the analytic standard errors, the weighted coefficients and the ICC need per-item counts; this data "
            "holds sums over items (summarised by the Dask or DuckDB engine)"
        )
    elif wanted:
        from iaa_engine.inference._analytic import estimate

        families = ([chosen] if chosen is not None else []) + (
            ["identity"] if (ci or benchmark is not None) and chosen != "identity" else []
        )
        for family in families:
            block: dict[str, Estimate] = {}
            try:  # an optional block: what cannot run is a note, never the report's end
                for name in ANALYTIC_IN_REPORT:
                    if (name == "multi_kappa" and (not has_ann or no_conger)) or (
                        name == "percent_agreement_weighted" and family == "identity"
                    ):
                        continue
                    e = run(functools.partial(estimate, data, name, weights=family), f"{name}[{family}]")
                    block[e.metric] = e
            except (NotEnoughMemoryError, TooManyCategoriesError) as exc:
                notes.append(f"the kappa family with {family} weights is not computed: {exc}")
            else:
                estimates.update(block)
        if benchmark is not None:
            e = run(functools.partial(estimate, data, "krippendorff_alpha"), "krippendorff_alpha")
            estimates[e.metric] = e
        if data.level in ("interval", "ratio") and data.label is not None:
            estimates.update(_icc_forms(data, has_ann, notes, reasons))
        if no_conger and has_ann:
            notes.append(
                "summarised on a cluster: Conger's kappa (multi_kappa) has no analytic standard error here (its "
                "tally of annotations by count pattern was too large to gather); --ci gives it a bootstrap interval"
            )
        if patterns_only and data.level in ("interval", "ratio"):
            notes.append(
                ICC_NOT_COMPUTED + " (they need every annotation's value by annotator; `iaa report --engine dask` "
                "computes them on the cluster, engines/_dask_icc.py)"
            )
    if benchmark is not None:
        from iaa_engine.inference._benchmark import benchmark_reading

        extras["readings"] = {
            k: benchmark_reading(e, scale=benchmark)
            for k, e in estimates.items()
            if np.isfinite(e.estimate) and np.isfinite(e.se)
        }
    if hierarchy is not None:
        from iaa_engine.analysis._facets import hierarchical_agreement

        extras["hierarchy"] = hierarchical_agreement(data, sep=hierarchy)
        notes.extend(extras["hierarchy"].notes)
    if strata is not None:
        from iaa_engine.analysis._facets import frequency_strata

        extras["strata"] = frequency_strata(data, n_strata=strata)
    if by is not None or time is not None:
        from iaa_engine.analysis._by import agreement_by

        extras["by"] = agreement_by(data, by, time=time, freq=freq, weights=chosen or "identity")
    return Report(
        n_items=data.n_items,
        n_annotators=data.n_annotators,
        n_annotations=data.n_annotations,
        n_categories=data.n_categories,
        n_items_excluded=n_excluded,
        level=data.level,
        spa_weights=weights,
        values=values,
        spa=spa_all,
        matrices=matrices,
        notes=notes,
        reasons=reasons,
        kappa_weights=chosen,
        estimates=estimates,
        **extras,
    )
