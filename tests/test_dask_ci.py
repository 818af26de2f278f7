"""`iaa report --engine dask --ci` and `ie.report(ie.read_dask(...), ci=True)` against the in-memory report (issue 35):
the same bootstrap intervals seed for seed, the same analytic standard errors and weighted coefficients.

The data: several Parquet files, an item's rows split across files (tests/test_distributed_commands.py's dataset).
The count metrics' replicates are drawn from the items' distinct count vectors, tallied per partition and merged
in the in-memory order; the annotator metrics' units are keyed by a hash of the item id. Both are the same however
the items are partitioned, so the intervals are equal, not close (checked to 0 for the count metrics, 1e-12 for
the rest)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.cli import main
from iaa_engine.inference._inference import COUNT_METRICS
from iaa_engine.reporting._report import ICC_NOT_COMPUTED

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from tests._dask_cluster import assert_close, cluster_fixtures, make_frame  # noqa: E402

INTERVAL_COLUMNS = ["estimate", "corrected", "se", "lower", "upper"]


cluster, client = cluster_fixtures()[:2]  # this file's own cluster, built once


def _write(frame: pd.DataFrame, root, name: str):
    dd.from_pandas(frame, npartitions=5).to_parquet(root / name)
    frame.to_parquet(root / f"{name}.parquet")  # the in-memory run reads the same typed columns
    return root / name, root / f"{name}.parquet"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """500 items (each its own resampling unit for the annotator metrics)."""
    frame = make_frame()
    return (frame, *_write(frame, tmp_path_factory.mktemp("dask-ci"), "ds"))


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """4,500 items: more than the annotator metrics' 4,096 units, so the items are dealt into hashed blocks."""
    frame = make_frame(seed=1, items=4500)[["item", "annotator", "label"]]
    return (frame, *_write(frame, tmp_path_factory.mktemp("dask-ci-large"), "ds"))


def _without_icc(rep: dict) -> dict:
    """The in-memory report less what the cluster's report leaves out: the ICC (it needs each annotation's value
    by annotator, not tallied) and the note saying so."""
    out = dict(rep)
    out["estimates"] = {k: v for k, v in rep["estimates"].items() if not k.startswith("ICC(")}
    if "readings" in rep:
        out["readings"] = {k: v for k, v in rep["readings"].items() if not k.startswith("ICC(")}
    out["notes"] = [n for n in rep["notes"] if not n.startswith("ICC")]
    return out


def _assert_intervals_equal(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.index) == list(want.index)
    assert (got["method"] == want["method"]).all() and (got["n_undefined"] == want["n_undefined"]).all()
    count = [m for m in want.index if m in COUNT_METRICS or m.startswith("spa[")]
    # the count metrics: the same replicates from the same draws, bit for bit
    np.testing.assert_array_equal(got.loc[count, INTERVAL_COLUMNS], want.loc[count, INTERVAL_COLUMNS])
    np.testing.assert_allclose(got[INTERVAL_COLUMNS], want[INTERVAL_COLUMNS], rtol=0, atol=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_report_ci_on_the_cluster_equals_in_memory(client, dataset, level):
    frame, ds, _ = dataset
    on_cluster = ie.read_dask(str(ds), level=level, scheduler=client, progress=False)
    in_memory = ie.Annotations.from_long(frame[["item", "annotator", "label"]], level=level)
    got = ie.report(on_cluster, ci=True, n_boot=300, seed=7, benchmark="landis_koch")
    want = ie.report(in_memory, ci=True, n_boot=300, seed=7, benchmark="landis_koch")
    _assert_intervals_equal(got.intervals.table, want.intervals.table)
    assert {"multi_kappa", "bias"} <= set(got.intervals.table.index)
    family = ["brennan_prediger", "fleiss_kappa", "gwet_ac1", "multi_kappa"]
    expected = [*family, f"krippendorff_alpha[{level}]"]
    if level != "nominal":  # the weighted kappa family the in-memory report shows by default (AUTO_KAPPA_WEIGHTS)
        assert got.kappa_weights == want.kappa_weights == "quadratic"
        expected += [f"{m}[quadratic]" for m in [*family, "percent_agreement_weighted"]]
    assert sorted(got.estimates) == sorted(expected)  # Conger's kappa's analytic SE included
    if level == "interval":
        assert any(n.startswith(ICC_NOT_COMPUTED) for n in got.notes)
        assert set(want.estimates) - set(got.estimates) == {
            f"ICC({f})" for f in ("1,1", "2,1", "3,1", "1,k", "2,k", "3,k")
        }
        assert_close(got.to_dict(), _without_icc(want.to_dict()) | {"notes": got.notes})
    else:
        assert_close(got.to_dict(), want.to_dict())


def test_weighted_family_without_ci_on_the_cluster(client, dataset):
    """Before: 'the analytic standard errors, the weighted coefficients and the ICC need per-item counts'."""
    frame, ds, _ = dataset
    got = ie.report(ie.read_dask(str(ds), level="ordinal", scheduler=client, progress=False))
    want = ie.report(ie.Annotations.from_long(frame[["item", "annotator", "label"]], level="ordinal"))
    assert "fleiss_kappa[quadratic]" in got.estimates and "multi_kappa[quadratic]" in got.estimates
    assert_close(got.to_dict(), want.to_dict())


def test_blocks_of_items_on_the_cluster_equal_in_memory(client, large):
    """Above 4,096 items the annotator metrics resample hashed blocks of items: the same blocks on the cluster."""
    frame, ds, _ = large
    on_cluster = ie.read_dask(str(ds), scheduler=client, progress=False)
    assert on_cluster._unit_sums.items is None  # blocks, not items
    got = ie.bootstrap(on_cluster, n_boot=200, seed=3, progress=False)
    want = ie.bootstrap(ie.Annotations.from_long(frame), n_boot=200, seed=3, progress=False)
    _assert_intervals_equal(got.table, want.table)
    np.testing.assert_allclose(got.replicates, want.replicates, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "flags", [[], ["--level", "ordinal"], ["--level", "interval", "--by", "batch"], ["--strata", "3"]], ids=str
)
def test_cli_report_ci_on_dask(cluster, dataset, flags, capsys):
    _, ds, file = dataset
    address = cluster[0].scheduler_address
    common = ["--ci", "--n-boot", "200", "--seed", "5", *flags, "--json"]
    assert main(["report", str(ds), "--engine", "dask", "--scheduler", address, *common]) == 0
    got = json.loads(capsys.readouterr().out)
    assert main(["report", str(file), *common]) == 0
    want = json.loads(capsys.readouterr().out)
    assert got["intervals"]["n_boot"] == 200 and got["intervals"]["seed"] == 5
    assert_close(got, want)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), npartitions=st.integers(1, 7))
def test_intervals_do_not_depend_on_the_partitioning(client, seed, npartitions):
    """The same annotations in another order, cut into other partitions: the same intervals."""
    frame = make_frame(seed=11, items=120, annotators=6, labels=3)[["item", "annotator", "label"]]
    shuffled = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    reference = ie.summarize_dask(dd.from_pandas(frame, npartitions=2), scheduler=client, progress=False)
    other = ie.summarize_dask(dd.from_pandas(shuffled, npartitions=npartitions), scheduler=client, progress=False)
    a = ie.bootstrap(reference, n_boot=100, seed=1, progress=False).table
    b = ie.bootstrap(other, n_boot=100, seed=1, progress=False).table
    _assert_intervals_equal(b, a)
    for metric in ("multi_kappa", "fleiss_kappa"):  # Conger's analytic SE from the partitions' tallies too
        assert_close(ie.estimate(other, metric).to_dict(), ie.estimate(reference, metric).to_dict())
