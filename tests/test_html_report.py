"""The self-contained HTML report: content, escaping, the numbers it shows, and how it renders in headless Chromium."""

from __future__ import annotations

import html
import os
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.reporting._html import render_html_report, write_html_report

EXAMPLES = Path(ie.__file__).parent / "examples"
N_BOOT = 200
FIGURES = ("fig-kappa", "fig-items", "fig-by-n", "fig-coincidence", "fig-forest")
#: The annotator scorecard's chart (section "Annotators", before the pictures) when the data has annotators.
WITH_SCORECARD = ("fig-annotators", *FIGURES)
HOSTILE = "<script>alert(1)</script>"

# HTML elements that never have an end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


# --------------------------------------------------------------------------- helpers


class PageParser(HTMLParser):
    """Collects the metric table, the svg ids and every tag, and checks that tags nest properly."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self.svg_ids: list[str] = []
        self.rows: dict[str, list[dict]] = {}
        self.metric_header: list[str] = []
        self._row: str | None = None
        self._cell: dict | None = None
        self._in_metric_table = False
        self._th: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "svg":
            self.svg_ids.append(a.get("id", ""))
        if tag == "tr" and "data-metric" in a:
            self._row = a["data-metric"]
            self.rows[self._row] = []
        if tag == "td" and self._row is not None:
            self._cell = {
                "value": a.get("data-value"),
                "text": "",
                "lower": a.get("data-lower"),
                "upper": a.get("data-upper"),
                "method": a.get("data-method"),
            }
        if tag == "table":
            self._in_metric_table = a.get("id") == "metric-table"
        if tag == "th" and self._in_metric_table:
            self._th = ""
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "th" and self._th is not None:
            self.metric_header.append(self._th.strip())
            self._th = None
        if tag == "table":
            self._in_metric_table = False
        if tag == "td" and self._cell is not None and self._row is not None:
            self._cell["text"] = self._cell["text"].strip()
            self.rows[self._row].append(self._cell)
            self._cell = None
        if tag == "tr":
            self._row = None
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data
        if self._th is not None:
            self._th += data


def parse(text: str) -> PageParser:
    p = PageParser()
    p.feed(text)
    p.close()
    return p


def metric_cells(text: str) -> dict[str, dict[str, dict]]:
    """``{metric: {column: {"value": data-value, "text": shown, "lower", "upper", "method"}}}`` from the one
    metric table, the columns named by its header (``"bootstrap 95% interval"``, ``"analytic se"``, ...)."""
    p = parse(text)
    assert p.metric_header[:2] == ["metric", "estimate"] and p.metric_header[-1] == "note", p.metric_header
    return {k: dict(zip(p.metric_header, cells, strict=True)) for k, cells in p.rows.items()}


BOOT = "bootstrap 95% interval"


@pytest.fixture(scope="module")
def crowd() -> ie.Annotations:
    return ie.read(EXAMPLES / "crowd.csv")


@pytest.fixture(scope="module")
def crowd_html(tmp_path_factory, crowd) -> Path:
    return write_html_report(crowd, tmp_path_factory.mktemp("html") / "crowd.html", n_boot=N_BOOT, seed=0)


@pytest.fixture(scope="module")
def crowd_text(crowd_html) -> str:
    return crowd_html.read_text(encoding="utf-8")


def count_table(data: ie.Annotations) -> ie.Annotations:
    dense = data.counts.to_dense()
    return ie.Annotations.from_counts(pd.DataFrame(dense, index=data.items, columns=data.categories))


# --------------------------------------------------------------------------- the file


def test_the_file_is_written_and_returned(crowd, tmp_path):
    target = tmp_path / "sub" / "..' x" / "report.html"
    target.parent.mkdir(parents=True)
    out = write_html_report(crowd, str(target), n_boot=N_BOOT)
    assert isinstance(out, Path) and out == target and out.is_file()
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert text == render_html_report(crowd, n_boot=N_BOOT)  # the same seed (0) writes the same page


def test_self_contained(crowd_text):
    """No script, no style sheet, font, image or link fetched from anywhere."""
    assert "http://" not in crowd_text and "https://" not in crowd_text
    tags = parse(crowd_text).tags
    for tag, attrs in tags:
        assert tag not in ("script", "link", "iframe", "img", "object", "embed"), tag
        for name in ("src", "href", "xlink:href", "action"):  # links within the page (#anchor) fetch nothing
            assert name not in attrs or (name == "href" and str(attrs[name]).startswith("#")), (tag, attrs)
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
    assert not re.search(r"<script\b", crowd_text, re.I)
    assert not re.search(r"\b(src|href)\s*=\s*[\"']?\s*(https?:)?//", crowd_text, re.I)
    assert "@import" not in crowd_text and "@font-face" not in crowd_text
    assert not re.search(r"url\(\s*['\"]?(?!#)", crowd_text)  # only url(#pattern) references


def test_well_formed_html5(crowd_text):
    p = parse(crowd_text)
    assert crowd_text.startswith("<!DOCTYPE html>")
    assert p.errors == []
    assert p.stack == []  # every element closed
    assert p.tags[0][0] == "html" and p.tags[0][1].get("lang") == "en"
    for tag in ("html", "head", "body", "main", "style"):
        assert sum(1 for t, _ in p.tags if t == tag) == 1, tag
    ids = [a["id"] for _, a in p.tags if "id" in a]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert '<meta charset="utf-8">' in crowd_text


def test_the_five_pictures_of_the_crowd_example(crowd_text):
    p = parse(crowd_text)
    assert p.svg_ids == [f"{f}-svg" for f in WITH_SCORECARD]
    assert "Not drawn" not in crowd_text
    for fig in FIGURES:
        svg = re.search(rf'<svg[^>]*id="{fig}-svg".*?</svg>', crowd_text, re.S).group(0)
        assert re.search(r"<title[^>]*>[^<]+</title>", svg)  # a title
        assert svg.count("<text") >= 5  # axis labels, ticks and the visible title
        figure = re.search(rf'<figure id="{fig}".*?</figure>', crowd_text, re.S).group(0)
        assert re.search(r"<figcaption>.{40,}</figcaption>", figure, re.S)  # a caption saying what it shows
    heat = re.search(r'<svg[^>]*id="fig-kappa-svg".*?</svg>', crowd_text, re.S).group(0)
    for name in ("worker_01", "worker_17", "worker_40"):  # 40 annotators: every name is on the axes
        assert heat.count(f">{name}</text>") == 2
    assert "annotator (row)" in heat and "annotator (column)" in heat
    assert "url(#fig-kappa-p-none)" in heat  # pairs without a shared item are hatched
    assert "Cohen&#x27;s kappa" in heat  # the colour legend
    coin = re.search(r'<svg[^>]*id="fig-coincidence-svg".*?</svg>', crowd_text, re.S).group(0)
    o = ie.coincidence_matrix(ie.read(EXAMPLES / "crowd.csv"))
    assert f">{o[1, 1]:.1f}</text>" in coin  # the cells carry their numbers
    for axis in ("item agreement", "annotations per item (n)", "value of the metric"):
        assert axis in crowd_text


def test_few_annotators_get_numbers_in_the_heatmap(tmp_path):
    data = ie.read(EXAMPLES / "classroom.csv")
    text = write_html_report(data, tmp_path / "c.html", n_boot=50).read_text(encoding="utf-8")
    assert parse(text).svg_ids == [f"{f}-svg" for f in WITH_SCORECARD]
    k = ie.cohen_kappa_matrix(data).values
    heat = re.search(r'<svg[^>]*id="fig-kappa-svg".*?</svg>', text, re.S).group(0)
    assert f">{k[0, 1]:.2f}</text>" in heat and f">{k[1, 2]:.2f}</text>" in heat


# --------------------------------------------------------------------------- the numbers


def test_metric_table_equals_report_and_bootstrap(crowd, crowd_text):
    rep = ie.report(crowd)
    boot = ie.bootstrap(crowd, n_boot=N_BOOT, seed=0).table
    cells = metric_cells(crowd_text)
    expected = dict(rep.to_frame().itertuples(index=False, name=None))
    assert set(cells) == set(expected)
    assert set(boot.index) <= set(cells)
    for key, value in expected.items():
        shown = cells[key]["estimate"]
        assert float(shown["value"]) == value, key  # the full value, exactly
        assert float(shown["text"]) == pytest.approx(value, abs=5e-5), key  # the rounded value shown
        shown = cells[key][BOOT]
        for col in ("lower", "upper"):
            b = float(boot.loc[key, col])
            assert float(shown[col]) == b, (key, col)  # the full value, exactly
        low, high = (float(x) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", shown["text"])[:2])
        assert (low, high) == pytest.approx((boot.loc[key, "lower"], boot.loc[key, "upper"]), abs=5e-5, rel=1e-2)
        method = boot.loc[key, "method"] if "method" in boot.columns else "percentile"
        assert shown["method"] == {"bca": "BCa", "basic": "basic"}.get(method, method)
        assert float(cells[key]["bootstrap se"]["value"]) == float(boot.loc[key, "se"])
    # the headline scheme is marked and the summary cards hold the report's sizes
    assert re.search(r'<tr data-metric="spa\[annotations_m1\]" class="headline">', crowd_text)
    for key in ("n_items", "n_annotators", "n_annotations", "n_categories", "n_items_excluded"):
        m = re.search(rf'data-key="{key}"><div class="v">([^<]+)</div>', crowd_text)
        assert int(m.group(1).replace(",", "")) == getattr(rep, key), key
    assert re.search(r'data-key="level"><div class="v">nominal<', crowd_text)


def test_the_bias_interval_is_shown_with_the_estimate_it_centres_on(crowd, crowd_text):
    """Issue 24: the page gave bias B 0.0012 with the interval [0.0016, 0.0025], outside its own estimate. The
    basic interval is about the population B and centres on the bias-corrected estimate (2 B - the replicates'
    mean), which the row's note states and the forest plot draws as the row's dot, inside its line."""
    boot = ie.bootstrap(crowd, n_boot=N_BOOT, seed=0).table.loc["bias"]
    assert boot["method"] == "basic" and boot["lower"] <= boot["corrected"] <= boot["upper"]
    row = re.search(r'<tr data-metric="bias".*?</tr>', crowd_text, re.S).group(0)
    assert f"centres on the bias-corrected estimate {boot['corrected']:.4f}" in row
    forest = re.search(r'<figure id="fig-forest".*?</figure>', crowd_text, re.S).group(0)
    assert "bias-corrected estimate it centres on" in forest


def test_with_ci_and_benchmark_one_table_holds_both_intervals_and_the_figures_are_in_order(crowd):
    """Issue 25: with ``--ci`` or ``--benchmark`` Fleiss' kappa, AC1, Brennan-Prediger and the multi-coder kappa
    stayed in one metrics table under their names, with their analytic interval (Gwet's linearisation) and their
    bootstrap interval, each labelled with its method; pictures a. to f. in that order (was: a second table of code
    names without the bootstrap intervals, and figure f. before a.)."""
    rep = ie.report(crowd, ci=True, n_boot=N_BOOT, benchmark="landis_koch")
    page = render_html_report(crowd, report=rep)
    assert page.count("<table") == page.count('class="metrics') and 'id="estimate-table"' not in page
    cells = metric_cells(page)
    boot = rep.intervals.table
    for key, label in (
        ("fleiss_kappa", "Fleiss&#x27; kappa"),
        ("gwet_ac1", "Gwet&#x27;s AC1"),
        ("brennan_prediger", "Brennan-Prediger kappa"),
        ("multi_kappa", "Multi-coder kappa"),
        ("krippendorff_alpha", "Krippendorff&#x27;s alpha [nominal]"),
    ):
        row = re.search(rf'<tr data-metric="{re.escape(key)}">.*?</tr>', page).group(0)
        assert label in row, key
        e = rep.estimates.get(key) or rep.estimates[f"{key}[nominal]"]
        analytic = cells[key]["analytic 95% interval"]
        assert (float(analytic["lower"]), float(analytic["upper"])) == (e.lower, e.upper), key
        assert analytic["method"] in ("Gwet, t", "jackknife, t")
        assert float(cells[key]["analytic se"]["value"]) == e.se
        b = cells[key][BOOT]
        assert (float(b["lower"]), float(b["upper"])) == (boot.loc[key, "lower"], boot.loc[key, "upper"]), key
        assert b["method"] == "BCa"
        assert "or better" in cells[key]["benchmark reading"]["text"]
    assert cells["bias"][BOOT]["method"] == "basic"  # labelled with its own method
    assert cells["joint_probability"]["analytic 95% interval"]["text"] == "—"  # no analytic interval computed
    heads = re.findall(r"<h3>([a-f])\. ", page)
    assert heads == sorted(heads) == list("abcdef")
    assert page.index('id="fig-forest"') < page.index('id="fig-estimates"')


def test_weighted_coefficients_join_the_one_table(tmp_path):
    data = ie.read(EXAMPLES / "classroom.csv").with_level("interval")
    rep = ie.report(data)
    page = render_html_report(data, report=rep)
    cells = metric_cells(page)
    assert {"gwet_ac1[quadratic]", "fleiss_kappa[quadratic]", "ICC(2,1)"} <= set(cells)
    assert "Gwet&#x27;s AC1, quadratic weights" in page and "Intraclass correlation ICC(2,1)" in page
    icc = rep.estimates["ICC(2,1)"]
    assert float(cells["ICC(2,1)"]["analytic 95% interval"]["lower"]) == icc.lower
    assert cells["ICC(2,1)"]["analytic 95% interval"]["method"] == "F"
    assert float(cells["ICC(2,1)"]["estimate"]["value"]) == icc.estimate


def test_pairs_of_annotators_are_counted_once(crowd, crowd_text):
    """Issue 25: "40 annotators; 958 defined pairs" counted each pair twice (at most 40 x 39 / 2 = 780): the text
    report and the page's heatmap caption count each unordered pair once, brute force over i < j."""
    k = ie.cohen_kappa_matrix(crowd)
    values, names = k.values, list(k.annotators)
    defined = sum(
        1 for i in range(len(names)) for j in range(i + 1, len(names)) if np.isfinite(values[i, j])
    )  # fmt: skip
    assert defined <= 780
    assert f"40 annotators; {defined} defined pairs" in str(ie.report(crowd))
    shared = sum(1 for i in range(40) for j in range(i + 1, 40) if np.isfinite(values[i, j]) and k.n_shared[i, j])
    assert f"{shared} of 780 pairs are defined" in crowd_text


def test_group_summary_of_picture_c_equals_pandas():
    """Picture c's per-n mean, quartiles, range and count (one sort) against pandas 2's groupby (linear quantiles)."""
    from iaa_engine.reporting._html import _group_stats

    rng = np.random.default_rng(0)
    n, p = rng.integers(2, 9, 5_000), rng.random(5_000).round(2)
    g = pd.DataFrame({"n": n, "p": p}).groupby("n")["p"]
    ref = pd.DataFrame(
        {"mean": g.mean(), "q25": g.quantile(0.25), "q75": g.quantile(0.75), "min": g.min(), "max": g.max()}
    )
    ours = _group_stats(n, p)
    np.testing.assert_allclose(ours[ref.columns].to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)
    assert list(ours.index) == list(ref.index) and list(ours["count"]) == list(g.size())


@pytest.mark.parametrize("path", ["crowd.csv", "classroom.csv"])
def test_coincidences_from_the_scorecard_patterns_equal_coincidence_matrix(path):
    """Picture d's matrix, summed by count pattern beside the scorecard, against ``coincidence_matrix``."""
    from iaa_engine.analysis._scorecard import coincidences_by_pattern

    data = ie.read(EXAMPLES / path)
    np.testing.assert_allclose(coincidences_by_pattern(data), ie.coincidence_matrix(data), rtol=0, atol=1e-12)


def test_level_and_weights_are_passed_on(tmp_path):
    data = ie.read(EXAMPLES / "classroom.csv")
    text = write_html_report(data, tmp_path / "r.html", level="interval", weights="edges", n_boot=50, seed=3).read_text(
        encoding="utf-8"
    )
    cells = metric_cells(text)
    rep = ie.report(data, level="interval", weights="edges")
    assert float(cells["krippendorff_alpha"]["estimate"]["value"]) == rep.values["krippendorff_alpha"]
    assert rep.values["krippendorff_alpha"] != ie.report(data).values["krippendorff_alpha"]
    assert "Krippendorff&#x27;s alpha [interval]" in text
    assert re.search(r'<tr data-metric="spa\[edges\]" class="headline">', text)
    boot = ie.bootstrap(data.with_level("interval"), n_boot=50, seed=3, weights="edges").table
    for key in ("krippendorff_alpha", "spa_kappa", "spa[edges]"):
        assert float(cells[key][BOOT]["lower"]) == boot.loc[key, "lower"], key
        assert float(cells[key]["estimate"]["value"]) == boot.loc[key, "estimate"], key
    with pytest.raises(ValueError, match="weights must be one of"):
        render_html_report(data, weights="nope", n_boot=0)
    with pytest.raises(ValueError, match="level must be one of"):
        render_html_report(data, level="loud", n_boot=0)


def test_undefined_values_say_why(tmp_path):
    same = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "annotator": ["a", "b", "a", "b", "a", "c"], "label": ["x"] * 6})
    data = ie.Annotations.from_long(same)
    text = write_html_report(data, tmp_path / "u.html", n_boot=50).read_text(encoding="utf-8")
    cells = metric_cells(text)
    fleiss = cells["fleiss_kappa"]
    assert fleiss["estimate"]["text"] == "undefined" and fleiss["estimate"]["value"] == "nan"
    assert fleiss[BOOT]["text"].startswith("undefined") and fleiss[BOOT]["lower"] == "nan"
    note = next(n for n in ie.report(data).notes if n.startswith("Fleiss' kappa is undefined"))
    assert fleiss["note"]["text"] == note
    assert float(cells["joint_probability"]["estimate"]["value"]) == 1.0


def test_no_pairable_item_skips_the_item_pictures(tmp_path):
    single = pd.DataFrame({"item": [1, 2, 3], "annotator": ["a", "b", "a"], "label": ["x", "y", "x"]})
    text = render_html_report(ie.Annotations.from_long(single), n_boot=20)
    ids = parse(text).svg_ids
    assert "fig-items-svg" not in ids and "fig-by-n-svg" not in ids and "fig-coincidence-svg" not in ids
    assert text.count("Not drawn: no item has two or more annotations") == 3
    assert metric_cells(text)["joint_probability"]["estimate"]["text"] == "undefined"


def test_without_bootstrap(crowd):
    text = render_html_report(crowd, n_boot=0)
    cells = metric_cells(text)
    assert set(cells["fleiss_kappa"]) == {"metric", "estimate", "note"}  # no interval column without intervals
    assert "fig-forest-svg" not in parse(text).svg_ids
    assert "Not drawn: the bootstrap was not run" in text


# --------------------------------------------------------------------------- user strings


def test_hostile_names_are_escaped(crowd, tmp_path):
    long = crowd.to_long()
    long["annotator"] = long["annotator"].replace("worker_01", HOSTILE)
    long["label"] = long["label"].replace("mixed", '<img src=x onerror="alert(2)">')
    long["item"] = long["item"].replace("review_001", "</svg><b>&amp;")
    data = ie.Annotations.from_long(long)
    out = write_html_report(data, tmp_path / "hostile.html", n_boot=50, title="<i>My</i> & report")
    text = out.read_text(encoding="utf-8")
    assert HOSTILE not in text and "<script" not in text
    assert "<img" not in text and "</svg><b>" not in text and "<i>My</i>" not in text
    assert html_escape(HOSTILE) in text  # the full name, in the cell tooltips
    assert "&lt;script&gt;…&lt;/script&gt;" in text  # shortened on the axes
    assert html_escape('<img src=x onerror="alert(2)">') in text
    assert "&lt;i&gt;My&lt;/i&gt; &amp; report" in text
    p = parse(text)
    assert p.errors == [] and p.stack == []
    assert p.svg_ids == [f"{f}-svg" for f in WITH_SCORECARD]
    assert not any(t in ("script", "img", "b", "i") for t, _ in p.tags)


def html_escape(s: str) -> str:
    return html.escape(s, quote=True)


# --------------------------------------------------------------------------- other inputs


def test_count_table_input_skips_the_heatmap(crowd, tmp_path):
    data = count_table(crowd)
    text = write_html_report(data, tmp_path / "counts.html", n_boot=N_BOOT).read_text(encoding="utf-8")
    p = parse(text)
    assert p.svg_ids == [f"{f}-svg" for f in FIGURES if f != "fig-kappa"]
    assert re.search(
        r'<figure id="fig-kappa" class="skipped">.*Not drawn: count-table input has no annotator '
        r"identities",
        text,
    )
    cells = metric_cells(text)
    for key in ("multi_kappa", "bias"):
        assert cells[key]["estimate"]["text"] == "undefined"
        assert "count-table input has no annotator identities" in cells[key]["note"]["text"]
    rep = ie.report(crowd)
    assert float(cells["fleiss_kappa"]["estimate"]["value"]) == rep.values["fleiss_kappa"]
    assert re.search(r'data-key="n_annotators"><div class="v">unknown<', text)


def test_many_annotators_keep_legible_names(tmp_path):
    rng = np.random.default_rng(0)
    rows = [
        (i, f"annotator_with_a_long_name_{a:03d}", int(rng.integers(0, 3)))
        for i in range(300)
        for a in rng.choice(90, size=4, replace=False)
    ]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    text = render_html_report(data, n_boot=0)
    heat = re.search(r'<svg[^>]*id="fig-kappa-svg".*?</svg>', text, re.S).group(0)
    labels = re.findall(r'font-size="([\d.]+)"[^>]*>(annotato…_name_\d{3})</text>', heat)
    assert len(labels) == 2 * 60  # the 60 most active of 90, on both axes
    assert len({s for _, s in labels}) == 60  # shortened in the middle: still told apart
    assert min(float(f) for f, _ in labels) >= 6.5
    assert "Only the 60 annotators with the most annotations of the 90 are shown" in text


# --------------------------------------------------------------------------- in a browser


def chromium() -> str:
    exe = shutil.which("chromium") or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)
    if exe is None:
        reason = "chromium is not installed (apt-get install chromium, or bash scripts/system-deps.sh)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must install it with scripts/system-deps.sh")
        pytest.skip(reason)
    return exe


def run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    profile.mkdir(exist_ok=True)
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def png_rows(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the (still filtered) scanlines of an 8-bit, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0, header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(b"".join(idat))
    stride = 1 + width * channels
    assert len(raw) == stride * height
    return width, height, [raw[i * stride : (i + 1) * stride] for i in range(height)]


def test_rendered_in_headless_chromium(crowd_html, tmp_path):
    shot = tmp_path / "crowd.png"
    out = run_chromium(tmp_path, "--window-size=1280,4000", f"--screenshot={shot}", crowd_html.resolve().as_uri())
    assert shot.is_file(), f"no screenshot; chromium said:\n{out.stderr[-2000:]}"
    data = shot.read_bytes()
    assert len(data) > 30_000  # a blank page compresses to a few kB
    width, height, rows = png_rows(data)
    assert (width, height) == (1280, 4000)
    body = np.frombuffer(b"".join(rows), dtype=np.uint8)
    assert np.count_nonzero(np.bincount(body, minlength=256)) > 128  # many distinct byte values
    assert len(set(rows)) > 1000  # a blank page repeats one scanline
    assert np.count_nonzero(body) > 0.01 * body.size


def test_the_browser_dom_holds_the_five_pictures(crowd_html, tmp_path):
    out = run_chromium(tmp_path, "--dump-dom", crowd_html.resolve().as_uri())
    assert out.returncode == 0, out.stderr[-2000:]
    dom = out.stdout
    assert dom.count("<svg") == 6  # the five pictures and the annotator scorecard's chart
    for fig in WITH_SCORECARD:
        assert f'id="{fig}-svg"' in dom
    assert dom.count("<rect") > 1600  # the 40 × 40 heatmap is there
    assert "Fleiss' kappa" in dom


def test_the_iccs_row_says_which_items_it_rests_on():
    """Issue 25: the ICC is computed on complete cases (30 of 40 items here) and its row said nothing; the row's
    note now gives the core's sentence (``Estimate.details['note']``) beside the number."""
    rng = np.random.default_rng(1)
    rows = []
    for i in range(40):
        true = rng.normal(3, 1)
        rows += [(f"i{i}", f"a{a}", round(true + rng.normal(0, 0.5), 1)) for a in range(4) if i < 30 or a < 3]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"])).with_level("interval")
    rep = ie.report(data)
    page = render_html_report(data, report=rep)
    for form in ("ICC(1,1)", "ICC(2,1)"):
        note = rep.estimates[form].details["note"]
        assert note.startswith(f"{form} rests on 30 of the 40 rated items")
        row = re.search(rf'<tr data-metric="{re.escape(form)}".*?</tr>', page, re.S).group(0)
        assert html.escape(note) in row


def test_the_page_shows_all_six_icc_forms_with_their_intervals():
    """Issue 32: the report (and so the page) showed ICC(1,1) and ICC(2,1) only. Each of the six forms has its row,
    its F interval and its standard error, as ie.icc computes them (Shrout & Fleiss's Table 2 example)."""
    sf = pd.DataFrame([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
                      columns=["j1", "j2", "j3", "j4"])  # fmt: skip
    data = ie.Annotations.from_wide(sf, annotators_as="columns", level="interval")
    rep = ie.report(data, progress=False)
    cells = metric_cells(render_html_report(data, report=rep))
    for form in ie.ICC_FORMS:
        e = ie.icc(data, form)
        analytic = cells[form]["analytic 95% interval"]
        assert (float(analytic["lower"]), float(analytic["upper"])) == (e.lower, e.upper), form
        assert analytic["method"] == "F" and float(cells[form]["estimate"]["value"]) == e.estimate
        assert float(cells[form]["analytic se"]["value"]) == e.se
