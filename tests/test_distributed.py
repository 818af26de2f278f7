"""The Dask engine: a real LocalCluster with several worker processes, on partitioned Parquet whose items are split
across partitions, gives the in-memory results to 1e-12 (count-based metrics and the pairwise matrices)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

COUNT_METRICS = [
    "joint_probability",
    "percent_agreement",
    "fleiss_kappa",
    "krippendorff_alpha",
    "gwet_ac1",
    "brennan_prediger",
    "spa_kappa",
    "multi_kappa",
    "bias",
]
MATRICES = ["cohen_kappa", "percent_agreement_matrix", "krippendorff_alpha_matrix"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def make_frame(seed=0, items=2500, annotators=14, labels=5):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, labels + 1, size=items)
    rows = [
        (f"doc{i}", f"w{a:02d}", int(truth[i] if rng.random() < 0.7 else rng.integers(1, labels + 1)))
        for i in range(items)
        for a in range(annotators)
        if rng.random() < 0.3
    ]
    # shuffled rows: every item's annotations end up spread over the Parquet partitions
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    frame = make_frame()
    path = tmp_path_factory.mktemp("parquet") / "annotations"
    dd.from_pandas(frame, npartitions=7).to_parquet(path)
    # items really are split across partitions
    parts = [pd.read_parquet(p) for p in sorted(path.glob("*.parquet"))]
    spread = pd.concat([p.assign(part=k) for k, p in enumerate(parts)]).groupby("item")["part"].nunique()
    assert (spread > 1).mean() > 0.5
    return frame, path


def assert_reports_equal(a: dict, b: dict):
    for key in COUNT_METRICS:
        assert a[key] == pytest.approx(b[key], abs=1e-12), key
    for scheme, value in b["spa"].items():
        assert a["spa"][scheme] == pytest.approx(value, abs=1e-12), scheme
    for key in MATRICES:
        assert a[key]["annotators"] == b[key]["annotators"]
        np.testing.assert_allclose(
            np.array(a[key]["matrix"], float),
            np.array(b[key]["matrix"], float),
            atol=1e-12,
            equal_nan=True,
            err_msg=key,
        )
        assert a[key]["n_shared"] == b[key]["n_shared"]
    for key in ("n_items", "n_annotators", "n_annotations", "n_categories", "n_items_excluded"):
        assert a[key] == b[key], key


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_parquet_on_a_local_cluster_equals_in_memory(client, dataset, level):
    frame, path = dataset
    on_cluster = ie.read_dask(str(path), level=level, scheduler=client)
    in_memory = ie.Annotations.from_long(frame, level=level)
    assert_reports_equal(ie.report(on_cluster, pairwise=True).to_dict(), ie.report(in_memory, pairwise=True).to_dict())


def test_dask_dataframe_and_glob(client, dataset):
    frame, path = dataset
    ddf = dd.from_pandas(frame, npartitions=5)
    a = ie.report(ie.summarize_dask(ddf, scheduler=client)).to_dict()
    b = ie.report(ie.read_dask(str(path / "*.parquet"), scheduler=client)).to_dict()
    assert_reports_equal(a, b)


def test_statistics_only_data_refuses_per_item_results(client, dataset):
    _, path = dataset
    data = ie.read_dask(str(path), scheduler=client)
    with pytest.raises(ValueError, match="per-item counts are not available"):
        ie.item_agreement(data)
    bare = ie.Annotations.from_stats(count_sums=data.count_sums, items=data.n_items, categories=data.categories)
    with pytest.raises(ValueError, match="per-item counts are not available"):
        ie.bootstrap(bare, n_boot=10)  # sums without the count patterns (tests/test_dask_ci.py: with them)


def test_duplicates_across_partitions_are_found(client, tmp_path):
    frame = pd.DataFrame({"item": ["a", "b", "a"], "annotator": ["x", "x", "x"], "label": [1, 2, 2]})
    dd.from_pandas(frame, npartitions=3).to_parquet(tmp_path / "dup")
    with pytest.raises(ValueError, match="labelled more than once"):
        ie.read_dask(str(tmp_path / "dup"), scheduler=client)
    data = ie.read_dask(str(tmp_path / "dup"), scheduler=client, duplicates="last")
    assert data.n_annotations == 2


def test_errors(tmp_path, dataset):
    with pytest.raises(FileNotFoundError, match="cannot read the Parquet dataset"):
        ie.read_dask(str(tmp_path / "nothing-here"))
    with pytest.raises(ValueError, match="No files satisfy"):
        ie.read_dask(str(tmp_path))  # a directory without Parquet files
    with pytest.raises(OSError, match="cannot reach the Dask scheduler"):
        ie.read_dask(str(dataset[1]), scheduler="tcp://127.0.0.1:9")
    with pytest.raises(ValueError, match=r"cannot read columns \['item', 'who', 'label'\]"):
        ie.read_dask(str(dataset[1]), annotator="who")
    with pytest.raises(TypeError, match="expected a dask DataFrame"):
        ie.summarize_dask(pd.DataFrame())


def test_cli_engine_dask_starts_its_own_local_cluster(dataset):
    """`iaa report PATH --engine dask` without --scheduler starts a local cluster (2 worker processes here)."""
    frame, path = dataset
    env = {k: v for k, v in os.environ.items() if k != "IAA_DEBUG"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "iaa_engine",
            "report",
            str(path),
            "--engine",
            "dask",
            "--workers",
            "2",
            "--memory-limit",
            "1GiB",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert_reports_equal(json.loads(out.stdout), ie.report(ie.Annotations.from_long(frame)).to_dict())


def test_cli_engine_dask_refuses_what_it_cannot_run(dataset, capsys):
    from iaa_engine.cli import main

    assert main(["report", str(dataset[1]), "--engine", "dask", "--layout", "wide"]) == 2
    assert "cannot run with --engine dask" in capsys.readouterr().err


def test_cli_gold_dawid_skene_on_worker_processes_equals_in_memory(client, dataset, tmp_path):
    """`iaa gold PATH --engine dask --rule dawid-skene` on the module's cluster of worker processes: the EM's steps
    travel between processes, and the labels are the in-memory ones exactly, the posteriors to 1e-9. (The command's
    own local cluster, `--workers N` without `--scheduler`, is the session every command opens: the test above.)"""
    from iaa_engine.cli import main

    frame, path = dataset
    out = tmp_path / "gold.csv"
    address = client.scheduler.address
    assert (
        main(["gold", str(path), "--engine", "dask", "--scheduler", address, "--rule", "dawid-skene", "-o", str(out)])
        == 0
    )
    got = pd.read_csv(out, dtype={"gold": str}).astype({"gold": str}).sort_values("item").reset_index(drop=True)
    want = ie.gold_standard(ie.Annotations.from_long(frame), rule="dawid_skene", progress=False).per_item()
    want = want.astype({"gold": str}).sort_values("item").reset_index(drop=True)
    assert got["item"].tolist() == want["item"].tolist() and got["gold"].tolist() == want["gold"].tolist()
    np.testing.assert_allclose(got["score"], want["score"], atol=1e-9, rtol=0)


def _iaa(*args, timeout=120):
    env = {k: v for k, v in os.environ.items() if k != "IAA_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "iaa_engine", "report", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def test_files_that_disagree_on_a_column_type_are_named_in_one_line(tmp_path):
    path = tmp_path / "mixed"
    path.mkdir()
    pd.DataFrame({"item": ["a", "b"], "annotator": ["x", "y"], "label": ["1", "2"]}).to_parquet(path / "p1.parquet")
    pd.DataFrame({"item": [1, 2], "annotator": ["x", "y"], "label": ["1", "2"]}).to_parquet(path / "p2.parquet")
    out = _iaa(path, "--engine", "dask")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1, out.stderr
    assert "disagree on the type of column 'item'" in out.stderr and "p2.parquet" in out.stderr


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--workers", "-2"], "expected a whole number of at least 1; got -2"),
        # more local workers than cores used to start them all and hang (issue 25): the table's bound, one line
        (["--workers", "1000"], f"n_workers must be a whole number from 1 to {os.cpu_count() or 1} (this machine's"),
        (["--memory-limit", "1kB"], "is too small for a worker: give at least 256.00 MiB per worker"),
        (["--memory-limit", "lots"], "memory_limit must be a size such as '2GiB'"),
    ],
)
def test_impossible_cluster_settings_are_refused_at_once(dataset, flags, message):
    import time

    start = time.perf_counter()
    out = _iaa(dataset[1], "--engine", "dask", *flags, timeout=60)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert time.perf_counter() - start < 30  # refused before a cluster starts (it used to hang)
    with pytest.raises(ValueError, match="n_workers must be a whole number"):
        ie.read_dask(str(dataset[1]), n_workers=0)


def test_a_failure_on_the_workers_is_one_line_without_worker_logs(tmp_path):
    path = tmp_path / "dup"
    path.mkdir()
    pd.DataFrame({"item": ["a", "a", "b"], "annotator": ["x", "x", "y"], "label": ["1", "2", "1"]}).to_parquet(
        path / "p.parquet"
    )
    out = _iaa(path, "--engine", "dask", "--workers", "1", timeout=300)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("iaa: error: ") and "labelled more than once" in lines[0], out.stderr


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ({"a": 1}, "{'a': 1} (dict)"),  # was a RecursionError from inside dask
        (pd.DataFrame(), "<a pandas DataFrame>"),  # likewise
        (pd.DataFrame({"item": [], "annotator": [], "label": []}), "<a pandas DataFrame>"),
        (5, "5"),  # was dask's "argument of type 'int' is not iterable"
        ([], "[] (list)"),
        (["part-0.parquet", 3], "['part-0.parquet', 3] (list)"),
    ],
)
def test_a_source_that_is_not_a_path_is_refused_plainly(source, shown):
    """Issue 32: read_dask({"a": 1}) and read_dask(empty DataFrame) raised RecursionError from inside dask."""
    with pytest.raises(ie.InvalidParameterError) as info:
        ie.read_dask(source, progress=False)
    message = str(info.value)
    assert message.startswith("source must be a Parquet file, directory, glob or URL (text or a path), or a "
                              "non-empty list of them") and message.endswith(f"; got {shown}")  # fmt: skip
    if shown.startswith("<a pandas"):
        assert "Annotations.from_long" in message
