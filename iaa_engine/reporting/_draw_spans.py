"""A picture of one continuum as inline SVG: who marked what, one row per annotator, segments coloured by label.

Plain string building with the helpers and conventions of :mod:`iaa_engine.reporting._draw` (escaped text, ids
under ``id_prefix``, the page's font). Like the charts there, :func:`continuum_plot` takes plain numbers and names,
no result object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from iaa_engine.reporting._draw import (
    INK,
    MUTED,
    _check_id,
    _esc,
    _n,
    _nice_ticks,
    _short,
    _svg,
    _text,
    _text_width,
    _tick_label,
)

__all__ = ["LABEL_COLOURS", "continuum_plot", "label_colour"]

#: Colours of the labels (Tableau 10, distinguishable in colour-blind simulations); more labels reuse them in
#: order, and each segment's tooltip names its label.
LABEL_COLOURS = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
_LANE = 13.0
_ROW_GAP = 7.0
_NAME_CHARS = 22


def label_colour(code: int) -> str:
    """The colour of the label with this code (its position among the study's labels)."""
    return LABEL_COLOURS[int(code) % len(LABEL_COLOURS)]


def _lanes(rater: np.ndarray, start: np.ndarray, end: np.ndarray, n_raters: int) -> tuple[np.ndarray, np.ndarray]:
    """A lane for every segment so that segments of one annotator in one lane do not overlap (greedy, by start),
    and the number of lanes of each annotator."""
    lane = np.zeros(start.size, np.int64)
    lanes = np.ones(n_raters, np.int64)
    order = np.lexsort((end, start, rater))
    reach: list[float] = []
    current = -1
    for i in order:  # the segments of the documents drawn: at most a picture's worth
        if rater[i] != current:
            current, reach = int(rater[i]), []
        for k, r in enumerate(reach):
            if start[i] >= r:
                reach[k] = end[i]
                lane[i] = k
                break
        else:
            reach.append(end[i])
            lane[i] = len(reach) - 1
        lanes[current] = max(lanes[current], len(reach))
    return lane, lanes


def continuum_plot(
    id_prefix: str,
    title: str,
    begin: float,
    length: float,
    annotators: Sequence[Any],
    rater: Any,
    start: Any,
    end: Any,
    label: Any,
    labels: Sequence[Any],
    *,
    width: float = 920,
) -> str:
    """Who marked what on one continuum: one row per annotator, a coloured bar per segment, the position axis below.

    Parameters
    ----------
    id_prefix : str
        Starts every id of the chart.
    title : str
        Shown above the chart (escaped here).
    begin, length : float
        The continuum drawn: from ``begin`` to ``begin + length``.
    annotators : sequence
        The row names, top to bottom.
    rater, start, end, label : array-like
        One entry per segment: its row (index into ``annotators``), start, end and label (index into ``labels``).
        A rater's overlapping segments (labels may overlap) are drawn in lanes of the row.
    labels : sequence
        The label names, in the order of their codes (the legend; colours by :func:`label_colour`).
    width : float
        Width of the picture in pixels.

    Returns
    -------
    str
        One ``<svg>`` element.

    Raises
    ------
    ValueError
        For no annotator, a continuum that is not a positive finite length, or arrays of different lengths.
    """
    _check_id(id_prefix)
    if len(annotators) == 0:
        raise ValueError("a continuum plot needs at least one annotator; got none")
    if not (np.isfinite(begin) and np.isfinite(length) and length > 0):
        raise ValueError(f"the continuum must have a positive finite length; got begin {begin}, length {length}")
    rater = np.asarray(rater, np.int64)
    start = np.asarray(start, float)
    end = np.asarray(end, float)
    label = np.asarray(label, np.int64)
    if not (rater.size == start.size == end.size == label.size):
        raise ValueError("rater, start, end and label must have one entry per segment each")
    names = [_short(a, _NAME_CHARS) for a in annotators]
    left = 14 + max(_text_width(s, 12) for s in names)
    right = 18.0
    plot = width - left - right
    # legend: the labels that appear, in code order, wrapped into lines
    shown = [int(c) for c in np.unique(label)] if label.size else []
    legend: list[str] = []
    x, y = left, 44.0
    for code in shown:
        name = _short(labels[code], 24)
        w = 16 + _text_width(name, 12) + 14
        if x + w > width - right and x > left:
            x, y = left, y + 18
        legend.append(
            f'<rect x="{_n(x)}" y="{_n(y - 10)}" width="11" height="11" rx="2" fill="{label_colour(code)}"/>'
            + _text(x + 15, y, _esc(name), size=12, fill=INK)
        )
        x += w
    top = y + 16
    lane, lanes = _lanes(rater, start, end, len(annotators))
    row_top = top + np.concatenate([[0.0], np.cumsum(lanes * _LANE + _ROW_GAP)])
    bottom = float(row_top[-1])
    scale = plot / length

    def px(v: np.ndarray | float) -> Any:
        return left + (np.asarray(v, float) - begin) * scale

    body = legend
    for i, name in enumerate(names):
        y0, h = row_top[i], lanes[i] * _LANE
        body.append(
            f'<rect x="{_n(left)}" y="{_n(y0)}" width="{_n(plot)}" height="{_n(h)}" fill="#f3f4f6"/>'
            + _text(left - 8, y0 + h / 2 + 4, _esc(name), size=12, anchor="end", fill=INK)
            + f"<title>{_esc(annotators[i])}</title>"
        )
    x0, x1 = px(start), px(end)
    for k in range(start.size):
        r = int(rater[k])
        y0 = row_top[r] + lane[k] * _LANE + 1
        w = max(float(x1[k] - x0[k]), 1.5)  # a zero-length unit stays visible as a thin bar
        tip = f"{annotators[r]}: {labels[int(label[k])]} [{_tick_label(start[k])}, {_tick_label(end[k])})"
        body.append(
            f'<rect class="unit" x="{_n(float(x0[k]))}" y="{_n(y0)}" width="{_n(w)}" height="{_n(_LANE - 2)}" '
            f'fill="{label_colour(int(label[k]))}" stroke="#fff" stroke-width="0.5"><title>{_esc(tip)}</title></rect>'
        )
    body.append(f'<line x1="{_n(left)}" y1="{_n(bottom)}" x2="{_n(left + plot)}" y2="{_n(bottom)}" stroke="#999"/>')
    for t in _nice_ticks(begin, begin + length, 8):
        tx = float(px(t))
        body.append(f'<line x1="{_n(tx)}" y1="{_n(bottom)}" x2="{_n(tx)}" y2="{_n(bottom + 4)}" stroke="#999"/>')
        body.append(_text(tx, bottom + 16, _esc(_tick_label(t)), size=11, anchor="middle", fill=MUTED))
    body.append(_text(left + plot / 2, bottom + 32, "position", size=12, anchor="middle", fill=MUTED))
    return _svg(id_prefix, width, bottom + 40, title, body)
