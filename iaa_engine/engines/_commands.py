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

from iaa_engine.analysis._by import BY_METRICS
from iaa_engine.analysis._gold import GOLD_RULES
from iaa_engine.base._params import ANY, AnyOf, Choice, Flag, Items, NoneOr, Text, Whole, validate
from iaa_engine.data._model import Annotations, encode_labels, is_missing_mask
from iaa_engine.engines._distributed import gather
from iaa_engine.metrics._weighted import KAPPA_WEIGHTS

__all__ = ["dask_session", "open_dask", "agreement_by_dask", "frequency_strata_dask", "gold_dask", "disagreements_dask"]


@contextlib.contextmanager
def dask_session(scheduler: Any = None, n_workers: int | None = None, memory_limit: str | None = None) -> Iterator:
    """A ``distributed.Client`` for one command: ``scheduler`` (a Client, an address) or a new local cluster,
    closed at the end when this call started it."""
    import warnings

    from iaa_engine.engines._distributed import _client, close_client

    client, owned = _client(scheduler, n_workers, memory_limit)
    try:
        with warnings.catch_warnings():  # Dask's own use of pandas (e.g. "The inplace keyword ... is deprecated")
            warnings.filterwarnings("ignore", module=r"(dask|distributed)(\.|$)")
            yield client
    finally:
        if owned:
            close_client(client)


def open_dask(source: Any, columns: Sequence[str], storage_options: dict | None = None) -> Any:
    """The ``columns`` of a Parquet dataset (a path, a glob, a list or an fsspec URL) as a Dask DataFrame; a missing
    file, a missing column or files that disagree on a column's type is one line naming it."""
    from iaa_engine.engines._distributed import open_parquet

    return open_parquet(source, list(dict.fromkeys(columns)), storage_options)


def _distinct(frame: Any, *columns: str) -> list[np.ndarray]:
    """The distinct values of ``columns`` (missing ones left out), from one read: each partition's, then the
    client's union (small: annotators and labels, never items)."""
    import dask

    from iaa_engine.engines._distributed import _distinct_part, one_line

    parts = [dask.delayed(_distinct_part)(p, list(columns)) for p in frame[list(columns)].to_delayed()]
    found = one_line(dask.compute, *parts)
    out = []
    for k in range(len(columns)):
        values = [f[k] for f in found if len(f[k])]
        array = np.concatenate(values) if values else np.zeros(0, dtype=object)
        array = pd.unique(array) if array.dtype != object else np.asarray(pd.unique(array), dtype=object)
        out.append(array[~pd.isna(array)] if array.size else array)
    return out


def _categories(frame: Any, label: str, level: str, categories: Sequence[Any] | None) -> pd.Index:
    """The data's categories, from the distinct labels (a small global pass): every partition codes with them."""
    (array,) = _distinct(frame, label)
    array = array[~is_missing_mask(array)] if array.size else array
    if array.size == 0:
        raise ValueError("the data holds no annotations (every label is missing)")
    return encode_labels(array, level, categories)[2]


def _annotators_and_categories(
    frame: Any, annotator: str, label: str, level: str, categories: Sequence[Any] | None
) -> tuple[pd.Index, pd.Index]:
    """The data's annotators (sorted as in memory) and categories, from one read."""
    from iaa_engine.engines._distributed import _sort_key

    ann, lab = _distinct(frame, annotator, label)
    lab = lab[~is_missing_mask(lab)] if lab.size else lab
    if lab.size == 0:
        raise ValueError("the data holds no annotations (every label is missing)")
    return pd.Index(sorted(ann.tolist(), key=_sort_key)), encode_labels(lab, level, categories)[2]


#: the one-line failure of a gather (kept under this name for the command modules that import it)
_gather = gather


def _run(client: Any, tasks: Any, progress: bool | None) -> Any:
    """Compute ``tasks`` (a delayed object or a list of them) on ``client``; Dask's progress bar on a terminal; a
    worker's failure is one line (the user's own errors, ValueError and TypeError, pass unchanged)."""
    from iaa_engine.engines._distributed import _is_tty, show_progress

    futures = client.compute(tasks)
    if progress or (progress is None and _is_tty()):
        show_progress(futures)
    return gather(client, futures)


def _annotations(
    part: pd.DataFrame, cols: dict, level: str, categories: pd.Index, duplicates: str, keep: Sequence[str] = ()
) -> Annotations | None:
    """One partition as in-memory annotations coded with the data's categories (None when it holds no label)."""
    lab = part[cols["label"]]
    if len(part) == 0 or bool(is_missing_mask(lab.to_numpy(dtype=object)).all()):
        return None
    from iaa_engine.engines._distributed import partition_duplicates

    with partition_duplicates():
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
    from iaa_engine.analysis._by import first_times, item_windows, windows_of_first
    from iaa_engine.data._model import _aligned, _encode_ids, _parse_times

    keys = np.full(len(part), -2, dtype=np.int64)  # -2: no label (not an annotation)
    labelled = ~is_missing_mask(part[cols["label"]].to_numpy(dtype=object))
    if not labelled.any():
        return part.assign(_window=keys)
    if dup == "error":  # every labelled row is an annotation: the items' codes and times alone, as from_long's
        rows = None if labelled.all() else np.flatnonzero(labelled)
        item_codes, items = _encode_ids(part[cols["item"]].reset_index(drop=True), "item", labelled)
        stamps = _parse_times(_aligned(part[time].reset_index(drop=True), rows), time)
        window, windows = windows_of_first(first_times(stamps, item_codes, len(items)), freq)
        start = windows["start"].to_numpy().astype("datetime64[ns]").view(np.int64)
        keys[labelled] = np.where(window >= 0, start[np.maximum(window, 0)], -1)[item_codes]
        return part.assign(_window=keys)
    data = _annotations(part, cols, level, cats, dup, keep=[time])
    if data is None:
        return part.assign(_window=keys)
    window, windows = item_windows(data, time, freq)
    start = windows["start"].to_numpy().astype("datetime64[ns]").view(np.int64)
    per_item = pd.Series(np.where(window >= 0, start[np.maximum(window, 0)], -1), index=data.items)
    mapped = part[cols["item"]].map(per_item).fillna(-2).to_numpy(dtype=np.int64)
    keys[labelled] = mapped[labelled]
    return part.assign(_window=keys)


def _group_part(
    part: pd.DataFrame,
    cols: dict,
    level: str,
    cats: pd.Index,
    dup: str,
    by: str | None,
    time: str | None,
    freq: str,
    metrics: tuple,
    weights: Any,
    confidence: float,
) -> tuple[pd.DataFrame | None, list, Any]:
    """This partition's groups (each whole in it): their rows of the table, their notes, and its annotations
    without a group (time windows: ``(items, annotations)`` without a timestamp)."""
    from iaa_engine.analysis._by import agreement_by
    from iaa_engine.data._model import extra_codes

    excluded = 0
    if "_window" in part.columns:  # time windows: the items without a timestamp are counted here, then left out
        window = part["_window"].to_numpy()
        untimed = window == -1
        excluded = int(np.count_nonzero(untimed))
        if excluded:
            excluded = (int(part.loc[untimed, cols["item"]].nunique()), excluded)  # type: ignore[assignment]
        part = part.loc[window >= 0].drop(columns="_window")
    data = _annotations(part, cols, level, cats, dup, keep=[cast(str, by or time)])
    if data is None:
        return None, [], excluded
    if by is not None:
        codes, _ = extra_codes(data, by)
        excluded = int(np.count_nonzero(codes < 0))
        if excluded == data.n_annotations:
            return None, [], excluded
    res = agreement_by(data, by, time=time, freq=freq, metrics=metrics, weights=weights, confidence=confidence)
    notes = [n for n in res.notes if not n.endswith("left out") and "have annotations in several groups" not in n]
    return res.table, notes, excluded


@validate(
    metrics=NoneOr(Items(Choice(*BY_METRICS), what=f"a non-empty sequence of {', '.join(map(repr, BY_METRICS))}",
                         non_empty=True)),
    correction=Choice("holm", "none"),
    weights=KAPPA_WEIGHTS,
    client=ANY,
)  # fmt: skip
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

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per annotation (long layout) with the ``by`` or ``time`` column; an item's rows may be in several
        partitions (e.g. from :func:`open_dask` on a Parquet dataset).
    by : str, optional
        The group column (exactly one of ``by`` and ``time``).
    time : str, optional
        A column of timestamps: windows of ``freq``, each item in the window of its first annotation.
    freq : str
        The windows' length: ``"D"``, ``"W"`` or ``"M"``.
    item, annotator, label, level, categories, duplicates
        As in :meth:`iaa_engine.Annotations.from_long`.
    metrics, weights, confidence, correction
        As in :func:`iaa_engine.agreement_by`.
    client : distributed.Client
        The cluster that computes (e.g. from :func:`distributed.Client` or ``LocalCluster``).
    progress : bool, optional
        Show Dask's progress bar on standard error (default: when standard error is a terminal).

    Returns
    -------
    AgreementBy
        As :func:`iaa_engine.agreement_by`: the same table, tests and notes.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        A named column is missing; every label is missing; the labels do not fit ``level`` or ``categories``; an
        annotator labelled an item twice with ``duplicates='error'``; or the cluster failed (the worker's error in
        one line).

    References
    ----------
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.), §9.3 (comparing independent coefficients).
    Advanced Analytics.

    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics
    6(2), 65–70.

    Rocklin, M. (2015). Dask: Parallel computation with blocked algorithms and task scheduling. Proceedings of the
    14th Python in Science Conference (SciPy 2015), 130–136.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from distributed import Client
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t3", "t3", "t4", "t4"], "annotator": ["ann", "bob"] * 4,
    ...                    "label": ["pos", "pos", "neg", "pos", "neg", "neg", "pos", "pos"],
    ...                    "batch": ["a"] * 4 + ["b"] * 4})
    >>> frame = dd.from_pandas(df, npartitions=2)
    >>> with Client(processes=False, dashboard_address=None) as client:
    ...     by = ie.agreement_by_dask(frame, "batch", client=client, progress=False)
    >>> by.table.loc[by.table["metric"] == "krippendorff_alpha", ["group", "estimate"]].round(4).to_dict("list")
    {'group': ['a', 'b'], 'estimate': [0.0, 1.0]}
    """
    from iaa_engine.analysis._by import DEFAULT_METRICS, AgreementBy, _tests
    from iaa_engine.base._policy import invalid
    from iaa_engine.data._model import _group_codes
    from iaa_engine.engines._distributed import shuffle_by

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
        by_item = shuffle_by(frame, item, n_parts)
        keyed = by_item.map_partitions(
            _window_keys, cols, level, cats, duplicates, time, freq, meta={**frame.dtypes.to_dict(), "_window": "i8"}
        )
        keyed = keyed[keyed["_window"] >= -1]  # -1: an item without a timestamp (counted, left out); -2: no label
        grouped = shuffle_by(keyed, "_window", n_parts)  # every untimed item in one partition
        no_time = dask.delayed(0)
    else:
        grouped = shuffle_by(frame, cast(str, by), n_parts)
        # an item with annotations in several groups: the groups are not independent samples on it
        # (each partition of whole items counts its own: the one-stage split, not a groupby's own shuffle)
        whole = shuffle_by(frame[[item, column]], item, n_parts).to_delayed()
        no_time = dask.delayed(sum)([dask.delayed(_in_several_groups)(p, item, column) for p in whole])
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
        untimed = [e for _, _, e in results if isinstance(e, tuple)]
        n_no_time, excluded = sum(e[0] for e in untimed), sum(e[1] for e in untimed)
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


def _in_several_groups(part: pd.DataFrame, item: str, column: str) -> int:
    """How many of a partition's (whole) items have annotations in more than one group."""
    valid = part[[item, column]].dropna()
    return int((valid.groupby(item)[column].nunique() > 1).sum()) if len(valid) else 0


# ---------------------------------------------------------------------------------------- frequency strata
#: The expression names of frames already split by a column (:func:`split_by_item`): name -> the column.
_SPLIT: dict[str, str] = {}


def _split_on(frame: Any) -> str | None:
    """The column ``frame`` is already split by (every value's rows in one partition), or None: a frame from
    :func:`split_by_item`, or a selection of its columns."""
    expr = getattr(frame, "expr", None)
    while expr is not None:
        on = _SPLIT.get(getattr(expr, "_name", ""))
        if on is not None:
            return on if on in frame.columns else None
        expr = expr.frame if type(expr).__name__ == "Projection" else None
    return None


def split_by_item(frame: Any, item: str, client: Any) -> Any:
    """``frame`` shuffled by item once and kept on the workers (``client.persist``), marked so that
    :func:`_by_item` hands it (or a selection of its columns) on without shuffling it again: the parts of one page
    share one shuffle."""
    split = client.persist(_by_item(frame, item))
    _SPLIT[split.expr._name] = item
    return split


def _by_item(frame: Any, item: str, npartitions: int | None = None) -> Any:
    """Every item's annotations in one partition (the same columns; an item's rows in their input order), as many
    partitions as the input's (or ``npartitions``): :func:`iaa_engine.engines._distributed.shuffle_by`; a frame
    already split by ``item`` (:func:`split_by_item`) as it is."""
    from iaa_engine.engines._distributed import shuffle_by

    if _split_on(frame) == item and (npartitions is None or npartitions == frame.npartitions):
        return frame
    return shuffle_by(frame, item, npartitions)


def _label_part(data: Annotations | None) -> Any:
    from iaa_engine.analysis._facets import label_sums

    return None if data is None else label_sums(data)


def _strata_part(data: Annotations | None, stratum: np.ndarray) -> Any:
    """Per stratum: the integer sums of its items' annotations (nominal) and its number of items."""
    from iaa_engine.analysis._facets import stratum_subset
    from iaa_engine.stats._sums import ExactSums

    out = []
    for s in range(int(stratum.max(initial=-1)) + 1):
        sub, hit = (None, 0) if data is None else stratum_subset(data, stratum == s)
        out.append(
            (None if sub is None else ExactSums.from_counts(sub.counts), hit, 0 if sub is None else sub.n_annotations)
        )
    return out


@validate(client=ANY)
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

    The annotations are shuffled by item once, each partition's coded annotations kept on the workers; a first
    pass adds up their per-label sums (:func:`iaa_engine.analysis._facets.label_sums`); the client assigns the
    strata; a second pass adds up, per stratum, the integer sums of its items' annotations
    (:class:`~iaa_engine.stats._sums.ExactSums`), whose nominal alpha is the in-memory one.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per annotation (long layout); an item's rows may be in several partitions.
    n_strata, names
        As in :func:`iaa_engine.frequency_strata`.
    item, annotator, label, level, categories, duplicates
        As in :meth:`iaa_engine.Annotations.from_long`.
    client : distributed.Client
        The cluster that computes (e.g. from :func:`distributed.Client` or ``LocalCluster``).
    progress : bool, optional
        Show Dask's progress bar on standard error (default: when standard error is a terminal).

    Returns
    -------
    StrataResult
        As :func:`iaa_engine.frequency_strata`.

    Raises
    ------
    InvalidParameterError, ValueError
        As in :func:`agreement_by_dask`.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §5.

    Rocklin, M. (2015). Dask: Parallel computation with blocked algorithms and task scheduling. Proceedings of the
    14th Python in Science Conference (SciPy 2015), 130–136.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from distributed import Client
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t3", "t3", "t4", "t4"], "annotator": ["ann", "bob"] * 4,
    ...                    "label": ["pos", "pos", "neg", "pos", "neg", "neg", "pos", "pos"],
    ...                    "batch": ["a"] * 4 + ["b"] * 4})
    >>> frame = dd.from_pandas(df, npartitions=2)
    >>> with Client(processes=False, dashboard_address=None) as client:
    ...     strata = ie.frequency_strata_dask(frame, n_strata=2, client=client, progress=False)
    >>> strata.labels["stratum"].to_dict()
    {'neg': 'stratum 1', 'pos': 'stratum 2'}
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
    from iaa_engine.engines._distributed import _is_tty, show_progress

    # each partition's annotations built once and kept on the workers for both passes (one shuffle, one coding)
    coded = client.compute(
        [dask.delayed(_annotations)(p, cols, level, cats, duplicates) for p in _by_item(frame, item).to_delayed()]
    )
    if progress or (progress is None and _is_tty()):
        show_progress(coded)
    try:
        sums = [s for s in gather(client, [client.submit(_label_part, c) for c in coded]) if s is not None]
        within, n_l, totals = (np.sum([s[k] for s in sums], axis=0) for k in range(3))
        per_label = label_table(within, n_l, totals, cats)
        per_label, stratum = assign_strata(per_label, names)
        results = gather(client, [client.submit(_strata_part, c, stratum) for c in coded])
    finally:
        client.cancel(coded)
    hits, alphas = [], []
    for s in range(len(names)):
        mine = [r[s] for r in results if len(r) > s]
        exact = [e for e, _, _ in mine if e is not None]
        hits.append(sum(h for _, h, _ in mine))
        alpha = np.nan
        if exact:
            total = ExactSums.combine(exact)
            if int(total.items_by_n[total.n_values >= 2].sum()):
                sub = Annotations.from_stats(
                    items=int(hits[-1]),
                    categories=cats,
                    level="nominal",
                    count_sums=total.finish(),
                    n_annotations=sum(n for _, _, n in mine),
                )
                alpha = _quiet_alpha(sub, [], "")
        alphas.append(alpha)
    return finish_strata(per_label, stratum, names, hits, alphas)


# ---------------------------------------------------------------------------------------------------- gold labels
def _coded(part: pd.DataFrame, cols: dict, level: str, cats: pd.Index, dup: str, annotators: pd.Index) -> Any:
    """A partition of whole items as annotations, with each annotation's global annotator code beside them."""
    data = _annotations(part, cols, level, cats, dup)
    if data is None:
        return None
    global_ann = annotators.get_indexer(cast(pd.Index, data.annotators))[cast(np.ndarray, data.annotator)]
    return data, global_ann.astype(np.int64)


def _ds_step(coded: Any, priors: np.ndarray | None, e: np.ndarray | None, n_ann: int) -> Any:
    """One Dawid-Skene E step on a partition and its share of the M step's sums.

    With ``priors`` None: the starting posteriors (majority-vote proportions). Returns ``(P, M, H)``: the posteriors
    summed over the items (C), the expected counts :math:`S^\\top` post (annotator·given × true) and the posteriors'
    entropy, all sums over this partition's items."""
    if coded is None:
        return None
    data, ann = coded
    post = _ds_posteriors(data, ann, priors, e, n_ann)
    q = data.n_categories
    m = np.zeros((n_ann * q, q))
    np.add.at(m, ann * q + data.label, post[data.item])
    from iaa_engine.analysis._gold import _EPS

    entropy = -np.sum(post * np.log(np.maximum(post, _EPS)))
    return post.sum(axis=0), m, float(entropy)


def _ds_posteriors(data: Annotations, ann: np.ndarray, priors: Any, e: Any, n_ann: int) -> np.ndarray:
    """The posteriors of a partition's items given the global priors and confusion (or the vote shares)."""
    from iaa_engine.analysis._gold import _EPS

    q = data.n_categories
    if priors is None:
        counts = data.counts.to_dense().astype(float)
        return counts / counts.sum(axis=1, keepdims=True).clip(min=1)
    used = e.sum(axis=2) > 0  # (annotator, given): the annotator used the label
    with np.errstate(divide="ignore"):
        log_e = np.where(used[:, :, None], np.log(np.where(used[:, :, None], e, 1.0)), 0.0)
    ll = np.zeros((data.n_items, q))
    np.add.at(ll, data.item, log_e.reshape(n_ann * q, q)[ann * q + data.label])
    ll += np.log(np.maximum(priors, _EPS))[None, :]
    ll -= ll.max(axis=1, keepdims=True)
    post = np.exp(ll)
    return post / post.sum(axis=1, keepdims=True)


def _gold_part(
    coded: Any, rule: str, w: np.ndarray | None, priors: Any, e: Any, n_ann: int, tie: float, sep: str
) -> pd.DataFrame:
    """The gold labels of a partition's items, one row per item (:meth:`GoldStandard.per_item`)."""
    from iaa_engine.analysis._gold import GoldStandard, _gold, _winners, bcr_winners

    if coded is None:
        return _empty_gold()
    data, ann = coded
    if rule == "majority":
        gold = _gold(data, "majority", tie, 1, 0.0, False, None)
    elif rule == "dawid_skene":
        post = _ds_posteriors(data, ann, priors, e, n_ann)
        q = data.n_categories
        labels = _winners(
            data, np.repeat(np.arange(data.n_items), q), np.tile(np.arange(q), data.n_items), post.ravel(), tie
        )
        gold = GoldStandard(rule, labels, list(data.categories), None)
    else:
        to_global = np.zeros(len(cast(pd.Index, data.annotators)), dtype=np.int64)
        to_global[cast(np.ndarray, data.annotator)] = ann  # this partition's annotators' rows of the weights
        gold = GoldStandard(rule, bcr_winners(data, cast(np.ndarray, w)[to_global], tie), list(data.categories), None)
    out = gold.per_item(sep=sep)
    return out.astype({"item": object, "gold": object})


def _empty_gold() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": pd.Series(dtype=object),
            "gold": pd.Series(dtype=object),
            "tie": pd.Series(dtype=bool),
            "n_tied": pd.Series(dtype=np.int64),
            "score": pd.Series(dtype=float),
            "share": pd.Series(dtype=float),
            "n_annotations": pd.Series(dtype=np.int64),
        }
    )


def _write_part(frame: pd.DataFrame, path: str, header: bool) -> tuple[int, int]:
    """Write one partition's rows (CSV cells made safe for spreadsheets); its numbers of items and ties."""
    from iaa_engine.base._csv import safe_csv

    text = safe_csv(frame) if len(frame) or header else ""
    if not header:
        text = text.split("\n", 1)[1] if "\n" in text else ""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return len(frame), int(frame["tie"].sum())


@validate(output=Text(), rule=Choice(*GOLD_RULES), client=ANY)
def gold_dask(
    frame: Any,
    output: str,
    *,
    rule: str = "majority",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    sep: str = "|",
    tie_tolerance: float = 1e-9,
    max_iter: int = 100,
    tol: float = 1e-5,
    client: Any,
    progress: bool | None = None,
) -> dict:
    r""":func:`iaa_engine.gold_standard` of a Dask DataFrame, written by the workers to ``output``.

    The annotations are shuffled by item; each partition's gold labels come from the in-memory code and are
    written where the workers run: ``output`` ending in ``.csv`` is one CSV file (the parts concatenated in
    partition order), anything else a Parquet dataset (a directory of files). Rows are
    :meth:`GoldStandard.per_item`'s, item by item within each partition (sort by item when the order matters).
    Majority vote needs nothing global; the bias-correcting rules take their weights from the annotators' label
    counts added over the partitions; Dawid-Skene is a distributed EM: each iteration's E step runs on every
    partition with the current priors and confusion matrices, and its M step adds up the partitions' expected
    counts :math:`S^\top` post and posterior sums, the evidence lower bound from the same sums and the
    partitions' entropies, so the iterations are the in-memory ones (to rounding).

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per annotation (long layout); an item's rows may be in several partitions.
    output : str
        ``FILE.csv`` (one CSV file) or a directory (a Parquet dataset, a file per partition), on a file system
        the workers share with the client.
    rule : str
        As in :func:`iaa_engine.gold_standard`: ``"majority"``, ``"dawid_skene"`` or a bias-correcting rule.
    item, annotator, label, level, categories, duplicates
        As in :meth:`iaa_engine.Annotations.from_long`.
    sep : str
        Joins tied labels in the ``gold`` cell.
    tie_tolerance, max_iter, tol
        As in :func:`iaa_engine.gold_standard` (``max_iter`` and ``tol``: Dawid-Skene's EM).
    client : distributed.Client
        The cluster that computes (e.g. from :func:`distributed.Client` or ``LocalCluster``).
    progress : bool, optional
        Show Dask's progress bar on standard error (default: when standard error is a terminal).

    Returns
    -------
    dict
        ``n_items``, ``n_ties``, ``rule``, ``n_iter`` (Dawid-Skene's iterations), ``output``.

    Raises
    ------
    InvalidParameterError, ValueError
        As in :func:`agreement_by_dask`.

    References
    ----------
    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the EM
    algorithm. Applied Statistics 28(1), 20–28.

    Rocklin, M. (2015). Dask: Parallel computation with blocked algorithms and task scheduling. Proceedings of the
    14th Python in Science Conference (SciPy 2015), 130–136.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from distributed import Client
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t3", "t3", "t4", "t4"], "annotator": ["ann", "bob"] * 4,
    ...                    "label": ["pos", "pos", "neg", "pos", "neg", "neg", "pos", "pos"],
    ...                    "batch": ["a"] * 4 + ["b"] * 4})
    >>> frame = dd.from_pandas(df, npartitions=2)
    >>> with tempfile.TemporaryDirectory() as tmp, Client(processes=False, dashboard_address=None) as client:
    ...     info = ie.gold_dask(frame, os.path.join(tmp, "gold.csv"), client=client, progress=False)
    ...     gold = pd.read_csv(os.path.join(tmp, "gold.csv")).sort_values("item")
    >>> info["n_items"], info["n_ties"], gold["gold"].tolist()
    (4, 1, ['pos', 'neg|pos', 'neg', 'pos'])
    """
    import dask

    from iaa_engine.analysis._gold import _EPS, GOLD_RULES, bcr_table
    from iaa_engine.base._params import Choice

    Choice(*GOLD_RULES).check("rule", rule)
    cols = {"item": item, "annotator": annotator, "label": label}
    frame = frame[[item, annotator, label]]
    annotators, cats = _annotators_and_categories(frame, annotator, label, level, categories)
    n_ann, q = len(annotators), len(cats)
    shuffled = _by_item(frame, item)
    coded = client.compute(
        [dask.delayed(_coded)(p, cols, level, cats, duplicates, annotators) for p in shuffled.to_delayed()]
    )
    from iaa_engine.engines._distributed import _is_tty, show_progress

    if progress or (progress is None and _is_tty()):
        show_progress(coded)
    w = priors = e = None
    n_iter = 0
    try:
        if rule in ("diff", "rat", "com", "inv"):
            counts = np.zeros((n_ann, q))
            for part in gather(client, [client.submit(_label_counts, c, n_ann, q) for c in coded]):
                counts += part
            w = bcr_table(counts, rule, annotators, cats).to_numpy()
        elif rule == "dawid_skene":
            priors, e, n_iter = _dawid_skene_dask(client, coded, n_ann, q, max_iter, tol, progress, _EPS)
        parts = [client.submit(_gold_part, c, rule, w, priors, e, n_ann, tie_tolerance, sep) for c in coded]
        written = _write(client, parts, output)
    finally:
        client.cancel(coded)
    return {
        "n_items": sum(n for n, _ in written),
        "n_ties": sum(t for _, t in written),
        "rule": rule,
        "n_iter": n_iter,
        "output": output,
    }


def _label_counts(coded: Any, n_ann: int, q: int) -> np.ndarray:
    out = np.zeros((n_ann, q))
    if coded is not None:
        data, ann = coded
        np.add.at(out, (ann, data.label), 1.0)
    return out


def _write(client: Any, parts: list, output: str) -> list:
    """The workers write the partitions' rows: one CSV file (parts concatenated) or a Parquet dataset."""
    import shutil
    import tempfile

    target = os.path.abspath(output)
    if output.lower().endswith(".csv"):
        tmp = tempfile.mkdtemp(prefix=".iaa-gold-", dir=os.path.dirname(target) or ".")
        try:
            paths = [os.path.join(tmp, f"part-{k:06d}.csv") for k in range(len(parts))]
            done = gather(
                client, [client.submit(_write_part, p, path, k == 0) for k, (p, path) in enumerate(zip(parts, paths))]
            )
            with open(target, "w", encoding="utf-8", newline="") as out:
                for path in paths:
                    with open(path, encoding="utf-8", newline="") as fh:
                        shutil.copyfileobj(fh, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return done
    import re

    os.makedirs(target, exist_ok=True)
    ours = re.compile(r"part-\d{6}\.parquet")
    listed = sorted(os.listdir(target))
    foreign = [f for f in listed if f.lower().endswith((".parquet", ".pq")) and not ours.fullmatch(f)]
    if foreign:
        raise ValueError(
            f"-o {output!r} holds Parquet files that iaa gold did not write ({foreign[0]!r}, ...): the gold labels "
            "would mix with them; give a new or empty directory"
        )
    done = gather(
        client,
        [client.submit(_write_parquet, p, os.path.join(target, f"part-{k:06d}.parquet")) for k, p in enumerate(parts)],
    )
    for f in listed:  # a previous run's parts beyond this run's count: stale gold labels
        if ours.fullmatch(f) and int(f[5:11]) >= len(parts):
            os.remove(os.path.join(target, f))
    return done


def _write_parquet(frame: pd.DataFrame, path: str) -> tuple[int, int]:
    frame.to_parquet(path, index=False)
    return len(frame), int(frame["tie"].sum())


def _dawid_skene_dask(
    client: Any, coded: list, n_ann: int, q: int, max_iter: int, tol: float, progress: bool | None, eps: float
) -> tuple[np.ndarray, np.ndarray, int]:
    """Dawid-Skene's EM with E steps on the partitions and the M step from their sums
    (:func:`iaa_engine.analysis._gold._dawid_skene`'s iterations and stopping rule). Returns the priors and
    confusion matrices of the last E step, and the iterations run."""
    from iaa_engine.base._progress import Progress

    def sums(priors: Any, e: Any) -> tuple[np.ndarray, np.ndarray, float]:
        got = [
            g
            for g in gather(client, [client.submit(_ds_step, c, priors, e, n_ann, pure=False) for c in coded])
            if g is not None
        ]
        return sum(g[0] for g in got), sum(g[1] for g in got), sum(g[2] for g in got)

    counts = np.zeros((n_ann, q))
    n_items = 0
    for part in gather(client, [client.submit(_sizes, c, n_ann, q) for c in coded]):
        counts += part[0]
        n_items += part[1]
    used = (counts > 0)[:, :, None]
    n_annotations = counts.sum()

    def m_step(m: np.ndarray) -> np.ndarray:
        e: np.ndarray = m.reshape(n_ann, q, q)
        e = np.where(used, np.maximum(e, eps), 0.0)
        with np.errstate(invalid="ignore"):
            return e / e.sum(axis=1, keepdims=True)

    p_sum, m, _ = sums(None, None)
    priors = p_sum / n_items
    e = m_step(m)
    loss = -np.inf
    n_iter = 0
    with Progress(max_iter, "Dawid-Skene EM", show=progress) as bar:
        for n_iter in range(1, max_iter + 1):
            last_priors, last_e = priors, e
            p_sum, m, entropy = sums(np.asarray(priors), np.nan_to_num(e))
            priors = p_sum / n_items
            e = m_step(m)
            with np.errstate(divide="ignore"):
                log_e = np.where(used, np.log(np.where(used, e, 1.0)), 0.0)
            fit = float(np.sum(m.reshape(n_ann, q, q) * log_e) + p_sum @ np.log(np.maximum(priors, eps)))
            new_loss = (fit + entropy) / max(n_annotations, 1)
            bar.update()
            if new_loss - loss < tol:
                break
            loss = new_loss
    return np.asarray(last_priors), np.nan_to_num(last_e), n_iter


def _sizes(coded: Any, n_ann: int, q: int) -> tuple[np.ndarray, int]:
    if coded is None:
        return np.zeros((n_ann, q)), 0
    return _label_counts(coded, n_ann, q), coded[0].n_items


# ------------------------------------------------------------------------------------------------- disagreements
def _pairable_part(coded: Any, n_ann: int, q: int) -> Any:
    """A partition's pairable values per category, its pairable items, and its annotators × labels counts."""
    if coded is None:
        return np.zeros(q), 0, np.zeros((n_ann, q)), 0
    data, _ = coded
    c = data.counts
    ok = c.n_i[c.item] >= 2
    per_cat = np.bincount(c.category[ok], weights=c.count[ok].astype(float), minlength=q)
    return per_cat, int(np.count_nonzero(c.n_i >= 2)), _label_counts(coded, n_ann, q), data.n_items


def _disagree_part(
    coded: Any, top: Any, items_per_pair: Any, priors: Any, e: Any, n_ann: int, per_cat: np.ndarray
) -> Any:
    """:func:`disagreements` on a partition of whole items with the global posteriors and category totals: its
    top items (by the global keys), every label pair that met in it with its top items, its listed annotations."""
    from iaa_engine.analysis._disagreements import _disagreements

    if coded is None:
        return None
    data, ann = coded
    post = None if priors is None else _ds_posteriors(data, ann, priors, e, n_ann)
    return _disagreements(data, top, items_per_pair, False, 1, False, posteriors=post, per_cat=per_cat, pair_top=None)


@validate(
    top=NoneOr(Whole(0)),
    items_per_pair=NoneOr(Whole(0)),
    dawid_skene=AnyOf(Flag(), Choice("auto"), what="True, False or 'auto'"),
    client=ANY,
)
def disagreements_dask(
    frame: Any,
    *,
    top: int | None = None,
    items_per_pair: int | None = None,
    dawid_skene: Any = "auto",
    max_iter: int = 100,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    client: Any,
    progress: bool | None = None,
) -> Any:
    """:func:`iaa_engine.disagreements` of a Dask DataFrame: the top items merged from each partition's top items.

    A first pass adds up the pairable values per category (the ordinal positions and the expected coincidences
    need them); Dawid-Skene runs as the distributed EM of :func:`gold_dask`; then every partition of whole items
    ranks its own items by the global keys and keeps its ``top`` (the global top ``top`` are among them), with
    every label pair that met in it and that pair's ``items_per_pair`` largest items. The client merges: the
    items sorted by the same keys (the item order last), the pairs' coincidences added. Items and annotations of
    the listed items come back; the annotations are in partition order (sort by ``rank`` for the file's).

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per annotation (long layout); an item's rows may be in several partitions.
    top, items_per_pair, dawid_skene, max_iter
        As in :func:`iaa_engine.disagreements`.
    item, annotator, label, level, categories, duplicates, client, progress
        As in :func:`agreement_by_dask`.

    Returns
    -------
    Disagreements
        As :func:`iaa_engine.disagreements`.

    Raises
    ------
    InvalidParameterError, ValueError
        As in :func:`agreement_by_dask`.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the EM
    algorithm. Applied Statistics 28(1), 20–28.

    Rocklin, M. (2015). Dask: Parallel computation with blocked algorithms and task scheduling. Proceedings of the
    14th Python in Science Conference (SciPy 2015), 130–136.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from distributed import Client
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t3", "t3", "t4", "t4"], "annotator": ["ann", "bob"] * 4,
    ...                    "label": ["pos", "pos", "neg", "pos", "neg", "neg", "pos", "pos"],
    ...                    "batch": ["a"] * 4 + ["b"] * 4})
    >>> frame = dd.from_pandas(df, npartitions=2)
    >>> with Client(processes=False, dashboard_address=None) as client:
    ...     found = ie.disagreements_dask(frame, client=client, progress=False)
    >>> found.items["item"].tolist(), found.n_disagreeing
    (['t2'], 1)
    """
    import dask

    from iaa_engine.analysis._disagreements import DS_CELLS, RANKING, Disagreements
    from iaa_engine.analysis._gold import _EPS

    cols = {"item": item, "annotator": annotator, "label": label}
    frame = frame[[item, annotator, label]]
    annotators, cats = _annotators_and_categories(frame, annotator, label, level, categories)
    n_ann, q = len(annotators), len(cats)
    use_ds = q >= 2 and (dawid_skene is True or (dawid_skene == "auto" and float(n_ann) * q * q <= DS_CELLS))
    coded = client.compute(
        [dask.delayed(_coded)(p, cols, level, cats, duplicates, annotators) for p in _by_item(frame, item).to_delayed()]
    )
    from iaa_engine.engines._distributed import _is_tty, show_progress

    if progress or (progress is None and _is_tty()):
        show_progress(coded)
    try:
        sums = gather(client, [client.submit(_pairable_part, c, n_ann, q) for c in coded])
        per_cat = np.sum([s[0] for s in sums], axis=0)
        n_pairable = sum(s[1] for s in sums)
        priors = e = None
        if use_ds:
            priors, e, _ = _dawid_skene_dask(client, coded, n_ann, q, max_iter, 1e-5, progress, _EPS)
        parts = [
            r
            for r in gather(
                client,
                [client.submit(_disagree_part, c, top, items_per_pair, priors, e, n_ann, per_cat) for c in coded],
            )
            if r is not None
        ]
    finally:
        client.cancel(coded)
    lvl = level or "nominal"
    ranking = tuple(k.replace("the data's level", f"the {lvl} level") for k in RANKING if use_ds or "Dawid" not in k)
    return _merge_disagreements(
        parts, top, items_per_pair, per_cat, cats, n_pairable, use_ds, ranking, lvl, Disagreements
    )


def _item_order(values: pd.Series) -> np.ndarray:
    """Each item's position in the data's item order (ids sorted as :meth:`Annotations.from_long` sorts them)."""
    from iaa_engine.data._model import _group_codes

    codes, _ = _group_codes(
        np.asarray(values.to_numpy(), dtype=object) if values.dtype == object else values.to_numpy()
    )
    return codes


def _merge_disagreements(
    parts: list,
    top: Any,
    items_per_pair: Any,
    per_cat: np.ndarray,
    cats: pd.Index,
    n_pairable: int,
    use_ds: bool,
    ranking: tuple,
    level: str,
    cls: Any,
) -> Any:
    items = pd.concat([p.items for p in parts], ignore_index=True) if parts else pd.DataFrame()
    n_disagreeing = sum(p.n_disagreeing for p in parts)
    if len(items):
        ent_key = np.where(np.isnan(items["entropy"].to_numpy(float)), 0.0, -items["entropy"].to_numpy(float))
        order = np.lexsort(
            (
                _item_order(items["item"]),
                -items["n_annotations"].to_numpy(),
                ent_key,
                items["n_tied"].to_numpy() <= 1,
                -items["disagreement"].to_numpy(float),
            )
        )
        items = items.iloc[order if top is None else order[:top]].reset_index(drop=True)
    items["rank"] = np.arange(1, len(items) + 1)
    rank_of = dict(zip(items["item"], items["rank"])) if len(items) else {}
    annotations = pd.concat([p.annotations for p in parts], ignore_index=True) if parts else pd.DataFrame()
    if len(annotations):
        annotations = annotations[annotations["item"].isin(rank_of)].copy()
        annotations["rank"] = annotations["item"].map(rank_of).astype(np.int64)
        annotations = annotations.sort_values("rank", kind="stable").reset_index(drop=True)
    # label pairs: coincidences added over partitions, ranked as in memory
    q = max(len(cats), 1)
    frames = [p.pairs.assign(_part=k) for k, p in enumerate(parts)]
    allp = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["label_a", "label_b"])
    codes_a = cats.get_indexer(pd.Index(allp["label_a"])) if len(allp) else np.zeros(0, np.int64)
    codes_b = cats.get_indexer(pd.Index(allp["label_b"])) if len(allp) else np.zeros(0, np.int64)
    cell = codes_a.astype(np.int64) * q + codes_b
    cells, inv = np.unique(cell, return_inverse=True)
    observed = np.bincount(inv, weights=allp["observed"].to_numpy(float) if len(allp) else None, minlength=cells.size)
    n_items_pair = np.bincount(
        inv, weights=allp["n_items"].to_numpy(float) if len(allp) else None, minlength=cells.size
    )
    a_code, b_code = np.divmod(cells, q)
    n_total = float(per_cat.sum())
    expected = per_cat[a_code] * per_cat[b_code] / max(n_total - 1.0, 1.0)
    ratio = observed / expected
    off_total = 2.0 * float(observed.sum())
    p_order = np.lexsort((cells, -observed, -ratio))
    if top is not None:
        p_order = p_order[:top]
    pairs = pd.DataFrame(
        {
            "rank": np.arange(1, p_order.size + 1),
            "label_a": cats.take(a_code[p_order]),
            "label_b": cats.take(b_code[p_order]),
            "observed": observed[p_order],
            "expected": expected[p_order],
            "ratio": ratio[p_order],
            "share": 2.0 * observed[p_order] / off_total if off_total > 0 else np.zeros(p_order.size),
            "n_items": n_items_pair[p_order].astype(np.int64),
        }
    )
    # the items behind each listed pair: each partition's largest, merged
    pair_rank = {int(cells[s]): r + 1 for r, s in enumerate(p_order)}
    rows = []
    for k, p in enumerate(parts):
        if not len(p.pair_items):
            continue
        pc = cats.get_indexer(pd.Index(p.pairs["label_a"])).astype(np.int64) * q + cats.get_indexer(
            pd.Index(p.pairs["label_b"])
        )
        local = dict(zip(p.pairs["rank"], pc))  # the partition's pair rank -> cell
        cell_of = p.pair_items["pair"].map(local)
        rows.append(p.pair_items.assign(pair=cell_of.map(pair_rank)).dropna(subset=["pair"]))
    pair_items = (
        pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["pair", "item", "item_rank", "observed"])
    )
    if len(pair_items):
        pair_items["pair"] = pair_items["pair"].astype(np.int64)
        order = np.lexsort(
            (_item_order(pair_items["item"]), -pair_items["observed"].to_numpy(float), pair_items["pair"].to_numpy())
        )
        pair_items = pair_items.iloc[order]
        if items_per_pair is not None:
            pair_items = pair_items.groupby("pair", sort=False).head(items_per_pair)
        pair_items = pair_items.reset_index(drop=True)
        pair_items["item_rank"] = pair_items["item"].map(rank_of).fillna(0).astype(np.int64)
    return cls(
        items=items,
        annotations=annotations,
        pairs=pairs,
        pair_items=pair_items,
        categories=list(cats),
        n_pairable=int(n_pairable),
        n_disagreeing=int(n_disagreeing),
        dawid_skene=use_ds,
        ranking=ranking,
        level=level,
    )
