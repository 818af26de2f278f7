"""=UALPHA(range, [begin], [length]): Krippendorff's unitizing alpha of a spans table on a worksheet.

The range is a spans table with its headers in the first row: columns ``annotator``, ``start``, ``end``
(exclusive), ``label`` and optionally ``document`` (found by name, in any order and case; other columns are
ignored). Blank rows are skipped. ``begin`` and ``length`` give the continuum of every document (``length`` alone:
begin 0); without both, each document runs from its first start to its last end (as the core's default). The
result is the pooled α_U of :func:`iaa_engine.unitizing_alpha` (every category and document laid end to end).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import iaa_engine as ie
from iaa_engine.excel._range import ExcelError, cell, grid, log, name, passed_on, scalar
from iaa_engine.excel._worksheet import worksheet

__all__ = ["UALPHA"]

_COLUMNS = ("annotator", "start", "end", "label", "document")

DOC_SPANS = (
    "Spans table with headers in the first row: annotator, start, end (exclusive), label, and optionally "
    "document; one row per span, blank rows ignored."
)
DOC_BEGIN = "Where every document's continuum begins (default 0 when length is given)."
DOC_LENGTH = (
    "Length of every document's continuum (e.g. the text's length). Blank with begin blank: each document from "
    "its first start to its last end."
)


def _number(value: Any, what: str) -> float | None:
    """An option cell that is a number (blank: None)."""
    passed_on(value, what)
    c = cell(value)
    if c is None:
        return None
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c):
        raise ExcelError("#VALUE!", f"{what} must be a number; got {value!r}")
    return float(c)


def _table(data: Any) -> dict[str, list[Any]]:
    """The spans table of the range: its columns by their header, blank rows dropped."""
    rows = grid(data)
    header = [str(cell(h)).strip().lower() if cell(h) is not None else "" for h in rows[0]]
    where = {}
    for col in _COLUMNS:
        if header.count(col) > 1:
            raise ExcelError("#VALUE!", f"the header row names {col!r} twice")
        if col in header:
            where[col] = header.index(col)
    missing = [c for c in _COLUMNS[:4] if c not in where]
    if missing:
        raise ExcelError(
            "#VALUE!",
            "the first row must hold the headers annotator, start, end, label (and optionally document); "
            f"missing: {', '.join(missing)}; found: {', '.join(h for h in header if h) or 'no text'}",
        )
    body = [r for r in rows[1:] if any(cell(v) is not None for v in r)]
    table = {}
    for col, j in where.items():
        values = [r[j] for r in body]
        if col in ("start", "end"):
            table[col] = [cell(v) for v in values]
        else:  # ids and labels: a number stays a number, an id written 007 keeps its zeros
            table[col] = [name(v, None) for v in values]
    return table


@worksheet(data=DOC_SPANS, begin=DOC_BEGIN, length=DOC_LENGTH)
def UALPHA(data, begin=None, length=None):
    """Krippendorff's unitizing alpha (alpha_U) of a spans table: agreement on where the units are and what they
    are, pooled over labels (and documents laid end to end)."""
    b = _number(begin, "begin")
    n = _number(length, "length")
    if n is None and b is not None:
        raise ExcelError("#VALUE!", "give the continuum's length too (begin alone does not say where it ends)")
    if n is not None and n < 0:
        raise ExcelError("#VALUE!", f"length must be at least 0; got {length!r}")
    table = _table(data)
    if not table["annotator"]:
        raise ExcelError("#DIV/0!", "the spans table has no rows below its headers")
    continuum = None if n is None else (b or 0.0, n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        result = ie.unitizing_alpha(table, continuum=continuum)
    for w in caught:
        if not issubclass(w.category, ie.UndefinedMetricWarning):
            log.warning("UALPHA: %s", w.message)
    return scalar(result.estimate)
