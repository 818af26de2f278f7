"""The worksheet functions of the core's coefficients, tables and reports (=SPA(range), =FLEISS(range),
=COHEN(range, 1, 2), =IAA_REPORT(range), ...), each registered by :func:`~iaa_engine.excel._worksheet.worksheet`;
the conventions they share are in the package's docstring (``iaa_engine/excel/__init__.py``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

import iaa_engine as ie
from iaa_engine.excel._range import (
    PAIR_METRICS,
    ExcelError,
    along_items,
    cell,
    confidence_option,
    fraction,
    icc_form,
    is_error,
    known_found,
    known_labels,
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
from iaa_engine.excel._worksheet import (
    _ESTIMATE_DOCS,
    DOC_BENCH_THRESHOLD,
    DOC_LAYOUT,
    DOC_LEVEL,
    DOC_METRIC_BENCH,
    worksheet,
)

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
