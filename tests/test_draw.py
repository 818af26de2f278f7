"""The SVG drawing module on its own: well-formed charts, one mark per input, geometry that follows the values,
missing values drawn as documented, text escaped, empty input refused."""

from __future__ import annotations

import ast
import inspect
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from iaa_engine.reporting import _draw
from iaa_engine.reporting._draw import (
    count_heatmap,
    group_summary_plot,
    histogram,
    interval_plot,
    pair_heatmap,
)

NAN = float("nan")
HOSTILE = "<b>&amp;\"'</b>"  # a tag, an entity, both quotes
DRAW = Path(_draw.__file__)
HTML = DRAW.with_name("_html.py")


# --------------------------------------------------------------------------- helpers


def parse(svg: str) -> ET.Element:
    """The chart as an XML tree, after the checks every chart must pass."""
    assert svg.startswith("<svg ") and svg.endswith("</svg>")
    root = ET.fromstring(svg)  # raises on anything not well-formed
    assert root.tag == "svg"
    ids = [e.get("id") for e in root.iter() if e.get("id") is not None]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert root.get("aria-labelledby") in ids
    for e in root.iter():
        for value in e.attrib.values():
            for ref in re.findall(r"url\(#([^)]*)\)", value):
                assert ref in ids, f"url(#{ref}) points at nothing"
            assert value.lower() not in ("nan", "inf", "-inf"), f"{e.tag} has a non-number: {e.attrib}"
    assert not any((e.text or "").strip().lower() == "nan" for e in root.iter())
    return root


def cells(root: ET.Element) -> list[ET.Element]:
    """The marks with a tooltip of their own: heatmap cells, histogram bars, count bars."""
    return [r for r in root.iter("rect") if r.find("title") is not None]


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter("text")]


def luminance(fill: str) -> float:
    assert re.fullmatch(r"#[0-9a-f]{6}", fill), fill
    r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def rgb(fill: str) -> tuple[int, int, int]:
    return tuple(int(fill[i : i + 2], 16) for i in (1, 3, 5))


def symmetric(k: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).uniform(-1, 1, (k, k))
    v = (v + v.T) / 2
    np.fill_diagonal(v, 1.0)
    return v


def group_args(k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, 0.3, k)
    hi = rng.uniform(0.7, 1.0, k)
    q25, q75 = lo + 0.1, hi - 0.1
    mean = (q25 + q75) / 2
    counts = rng.integers(1, 50, k)
    return [f"g{i}" for i in range(k)], mean, q25, q75, lo, hi, counts


# --------------------------------------------------------------------------- well-formed, one mark per input


@pytest.mark.parametrize("k", [1, 2, 7, 9, 16, 45])
def test_pair_heatmap_has_one_cell_per_pair(k):
    vals = symmetric(k)
    root = parse(pair_heatmap(vals, [f"annotator_{i}" for i in range(k)], id_prefix="t", title="T"))
    assert len(cells(root)) == k * k
    numbers = [t for t in texts(root) if re.fullmatch(r"-?\d\.\d\d", t)]
    assert len(numbers) == (k * (k - 1) if k <= 15 else 0)  # off-diagonal cells carry their value


@pytest.mark.parametrize("k", [1, 3, 7, 16, 41])
def test_count_heatmap_has_one_cell_per_pair_and_a_total_per_row(k):
    vals = np.arange(k * k, dtype=float).reshape(k, k)
    root = parse(count_heatmap(vals, [f"c{i}" for i in range(k)], id_prefix="t", title="T"))
    assert len(cells(root)) == k * k
    totals = [f"{t:.0f}" for t in vals.sum(axis=1)]
    shown = texts(root)
    if k <= 40:
        assert all(t in shown for t in totals)
    else:
        assert not any(t in shown for t in totals[1:])  # too many rows: no totals


@pytest.mark.parametrize(("n", "bins"), [(1, 10), (50, 10), (200, 7), (30, 1)])
def test_histogram_has_one_bar_per_bin_and_counts_every_value(n, bins):
    values = np.random.default_rng(n).uniform(0, 1, n)
    root = parse(histogram(values, id_prefix="t", title="T", bins=bins))
    bars = cells(root)
    assert len(bars) == bins
    counts = [int(re.match(r"\d+", b.find("title").text).group(0)) for b in bars]
    assert counts == np.histogram(values, bins=np.linspace(0, 1, bins + 1))[0].tolist()
    assert sum(counts) == n


@pytest.mark.parametrize("k", [1, 5, 25])
def test_group_summary_plot_has_one_summary_and_one_count_bar_per_group(k):
    root = parse(group_summary_plot(*group_args(k), id_prefix="t", title="T"))
    summaries = [g for g in root.iter("g") if g.find("title") is not None]
    assert len(summaries) == k
    assert all(len(g.findall("circle")) == 1 and len(g.findall("rect")) == 1 for g in summaries)
    assert len(cells(root)) == k  # the count bars


@pytest.mark.parametrize("rows", [1, 4, 30])
def test_interval_plot_has_one_row_per_estimate(rows):
    est = np.linspace(0.1, 0.9, rows)
    root = parse(
        interval_plot(
            [f"metric {i}" for i in range(rows)],
            est,
            est - 0.05,
            est + 0.05,
            groups=["first" if i < rows / 2 else "second" for i in range(rows)],
            id_prefix="t",
            title="T",
        )
    )
    dots = [c for c in root.iter("circle") if c.find("title") is not None]
    assert len(dots) == rows
    shown = texts(root)
    assert sum(t.startswith("metric ") for t in shown) == rows
    assert shown.count("first") + shown.count("second") == (1 if rows == 1 else 2)  # a heading per group


# --------------------------------------------------------------------------- geometry follows the values


def test_histogram_bars_grow_with_their_counts():
    # bin k (of 5) holds k + 1 values
    values = np.concatenate([np.full(k + 1, 0.2 * k + 0.1) for k in range(5)])
    bars = cells(parse(histogram(values, id_prefix="t", title="T", bins=5)))
    heights = [float(b.get("height")) for b in bars]
    tops = [float(b.get("y")) for b in bars]
    assert all(a < b for a, b in zip(heights, heights[1:]))
    assert all(a > b for a, b in zip(tops, tops[1:]))
    assert all(abs(h + y - (heights[0] + tops[0])) < 0.02 for h, y in zip(heights, tops))  # one baseline


def test_pair_heatmap_colour_darkens_away_from_zero():
    values = np.array([-1.0, -0.7, -0.4, -0.1, 0.0, 0.1, 0.4, 0.7, 1.0])
    k = values.size + 1
    m = np.zeros((k, k))
    m[0, 1:] = m[1:, 0] = values
    root = parse(pair_heatmap(m, [f"a{i}" for i in range(k)], id_prefix="t", title="T"))
    row = [r.get("fill") for r in cells(root)[1:k]]  # row 0, columns 1..k-1
    lum = [luminance(f) for f in row]
    neg, pos = lum[:5], lum[4:]
    assert all(a < b for a, b in zip(neg, neg[1:]))  # -1 darkest ... 0 lightest
    assert all(a > b for a, b in zip(pos, pos[1:]))  # 0 lightest ... 1 darkest
    assert all(rgb(f)[0] > rgb(f)[2] for f in row[:4])  # below zero: red
    assert all(rgb(f)[2] > rgb(f)[0] for f in row[5:])  # above zero: blue
    xs = [float(r.get("x")) for r in cells(root)[1:k]]
    assert all(a < b for a, b in zip(xs, xs[1:]))  # columns left to right


def test_count_heatmap_colour_darkens_with_the_amount():
    k = 4
    vals = np.arange(k * k, dtype=float).reshape(k, k) * 3
    fills = [r.get("fill") for r in cells(parse(count_heatmap(vals, list("abcd"), id_prefix="t", title="T")))]
    lum = [luminance(f) for f in fills]
    assert all(a > b for a, b in zip(lum, lum[1:]))


def test_group_summary_plot_follows_the_means_and_counts():
    k = 6
    names, _, _, _, _, _, _ = group_args(k)
    mean = np.linspace(0.2, 0.9, k)
    counts = np.arange(1, k + 1) * 5
    svg = group_summary_plot(
        names, mean, mean - 0.1, mean + 0.1, mean - 0.15, mean + 0.1, counts, id_prefix="t", title="T"
    )
    root = parse(svg)
    dots = [g.find("circle") for g in root.iter("g") if g.find("title") is not None]
    cy = [float(c.get("cy")) for c in dots]
    cx = [float(c.get("cx")) for c in dots]
    assert all(a > b for a, b in zip(cy, cy[1:]))  # a larger mean is drawn higher
    assert all(a < b for a, b in zip(cx, cx[1:]))  # groups left to right
    heights = [float(b.get("height")) for b in cells(root)]
    assert all(a < b for a, b in zip(heights, heights[1:]))


def test_interval_plot_follows_the_estimates_and_widths():
    est = np.array([-0.2, 0.1, 0.5, 0.8])
    half = np.array([0.01, 0.05, 0.1, 0.2])
    root = parse(interval_plot(list("abcd"), est, est - half, est + half, id_prefix="t", title="T"))
    cx = [float(c.get("cx")) for c in root.iter("circle")]
    assert all(a < b for a, b in zip(cx, cx[1:]))
    spans = [
        abs(float(ln.get("x2")) - float(ln.get("x1"))) for ln in root.iter("line") if ln.get("stroke-width") == "2.2"
    ]
    assert len(spans) == 4
    assert all(a < b for a, b in zip(spans, spans[1:]))
    assert "0.800 [0.600, 1.000]" in texts(root)


# --------------------------------------------------------------------------- missing values


def test_pair_heatmap_draws_nan_and_no_data_as_hatching():
    m = symmetric(4)
    m[0, 1] = m[1, 0] = NAN
    n = np.full((4, 4), 10)
    n[2, 3] = n[3, 2] = 0
    root = parse(pair_heatmap(m, list("abcd"), n=n, id_prefix="t", title="T"))
    fills = [r.get("fill") for r in cells(root)]
    assert fills[0 * 4 + 1] == fills[1 * 4 + 0] == "url(#t-p-undef)"
    assert fills[2 * 4 + 3] == fills[3 * 4 + 2] == "url(#t-p-none)"
    assert fills.count("url(#t-p-undef)") == 2 and fills.count("url(#t-p-none)") == 2
    numbers = [t for t in texts(root) if re.fullmatch(r"-?\d\.\d\d", t)]
    assert len(numbers) == 4 * 3 - 4  # no number on the four marked cells
    assert {"undefined", "no data", "same"} <= set(texts(root))  # the legend says what the marks mean


def test_count_heatmap_draws_nan_as_hatching():
    vals = np.array([[4.0, NAN], [NAN, 2.0]])
    root = parse(count_heatmap(vals, ["x", "y"], id_prefix="t", title="T"))
    fills = [r.get("fill") for r in cells(root)]
    assert fills[1] == fills[2] == "url(#t-p-undef)"
    assert fills[0].startswith("#") and fills[3].startswith("#")
    assert "–" in texts(root)  # an unknown row total


def test_histogram_counts_nan_and_out_of_range_values_in_a_note():
    root = parse(histogram([0.1, NAN, 0.5, NAN, 1.5], id_prefix="t", title="T"))
    assert sum(int(re.match(r"\d+", b.find("title").text).group(0)) for b in cells(root)) == 2
    assert "2 missing, 1 outside the range" in texts(root)
    assert not any("missing" in t for t in texts(parse(histogram([0.1, 0.5], id_prefix="t", title="T"))))


def test_group_summary_plot_draws_a_cross_for_a_nan_mean():
    names, mean, q25, q75, lo, hi, counts = group_args(3)
    mean[1] = NAN
    root = parse(group_summary_plot(names, mean, q25, q75, lo, hi, counts, id_prefix="t", title="T"))
    summaries = [g for g in root.iter("g") if g.find("title") is not None]
    assert [len(g.findall("circle")) for g in summaries] == [1, 0, 1]
    assert [t.text for t in summaries[1].findall("text")] == ["×"]


def test_interval_plot_writes_undefined_for_a_nan_estimate():
    root = parse(
        interval_plot(["a", "b", "c"], [0.5, NAN, 0.2], [0.4, NAN, NAN], [0.6, NAN, NAN], id_prefix="t", title="T")
    )
    assert len(list(root.iter("circle"))) == 2
    assert texts(root).count("undefined") == 1
    assert "0.200 (no interval)" in texts(root)


# --------------------------------------------------------------------------- text is escaped


def all_text(root: ET.Element) -> list[str]:
    return [e.text or "" for e in root.iter()]


@pytest.mark.parametrize(
    "chart",
    [
        lambda s: pair_heatmap(symmetric(2), [s, "b"], id_prefix="t", title=s, row_title=s, scale_title=s),
        lambda s: count_heatmap(np.ones((2, 2)), [s, "b"], id_prefix="t", title=s, total_title=s),
        lambda s: histogram([0.5], id_prefix="t", title=s, x_title=s, marker=0.5, marker_label=s, bar_tip=s),
        lambda s: group_summary_plot(
            [s],
            [0.5],
            [0.4],
            [0.6],
            [0.1],
            [0.9],
            [3],
            id_prefix="t",
            title=s,
            reference=0.5,
            reference_label=s,
            tooltips=[s],
        ),
        lambda s: interval_plot([s], [0.5], [0.4], [0.6], groups=[s], id_prefix="t", title=s, missing_text=s),
    ],
    ids=["pair_heatmap", "count_heatmap", "histogram", "group_summary_plot", "interval_plot"],
)
def test_special_characters_are_escaped(chart):
    svg = chart(HOSTILE)
    assert "<b>" not in svg and "&amp;\"'" not in svg
    root = parse(svg)
    assert not any(e.tag == "b" for e in root.iter())
    shown = all_text(root)
    assert any(HOSTILE in t for t in shown)  # shown as written, after unescaping


def test_long_names_are_shortened_on_the_axes_but_whole_in_the_tooltips():
    names = ["team_a_worker_with_a_long_name_01", "team_a_worker_with_a_long_name_02"]
    root = parse(pair_heatmap(symmetric(2), names, id_prefix="t", title="T", name_max_chars=18))
    axis = [t for t in texts(root) if "…" in t]
    assert len(axis) == 4 and all(len(t) == 18 for t in axis) and len(set(axis)) == 2
    assert any(names[0] in (t.text or "") for t in root.iter("title"))


# --------------------------------------------------------------------------- refused input


@pytest.mark.parametrize(
    "call",
    [
        lambda: pair_heatmap(np.empty((0, 0)), [], id_prefix="t", title="T"),
        lambda: count_heatmap(np.empty((0, 0)), [], id_prefix="t", title="T"),
        lambda: histogram([], id_prefix="t", title="T"),
        lambda: group_summary_plot([], [], [], [], [], [], [], id_prefix="t", title="T"),
        lambda: interval_plot([], [], [], [], id_prefix="t", title="T"),
    ],
    ids=["pair_heatmap", "count_heatmap", "histogram", "group_summary_plot", "interval_plot"],
)
def test_empty_input_is_a_value_error(call):
    with pytest.raises(ValueError, match="at least one"):
        call()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: pair_heatmap(np.ones((2, 3)), ["a", "b"], id_prefix="t", title="T"), "square"),
        (lambda: pair_heatmap(np.ones((2, 2)), ["a", "b"], n=np.ones((3, 3)), id_prefix="t", title="T"), "n must"),
        (
            lambda: pair_heatmap(np.ones((2, 2)), ["a", "b"], tooltips=[["x"], ["y"]], id_prefix="t", title="T"),
            "tooltips",
        ),
        (lambda: count_heatmap([[1, -1], [0, 1]], ["a", "b"], id_prefix="t", title="T"), "negative"),
        (lambda: histogram([0.5], bins=0, id_prefix="t", title="T"), "bins"),
        (lambda: histogram([0.5], range=(1, 0), id_prefix="t", title="T"), "range"),
        (lambda: histogram([[0.5]], id_prefix="t", title="T"), "one-dimensional"),
        (lambda: group_summary_plot(["a"], [0.5, 0.6], [0.4], [0.6], [0], [1], [3], id_prefix="t", title="T"), "mean"),
        (lambda: group_summary_plot(["a"], [0.5], [0.4], [0.6], [0], [1], [-3], id_prefix="t", title="T"), "counts"),
        (lambda: interval_plot(["a", "b"], [0.5], [0.4], [0.6], id_prefix="t", title="T"), "estimates"),
        (lambda: histogram([0.5], id_prefix='x" onload="y', title="T"), "id_prefix"),
        (lambda: histogram([0.5], id_prefix="1x", title="T"), "id_prefix"),
    ],
)
def test_inconsistent_input_is_a_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_charts_with_different_prefixes_share_no_id():
    a = parse(pair_heatmap(symmetric(3), list("abc"), id_prefix="one", title="T"))
    b = parse(pair_heatmap(symmetric(3), list("abc"), id_prefix="two", title="T"))
    ids_a = {e.get("id") for e in a.iter() if e.get("id")}
    ids_b = {e.get("id") for e in b.iter() if e.get("id")}
    assert ids_a and ids_b and not ids_a & ids_b


# --------------------------------------------------------------------------- the module itself


def test_public_functions_are_listed_and_documented():
    public = {
        name
        for name, obj in vars(_draw).items()
        if inspect.isfunction(obj) and obj.__module__ == _draw.__name__ and not name.startswith("_")
    }
    assert public == {n for n in _draw.__all__ if callable(getattr(_draw, n))}
    assert len(public) == 5
    for name in public:
        doc = inspect.getdoc(getattr(_draw, name))
        for section in ("Parameters\n----------", "Returns\n-------", "Examples\n--------\n>>> "):
            assert section in doc, f"{name} lacks {section.splitlines()[0]}"


def test_draw_imports_only_numpy_the_standard_library_and_base():
    tree = ast.parse(DRAW.read_text(encoding="utf-8"))
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative import"
            modules.append(node.module)
    assert modules
    for m in modules:
        top = m.split(".")[0]
        ok = (
            top in sys.stdlib_module_names
            or top == "numpy"
            or m == "iaa_engine.base"
            or m.startswith("iaa_engine.base.")
        )
        assert ok, f"_draw imports {m}"


def test_the_page_module_draws_no_svg_itself():
    """No string the page module's code writes holds an SVG element (its docstrings' examples may mention one)."""
    import ast

    tree = ast.parse(HTML.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    written = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]
    assert written, "the page module writes no string at all?"
    for tag in ("<svg", "<rect", "<line", "<circle", "<text", "<pattern", "<linearGradient"):
        assert not any(tag in text for text in written), f"_html.py still writes {tag}"
