"""A self-contained HTML agreement report: the numbers of :func:`report` and :func:`bootstrap`, and pictures.

:func:`write_html_report` writes one HTML file that needs nothing else to be
read: the style sheet is embedded and every picture is an inline SVG drawn
by :mod:`iaa_engine.reporting._draw` (plain string building: no plotting
library, no script, no font or file fetched from anywhere); this module lays
out the page and maps the report onto those charts. The pictures are

a. the annotator × annotator Cohen's kappa heatmap,
b. the distribution of per-item agreement,
c. item agreement against the number of annotations per item,
d. Krippendorff's coincidence matrix (which categories are confused),
e. the bootstrap confidence intervals as a forest plot,
f. the analytic intervals as a forest plot (where the report computed them).

A picture that does not apply to the data (e.g. the heatmap of a count table,
which has no annotator identities) is replaced by one line saying why. Every
name that comes from the data (items, annotators, categories) is escaped with
:func:`html.escape`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from iaa_engine.analysis._disagreements import Disagreements, disagreements
from iaa_engine.analysis._scorecard import AnnotatorReport, annotator_report, coincidences_by_pattern, flag_legend
from iaa_engine.base._params import PARAMS, AnyOf, Exactly, Instance, NoneOr, validate
from iaa_engine.base._results import PairwiseMatrix
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.metrics._agreement import SPA_WEIGHTS, item_agreement
from iaa_engine.metrics._alpha import coincidence_matrix
from iaa_engine.metrics._registry import REPORT_METRICS, metric_spec
from iaa_engine.reporting._draw import (
    FONT,
    INK,
    MISSING,
    MUTED,
    count_heatmap,
    group_summary_plot,
    histogram,
    interval_plot,
    pair_heatmap,
)
from iaa_engine.reporting._report import Report
from iaa_engine.reporting._report import report as _report

if TYPE_CHECKING:  # the bootstrap is imported when the page runs one (a report usually brings its intervals)
    from iaa_engine.inference._inference import BootstrapResult

#: What ``n_boot=`` of the page accepts: 0 draws no interval.
N_BOOT = NoneOr(AnyOf(Exactly(0, "0"), PARAMS["n_boot"], what=f"0 (no bootstrap) or {PARAMS['n_boot'].description}"))

#: What ``report=`` accepts: a report computed once by the caller, or None to compute it here.
REPORT = NoneOr(Instance(Report, "an iaa_engine.Report (from iaa_engine.report)"))

__all__ = ["render_html_report", "write_html_report"]

_REGISTERED = {s.name for s in REPORT_METRICS}

#: Coverage of the bootstrap intervals the page computes itself (``n_boot=``; a given report keeps its own).
CONFIDENCE = 0.95
#: The kappa heatmap shows at most this many annotators (those with the most annotations).
HEATMAP_MAX_ANNOTATORS = 60
#: Up to this many annotators (or categories) the heatmap cells carry their numbers.
CELL_NUMBERS_MAX = 15
#: Names longer than this are shortened on the axes (the full name is in the cell's tooltip).
NAME_MAX_CHARS = 18
#: The list of items to adjudicate shows this many items, the confused pairs this many pairs, each with this many
#: of its items (the rest are counted).
ADJUDICATE_ITEMS = 25
ADJUDICATE_PAIRS = 40
PAIR_ITEMS_SHOWN = 12
#: Up to this many annotations the page ranks the items with the Dawid-Skene entropy too (its EM costs more than the
#: rest of the page on large data; ``iaa disagreements FILE`` always uses it).
HTML_DAWID_SKENE_MAX = 200_000
#: The annotator scorecard's chart and table show this many annotators (flagged first, then the lowest kappa).
SCORECARD_ROWS = 40
#: Above this many categories the coincidence matrix (picture d) is not drawn.
COINCIDENCES_MAX_CATEGORIES = 80


_GROUP_TITLES = {"raw": "Raw agreement", "chance": "Chance-corrected agreement", "bias": "Annotator bias"}
# sections of the metrics table, from the registry (SPA's schemes join the raw agreement)
_GROUPS = tuple(
    (
        title,
        tuple(
            [s.name for s in REPORT_METRICS if s.group == key]
            + ([f"spa[{w}]" for w in SPA_WEIGHTS] if key == "raw" else [])
        ),
    )
    for key, title in _GROUP_TITLES.items()
)

_CSS = f"""
:root {{ color-scheme: light; }}
* {{ box-sizing: border-box; }}
body {{ font-family: {FONT}; color: {INK}; background: #f4f5f7; margin: 0; line-height: 1.45; }}
main {{ max-width: 1100px; margin: 0 auto; padding: 24px 28px 40px; background: #fff; }}
h1 {{ font-size: 26px; margin: 4px 0 2px; }}
h2 {{ font-size: 20px; margin: 30px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #e6e8eb; }}
h3 {{ font-size: 16px; margin: 0 0 6px; }}
p.lead {{ color: {MUTED}; margin: 0 0 16px; }}
.cards {{ display: grid; grid-template-columns: repeat(6, 1fr); gap: 10px; margin: 12px 0 8px; }}
.card {{ border: 1px solid #e2e5e9; border-radius: 8px; padding: 8px 12px; background: #fafbfc; }}
.card .v {{ font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }}
.card .k {{ font-size: 12.5px; color: {MUTED}; }}
p.categories {{ font-size: 14px; margin: 6px 0 0; }}
table.metrics {{ border-collapse: collapse; width: 100%; font-size: 14px; }}
table.metrics th, table.metrics td {{ padding: 5px 9px; border-bottom: 1px solid #eceef1; text-align: left;
  vertical-align: top; }}
table.metrics th {{ background: #f2f4f7; font-weight: 600; }}
table.metrics td.num, table.metrics th.num {{ text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap; }}
table.metrics tr.group td {{ background: #fafbfc; font-weight: 600; color: #444; padding-top: 9px; }}
table.metrics tr.headline td.metric {{ font-weight: 600; }}
table.metrics code {{ font-size: 12px; color: {MUTED}; }}
table.metrics span.method {{ display: block; font-size: 11.5px; color: {MUTED}; }}
table.metrics td.interval {{ white-space: normal; min-width: 6.5em; }}
div.wide {{ overflow-x: auto; }}
.undefined {{ color: {MISSING}; font-style: italic; }}
td.note {{ font-size: 12.5px; color: {MUTED}; max-width: 330px; }}
figure {{ margin: 0 0 22px; padding: 14px 16px 10px; border: 1px solid #e2e5e9; border-radius: 10px; }}
figure svg {{ display: block; max-width: 100%; height: auto; margin: 0 auto; }}
figcaption {{ font-size: 13.5px; color: #444; margin-top: 8px; }}
figure.skipped p {{ margin: 0; color: {MUTED}; font-style: italic; }}
.pair {{ display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }}
.pair figure {{ margin-bottom: 22px; }}
ul.notes {{ font-size: 14px; }}
table.adjudicate td.who {{ font-size: 12.5px; max-width: 380px; }}
table.adjudicate tr:target {{ background: #fff6d6; }}
.item-link {{ white-space: nowrap; }}
footer {{ margin-top: 28px; font-size: 12.5px; color: {MUTED}; border-top: 1px solid #e6e8eb; padding-top: 8px; }}
"""


# --------------------------------------------------------------------------- small helpers


def _esc(value: Any) -> str:
    """HTML-escape any value shown in the page (also quotes, so it is safe inside attributes)."""
    return html.escape(str(value), quote=True)


def _figure(fig_id: str, heading: str, svg: str, caption: str) -> str:
    return f'<figure id="{fig_id}"><h3>{_esc(heading)}</h3>{svg}<figcaption>{caption}</figcaption></figure>'


def _skipped(fig_id: str, heading: str, reason: str) -> str:
    return (
        f'<figure id="{fig_id}" class="skipped"><h3>{_esc(heading)}</h3>'
        f'<p class="skip">Not drawn: {_esc(reason)}</p></figure>'
    )


# --------------------------------------------------------------------------- the numbers


#: Short names of the bootstrap interval methods (``BootstrapResult.table["method"]``), shown beside each interval.
_BOOT_METHOD = {"bca": "BCa", "basic": "basic", "percentile": "percentile"}


def _metric_label(key: str, rep: Report) -> str:
    """A human-readable name for a metric key of the report (``'gwet_ac1[quadratic]'``: "Gwet's AC1, quadratic
    weights"; ``'ICC(2,1)'``: "Intraclass correlation ICC(2,1)")."""
    if key.startswith("spa["):
        w = key[4:-1]
        return f"SPA, {w} weights" + (" (headline)" if w == rep.spa_weights else "")
    if key == "krippendorff_alpha":
        return f"Krippendorff's alpha [{rep.level}]"
    if key == "spa_kappa":
        return f"{metric_spec('spa_kappa').label}, {rep.spa_weights} weights"
    if key.startswith("ICC("):
        return f"Intraclass correlation {key}"
    base, _, option = key.partition("[")
    try:
        label = metric_spec(base).label
    except (KeyError, ValueError):
        label = base.replace("_", " ").capitalize()  # e.g. percent_agreement_weighted, outside the registry
    return f"{label}, {option[:-1]} weights" if option else label


def _undefined_reason(key: str, rep: Report) -> str:
    """Why the report found ``key`` undefined, as the metric said it (recorded by name, never matched on text)."""
    return rep.reasons.get(key) or "undefined for this data (see the notes below)"


def _analytic_of(rep: Report) -> dict[str, Any]:
    """The analytic estimates by the metric row they belong to: ``krippendorff_alpha[nominal]`` (its jackknife, at
    the report's level) is the row of ``krippendorff_alpha``; every other key is its own row."""
    out: dict[str, Any] = {}
    for key, e in rep.estimates.items():
        base, _, option = key.partition("[")
        same = base in rep.values and option[:-1] == rep.level and key not in rep.values
        out[base if same else key] = e
    return out


def _extra_group(key: str) -> str:
    """The metrics table's section of a coefficient outside the report's registry groups (weighted ones, ICC)."""
    if key.startswith("ICC("):
        return "Intraclass correlation"
    option = key.partition("[")[2][:-1]
    return f"Weighted agreement ({option} weights)" if option else "Other"


def _metric_rows(rep: Report, boot: BootstrapResult | None) -> list[dict[str, Any]]:
    """One row per metric of the report, in display order, with its analytic and its bootstrap interval."""
    analytic = _analytic_of(rep)
    moved = {e.metric for k, e in analytic.items() if e.metric != k}  # shown on their metric's row
    estimates = {k: v for k, v in rep.to_frame().itertuples(index=False, name=None) if k not in moved}
    for key, e in analytic.items():
        estimates.setdefault(key, e.estimate)
    order = [k for _, keys in _GROUPS for k in keys if k in estimates]
    order += [k for k in estimates if k not in order]
    group_of = {k: g for g, keys in _GROUPS for k in keys}
    rows = []
    for key in order:
        est = float(estimates[key])
        e = analytic.get(key)
        row: dict[str, Any] = {
            "key": key,
            "label": _metric_label(key, rep),
            "group": group_of.get(key, _extra_group(key)),
            "estimate": est,
            "lower": np.nan,
            "upper": np.nan,
            "se": np.nan,
            "method": "",
            "n_undefined": 0,
            "analytic": e,
            "reading": rep.readings.get(key) or rep.readings.get(f"{key}[{rep.level}]"),
            "headline": key == f"spa[{rep.spa_weights}]",
            "note": "",
        }
        notes = []
        if not np.isfinite(est):
            notes.append(_undefined_reason(key, rep))
        if e is not None and (e.details or {}).get("items_dropped"):  # the ICC on complete cases: which items
            notes.append(str(e.details.get("note", "")))
        if boot is not None and key in boot.table.index:
            b = boot.table.loc[key]
            method = str(b["method"]) if "method" in boot.table.columns else "percentile"
            row.update(
                lower=float(b["lower"]),
                upper=float(b["upper"]),
                se=float(b["se"]),
                n_undefined=int(b["n_undefined"]),
                method=_BOOT_METHOD.get(method, method),
            )
            if method == "basic" and "corrected" in boot.table.columns and np.isfinite(b["corrected"]):
                row["corrected"] = float(b["corrected"])
                notes.append(
                    f"the basic interval is about the population value: it centres on the bias-corrected estimate "
                    f"{_rounded(row['corrected'])} (the estimate less the bootstrap's estimate of its bias)"
                )
            if np.isfinite(est) and not np.isfinite(row["lower"]):
                notes.append(f"interval undefined: the metric is undefined in all {boot.n_boot} bootstrap replicates")
            elif np.isfinite(est) and row["n_undefined"]:
                notes.append(
                    f"{row['n_undefined']} of {boot.n_boot} bootstrap replicates undefined, left out of the interval"
                )
        elif boot is not None and np.isfinite(est):
            notes.append("not bootstrapped")
        row["note"] = "; ".join(notes)
        rows.append(row)
    return rows


def _num_cell(v: float, digits: int = 4) -> str:
    """A table cell showing ``v`` rounded, with the full value in ``data-value`` (``nan`` when undefined)."""
    if v is None or not np.isfinite(v):
        return '<td class="num undefined" data-value="nan">undefined</td>'
    return f'<td class="num" data-value="{float(v)!r}">{_rounded(v, digits)}</td>'


def _rounded(v: float, digits: int = 4) -> str:
    return f"{v:.{digits}f}" if v == 0 or abs(v) >= 0.5 * 10.0**-digits else f"{v:.2e}"


_NOT_COMPUTED = '<td class="num" data-lower="nan" data-upper="nan">—</td>'


def _interval_cell(lower: float, upper: float, method: str) -> str:
    """An interval as one cell: "lower – upper" with the method under it; the ends in ``data-lower``/``data-upper``
    and the method in ``data-method``."""
    if not (np.isfinite(lower) and np.isfinite(upper)):
        return (
            f'<td class="num interval undefined" data-lower="nan" data-upper="nan" data-method="{_esc(method)}">'
            "undefined"
            f'<span class="method">{_esc(method)}</span></td>'
        )
    return (
        f'<td class="num interval" data-lower="{float(lower)!r}" data-upper="{float(upper)!r}" '
        f'data-method="{_esc(method)}">'
        f'{_rounded(lower)} – {_rounded(upper)}<span class="method">{_esc(method)}</span></td>'
    )


def _analytic_method(e: Any) -> str:
    """A short name of an analytic method (the full one is in the cell's tooltip)."""
    m = e.method.lower()
    if "linearisation" in m:
        return "Gwet, t"
    if "jackknife" in m:
        return "jackknife, t"
    if "f test" in m or "f interval" in m:
        return "F"
    return "analytic"


def _metrics_table(rows: list[dict[str, Any]], boot: BootstrapResult | None, rep: Report) -> str:
    """Every metric in one table: its estimate, its analytic interval (where the report computed one) and its
    bootstrap interval (with ``--ci``), each labelled with its method, and the benchmark reading (``--benchmark``)."""
    has_analytic = any(r["analytic"] is not None for r in rows)
    has_reading = bool(rep.readings)
    head = ['<div class="wide"><table class="metrics" id="metric-table"><thead><tr><th>metric</th>']
    head.append('<th class="num">estimate</th>')
    if has_analytic:
        conf = next(r["analytic"] for r in rows if r["analytic"] is not None).confidence
        head.append(
            f'<th class="num">analytic {conf:.0%} interval</th><th class="num">analytic se</th><th class="num">p</th>'
        )
    if boot is not None:
        head.append(f'<th class="num">bootstrap {boot.confidence:.0%} interval</th><th class="num">bootstrap se</th>')
    if has_reading:
        head.append("<th>benchmark reading</th>")
    head.append("<th>note</th></tr></thead><tbody>")
    n_cols = 3 + 3 * has_analytic + 2 * (boot is not None) + has_reading
    body = []
    group = None
    for r in rows:
        if r["group"] != group:
            group = r["group"]
            body.append(f'<tr class="group"><td colspan="{n_cols}">{_esc(group)}</td></tr>')
        cls = ' class="headline"' if r["headline"] else ""
        cells = [
            f'<tr data-metric="{_esc(r["key"])}"{cls}><td class="metric">{_esc(r["label"])} '
            f"<code>{_esc(r['key'])}</code></td>{_num_cell(r['estimate'])}"
        ]
        e = r["analytic"]
        if has_analytic and e is None:
            cells.append(_NOT_COMPUTED + '<td class="num">—</td><td class="num">—</td>')
        elif has_analytic:
            cell = _interval_cell(e.lower, e.upper, _analytic_method(e))
            cells.append(cell.replace("<td ", f'<td title="{_esc(e.method)}" ', 1))
            se = '<td class="num">—</td>' if not np.isfinite(e.se) and np.isfinite(e.estimate) else _num_cell(e.se)
            cells.append(se + _num_cell(e.p_value, 3))
        if boot is not None and not r["method"]:
            cells.append(_NOT_COMPUTED + '<td class="num">—</td>')
        elif boot is not None:
            cells.append(_interval_cell(r["lower"], r["upper"], r["method"]) + _num_cell(r["se"]))
        if has_reading:
            cells.append(_reading_cell(r["reading"]) if e is not None else '<td class="note">—</td>')
        cells.append(f'<td class="note">{_esc(r["note"])}</td></tr>')
        body.append("".join(cells))
    return "".join(head) + "".join(body) + "</tbody></table></div>"


def _analytic_picture(rows: list[dict[str, Any]], fig_id: str) -> tuple[str, str] | None:
    """Picture f: the analytic intervals as a forest plot (None: no analytic interval with a defined estimate)."""
    with_e = [r for r in rows if r["analytic"] is not None]
    if not any(np.isfinite(r["analytic"].estimate) for r in with_e):
        return None
    confidence = with_e[0]["analytic"].confidence
    svg = interval_plot(
        [r["label"] for r in with_e],
        [r["analytic"].estimate for r in with_e],
        [r["analytic"].lower for r in with_e],
        [r["analytic"].upper for r in with_e],
        groups=[r["group"] for r in with_e],
        id_prefix=fig_id,
        title=f"Estimates with {confidence:.0%} analytic intervals",
        include=(0.0, 1.0),
        value_header=f"estimate [{confidence:.0%} interval]",
        x_title="value of the coefficient",
        label_title="coefficient",
        missing_text="undefined",
    )
    caption = (
        "One row per coefficient with an analytic standard error: the estimate (dot) and its analytic interval "
        "(line): Gwet's linearisation for the kappa family (conditional on the annotators, t interval; upper end "
        "capped at 1), the delete-one-item jackknife for Krippendorff's alpha, the F distribution for the "
        "intraclass correlations. The same intervals are in the metrics table."
    )
    return svg, caption


def _reading_cell(r: Any) -> str:
    """A benchmark reading as a table cell: the band reached with its probability, and every band's probability."""
    if r is None or r.reading is None:
        return '<td class="note undefined">no reading (no standard error)</td>'
    bands = "; ".join(f"{b}: {p:.3f}" for b, p in zip(r.bands["band"], r.bands["probability"]))
    return (
        f'<td class="note" data-reading="{_esc(r.reading)}" title="{_esc(bands)}"><strong>{_esc(r.reading)}</strong> '
        f"or better, probability {r.probability:.3f} ({_esc(r.scale)} scale; point estimate in "
        f"{_esc(r.point_band)})</td>"
    )


# --------------------------------------------------------------------------- what to adjudicate


def _pair_links(dis: Disagreements | None, categories: Sequence[Any]) -> list[list[str | None]] | None:
    """For the coincidence heat map: each cell of a listed confused pair links to that pair in the list."""
    if dis is None or dis.pairs.empty:
        return None
    c = len(categories)
    links: list[list[str | None]] = [[None] * c for _ in range(c)]
    index = pd.Index(list(categories), tupleize_cols=False)
    a = index.get_indexer(dis.pairs["label_a"])
    b = index.get_indexer(dis.pairs["label_b"])
    for rank, i, j in zip(dis.pairs["rank"].head(ADJUDICATE_PAIRS), a, b):
        if i >= 0 and j >= 0:
            links[i][j] = links[j][i] = f"#pair-{int(rank)}"
    return links


def _clip(name: Any, limit: int = 2 * NAME_MAX_CHARS) -> str:
    text = str(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _annotators_section(card: AnnotatorReport) -> str:
    """Each annotator's kappa with the pooled others and its interval (a chart), and their scorecard (a table)."""
    t, s = card.table, card.settings
    order = np.lexsort((t["kappa"].to_numpy(dtype=float), (t["flag"] == "").to_numpy()))
    shown = t.iloc[order[:SCORECARD_ROWS]]
    pct = f"{card.confidence:.0%}"
    svg = interval_plot(
        list(shown["annotator"]),
        shown["kappa"].to_numpy(dtype=float),
        shown["kappa_lower"].to_numpy(dtype=float),
        shown["kappa_upper"].to_numpy(dtype=float),
        highlight=list(shown["flag"] != ""),
        id_prefix="fig-annotators",
        title=f"Each annotator's kappa with the pooled others, with {pct} intervals",
        include=(0.0, 1.0),
        value_header=f"kappa [{pct} interval]",
        x_title="Cohen's kappa of the annotator against the pooled others",
        label_title="annotator",
        missing_text="undefined",
        reference=(s["random_kappa"], f"{s['random_fraction']:g} × typical kappa"),
    )
    more = f" The {SCORECARD_ROWS} shown: flagged first, then the lowest kappa." if len(t) > len(shown) else ""
    caption = (
        f"One row per annotator: Cohen's kappa of their labels against the other annotators' labels on the same "
        f"items (dot), with its {pct} interval (line; Fleiss, Cohen & Everitt's standard error). Flagged annotators "
        "are highlighted."
        + (
            f" The dashed line is {s['random_fraction']:g} × the typical (median) annotator's kappa, "
            f"{s['random_kappa']:.3f}: the random flag's test asks whether an annotator is significantly below it."
            if np.isfinite(s["random_kappa"])
            else ""
        )
        + more
    )

    def num(v: Any, digits: int = 3) -> str:
        return _num_cell(float(v), digits) if v is not None else '<td class="num">–</td>'

    def p_cell(v: Any) -> str:
        v = float(v)
        if not np.isfinite(v):
            return '<td class="num undefined" data-value="nan">–</td>'
        return f'<td class="num" data-value="{v!r}">{v:.2g}</td>'

    rows = []
    for r in shown.itertuples(index=False):
        rows.append(
            f'<tr data-annotator="{_esc(r.annotator)}"><td>{_esc(_clip(r.annotator))}</td>'
            f'<td class="num">{int(r.n_items):,}</td>{num(r.agreement)}{num(r.kappa)}{num(r.accuracy)}'
            f"{num(r.alpha_change)}{p_cell(r.chance_p)}{p_cell(r.random_p)}<td>{_esc(r.flag) or '–'}</td>"
            f'<td class="note">{_esc(r.flag_reason)}</td></tr>'
        )
    flagged = card.flagged()
    lead = (
        f"{len(flagged)} of {len(t):,} annotators flagged"
        + (": " + ", ".join(_esc(_clip(a)) for a in flagged[:12]) if flagged else "")
        + ". "
        + _esc(flag_legend(card.settings))
        + " <strong>chance p</strong>: one-sided p-value of agreeing with the others no more than a random labeller "
        "with the annotator's label counts (Hoeffding's permutation moments); <strong>random p</strong>: "
        "Holm-adjusted p-value of the test that their kappa is at least that of a genuine annotator; "
        "<strong>why</strong> says why each flag is given or not. Accuracy is against "
        f"the {_esc(card.gold)} gold labels; the alpha change is alpha without the annotator minus alpha "
        "(positive: the data agree better without them). <code>iaa annotators FILE</code> gives every column, the "
        "intervals, MACE's competence and the pairwise Stuart-Maxwell and Bhapkar tests."
    )
    return (
        '<h2 id="annotators">Annotators</h2>'
        f'<p class="lead">{lead}</p>'
        + _figure("fig-annotators", "Agreement of each annotator with the others", svg, caption)
        + '<table class="metrics annotators" id="annotator-table"><thead><tr><th>annotator</th>'
        '<th class="num">items</th><th class="num">agreement</th><th class="num">kappa</th>'
        '<th class="num">accuracy</th><th class="num">alpha change</th><th class="num">chance p</th>'
        '<th class="num">random p</th><th>flag</th><th>why</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>"
    )


def _listed_text(dis: Disagreements, listed: set[int]) -> tuple[dict[int, str], dict[int, str]]:
    """For the listed items (by rank): who said what (``annotator = label``, escaped) and the majority label(s) in
    category order (ties joined by `` | ``), as :meth:`Disagreements.to_frame` gives them.

    Plain Python over the few annotations of the 25 listed items: a frame of every listed item and pandas'
    group-bys cost the page ~40 ms for a table of 25 rows.
    """
    ann = dis.annotations[dis.annotations["rank"].isin(listed)]
    ranks = ann["rank"].astype(int).tolist()
    labels = ann["label"].tolist()
    annotators = ann["annotator"].tolist()
    anonymous = ann["annotator"].isna().all()
    said: dict[int, list[str]] = {}
    counts: dict[int, dict[Any, int]] = {}
    for r, a, lab in zip(ranks, annotators, labels):
        said.setdefault(r, []).append(_esc(lab if anonymous else f"{a} = {lab}"))
        per = counts.setdefault(r, {})
        per[lab] = per.get(lab, 0) + 1
    present = list({lab for per in counts.values() for lab in per})
    position = dict(zip(present, pd.Index(dis.categories, tupleize_cols=False).get_indexer(present).tolist()))
    gold = {}
    for r, per in counts.items():
        top = max(per.values())
        gold[r] = " | ".join(
            str(lab) for lab in sorted((k for k, n in per.items() if n == top), key=lambda lab: position[lab])
        )
    return {r: ", ".join(v) for r, v in said.items()}, gold


def _adjudicate_section(dis: Disagreements) -> str:
    """The items to adjudicate (anchors ``item-<rank>``) and the confused label pairs (anchors ``pair-<rank>``)."""
    out = [
        '<h2 id="adjudicate">What to adjudicate</h2>',
        f'<p class="lead">{dis.n_disagreeing:,} of {dis.n_pairable:,} items with two or more annotations have '
        "annotations that do not all agree. They are ranked by "
        + _esc("; then ".join(dis.ranking))
        + ". "
        + (
            "Entropy is the Dawid-Skene posterior's (0: the model is sure of the label, 1: it cannot tell)."
            if dis.dawid_skene
            else f"Without the Dawid-Skene entropy above {HTML_DAWID_SKENE_MAX:,} annotations (or without annotator "
            "identities); <code>iaa disagreements FILE</code> ranks with it."
        )
        + "</p>",
    ]
    items = dis.items.head(ADJUDICATE_ITEMS)
    listed = set(items["rank"].tolist())
    if items.empty:
        out.append('<p class="lead">Nothing to adjudicate: every item with two or more annotations is unanimous.</p>')
    else:
        who, gold = _listed_text(dis, listed)
        rows = []
        for r in items.itertuples(index=False):
            rows.append(
                f'<tr id="item-{int(r.rank)}"><td class="num">{int(r.rank)}</td><td>{_esc(r.item)}</td>'
                f'<td class="num">{int(r.n_annotations)}</td>{_num_cell(r.agreement, 3)}'
                f"<td>{'tie' if r.tie else ''}</td>{_num_cell(r.entropy, 3)}"
                f'<td>{_esc(gold.get(r.rank, ""))}</td><td class="who">{who.get(r.rank, "")}</td></tr>'
            )
        shown = "" if len(items) == dis.n_disagreeing else f" (the first {len(items)} of {dis.n_disagreeing:,})"
        out.append(
            f"<h3>Items{_esc(shown)}</h3>"
            '<table class="metrics adjudicate" id="adjudicate-items"><thead><tr><th class="num">rank</th><th>item'
            '</th><th class="num">n</th><th class="num">agreement</th><th>majority</th><th class="num">entropy</th>'
            "<th>majority label(s)</th><th>annotator = label</th></tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table>"
        )
    pairs = dis.pairs.head(ADJUDICATE_PAIRS)
    if pairs.empty:
        out.append('<p class="lead">No two different labels met on an item.</p>')
        return "".join(out)
    pi = dis.pair_items[dis.pair_items["pair"].isin(set(pairs["rank"].tolist()))]
    behind: dict[int, list[tuple[Any, Any]]] = {}  # pair -> its items in order (a few hundred rows: no group-by)
    for pair, name, rank in zip(pi["pair"].tolist(), pi["item"].tolist(), pi["item_rank"].tolist()):
        behind.setdefault(int(pair), []).append((name, rank))
    rows = []
    for r in pairs.itertuples(index=False):
        links = []
        for name, rank in behind.get(int(r.rank), [])[:PAIR_ITEMS_SHOWN]:
            if int(rank) in listed:
                links.append(f'<a class="item-link" href="#item-{int(rank)}">{_esc(name)}</a>')
            else:
                links.append(f'<span class="item-link">{_esc(name)}</span>')
        more = int(r.n_items) - len(links)
        if more > 0:
            links.append(f"and {more:,} more")
        rows.append(
            f'<tr id="pair-{int(r.rank)}"><td class="num">{int(r.rank)}</td><td>{_esc(r.label_a)}</td>'
            f"<td>{_esc(r.label_b)}</td>{_num_cell(r.observed, 2)}{_num_cell(r.expected, 2)}{_num_cell(r.ratio, 3)}"
            f'{_num_cell(r.share, 3)}<td class="num">{int(r.n_items):,}</td>'
            f'<td class="who">{", ".join(links)}</td></tr>'
        )
    out.append(
        "<h3>Most confused label pairs</h3>"
        '<p class="lead">Observed coincidences of two different labels on the same item against those expected by '
        "chance (n<sub>a</sub> n<sub>b</sub> / (n − 1), Krippendorff); a ratio near 1 is chance level, above 1 "
        "the labels are confused more than chance. The cells of the coincidence matrix (picture d) link here.</p>"
        '<table class="metrics adjudicate" id="adjudicate-pairs"><thead><tr><th class="num">rank</th><th>label</th>'
        '<th>label</th><th class="num">observed</th><th class="num">expected</th><th class="num">ratio</th>'
        '<th class="num">share</th><th class="num">items</th><th>items behind it</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>"
    )
    return "".join(out)


# --------------------------------------------------------------------------- a. kappa heatmap


def _kappa_heatmap(matrix: PairwiseMatrix, fig_id: str) -> tuple[str, str]:
    names_all = list(matrix.annotators)
    n_all = len(names_all)
    per_annotator = np.diag(matrix.n_shared).astype(np.int64)
    idx: np.ndarray = np.arange(n_all)
    if n_all > HEATMAP_MAX_ANNOTATORS:
        top = np.argsort(-per_annotator, kind="stable")[:HEATMAP_MAX_ANNOTATORS]
        idx = np.sort(top)
    names = [names_all[i] for i in idx]
    vals = matrix.values[np.ix_(idx, idx)]
    shared = matrix.n_shared[np.ix_(idx, idx)]
    a = len(names)

    tips = []
    for i in range(a):
        row = []
        for j in range(a):
            v, s = vals[i, j], int(shared[i, j])
            who = f"{names[i]} × {names[j]}"
            if i == j:
                row.append(f"{names[i]}: {s} item(s) annotated")
            elif s == 0:
                row.append(f"{who}: no shared item")
            elif not np.isfinite(v):
                row.append(f"{who}: kappa undefined on {s} shared item(s) (one category only)")
            else:
                row.append(f"{who}: kappa {v:.3f} on {s} shared item(s)")
        tips.append(row)
    svg = pair_heatmap(
        vals,
        names,
        n=shared,
        tooltips=tips,
        id_prefix=fig_id,
        title="Cohen's kappa for every pair of annotators",
        row_title="annotator (row)",
        column_title="annotator (column)",
        scale_title="Cohen's kappa",
        scale_notes=("agreement", "chance level", "below chance"),
        mark_labels=("no shared item", "undefined (one category)", "same annotator"),
        numbers_max=CELL_NUMBERS_MAX,
        name_max_chars=NAME_MAX_CHARS,
    )

    n_pairs = a * (a - 1) // 2
    upper = np.triu_indices(a, 1)
    defined = int(np.sum(np.isfinite(vals[upper]) & (shared[upper] > 0)))
    no_shared = int(np.sum(shared[upper] == 0))
    caption = (
        "Each cell is Cohen's kappa between the row and the column annotator, computed on the items both "
        "labelled (blue: agreement beyond chance, white: chance level, red: below chance; hover a cell for the "
        f"number of shared items). {defined} of {n_pairs} pairs are defined; {no_shared} share no item (light "
        "hatching). Kappa on few shared items is noisy."
    )
    if a > CELL_NUMBERS_MAX:
        caption += f" With {a} annotators the cells carry no numbers; hover for the values."
    if n_all > a:
        caption += f" Only the {a} annotators with the most annotations of the {n_all} are shown (in name order)."
    return svg, caption


# --------------------------------------------------------------------------- b. distribution of item agreement


def _histogram(items: ItemSummary, mean: float, fig_id: str) -> tuple[str, str]:
    svg = histogram(
        items.p,
        id_prefix=fig_id,
        title="Distribution of item agreement",
        bins=10,
        range=(0.0, 1.0),
        marker=mean,
        marker_label="mean",
        x_title="item agreement (share of agreeing pairs of annotations)",
        y_title="items",
        bar_tip="{count} item(s) with agreement in {interval}",
        weights=items.count,
    )
    caption = (
        f"How the {int(items.count.sum())} items with two or more annotations spread: 0 means no two annotations of "
        "the item agree, 1 means all agree. Bins are 0.1 wide (the last includes 1). The dashed line is the mean, the "
        "joint probability of agreement."
    )
    return svg, caption


# --------------------------------------------------------------------------- c. agreement by annotations per item


def item_tally(n: Any, p: Any, counts: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (annotations per item, item agreement) pairs of items, sorted by n then by agreement, with how
    many items have each: a tally whose sums over disjoint sets of items (``counts``: the sets' tallies
    concatenated) are the tally of their union. Pictures b and c are drawn from it, so items summarised on a cluster
    partition by partition draw the same pictures as in memory. Hashing (:func:`pandas.factorize`), no sort of the
    items."""
    key_n = np.asarray(n, dtype=np.int64)
    value = np.asarray(p, dtype=float)
    if key_n.size == 0:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64)
    p_codes, p_values = pd.factorize(value)
    key = key_n * len(p_values) + p_codes
    k_codes, keys = pd.factorize(key)
    tally = np.bincount(k_codes, weights=None if counts is None else np.asarray(counts, dtype=float))
    n_of, p_code = np.divmod(np.asarray(keys, dtype=np.int64), len(p_values))
    p_of = np.asarray(p_values, dtype=float)[p_code]
    order = np.lexsort((p_of, n_of))
    return n_of[order], p_of[order], tally[order].astype(np.int64)


def tally_quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``values`` (sorted, distinct) each repeated ``counts`` times, exactly as
    :func:`numpy.quantile` (method 'linear', numpy >= 1.22: index (N - 1) q, the two neighbours interpolated by
    numpy's ``_lerp``) computes it on the repeated values, without repeating them."""
    total = int(counts.sum())
    virtual = (total - 1) * np.float64(q)
    below = np.floor(virtual)
    if virtual >= total - 1:
        lo = hi = total - 1
    else:
        lo, hi = int(below), int(below) + 1
    cum = np.cumsum(counts)
    a, b = values[np.searchsorted(cum, lo, side="right")], values[np.searchsorted(cum, hi, side="right")]
    t = virtual - (below if virtual < total - 1 else np.float64(-1.0))
    d = b - a
    return float(b - d * (1 - t)) if t >= 0.5 else float(a + d * t)


def _group_stats(key: np.ndarray, value: np.ndarray, counts: Any = None) -> pd.DataFrame:
    """Per distinct ``key`` (non-negative integers, sorted): mean, quartiles (linear interpolation, as pandas' and
    numpy's default), min, max and count of ``value`` (each occurring ``counts`` times; default once): from the
    tally of :func:`item_tally` (the numbers of annotations per item are a handful; the distinct values per number
    few), so the same values summed by partition give the same numbers."""
    n_of, p_of, tally = item_tally(key, value, counts)
    starts = np.flatnonzero(np.r_[True, n_of[1:] != n_of[:-1]]) if n_of.size else np.zeros(0, np.int64)
    ends = np.r_[starts[1:], n_of.size].astype(np.int64)
    rows = []
    for s, e in zip(starts, ends):
        v, c = p_of[s:e], tally[s:e]
        rows.append(
            (
                float(np.sum(v * c) / c.sum()),
                tally_quantile(v, c, 0.25),
                tally_quantile(v, c, 0.75),
                v[0],
                v[-1],
            )
        )
    stats = np.array(rows, dtype=float).reshape(-1, 5)
    frame = pd.DataFrame(stats, columns=["mean", "q25", "q75", "min", "max"], index=pd.Index(n_of[starts], name="n"))
    frame["count"] = np.add.reduceat(tally, starts) if starts.size else np.zeros(0, np.int64)
    return frame


def _by_n(items: ItemSummary, overall: float, fig_id: str) -> tuple[str, str]:
    stats, n_single = _group_stats(items.n, items.p, items.count), items.n_single
    tips = [
        f"n = {nv}: {int(s['count'])} item(s), mean agreement {s['mean']:.3f}, middle half "
        f"{s['q25']:.3f}-{s['q75']:.3f}, range {s['min']:.3f}-{s['max']:.3f}"
        for nv, s in stats.iterrows()
    ]
    svg = group_summary_plot(
        list(stats.index),
        stats["mean"].to_numpy(),
        stats["q25"].to_numpy(),
        stats["q75"].to_numpy(),
        stats["min"].to_numpy(),
        stats["max"].to_numpy(),
        stats["count"].to_numpy(),
        id_prefix=fig_id,
        title="Agreement by number of annotations per item",
        y_range=(0.0, 1.0),
        reference=overall,
        reference_label="overall mean",
        x_title="annotations per item (n)",
        y_title="item agreement",
        count_title="items",
        tooltips=tips,
        count_tooltips=[f"n = {nv}: {int(c)} item(s)" for nv, c in stats["count"].items()],
    )
    caption = (
        "For each number of annotations n, the mean agreement of the items with n annotations (dot), the "
        "middle half of them (box) and their range (line); the grey bars below count the items at each n. "
        "A trend here means the agreement depends on how often an item was annotated."
    )
    if n_single:
        caption += f" {n_single} item(s) with a single annotation have no agreement and are left out."
    return svg, caption


# --------------------------------------------------------------------------- d. coincidence matrix


def _coincidence(
    o: np.ndarray, categories: Sequence[Any], fig_id: str, links: list[list[str | None]] | None = None
) -> tuple[str, str]:
    c = len(categories)
    tips = [
        [f"{categories[i]} with {categories[j]}: {float(o[i, j]):.2f} coincidence(s)" for j in range(c)]
        for i in range(c)
    ]
    svg = count_heatmap(
        o,
        categories,
        tooltips=tips,
        id_prefix=fig_id,
        title="Coincidence matrix: which categories meet on the same item",
        row_title="category",
        column_title="category of a paired annotation",
        scale_title="coincidences",
        total_title="total",
        numbers_max=CELL_NUMBERS_MAX,
        name_max_chars=NAME_MAX_CHARS,
        links=links,
    )
    caption = (
        "Krippendorff's coincidence matrix: every ordered pair of annotations of the same item adds "
        "1/(n − 1) to the cell of its two categories, so each item contributes its n annotations in total "
        "(items with one annotation add nothing). The diagonal counts agreements; off-diagonal cells show which "
        "categories annotators confuse. The matrix is symmetric; the row totals are the category frequencies."
    )
    if c > CELL_NUMBERS_MAX:
        caption += f" With {c} categories the cells carry no numbers; hover for the values."
    if links is not None:
        caption += " Click an off-diagonal cell for the items behind that pair (What to adjudicate)."
    return svg, caption


# --------------------------------------------------------------------------- e. forest plot


def _boot_methods(rows: list[dict[str, Any]]) -> str:
    """Which bootstrap interval each metric has, in words: "BCa intervals (basic for the annotator bias)"."""
    by: dict[str, list[str]] = {}
    for r in rows:
        if r["method"]:
            by.setdefault(r["method"], []).append(r["label"])
    if not by:
        return "bootstrap intervals"
    main = max(by, key=lambda m: len(by[m]))
    rest = [f"{m} for {', '.join(labels)}" for m, labels in by.items() if m != main]
    return f"{main} bootstrap intervals" + (f" ({'; '.join(rest)})" if rest else "")


def _forest(rows: list[dict[str, Any]], boot: BootstrapResult, fig_id: str) -> tuple[str, str]:
    rows = [r for r in rows if r["method"]]  # the metrics the bootstrap resampled
    svg = interval_plot(
        [r["label"] for r in rows],
        [r.get("corrected", r["estimate"]) for r in rows],  # a basic interval's own estimate: the bias-corrected one
        [r["lower"] for r in rows],
        [r["upper"] for r in rows],
        groups=[r["group"] for r in rows],
        highlight=[r["headline"] for r in rows],
        id_prefix=fig_id,
        title=f"Estimates with {boot.confidence:.0%} bootstrap intervals",
        include=(0.0, 1.0),
        value_header=f"estimate [{boot.confidence:.0%} interval]",
        x_title="value of the metric",
        label_title="metric",
        missing_text="undefined",
    )
    caption = (
        f"One row per metric: the estimate on the data (dot; for a basic interval the bias-corrected estimate it "
        f"centres on) and its {boot.confidence:.0%} "
        f"{_esc(_boot_methods(rows))} (line) from {boot.n_boot} resamplings of the items (seed {_esc(boot.seed)}). "
        "Raw agreement is a probability (0 to 1); the chance-corrected coefficients are 0 at chance level and 1 at "
        "perfect agreement. The same intervals are in the metrics table."
    )
    return svg, caption


# --------------------------------------------------------------------------- the page


def _summary(data: Annotations, rep: Report) -> str:
    ann = "unknown" if rep.n_annotators is None else f"{rep.n_annotators:,}"
    cards = [
        ("n_items", f"{rep.n_items:,}", "items"),
        ("n_annotators", ann, "annotators" + (" (count table)" if rep.n_annotators is None else "")),
        ("n_annotations", f"{rep.n_annotations:,}", "annotations"),
        ("n_categories", f"{rep.n_categories:,}", "categories"),
        ("n_items_excluded", f"{rep.n_items_excluded:,}", "items excluded (fewer than 2 annotations)"),
        ("level", rep.level, "level of measurement"),
    ]
    out = ['<div class="cards">']
    for key, value, label in cards:
        out.append(
            f'<div class="card" data-key="{key}"><div class="v">{_esc(value)}</div>'
            f'<div class="k">{_esc(label)}</div></div>'
        )
    out.append("</div>")
    cats = list(data.categories)
    shown = ", ".join(_esc(c) for c in cats[:30]) + (f", … ({len(cats) - 30} more)" if len(cats) > 30 else "")
    out.append(f'<p class="categories"><strong>Categories:</strong> {shown}</p>')
    return "".join(out)


@dataclass(frozen=True)
class ItemSummary:
    """What pictures b-d need of the items, all sums over items: the tally of :func:`item_tally` of the items with
    two or more annotations, how many items have fewer, and Krippendorff's coincidence matrix (None when not drawn:
    no pairable item, or more than 80 categories)."""

    n: np.ndarray
    p: np.ndarray
    count: np.ndarray
    n_single: int
    coincidences: np.ndarray | None


def item_summary(data: Annotations, card: AnnotatorReport | None = None) -> ItemSummary:
    """:class:`ItemSummary` of in-memory annotations (the coincidences from the scorecard's count patterns when it
    was computed: the same sums, grouped by pattern)."""
    p = item_agreement(data).to_numpy(dtype=float)
    n = np.asarray(data.counts.n_i, dtype=float)
    ok = n >= 2
    o = None
    if ok.any() and data.n_categories <= COINCIDENCES_MAX_CATEGORIES:
        o = coincidences_by_pattern(data) if card is not None else coincidence_matrix(data)
    return ItemSummary(*item_tally(n[ok], p[ok]), int(np.sum(~ok)), o)


def _pictures(
    data: Annotations,
    rep: Report,
    rows: list[dict[str, Any]],
    boot: BootstrapResult | None,
    items: ItemSummary,
    dis: Disagreements | None = None,
    card: AnnotatorReport | None = None,
) -> str:
    parts = []
    # a. heatmap
    head_a = "a. Agreement between annotators"
    if data.annotators is None:
        parts.append(
            _skipped(
                "fig-kappa",
                head_a,
                "count-table input has no annotator identities, so there are no annotator pairs to compare.",
            )
        )
    elif "cohen_kappa" not in rep.matrices:
        parts.append(
            _skipped("fig-kappa", head_a, f"the pairwise matrices were not computed for {rep.n_annotators} annotators.")
        )
    elif (rep.n_annotators or 0) < 2:
        parts.append(_skipped("fig-kappa", head_a, "the data has a single annotator."))
    else:
        parts.append(_figure("fig-kappa", head_a, *_kappa_heatmap(rep.matrices["cohen_kappa"], "fig-kappa")))

    # b. and c.
    overall = rep.values.get("joint_probability", np.nan)
    head_b, head_c = "b. Distribution of item agreement", "c. Agreement and annotations per item"
    pairable = bool(items.count.size)
    if not pairable:
        why = "no item has two or more annotations, so no item has an agreement."
        pair = [_skipped("fig-items", head_b, why), _skipped("fig-by-n", head_c, why)]
    else:
        pair = [
            _figure("fig-items", head_b, *_histogram(items, overall, "fig-items")),
            _figure("fig-by-n", head_c, *_by_n(items, overall, "fig-by-n")),
        ]
    parts.append('<div class="pair">' + "".join(pair) + "</div>")

    # d. coincidences
    head_d = "d. Which categories are confused"
    if not pairable:
        parts.append(
            _skipped(
                "fig-coincidence", head_d, "no item has two or more annotations, so no two annotations can be compared."
            )
        )
    elif rep.n_categories > COINCIDENCES_MAX_CATEGORIES or items.coincidences is None:
        parts.append(
            _skipped("fig-coincidence", head_d, f"{rep.n_categories} categories are too many for a legible matrix.")
        )
    else:
        o = items.coincidences
        cats = list(data.categories)
        parts.append(
            _figure("fig-coincidence", head_d, *_coincidence(o, cats, "fig-coincidence", _pair_links(dis, cats)))
        )

    # e. forest plot
    head_e = "e. Confidence intervals"
    if boot is None:
        parts.append(
            _skipped("fig-forest", head_e, "the bootstrap was not run (n_boot=0; on the command line add --ci).")
        )
    elif not any(np.isfinite(r["estimate"]) for r in rows):
        parts.append(_skipped("fig-forest", head_e, "every metric is undefined for this data."))
    else:
        parts.append(_figure("fig-forest", head_e, *_forest(rows, boot, "fig-forest")))

    # f. analytic intervals (only where the report computed some)
    if any(r["analytic"] is not None for r in rows):
        head_f = "f. Analytic intervals"
        drawn = _analytic_picture(rows, "fig-estimates")
        if drawn is None:
            parts.append(_skipped("fig-estimates", head_f, "every coefficient with an analytic interval is undefined."))
        else:
            parts.append(_figure("fig-estimates", head_f, *drawn))
    return "".join(parts)


def _drift_options(rep: Report) -> dict[str, Any]:
    """The scorecard's ``time``/``freq`` when the report has time windows (its drift table joins the page)."""
    by = rep.by
    return {"time": by.column, "freq": by.freq} if by is not None and by.kind == "time" else {}


def _by_section(rep: Report, card: AnnotatorReport | None) -> str:
    """Agreement by group and over time (``report(by=...)`` / ``time=``), drawn by :mod:`iaa_engine.reporting._by`
    (imported only then)."""
    if rep.by is None:
        return ""
    from iaa_engine.reporting._by import by_section

    return by_section(rep.by, card.drift if card is not None else None)


@validate(report=REPORT, n_boot=N_BOOT)
def render_html_report(
    data: Any,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    weights: str = "annotations_m1",
    n_boot: int = 1000,
    seed: int | None = 0,
    title: str | None = None,
    progress: bool | None = None,
    report: Report | None = None,
) -> str:
    """The agreement report of ``data`` as one self-contained HTML document (a string).

    The page of :func:`write_html_report`, returned instead of written: a
    summary of the data, one table of every metric of
    :func:`iaa_engine.report` with its analytic interval (where the report
    computed one) and its 95 % bootstrap interval (BCa; basic for the
    annotator bias), each labelled with its method, the items to adjudicate,
    the annotator scorecard with its flags, their p-values and why, and inline
    SVG pictures a-f (Cohen's kappa heatmap, distribution of item agreement,
    item agreement by number of annotations, Krippendorff's coincidence
    matrix, forest plots of the bootstrap and of the analytic intervals).
    Every name from the data is HTML-escaped; the page loads nothing from
    elsewhere.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations (see :func:`as_annotations`).
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level for Krippendorff's alpha (default: the data's level).
    weights : str, default 'annotations_m1'
        SPA scheme marked as the headline (all six are shown).
    n_boot : int, default 1000
        Bootstrap replicates (2 to 100,000); 0 or None draws the page without intervals.
    seed : int, optional, default 0
        Seed of the bootstrap: the same seed gives the same page.
    title : str, optional
        Page title (default "Inter-annotator agreement report").
    progress : bool, optional
        Show the bootstrap's progress on stderr (default: only on a terminal).
    report : Report, optional
        A report already computed for ``data`` (by :func:`iaa_engine.report`, with ``ci=True`` for the intervals):
        the page draws it and its intervals instead of computing them again; ``level``, ``weights``, ``n_boot``
        and ``seed`` are then the report's. A report without intervals gives a page without them (no
        bootstrap is run).

    Returns
    -------
    str
        The HTML document (declared UTF-8; ends with a newline).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The labels do not fit ``level``, or the data holds only statistics summed over items (the pictures and
        the bootstrap need per-item counts).

    See Also
    --------
    write_html_report : Write the page to a file.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37–46.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    A report computed once (here without bootstrap intervals) is drawn without computing it again:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> page = ie.render_html_report(data, report=ie.report(data), title="Classroom exercise")
    >>> page.splitlines()[0], "<title>Classroom exercise</title>" in page
    ('<!DOCTYPE html>', True)
    >>> page.count("<svg")  # heatmap, item agreement (two), coincidences, annotators; no forest plot without intervals
    5
    """
    n_boot = n_boot or 0  # None or 0: no bootstrap
    if report is not None:  # computed once by the caller: the page only draws it
        data = as_annotations(data, level=report.level)
        rep, boot = report, report.intervals
    else:
        data = as_annotations(data, level=level)
        rep = _report(data, weights=weights)
        boot = None
        if n_boot:
            from iaa_engine.inference._inference import bootstrap

            boot = bootstrap(data, n_boot=n_boot, seed=seed, confidence=CONFIDENCE, weights=weights, progress=progress)
    want_dis = data.has_item_counts and not data.fractional  # fractional weights: nothing to adjudicate
    want_card = (
        data.has_item_counts
        and data.annotators is not None
        and data.label is not None
        and (data.n_annotators or 0) >= 2
    )
    _ = data.counts  # built once, before the two threads below read it

    def _dis() -> Disagreements:
        return disagreements(
            data,
            top=max(ADJUDICATE_ITEMS, ADJUDICATE_PAIRS),
            items_per_pair=PAIR_ITEMS_SHOWN,
            dawid_skene="auto" if data.n_annotations <= HTML_DAWID_SKENE_MAX else False,
            progress=progress,
        )

    def _card() -> AnnotatorReport:  # the flags need no MACE EM (iaa annotators FILE shows its competence)
        return annotator_report(data, competence=False, progress=progress, **_drift_options(rep))

    dis: Disagreements | None = None
    card: AnnotatorReport | None = None
    if want_dis and want_card:
        # the adjudication list and the scorecard are independent, and most of their NumPy work releases the GIL:
        # computed side by side, the page waits for the longer one only
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=2) as pool:
            dis_job, card_job = pool.submit(_dis), pool.submit(_card)
            dis, card = dis_job.result(), card_job.result()
    elif want_dis:
        dis = _dis()
    elif want_card:
        card = _card()
    return render_page(data, rep, boot, item_summary(data, card), dis, card, title)


def render_page(
    data: Annotations,
    rep: Report,
    boot: BootstrapResult | None,
    items: ItemSummary,
    dis: Disagreements | None,
    card: AnnotatorReport | None,
    title: str | None,
) -> str:
    """The page from its parts, however they were computed (in memory by :func:`render_html_report`, or on a Dask
    cluster by :mod:`iaa_engine.engines._dask_html`): ``data`` gives the summary (categories, annotators; statistics
    only will do), ``items`` the pictures b-d."""
    from iaa_engine.base._version import __version__

    rows = _metric_rows(rep, boot)

    title = "Inter-annotator agreement report" if title is None else str(title)
    if boot is not None:
        intro = (
            f"Every agreement metric of the data with its {boot.confidence:.0%} {_boot_methods(rows)} "
            f"({boot.n_boot} resamplings of the items, seed {boot.seed})"
            + (", the analytic intervals where the report computed them" if rep.estimates else "")
            + ", and pictures of where annotators agree and disagree."
        )
    else:
        intro = (
            "Every agreement metric of the data (no bootstrap intervals: n_boot=0, or no --ci on the command "
            "line"
            + ("; the analytic intervals where the report computed them" if rep.estimates else "")
            + "), and pictures."
        )
    notes = ""
    if rep.notes:
        notes = (
            '<h2 id="notes">Notes</h2><ul class="notes">' + "".join(f"<li>{_esc(n)}</li>" for n in rep.notes) + "</ul>"
        )
    ann = "unknown" if rep.n_annotators is None else rep.n_annotators
    doc = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="iaa-engine {_esc(__version__)}">',
        f"<title>{_esc(title)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f'<header><h1>{_esc(title)}</h1><p class="lead">{_esc(intro)}</p>',
        _summary(data, rep),
        "</header>",
        '<h2 id="metrics">Metrics</h2>',
        _metrics_table(rows, boot, rep),
        _adjudicate_section(dis) if dis is not None else "",
        _annotators_section(card) if card is not None else "",
        _by_section(rep, card),
        '<h2 id="pictures">Pictures</h2>',
        _pictures(data, rep, rows, boot, items, dis, card),
        notes,
        f"<footer>iaa-engine {_esc(__version__)} · {rep.n_items:,} items, {_esc(ann)} annotators, "
        f"{rep.n_annotations:,} annotations · SPA headline weights: {_esc(rep.spa_weights)} · "
        "this file is self-contained (no scripts, no external resources).</footer>",
        "</main></body></html>",
    ]
    return "\n".join(doc) + "\n"


@validate(report=REPORT, n_boot=N_BOOT)
def write_html_report(
    data: Any,
    path: str | PathLike,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    weights: str = "annotations_m1",
    n_boot: int = 1000,
    seed: int | None = 0,
    title: str | None = None,
    progress: bool | None = None,
    report: Report | None = None,
) -> Path:
    """Write the agreement report of ``data`` as one self-contained HTML file.

    The page holds a summary of the data, one table of every metric of
    :func:`iaa_engine.report` with its analytic interval (where the report
    computed one) and its 95 % bootstrap interval (:func:`iaa_engine.bootstrap`),
    each labelled with its method, the items to adjudicate, the annotator
    scorecard (flags with their p-values and why; no MACE EM), and pictures
    drawn as inline SVG: the annotator × annotator Cohen's kappa heatmap, the
    distribution of item agreement, item agreement by number of annotations
    per item, the coincidence matrix and forest plots of the intervals.
    Pictures that do not apply (a count table has no annotators) are replaced
    by one line saying why. Nothing is loaded from elsewhere: no script, font
    or link.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations (see :func:`as_annotations`).
    path : str or path-like
        The file to write (UTF-8); an existing file is replaced.
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level for Krippendorff's alpha (default: the data's level).
    weights : str, default 'annotations_m1'
        SPA scheme marked as the headline (all six are shown).
    n_boot : int, default 1000
        Bootstrap replicates (2 to 100,000); 0 or None writes the page without intervals.
    seed : int, optional, default 0
        Seed of the bootstrap: the same seed gives the same page.
    title : str, optional
        Page title (default "Inter-annotator agreement report").
    progress : bool, optional
        Show the bootstrap's progress on stderr (default: only on a terminal).
    report : Report, optional
        A report already computed for ``data`` (by :func:`iaa_engine.report`, with ``ci=True`` for the intervals):
        the page draws it and its intervals instead of computing them again; ``level``, ``weights``, ``n_boot``
        and ``seed`` are then the report's. A report without intervals gives a page without them (no
        bootstrap is run).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The labels do not fit ``level``, or the data holds only statistics summed over items (the pictures and
        the bootstrap need per-item counts).
    OSError
        The file cannot be written.

    See Also
    --------
    render_html_report : The page as a string.
    report : The numbers without pictures.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37–46.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = ie.write_html_report(data, pathlib.Path(tmp) / "report.html", n_boot=200, seed=1)
    ...     text = out.read_text(encoding="utf-8")
    >>> out.name, text.count("<svg")  # the six pictures, with the forest plot of the intervals
    ('report.html', 6)
    """
    text = render_html_report(
        data, level=level, weights=weights, n_boot=n_boot, seed=seed, title=title, progress=progress, report=report
    )
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out
