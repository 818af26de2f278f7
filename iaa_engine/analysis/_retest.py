r"""Is each annotator consistent with themself? Test–retest agreement (issue 27, item 4).

The design decision: the one data model keeps one label per (item, annotator) — the readers still refuse a
second label unless ``duplicates=`` picks one — and :func:`retest` reads the long table itself. The repeats of an
(item, annotator) are numbered by an ``occasion`` column (a number or a timestamp) or, without one, by their order
in the table; occasion k of every annotator is then one ordinary :class:`Annotations` data set, and an annotator's
occasions are the "annotators" of their own intra-rater data set. Nothing in the data model changes.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from iaa_engine.base._params import NoneOr, Real, Text, validate
from iaa_engine.base._policy import UndefinedMetricWarning
from iaa_engine.base._results import Result, nan_to_none, printable
from iaa_engine.data._errors import InputError
from iaa_engine.data._model import Annotations
from iaa_engine.inference._analytic import estimate
from iaa_engine.metrics._icc import icc

__all__ = ["Retest", "retest", "eliasziw", "as_numbers", "occasion_order"]


@dataclass(frozen=True, eq=False)
class Retest(Result):
    r"""Each annotator's agreement with themself beside the annotators' agreement with each other: the result of
    :func:`retest`.

    Attributes
    ----------
    intra : pandas.DataFrame
        One row per annotator: ``annotator``, ``n_items`` (items they labelled at least twice), ``n_labels``,
        ``percent_agreement`` (the share of agreeing pairs of occasions, averaged over items), Conger's ``kappa``
        over all their occasions (Cohen's kappa of occasion 1 against 2 when there are two) with ``kappa_se``,
        ``kappa_lower``, ``kappa_upper`` (Gwet's variance), Krippendorff's ``alpha`` over all their occasions
        with ``alpha_lower``, ``alpha_upper`` (jackknife), and for numeric labels ``icc`` (ICC(2,1), absolute
        agreement between occasions) with ``icc_lower``, ``icc_upper``, placed first.
    inter : pandas.DataFrame
        One row per occasion: the annotators' agreement with each other on it (``fleiss_kappa``, ``alpha``,
        ``icc`` for numeric labels, each with its interval) and its ``n_items``.
    decomposition : dict or None
        For numeric labels, Eliasziw et al.'s (1994) inter- and intra-rater reliability (:func:`eliasziw`, as
        R irr's ``relInterIntra``) on the items every annotator rated the same number of times; ``None`` when
        the labels are not numbers or fewer than two annotators or two occasions cross.
    n_occasions : int
        The most repeats of one (item, annotator).
    confidence : float
        Coverage of the intervals.
    kappa_weights : str
        The kappas' agreement weights: ``'identity'`` (unweighted), or for numeric labels at an ordered level
        ``'quadratic'`` (``'ratio'`` at the ratio level): unweighted, a kappa counts any two different numbers as
        a full disagreement, which means nothing beside the ICC.
    notes : list of str
        What was left out and why, and why a value is undefined (an annotator who repeats themself exactly has
        ICC 1 with an undefined interval; the terminal shows it as "undefined (see notes)", JSON as ``null``).

    References
    ----------
    Eliasziw, M., Young, S. L., Woodbury, M. G., & Fryday-Field, K. (1994). Statistical methodology for the
    concurrent assessment of interrater and intrarater reliability. Physical Therapy 74(8), 777–788.

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> table = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 1, 2, 3],
    ...                       "annotator": ["ann"] * 6 + ["bob"] * 3,
    ...                       "label": ["x", "x", "y", "y", "x", "y", "x", "y", "y"]})
    >>> r = ie.retest(table)
    >>> r.intra[["annotator", "n_items", "percent_agreement"]]
      annotator  n_items  percent_agreement
    0       ann        3           0.666667
    1       bob        0                NaN
    """

    intra: pd.DataFrame
    inter: pd.DataFrame
    decomposition: dict[str, Any] | None
    n_occasions: int
    confidence: float
    notes: list[str] = field(default_factory=list)
    kappa_weights: str = "identity"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``intra`` and ``inter`` as lists of records, ``decomposition``, ``n_occasions``, ``notes``."""
        return {
            "intra": nan_to_none(self.intra.to_dict(orient="records")),
            "inter": nan_to_none(self.inter.to_dict(orient="records")),
            "decomposition": nan_to_none(self.decomposition),
            "n_occasions": self.n_occasions,
            "confidence": self.confidence,
            "kappa_weights": self.kappa_weights,
            "notes": list(self.notes),
        }

    def to_frame(self) -> pd.DataFrame:
        """The per-annotator table :attr:`intra`."""
        return self.intra.copy()

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        """The terminal's view: estimates with their intervals, undefined values as "undefined (…)", the notes."""
        pct = f"{self.confidence:.0%}"
        w = "" if self.kappa_weights == "identity" else f", {self.kappa_weights} weights"
        kappa = (
            f"kappa (all {self.n_occasions} occasions{w})" if self.n_occasions > 2 else f"kappa{w and f' ({w[2:]})'}"
        )
        intra_cols = [(c, h.replace("kappa", kappa, 1) if c == "kappa" else h) for c, h in _shown(self.intra, pct)]
        lines = [f"Retest: intra-rater agreement ({self.n_occasions} occasions)"]
        lines += ["  " + ln for ln in _grid(self.intra, "annotator", ["n_items", "n_labels"], intra_cols)]
        lines += ["inter-rater agreement per occasion"]
        inter_cols = [(c, h.replace("kappa", f"kappa{w and f' ({w[2:]})'}") if c == "fleiss_kappa" else h)
                      for c, h in _shown(self.inter, pct)]  # fmt: skip
        lines += ["  " + ln for ln in _grid(self.inter, "occasion", ["n_items", "n_annotators"], inter_cols)]
        if self.decomposition:
            d = self.decomposition
            lines.append(
                f"Eliasziw et al. (1994) on {d['n_items']} items x {d['n_raters']} raters x {d['n_repeats']}: "
                f"inter rho {d['rho_inter_random']:.4f} (random raters), {d['rho_inter_fixed']:.4f} (fixed); "
                f"intra rho {d['rho_intra_random']:.4f}, {d['rho_intra_fixed']:.4f}"
            )
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(printable(line) for line in lines)


#: The estimates the terminal shows, (column, heading), in the frame's order; the interval is ``<column>_lower/_upper``.
_ESTIMATES = (
    ("percent_agreement", "percent agreement"),
    ("kappa", "kappa"),
    ("fleiss_kappa", "Fleiss kappa"),
    ("alpha", "alpha"),
    ("icc", "ICC(2,1)"),
)


def _shown(frame: pd.DataFrame, pct: str) -> list[tuple[str, str]]:
    """The estimates in the frame's column order (numeric labels: ICC and alpha first)."""
    heads = dict(_ESTIMATES)
    return [(c, f"{heads[c]} [{pct} CI]" if f"{c}_lower" in frame.columns else heads[c]) for c in frame.columns
            if c in heads]  # fmt: skip


def _cell(row: dict[str, Any], col: str) -> str:
    value = row[col]
    if not np.isfinite(value):
        return "undefined (see notes)"
    if f"{col}_lower" not in row:
        return f"{value:.4f}"
    lo, hi = row[f"{col}_lower"], row[f"{col}_upper"]
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{value:.4f} [undefined (see notes)]"
    return f"{value:.4f} [{lo:.4f}, {hi:.4f}]"


def _grid(frame: pd.DataFrame, key: str, counts: list[str], shown: list[tuple[str, str]]) -> list[str]:
    """A plain text table: the key, the counts, then each estimate with its interval."""
    if frame.empty:
        return ["(none)"]
    heads = [key, *(c.replace("_", " ") for c in counts), *(h for _, h in shown)]
    body = [[printable(r[key]), *(str(r[c]) for c in counts), *(_cell(r, c) for c, _ in shown)]
            for r in frame.to_dict(orient="records")]  # fmt: skip
    widths = [max(len(x) for x in col) for col in zip(heads, *body, strict=True)]
    fmt = lambda cells: "  ".join(  # noqa: E731
        c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
    )
    return [fmt(heads), *(fmt(b) for b in body)]


@contextlib.contextmanager
def _reasons(whose: str, notes: list[str]) -> Iterator[None]:
    """Collect why values computed inside are undefined, as notes prefixed with ``whose`` (once each)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        yield
    for w in caught:
        if issubclass(w.category, UndefinedMetricWarning):
            text = re.sub(r"; returning \S+ (\(see replace_undefined_by\)|for them)$", "", str(w.message))
            note = f"{whose}: {text}"
            if note not in notes:
                notes.append(note)
        else:  # not ours to keep
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def as_numbers(values: Any) -> Any:
    """``values`` as float numbers when every non-blank value is one (text ``"10"`` included); else unchanged
    (the same object). Blanks become nan."""
    text = pd.Series(values, dtype=object)
    blank = text.isna() | (text.astype(str).str.strip() == "")
    if text.map(lambda v: isinstance(v, (bool, np.bool_))).any():
        return values
    numbers = pd.to_numeric(text.where(~blank), errors="coerce")
    return numbers.to_numpy(dtype=float) if not numbers[~blank].isna().any() else values


def occasion_order(values: Any, name: str, rows: pd.DataFrame | None = None) -> np.ndarray:
    """The one rule for an occasion column (:func:`retest` and ``iaa retest``): numbers are ordered as numbers
    (``"10"`` after ``"9"``), dates as dates; a blank occasion, a value that is neither, or numbers mixed with
    dates are refused with a plain message. ``rows`` (the labelled rows, same order) names where a blank is."""
    series = pd.Series(values, dtype=object)
    text = series.astype(str).str.strip()
    blank = (series.isna() | (text == "") | text.isin(["NaT", "nan", "NaN", "None"])).to_numpy()
    if blank.any():
        where = ""
        if rows is not None:
            first = rows.iloc[int(np.flatnonzero(blank)[0])]
            item, who = (v.item() if isinstance(v, np.generic) else v for v in (first["item"], first["annotator"]))
            where = f" (the first: item {item!r}, annotator {who!r})"
        head = f"occasion column {name!r} is blank in {int(blank.sum())} of {blank.size} labelled rows{where}"
        raise InputError(
            head + "; give every label its occasion, or leave out occasion= to number repeats in the table's order",
            cli=f"--occasion-col {name!r} is blank in {int(blank.sum())} of {blank.size} labelled rows{where}; give "
            "every label its occasion, or leave out --occasion-col to number repeats in the file's order",
        )
    numbers = as_numbers(values)
    if numbers is not values:
        return np.asarray(numbers)
    if pd.api.types.is_datetime64_any_dtype(np.asarray(values).dtype):
        return np.asarray(values)
    dated = series.map(lambda v: isinstance(v, (pd.Timestamp, np.datetime64)) or hasattr(v, "isoformat"))
    dates = pd.to_datetime(series.where(~dated, series.astype(str)), errors="coerce", utc=True, format="mixed")
    numeric = pd.to_numeric(series.where(~dated), errors="coerce").notna()
    if dates.isna().any():
        bad = str(series[dates.isna()].iloc[0])
        if numeric.any() and not dates[~numeric].isna().any():
            mix = f"mixes numbers and dates ({bad!r} and {str(series[~numeric].iloc[0])!r}); use one or the other"
            raise InputError(f"occasion column {name!r} {mix}", cli=f"--occasion-col {name!r} {mix}")
        raise InputError(
            f"occasion column {name!r} must hold numbers or dates; got {bad!r}",
            cli=f"--occasion-col {name!r} must hold numbers or dates; got {bad!r}",
        )
    return dates.to_numpy()


def _missing(values: pd.Series, na_values: tuple[str, ...]) -> np.ndarray:
    miss = values.isna().to_numpy()
    text = values.astype(str).str.strip()
    return miss | (text == "").to_numpy() | text.isin(list(na_values)).to_numpy()


def _not_computed(metric: str, exc: Exception) -> None:
    """A value left undefined because its function refused this data: said as a note (see :func:`_reasons`)."""
    warnings.warn(f"{metric} is undefined: {exc}", UndefinedMetricWarning, stacklevel=3)


def _estimate_row(data: Annotations, prefix: str, metric: str, confidence: float, **kw: Any) -> dict[str, float]:
    try:
        e = estimate(data, metric, confidence=confidence, **kw)
    except ValueError as exc:
        _not_computed(metric, exc)
        return {prefix: np.nan, f"{prefix}_lower": np.nan, f"{prefix}_upper": np.nan}
    if np.isfinite(e.estimate) and not (np.isfinite(e.lower) and np.isfinite(e.upper)):  # say why (a note)
        warnings.warn(f"{e.metric}'s interval is undefined: the {e.method.split(';')[0]} gives no interval "
                      f"here ({e.n_items} items)", UndefinedMetricWarning, stacklevel=2)  # fmt: skip
    return {prefix: e.estimate, f"{prefix}_lower": e.lower, f"{prefix}_upper": e.upper}


def _icc_row(data: Annotations, confidence: float) -> dict[str, float]:
    try:
        e = icc(data, "ICC(2,1)", confidence=confidence)
    except ValueError as exc:
        _not_computed("ICC(2,1)", exc)
        return {"icc": np.nan, "icc_lower": np.nan, "icc_upper": np.nan}
    return {"icc": e.estimate, "icc_lower": e.lower, "icc_upper": e.upper}


@validate(
    occasion=NoneOr(Text()),
    rho0_inter=Real(0, 1, high_open=True),
    rho0_intra=Real(0, 1, high_open=True),
)
def retest(
    table: pd.DataFrame,
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    occasion: str | None = None,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    categories: Any = None,
    na_values: tuple[str, ...] = (),
    confidence: float = 0.95,
    rho0_inter: float = 0.6,
    rho0_intra: float = 0.8,
) -> Retest:
    r"""Test–retest agreement: each annotator's agreement with themself, beside the inter-rater agreement.

    The long table may hold several labels of one annotator on one item. They are numbered 1, 2, ... by the
    ``occasion`` column (a number or a timestamp; ties keep the table's order) or by their order in the table.
    For each annotator, their occasions are treated as raters of their own items:

    * Conger's kappa over all their occasions (Cohen's kappa of occasion 1 against 2 when there are two) with
      Gwet's standard error (:func:`estimate`), :math:`\kappa = (p_o - p_e)/(1 - p_e)`, and the percent agreement
      :math:`p_o` over pairs of occasions; for numeric labels at an ordered level the kappas are weighted
      (quadratic; ratio weights at the ratio level) and a note says so;
    * Krippendorff's alpha over all their occasions at ``level``, :math:`\alpha = 1 - D_o / D_e`, with the
      jackknife interval;
    * for numeric labels, ICC(2,1) between occasions (absolute agreement, :func:`icc`).

    The inter-rater values are the annotators' Fleiss kappa, alpha and ICC(2,1) on each occasion. For numeric
    labels with at least two annotators and two occasions, Eliasziw et al.'s decomposition (:func:`eliasziw`)
    runs on the items every annotator rated at least :math:`m` times (their first :math:`m` occasions), with
    :math:`m \ge 2` the number of repeats that keeps the most measurements; ``notes`` says what was left out.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per label given (long layout), repeats included.
    item, annotator, label : str, default 'item', 'annotator', 'label'
        Column names.
    occasion : str, optional
        Column that orders the repeats: numbers or dates, also as text (``"10"`` after ``"9"``; ``"2026-03-09"``
        as a date), by the one rule ``iaa retest`` uses too. A blank occasion on a labelled row, numbers mixed
        with dates, or other text is refused with a plain message. Default: the table's row order.
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level of measurement for alpha (default: ``'interval'`` for numeric labels, ``'nominal'`` otherwise).
    categories : sequence, optional
        All categories in order (as in :meth:`Annotations.from_long`).
    na_values : sequence of str, default ()
        Label texts that mean "not labelled".
    confidence : float, default 0.95
        Coverage of the intervals (and of the decomposition's one-sided lower bounds).
    rho0_inter, rho0_intra : float, default 0.6 and 0.8
        Null values of the decomposition's F tests (irr's defaults).

    Returns
    -------
    Retest
        ``intra`` (per annotator), ``inter`` (per occasion), ``decomposition`` (numeric labels), ``notes``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``table`` is not a pandas DataFrame.
    ValueError
        A named column is missing; an occasion is blank, neither a number nor a date, or numbers are mixed with
        dates; no label is given twice by one annotator on one item; the labels cannot be read at ``level`` (as
        :meth:`Annotations.from_long` says).

    References
    ----------
    Eliasziw, M., Young, S. L., Woodbury, M. G., & Fryday-Field, K. (1994). Statistical methodology for the
    concurrent assessment of interrater and intrarater reliability: using goniometric measurements as an example.
    Physical Therapy 74(8), 777–788.

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.), ch. 3. Advanced Analytics.

    Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater reliability.
    Psychological Bulletin 86(2), 420–428.

    Examples
    --------
    Two annotators score four items twice (occasion column ``pass``):

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [
    ...     (1, "ann", 1, 3), (1, "ann", 2, 3), (2, "ann", 1, 5), (2, "ann", 2, 4), (3, "ann", 1, 1), (3, "ann", 2, 2),
    ...     (4, "ann", 1, 4), (4, "ann", 2, 4), (1, "bob", 1, 2), (1, "bob", 2, 3), (2, "bob", 1, 5), (2, "bob", 2, 5),
    ...     (3, "bob", 1, 1), (3, "bob", 2, 1), (4, "bob", 1, 5), (4, "bob", 2, 4)]
    >>> table = pd.DataFrame(rows, columns=["item", "annotator", "pass", "score"])
    >>> r = ie.retest(table, label="score", occasion="pass")
    >>> r.intra[["annotator", "n_items", "percent_agreement"]]
      annotator  n_items  percent_agreement
    0       ann        4                0.5
    1       bob        4                0.5
    >>> round(r.decomposition["rho_intra_random"], 4), round(r.decomposition["rho_inter_random"], 4)
    (0.9062, 0.9062)
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"retest expects a pandas DataFrame (a long table); got {type(table).__name__}")
    names = [item, annotator, label] + ([occasion] if occasion is not None else [])
    missing = [c for c in names if c not in table.columns]
    if missing:
        head = f"column(s) {missing!r} not found; the table has columns {list(map(str, table.columns))!r}. "
        raise InputError(
            head + "Name the columns with item=, annotator=, label=, occasion=",
            cli=head + "Name the columns with --item-col, --annotator-col, --label-col, --occasion-col",
        )
    frame = pd.DataFrame({"item": table[item].to_numpy(), "annotator": table[annotator].to_numpy(),
                          "label": table[label].to_numpy()})  # fmt: skip
    keep = ~_missing(frame["label"], tuple(na_values))
    if occasion is not None:
        frame = frame[keep]
        when = occasion_order(table[occasion].to_numpy()[keep], occasion, frame)
        frame = frame.assign(_when=when).sort_values("_when", kind="stable").drop(columns="_when")
    else:
        frame = frame[keep]
    frame["occasion"] = frame.groupby(["item", "annotator"], sort=False).cumcount().to_numpy() + 1
    m_max = int(frame["occasion"].max()) if len(frame) else 0
    if m_max < 2:
        raise ValueError(
            "no annotator labelled an item twice: test-retest needs repeated labels of one annotator on one item "
            f"(the {label!r} column of rows with the same {item!r} and {annotator!r})"
        )
    # one composite rater per (annotator, occasion): the categories (and level checks) of the whole table
    both = frame.assign(rater=frame["annotator"].astype(str) + "\x1f" + frame["occasion"].astype(str))
    probe = Annotations.from_long(both, annotator="rater", level=level or "nominal", categories=categories)
    numeric = pd.api.types.is_numeric_dtype(probe.categories.dtype) and probe.categories.dtype != bool
    if level is None and numeric:
        level = "interval"
    level = level or "nominal"
    cats = list(probe.categories)
    # numbers at an ordered level: a kappa that counts 10 against 11 as a full disagreement means nothing beside
    # the ICC, so the kappas are weighted (as the report's kappa_weights='auto')
    weights = {"ordinal": "quadratic", "interval": "quadratic", "ratio": "ratio"}.get(level, "identity")
    weights = weights if numeric else "identity"
    intra_rows: list = []
    inter_rows: list = []
    notes: list[str] = []
    for who, rows in frame.groupby("annotator", sort=False):  # one pass per annotator, not per annotation
        with _reasons(f"annotator {who}", notes):
            intra_rows.append(_intra(who, rows, level, cats, numeric, confidence, weights))
    for k in range(1, m_max + 1):
        with _reasons(f"occasion {k}", notes):
            inter_rows.append(_inter(k, frame[frame["occasion"] == k], level, cats, numeric, confidence, weights))
    intra = pd.DataFrame(intra_rows)
    inter = pd.DataFrame(inter_rows)
    decomposition = None
    if numeric:
        decomposition, note = _decompose(frame, rho0_inter, rho0_intra, confidence)
        if note:
            notes.append(note)
    else:
        notes.insert(0, "the labels are not numbers: no ICC and no Eliasziw decomposition")
    if weights != "identity":
        notes.insert(
            0,
            f"numeric labels: the ICC and alpha read the distances between values and come first; the "
            f"kappas use {weights} weights (unweighted, any two different numbers disagree fully)",
        )
    return Retest(intra, inter, decomposition, m_max, float(confidence), notes, weights)


def _numbers_first(row: dict[str, Any]) -> dict[str, Any]:
    """For numeric labels: the ICC and alpha (which read the distances between values) before the kappas."""
    first = [c for c in row if c.startswith("icc")] + [c for c in row if c.startswith("alpha")]
    return {
        **{c: row[c] for c in row if c not in first and not c.startswith(("percent", "kappa", "fleiss"))},
        **{c: row[c] for c in first},
        **{c: row[c] for c in row if c.startswith(("percent", "kappa", "fleiss"))},
    }


def _intra(
    who: Any, rows: pd.DataFrame, level: str, cats: list, numeric: bool, confidence: float, weights: str
) -> dict:
    repeated = rows.groupby("item")["occasion"].transform("size").to_numpy() >= 2
    rows = rows[repeated]
    out: dict[str, Any] = {"annotator": who, "n_items": int(rows["item"].nunique()), "n_labels": len(rows)}
    empty = dict.fromkeys(["percent_agreement", "kappa", "kappa_se", "kappa_lower", "kappa_upper", "alpha",
                           "alpha_lower", "alpha_upper"] + (["icc", "icc_lower", "icc_upper"] if numeric else []),
                          np.nan)  # fmt: skip
    if rows.empty:
        return {**out, **empty}
    own = Annotations.from_long(rows, annotator="occasion", level=level, categories=cats)
    try:  # the mean over items of the share of agreeing pairs of occasions (every occasion, not only two)
        out["percent_agreement"] = estimate(own, "percent_agreement_weighted", confidence=confidence).estimate
    except ValueError as exc:
        _not_computed("percent agreement", exc)
        out["percent_agreement"] = np.nan
    try:  # Conger's kappa over every occasion: Cohen's kappa when there are two
        k = estimate(own, "multi_kappa", weights=weights, confidence=confidence)
        out.update(kappa=k.estimate, kappa_se=k.se, kappa_lower=k.lower, kappa_upper=k.upper)
    except ValueError as exc:
        _not_computed(f"kappa [{weights} weights]", exc)
        out.update(kappa=np.nan, kappa_se=np.nan, kappa_lower=np.nan, kappa_upper=np.nan)
    out.update(_estimate_row(own, "alpha", "krippendorff_alpha", confidence))
    if numeric:
        out.update(_icc_row(own, confidence))
    return _numbers_first(out) if numeric else out


def _inter(k: int, rows: pd.DataFrame, level: str, cats: list, numeric: bool, confidence: float, weights: str) -> dict:
    data = Annotations.from_long(rows, level=level, categories=cats)
    out: dict[str, Any] = {"occasion": k, "n_items": int(rows["item"].nunique()),
                           "n_annotators": int(rows["annotator"].nunique())}  # fmt: skip
    out.update(_estimate_row(data, "fleiss_kappa", "fleiss_kappa", confidence, weights=weights))
    out.update(_estimate_row(data, "alpha", "krippendorff_alpha", confidence))
    if numeric:
        out.update(_icc_row(data, confidence))
    return _numbers_first(out) if numeric else out


def _decompose(
    frame: pd.DataFrame, rho0_inter: float, rho0_intra: float, confidence: float
) -> tuple[dict[str, Any] | None, str]:
    """The balanced block for :func:`eliasziw`: the items every annotator rated at least m times, their first m
    occasions, with m >= 2 the number of repeats that keeps the most measurements (items × m)."""
    annotators = pd.Index(frame["annotator"].unique())
    t = annotators.size
    counts = frame.groupby(["item", "annotator"], sort=False).size().unstack(fill_value=0)
    counts = counts.reindex(columns=annotators, fill_value=0)
    fewest = counts.min(axis=1)
    full = fewest[fewest >= 2]
    if t < 2 or full.empty:
        return None, ("Eliasziw decomposition: needs at least two annotators who each rated the same items at least "
                      "twice; none are")  # fmt: skip
    # the block of most measurements: m repeats on the items every annotator rated at least m times
    sizes = np.arange(2, int(full.max()) + 1)
    used = np.array([m * int((full >= m).sum()) for m in sizes])
    m = int(sizes[np.argmax(used)])  # the first maximum: fewer repeats on more items when equal
    items = full.index[full.to_numpy() >= m]
    block = frame[frame["item"].isin(items) & (frame["occasion"] <= m)]
    i = pd.Index(items).get_indexer(block["item"])
    j = annotators.get_indexer(block["annotator"])
    k = block["occasion"].to_numpy() - 1
    y = np.empty((items.size, t, m))
    y[i, j, k] = block["label"].to_numpy(dtype=float)
    if items.size < 2:
        return None, "Eliasziw decomposition: needs at least two items rated by every annotator"
    out = eliasziw(y, rho0_inter=rho0_inter, rho0_intra=rho0_intra, confidence=confidence)
    out["raters"] = [str(a) for a in annotators]
    dropped = int(counts.shape[0] - items.size)
    note = (f"Eliasziw decomposition on {items.size} of {counts.shape[0]} items (those every annotator rated at "
            f"least {m} times; their first {m} occasions); {dropped} left out") if dropped else ""  # fmt: skip
    exact = [r for r, e in zip(out["raters"], out["mean_squares"]["error_per_rater"], strict=True) if e == 0]
    if exact:
        note = "; ".join(filter(None, [note, (
            f"Eliasziw decomposition: {', '.join(exact)} repeated every measurement exactly (replicate error 0): "
            "the intra-rater F is infinite and its lower bound undefined")]))  # fmt: skip
    return out, note


def eliasziw(y: np.ndarray, *, rho0_inter: float = 0.6, rho0_intra: float = 0.8, confidence: float = 0.95) -> dict:
    r"""Inter- and intra-rater reliability of Eliasziw et al. (1994) from a balanced n × t × m array (items ×
    raters × repeated measurements), as R irr's ``relInterIntra``.

    With the two-way ANOVA mean squares of subjects :math:`MS_S`, raters :math:`MS_R`, their interaction
    :math:`MS_{SR}` and the replicate error :math:`MS_E` (and :math:`MS_{E,j}` rater j's own), random raters:
    :math:`\hat\sigma^2_S = (MS_S - MS_{SR})/(mt)`, :math:`\hat\sigma^2_R = (MS_R - MS_{SR})/(mn)`,
    :math:`\hat\sigma^2_{SR} = (MS_{SR} - MS_E)/m`, :math:`\hat\sigma^2_e = MS_E`;

    .. math::

        \rho_{inter} = \frac{\sigma^2_S}{\sigma^2_S + \sigma^2_R + \sigma^2_{SR} + \sigma^2_e},\qquad
        \rho_{intra} = \frac{\sigma^2_S + \sigma^2_R + \sigma^2_{SR}}{\sigma^2_S + \sigma^2_R + \sigma^2_{SR}
        + \sigma^2_e}

    and the fixed-rater forms with :math:`\hat\sigma^2_S = (MS_S - MS_E)/(mt)` (Eliasziw et al., tables 2-3);
    F tests of :math:`\rho = \rho_0`, one-sided lower confidence bounds (Satterthwaite's degrees of freedom for
    the inter-rater bounds) and standard errors of measurement, all as irr computes them.
    """
    from scipy import special

    with np.errstate(divide="ignore", invalid="ignore"):  # exact repeats: an error mean square of 0 (F = inf)
        return _eliasziw(y, special, rho0_inter, rho0_intra, confidence)


def _eliasziw(y: np.ndarray, special: Any, rho0_inter: float, rho0_intra: float, confidence: float) -> dict:
    n, t, m = y.shape
    nan = float("nan")
    grand = y.mean()
    s_mean = y.mean(axis=(1, 2))
    r_mean = y.mean(axis=(0, 2))
    cell = y.mean(axis=2)
    mss = t * m * np.sum((s_mean - grand) ** 2) / (n - 1)
    msr = n * m * np.sum((r_mean - grand) ** 2) / (t - 1)
    mssr = m * np.sum((cell - s_mean[:, None] - r_mean[None, :] + grand) ** 2) / ((n - 1) * (t - 1))
    within = np.sum((y - cell[:, :, None]) ** 2, axis=(0, 2))  # per rater
    mse = float(within.sum() / (n * t * (m - 1)))
    mse_part = within / (n * (m - 1))
    s2s_r = (mss - mssr) / (m * t)
    s2r = (msr - mssr) / (m * n)
    s2sr = (mssr - mse) / m
    s2s_f = (mss - mse) / (m * t)
    top_r = s2s_r + s2r + s2sr
    top_f = s2s_f + (t - 1) * s2sr / t
    inter_r = s2s_r / (top_r + mse)
    inter_f = (s2s_f - s2sr / t) / (top_f + mse)
    nu1 = ((n - 1) * (t - 1) * (t * inter_r * (msr - mssr) + n * (1 + (t - 1) * inter_r) * mssr
           + n * t * (m - 1) * inter_r * mse) ** 2
           / ((n - 1) * (t * inter_r) ** 2 * msr**2 + (n * (1 + (t - 1) * inter_r) - t * inter_r) ** 2 * mssr**2
              + (n - 1) * (t - 1) * (n * t * (m - 1)) * inter_r**2 * mse**2))  # fmt: skip
    nu2 = ((n - 1) * (t - 1) * (n * (1 + (t - 1) * inter_f) * mssr + n * t * (m - 1) * inter_f * mse) ** 2
           / ((n * (1 + (t - 1) * inter_f)) ** 2 * mssr**2
              + (n - 1) * (t - 1) * (n * t * (m - 1)) * inter_f**2 * mse**2))  # fmt: skip
    f1 = special.fdtri(n - 1, nu1, confidence)
    f2 = special.fdtri(n - 1, nu2, confidence)
    f3 = special.fdtri(n - 1, n * (m - 1), confidence)
    low_inter_r = n * (mss - f1 * mssr) / (n * mss + f1 * (t * (msr - mssr) + n * (t - 1) * mssr
                                                           + n * t * (m - 1) * mse))  # fmt: skip
    low_inter_f = n * (mss - f2 * mssr) / (n * mss + f2 * (n * (t - 1) * mssr + n * t * (m - 1) * mse))
    f_inter = (1 - rho0_inter) * mss / ((1 + (t - 1) * rho0_inter) * mssr)
    f_intra = (1 - rho0_intra) * mss / ((1 + (m - 1) * rho0_intra) * mse * t)
    f_intra_part = (1 - rho0_intra) * mss / ((1 + (m - 1) * rho0_intra) * mse_part * t)
    return {
        "n_items": int(n),
        "n_raters": int(t),
        "n_repeats": int(m),
        "rho_inter_random": float(inter_r),
        "rho_intra_random": float(top_r / (top_r + mse)),
        "rho_inter_fixed": float(inter_f),
        "rho_intra_fixed": float(top_f / (top_f + mse)),
        "rho_intra_random_per_rater": (top_r / (top_r + mse_part)).tolist(),
        "rho_intra_fixed_per_rater": (top_f / (top_f + mse_part)).tolist(),
        "f_inter": float(f_inter),
        "p_inter": float(special.fdtrc(n - 1, (n - 1) * (t - 1), f_inter)),
        "f_intra": float(f_intra),
        "p_intra": float(special.fdtrc(n - 1, n * (m - 1), f_intra)),
        "f_intra_per_rater": f_intra_part.tolist(),
        "p_intra_per_rater": special.fdtrc(n - 1, n * (m - 1), f_intra_part).tolist(),
        "lower_inter_random": float(min(low_inter_r, 1.0)),
        "lower_inter_fixed": float(min(low_inter_f, 1.0)),
        # with a replicate error of 0 (every repeat exact) the bound inverts an infinite F: undefined
        "lower_intra": float(min((mss / t - f3 * mse) / (mss / t + f3 * (m - 1) * mse), 1.0)) if mse > 0 else nan,
        "lower_intra_per_rater": np.where(
            mse_part > 0, np.minimum((mss / t - f3 * mse_part) / (mss / t + f3 * (m - 1) * mse_part), 1.0), nan
        ).tolist(),  # fmt: skip
        "sem_intra": float(np.sqrt(mse)),
        "sem_intra_per_rater": np.sqrt(mse_part).tolist(),
        "sem_inter_random": float(np.sqrt(s2r + s2sr + mse)),
        "sem_inter_fixed": float(np.sqrt(s2sr + mse)),
        "mean_squares": {
            "subjects": float(mss),
            "raters": float(msr),
            "interaction": float(mssr),
            "error": float(mse),
            "error_per_rater": mse_part.tolist(),
        },  # fmt: skip
        "confidence": float(confidence),
    }
