"""=KENDALL_W(range, [correct], [headers]) and =KENDALL_W_TEST(...): a classroom of judges ranking items.

The range holds one row per item (what is ranked) and one column per judge, a rank (or a score: each judge's column
is ranked, equal values sharing their mean rank) in each cell, the layout of R irr's ``kendall``. A row with a blank
cell is left out (listwise, as irr does). ``correct`` (default TRUE) corrects W for ties. The result is
:func:`iaa_engine.kendall_w`'s W; KENDALL_W_TEST spills W with its chi-square test.
"""

from __future__ import annotations

from typing import Any

import iaa_engine as ie
from iaa_engine.excel._range import ExcelError, cell, out, passed_on, read, scalar
from iaa_engine.excel._worksheet import worksheet

__all__ = ["KENDALL_W", "KENDALL_W_TEST"]

DOC_RANKS = "Ranks (or scores): one row per item ranked, one column per judge. Rows with a blank cell are left out."
DOC_CORRECT = "TRUE (default): W corrected for tied ranks within a judge (Wt). FALSE: without the correction."
DOC_HEADERS = 'FALSE (default): no headers. TRUE: first row (judges) and first column (items) hold names. "annotators" or "items": only that one.'  # noqa: E501


def _flag(value: Any, what: str) -> bool:
    passed_on(value, what)
    c = cell(value)
    if c is None:
        return True
    if isinstance(c, bool):
        return c
    text = str(c).strip().lower()
    if text in ("true", "false"):
        return text == "true"
    if isinstance(c, (int, float)) and c in (0, 1):
        return bool(c)
    raise ExcelError("#VALUE!", f"{what} must be TRUE or FALSE; got {value!r}")


def _result(data: Any, correct: Any, headers: Any) -> Any:
    flag = _flag(correct, "correct")
    d, _, _ = read(data, "columns", headers, allow_counts=False, level="interval")
    return ie.kendall_w(d, correct=flag)


@worksheet(data=DOC_RANKS, correct=DOC_CORRECT, headers=DOC_HEADERS)
def KENDALL_W(data, correct=None, headers=None):
    """Kendall's coefficient of concordance W of judges ranking items (items in rows, judges in columns)."""
    return scalar(_result(data, correct, headers).w)


@worksheet(data=DOC_RANKS, correct=DOC_CORRECT, headers=DOC_HEADERS)
def KENDALL_W_TEST(data, correct=None, headers=None):
    """Kendall's W with its chi-square test: spills W, chi-square, df, p-value, items and judges with labels."""
    r = _result(data, correct, headers)
    return [
        ["W" if not r.correct else "Wt", out(r.w)],
        ["Chi-square", out(r.statistic)],
        ["df", out(r.df)],
        ["p-value", out(r.p_value)],
        ["Items", out(r.n_items)],
        ["Judges", out(r.n_judges)],
    ]
