"""Which way round a wide matrix is: one rule for the command line, :func:`~iaa_engine.read`,
:meth:`~iaa_engine.Annotations.from_wide` and the Excel functions.

A wide matrix holds one label per cell, with annotators along one axis and items along the other. What the table
says is taken first, then its shape, and where neither tells, nothing is guessed:

1. **Names.** The corner (the header of the first column of a file, a DataFrame's index name) naming items
   (``doc_id``, ``item``, ``id``, ``task`` ...) means one item per row; naming annotators (``annotator``, ``coder``,
   ``rater``, ``worker`` ...) one annotator per row. Otherwise: column names that all name annotators
   (``rater_1``, ``rater_2`` ...) mean one annotator per column, all naming items (``item_1`` ...) one item per
   column; the same for the row names.
2. **Shape** (of the labels, without the name row and column): taller than wide is one item per row, wider than
   tall one annotator per row (the classroom layout: 3 annotators × 15 items). A single cell is one annotator.
3. A square matrix with nothing in its names is not guessed: the caller asks for the orientation
   (CLI ``--annotators-as``, Python ``annotators_as=``, Excel ``layout``).

:func:`wide_orientation` is the rule; :func:`column_role` says what a column name names (also used to recognise a
long table whose columns have other names than ``item``, ``annotator``, ``label``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

__all__ = ["Orientation", "column_role", "guess_long_columns", "wide_orientation"]

#: ``"rows"``: one annotator per row; ``"columns"``: one annotator per column.
Orientation = Literal["rows", "columns"]

#: Words that name the things being annotated (a name's words are compared, lower case, singular or plural).
ITEM_WORDS = frozenset(
    "item id doc document task text sentence example sample question unit subject case record image img file "
    "utterance tweet review post segment passage query instance entry message comment article".split()
)
#: Words that name who annotates.
ANNOTATOR_WORDS = frozenset(
    "annotator coder rater worker judge labeler labeller user reviewer participant student assessor grader "
    "evaluator respondent turker expert observer".split()
)
#: Words that name what an annotator gave.
LABEL_WORDS = frozenset(
    "label tag category class answer rating score grade choice sentiment value code response judgement "
    "judgment decision verdict annotation result".split()
)

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
#: Beyond this many row names, the shape alone decides (names are read per name, never per annotation).
_MAX_NAMES = 1000


def _words(name: Any) -> set[str]:
    if not isinstance(name, str):
        return set()
    words = {w.lower() for w in _WORD.findall(name)}
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3}


def column_role(name: Any) -> Literal["item", "annotator", "label"] | None:
    """What a column (or row) name names: ``"annotator"``, ``"item"``, ``"label"`` or ``None``.

    A name with a word for annotators is an annotator name (``annotator_id``, ``completed_by``-style names
    excepted); otherwise one with a word for items an item name (``doc_id``, ``item_3``); otherwise one with a word
    for labels a label name.
    """
    words = _words(name)
    if words & ANNOTATOR_WORDS:
        return "annotator"
    if words & ITEM_WORDS:
        return "item"
    if words & LABEL_WORDS:
        return "label"
    return None


def _all_named(names: Sequence[Any], role: str) -> bool:
    return 0 < len(names) <= _MAX_NAMES and all(column_role(n) == role for n in names)


def wide_orientation(
    n_rows: int,
    n_cols: int,
    *,
    corner: Any = None,
    column_names: Sequence[Any] = (),
    row_names: Sequence[Any] = (),
) -> tuple[Orientation | None, str]:
    """The orientation of a wide matrix of ``n_rows`` × ``n_cols`` labels, and why.

    Parameters
    ----------
    n_rows, n_cols : int
        The size of the labels (without a row of column names or a column of row names).
    corner : optional
        The name of the row-name column (a file's first header cell, a DataFrame's index name).
    column_names, row_names : sequence, optional
        The names of the columns and of the rows, where the table has them.

    Returns
    -------
    orientation : {'rows', 'columns'} or None
        ``'rows'``: one annotator per row; ``'columns'``: one annotator per column; ``None``: the table does not
        say (square, and no name tells) -- the caller asks for it.
    reason : str
        Why, in words for a message (``"the first column 'doc_id' names items"``, ``"it is taller than wide"``).

    Examples
    --------
    >>> from iaa_engine.data._orient import wide_orientation
    >>> wide_orientation(60, 4)
    ('columns', 'it is taller than wide (60 rows × 4 columns)')
    >>> wide_orientation(3, 15)
    ('rows', 'it is wider than tall (3 rows × 15 columns)')
    >>> wide_orientation(4, 4, corner="doc_id")
    ('columns', "the first column 'doc_id' names items")
    >>> wide_orientation(4, 4)[0] is None
    True
    """
    role = column_role(corner)
    if role == "item":
        return "columns", f"the first column {corner!r} names items"
    if role == "annotator":
        return "rows", f"the first column {corner!r} names annotators"
    axes: tuple[tuple[Sequence[Any], Orientation, Orientation], ...] = (
        (column_names, "columns", "rows"),
        (row_names, "rows", "columns"),
    )
    for names, along, other in axes:
        if _all_named(names, "annotator"):
            return along, f"its {along} are named like annotators ({names[0]!r}, ...)"
        if _all_named(names, "item"):
            return other, f"its {along} are named like items ({names[0]!r}, ...)"
    size = f"{n_rows} row{'s' * (n_rows != 1)} × {n_cols} column{'s' * (n_cols != 1)}"
    if n_rows > n_cols:
        return "columns", f"it is taller than wide ({size})"
    if n_cols > n_rows:
        return "rows", f"it is wider than tall ({size})"
    if n_rows * n_cols <= 1:
        return "rows", "it holds one cell"
    return None, f"it is square ({size}) and its names do not say which are annotators"


def guess_long_columns(names: Iterable[Any]) -> dict[str, str]:
    """For a long table with other column names: the first column naming items, annotators and labels (by
    :func:`column_role`), for a message that shows the flags to pass."""
    words = {"item": ITEM_WORDS, "annotator": ANNOTATOR_WORDS, "label": LABEL_WORDS}
    out: dict[str, str] = {}
    exact: set[str] = set()
    for name in names:
        role = column_role(name)
        if role is None or role in exact:
            continue
        whole = isinstance(name, str) and name.strip().lower() in words[role]  # "id" before "annotation_id"
        if role not in out or whole:
            out[role] = str(name)
        if whole:
            exact.add(role)
    return out
