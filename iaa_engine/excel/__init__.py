"""Excel worksheet functions for iaa-engine (xlwings): =SPA(range), =FLEISS(range), =COHEN(range, 1, 2), ...

The functions are written once, here, and serve classic xlwings on Windows (``excel_addin/iaa_functions.py``:
``UDF_MODULES`` + "Import Functions"), xlwings Lite (``excel_addin/lite/main.py``, which imports them from the
installed package) and xlwings Server. It is a thin surface: it turns an Excel range into
:class:`iaa_engine.Annotations` (``iaa_engine/excel/_range.py``), calls the core, and shapes the result for a cell or
a spilled range. It computes no statistics itself. One decorator, :func:`worksheet`, registers every function
(the help text of each argument, ranges read raw, every failure an Excel error value); the functions that are one
coefficient of the core's metric registry are declared from it by :func:`coefficient`.

It imports only ``xlwings``'s decorators (``xw.func``, ``xw.arg``), the BSD-licensed part of xlwings.

Conventions shared by every function (see ``excel_addin/README.md``):

* ``data``: a rating range. ``layout`` says how to read it: ``"auto"`` (default) decides from the shape of the
  filled range (after its headers): more rows than columns is one item per row (as ``"columns"``), more columns
  than rows is one annotator per row (as ``"rows"``, the classroom layout); a square range, or one that looks like
  a count table, is ``#VALUE!`` with the reason instead of a guess. ``"rows"`` (one row per annotator, one column
  per item), ``"columns"`` (one column per annotator) or ``"counts"`` (an items × categories table of how many
  annotators chose each category) say it explicitly and are never second-guessed.
* The range is trimmed to its used part first: trailing rows and columns that are entirely blank are dropped (a
  whole-column reference such as ``A:C`` costs what its filled rows cost); leading blank lines stay, so items and
  annotators keep their positions.
* ``headers``: FALSE (default) -- every cell is data; TRUE -- the range includes its headers: the first row
  and the first column hold names (annotators and items; for ``"counts"``: categories and items);
  ``"annotators"`` -- only the annotator names (first column for ``rows``, first row for ``columns``);
  ``"items"`` -- only the item names. With ``"auto"`` and one header line, the orientation is the one whose body
  (the range without that line) has the shape that orientation stands for.
* ``weights`` (the weighted coefficients): a family of agreement weights between categories, by name
  (:data:`iaa_engine.AGREEMENT_WEIGHTS`); numeric labels use their values; text labels have no order to weigh by
  and give ``#VALUE!`` (never their alphabetical positions): code ordered categories as numbers.
* Blank cells are missing annotations. Labels are numbers when every label cell is a number or text that spells
  a number plainly (``'1`` is the number 1; the numeric cells 1 and 1.0 are one label); when every label cell is
  text and one of them is not a plain number (``yes``, or ``01``: a number written with a leading zero is a code),
  the labels are the texts as written, as the core reads a text column (``01`` and ``1`` are two categories at the
  nominal level); numbers beside such text are ``#VALUE!`` (see ``_range.labels``). The data range is read raw and
  each runtime's cell encoding is handled in ``_range.raw``.
* Results: a number, or a spilled range. An undefined coefficient (expected agreement 1, no item with two
  annotations, an empty range) is ``#DIV/0!``. Input that cannot be read, an unknown option name, or a range
  whose orientation ``"auto"`` cannot tell (square, or a count table) is ``#VALUE!``; an annotator that is not
  in the data is ``#N/A``; an error cell in the data is passed on.
  The reason is logged (the xlwings Lite output pane or the xlwings log shows it), never a traceback in a cell.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import iaa_engine as ie
from iaa_engine.excel._range import (
    PAIR_METRICS,
    UNDEFINED,
    ExcelError,
    along_items,
    cell,
    confidence_option,
    fraction,
    icc_form,
    is_error,
    known_found,
    known_labels,
    log,
    metric_option,
    option,
    out,
    pick_pair,
    raw,
    read,
    scalar,
    separator,
    whole,
)

try:
    import xlwings as xw
except ImportError as exc:  # pragma: no cover - the excel extra is not installed
    raise ImportError("the Excel worksheet functions need xlwings: pip install 'iaa-engine[excel]'") from exc

#: The worksheet functions, as :func:`worksheet` registers them: what ``from iaa_engine.excel import *`` brings into
#: ``excel_addin/iaa_functions.py`` and xlwings Lite's ``main.py``, where xlwings finds and registers them.
__all__: list[str] = []

# ----------------------------------------------------------------------------- help texts (function wizard)

DOC_DATA = (
    "Rating range (blank = missing): one item per row or one annotator per row, told apart by the shape; "
    "trailing blank rows and columns are ignored. See layout and headers."
)
_DOC_AUTO = (
    '"auto" (default): more rows than columns = one item per row, more columns than rows = one annotator per row; '
    "a square range or a count table needs an explicit layout."
)
DOC_LAYOUT = (
    _DOC_AUTO + ' "rows": annotators in rows, "columns": annotators in columns, "counts": items x categories counts.'
)
DOC_LAYOUT_NO_COUNTS = _DOC_AUTO + ' "rows": annotators in rows, "columns": annotators in columns.'
DOC_HEADERS = (
    "FALSE (default): no headers. TRUE: first row and first column hold names. "
    '"annotators" or "items": only that one header line.'
)
DOC_ANN = "Annotator: its name (with headers) or its position, 1 = first. Optional when there are two."
DOC_SCHEME = 'SPA weighting: "annotations_m1" (default), "flat", "annotations", "edges", "inv_var", "inv_var_class".'
DOC_LEVEL = '"nominal" (default), "ordinal", "interval" or "ratio".'
DOC_RULE = '"majority" (default), "diff", "rat", "com", "inv" (bias-correcting rules) or "dawid_skene".'
DOC_SEP = 'Separator between tied labels (default "|").'
_DOC_FAMILIES = '"linear", "ordinal", "radical", "ratio", "circular", "bipolar"'
DOC_WEIGHTS = (
    f'Agreement weights: "quadratic" (default), "identity" (unweighted), {_DOC_FAMILIES}. '
    "Numeric labels use their values; text labels give #VALUE! (code ordered categories as numbers)."
)
DOC_WEIGHTS_EST: str = (
    f'Agreement weights: "identity" (default: unweighted), "quadratic", {_DOC_FAMILIES}. Not for an ICC.'
)
DOC_FORM = (
    '"ICC(2,1)" (default), "ICC(1,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"; McGraw & Wong '
    '("ICC(A,1)", "ICC(C,k)", ...) and psych names ("ICC2", "ICC3k", ...) work too.'
)
DOC_METRIC = (
    '"fleiss_kappa" (default), "gwet_ac1" (AC2 when weighted), "brennan_prediger", "multi_kappa" (Conger), '
    '"percent_agreement_weighted", "cohen_kappa", "scott_pi", "krippendorff_alpha" (jackknife SE), or an ICC form '
    'such as "ICC(2,1)".'
)
DOC_CONFIDENCE = "Coverage of the interval, between 0 and 1 (default 0.95, i.e. 95%)."
DOC_ANN_EST = "cohen_kappa and scott_pi only: " + DOC_ANN
DOC_TOP = "List only this many (default: all). The ranking is over all of them."
DOC_ITEMS_PER_PAIR = "List at most this many items behind each pair, the largest contributions first (default: all)."
DOC_GOLD = (
    'Gold labels: "majority" (default), "dawid_skene", or a range of known labels: one cell per item aligned '
    "with the items (blank = not known), or a two-column table of item names and labels."
)
DOC_KNOWN = (
    "Known labels (gold questions): one cell per item aligned with the items of data (blank = not known), "
    "or a two-column table of item names and labels."
)
DOC_MIN_ITEMS = "Annotators with fewer items shared with others are never flagged (default 20)."
DOC_THRESHOLD = "The accuracy an annotator needs, between 0 and 1 (default 0.8)."
DOC_SCALE = '"landis_koch" (default), "fleiss", "altman" or "krippendorff" (0.667 / 0.800).'
DOC_BENCH_THRESHOLD = "The probability the reading must reach, in (0, 1] (default 0.95)."
DOC_METRIC_BENCH = (
    DOC_METRIC.replace(', or an ICC form such as "ICC(2,1)"', "") + " Not an ICC (IAA_ESTIMATE gives its interval)."
)

#: The help text of each argument, by its name; a function's own ``docs`` (see :func:`worksheet`) win.
ARG_DOCS = {
    "data": DOC_DATA,
    "headers": DOC_HEADERS,
    "annotator_a": DOC_ANN,
    "annotator_b": DOC_ANN,
    "scheme": DOC_SCHEME,
    "level": DOC_LEVEL,
    "rule": DOC_RULE,
    "sep": DOC_SEP,
    "weights": DOC_WEIGHTS,
    "form": DOC_FORM,
    "metric": DOC_METRIC,
    "confidence": DOC_CONFIDENCE,
    "top": DOC_TOP,
    "items_per_pair": DOC_ITEMS_PER_PAIR,
    "gold": DOC_GOLD,
    "known": DOC_KNOWN,
    "min_items": DOC_MIN_ITEMS,
    "threshold": DOC_THRESHOLD,
    "scale": DOC_SCALE,
}
#: Arguments that are ranges, read raw: xlwings's per-cell cleaning is skipped (it costs seconds on a large range),
#: ``_range.raw`` reads each runtime's cell encoding. Every other argument is one cell, an error value as its text.
RANGES = ("data", "gold", "known", "data_b", "model", "judge")
#: IAA_ESTIMATE's and IAA_BENCHMARK's help for the arguments they share.
_ESTIMATE_DOCS: dict[str, Any] = {"weights": DOC_WEIGHTS_EST, "annotator_a": DOC_ANN_EST, "annotator_b": DOC_ANN_EST}


def worksheet(*, counts: bool = True, **docs: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The decorator that makes a function a worksheet function: the one wrapper of every function of the add-in.

    Every parameter gets its help text (``docs``, else :data:`ARG_DOCS`; the help of ``layout`` says whether the
    function reads count tables, as ``counts`` says), ranges (:data:`RANGES`) are read raw, the function joins
    ``__all__``, and every failure becomes an Excel error value: an :class:`~iaa_engine.excel._range.ExcelError` its
    own value, bad input (``ValueError``, ``TypeError``, ``KeyError``) and anything unexpected ``#VALUE!``, with the
    reason logged -- never a traceback in a cell.
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
                    return fn(*args, **kwargs)
            except ExcelError as e:
                if e.value != UNDEFINED or str(e):
                    log.warning("%s: %s", fn.__name__, e)
                return e.value
            except (ValueError, TypeError, KeyError) as e:
                log.warning("%s: %s", fn.__name__, e)
                return "#VALUE!"
            except Exception as e:  # noqa: BLE001 - a worksheet function must not leak a traceback into a cell
                log.warning("%s: unexpected %s: %s", fn.__name__, type(e).__name__, e)
                return "#VALUE!"

        __all__.append(fn.__name__)
        layout = DOC_LAYOUT if counts else DOC_LAYOUT_NO_COUNTS
        for param in inspect.signature(fn).parameters:
            doc = docs.get(param) or (layout if param == "layout" else ARG_DOCS[param])
            if param in RANGES:
                xw.arg(param, "raw", doc=doc)(call)
            else:
                xw.arg(param, err_to_str=True, doc=doc)(call)
        return xw.func(call)

    return register


# ----------------------------------------------------------------------------- one coefficient each

#: The options a coefficient function takes between ``data`` and ``layout``: the Excel argument -> the core's
#: keyword and how its cell is read.
_OPTIONS: dict[str, tuple[str, Callable[[Any], str]]] = {
    "level": ("level", lambda v: option(v, "level", ie.LEVELS, "nominal")),
    "scheme": ("weights", lambda v: option(v, "scheme", ie.SPA_WEIGHTS, "annotations_m1")),
    "weights": ("weights", lambda v: option(v, "weights", ie.AGREEMENT_WEIGHTS, "quadratic")),
}
_REGISTRY = {spec.name: spec for spec in ie.METRICS}


def coefficient(
    excel_name: str, metric: str | Callable[..., float], summary: str, *options: str, pair: bool = False
) -> Callable[..., Any]:
    """A worksheet function that is one coefficient of the core: ``EXCEL_NAME(data, *options, [annotator_a,
    annotator_b,] layout, headers)`` -> ``metric(the range's Annotations, ...)`` as a number.

    ``metric`` is a name in the core's metric registry (:data:`iaa_engine.METRICS`: its function, and whether it
    needs annotators, i.e. refuses a count table) or a function of the core; ``options`` are keys of
    :data:`_OPTIONS`; ``pair``: the coefficient compares two annotators (``annotator_a``, ``annotator_b``, by name
    or position, both optional when the range has two), which a count table cannot give. ``summary`` is the
    function's help in Excel.
    """
    if isinstance(metric, str):
        spec = _REGISTRY[metric]
        compute, counts = spec.function, not spec.needs_annotators
    else:
        compute, counts = metric, not pair
    names = ["data", *options, *(("annotator_a", "annotator_b") if pair else ()), "layout", "headers"]
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature(
        [inspect.Parameter(n, kind, default=inspect.Parameter.empty if n == "data" else None) for n in names]
    )

    def function(*args, **kwargs):
        given = signature.bind(*args, **kwargs)
        given.apply_defaults()
        arg = given.arguments
        kw = {_OPTIONS[o][0]: _OPTIONS[o][1](arg[o]) for o in options}  # the options first, in order
        d, _, _ = read(
            arg["data"], arg["layout"], arg["headers"], allow_counts=counts, level=kw.get("level", "nominal")
        )
        who = pick_pair(d, arg["annotator_a"], arg["annotator_b"]) if pair else ()
        return scalar(compute(d, *who, **kw))

    function.__name__ = function.__qualname__ = excel_name
    function.__doc__ = summary
    setattr(function, "__signature__", signature)
    return worksheet(counts=counts)(function)


SPA = coefficient(
    "SPA",
    ie.spa,
    "Sparse Probability of Agreement: weighted mean item agreement over items with 2+ annotations.",
    "scheme",
)
FLEISS = coefficient("FLEISS", "fleiss_kappa", "Fleiss' kappa of all annotators (any number of annotations per item).")
COHEN = coefficient(
    "COHEN", ie.cohen_kappa, "Cohen's kappa between two annotators on the items both annotated.", pair=True
)
SCOTTPI = coefficient(
    "SCOTTPI", ie.scott_pi, "Scott's pi between two annotators on the items both annotated.", pair=True
)
KALPHA = coefficient(
    "KALPHA",
    "krippendorff_alpha",
    "Krippendorff's alpha (nominal, ordinal, interval or ratio) with missing data.",
    "level",
)
MULTIKAPPA = coefficient(
    "MULTIKAPPA",
    "multi_kappa",
    "Multi-coder kappa (Artstein & Poesio; Conger): pairwise Cohen-style expected agreement.",
)
ANNOTATOR_BIAS = coefficient(
    "ANNOTATOR_BIAS",
    "bias",
    "Annotator bias B: how much the annotators' label distributions differ (Artstein & Poesio).",
)
PERCENT_AGREEMENT = coefficient(
    "PERCENT_AGREEMENT",
    "percent_agreement",
    "Share of items (with 2+ annotations) on which all annotators gave the same label.",
)
GWET_AC1 = coefficient("GWET_AC1", "gwet_ac1", "Gwet's AC1 agreement coefficient, with missing data.")
COHEN_WEIGHTED = coefficient(
    "COHEN_WEIGHTED",
    ie.cohen_kappa,
    "Weighted Cohen's kappa (quadratic weights by default) between two annotators on the items both annotated.",
    "weights",
    pair=True,
)
FLEISS_WEIGHTED = coefficient(
    "FLEISS_WEIGHTED",
    "fleiss_kappa",
    "Weighted Fleiss' kappa of all annotators (quadratic weights by default; any number of annotations per item).",
    "weights",
)
GWET_WEIGHTED = coefficient(
    "GWET_WEIGHTED",
    "gwet_ac1",
    "Gwet's AC2, the weighted AC1 (quadratic weights by default), with missing data.",
    "weights",
)


# ----------------------------------------------------------------------------- tables and per-item results


@worksheet(counts=False)
def KAPPA_MATRIX(data, layout=None, headers=None):
    """Cohen's kappa for every pair of annotators; spills a table with the annotator names as headers."""
    d, _, _ = read(data, layout, headers, allow_counts=False)
    m = ie.cohen_kappa_matrix(d)
    names = list(m.annotators)
    table: list[list[Any]] = [["Cohen's kappa", *names]]
    for who, row in zip(names, m.values):
        table.append([who, *[scalar(v) for v in row]])
    return table


@worksheet()
def ITEM_AGREEMENT(data, layout=None, headers=None):
    """Agreement P_i of every item (share of agreeing annotation pairs); spills one value per item."""
    d, items, lay = read(data, layout, headers)
    p = ie.item_agreement(d)
    return along_items([scalar(p.get(it, np.nan)) for it in items], lay)


@worksheet()
def GOLD(data, rule=None, layout=None, headers=None, sep=None):
    """Gold label of every item (ties kept, joined by sep); spills one value per item."""
    r = option(rule, "rule", ie.GOLD_RULES, "majority")
    joiner = separator(sep)
    d, items, lay = read(data, layout, headers)
    gold = ie.gold_standard(d, rule=r, progress=False).labels
    by_item: dict[Any, list[Any]] = {}
    for it, lab in zip(gold["item"], gold["label"]):
        by_item.setdefault(it, []).append(cell(lab) if not isinstance(lab, str) else lab)
    labels = []
    for it in items:
        labs = by_item.get(it)
        if not labs:
            labels.append("#N/A")
        elif len(labs) == 1:
            labels.append(labs[0])
        else:
            labels.append(joiner.join(str(x) for x in labs))
    return along_items(labels, lay)


@worksheet(counts=False, rule='"diff", "rat", "com" or "inv".')
def BCR_WEIGHTS(data, rule=None, layout=None, headers=None):
    """Bias-correcting weights w_ik (annotators x categories) of the rule; spills a table with headers."""
    r = option(rule, "rule", ("diff", "rat", "com", "inv"), "rat")
    d, _, _ = read(data, layout, headers, allow_counts=False)
    w = ie.bcr_weights(d, r)
    table: list[list[Any]] = [[f"w ({r})", *[cell(c) for c in w.columns]]]
    for who, row in zip(w.index, w.to_numpy()):
        table.append([who, *[scalar(v) for v in row]])
    return table


_REPORT_ROWS = [
    ("Items", "n_items"),
    ("Annotators", "n_annotators"),
    ("Annotations", "n_annotations"),
    ("Categories", "n_categories"),
    ("Items excluded (fewer than 2 annotations)", "n_items_excluded"),
    *((spec.label, spec.name) for spec in ie.METRICS),  # the core's metric registry: its labels, its order
]


@worksheet(level=DOC_LEVEL + " Used for Krippendorff's alpha.")
def IAA_REPORT(data, layout=None, headers=None, level=None):
    """Every agreement metric of the range; spills a two-column table (metric, value)."""
    lev = option(level, "level", ie.LEVELS, "nominal")
    d, _, _ = read(data, layout, headers, level=lev)
    rep = ie.report(d, pairwise=False)
    flat = rep.to_dict()
    table: list[list[Any]] = [["Metric", "Value"]]
    for label, key in _REPORT_ROWS:
        v = flat.get(key)
        if key.startswith("n_"):
            table.append([label, "#N/A" if v is None else v])
        else:
            title = f"{label} [{rep.level}]" if key == "krippendorff_alpha" else label
            table.append([title, scalar(np.nan if v is None else v)])
    for scheme, v in rep.spa.items():
        table.append([f"SPA [{scheme}]", scalar(v)])
    return table


# ----------------------------------------------------------------------------- ICC and inference


@worksheet(counts=False)
def INTRACLASS(data, form=None, layout=None, headers=None):
    """Intraclass correlation of numeric ratings, Shrout & Fleiss's forms (default ICC(2,1): two-way, agreement)."""
    f = icc_form(form, "form", "ICC(2,1)")
    d, _, _ = read(data, layout, headers, allow_counts=False)
    return scalar(ie.icc(d, f).estimate)


def _no_pair(m: str, annotator_a: Any, annotator_b: Any) -> bool:
    """Whether ``m`` compares two annotators; #VALUE! when annotators are named for a coefficient of all."""
    if (annotator_a is not None or annotator_b is not None) and m not in PAIR_METRICS:
        raise ExcelError("#VALUE!", f"annotator_a and annotator_b are for cohen_kappa and scott_pi, not {m}")
    return m not in PAIR_METRICS


def _estimate(data: Any, m: str, w: str, a: Any, b: Any, layout: Any, headers: Any, **kw: Any) -> Any:
    """``iaa_engine.estimate`` of a kappa-family coefficient (or alpha) on the range: count tables only for a
    coefficient of all annotators that can read them, the two annotators of a pair coefficient picked."""
    whole_set = _no_pair(m, a, b)
    d, _, _ = read(data, layout, headers, allow_counts=whole_set and m != "multi_kappa")
    a, b = (None, None) if whole_set else pick_pair(d, a, b)
    return ie.estimate(d, m, weights=w, annotator_a=a, annotator_b=b, **kw)


@worksheet(layout=DOC_LAYOUT + " Not for multi_kappa, cohen_kappa, scott_pi or an ICC.", **_ESTIMATE_DOCS)
def IAA_ESTIMATE(
    data,
    metric=None,
    weights=None,
    confidence=None,
    annotator_a=None,
    annotator_b=None,
    layout=None,
    headers=None,
):
    """A coefficient with its standard error, confidence interval, p-value and items; spills 6 rows x 2 columns."""
    m, is_icc = metric_option(metric)
    conf = confidence_option(confidence)
    w = option(weights, "weights", ie.AGREEMENT_WEIGHTS, "identity")
    if is_icc:
        _no_pair(m, annotator_a, annotator_b)
        if w != "identity":
            raise ExcelError("#VALUE!", f"weights are for the kappa family; {m} takes none (got {weights!r})")
        d, _, _ = read(data, layout, headers, allow_counts=False)
        e = ie.icc(d, m, confidence=conf)  # its interval is the F interval; its SE the delta method's
    else:
        e = _estimate(data, m, w, annotator_a, annotator_b, layout, headers, confidence=conf)
    se = scalar(e.se)
    pct = f"{conf * 100:g}%"
    return [
        [f"Estimate ({e.metric})", scalar(e.estimate)],
        ["Standard error", se],
        [f"Lower {pct}", scalar(e.lower)],
        [f"Upper {pct}", scalar(e.upper)],
        ["p-value", scalar(e.p_value)],
        ["Items", int(e.n_items)],
    ]


# ----------------------------------------------------------------------------- after the number: what to do next

GOLD_RULES_SCORECARD = ("majority", "dawid_skene")
BENCHMARK_SCALES = tuple(ie.BENCHMARK_SCALES)
_SCALE_TITLES = {"landis_koch": "Landis-Koch", "fleiss": "Fleiss", "altman": "Altman", "krippendorff": "Krippendorff"}


@worksheet(counts=False, level=DOC_LEVEL + " Used for the alpha columns.")
def ANNOTATORS(data, gold=None, level=None, min_items=None, layout=None, headers=None):
    """A scorecard per annotator (agreement and kappa with the others, accuracy vs gold, alpha without them,
    flag); spills a table with a header row."""
    lev = option(level, "level", ie.LEVELS, "nominal")
    least = whole(min_items, "min_items")
    d, items, _ = read(data, layout, headers, allow_counts=False, level=lev)
    g = raw(gold)
    source: Any
    if g is None or (isinstance(g, str) and not is_error(g)):
        rule = None if g is None else g.strip().lower().replace("-", "_")
        if rule not in (None, "", *GOLD_RULES_SCORECARD):
            raise ExcelError(
                "#VALUE!", f'gold must be "majority", "dawid_skene" or a range of known labels; got {gold!r}'
            )
        source = rule or "majority"
    else:
        source = known_labels(gold, items, d, "gold")
        known_found(ie.gold_accuracy(d, source), source, "gold")
    kw: dict[str, Any] = {} if least is None else {"min_items": least}
    card = ie.annotator_report(d, gold=source, level=lev, pairwise=False, progress=False, **kw)
    pct = f"{card.confidence * 100:g}%"
    columns = [
        ("Annotator", "annotator"),
        ("Items", "n_items"),
        ("Shared items", "n_pairable"),
        ("Agreement", "agreement"),
        (f"Agreement lower {pct}", "agreement_lower"),
        (f"Agreement upper {pct}", "agreement_upper"),
        ("Kappa", "kappa"),
        (f"Kappa lower {pct}", "kappa_lower"),
        (f"Kappa upper {pct}", "kappa_upper"),
        (f"Gold items ({card.gold})", "n_gold"),
        ("Accuracy", "accuracy"),
        (f"Accuracy lower {pct}", "accuracy_lower"),
        (f"Accuracy upper {pct}", "accuracy_upper"),
        ("Gold kappa", "gold_kappa"),
        (f"Alpha without [{card.level}]", "alpha_without"),
        ("Alpha change", "alpha_change"),
        ("Label TVD", "tvd"),
        ("Label chi-square p", "chi2_p"),
        ("Competence (MACE)", "competence"),
        ("Flag", "flag"),
    ]
    t = card.table
    table: list[list[Any]] = [[label for label, _ in columns]]
    for row in zip(*(t[key].tolist() for _, key in columns)):
        table.append([out(v) for v in row])
    return table


@worksheet()
def DISAGREEMENTS(data, top=None, layout=None, headers=None):
    """The items to adjudicate, most unsettled first (agreement, tie, Dawid-Skene entropy) with their labels;
    spills a table with a header row."""
    n = whole(top, "top")
    d, _, lay = read(data, layout, headers)
    res = ie.disagreements(d, top=n, progress=False)
    f = res.to_frame()
    table: list[list[Any]] = [
        ["Rank", "Item", "Annotations", "Agreement", "Tied", "Entropy (Dawid-Skene)", "Labels", "Annotators"]
    ]
    for r in f.itertuples(index=False):
        table.append(
            [
                int(r.rank),
                out(r.item),
                int(r.n_annotations),
                out(r.agreement),
                bool(r.tie),
                out(r.entropy) if res.dawid_skene else "#N/A",
                r.labels,
                "#N/A" if lay == "counts" else r.annotators,
            ]
        )
    return table


@worksheet(sep='Separator between the items of a pair (default "|").')
def CONFUSED_PAIRS(data, top=None, items_per_pair=None, layout=None, headers=None, sep=None):
    """The label pairs annotators confuse most (coincidences over chance), with the items behind each; spills a
    table with a header row."""
    n = whole(top, "top")
    per_pair = whole(items_per_pair, "items_per_pair")
    joiner = separator(sep)
    d, _, _ = read(data, layout, headers)
    res = ie.disagreements(d, top=n, items_per_pair=per_pair, dawid_skene=False, progress=False)
    behind = res.pair_items.groupby("pair", sort=False)["item"].agg(lambda v: joiner.join(map(str, v)))
    table: list[list[Any]] = [
        ["Rank", "Label A", "Label B", "Observed", "Expected", "Ratio", "Share", "Items", "Items behind"]
    ]
    for r in res.pairs.itertuples(index=False):
        table.append(
            [
                int(r.rank),
                out(r.label_a),
                out(r.label_b),
                out(r.observed),
                out(r.expected),
                out(r.ratio),
                out(r.share),
                int(r.n_items),
                behind.get(r.rank, ""),
            ]
        )
    return table


@worksheet(counts=False)
def GOLD_ACCURACY(data, known=None, threshold=None, confidence=None, layout=None, headers=None):
    """Each annotator's accuracy on the gold questions with Wilson's interval and pass/fail; spills a table with a
    header row."""
    thr = fraction(threshold, "threshold", 0.8)
    conf = confidence_option(confidence)
    if raw(known) is None:
        raise ExcelError("#VALUE!", "give the known labels (gold questions) as the second argument")
    d, items, _ = read(data, layout, headers, allow_counts=False)
    labels = known_labels(known, items, d)
    acc = ie.gold_accuracy(d, labels, threshold=thr, confidence=conf)
    known_found(acc, labels)
    pct = f"{conf * 100:g}%"
    table: list[list[Any]] = [
        ["Annotator", "Gold questions", "Correct", "Accuracy", f"Lower {pct}", f"Upper {pct}", "Passed", "Status"]
    ]
    for r in acc.table.itertuples(index=False):
        table.append(
            [
                out(r.annotator),
                int(r.n_gold),
                int(r.n_correct),
                out(r.accuracy),
                out(r.lower),
                out(r.upper),
                bool(r.passed),
                r.status,
            ]
        )
    return table


@worksheet(
    metric=DOC_METRIC_BENCH,
    threshold=DOC_BENCH_THRESHOLD,
    layout=DOC_LAYOUT + " Not for multi_kappa, cohen_kappa or scott_pi.",
    **_ESTIMATE_DOCS,
)
def IAA_BENCHMARK(
    data,
    metric=None,
    scale=None,
    weights=None,
    threshold=None,
    annotator_a=None,
    annotator_b=None,
    layout=None,
    headers=None,
):
    """A coefficient read on a benchmark scale with the probability of each band (Gwet's probabilistic
    benchmarking); spills the reading and its probability above the bands."""
    m, is_icc = metric_option(metric)
    if is_icc:
        raise ExcelError(
            "#VALUE!",
            f"IAA_BENCHMARK reads a kappa-family coefficient or krippendorff_alpha on an agreement scale; got the "
            f"intraclass correlation {m} (its estimate and F interval: IAA_ESTIMATE)",
        )
    sc = option(scale.replace("-", "_") if isinstance(scale, str) else scale, "scale", BENCHMARK_SCALES, "landis_koch")
    thr = fraction(threshold, "threshold", 0.95, low_open=True)
    w = option(weights, "weights", ie.AGREEMENT_WEIGHTS, "identity")
    e = _estimate(data, m, w, annotator_a, annotator_b, layout, headers)
    r = ie.benchmark_reading(e, scale=sc, threshold=thr)
    title = _SCALE_TITLES.get(sc, sc)
    lowest = ie.BENCHMARK_SCALES[sc][-1][2]  # "Poor or better" says nothing: the lowest band is read as itself
    table: list[list[Any]] = [
        [f"Estimate ({e.metric})", scalar(r.estimate), "Standard error", scalar(r.se), ""],
        [
            f"Reading ({title})",
            "#N/A" if r.reading is None else r.reading if r.reading == lowest else f"{r.reading} or better",
            "Probability",
            scalar(r.probability),
            "",
        ],
        ["Point estimate in", "#N/A" if r.point_band is None else r.point_band, "Threshold", r.threshold, ""],
        [f"Band ({title})", "Lower", "Upper", "Probability", "Cumulative"],
    ]
    for lo, hi, band, p, c in r.bands.itertuples(index=False, name=None):
        table.append([band, float(lo), float(hi), scalar(p), scalar(c)])
    return table


# ----------------------------------------------------------------------------- further topics (one module each)

from iaa_engine.excel._compare import IAA_COMPARE  # noqa: E402, F401  (the difference of a coefficient, two ranges)
from iaa_engine.excel._judges import ALT_TEST, JUDGE_ACCURACY  # noqa: E402, F401  (can a model replace the humans?)
from iaa_engine.excel._plan import IAA_SAMPLE_SIZE, IAA_SAMPLE_SIZE_SIM  # noqa: E402, F401  (planning a study: ie.plan)
from iaa_engine.excel._rankings import KENDALL_W, KENDALL_W_TEST  # noqa: E402, F401  (Kendall's W of rankings)
from iaa_engine.excel._spans import UALPHA  # noqa: E402, F401  (unitizing alpha of a spans table)
