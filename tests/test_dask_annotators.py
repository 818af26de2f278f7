"""The annotator scorecard on the Dask engine against the in-memory one, on the same data (issue 35): five Parquet
files with each item's rows split across them, a timestamp column, a random labeller and a biased one among genuine
annotators (so that both flags are given). Counts, flags and their reasons exactly; coefficients to 1e-12; what comes
out of an EM (MACE's competence, and every gold column under Dawid-Skene gold) to 1e-9.

One in-process cluster for the module (one worker thread); `iaa annotators --scheduler` connects to it over TCP as to
a separate cluster, so no process starts."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.analysis._scorecard import annotator_report
from iaa_engine.cli import main

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from iaa_engine.engines._commands import open_dask  # noqa: E402
from iaa_engine.engines._dask_annotators import _card_part, _combine  # noqa: E402
from tests._dask_cluster import assert_close, cluster_fixtures, make_frame, write_split  # noqa: E402

#: What comes out of an EM: MACE's competence, and with Dawid-Skene gold every gold column.
ITERATIVE = ["competence"]
GOLD_COLUMNS = ["accuracy", "accuracy_lower", "accuracy_upper", "gold_kappa", "gold_kappa_lower", "gold_kappa_upper"]
COUNTS = ["n_items", "n_pairable", "n_gold"]
TEXT = ["annotator", "flag", "flag_reason"]


def scorecard_frame(seed=0):
    """:func:`make_frame` (10 genuine annotators, 500 items, 4 labels, timestamps over two months) with a random
    labeller ("spam", uniform labels on 150 items) and a biased one ("tilt", label 1 on 70 % of 150 items)."""
    frame = make_frame(seed)
    rng = np.random.default_rng(seed + 1)
    items = frame["item"].drop_duplicates().to_numpy()
    extra = []
    for who, draw in (("spam", lambda: int(rng.integers(1, 5))), ("tilt", lambda: 1 if rng.random() < 0.7 else 2)):
        for i in rng.choice(items, size=150, replace=False):
            stamp = frame.loc[frame["item"] == i, "created_at"].dropna()
            extra.append((i, who, draw(), "b0", stamp.iloc[0] if len(stamp) else None))
    extra_frame = pd.DataFrame(extra, columns=frame.columns)
    return pd.concat([frame, extra_frame]).sample(frac=1.0, random_state=seed).reset_index(drop=True)


cluster, client, address = cluster_fixtures()  # this file's own cluster, built once


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    frame = scorecard_frame()
    root = tmp_path_factory.mktemp("dask-annotators")
    write_split(frame, root)
    known = frame.drop_duplicates("item").iloc[::9][["item"]].assign(label=lambda f: (f.index % 4 + 1).astype(str))
    known = pd.concat([known, pd.DataFrame({"item": ["not-in-the-data"], "label": ["1"]})], ignore_index=True)
    known.to_csv(root / "known.csv", index=False)
    return frame, root, known


def assert_same_card(got, want, iterative=()):
    """Equal scorecards: counts, flags and reasons exactly, numbers to 1e-12 (the ``iterative`` columns to 1e-9)."""
    assert list(got.table.columns) == list(want.table.columns)
    for col in want.table.columns:
        g, w = got.table[col], want.table[col]
        if col in TEXT or col in COUNTS:
            assert g.tolist() == w.tolist(), col
        else:
            tol = 1e-9 if col in iterative else 1e-12
            np.testing.assert_allclose(g.to_numpy(float), w.to_numpy(float), rtol=0, atol=tol, err_msg=col)
    assert got.alpha == pytest.approx(want.alpha, abs=1e-12, nan_ok=True)
    assert (got.level, got.gold, got.confidence, got.notes) == (want.level, want.gold, want.confidence, want.notes)
    assert_close(got.settings, want.settings)
    for name in ("pairs", "drift"):
        g, w = getattr(got, name), getattr(want, name)
        assert (g is None) == (w is None), name
        if w is not None:
            pd.testing.assert_frame_equal(g, w, check_exact=False, atol=1e-12, rtol=0)


def columns(*extra):
    return ["item", "annotator", "label", *extra]


@pytest.mark.parametrize(
    "gold, level",
    [("majority", "nominal"), ("majority", "ordinal"), ("majority", "interval"), ("majority", "ratio"),
     ("dawid_skene", "nominal"), ("known", "nominal")],
)  # fmt: skip
def test_scorecard_on_the_cluster_equals_in_memory(client, dataset, gold, level):
    frame, root, known = dataset
    gold_arg = dict(zip(known["item"], known["label"].astype(int))) if gold == "known" else gold
    options = dict(gold=gold_arg, pairwise=True, competence=level == "nominal", progress=False)  # MACE: nominal
    got = ie.annotator_report_dask(open_dask(str(root / "ds"), columns()), level=level, client=client, **options)
    want = annotator_report(ie.Annotations.from_long(frame, level=level), **options)
    assert np.isfinite(want.table["competence"]).all() == (level == "nominal")
    assert_same_card(got, want, iterative=ITERATIVE + (GOLD_COLUMNS if gold == "dawid_skene" else []))
    assert set(want.flagged()) == {"spam", "tilt"}  # both flags are exercised
    assert "biased" in want.table.set_index("annotator").loc["tilt", "flag"]
    assert "random" in want.table.set_index("annotator").loc["spam", "flag"]
    if gold == "known":
        assert want.table["n_gold"].sum() > 0 and want.gold == "known"


@pytest.mark.parametrize("freq", ["D", "W", "M"])
def test_drift_on_the_cluster_equals_in_memory(client, dataset, freq):
    frame, root, _ = dataset
    source = open_dask(str(root / "ds"), columns("created_at"))
    got = ie.annotator_report_dask(
        source, time="created_at", freq=freq, competence=False, client=client, progress=False
    )
    data = ie.Annotations.from_long(frame, keep=["created_at"])
    want = annotator_report(data, time="created_at", freq=freq, competence=False, progress=False)
    assert_same_card(got, want)
    assert len(want.drift) >= 2 * 12 and want.drift["window"].nunique() > 1


def test_many_labels_take_the_path_without_labels_squared_tables(client, dataset, monkeypatch):
    """Above TABLE_CELLS the agreement and gold tables are not formed (their diagonals, margins and one bilinear
    sum instead): the same numbers on the cluster (the in-process worker sees the lowered limit)."""
    import iaa_engine.analysis._scorecard as sc

    frame, root, known = dataset
    monkeypatch.setattr(sc, "TABLE_CELLS", 8)
    gold = dict(zip(known["item"], known["label"].astype(int)))
    for g in ("majority", gold):
        got = ie.annotator_report_dask(
            open_dask(str(root / "ds"), columns()), gold=g, competence=False, client=client, progress=False
        )
        want = annotator_report(ie.Annotations.from_long(frame), gold=g, competence=False, progress=False)
        assert_same_card(got, want)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 11), st.integers(0, 5), st.integers(0, 3)),
        min_size=1,
        max_size=80,
        unique_by=lambda r: r[:2],
    ),
    split=st.lists(st.integers(0, 3), min_size=12, max_size=12),
    level=st.sampled_from(["nominal", "ordinal", "interval"]),
)
def test_any_partition_of_whole_items_gives_the_in_memory_scorecard(rows, split, level):
    """The client's merge (:func:`_combine`) of per-partition sums (:func:`_card_part`) equals the in-memory
    scorecard for any assignment of whole items to partitions (no cluster: the partitions' functions called
    directly)."""
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    whole = ie.Annotations.from_long(frame, level=level)
    names, cats = whole.annotators, whole.categories
    parts = []
    for k in range(4):
        mine = frame[frame["item"].map(lambda i: split[i]) == k]
        if len(mine) == 0:
            continue
        data = ie.Annotations.from_long(mine, level=level, categories=list(cats))
        ann = names.get_indexer(data.annotators)[data.annotator]
        parts.append(_card_part((data, ann), len(names), "majority", None, None, True, None, "W"))
    numeric = whole.category_values(level) if level == "interval" else None
    options = dict(
        confidence=0.95, random_fraction=0.8, random_level=0.05, bias_threshold=0.15, bias_p=0.001, min_items=3,
        pairwise=True,
    )  # fmt: skip
    got, _, _ = _combine(parts, names, len(cats), level, "majority", None, numeric, False, **options)
    want = annotator_report(whole, competence=False, progress=False, min_items=3, pairwise=True)
    assert_same_card(got, want)


# ------------------------------------------------------------------------------------------------ the command line
def run_both(capsys, address, root, *flags):
    """``iaa annotators`` on the cluster (the dataset) and in memory (the same rows in one file): both outputs."""
    assert main(["annotators", str(root / "ds"), *flags, "--engine", "dask", "--scheduler", address]) == 0
    got = capsys.readouterr().out
    assert main(["annotators", str(root / "all.parquet"), *flags]) == 0
    return got, capsys.readouterr().out


@pytest.mark.parametrize(
    "flags",
    [["--gold", "dawid-skene"], ["--time", "created_at", "--freq", "M"], ["--gold", "KNOWN"]],
    ids=["dawid-skene", "time", "known"],
)
def test_cli_json_and_table_on_dask_equal_in_memory(address, dataset, capsys, flags):
    _, root, _ = dataset
    flags = [str(root / "known.csv") if f == "KNOWN" else f for f in flags]
    got, want = run_both(capsys, address, root, *flags, "--format", "json")
    got, want = json.loads(got), json.loads(want)
    loose = ITERATIVE + (GOLD_COLUMNS if "dawid-skene" in flags else [])
    assert got.keys() == want.keys()
    for key in want:
        if key != "annotators":
            assert_close(got[key], want[key])
    assert len(got["annotators"]) == len(want["annotators"])
    for g, w in zip(got["annotators"], want["annotators"]):
        assert g.keys() == w.keys()
        for col in w:
            assert_close(g[col], w[col], col, tol=1e-9 if col in loose else 1e-12)
    if "--gold" in flags and "dawid-skene" not in flags:  # the gold questions' verdict beside the scorecard
        assert got["threshold"] == 0.8 and {"passed", "status"} <= set(got["annotators"][0])
    if "dawid-skene" not in flags:  # the text table (the drift's and the gold questions' columns in it)
        got, want = run_both(capsys, address, root, *flags)
        assert got == want and "flagged: spam, tilt" in got


@pytest.mark.parametrize("flags", [[], ["--pairs"], ["--time", "created_at"]], ids=["table", "pairs", "drift"])
def test_cli_csv_on_dask_equals_in_memory(address, dataset, capsys, flags, tmp_path):
    import io

    _, root, _ = dataset
    got, want = run_both(capsys, address, root, *flags, "--format", "csv")
    g, w = pd.read_csv(io.StringIO(got)), pd.read_csv(io.StringIO(want))
    pd.testing.assert_frame_equal(g, w, check_exact=False, atol=1e-9, rtol=0)
    if flags:
        return
    out = tmp_path / "card.csv"
    assert main(["annotators", str(root / "ds"), *flags, "--format", "csv", "--engine", "dask",
                 "--scheduler", address, "-o", str(out)]) == 0  # fmt: skip
    assert "wrote the scorecard of 12 annotators (2 flagged)" in capsys.readouterr().err
    pd.testing.assert_frame_equal(pd.read_csv(out), w, check_exact=False, atol=1e-9, rtol=0)


def test_cli_refusals_and_missing_columns_are_one_line(address, dataset, capsys, tmp_path):
    _, root, _ = dataset
    base = ["annotators", str(root / "ds"), "--engine", "dask", "--scheduler", address]
    for flags, says in [
        (["--layout", "wide"], "--layout cannot run with --engine dask"),
        (
            ["--na-values", "NA", "--annotators-as", "rows"],
            "--annotators-as, --na-values cannot run with --engine dask",
        ),
        (["--time", "shift"], "'shift'"),
    ]:
        assert main([*base, *flags]) == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, err
    assert main(["annotators", str(root / "all.parquet"), "--scheduler", address]) == 2
    assert "--scheduler needs --engine dask" in capsys.readouterr().err
    assert main(["annotators", str(tmp_path / "nowhere"), "--engine", "dask", "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert "nowhere" in err and err.count("\n") == 1


def test_bad_options_are_refused_before_the_cluster_is_used(client, dataset):
    _, root, _ = dataset
    source = open_dask(str(root / "ds"), columns())
    with pytest.raises(ValueError, match="gold"):
        ie.annotator_report_dask(source, gold="best", client=client)
    with pytest.raises(TypeError, match="gold must be"):
        ie.annotator_report_dask(source, gold=3, client=client)
    with pytest.raises(ValueError, match="min_items"):
        ie.annotator_report_dask(source, min_items=0, client=client)
    with pytest.raises(ValueError, match="freq"):
        ie.annotator_report_dask(source, time="created_at", freq="Y", client=client)
    with pytest.raises(ValueError, match="not one of the data's categories"):
        ie.annotator_report_dask(source, gold={"doc0004": 9}, competence=False, client=client, progress=False)


def test_blank_labels_and_annotators_without_a_label_are_left_out_as_in_memory(client, tmp_path):
    """A blank label is no annotation (``Annotations.from_long``): annotator "c" (only a blank) and "d" (only a
    missing label) have no row on the cluster either; item ids with leading zeros stay text."""
    frame = pd.DataFrame(
        {
            "item": ["001", "001", "002", "002", "003", "003", "004", "005", "005"],
            "annotator": ["a", "b", "a", "b", "c", "a", "d", "b", "a"],
            "label": ["x", "y", "x", "x", "", "y", None, "y", "y"],
        }
    )
    dd.from_pandas(frame, npartitions=3).to_parquet(tmp_path / "ds")
    got = ie.annotator_report_dask(open_dask(str(tmp_path / "ds"), columns()), client=client, progress=False)
    want = annotator_report(ie.Annotations.from_long(frame), progress=False)
    assert got.table["annotator"].tolist() == ["a", "b"]
    assert_same_card(got, want, iterative=ITERATIVE)
