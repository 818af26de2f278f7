"""Excel worksheet functions for iaa-engine (xlwings): =SPA(range), =FLEISS(range), =COHEN(range, 1, 2), ...

One module serves classic xlwings on Windows (``UDF_MODULES`` + "Import Functions"), xlwings Lite and
xlwings Server. It is a thin surface: it turns an Excel range into :class:`iaa_engine.Annotations`, calls the
core, and shapes the result for a cell or a spilled range. It computes no statistics itself.

It imports only ``xlwings``'s decorators (``xw.func``, ``xw.arg``), the BSD-licensed part of xlwings.

Conventions shared by every function (see ``excel_addin/README.md``):

* ``data``: a rating range. ``layout`` says how to read it: ``"auto"`` (default) decides from the shape of the
  filled range (after its headers): more rows than columns is one item per row (as ``"columns"``), more columns
  than rows is one annotator per row (as ``"rows"``, the classroom layout); a square range, or one that looks like
  a count table, is ``#VALUE!`` with the reason instead of a guess. ``"rows"`` (one row per annotator, one column
  per item), ``"columns"`` (one column per annotator) or ``"counts"`` (an items × categories table of how many
  annotators chose each category) say it explicitly and are never second-guessed.
* The range is trimmed to its used part first: trailing rows and columns that are entirely blank are dropped (a
  whole-column reference such as ``A:C`` costs what its filled rows cost); leading blank lines stay, so items and
  annotators keep their positions.
* ``headers``: FALSE (default) -- every cell is data; TRUE -- the range includes its headers: the first row
  and the first column hold names (annotators and items; for ``"counts"``: categories and items);
  ``"annotators"`` -- only the annotator names (first column for ``rows``, first row for ``columns``);
  ``"items"`` -- only the item names. With ``"auto"`` and one header line, the orientation is the one whose body
  (the range without that line) has the shape that orientation stands for.
* ``weights`` (the weighted coefficients): a family of agreement weights between categories, by name
  (:data:`iaa_engine.AGREEMENT_WEIGHTS`); numeric labels use their values, text labels their alphabetical positions.
* Blank cells are missing annotations. A cell holding a number typed as text (``'1``) is read as that number.
  The data range is read raw and each runtime's cell encoding is handled here (see ``_raw``).
* Results: a number, or a spilled range. An undefined coefficient (expected agreement 1, no item with two
  annotations, an empty range) is ``#DIV/0!``. Input that cannot be read, an unknown option name, or a range
  whose orientation ``"auto"`` cannot tell (square, or a count table) is ``#VALUE!``; an annotator that is not
  in the data is ``#N/A``; an error cell in the data is passed on.
  The reason is logged (the xlwings Lite output pane or the xlwings log shows it), never a traceback in a cell.
"""

from __future__ import annotations

import functools
import logging
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import xlwings as xw

import iaa_engine as ie

__all__ = [
    "ANNOTATORS",
    "ANNOTATOR_BIAS",
    "BCR_WEIGHTS",
    "COHEN",
    "COHEN_WEIGHTED",
    "CONFUSED_PAIRS",
    "DISAGREEMENTS",
    "FLEISS",
    "FLEISS_WEIGHTED",
    "GOLD",
    "GOLD_ACCURACY",
    "GWET_AC1",
    "GWET_WEIGHTED",
    "IAA_BENCHMARK",
    "IAA_ESTIMATE",
    "IAA_REPORT",
    "INTRACLASS",
    "ITEM_AGREEMENT",
    "KALPHA",
    "KAPPA_MATRIX",
    "MULTIKAPPA",
    "PERCENT_AGREEMENT",
    "SCOTTPI",
    "SPA",
]

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

# ----------------------------------------------------------------------------- help texts (function wizard)

DOC_DATA = (
    "Rating range (blank = missing): one item per row or one annotator per row, told apart by the shape; "
    "trailing blank rows and columns are ignored. See layout and headers."
)
_DOC_AUTO = (
    '"auto" (default): more rows than columns = one item per row, more columns than rows = one annotator per row; '
    "a square range or a count table needs an explicit layout."
)
DOC_LAYOUT = (
    _DOC_AUTO + ' "rows": annotators in rows, "columns": annotators in columns, "counts": items x categories counts.'
)
DOC_LAYOUT_NO_COUNTS = _DOC_AUTO + ' "rows": annotators in rows, "columns": annotators in columns.'
DOC_HEADERS = (
    "FALSE (default): no headers. TRUE: first row and first column hold names. "
    '"annotators" or "items": only that one header line.'
)
DOC_ANN = "Annotator: its name (with headers) or its position, 1 = first. Optional when there are two."
DOC_SCHEME = 'SPA weighting: "annotations_m1" (default), "flat", "annotations", "edges", "inv_var", "inv_var_class".'
DOC_LEVEL = '"nominal" (default), "ordinal", "interval" or "ratio".'
DOC_RULE = '"majority" (default), "diff", "rat", "com", "inv" (bias-correcting rules) or "dawid_skene".'
DOC_SEP = 'Separator between tied labels (default "|").'
_DOC_FAMILIES = '"linear", "ordinal", "radical", "ratio", "circular", "bipolar"'
DOC_WEIGHTS = (
    f'Agreement weights: "quadratic" (default), "identity" (unweighted), {_DOC_FAMILIES}. '
    "Numeric labels use their values, text labels their alphabetical positions."
)
DOC_WEIGHTS_EST = f'Agreement weights: "identity" (default: unweighted), "quadratic", {_DOC_FAMILIES}. Not for an ICC.'
DOC_FORM = (
    '"ICC(2,1)" (default), "ICC(1,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"; McGraw & Wong '
    '("ICC(A,1)", "ICC(C,k)", ...) and psych names ("ICC2", "ICC3k", ...) work too.'
)
DOC_METRIC = (
    '"fleiss_kappa" (default), "gwet_ac1" (AC2 when weighted), "brennan_prediger", "multi_kappa" (Conger), '
    '"percent_agreement_weighted", "cohen_kappa", "scott_pi", "krippendorff_alpha" (jackknife SE), or an ICC form '
    'such as "ICC(2,1)".'
)
DOC_CONFIDENCE = "Coverage of the interval, between 0 and 1 (default 0.95, i.e. 95%)."
DOC_ANN_EST = "cohen_kappa and scott_pi only: " + DOC_ANN


class _ExcelError(Exception):
    """Carries the Excel error value a function returns, with the reason (logged)."""

    def __init__(self, value: str, reason: str) -> None:
        super().__init__(reason)
        self.value = value


def _excel_safe(func):
    """Turn every failure into an Excel error value: never a traceback in a cell."""

    @functools.wraps(func)
    def wrapper(*args):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
                return func(*args)
        except _ExcelError as e:
            if e.value != UNDEFINED or str(e):
                log.warning("%s: %s", func.__name__, e)
            return e.value
        except (ValueError, TypeError, KeyError) as e:
            log.warning("%s: %s", func.__name__, e)
            return "#VALUE!"
        except Exception as e:  # noqa: BLE001 - a worksheet function must not leak a traceback into a cell
            log.warning("%s: unexpected %s: %s", func.__name__, type(e).__name__, e)
            return "#VALUE!"

    return wrapper


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


def _is_error(v: Any) -> bool:
    return isinstance(v, str) and v.strip().upper() in ERRORS


def _raw(v: Any) -> Any:
    """One raw cell as any runtime delivers it -> None (blank), an error string, or the value.

    Office.js (xlwings Server and Lite) sends blanks as null or "", errors as {"type": "Error", ...} objects, and
    Pyodide may wrap null as ``JsNull``; classic xlwings sends errors as COM error integers. The data range is read
    raw because xlwings's per-cell cleaning costs seconds on a 50,000-cell range outside Pyodide.
    """
    if v is None:
        return None
    if isinstance(v, dict):
        if v.get("type") == "Error":
            return v.get("basicValue") or OFFICEJS_ERRORS.get(v.get("errorType"), "#VALUE!")
        return v.get("basicValue")
    if type(v) is int and v in COM_ERRORS:
        return COM_ERRORS[v]
    if type(v).__name__ == "JsNull":
        return None
    return v


def _cell(v: Any) -> Any:
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


def _name(v: Any, fallback: Any) -> Any:
    """A name (annotator, item, category): a number stays a number, and numeric text too unless it is spelled
    differently from the number (``"007"``, ``"1.50"``: an id with leading zeros keeps them)."""
    c = _cell(v)
    if c is None:
        return fallback
    if isinstance(v, str) and not isinstance(c, str) and str(c) != v.strip():
        return v.strip()
    return c


def _blank(v: Any) -> bool:
    """Whether a raw cell is blank in every runtime's encoding (null, "", whitespace, ``JsNull``, an empty entity)."""
    return v is None or _cell(_raw(v)) is None


def _blank_row(row: Any) -> bool:
    if isinstance(row, (list, tuple)) and row.count(None) + row.count("") == len(row):  # the common case, C speed
        return True
    return all(_blank(v) for v in row)


def _filled_width(row: Any) -> int:
    """1 + the position of the row's last filled cell (0 for a blank row)."""
    for j in range(len(row) - 1, -1, -1):
        if not _blank(row[j]):
            return j + 1
    return 0


def _grid(data: Any) -> list[list[Any]]:
    """The used part of the range as a rectangular 2-D list; an error cell anywhere is passed on.

    Trailing rows and columns that are entirely blank are dropped before anything else is read, so that a
    whole-column reference (``A:C``, a million rows of which a thousand are filled) costs what its filled part
    costs. Leading blank rows and columns are kept: items and annotators are named by their positions in the range,
    and a spilled per-item result stays aligned with the range's rows or columns.
    """
    if data is None:
        raise _ExcelError(UNDEFINED, "the range is empty")
    if not isinstance(data, (list, tuple)):
        data = [[data]]
    elif data and not isinstance(data[0], (list, tuple)):
        data = [list(data)]
    end = len(data)
    while end and _blank_row(data[end - 1]):
        end -= 1
    width = max((_filled_width(r) for r in data[:end]), default=0)
    if end == 0 or width == 0:
        raise _ExcelError(UNDEFINED, "the range is empty")
    rows = [[_raw(v) for v in r[:width]] for r in data[:end]]
    for r in rows:
        for v in r:
            if _is_error(v):
                raise _ExcelError(v.strip().upper(), f"the range holds the error value {v}")
        r.extend([None] * (width - len(r)))
    return rows


def _option(value: Any, name: str, allowed: tuple[str, ...], default: str) -> str:
    if value is None:
        return default
    if _is_error(value):
        raise _ExcelError(value.strip().upper(), f"{name} is the error value {value}")
    if not isinstance(value, str):
        raise _ExcelError("#VALUE!", f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    v = value.strip().lower()
    if v == "":
        return default
    if v not in allowed:
        raise _ExcelError("#VALUE!", f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return v


def _icc_form(value: Any, name: str, default: str | None) -> str:
    """An ICC form by any of its names, case-blind and with or without spaces -> the name ``ie.icc`` takes."""
    if value is None and default is not None:
        return default
    if _is_error(value):
        raise _ExcelError(value.strip().upper(), f"{name} is the error value {value}")
    key = "".join(value.split()).lower() if isinstance(value, str) else None
    if key == "" and default is not None:
        return default
    if key not in _ICC_BY_KEY:
        raise _ExcelError("#VALUE!", f"{name} must be one of {', '.join(ICC_NAMES)}; got {value!r}")
    return _ICC_BY_KEY[key]


def _metric(value: Any) -> tuple[str, bool]:
    """IAA_ESTIMATE's coefficient -> (the name the core takes, whether it is an ICC form)."""
    if isinstance(value, str) and "".join(value.split()).lower().startswith("icc"):
        return _icc_form(value, "metric", None), True
    if isinstance(value, str) and not _is_error(value) and value.strip().lower() not in ("", *ESTIMATE_METRICS):
        raise _ExcelError(
            "#VALUE!",
            f"metric must be one of {', '.join(ESTIMATE_METRICS)} or an ICC form such as ICC(2,1); got {value!r}",
        )
    return _option(value, "metric", ESTIMATE_METRICS, "fleiss_kappa"), False


def _confidence(value: Any) -> float:
    if _is_error(value):
        raise _ExcelError(value.strip().upper(), f"confidence is the error value {value}")
    c = _cell(value)
    if c is None:
        return 0.95
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c < 1:
        raise _ExcelError("#VALUE!", f"confidence must be a number between 0 and 1 (0.95 or 95%); got {value!r}")
    return float(c)


def _headers(value: Any) -> str:
    if value is None or value is False:
        return "none"
    if value is True:
        return "both"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "both" if value else "none"
    opt = {"true": "both", "false": "none"}.get(str(value).strip().lower(), value)
    return _option(opt, "headers", HEADERS, "none")


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
            c = _cell(v)
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
            raise _ExcelError(
                "#VALUE!",
                f'this looks like a count table (every row sums to {total}): pass layout "counts", '
                'or "rows"/"columns" if these are labels',
            )
        raise _ExcelError(
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
        raise _ExcelError(
            "#VALUE!", f'{what}: say layout "rows" (annotators in rows) or "columns" (annotators in columns)'
        )
    return fits[0]


def _read(
    data: Any, layout: Any = None, headers: Any = None, *, allow_counts: bool = True, level: str = "nominal"
) -> tuple[ie.Annotations, list[Any], str]:
    """Range -> (Annotations, every item name in range order, the layout read). Blank item lines stay in the item
    list, except trailing ones (trimmed by :func:`_grid`). ``"auto"`` comes back as the layout it chose."""
    lay = _option(layout, "layout", LAYOUTS if allow_counts else LAYOUTS_NO_COUNTS, "auto")
    hdr = _headers(headers)
    grid = _grid(data)
    if lay == "auto":
        lay = _auto_layout(grid, hdr, allow_counts=allow_counts)
    if lay == "columns":  # transpose: from here on annotators (or items, for counts) are rows
        grid = [list(col) for col in zip(*grid)]
    if lay == "counts":
        # counts: rows are items, columns categories; "annotators" headers mean nothing here
        col_names = hdr in ("both", "annotators")  # first row: categories
        row_names = hdr in ("both", "items")  # first column: items
    else:
        row_names = hdr in ("both", "annotators")  # first entry of each annotator line: its name
        col_names = hdr in ("both", "items")  # first line: item names
    body = grid[1:] if col_names else grid
    top = grid[0][1 if row_names else 0 :] if col_names else None
    left = [r[0] for r in body] if row_names else None
    body = [r[1:] for r in body] if row_names else body
    if not body or not body[0]:
        raise _ExcelError(UNDEFINED, "the range holds only headers")
    n_rows, n_cols = len(body), len(body[0])
    if lay == "counts":
        items = [_name(v, str(i + 1)) for i, v in enumerate(left)] if left else list(range(1, n_rows + 1))
        cats = [_name(v, str(j + 1)) for j, v in enumerate(top)] if top else list(range(1, n_cols + 1))
        values = [[0 if _cell(v) is None else _cell(v) for v in r] for r in body]
        for r in values:
            for v in r:
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise _ExcelError("#VALUE!", f"a count table holds numbers; got {v!r}")
        frame = pd.DataFrame(values, index=pd.Index(items), columns=pd.Index(cats))
        return ie.Annotations.from_counts(frame, level=level), items, lay
    anns = [_name(v, str(i + 1)) for i, v in enumerate(left)] if left else list(range(1, n_rows + 1))
    items = [_name(v, str(j + 1)) for j, v in enumerate(top)] if top else list(range(1, n_cols + 1))
    values = [[_cell(v) for v in r] for r in body]
    if all(v is None for r in values for v in r):
        raise _ExcelError(UNDEFINED, "the range holds no annotations")
    frame = pd.DataFrame(values, index=pd.Index(anns), columns=pd.Index(items), dtype=object)
    return ie.Annotations.from_wide(frame, annotators_as="rows", level=level), items, lay


def _scalar(value: float) -> Any:
    return UNDEFINED if value is None or not np.isfinite(value) else float(value)


def _along_items(values: list[Any], lay: str) -> list[list[Any]]:
    """Spill one value per item along the item axis of the layout read (``"auto"`` resolved by :func:`_read`):
    a row when annotators are in rows (the classroom layout), else a column (one item per row)."""
    return [values] if lay == "rows" else [[v] for v in values]


def _pick(data: ie.Annotations, who: Any, what: str) -> Any:
    """An annotator given by name or by 1-based position -> its name in the data."""
    names = list(data.annotators)
    if _is_error(who):
        raise _ExcelError(who.strip().upper(), f"{what} is the error value {who}")
    key = _cell(who)
    for k in (_name(who, None), key):  # a text name such as "007" as spelled, then as a number
        if k in names:
            return k
    if isinstance(key, str) and key in map(str, names):
        return names[list(map(str, names)).index(key)]
    if isinstance(key, int) and not isinstance(key, bool) and 1 <= key <= len(names):
        return names[key - 1]
    raise _ExcelError("#N/A", f"{what} {who!r} is not an annotator name or a position 1..{len(names)}")


def _pick_pair(d: ie.Annotations, a: Any, b: Any) -> tuple[Any, Any]:
    """The two annotators to compare: both named (or by position), or neither when the data has exactly two."""
    if (a is None) != (b is None):
        raise _ExcelError("#VALUE!", "give both annotator_a and annotator_b, or neither")
    if a is None:
        if d.n_annotators != 2:
            raise _ExcelError("#VALUE!", f"the range has {d.n_annotators} annotators; name the two to compare")
        return d.annotators[0], d.annotators[1]
    return _pick(d, a, "annotator_a"), _pick(d, b, "annotator_b")


def _pair(data: Any, a: Any, b: Any, layout: Any, headers: Any, fn) -> Any:
    d, _, _ = _read(data, layout, headers, allow_counts=False)
    a, b = _pick_pair(d, a, b)
    return _scalar(fn(d, a, b))


# ----------------------------------------------------------------------------- the worksheet functions


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("scheme", err_to_str=True, doc=DOC_SCHEME)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def SPA(data, scheme=None, layout=None, headers=None):
    """Sparse Probability of Agreement: weighted mean item agreement over items with 2+ annotations."""
    w = _option(scheme, "scheme", ie.SPA_WEIGHTS, "annotations_m1")
    d, _, _ = _read(data, layout, headers)
    return _scalar(ie.spa(d, weights=w))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def FLEISS(data, layout=None, headers=None):
    """Fleiss' kappa of all annotators (any number of annotations per item)."""
    d, _, _ = _read(data, layout, headers)
    return _scalar(ie.fleiss_kappa(d))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("annotator_a", err_to_str=True, doc=DOC_ANN)
@xw.arg("annotator_b", err_to_str=True, doc=DOC_ANN)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def COHEN(data, annotator_a=None, annotator_b=None, layout=None, headers=None):
    """Cohen's kappa between two annotators on the items both annotated."""
    return _pair(data, annotator_a, annotator_b, layout, headers, ie.cohen_kappa)


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("annotator_a", err_to_str=True, doc=DOC_ANN)
@xw.arg("annotator_b", err_to_str=True, doc=DOC_ANN)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def SCOTTPI(data, annotator_a=None, annotator_b=None, layout=None, headers=None):
    """Scott's pi between two annotators on the items both annotated."""
    return _pair(data, annotator_a, annotator_b, layout, headers, ie.scott_pi)


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def KAPPA_MATRIX(data, layout=None, headers=None):
    """Cohen's kappa for every pair of annotators; spills a table with the annotator names as headers."""
    d, _, _ = _read(data, layout, headers, allow_counts=False)
    m = ie.cohen_kappa_matrix(d)
    names = list(m.annotators)
    out: list[list[Any]] = [["Cohen's kappa", *names]]
    for name, row in zip(names, m.values):
        out.append([name, *[_scalar(v) for v in row]])
    return out


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("level", err_to_str=True, doc=DOC_LEVEL)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def KALPHA(data, level=None, layout=None, headers=None):
    """Krippendorff's alpha (nominal, ordinal, interval or ratio) with missing data."""
    lev = _option(level, "level", ie.LEVELS, "nominal")
    d, _, _ = _read(data, layout, headers, level=lev)
    return _scalar(ie.krippendorff_alpha(d, level=lev))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def MULTIKAPPA(data, layout=None, headers=None):
    """Multi-coder kappa (Artstein & Poesio; Conger): pairwise Cohen-style expected agreement."""
    d, _, _ = _read(data, layout, headers, allow_counts=False)
    return _scalar(ie.multi_kappa(d))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def ANNOTATOR_BIAS(data, layout=None, headers=None):
    """Annotator bias B: how much the annotators' label distributions differ (Artstein & Poesio)."""
    d, _, _ = _read(data, layout, headers, allow_counts=False)
    return _scalar(ie.annotator_bias(d))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def PERCENT_AGREEMENT(data, layout=None, headers=None):
    """Share of items (with 2+ annotations) on which all annotators gave the same label."""
    d, _, _ = _read(data, layout, headers)
    return _scalar(ie.percent_agreement(d))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def GWET_AC1(data, layout=None, headers=None):
    """Gwet's AC1 agreement coefficient, with missing data."""
    d, _, _ = _read(data, layout, headers)
    return _scalar(ie.gwet_ac1(d))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def ITEM_AGREEMENT(data, layout=None, headers=None):
    """Agreement P_i of every item (share of agreeing annotation pairs); spills one value per item."""
    d, items, lay = _read(data, layout, headers)
    p = ie.item_agreement(d)
    return _along_items([_scalar(p.get(it, np.nan)) for it in items], lay)


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("rule", err_to_str=True, doc=DOC_RULE)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@xw.arg("sep", err_to_str=True, doc=DOC_SEP)
@_excel_safe
def GOLD(data, rule=None, layout=None, headers=None, sep=None):
    """Gold label of every item (ties kept, joined by sep); spills one value per item."""
    r = _option(rule, "rule", ie.GOLD_RULES, "majority")
    if _is_error(sep):
        raise _ExcelError(sep.strip().upper(), f"sep is the error value {sep}")
    joiner = "|" if sep is None else str(sep)
    d, items, lay = _read(data, layout, headers)
    gold = ie.gold_standard(d, rule=r, progress=False).labels
    by_item: dict[Any, list[Any]] = {}
    for it, lab in zip(gold["item"], gold["label"]):
        by_item.setdefault(it, []).append(_cell(lab) if not isinstance(lab, str) else lab)
    out = []
    for it in items:
        labs = by_item.get(it)
        if not labs:
            out.append("#N/A")
        elif len(labs) == 1:
            out.append(labs[0])
        else:
            out.append(joiner.join(str(x) for x in labs))
    return _along_items(out, lay)


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("rule", err_to_str=True, doc='"diff", "rat", "com" or "inv".')
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def BCR_WEIGHTS(data, rule=None, layout=None, headers=None):
    """Bias-correcting weights w_ik (annotators x categories) of the rule; spills a table with headers."""
    r = _option(rule, "rule", ("diff", "rat", "com", "inv"), "rat")
    d, _, _ = _read(data, layout, headers, allow_counts=False)
    w = ie.bcr_weights(d, r)
    out: list[list[Any]] = [[f"w ({r})", *[_cell(c) for c in w.columns]]]
    for name, row in zip(w.index, w.to_numpy()):
        out.append([name, *[_scalar(v) for v in row]])
    return out


_REPORT_ROWS = [
    ("Items", "n_items"),
    ("Annotators", "n_annotators"),
    ("Annotations", "n_annotations"),
    ("Categories", "n_categories"),
    ("Items excluded (fewer than 2 annotations)", "n_items_excluded"),
    *((spec.label, spec.name) for spec in ie.METRICS),  # the core's metric registry: its labels, its order
]


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@xw.arg("level", err_to_str=True, doc=DOC_LEVEL + " Used for Krippendorff's alpha.")
@_excel_safe
def IAA_REPORT(data, layout=None, headers=None, level=None):
    """Every agreement metric of the range; spills a two-column table (metric, value)."""
    lev = _option(level, "level", ie.LEVELS, "nominal")
    d, _, _ = _read(data, layout, headers, level=lev)
    rep = ie.report(d, pairwise=False)
    flat = rep.to_dict()
    out: list[list[Any]] = [["Metric", "Value"]]
    for label, key in _REPORT_ROWS:
        v = flat.get(key)
        if key.startswith("n_"):
            out.append([label, "#N/A" if v is None else v])
        else:
            name = f"{label} [{rep.level}]" if key == "krippendorff_alpha" else label
            out.append([name, _scalar(np.nan if v is None else v)])
    for scheme, v in rep.spa.items():
        out.append([f"SPA [{scheme}]", _scalar(v)])
    return out


# ----------------------------------------------------------------------------- weighted agreement, ICC, inference


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("weights", err_to_str=True, doc=DOC_WEIGHTS)
@xw.arg("annotator_a", err_to_str=True, doc=DOC_ANN)
@xw.arg("annotator_b", err_to_str=True, doc=DOC_ANN)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def COHEN_WEIGHTED(data, weights=None, annotator_a=None, annotator_b=None, layout=None, headers=None):
    """Weighted Cohen's kappa (quadratic weights by default) between two annotators on the items both annotated."""
    w = _option(weights, "weights", ie.AGREEMENT_WEIGHTS, "quadratic")
    return _pair(data, annotator_a, annotator_b, layout, headers, lambda d, a, b: ie.cohen_kappa(d, a, b, weights=w))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("weights", err_to_str=True, doc=DOC_WEIGHTS)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def FLEISS_WEIGHTED(data, weights=None, layout=None, headers=None):
    """Weighted Fleiss' kappa of all annotators (quadratic weights by default; any number of annotations per item)."""
    w = _option(weights, "weights", ie.AGREEMENT_WEIGHTS, "quadratic")
    d, _, _ = _read(data, layout, headers)
    return _scalar(ie.fleiss_kappa(d, weights=w))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("weights", err_to_str=True, doc=DOC_WEIGHTS)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def GWET_WEIGHTED(data, weights=None, layout=None, headers=None):
    """Gwet's AC2, the weighted AC1 (quadratic weights by default), with missing data."""
    w = _option(weights, "weights", ie.AGREEMENT_WEIGHTS, "quadratic")
    d, _, _ = _read(data, layout, headers)
    return _scalar(ie.gwet_ac1(d, weights=w))


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("form", err_to_str=True, doc=DOC_FORM)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def INTRACLASS(data, form=None, layout=None, headers=None):
    """Intraclass correlation of numeric ratings, Shrout & Fleiss's forms (default ICC(2,1): two-way, agreement)."""
    f = _icc_form(form, "form", "ICC(2,1)")
    d, _, _ = _read(data, layout, headers, allow_counts=False)
    return _scalar(ie.icc(d, f).estimate)


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("metric", err_to_str=True, doc=DOC_METRIC)
@xw.arg("weights", err_to_str=True, doc=DOC_WEIGHTS_EST)
@xw.arg("confidence", err_to_str=True, doc=DOC_CONFIDENCE)
@xw.arg("annotator_a", err_to_str=True, doc=DOC_ANN_EST)
@xw.arg("annotator_b", err_to_str=True, doc=DOC_ANN_EST)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT + " Not for multi_kappa, cohen_kappa, scott_pi or an ICC.")
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def IAA_ESTIMATE(
    data,
    metric=None,
    weights=None,
    confidence=None,
    annotator_a=None,
    annotator_b=None,
    layout=None,
    headers=None,
):
    """A coefficient with its standard error, confidence interval, p-value and items; spills 6 rows x 2 columns."""
    m, is_icc = _metric(metric)
    conf = _confidence(confidence)
    w = _option(weights, "weights", ie.AGREEMENT_WEIGHTS, "identity")
    pair = m in PAIR_METRICS
    if (annotator_a is not None or annotator_b is not None) and not pair:
        raise _ExcelError("#VALUE!", f"annotator_a and annotator_b are for cohen_kappa and scott_pi, not {m}")
    if is_icc:
        if w != "identity":
            raise _ExcelError("#VALUE!", f"weights are for the kappa family; {m} takes none (got {weights!r})")
        d, _, _ = _read(data, layout, headers, allow_counts=False)
        e = ie.icc(d, m, confidence=conf)
        se: Any = "#N/A"  # the ICC's interval comes from the F distribution: it has no standard error
    else:
        d, _, _ = _read(data, layout, headers, allow_counts=not pair and m != "multi_kappa")
        a, b = _pick_pair(d, annotator_a, annotator_b) if pair else (None, None)
        e = ie.estimate(d, m, weights=w, confidence=conf, annotator_a=a, annotator_b=b)
        se = _scalar(e.se)
    pct = f"{conf * 100:g}%"
    return [
        [f"Estimate ({e.metric})", _scalar(e.estimate)],
        ["Standard error", se],
        [f"Lower {pct}", _scalar(e.lower)],
        [f"Upper {pct}", _scalar(e.upper)],
        ["p-value", _scalar(e.p_value)],
        ["Items", int(e.n_items)],
    ]


# ----------------------------------------------------------------------------- after the number: what to do next

DOC_TOP = "List only this many (default: all). The ranking is over all of them."
DOC_ITEMS_PER_PAIR = "List at most this many items behind each pair, the largest contributions first (default: all)."
DOC_GOLD = (
    'Gold labels: "majority" (default), "dawid_skene", or a range of known labels: one cell per item aligned '
    "with the items (blank = not known), or a two-column table of item names and labels."
)
DOC_KNOWN = (
    "Known labels (gold questions): one cell per item aligned with the items of data (blank = not known), "
    "or a two-column table of item names and labels."
)
DOC_MIN_ITEMS = "Annotators with fewer items shared with others are never flagged (default 20)."
DOC_THRESHOLD = "The accuracy an annotator needs, between 0 and 1 (default 0.8)."
DOC_SCALE = '"landis_koch" (default), "fleiss", "altman" or "krippendorff" (0.667 / 0.800).'
DOC_BENCH_THRESHOLD = "The probability the reading must reach, in (0, 1] (default 0.95)."
DOC_METRIC_BENCH = DOC_METRIC.replace(', or an ICC form such as "ICC(2,1)"', "") + " An ICC has no standard error."
GOLD_RULES_SCORECARD = ("majority", "dawid_skene")
BENCHMARK_SCALES = tuple(ie.BENCHMARK_SCALES)
_SCALE_TITLES = {"landis_koch": "Landis-Koch", "fleiss": "Fleiss", "altman": "Altman", "krippendorff": "Krippendorff"}


def _out(v: Any) -> Any:
    """One value of a spilled table: numbers as float/int, undefined as ``#DIV/0!``, names as they are."""
    if v is None:
        return UNDEFINED
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return _scalar(float(v))
    return v if isinstance(v, str) else str(v)


def _whole(value: Any, name: str, low: int = 1) -> int | None:
    """A whole number option (blank: None)."""
    if _is_error(value):
        raise _ExcelError(value.strip().upper(), f"{name} is the error value {value}")
    c = _cell(value)
    if c is None:
        return None
    if isinstance(c, bool) or not isinstance(c, int) or c < low:
        raise _ExcelError("#VALUE!", f"{name} must be a whole number of at least {low}; got {value!r}")
    return c


def _fraction(value: Any, name: str, default: float, *, low_open: bool = False) -> float:
    """A number option in [0, 1] (or (0, 1]); blank: the default."""
    if _is_error(value):
        raise _ExcelError(value.strip().upper(), f"{name} is the error value {value}")
    c = _cell(value)
    if c is None:
        return default
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not (0 < c <= 1 if low_open else 0 <= c <= 1):
        span = "above 0 and at most 1" if low_open else "between 0 and 1"
        raise _ExcelError("#VALUE!", f"{name} must be a number {span}; got {value!r}")
    return float(c)


def _known(value: Any, items: list[Any], what: str = "known") -> dict[Any, Any]:
    """Known labels from a range -> {item name: label}.

    One line (a row or a column): one cell per item of the data range, in its order, blank = not known. Two
    columns: item names (as the data's headers name them, or positions without headers) and labels; a first row
    reading ``item``/``label`` is a header. Labels are read as the data's cells are (``'2`` is the number 2).
    """
    if isinstance(value, str) and _is_error(value):
        raise _ExcelError(value.strip().upper(), f"{what} is the error value {value}")
    try:
        grid = _grid(value)
    except _ExcelError as e:
        if e.value == UNDEFINED:
            raise _ExcelError("#VALUE!", f"{what} holds no labels") from None
        raise
    n_rows, n_cols = len(grid), len(grid[0])
    out: dict[Any, Any] = {}
    if n_rows == 1 or n_cols == 1:
        line = grid[0] if n_rows == 1 else [r[0] for r in grid]
        if len(line) > len(items):
            raise _ExcelError(
                "#VALUE!",
                f"{what} has {len(line)} cells in a line but the range has {len(items)} items: give one cell per "
                "item, aligned with the items (without their header), or a two-column table of item and label",
            )
        for it, v in zip(items, line):
            label = _cell(v)
            if label is not None:
                out[it] = label
    elif n_cols == 2:
        rows = grid
        first = [str(_cell(v)).lower() if _cell(v) is not None else "" for v in grid[0]]
        if first == ["item", "label"]:
            rows = grid[1:]
        for r in rows:
            it, label = _name(r[0], None), _cell(r[1])
            if label is None:
                continue
            if it is None:
                raise _ExcelError("#VALUE!", f"{what}: the label {label!r} has no item name beside it")
            if it in out:
                raise _ExcelError("#VALUE!", f"{what} gives item {it!r} more than once")
            out[it] = label
    else:
        raise _ExcelError(
            "#VALUE!",
            f"{what} is {n_rows} x {n_cols}: give one line of labels aligned with the items, or two columns "
            "(item, label)",
        )
    if not out:
        raise _ExcelError("#VALUE!", f"{what} holds no labels")
    return out


def _known_found(acc: Any, known: dict[Any, Any], what: str = "known") -> None:
    """#N/A when none of the known items is an item of the data (``acc``: the core's ``gold_accuracy`` on them,
    which matches items by value, then by text)."""
    if acc.n_known == 0:
        raise _ExcelError(
            "#N/A",
            f"none of the {len(known)} items of {what} is an item of the range with annotations "
            f"(e.g. {next(iter(known))!r}); name items as the range's header does, or by position without headers",
        )
    if acc.n_unmatched:
        log.info("%s: %d known item(s) are not items of the range and are ignored", what, acc.n_unmatched)


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("gold", "raw", doc=DOC_GOLD)
@xw.arg("level", err_to_str=True, doc=DOC_LEVEL + " Used for the alpha columns.")
@xw.arg("min_items", err_to_str=True, doc=DOC_MIN_ITEMS)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def ANNOTATORS(data, gold=None, level=None, min_items=None, layout=None, headers=None):
    """A scorecard per annotator (agreement and kappa with the others, accuracy vs gold, alpha without them,
    flag); spills a table with a header row."""
    lev = _option(level, "level", ie.LEVELS, "nominal")
    least = _whole(min_items, "min_items")
    d, items, _ = _read(data, layout, headers, allow_counts=False, level=lev)
    g = _raw(gold)
    if g is None or (isinstance(g, str) and not _is_error(g)):
        rule = None if g is None else g.strip().lower().replace("-", "_")
        if rule not in (None, "", *GOLD_RULES_SCORECARD):
            raise _ExcelError(
                "#VALUE!", f'gold must be "majority", "dawid_skene" or a range of known labels; got {gold!r}'
            )
        source: Any = rule or "majority"
    else:
        source = _known(gold, items, "gold")
        _known_found(ie.gold_accuracy(d, source), source, "gold")
    kw = {} if least is None else {"min_items": least}
    card = ie.annotator_report(d, gold=source, level=lev, pairwise=False, progress=False, **kw)
    pct = f"{card.confidence * 100:g}%"
    columns = [
        ("Annotator", "annotator"),
        ("Items", "n_items"),
        ("Shared items", "n_pairable"),
        ("Agreement", "agreement"),
        (f"Agreement lower {pct}", "agreement_lower"),
        (f"Agreement upper {pct}", "agreement_upper"),
        ("Kappa", "kappa"),
        (f"Kappa lower {pct}", "kappa_lower"),
        (f"Kappa upper {pct}", "kappa_upper"),
        (f"Gold items ({card.gold})", "n_gold"),
        ("Accuracy", "accuracy"),
        (f"Accuracy lower {pct}", "accuracy_lower"),
        (f"Accuracy upper {pct}", "accuracy_upper"),
        ("Gold kappa", "gold_kappa"),
        (f"Alpha without [{card.level}]", "alpha_without"),
        ("Alpha change", "alpha_change"),
        ("Label TVD", "tvd"),
        ("Label chi-square p", "chi2_p"),
        ("Competence (MACE)", "competence"),
        ("Flag", "flag"),
    ]
    t = card.table
    out: list[list[Any]] = [[label for label, _ in columns]]
    for row in zip(*(t[key].tolist() for _, key in columns)):
        out.append([_out(v) for v in row])
    return out


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("top", err_to_str=True, doc=DOC_TOP)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def DISAGREEMENTS(data, top=None, layout=None, headers=None):
    """The items to adjudicate, most unsettled first (agreement, tie, Dawid-Skene entropy) with their labels;
    spills a table with a header row."""
    n = _whole(top, "top")
    d, _, lay = _read(data, layout, headers)
    res = ie.disagreements(d, top=n, progress=False)
    f = res.to_frame()
    out: list[list[Any]] = [
        ["Rank", "Item", "Annotations", "Agreement", "Tied", "Entropy (Dawid-Skene)", "Labels", "Annotators"]
    ]
    for r in f.itertuples(index=False):
        out.append(
            [
                int(r.rank),
                _out(r.item),
                int(r.n_annotations),
                _out(r.agreement),
                bool(r.tie),
                _out(r.entropy) if res.dawid_skene else "#N/A",
                r.labels,
                "#N/A" if lay == "counts" else r.annotators,
            ]
        )
    return out


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("top", err_to_str=True, doc=DOC_TOP)
@xw.arg("items_per_pair", err_to_str=True, doc=DOC_ITEMS_PER_PAIR)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@xw.arg("sep", err_to_str=True, doc='Separator between the items of a pair (default "|").')
@_excel_safe
def CONFUSED_PAIRS(data, top=None, items_per_pair=None, layout=None, headers=None, sep=None):
    """The label pairs annotators confuse most (coincidences over chance), with the items behind each; spills a
    table with a header row."""
    n = _whole(top, "top")
    per_pair = _whole(items_per_pair, "items_per_pair")
    if _is_error(sep):
        raise _ExcelError(sep.strip().upper(), f"sep is the error value {sep}")
    joiner = "|" if sep is None else str(sep)
    d, _, _ = _read(data, layout, headers)
    res = ie.disagreements(d, top=n, items_per_pair=per_pair, dawid_skene=False, progress=False)
    behind = res.pair_items.groupby("pair", sort=False)["item"].agg(lambda v: joiner.join(map(str, v)))
    out: list[list[Any]] = [
        ["Rank", "Label A", "Label B", "Observed", "Expected", "Ratio", "Share", "Items", "Items behind"]
    ]
    for r in res.pairs.itertuples(index=False):
        out.append(
            [
                int(r.rank),
                _out(r.label_a),
                _out(r.label_b),
                _out(r.observed),
                _out(r.expected),
                _out(r.ratio),
                _out(r.share),
                int(r.n_items),
                behind.get(r.rank, ""),
            ]
        )
    return out


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("known", "raw", doc=DOC_KNOWN)
@xw.arg("threshold", err_to_str=True, doc=DOC_THRESHOLD)
@xw.arg("confidence", err_to_str=True, doc=DOC_CONFIDENCE)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT_NO_COUNTS)
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def GOLD_ACCURACY(data, known=None, threshold=None, confidence=None, layout=None, headers=None):
    """Each annotator's accuracy on the gold questions with Wilson's interval and pass/fail; spills a table with a
    header row."""
    thr = _fraction(threshold, "threshold", 0.8)
    conf = _confidence(confidence)
    if _raw(known) is None:
        raise _ExcelError("#VALUE!", "give the known labels (gold questions) as the second argument")
    d, items, _ = _read(data, layout, headers, allow_counts=False)
    labels = _known(known, items)
    acc = ie.gold_accuracy(d, labels, threshold=thr, confidence=conf)
    _known_found(acc, labels)
    pct = f"{conf * 100:g}%"
    out: list[list[Any]] = [
        ["Annotator", "Gold questions", "Correct", "Accuracy", f"Lower {pct}", f"Upper {pct}", "Passed", "Status"]
    ]
    for r in acc.table.itertuples(index=False):
        out.append(
            [
                _out(r.annotator),
                int(r.n_gold),
                int(r.n_correct),
                _out(r.accuracy),
                _out(r.lower),
                _out(r.upper),
                bool(r.passed),
                r.status,
            ]
        )
    return out


@xw.func
@xw.arg("data", "raw", doc=DOC_DATA)
@xw.arg("metric", err_to_str=True, doc=DOC_METRIC_BENCH)
@xw.arg("scale", err_to_str=True, doc=DOC_SCALE)
@xw.arg("weights", err_to_str=True, doc=DOC_WEIGHTS_EST)
@xw.arg("threshold", err_to_str=True, doc=DOC_BENCH_THRESHOLD)
@xw.arg("annotator_a", err_to_str=True, doc=DOC_ANN_EST)
@xw.arg("annotator_b", err_to_str=True, doc=DOC_ANN_EST)
@xw.arg("layout", err_to_str=True, doc=DOC_LAYOUT + " Not for multi_kappa, cohen_kappa or scott_pi.")
@xw.arg("headers", err_to_str=True, doc=DOC_HEADERS)
@_excel_safe
def IAA_BENCHMARK(
    data,
    metric=None,
    scale=None,
    weights=None,
    threshold=None,
    annotator_a=None,
    annotator_b=None,
    layout=None,
    headers=None,
):
    """A coefficient read on a benchmark scale with the probability of each band (Gwet's probabilistic
    benchmarking); spills the reading and its probability above the bands."""
    m, is_icc = _metric(metric)
    if is_icc:
        raise _ExcelError(
            "#VALUE!",
            f"{m} has no standard error (its interval comes from the F distribution): read a kappa-family "
            "coefficient or krippendorff_alpha on a scale",
        )
    sc = _option(scale.replace("-", "_") if isinstance(scale, str) else scale, "scale", BENCHMARK_SCALES, "landis_koch")
    thr = _fraction(threshold, "threshold", 0.95, low_open=True)
    w = _option(weights, "weights", ie.AGREEMENT_WEIGHTS, "identity")
    pair = m in PAIR_METRICS
    if (annotator_a is not None or annotator_b is not None) and not pair:
        raise _ExcelError("#VALUE!", f"annotator_a and annotator_b are for cohen_kappa and scott_pi, not {m}")
    d, _, _ = _read(data, layout, headers, allow_counts=not pair and m != "multi_kappa")
    a, b = _pick_pair(d, annotator_a, annotator_b) if pair else (None, None)
    e = ie.estimate(d, m, weights=w, annotator_a=a, annotator_b=b)
    r = ie.benchmark_reading(e, scale=sc, threshold=thr)
    title = _SCALE_TITLES.get(sc, sc)
    lowest = ie.BENCHMARK_SCALES[sc][-1][2]  # "Poor or better" says nothing: the lowest band is read as itself
    out: list[list[Any]] = [
        [f"Estimate ({e.metric})", _scalar(r.estimate), "Standard error", _scalar(r.se), ""],
        [
            f"Reading ({title})",
            "#N/A" if r.reading is None else r.reading if r.reading == lowest else f"{r.reading} or better",
            "Probability",
            _scalar(r.probability),
            "",
        ],
        ["Point estimate in", "#N/A" if r.point_band is None else r.point_band, "Threshold", r.threshold, ""],
        [f"Band ({title})", "Lower", "Upper", "Probability", "Cumulative"],
    ]
    for lo, hi, name, p, c in r.bands.itertuples(index=False, name=None):
        out.append([name, float(lo), float(hi), _scalar(p), _scalar(c)])
    return out
