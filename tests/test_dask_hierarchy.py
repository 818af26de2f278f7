"""`iaa report --hierarchy` on the Dask engine against the in-memory path (issue 35): hierarchical labels over
several Parquet files, an item's rows split across files. The reference values are the in-memory
:func:`iaa_engine.hierarchical_agreement` on the same annotations (itself checked against hand-computed values in
tests/test_facets.py): to 1e-12 for coefficients, exactly for counts and notes."""

from __future__ import annotations

import json
import logging

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.cli import main

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from iaa_engine.engines._dask_hierarchy import hierarchical_agreement_dask  # noqa: E402

LABELS = ["animal/dog", "animal/cat", "animal/dog/puppy", "plant/tree", "plant/grass", "plant", "rock"]


@pytest.fixture(scope="module")
def cluster():
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None, silence_logs=logging.ERROR
    ) as cl:
        with distributed.Client(cl) as client:
            yield cl, client


def make_frame(seed=0, items=300, annotators=6, labels=LABELS):
    """Paths (with parents without a child, and a 3-level path), ~60 % of annotators per item, 60 % on the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(labels), size=items)
    rows = [
        (f"doc{i:04d}", f"w{a}", labels[truth[i] if rng.random() < 0.6 else rng.integers(0, len(labels))])
        for i in range(items)
        for a in range(annotators)
        if rng.random() < 0.6
    ]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # an item's rows in several files


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    frame = make_frame()
    root = tmp_path_factory.mktemp("dask-hierarchy")
    dd.from_pandas(frame, npartitions=4).to_parquet(root / "ds")
    parts = [pd.read_parquet(p) for p in sorted((root / "ds").glob("*.parquet"))]
    spread = pd.concat([p.assign(part=k) for k, p in enumerate(parts)]).groupby("item")["part"].nunique()
    assert (spread > 1).mean() > 0.5  # items really are split across files
    frame.to_parquet(root / "all.parquet")
    return root, frame


def assert_same(got, want):
    for name in ("alpha_parent", "alpha_child", "alpha_full", "gamma"):
        assert np.isclose(getattr(got, name), getattr(want, name), rtol=0, atol=1e-12, equal_nan=True), name
    pd.testing.assert_frame_equal(got.conditional, want.conditional, check_exact=False, atol=1e-12, rtol=0)
    assert list(got.conditional["n_items"]) == list(want.conditional["n_items"])
    assert got.notes == want.notes


@pytest.mark.parametrize("sep", ["/", "|"])
def test_hierarchy_on_the_cluster_equals_in_memory(cluster, dataset, sep):
    root, frame = dataset
    frame = frame.assign(label=frame["label"].str.replace("/", sep))
    ddf = dd.from_pandas(frame, npartitions=4)
    got = hierarchical_agreement_dask(ddf, sep=sep, client=cluster[1], progress=False)
    want = ie.hierarchical_agreement(ie.Annotations.from_long(frame), sep=sep)
    assert_same(got, want)
    assert np.isfinite(got.conditional["alpha"]).sum() == 2  # animal and plant have children; rock has none


def test_flat_labels_give_the_same_undefined_values_and_notes(cluster):
    frame = make_frame(seed=1, items=40, labels=["a", "b", "c"])
    got = hierarchical_agreement_dask(dd.from_pandas(frame, npartitions=3), client=cluster[1], progress=False)
    want = ie.hierarchical_agreement(ie.Annotations.from_long(frame))
    assert np.isnan(got.alpha_child) and np.isnan(got.gamma)
    assert_same(got, want)


def test_cli_report_hierarchy_on_dask(cluster, dataset, capsys):
    root, _ = dataset
    address = cluster[0].scheduler_address
    common = ["--hierarchy", "/", "--json", "--ci", "--n-boot", "200", "--seed", "1"]
    assert main(["report", str(root / "ds"), "--engine", "dask", "--scheduler", address, *common]) == 0
    got = json.loads(capsys.readouterr().out)
    assert main(["report", str(root / "all.parquet"), *common]) == 0
    want = json.loads(capsys.readouterr().out)
    g, w = got["hierarchy"], want["hierarchy"]
    assert g["notes"] == w["notes"] and [r["n_items"] for r in g["conditional"]] == [
        r["n_items"] for r in w["conditional"]
    ]
    for k in ("alpha_parent", "alpha_child", "alpha_full", "gamma"):
        assert abs(g[k] - w[k]) <= 1e-12
    for a, b in zip(g["conditional"], w["conditional"], strict=True):
        assert a["parent"] == b["parent"] and a["n_annotations"] == b["n_annotations"]
        assert (a["alpha"] is None) == (b["alpha"] is None)
        assert a["alpha"] is None or abs(a["alpha"] - b["alpha"]) <= 1e-12
    assert got["notes"] == want["notes"]  # the hierarchy's notes in the report too, where memory puts them


def test_cli_report_hierarchy_on_dask_text(cluster, dataset, capsys):
    root, _ = dataset
    address = cluster[0].scheduler_address
    assert main(["report", str(root / "ds"), "--engine", "dask", "--scheduler", address, "--hierarchy", "/"]) == 0
    got = capsys.readouterr().out
    assert main(["report", str(root / "all.parquet"), "--hierarchy", "/"]) == 0
    want = capsys.readouterr().out
    section = lambda text: text[text.index("Hierarch") :]  # noqa: E731
    assert section(got) == section(want)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 2), st.integers(0, 3)), max_size=60),
    st.integers(0, 10),
)
def test_conditional_sums_add_over_sets_of_whole_items(rows, cut):
    """The conditional child agreement from the sums of two disjoint sets of items, added, equals the one of all
    items (the in-memory `_conditional_alphas`), to 1e-12; counts exactly."""
    from iaa_engine.analysis._facets import _conditional_alphas, _conditional_finish, _conditional_sums

    item, parent, child = (np.array([r[k] for r in rows], dtype=np.int64) for k in range(3))
    want = _conditional_alphas(item, parent, child, 3)
    low, high = (_conditional_sums(item[m], parent[m], child[m], 3) for m in (item < cut, item >= cut))
    added = [a + b for a, b in zip(low[:4], high[:4])] + [np.concatenate([a, b]) for a, b in zip(low[4:], high[4:])]
    got = _conditional_finish(*added)
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])


def test_cli_report_hierarchy_notes_on_dask(cluster, tmp_path, capsys):
    """Flat labels: the undefined child alpha and γ give the same notes, in the same place, as in memory."""
    frame = make_frame(seed=1, items=40, labels=["a", "b", "c"])
    dd.from_pandas(frame, npartitions=3).to_parquet(tmp_path / "ds")
    frame.to_parquet(tmp_path / "all.parquet")
    address = cluster[0].scheduler_address
    assert (
        main(["report", str(tmp_path / "ds"), "--engine", "dask", "--scheduler", address, "--hierarchy", "/", "--json"])
        == 0
    )
    got = json.loads(capsys.readouterr().out)
    assert main(["report", str(tmp_path / "all.parquet"), "--hierarchy", "/", "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    assert got["hierarchy"] == want["hierarchy"] and got["hierarchy"]["alpha_child"] is None
    assert got["notes"] == want["notes"] and any(n.startswith("gamma is undefined") for n in got["notes"])
