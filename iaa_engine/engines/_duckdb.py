"""The same statistics out of core in DuckDB: Parquet and CSV files (globs, object storage) or an SQL query.

DuckDB reads the files where they are and runs the SQL of :mod:`iaa_engine.engines._sql` under a memory limit,
spilling to a temporary directory instead of failing; only the sums, whose size depends on the numbers of
annotators and categories, reach Python, and the metrics finish them with the in-memory code
(:meth:`Annotations.from_stats`).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from iaa_engine.base._params import AnyOf, Choice, Instance, NoneOr, Text, Whole, validate
from iaa_engine.data._io import _columns_not_found
from iaa_engine.data._model import LEVELS, Annotations
from iaa_engine.engines._sql import Engine, summarize_sql, text_literal

__all__ = ["read_duckdb"]

_PARQUET = (".parquet", ".pq")
_CSV = {".csv": ",", ".txt": ",", ".tsv": "\t", ".tab": "\t"}
_QUERY = re.compile(r"^\s*(select|with|from|values|table|\()\b", re.IGNORECASE)


def _need_duckdb():
    try:
        import duckdb
    except ImportError:
        raise ImportError(
            "the DuckDB engine needs the optional package duckdb: pip install 'iaa-engine[duckdb]'"
        ) from None
    return duckdb


def _is_query(source: Any) -> bool:
    """Text that starts like a query (SELECT, WITH, FROM, ...) and names no existing file."""
    return isinstance(source, str) and bool(_QUERY.match(source)) and not os.path.exists(source)


def _files(source: Any) -> list[str]:
    """The paths or globs of ``source`` (a directory means its Parquet files); local ones must match a file."""
    items = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    if not items:
        raise ValueError("source names no file: give a path, a glob, a list of them, or an SQL query")
    out = []
    for s in items:
        text = os.fspath(s)
        if "://" not in text:
            if os.path.isdir(text):
                text = os.path.join(text, "**", "*.parquet")
            if not glob.glob(text, recursive=True):
                what = "no file matches" if glob.has_magic(text) else "no such file:"
                raise FileNotFoundError(f"{what} {text!r}")
        out.append(text)
    return out


def _reader(files: list[str]) -> tuple[str, str, str]:
    """``(relation, order, kind)``: the DuckDB table function over the files, the SQL of their row order, and
    'parquet' or 'csv' (from the suffixes, which must agree)."""
    kinds = set()
    for f in files:
        suffix = os.path.splitext(f.rstrip("/"))[1].lower()
        if suffix in _PARQUET:
            kinds.add("parquet")
        elif suffix in _CSV:
            kinds.add(_CSV[suffix])
        else:
            raise ValueError(
                f"cannot read {f!r} with the DuckDB engine: expected Parquet (.parquet, .pq) or delimited text "
                f"(.csv, .txt, .tsv, .tab); got {suffix or 'no suffix'!r}"
            )
    if len(kinds) > 1:
        raise ValueError(f"the files {files!r} mix formats; give Parquet files or CSV files, not both")
    listed = "[" + ", ".join(text_literal(f) for f in files) + "]"
    kind = kinds.pop()
    if kind == "parquet":
        relation = (
            f"read_parquet({listed}, binary_as_string = true, union_by_name = true, filename = 'iaa_file', "
            "file_row_number = true)"
        )
        return relation, "iaa_file, file_row_number", "parquet"
    # text as written: every cell a string, no type, date or missing-value guessing; the delimiter given
    relation = (
        f"(SELECT * FROM read_csv({listed}, all_varchar = true, header = true, delim = {text_literal(kind)}, "
        "quote = '\"', escape = '\"', union_by_name = true) WITH ORDINALITY AS iaa_rows)"
    )
    return relation, "ordinality", "csv"


#: DuckDB's memory limit when none is given: what the whole run needs then is about half the in-memory engine's peak
#: at 10⁷ annotations (benchmarks/bench_engines.py); DuckDB spills the rest to its temporary directory.
DEFAULT_MEMORY_LIMIT = "500MB"


@validate(
    level=Choice(*LEVELS),
    memory_limit=NoneOr(AnyOf(Text(), Whole(1), what="a size such as '1GB' or a number of bytes")),
    temp_directory=NoneOr(Instance((str, os.PathLike), "a directory path")),
    threads=NoneOr(Whole(1, 1024)),
)
def read_duckdb(
    source: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    na_values: Sequence[str] = (),
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike | None = None,
    threads: int | None = None,
    progress: bool | None = None,
) -> Annotations:
    """Summarise annotations in Parquet or CSV files, or an SQL query over them, in DuckDB (out of core).

    DuckDB reads the long table (one row per annotation) where it lies and computes the sufficient statistics of
    every count-based coefficient with the SQL of :mod:`iaa_engine.engines._sql` (GROUP BY counts per item and
    category, per annotator and category, per pair of annotators' labels). It works under ``memory_limit`` and
    spills what does not fit to a temporary directory. Only the sums reach Python; the metrics finish them with
    the in-memory code, so the results equal :func:`iaa_engine.read` on the same rows (counts exactly,
    coefficients to the last bits).

    Parameters
    ----------
    source : str, path or sequence of them
        A Parquet or CSV/TSV file, a glob (``annotations/*.parquet``), a directory of Parquet files, a list of
        these, a URL DuckDB reads (``s3://bucket/x/*.parquet``, ``gs://...``, ``https://...``: DuckDB's
        ``httpfs`` extension, with credentials set up as DuckDB's documentation says), or an SQL query that
        DuckDB runs (``"SELECT doc AS item, ... FROM 'a.parquet' WHERE ..."``; it starts with SELECT, WITH or FROM).
        An item's rows may be spread over many files.
    item, annotator, label : str
        Column names.
    level, categories, duplicates, na_values
        As in :func:`iaa_engine.read`: CSV cells are text exactly as written (``007`` and ``7`` are two items),
        surrounding whitespace is not part of a value, blank cells are missing, ``None`` or ``NA`` written as
        text are labels unless named in ``na_values``. ``duplicates='first'``/``'last'`` keep one label in the
        files' order (file by file, in the order the glob lists them); a query has no such order and is refused.
    memory_limit : str, optional
        DuckDB's memory limit, e.g. ``"1GB"`` (default :data:`DEFAULT_MEMORY_LIMIT`, 500 MB: DuckDB spills what
        does not fit to ``temp_directory``; at 10⁷ annotations the whole run then peaks at about half the memory
        of the in-memory engine. Give more to spill less).
    temp_directory : str or path, optional
        Where DuckDB spills (default: a new directory under the system's temporary directory, removed after).
    threads : int, optional
        DuckDB's threads (default: one per core).
    progress : bool, optional
        Show a progress bar on stderr (default: when stderr is a terminal).

    Returns
    -------
    Annotations
        Statistics only, as from :meth:`Annotations.from_stats`: every count-based metric, multi-coder kappa,
        bias and the pairwise matrices run on it; per-item results (item agreement, gold labels, bootstrap,
        facets) do not.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts.
    FileNotFoundError
        A path does not exist or a glob matches no file.
    ValueError
        A file has another suffix than Parquet or CSV/TSV, cannot be read, or lacks a named column; the query
        fails; ``memory_limit`` is not a size; DuckDB runs out of memory within it; and the reading errors of
        :func:`iaa_engine.read` (every label missing, labels not fitting ``level`` or ``categories``, a blank
        item or annotator, an annotator labelling an item twice with ``duplicates='error'``).
    ImportError
        The optional package ``duckdb`` is not installed (``pip install 'iaa-engine[duckdb]'``).

    References
    ----------
    Raasveldt, M., & Mühleisen, H. (2019). DuckDB: an embeddable analytical database. Proceedings of the 2019
    International Conference on Management of Data (SIGMOD '19), 1981–1984.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t3", "t3"], "annotator": ["ann", "bob"] * 3,
    ...                    "label": ["pos", "pos", "neg", "pos", "neg", "neg"]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     df.iloc[:3].to_parquet(pathlib.Path(tmp) / "part-0.parquet")
    ...     df.iloc[3:].to_parquet(pathlib.Path(tmp) / "part-1.parquet")
    ...     data = ie.read_duckdb(tmp, memory_limit="256MB", progress=False)
    >>> data
    Annotations(n_annotations=6, n_items=3, n_annotators=2, n_categories=2, level='nominal')
    >>> round(ie.krippendorff_alpha(data), 4), round(ie.krippendorff_alpha(ie.Annotations.from_long(df)), 4)
    (0.4444, 0.4444)
    """
    duckdb = _need_duckdb()
    query = _is_query(source)
    if query:
        if duplicates != "error":
            raise ValueError(
                f"duplicates={duplicates!r} keeps a label by table order, which an SQL query does not define; "
                "resolve the duplicates in the query (e.g. QUALIFY ROW_NUMBER() OVER (PARTITION BY item, "
                "annotator ORDER BY ...) = 1) or read the files"
            )
        relation, order, where = f"({source})", None, "the query"
    else:
        files = _files(source)
        relation, order, _ = _reader(files)
        where = repr(files[0]) if len(files) == 1 else f"{len(files)} paths ({files[0]!r}, ...)"
    own_temp = temp_directory is None
    temp = tempfile.mkdtemp(prefix="iaa-duckdb-") if temp_directory is None else os.fspath(temp_directory)
    try:
        config: dict[str, Any] = {"temp_directory": temp}
        if threads is not None:
            config["threads"] = int(threads)
        try:
            con = duckdb.connect(":memory:", config=config)
        except duckdb.Error as exc:
            raise ValueError(f"DuckDB could not start: {_first_line(exc)}") from None
        try:
            if memory_limit is None:
                memory_limit = DEFAULT_MEMORY_LIMIT
            if memory_limit is not None:
                try:
                    con.execute(f"SET memory_limit = {text_literal(str(memory_limit))}")
                except duckdb.Error:
                    raise ValueError(
                        f"memory_limit must be a size such as '1GB' or '512MiB'; got {memory_limit!r}"
                    ) from None
            con.execute("SET enable_progress_bar = false")  # DuckDB's own bar prints to stdout: ours goes to stderr
            con.execute("SET preserve_insertion_order = false")  # less memory; the order is an explicit column
            names, types = _columns(con, relation, where, duckdb)
            given = (item, annotator, label)
            if any(c not in names for c in given):
                raise _columns_not_found(where, given, names)
            if not query and _reader(files)[2] == "parquet":
                _same_kinds(con, files, given, duckdb)
            text = types[item].upper() in ("VARCHAR", "STRING", "TEXT")
            bar = _Bar(progress, con)
            try:
                engine = _engine(con, relation, bar, duckdb, where, memory_limit)
                return summarize_sql(
                    engine,
                    source=relation,
                    item=item,
                    annotator=annotator,
                    label=label,
                    item_is_text=text,
                    level=level,
                    categories=categories,
                    duplicates=duplicates,
                    na_values=na_values,
                    order=order,
                    dialect="duckdb",
                    progress=bar.stage,
                )
            finally:
                bar.close()
        finally:
            con.close()
    finally:
        if own_temp:
            shutil.rmtree(temp, ignore_errors=True)


_KINDS = {
    "BYTE_ARRAY": "text",
    "FIXED_LEN_BYTE_ARRAY": "text",
    "INT32": "integer",
    "INT64": "integer",
    "FLOAT": "float",
    "DOUBLE": "float",
    "BOOLEAN": "boolean",
}


def _same_kinds(con: Any, files: list[str], columns: tuple[str, ...], duckdb: Any) -> None:
    """Refuse Parquet files that disagree on the kind of a column (ids numeric in one file, text in another):
    DuckDB's union would silently turn 7 into '7' beside '007'. One line naming the column and both files, as the
    Dask engine says it. Reads only the files' footers."""
    listed = "[" + ", ".join(text_literal(f) for f in files) + "]"
    wanted = ", ".join(text_literal(c) for c in columns)
    try:
        rows = con.execute(
            f"SELECT file_name, name, type FROM parquet_schema({listed}) WHERE name IN ({wanted})"
        ).fetchall()
    except duckdb.Error:
        return  # the read itself names the unreadable file
    first: dict[str, tuple[str, str]] = {}
    for file, name, kind in rows:
        if kind is None:
            continue
        seen = first.setdefault(name, (file, kind))
        now, then = _KINDS.get(kind, kind), _KINDS.get(seen[1], seen[1])
        if now != then:
            raise ValueError(
                f"the files of the dataset disagree on the type of column {name!r}: {now} in {file!r} but "
                f"{then} in {seen[0]!r}; write every file with the same schema (e.g. ids as text)"
            )


def _columns(con: Any, relation: str, where: str, duckdb: Any) -> tuple[list[str], dict[str, str]]:
    try:
        rows = con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
    except duckdb.Error as exc:
        raise ValueError(f"cannot read {where}: {_first_line(exc)}") from None
    names = [r[0] for r in rows if r[0] not in ("iaa_file", "file_row_number", "ordinality")]
    return names, {r[0]: str(r[1]) for r in rows}


def _engine(con: Any, relation: str, bar: _Bar, duckdb: Any, where: str, memory_limit: Any) -> Engine:
    def guard(run):
        def wrapped(sql: str, *args: Any) -> Any:
            try:
                return bar.run(lambda: run(sql, *args))
            except duckdb.OutOfMemoryException as exc:
                limit = f"memory_limit {memory_limit!r}" if memory_limit else "the machine's memory"
                raise ValueError(
                    f"DuckDB ran out of memory within {limit}: {_first_line(exc)}; give a larger memory_limit "
                    "(CLI --memory-limit) or a temporary directory with more free space"
                ) from None
            except duckdb.Error as exc:
                raise ValueError(f"cannot summarise {where} in DuckDB: {_first_line(exc)}") from None

        return wrapped

    def execute(sql: str) -> None:
        con.execute(sql)

    def fetch(sql: str) -> dict[str, Any]:
        rel = con.sql(sql)
        table = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()  # DuckDB 2 / 1.x
        return {name: table.column(name) for name in table.column_names}

    def upload(name: str, values: Any, codes: np.ndarray) -> None:
        import pyarrow as pa

        table = pa.table({"value": values, "code": pa.array(np.asarray(codes))})
        con.register(f"{name}_arrow", table)
        con.execute(f"CREATE OR REPLACE TEMPORARY TABLE {name} AS SELECT * FROM {name}_arrow")
        con.unregister(f"{name}_arrow")

    def locate(condition: str) -> str | None:
        cols = (
            "iaa_file, file_row_number"
            if "file_row_number" in relation
            else ("ordinality" if "ORDINALITY" in relation else None)
        )
        if cols is None:
            return None
        try:
            row = con.execute(
                f"SELECT {cols} FROM {relation} AS s WHERE {condition} ORDER BY {cols} LIMIT 1"
            ).fetchone()
        except duckdb.Error:
            return None
        if row is None:
            return None
        if len(row) == 2:
            return f"row {int(row[1]) + 1} of {os.path.basename(str(row[0]))!r}"
        return f"data row {int(row[0])}"

    def release() -> None:
        con.execute("DROP TABLE IF EXISTS iaa_annotations")
        con.close()  # DuckDB's buffers back before Python builds the tables

    return Engine(guard(execute), guard(fetch), guard(upload), locate, release)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class _Bar:
    """A progress bar on stderr fed by DuckDB's query progress (polled while a statement runs); nothing when off."""

    def __init__(self, show: bool | None, con: Any) -> None:
        from iaa_engine.base._progress import Progress

        self.con = con
        self.bar = Progress(100, "duckdb", show=show)
        if self.bar._bar is not None:
            # DuckDB tracks a query's progress only with its progress bar on; it must not print it (stdout)
            con.execute("SET enable_progress_bar = true")
            con.execute("SET enable_progress_bar_print = false")
            con.execute("SET progress_bar_time = 0")
            self.bar._bar.bar_format = "{desc}{percentage:3.0f}%|{bar}| {elapsed}"

    def stage(self, name: str) -> None:
        if self.bar._bar is not None:
            self.bar._bar.set_description(f"duckdb: {name}")

    def run(self, call: Any) -> Any:
        if self.bar._bar is None:
            return call()
        out: dict[str, Any] = {}

        def target() -> None:
            try:
                out["value"] = call()
            except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
                out["error"] = exc

        worker = threading.Thread(target=target, daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.2)
            try:
                done = float(self.con.query_progress())
            except Exception:  # noqa: BLE001 - no query running at this instant
                continue
            if done >= 0:
                self.bar._bar.n = round(done, 1)
                self.bar._bar.refresh()
        if "error" in out:
            raise out["error"]
        return out.get("value")

    def close(self) -> None:
        if self.bar._bar is not None:
            self.bar._bar.n = 100
            self.bar._bar.refresh()
        self.bar.close()
