"""Reading annotation files: CSV, TSV, JSON (records, columns or lines) and Parquet.

Text-faithful: a CSV or TSV cell is text exactly as written (no number, date or missing-value guessing); JSON and
Parquet values keep the file's own types. The columns reach :class:`~iaa_engine.Annotations` as Arrow arrays, so
ids and labels are dictionary-encoded as read (:mod:`iaa_engine.data._encode`) without whole-column Python objects.
A malformed file (rows with another number of fields than the header, duplicate or blank header names, a file with
no rows) is an error that names the line.
"""

from __future__ import annotations

import csv
import difflib
import json
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from iaa_engine.base._choices import LEVELS
from iaa_engine.base._params import PARAMS, Choice, validate
from iaa_engine.data._encode import arrow_text, parse_numbers
from iaa_engine.data._errors import InputError
from iaa_engine.data._model import Annotations, Level
from iaa_engine.data._orient import column_role, guess_long_columns, wide_orientation

__all__ = ["read", "read_table"]

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
    """The file's column names and columns as read (Arrow string arrays for delimited text)."""
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


def _frame(names: list[str], columns: list[Any]) -> pd.DataFrame:
    """A DataFrame of the columns (text as Python ``str`` objects): for the small wide and count layouts."""
    data = {}
    for name, col in zip(names, columns):
        text = arrow_text(col)
        if text is not None:
            data[name] = np.asarray(text.to_pylist(), dtype=object)
        elif hasattr(col, "to_pandas"):
            data[name] = col.to_pandas().to_numpy()
        else:
            data[name] = col
    return pd.DataFrame(data, columns=names)


def _count_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Count cells as numbers: blank cells are 0; anything else that is not a number is an error naming it."""
    out = {}
    for name in frame.columns:
        col = frame[name].to_numpy()
        if col.dtype == object:
            text = np.array(
                ["0" if (v is None or (isinstance(v, str) and not v.strip())) else str(v).strip() for v in col],
                dtype=object,
            )
            try:
                out[name] = parse_numbers(text, what=f"count column {name!r}")
            except ValueError as exc:
                raise ValueError(
                    f"{exc}; a count table holds the number of annotations per item and category"
                ) from None
        else:
            out[name] = col
    return pd.DataFrame(out, index=frame.index, columns=frame.columns)


@validate(path=PARAMS["path"], level=Choice(*LEVELS))
def read(
    path: str | PathLike,
    *,
    layout: Literal["auto", "long", "wide", "counts"] = "auto",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    annotators_as: Literal["rows", "columns"] | None = None,
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: Literal["error", "first", "last"] = "error",
    na_values: Sequence[str] = (),
    keep: Sequence[str] = (),
) -> Annotations:
    """Read annotations from a CSV, TSV, JSON (records, columns or lines) or Parquet file.

    The format follows the file's suffix: ``.csv`` and ``.txt`` (comma-separated), ``.tsv`` and ``.tab``,
    ``.json``, ``.jsonl`` and ``.ndjson``, ``.parquet`` and ``.pq``. Three layouts are read: a long table (one
    row per annotation: item, annotator, label), a wide matrix (one row per annotator and one column per item,
    or the transpose), and a count table (one row per item and one column per category).

    Parameters
    ----------
    path : str or path-like
        The file to read (UTF-8 text for CSV, TSV and JSON).
    layout : {'auto', 'long', 'wide', 'counts'}, default 'auto'
        ``'auto'`` reads a long table when the item, annotator and label
        columns are present, and otherwise a wide matrix whose first column
        names the rows. A table that is neither is refused with its columns and
        the keywords to name them: one with three columns or fewer, one whose
        column names are those of a long table (an ``annotator`` or ``worker``
        column beside others), or one whose first column repeats a name.
        ``'wide'`` and ``'counts'`` take the first column as the row names.
    item, annotator, label : str, default 'item', 'annotator', 'label'
        Column names of a long table. A name that is not a column is an error
        that lists the file's columns (and a near match, e.g. in another case).
    annotators_as : {'rows', 'columns'}, optional
        For a wide matrix: whether each row or each column holds one
        annotator's labels. By default the table says: a first column named
        like items (``doc_id``, ``item``, ``id``, ``task`` ...) means one item
        per row, one named like annotators (``annotator``, ``coder``,
        ``rater`` ...) one annotator per row; otherwise column or row names
        that all name annotators (or all items) tell; otherwise the shape:
        taller than wide is one item per row, wider than tall one annotator per
        row (the classroom layout). A square matrix whose names do not tell is
        an error asking for this keyword (the rule is
        ``iaa_engine.data._orient.wide_orientation``, shared with the command
        line and the Excel functions).
    level, categories, duplicates
        As in :meth:`Annotations.from_long`.
    na_values : sequence of str, default ()
        Label texts that mean "not labelled", in addition to blank cells (e.g.
        ``["NA"]`` for files written by R). By default ``NA``, ``None``,
        ``null`` and the like are labels; a :class:`NALikeLabelWarning` says
        when one occurs.
    keep : sequence of str, default ()
        Further columns of a long table to carry beside the annotations (a batch, a document type, an annotator
        group, a timestamp), as read, in :attr:`Annotations.extra`: for :func:`agreement_by`. Nothing extra is
        read or kept by default.

    Returns
    -------
    Annotations

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the path is a directory or has an unknown suffix, the file cannot be parsed (with the line where it
        can be named: rows with another number of fields than the header, duplicate or blank header names, no
        data rows, text that is not UTF-8, a quoted value that never closes or spans more than 100 lines), a
        reader needs an optional package that is not installed, a named (or kept) column is missing, ``keep``
        is given for a wide matrix or a count table, the layout or the
        orientation of a wide matrix cannot be told, or the content does not fit the layout (see
        :meth:`Annotations.from_long`, :meth:`Annotations.from_wide` and :meth:`Annotations.from_counts`).

    Warns
    -----
    NALikeLabelWarning
        A label reads like a missing-value marker (``NA``, ``null``, ...) but is counted as a category.

    Notes
    -----
    CSV and TSV cells are text exactly as written: ids ``01``, ``1`` and
    ``001`` are three items, labels ``01`` and ``1`` two categories at the
    nominal level. Labels are parsed as numbers only where the level needs
    numbers (interval, ratio; ordinal unless text categories give the order).
    Surrounding whitespace is not part of a value. JSON and Parquet values
    keep their own types.

    References
    ----------
    Wickham, H. (2014). Tidy data. Journal of Statistical Software 59(10), 1–23.

    Shafranovich, Y. (2005). Common Format and MIME Type for Comma-Separated Values (CSV) Files. RFC 4180, IETF.

    Bray, T. (Ed.) (2017). The JavaScript Object Notation (JSON) Data Interchange Format. RFC 8259, IETF.

    Apache Parquet documentation. File format. https://parquet.apache.org/docs/file-format/

    Examples
    --------
    The classroom exercise's matrix, one row per annotator:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv", layout="wide")
    >>> data.n_annotators, data.n_items, list(data.categories)
    (3, 15, ['1', '2', '3'])

    A long table, one row per annotation:

    >>> crowd = ie.read(files("iaa_engine") / "examples" / "crowd.csv")
    >>> crowd
    Annotations(n_annotations=926, n_items=300, n_annotators=40, n_categories=4, level='nominal')
    """
    return _read(
        path,
        layout=layout,
        item=item,
        annotator=annotator,
        label=label,
        annotators_as=annotators_as,
        level=level,
        categories=categories,
        duplicates=duplicates,
        na_values=na_values,
        keep=keep,
    )[0]


_DEFAULT_COLUMNS = ("item", "annotator", "label")
_KEYWORDS = ("item", "annotator", "label")
_FLAGS = ("--item-col", "--annotator-col", "--label-col")


def _near(name: str, names: list[str]) -> str:
    """A hint for a column name that is not there: the same name in another case, or a close spelling."""
    folded = [n for n in names if n.casefold() == name.casefold()]
    if folded:
        return f" (did you mean {folded[0]!r}? column names are case-sensitive)"
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _columns_not_found(file: str, given: tuple[str, str, str], names: list[str]) -> InputError:
    """Named columns that the file does not have: which, a near match, and the columns it has."""
    absent = [c for c in given if c not in names]
    hints = "".join(_near(c, names) for c in absent[:1])
    head = f"column(s) {absent!r} not found in {file}{hints}; it has columns {names!r}. "
    return InputError(
        head + "Name the columns with item=, annotator=, label=",
        cli=head + "Name the columns with --item-col, --annotator-col, --label-col",
    )


def _not_a_long_table(file: str, names: list[str], why: str) -> InputError:
    """A table without the default long columns that is no wide matrix either: its columns and the flags."""
    guess = guess_long_columns(names)
    picks = [guess.get(role, "NAME") for role in _KEYWORDS]
    head = (
        f"{file} has no columns 'item', 'annotator', 'label' and {why}; it has columns {names!r}. "
        "Say which columns hold the item, the annotator and the label"
    )
    return InputError(
        head + ": " + ", ".join(f"{k}={v!r}" for k, v in zip(_KEYWORDS, picks)) + " (or layout='wide' for a wide "
        "matrix with the row names in the first column)",
        cli=head + ": " + " ".join(f"{f} {v}" for f, v in zip(_FLAGS, picks)) + " (or --layout wide for a wide "
        "matrix with the row names in the first column)",
    )


def _looks_long(names: list[str]) -> bool:
    """Whether a table without the item/annotator/label columns is a long table with other names: a column after
    the first is named like the annotator (``annotator``, ``worker``, ...) while the others are not all so named,
    or is called ``item``, ``annotator`` or ``label`` in another case."""
    rest = names[1:]
    roles = [column_role(n) for n in rest]
    if "annotator" in roles and not all(r == "annotator" for r in roles):
        return True
    return any(n.casefold() in _DEFAULT_COLUMNS for n in rest)


def _read(
    path: str | PathLike,
    *,
    layout: str = "auto",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    annotators_as: Literal["rows", "columns"] | None = None,
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    na_values: Sequence[str] = (),
    keep: Sequence[str] = (),
) -> tuple[Annotations, str]:
    """:func:`read`, and the reading it chose in words (what the command line prints)."""
    p = Path(path)
    file = repr(p.name)
    names, columns = read_table(p)
    given = (item, annotator, label)
    is_long = all(c in names for c in given)
    absent = [c for c in keep if c not in names]
    if absent:
        head = f"column {absent[0]!r} not found in {file}{_near(str(absent[0]), names)}; it has columns {names!r}"
        raise InputError(head + " (keep= names columns of the file)", cli=head)
    if layout == "long" or (layout == "auto" and is_long):
        if not is_long:
            raise _columns_not_found(file, given, names)
        col = dict(zip(names, columns))
        data = Annotations._from_columns(
            col[item],
            col[annotator],
            col[label],
            level=level,
            categories=categories,
            duplicates=duplicates,
            na_values=na_values,
            extra={c: col[c] for c in keep} if keep else None,
        )
        return data, f"a long table (columns {item!r}, {annotator!r}, {label!r})"
    if keep:
        raise ValueError(
            f"{file} is not read as a long table (one row per annotation), so its further columns {list(keep)!r} "
            "cannot be kept per annotation; name the item, annotator and label columns"
        )
    if layout == "auto":
        if given != _DEFAULT_COLUMNS:  # the user named columns: a long table is meant
            raise _columns_not_found(file, given, names)
        if len(names) <= 3:
            raise _not_a_long_table(file, names, "is too narrow to be a wide matrix")
        if _looks_long(names):
            raise _not_a_long_table(file, names, "its column names are those of a long table")
    if len(names) < 2:
        raise _not_a_long_table(file, names, "a wide matrix needs a name column and one column per item or annotator")
    frame = _frame(names, columns)
    frame = frame.set_index(frame.columns[0])
    frame.index.name = None
    if layout == "counts":
        data = Annotations.from_counts(_count_frame(frame), level=level, categories=categories)
        return data, f"a count table ({len(frame)} items × {len(names) - 1} categories)"
    if layout == "auto" and frame.index.has_duplicates:
        twice = frame.index[frame.index.duplicated()][0]
        raise _not_a_long_table(file, names, f"is no wide matrix either (its first column repeats {twice!r})")
    if annotators_as is None:
        row_names = list(frame.index) if len(frame) <= 1000 else []
        annotators_as, why = wide_orientation(
            len(frame), len(names) - 1, corner=names[0], column_names=names[1:], row_names=row_names
        )
        if annotators_as is None:
            raise _cannot_orient(file, why)
    else:
        why = f"as --annotators-as {annotators_as} says"
    data = Annotations.from_wide(
        frame, annotators_as=annotators_as, level=level, categories=categories, na_values=na_values
    )
    other = "columns" if annotators_as == "rows" else "rows"
    per = "row" if annotators_as == "rows" else "column"
    return data, f"a wide matrix, one annotator per {per} ({why}; --annotators-as {other} reads it the other way)"


def _cannot_orient(what: str, why: str) -> InputError:
    head = f"cannot tell which way round {what} is: {why}. Say whether each row holds one annotator's labels"
    return InputError(
        head + " (annotators_as='rows') or each column does (annotators_as='columns')",
        cli=head + " (--annotators-as rows) or each column does (--annotators-as columns)",
    )
