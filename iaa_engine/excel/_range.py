"""Reading Excel ranges and option cells for the worksheet functions, and shaping their results.

Nothing here imports xlwings: a range arrives as the 2-D list (or scalar) that any runtime delivers when an
argument is read raw, and every failure is an :class:`ExcelError` carrying the Excel error value to show.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any

import numpy as np
import pandas as pd

import iaa_engine as ie

log = logging.getLogger("iaa_engine.excel")

ERRORS = (
    "#NULL!",
    "#DIV/0!",
    "#VALUE!",
    "#REF!",
    "#NAME?",
    "#NUM!",
    "#N/A",
    "#GETTING_DATA",
    "#SPILL!",
    "#CALC!",
    "#FIELD!",
    "#BLOCKED!",
    "#CONNECT!",
    "#BUSY!",
    "#UNKNOWN!",
    "#DATA!",
)
UNDEFINED = "#DIV/0!"
#: ``layout`` choices; the default "auto" is listed last so that the message names the explicit layouts first.
LAYOUTS = ("rows", "columns", "counts", "auto")
LAYOUTS_NO_COUNTS = ("rows", "columns", "auto")
HEADERS = ("none", "both", "annotators", "items")
#: The coefficients ``iaa_engine.estimate`` gives a standard error for (its ``metric`` choices).
ESTIMATE_METRICS = ie.ANALYTIC_METRICS
PAIR_METRICS = ("cohen_kappa", "scott_pi")
#: Every name ``iaa_engine.icc`` accepts for a form: Shrout & Fleiss's, McGraw & Wong's, psych's.
ICC_NAMES = ie.ICC_NAMES
_ICC_BY_KEY = {name.lower(): name for name in ICC_NAMES}  # typed case-blind and without spaces


class ExcelError(Exception):
    """Carries the Excel error value a function returns, with the reason (logged)."""

    def __init__(self, value: str, reason: str) -> None:
        super().__init__(reason)
        self.value = value


# ----------------------------------------------------------------------------- reading Excel values


# Classic xlwings (COM) hands error cells over as these integers when a range is read raw.
COM_ERRORS = {
    -2146826281: "#DIV/0!",
    -2146826246: "#N/A",
    -2146826259: "#NAME?",
    -2146826288: "#NULL!",
    -2146826252: "#NUM!",
    -2146826265: "#REF!",
    -2146826273: "#VALUE!",
}
OFFICEJS_ERRORS = {
    "Div0": "#DIV/0!",
    "NotAvailable": "#N/A",
    "Name": "#NAME?",
    "Null": "#NULL!",
    "Num": "#NUM!",
    "Ref": "#REF!",
    "Value": "#VALUE!",
    "Spill": "#SPILL!",
    "Calc": "#CALC!",
    "GettingData": "#GETTING_DATA",
    "Busy": "#BUSY!",
    "Connect": "#CONNECT!",
    "Blocked": "#BLOCKED!",
    "Field": "#FIELD!",
    "Unknown": "#UNKNOWN!",
}


def is_error(v: Any) -> bool:
    return isinstance(v, str) and v.strip().upper() in ERRORS


def passed_on(value: Any, name: str) -> None:
    """An option cell holding an error value: that error is the function's result."""
    if is_error(value):
        raise ExcelError(value.strip().upper(), f"{name} is the error value {value}")


def raw(v: Any) -> Any:
    """One raw cell as any runtime delivers it -> None (blank), an error string, or the value.

    Office.js (xlwings Server and Lite) sends blanks as null or "", errors as {"type": "Error", ...} objects, and
    Pyodide may wrap null as ``JsNull``; classic xlwings sends errors as COM error integers. The data range is read
    raw because xlwings's per-cell cleaning costs seconds on a 50,000-cell range outside Pyodide.
    """
    if v is None:
        return None
    if isinstance(v, dict):
        if v.get("type") == "Error":
            return v.get("basicValue") or OFFICEJS_ERRORS.get(v.get("errorType", ""), "#VALUE!")
        return v.get("basicValue")
    if type(v) is int and v in COM_ERRORS:
        return COM_ERRORS[v]
    if type(v).__name__ == "JsNull":
        return None
    return v


def cell(v: Any) -> Any:
    """One cell of data: None for blank, a number for numeric text, integral floats as int."""
    if v is None:
        return None
    if isinstance(v, str):
        s = v.strip()
        if s == "":
            return None
        try:
            f = float(s)
        except ValueError:
            return s
        if not math.isfinite(f):
            return s
        v = f
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float, np.integer, np.floating)):
        f = float(v)
        if math.isnan(f):
            return None
        return int(f) if f.is_integer() else f
    return v


def name(v: Any, fallback: Any) -> Any:
    """A name (annotator, item, category): a number stays a number, and numeric text too unless it is spelled
    differently from the number (``"007"``, ``"1.50"``: an id with leading zeros keeps them)."""
    c = cell(v)
    if c is None:
        return fallback
    if isinstance(v, str) and not isinstance(c, str) and str(c) != v.strip():
        return v.strip()
    return c


# A number written with a leading zero ("01", "007", "-05"): a code, kept as text (not "0", "0.5", "0e1").
_LEADING_ZERO = re.compile(r"[+-]?0\d")


def _is_number(c: Any) -> bool:
    return isinstance(c, (int, float)) and not isinstance(c, bool)


def labels(body: list[list[Any]]) -> list[list[Any]]:
    """The label cells of a rating range -> labels: numbers, or the texts as written.

    * Every filled cell a number, or text that spells a number plainly (``'2``, ``2.0``, `` 1 ``): numbers, so a
      number typed as text is that number and the numeric cells 1 and 1.0 are one label.
    * Every filled cell text, at least one of them not a plain number (``yes``, or a number written with a leading
      zero, ``01``): the texts as written (trimmed), as the core reads a text column: ``01`` and ``1`` are two
      categories at the nominal level, and the levels that need numbers parse them (``01`` is 1 there).
    * Numeric cells beside text that is not a plain number: #VALUE! (which of the two is the mistake is the user's
      call).
    """
    if not any(type(v) is str for r in body for v in r):  # no text cell (the common case): numbers as they are
        return [[cell(v) for v in r] for r in body]
    read = {t: cell(t) for t in {v for r in body for v in r if isinstance(v, str)}}  # each distinct text, once
    code = {t for t, c in read.items() if c is not None and (not _is_number(c) or _LEADING_ZERO.match(t.strip()))}
    if not code:  # text that spells numbers plainly: those numbers
        return [[read[v] if isinstance(v, str) else cell(v) for v in r] for r in body]
    number = next((c for r in body for v in r if not isinstance(v, str) and (c := cell(v)) is not None), None)
    if number is not None:
        text = next(v for r in body for v in r if isinstance(v, str) and v in code)  # the first, in range order
        why = ": a number written with a leading zero is a code, kept as text" if _is_number(read[text]) else ""
        raise ExcelError(
            "#VALUE!",
            f"the range mixes numbers ({number!r}) with text labels ({text.strip()!r}{why}); make them all numbers, "
            "or all text",
        )
    return [[v.strip() if isinstance(v, str) and read[v] is not None else None for v in r] for r in body]


def spell(c: Any) -> Any:
    """A label as text, for data whose labels are text: numbers as Excel shows them in General format without
    grouping (1.0 -> "1", 2.5 -> "2.5"), text as it is."""
    if isinstance(c, float):
        return repr(c)
    return str(c) if _is_number(c) else c


def blank(v: Any) -> bool:
    """Whether a raw cell is blank in every runtime's encoding (null, "", whitespace, ``JsNull``, an empty entity)."""
    return v is None or cell(raw(v)) is None


def _blank_row(row: Any) -> bool:
    if isinstance(row, (list, tuple)) and row.count(None) + row.count("") == len(row):  # the common case, C speed
        return True
    return all(blank(v) for v in row)


def _filled_width(row: Any) -> int:
    """1 + the position of the row's last filled cell (0 for a blank row)."""
    for j in range(len(row) - 1, -1, -1):
        if not blank(row[j]):
            return j + 1
    return 0


def grid(data: Any) -> list[list[Any]]:
    """The used part of the range as a rectangular 2-D list; an error cell anywhere is passed on.

    Trailing rows and columns that are entirely blank are dropped before anything else is read, so that a
    whole-column reference (``A:C``, a million rows of which a thousand are filled) costs what its filled part
    costs. Leading blank rows and columns are kept: items and annotators are named by their positions in the range,
    and a spilled per-item result stays aligned with the range's rows or columns.
    """
    if data is None:
        raise ExcelError(UNDEFINED, "the range is empty")
    if not isinstance(data, (list, tuple)):
        data = [[data]]
    elif data and not isinstance(data[0], (list, tuple)):
        data = [list(data)]
    end = len(data)
    while end and _blank_row(data[end - 1]):
        end -= 1
    width = max((_filled_width(r) for r in data[:end]), default=0)
    if end == 0 or width == 0:
        raise ExcelError(UNDEFINED, "the range is empty")
    rows = [[raw(v) for v in r[:width]] for r in data[:end]]
    for r in rows:
        for v in r:
            if is_error(v):
                raise ExcelError(v.strip().upper(), f"the range holds the error value {v}")
        r.extend([None] * (width - len(r)))
    return rows


def option(value: Any, name: str, allowed: tuple[str, ...], default: str) -> Any:
    """A choice among ``allowed`` (case-blind; blank: the default), typed as the core's literal it is."""
    if value is None:
        return default
    passed_on(value, name)
    if not isinstance(value, str):
        raise ExcelError("#VALUE!", f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    v = value.strip().lower()
    if v == "":
        return default
    if v not in allowed:
        raise ExcelError("#VALUE!", f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return v


def icc_form(value: Any, name: str, default: str | None) -> str:
    """An ICC form by any of its names, case-blind and with or without spaces -> the name ``ie.icc`` takes."""
    if value is None and default is not None:
        return default
    passed_on(value, name)
    key = "".join(value.split()).lower() if isinstance(value, str) else None
    if key == "" and default is not None:
        return default
    if key not in _ICC_BY_KEY:
        raise ExcelError("#VALUE!", f"{name} must be one of {', '.join(ICC_NAMES)}; got {value!r}")
    return _ICC_BY_KEY[key]


def metric_option(value: Any) -> tuple[str, bool]:
    """IAA_ESTIMATE's coefficient -> (the name the core takes, whether it is an ICC form)."""
    if isinstance(value, str) and "".join(value.split()).lower().startswith("icc"):
        return icc_form(value, "metric", None), True
    if isinstance(value, str) and not is_error(value) and value.strip().lower() not in ("", *ESTIMATE_METRICS):
        raise ExcelError(
            "#VALUE!",
            f"metric must be one of {', '.join(ESTIMATE_METRICS)} or an ICC form such as ICC(2,1); got {value!r}",
        )
    return option(value, "metric", ESTIMATE_METRICS, "fleiss_kappa"), False


def confidence_option(value: Any) -> float:
    passed_on(value, "confidence")
    c = cell(value)
    if c is None:
        return 0.95
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c < 1:
        raise ExcelError("#VALUE!", f"confidence must be a number between 0 and 1 (0.95 or 95%); got {value!r}")
    return float(c)


def headers(value: Any) -> str:
    if value is None or value is False:
        return "none"
    if value is True:
        return "both"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "both" if value else "none"
    opt = {"true": "both", "false": "none"}.get(str(value).strip().lower(), value)
    return option(opt, "headers", HEADERS, "none")


def whole(value: Any, name: str, low: int = 1) -> int | None:
    """A whole number option (blank: None)."""
    passed_on(value, name)
    c = cell(value)
    if c is None:
        return None
    if isinstance(c, bool) or not isinstance(c, int) or c < low:
        raise ExcelError("#VALUE!", f"{name} must be a whole number of at least {low}; got {value!r}")
    return c


def fraction(value: Any, name: str, default: float, *, low_open: bool = False) -> float:
    """A number option in [0, 1] (or (0, 1]); blank: the default."""
    passed_on(value, name)
    c = cell(value)
    if c is None:
        return default
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not (0 < c <= 1 if low_open else 0 <= c <= 1):
        span = "above 0 and at most 1" if low_open else "between 0 and 1"
        raise ExcelError("#VALUE!", f"{name} must be a number {span}; got {value!r}")
    return float(c)


def separator(value: Any) -> str:
    """The text that joins several values in one cell (default ``"|"``)."""
    passed_on(value, "sep")
    return "|" if value is None else str(value)


# ----------------------------------------------------------------------------- a range -> Annotations


# What each header option strips in each layout: (first row, first column).
_STRIP = {
    "rows": {"none": (False, False), "both": (True, True), "annotators": (False, True), "items": (True, False)},
    "columns": {"none": (False, False), "both": (True, True), "annotators": (True, False), "items": (False, True)},
    "counts": {"none": (False, False), "both": (True, True), "annotators": (True, False), "items": (False, True)},
}


def _body(grid: list[list[Any]], lay: str, hdr: str) -> list[list[Any]]:
    top, left = _STRIP[lay][hdr]
    return [r[1 if left else 0 :] for r in grid[1 if top else 0 :]]


def _count_total(body: list[list[Any]]) -> int | None:
    """N when the body looks like a count table, else None.

    A count table: every filled cell a non-negative whole number, at least one 0, every row summing to the same
    N >= 2 (blank cells count 0).
    """
    total, zero = None, False
    for r in body:
        s = 0
        for v in r:
            c = cell(v)
            if c is None:
                continue
            if isinstance(c, bool) or not isinstance(c, int) or c < 0:
                return None
            zero = zero or c == 0
            s += c
        if total is None:
            total = s
        elif s != total:
            return None
    return total if zero and total is not None and total >= 2 else None


def _auto_layout(grid: list[list[Any]], hdr: str, *, allow_counts: bool) -> str:
    """layout="auto": "rows" or "columns" from the shape of the (trimmed) range after its headers, or #VALUE!.

    More rows than columns: one item per row ("columns"); more columns than rows: one annotator per row ("rows").
    With a one-sided header option ("annotators" or "items") the header line taken off depends on the layout, so
    the layout whose body has the shape it implies is taken (at most one has). A square body, or a range whose body
    looks like a count table (see :func:`_count_total`), is refused with the reason rather than guessed.
    """
    total = _count_total(_body(grid, "counts", hdr))
    if total is not None:
        if allow_counts:
            raise ExcelError(
                "#VALUE!",
                f'this looks like a count table (every row sums to {total}): pass layout "counts", '
                'or "rows"/"columns" if these are labels',
            )
        raise ExcelError(
            "#VALUE!",
            f"this looks like a count table (every row sums to {total}), which this function cannot read (it needs "
            'who gave which label): pass layout "rows" or "columns" if these are labels',
        )
    fits, cells = [], []
    for lay in ("rows", "columns"):
        body = _body(grid, lay, hdr)
        n_rows, n_cols = len(body), len(body[0]) if body else 0
        cells.append(n_rows * n_cols)
        if n_rows and n_cols and ((n_cols > n_rows) if lay == "rows" else (n_rows > n_cols)):
            fits.append(lay)
    if not fits and max(cells) <= 1:  # one cell, or only headers: no reading differs from the other
        return "rows"
    if len(fits) != 1:
        what = "the range is square" + (" without its header line" if hdr in ("annotators", "items") else "")
        raise ExcelError(
            "#VALUE!", f'{what}: say layout "rows" (annotators in rows) or "columns" (annotators in columns)'
        )
    return fits[0]


def read(
    data: Any, layout: Any = None, header: Any = None, *, allow_counts: bool = True, level: str = "nominal"
) -> tuple[ie.Annotations, list[Any], str]:
    """Range -> (Annotations, every item name in range order, the layout read). Blank item lines stay in the item
    list, except trailing ones (trimmed by :func:`grid`). ``"auto"`` comes back as the layout it chose."""
    lay = option(layout, "layout", LAYOUTS if allow_counts else LAYOUTS_NO_COUNTS, "auto")
    hdr = headers(header)
    rows = grid(data)
    if lay == "auto":
        lay = _auto_layout(rows, hdr, allow_counts=allow_counts)
    if lay == "columns":  # transpose: from here on annotators (or items, for counts) are rows
        rows = [list(col) for col in zip(*rows)]
    if lay == "counts":
        # counts: rows are items, columns categories; "annotators" headers mean nothing here
        col_names = hdr in ("both", "annotators")  # first row: categories
        row_names = hdr in ("both", "items")  # first column: items
    else:
        row_names = hdr in ("both", "annotators")  # first entry of each annotator line: its name
        col_names = hdr in ("both", "items")  # first line: item names
    body = rows[1:] if col_names else rows
    top = rows[0][1 if row_names else 0 :] if col_names else None
    left = [r[0] for r in body] if row_names else None
    body = [r[1:] for r in body] if row_names else body
    if not body or not body[0]:
        raise ExcelError(UNDEFINED, "the range holds only headers")
    n_rows, n_cols = len(body), len(body[0])
    if lay == "counts":
        items = [name(v, str(i + 1)) for i, v in enumerate(left)] if left else list(range(1, n_rows + 1))
        cats = [name(v, str(j + 1)) for j, v in enumerate(top)] if top else list(range(1, n_cols + 1))
        counts = [[0 if cell(v) is None else cell(v) for v in r] for r in body]
        for r in counts:
            for v in r:
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise ExcelError("#VALUE!", f"a count table holds numbers; got {v!r}")
        frame = pd.DataFrame(counts, index=pd.Index(items), columns=pd.Index(cats))
        return ie.Annotations.from_counts(frame, level=level), items, lay
    anns = [name(v, str(i + 1)) for i, v in enumerate(left)] if left else list(range(1, n_rows + 1))
    items = [name(v, str(j + 1)) for j, v in enumerate(top)] if top else list(range(1, n_cols + 1))
    values = labels(body)
    if all(v is None for r in values for v in r):
        raise ExcelError(UNDEFINED, "the range holds no annotations")
    frame = pd.DataFrame(values, index=pd.Index(anns), columns=pd.Index(items), dtype=object)
    return ie.Annotations.from_wide(frame, annotators_as="rows", level=level), items, lay


def scalar(value: Any) -> Any:
    return UNDEFINED if value is None or not np.isfinite(value) else float(value)


def out(v: Any) -> Any:
    """One value of a spilled table: numbers as float/int, undefined as ``#DIV/0!``, names as they are."""
    if v is None:
        return UNDEFINED
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return scalar(float(v))
    return v if isinstance(v, str) else str(v)


def along_items(values: list[Any], lay: str) -> list[list[Any]]:
    """Spill one value per item along the item axis of the layout read (``"auto"`` resolved by :func:`read`):
    a row when annotators are in rows (the classroom layout), else a column (one item per row)."""
    return [values] if lay == "rows" else [[v] for v in values]


def pick(data: ie.Annotations, who: Any, what: str) -> Any:
    """An annotator given by name or by 1-based position -> its name in the data."""
    names = [] if data.annotators is None else list(data.annotators)  # a count table has none
    passed_on(who, what)
    key = cell(who)
    for k in (name(who, None), key):  # a text name such as "007" as spelled, then as a number
        if k in names:
            return k
    if isinstance(key, str) and key in map(str, names):
        return names[list(map(str, names)).index(key)]
    if isinstance(key, int) and not isinstance(key, bool) and 1 <= key <= len(names):
        return names[key - 1]
    raise ExcelError("#N/A", f"{what} {who!r} is not an annotator name or a position 1..{len(names)}")


def pick_pair(d: ie.Annotations, a: Any, b: Any) -> tuple[Any, Any]:
    """The two annotators to compare: both named (or by position), or neither when the data has exactly two."""
    if (a is None) != (b is None):
        raise ExcelError("#VALUE!", "give both annotator_a and annotator_b, or neither")
    if a is None:
        if d.n_annotators != 2:
            raise ExcelError("#VALUE!", f"the range has {d.n_annotators} annotators; name the two to compare")
        first, second = [] if d.annotators is None else list(d.annotators)
        return first, second
    return pick(d, a, "annotator_a"), pick(d, b, "annotator_b")


def known_labels(value: Any, items: list[Any], data: ie.Annotations, what: str = "known") -> dict[Any, Any]:
    """Known labels from a range -> {item name: label}.

    One line (a row or a column): one cell per item of the data range, in its order, blank = not known. Two
    columns: item names (as the data's headers name them, or positions without headers) and labels; a first row
    reading ``item``/``label`` is a header. Labels are read as the data's are: numbers (``'2`` is the number 2),
    or text as written when the data's labels are text (a number cell then reads as it shows, 1.0 as ``1``).
    """
    if isinstance(value, str):
        passed_on(value, what)
    try:
        rows = grid(value)
    except ExcelError as e:
        if e.value == UNDEFINED:
            raise ExcelError("#VALUE!", f"{what} holds no labels") from None
        raise
    text = not pd.api.types.is_numeric_dtype(data.categories.dtype)

    def label(v: Any) -> Any:
        c = cell(v)
        if c is None or not text:
            return c
        return v.strip() if isinstance(v, str) else spell(c)

    n_rows, n_cols = len(rows), len(rows[0])
    found: dict[Any, Any] = {}
    if n_rows == 1 or n_cols == 1:
        line = rows[0] if n_rows == 1 else [r[0] for r in rows]
        if len(line) > len(items):
            raise ExcelError(
                "#VALUE!",
                f"{what} has {len(line)} cells in a line but the range has {len(items)} items: give one cell per "
                "item, aligned with the items (without their header), or a two-column table of item and label",
            )
        for it, v in zip(items, line):
            lab = label(v)
            if lab is not None:
                found[it] = lab
    elif n_cols == 2:
        first = [str(cell(v)).lower() if cell(v) is not None else "" for v in rows[0]]
        for r in rows[1:] if first == ["item", "label"] else rows:
            it, lab = name(r[0], None), label(r[1])
            if lab is None:
                continue
            if it is None:
                raise ExcelError("#VALUE!", f"{what}: the label {lab!r} has no item name beside it")
            if it in found:
                raise ExcelError("#VALUE!", f"{what} gives item {it!r} more than once")
            found[it] = lab
    else:
        raise ExcelError(
            "#VALUE!",
            f"{what} is {n_rows} x {n_cols}: give one line of labels aligned with the items, or two columns "
            "(item, label)",
        )
    if not found:
        raise ExcelError("#VALUE!", f"{what} holds no labels")
    return found


def known_found(acc: Any, labels: dict[Any, Any], what: str = "known") -> None:
    """#N/A when none of the known items is an item of the data (``acc``: the core's ``gold_accuracy`` on them,
    which matches items by value, then by text)."""
    if acc.n_known == 0:
        raise ExcelError(
            "#N/A",
            f"none of the {len(labels)} items of {what} is an item of the range with annotations "
            f"(e.g. {next(iter(labels))!r}); name items as the range's header does, or by position without headers",
        )
    if acc.n_unmatched:
        log.info("%s: %d known item(s) are not items of the range and are ignored", what, acc.n_unmatched)
