"""`iaa report --engine dask --html`: the HTML page of the Dask engine against the in-memory page, on the data of
tests/test_distributed_commands.py (5 Parquet files, an item's rows split across files, a timestamp and a group
column). Pictures b-d are drawn from sums over partitions (a tally of (n, item agreement) pairs, the coincidences),
so the pictures are the same SVG, character for character; the adjudication list's Dawid-Skene numbers come from an
EM (to 1e-9, the issue's tolerance for iterative results), everything else exactly."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.cli import main
from iaa_engine.reporting._draw import histogram
from iaa_engine.reporting._html import _group_stats, item_summary, item_tally, render_html_report, tally_quantile

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from iaa_engine.engines._commands import open_dask  # noqa: E402
from iaa_engine.engines._dask_html import item_summary_dask, write_html_report_dask  # noqa: E402
from tests._dask_cluster import local_cluster, make_frame  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with local_cluster() as (cl, client):
        yield cl.scheduler_address, client


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    frame = make_frame()
    root = tmp_path_factory.mktemp("dask-html")
    dd.from_pandas(frame, npartitions=5).to_parquet(root / "ds")
    frame.to_parquet(root / "all.parquet")  # the in-memory run reads the same typed columns
    return frame, root


# ------------------------------------------------------------------------------------------ the tally's finishing
@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(2, 6), st.sampled_from([0.0, 1 / 3, 0.1, 0.5, 2 / 3, 0.7, 1.0])), min_size=1, max_size=60
    ),  # fmt: skip
    st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]),
)
def test_tally_statistics_equal_numpy_on_the_repeated_values(pairs, q):
    """Quantiles from a tally equal :func:`numpy.quantile` (method 'linear') on the values themselves, bit for bit;
    the per-n statistics of picture c from a split tally (two "partitions" added) equal those of the whole."""
    n = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    tn, tp, tc = item_tally(n, p)
    assert int(tc.sum()) == n.size
    for k in np.unique(n):
        sel = tn == k
        assert tally_quantile(tp[sel], tc[sel], q) == np.quantile(p[n == k], q)
    half = n.size // 2
    parts = [item_tally(n[:half], p[:half]), item_tally(n[half:], p[half:])]
    merged = item_tally(*(np.concatenate([t[i] for t in parts]) for i in range(3)))
    for a, b in zip(merged, (tn, tp, tc)):
        np.testing.assert_array_equal(a, b)
    pd.testing.assert_frame_equal(_group_stats(n, p), _group_stats(merged[0], merged[1], merged[2]))


def test_weighted_histogram_is_the_histogram_of_the_repeated_values():
    values, weights = np.array([0.0, 0.1, 0.35, 0.5, 1.0, np.nan, 1.5]), np.array([3, 1, 2, 7, 4, 2, 1])
    kw = dict(id_prefix="h", title="t", marker=0.4)
    assert histogram(values, weights=weights, **kw) == histogram(np.repeat(values, weights), **kw)
    with pytest.raises(ValueError, match="one non-negative whole number per value"):
        histogram(values, weights=weights[:-1], **kw)


# ------------------------------------------------------------------------------------------ on the cluster
@pytest.mark.parametrize("missing", [False, True], ids=["labelled", "missing-labels"])
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_item_summary_on_the_cluster_equals_in_memory(cluster, dataset, tmp_path, level, missing):
    """The tally, the items with one annotation and the coincidences; with missing labels (an item whose every label
    is missing is no item, in memory as on the cluster)."""
    frame, root = dataset
    source = str(root / "ds")
    if missing:
        frame = frame.astype({"label": "float64"})
        frame.loc[frame.index[::9], "label"] = np.nan
        frame.loc[frame["item"] == frame["item"].iloc[0], "label"] = np.nan
        dd.from_pandas(frame, npartitions=4).to_parquet(tmp_path / "ds")
        source = str(tmp_path / "ds")
    mem = ie.Annotations.from_long(frame, level=level)
    want = item_summary(mem)
    got = item_summary_dask(
        open_dask(source, ["item", "annotator", "label"]), item="item", annotator="annotator",
        label="label", level=level, categories=pd.Index(mem.categories), duplicates="error", client=cluster[1],
        progress=False,
    )  # fmt: skip
    for a, b in zip((got.n, got.p, got.count), (want.n, want.p, want.count)):
        np.testing.assert_array_equal(a, b)  # exactly: the same (n, agreement) pairs, the same counts
    assert got.n_single == want.n_single and int(got.count.sum()) + got.n_single == mem.n_items
    np.testing.assert_allclose(got.coincidences, want.coincidences, rtol=0, atol=1e-12)


def test_a_frame_split_once_is_not_shuffled_again(cluster, dataset):
    """The page's parts share one shuffle by item (`split_by_item`, kept on the workers): `_by_item` hands the split
    frame, or a selection of its columns, on as it is (the same partitions: every item whole in one), and shuffles
    anything else, or by another column; the item summary on the split frame is that of the raw frame."""
    from iaa_engine.engines._commands import _by_item, _split_on, split_by_item

    frame, root = dataset
    raw = open_dask(str(root / "ds"), ["item", "annotator", "label", "batch"])
    assert _split_on(raw) is None and _by_item(raw, "item") is not raw
    split = split_by_item(raw, "item", cluster[1])
    assert _split_on(split) == "item" and _by_item(split, "item") is split
    sub = split[["item", "annotator", "label"]]
    assert _by_item(sub, "item") is sub and _split_on(sub[["annotator", "label"]]) is None
    assert _by_item(split, "batch") is not split and _by_item(split, "item", 2) is not split
    parts = [p for p in cluster[1].compute(split.to_delayed(), sync=True) if len(p)]
    owners = pd.concat([pd.DataFrame({"item": p["item"].unique(), "part": k}) for k, p in enumerate(parts)])
    assert owners["item"].is_unique and set(owners["item"]) == set(frame["item"])  # every item whole in one partition
    args = dict(item="item", annotator="annotator", label="label", level="nominal",
                categories=pd.Index(sorted(frame["label"].unique())), duplicates="error", client=cluster[1],
                progress=False)  # fmt: skip
    got, want = item_summary_dask(sub, **args), item_summary_dask(raw, **args)
    for a, b in zip((got.n, got.p, got.count), (want.n, want.p, want.count)):
        np.testing.assert_array_equal(a, b)


_CELL = re.compile(r'data-value="([^"]*)"([^>]*)>([^<]*)<')
_ENDS = re.compile(r'data-(lower|upper)="([^"]*)"')


def assert_same_page(got: str, want: str, tol: float = 1e-9) -> None:
    """The same page: the cells' machine-readable values (``data-value``) to ``tol``, every other character
    exactly, but a cell's shown rounding of a value on a tie (0.6250000000000001 shown 0.63 in memory, 0.625 shown
    0.62 on the cluster: equal to 1e-15, rounded either side of the half), one unit of its last digit apart; the
    intervals' machine-readable ends (``data-lower``, ``data-upper``) to ``tol`` too (the analytic ones are sums
    over count patterns on the cluster, over items in memory)."""
    ends_a, ends_b = _ENDS.findall(got), _ENDS.findall(want)
    assert [k for k, _ in ends_a] == [k for k, _ in ends_b]
    for (_, x), (_, y) in zip(ends_a, ends_b):
        assert (x == y) if "nan" in (x, y) or "" in (x, y) else float(x) == pytest.approx(float(y), abs=tol)
    got, want = _ENDS.sub(r'data-\1=""', got), _ENDS.sub(r'data-\1=""', want)
    assert _CELL.sub('data-value="">', got) == _CELL.sub('data-value="">', want)
    a, b = _CELL.findall(got), _CELL.findall(want)
    assert len(a) == len(b)
    for (va, attr_a, shown_a), (vb, attr_b, shown_b) in zip(a, b):
        assert attr_a == attr_b
        if va in ("", "nan") or vb in ("", "nan"):
            assert (va, shown_a) == (vb, shown_b)
            continue
        assert float(va) == pytest.approx(float(vb), abs=tol)
        if shown_a != shown_b:
            unit = 10.0 ** -len(shown_b.partition(".")[2])
            assert abs(float(vb) - float(va)) < 1e-12 and abs(float(shown_a) - float(shown_b)) == pytest.approx(unit)
            assert abs(abs(float(vb) - float(shown_b)) - unit / 2) < 1e-12  # a tie: the value sits on the half


@pytest.mark.parametrize("level", ["nominal"])  # ordinal: the CLI test below
def test_page_on_the_cluster_equals_in_memory(cluster, dataset, tmp_path, level):
    """Given the same report and scorecard, the page the cluster draws is the in-memory page (the pictures from sums
    over partitions, the adjudication list merged from the partitions' top items); and without them, computed on
    the cluster, too."""
    from iaa_engine.analysis._scorecard import annotator_report

    frame, root = dataset
    mem = ie.Annotations.from_long(frame, level=level)
    rep = ie.report(mem)
    card = annotator_report(mem, competence=False)
    want = render_html_report(mem, report=rep)
    out = write_html_report_dask(
        open_dask(str(root / "ds"), ["item", "annotator", "label"]), tmp_path / "p.html", client=cluster[1],
        report=rep, scorecard=card, level=level, progress=False,
    )  # fmt: skip
    got = out.read_text(encoding="utf-8")
    assert got.count("<svg") == want.count("<svg") >= 5
    assert_same_page(got, want)
    source = open_dask(str(root / "ds"), ["item", "annotator", "label"])
    alone = write_html_report_dask(
        source, tmp_path / "q.html", client=cluster[1], level=level, n_boot=0, progress=False
    )
    assert_same_page(alone.read_text(encoding="utf-8"), want)  # the report and the scorecard computed on the cluster
    # with the defaults both pages run their own bootstrap (1,000 replicates, seed 0): the same intervals (picture e)
    default = write_html_report_dask(source, tmp_path / "d.html", client=cluster[1], level=level, progress=False)
    want_default = render_html_report(mem)
    assert 'id="fig-forest"' in want_default and want_default.count("<svg") == want.count("<svg") + 1
    assert_same_page(default.read_text(encoding="utf-8"), want_default)


def _sections(page: str) -> dict[str, str]:
    """The page cut at its ``<h2 id=...>`` headings and its footer (the header and summary under "")."""
    cuts = re.split(r'(?=<h2 id=")|(?=<footer>)', page)
    return {
        "footer" if c.startswith("<footer>") else (re.match(r'<h2 id="([^"]+)"', c) or [None, ""])[1]: c.strip()
        for c in cuts
    }


@pytest.mark.parametrize(
    "extra",
    [[], ["--by", "batch", "--strata", "3"], ["--time", "created_at", "--freq", "W"], ["--level", "ordinal"]],
    ids=lambda e: " ".join(e) or "plain",
)
def test_cli_html_on_the_cluster_equals_in_memory(cluster, dataset, tmp_path, capsys, extra):
    """`iaa report --engine dask --scheduler ADDRESS --html` against `iaa report FILE --html`: every section of the
    page the same (the data-value cells to 1e-9), the annotator scorecard (from ``annotator_report_dask``) and its
    drift under --time included."""
    _, root = dataset
    mem, dsk = tmp_path / "mem.html", tmp_path / "dask.html"
    assert main(["report", str(root / "all.parquet"), "--html", str(mem), *extra]) == 0
    assert main(["report", str(root / "ds"), "--engine", "dask", "--scheduler", cluster[0], "--html", str(dsk),
                 *extra]) == 0  # fmt: skip
    assert "iaa: wrote" in capsys.readouterr().err
    want, got = _sections(mem.read_text(encoding="utf-8")), _sections(dsk.read_text(encoding="utf-8"))
    if "holds sums over items" in got.get("notes", ""):
        # the analytic standard errors (of the ordinal level's quadratic kappa family) need the count-pattern tally
        # of the Dask summary (helper dci, issue 35); until it is there, the page's own parts are compared
        for key in ("", "metrics", "notes"):
            got.pop(key, None), want.pop(key, None)
        for part in (got, want):
            part["pictures"] = part["pictures"].split('<figure id="fig-estimates"')[0]
    assert list(got) == list(want) and "annotators" in got  # the scorecard from annotator_report_dask
    if "--time" in extra:
        assert 'id="drift"' in got["by"] or "per window" in got["by"]
    for key in want:
        assert_same_page(got[key], want[key])


def test_cli_html_still_refuses_what_needs_the_items_in_memory(cluster, dataset, tmp_path, capsys):
    _, root = dataset
    assert main(["report", str(root / "ds"), "--engine", "dask", "--scheduler", cluster[0], "--layout", "wide",
                 "--html", str(tmp_path / "x.html")]) != 0  # fmt: skip
    err = capsys.readouterr().err
    assert "--layout" in err and "--html" not in err.split("need")[0]


# ------------------------------------------------------------------------------------------ the ICC on the cluster
@pytest.fixture(scope="module")
def ratings(tmp_path_factory):
    """Real-valued ratings: 300 items, 4 raters with offsets, each rating 80 % of the items (so items of 2, 3 and 4
    ratings, and complete cases for the two-way forms), rows shuffled into 3 Parquet files."""
    rng = np.random.default_rng(3)
    rows = [
        (f"i{i:03d}", f"r{a}", round(abs(t + 0.3 * a + rng.normal(0, 1)), 1))  # ratio: non-negative
        for i, t in enumerate(rng.normal(5, 2, 300))
        for a in range(4)
        if rng.random() < 0.8
    ]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"]).sample(frac=1.0, random_state=1)
    root = tmp_path_factory.mktemp("dask-icc")
    dd.from_pandas(frame.reset_index(drop=True), npartitions=3).to_parquet(root / "ds")
    frame.to_parquet(root / "all.parquet")
    return frame, root


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_icc_forms_on_the_cluster_equal_in_memory(cluster, ratings, dataset, sparse):
    """The six forms, their intervals, F tests and mean squares from sums over partitions, against
    :func:`icc_forms` on the items × ratings table (Shrout & Fleiss 1979); the sparse data has no complete case for
    the two-way forms (undefined on both sides)."""
    from iaa_engine.engines._dask_icc import icc_forms_dask
    from iaa_engine.metrics._icc import ICC_FORMS, icc_forms

    frame, root = dataset if sparse else ratings
    mem = ie.Annotations.from_long(frame, level="interval")
    with pytest.warns() if sparse else _no_warning():
        want = icc_forms(mem)
    source = open_dask(str(root / "ds"), ["item", "annotator", "label"])
    with pytest.warns() if sparse else _no_warning():
        got = icc_forms_dask(
            source, ICC_FORMS, annotators=pd.Index(mem.annotators), categories=pd.Index(mem.categories),
            level="interval", client=cluster[1],
        )  # fmt: skip
    for form in ICC_FORMS:
        a, b = got[form], want[form]
        for field in ("estimate", "se", "lower", "upper", "p_value"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), abs=1e-12, nan_ok=True), (form, field)
        assert set(a.details) == set(b.details)
        for key, value in b.details.items():
            if isinstance(value, float):
                assert a.details[key] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), (form, key)
            else:
                assert a.details[key] == value, (form, key)
    if not sparse:
        assert all(np.isfinite(got[f].estimate) for f in ICC_FORMS)


def _no_warning():
    import contextlib
    import warnings

    @contextlib.contextmanager
    def guard():
        with warnings.catch_warnings():
            warnings.simplefilter("error", ie.UndefinedMetricWarning)
            yield

    return guard()


@pytest.mark.parametrize("level", ["ratio"])  # the interval level: the Python page below
def test_cli_report_icc_on_the_cluster_equals_in_memory(cluster, ratings, tmp_path, capsys, level):
    """`iaa report --engine dask --level interval --json`: the ICC forms and their notes as in memory (the report
    said before that the ICC needs per-item counts); with --html, the page's rows of the ICC forms."""
    import json

    _, root = ratings
    assert main(["report", str(root / "all.parquet"), "--level", level, "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    dsk = tmp_path / "d.html"
    assert main(["report", str(root / "ds"), "--engine", "dask", "--scheduler", cluster[0], "--level", level,
                 "--json", "--html", str(dsk)]) == 0  # fmt: skip
    got = json.loads(capsys.readouterr().out)
    icc = [k for k in want["estimates"] if k.startswith("ICC(")]
    assert len(icc) == 6
    for key in icc:
        for field, value in want["estimates"][key].items():
            if isinstance(value, float):
                assert got["estimates"][key][field] == pytest.approx(value, rel=1e-12, abs=1e-12), (key, field)
            elif field != "details":
                assert got["estimates"][key][field] == value, (key, field)
    assert [n for n in want["notes"] if "ICC" in n] == [n for n in got["notes"] if "ICC" in n and "per-item" not in n]
    assert not any("the ICC need" in n for n in got["notes"])
    page = dsk.read_text(encoding="utf-8")
    assert all(f"Intraclass correlation {k}" in page for k in icc)


def test_python_page_of_interval_ratings_has_the_icc_forms(cluster, ratings, tmp_path):
    """``write_html_report_dask`` without a report computes it, with the ICC forms summed on the cluster: the
    page's rows of the six forms carry the in-memory values."""
    from iaa_engine.metrics._icc import ICC_FORMS, icc_forms

    frame, root = ratings
    want = icc_forms(ie.Annotations.from_long(frame, level="interval"))
    out = write_html_report_dask(
        open_dask(str(root / "ds"), ["item", "annotator", "label"]), tmp_path / "p.html", client=cluster[1],
        level="interval", progress=False,
    )  # fmt: skip
    page = out.read_text(encoding="utf-8")
    for form in ICC_FORMS:
        row = page.split(f"Intraclass correlation {form}")[1].split("</tr>")[0]
        assert f'data-value="{want[form].estimate!r}"' in row or f"{want[form].estimate:.4f}" in row
