"""Reading annotation files: CSV, TSV, JSON (records, columns or lines) and Parquet.

Text-faithful: a CSV or TSV cell is text exactly as written (no number, date or missing-value guessing); JSON and
Parquet values keep the file's own types. The columns reach :class:`~iaa_engine.Annotations` as Arrow arrays, so
ids and labels are dictionary-encoded as read (:mod:`iaa_engine.data._encode`) without whole-column Python objects.
A malformed file (rows with another number of fields than the header, duplicate or blank header names, a file with
no rows) is an error that names the line.
"""

from __future__ import annotations

import difflib
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
from iaa_engine.data._files import discard_codes, read_table
from iaa_engine.data._model import Annotations, Level
from iaa_engine.data._orient import column_role, guess_long_columns, wide_orientation

__all__ = ["read", "read_table"]


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
    try:
        names, columns = read_table(p)
        return _read_columns(
            file,
            names,
            columns,
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
        )
    finally:
        discard_codes()  # codes a read started early computed for columns this reading did not use


def _read_columns(
    file: str,
    names: list[str],
    columns: list[Any],
    *,
    layout: str,
    item: str,
    annotator: str,
    label: str,
    annotators_as: Literal["rows", "columns"] | None,
    level: str,
    categories: Sequence[Any] | None,
    duplicates: str,
    na_values: Sequence[str],
    keep: Sequence[str],
) -> tuple[Annotations, str]:
    """:func:`_read` on the columns read from the file (named ``file`` in messages)."""
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
