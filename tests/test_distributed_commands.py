"""Every command on the Dask engine against the in-memory path, on the same data (issue 35): several Parquet files,
an item's rows split across files, a timestamp column and a group column. Exactly for counts and labels, to 1e-12
for coefficients, to 1e-9 for iterative ones (Dawid-Skene).

Most tests run on an in-process cluster (one worker thread: fast, and the notes caught per group stay each
group's own); `iaa ... --scheduler` connects to it over TCP as a separate cluster would be reached."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.cli import main

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from iaa_engine.engines._commands import agreement_by_dask, open_dask  # noqa: E402
from tests._dask_cluster import assert_close, cluster_fixtures, make_frame, write_split  # noqa: E402

cluster, client, address = cluster_fixtures()  # this file's own cluster, built once


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    frame = make_frame()
    root = tmp_path_factory.mktemp("dask-commands")
    write_split(frame, root)
    return frame, root


# ------------------------------------------------------------------------------------------ agreement by group
@pytest.mark.parametrize(
    "kw", [dict(by="batch"), dict(time="created_at", freq="W"), dict(time="created_at", freq="D")], ids=str
)
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_agreement_by_on_the_cluster_equals_in_memory(client, dataset, kw, level):
    frame, root = dataset
    column = kw.get("by") or kw["time"]
    weights = "quadratic" if level == "ordinal" else "identity"
    source = open_dask(str(root / "ds"), ["item", "annotator", "label", column])
    got = agreement_by_dask(source, level=level, weights=weights, client=client, progress=False, **kw)
    want = ie.agreement_by(ie.Annotations.from_long(frame, keep=[column], level=level), weights=weights, **kw)
    pd.testing.assert_frame_equal(got.table, want.table, check_exact=False, atol=1e-12, rtol=0)
    pd.testing.assert_frame_equal(got.tests, want.tests, check_exact=False, atol=1e-12, rtol=0)
    assert got.notes == want.notes and got.n_excluded == want.n_excluded
    if "time" in kw:
        assert got.n_excluded > 0 and "item(s) without any timestamp left out" in got.notes[0]
    assert (got.kind, got.freq, got.column) == (want.kind, want.freq, want.column)


@pytest.mark.parametrize("flags", [["--by", "batch"], ["--time", "created_at", "--freq", "M"]], ids=str)
def test_cli_report_by_and_time_on_dask(address, dataset, flags, capsys):
    _, root = dataset
    assert main(["report", str(root / "ds"), "--engine", "dask", "--scheduler", address, *flags, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert main(["report", str(root / "all.parquet"), *flags, "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    assert_close(got["by"], want["by"])
    for key in ("fleiss_kappa", "krippendorff_alpha", "n_items", "n_annotations"):
        assert_close(got[key], want[key])


# ------------------------------------------------------------------------------------------ frequency strata
@pytest.mark.parametrize("n_strata", [2, 3, 5])
def test_frequency_strata_on_the_cluster_equals_in_memory(client, dataset, n_strata):
    from iaa_engine.engines._commands import frequency_strata_dask

    frame, root = dataset
    got = frequency_strata_dask(
        open_dask(str(root / "ds"), ["item", "annotator", "label"]), n_strata=n_strata, client=client, progress=False
    )
    want = ie.frequency_strata(ie.Annotations.from_long(frame), n_strata=n_strata)
    pd.testing.assert_frame_equal(got.labels, want.labels, check_exact=False, atol=1e-12, rtol=0)
    pd.testing.assert_frame_equal(got.strata, want.strata, check_exact=False, atol=1e-12, rtol=0)
    assert_close(got.regression, want.regression)


def test_cli_report_strata_on_dask(address, dataset, capsys):
    _, root = dataset
    assert main(["report", str(root / "ds"), "--engine", "dask", "--scheduler", address, "--strata", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert main(["report", str(root / "all.parquet"), "--strata", "--json"]) == 0
    assert_close(got["strata"], json.loads(capsys.readouterr().out)["strata"])


# ---------------------------------------------------------------------------------------------------- gold labels
def _gold_in_memory(frame, rule):
    want = ie.gold_standard(ie.Annotations.from_long(frame), rule=rule, progress=False).per_item()
    return want.astype({"gold": str}).reset_index(drop=True)


def _read_gold(path):
    got = pd.read_csv(path, dtype={"gold": str}) if str(path).endswith(".csv") else pd.read_parquet(path)
    return got.astype({"gold": str}).sort_values("item").reset_index(drop=True)


@pytest.mark.parametrize("rule", ["majority", "diff", "rat", "com", "inv", "dawid_skene"])
def test_gold_on_the_cluster_equals_in_memory(client, dataset, tmp_path, rule):
    """Labels and ties exactly; scores and shares to 1e-12 (votes, weights) or 1e-9 (Dawid-Skene's posteriors:
    the same EM iterations, with the M step's sums added over partitions)."""
    from iaa_engine.engines._commands import gold_dask

    frame, root = dataset
    want = _gold_in_memory(frame, rule)
    tol = 1e-9 if rule == "dawid_skene" else 1e-12
    for out in ("gold.csv", "gold"):
        info = gold_dask(
            open_dask(str(root / "ds"), ["item", "annotator", "label"]),
            str(tmp_path / out),
            rule=rule,
            client=client,
            progress=False,
        )
        got = _read_gold(tmp_path / out)
        pd.testing.assert_frame_equal(
            got[["item", "gold", "tie", "n_tied", "n_annotations"]],
            want[["item", "gold", "tie", "n_tied", "n_annotations"]],
            check_dtype=False,
        )
        np.testing.assert_allclose(got[["score", "share"]], want[["score", "share"]], atol=tol, rtol=0)
        assert info["n_items"] == len(want) and info["n_ties"] == int(want["tie"].sum())
    if rule == "dawid_skene":
        assert info["n_iter"] == ie.gold_standard(ie.Annotations.from_long(frame), rule=rule, progress=False).n_iter


def test_cli_gold_on_dask_writes_csv_or_parquet(address, dataset, tmp_path, capsys):
    frame, root = dataset
    for out in (tmp_path / "g.csv", tmp_path / "g"):
        args = ["gold", str(root / "ds"), "--engine", "dask", "--scheduler", address, "--rule", "dawid-skene"]
        assert main([*args, "-o", str(out)]) == 0
        assert f"to {out}" in capsys.readouterr().err
        got = _read_gold(out)
        assert got["gold"].tolist() == _gold_in_memory(frame, "dawid_skene")["gold"].tolist()
    assert main(["gold", str(root / "ds"), "--engine", "dask", "--scheduler", address]) == 2
    assert "give -o FILE.csv" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------- disagreements
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
@pytest.mark.parametrize("top, per_pair, ds", [(20, 20, "auto"), (5, 3, False), (None, None, "auto")])
def test_disagreements_on_the_cluster_equal_in_memory(client, dataset, level, top, per_pair, ds):
    """The top items merged from the partitions' top items: the same items, ranks, pairs and items per pair
    (Dawid-Skene's entropy and probability to 1e-9)."""
    from iaa_engine.engines._commands import disagreements_dask

    frame, root = dataset
    got = disagreements_dask(
        open_dask(str(root / "ds"), ["item", "annotator", "label"]),
        top=top,
        items_per_pair=per_pair,
        dawid_skene=ds,
        level=level,
        client=client,
        progress=False,
    )
    want = ie.disagreements(
        ie.Annotations.from_long(frame, level=level), top=top, items_per_pair=per_pair, dawid_skene=ds, progress=False
    )
    pd.testing.assert_frame_equal(got.items, want.items, check_exact=False, atol=1e-9, rtol=0, check_dtype=False)
    for name in ("pairs", "pair_items"):
        pd.testing.assert_frame_equal(
            getattr(got, name), getattr(want, name), check_exact=False, atol=1e-12, rtol=0, check_dtype=False
        )
    key = ["rank", "item", "annotator"]
    pd.testing.assert_frame_equal(
        got.annotations.sort_values(key).reset_index(drop=True),
        want.annotations.sort_values(key).reset_index(drop=True),
        check_dtype=False,
    )
    assert (got.n_pairable, got.n_disagreeing, got.dawid_skene, got.ranking) == (
        want.n_pairable,
        want.n_disagreeing,
        want.dawid_skene,
        want.ranking,
    )


def test_cli_disagreements_on_dask(address, dataset, capsys):
    _, root = dataset
    args = ["disagreements", "--format", "json", "--top", "10"]
    assert main([*args[:1], str(root / "ds"), *args[1:], "--engine", "dask", "--scheduler", address]) == 0
    got = json.loads(capsys.readouterr().out)
    assert main([*args[:1], str(root / "all.parquet"), *args[1:]]) == 0
    want = json.loads(capsys.readouterr().out)
    assert_close(got, want, tol=1e-9)


# ------------------------------------------------------------------------------- a real cluster, and its failures
# (`iaa gold --engine dask --rule dawid-skene` on worker processes: tests/test_distributed.py, on that file's cluster of
# processes, which it starts anyway)


def test_a_missing_dataset_or_column_is_one_line(address, dataset, tmp_path, capsys):
    _, root = dataset
    for command in (["gold", "-o", str(tmp_path / "g.csv")], ["disagreements"], ["report", "--strata"]):
        assert (
            main([command[0], str(tmp_path / "nowhere"), *command[1:], "--engine", "dask", "--scheduler", address]) == 2
        )
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "cannot read the Parquet dataset" in err and "nowhere" in err, err
    assert main(["report", str(root / "ds"), "--engine", "dask", "--scheduler", address, "--by", "shift"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'shift'" in err, err


def test_the_progress_bar_is_drawn_on_standard_error(client, dataset, capsys):
    """Dask draws its bar on standard output; on a terminal it would end up inside `--json > out.json`."""
    from iaa_engine.engines._commands import frequency_strata_dask

    _, root = dataset
    frequency_strata_dask(open_dask(str(root / "ds"), ["item", "annotator", "label"]), client=client, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "100% Completed" in err
