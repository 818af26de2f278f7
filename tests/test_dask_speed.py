"""The fast path of the Dask engine (issue 35): row groups read as partitions, the one-stage split by item, the
summary computed from small integer codes in one read. Every partitioning it introduces gives the in-memory results:
a file whose row groups become partitions with items split across row groups, several files of several row groups,
integer ids, missing labels, a duplicate found across row groups."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_engine as ie

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from iaa_engine.engines._commands import _by_item, open_dask  # noqa: E402
from iaa_engine.engines._distributed import _buckets, shuffle_by  # noqa: E402
from tests.test_distributed import assert_reports_equal  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None, silence_logs=logging.ERROR
    ) as cl:
        with distributed.Client(cl) as c:
            yield c


@pytest.fixture(autouse=True)
def small_partitions(monkeypatch):
    """Row groups of these small files are far below the partition size the engine aggregates them to (16 MiB):
    one partition per row group here, as in a large file."""
    import iaa_engine.engines._distributed as dist

    monkeypatch.setattr(dist, "PARTITION_BYTES", 1)


def make_frame(seed=0, items=900, annotators=12, labels=5, int_ids=False):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, labels, size=items)
    rows = [
        (i if int_ids else f"doc{i:05d}", f"w{a:02d}", str(truth[i] if rng.random() < 0.7 else rng.integers(labels)))
        for i in range(items)
        for a in range(annotators)
        if rng.random() < 0.3
    ]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # an item's rows in several row groups
    frame.loc[frame.index[:9], "label"] = None  # missing labels are not annotations
    return frame


def write_row_groups(frame: pd.DataFrame, path, row_group_size: int) -> None:
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=row_group_size)


@pytest.fixture(scope="module")
def one_file(tmp_path_factory):
    frame = make_frame()
    path = tmp_path_factory.mktemp("rowgroups") / "one.parquet"
    write_row_groups(frame, path, row_group_size=len(frame) // 6 + 1)
    assert pq.ParquetFile(path).metadata.num_row_groups == 6
    return frame, path


def test_the_row_groups_of_a_file_are_partitions_and_items_split_across_them_meet(client, one_file):
    frame, path = one_file
    ddf = open_dask(str(path), ["item", "annotator", "label"])
    assert ddf.npartitions == 6  # before: one partition for the whole file, so one task did all the shuffling
    spread = pd.concat([p.assign(k=k) for k, p in enumerate(ddf.partitions[i].compute() for i in range(6))])
    assert (spread.groupby("item")["k"].nunique() > 1).mean() > 0.5  # items really are split across row groups
    shuffled = _by_item(ddf, "item")
    parts = [shuffled.partitions[i].compute() for i in range(shuffled.npartitions)]
    assert shuffled.npartitions == 6 and list(parts[0].columns) == ["item", "annotator", "label"]
    owner = pd.concat([p[["item"]].assign(k=k) for k, p in enumerate(parts)])
    assert owner.groupby("item")["k"].nunique().max() == 1  # every item whole in one partition
    got = pd.concat(parts).sort_values(["item", "annotator"]).reset_index(drop=True)
    want = frame.sort_values(["item", "annotator"]).reset_index(drop=True)
    assert (
        got.astype(object).where(got.notna(), None).values.tolist()
        == want.astype(object).where(want.notna(), None).values.tolist()
    )


def test_an_items_rows_keep_their_file_order_so_duplicates_first_and_last_agree(client, tmp_path):
    frame = make_frame(seed=3, items=200)
    extra = frame.iloc[::7].assign(label="9")  # the same (item, annotator) again, later in the file
    both = pd.concat([frame, extra], ignore_index=True)
    path = tmp_path / "dup.parquet"
    write_row_groups(both, path, row_group_size=len(both) // 5 + 1)
    for rule in ("first", "last"):
        want = ie.report(ie.Annotations.from_long(both, duplicates=rule), pairwise=True).to_dict()
        got = ie.report(ie.read_dask(str(path), duplicates=rule, scheduler=client), pairwise=True).to_dict()
        assert_reports_equal(got, want)
    with pytest.raises(ValueError, match="labelled more than once"):
        ie.read_dask(str(path), scheduler=client)


@pytest.mark.parametrize("int_ids", [False, True])
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_summary_from_row_groups_and_several_files_equals_in_memory(client, tmp_path, level, int_ids):
    frame = make_frame(seed=1, int_ids=int_ids)
    root = tmp_path / "ds"
    root.mkdir()
    chunks = np.array_split(np.arange(len(frame)), 3)
    for k, rows in enumerate(chunks):  # three files of four row groups each
        write_row_groups(frame.iloc[rows], root / f"part-{k}.parquet", row_group_size=len(rows) // 4 + 1)
    assert open_dask(str(root), ["item", "annotator", "label"]).npartitions == 12
    want = ie.report(ie.Annotations.from_long(frame, level=level), pairwise=True).to_dict()
    got = ie.report(ie.read_dask(str(root), level=level, scheduler=client), pairwise=True).to_dict()
    assert_reports_equal(got, want)


def test_many_partitions_take_dasks_shuffle_and_agree(client, monkeypatch):
    import iaa_engine.engines._distributed as dist

    frame = make_frame(seed=2, items=300)
    monkeypatch.setattr(dist, "MAX_SPLIT_PARTITIONS", 3)
    ddf = dd.from_pandas(frame, npartitions=8)
    want = ie.report(ie.Annotations.from_long(frame), pairwise=True).to_dict()
    assert_reports_equal(ie.report(ie.summarize_dask(ddf, scheduler=client), pairwise=True).to_dict(), want)
    parts = shuffle_by(ddf, "item").compute()
    assert len(parts) == len(frame)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(min_size=0, max_size=12), min_size=1, max_size=40),
    st.integers(min_value=1, max_value=9),
    st.randoms(use_true_random=False),
)
def test_a_value_lands_in_the_same_bucket_in_any_partition_and_any_text_dtype(values, n, rnd):
    """Only the bucket comes from the hash: equal ids must meet however the rows are cut and typed."""
    mixed = values[:]
    rnd.shuffle(mixed)
    a = _buckets(pd.Series(values, dtype="str"), n)
    b = _buckets(pd.Series(mixed, dtype=object), n)
    c = _buckets(pa.array(mixed, type=pa.large_string()), n)
    assert ((a >= 0) & (a < n)).all()
    first = dict(zip(values, a))
    assert [first[v] for v in mixed] == b.tolist() == c.tolist()


def test_buckets_of_numbers_and_missing_values():
    ids = pd.Series([3, 1, 3, 7, 1])
    got = _buckets(ids, 4)
    assert got[0] == got[2] and got[1] == got[4]
    assert (
        _buckets(pd.Series(["a", None, "a"], dtype="str"), 3)[[0, 2]].tolist()
        == [_buckets(pd.Series(["a"], dtype=object), 3)[0]] * 2
    )


# ------------------------------------------------------------------------------------ progress and failure (item 4)
def _commands(tmp_path):
    from iaa_engine.engines import _commands as c

    return {
        "summarize_dask": lambda f, cl: ie.summarize_dask(f, scheduler=cl, progress=True),
        "agreement_by_dask": lambda f, cl: c.agreement_by_dask(f, "batch", client=cl, progress=True),
        "agreement_by_dask(time)": lambda f, cl: c.agreement_by_dask(f, time="when", client=cl, progress=True),
        "frequency_strata_dask": lambda f, cl: c.frequency_strata_dask(f, client=cl, progress=True),
        "gold_dask": lambda f, cl: c.gold_dask(f, str(tmp_path / "g.csv"), client=cl, progress=True),
        "disagreements_dask": lambda f, cl: c.disagreements_dask(f, client=cl, progress=True),
    }


@pytest.fixture(scope="module")
def grouped(tmp_path_factory):
    frame = make_frame(seed=4, items=300)
    frame["batch"] = "b" + (frame["item"].str.slice(3).astype(int) % 3).astype(str)
    frame["when"] = pd.Timestamp("2025-01-01") + pd.to_timedelta(frame["item"].str.slice(3).astype(int), unit="h")
    path = tmp_path_factory.mktemp("grouped") / "g.parquet"
    write_row_groups(frame, path, row_group_size=len(frame) // 3 + 1)
    return path


@pytest.mark.parametrize("name", list(_commands(None)))
def test_every_command_draws_dasks_progress_bar_on_standard_error(client, grouped, name, tmp_path, capsys):
    frame = open_dask(str(grouped), ["item", "annotator", "label", "batch", "when"])
    _commands(tmp_path)[name](frame, client)
    out, err = capsys.readouterr()
    assert out == "" and "100% Completed" in err, (out, err)


@pytest.mark.parametrize("name", list(_commands(None)))
def test_a_failure_on_a_worker_is_one_line_for_every_command(client, grouped, name, tmp_path, monkeypatch):
    import iaa_engine.engines._commands as c
    import iaa_engine.engines._distributed as dist

    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire\nsecond line of a traceback")

    for module, fn in ((dist, "_split_coded"), (dist, "_split_rows"), (c, "_distinct_part")):
        monkeypatch.setattr(module, fn, boom, raising=False)
    monkeypatch.setattr(dist, "_distinct_part", boom)
    frame = open_dask(str(grouped), ["item", "annotator", "label", "batch", "when"])
    with pytest.raises(ValueError) as info:
        _commands(tmp_path)[name](frame, client)
    assert str(info.value) == "the cluster failed: RuntimeError: disk on fire"
