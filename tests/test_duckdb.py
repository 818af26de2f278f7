"""The DuckDB engine (issue 35, item 2): ``read_duckdb`` against the in-memory reader on the same rows.

Reference values: the in-memory path (``ie.read`` / ``Annotations.from_long``), whose coefficients are tested
against the published values and the peers' code elsewhere. Counts must agree exactly, coefficients to 1e-12.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.cli import main
from iaa_engine.stats._sums import ExactSums

duckdb = pytest.importorskip("duckdb", reason="the DuckDB engine needs the optional package duckdb (the dev extra)")


def _close(a, b, path="") -> None:
    """Equal JSON-like values: numbers to 1e-12 (NaN equals NaN), everything else exactly."""
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            assert a is b, path
        elif math.isnan(a) or math.isnan(b):
            assert math.isnan(a) and math.isnan(b), path
        else:
            assert a == pytest.approx(b, abs=1e-12, rel=0), path
    else:
        assert a == b, path


def _same(engine: ie.Annotations, memory: ie.Annotations) -> None:
    """The engine's statistics equal those of the annotations in memory: counts exactly, metrics to 1e-12."""
    assert (engine.n_items, engine.n_annotations) == (memory.n_items, memory.n_annotations)
    assert list(engine.annotators) == list(memory.annotators)
    assert list(engine.categories) == list(memory.categories)
    assert engine.categories.dtype == memory.categories.dtype
    np.testing.assert_array_equal(engine.annotator_stats.counts, memory.annotator_stats.counts)
    np.testing.assert_array_equal(engine.pair_stats.n_shared, memory.pair_stats.n_shared)
    np.testing.assert_array_equal(engine.pair_stats.n_agree, memory.pair_stats.n_agree)
    np.testing.assert_array_equal(engine.pair_stats.to_cells(), memory.pair_stats.to_cells())
    exact = ExactSums.from_counts(memory.counts)
    mine = engine.count_sums
    ref = exact.finish()
    for field in ("n_pairable", "n_items", "sum_p", "sum_unanimous", "sum_props", "totals", "p_by_n", "items_by_n"):
        np.testing.assert_array_equal(getattr(mine, field), getattr(ref, field), err_msg=field)
    np.testing.assert_array_equal(mine.o_val, ref.o_val)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = ie.report(engine, pairwise=True, kappa_weights=None).to_dict()
        b = ie.report(memory, pairwise=True, kappa_weights=None).to_dict()
    a.pop("notes"), b.pop("notes")
    a.pop("estimates"), b.pop("estimates")
    _close(a, b)


def _frame(n_items: int = 60, n_annotators: int = 7, seed: int = 0, labels=("neg", "neu", "pos")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        k = int(rng.integers(1, n_annotators + 1))
        for a in rng.choice(n_annotators, size=k, replace=False):
            rows.append((f"doc{i:03d}", f"w{a:02d}", labels[int(rng.integers(len(labels)))]))
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    frame["time"] = pd.Timestamp("2026-01-05") + pd.to_timedelta(rng.integers(0, 10**6, len(frame)), unit="s")
    return frame


def test_several_parquet_files_with_items_split_across_files_and_a_timestamp_column(tmp_path):
    frame = _frame()
    parts = np.array_split(np.arange(len(frame)), 4)
    for j, rows in enumerate(parts):
        frame.iloc[rows].to_parquet(tmp_path / f"part-{j}.parquet", index=False)
    split = frame.assign(part=np.repeat(np.arange(4), [len(p) for p in parts])).groupby("item")["part"].nunique()
    assert (split > 1).sum() > 10  # many items have rows in more than one file
    whole = tmp_path / "whole.parquet"
    frame.to_parquet(whole, index=False)
    data = ie.read_duckdb(str(tmp_path / "part-*.parquet"), progress=False)
    _same(data, ie.read(whole))
    # a directory means its Parquet files; a list of files is read as one dataset
    (tmp_path / "dir").mkdir()
    for j, rows in enumerate(parts):
        frame.iloc[rows].to_parquet(tmp_path / "dir" / f"p{j}.parquet", index=False)
    _same(ie.read_duckdb(tmp_path / "dir", progress=False), ie.read(whole))
    files = [tmp_path / f"part-{j}.parquet" for j in range(4)]
    _same(ie.read_duckdb(files, progress=False), ie.read(whole))


CSV = (
    "item,annotator,label\n"
    "007,ann,pos\n"
    "7,ann,neg\n"
    "007,bob,pos\n"
    "7,bob,None\n"
    " 007 ,cy,NA\n"  # whitespace around an id is not part of it
    "7,cy,\n"  # blank: missing
    "0007,ann,pos\n"
    "0007,bob,  \n"  # only whitespace: missing
    "0007,cy,null\n"
    "08,ann, neg \n"
    "08,bob,neg\n"
    "8,cy,neg\n"
    "8,bob,pos\n"
)


def test_csv_leading_zero_ids_na_like_labels_blanks_and_whitespace_read_as_the_in_memory_reader(tmp_path):
    path = tmp_path / "crowd.csv"
    path.write_text(CSV)
    with pytest.warns(ie.NALikeLabelWarning):
        memory = ie.read(path)
    with pytest.warns(ie.NALikeLabelWarning, match="None"):
        data = ie.read_duckdb(str(path), progress=False)
    assert data.n_items == 5  # 007, 7, 0007, 08, 8: ids as written
    assert "None" in list(data.categories) and "NA" in list(data.categories)
    _same(data, memory)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the named values are missing, not labels: no warning
        named = ie.read_duckdb(str(path), na_values=["NA", "None", "null"], progress=False)
        _same(named, ie.read(path, na_values=["NA", "None", "null"]))
    assert named.n_annotations == memory.n_annotations - 3


def test_tsv_and_several_csv_files(tmp_path):
    frame = _frame(seed=3)
    frame.to_csv(tmp_path / "all.tsv", sep="\t", index=False)
    half = len(frame) // 2
    frame.iloc[:half].to_csv(tmp_path / "a.csv", index=False)
    frame.iloc[half:][["label", "item", "annotator", "time"]].to_csv(tmp_path / "b.csv", index=False)  # other order
    memory = ie.read(tmp_path / "all.tsv")
    _same(ie.read_duckdb(str(tmp_path / "all.tsv"), progress=False), memory)
    _same(ie.read_duckdb(str(tmp_path / "*.csv"), progress=False), memory)


LEVEL_CSV = "item,annotator,label\n" + "".join(
    f"i{i},a{a},{v}\n"
    for i, row in enumerate([(1, 2, 2), (3, 3, ""), (1.0, 1, 4), (2, 2, 2), (5, 4, 4.5), (1, "", 2)])
    for a, v in enumerate(row)
    if v != "" or a == 2
)


@pytest.mark.parametrize(
    "level, categories",
    [
        ("nominal", None),
        ("ordinal", None),
        ("ordinal", ["1", "2", "3", "4", "4.5", "5"]),
        ("interval", None),
        ("ratio", None),
    ],
)
def test_every_level(tmp_path, level, categories):
    path = tmp_path / "levels.csv"
    path.write_text(LEVEL_CSV)
    memory = ie.read(path, level=level, categories=categories)
    data = ie.read_duckdb(str(path), level=level, categories=categories, progress=False)
    _same(data, memory)
    assert ie.krippendorff_alpha(data) == pytest.approx(ie.krippendorff_alpha(memory), abs=1e-12)


def test_typed_parquet_labels_with_nulls_read_as_in_memory(tmp_path):
    frame = pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3, 3, 3],
            "annotator": [10, 20, 10, 20, 10, 20, 30],
            "label": pd.array([1, 2, 2, 2, None, 3, 3], dtype="Int64"),
        }
    )
    path = tmp_path / "typed.parquet"
    frame.to_parquet(path, index=False)
    for level in ("nominal", "interval"):
        _same(ie.read_duckdb(str(path), level=level, progress=False), ie.read(path, level=level))


def test_a_label_that_is_no_number_is_named(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("item,annotator,label\na,x,1\na,y,2\nb,x,three\n")
    with pytest.raises(ValueError, match="'three'.*not a finite number"):
        ie.read(path, level="interval")
    with pytest.raises(ValueError, match="'three'.*not a finite number"):
        ie.read_duckdb(str(path), level="interval", progress=False)
    with pytest.raises(ValueError, match="order of the categories.*'three'"):
        ie.read_duckdb(str(path), level="ordinal", progress=False)


def test_duplicates(tmp_path):
    frame = pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "a", "c", "c", "b"],
            "annotator": ["x", "y", "x", "y", "x", "x", "y", "y"],
            "label": ["p", "p", "n", "p", "n", "n", "n", "n"],
        }
    )
    frame.iloc[:4].to_parquet(tmp_path / "0.parquet", index=False)
    frame.iloc[4:].to_parquet(tmp_path / "1.parquet", index=False)
    glob = str(tmp_path / "*.parquet")
    with pytest.raises(ValueError) as caught:
        ie.read_duckdb(glob, progress=False)
    message = "2 (item, annotator) pair(s) are labelled more than once, e.g. annotator 'x' on item 'a'"
    assert message in str(caught.value)
    for rule in ("first", "last"):
        _same(ie.read_duckdb(glob, duplicates=rule, progress=False), ie.Annotations.from_long(frame, duplicates=rule))
    # CSV: the files' row order too
    frame.iloc[:4].to_csv(tmp_path / "0.csv", index=False)
    frame.iloc[4:].to_csv(tmp_path / "1.csv", index=False)
    for rule in ("first", "last"):
        data = ie.read_duckdb(str(tmp_path / "*.csv"), duplicates=rule, progress=False)
        _same(data, ie.Annotations.from_long(frame, duplicates=rule))
    with pytest.raises(ValueError, match="an SQL query does not define"):
        ie.read_duckdb(f"SELECT * FROM '{glob}'", duplicates="first", progress=False)


def test_a_query_over_files(tmp_path):
    frame = _frame(seed=5).rename(columns={"item": "doc", "annotator": "coder", "label": "tag"})
    frame.to_parquet(tmp_path / "x.parquet", index=False)
    query = f"SELECT doc, coder, tag FROM read_parquet('{tmp_path / 'x.parquet'}') WHERE coder <> 'w03'"
    data = ie.read_duckdb(query, item="doc", annotator="coder", label="tag", progress=False)
    kept = frame[frame["coder"] != "w03"]
    _same(data, ie.Annotations.from_long(kept, item="doc", annotator="coder", label="tag"))


def test_blank_ids_missing_files_and_columns_are_one_clear_error(tmp_path):
    (tmp_path / "blank.csv").write_text("item,annotator,label\na,x,1\n ,y,2\n")
    with pytest.raises(ValueError, match=r"item column has a blank or missing value \(data row 2\)"):
        ie.read_duckdb(str(tmp_path / "blank.csv"), progress=False)
    pd.DataFrame({"item": ["a", None], "annotator": ["x", "y"], "label": ["1", "2"]}).to_parquet(
        tmp_path / "blank.parquet", index=False
    )
    with pytest.raises(ValueError, match=r"item column has a blank or missing value \(row 2 of 'blank.parquet'\)"):
        ie.read_duckdb(str(tmp_path / "blank.parquet"), progress=False)
    (tmp_path / "noann.csv").write_text("item,annotator,label\na,x,1\na,,2\n")
    with pytest.raises(ValueError, match="annotator column has a blank or missing value"):
        ie.read_duckdb(str(tmp_path / "noann.csv"), progress=False)
    with pytest.raises(FileNotFoundError, match="no file matches"):
        ie.read_duckdb(str(tmp_path / "nothing" / "*.parquet"), progress=False)
    with pytest.raises(FileNotFoundError, match="no such file"):
        ie.read_duckdb(str(tmp_path / "absent.parquet"), progress=False)
    with pytest.raises(ValueError, match=r"column\(s\) \['rater'\] not found.*'annotator'"):
        ie.read_duckdb(str(tmp_path / "blank.csv"), annotator="rater", progress=False)
    with pytest.raises(ValueError, match="expected Parquet"):
        ie.read_duckdb(str(tmp_path / "blank.json"), progress=False) if (tmp_path / "blank.json").write_text(
            "{}"
        ) else None
    with pytest.raises(ValueError, match="memory_limit must be a size"):
        ie.read_duckdb(str(tmp_path / "blank.csv"), memory_limit="lots", progress=False)
    with pytest.raises(ValueError, match="every label is missing"):
        (tmp_path / "empty.csv").write_text("item,annotator,label\na,x,\n")
        ie.read_duckdb(str(tmp_path / "empty.csv"), progress=False)


def test_a_small_memory_limit_spills_and_gives_the_same_statistics(tmp_path):
    frame = _frame(n_items=3000, n_annotators=40, seed=7)
    path = tmp_path / "big.parquet"
    frame.to_parquet(path, index=False)
    spill = tmp_path / "spill"
    data = ie.read_duckdb(str(path), memory_limit="64MB", temp_directory=spill, threads=1, progress=False)
    _same(data, ie.read(path))


def test_cli_engine_duckdb_prints_the_in_memory_report(tmp_path, capsys):
    frame = _frame(seed=11)
    frame.iloc[: len(frame) // 2].to_parquet(tmp_path / "p0.parquet", index=False)
    frame.iloc[len(frame) // 2 :].to_parquet(tmp_path / "p1.parquet", index=False)
    frame.to_parquet(tmp_path / "all.parquet", index=False)
    glob = str(tmp_path / "p*.parquet")
    assert main(["report", glob, "--engine", "duckdb", "--json", "--memory-limit", "256MB"]) == 0
    engine = json.loads(capsys.readouterr().out)
    assert main(["report", str(tmp_path / "all.parquet"), "--json", "--kappa-weights", "none"]) == 0
    memory = json.loads(capsys.readouterr().out)
    for key in ("estimates", "notes"):
        engine.pop(key), memory.pop(key)
    _close(engine, memory)


def test_cli_a_missing_file_is_one_line(tmp_path, capsys):
    assert main(["report", str(tmp_path / "none-*.parquet"), "--engine", "duckdb"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("iaa: error: no file matches") and err.count("\n") == 1 and str(tmp_path) in err
    assert main(["report", str(tmp_path / "x.parquet"), "--engine", "duckdb", "--ci"]) == 2
    assert "--ci cannot run with --engine duckdb" in capsys.readouterr().err


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.integers(0, 5), st.sampled_from(["a", "b", "c", " a", "NA", ""])),
        min_size=1,
        max_size=60,
        unique_by=lambda r: (r[0], r[1]),
    )
)
def test_property_any_sparse_table(tmp_path, rows):
    frame = pd.DataFrame(
        [(f"{i:0{1 + i % 3}d}", f"r{a}", lab) for i, a, lab in rows], columns=["item", "annotator", "label"]
    )
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            memory = ie.read(path)
        except ValueError as exc:  # every label blank
            with pytest.raises(ValueError, match="every label is missing"):
                ie.read_duckdb(str(path), progress=False)
            assert "every label is missing" in str(exc)
            return
        _same(ie.read_duckdb(str(path), progress=False), memory)


def test_progress_bar_on_stderr_when_asked(tmp_path, capsys):
    _frame(seed=13).to_parquet(tmp_path / "x.parquet", index=False)
    ie.read_duckdb(str(tmp_path / "x.parquet"), progress=True)
    err = capsys.readouterr().err
    assert "duckdb" in err and "100" in err  # the bar, ended at 100 %
    ie.read_duckdb(str(tmp_path / "x.parquet"), progress=False)
    assert capsys.readouterr().err == ""
