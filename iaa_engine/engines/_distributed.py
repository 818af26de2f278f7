"""The same statistics on a Dask cluster: Parquet datasets and Dask DataFrames larger than one process.

The plan: shuffle the annotations by item (so that every item's annotations
meet in one partition: items may be spread over the input partitions), compute
each partition's sufficient statistics with the in-memory code
(:class:`~iaa_engine.stats._sums.CountSums`, :class:`~iaa_engine.stats._tables.AnnotatorStats`,
:class:`~iaa_engine.stats._tables.PairStats`), and add them up in a tree reduction.
Only these sums, whose size depends on the numbers of annotators and
categories but not on the number of annotations, reach the client; the
metrics then run on :meth:`Annotations.from_stats` with the same code as the
in-memory path.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, PARAMS, Choice, Instance, NoneOr, validate
from iaa_engine.base._policy import invalid
from iaa_engine.data._model import LEVELS, Annotations, encode_labels, is_missing_mask, resolve_duplicates
from iaa_engine.engines._dask_ci import combine_resampling, partition_resampling, resampling_fields
from iaa_engine.stats._sums import ExactSums
from iaa_engine.stats._tables import AnnotatorStats, ItemCounts, PairStats, pair_cells

__all__ = ["read_dask", "summarize_dask"]


def _need_dask():
    try:
        import dask
        import dask.dataframe as dd
        import distributed
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "the Dask engine needs the optional packages dask and distributed: pip install 'iaa-engine[dask]'"
        ) from None
    return dask, dd, distributed


#: Above this many (A·C)² cells, partitions exchange sparse pair entries instead of the dense table.
_DENSE_PAIR_CELLS = 1 << 24


@dataclass
class _Partial:
    """Sufficient statistics of one partition (disjoint items).

    ``pairs`` is the dense pair-count table (``PairStats.to_cells``) when it is
    small, so that combining is an addition; otherwise compacted sparse entries.
    """

    n_items: int
    n_annotations: int
    sums: ExactSums | None
    annotators: AnnotatorStats | None
    pairs: np.ndarray | PairStats | None
    resampling: Any = None  # the bootstrap's tallies (engines/_dask_ci.py)


@contextlib.contextmanager
def partition_duplicates() -> Iterator[None]:
    """A partition's count of duplicated (item, annotator) pairs is only a lower bound of the data's: say so."""
    try:
        yield
    except ValueError as exc:
        text = str(exc)
        if re.match(r"\d+ \(item, annotator\) pair\(s\) are labelled more than once", text):
            from iaa_engine.data._errors import InputError

            cli = getattr(exc, "cli", None) or text
            raise InputError(f"at least {text}", cli=f"at least {cli}") from None
        raise


def _partition_stats(
    frame: pd.DataFrame,
    item: str,
    annotator: str,
    label: str,
    annotators: pd.Index,
    categories: pd.Index,
    level: str,
    duplicates: str,
) -> _Partial:
    keep, lab_codes, _ = encode_labels(frame[label], level, categories)
    frame = frame.loc[keep]
    if len(frame) == 0:
        return _Partial(0, 0, None, None, None)
    item_codes, items = pd.factorize(frame[item].to_numpy())
    ann_codes = annotators.get_indexer(frame[annotator].to_numpy()).astype(np.int64)
    return _stats_of_codes(item_codes.astype(np.int64), pd.Index(items), ann_codes, lab_codes, annotators, categories,
                           duplicates)  # fmt: skip


def _stats_of_codes(
    item_codes: np.ndarray,
    items: pd.Index,
    ann_codes: np.ndarray,
    lab_codes: np.ndarray,
    annotators: pd.Index,
    categories: pd.Index,
    duplicates: str,
) -> _Partial:
    """The sufficient statistics of annotations given as codes (items of this partition, global annotators and
    categories)."""
    with partition_duplicates():
        item_codes, ann_codes, lab_codes = resolve_duplicates(
            item_codes, ann_codes, lab_codes, len(annotators), duplicates, items, annotators
        )
    n_items, n_ann, n_cat = len(items), len(annotators), len(categories)
    counts = ItemCounts.from_codes(item_codes, lab_codes, n_items, n_cat)
    ac = n_ann * max(n_cat, 1)
    pairs: np.ndarray | PairStats
    if ac * ac <= _DENSE_PAIR_CELLS:  # int32 suffices: a cell counts items, and this partition's are few
        pairs = pair_cells(item_codes, ann_codes * max(n_cat, 1) + lab_codes, n_items, ac).astype(np.int32)
    else:
        pairs = PairStats.from_codes(item_codes, ann_codes, lab_codes, n_items, n_ann, n_cat).compact()
    return _Partial(
        n_items,
        int(lab_codes.size),
        ExactSums.from_counts(counts),
        AnnotatorStats.from_codes(ann_codes, lab_codes, n_ann, n_cat),
        pairs,
        partition_resampling(items, item_codes, ann_codes, lab_codes, counts, n_ann, n_cat),
    )


def _split_coded(part: pd.DataFrame, item: str, annotator: str, label: str, n: int) -> tuple:
    """One input partition for :func:`summarize_dask`: its distinct annotators and labels, and its rows in ``n``
    buckets by item, each ``(item ids, annotator codes, label codes)`` with codes into those distinct values
    (-1: missing). The ids travel unchanged; annotators and labels as small integers."""
    ann_codes, ann_values = pd.factorize(part[annotator])
    lab_codes, lab_values = pd.factorize(part[label])
    bucket = _buckets(part[item], n)
    order = np.argsort(bucket, kind="stable")
    sizes = np.bincount(bucket, minlength=n)
    ends = np.cumsum(sizes)
    items = part[item].take(order).reset_index(drop=True)
    ann = ann_codes[order].astype(np.int32)
    lab = lab_codes[order].astype(np.int32)
    pieces = tuple((items.iloc[e - c : e], ann[e - c : e], lab[e - c : e]) for c, e in zip(sizes, ends))
    return (np.asarray(ann_values, dtype=object), lab_values.to_numpy()), pieces


def _values_of(split: tuple) -> tuple:
    return split[0]


def _piece(split: tuple, b: int) -> tuple:
    return split[1][b]


def _coded_stats(pieces: list, maps: list, annotators: pd.Index, categories: pd.Index, duplicates: str) -> _Partial:
    """The statistics of one bucket (whole items): each input partition's piece, its codes mapped to the global
    annotators and categories with that partition's ``(annotator map, label map)``."""
    items, ann, lab = [], [], []
    for (ids, a, c), (a_map, c_map) in zip(pieces, maps):
        if not len(ids):
            continue
        codes = np.where(c >= 0, c_map[np.maximum(c, 0)], -1) if len(c_map) else np.full(len(c), -1)
        keep = codes >= 0
        items.append(ids[keep])
        ann.append(np.where(a >= 0, a_map[np.maximum(a, 0)], -1)[keep] if len(a_map) else np.full(keep.sum(), -1))
        lab.append(codes[keep])
    if not items or not sum(len(i) for i in items):
        return _Partial(0, 0, None, None, None)
    ids = pd.concat(items, ignore_index=True) if len(items) > 1 else items[0]
    item_codes, uniques = pd.factorize(ids)
    return _stats_of_codes(
        item_codes.astype(np.int64),
        pd.Index(uniques),
        np.concatenate(ann).astype(np.int64),
        np.concatenate(lab).astype(np.int64),
        annotators,
        categories,
        duplicates,
    )


def _combine(parts: Sequence[_Partial]) -> _Partial:
    parts = [p for p in parts if p.n_annotations]
    if not parts:
        return _Partial(0, 0, None, None, None)
    pairs: np.ndarray | PairStats
    if isinstance(parts[0].pairs, np.ndarray):
        dense = parts[0].pairs.astype(np.int64)  # sums of many partitions may pass int32
        for p in parts[1:]:
            dense += cast(np.ndarray, p.pairs)
        pairs = dense
    else:
        pairs = PairStats.combine([cast(PairStats, p.pairs) for p in parts]).compact()
    return _Partial(
        sum(p.n_items for p in parts),
        sum(p.n_annotations for p in parts),
        ExactSums.combine([cast(ExactSums, p.sums) for p in parts]),
        AnnotatorStats.combine([cast(AnnotatorStats, p.annotators) for p in parts]),
        pairs,
        combine_resampling([p.resampling for p in parts]),
    )


def _summarize_on(
    client: Any,
    frame: Any,
    item: str,
    annotator: str,
    label: str,
    level: str,
    categories: Any,
    duplicates: str,
    progress: bool | None,
) -> tuple[_Partial, pd.Index, pd.Index]:
    """:func:`summarize_dask`'s work on ``client``: one pass reads each input partition, returns its distinct
    annotators and labels (small) and leaves its rows on the worker split into buckets by item, with annotators and
    labels as small integer codes; the client fixes the global annotators and categories from those distinct values;
    each bucket (whole items) maps its codes to them and computes its statistics, which a binary tree adds up."""
    dask, _, _ = _need_dask()
    n_in = max(frame.npartitions, 1)
    if n_in > MAX_SPLIT_PARTITIONS:  # many partitions: Dask's peer-to-peer shuffle, then the same coding
        frame = shuffle_by(frame, item)
        n_in, n_out = frame.npartitions, 1
    else:
        n_out = n_in
    splits = client.compute(
        [dask.delayed(_split_coded, pure=True)(p, item, annotator, label, n_out) for p in frame.to_delayed()]
    )
    show = progress or (progress is None and _is_tty())
    if show:
        show_progress(splits)
    values = gather(client, [client.submit(_values_of, f) for f in splits])
    ann_all = np.concatenate([v[0] for v in values]) if values else np.zeros(0, object)
    ann_all = ann_all[~pd.isna(ann_all)] if ann_all.size else ann_all
    annotators = pd.Index(sorted(pd.unique(ann_all).tolist(), key=_sort_key))
    lab_all = np.concatenate([v[1] for v in values]) if values else np.zeros(0, object)
    lab_array = pd.unique(lab_all) if lab_all.dtype != object else np.asarray(pd.unique(lab_all), dtype=object)
    lab_array = lab_array[~is_missing_mask(lab_array)]
    if lab_array.size == 0:
        raise ValueError("the data holds no annotations (every label is missing)")
    _, _, cats = encode_labels(lab_array, level, categories)
    maps = []
    for ann_values, lab_values in values:
        lab_map = np.full(len(lab_values), -1, dtype=np.int64)
        if len(lab_values):
            keep, codes, _ = encode_labels(lab_values, level, cats)
            lab_map[keep] = codes
        maps.append((annotators.get_indexer(ann_values).astype(np.int64), lab_map))
    pieces = [[client.submit(_piece, f, b) for f in splits] for b in range(n_out)]
    del splits
    parts = [client.submit(_coded_stats, pieces[b], maps, annotators, cats, duplicates) for b in range(n_out)]
    del pieces
    while len(parts) > 1:  # a binary tree: a task holds at most three pair tables
        parts = [client.submit(_combine, parts[i : i + 2]) for i in range(0, len(parts), 2)]
    if show:
        show_progress(parts)
    (total,) = gather(client, parts)
    return total, annotators, cats


def gather(client: Any, futures: Any) -> Any:
    """``client.gather(futures)``; a worker's failure is one line (the user's own errors, ValueError and TypeError,
    pass unchanged)."""
    return one_line(client.gather, futures)


def one_line(run: Any, *args: Any) -> Any:
    """``run(*args)``; a worker's failure is one line (the user's own errors, ValueError and TypeError, pass
    unchanged)."""
    try:
        return run(*args)
    except (ValueError, TypeError, MemoryError, KeyError):
        raise
    except Exception as exc:  # noqa: BLE001 - a worker's failure reaches the user as one line, not a traceback
        first = (str(exc).strip().splitlines() or [""])[0]
        raise ValueError(f"the cluster failed: {type(exc).__name__}: {first}") from None


def close_client(client: Any) -> None:
    """Close a client and the local cluster it started."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def _client(scheduler: Any, n_workers: int | None, memory_limit: str | None):
    """A client for ``scheduler`` (an address or a Client), or a new local cluster sized to the machine."""
    _, _, distributed = _need_dask()
    if isinstance(scheduler, distributed.Client):
        check_worker_code(scheduler)
        return scheduler, False
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout="10s")
        except (OSError, ValueError) as exc:  # unreachable, or not an address ("missing port number")
            raise OSError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from None
        try:
            check_worker_code(client)
        except BaseException:
            client.close()
            raise
        return client, True
    import logging

    workers = _check_workers(n_workers)
    limit = _check_memory_limit(memory_limit)
    # a failing task is reported once, as this call's exception; the workers' own logs would repeat it at length
    for name in ("distributed", "distributed.shuffle", "distributed.worker", "distributed.nanny"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    import warnings

    with warnings.catch_warnings():  # e.g. "Port 8787 is already in use": about a dashboard this engine never opens
        warnings.filterwarnings("ignore", category=UserWarning, module=r"distributed(\.|$)")
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=limit,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        )
    return distributed.Client(cluster), True


def code_fingerprint() -> str:
    """The installed iaa-engine's version and a digest of its Python sources (computed once per process)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        import hashlib
        from pathlib import Path

        from iaa_engine.base._version import __version__

        root = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
        _FINGERPRINT = f"{__version__}+{digest.hexdigest()[:12]}"
    return _FINGERPRINT


_FINGERPRINT: str | None = None


def check_worker_code(client: Any, here: str | None = None) -> None:
    """Refuse, in one line, a cluster whose workers run another iaa-engine than this process (``here``: this
    process's :func:`code_fingerprint`). The partitions' statistics are computed by the workers' copy and
    finished by this one: two versions could disagree on what a partition returns, and the result would be wrong
    or a confusing error far from its cause."""
    here = here or code_fingerprint()
    try:
        theirs = client.run(code_fingerprint)
    except ImportError as exc:
        raise ValueError(
            f"the Dask workers cannot import iaa_engine ({exc}): install iaa-engine (with the same version as "
            "here) on every worker"
        ) from None
    other = sorted({v for v in theirs.values() if v != here})
    if other:
        raise ValueError(
            f"the Dask workers run another iaa-engine than this process (workers: {', '.join(other)}; here: "
            f"{here}): install the same version on every worker and restart them"
        )


#: A local worker needs at least this much memory to start and hold one partition's statistics.
MIN_WORKER_MEMORY = 256 * 2**20


def _check_workers(n_workers: Any) -> int:
    """The local cluster's worker count: from 1 to the machine's cores (default: one per core), checked with the
    table's constraint (:data:`iaa_engine.base._params.PARAMS`) before any process starts."""
    if n_workers is None:
        return max(1, os.cpu_count() or 1)
    PARAMS["n_workers"].check("n_workers", n_workers)
    return int(n_workers)


def _check_memory_limit(memory_limit: Any) -> str | int:
    """A per-worker memory limit such as ``'2GiB'`` (or bytes), refused at once when a worker could not run in it."""
    if memory_limit is None:
        return "auto"
    from dask.utils import format_bytes, parse_bytes

    try:
        size = parse_bytes(memory_limit) if isinstance(memory_limit, str) else int(memory_limit)
    except (ValueError, TypeError):
        raise ValueError(
            f"memory_limit must be a size such as '2GiB' or a number of bytes; got {memory_limit!r}"
        ) from None
    if size < MIN_WORKER_MEMORY:
        raise ValueError(
            f"memory_limit {memory_limit!r} ({format_bytes(size)}) is too small for a worker: give at "
            f"least {format_bytes(MIN_WORKER_MEMORY)} per worker"
        )
    return size


def _check_schemas(source: Any, columns: list[str]) -> None:
    """Files of one local dataset must agree on the types of the columns read; name the first that differs."""
    import glob

    import pyarrow.parquet as pq

    text = str(source)
    if os.path.isdir(text):
        files = sorted(glob.glob(os.path.join(text, "**", "*.parquet"), recursive=True))
    else:
        files = sorted(glob.glob(text))
    first: dict[str, Any] | None = None
    for f in files:
        if os.path.splitext(f)[1].lower() in (".csv", ".tsv", ".txt", ".tab", ".json", ".jsonl"):
            raise ValueError(
                f"the Dask engine reads Parquet; {f!r} is delimited text or JSON: write it as Parquet "
                "(e.g. pandas' to_parquet), or read CSV out of core with --engine duckdb (ie.read_duckdb)"
            )
        try:
            schema = pq.read_schema(f)
        except Exception as exc:  # noqa: BLE001 - any unreadable file: its name and the reason, one line
            raise ValueError(f"cannot read the Parquet file {f!r}: {str(exc).splitlines()[0]}") from None
        types = {c: str(schema.field(c).type) for c in columns if c in schema.names}
        absent = [c for c in columns if c not in schema.names]
        if absent:
            raise ValueError(
                f"cannot read columns {columns!r} from {f!r}: it has no column(s) {absent!r}; its "
                f"columns are {schema.names!r}"
            )
        if first is None:
            first, first_file = types, f
            continue
        for c in columns:
            if _arrow_kind(types[c]) != _arrow_kind(first[c]):
                raise ValueError(
                    f"the files of the dataset disagree on the type of column {c!r}: {types[c]} in {f!r} but "
                    f"{first[c]} in {first_file!r}; write every file with the same schema (e.g. ids as text)"
                )


def _arrow_kind(type_name: str) -> str:
    """Types that read together: every text type is one kind, every integer width another, and so on."""
    text = ("string", "large_string", "utf8", "large_utf8")
    if type_name in text or type_name.startswith("dictionary<values=string"):
        return "text"
    if type_name.startswith(("int", "uint")):
        return "integer"
    if type_name.startswith(("float", "double", "halffloat")):
        return "float"
    return type_name


@validate(level=Choice(*LEVELS), scheduler=ANY, memory_limit=ANY)
def summarize_dask(
    frame: Any,
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    scheduler: Any = None,
    n_workers: int | None = None,
    memory_limit: str | None = None,
    progress: bool | None = None,
) -> Annotations:
    """Summarise a Dask DataFrame of annotations (long layout) into statistics-only :class:`Annotations`.

    The annotations are shuffled by item (so that each item's annotations meet
    in one partition), each partition's sufficient statistics (the count sums,
    the annotator × category counts and the annotator-pair tables) are computed
    with the in-memory code, and the partitions' statistics are added up in a
    binary tree. Only these sums, whose size depends on the numbers of
    annotators and categories but not on the number of annotations, reach the
    client; every metric that reads only them gives the same value as on the
    data in memory.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per annotation, columns ``item``, ``annotator``, ``label``;
        an item's rows may be in several partitions.
    item, annotator, label, level, categories, duplicates
        As in :meth:`Annotations.from_long`.
    scheduler : str or distributed.Client, optional
        Address of an existing Dask scheduler (e.g. ``"tcp://10.0.0.5:8786"``)
        or a client. Without one, a local cluster with one single-threaded
        worker process per core is started for this call and closed after it.
    n_workers : int, optional
        Worker processes of that local cluster (default: one per core; at least 1).
    memory_limit : str or int, optional
        Memory per worker of that local cluster, e.g. ``"2GiB"`` or a number of bytes (at least 256 MiB;
        default: Dask's automatic share of the machine's memory).
    progress : bool, optional
        Show Dask's progress bar (default: on a terminal).

    Returns
    -------
    Annotations
        Built with :meth:`Annotations.from_stats`: every count-based metric,
        multi-coder kappa, bias, the pairwise matrices, the bootstrap and the analytic standard errors
        work on it (engines/_dask_ci.py); per-item results (item agreement, gold labels, facets) do not.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``frame`` is not a Dask DataFrame.
    ValueError
        ``memory_limit`` is not a size or is too small for a worker; a named column is missing; every label is
        missing; the labels do not fit ``level`` or ``categories``; an annotator labelled an item twice with
        ``duplicates='error'``; or the cluster failed (the worker's error in one line).
    OSError
        The scheduler at ``scheduler`` cannot be reached.
    ImportError
        The optional packages ``dask`` and ``distributed`` are not installed (``pip install 'iaa-engine[dask]'``).

    References
    ----------
    Rocklin, M. (2015). Dask: Parallel computation with blocked algorithms and task scheduling. Proceedings of the
    14th Python in Science Conference (SciPy 2015), 130–136.

    Wickham, H. (2014). Tidy data. Journal of Statistical Software 59(10), 1–23.

    Examples
    --------
    The computation always runs on a ``distributed`` client; an in-process one
    (threads, no worker processes) is enough for a small frame:

    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from distributed import Client
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t3", "t3"], "annotator": ["ann", "bob"] * 3,
    ...                    "label": ["pos", "pos", "neg", "pos", "neg", "neg"]})
    >>> frame = dd.from_pandas(df, npartitions=2)
    >>> with Client(processes=False, dashboard_address=None) as client:
    ...     data = ie.summarize_dask(frame, scheduler=client, progress=False)
    >>> data
    Annotations(n_annotations=6, n_items=3, n_annotators=2, n_categories=2, level='nominal')
    >>> round(ie.krippendorff_alpha(data), 4), round(ie.krippendorff_alpha(ie.Annotations.from_long(df)), 4)
    (0.4444, 0.4444)
    """
    dask, dd, distributed = _need_dask()
    if not isinstance(scheduler, distributed.Client) and not scheduler:
        _check_workers(n_workers)  # refused before any data is touched or any process started
        _check_memory_limit(memory_limit)
    if not isinstance(frame, dd.DataFrame):
        raise TypeError(f"expected a dask DataFrame; got {type(frame).__name__}")
    missing = [c for c in (item, annotator, label) if c not in frame.columns]
    if missing:
        raise ValueError(f"column(s) {missing!r} not found; the data has columns {list(frame.columns)!r}")
    frame = frame[[item, annotator, label]]
    client, owned = _client(scheduler, n_workers, memory_limit)
    try:
        total, annotators, cats = _summarize_on(client, frame, item, annotator, label, level, categories,
                                                duplicates, progress)  # fmt: skip
    finally:
        if owned:
            close_client(client)
    if total.n_annotations == 0:
        raise ValueError("the data holds no annotations")
    ann_stats, sums = cast(AnnotatorStats, total.annotators), cast(ExactSums, total.sums)
    if isinstance(total.pairs, np.ndarray):
        total.pairs = PairStats.from_cells(total.pairs, len(annotators), len(cats), ann_stats.n_a)
    return Annotations.from_stats(
        items=total.n_items,
        categories=cats,
        level=level,
        annotators=annotators,
        annotator_stats=ann_stats,
        pair_stats=total.pairs,
        count_sums=sums.finish(),
        n_annotations=total.n_annotations,
        **resampling_fields(total.resampling),
    )


@validate(level=Choice(*LEVELS), scheduler=ANY, memory_limit=ANY, storage_options=NoneOr(Instance(dict, "a dict")))
def read_dask(
    source: str | Sequence[str],
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    scheduler: Any = None,
    n_workers: int | None = None,
    memory_limit: str | None = None,
    progress: bool | None = None,
    storage_options: dict | None = None,
) -> Annotations:
    """Summarise a Parquet dataset (a directory, a glob, or any fsspec URL) on a Dask cluster.

    Reads the three columns with :func:`dask.dataframe.read_parquet` and
    summarises them with :func:`summarize_dask`. The files of a local dataset
    are checked first: each must have the columns, and all must agree on their
    types (e.g. ids written as text in every file).

    Parameters
    ----------
    source : str or sequence of str
        A Parquet file, a directory of them, a glob, a list of files, or a
        URL that fsspec reads (``s3://``, ``gs://``, ...).
    item, annotator, label, level, categories, duplicates
        As in :meth:`Annotations.from_long`.
    scheduler, n_workers, memory_limit, progress
        As in :func:`summarize_dask`.
    storage_options : dict, optional
        Passed to fsspec (e.g. credentials for ``s3://``).

    Returns
    -------
    Annotations
        Statistics only, as from :func:`summarize_dask`.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    FileNotFoundError
        No file matches ``source``, or it cannot be opened.
    ValueError
        A file cannot be read, lacks one of the columns, or the files disagree on a column's type; and the
        errors of :func:`summarize_dask`.
    OSError
        The scheduler at ``scheduler`` cannot be reached.
    ImportError
        The optional packages ``dask`` and ``distributed`` are not installed (``pip install 'iaa-engine[dask]'``).

    References
    ----------
    Rocklin, M. (2015). Dask: Parallel computation with blocked algorithms and task scheduling. Proceedings of the
    14th Python in Science Conference (SciPy 2015), 130–136.

    Apache Parquet documentation. File format. https://parquet.apache.org/docs/file-format/

    Examples
    --------
    A dataset of one Parquet file in a temporary directory, summarised on an
    in-process client:

    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> from distributed import Client
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2"], "annotator": ["ann", "bob"] * 2,
    ...                    "label": ["pos", "pos", "neg", "pos"]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     df.to_parquet(pathlib.Path(tmp) / "part-0.parquet")
    ...     with Client(processes=False, dashboard_address=None) as client:
    ...         data = ie.read_dask(tmp, scheduler=client, progress=False)
    >>> data
    Annotations(n_annotations=4, n_items=2, n_annotators=2, n_categories=2, level='nominal')
    >>> ie.percent_agreement(data)
    0.5
    """
    _check_source(source)
    if not scheduler:
        _check_workers(n_workers)
        _check_memory_limit(memory_limit)
    frame = open_parquet(source, [item, annotator, label], storage_options)
    return summarize_dask(
        frame,
        item=item,
        annotator=annotator,
        label=label,
        level=level,
        categories=categories,
        duplicates=duplicates,
        scheduler=scheduler,
        n_workers=n_workers,
        memory_limit=memory_limit,
        progress=progress,
    )


#: Row groups are read together into one partition up to this much uncompressed data (a row group of a million
#: annotations of short text ids is about 16 MiB in Parquet, 50-80 MB in pandas): a file of many row groups is read
#: as many partitions, so that the shuffle by item splits the reading, not one task's output.
PARTITION_BYTES = "16MiB"


def open_parquet(source: Any, columns: list[str], storage_options: dict | None = None) -> Any:
    """``columns`` of a Parquet dataset (a path, a glob, a list or an fsspec URL) as a Dask DataFrame; a missing
    file, a missing column or files that disagree on a column's type is one line naming it."""
    if isinstance(source, (str, os.PathLike)) and "://" not in str(source):
        import glob

        if not glob.glob(str(source)):
            raise FileNotFoundError(f"cannot read the Parquet dataset {str(source)!r}: no such file or directory")
        _check_schemas(source, columns)
    return read_parquet(source, columns, storage_options)


def _distinct_part(part: pd.DataFrame, columns: list[str]) -> list[np.ndarray]:
    """A partition's distinct values of each of ``columns``."""
    return [np.asarray(pd.unique(part[c].dropna())) for c in columns]


def read_parquet(source: Any, columns: list[str], storage_options: dict | None = None) -> Any:
    """``columns`` of a Parquet dataset as a Dask DataFrame, a partition per row group (row groups of less than
    :data:`PARTITION_BYTES` read together, within a file); errors as one line naming the source."""
    _, dd, _ = _need_dask()
    try:
        return dd.read_parquet(
            source,
            columns=columns,
            storage_options=storage_options,
            split_row_groups="adaptive",
            blocksize=PARTITION_BYTES,
        )
    except (FileNotFoundError, OSError) as exc:
        raise FileNotFoundError(f"cannot read the Parquet dataset {source!r}: {exc}") from None
    except (KeyError, ValueError) as exc:
        raise ValueError(f"cannot read columns {columns!r} from {source!r}: {exc}") from None


class _Shown(str):
    """A value shown in an error message as it is (not quoted)."""

    def __repr__(self) -> str:
        return str(self)


def _check_source(source: Any) -> None:
    """``read_dask``'s ``source``: a path, glob or URL, or a non-empty list of them (a dict or a DataFrame sent
    dask into endless recursion)."""
    expected = "a Parquet file, directory, glob or URL (text or a path), or a non-empty list of them"
    if isinstance(source, (str, os.PathLike)):
        if not str(source).strip():
            raise invalid("source", expected, source)
        return
    if hasattr(source, "columns") or hasattr(source, "dtypes"):  # a pandas or dask DataFrame
        raise invalid(
            "source",
            expected + " (a DataFrame in memory goes to Annotations.from_long, or to summarize_dask as a dask one)",
            _Shown(f"<a {type(source).__module__.split('.')[0]} {type(source).__name__}>"),
        )
    if isinstance(source, (list, tuple)) and source and all(isinstance(s, (str, os.PathLike)) for s in source):
        return
    raise invalid("source", expected, source)


def _sort_key(value: Any) -> tuple:
    return (type(value).__name__, value)


def show_progress(futures: Any) -> None:
    """Dask's progress bar until ``futures`` finish, drawn on standard error: Dask draws it on standard output,
    where it would end up inside ``--json > out.json``."""
    import contextlib
    import sys

    _, _, distributed = _need_dask()
    with contextlib.redirect_stdout(sys.stderr):
        distributed.progress(futures)


def _is_tty() -> bool:
    import sys

    return hasattr(sys.stderr, "isatty") and sys.stderr.isatty()


# ------------------------------------------------------------------------------------------- the shuffle by item
#: Up to this many input partitions, the shuffle by item is one stage of tasks (each input partition split into the
#: output partitions' buckets, each output partition the concatenation of its buckets: inputs × outputs small tasks);
#: beyond it, Dask's peer-to-peer shuffle, made for many partitions.
MAX_SPLIT_PARTITIONS = 64


def _mix64(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (Steele, Lea & Flood 2014): spreads every input bit over the output (uint64)."""
    with np.errstate(over="ignore"):
        h = h ^ (h >> np.uint64(30))
        h = h * np.uint64(0xBF58476D1CE4E5B9)
        h = h ^ (h >> np.uint64(27))
        h = h * np.uint64(0x94D049BB133111EB)
        return h ^ (h >> np.uint64(31))


def _buckets(values: Any, n: int) -> np.ndarray:
    """Each value's bucket in ``0..n-1``: equal values (in any partition) in the same bucket.

    Only the bucket comes from a hash; the item ids themselves travel unchanged, so two ids in one bucket stay two
    items. Text is hashed from its UTF-8 bytes with numpy (a position-weighted sum of the bytes, mixed with
    SplitMix64): about ten times faster than :func:`pandas.util.hash_array` on text; other types with pandas."""
    if n <= 1:
        return np.zeros(len(values), dtype=np.int64)
    import pyarrow as pa

    arr = None
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        arr = values
    elif isinstance(values.dtype, pd.StringDtype) or values.dtype == object:
        try:  # text, whichever pandas dtype holds it: hashed from its bytes (the same bucket in every partition)
            arr = pa.array(values.array if isinstance(values, pd.Series) else values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arr = None
    if arr is None or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        raw = values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else np.asarray(values)
        h = pd.util.hash_array(np.asarray(raw, dtype=object) if raw.dtype.kind in "OUS" else raw)
        return (h % np.uint64(n)).astype(np.int64)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    arr = arr.cast(pa.large_string())
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = arr.buffers()[2]
    start, stop = int(offsets[0]), int(offsets[-1])
    body = np.frombuffer(data, dtype=np.uint8)[start:stop] if data is not None else np.zeros(0, np.uint8)
    lengths = np.diff(offsets)
    position = np.arange(stop - start, dtype=np.int64) - np.repeat(offsets[:-1] - start, lengths)
    weights = _mix64(np.arange(1, int(lengths.max(initial=0)) + 1, dtype=np.uint64))
    with np.errstate(over="ignore"):
        total = np.zeros(body.size + 1, dtype=np.uint64)
        np.cumsum(body.astype(np.uint64) * weights[position], out=total[1:])
        h = total[offsets[1:] - start] - total[offsets[:-1] - start] + lengths.astype(np.uint64)
    return (_mix64(h) % np.uint64(n)).astype(np.int64)


def _split_rows(part: pd.DataFrame, on: str, n: int) -> tuple:
    """A partition's rows in ``n`` buckets by the value of ``on`` (each bucket's rows in their order)."""
    bucket = _buckets(part[on], n)
    order = np.argsort(bucket, kind="stable")
    ends = np.cumsum(np.bincount(bucket, minlength=n))
    rows = part.take(order)
    return tuple(rows.iloc[e - c : e] for c, e in zip(np.bincount(bucket, minlength=n), ends))


def _concat_rows(pieces: list, meta: pd.DataFrame) -> pd.DataFrame:
    pieces = [p for p in pieces if len(p)]
    if not pieces:
        return meta.iloc[:0]
    return pd.concat(pieces, ignore_index=True) if len(pieces) > 1 else pieces[0].reset_index(drop=True)


def shuffle_by(frame: Any, on: str, npartitions: int | None = None) -> Any:
    """``frame`` with every row of a value of ``on`` in one partition (its rows in their input order), as a Dask
    DataFrame of the same columns: a one-stage split of the input partitions (up to :data:`MAX_SPLIT_PARTITIONS`),
    else Dask's peer-to-peer shuffle."""
    dask, dd, _ = _need_dask()
    n_in = max(frame.npartitions, 1)
    n_out = int(npartitions or n_in)
    if n_in > MAX_SPLIT_PARTITIONS:
        return frame.shuffle(on=on, npartitions=n_out, shuffle_method="p2p")
    meta = frame._meta
    parts = frame.to_delayed()
    if n_out == 1:
        out = [dask.delayed(_concat_rows)(parts, meta)]
    else:
        splits = [dask.delayed(_split_rows, nout=n_out, pure=True)(p, on, n_out) for p in parts]
        out = [dask.delayed(_concat_rows, pure=True)([s[b] for s in splits], meta) for b in range(n_out)]
    return dd.from_delayed(out, meta=meta, verify_meta=False)
