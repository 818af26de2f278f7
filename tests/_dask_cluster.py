"""What the Dask engine's test files share (issue 35): an in-process cluster, the long table they compare engines
on, and a tolerant comparison of JSON-like results. Each file still builds its own module-scoped cluster from
:func:`local_cluster` (tests/conftest.py keeps each of those files on one xdist worker), so this is a plain module,
not a conftest fixture."""

from __future__ import annotations

import contextlib
import logging

import numpy as np
import pandas as pd
import pytest


@contextlib.contextmanager
def local_cluster():
    """An in-process cluster (one worker thread: fast, and the notes caught per group stay each group's own) and a
    client to it: yields ``(cluster, client)``."""
    import distributed

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)  # "Shuffle ... initialized": per shuffle
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None, silence_logs=logging.ERROR
    ) as cl:
        with distributed.Client(cl) as client:
            yield cl, client


def write_split(frame, root):
    """``frame`` in five Parquet files under ``root / "ds"`` (checked: most items' rows are split across files) and
    whole in ``root / "all.parquet"`` (the in-memory run reads the same typed columns)."""
    import dask.dataframe as dd

    dd.from_pandas(frame, npartitions=5).to_parquet(root / "ds")
    parts = [pd.read_parquet(p) for p in sorted((root / "ds").glob("*.parquet"))]
    assert len(parts) == 5
    spread = pd.concat([p.assign(part=k) for k, p in enumerate(parts)]).groupby("item")["part"].nunique()
    assert (spread > 1).mean() > 0.5  # items really are split across files
    frame.to_parquet(root / "all.parquet")


def make_frame(seed=0, items=500, annotators=10, labels=4):
    """A sparse long table: ~35 % of annotators per item, 70 % of them on the item's true label, a batch column
    (with a few blanks) and ISO 8601 timestamps over two months (a few missing)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, labels + 1, size=items)
    start = pd.Timestamp("2025-01-01")
    rows = [
        (
            f"doc{i:04d}",
            f"w{a:02d}",
            int(truth[i] if rng.random() < 0.7 else rng.integers(1, labels + 1)),
            f"b{rng.integers(0, 4)}",
            (start + pd.Timedelta(hours=int(rng.integers(0, 24 * 60)))).isoformat(),
        )
        for i in range(items)
        for a in range(annotators)
        if rng.random() < 0.35
    ]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label", "batch", "created_at"])
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # an item's rows in several files
    frame.loc[frame.index[:7], "created_at"] = None
    frame.loc[frame["item"].isin(["doc0001", "doc0002", "doc0003"]), "created_at"] = None  # items without a time
    frame.loc[frame.index[7:12], "batch"] = None
    return frame


def assert_close(a, b, path="", tol=1e-12):
    """Equal JSON-like values: numbers to ``tol``, everything else exactly."""
    if isinstance(b, dict):
        assert set(a) == set(b), path
        for k in b:
            assert_close(a[k], b[k], f"{path}/{k}", tol)
    elif isinstance(b, list):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b)):
            assert_close(x, y, f"{path}[{k}]", tol)
    elif isinstance(b, float) and isinstance(a, (int, float)):
        assert a == pytest.approx(b, abs=tol, nan_ok=True), path
    else:
        assert a == b, path


def cluster_fixtures() -> tuple:
    """``cluster, client, address = cluster_fixtures()`` at a test file's top level: the module-scoped fixtures
    ``cluster`` (``(cluster, client)`` from :func:`local_cluster`), ``client`` and ``address`` (the scheduler's, for
    ``--scheduler``). Each file that does so builds its own cluster once (tests/conftest.py keeps the file on one
    xdist worker)."""

    @pytest.fixture(scope="module")
    def cluster():
        with local_cluster() as pair:
            yield pair

    @pytest.fixture(scope="module")
    def client(cluster):
        return cluster[1]

    @pytest.fixture(scope="module")
    def address(cluster):
        return cluster[0].scheduler_address

    return cluster, client, address
