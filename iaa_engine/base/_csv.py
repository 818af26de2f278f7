"""CSV text that a spreadsheet cannot run: formula triggers are neutralised (OWASP's rule) by the one helper every
CSV writer of the project uses.

A spreadsheet (Excel, LibreOffice Calc, Google Sheets) reads a CSV cell that begins with ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return as a formula, so a label or an annotator name such as ``=HYPERLINK(...)`` written as it
is becomes code when the file is opened (CSV or formula injection). OWASP's rule: prefix such a text cell with a
single quote ``'`` so it is shown as text.

The rule applied here:

- **text cells** (Python ``str`` values) beginning with one of ``= + - @``, a tab or a carriage return get a ``'``
  in front; so do text cells that already begin with ``'``, so that the value stays recoverable: strip **one**
  leading ``'`` from any cell that has one (:func:`unescape_cell`) and you have the original text;
- a text cell that is a plain decimal number (``-0.25``, ``+3``, ``-1e-5``) is left as it is: a spreadsheet reads it
  as that number, never as a formula;
- **numbers are not text**: numeric columns, and numbers in any column (``-0.25`` as a float), are written as
  numbers, unchanged;
- the header row (the column names) follows the same rule.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported where a frame is written: the command line starts without it
    import pandas as pd

__all__ = ["FORMULA_TRIGGERS", "escape_cell", "unescape_cell", "escape_frame", "safe_csv"]

#: The first characters that make a spreadsheet evaluate a cell (OWASP, "CSV Injection").
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def escape_cell(value: Any) -> Any:
    """One cell as a CSV writer must write it: a text cell that starts a formula (or starts with ``'``) gets a
    leading ``'``; anything that is not text, and text that is a plain decimal number, is returned unchanged.

    Examples
    --------
    >>> escape_cell("=1+1"), escape_cell("-2+3"), escape_cell("@SUM(A1)"), escape_cell("'quoted")
    ("'=1+1", "'-2+3", "'@SUM(A1)", "''quoted")
    >>> escape_cell("-0.25"), escape_cell(-0.25), escape_cell("cat")
    ('-0.25', -0.25, 'cat')
    """
    if not isinstance(value, str) or not value:
        return value
    first = value[0]
    if first == "'":
        return "'" + value
    if first in FORMULA_TRIGGERS and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def unescape_cell(value: Any) -> Any:
    """The original text of a cell written by :func:`escape_cell`: one leading ``'`` removed.

    Examples
    --------
    >>> unescape_cell("'=1+1"), unescape_cell("''quoted"), unescape_cell("-0.25")
    ('=1+1', "'quoted", '-0.25')
    """
    return value[1:] if isinstance(value, str) and value.startswith("'") else value


def escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names went through :func:`escape_cell`.

    Only columns that can hold text (object, string and categorical dtypes) are visited, once per distinct value;
    numeric and boolean columns are kept as they are.
    """
    import numpy as np
    import pandas as pd

    out = frame.copy()
    for name in out.columns:
        col = out[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            col = col.astype(object)
        if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
            values = col.to_numpy(dtype=object)
            text = np.fromiter(
                (isinstance(v, str) and v[:1] in ("'", *FORMULA_TRIGGERS) for v in values), bool, len(values)
            )
            if text.any():
                values = values.copy()
                values[text] = [escape_cell(v) for v in values[text]]
                out[name] = pd.Series(values, index=out.index, dtype=object)
    out.columns = [escape_cell(c) for c in out.columns]
    return out


def safe_csv(frame: pd.DataFrame, **kwargs: Any) -> str:
    """``frame`` as CSV text (``index=False`` unless given) with every formula trigger neutralised
    (:func:`escape_frame`): the one way the project writes a CSV."""
    kwargs.setdefault("index", False)
    return escape_frame(frame).to_csv(**kwargs)
