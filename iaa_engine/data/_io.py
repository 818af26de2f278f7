"""Reading annotation files: CSV, TSV, JSON (records, columns or lines) and Parquet.

Text-faithful: a CSV or TSV cell is text exactly as written (no number, date or missing-value guessing); JSON and
Parquet values keep the file's own types. The columns reach :class:`~iaa_engine.Annotations` as Arrow arrays, so
ids and labels are dictionary-encoded as read (:mod:`iaa_engine.data._encode`) without whole-column Python objects.
A malformed file (rows with another number of fields than the header, duplicate or blank header names, a file with
no rows) is an error that names the line.
"""

from __future__ import annotations

import csv
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
from iaa_engine.data._model import Annotations, Level

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
    """The header's field names (quotes handled) and the number of physical lines it spans."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        try:
            names = next(reader)
        except StopIteration:
            raise _ParseError("the file is empty (no header line)") from None
        except UnicodeDecodeError:
            raise _ParseError(_NOT_UTF8) from None
        except csv.Error as exc:
            raise _ParseError(f"line 1: {exc}") from None
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
    except pa.ArrowInvalid as exc:
        if bad:
            line, fields = _first_bad_row(path, delimiter, len(names))
            where = f"line {line}" if line else "a row"
            got = fields if line else bad[0].actual_columns
            raise _ParseError(
                f"{where} has {got} field(s) but the header has {len(names)} "
                f"({', '.join(map(repr, names[:6]))}{', ...' if len(names) > 6 else ''}); "
                "every row needs one value per column (quote values that contain the delimiter)"
            ) from None
        message = str(exc).splitlines()[0]
        if "UTF8" in message or "utf8" in message.lower():
            message = _NOT_UTF8
        raise _ParseError(message) from None
    return names, [table.column(k) for k in keys]


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
    return names, [table.column(j) for j in range(table.num_columns)]


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
    annotators_as: Literal["rows", "columns"] = "rows",
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: Literal["error", "first", "last"] = "error",
    na_values: Sequence[str] = (),
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
        names the rows (a file with three columns or fewer and without them is
        refused as ambiguous). ``'wide'`` and ``'counts'`` take the first
        column as the row names.
    item, annotator, label : str, default 'item', 'annotator', 'label'
        Column names of a long table.
    annotators_as : {'rows', 'columns'}, default 'rows'
        For a wide matrix: whether rows or columns are annotators.
    level, categories, duplicates
        As in :meth:`Annotations.from_long`.
    na_values : sequence of str, default ()
        Label texts that mean "not labelled", in addition to blank cells (e.g.
        ``["NA"]`` for files written by R). By default ``NA``, ``None``,
        ``null`` and the like are labels; a :class:`NALikeLabelWarning` says
        when one occurs.

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
        data rows, text that is not UTF-8), a reader needs an optional package that is not installed, the layout
        cannot be told, or the content does not fit the layout (see :meth:`Annotations.from_long`,
        :meth:`Annotations.from_wide` and :meth:`Annotations.from_counts`).

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
    p = Path(path)
    names, columns = read_table(p)
    long_columns = [item, annotator, label]
    is_long = all(c in names for c in long_columns)
    if layout == "auto" and not is_long and len(names) <= 3:
        # Too narrow to be a useful wide matrix: almost surely a long table with other column names.
        absent = [c for c in long_columns if c not in names]
        raise ValueError(
            f"cannot tell the layout of {p.name!r}: its columns are {names!r}, without {absent!r}. "
            f"A long table needs columns {item!r}, {annotator!r}, {label!r} (name yours with "
            "--item-col/--annotator-col/--label-col); for a wide matrix pass --layout wide"
        )
    if layout == "long" or (layout == "auto" and is_long):
        if not is_long:
            absent = [c for c in long_columns if c not in names]
            raise ValueError(
                f"column(s) {absent!r} not found in {p.name!r}; it has columns {names!r}. Name the columns "
                "with item=, annotator=, label= (CLI: --item-col, --annotator-col, --label-col)"
            )
        col = dict(zip(names, columns))
        return Annotations._from_columns(
            col[item],
            col[annotator],
            col[label],
            level=level,
            categories=categories,
            duplicates=duplicates,
            na_values=na_values,
        )
    if len(names) < 2:
        raise ValueError(
            f"{p.name!r} has columns {names!r}: a long table needs columns "
            f"{item!r}, {annotator!r}, {label!r} (or name them with --item-col/--annotator-col/--label-col); "
            "a wide matrix needs a name column and one column per item or annotator"
        )
    frame = _frame(names, columns)
    frame = frame.set_index(frame.columns[0])
    frame.index.name = None
    if layout == "counts":
        return Annotations.from_counts(_count_frame(frame), level=level, categories=categories)
    return Annotations.from_wide(
        frame, annotators_as=annotators_as, level=level, categories=categories, na_values=na_values
    )
