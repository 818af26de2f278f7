"""Charts as inline SVG, by plain string building: no plotting library, no script, no font or file fetched.

Each chart function takes plain numbers, arrays and strings (no report, no metric) and returns one ``<svg>``
element as a string, ready to be pasted into an HTML page:

* :func:`pair_heatmap`: a symmetric matrix of coefficients in [-1, 1] between the members of one set (e.g.
  annotators), on a diverging colour scale;
* :func:`count_heatmap`: a square matrix of non-negative amounts between the members of one set (e.g. categories),
  on a sequential colour scale, with row totals;
* :func:`histogram`: the distribution of values in a fixed range;
* :func:`group_summary_plot`: per group, the mean, middle half and range of a value, with the group sizes below;
* :func:`interval_plot`: estimates with their intervals, one row each (a forest plot).

Conventions shared by every chart:

* Text. Every string drawn or put in a tooltip (labels, titles, tooltips) is escaped with :func:`html.escape`
  (quotes too), so names holding ``<``, ``&`` or quotes are shown as written and cannot break the markup.
  Long names are shortened in the middle on the axes; the full name stays in the tooltip.
* Ids. ``id_prefix`` starts every id in the chart (the ``<svg>`` is ``{id_prefix}-svg``, its ``<title>``
  ``{id_prefix}-title``, patterns and gradients follow), so several charts can share one page. It must be a
  letter followed by letters, digits, ``-`` or ``_``.
* Missing values. A NaN is never drawn as a number. In a heatmap its cell is filled with dense grey hatching (the
  pattern ``{id_prefix}-p-undef``), with no number on it; in a histogram NaN values (and values outside the range)
  are not binned and are counted in a note at the top right of the plot ("2 missing"); in a group summary a group
  whose mean is NaN gets a cross (``×``) in the missing colour instead of its dot; in an interval plot a NaN
  estimate is written as ``missing_text`` ("undefined") in the missing colour, and an interval with a NaN end is
  not drawn.
* Empty input (no value, no label, no row) raises :class:`ValueError`: a chart of nothing is a caller's decision
  (the HTML report writes one line saying why instead of the picture).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "FONT",
    "INK",
    "MISSING",
    "MUTED",
    "count_heatmap",
    "group_summary_plot",
    "histogram",
    "interval_plot",
    "pair_heatmap",
]

#: The font stack of every chart (also the page's, so text in and around the charts matches).
FONT = 'system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", Arial, sans-serif'
#: Colour of the main text.
INK = "#222"
#: Colour of secondary text (ticks, legends).
MUTED = "#666"
#: Colour of the text marking a missing (NaN) value.
MISSING = "#9a3412"

_GRID = "#e3e3e3"
_BLUE = "#3b6ea8"
_ACCENT = "#c0392b"
_SAME = "#e9e9e9"  # the diagonal of a pair heatmap

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

_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")


# --------------------------------------------------------------------------- small helpers


def _esc(value: Any) -> str:
    """Escape any value shown in a chart (also quotes, so it is safe inside attributes)."""
    return html.escape(str(value), quote=True)


def _short(value: Any, limit: int, *, middle: bool = True) -> str:
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


def _text_width(text: str, size: float) -> float:
    """Rough rendered width of ``text`` in a sans-serif font of ``size`` px."""
    return len(text) * size * 0.6


def _colour(stops: Sequence[tuple[float, tuple[int, int, int]]], t: float) -> str:
    """The colour of ``t`` on a piecewise linear scale (clamped to its ends)."""
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


def _decimals(values: Sequence[float] | np.ndarray) -> int:
    """The fewest decimals (at least one, at most six) that show every value of ``values`` exactly."""
    for d in range(1, 7):
        if all(abs(v - round(v, d)) < 1e-9 for v in values):
            return d
    return 6


def _text(
    x: float,
    y: float,
    s: str,
    *,
    size: float = 12,
    anchor: str = "start",
    fill: str = INK,
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


def _svg(id_prefix: str, width: float, height: float, title: str, body: list[str]) -> str:
    """The outer SVG element with an accessible title and a visible one."""
    return (
        f'<svg class="chart" id="{id_prefix}-svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" role="img" aria-labelledby="{id_prefix}-title" '
        f'font-family="{_esc(FONT)}">'
        f'<title id="{id_prefix}-title">{_esc(title)}</title>'
        + _text(width / 2, 20, _esc(title), size=15, anchor="middle", weight="600")
        + "".join(body)
        + "</svg>"
    )


def _hatch_defs(prefix: str) -> str:
    """Patterns for heatmap cells without a value: light hatching (no data), dense hatching (undefined)."""
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
) -> list[str]:
    """A vertical colour legend with ticks on its right."""
    out = [
        _text(x, y - 10, _esc(label), size=12, fill=INK, weight="600"),
        f'<rect x="{_n(x)}" y="{_n(y)}" width="14" height="{_n(height)}" fill="url(#{grad_id})" '
        'stroke="#999" stroke-width="0.6"/>',
    ]
    for t in ticks:
        ty = y + height * (hi - t) / (hi - lo)
        out.append(f'<line x1="{_n(x + 14)}" y1="{_n(ty)}" x2="{_n(x + 18)}" y2="{_n(ty)}" stroke="#777"/>')
        out.append(_text(x + 21, ty + 4, _esc(_tick_label(t)), size=11, fill=MUTED))
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


def _axis_title(x: float, y: float, s: str, *, size: float = 12.5) -> str:
    """A y-axis title, rotated to read upwards."""
    return _text(x, y, _esc(s), size=size, anchor="middle", rotate=-90, weight="600", extra='dy="0.35em"')


# --------------------------------------------------------------------------- checks of the input


def _check_id(id_prefix: str) -> None:
    if not isinstance(id_prefix, str) or not _ID.match(id_prefix):
        raise ValueError(f"id_prefix must be a letter followed by letters, digits, '-' or '_'; got {id_prefix!r}")


def _vector(name: str, values: Any, n: int | None = None) -> np.ndarray:
    """``values`` as a 1-D float array (of length ``n`` when given)."""
    a = np.asarray(values, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {a.shape}")
    if n is not None and a.size != n:
        raise ValueError(f"{name} must have {n} values (one per group or row); got {a.size}")
    return a


def _square(values: Any, labels: Sequence[Any]) -> np.ndarray:
    """``values`` as a square float matrix with one row and column per label."""
    if len(labels) == 0:
        raise ValueError("a heatmap needs at least one label; got none")
    v = np.asarray(values, dtype=float)
    if v.shape != (len(labels), len(labels)):
        raise ValueError(
            f"values must be a square matrix with one row and column per label ({len(labels)}); got shape {v.shape}"
        )
    return v


def _strings(name: str, texts: Any, shape: tuple[int, ...]) -> list | None:
    """Per-cell (or per-row) tooltips as a list (of lists) of ``shape``, or None."""
    if texts is None:
        return None
    rows = [list(row) for row in texts] if len(shape) == 2 else list(texts)
    if len(rows) != shape[0] or (len(shape) == 2 and any(len(row) != shape[1] for row in rows)):
        raise ValueError(f"{name} must have the shape {shape} of the values")
    return rows


# --------------------------------------------------------------------------- heatmaps


def pair_heatmap(
    values: Any,
    labels: Sequence[Any],
    *,
    id_prefix: str,
    title: str,
    n: Any = None,
    tooltips: Sequence[Sequence[str]] | None = None,
    row_title: str = "row",
    column_title: str = "column",
    scale_title: str = "coefficient",
    scale_notes: tuple[str, str, str] = ("high", "zero", "low"),
    mark_labels: tuple[str, str, str] = ("no data", "undefined", "same"),
    numbers_max: int = 15,
    n_max: int = 8,
    name_max_chars: int = 18,
) -> str:
    """A heatmap of coefficients in [-1, 1] between every pair of the members of one set.

    Cells are coloured on a diverging scale: red below 0, white at 0, blue above (values outside [-1, 1] take
    the colour of the nearer end). The diagonal (a member with itself) is plain grey; a cell whose ``n`` is 0 has
    light hatching ("no data"); a NaN cell has dense hatching ("undefined"). A legend explains the colours and the
    three marks. The matrix is drawn in a square of 360 px (up to 6 members) or 620 px, cells 6 to 70 px wide.

    Parameters
    ----------
    values : array-like of float, shape (k, k)
        The coefficients; row ``i``, column ``j`` is the pair ``labels[i]``, ``labels[j]``. NaN is undefined.
    labels : sequence, length k
        The members, on both axes (shortened in the middle to ``name_max_chars`` characters).
    id_prefix : str
        Prefix of the ids in the chart (see the module's notes).
    title : str
        The chart's title (drawn at the top and its accessible name).
    n : array-like of int, shape (k, k), optional
        The number of observations behind each cell: 0 marks a cell with no data, and with at most ``n_max``
        members each cell shows ``n=…`` under its number.
    tooltips : sequence of sequences of str, shape (k, k), optional
        The tooltip of each cell (default: the two labels and the value).
    row_title, column_title, scale_title : str
        Titles of the rows, the columns and the colour legend.
    scale_notes : tuple of three str
        Words written beside the top, the middle and the bottom of the colour legend.
    mark_labels : tuple of three str
        Legend of the light hatching (``n`` is 0), the dense hatching (NaN) and the diagonal.
    numbers_max : int
        Up to this many members the cells carry their values (two decimals).
    n_max : int
        Up to this many members the cells also carry ``n`` (when given).
    name_max_chars : int
        Names longer than this are shortened on the axes.

    Returns
    -------
    str
        One ``<svg>`` element.

    Raises
    ------
    ValueError
        If there is no label, ``values`` (or ``n``, ``tooltips``) is not k × k, or ``id_prefix`` is not an id.

    Examples
    --------
    >>> svg = pair_heatmap([[1, 0.5], [0.5, 1]], ["ann", "bob"], id_prefix="k", title="Agreement")
    >>> svg.startswith('<svg class="chart" id="k-svg"'), svg.count("</rect>")  # one cell (with its tooltip) per pair
    (True, 4)
    >>> ">0.50<" in svg
    True
    """
    _check_id(id_prefix)
    names = list(labels)
    vals = _square(values, names)
    a = len(names)
    shared = None if n is None else np.asarray(n)
    if shared is not None and shared.shape != (a, a):
        raise ValueError(f"n must have the shape {(a, a)} of the values; got {shared.shape}")
    tips = _strings("tooltips", tooltips, (a, a))

    plot = 620.0 if a > 6 else 360.0
    cell = min(max(plot / a, 6.0), 70.0)
    plot = cell * a
    font = min(12.0, max(6.5, cell * 0.78))
    short = [_short(s, name_max_chars) for s in names]
    label_w = max(_text_width(s, font) for s in short)
    rotate_cols = label_w > cell - 4
    x0 = 34 + label_w + 6
    y0 = 44.0
    legend_x = x0 + plot + 34
    width = legend_x + 205
    height = y0 + plot + 8 + (label_w if rotate_cols else 18) + 34
    show_numbers = a <= numbers_max
    show_shared = shared is not None and a <= n_max
    prefix = f"{id_prefix}-p"
    no_data, undefined, same = mark_labels

    body = [_hatch_defs(prefix), _gradient(f"{id_prefix}-grad", _DIVERGING)]
    for i in range(a):
        for j in range(a):
            x, y = x0 + j * cell, y0 + i * cell
            v = vals[i, j]
            s = None if shared is None else int(shared[i, j])
            who = f"{names[i]} × {names[j]}"
            if i == j:
                fill, tip = _SAME, f"{names[i]}: {same}"
            elif s == 0:
                fill, tip = f"url(#{prefix}-none)", f"{who}: {no_data}"
            elif not np.isfinite(v):
                fill, tip = f"url(#{prefix}-undef)", f"{who}: {undefined}"
            else:
                fill, tip = _colour(_DIVERGING, float(v)), f"{who}: {v:.3f}"
            if s is not None and i != j and s > 0:
                tip += f" (n={s})"
            if tips is not None:
                tip = str(tips[i][j])
            stroke = ' stroke="#fff" stroke-width="0.6"' if cell >= 8 else ""
            body.append(
                f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(cell)}" height="{_n(cell)}" fill="{fill}"'
                f"{stroke}><title>{_esc(tip)}</title></rect>"
            )
            if show_numbers and i != j and s != 0 and np.isfinite(v):
                size = min(13.0, cell * 0.3)
                ink = "#fff" if _luminance(fill) < 0.5 else INK
                cy = y + cell / 2 + (size * 0.35 if not show_shared else -1)
                body.append(_text(x + cell / 2, cy, f"{v:.2f}", size=size, anchor="middle", fill=ink))
                if show_shared:
                    body.append(
                        _text(x + cell / 2, cy + size * 1.05, f"n={s}", size=size * 0.75, anchor="middle", fill=ink)
                    )
    body += _grid_frame(x0, y0, plot, cell, short, font, rotate_cols)
    body.append(_axis_title(14, y0 + plot / 2, row_title, size=13))
    body.append(_text(x0 + plot / 2, height - 10, _esc(column_title), size=13, anchor="middle", weight="600"))
    bar_h = min(max(plot * 0.6, 150.0), 260.0)
    by = y0 + 18
    body += _colour_bar(legend_x, by, bar_h, f"{id_prefix}-grad", -1.0, 1.0, [-1, -0.5, 0, 0.5, 1], scale_title)
    top_note, middle_note, bottom_note = scale_notes
    body.append(_text(legend_x + 48, by + 10, _esc(top_note), size=10.5, fill=MUTED))
    body.append(_text(legend_x + 48, by + bar_h / 2 + 14, _esc(middle_note), size=10.5, fill=MUTED))
    body.append(_text(legend_x + 48, by + bar_h - 4, _esc(bottom_note), size=10.5, fill=MUTED))
    sy = by + bar_h + 26
    marks = [(f"url(#{prefix}-none)", no_data)] if shared is not None else []
    marks += [(f"url(#{prefix}-undef)", undefined), (_SAME, same)]
    for fill, lab in marks:
        body.append(
            f'<rect x="{_n(legend_x)}" y="{_n(sy)}" width="14" height="14" fill="{fill}" stroke="#999" '
            'stroke-width="0.6"/>'
        )
        body.append(_text(legend_x + 21, sy + 11, _esc(lab), size=11, fill=MUTED))
        sy += 22
    return _svg(id_prefix, width, height, title, body)


def count_heatmap(
    values: Any,
    labels: Sequence[Any],
    *,
    id_prefix: str,
    title: str,
    tooltips: Sequence[Sequence[str]] | None = None,
    row_title: str = "row",
    column_title: str = "column",
    scale_title: str = "count",
    total_title: str = "total",
    numbers_max: int = 15,
    totals_max: int = 40,
    name_max_chars: int = 18,
    links: Sequence[Sequence[str | None]] | None = None,
) -> str:
    """A heatmap of non-negative amounts between the members of one set, with the row totals on the right.

    Cells are coloured on a sequential scale from white (0) to dark blue (the largest value); a NaN cell has dense
    grey hatching and no number. Cells on the diagonal carry their number in bold. Cells are 10 to 72 px wide.

    Parameters
    ----------
    values : array-like of float, shape (k, k)
        The amounts (at least 0); NaN is undefined. Shown as integers when they all are, else with one decimal.
    labels : sequence, length k
        The members, on both axes (shortened in the middle to ``name_max_chars`` characters).
    id_prefix : str
        Prefix of the ids in the chart (see the module's notes).
    title : str
        The chart's title.
    tooltips : sequence of sequences of str, shape (k, k), optional
        The tooltip of each cell (default: the two labels and the value).
    row_title, column_title, scale_title, total_title : str
        Titles of the rows, the columns, the colour legend and the column of row totals.
    numbers_max : int
        Up to this many members the cells carry their values.
    totals_max : int
        Up to this many members (or while the cells carry numbers) the row totals are written.
    name_max_chars : int
        Names longer than this are shortened on the axes.
    links : sequence of sequences of str or None, shape (k, k), optional
        A link target (e.g. ``"#pair-3"``) for each cell: the cell becomes an ``<a href>`` to it; None: no link.

    Returns
    -------
    str
        One ``<svg>`` element.

    Raises
    ------
    ValueError
        If there is no label, ``values`` (or ``tooltips`` or ``links``) is not k × k, a value is negative, or
        ``id_prefix`` is not an id.

    Examples
    --------
    >>> svg = count_heatmap([[8, 2], [2, 4]], ["yes", "no"], id_prefix="o", title="Coincidences")
    >>> svg.count("</rect>")  # one cell (with its tooltip) per pair
    4
    >>> ">10</text>" in svg  # the total of the first row
    True
    """
    _check_id(id_prefix)
    categories = list(labels)
    o = _square(values, categories)
    c = len(categories)
    finite = np.isfinite(o)
    if np.any(o[finite] < 0):
        raise ValueError("count_heatmap draws amounts of at least 0; got a negative value")
    tips = _strings("tooltips", tooltips, (c, c))
    hrefs = None if links is None else np.asarray(links, dtype=object)
    if hrefs is not None and hrefs.shape != (c, c):
        raise ValueError(f"links must be {c} × {c}; got shape {hrefs.shape}")
    short = [_short(s, name_max_chars) for s in categories]
    cell = min(max(380.0 / c, 10.0), 72.0)
    plot = cell * c
    font = min(12.0, max(6.5, cell * 0.7))
    label_w = max(_text_width(s, font) for s in short)
    rotate_cols = c > 6 or label_w > cell - 4
    col_label_h = label_w + 8 if rotate_cols else 18
    x0 = 34 + label_w + 8
    y0 = 44.0
    totals = o.sum(axis=1)
    integral = bool(np.allclose(o[finite], np.round(o[finite])))

    def amount(v: float) -> str:
        if not np.isfinite(v):
            return "–"
        return f"{v:.0f}" if integral else f"{v:.1f}"

    tot_w = max(_text_width(f"{t:.1f}", 11) for t in totals) + 12
    legend_x = x0 + plot + tot_w + 30
    width = max(legend_x + 120, 520.0)
    height = y0 + plot + col_label_h + 36
    vmax = float(o[finite].max(initial=0.0)) or 1.0
    show_numbers = c <= numbers_max
    prefix = f"{id_prefix}-p"

    body = [_gradient(f"{id_prefix}-grad", _SEQUENTIAL)]
    if not finite.all():
        body.insert(0, _hatch_defs(prefix))
    for i in range(c):
        for j in range(c):
            v = float(o[i, j])
            fill = _colour(_SEQUENTIAL, v / vmax) if np.isfinite(v) else f"url(#{prefix}-undef)"
            x, y = x0 + j * cell, y0 + i * cell
            tip = f"{categories[i]} × {categories[j]}: {v:.2f}" if tips is None else str(tips[i][j])
            stroke = ' stroke="#fff" stroke-width="0.8"' if cell >= 8 else ""
            href = None if hrefs is None else hrefs[i, j]
            if href:
                body.append(f'<a href="{_esc(href)}">')
            body.append(
                f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(cell)}" height="{_n(cell)}" fill="{fill}"'
                f"{stroke}><title>{_esc(tip)}</title></rect>"
            )
            if show_numbers and np.isfinite(v):
                size = min(13.0, cell * 0.3)
                ink = "#fff" if _luminance(fill) < 0.5 else INK
                body.append(
                    _text(
                        x + cell / 2,
                        y + cell / 2 + size * 0.35,
                        amount(v),
                        size=size,
                        anchor="middle",
                        fill=ink,
                        weight="600" if i == j else None,
                    )
                )
            if href:
                body.append("</a>")
    body += _grid_frame(x0, y0, plot, cell, short, font, rotate_cols)
    if show_numbers or c <= totals_max:
        for i in range(c):
            cy = y0 + (i + 0.5) * cell
            body.append(_text(x0 + plot + 8, cy + 4, amount(totals[i]), size=min(11.0, font), fill=MUTED))
    body.append(_text(x0 + plot + 8, y0 - 6, _esc(total_title), size=10.5, fill=MUTED))
    body.append(_axis_title(14, y0 + plot / 2, row_title, size=13))
    body.append(_text(x0 + plot / 2, height - 10, _esc(column_title), size=13, anchor="middle", weight="600"))
    ticks = _nice_ticks(0, vmax, 4)
    bar_h = min(max(plot * 0.8, 120.0), 220.0)
    body += _colour_bar(legend_x, y0 + 18, bar_h, f"{id_prefix}-grad", 0.0, vmax, ticks, scale_title)
    return _svg(id_prefix, width, height, title, body)


# --------------------------------------------------------------------------- distributions


def histogram(
    values: Any,
    *,
    id_prefix: str,
    title: str,
    bins: int = 10,
    range: tuple[float, float] = (0.0, 1.0),
    marker: float | None = None,
    marker_label: str = "mean",
    x_title: str = "value",
    y_title: str = "count",
    bar_tip: str = "{count} value(s) in {interval}",
    weights: Any = None,
) -> str:
    """A histogram of ``values`` in ``bins`` equal bins over ``range``, with an optional marked value.

    Every bin is drawn as a bar, also an empty one (of height 0); each non-empty bar has its count above it. The
    bins are closed on the left, the last one also on the right. NaN values and values outside ``range`` are not
    binned: a note at the top right of the plot counts them.

    Parameters
    ----------
    values : array-like of float
        The values (at least one).
    id_prefix : str
        Prefix of the ids in the chart (see the module's notes).
    title : str
        The chart's title.
    bins : int
        Number of bins (at least 1).
    range : tuple of two float
        The binned range ``(low, high)``, ``low < high``; also the x axis, with six ticks.
    marker : float, optional
        A value marked by a dashed vertical line and labelled ``"{marker_label} {marker:.3f}"`` (e.g. the mean);
        not drawn when None or NaN.
    marker_label : str
        The marker's label.
    x_title, y_title : str
        Titles of the axes.
    bar_tip : str
        Tooltip of a bar, a :meth:`str.format` template with the fields ``count`` and ``interval`` (e.g.
        ``[0.1, 0.2)``).
    weights : array-like of int, optional
        How many times each value occurs (one whole number per value; default: once each): a tally of distinct
        values, e.g. summed over the partitions of a cluster, draws the same histogram as the values repeated.

    Returns
    -------
    str
        One ``<svg>`` element.

    Raises
    ------
    ValueError
        If ``values`` is empty or not one-dimensional, ``bins`` < 1, ``range`` is empty, or ``id_prefix`` is not an
        id.

    Examples
    --------
    >>> svg = histogram([0.1, 0.5, 0.55, 0.9], id_prefix="h", title="Scores", marker=0.5125)
    >>> svg.count("<rect")  # one bar per bin
    10
    >>> "mean 0.512" in svg
    True
    """
    _check_id(id_prefix)
    p = _vector("values", values)
    if p.size == 0:
        raise ValueError("histogram needs at least one value; got none")
    w = np.ones(p.size, dtype=np.int64) if weights is None else np.asarray(weights)
    if w.shape != p.shape or (w.size and not (np.issubdtype(w.dtype, np.integer) and w.min() >= 0)):
        raise ValueError(f"weights must be one non-negative whole number per value; got {weights!r}")
    if int(bins) != bins or bins < 1:
        raise ValueError(f"bins must be a positive integer; got {bins!r}")
    lo_x, hi_x = (float(v) for v in range)
    if not (np.isfinite(lo_x) and np.isfinite(hi_x) and lo_x < hi_x):
        raise ValueError(f"range must be two finite numbers low < high; got {range!r}")
    width, height = 520.0, 340.0
    x0, y0, pw, ph = 58.0, 44.0, 440.0, 228.0
    edges = np.linspace(lo_x, hi_x, int(bins) + 1)
    nan = np.isnan(p)
    outside = ~nan & ((p < lo_x) | (p > hi_x))
    counts, _ = np.histogram(p[~nan], bins=edges, weights=w[~nan].astype(np.int64))
    ymax = max(int(counts.max(initial=0)), 1)
    yt = _nice_ticks(0, ymax, 5)
    top = max(yt[-1], ymax)
    if top < ymax * 1.08:  # headroom for the count labels
        step = yt[1] - yt[0] if len(yt) > 1 else 1
        top = yt[-1] + step
        yt.append(top)
    d_edges = _decimals(edges)
    xt = np.linspace(lo_x, hi_x, 6)
    d_ticks = _decimals(xt)

    def sx(v: float) -> float:
        return x0 + pw * (v - lo_x) / (hi_x - lo_x)

    def sy(v: float) -> float:
        return y0 + ph * (1 - v / top)

    body = []
    for t in yt:
        body.append(f'<line x1="{_n(x0)}" y1="{_n(sy(t))}" x2="{_n(x0 + pw)}" y2="{_n(sy(t))}" stroke="{_GRID}"/>')
        body.append(_text(x0 - 6, sy(t) + 4, _tick_label(t), size=11, anchor="end", fill=MUTED))
    for k, c in enumerate(counts):
        bx, bw = sx(edges[k]) + 1, sx(edges[k + 1]) - sx(edges[k]) - 2
        lo, hi = edges[k], edges[k + 1]
        interval = f"[{lo:.{d_edges}f}, {hi:.{d_edges}f}{']' if k == len(counts) - 1 else ')'}"
        tip = bar_tip.format(count=int(c), interval=interval)
        body.append(
            f'<rect x="{_n(bx)}" y="{_n(sy(c))}" width="{_n(bw)}" height="{_n(sy(0) - sy(c))}" '
            f'fill="{_BLUE}"><title>{_esc(tip)}</title></rect>'
        )
        if c:
            body.append(_text(bx + bw / 2, sy(c) - 4, str(int(c)), size=10.5, anchor="middle", fill=MUTED))
    body.append(f'<line x1="{_n(x0)}" y1="{_n(sy(0))}" x2="{_n(x0 + pw)}" y2="{_n(sy(0))}" stroke="#888"/>')
    for t in xt:
        body.append(f'<line x1="{_n(sx(t))}" y1="{_n(sy(0))}" x2="{_n(sx(t))}" y2="{_n(sy(0) + 4)}" stroke="#888"/>')
        body.append(_text(sx(t), sy(0) + 17, f"{t:.{d_ticks}f}", size=11, anchor="middle", fill=MUTED))
    if marker is not None and np.isfinite(marker):
        mx = sx(marker)
        body.append(
            f'<line x1="{_n(mx)}" y1="{_n(y0)}" x2="{_n(mx)}" y2="{_n(sy(0))}" stroke="{_ACCENT}" '
            'stroke-width="1.8" stroke-dasharray="5 4"/>'
        )
        anchor, dx = ("end", -5) if (marker - lo_x) / (hi_x - lo_x) > 0.62 else ("start", 5)
        label = _esc(f"{marker_label} {marker:.3f}")
        body.append(_text(mx + dx, y0 + 11, label, size=11.5, anchor=anchor, fill=_ACCENT, weight="600"))
    left_out = [
        f"{int(k)} {what}" for k, what in ((w[nan].sum(), "missing"), (w[outside].sum(), "outside the range")) if k
    ]
    if left_out:
        body.append(_text(x0 + pw, y0 - 6, _esc(", ".join(left_out)), size=11, anchor="end", fill=MISSING))
    body.append(_text(x0 + pw / 2, height - 18, _esc(x_title), size=12.5, anchor="middle", weight="600"))
    body.append(_axis_title(16, y0 + ph / 2, y_title))
    return _svg(id_prefix, width, height, title, body)


def group_summary_plot(
    groups: Sequence[Any],
    mean: Any,
    q25: Any,
    q75: Any,
    minimum: Any,
    maximum: Any,
    counts: Any,
    *,
    id_prefix: str,
    title: str,
    y_range: tuple[float, float] = (0.0, 1.0),
    reference: float | None = None,
    reference_label: str = "overall",
    x_title: str = "group",
    y_title: str = "value",
    count_title: str = "count",
    tooltips: Sequence[str] | None = None,
    count_tooltips: Sequence[str] | None = None,
) -> str:
    """Per group, the mean (dot), middle half (box) and range (line) of a value, and the group sizes below.

    The top panel shows the summaries on the y axis ``y_range`` (five ticks); the bottom panel has one grey bar per
    group, as high as its count relative to the largest count (counts written above them up to 20 groups). A
    dashed horizontal line marks ``reference``. A group whose mean is NaN gets a cross (``×``) in the missing
    colour at mid-height; a box or a line with a NaN end is left out.

    Parameters
    ----------
    groups : sequence, length g
        The groups' names, left to right (every ⌈g / 20⌉-th is written under the axis).
    mean, q25, q75, minimum, maximum : array-like of float, length g
        The summaries of each group.
    counts : array-like of int, length g
        The size of each group (at least 0).
    id_prefix : str
        Prefix of the ids in the chart (see the module's notes).
    title : str
        The chart's title.
    y_range : tuple of two float
        The y axis of the top panel, ``(low, high)``.
    reference : float, optional
        A value marked across the top panel, with ``"{reference_label} {reference:.3f}"`` in the legend.
    reference_label : str
        The reference's label.
    x_title, y_title, count_title : str
        Titles of the x axis, of the top panel and of the bottom panel.
    tooltips, count_tooltips : sequence of str, length g, optional
        Tooltips of each group's summary and of its count bar (default: the numbers).

    Returns
    -------
    str
        One ``<svg>`` element.

    Raises
    ------
    ValueError
        If there is no group, the arrays' lengths differ from the number of groups, a count is negative or not
        finite, ``y_range`` is empty, or ``id_prefix`` is not an id.

    Examples
    --------
    >>> svg = group_summary_plot([2, 3], [0.5, 0.8], [0.4, 0.7], [0.6, 0.9], [0.0, 0.5], [1.0, 1.0], [10, 4],
    ...                          id_prefix="g", title="By group")
    >>> svg.count("<circle") - 1  # one dot per group, plus the legend's
    2
    """
    _check_id(id_prefix)
    names = list(groups)
    k = len(names)
    if k == 0:
        raise ValueError("group_summary_plot needs at least one group; got none")
    stats = [
        _vector(name, v, k)
        for name, v in zip(("mean", "q25", "q75", "minimum", "maximum"), (mean, q25, q75, minimum, maximum))
    ]
    cnt = _vector("counts", counts, k)
    if not np.all(np.isfinite(cnt)) or np.any(cnt < 0):
        raise ValueError("counts must be finite and at least 0")
    tips = _strings("tooltips", tooltips, (k,))
    count_tips = _strings("count_tooltips", count_tooltips, (k,))
    lo_y, hi_y = (float(v) for v in y_range)
    if not (np.isfinite(lo_y) and np.isfinite(hi_y) and lo_y < hi_y):
        raise ValueError(f"y_range must be two finite numbers low < high; got {y_range!r}")
    width, height = 520.0, 350.0
    x0, pw = 58.0, 440.0
    y0, ph = 56.0, 170.0  # top panel: the summaries
    b0, bh = y0 + ph + 30, 44.0  # bottom panel: the counts
    col = pw / k

    def sy(v: float) -> float:
        return y0 + ph * (1 - (v - lo_y) / (hi_y - lo_y))

    def fin(*vs: float) -> bool:
        return all(np.isfinite(v) for v in vs)

    has_reference = reference is not None and np.isfinite(reference)
    body = []
    for f in (0, 0.25, 0.5, 0.75, 1.0):
        t = lo_y + (hi_y - lo_y) * f
        body.append(f'<line x1="{_n(x0)}" y1="{_n(sy(t))}" x2="{_n(x0 + pw)}" y2="{_n(sy(t))}" stroke="{_GRID}"/>')
        body.append(_text(x0 - 6, sy(t) + 4, _tick_label(t), size=11, anchor="end", fill=MUTED))
    if has_reference and reference is not None:
        body.append(
            f'<line x1="{_n(x0)}" y1="{_n(sy(reference))}" x2="{_n(x0 + pw)}" y2="{_n(sy(reference))}" '
            f'stroke="{_ACCENT}" stroke-width="1.2" stroke-dasharray="5 4"/>'
        )
    cmax = int(cnt.max()) or 1
    label_step = max(1, math.ceil(k / 20))
    bar_w = min(max(col * 0.32, 3.0), 14.0)
    r = min(max(col * 0.18, 2.2), 5.0)
    for pos, name in enumerate(names):
        m, a25, a75, lo, hi = (s[pos] for s in stats)
        count = int(cnt[pos])
        cx = x0 + (pos + 0.5) * col
        if tips is not None:
            tip = str(tips[pos])
        else:
            tip = f"{name}: {count} value(s), mean {m:.3f}, middle half {a25:.3f}-{a75:.3f}, range {lo:.3f}-{hi:.3f}"
        marks = []
        if fin(lo, hi):
            marks.append(
                f'<line x1="{_n(cx)}" y1="{_n(sy(lo))}" x2="{_n(cx)}" y2="{_n(sy(hi))}" '
                'stroke="#9aa7b5" stroke-width="1.2"/>'
            )
        if fin(a25, a75):
            marks.append(
                f'<rect x="{_n(cx - bar_w / 2)}" y="{_n(sy(a75))}" width="{_n(bar_w)}" '
                f'height="{_n(max(sy(a25) - sy(a75), 1.0))}" fill="#c9d8ea" stroke="#8fa9c7" '
                'stroke-width="0.8"/>'
            )
        if fin(m):
            marks.append(
                f'<circle cx="{_n(cx)}" cy="{_n(sy(m))}" r="{_n(r)}" fill="{_BLUE}" stroke="#fff" stroke-width="1"/>'
            )
        else:
            marks.append(_text(cx, y0 + ph / 2 + 4, "×", size=12, anchor="middle", fill=MISSING, weight="600"))
        body.append(f"<g><title>{_esc(tip)}</title>" + "".join(marks) + "</g>")
        hb = bh * count / cmax
        count_tip = _esc(f"{name}: {count}" if count_tips is None else str(count_tips[pos]))
        bw = min(col * 0.7, 60.0)
        body.append(
            f'<rect x="{_n(cx - bw / 2)}" y="{_n(b0 + bh - hb)}" width="{_n(bw)}" '
            f'height="{_n(max(hb, 0.8))}" fill="#b9bec6"><title>{count_tip}</title></rect>'
        )
        if k <= 20:
            body.append(_text(cx, b0 + bh - hb - 3, str(count), size=10, anchor="middle", fill=MUTED))
        if pos % label_step == 0:
            body.append(_text(cx, b0 + bh + 15, _esc(name), size=11, anchor="middle", fill=MUTED))
    body.append(f'<line x1="{_n(x0)}" y1="{_n(b0 + bh)}" x2="{_n(x0 + pw)}" y2="{_n(b0 + bh)}" stroke="#888"/>')
    body.append(_axis_title(16, y0 + ph / 2, y_title))
    body.append(_text(x0 - 6, b0 + bh / 2 + 4, _esc(count_title), size=11, anchor="end", fill=MUTED))
    body.append(_text(x0 + pw / 2, height - 10, _esc(x_title), size=12.5, anchor="middle", weight="600"))
    # legend
    lx, ly = x0 + 4, y0 - 14
    body.append(f'<circle cx="{_n(lx + 4)}" cy="{_n(ly - 4)}" r="4" fill="{_BLUE}"/>')
    body.append(_text(lx + 12, ly, "mean", size=10.5, fill=MUTED))
    body.append(f'<rect x="{_n(lx + 48)}" y="{_n(ly - 9)}" width="7" height="11" fill="#c9d8ea" stroke="#8fa9c7"/>')
    body.append(_text(lx + 59, ly, "middle 50 %", size=10.5, fill=MUTED))
    body.append(
        f'<line x1="{_n(lx + 134)}" y1="{_n(ly - 10)}" x2="{_n(lx + 134)}" y2="{_n(ly + 2)}" '
        'stroke="#9aa7b5" stroke-width="1.2"/>'
    )
    body.append(_text(lx + 140, ly, "range", size=10.5, fill=MUTED))
    if has_reference:
        body.append(
            f'<line x1="{_n(lx + 186)}" y1="{_n(ly - 4)}" x2="{_n(lx + 206)}" y2="{_n(ly - 4)}" '
            f'stroke="{_ACCENT}" stroke-dasharray="4 3" stroke-width="1.2"/>'
        )
        body.append(_text(lx + 210, ly, _esc(f"{reference_label} {reference:.3f}"), size=10.5, fill=_ACCENT))
    return _svg(id_prefix, width, height, title, body)


# --------------------------------------------------------------------------- intervals


def interval_plot(
    labels: Sequence[Any],
    estimates: Any,
    lower: Any,
    upper: Any,
    *,
    id_prefix: str,
    title: str,
    groups: Sequence[Any] | None = None,
    highlight: Sequence[bool] | None = None,
    include: tuple[float, float] = (0.0, 1.0),
    value_header: str = "estimate [interval]",
    x_title: str = "value",
    label_title: str = "label",
    missing_text: str = "undefined",
    label_max_chars: int = 44,
    reference: tuple[float, str] | None = None,
) -> str:
    """Estimates with their intervals, one row each (a forest plot), and the numbers written on the right.

    Each row has its label on the left, a dot at the estimate and a line from the lower to the upper end of its
    interval, and ``"estimate [lower, upper]"`` on the right (three decimals, more for small values). The x axis
    covers every finite value and ``include``, rounded out to tenths. Consecutive rows of the same group are
    preceded by the group's name. A NaN estimate is written as ``missing_text`` in the missing colour (its label
    greyed); an interval with a NaN end is not drawn (written "(no interval)").

    Parameters
    ----------
    labels : sequence, length r
        The rows' labels (shortened at the end to ``label_max_chars`` characters; the full one is in the tooltip).
    estimates, lower, upper : array-like of float, length r
        The estimates and the ends of their intervals.
    id_prefix : str
        Prefix of the ids in the chart (see the module's notes).
    title : str
        The chart's title.
    groups : sequence, length r, optional
        The group of each row: a heading is drawn wherever it changes.
    highlight : sequence of bool, length r, optional
        Rows drawn on a shaded band with a bold label.
    include : tuple of two float
        Values the x axis always covers.
    value_header, x_title, label_title : str
        Titles of the column of numbers, of the x axis and of the labels.
    missing_text : str
        What a NaN estimate is written as.
    label_max_chars : int
        Labels longer than this are shortened.
    reference : (float, str), optional
        A value marked by a dashed vertical line across the rows, with its label above the plot (e.g. a flag's
        threshold); nothing is drawn for a NaN value.

    Returns
    -------
    str
        One ``<svg>`` element.

    Raises
    ------
    ValueError
        If there is no row, the arrays' lengths differ from the number of labels, or ``id_prefix`` is not an id.

    Examples
    --------
    >>> svg = interval_plot(["alpha", "kappa"], [0.6, float("nan")], [0.5, float("nan")], [0.7, float("nan")],
    ...                     id_prefix="f", title="Estimates")
    >>> svg.count("<circle")  # one dot per defined estimate
    1
    >>> "0.600 [0.500, 0.700]" in svg and ">undefined</text>" in svg
    True
    """
    _check_id(id_prefix)
    names = list(labels)
    n_rows = len(names)
    if n_rows == 0:
        raise ValueError("interval_plot needs at least one row; got none")
    est_all = _vector("estimates", estimates, n_rows)
    low_all = _vector("lower", lower, n_rows)
    high_all = _vector("upper", upper, n_rows)
    row_groups = None if groups is None else list(groups)
    if row_groups is not None and len(row_groups) != n_rows:
        raise ValueError(f"groups must have {n_rows} values (one per row); got {len(row_groups)}")
    marked = [False] * n_rows if highlight is None else [bool(h) for h in highlight]
    if len(marked) != n_rows:
        raise ValueError(f"highlight must have {n_rows} values (one per row); got {len(marked)}")
    width = 1000.0
    label_x, x0, pw = 20.0, 330.0, 440.0
    text_x = x0 + pw + 24
    row_h, group_h = 22.0, 24.0
    y = 58.0
    finite = [float(v) for a in (est_all, low_all, high_all) for v in a if np.isfinite(v)]
    if reference is not None and np.isfinite(reference[0]):
        finite.append(float(reference[0]))
    lo = min([include[0], *finite])
    hi = max([include[1], *finite])
    lo = math.floor(lo * 10 + 1e-9) / 10
    hi = math.ceil(hi * 10 - 1e-9) / 10
    if hi <= lo:
        hi = lo + 0.1

    def sx(v: float) -> float:
        return x0 + pw * (v - lo) / (hi - lo)

    layout: list[Any] = []
    group = None
    for i in range(n_rows):
        if row_groups is not None and (i == 0 or row_groups[i] != group):
            group = row_groups[i]
            y += 8 if layout else 0
            layout.append(("group", group, y))
            y += group_h
        layout.append(("row", i, y))
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
        body.append(_text(sx(t), y_end + 16, _tick_label(t), size=11, anchor="middle", fill=MUTED))
    body.append(f'<line x1="{_n(x0)}" y1="{_n(y_end)}" x2="{_n(x0 + pw)}" y2="{_n(y_end)}" stroke="#888"/>')
    if reference is not None and np.isfinite(reference[0]):
        rx = sx(float(reference[0]))
        body.append(
            f'<line class="reference" x1="{_n(rx)}" y1="40" x2="{_n(rx)}" y2="{_n(y_end)}" stroke="{_ACCENT}" '
            f'stroke-width="1.2" stroke-dasharray="4 3"><title>{_esc(reference[1])}</title></line>'
        )
        body.append(_text(rx, 36, _esc(reference[1]), size=11, anchor="middle", fill=_ACCENT))
    body.append(_text(text_x, 48, _esc(value_header), size=11.5, fill=MUTED, weight="600"))
    for kind, item, yy in layout:
        if kind == "group":
            body.append(_text(label_x, yy + 15, _esc(item), size=12.5, weight="700", fill="#444"))
            continue
        label = names[item]
        cy = yy + row_h / 2
        est, low, high = est_all[item], low_all[item], high_all[item]
        ink = INK if np.isfinite(est) else "#999"
        if marked[item]:
            body.append(
                f'<rect x="{_n(label_x - 6)}" y="{_n(yy)}" width="{_n(width - label_x - 8)}" '
                f'height="{_n(row_h)}" fill="#f3f6fa"/>'
            )
        body.append(
            _text(
                label_x + 10,
                cy + 4,
                _esc(_short(label, label_max_chars, middle=False)),
                size=12,
                fill=ink,
                weight="600" if marked[item] else None,
            )
        )
        if np.isfinite(low) and np.isfinite(high):
            body.append(
                f'<line x1="{_n(sx(low))}" y1="{_n(cy)}" x2="{_n(sx(high))}" y2="{_n(cy)}" stroke="{_BLUE}" '
                'stroke-width="2.2"/>'
            )
            for v in (low, high):
                body.append(
                    f'<line x1="{_n(sx(v))}" y1="{_n(cy - 5)}" x2="{_n(sx(v))}" y2="{_n(cy + 5)}" '
                    f'stroke="{_BLUE}" stroke-width="1.6"/>'
                )
        if np.isfinite(est):
            body.append(
                f'<circle cx="{_n(sx(est))}" cy="{_n(cy)}" r="4.5" fill="{_ACCENT}" stroke="#fff" '
                f'stroke-width="1"><title>{_esc(label)}: {est:.4f}</title></circle>'
            )
            scale = max(abs(v) for v in (est, low, high) if np.isfinite(v))
            d = 3 if scale >= 0.01 or scale == 0 else 2 - math.floor(math.log10(scale))
            interval = f"[{low:.{d}f}, {high:.{d}f}]" if np.isfinite(low) and np.isfinite(high) else "(no interval)"
            body.append(
                _text(
                    text_x,
                    cy + 4,
                    f"{est:.{d}f} {interval}",
                    size=12,
                    fill=INK,
                    extra='font-variant-numeric="tabular-nums"',
                )
            )
        else:
            body.append(_text(text_x, cy + 4, _esc(missing_text), size=12, fill=MISSING, extra='font-style="italic"'))
    body.append(_text(x0 + pw / 2, height - 12, _esc(x_title), size=12.5, anchor="middle", weight="600"))
    body.append(_text(label_x, height - 12, _esc(label_title), size=12.5, weight="600"))
    return _svg(id_prefix, width, height, title, body)
