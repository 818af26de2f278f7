"""Reading files into columns: CSV and TSV (Arrow's reader, text exactly as written), JSON and Parquet, with the checks
that no row went missing; and a read started early (:func:`prefetch`).

Only numpy and pyarrow are imported here, never pandas or the rest of the core: the command line starts reading the
file (and Arrow's dictionary encoding of its id and label columns, :func:`arrow_codes`) in a thread while the main
thread imports the core, and a thread must not import modules the main thread is importing. The readers' errors are
``ValueError`` with the file named (:func:`read_table`).
"""

from __future__ import annotations

import csv
import json
import os
import threading
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["arrow_codes", "discard_codes", "prefetch", "read_table", "sort_order", "take_codes"]

_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".txt": "csv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}


class _ParseError(ValueError):
    pass


_NOT_UTF8 = "the file is not UTF-8 text (save it as UTF-8, in Excel: CSV UTF-8)"


# --------------------------------------------------------------------------- delimited text


def _header(path: Path, delimiter: str) -> tuple[list[str], int]:
    """The header's field names (quotes handled) and the number of physical lines up to its end (blank lines
    before it included: they are skipped)."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        try:
            names: list[str] = []
            while not names or (len(names) == 1 and not names[0].strip()):  # blank lines before the header
                names = next(reader)
        except StopIteration:
            raise _ParseError("the file is empty (no header line)") from None
        except UnicodeDecodeError:
            raise _ParseError(_NOT_UTF8) from None
        except csv.Error as exc:
            raise _ParseError(f"line {reader.line_num}: {exc}") from None
        return [n.strip() for n in names], reader.line_num


def _check_header(names: list[str]) -> None:
    seen: dict[str, int] = {}
    for j, name in enumerate(names):
        if name == "" and j > 0:
            raise _ParseError(
                f"line 1: column {j + 1} has no name; every column needs a header name "
                "(only a wide matrix's first column may be unnamed)"
            )
        if name in seen:
            raise _ParseError(
                f"line 1: the header names {name!r} twice (columns {seen[name] + 1} and {j + 1}); "
                "column names must be distinct"
            )
        seen[name] = j


def _first_bad_row(path: Path, delimiter: str, width: int) -> tuple[int, int]:
    """``(line, fields)`` of the first row whose field count differs from the header's (error path only)."""
    with open(path, newline="", encoding="utf-8-sig", errors="replace") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        next(reader, None)
        for row in reader:
            if row and len(row) != width:
                return reader.line_num, len(row)
    return 0, 0


def _read_delimited(path: Path, delimiter: str) -> tuple[list[str], list[Any]]:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names, header_lines = _header(path, delimiter)
    _check_header(names)
    keys = [str(j) for j in range(len(names))]
    bad: list[Any] = []

    def on_invalid(row: Any) -> str:
        bad.append(row)
        return "error"

    def attempt(newlines_in_values: bool) -> Any:
        return pcsv.read_csv(
            path,
            read_options=pcsv.ReadOptions(column_names=keys, skip_rows=header_lines),
            parse_options=pcsv.ParseOptions(
                delimiter=delimiter, newlines_in_values=newlines_in_values, invalid_row_handler=on_invalid
            ),
            convert_options=pcsv.ConvertOptions(
                column_types={k: pa.string() for k in keys},
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )

    try:
        try:
            table = attempt(False)
        except pa.ArrowInvalid:
            bad.clear()
            table = attempt(True)  # a quoted value may span lines
        # A quote that is never closed swallows rows (or, in a large file, Arrow drops them): every physical
        # line must be a header line, a row, or a line break inside a value.
        n_breaks = _check_multiline(path, delimiter, table, keys, header_lines) if _has_line_break(table) else 0
        if not _bytes_accounted_for(path, table, header_lines) and (
            _physical_lines(path) != header_lines + table.num_rows + n_breaks
        ):
            problem = _runaway_value(path, delimiter)  # blank lines, or a runaway quote: Python's reader says which
            if problem:
                raise _ParseError(problem)
    except pa.ArrowInvalid as exc:
        message = str(exc).splitlines()[0]
        if "straddl" in message:  # a row longer than Arrow's block: a runaway quote, or a giant value
            raise _ParseError(_runaway_value(path, delimiter) or _TOO_LONG) from None
        if bad:
            line, fields = _first_bad_row(path, delimiter, len(names))
            where = f"line {line}" if line else "a row"
            got = fields if line else bad[0].actual_columns
            raise _ParseError(
                f"{where} has {got} field(s) but the header has {len(names)} "
                f"({', '.join(map(repr, names[:6]))}{', ...' if len(names) > 6 else ''}); "
                "every row needs one value per column (quote values that contain the delimiter)"
            ) from None
        if "UTF8" in message or "utf8" in message.lower():
            message = _NOT_UTF8
        raise _ParseError(message) from None
    return names, [table.column(k) for k in keys]


#: A quoted value spanning more line breaks than this is a quote that was never closed where it should have been.
MAX_LINES_IN_VALUE = 100
#: Nor is a value this long (characters) an id or a label; Arrow reads a row in blocks of 1 MB.
MAX_VALUE_CHARS = 1_000_000
_TOO_LONG = (
    f"a row holds a value of more than {MAX_VALUE_CHARS:,} characters; an id or a label is never that long "
    "(a quote that is never closed swallows the rest of the file)"
)


def _unclosed(line: int) -> str:
    return (
        f"line {line}: a quoted value starts here and never closes, so it swallows the rows after it; "
        'close the quote (a quote inside a quoted value is written twice: "") or remove the stray one'
    )


def _runaway(line: int, breaks: int) -> str:
    return (
        f"line {line}: a quoted value runs over {breaks + 1} lines (more than {MAX_LINES_IN_VALUE + 1}), "
        "swallowing the rows after it; check the quotes on that line (a quote inside a quoted value is "
        'written twice: "")'
    )


def _has_line_break(table: Any) -> bool:
    """Whether any value holds a line break: a search of the columns' data buffers (memchr speed, 16 MB at a time,
    no per-row work). The buffers may hold bytes outside the table's rows; a hit only triggers the exact check."""
    step = 1 << 24
    for column in table.columns:
        for chunk in column.chunks:
            data = chunk.buffers()[-1]
            if data is None:
                continue
            for start in range(0, data.size, step):
                if data.slice(start, min(step, data.size - start)).to_pybytes().find(b"\n") >= 0:
                    return True
    return False


def _bytes_accounted_for(path: Path, table: Any, header_lines: int) -> bool:
    """Whether the file's bytes after the header are exactly the values read, one delimiter between them and one
    line break (LF or CRLF) after each row: then nothing is quoted and no row went missing, and no line needs
    counting. O(1) per column chunk (the sizes of Arrow's value buffers)."""
    import pyarrow as pa

    with open(path, "rb") as fh:
        for _ in range(header_lines):
            fh.readline()
        start = fh.tell()
        first = fh.readline()
        fh.seek(0, 2)
        size = fh.tell() - start
    value_bytes = 0
    for column in table.columns:
        for chunk in column.chunks:
            width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
            offsets = np.frombuffer(chunk.buffers()[1], dtype=width)
            value_bytes += int(offsets[chunk.offset + len(chunk)] - offsets[chunk.offset])
    n = table.num_rows
    extra = size - value_bytes - n * table.num_columns  # beyond the values, delimiters and one byte per line end
    if first.endswith(b"\r\n"):
        return extra in (n, n - 2)  # CRLF; the last line with or without its line break
    return extra in (0, -1)


def _physical_lines(path: Path) -> int:
    """The number of lines of the file (line breaks at its very end not counted as lines): a vectorised count,
    16 MB at a time (only when :func:`_bytes_accounted_for` cannot tell, e.g. quoted values)."""
    count, tail = 0, b""
    block = bytearray(1 << 24)
    view, codes = memoryview(block), np.frombuffer(block, dtype=np.uint8)
    with open(path, "rb", buffering=0) as fh:
        while size := fh.readinto(view):
            count += int(np.count_nonzero(codes[:size] == 10))
            tail = bytes(block[max(0, size - 64) : size])
    if not tail:
        return 0
    body = tail.rstrip(b"\r\n")
    return count - tail[len(body) :].count(b"\n") + (1 if body or count else 0)


def _check_multiline(path: Path, delimiter: str, table: Any, keys: list[str], header_lines: int) -> int:
    """After a read that let quoted values span lines: refuse a quote that never closes (it runs to the end of
    the file) or a value spanning more than :data:`MAX_LINES_IN_VALUE` line breaks, naming the line it starts
    on. Vectorised over the columns (this runs only on files whose values hold line breaks)."""
    import pyarrow.compute as pc

    n = table.num_rows
    if n == 0:
        return 0
    per_column = [
        pc.count_substring(table.column(k), "\n").to_numpy(zero_copy_only=False).astype(np.int64) for k in keys
    ]
    breaks = np.sum(per_column, axis=0)
    # the physical line each row starts on
    starts = header_lines + 1 + np.arange(n, dtype=np.int64) + np.concatenate(([0], np.cumsum(breaks)[:-1]))
    most = np.max(per_column, axis=0)
    over = np.flatnonzero(most > MAX_LINES_IN_VALUE)
    if over.size:
        row = int(over[0])
        raise _ParseError(_runaway(int(starts[row]), int(most[row])))
    if breaks[-1] and not _last_row_closes(path, delimiter, int(breaks[-1]) + 1):
        raise _ParseError(_unclosed(int(starts[-1])))
    return int(breaks.sum())


def _last_row_closes(path: Path, delimiter: str, lines: int) -> bool:
    """Whether the file's last row (its last ``lines`` physical lines) parses with every quote closed."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        end = fh.tell()
        block, tail = 1 << 16, b""
        while True:
            start = max(0, end - block)
            fh.seek(start)
            tail = fh.read(end - start)
            body = tail.rstrip(b"\r\n")
            if body.count(b"\n") >= lines or start == 0:
                break
            block *= 4
    body = tail.rstrip(b"\r\n")
    cut = len(body)
    for _ in range(lines):
        cut = body.rfind(b"\n", 0, cut)
        if cut < 0:
            break
    text = body[cut + 1 :].decode("utf-8", errors="replace")
    try:
        list(csv.reader(text.splitlines(keepends=True), delimiter=delimiter, strict=True))
    except csv.Error as exc:
        return "end of data" not in str(exc)
    return True


def _runaway_value(path: Path, delimiter: str) -> str | None:
    """Error path: the first value (Python's csv reader) that spans too many lines, is too long or never closes."""
    csv.field_size_limit(1 << 30)
    with open(path, newline="", encoding="utf-8-sig", errors="replace") as fh:
        reader = csv.reader(fh, delimiter=delimiter, strict=True)
        start = 1
        try:
            for row in reader:
                for value in row:
                    breaks = value.count("\n")
                    if breaks > MAX_LINES_IN_VALUE:
                        return _runaway(start, breaks)
                    if len(value) > MAX_VALUE_CHARS:
                        return f"line {start}: {_TOO_LONG}"
                start = reader.line_num + 1
        except csv.Error as exc:
            return _unclosed(start) if "end of data" in str(exc) else f"line {reader.line_num}: {exc}"
    return None


# --------------------------------------------------------------------------- JSON


def _json_records(path: Path, lines: bool) -> list[dict]:
    text = path.read_text(encoding="utf-8-sig")
    if not lines:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            try:  # JSON lines saved as .json
                return _json_records_from_lines(text)
            except _ParseError:
                raise _ParseError(f"line {exc.lineno}: {exc.msg}") from None
        if isinstance(doc, list):
            if not all(isinstance(r, dict) for r in doc):
                raise _ParseError(
                    "a JSON list must hold one object per row, e.g. "
                    '[{"item": "d1", "annotator": "a", "label": "pos"}, ...]'
                )
            return doc
        if isinstance(doc, dict) and doc and all(isinstance(v, (list, dict)) for v in doc.values()):
            columns = {k: (list(v.values()) if isinstance(v, dict) else v) for k, v in doc.items()}
            sizes = {len(v) for v in columns.values()}
            if len(sizes) != 1:
                raise _ParseError(f"the JSON columns have different lengths {sorted(sizes)}")
            n = sizes.pop()
            return [{k: v[i] for k, v in columns.items()} for i in range(n)]
        raise _ParseError(
            f"expected a list of row objects, an object of columns, or JSON lines; got a JSON {type(doc).__name__}"
        )
    return _json_records_from_lines(text)


def _json_records_from_lines(text: str) -> list[dict]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _ParseError(f"line {number}: {exc.msg}") from None
        if not isinstance(row, dict):
            raise _ParseError(f"line {number}: expected one JSON object per line; got a {type(row).__name__}")
        rows.append(row)
    return rows


def _json_column(values: list) -> Any:
    """One JSON column: text stays text (Arrow), numbers numbers; ids or labels mixing both become text."""
    import pyarrow as pa

    kinds = {type(v) for v in values if v is not None}
    if kinds <= {str}:
        return pa.array(values, type=pa.string())
    if kinds <= {int} and all(abs(v) < 2**63 for v in values if v is not None) and None not in values:
        return np.asarray(values, dtype=np.int64)
    if kinds <= {int, float}:
        return np.asarray([np.nan if v is None else v for v in values], dtype=float)
    if kinds <= {bool}:
        return np.asarray(values, dtype=object)
    if kinds <= {str, int, float} and not (kinds & {float} and kinds & {int} and len(kinds) == 2):
        return pa.array(
            [None if v is None else (v if isinstance(v, str) else json.dumps(v)) for v in values], type=pa.string()
        )
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _read_json(path: Path, lines: bool) -> tuple[list[str], list[Any]]:
    records = _json_records(path, lines)
    names: dict[str, None] = {}
    for r in records:
        for k in r:
            names.setdefault(str(k), None)
    columns = [_json_column([r.get(k) for r in records]) for k in names]
    return list(names), columns


# --------------------------------------------------------------------------- Parquet


def _read_parquet(path: Path) -> tuple[list[str], list[Any]]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    names = [str(n) for n in table.column_names]
    _check_header(names)
    return names, [_text_from_bytes(name, table.column(j)) for j, name in enumerate(names)]


def _text_from_bytes(name: str, column: Any) -> Any:
    """A Parquet ``binary`` column (text written without its string type) as UTF-8 text, checked once by Arrow."""
    import pyarrow as pa

    t = column.type
    if not (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)):
        return column
    try:
        return column.cast(pa.large_string() if pa.types.is_large_binary(t) else pa.string())
    except pa.ArrowInvalid:
        raise _ParseError(
            f"column {name!r} holds bytes that are not UTF-8 text; ids and labels must be text or numbers "
            "(write the column as a string column)"
        ) from None


# --------------------------------------------------------------------------- the public reader


def read_table(path: str | PathLike) -> tuple[list[str], list[Any]]:
    """The file's column names and columns as read (Arrow string arrays for delimited text); the result of a
    :func:`prefetch` of the same unchanged file when one was started."""
    early = _take_pending(path)
    if early is not None:
        return early
    return _read_table(path)


def _read_table(path: str | PathLike) -> tuple[list[str], list[Any]]:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file: {str(p)!r}")
    if p.is_dir():
        raise ValueError(f"{str(p)!r} is a directory; give a CSV, TSV, JSON or Parquet file")
    suffix = p.suffix.lower()
    kind = _SUFFIXES.get(suffix)
    if kind is None:
        raise ValueError(
            f"cannot read {p.name!r}: expected a file ending in "
            f"{', '.join(sorted(_SUFFIXES))}; got {suffix or 'no suffix'!r}"
        )
    try:
        if kind in ("csv", "tsv"):
            delimiter = "\t" if kind == "tsv" else ","
            names, columns = _read_delimited(p, delimiter)
        elif kind in ("json", "jsonl"):
            names, columns = _read_json(p, lines=kind == "jsonl")
        else:
            names, columns = _read_parquet(p)
    except ImportError as exc:
        raise ValueError(f"reading {p.name!r} needs an optional package: {exc}") from None
    except _ParseError as exc:
        raise ValueError(f"cannot parse {p.name!r} as {kind.upper()}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {p.name!r}: {exc}") from None
    except Exception as exc:  # the Arrow / Parquet readers' own parse errors
        raise ValueError(f"cannot parse {p.name!r} as {kind.upper()}: {str(exc).splitlines()[0]}") from None
    if not columns or len(columns[0]) == 0:
        raise ValueError(f"{p.name!r} has no data rows (columns: {names!r})")
    return names, columns


# --------------------------------------------------------------------------- Arrow's dictionary encoding


def arrow_codes(arr: Any) -> tuple[np.ndarray, Any]:
    """Dictionary codes of an Arrow string array (``-1`` for null) and its dictionary, whitespace trimmed and
    merged (``" a"`` and ``"a"`` are one entry). The Arrow half of :func:`iaa_engine.data._encode._encode`.

    The codes are Arrow's index type as read (int32 for most columns): they only index small per-value arrays, and
    each caller's final codes come out of an int64 look-up table, so no row-sized int64 copy is made here.
    """
    import pyarrow.compute as pc

    enc = arr.dictionary_encode()
    dictionary = enc.dictionary
    idx = enc.indices
    codes = idx.to_numpy(zero_copy_only=False) if idx.null_count == 0 else idx.fill_null(-1).to_numpy()
    trimmed = pc.utf8_trim_whitespace(dictionary)
    if len(dictionary) and not pc.all(pc.equal(trimmed, dictionary)).as_py():
        merged = trimmed.dictionary_encode()
        lookup = np.append(merged.indices.to_numpy(zero_copy_only=False).astype(np.int64), -1)
        codes = lookup[codes]
        trimmed = merged.dictionary
    return codes, trimmed


def sort_order(dictionary: Any) -> np.ndarray:
    """The positions of an Arrow dictionary's entries in sorted (UTF-8 byte) order, as int64."""
    import pyarrow.compute as pc

    return pc.sort_indices(dictionary).to_numpy(zero_copy_only=False).astype(np.int64)


#: Codes computed early, by column (the column object itself is kept beside them, so its id is not reused):
#: ``id(column) -> (column, codes, dictionary, has_null, order or None)``.
_CODES: dict[int, tuple[Any, np.ndarray, Any, bool, np.ndarray | None]] = {}


def take_codes(column: Any) -> tuple[np.ndarray, Any, bool, np.ndarray | None] | None:
    """``(codes, dictionary, has_null, order)`` of a column whose :func:`arrow_codes` a :func:`prefetch` computed
    (``order``: :func:`sort_order` of the dictionary, for id columns), or ``None``. Each is handed out once."""
    entry = _CODES.pop(id(column), None)
    if entry is None or entry[0] is not column:
        return None
    return entry[1:]


def discard_codes() -> None:
    """Forget the codes computed early that nobody took (a reading that did not use them)."""
    _CODES.clear()


def _encode_early(column: Any, ordered: bool) -> None:
    """:func:`arrow_codes` (and for an id column its :func:`sort_order`) of a text column read from a file, kept
    for :func:`take_codes`; other columns are left to the usual path."""
    import pyarrow as pa

    t = column.type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        return
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) and column.num_chunks != 1 else column
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.chunk(0)
    codes, dictionary = arrow_codes(arr)
    _CODES[id(column)] = (column, codes, dictionary, arr.null_count > 0, sort_order(dictionary) if ordered else None)


def _encode_all_early(columns: list[tuple[Any, bool]]) -> None:
    try:
        for column, ordered in columns:
            _encode_early(column, ordered)
    except Exception:  # noqa: BLE001 - an early encoding is an optimisation: the usual path encodes instead
        pass


# --------------------------------------------------------------------------- a read started early


class _Pending:
    """A :func:`read_table` running in a thread, then the encoding of the named columns; the file's identity (size,
    modification time, inode) is taken before, so that a file changed since is read again."""

    def __init__(self, path: Path, ids: Sequence[str], labels: Sequence[str]) -> None:
        self.path = path
        self.stamp = _stamp(path)
        self.result: tuple[list[str], list[Any]] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(ids, labels), name="iaa-read", daemon=True)

    def _run(self, ids: Sequence[str], labels: Sequence[str]) -> None:
        try:
            self.result = _read_table(self.path)
        except BaseException as exc:  # handed to the reader in the main thread, as the read would have raised it
            self.error = exc
            return
        names, columns = self.result
        found = dict(zip(names, columns))
        if not all(name in found for name in (*ids, *labels)):
            return  # not the long table the command line expects: the reading decides on its own
        # the first id column (the items: the largest dictionary, sorted) here, the others in a second thread
        rest = [(found[n], True) for n in ids[1:]] + [(found[n], False) for n in labels]
        side = threading.Thread(target=_encode_all_early, args=(rest,), daemon=True)
        side.start()
        try:
            for name in ids[:1]:
                _encode_early(found[name], True)
        except Exception:  # noqa: BLE001 - an early encoding is an optimisation: the usual path encodes instead
            pass
        finally:
            side.join()


_PENDING: list[_Pending] = []


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def prefetch(path: str | PathLike, *, ids: Sequence[str] = (), labels: Sequence[str] = ()) -> None:
    """Start reading a CSV, TSV or Parquet file in a thread, and dictionary-encoding its ``ids`` and ``labels``
    columns when the file has them all, while the caller imports the rest of the core: the next
    :func:`read_table` of the same unchanged file takes the result (or the error) instead of reading it again.

    Arrow reads and encodes without holding the GIL, so the two threads run side by side. Everything the thread
    needs is imported here first: the thread imports nothing itself.
    """
    p = Path(path)
    kind = _SUFFIXES.get(p.suffix.lower())
    if kind not in ("csv", "tsv", "parquet") or not p.is_file():
        return
    try:
        import pyarrow  # noqa: F401
        import pyarrow.compute  # noqa: F401

        if kind == "parquet":
            import pyarrow.parquet  # noqa: F401
        else:
            import pyarrow.csv  # noqa: F401
    except ImportError:
        return  # read_table says what is missing
    _PENDING.clear()
    discard_codes()
    pending = _Pending(p, list(ids), list(labels))
    _PENDING.append(pending)
    pending.thread.start()


def _take_pending(path: str | PathLike) -> tuple[list[str], list[Any]] | None:
    if not _PENDING:
        return None
    pending = _PENDING.pop()
    pending.thread.join()
    if pending.path != Path(path) or pending.stamp is None or pending.stamp != _stamp(Path(path)):
        discard_codes()
        return None
    if pending.error is not None:
        raise pending.error
    return pending.result
