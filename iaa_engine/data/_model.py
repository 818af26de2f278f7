"""The canonical data model: who labelled which item with what.

:class:`Annotations` stores one row per annotation as three integer code arrays
(item, annotator, label) plus the names behind the codes. Every converter in
the project (long tables, wide matrices, count tables, files, spreadsheet
ranges, Label Studio tasks) ends here, and every metric starts here.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from os import PathLike
from types import MappingProxyType
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from iaa_engine.base._choices import LEVELS
from iaa_engine.base._params import ANY, Choice, NoneOr, Text, Whole, validate
from iaa_engine.base._policy import check_choice
from iaa_engine.data._encode import (
    arrow_text,
    encode_id_column,
    encode_text_labels,
    needs_numbers,
    numeric_index,
    parse_numbers,
)
from iaa_engine.data._errors import InputError
from iaa_engine.data._orient import column_role, guess_long_columns, wide_orientation
from iaa_engine.stats._sums import CountSums
from iaa_engine.stats._tables import AnnotatorStats, ItemCounts, PairStats

# the helpers after as_annotations are shared with the Dask engine and the group metrics
__all__ = [
    "Annotations",
    "LEVELS",
    "as_annotations",
    "encode_labels",
    "extra_codes",
    "extra_times",
    "factorize_values",
    "is_missing_mask",
    "resolve_duplicates",
]

#: A level of measurement: one of :data:`LEVELS` (checked where it is passed in).
Level = str

#: The largest count a count table may hold: every whole number up to it is exact in float64.
_MAX_COUNT = 2.0**53
#: The largest magnitude of an interval or ratio label: squared differences, times counts of up to 10**9 squared,
#: stay far from float64's overflow (about 1.8e308).
MAX_MAGNITUDE = 1e100


# --------------------------------------------------------------------------- helpers


def is_missing_mask(values: np.ndarray) -> np.ndarray:
    """True where a value means "no annotation": None, NaN, NA, NaT, or a blank string."""
    s = pd.Series(values, copy=False)
    mask = s.isna().to_numpy()
    if s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
        try:
            blank = s.str.strip() == ""
        except (AttributeError, TypeError):  # an object column without any string (numbers, bytes, tuples)
            return mask
        mask = mask | blank.to_numpy(dtype=bool, na_value=False)
    return mask


def _label_kind(values: np.ndarray) -> str:
    """Classify non-missing labels as 'numeric', 'string', 'boolean' or 'other'; raise if mixed."""
    if values.dtype.kind in "iuf":
        return "numeric"
    if values.dtype.kind == "b":
        return "boolean"
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return "numeric"
    if inferred == "string":
        return "string"
    if inferred == "boolean":
        return "boolean"
    if inferred in ("mixed", "mixed-integer"):
        kinds = set(pd.Series(values).map(lambda v: type(v).__name__).unique())
        if kinds <= {"tuple", "frozenset", "str"} and kinds & {"tuple", "frozenset"}:
            # hierarchical labels given as (parent, child) tuples; set-valued labels (tuples or frozensets of
            # choices, a plain string being a one-choice label) for krippendorff_alpha(distance=...)
            return "other"
        examples = ", ".join(sorted(kinds)[:6])
        raise ValueError(
            "labels must all be of one type (all numbers, or all strings); "
            f"got a mix of {examples}. Convert the label column to one type first"
        )
    return "other"  # tuples (hierarchical labels), categoricals of objects, ...


def _freeze(labels: np.ndarray) -> np.ndarray:
    """Lists (e.g. Label Studio taxonomy paths) become tuples and sets frozensets, so that they can be categories."""

    def freeze(v: Any) -> Any:
        if isinstance(v, (list, tuple)):
            return tuple(freeze(x) for x in v)
        if isinstance(v, (set, frozenset)):
            return frozenset(freeze(x) for x in v)
        return v

    out = np.empty(len(labels), dtype=object)
    out[:] = [freeze(v) for v in labels]
    return out


def _typed_array(values: Any) -> np.ndarray:
    """A non-text column (Arrow, pandas or array-like) as a numpy array with its own type."""
    if hasattr(values, "to_pandas") and not isinstance(values, (pd.Series, pd.Index)):  # Arrow
        values = values.to_pandas()
    if isinstance(values, (pd.Series, pd.Index)):
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        return values.to_numpy()
    return np.asarray(values)


def _annotation(row: int) -> str:
    return f"annotation {row + 1}"


# --------------------------------------------------------------------------- kept columns (keep=)


def _aligned(values: Any, rows: np.ndarray | None) -> Any:
    """A kept column as read, at the annotations' rows (``rows``: the positions kept, None for all): text as one
    Arrow string array (an object array without pyarrow), typed values as a numpy array (timestamps with a time zone
    as UTC)."""
    text = arrow_text(values)
    if text is not None:
        if rows is None:
            return text
        if isinstance(text, np.ndarray):
            return text[rows]
        import pyarrow as pa

        return text.take(pa.array(rows))
    if hasattr(values, "to_pandas") and not isinstance(values, (pd.Series, pd.Index)):  # Arrow
        values = values.to_pandas()
    if isinstance(values, (pd.Series, pd.Index)) and isinstance(values.dtype, pd.DatetimeTZDtype):
        values = pd.Series(values).dt.tz_convert("UTC").dt.tz_localize(None)
    arr = _typed_array(values)
    return arr if rows is None else arr[rows]


def _extra(data: Annotations, name: str) -> Any:
    if name not in data.extra:
        kept = sorted(map(str, data.extra))
        raise ValueError(
            f"no column {name!r} was kept beside the annotations "
            + (f"(kept: {kept!r}); " if kept else "(none was); ")
            + "read the data with keep=[...] naming it (ie.read(path, keep=[...]) or Annotations.from_long(table, "
            "keep=[...]); CLI: --by/--time COLUMN)"
        )
    return data.extra[name]


def _cached(data: Annotations, key: tuple, make: Callable[[], Any]) -> Any:
    cache = data.__dict__.setdefault("_extra_cache", {})
    if key not in cache:
        cache[key] = make()
    return cache[key]


def extra_codes(data: Annotations, name: str) -> tuple[np.ndarray, pd.Index]:
    """``(codes, groups)`` of a kept column (:attr:`Annotations.extra`): one sorted code per annotation, ``-1`` where
    the value is missing (blank text, null, NaN), and the distinct values in order. Text stays text as written
    (``"007"`` and ``"7"`` are two groups, ``"None"`` is a group; surrounding whitespace is not part of a value);
    typed values keep their type. Computed once per column (dictionary codes: no Python object per row)."""
    return cast(tuple, _cached(data, ("codes", name), lambda: _group_codes(_extra(data, name))))


def _group_codes(values: Any) -> tuple[np.ndarray, pd.Index]:
    from iaa_engine.data import _encode as enc

    if not isinstance(values, np.ndarray) or (values.dtype == object and enc._np_text(values) is not None):
        codes, dictionary = enc._encode(values)
        missing = np.append(enc._dict_equals(dictionary, ""), True)  # the last slot: null
        codes = np.where(missing[codes], -1, codes)
        present = np.bincount(codes[codes >= 0], minlength=len(dictionary)) > 0
        used = np.flatnonzero(present)
        remap = np.full(len(dictionary) + 1, -1, dtype=np.int64)
        sub = enc._dict_take(dictionary, used)
        order, rank = enc._sorted_rank(sub)
        remap[used] = rank
        return remap[codes], enc._text_index(sub, order, arrow_backed=False)
    ok = ~is_missing_mask(values)
    codes = np.full(values.size, -1, dtype=np.int64)
    if not ok.any():
        return codes, pd.Index([])
    sub_codes, groups = factorize_values(values[ok])
    codes[ok] = sub_codes
    return codes, groups


def extra_times(data: Annotations, name: str) -> np.ndarray:
    """A kept column as timestamps (``datetime64[ns]``, NaT where missing), parsed once.

    Text is read as ISO 8601 (``2024-03-05``, ``2024-03-05 14:30``, ``2024-03-05T14:30:00.123Z``,
    ``...+02:00``): times with an offset are converted to UTC, times without one are taken as they are. No other
    format is guessed (``03/05/2024`` is refused: day and month cannot be told apart). Typed timestamps (Parquet,
    a DataFrame's datetime column) are used as they are (with a time zone: in UTC).

    Raises
    ------
    ValueError
        The column is not kept, holds something other than timestamps (numbers, or text that is not ISO 8601: the
        message names the first such value and its annotation), or every value is missing.
    """
    return cast(np.ndarray, _cached(data, ("times", name), lambda: _parse_times(_extra(data, name), name)))


def _parse_times(values: Any, name: str) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype.kind == "M":
        out = values.astype("datetime64[ns]")
    elif isinstance(values, np.ndarray) and values.dtype != object:
        raise ValueError(
            f"column {name!r} holds {values.dtype} values, not timestamps; a time column holds dates or times such "
            "as 2024-03-05 or 2024-03-05T14:30:00Z"
        )
    elif isinstance(values, np.ndarray) and _np_is_objects(values):  # datetime / Timestamp objects
        try:
            stamps = pd.to_datetime(pd.Series(values, copy=False), utc=True)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"column {name!r} holds values that are not timestamps ({exc})") from None
        out = stamps.dt.tz_localize(None).to_numpy(dtype="datetime64[ns]")
    else:
        out = _parse_text_times(values, name)
    if np.isnat(out).all():
        raise ValueError(f"column {name!r} has no timestamp (every value is missing)")
    return out


def _np_is_objects(values: np.ndarray) -> bool:
    """An object array that is not text (``str`` and missing values only): e.g. ``datetime`` objects."""
    from iaa_engine.data import _encode as enc

    return values.dtype == object and enc._np_text(values) is None


def _parse_text_times(values: Any, name: str) -> np.ndarray:
    """ISO 8601 text as datetime64[ns]: Arrow's parser on the whole column (no Python object per row), pandas' ISO
    8601 parser on the distinct values where Arrow refuses (mixed offsets), and an error naming a bad value."""
    from iaa_engine.data import _encode as enc

    arrow = enc._pa()
    if arrow is not None and not isinstance(values, np.ndarray):
        pa, pc = arrow

        clean: list[Any] = []

        def trimmed() -> Any:  # blank cells as nulls, surrounding whitespace off (once, when a cast needs it)
            if not clean:
                text = pc.utf8_trim_whitespace(values)
                clean.append(pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text))
            return clean[0]

        for target, trim in ((pa.timestamp("ns"), False), (pa.timestamp("ns"), True),
                             (pa.timestamp("ns", tz="UTC"), True)):  # fmt: skip
            try:
                parsed = pc.cast(trimmed() if trim else values, target)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
            return np.asarray(parsed.cast(pa.int64()).fill_null(np.iinfo(np.int64).min)).view("datetime64[ns]")
    codes, dictionary = enc._encode(values)
    distinct = pd.Index(enc._dict_values(dictionary), dtype=object)
    blank = np.append(np.asarray([v == "" for v in distinct], dtype=bool), True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parsed = pd.to_datetime(pd.Series(distinct.where(~blank[:-1], None)), format="ISO8601", utc=True,
                                errors="coerce")  # fmt: skip
    bad = parsed.isna().to_numpy() & ~blank[:-1]
    if bad.any():
        row_bad = np.append(bad, False)[codes]
        row = int(np.flatnonzero(row_bad)[0])
        raise ValueError(
            f"column {name!r}: {distinct[int(codes[row])]!r} (annotation {row + 1}) is not a timestamp; expected ISO "
            "8601 dates or times such as 2024-03-05, 2024-03-05 14:30 or 2024-03-05T14:30:00Z (other formats are "
            "not guessed: convert them first)"
        )
    stamps = parsed.dt.tz_localize(None).to_numpy(dtype="datetime64[ns]")
    return np.append(stamps, np.datetime64("NaT", "ns"))[codes]


def encode_labels(
    values: Any,
    level: str,
    categories: Sequence[Any] | None,
    na_values: Sequence[str] = (),
    *,
    where: Callable[[int], str] = _annotation,
) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """``(keep, codes, categories)``: which rows carry a label, their codes, and the category index.

    Text columns go through :func:`iaa_engine.data._encode.encode_text_labels` (codes as read, text as written); typed
    columns (numbers, booleans, tuples and sets of choices) keep their own values. ``where(row)`` names a row in a
    message (``annotation 3``; a wide matrix names the cell).
    """
    text = encode_text_labels(values, level=level, categories=categories, na_values=na_values, where=where)
    if text is not None:
        return text
    labels = _typed_array(values)
    keep = ~is_missing_mask(labels)
    if na_values and labels.dtype == object:
        keep &= ~pd.Series(labels, copy=False).isin([str(v).strip() for v in na_values]).to_numpy()
    labels = labels[keep]
    if labels.size == 0:
        return keep, np.zeros(0, dtype=np.int64), pd.Index([])
    try:
        codes, cats = _encode_typed_labels(labels, level, categories)
    except _NotFinite as exc:
        row = int(np.flatnonzero(keep)[exc.position])
        raise ValueError(
            f"label {_plain(labels[exc.position])!r} ({where(row)}) is not a finite number; the {level} level "
            "needs finite numbers"
        ) from None
    return keep, codes, cats


class _NotFinite(ValueError):
    """A typed label that is not a finite number, at ``position`` among the kept labels."""

    def __init__(self, position: int) -> None:
        super().__init__(position)
        self.position = position


def _encode_typed_labels(
    labels: np.ndarray, level: str, categories: Sequence[Any] | None
) -> tuple[np.ndarray, pd.Index]:
    """Return integer codes and the category index (sorted, or in the given order)."""
    if labels.dtype == object and len(labels) and pd.api.types.infer_dtype(labels[:1000], skipna=True) == "mixed":
        labels = _freeze(labels)
    kind = _label_kind(labels)
    if kind == "numeric" and labels.dtype == object:
        labels = pd.to_numeric(pd.Series(labels, copy=False)).to_numpy()
    if level in ("interval", "ratio") and kind != "numeric":
        example = next((v for v in labels[:1000] if not isinstance(v, (int, float, np.number))), labels[0])
        raise ValueError(
            f"the {level} level needs numeric labels; got {example!r} ({type(example).__name__}). "
            "Use level='nominal' or level='ordinal' for categories"
        )
    if kind == "numeric" and level != "nominal":
        finite = np.isfinite(labels.astype(float))
        if not finite.all():
            raise _NotFinite(int(np.flatnonzero(~finite)[0]))
    if categories is not None:
        # tupleize_cols=False: taxonomy paths of different lengths stay paths (pandas would try a MultiIndex)
        cats = pd.Index(list(categories), tupleize_cols=False)
        if cats.has_duplicates:
            dup = cats[cats.duplicated()][0]
            raise ValueError(f"categories must be distinct; {dup!r} is listed twice")
        if kind == "numeric" and not pd.api.types.is_numeric_dtype(cats.dtype):
            try:
                cats = pd.Index(parse_numbers([str(c) for c in cats], what="categories"))
                cats = pd.Index(cats.to_numpy().astype(np.int64)) if np.all(cats == np.round(cats)) else cats
            except ValueError:
                pass
        codes = cats.get_indexer(labels).astype(np.int64)  # -1 where not a category (no pandas-4 warning)
        unknown = codes < 0
        if unknown.any():
            bad = pd.unique(labels[unknown])[:5]
            raise ValueError(f"labels {list(bad)!r} are not among the given categories {list(cats)[:10]!r}")
        return codes, cats
    if level == "ordinal" and kind != "numeric":
        raise ValueError(
            "the ordinal level needs the order of the categories: pass categories=[lowest, ..., highest] "
            "(non-numeric labels are never sorted silently)"
        )
    return factorize_values(labels)


def _category_numbers(cats: pd.Index, level: str) -> np.ndarray:
    """Text category names as numbers, for a level that needs numbers."""
    try:
        return parse_numbers([str(c) for c in cats], what="label")
    except ValueError as exc:
        if level == "ordinal":
            raise ValueError(
                "the ordinal level needs the order of the categories: pass categories=[lowest, ..., "
                f"highest] (non-numeric labels are never sorted silently); {exc}"
            ) from None
        raise ValueError(f"the {level} level needs numeric labels; {exc}") from None


def _encode_ids(values: Any, what: str, keep: np.ndarray | None = None) -> tuple[np.ndarray, pd.Index]:
    """Sorted codes of an id column: text as written (codes as read), typed ids as typed."""
    text = encode_id_column(values, what, keep)
    if text is not None:
        return text
    arr = _typed_array(values)
    if keep is not None and not keep.all():
        arr = arr[keep]
    return _factorize_ids(arr, what)


def factorize_values(values: np.ndarray) -> tuple[np.ndarray, pd.Index]:
    """Sorted factorisation; integer codes in a compact range take a counting fast path (no hashing)."""
    if values.dtype.kind in "iu" and values.size:
        lo, hi = int(values.min()), int(values.max())
        if hi - lo <= 4 * values.size + 1024:
            shifted = values.astype(np.int64) - lo
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            lookup = np.cumsum(present) - 1
            return lookup[shifted], pd.Index(np.flatnonzero(present) + lo)
    head = values[:1000] if values.dtype == object else ()
    if any(isinstance(v, (tuple, frozenset)) for v in head):
        return _factorize_collections(values)
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:  # unorderable objects: keep first-seen order
        codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64), pd.Index(uniques)


def _factorize_collections(values: np.ndarray) -> tuple[np.ndarray, pd.Index]:
    """Tuples (paths, multi-select answers) and frozensets, sorted in Python.

    pandas sorts tuples as rows of a table, which pads tuples of different
    lengths (deprecated); Python compares them element by element, a prefix
    first. Frozensets compare by inclusion, which is no total order: they sort
    by size, then elements. Unorderable mixes keep first-seen order.
    """
    codes, uniques = pd.factorize(values, sort=False)
    if all(isinstance(u, frozenset) for u in uniques):
        keys = [(len(u), sorted(map(repr, u))) for u in uniques]
    else:
        keys = list(uniques)
    try:
        order = np.array(sorted(range(len(uniques)), key=keys.__getitem__), dtype=np.int64)
    except TypeError:
        return codes.astype(np.int64), pd.Index(uniques)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[codes].astype(np.int64), pd.Index(uniques[order])


def _factorize_ids(values: np.ndarray, what: str) -> tuple[np.ndarray, pd.Index]:
    if values.dtype.kind not in "iu" and len(values) and pd.isna(values).any():
        raise ValueError(f"the {what} column has missing values; every annotation needs an {what}")
    return factorize_values(values)


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``1.5``, not ``np.float64(1.5)``), for messages."""
    return value.item() if isinstance(value, np.generic) else value


def _orientation(frame: pd.DataFrame) -> Literal["rows", "columns"]:
    """``from_wide`` without ``annotators_as``: the shared rule (:func:`iaa_engine.data._orient.wide_orientation`)
    on the DataFrame's names and shape, or an error asking for the keyword."""
    n_rows, n_cols = frame.shape
    orientation, why = wide_orientation(
        n_rows,
        n_cols,
        corner=frame.index.name,
        column_names=list(frame.columns) if n_cols <= 1000 else [],
        row_names=list(frame.index) if n_rows <= 1000 else [],
    )
    if orientation is None:
        raise InputError(
            f"cannot tell which way round the matrix is: {why}. Say whether each row holds one annotator's labels "
            "(annotators_as='rows', the classroom layout) or each column does (annotators_as='columns')",
            cli=f"cannot tell which way round the matrix is: {why}; pass --annotators-as rows or columns",
        )
    return orientation


def _refuse_long_lookalike(frame: pd.DataFrame) -> None:
    """A DataFrame without ``item``/``annotator``/``label`` columns whose column names are those of a long table
    (a column naming items or annotators beside others) is not read as a wide matrix of labels."""
    names = list(frame.columns)
    roles = [column_role(c) for c in names]
    if all(r == "annotator" for r in roles) or all(r == "item" for r in roles):  # rater_1, rater_2, ...: wide
        return
    if not any(r in ("item", "annotator") for r in roles) and not any(
        isinstance(c, str) and c.casefold() in ("item", "annotator", "label") for c in names
    ):
        return
    guess = guess_long_columns(names)
    args = ", ".join(f"{k}={guess.get(k, 'NAME')!r}" for k in ("item", "annotator", "label"))
    wide = (
        f"; for a wide matrix, set the id column as the index first (df.set_index({guess['item']!r}))"
        if ("item" in guess)
        else ""
    )
    raise ValueError(
        f"this DataFrame has columns {[_plain(c) for c in names]!r}: a long table (one row per annotation), not a "
        f"wide matrix of labels. Read it with ie.Annotations.from_long(df, {args}){wide}"
    )


# --------------------------------------------------------------------------- the model


class Annotations:
    """Who labelled which item with what: the one data model of :mod:`iaa_engine`.

    Build it with :meth:`from_long`, :meth:`from_wide`, :meth:`from_counts` or
    :func:`read`; every metric also accepts the raw forms that
    :func:`as_annotations` converts.

    Attributes
    ----------
    item, annotator, label : numpy.ndarray of int64, shape (n_annotations,)
        Codes into :attr:`items`, :attr:`annotators` and :attr:`categories`.
        ``annotator`` is ``None`` for data built from a count table.
    items, annotators, categories : pandas.Index
        The names behind the codes. ``categories`` is in order (the given order
        for ordinal data, numeric order for numbers, sorted otherwise).
    level : {'nominal', 'ordinal', 'interval', 'ratio'}
        The level of measurement used by default by level-aware metrics.
    n_annotations, n_items, n_annotators, n_categories : int
        Sizes (``n_annotators`` is ``None`` for a count table).
    counts : ItemCounts
        The items × categories count table :math:`n_{ic}` (sparse entries;
        ``counts.to_dense()`` gives the full array), computed on first use.

    Notes
    -----
    Missing annotations are simply absent: blank cells, ``None``, ``NaN`` and
    empty strings are missing, while ``0`` and ``"0"`` are labels. An annotator
    may label an item once; duplicates are an error unless ``duplicates='first'``
    or ``'last'`` picks one (the rule is applied in input order).

    The derived views (:attr:`counts`, :attr:`annotator_stats`,
    :attr:`pair_stats`) are computed once, vectorised, and shared by all metrics.
    Each is a sum over items, so it can be computed per partition of items and
    combined (see :mod:`iaa_engine.stats._tables`).

    The long layout, one row per observation (an annotation) with one column
    per variable (item, annotator, label), is the "tidy" layout of Wickham
    (2014); the wide matrix of the classroom exercise and the count table of
    Fleiss (1971) are converted to it at the edges.

    References
    ----------
    Wickham, H. (2014). Tidy data. Journal of Statistical Software 59(10), 1–23.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Examples
    --------
    A long table with one row per annotation; ``cy`` did not label ``t1``:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> table = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t2", "t3"],
    ...                       "annotator": ["ann", "bob", "ann", "bob", "cy", "cy"],
    ...                       "label": ["pos", "pos", "neg", "pos", "neg", "neg"]})
    >>> data = ie.Annotations.from_long(table)
    >>> data
    Annotations(n_annotations=6, n_items=3, n_annotators=3, n_categories=2, level='nominal')
    >>> list(data.categories), data.label
    (['neg', 'pos'], array([1, 1, 0, 1, 0, 0]))

    The counts :math:`n_{ic}` (items × categories) that the metrics start from:

    >>> data.counts.to_dense()
    array([[0, 2],
           [2, 1],
           [1, 0]])
    """

    #: Whether the counts are fractional (a count table of weights, e.g. averaged votes): only the coefficients of
    #: Gwet's framework accept them (:meth:`from_counts`).
    fractional: bool = False

    #: Further columns kept beside the annotations when asked (``keep=`` of :meth:`from_long` and :func:`read`): name
    #: -> the column as read (an Arrow string array for text, a numpy array for typed values), one value per
    #: annotation in the order of :attr:`item`. :func:`extra_codes` turns one into sorted group codes and
    #: :func:`extra_times` into timestamps, each on first use. Empty unless asked for.
    extra: Mapping[str, Any] = MappingProxyType({})

    def __init__(
        self,
        item: np.ndarray,
        annotator: np.ndarray | None,
        label: np.ndarray,
        *,
        items: pd.Index,
        annotators: pd.Index | None,
        categories: pd.Index,
        level: str = "nominal",
    ) -> None:
        self.item = np.asarray(item, dtype=np.int64)
        self.annotator = None if annotator is None else np.asarray(annotator, dtype=np.int64)
        self.label = np.asarray(label, dtype=np.int64)
        self.items = pd.Index(items)
        self.annotators = None if annotators is None else pd.Index(annotators)
        self.categories = pd.Index(categories)
        self.level = check_choice("level", level, LEVELS)
        if level in ("interval", "ratio") and not pd.api.types.is_numeric_dtype(self.categories.dtype):
            raise ValueError(f"the {level} level needs numeric labels; got categories {list(self.categories)[:5]!r}")
        if level == "ratio" and len(self.categories) and float(np.min(self.categories.to_numpy(float))) < 0:
            raise ValueError("the ratio level needs non-negative values (a ratio scale has an absolute zero)")
        if level in ("interval", "ratio") and len(self.categories):
            values = self.categories.to_numpy(float)
            big = np.flatnonzero(np.abs(values) > MAX_MAGNITUDE)
            if big.size:
                raise ValueError(
                    f"label {_plain(self.categories[big[0]])!r} is beyond ±{MAX_MAGNITUDE:g}: at the {level} level "
                    "the squared differences of such values overflow; rescale the labels (the coefficients do not "
                    "change when every label is divided by the same number)"
                )

    # ---------------------------------------------------------------- constructors

    @classmethod
    @validate(level=Choice(*LEVELS))
    def from_long(
        cls,
        table: pd.DataFrame,
        *,
        item: str = "item",
        annotator: str = "annotator",
        label: str = "label",
        level: Level = "nominal",
        categories: Sequence[Any] | None = None,
        duplicates: Literal["error", "first", "last"] = "error",
        na_values: Sequence[str] = (),
        keep: Sequence[str] = (),
    ) -> Annotations:
        """Build from a long table with one row per annotation.

        Parameters
        ----------
        table : pandas.DataFrame
            One row per (item, annotator, label). Rows whose label is missing
            are dropped (that annotator did not label that item).
        item, annotator, label : str, default 'item', 'annotator', 'label'
            Column names.
        level : {'nominal', 'ordinal', 'interval', 'ratio'}, default 'nominal'
            Level of measurement used by default by level-aware metrics
            (Krippendorff's alpha).
        categories : sequence, optional
            All categories, in order. Required for ``level='ordinal'`` with
            non-numeric labels; labels outside it are an error.
        duplicates : {'error', 'first', 'last'}, default 'error'
            What to do when one annotator labelled one item more than once
            (``'first'``/``'last'``: keep that one, in table order).
        na_values : sequence of str, default ()
            Label texts that mean "not labelled" besides blank cells and
            ``None``/``NaN`` (e.g. ``["NA"]``). Text such as ``"None"`` or
            ``"NA"`` is otherwise a label.
        keep : sequence of str, default ()
            Further columns to carry beside the annotations (a batch, a document type, an annotator group, a
            timestamp): kept as read in :attr:`extra`, one value per annotation, for :func:`agreement_by`.

        Returns
        -------
        Annotations

        Raises
        ------
        InvalidParameterError
            An option is not one it accepts (the message says what was expected and what came).
        TypeError
            ``table`` is not a pandas DataFrame.
        ValueError
            A named column (or a kept one) is missing; every label is missing; an item or annotator id is missing;
            an annotator labelled an item twice with ``duplicates='error'``; labels mix types, are not among
            ``categories``, or are not numbers where the level needs numbers; or the ordinal level has text labels
            without their order.

        Notes
        -----
        Text ids are kept exactly as written (``"01"`` and ``"1"`` are two
        items) and text labels stay text at the nominal level; they are parsed
        as numbers only at the interval and ratio levels, and at the ordinal
        level unless the order of text categories is given. Surrounding
        whitespace is not part of an id or label.

        References
        ----------
        Wickham, H. (2014). Tidy data. Journal of Statistical Software 59(10), 1–23.

        Examples
        --------
        >>> import pandas as pd
        >>> import iaa_engine as ie
        >>> table = pd.DataFrame({"doc": ["d1", "d1", "d2", "d2"], "coder": ["ann", "bob", "ann", "bob"],
        ...                       "grade": ["low", "mid", "high", "high"]})
        >>> data = ie.Annotations.from_long(table, item="doc", annotator="coder", label="grade",
        ...                                 level="ordinal", categories=["low", "mid", "high"])
        >>> data
        Annotations(n_annotations=4, n_items=2, n_annotators=2, n_categories=3, level='ordinal')
        >>> list(data.categories)
        ['low', 'mid', 'high']
        """
        if not isinstance(table, pd.DataFrame):
            raise TypeError(f"from_long expects a pandas DataFrame; got {type(table).__name__}")
        missing = [c for c in (item, annotator, label, *keep) if c not in table.columns]
        if missing:
            raise ValueError(
                f"column(s) {missing!r} not found; the table has columns {list(map(str, table.columns))!r}. "
                "Name the columns with item=, annotator=, label= (CLI: --item-col, --annotator-col, --label-col)"
            )
        return cls._from_columns(
            table[item],
            table[annotator],
            table[label],
            level=level,
            categories=categories,
            duplicates=duplicates,
            na_values=na_values,
            extra={name: table[name] for name in keep},
        )

    @classmethod
    def _from_columns(
        cls,
        item: Any,
        annotator: Any,
        label: Any,
        *,
        level: str,
        categories: Sequence[Any] | None,
        duplicates: str,
        na_values: Sequence[str] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> Annotations:
        """The long-table constructor on three columns (Arrow arrays from the readers, or pandas Series); ``extra``
        columns are carried beside the annotations (:attr:`extra`), filtered by the same rows."""
        keep, label_codes, cats = encode_labels(label, level, categories, na_values)
        if label_codes.size == 0:
            raise ValueError("the data holds no annotations (every label is missing or the table is empty)")
        item_codes, items = _encode_ids(item, "item", keep)
        ann_codes, annotators = _encode_ids(annotator, "annotator", keep)
        kept = _duplicate_keep(item_codes, ann_codes, len(annotators), duplicates, items, annotators)
        if kept is not None:
            item_codes, ann_codes, label_codes = item_codes[kept], ann_codes[kept], label_codes[kept]
        out = cls(
            item_codes,
            ann_codes,
            label_codes,
            items=items,
            annotators=annotators,
            categories=cats,
            level=level,
        )
        if extra:
            rows = None if keep.all() else np.flatnonzero(keep)
            if kept is not None:
                rows = np.flatnonzero(kept) if rows is None else rows[kept]
            out.extra = {str(name): _aligned(values, rows) for name, values in extra.items()}
        return out

    @classmethod
    @validate(level=Choice(*LEVELS))
    def from_wide(
        cls,
        matrix: Any,
        *,
        annotators_as: Literal["rows", "columns"] | None = None,
        level: Level = "nominal",
        categories: Sequence[Any] | None = None,
        na_values: Sequence[str] = (),
    ) -> Annotations:
        """Build from a wide matrix: annotators as rows (the classroom layout) or as columns.

        Parameters
        ----------
        matrix : pandas.DataFrame or array-like of shape (n_annotators, n_items) or (n_items, n_annotators)
            Cells hold labels; blank cells, ``None``, ``NaN`` and ``""`` are
            missing. A DataFrame's index and columns name the annotators and
            items; otherwise they are numbered from 0.
        annotators_as : {'rows', 'columns'}, optional
            Whether each row (as in the classroom exercise) or each column
            holds one annotator's labels. By default the matrix says, as
            :func:`read` and the Excel functions read it: a DataFrame's index
            name, column names or row names that name items or annotators
            (``doc_id``; ``rater_1``, ``rater_2``, ...) tell; otherwise a matrix
            wider than tall has one annotator per row and one taller than wide
            one annotator per column. A square matrix whose names do not tell
            is an error asking for this keyword.
        level, categories, na_values
            As in :meth:`from_long` (text cells stay text at the nominal level).

        Returns
        -------
        Annotations
            Items (columns of the annotators-as-rows matrix) without any label
            are left out.

        Raises
        ------
        InvalidParameterError
            An option is not one it accepts (the message says what was expected and what came).
        ValueError
            The matrix is not 2-dimensional or is empty; ``annotators_as`` is not given and the orientation
            cannot be told (square, without names that tell) or the DataFrame's column names are those of a long
            table (``doc``, ``worker``, ``tag``; use :meth:`from_long`); every cell is missing; item or annotator
            names repeat; or the labels do not fit ``level`` or ``categories`` (as in :meth:`from_long`).

        References
        ----------
        Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material,
        based on material by Eva Maria Vecchi): the annotation matrix with one row per annotator.

        Examples
        --------
        Two annotators (rows) and three items; the second annotator skipped the last item:

        >>> import iaa_engine as ie
        >>> data = ie.Annotations.from_wide([["pos", "neg", "pos"], ["pos", "pos", None]])
        >>> data
        Annotations(n_annotations=5, n_items=3, n_annotators=2, n_categories=2, level='nominal')
        >>> data.to_long().tail(2)
           item  annotator label
        3     0          1   pos
        4     1          1   pos
        """
        if isinstance(matrix, pd.DataFrame):
            frame = matrix
        else:
            arr = np.asarray(matrix, dtype=object) if not isinstance(matrix, np.ndarray) else matrix
            if arr.ndim != 2:
                raise ValueError(
                    f"a wide matrix must be 2-dimensional (annotators × items); got {arr.ndim} dimension(s)"
                )
            frame = pd.DataFrame(arr)
        if annotators_as is None:
            if isinstance(matrix, pd.DataFrame):
                _refuse_long_lookalike(frame)
            annotators_as = _orientation(frame)
        if annotators_as == "columns":
            frame = frame.T
        if frame.shape[0] == 0 or frame.shape[1] == 0:
            raise ValueError(f"the matrix is empty (shape {frame.shape}); it needs annotators and items")
        values = frame.to_numpy()
        n_ann, n_items = values.shape
        flat = values.ravel(order="C")
        ann = np.repeat(np.arange(n_ann), n_items)
        itm = np.tile(np.arange(n_items), n_ann)
        items = pd.Index(frame.columns)
        annotators = pd.Index(frame.index)

        def cell(r: int) -> str:
            return f"annotator {_plain(annotators[r // n_items])!r}, item {_plain(items[r % n_items])!r}"

        keep, label_codes, cats = encode_labels(flat, level, categories, na_values, where=cell)
        if label_codes.size == 0:
            raise ValueError("the data holds no annotations (every cell is missing)")
        ann, itm = ann[keep], itm[keep]
        for what, idx in (("item", items), ("annotator", annotators)):
            if idx.has_duplicates:
                raise ValueError(f"{what} names must be unique; {idx[idx.duplicated()][0]!r} appears twice")
        # keep only items that carry at least one annotation: blank columns are not items
        used = np.unique(itm)
        remap = np.full(n_items, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        return cls(
            remap[itm],
            ann,
            label_codes,
            items=items[used],
            annotators=annotators,
            categories=cats,
            level=level,
        )

    @classmethod
    @validate(level=Choice(*LEVELS))
    def from_counts(
        cls,
        table: Any,
        *,
        level: Level = "nominal",
        categories: Sequence[Any] | None = None,
    ) -> Annotations:
        """Build from an items × categories count table (``n_ic``: how many annotators chose c for item i).

        Count tables carry no annotator identities: metrics that need them
        (Cohen's kappa, multi-coder kappa, bias, pairwise matrices) raise a
        ``ValueError`` saying so.

        Parameters
        ----------
        table : pandas.DataFrame or array-like of shape (n_items, n_categories)
            Non-negative counts (NaN cells count 0). A
            DataFrame's columns name the categories (in order), its index the
            items; otherwise both are numbered from 0. Fractional counts (e.g.
            averaged or weighted votes) are kept as they are and mark the data
            ``fractional``: Gwet's coefficients (:func:`fleiss_kappa`,
            :func:`gwet_ac1`, :func:`brennan_prediger`,
            :func:`percent_agreement_weighted`, :func:`estimate`) take them, the
            metrics built on exact whole-number sums say they cannot.
        level : {'nominal', 'ordinal', 'interval', 'ratio'}, default 'nominal'
            As in :meth:`from_long`; ``'ordinal'`` with text column names needs
            ``categories``.
        categories : sequence, optional
            Names of the columns, in order (replacing the DataFrame's column
            names); as many as there are columns.

        Returns
        -------
        Annotations
            Kept as the count table it is (never expanded into single
            annotations): ``annotators`` is ``None``, and ``to_long`` is not
            available.

        Raises
        ------
        InvalidParameterError
            An option is not one it accepts (the message says what was expected and what came).
        ValueError
            The table is not 2-dimensional, is empty, holds something other than non-negative numbers,
            or only zeros; ``categories`` has another length than the table's columns; or the ordinal level
            has text categories without their order.

        References
        ----------
        Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
        378–382.

        Examples
        --------
        How many annotators chose each category for each item:

        >>> import pandas as pd
        >>> import iaa_engine as ie
        >>> table = pd.DataFrame({"neg": [0, 2, 1], "pos": [2, 1, 0]}, index=["t1", "t2", "t3"])
        >>> data = ie.Annotations.from_counts(table)
        >>> data
        Annotations(n_annotations=6, n_items=3, n_annotators=unknown, n_categories=2, level='nominal')
        >>> data.counts.to_dense()
        array([[0, 2],
               [2, 1],
               [1, 0]])
        """
        if isinstance(table, pd.DataFrame):
            frame = table
        else:
            arr = np.asarray(table)
            if arr.ndim != 2:
                raise ValueError(f"a count table must be 2-dimensional (items × categories); got {arr.ndim}")
            frame = pd.DataFrame(arr)
        if frame.shape[0] == 0 or frame.shape[1] == 0:
            raise ValueError(f"the count table is empty (shape {frame.shape})")
        try:
            values = frame.to_numpy(dtype=float)
        except (TypeError, ValueError):
            raise ValueError("a count table must hold numbers (counts of annotations per item and category)") from None
        if np.isnan(values).any():
            values = np.nan_to_num(values, nan=0.0)
        if (values < 0).any() or not np.isfinite(values).all():
            raise ValueError("a count table must hold non-negative numbers")
        if (values > _MAX_COUNT).any():
            i, c = np.argwhere(values > _MAX_COUNT)[0]
            raise ValueError(
                f"count {_plain(frame.iat[i, c])!r} (item {_plain(frame.index[i])!r}, category "
                f"{_plain(frame.columns[c])!r}) is more than 2**53 = {int(_MAX_COUNT):,}, the largest count held "
                "exactly; a count table holds numbers of annotations"
            )
        if float(values.sum()) >= 2.0**63:
            raise ValueError("the counts add up to 2**63 or more annotations, more than can be counted exactly")
        fractional = bool((values != np.round(values)).any())
        counts = values if fractional else values.astype(np.int64)
        cats = pd.Index(frame.columns) if categories is None else pd.Index(list(categories), tupleize_cols=False)
        if len(cats) != counts.shape[1]:
            raise ValueError(f"categories has {len(cats)} names but the table has {counts.shape[1]} columns")
        if level == "ordinal" and categories is None and not pd.api.types.is_numeric_dtype(cats.dtype):
            raise ValueError(
                "the ordinal level needs the order of the categories: pass categories=[lowest, ..., highest]"
            )
        total = int(round(float(counts.sum()))) if fractional else int(counts.sum())
        if counts.sum() == 0:
            raise ValueError("the count table holds no annotations (all counts are 0)")
        # kept as the table it is: never expanded into single annotations (a cell may count 10**9 of them)
        out = cls.from_stats(
            ItemCounts.from_dense(counts),
            items=pd.Index(frame.index),
            categories=cats,
            level=level,
            n_annotations=total,
        )
        out.fractional = fractional
        return out

    @classmethod
    @validate(
        level=Choice(*LEVELS),
        counts=ANY,
        items=ANY,
        annotators=ANY,
        annotator_stats=ANY,
        pair_stats=ANY,
        count_sums=ANY,
        n_annotations=NoneOr(Whole(0)),
        patterns=ANY,
        unit_sums=ANY,
        entry_patterns=ANY,
    )
    def from_stats(
        cls,
        counts: ItemCounts | None = None,
        *,
        items: Sequence[Any] | pd.Index | int,
        categories: Sequence[Any] | pd.Index,
        level: Level = "nominal",
        annotators: Sequence[Any] | pd.Index | None = None,
        annotator_stats: AnnotatorStats | None = None,
        pair_stats: PairStats | None = None,
        count_sums: CountSums | None = None,
        n_annotations: int | None = None,
        patterns: tuple[np.ndarray, np.ndarray] | None = None,
        unit_sums: Any = None,
        entry_patterns: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> Annotations:
        """Build from sufficient statistics alone (e.g. combined from partitions on a cluster).

        Every metric runs unchanged on the result, because metrics only read
        :attr:`count_sums` (or :attr:`counts`), :attr:`annotator_stats` and
        :attr:`pair_stats`. Give either the per-item ``counts`` or only their
        sums over items, ``count_sums`` (then ``items`` may be the number of
        items, and per-item results such as :func:`item_agreement` are not
        available). Metrics that need annotators need ``annotators`` and the two
        annotator tables. The bootstrap (:func:`iaa_engine.bootstrap`) and the analytic standard errors need the
        items' distinct count vectors and their multiplicities, ``patterns`` (as
        :func:`~iaa_engine.inference._inference.count_patterns` gives them), and the annotator metrics' bootstrap
        the sums per resampling unit, ``unit_sums``
        (:class:`~iaa_engine.inference._resampling.UnitSums`); Conger's kappa's standard error, per annotation cell
        (annotator · C + label) and pattern, the items with that pattern carrying it, ``entry_patterns``.
        """
        if (counts is None) == (count_sums is None):
            raise ValueError("give exactly one of counts (per item) or count_sums (summed over items)")
        obj = cls.__new__(cls)
        obj.item = obj.annotator = obj.label = None  # type: ignore[assignment]  # statistics only: no codes
        obj.items = pd.RangeIndex(items) if isinstance(items, (int, np.integer)) else pd.Index(items)
        obj.categories = pd.Index(categories)
        obj.annotators = None if annotators is None else pd.Index(annotators)
        obj.level = level
        obj._n_annotations = n_annotations  # type: ignore[attr-defined]
        size = counts.n_items if counts is not None else len(obj.items)
        cats = counts.n_categories if counts is not None else cast(CountSums, count_sums).n_categories
        if size != len(obj.items) or cats != len(obj.categories):
            raise ValueError(
                f"the statistics describe {size} items × {cats} categories but "
                f"{len(obj.items)} item and {len(obj.categories)} category names were given"
            )
        if (annotator_stats is None or pair_stats is None) and annotators is not None:
            raise ValueError("annotators needs both annotator_stats and pair_stats")
        if counts is not None:
            obj.__dict__["counts"] = counts  # pre-fill the cached views
        else:
            obj.__dict__["count_sums"] = count_sums
        if annotator_stats is not None:
            obj.__dict__["annotator_stats"] = annotator_stats
        if pair_stats is not None:
            obj.__dict__["pair_stats"] = pair_stats
        obj._patterns = patterns  # type: ignore[attr-defined]
        obj._unit_sums = unit_sums  # type: ignore[attr-defined]
        obj._entry_patterns = entry_patterns  # type: ignore[attr-defined]
        return obj

    def _stats_with_categories(self, position: np.ndarray, new: pd.Index, level: str) -> Annotations:
        """``with_level`` for statistics-only data: recode the category axis of every table."""
        if "counts" not in self.__dict__:
            raise ValueError("re-reading the categories needs per-item counts; summarise the data at the level needed")
        c = self.counts
        order = np.lexsort((position[c.category], c.item))
        counts = ItemCounts(c.item[order], position[c.category][order], c.count[order], c.n_items, len(new))
        ann = pairs = None
        if self.annotators is not None:
            old = self.annotator_stats.counts
            table = np.zeros((old.shape[0], len(new)), dtype=old.dtype)
            table[:, position] = old
            ann = AnnotatorStats(table)
            ps = self.pair_stats
            pairs = PairStats(
                ps.a, position[ps.k], ps.b, position[ps.l], ps.count, ps.n_annotators, len(new), ps.items_per_annotator
            )
        out = Annotations.from_stats(
            counts,
            items=self.items,
            categories=new,
            level=level,
            annotators=self.annotators,
            annotator_stats=ann,
            pair_stats=pairs,
            n_annotations=self.n_annotations,
        )
        out.fractional = self.fractional
        return out

    # ---------------------------------------------------------------- sizes

    @property
    def n_annotations(self) -> int:
        """Number of annotations (non-missing labels)."""
        if self.label is None:
            if getattr(self, "_n_annotations", None) is not None:
                return int(self._n_annotations)
            return int(self.counts.count.sum())
        return int(self.label.size)

    @property
    def n_items(self) -> int:
        """Number of items carrying at least one annotation."""
        return len(self.items)

    @property
    def n_annotators(self) -> int | None:
        """Number of annotators (``None`` for count-table data)."""
        return None if self.annotators is None else len(self.annotators)

    @property
    def n_categories(self) -> int:
        """Number of categories (given, or observed)."""
        return len(self.categories)

    def __repr__(self) -> str:
        ann = "unknown" if self.annotators is None else self.n_annotators
        return (
            f"Annotations(n_annotations={self.n_annotations}, n_items={self.n_items}, "
            f"n_annotators={ann}, n_categories={self.n_categories}, level={self.level!r})"
        )

    @validate(level=Choice(*LEVELS))
    def with_level(self, level: Level, categories: Sequence[Any] | None = None) -> Annotations:
        """The same annotations read at another level of measurement (and optionally another order).

        Text categories are parsed as numbers where the new level needs them
        (interval, ratio, and ordinal without a given order); ``"1"`` and
        ``"1.0"`` then become one category.

        Parameters
        ----------
        level : {'nominal', 'ordinal', 'interval', 'ratio'}
            The new level of measurement.
        categories : sequence, optional
            All categories in their order (e.g. ``["low", "mid", "high"]`` for
            ordinal text labels); every label must be among them.

        Returns
        -------
        Annotations
            ``self`` when nothing changes, otherwise a new object (the item and
            annotator codes are shared, not copied).

        Raises
        ------
        InvalidParameterError
            An option is not one it accepts (the message says what was expected and what came).
        ValueError
            A label is not among ``categories``; the level needs numbers and a label is not one (a ratio
            level also needs them non-negative); the ordinal level has text labels without their order; or the
            data holds only sums over items, whose categories cannot be re-read.

        References
        ----------
        Stevens, S. S. (1946). On the theory of scales of measurement. Science 103(2684), 677–680.

        Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
        University of Pennsylvania.

        Examples
        --------
        >>> import iaa_engine as ie
        >>> data = ie.Annotations.from_wide([["1", "2", "2"], ["2", "2", "1"]])  # text, as read from a CSV file
        >>> list(data.categories)
        ['1', '2']
        >>> interval = data.with_level("interval")
        >>> interval.level, list(interval.categories)
        ('interval', [1, 2])
        """
        if level == self.level and categories is None:
            return self
        codes, cats = self.label, self.categories
        text = not pd.api.types.is_numeric_dtype(cats.dtype) and all(isinstance(c, str) for c in cats)
        if categories is not None:
            new = pd.Index(list(categories), tupleize_cols=False)
            if text and needs_numbers(level, categories):  # text labels read as numbers, e.g. "1" and "1.0"
                old_values = _category_numbers(cats, level)
                new_values = parse_numbers([str(c) for c in new], what="categories")
                position = pd.Index(new_values).get_indexer(old_values)
            elif text:
                position = pd.Index([str(c).strip() for c in new]).get_indexer(cats)
            else:
                position = new.get_indexer(self.categories)
            if (position < 0).any():
                bad = list(self.categories[position < 0][:5])
                raise ValueError(f"labels {bad!r} are not among the given categories {list(new)[:10]!r}")
            if self.label is None:
                return self._stats_with_categories(position, new, level)
            codes, cats = position[self.label], new
        elif text and needs_numbers(level, None):
            values = _category_numbers(cats, level)
            distinct = np.unique(values)
            position = np.searchsorted(distinct, values)
            new = numeric_index(distinct)
            if self.label is None:
                return self._stats_with_categories(position, new, level)
            codes, cats = position[self.label], new
        elif level == "ordinal" and not pd.api.types.is_numeric_dtype(cats.dtype):
            raise ValueError(
                "the ordinal level needs the order of the categories: pass categories=[lowest, ..., highest] "
                "(non-numeric labels are never sorted silently)"
            )
        if self.label is None:  # a count table or summed statistics: the same categories at another level
            return self._stats_with_categories(np.arange(len(cats)), cats, level)
        out = Annotations(
            self.item,
            self.annotator,
            codes,
            items=self.items,
            annotators=self.annotators,
            categories=cats,
            level=level,
        )
        out.extra = self.extra  # the kept columns ride along (same rows)
        return out

    @validate(metric=Text())
    def require_annotators(self, metric: str) -> None:
        """Raise a clear error if this data has no annotator identities."""
        if self.annotators is None:
            raise ValueError(
                f"{metric} needs to know who gave each label, but this data was built from a count table "
                "(items × categories), which has no annotator identities. Use a long table or a wide matrix"
            )

    def to_long(self) -> pd.DataFrame:
        """The annotations as a long table with columns item, annotator, label.

        Returns
        -------
        pandas.DataFrame
            One row per annotation, with the names behind the codes (no
            ``annotator`` column for data without annotators).

        Raises
        ------
        ValueError
            The data holds only a count table or sufficient statistics: the single annotations are not there.

        References
        ----------
        Wickham, H. (2014). Tidy data. Journal of Statistical Software 59(10), 1–23.

        Examples
        --------
        >>> import iaa_engine as ie
        >>> ie.Annotations.from_wide([["a", "b"], ["a", "a"]], annotators_as="rows").to_long()
           item  annotator label
        0     0          0     a
        1     1          0     b
        2     0          1     a
        3     1          1     a
        """
        if self.label is None:
            raise ValueError("this data holds only sufficient statistics (from_stats): the annotations are not here")
        out = {"item": self.items.take(self.item)}
        if self.annotator is not None:
            out["annotator"] = cast(pd.Index, self.annotators).take(self.annotator)
        out["label"] = self.categories.take(self.label)
        return pd.DataFrame({k: np.asarray(v) for k, v in out.items()})

    # ---------------------------------------------------------------- derived views (computed once)

    @property
    def has_item_counts(self) -> bool:
        """Whether the per-item count table is here (False for sums over items summarised on a cluster)."""
        return self.item is not None or "counts" in self.__dict__

    @cached_property
    def counts(self) -> ItemCounts:
        """The items × categories count table ``n_ic`` (sparse entries, sorted by item)."""
        if self.item is None:
            raise ValueError(
                "per-item counts are not available: this data holds only sums over items (summarised on a "
                "cluster); per-item results (item agreement, gold labels, bootstrap, facets) need the annotations"
            )
        return ItemCounts.from_codes(self.item, self.label, self.n_items, self.n_categories)

    @cached_property
    def count_sums(self) -> CountSums:
        """Sums over items from which every count-based metric is finalised."""
        if self.fractional:
            raise ValueError(
                "this count table holds fractional counts, which this metric's exact (whole-number) sums cannot "
                "take; fractional tables work with fleiss_kappa, gwet_ac1, brennan_prediger, "
                "percent_agreement_weighted and estimate() (Gwet's formulas)"
            )
        return CountSums.from_counts(self.counts)

    @cached_property
    def annotator_stats(self) -> AnnotatorStats:
        """Per-annotator label counts ``n_ak`` (annotators × categories)."""
        self.require_annotators("per-annotator statistics")
        return AnnotatorStats.from_codes(
            cast(np.ndarray, self.annotator), self.label, cast(int, self.n_annotators), self.n_categories
        )

    @cached_property
    def pair_stats(self) -> PairStats:
        """Co-annotation statistics for every ordered pair of annotators."""
        self.require_annotators("pairwise statistics")
        return PairStats.from_codes(
            self.item,
            cast(np.ndarray, self.annotator),
            self.label,
            self.n_items,
            cast(int, self.n_annotators),
            self.n_categories,
        )

    @validate()
    def category_values(self, level: str | None = None) -> np.ndarray:
        """Numeric values of the categories (interval/ratio levels).

        Parameters
        ----------
        level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
            The level named in the error message (default: the data's level).

        Returns
        -------
        numpy.ndarray of float
            One value per category, in the order of :attr:`categories`.

        Raises
        ------
        InvalidParameterError
            An option is not one it accepts (the message says what was expected and what came).
        ValueError
            The categories are not numbers (read the data at the interval or ratio level first, e.g. with
            :meth:`with_level`).

        References
        ----------
        Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
        University of Pennsylvania.

        Examples
        --------
        >>> import iaa_engine as ie
        >>> ie.Annotations.from_wide([[1, 2.5], [2.5, 4]], annotators_as="rows", level="interval").category_values()
        array([1. , 2.5, 4. ])
        """
        level = self.level if level is None else level
        if not pd.api.types.is_numeric_dtype(self.categories.dtype):
            raise ValueError(f"the {level} level needs numeric labels; got categories {list(self.categories)[:5]!r}")
        return self.categories.to_numpy(dtype=float)


def resolve_duplicates(item, ann, label, n_ann, rule, items, annotators):
    kept = _duplicate_keep(item, ann, n_ann, rule, items, annotators)
    if kept is None:
        return item, ann, label
    return item[kept], ann[kept], label[kept]


def _duplicate_keep(item, ann, n_ann, rule, items, annotators) -> np.ndarray | None:
    """The rows kept by the duplicates ``rule`` (a boolean mask), or None when no annotator labels an item twice."""
    # Fast check: the (item, annotator) keys sorted (numpy sorts integers with SIMD; the sort releases the GIL), equal
    # neighbours mean a pair labelled twice. The keys are 32-bit while items × annotators fit: half the bytes to sort.
    small = len(items) * max(n_ann, 1) <= np.iinfo(np.uint32).max
    key = np.multiply(item, max(n_ann, 1), dtype=np.uint32 if small else np.int64, casting="unsafe")
    np.add(key, ann, out=key, casting="unsafe")
    key.sort()
    if not np.any(key[1:] == key[:-1]):
        return None
    key = item * max(n_ann, 1) + ann
    dup = pd.Series(key).duplicated(keep=False).to_numpy()
    if rule == "error":
        first = int(np.flatnonzero(dup)[0])
        n_pairs = int(pd.Series(key[dup]).nunique())
        head = (
            f"{n_pairs} (item, annotator) pair(s) are labelled more than once, e.g. annotator "
            f"{_plain(annotators[ann[first]])!r} on item {_plain(items[item[first]])!r}. Each annotator may label "
            "an item once; "
        )
        raise InputError(
            head + "pass duplicates='first' or duplicates='last' to keep one of them",
            cli=head + "pass --duplicates first or --duplicates last to keep one of them",
        )
    return ~pd.Series(key).duplicated(keep=rule).to_numpy()


# --------------------------------------------------------------------------- conversion at the edges


@validate()
def as_annotations(data: Any, *, level: Level | None = None, categories: Sequence[Any] | None = None) -> Annotations:
    """Bring any supported input to :class:`Annotations`.

    Accepted: an :class:`Annotations` object (returned as is, or re-read at
    ``level``); a DataFrame with columns ``item``, ``annotator``, ``label``
    (a long table); any other DataFrame or 2-D array-like, read as a wide
    matrix oriented as :meth:`Annotations.from_wide` reads it without
    ``annotators_as`` (wider than tall: annotators as rows, the classroom
    layout; taller than wide: annotators as columns; square: an error). A
    DataFrame whose column names are those of a long table (``doc``,
    ``worker``, ``tag``) is refused with the :meth:`Annotations.from_long` call
    to make. Use the ``Annotations.from_*`` constructors for anything else
    (a square matrix, count tables, other column names). Every metric calls
    this on its ``data``.

    Parameters
    ----------
    data : Annotations, pandas.DataFrame or 2-D array-like
        The annotations (see above). A path is refused: read files with :func:`read`.
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level of measurement; default: the data's own (``'nominal'`` for raw
        input). An :class:`Annotations` object is re-read at this level
        (:meth:`Annotations.with_level`).
    categories : sequence, optional
        All categories, in order (as in :meth:`Annotations.from_long`).

    Returns
    -------
    Annotations
        ``data`` itself when it is an :class:`Annotations` object and neither
        ``level`` nor ``categories`` is given.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is a path, or of a type that cannot be read as annotations.
    ValueError
        The table or matrix cannot be read (see :meth:`Annotations.from_long` and :meth:`Annotations.from_wide`):
        a square matrix, or a DataFrame with the column names of a long table.

    References
    ----------
    Wickham, H. (2014). Tidy data. Journal of Statistical Software 59(10), 1–23.

    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material, based
    on material by Eva Maria Vecchi): the annotation matrix with one row per annotator.

    Examples
    --------
    The classroom layout, one row per annotator:

    >>> import iaa_engine as ie
    >>> data = ie.as_annotations([[1, 1, 2, 1], [1, 2, 2, 1], [2, 1, 2, 1]])
    >>> data
    Annotations(n_annotations=12, n_items=4, n_annotators=3, n_categories=2, level='nominal')
    >>> ie.as_annotations(data) is data
    True
    >>> ie.as_annotations(data, level="interval").level
    'interval'
    """
    if isinstance(data, Annotations):
        if level is None and categories is None:
            return data
        return data.with_level(level or data.level, categories)
    lvl = check_choice("level", level, LEVELS) if level is not None else "nominal"
    if isinstance(data, pd.DataFrame):
        if {"item", "annotator", "label"} <= set(map(str, data.columns)):
            return Annotations.from_long(data, level=lvl, categories=categories)
        _refuse_long_lookalike(data)
        return Annotations.from_wide(data, level=lvl, categories=categories)
    if isinstance(data, (str, PathLike)):
        raise TypeError("got a path; read files with iaa_engine.read(path) first")
    if isinstance(data, (np.ndarray, list, tuple)):
        return Annotations.from_wide(data, level=lvl, categories=categories)
    raise TypeError(
        f"expected Annotations, a pandas DataFrame or a 2-D array-like of labels; got {type(data).__name__}"
    )
