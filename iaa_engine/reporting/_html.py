"""A self-contained HTML agreement report: the numbers of :func:`report` and :func:`bootstrap`, and pictures.

:func:`write_html_report` writes one HTML file that needs nothing else to be
read: the style sheet is embedded and every picture is an inline SVG written
here by plain string building (no plotting library, no script, no font or
file fetched from anywhere). The pictures are

a. the annotator × annotator Cohen's kappa heatmap,
b. the distribution of per-item agreement,
c. item agreement against the number of annotations per item,
d. Krippendorff's coincidence matrix (which categories are confused),
e. the bootstrap confidence intervals as a forest plot.

A picture that does not apply to the data (e.g. the heatmap of a count table,
which has no annotator identities) is replaced by one line saying why. Every
name that comes from the data (items, annotators, categories) is escaped with
:func:`html.escape`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from iaa_engine.base._policy import check_choice
from iaa_engine.base._results import PairwiseMatrix
from iaa_engine.data._model import LEVELS, Annotations, as_annotations
from iaa_engine.inference._inference import BootstrapResult, bootstrap
from iaa_engine.metrics._agreement import SPA_WEIGHTS, item_agreement
from iaa_engine.metrics._alpha import coincidence_matrix
from iaa_engine.metrics._registry import REPORT_METRICS, metric_spec
from iaa_engine.reporting._report import Report
from iaa_engine.reporting._report import report as _report

__all__ = ["render_html_report", "write_html_report"]

_REGISTERED = {s.name for s in REPORT_METRICS}

#: Coverage of the bootstrap percentile intervals shown in the report.
CONFIDENCE = 0.95
#: The kappa heatmap shows at most this many annotators (those with the most annotations).
HEATMAP_MAX_ANNOTATORS = 60
#: Up to this many annotators (or categories) the heatmap cells carry their numbers.
CELL_NUMBERS_MAX = 15
#: Names longer than this are shortened on the axes (the full name is in the cell's tooltip).
NAME_MAX_CHARS = 18

_FONT = 'system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", Arial, sans-serif'
_INK = "#222"
_MUTED = "#666"
_GRID = "#e3e3e3"
_BLUE = "#3b6ea8"
_ACCENT = "#c0392b"

# Diverging scale for coefficients in [-1, 1] (red: below chance, white: chance, blue: agreement).
_DIVERGING = [
    (-1.0, (178, 24, 43)),
    (-0.5, (239, 138, 98)),
    (0.0, (247, 247, 247)),
    (0.5, (103, 169, 207)),
    (1.0, (33, 102, 172)),
]
# Sequential scale for counts in [0, 1] of the maximum.
_SEQUENTIAL = [
    (0.0, (247, 251, 255)),
    (0.25, (198, 219, 239)),
    (0.5, (107, 174, 214)),
    (0.75, (33, 113, 181)),
    (1.0, (8, 48, 107)),
]

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
body {{ font-family: {_FONT}; color: {_INK}; background: #f4f5f7; margin: 0; line-height: 1.45; }}
main {{ max-width: 1100px; margin: 0 auto; padding: 24px 28px 40px; background: #fff; }}
h1 {{ font-size: 26px; margin: 4px 0 2px; }}
h2 {{ font-size: 20px; margin: 30px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #e6e8eb; }}
h3 {{ font-size: 16px; margin: 0 0 6px; }}
p.lead {{ color: {_MUTED}; margin: 0 0 16px; }}
.cards {{ display: grid; grid-template-columns: repeat(6, 1fr); gap: 10px; margin: 12px 0 8px; }}
.card {{ border: 1px solid #e2e5e9; border-radius: 8px; padding: 8px 12px; background: #fafbfc; }}
.card .v {{ font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }}
.card .k {{ font-size: 12.5px; color: {_MUTED}; }}
p.categories {{ font-size: 14px; margin: 6px 0 0; }}
table.metrics {{ border-collapse: collapse; width: 100%; font-size: 14px; }}
table.metrics th, table.metrics td {{ padding: 5px 9px; border-bottom: 1px solid #eceef1; text-align: left;
  vertical-align: top; }}
table.metrics th {{ background: #f2f4f7; font-weight: 600; }}
table.metrics td.num, table.metrics th.num {{ text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap; }}
table.metrics tr.group td {{ background: #fafbfc; font-weight: 600; color: #444; padding-top: 9px; }}
table.metrics tr.headline td.metric {{ font-weight: 600; }}
table.metrics code {{ font-size: 12px; color: {_MUTED}; }}
.undefined {{ color: #9a3412; font-style: italic; }}
td.note {{ font-size: 12.5px; color: {_MUTED}; max-width: 330px; }}
figure {{ margin: 0 0 22px; padding: 14px 16px 10px; border: 1px solid #e2e5e9; border-radius: 10px; }}
figure svg {{ display: block; max-width: 100%; height: auto; margin: 0 auto; }}
figcaption {{ font-size: 13.5px; color: #444; margin-top: 8px; }}
figure.skipped p {{ margin: 0; color: {_MUTED}; font-style: italic; }}
.pair {{ display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }}
.pair figure {{ margin-bottom: 22px; }}
ul.notes {{ font-size: 14px; }}
footer {{ margin-top: 28px; font-size: 12.5px; color: {_MUTED}; border-top: 1px solid #e6e8eb; padding-top: 8px; }}
"""


# --------------------------------------------------------------------------- small helpers


def _esc(value: Any) -> str:
    """HTML-escape any value shown in the page (also quotes, so it is safe inside attributes)."""
    return html.escape(str(value), quote=True)


def _short(value: Any, limit: int = NAME_MAX_CHARS, *, middle: bool = True) -> str:
    """A name shortened to ``limit`` characters (before escaping, so no entity is ever cut).

    The ellipsis goes in the middle by default: names such as ``team_a_worker_017`` often differ only at
    the end.
    """
    s = str(value)
    if len(s) <= limit:
        return s
    if not middle:
        return s[: limit - 1] + "…"
    head = (limit - 1) // 2
    return s[:head] + "…" + s[len(s) - (limit - 1 - head) :]


def _n(x: float) -> str:
    """A coordinate for SVG: at most two decimals, no trailing zeros."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _fmt(v: float | None, digits: int = 4) -> str:
    return "undefined" if v is None or not np.isfinite(v) else f"{v:.{digits}f}"


def _text_width(text: str, size: float) -> float:
    """Rough rendered width of ``text`` in a sans-serif font of ``size`` px."""
    return len(text) * size * 0.6


def _colour(stops: Sequence[tuple[float, tuple[int, int, int]]], t: float) -> str:
    t = min(max(t, stops[0][0]), stops[-1][0])
    for (p0, c0), (p1, c1) in zip(stops, stops[1:]):
        if t <= p1:
            f = 0.0 if p1 == p0 else (t - p0) / (p1 - p0)
            rgb = [round(a + (b - a) * f) for a, b in zip(c0, c1)]
            return "#{:02x}{:02x}{:02x}".format(*rgb)
    return "#{:02x}{:02x}{:02x}".format(*stops[-1][1])


def _luminance(hex_colour: str) -> float:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round tick values covering [lo, hi]."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    out = []
    v = first
    while v <= hi + step * 1e-9:
        out.append(round(v, 12))
        v += step
    return out


def _tick_label(v: float) -> str:
    if float(v).is_integer():
        return str(int(v))
    return f"{v:g}"


def _text(
    x: float,
    y: float,
    s: str,
    *,
    size: float = 12,
    anchor: str = "start",
    fill: str = _INK,
    weight: str | None = None,
    rotate: float | None = None,
    extra: str = "",
) -> str:
    """An SVG text element; ``s`` must already be escaped."""
    attrs = f'x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" fill="{fill}"'
    if weight:
        attrs += f' font-weight="{weight}"'
    if rotate is not None:
        attrs += f' transform="rotate({_n(rotate)} {_n(x)} {_n(y)})"'
    if extra:
        attrs += " " + extra
    return f"<text {attrs}>{s}</text>"


def _svg(fig_id: str, width: float, height: float, title: str, body: list[str]) -> str:
    """The outer SVG element with an accessible title and a visible one."""
    return (
        f'<svg class="chart" id="{fig_id}-svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" role="img" aria-labelledby="{fig_id}-title" '
        f'font-family="{_esc(_FONT)}">'
        f'<title id="{fig_id}-title">{_esc(title)}</title>'
        + _text(width / 2, 20, _esc(title), size=15, anchor="middle", weight="600")
        + "".join(body)
        + "</svg>"
    )


def _figure(fig_id: str, heading: str, svg: str, caption: str) -> str:
    return f'<figure id="{fig_id}"><h3>{_esc(heading)}</h3>{svg}<figcaption>{caption}</figcaption></figure>'


def _skipped(fig_id: str, heading: str, reason: str) -> str:
    return (
        f'<figure id="{fig_id}" class="skipped"><h3>{_esc(heading)}</h3>'
        f'<p class="skip">Not drawn: {_esc(reason)}</p></figure>'
    )


def _hatch_defs(prefix: str) -> str:
    """Patterns for undefined heatmap cells: light hatching (no shared item), dense hatching (0/0)."""
    return (
        "<defs>"
        f'<pattern id="{prefix}-none" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#f1f1f1"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#c4c4c4" stroke-width="2"/></pattern>'
        f'<pattern id="{prefix}-undef" width="5" height="5" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(-45)"><rect width="5" height="5" fill="#d9d9d9"/>'
        '<line x1="0" y1="0" x2="0" y2="5" stroke="#8a8a8a" stroke-width="1.6"/></pattern>'
        "</defs>"
    )


def _gradient(grad_id: str, stops: Sequence[tuple[float, tuple[int, int, int]]]) -> str:
    """A vertical gradient, top = highest value."""
    lo, hi = stops[0][0], stops[-1][0]
    parts = [
        f'<stop offset="{_n(100.0 * (hi - pos) / (hi - lo))}%" stop-color="#{r:02x}{g:02x}{b:02x}"/>'
        for pos, (r, g, b) in reversed(stops)
    ]
    return (
        f'<defs><linearGradient id="{grad_id}" x1="0" y1="0" x2="0" y2="1">'
        + "".join(parts)
        + "</linearGradient></defs>"
    )


def _colour_bar(
    x: float,
    y: float,
    height: float,
    grad_id: str,
    lo: float,
    hi: float,
    ticks: Sequence[float],
    label: str,
    fmt=_tick_label,
) -> list[str]:
    """A vertical colour legend with ticks on its right."""
    out = [
        _text(x, y - 10, _esc(label), size=12, fill=_INK, weight="600"),
        f'<rect x="{_n(x)}" y="{_n(y)}" width="14" height="{_n(height)}" fill="url(#{grad_id})" '
        'stroke="#999" stroke-width="0.6"/>',
    ]
    for t in ticks:
        ty = y + height * (hi - t) / (hi - lo)
        out.append(f'<line x1="{_n(x + 14)}" y1="{_n(ty)}" x2="{_n(x + 18)}" y2="{_n(ty)}" stroke="#777"/>')
        out.append(_text(x + 21, ty + 4, _esc(fmt(t)), size=11, fill=_MUTED))
    return out


# --------------------------------------------------------------------------- the numbers


def _metric_label(key: str, rep: Report) -> str:
    if key.startswith("spa["):
        w = key[4:-1]
        return f"SPA, {w} weights" + (" (headline)" if w == rep.spa_weights else "")
    if key == "krippendorff_alpha":
        return f"Krippendorff's alpha [{rep.level}]"
    if key == "spa_kappa":
        return f"{metric_spec('spa_kappa').label}, {rep.spa_weights} weights"
    return metric_spec(key).label if key in _REGISTERED else key


def _undefined_reason(key: str, rep: Report) -> str:
    """Why the report found ``key`` undefined, as the metric said it (recorded by name, never matched on text)."""
    return rep.reasons.get(key) or "undefined for this data (see the notes below)"


def _metric_rows(rep: Report, boot: BootstrapResult | None) -> list[dict[str, Any]]:
    """One row per scalar metric of the report, in display order, with its interval."""
    estimates = dict(rep.to_frame().itertuples(index=False, name=None))
    order = [k for _, keys in _GROUPS for k in keys if k in estimates]
    order += [k for k in estimates if k not in order]
    group_of = {k: g for g, keys in _GROUPS for k in keys}
    rows = []
    for key in order:
        est = float(estimates[key])
        row: dict[str, Any] = {
            "key": key,
            "label": _metric_label(key, rep),
            "group": group_of.get(key, "Other"),
            "estimate": est,
            "lower": np.nan,
            "upper": np.nan,
            "se": np.nan,
            "n_undefined": 0,
            "headline": key == f"spa[{rep.spa_weights}]",
            "note": "",
        }
        notes = []
        if not np.isfinite(est):
            notes.append(_undefined_reason(key, rep))
        if boot is not None and key in boot.table.index:
            b = boot.table.loc[key]
            row.update(
                lower=float(b["lower"]), upper=float(b["upper"]), se=float(b["se"]), n_undefined=int(b["n_undefined"])
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
    shown = f"{v:.{digits}f}" if v == 0 or abs(v) >= 0.5 * 10.0**-digits else f"{v:.2e}"
    return f'<td class="num" data-value="{float(v)!r}">{shown}</td>'


def _metrics_table(rows: list[dict[str, Any]], boot: BootstrapResult | None) -> str:
    head = (
        '<table class="metrics" id="metric-table"><thead><tr><th>metric</th><th class="num">estimate</th>'
        '<th class="num">lower</th><th class="num">upper</th><th class="num">se</th><th>note</th></tr></thead>'
        "<tbody>"
    )
    body = []
    group = None
    for r in rows:
        if r["group"] != group:
            group = r["group"]
            body.append(f'<tr class="group"><td colspan="6">{_esc(group)}</td></tr>')
        cls = ' class="headline"' if r["headline"] else ""
        if boot is None:
            interval = '<td class="num" data-value="nan">—</td>' * 3
        else:
            interval = _num_cell(r["lower"]) + _num_cell(r["upper"]) + _num_cell(r["se"])
        body.append(
            f'<tr data-metric="{_esc(r["key"])}"{cls}><td class="metric">{_esc(r["label"])} '
            f"<code>{_esc(r['key'])}</code></td>{_num_cell(r['estimate'])}{interval}"
            f'<td class="note">{_esc(r["note"])}</td></tr>'
        )
    return head + "".join(body) + "</tbody></table>"


# --------------------------------------------------------------------------- a. kappa heatmap


def _kappa_heatmap(matrix: PairwiseMatrix, fig_id: str) -> tuple[str, str]:
    names_all = list(matrix.annotators)
    n_all = len(names_all)
    per_annotator = np.diag(matrix.n_shared).astype(np.int64)
    idx = np.arange(n_all)
    if n_all > HEATMAP_MAX_ANNOTATORS:
        top = np.argsort(-per_annotator, kind="stable")[:HEATMAP_MAX_ANNOTATORS]
        idx = np.sort(top)
    names = [names_all[i] for i in idx]
    vals = matrix.values[np.ix_(idx, idx)]
    shared = matrix.n_shared[np.ix_(idx, idx)]
    a = len(names)

    plot = 620.0 if a > 6 else 360.0
    cell = min(max(plot / a, 6.0), 70.0)
    plot = cell * a
    font = min(12.0, max(6.5, cell * 0.78))
    labels = [_short(s) for s in names]
    label_w = max(_text_width(s, font) for s in labels)
    rotate_cols = label_w > cell - 4
    x0 = 34 + label_w + 6
    y0 = 44.0
    legend_x = x0 + plot + 34
    width = legend_x + 205
    height = y0 + plot + 8 + (label_w if rotate_cols else 18) + 34
    show_numbers = a <= CELL_NUMBERS_MAX
    show_shared = a <= 8
    prefix = f"{fig_id}-p"

    body = [_hatch_defs(prefix), _gradient(f"{fig_id}-grad", _DIVERGING)]
    cells = []
    for i in range(a):
        for j in range(a):
            x, y = x0 + j * cell, y0 + i * cell
            v, s = vals[i, j], int(shared[i, j])
            who = f"{names[i]} × {names[j]}"
            if i == j:
                fill, tip = "#e9e9e9", f"{names[i]}: {s} item(s) annotated"
            elif s == 0:
                fill, tip = f"url(#{prefix}-none)", f"{who}: no shared item"
            elif not np.isfinite(v):
                fill, tip = f"url(#{prefix}-undef)", f"{who}: kappa undefined on {s} shared item(s) (one category only)"
            else:
                fill, tip = _colour(_DIVERGING, float(v)), f"{who}: kappa {v:.3f} on {s} shared item(s)"
            stroke = ' stroke="#fff" stroke-width="0.6"' if cell >= 8 else ""
            cells.append(
                f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(cell)}" height="{_n(cell)}" fill="{fill}"'
                f"{stroke}><title>{_esc(tip)}</title></rect>"
            )
            if show_numbers and i != j and s > 0 and np.isfinite(v):
                size = min(13.0, cell * 0.3)
                ink = "#fff" if _luminance(fill) < 0.5 else _INK
                cy = y + cell / 2 + (size * 0.35 if not show_shared else -1)
                cells.append(_text(x + cell / 2, cy, f"{v:.2f}", size=size, anchor="middle", fill=ink))
                if show_shared:
                    cells.append(
                        _text(x + cell / 2, cy + size * 1.05, f"n={s}", size=size * 0.75, anchor="middle", fill=ink)
                    )
    body += cells
    body += _grid_frame(x0, y0, plot, cell, labels, font, rotate_cols)
    body.append(
        _text(
            14,
            y0 + plot / 2,
            "annotator (row)",
            size=13,
            anchor="middle",
            rotate=-90,
            weight="600",
            extra='dy="0.35em"',
        )
    )
    body.append(_text(x0 + plot / 2, height - 10, "annotator (column)", size=13, anchor="middle", weight="600"))
    bar_h = min(max(plot * 0.6, 150.0), 260.0)
    by = y0 + 18
    body += _colour_bar(legend_x, by, bar_h, f"{fig_id}-grad", -1.0, 1.0, [-1, -0.5, 0, 0.5, 1], "Cohen's kappa")
    body.append(_text(legend_x + 48, by + 10, "agreement", size=10.5, fill=_MUTED))
    body.append(_text(legend_x + 48, by + bar_h / 2 + 14, "chance level", size=10.5, fill=_MUTED))
    body.append(_text(legend_x + 48, by + bar_h - 4, "below chance", size=10.5, fill=_MUTED))
    sy = by + bar_h + 26
    for fill, lab in (
        (f"url(#{prefix}-none)", "no shared item"),
        (f"url(#{prefix}-undef)", "undefined (one category)"),
        ("#e9e9e9", "same annotator"),
    ):
        body.append(
            f'<rect x="{_n(legend_x)}" y="{_n(sy)}" width="14" height="14" fill="{fill}" stroke="#999" '
            'stroke-width="0.6"/>'
        )
        body.append(_text(legend_x + 21, sy + 11, _esc(lab), size=11, fill=_MUTED))
        sy += 22
    svg = _svg(fig_id, width, height, "Cohen's kappa for every pair of annotators", body)

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
    if not show_numbers:
        caption += f" With {a} annotators the cells carry no numbers; hover for the values."
    if n_all > a:
        caption += f" Only the {a} annotators with the most annotations of the {n_all} are shown (in name order)."
    return svg, caption


# --------------------------------------------------------------------------- b. distribution of item agreement


def _histogram(p: np.ndarray, mean: float, fig_id: str) -> tuple[str, str]:
    width, height = 520.0, 340.0
    x0, y0, pw, ph = 58.0, 44.0, 440.0, 228.0
    edges = np.linspace(0.0, 1.0, 11)
    counts, _ = np.histogram(p, bins=edges)
    ymax = max(int(counts.max(initial=0)), 1)
    yt = _nice_ticks(0, ymax, 5)
    top = max(yt[-1], ymax)
    if top < ymax * 1.08:  # headroom for the count labels
        step = yt[1] - yt[0] if len(yt) > 1 else 1
        top = yt[-1] + step
        yt.append(top)

    def sx(v: float) -> float:
        return x0 + pw * v

    def sy(v: float) -> float:
        return y0 + ph * (1 - v / top)

    body = []
    for t in yt:
        body.append(f'<line x1="{_n(x0)}" y1="{_n(sy(t))}" x2="{_n(x0 + pw)}" y2="{_n(sy(t))}" stroke="{_GRID}"/>')
        body.append(_text(x0 - 6, sy(t) + 4, _tick_label(t), size=11, anchor="end", fill=_MUTED))
    for k, c in enumerate(counts):
        bx, bw = sx(edges[k]) + 1, sx(edges[k + 1]) - sx(edges[k]) - 2
        lo, hi = edges[k], edges[k + 1]
        tip = f"{int(c)} item(s) with agreement in [{lo:.1f}, {hi:.1f}{']' if k == len(counts) - 1 else ')'}"
        body.append(
            f'<rect x="{_n(bx)}" y="{_n(sy(c))}" width="{_n(bw)}" height="{_n(sy(0) - sy(c))}" '
            f'fill="{_BLUE}"><title>{_esc(tip)}</title></rect>'
        )
        if c:
            body.append(_text(bx + bw / 2, sy(c) - 4, str(int(c)), size=10.5, anchor="middle", fill=_MUTED))
    body.append(f'<line x1="{_n(x0)}" y1="{_n(sy(0))}" x2="{_n(x0 + pw)}" y2="{_n(sy(0))}" stroke="#888"/>')
    for t in np.linspace(0, 1, 6):
        body.append(f'<line x1="{_n(sx(t))}" y1="{_n(sy(0))}" x2="{_n(sx(t))}" y2="{_n(sy(0) + 4)}" stroke="#888"/>')
        body.append(_text(sx(t), sy(0) + 17, f"{t:.1f}", size=11, anchor="middle", fill=_MUTED))
    if np.isfinite(mean):
        mx = sx(mean)
        body.append(
            f'<line x1="{_n(mx)}" y1="{_n(y0)}" x2="{_n(mx)}" y2="{_n(sy(0))}" stroke="{_ACCENT}" '
            'stroke-width="1.8" stroke-dasharray="5 4"/>'
        )
        anchor, dx = ("end", -5) if mean > 0.62 else ("start", 5)
        body.append(_text(mx + dx, y0 + 11, f"mean {mean:.3f}", size=11.5, anchor=anchor, fill=_ACCENT, weight="600"))
    body.append(
        _text(
            x0 + pw / 2,
            height - 18,
            "item agreement (share of agreeing pairs of annotations)",
            size=12.5,
            anchor="middle",
            weight="600",
        )
    )
    body.append(
        _text(16, y0 + ph / 2, "items", size=12.5, anchor="middle", rotate=-90, weight="600", extra='dy="0.35em"')
    )
    svg = _svg(fig_id, width, height, "Distribution of item agreement", body)
    caption = (
        f"How the {p.size} items with two or more annotations spread: 0 means no two annotations of the item "
        "agree, 1 means all agree. Bins are 0.1 wide (the last includes 1). The dashed line is the mean, the "
        "joint probability of agreement."
    )
    return svg, caption


# --------------------------------------------------------------------------- c. agreement by annotations per item


def _by_n(p: np.ndarray, n: np.ndarray, overall: float, n_single: int, fig_id: str) -> tuple[str, str]:
    frame = pd.DataFrame({"n": n.astype(np.int64), "p": p})
    g = frame.groupby("n")["p"]
    stats = pd.DataFrame(
        {
            "mean": g.mean(),
            "q25": g.quantile(0.25),
            "q75": g.quantile(0.75),
            "min": g.min(),
            "max": g.max(),
            "count": g.size(),
        }
    ).sort_index()
    k = len(stats)
    width, height = 520.0, 350.0
    x0, pw = 58.0, 440.0
    y0, ph = 56.0, 170.0  # top panel: agreement
    b0, bh = y0 + ph + 30, 44.0  # bottom panel: item counts
    col = pw / k

    def sy(v: float) -> float:
        return y0 + ph * (1 - v)

    body = []
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        body.append(f'<line x1="{_n(x0)}" y1="{_n(sy(t))}" x2="{_n(x0 + pw)}" y2="{_n(sy(t))}" stroke="{_GRID}"/>')
        body.append(_text(x0 - 6, sy(t) + 4, _tick_label(t), size=11, anchor="end", fill=_MUTED))
    if np.isfinite(overall):
        body.append(
            f'<line x1="{_n(x0)}" y1="{_n(sy(overall))}" x2="{_n(x0 + pw)}" y2="{_n(sy(overall))}" '
            f'stroke="{_ACCENT}" stroke-width="1.2" stroke-dasharray="5 4"/>'
        )
    cmax = int(stats["count"].max())
    label_step = max(1, math.ceil(k / 20))
    bar_w = min(max(col * 0.32, 3.0), 14.0)
    r = min(max(col * 0.18, 2.2), 5.0)
    for pos, (nv, s) in enumerate(stats.iterrows()):
        cx = x0 + (pos + 0.5) * col
        tip = (
            f"n = {nv}: {int(s['count'])} item(s), mean agreement {s['mean']:.3f}, middle half "
            f"{s['q25']:.3f}-{s['q75']:.3f}, range {s['min']:.3f}-{s['max']:.3f}"
        )
        body.append(
            f"<g><title>{_esc(tip)}</title>"
            f'<line x1="{_n(cx)}" y1="{_n(sy(s["min"]))}" x2="{_n(cx)}" y2="{_n(sy(s["max"]))}" '
            'stroke="#9aa7b5" stroke-width="1.2"/>'
            f'<rect x="{_n(cx - bar_w / 2)}" y="{_n(sy(s["q75"]))}" width="{_n(bar_w)}" '
            f'height="{_n(max(sy(s["q25"]) - sy(s["q75"]), 1.0))}" fill="#c9d8ea" stroke="#8fa9c7" '
            'stroke-width="0.8"/>'
            f'<circle cx="{_n(cx)}" cy="{_n(sy(s["mean"]))}" r="{_n(r)}" fill="{_BLUE}" stroke="#fff" '
            'stroke-width="1"/></g>'
        )
        hb = bh * s["count"] / cmax
        count_tip = _esc(f"n = {nv}: {int(s['count'])} item(s)")
        bw = min(col * 0.7, 60.0)
        body.append(
            f'<rect x="{_n(cx - bw / 2)}" y="{_n(b0 + bh - hb)}" width="{_n(bw)}" '
            f'height="{_n(max(hb, 0.8))}" fill="#b9bec6"><title>{count_tip}</title></rect>'
        )
        if k <= 20:
            body.append(_text(cx, b0 + bh - hb - 3, str(int(s["count"])), size=10, anchor="middle", fill=_MUTED))
        if pos % label_step == 0:
            body.append(_text(cx, b0 + bh + 15, str(nv), size=11, anchor="middle", fill=_MUTED))
    body.append(f'<line x1="{_n(x0)}" y1="{_n(b0 + bh)}" x2="{_n(x0 + pw)}" y2="{_n(b0 + bh)}" stroke="#888"/>')
    body.append(
        _text(
            16, y0 + ph / 2, "item agreement", size=12.5, anchor="middle", rotate=-90, weight="600", extra='dy="0.35em"'
        )
    )
    body.append(_text(x0 - 6, b0 + bh / 2 + 4, "items", size=11, anchor="end", fill=_MUTED))
    body.append(_text(x0 + pw / 2, height - 10, "annotations per item (n)", size=12.5, anchor="middle", weight="600"))
    # legend
    lx, ly = x0 + 4, y0 - 14
    body.append(f'<circle cx="{_n(lx + 4)}" cy="{_n(ly - 4)}" r="4" fill="{_BLUE}"/>')
    body.append(_text(lx + 12, ly, "mean", size=10.5, fill=_MUTED))
    body.append(f'<rect x="{_n(lx + 48)}" y="{_n(ly - 9)}" width="7" height="11" fill="#c9d8ea" stroke="#8fa9c7"/>')
    body.append(_text(lx + 59, ly, "middle 50 %", size=10.5, fill=_MUTED))
    body.append(
        f'<line x1="{_n(lx + 134)}" y1="{_n(ly - 10)}" x2="{_n(lx + 134)}" y2="{_n(ly + 2)}" '
        'stroke="#9aa7b5" stroke-width="1.2"/>'
    )
    body.append(_text(lx + 140, ly, "range", size=10.5, fill=_MUTED))
    if np.isfinite(overall):
        body.append(
            f'<line x1="{_n(lx + 186)}" y1="{_n(ly - 4)}" x2="{_n(lx + 206)}" y2="{_n(ly - 4)}" '
            f'stroke="{_ACCENT}" stroke-dasharray="4 3" stroke-width="1.2"/>'
        )
        body.append(_text(lx + 210, ly, f"overall mean {overall:.3f}", size=10.5, fill=_ACCENT))
    svg = _svg(fig_id, width, height, "Agreement by number of annotations per item", body)
    caption = (
        "For each number of annotations n, the mean agreement of the items with n annotations (dot), the "
        "middle half of them (box) and their range (line); the grey bars below count the items at each n. "
        "A trend here means the agreement depends on how often an item was annotated."
    )
    if n_single:
        caption += f" {n_single} item(s) with a single annotation have no agreement and are left out."
    return svg, caption


# --------------------------------------------------------------------------- d. coincidence matrix


def _coincidence(o: np.ndarray, categories: Sequence[Any], fig_id: str) -> tuple[str, str]:
    c = len(categories)
    labels = [_short(s) for s in categories]
    cell = min(max(380.0 / c, 10.0), 72.0)
    plot = cell * c
    font = min(12.0, max(6.5, cell * 0.7))
    label_w = max(_text_width(s, font) for s in labels)
    rotate_cols = c > 6 or label_w > cell - 4
    col_label_h = label_w + 8 if rotate_cols else 18
    x0 = 34 + label_w + 8
    y0 = 44.0
    totals = o.sum(axis=1)
    tot_w = max(_text_width(f"{t:.1f}", 11) for t in totals) + 12
    legend_x = x0 + plot + tot_w + 30
    width = max(legend_x + 120, 520.0)
    height = y0 + plot + col_label_h + 36
    vmax = float(o.max(initial=0.0)) or 1.0
    integral = bool(np.allclose(o, np.round(o)))
    show_numbers = c <= CELL_NUMBERS_MAX

    body = [_gradient(f"{fig_id}-grad", _SEQUENTIAL)]
    for i in range(c):
        for j in range(c):
            v = float(o[i, j])
            fill = _colour(_SEQUENTIAL, v / vmax)
            x, y = x0 + j * cell, y0 + i * cell
            tip = f"{categories[i]} with {categories[j]}: {v:.2f} coincidence(s)"
            stroke = ' stroke="#fff" stroke-width="0.8"' if cell >= 8 else ""
            body.append(
                f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(cell)}" height="{_n(cell)}" fill="{fill}"'
                f"{stroke}><title>{_esc(tip)}</title></rect>"
            )
            if show_numbers:
                size = min(13.0, cell * 0.3)
                ink = "#fff" if _luminance(fill) < 0.5 else _INK
                txt = f"{v:.0f}" if integral else f"{v:.1f}"
                body.append(
                    _text(
                        x + cell / 2,
                        y + cell / 2 + size * 0.35,
                        txt,
                        size=size,
                        anchor="middle",
                        fill=ink,
                        weight="600" if i == j else None,
                    )
                )
    body += _grid_frame(x0, y0, plot, cell, labels, font, rotate_cols)
    for i in range(len(labels)):
        cy = y0 + (i + 0.5) * cell
        if show_numbers or c <= 40:
            body.append(
                _text(
                    x0 + plot + 8,
                    cy + 4,
                    f"{totals[i]:.0f}" if integral else f"{totals[i]:.1f}",
                    size=min(11.0, font),
                    fill=_MUTED,
                )
            )
    body.append(_text(x0 + plot + 8, y0 - 6, "total", size=10.5, fill=_MUTED))
    body.append(
        _text(14, y0 + plot / 2, "category", size=13, anchor="middle", rotate=-90, weight="600", extra='dy="0.35em"')
    )
    body.append(
        _text(x0 + plot / 2, height - 10, "category of a paired annotation", size=13, anchor="middle", weight="600")
    )
    ticks = _nice_ticks(0, vmax, 4)
    body += _colour_bar(
        legend_x, y0 + 18, min(max(plot * 0.8, 120.0), 220.0), f"{fig_id}-grad", 0.0, vmax, ticks, "coincidences"
    )
    svg = _svg(fig_id, width, height, "Coincidence matrix: which categories meet on the same item", body)
    caption = (
        "Krippendorff's coincidence matrix: every ordered pair of annotations of the same item adds "
        "1/(n − 1) to the cell of its two categories, so each item contributes its n annotations in total "
        "(items with one annotation add nothing). The diagonal counts agreements; off-diagonal cells show which "
        "categories annotators confuse. The matrix is symmetric; the row totals are the category frequencies."
    )
    if not show_numbers:
        caption += f" With {c} categories the cells carry no numbers; hover for the values."
    return svg, caption


# --------------------------------------------------------------------------- e. forest plot


def _forest(rows: list[dict[str, Any]], boot: BootstrapResult, fig_id: str) -> tuple[str, str]:
    width = 1000.0
    label_x, x0, pw = 20.0, 330.0, 440.0
    text_x = x0 + pw + 24
    row_h, group_h = 22.0, 24.0
    y = 58.0
    finite = [v for r in rows for v in (r["estimate"], r["lower"], r["upper"]) if np.isfinite(v)]
    lo = min([0.0, *finite])
    hi = max([1.0, *finite])
    lo = math.floor(lo * 10 + 1e-9) / 10
    hi = math.ceil(hi * 10 - 1e-9) / 10

    def sx(v: float) -> float:
        return x0 + pw * (v - lo) / (hi - lo)

    layout = []
    group = None
    for r in rows:
        if r["group"] != group:
            group = r["group"]
            y += 8 if layout else 0
            layout.append(("group", group, y))
            y += group_h
        layout.append(("row", r, y))
        y += row_h
    y_end = y + 4
    height = y_end + 52

    body = []
    ticks = _nice_ticks(lo, hi, 8)
    for t in ticks:
        strong = abs(t) < 1e-12
        body.append(
            f'<line x1="{_n(sx(t))}" y1="44" x2="{_n(sx(t))}" y2="{_n(y_end)}" '
            f'stroke="{"#999" if strong else _GRID}" stroke-width="{1.2 if strong else 1}"/>'
        )
        body.append(_text(sx(t), y_end + 16, _tick_label(t), size=11, anchor="middle", fill=_MUTED))
    body.append(f'<line x1="{_n(x0)}" y1="{_n(y_end)}" x2="{_n(x0 + pw)}" y2="{_n(y_end)}" stroke="#888"/>')
    body.append(_text(text_x, 48, f"estimate [{CONFIDENCE:.0%} interval]", size=11.5, fill=_MUTED, weight="600"))
    for kind, item, yy in layout:
        if kind == "group":
            body.append(_text(label_x, yy + 15, _esc(item), size=12.5, weight="700", fill="#444"))
            continue
        r = item
        cy = yy + row_h / 2
        est, l, u = r["estimate"], r["lower"], r["upper"]
        ink = _INK if np.isfinite(est) else "#999"
        if r["headline"]:
            body.append(
                f'<rect x="{_n(label_x - 6)}" y="{_n(yy)}" width="{_n(width - label_x - 8)}" '
                f'height="{_n(row_h)}" fill="#f3f6fa"/>'
            )
        body.append(
            _text(
                label_x + 10,
                cy + 4,
                _esc(_short(r["label"], 44, middle=False)),
                size=12,
                fill=ink,
                weight="600" if r["headline"] else None,
            )
        )
        if np.isfinite(l) and np.isfinite(u):
            body.append(
                f'<line x1="{_n(sx(l))}" y1="{_n(cy)}" x2="{_n(sx(u))}" y2="{_n(cy)}" stroke="{_BLUE}" '
                'stroke-width="2.2"/>'
            )
            for v in (l, u):
                body.append(
                    f'<line x1="{_n(sx(v))}" y1="{_n(cy - 5)}" x2="{_n(sx(v))}" y2="{_n(cy + 5)}" '
                    f'stroke="{_BLUE}" stroke-width="1.6"/>'
                )
        if np.isfinite(est):
            body.append(
                f'<circle cx="{_n(sx(est))}" cy="{_n(cy)}" r="4.5" fill="{_ACCENT}" stroke="#fff" '
                f'stroke-width="1"><title>{_esc(r["label"])}: {est:.4f}</title></circle>'
            )
            scale = max(abs(v) for v in (est, l, u) if np.isfinite(v))
            d = 3 if scale >= 0.01 or scale == 0 else 2 - math.floor(math.log10(scale))
            interval = f"[{l:.{d}f}, {u:.{d}f}]" if np.isfinite(l) and np.isfinite(u) else "(no interval)"
            body.append(
                _text(
                    text_x,
                    cy + 4,
                    f"{est:.{d}f} {interval}",
                    size=12,
                    fill=_INK,
                    extra='font-variant-numeric="tabular-nums"',
                )
            )
        else:
            body.append(_text(text_x, cy + 4, "undefined", size=12, fill="#9a3412", extra='font-style="italic"'))
    body.append(_text(x0 + pw / 2, height - 12, "value of the metric", size=12.5, anchor="middle", weight="600"))
    body.append(_text(label_x, height - 12, "metric", size=12.5, weight="600"))
    svg = _svg(fig_id, width, height, f"Estimates with {CONFIDENCE:.0%} bootstrap intervals", body)
    caption = (
        f"One row per metric: the estimate on the data (dot) and its {CONFIDENCE:.0%} percentile bootstrap "
        f"interval (line) from {boot.n_boot} resamplings of the items (seed {boot.seed}). Raw agreement is a "
        "probability (0 to 1); the chance-corrected coefficients are 0 at chance level and 1 at perfect agreement. "
        "A biased statistic such as the annotator bias can have its estimate outside its interval."
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


def _pictures(data: Annotations, rep: Report, rows: list[dict[str, Any]], boot: BootstrapResult | None) -> str:
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
    elif rep.n_annotators < 2:
        parts.append(_skipped("fig-kappa", head_a, "the data has a single annotator."))
    else:
        parts.append(_figure("fig-kappa", head_a, *_kappa_heatmap(rep.matrices["cohen_kappa"], "fig-kappa")))

    # b. and c.
    p = item_agreement(data).to_numpy(dtype=float)
    n = np.asarray(data.counts.n_i, dtype=float)
    ok = n >= 2
    overall = rep.values.get("joint_probability", np.nan)
    head_b, head_c = "b. Distribution of item agreement", "c. Agreement and annotations per item"
    if not ok.any():
        why = "no item has two or more annotations, so no item has an agreement."
        pair = [_skipped("fig-items", head_b, why), _skipped("fig-by-n", head_c, why)]
    else:
        pair = [
            _figure("fig-items", head_b, *_histogram(p[ok], overall, "fig-items")),
            _figure("fig-by-n", head_c, *_by_n(p[ok], n[ok], overall, int(np.sum(~ok)), "fig-by-n")),
        ]
    parts.append('<div class="pair">' + "".join(pair) + "</div>")

    # d. coincidences
    head_d = "d. Which categories are confused"
    if not ok.any():
        parts.append(
            _skipped(
                "fig-coincidence", head_d, "no item has two or more annotations, so no two annotations can be compared."
            )
        )
    elif rep.n_categories > 80:
        parts.append(
            _skipped("fig-coincidence", head_d, f"{rep.n_categories} categories are too many for a legible matrix.")
        )
    else:
        o = coincidence_matrix(data)
        parts.append(_figure("fig-coincidence", head_d, *_coincidence(o, list(data.categories), "fig-coincidence")))

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
    return "".join(parts)


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

    Parameters are those of :func:`write_html_report`.
    """
    if level is not None:
        check_choice("level", level, LEVELS)
    check_choice("weights", weights, SPA_WEIGHTS)
    if n_boot is None or (isinstance(n_boot, (int, np.integer)) and not isinstance(n_boot, bool) and n_boot == 0):
        n_boot = 0
    if report is not None:  # computed once by the caller: the page only draws it
        if not isinstance(report, Report):
            raise TypeError(
                f"report must be an iaa_engine.Report (from iaa_engine.report); got {type(report).__name__}"
            )
        data = as_annotations(data, level=report.level)
        rep, boot = report, report.intervals
    else:
        data = as_annotations(data, level=level)
        rep = _report(data, weights=weights)
        boot = None
        if n_boot:
            boot = bootstrap(data, n_boot=n_boot, seed=seed, confidence=CONFIDENCE, weights=weights, progress=progress)
    rows = _metric_rows(rep, boot)

    from iaa_engine.base._version import __version__

    title = "Inter-annotator agreement report" if title is None else str(title)
    if boot is not None:
        intro = (
            f"Every agreement metric of the data with its {CONFIDENCE:.0%} percentile bootstrap interval "
            f"({boot.n_boot} resamplings of the items, seed {boot.seed}), and pictures of where annotators "
            "agree and disagree."
        )
    else:
        intro = (
            "Every agreement metric of the data (no bootstrap intervals: n_boot=0, or no --ci on the command "
            "line), and pictures."
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
        _metrics_table(rows, boot),
        '<h2 id="pictures">Pictures</h2>',
        _pictures(data, rep, rows, boot),
        notes,
        f"<footer>iaa-engine {_esc(__version__)} · {rep.n_items:,} items, {_esc(ann)} annotators, "
        f"{rep.n_annotations:,} annotations · SPA headline weights: {_esc(rep.spa_weights)} · "
        "this file is self-contained (no scripts, no external resources).</footer>",
        "</main></body></html>",
    ]
    return "\n".join(doc) + "\n"


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

    The page holds a summary of the data, a table of every scalar metric of
    :func:`iaa_engine.report` with its 95 % percentile bootstrap interval
    (:func:`iaa_engine.bootstrap`), and five pictures drawn as inline SVG: the
    annotator × annotator Cohen's kappa heatmap, the distribution of item
    agreement, item agreement by number of annotations per item, the
    coincidence matrix and a forest plot of the intervals. Pictures that do
    not apply (a count table has no annotators) are replaced by one line
    saying why. Nothing is loaded from elsewhere: no script, font or link.

    Parameters
    ----------
    data : Annotations or convertible
    path : str or path-like
        The file to write (UTF-8); an existing file is replaced.
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level for Krippendorff's alpha (default: the data's level).
    weights : str
        SPA scheme marked as the headline (all six are shown).
    n_boot : int
        Bootstrap replicates; ``0`` skips the bootstrap (no intervals, no forest plot).
    seed : int, optional
        Seed of the bootstrap: the same seed writes the same file.
    title : str, optional
        Page title (default "Inter-annotator agreement report").
    progress : bool, optional
        Show the bootstrap's progress on stderr (default: only on a terminal).
    report : Report, optional
        A report already computed for ``data`` (by :func:`iaa_engine.report`, with ``ci=True`` for the intervals):
        the page draws it and its intervals instead of computing them again; ``level``, ``weights``, ``n_boot``
        and ``seed`` are then the report's.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    text = render_html_report(
        data, level=level, weights=weights, n_boot=n_boot, seed=seed, title=title, progress=progress, report=report
    )
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out


def _grid_frame(
    x0: float, y0: float, plot: float, cell: float, labels: list, font: float, rotate_cols: bool
) -> list[str]:
    """The border of a square heatmap and its row and column labels."""
    out = [
        f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(plot)}" height="{_n(plot)}" fill="none" '
        'stroke="#999" stroke-width="0.8"/>'
    ]
    for i, lab in enumerate(labels):
        out.append(_text(x0 - 5, y0 + (i + 0.5) * cell + font * 0.35, _esc(lab), size=font, anchor="end"))
        cx = x0 + (i + 0.5) * cell
        if rotate_cols:
            out.append(_text(cx, y0 + plot + 5, _esc(lab), size=font, anchor="end", rotate=-90, extra='dy="0.35em"'))
        else:
            out.append(_text(cx, y0 + plot + 15, _esc(lab), size=font, anchor="middle"))
    return out
