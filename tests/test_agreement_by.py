"""Agreement by a column and over time (issue 27, item 2): ``ie.agreement_by``, the kept columns of the readers,
the scorecard's drift, ``iaa report --by/--time`` and the HTML section.

Each group's estimate is checked against ``ie.estimate`` on the subset computed independently (the long table
filtered with pandas and read again), the windows' count tables against the whole's, Holm's adjustment against
statsmodels' ``multipletests`` (statsmodels 0.14, a dev dependency)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.cli import main

METRICS = ["percent_agreement_weighted", "fleiss_kappa", "gwet_ac1", "krippendorff_alpha", "brennan_prediger"]


def _table(n_items: int = 120, seed: int = 0, n_ann: int = 6) -> pd.DataFrame:
    """A long table with a batch column, an annotator group and a timestamp per annotation (ISO text, some with an
    offset), items spread over about ten weeks and annotated over a few days."""
    rng = np.random.default_rng(seed)
    rows = []
    start = np.datetime64("2025-01-01T00:00:00")
    for i in range(n_items):
        t0 = start + np.timedelta64(int(rng.integers(0, 70 * 86400)), "s")
        truth = int(rng.integers(0, 3))
        k = int(rng.integers(1, 5))
        for a in rng.choice(n_ann, size=k, replace=False):
            label = truth if rng.random() < 0.7 else int(rng.integers(0, 3))
            t = t0 + np.timedelta64(int(rng.integers(0, 4 * 86400)), "s")
            text = str(t) + ("Z" if rng.random() < 0.3 else "")
            rows.append((f"doc{i:03d}", f"w{a}", "abc"[label], f"b{i % 4}", "g1" if a < 3 else "g2", text))
    return pd.DataFrame(rows, columns=["item", "annotator", "label", "batch", "team", "created_at"])


def _subset_estimate(table: pd.DataFrame, mask: np.ndarray, categories: list, metric: str) -> ie.Estimate:
    sub = ie.Annotations.from_long(table[mask].reset_index(drop=True), categories=categories)
    return ie.estimate(sub, metric)


def _same(a: float, b: float) -> bool:
    return (np.isnan(a) and np.isnan(b)) or abs(a - b) <= 1e-12 * max(1.0, abs(b))


@pytest.mark.parametrize("column", ["batch", "team"])
def test_each_group_equals_the_estimate_on_its_subset(column):
    table = _table()
    data = ie.Annotations.from_long(table, keep=[column])
    res = ie.agreement_by(data, by=column, metrics=METRICS)
    cats = list(data.categories)
    assert res.groups() == sorted(table[column].unique())
    for row in res.table.itertuples(index=False):
        mask = (table[column] == row.group).to_numpy()
        e = _subset_estimate(table, mask, cats, row.metric)
        for got, want in ((row.estimate, e.estimate), (row.se, e.se), (row.lower, e.lower), (row.upper, e.upper)):
            assert _same(got, want), (row.group, row.metric, got, want)
        assert row.n_annotations == mask.sum()
        assert row.n_items == table[mask]["item"].nunique()


def _first_week(table: pd.DataFrame) -> pd.Series:
    """Each row's item's window, computed independently: pandas parses the timestamps (UTC), takes each item's
    earliest and floors it to its Monday."""
    t = pd.to_datetime(table["created_at"], format="ISO8601", utc=True).dt.tz_localize(None)
    first = t.groupby(table["item"]).transform("min")
    monday = first.dt.normalize() - pd.to_timedelta(first.dt.day_of_week, unit="D")
    return monday.dt.strftime("%Y-%m-%d")


def test_time_windows_are_the_subsets_of_each_items_first_annotation():
    table = _table(seed=1)
    data = ie.Annotations.from_long(table, keep=["created_at"])
    res = ie.agreement_by(data, time="created_at", freq="W", metrics=METRICS[:3])
    week = _first_week(table)
    assert res.groups() == sorted(week.unique())
    cats = list(data.categories)
    for row in res.table.itertuples(index=False):
        mask = (week == row.group).to_numpy()
        e = _subset_estimate(table, mask, cats, row.metric)
        assert _same(row.estimate, e.estimate) and _same(row.se, e.se)
        assert row.end - row.start == pd.Timedelta(days=7) and row.start.weekday() == 0
    assert res.n_excluded == 0


def test_months_and_days():
    table = _table(seed=2)
    data = ie.Annotations.from_long(table, keep=["created_at"])
    t = pd.to_datetime(table["created_at"], format="ISO8601", utc=True).dt.tz_localize(None)
    first = t.groupby(table["item"]).transform("min")
    months = ie.agreement_by(data, time="created_at", freq="M", metrics=["fleiss_kappa"])
    assert months.groups() == sorted(first.dt.strftime("%Y-%m").unique())
    days = ie.agreement_by(data, time="created_at", freq="D", metrics=["fleiss_kappa"])
    assert days.groups() == sorted(first.dt.strftime("%Y-%m-%d").unique())
    assert days.table["n_annotations"].sum() == len(table)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), freq=st.sampled_from(["D", "W", "M"]), n_items=st.integers(5, 60))
def test_windows_partition_the_data_and_recombine_into_the_whole(seed, freq, n_items):
    table = _table(n_items=n_items, seed=seed)
    data = ie.Annotations.from_long(table, keep=["created_at"])
    window, windows = __import__("iaa_engine.analysis._by", fromlist=["item_windows"]).item_windows(
        data, "created_at", freq
    )
    assert (window >= 0).all() and window.max() == len(windows) - 1
    # the windows' count tables (items × categories) add up to the whole's; each item in exactly one window
    from iaa_engine.analysis._by import _subsets

    subsets, per_item = _subsets(data, window[data.item], len(windows))
    assert (per_item == 1).all()
    whole = data.counts.to_dense()
    parts = np.zeros_like(whole)
    for sub in subsets:
        rows = data.items.get_indexer(sub.items)
        parts[rows] += sub.counts.to_dense()
    np.testing.assert_array_equal(parts, whole)
    assert sum(s.n_annotations for s in subsets) == data.n_annotations
    assert sum(s.n_items for s in subsets) == data.n_items
    # and the coefficients' sums: Gwet's observed agreement is a mean over the items with two or more annotations,
    # so the whole's is the windows' weighted by their number of such items
    res = ie.agreement_by(data, time="created_at", freq=freq, metrics=["percent_agreement_weighted"])
    assert res.table["n_annotations"].sum() == len(table)
    n2 = np.array([np.count_nonzero(np.bincount(s.item) >= 2) for s in subsets], dtype=float)
    pa = res.table["estimate"].to_numpy()
    if n2.sum():
        whole = ie.estimate(data, "percent_agreement_weighted").estimate
        assert abs(np.nansum(n2 * np.where(n2 > 0, pa, 0.0)) / n2.sum() - whole) < 1e-12


def test_holm_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    table = _table(n_items=400, seed=3)
    data = ie.Annotations.from_long(table, keep=["created_at"])
    res = ie.agreement_by(data, time="created_at", freq="W", metrics=["fleiss_kappa", "gwet_ac1"])
    for metric, rows in res.tests.groupby("metric"):
        p = rows["p_value"].to_numpy()
        ok = np.isfinite(p)
        want = multitest.multipletests(p[ok], method="holm")[1]
        np.testing.assert_allclose(rows["p_adjusted"].to_numpy()[ok], want, rtol=1e-12)


def test_the_two_variance_z_and_the_reference_test():
    table = _table(n_items=200, seed=4)
    data = ie.Annotations.from_long(table, keep=["batch"])
    res = ie.agreement_by(data, by="batch", metrics=["gwet_ac1"], reference="b2", correction="none")
    assert res.test == "reference" and res.reference == "b2"
    t = res.table.set_index("group")
    assert list(res.tests["group_a"]) == ["b2"] * 3 and list(res.tests["group_b"]) == ["b0", "b1", "b3"]
    for r in res.tests.itertuples(index=False):
        d = t.loc[r.group_b, "estimate"] - t.loc[r.group_a, "estimate"]
        se = np.hypot(t.loc[r.group_a, "se"], t.loc[r.group_b, "se"])
        from scipy.stats import norm

        assert _same(r.difference, d) and _same(r.se, se)
        assert abs(r.p_value - 2 * norm.sf(abs(d / se))) < 1e-12 and r.p_adjusted == r.p_value
        assert abs(r.lower - (d - norm.ppf(0.975) * se)) < 1e-12 and abs(r.upper - (d + norm.ppf(0.975) * se)) < 1e-12
        # the same as ie.compare's test of two independent data sets, had it the same standard errors
        assert abs(r.z - d / se) < 1e-12
    with pytest.raises(ie.InvalidParameterError, match="reference"):
        ie.agreement_by(data, by="batch", reference="nope")


def test_text_group_values_stay_text():
    table = pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "c", "c", "d", "d"],
            "annotator": ["x", "y"] * 4,
            "label": list("ppnnpnpp"),
            "group": ["007", "007", "7", "7", "None", "None", "  007 ", "007"],
        }
    )
    data = ie.Annotations.from_long(table, keep=["group"])
    res = ie.agreement_by(data, by="group", metrics=["percent_agreement_weighted"])
    assert res.groups() == ["007", "7", "None"]  # "007" and "7" two groups, "None" a group, whitespace trimmed
    assert res.table.set_index("group").loc["007", "n_items"] == 2


def test_text_groups_from_a_csv_file(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("item,annotator,label,batch\na,x,p,007\na,y,p,007\nb,x,n,None\nb,y,p,None\nc,x,n,\nc,y,n,\n")
    data = ie.read(path, keep=["batch"])
    res = ie.agreement_by(data, by="batch", metrics=["percent_agreement_weighted"])
    assert res.groups() == ["007", "None"] and res.n_excluded == 2
    assert any("without a value" in n for n in res.notes)


def test_kept_columns_follow_dropped_rows_and_duplicates():
    table = pd.DataFrame(
        {
            "item": ["a", "a", "a", "b", "b", "c"],
            "annotator": ["x", "y", "x", "x", "y", "x"],
            "label": ["p", "p", "n", None, "n", "p"],
            "batch": ["k1", "k2", "k3", "k4", "k5", "k6"],
        }
    )
    data = ie.Annotations.from_long(table, keep=["batch"], duplicates="last")
    frame = data.to_long().assign(batch=np.asarray(data.extra["batch"]))
    assert frame.sort_values(["item", "annotator"])["batch"].tolist() == ["k3", "k2", "k5", "k6"]
    assert ie.Annotations.from_long(table.drop(columns="batch"), duplicates="last").extra == {}


def test_bad_input():
    table = _table(n_items=20)
    data = ie.Annotations.from_long(table, keep=["batch"])
    with pytest.raises(ValueError, match="no column 'created_at' was kept"):
        ie.agreement_by(data, time="created_at")
    with pytest.raises(ie.InvalidParameterError, match="exactly one"):
        ie.agreement_by(data)
    with pytest.raises(ie.InvalidParameterError, match="freq"):
        ie.agreement_by(data, by="batch", freq="Y")
    with pytest.raises(ValueError, match="not found"):
        ie.Annotations.from_long(table, keep=["nope"])
    bad = table.assign(created_at=["05/03/2024"] + list(table["created_at"][1:]))
    with pytest.raises(ValueError, match=r"'05/03/2024' \(annotation 1\) is not a timestamp"):
        ie.agreement_by(ie.Annotations.from_long(bad, keep=["created_at"]), time="created_at")
    with pytest.raises(ValueError, match="not timestamps"):
        ie.agreement_by(ie.Annotations.from_long(table.assign(n=1), keep=["n"]), time="n")


def test_typed_timestamps_with_a_time_zone():
    table = _table(n_items=60, seed=5)
    t = pd.to_datetime(table["created_at"], format="ISO8601", utc=True).dt.tz_convert("Europe/Berlin")
    data = ie.Annotations.from_long(table.assign(created_at=t), keep=["created_at"])
    res = ie.agreement_by(data, time="created_at", metrics=["fleiss_kappa"])
    assert res.groups() == sorted(_first_week(table).unique())
    # Python date objects (an object column that is not text) are timestamps too
    days = ie.Annotations.from_long(table.assign(created_at=t.dt.tz_convert("UTC").dt.date), keep=["created_at"])
    assert ie.agreement_by(days, time="created_at", metrics=["fleiss_kappa"]).groups() == res.groups()


# --------------------------------------------------------------------------- the scorecard's drift


def test_scorecard_drift_is_each_annotators_agreement_per_window():
    table = _table(n_items=200, seed=6)
    data = ie.Annotations.from_long(table, keep=["created_at"])
    card = ie.annotator_report(data, time="created_at", freq="M", competence=False, progress=False)
    drift = card.drift
    assert set(drift.columns) >= {"annotator", "window", "n_pairable", "agreement", "lower", "upper"}
    # independently: each window's own data, each annotator's agreement with the pooled others there
    t = pd.to_datetime(table["created_at"], format="ISO8601", utc=True).dt.tz_localize(None)
    month = t.groupby(table["item"]).transform("min").dt.strftime("%Y-%m")
    for window in drift["window"].unique():
        sub = ie.Annotations.from_long(table[(month == window).to_numpy()].reset_index(drop=True))
        want = ie.annotator_report(sub, competence=False, progress=False, pairwise=False).table.set_index("annotator")
        got = drift[drift["window"] == window].set_index("annotator")
        for a, row in got.iterrows():
            assert _same(row["agreement"], want.loc[a, "agreement"]), (window, a)
            assert row["n_pairable"] == want.loc[a, "n_pairable"]
    # the whole scorecard is unchanged by the drift
    plain = ie.annotator_report(data, competence=False, progress=False)
    pd.testing.assert_frame_equal(plain.table, card.table)
    assert plain.drift is None


# --------------------------------------------------------------------------- command line and HTML


def _write(tmp_path, table: pd.DataFrame) -> str:
    path = tmp_path / "ann.csv"
    table.to_csv(path, index=False)
    return str(path)


def test_cli_report_by_and_time(tmp_path, capsys):
    path = _write(tmp_path, _table(n_items=150, seed=7))
    assert main(["report", path, "--by", "batch"]) == 0
    out = capsys.readouterr().out
    assert "Agreement per value of 'batch'" in out and "b3" in out
    assert main(["report", path, "--time", "created_at", "--freq", "M", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["by"]["kind"] == "time" and doc["by"]["freq"] == "M"
    assert {r["metric"] for r in doc["by"]["groups"]} >= {"fleiss_kappa", "gwet_ac1", "krippendorff_alpha"}
    assert main(["report", path, "--by", "team", "--csv"]) == 0
    csv = capsys.readouterr().out
    assert csv.splitlines()[0].startswith("group,start,end,metric,estimate")


def test_cli_annotators_time_prints_the_scorecards_drift(tmp_path, capsys):
    """iaa annotators FILE --time COLUMN: the drift of ie.annotator_report(time=...) as a table (annotators ×
    windows) and, with --format csv, every window's n and interval."""
    table = _table(n_items=150, seed=9)
    path = _write(tmp_path, table)
    data = ie.read(path, keep=["created_at"])
    want = ie.annotator_report(data, time="created_at", freq="M").drift
    assert main(["annotators", path, "--time", "created_at", "--freq", "M", "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"window": str, "annotator": str})
    assert got["window"].tolist() == want["window"].astype(str).tolist()
    np.testing.assert_allclose(got["agreement"], want["agreement"], rtol=1e-12)
    np.testing.assert_array_equal(got["n_pairable"], want["n_pairable"])
    assert main(["annotators", path, "--time", "created_at", "--freq", "M"]) == 0
    out = capsys.readouterr().out
    assert "Agreement with the others per month of 'created_at'" in out
    for window in want["window"].astype(str).unique():
        assert window in out
    assert main(["annotators", path, "--time", "created_at", "--pairs", "--format", "csv"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["annotators", path, "--time", "createdat"]) == 2
    assert "column 'createdat' not found" in capsys.readouterr().err


def test_cli_errors_are_one_line(tmp_path, capsys):
    table = _table(n_items=30, seed=8)
    path = _write(tmp_path, table)
    assert main(["report", path, "--by", "batchh"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("iaa: error: column 'batchh' not found") and "'batch'" in err[0]
    bad = _write(tmp_path, table.assign(created_at=["yesterday"] + list(table["created_at"][1:])))
    assert main(["report", bad, "--time", "created_at"]) == 2
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("iaa: read")]
    assert len(err) == 1 and "'yesterday' (annotation 1) is not a timestamp" in err[0]
    assert main(["report", path, "--csv"]) == 2
    assert "--csv" in capsys.readouterr().err
    assert main(["report", path, "--by", "batch", "--time", "created_at"]) == 2
    assert "not both" in capsys.readouterr().err


def test_html_has_the_trend_section_and_the_drift(tmp_path):
    path = _write(tmp_path, _table(n_items=300, seed=9))
    out = tmp_path / "r.html"
    assert main(["report", path, "--time", "created_at", "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="by"' in page and 'id="fig-by-fleiss_kappa"' in page and 'id="drift-table"' in page
    assert page.count("<svg") >= 7
    out2 = tmp_path / "g.html"
    assert main(["report", path, "--by", "batch", "--html", str(out2)]) == 0
    page2 = out2.read_text(encoding="utf-8")
    assert 'id="by"' in page2 and 'id="drift-table"' not in page2


def test_consecutive_batches_agree_with_ie_compare_on_independent_data_sets():
    """Batches have no item in common: ie.compare of the two filtered tables (independent, the two variances) gives
    the same difference, standard error, z and p as agreement_by's test of the two groups."""
    table = _table(n_items=300, seed=10)
    data = ie.Annotations.from_long(table, keep=["batch"])
    res = ie.agreement_by(data, by="batch", metrics=["fleiss_kappa", "gwet_ac1"], correction="none")
    cats = list(data.categories)
    for r in res.tests.itertuples(index=False):
        a, b = (
            ie.Annotations.from_long(table[table["batch"] == g].reset_index(drop=True), categories=cats)
            for g in (r.group_a, r.group_b)
        )
        c = ie.compare(a, b, metric=r.metric)
        assert not c.paired
        for got, want in ((r.difference, c.estimate), (r.se, c.se), (r.z, c.statistic), (r.p_value, c.p_value)):
            assert _same(got, want), (r.metric, r.group_a, r.group_b, got, want)


def test_items_without_a_timestamp_are_left_out_and_the_rest_unchanged():
    table = _table(n_items=150, seed=11)
    no_time = table["item"].isin([f"doc{i:03d}" for i in range(0, 150, 7)]).to_numpy()
    partial = table["item"].isin([f"doc{i:03d}" for i in range(3, 150, 7)]).to_numpy()
    first_row = ~table.duplicated("item").to_numpy()
    blank = no_time | (partial & first_row)  # partly timed items keep the window of their timed annotations
    data = ie.Annotations.from_long(table.assign(created_at=np.where(blank, "", table["created_at"])),
                                    keep=["created_at"])  # fmt: skip
    res = ie.agreement_by(data, time="created_at", metrics=["gwet_ac1"])
    no_time = pd.Series(blank).groupby(table["item"].to_numpy()).transform("all").to_numpy()  # every row blank
    assert res.n_excluded == int(no_time.sum()) and any("without any timestamp" in n for n in res.notes)
    kept = table[~blank].reset_index(drop=True)
    week = _first_week(kept).reindex(range(len(kept)))
    week = table.loc[~no_time, "item"].map(dict(zip(kept["item"], week))).reset_index(drop=True)
    rest = table[~no_time].reset_index(drop=True)
    cats = list(data.categories)
    for row in res.table.itertuples(index=False):
        e = _subset_estimate(rest, (week == row.group).to_numpy(), cats, "gwet_ac1")
        assert _same(row.estimate, e.estimate) and _same(row.se, e.se)
