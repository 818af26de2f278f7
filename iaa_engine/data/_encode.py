"""Codes as read: ids and labels become integer codes on the columns the reader returns.

Text columns are dictionary-encoded by Arrow; every decision that depends on a value (surrounding whitespace, what
is missing, number parsing, sorting) is taken once per *distinct* value on the dictionary, and the rows only go
through integer look-ups. Nothing here turns a whole column into Python objects.

The rules (the README's "Reading data" section says the same):

* Ids are text exactly as written (``01``, ``1`` and ``001`` are three items; ``1.1`` and ``1.10`` two), or the
  file's own typed column (Parquet or JSON integers, timestamps). Surrounding whitespace is not part of a value.
* A label is missing when its cell is blank (empty or only whitespace), null in a typed file, ``None``/``NaN`` in a
  DataFrame, or one of the ``na_values`` the caller names. Nothing else: ``None``, ``NA``, ``null`` or ``NaN``
  written as text are labels (a :class:`NALikeLabelWarning` says when such a label is present).
* Labels stay text at the nominal level. They are parsed as numbers only where the level needs numbers: interval,
  ratio, and ordinal when no order is given or the given categories are numbers. A value that is not a finite
  number is an error that names it and its row.

Without pyarrow (Pyodide releases that do not ship it, e.g. 0.28.0-0.29.1, where the Excel add-in may run), the
same steps run on numpy object arrays: :func:`pandas.factorize` encodes, :meth:`str.strip` trims (Arrow's
``utf8_trim_whitespace`` and Python agree on what is whitespace: Unicode category Zs and the bidirectional classes
WS, B, S), Python's sort orders by code point as Arrow orders UTF-8 bytes, and numbers are parsed by ``float``
(as the Arrow path already does for a column holding any non-number). The results are the same, codes and
categories included; text ids come back as an object index instead of an Arrow-backed one.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._policy import external_stacklevel
from iaa_engine.data._files import arrow_codes, sort_order, take_codes

__all__ = [
    "NALikeLabelWarning",
    "arrow_text",
    "encode_id_column",
    "encode_text_labels",
    "needs_numbers",
    "numeric_index",
    "parse_numbers",
]

#: Labels that other tools read as missing; here they are labels, and a warning says so.
NA_LIKE = frozenset({"na", "n/a", "nan", "null", "none", "#n/a", "nil", "missing"})


class NALikeLabelWarning(UserWarning):
    """A label looks like a missing-value marker (``NA``, ``None``, ``null``, ...) but is counted as a category.

    Pass ``na_values=[...]`` (CLI ``--na-values``) to read such cells as missing instead.

    Examples
    --------
    >>> import warnings
    >>> import iaa_engine as ie
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     data = ie.Annotations.from_wide([["pos", "NA", "neg"], ["pos", "neg", "neg"]])
    >>> caught[0].category.__name__, list(data.categories)
    ('NALikeLabelWarning', ['NA', 'neg', 'pos'])
    >>> ie.Annotations.from_wide([["pos", "NA", "neg"], ["pos", "neg", "neg"]], na_values=["NA"]).n_annotations
    5
    """


def _pa() -> tuple[Any, Any] | None:
    """``(pyarrow, pyarrow.compute)``, or ``None`` when pyarrow cannot be imported (then the numpy path runs).

    Looked up on every call (a dictionary look-up once imported), so the fallback follows ``sys.modules``."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None
    return pa, pc


def _np_text(values: Any) -> np.ndarray | None:
    """Without pyarrow: the values as an object array of ``str`` and ``None`` when they are text, else ``None``
    (what :func:`arrow_text` accepts: string columns, ``U`` arrays, object arrays of ``str`` and missing values)."""
    if isinstance(values, (pd.Series, pd.Index)):
        if isinstance(values.dtype, pd.StringDtype):
            out = np.array(values.astype(object), dtype=object)
            out[pd.isna(out)] = None
            return out
        values = values.to_numpy()
    if not isinstance(values, np.ndarray):
        return None
    if values.dtype.kind == "U":
        return values.astype(object)
    if values.dtype != object or values.size == 0 or values.ndim != 1:
        return None
    flat = values
    missing = pd.isna(flat)
    present = flat[~missing]
    if not all(isinstance(v, str) for v in present):  # numbers, tuples, sets: the typed path
        return None
    out = flat.copy()
    out[missing] = None
    return out


def _dict_values(dictionary: Any) -> np.ndarray:
    """The entries of a dictionary (Arrow array or, without pyarrow, object array) as an object array."""
    if isinstance(dictionary, np.ndarray):
        return dictionary
    return np.asarray(dictionary.to_pylist(), dtype=object)


def _dict_item(dictionary: Any, j: int) -> Any:
    return dictionary[j] if isinstance(dictionary, np.ndarray) else dictionary[j].as_py()


def _dict_take(dictionary: Any, idx: np.ndarray) -> Any:
    if isinstance(dictionary, np.ndarray):
        return dictionary[idx]
    pa, _ = _pa()  # type: ignore[misc]  # an Arrow dictionary: pyarrow is there
    return dictionary.take(pa.array(idx))


def _dict_equals(dictionary: Any, value: str) -> np.ndarray:
    if isinstance(dictionary, np.ndarray):
        return np.array([v == value for v in dictionary], dtype=bool)
    _, pc = _pa()  # type: ignore[misc]
    return pc.equal(dictionary, value).to_numpy(zero_copy_only=False).copy()


def _dict_isin(dictionary: Any, values: list[str]) -> np.ndarray:
    if isinstance(dictionary, np.ndarray):
        return pd.Index(dictionary, dtype=object).isin(values)
    pa, pc = _pa()  # type: ignore[misc]
    return pc.is_in(dictionary, value_set=pa.array(values, type=pa.string())).to_numpy(zero_copy_only=False)


def arrow_text(values: Any) -> Any | None:
    """The values as one Arrow string array when they are text (nulls allowed), else ``None``.

    Accepts Arrow arrays (string, large string, dictionary of strings), pandas string columns and object arrays that
    hold only ``str`` and missing values. Object arrays holding anything else (numbers, tuples, sets) return
    ``None`` and keep the typed path. Without pyarrow: the same values as an object array of ``str`` and ``None``.
    """
    arrow = _pa()
    if arrow is None:
        return _np_text(values)
    pa, _ = arrow
    values = _one_array(values)
    if isinstance(values, pa.Array):
        t = values.type
        if pa.types.is_dictionary(t) and (pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type)):
            return values.cast(t.value_type)
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
            return values
        if pa.types.is_null(t):
            return values.cast(pa.string())
        return None
    if isinstance(values, (pd.Series, pd.Index)):
        dtype = values.dtype
        if isinstance(dtype, pd.StringDtype) or (
            isinstance(dtype, pd.ArrowDtype) and pa.types.is_string(dtype.pyarrow_dtype)
        ):
            return _one_array(
                pa.array(values.array if isinstance(values, pd.Series) else values, type=pa.string(), from_pandas=True)
            )
        values = values.to_numpy()
    if isinstance(values, np.ndarray):
        if values.dtype.kind == "U":
            return pa.array(values, type=pa.string())
        if values.dtype != object or values.size == 0:
            return None
        try:
            return pa.array(values, type=pa.string(), from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None  # numbers, tuples, sets, ...: the typed path
    return None


def _one_array(arr: Any) -> Any:
    """A ChunkedArray as one contiguous Array (pandas' Arrow-backed strings arrive chunked)."""
    arrow = _pa()
    if arrow is None:
        return arr
    pa, _ = arrow
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr


def _encode(arr: Any) -> tuple[np.ndarray, Any]:
    """Dictionary codes (``-1`` for null) and the dictionary, whitespace trimmed and merged.

    The codes are Arrow's index type as read (int32 for most columns): they only index small per-value arrays, and
    each caller's final codes come out of an int64 look-up table, so no 10⁷-row int64 copy is made here.
    """
    if isinstance(arr, np.ndarray):  # without pyarrow
        codes, uniques = pd.factorize(arr, use_na_sentinel=True)
        codes = codes.astype(np.int64, copy=False)
        dictionary = np.asarray(uniques, dtype=object)
        trimmed = np.array([v.strip() for v in dictionary], dtype=object)
        if len(dictionary) and not all(a == b for a, b in zip(trimmed, dictionary)):
            merged, trimmed = pd.factorize(trimmed)
            lookup = np.append(merged.astype(np.int64), -1)
            codes = lookup[codes]
            trimmed = np.asarray(trimmed, dtype=object)
        return codes, trimmed
    return arrow_codes(arr)


def _text_codes(values: Any) -> tuple[np.ndarray, Any, bool, np.ndarray | None] | None:
    """``(codes, dictionary, has_null, order)`` of a text column (``order``: the dictionary's sort order when a read
    started early computed it, else ``None``), or ``None`` when the column is not text."""
    early = take_codes(values)
    if early is not None:
        return early
    arr = arrow_text(values)
    if arr is None:
        return None
    codes, dictionary = _encode(arr)
    return codes, dictionary, _has_null(arr, codes), None


def _has_null(arr: Any, codes: np.ndarray) -> bool:
    """Whether the column holds a null (code ``-1``): Arrow counts them as it reads; without pyarrow, one pass."""
    if isinstance(arr, np.ndarray):
        return bool(codes.size) and bool(codes.min() < 0)
    return arr.null_count > 0


def _sort_order(dictionary: Any) -> np.ndarray:
    """The dictionary's entries' positions in sorted order."""
    if isinstance(dictionary, np.ndarray):  # code point order = Arrow's UTF-8 byte order
        return np.argsort(dictionary, kind="stable").astype(np.int64)
    return sort_order(dictionary)


def _sorted_rank(dictionary: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(order, rank)``: the dictionary's sort order and each entry's position in it."""
    order = _sort_order(dictionary)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size, dtype=np.int64)
    return order, rank


def _text_index(dictionary: Any, order: np.ndarray, *, arrow_backed: bool) -> pd.Index:
    if isinstance(dictionary, np.ndarray):
        return pd.Index(dictionary[order], dtype=object)
    pa, _ = _pa()  # type: ignore[misc]
    taken = dictionary.take(pa.array(order))
    if arrow_backed:
        return pd.Index(pd.arrays.ArrowStringArray(taken))
    return pd.Index(np.asarray(taken.to_pylist(), dtype=object))


def encode_id_column(values: Any, what: str, keep: np.ndarray | None = None) -> tuple[np.ndarray, pd.Index] | None:
    """Sorted integer codes of a text id column (rows where ``keep`` is false dropped first).

    Returns ``None`` when the column is not text (typed ids keep their own path).

    Raises
    ------
    ValueError
        If a kept row has a blank or null id.
    """
    text = _text_codes(values)
    if text is None:
        return None
    codes, dictionary, has_null, order = text
    blank = _dict_equals(dictionary, "")
    if keep is None or keep.all():
        # every row labelled (the usual case): no copy of the codes, and no pass over the rows, since every entry of
        # the dictionary occurs on some row (an encoding lists only the values it met; trimming merges entries)
        bad = bool(blank.any()) or has_null
        present = None
    else:
        codes = codes[keep]
        # one pass over the kept rows: how often each entry occurs (slot 0: null), for the blank check and for the
        # ids seen only on rows without a label
        seen = np.bincount(codes + 1, minlength=len(dictionary) + 1)
        bad = bool(seen[0]) or bool(seen[1:][blank].any())
        present = seen[1:] > 0
    if bad:  # the error path: the first row holding a blank or null id
        row = int(np.flatnonzero(np.append(blank, True)[codes])[0])
        raise ValueError(
            f"the {what} column has a blank or missing value (annotation {row + 1}); every annotation needs an {what}"
        )
    if order is None:
        order = _sort_order(dictionary)
    if present is not None and not present.all():  # ids seen only on rows without a label: not items / annotators
        order = order[present[order]]  # the sorted entries that occur on a labelled row
    rank = np.empty(len(dictionary), dtype=np.int64)  # entries left out are never looked up
    rank[order] = np.arange(order.size, dtype=np.int64)
    return rank[codes], _text_index(dictionary, order, arrow_backed=True)


def _try_numbers(arr: Any) -> tuple[np.ndarray, np.ndarray]:
    """Float values of an Arrow string array and a mask of the entries that are not finite numbers."""
    arrow = _pa()
    if arrow is not None and not isinstance(arr, np.ndarray):
        pa, pc = arrow
        try:
            values = pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False).astype(float)
            return values, ~np.isfinite(values)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    values = np.full(len(arr), np.nan)
    for j, s in enumerate(_dict_values(arr)):  # some value is not a number (or no Arrow): parse one by one
        try:
            values[j] = float(s)
        except (TypeError, ValueError):
            pass
    return values, ~np.isfinite(values)


def parse_numbers(text: Sequence[str] | np.ndarray, *, what: str) -> np.ndarray:
    """Finite float64 values of text values, or a ``ValueError`` naming the first that is not a finite number."""
    arr: Any = np.asarray([str(t).strip() for t in text], dtype=object)
    arrow = _pa()
    if arrow is not None:
        arr = arrow[0].array(arr, type=arrow[0].string())
    values, bad = _try_numbers(arr)
    if bad.any():
        raise ValueError(f"{what}: {_dict_item(arr, int(np.flatnonzero(bad)[0]))!r} is not a finite number")
    return values


def numeric_index(values: np.ndarray) -> pd.Index:
    """Whole numbers as int64, otherwise float64."""
    if values.size and np.all(values == np.round(values)) and np.all(np.abs(values) < 2.0**53):
        return pd.Index(values.astype(np.int64))
    return pd.Index(values)


def needs_numbers(level: str, categories: Sequence[Any] | None) -> bool:
    if level in ("interval", "ratio"):
        return True
    if level != "ordinal":
        return False
    if categories is None:
        return True
    cats = list(categories)
    if all(isinstance(c, (int, float, np.number)) and not isinstance(c, bool) for c in cats):
        return True
    if all(isinstance(c, str) for c in cats):
        try:
            parse_numbers([c.strip() for c in cats], what="categories")
            return True
        except ValueError:
            return False
    return False


def encode_text_labels(
    values: Any,
    *,
    level: str,
    categories: Sequence[Any] | None,
    na_values: Iterable[str] = (),
    where: Callable[[int], str] = lambda row: f"annotation {row + 1}",
) -> tuple[np.ndarray, np.ndarray, pd.Index] | None:
    """``(keep, codes, categories)`` of a text label column, or ``None`` if the column is not text.

    ``keep`` marks the rows with a label; ``codes`` index ``categories`` for those rows. See the module docstring
    for what is missing and when labels are numbers. ``where(row)`` names a row in a message.
    """
    text = _text_codes(values)
    if text is None:
        return None
    codes, dictionary, has_null, _ = text
    missing = _dict_equals(dictionary, "")
    na = [str(v).strip() for v in na_values]
    if na and len(dictionary):
        missing |= _dict_isin(dictionary, na)
    if not missing.any() and not has_null:
        # every row has a label (the usual case): no pass over the rows; every entry of the dictionary occurs
        keep = np.ones(len(codes), dtype=bool)
        present = np.ones(len(dictionary), dtype=bool)
    else:
        keep = ~np.append(missing, True)[codes]  # the last slot: null
        present = (np.bincount(codes + 1, minlength=len(dictionary) + 1)[1:] > 0) & ~missing  # on a kept row
    if needs_numbers(level, categories):
        # parse each distinct value once; the first row holding a bad value is named
        used = np.flatnonzero(present)
        dict_values, bad = _try_numbers(dictionary)
        bad &= present
        if bad.any():
            row = int(np.flatnonzero(np.append(bad, False)[codes])[0])
            value = _dict_item(dictionary, int(codes[row]))
            if level == "ordinal":
                raise ValueError(
                    "the ordinal level needs the order of the categories: pass categories=[lowest, ..., highest] "
                    f"(CLI --categories); label {value!r} ({where(row)}) is not a number, and text labels "
                    "are never sorted silently"
                )
            raise ValueError(
                f"the {level} level needs numeric labels; label {value!r} ({where(row)}) "
                "is not a finite number. Use level='nominal' or level='ordinal' for categories"
            )
        if categories is not None:
            if all(isinstance(c, str) for c in categories):  # e.g. --categories 1,2,3
                cat_values = parse_numbers(categories, what="categories")
                cats = numeric_index(cat_values)
            else:
                cat_values = np.array([float(c) for c in categories], dtype=float)
                cats = pd.Index(list(categories))
            _check_distinct(cats)
            position = pd.Index(cat_values).get_indexer(dict_values)
            return _finish(codes, keep, position, present, cats, dictionary, level)
        distinct = np.unique(dict_values[used])
        cats = numeric_index(distinct)
        position = np.searchsorted(distinct, dict_values)
        position[~present] = -1
        return _finish(codes, keep, position, present, cats, dictionary, level)
    if categories is not None:
        cats = pd.Index(list(categories))
        _check_distinct(cats)
        wanted = pd.Index([str(c).strip() for c in cats])
        position = wanted.get_indexer(pd.Index(_dict_values(dictionary), dtype=object))
        return _finish(codes, keep, position, present, cats, dictionary, level)
    if level == "ordinal":  # unreachable: ordinal without categories reads numbers
        raise AssertionError
    # nominal text: the sorted distinct labels that occur
    used = np.flatnonzero(present)
    sub = _dict_take(dictionary, used)
    order, rank = _sorted_rank(sub)
    position = np.full(len(dictionary), -1, dtype=np.int64)
    position[used] = rank
    cats = _text_index(sub, order, arrow_backed=False)
    _warn_na_like(cats)
    return _finish(codes, keep, position, present, cats, dictionary, level)


def _check_distinct(cats: pd.Index) -> None:
    if cats.has_duplicates:
        raise ValueError(f"categories must be distinct; {cats[cats.duplicated()][0]!r} is listed twice")


def _finish(codes, keep, position, present, cats, dictionary, level):
    position = np.asarray(position, dtype=np.int64)
    unknown = present & (position < 0)
    if unknown.any():
        bad = [_dict_item(dictionary, int(j)) for j in np.flatnonzero(unknown)[:5]]
        raise ValueError(f"labels {bad!r} are not among the given categories {list(cats)[:10]!r}")
    lookup = np.append(position, -1)
    return keep, lookup[codes[keep] if not keep.all() else codes], cats


def _warn_na_like(cats: pd.Index) -> None:
    found = _na_like_names(cats)
    if found:
        warnings.warn(
            f"label(s) {found!r} are counted as categories, not as missing values; if they mark a missing "
            f"annotation, read with na_values={found!r} (CLI: --na-values {','.join(found)})",
            NALikeLabelWarning,
            stacklevel=external_stacklevel(),
        )


def _na_like_names(cats: pd.Index) -> list:
    """The category names that read like a missing value (``NA_LIKE``, any case), found with Arrow compute."""
    if cats.dtype.kind in "iufcbmM" or len(cats) == 0:
        return []
    arrow = _pa()
    if arrow is None:  # without pyarrow: the (few) category names one by one
        return [c for c in cats if isinstance(c, str) and c.lower() in NA_LIKE]
    pa, pc = arrow
    try:
        arr = pa.array(np.asarray(cats, dtype=object), type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed names (e.g. typed JSON): the few text ones, one by one
        return [c for c in cats if isinstance(c, str) and c.lower() in NA_LIKE]
    hit = pc.is_in(pc.utf8_lower(arr), value_set=pa.array(sorted(NA_LIKE), type=pa.string()))
    return [cats[int(i)] for i in np.flatnonzero(hit.to_numpy(zero_copy_only=False))]
