"""Acceptance walk of issue 35 (helper qa35): what a user met on the Dask and DuckDB engines, each fixed with a
test that failed before the fix."""

from __future__ import annotations

import pandas as pd
import pytest

from iaa_engine.cli import main
from tests._dask_cluster import local_cluster


def _long(items, labels):
    """Two annotators per item, labels as given (one per annotation, in item order)."""
    rows = [(i, a, lab) for i, pair in zip(items, labels) for a, lab in zip(("a", "b"), pair)]
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


def test_duckdb_names_files_that_disagree_on_an_id_type(tmp_path, capsys):
    """Ids numeric in one file and text in another: DuckDB's union would make 7 and '007' two items (or one,
    silently); the Dask engine refuses with one line naming the column and both files, so DuckDB does too."""
    pytest.importorskip("duckdb")
    (tmp_path / "ds").mkdir()
    _long([7, 8], [("x", "x"), ("y", "x")]).to_parquet(tmp_path / "ds" / "a.parquet", index=False)
    _long(["007", "A1"], [("y", "y"), ("x", "x")]).to_parquet(tmp_path / "ds" / "b.parquet", index=False)
    assert main(["report", str(tmp_path / "ds" / "*.parquet"), "--engine", "duckdb"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert "type of column 'item'" in err and "a.parquet" in err and "b.parquet" in err, err


def test_duckdb_reads_files_whose_integer_widths_differ(tmp_path):
    """int32 in one file and int64 in another are one kind of id: no error, the same result as in memory."""
    pytest.importorskip("duckdb")
    import iaa_engine as ie

    (tmp_path / "ds").mkdir()
    a = _long([1, 2], [("x", "x"), ("y", "x")]).astype({"item": "int32"})
    b = _long([2, 3], [("y", "y"), ("x", "x")]).assign(annotator=["c", "d", "c", "d"])
    a.to_parquet(tmp_path / "ds" / "a.parquet", index=False)
    b.to_parquet(tmp_path / "ds" / "b.parquet", index=False)
    got = ie.read_duckdb(str(tmp_path / "ds"), progress=False)
    want = ie.Annotations.from_long(pd.concat([a, b]).astype({"item": "int64"}))
    assert ie.krippendorff_alpha(got) == pytest.approx(ie.krippendorff_alpha(want), abs=1e-12)


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    with local_cluster() as (_, c):
        yield c


def test_dask_disagreements_draw_progress_on_standard_error(client, tmp_path, capsys):
    """`iaa gold` and `iaa annotators` on Dask draw a bar on a terminal; `iaa disagreements --no-dawid-skene`
    drew nothing however long it ran."""
    from iaa_engine.engines._commands import disagreements_dask, open_dask

    frame = _long([f"{i:03d}" for i in range(40)], [("x", "y") if i % 3 else ("x", "x") for i in range(40)])
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    disagreements_dask(
        open_dask(str(tmp_path / "d.parquet"), ["item", "annotator", "label"]),
        dawid_skene=False,
        client=client,
        progress=True,
    )
    out, err = capsys.readouterr()
    assert out == "" and "100% Completed" in err, err


def test_a_warning_is_printed_once_per_run(client, tmp_path, capsys):
    """`iaa report --engine dask --by group` read the categories twice (the summary and the groups) and printed
    the NA-like-labels warning twice; the in-memory run prints it once."""
    frame = _long([f"{i:03d}" for i in range(12)], [("None", "NA") if i % 2 else ("x", "x") for i in range(12)])
    frame["group"] = ["g0", "g1"] * 12
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    address = client.scheduler.address
    assert (
        main(["report", str(tmp_path / "d.parquet"), "--engine", "dask", "--scheduler", address, "--by", "group"]) == 0
    )
    err = capsys.readouterr().err
    assert err.count("are counted as categories") == 1, err


def test_a_scheduler_address_without_a_port_is_named_as_the_scheduler(tmp_path, capsys):
    """`--scheduler nonsense` said only "missing port number in address 'nonsense'": which address?"""
    pytest.importorskip("distributed")
    _long(["001"], [("x", "y")]).to_parquet(tmp_path / "d.parquet", index=False)
    assert main(["report", str(tmp_path / "d.parquet"), "--engine", "dask", "--scheduler", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Dask scheduler at 'nonsense'" in err and "port" in err, err


def test_a_csv_given_to_the_dask_engine_says_it_reads_parquet(tmp_path, capsys):
    """A laptop user's CSV export on `--engine dask` was "Parquet magic bytes not found in footer. Either the file
    is corrupted ...": the file is not corrupt, the engine reads Parquet only."""
    pytest.importorskip("distributed")
    _long(["001"], [("x", "y")]).to_csv(tmp_path / "d.csv", index=False)
    assert main(["report", str(tmp_path / "d.csv"), "--engine", "dask", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "d.csv" in err and "corrupted" not in err and "--engine duckdb" in err, err


def test_duckdb_notes_do_not_speak_of_a_cluster(tmp_path):
    """The note about sums over items said "(summarised on a cluster)" on a laptop's DuckDB run."""
    pytest.importorskip("duckdb")
    import iaa_engine as ie

    _long(["001", "002", "003"], [(1, 2), (2, 2), (3, 1)]).to_parquet(tmp_path / "d.parquet", index=False)
    rep = ie.report(ie.read_duckdb(str(tmp_path / "d.parquet"), level="interval", progress=False))
    notes = [n for n in rep.notes if "sums over items" in n]
    assert notes and not any("cluster" in n for n in notes) and all("DuckDB" in n for n in notes), rep.notes


def test_gold_into_a_parquet_directory_twice_keeps_only_the_new_labels(client, tmp_path, capsys):
    """`iaa gold --engine dask -o gold/` run again on fewer partitions left the first run's extra part files in
    gold/, so reading the dataset mixed two runs' gold labels (2488 rows for 3 items in the walk)."""
    from iaa_engine.engines._commands import gold_dask, open_dask

    frame = _long([f"{i:03d}" for i in range(30)], [("x", "y") if i % 3 else ("x", "x") for i in range(30)])
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    many = open_dask(str(tmp_path / "d.parquet"), ["item", "annotator", "label"]).repartition(npartitions=4)
    gold_dask(many, output=str(tmp_path / "gold"), client=client, progress=False)
    few = frame[frame["item"] < "005"]
    few.to_parquet(tmp_path / "few.parquet", index=False)
    gold_dask(
        open_dask(str(tmp_path / "few.parquet"), ["item", "annotator", "label"]),
        output=str(tmp_path / "gold"),
        client=client,
        progress=False,
    )
    assert sorted(pd.read_parquet(tmp_path / "gold")["item"]) == ["000", "001", "002", "003", "004"]


def test_gold_refuses_a_directory_holding_other_parquet_files(client, tmp_path):
    """`-o` pointed at the input dataset would add gold rows to the annotations: refused, nothing written."""
    from iaa_engine.engines._commands import gold_dask, open_dask

    (tmp_path / "ds").mkdir()
    _long(["001", "002"], [("x", "y"), ("x", "x")]).to_parquet(tmp_path / "ds" / "a.parquet", index=False)
    with pytest.raises(ValueError, match="a.parquet"):
        gold_dask(
            open_dask(str(tmp_path / "ds"), ["item", "annotator", "label"]),
            output=str(tmp_path / "ds"),
            client=client,
            progress=False,
        )
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == ["a.parquet"]


def test_dask_does_not_state_one_partitions_duplicate_count_as_the_total(client, tmp_path, capsys):
    """Duplicates in many partitions: the memory engine said 496 pairs, Dask "138 (item, annotator) pair(s) are
    labelled more than once" (the count of the first partition that failed), a wrong number stated as fact."""
    frame = _long([f"{i:03d}" for i in range(60)], [("x", "y")] * 60)
    twice = pd.concat([frame, frame.assign(label="z")], ignore_index=True)
    (tmp_path / "ds").mkdir()
    for k in range(4):
        twice.iloc[k::4].to_parquet(tmp_path / "ds" / f"p{k}.parquet", index=False)
    for command in (["report"], ["gold", "-o", str(tmp_path / "g.csv")]):
        argv = [command[0], str(tmp_path / "ds"), *command[1:], "--engine", "dask"]
        assert main([*argv, "--scheduler", client.scheduler.address]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "labelled more than once" in err, err
        assert err.startswith("iaa: error: 120 ") or "at least" in err, err
        assert "--duplicates first" in err, err  # the command line's terms, as the in-memory run says it


def test_workers_that_run_another_iaa_engine_are_refused_in_one_line(client, tmp_path, capsys, monkeypatch):
    """A worker started before an upgrade (or from another install) computes the partitions with other code than
    the client finishes them with: refused in one line before any data is read (found by the acceptance walk: a
    long-lived worker gave a misleading 'per-item counts are not available')."""
    import distributed

    import iaa_engine
    from iaa_engine.engines._distributed import check_worker_code, code_fingerprint

    assert code_fingerprint().startswith(iaa_engine.__version__ + "+")
    check_worker_code(client)  # the in-process workers run this very code: accepted
    with pytest.raises(ValueError, match=r"^the Dask workers run another iaa-engine than this process \(workers: "):
        check_worker_code(client, here="0.0.0+000000000000")
    path = tmp_path / "a.parquet"
    _long(["i1", "i1", "i2", "i2"], ["x", "x", "y", "x"]).to_parquet(path)
    # through the command line: the workers' answer is that of an older install (no real worker of another
    # version can be started here without a second copy of the package)
    monkeypatch.setattr(distributed.Client, "run", lambda self, fn, *a, **k: {"tcp://10.0.0.9:1234": "0.0.9+abc"})
    code = main(["report", str(path), "--engine", "dask", "--scheduler", client.scheduler.address])
    err = capsys.readouterr().err
    assert code != 0
    assert "the Dask workers run another iaa-engine than this process (workers: 0.0.9+abc; here: " in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
