"""The HTML report's section "Agreement by group and over time": :func:`iaa_engine.agreement_by` drawn.

Time windows get a trend plot per coefficient (the estimate of each window with its interval as an error bar, in
time order, drawn in the style of :mod:`iaa_engine.reporting._draw`); groups of a column get a forest plot
(:func:`~iaa_engine.reporting._draw.interval_plot`). Below: the numbers, the tests between groups, and with a time
column each annotator's agreement per window (the scorecard's ``drift``). Every name from the data is escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.reporting._draw import (
    _ACCENT,
    _BLUE,
    _GRID,
    MUTED,
    _check_id,
    _esc,
    _n,
    _nice_ticks,
    _short,
    _svg,
    _text,
    _tick_label,
    _vector,
    interval_plot,
)

__all__ = ["by_section", "trend_plot"]

#: The drift table shows at most this many annotators (those with the most pairable annotations).
DRIFT_ANNOTATORS = 30


def trend_plot(
    labels: Sequence[Any],
    estimates: Any,
    lower: Any,
    upper: Any,
    *,
    id_prefix: str,
    title: str,
    y_title: str = "value",
    x_title: str = "window",
    include: tuple[float, float] = (0.0, 1.0),
) -> str:
    """Estimates over ordered windows: a dot per window at its estimate, an error bar from the lower to the upper
    end of its interval, a thin line joining consecutive defined estimates; window labels below (every k-th when
    many). A NaN estimate draws nothing but a small cross on the axis; an interval with a NaN end no bar.

    Returns one ``<svg>`` element; raises ``ValueError`` for no window or arrays of another length."""
    _check_id(id_prefix)
    names = [str(v) for v in labels]
    n = len(names)
    if n == 0:
        raise ValueError("trend_plot needs at least one window; got none")
    est, low, high = (_vector(k, v, n) for k, v in (("estimates", estimates), ("lower", lower), ("upper", upper)))
    width, x0, y0, ph = 1000.0, 80.0, 50.0, 230.0
    pw = width - x0 - 30
    finite = [float(v) for a in (est, low, high) for v in a if np.isfinite(v)]
    lo = math.floor(min([include[0], *finite]) * 10 + 1e-9) / 10
    hi = math.ceil(max([include[1], *finite]) * 10 - 1e-9) / 10
    hi = hi if hi > lo else lo + 0.1
    step = pw / n

    def sx(i: int) -> float:
        return x0 + (i + 0.5) * step

    def sy(v: float) -> float:
        return y0 + ph * (hi - v) / (hi - lo)

    body = []
    for t in _nice_ticks(lo, hi, 6):
        body.append(
            f'<line x1="{_n(x0)}" y1="{_n(sy(t))}" x2="{_n(x0 + pw)}" y2="{_n(sy(t))}" '
            f'stroke="{"#999" if abs(t) < 1e-12 else _GRID}"/>'
        )
        body.append(_text(x0 - 6, sy(t) + 4, _tick_label(t), size=11, anchor="end", fill=MUTED))
    body.append(f'<line x1="{_n(x0)}" y1="{_n(y0 + ph)}" x2="{_n(x0 + pw)}" y2="{_n(y0 + ph)}" stroke="#888"/>')
    every = max(1, math.ceil(n / 26))
    for i in range(0, n, every):
        body.append(
            _text(sx(i), y0 + ph + 8, _esc(_short(names[i], 12)), size=10.5, anchor="end", fill=MUTED,
                  rotate=-55, extra='dy="0.35em"')
        )  # fmt: skip
    ok = np.flatnonzero(np.isfinite(est))
    if ok.size > 1:
        points = " ".join(f"{_n(sx(int(i)))},{_n(sy(float(est[i])))}" for i in ok)
        body.append(f'<polyline points="{points}" fill="none" stroke="{_BLUE}" stroke-width="1" opacity="0.55"/>')
    for i in range(n):
        if np.isfinite(low[i]) and np.isfinite(high[i]):
            x = sx(i)
            body.append(
                f'<line x1="{_n(x)}" y1="{_n(sy(low[i]))}" x2="{_n(x)}" y2="{_n(sy(high[i]))}" stroke="{_BLUE}" '
                'stroke-width="1.8"/>'
            )
            for v in (low[i], high[i]):
                body.append(
                    f'<line x1="{_n(x - 3)}" y1="{_n(sy(v))}" x2="{_n(x + 3)}" y2="{_n(sy(v))}" stroke="{_BLUE}" '
                    'stroke-width="1.4"/>'
                )
        if np.isfinite(est[i]):
            tip = f"{names[i]}: {est[i]:.4f}" + (
                f" [{low[i]:.4f}, {high[i]:.4f}]" if np.isfinite(low[i]) and np.isfinite(high[i]) else ""
            )
            body.append(
                f'<circle cx="{_n(sx(i))}" cy="{_n(sy(est[i]))}" r="{3.5 if n > 40 else 4.5}" fill="{_ACCENT}" '
                f'stroke="#fff" stroke-width="1"><title>{_esc(tip)}</title></circle>'
            )
        else:
            body.append(_text(sx(i), y0 + ph - 4, "×", size=12, anchor="middle", fill="#9a3412"))
    height = y0 + ph + 95
    body.append(_text(x0 + pw / 2, height - 10, _esc(x_title), size=12.5, anchor="middle", weight="600"))
    body.append(
        _text(22, y0 + ph / 2, _esc(y_title), size=12.5, anchor="middle", rotate=-90, weight="600", extra='dy="0.35em"')
    )
    return _svg(id_prefix, width, height, title, body)


def _num(v: Any, digits: int = 3) -> str:
    v = float(v)
    if not np.isfinite(v):
        return '<td class="num undefined" data-value="nan">–</td>'
    return f'<td class="num" data-value="{v!r}">{v:.{digits}f}</td>'


def _p(v: Any) -> str:
    v = float(v)
    if not np.isfinite(v):
        return '<td class="num undefined">–</td>'
    return f'<td class="num" data-value="{v!r}">{v:.2g}</td>'


def by_section(by: Any, drift: pd.DataFrame | None = None) -> str:
    """The page's section for an :class:`~iaa_engine.analysis._by.AgreementBy` result (and the scorecard's drift):
    one chart per coefficient, the table per group, the tests, and each annotator's agreement per window."""
    from iaa_engine.analysis._by import FREQ_NAMES, METRIC_LABELS

    t = by.table
    pct = f"{by.confidence:.0%}"
    time = by.kind == "time"
    what = (
        f"per {FREQ_NAMES.get(by.freq, by.freq)} of <code>{_esc(by.column)}</code>; each item counts in the window of "
        "its first annotation, with all its annotations"
        if time
        else f"per value of <code>{_esc(by.column)}</code>; each annotation counts in the group of its own value"
    )
    parts = [
        '<h2 id="by">Agreement by group and over time</h2>',
        f'<p class="lead">The coefficients {what}, each with its {pct} analytic interval (Gwet\'s linearisation; '
        "alpha: the delete-one-item jackknife), and the differences between "
        + ("consecutive groups" if by.test == "consecutive" else f"each group and {_esc(by.reference)}")
        + " (z from the two variances"
        + (", p-values Holm-adjusted per coefficient" if by.correction == "holm" else "")
        + ").</p>",
    ]
    for metric, rows in t.groupby("metric", sort=False):
        name = METRIC_LABELS.get(str(metric), str(metric))
        fig_id = f"fig-by-{metric}"
        args = (list(rows["group"]), rows["estimate"], rows["lower"], rows["upper"])
        if time:
            svg = trend_plot(*args, id_prefix=fig_id, title=f"{name} per window, with {pct} intervals",
                             y_title=name, x_title=f"{by.column} (window start)")  # fmt: skip
        else:
            svg = interval_plot(*args, id_prefix=fig_id, title=f"{name} per group, with {pct} intervals",
                                value_header=f"estimate [{pct} interval]", x_title=name,
                                label_title=str(by.column))  # fmt: skip
        parts.append(
            f'<figure id="{fig_id}"><h3>{_esc(name)}</h3>{svg}<figcaption>{_esc(name)} of each '
            f"{'window' if time else 'group'} (dot) with its {pct} interval (bar).</figcaption></figure>"
        )
    metrics = list(dict.fromkeys(t["metric"]))
    head = "".join(f'<th class="num">{_esc(METRIC_LABELS.get(m, m))}</th>' for m in metrics)
    body = []
    wide = t.pivot_table(index="group", columns="metric", values="estimate", sort=False, dropna=False)
    sizes = t.drop_duplicates("group").set_index("group")
    for g in sizes.index:
        cells = "".join(_num(wide.loc[g, m], 4) for m in metrics)
        body.append(
            f'<tr data-group="{_esc(g)}"><td>{_esc(g)}</td><td class="num">{int(sizes.loc[g, "n_items"]):,}</td>'
            f'<td class="num">{int(sizes.loc[g, "n_annotations"]):,}</td>{cells}</tr>'
        )
    parts.append(
        '<table class="metrics" id="by-table"><thead><tr><th>group</th><th class="num">items</th>'
        f'<th class="num">annotations</th>{head}</tr></thead><tbody>' + "".join(body) + "</tbody></table>"
    )
    tests = by.tests
    if len(tests):
        shown = tests[tests["p_adjusted"] < 0.05] if len(tests) > 40 else tests
        rows_html = [
            f"<tr><td>{_esc(METRIC_LABELS.get(r.metric, r.metric))}</td><td>{_esc(r.group_a)}</td>"
            f"<td>{_esc(r.group_b)}</td>{_num(r.difference, 4)}{_num(r.se, 4)}{_num(r.z, 2)}{_p(r.p_value)}"
            f"{_p(r.p_adjusted)}</tr>"
            for r in shown.itertuples(index=False)
        ]
        note = (
            f" The {len(shown)} of {len(tests)} comparisons with an adjusted p-value below 0.05 are listed "
            "(all of them: <code>--json</code>)."
            if len(shown) < len(tests)
            else ""
        )
        if shown.empty:
            note = (
                f" None of the {len(tests)} comparisons has an adjusted p-value below 0.05 (all: <code>--json</code>)."
            )
        parts.append(
            f'<h3>Differences between groups</h3><p class="lead">b − a, its standard error, z and the two-sided '
            f"p-value, unadjusted and adjusted.{note}</p>"
        )
        if not shown.empty:
            parts.append(
                '<table class="metrics" id="by-tests"><thead><tr><th>coefficient</th><th>a</th><th>b</th>'
                '<th class="num">b − a</th><th class="num">s.e.</th><th class="num">z</th><th class="num">p</th>'
                '<th class="num">adjusted p</th></tr></thead><tbody>' + "".join(rows_html) + "</tbody></table>"
            )
    if by.notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{_esc(n)}</li>" for n in by.notes) + "</ul>")
    if drift is not None and len(drift):
        parts.append(_drift_table(drift))
    return "".join(parts)


def _drift_table(drift: pd.DataFrame) -> str:
    """Each annotator's agreement with the pooled others per window: a table, cells shaded by the value."""
    windows = list(dict.fromkeys(drift.sort_values("start")["window"]))
    totals = drift.groupby("annotator", sort=False)["n_pairable"].sum().sort_values(ascending=False)
    shown = list(totals.index[:DRIFT_ANNOTATORS])
    grid = drift.pivot_table(index="annotator", columns="window", values="agreement", sort=False)
    counts = drift.pivot_table(index="annotator", columns="window", values="n_pairable", sort=False)
    head = "".join(f'<th class="num">{_esc(w)}</th>' for w in windows)
    rows = []
    for a in shown:
        cells = []
        for w in windows:
            v = grid.loc[a, w] if w in grid.columns else np.nan
            if not np.isfinite(v):
                cells.append('<td class="num undefined">–</td>')
                continue
            shade = int(255 - 90 * max(0.0, min(1.0, float(v))))
            cells.append(
                f'<td class="num" style="background:rgb({shade},{shade + (255 - shade) // 2},255)" '
                f'title="{int(counts.loc[a, w])} pairable annotations" data-value="{float(v)!r}">{v:.2f}</td>'
            )
        rows.append(f'<tr data-annotator="{_esc(a)}"><td>{html.escape(_short(a, 24))}</td>{"".join(cells)}</tr>')
    more = (
        f" The {len(shown)} annotators with the most pairable annotations of {len(totals)}."
        if len(totals) > len(shown)
        else ""
    )
    return (
        '<h3 id="drift">Each annotator over time</h3>'
        '<p class="lead">Each annotator\'s agreement with the pooled others in each window (the share of their '
        "pairs of annotations that agree, as in the scorecard, on that window's items); the tooltip gives the "
        f"number of pairable annotations, <code>iaa annotators</code> the intervals.{more}</p>"
        '<div class="wide"><table class="metrics" id="drift-table"><thead><tr><th>annotator</th>'
        f"{head}</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
    )
