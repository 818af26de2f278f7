"""Per-item results on a Dask cluster: agreement by group and over time, and gold labels.

The plan (issue 35): the annotations are shuffled so that what one result needs meets in one partition (every
annotation of an item, or of a group, or of a time window), each partition runs the in-memory function on its own
:class:`~iaa_engine.data._model.Annotations` (built with the data's global categories), and only what is small
comes back to the client: the table of groups, the sums of an EM step. Per-item outputs (gold labels) are written
by the workers as a Parquet dataset or one CSV file, never gathered into one frame.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.data._model import Annotations, encode_labels, is_missing_mask

__all__ = ["dask_session", "open_dask", "agreement_by_dask", "gold_dask"]


@contextlib.contextmanager
def dask_session(scheduler: Any = None, n_workers: int | None = None, memory_limit: str | None = None) -> Iterator:
    """A ``distributed.Client`` for one command: ``scheduler`` (a Client, an address) or a new local cluster,
    closed at the end when this call started it."""
    from iaa_engine.engines._distributed import _client, _need_dask

    _, _, distributed = _need_dask()
    client, owned = _client(scheduler, n_workers, memory_limit)
    try:
        yield client
    finally:
        if owned:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()


def open_dask(source: Any, columns: Sequence[str], storage_options: dict | None = None) -> Any:
    """The ``columns`` of a Parquet dataset (a path, a glob, a list or an fsspec URL) as a Dask DataFrame; a missing
    file, a missing column or files that disagree on a column's type is one line naming it."""
    from iaa_engine.engines._distributed import _check_schemas, _need_dask

    _, dd, _ = _need_dask()
    columns = list(dict.fromkeys(columns))
    if isinstance(source, (str, os.PathLike)) and "://" not in str(source):
        import glob

        if not glob.glob(str(source)):
            raise FileNotFoundError(f"cannot read the Parquet dataset {str(source)!r}: no such file or directory")
        _check_schemas(source, columns)
    try:
        return dd.read_parquet(source, columns=columns, storage_options=storage_options)
    except (FileNotFoundError, OSError) as exc:
        raise FileNotFoundError(f"cannot read the Parquet dataset {source!r}: {exc}") from None
    except (KeyError, ValueError) as exc:
        raise ValueError(f"cannot read columns {columns!r} from {source!r}: {exc}") from None


def _categories(frame: Any, label: str, level: str, categories: Sequence[Any] | None) -> pd.Index:
    """The data's categories, from the distinct labels (a small global pass): every partition codes with them."""
    import dask

    (values,) = dask.compute(frame[label].dropna().unique())
    array = np.asarray(values, dtype=object if np.asarray(values).dtype == object else None)
    array = array[~is_missing_mask(array)]
    if array.size == 0:
        raise ValueError("the data holds no annotations (every label is missing)")
    return encode_labels(array, level, categories)[2]


def _run(client: Any, tasks: Any, progress: bool | None) -> Any:
    """Compute ``tasks`` (a delayed object or a list of them) on ``client``; Dask's progress bar on a terminal; a
    worker's failure is one line (the user's own errors, ValueError and TypeError, pass unchanged)."""
    from iaa_engine.engines._distributed import _is_tty, _need_dask

    _, _, distributed = _need_dask()
    futures = client.compute(tasks)
    if progress or (progress is None and _is_tty()):
        distributed.progress(futures)
    try:
        return client.gather(futures)
    except (ValueError, TypeError, MemoryError, KeyError):
        raise
    except Exception as exc:  # noqa: BLE001 - a worker's failure reaches the user as one line, not a traceback
        first = (str(exc).strip().splitlines() or [""])[0]
        raise ValueError(f"the cluster failed: {type(exc).__name__}: {first}") from None


def _annotations(
    part: pd.DataFrame, cols: dict, level: str, categories: pd.Index, duplicates: str, keep: Sequence[str] = ()
) -> Annotations | None:
    """One partition as in-memory annotations coded with the data's categories (None when it holds no label)."""
    lab = part[cols["label"]]
    if len(part) == 0 or bool(is_missing_mask(lab.to_numpy(dtype=object)).all()):
        return None
    return Annotations.from_long(
        part.reset_index(drop=True),
        item=cols["item"],
        annotator=cols["annotator"],
        label=cols["label"],
        level=cast(Any, level),
        categories=list(categories),
        duplicates=cast(Any, duplicates),
        keep=list(keep),
    )


# --------------------------------------------------------------------------------------------- agreement by group
def _window_keys(part: pd.DataFrame, cols: dict, level: str, cats: pd.Index, dup: str, time: str, freq: str) -> Any:
    """Each row's time window (its start in ns since the epoch; -1: its item has no timestamp), from the window of
    the item's first annotation (:func:`iaa_engine.analysis._by.item_windows` on this partition's whole items)."""
    from iaa_engine.analysis._by import item_windows

    data = _annotations(part, cols, level, cats, dup, keep=[time])
    keys = np.full(len(part), -2, dtype=np.int64)  # -2: no label (not an annotation)
    if data is None:
        return part.assign(_window=keys)
    window, windows = item_windows(data, time, freq)
    start = windows["start"].to_numpy().astype("datetime64[ns]").view(np.int64)
    per_item = pd.Series(np.where(window >= 0, start[np.maximum(window, 0)], -1), index=data.items)
    labelled = ~is_missing_mask(part[cols["label"]].to_numpy(dtype=object))
    mapped = part[cols["item"]].map(per_item).fillna(-2).to_numpy(dtype=np.int64)
    keys[labelled] = mapped[labelled]
    return part.assign(_window=keys)


def _group_part(
    part: pd.DataFrame, cols: dict, level: str, cats: pd.Index, dup: str, by: str | None, time: str | None,
    freq: str, metrics: tuple, weights: Any, confidence: float,
) -> tuple[pd.DataFrame | None, list, int]:  # fmt: skip
    """This partition's groups (each whole in it): their rows of the table, their notes, and its annotations
    without a group."""
    from iaa_engine.analysis._by import agreement_by
    from iaa_engine.data._model import extra_codes

    data = _annotations(part, cols, level, cats, dup, keep=[cast(str, by or time)])
    if data is None:
        return None, [], 0
    excluded = 0
    if by is not None:
        codes, _ = extra_codes(data, by)
        excluded = int(np.count_nonzero(codes < 0))
        if excluded == data.n_annotations:
            return None, [], excluded
    res = agreement_by(data, by, time=time, freq=freq, metrics=metrics, weights=weights, confidence=confidence)
    notes = [n for n in res.notes if not n.endswith("left out") and "have annotations in several groups" not in n]
    return res.table, notes, excluded


def agreement_by_dask(
    frame: Any,
    by: str | None = None,
    *,
    time: str | None = None,
    freq: str = "W",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    metrics: Any = None,
    weights: Any = "identity",
    confidence: float = 0.95,
    correction: str = "holm",
    client: Any,
    progress: bool | None = None,
) -> Any:
    r""":func:`iaa_engine.agreement_by` of a Dask DataFrame: the same table and tests as in memory.

    ``by``: the annotations are shuffled by the group column, so that each group's annotations meet in one
    partition, and each partition runs :func:`~iaa_engine.agreement_by` on its groups. ``time``: a first shuffle by
    item finds each item's window (that of its first annotation), a second by window brings each window's items
    together. The groups' rows (groups × coefficients) come back to the client, which orders them as the in-memory
    path does and tests consecutive groups (Holm). One group (or window) must fit in a worker's memory.

    Returns
    -------
    AgreementBy
        As :func:`iaa_engine.agreement_by`.
    """
    from iaa_engine.analysis._by import DEFAULT_METRICS, AgreementBy, _tests
    from iaa_engine.data._model import _group_codes
    from iaa_engine.base._policy import invalid

    if (by is None) == (time is None):
        raise invalid("by", "a kept column name, or None with time= a kept column of timestamps (exactly one)", by)
    import dask

    metrics = tuple(dict.fromkeys(metrics or DEFAULT_METRICS))
    column = cast(str, by or time)
    missing = [c for c in (item, annotator, label, column) if c not in frame.columns]
    if missing:
        raise ValueError(f"column(s) {missing!r} not found; the data has columns {list(frame.columns)!r}")
    cols = {"item": item, "annotator": annotator, "label": label}
    frame = frame[list(dict.fromkeys([item, annotator, label, column]))]
    cats = _categories(frame, label, level, categories)
    n_parts = max(frame.npartitions, 1)
    notes: list[str] = []
    several = 0
    if time is not None:
        by_item = frame.shuffle(on=item, npartitions=n_parts)
        keyed = by_item.map_partitions(
            _window_keys, cols, level, cats, duplicates, time, freq, meta={**frame.dtypes.to_dict(), "_window": "i8"}
        )
        untimed = keyed[keyed["_window"] == -1]
        no_time = [untimed[item].nunique().to_delayed(), untimed[item].count().to_delayed()]
        keyed = keyed[keyed["_window"] >= 0]
        grouped = keyed.shuffle(on="_window", npartitions=n_parts).drop(columns="_window")
    else:
        grouped = frame.shuffle(on=by, npartitions=n_parts)
        # an item with annotations in several groups: the groups are not independent samples on it
        valid = frame[[item, column]].dropna()
        no_time = valid.groupby(item)[column].nunique()
        no_time = (no_time > 1).sum().to_delayed()
    parts = [
        dask.delayed(_group_part)(p, cols, level, cats, duplicates, by, time, freq, metrics, weights, confidence)
        for p in grouped.to_delayed()
    ]
    results, count = _run(client, [parts, no_time], progress)
    tables = [t for t, _, _ in results if t is not None and len(t)]
    if not tables:
        raise ValueError(f"no annotation has a value of {column!r}")
    table = pd.concat(tables, ignore_index=True)
    if time is not None:
        order_key = table["start"].to_numpy().astype("datetime64[ns]").view(np.int64)
        n_no_time, excluded = int(count[0]), int(count[1])
        if n_no_time:
            notes.append(f"{n_no_time} item(s) without any timestamp left out")
    else:
        excluded = sum(e for _, _, e in results)
        if excluded:
            notes.append(f"{excluded} annotation(s) without a value of {column!r} left out")
        groups = table["group"].to_numpy(dtype=object)
        codes, _ = _group_codes(np.asarray(groups, dtype=object))
        order_key = codes
        several = int(count)
    # groups in the in-memory order; within a group the coefficients in the order asked
    table["_key"] = order_key
    table["_m"] = table["metric"].map({m.split("[")[0]: k for k, m in enumerate(metrics)})
    table = table.sort_values(["_key", "_m"], kind="stable").drop(columns=["_key", "_m"]).reset_index(drop=True)
    labels = list(dict.fromkeys(table["group"]))
    group_notes = [n for _, ns, _ in results for n in ns]
    rank = {str(g): k for k, g in enumerate(labels)}
    group_notes.sort(key=lambda n: rank.get(n.split(": ", 1)[0], len(rank)))
    notes.extend(group_notes)
    if several:
        notes.append(
            f"{several} item(s) have annotations in several groups: the tests "
            "treat the groups as independent samples, which they are not on those items"
        )
    tests = _tests(table, metrics, len(labels), "consecutive", 0, correction, confidence)
    return AgreementBy(
        column=column,
        kind="time" if time is not None else "group",
        freq=freq if time is not None else None,
        table=table,
        tests=tests,
        test="consecutive",
        reference=None,
        correction=correction,
        confidence=float(confidence),
        n_excluded=int(excluded),
        notes=list(dict.fromkeys(notes)),
    )


# ---------------------------------------------------------------------------------------- frequency strata
def _by_item(frame: Any, item: str) -> Any:
    """Every item's annotations in one partition (more, smaller partitions than the input)."""
    return frame.shuffle(on=item, npartitions=max(1, 2 * frame.npartitions))


def _label_part(part: pd.DataFrame, cols: dict, level: str, cats: pd.Index, dup: str) -> Any:
    from iaa_engine.analysis._facets import label_sums

    data = _annotations(part, cols, level, cats, dup)
    return None if data is None else label_sums(data)


def _strata_part(part: pd.DataFrame, cols: dict, level: str, cats: pd.Index, dup: str, stratum: np.ndarray) -> Any:
    """Per stratum: the integer sums of its items' annotations (nominal) and its number of items."""
    from iaa_engine.analysis._facets import stratum_subset
    from iaa_engine.stats._sums import ExactSums

    data = _annotations(part, cols, level, cats, dup)
    out = []
    for s in range(int(stratum.max(initial=-1)) + 1):
        sub, hit = (None, 0) if data is None else stratum_subset(data, stratum == s)
        out.append((None if sub is None else ExactSums.from_counts(sub.counts), hit,
                    0 if sub is None else sub.n_annotations))  # fmt: skip
    return out


def frequency_strata_dask(
    frame: Any,
    *,
    n_strata: int = 3,
    names: Sequence[str] | None = None,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    client: Any,
    progress: bool | None = None,
) -> Any:
    """:func:`iaa_engine.frequency_strata` of a Dask DataFrame, from sums over partitions of whole items.

    A first pass adds up each partition's per-label sums (:func:`iaa_engine.analysis._facets.label_sums`); the
    client assigns the strata; a second pass adds up, per stratum, the integer sums of its items' annotations
    (:class:`~iaa_engine.stats._sums.ExactSums`), whose nominal alpha is the in-memory one.
    """
    import dask

    from iaa_engine.analysis._facets import (
        _quiet_alpha,
        assign_strata,
        finish_strata,
        label_table,
        strata_names,
    )
    from iaa_engine.stats._sums import ExactSums

    names = strata_names(n_strata, names)
    cols = {"item": item, "annotator": annotator, "label": label}
    frame = frame[[item, annotator, label]]
    cats = _categories(frame, label, level, categories)
    shuffled = _by_item(frame, item)
    parts = shuffled.to_delayed()
    sums = [s for s in _run(client, [dask.delayed(_label_part)(p, cols, level, cats, duplicates) for p in parts],
                            progress) if s is not None]  # fmt: skip
    per_label = label_table(*(np.sum([s[k] for s in sums], axis=0) for k in range(3)), cats)
    per_label, stratum = assign_strata(per_label, names)
    results = _run(client, [dask.delayed(_strata_part)(p, cols, level, cats, duplicates, stratum) for p in parts],
                   progress)  # fmt: skip
    hits, alphas = [], []
    for s in range(len(names)):
        mine = [r[s] for r in results if len(r) > s]
        exact = [e for e, _, _ in mine if e is not None]
        hits.append(sum(h for _, h, _ in mine))
        alpha = np.nan
        if exact:
            total = ExactSums.combine(exact)
            if int(total.items_by_n[total.n_values >= 2].sum()):
                sub = Annotations.from_stats(items=int(hits[-1]), categories=cats, level="nominal",
                                             count_sums=total.finish(), n_annotations=sum(n for _, _, n in mine))  # fmt: skip
                alpha = _quiet_alpha(sub, [], "")
        alphas.append(alpha)
    return finish_strata(per_label, stratum, names, hits, alphas)
