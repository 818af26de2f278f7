"""The span table of a unitizing study, checked and encoded: who marked which stretch of which document with what.

A span table is long: one row per span with the columns ``annotator``, ``start``, ``end`` (end exclusive; integer
or float positions), ``label`` and, optionally, ``document``. Each document has a *continuum* (its begin and
length) in which every annotator is taken to have looked for units. :func:`span_units` checks the table (a clear
error naming the offending rows, never a wrong number), encodes it as integer codes and positions relative to each
document's begin, and resolves a rater's overlapping units of one label (refused, or merged into their union).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from iaa_engine.base._policy import external_stacklevel, invalid

__all__ = ["SpanUnits", "span_units", "SPAN_COLUMNS"]

#: The columns of a span table (``document`` optional).
SPAN_COLUMNS = ("annotator", "start", "end", "label")
_SHOW = 5


@dataclass(frozen=True, eq=False)
class SpanUnits:
    """A checked span table as codes and positions (positions relative to the begin of the unit's document)."""

    document: np.ndarray
    annotator: np.ndarray
    category: np.ndarray
    begin: np.ndarray
    end: np.ndarray
    documents: pd.Index
    annotators: pd.Index
    categories: pd.Index
    document_begin: np.ndarray
    document_length: np.ndarray
    merged: int


def _rows(frame: pd.DataFrame, mask: np.ndarray) -> str:
    """The first offending rows, as the user wrote them."""
    shown = frame.loc[mask].head(_SHOW).to_dict("records")
    more = int(mask.sum()) - len(shown)
    return "; ".join(str(r) for r in shown) + (f" (and {more} more)" if more > 0 else "")


def _frame(spans: object) -> pd.DataFrame:
    if isinstance(spans, pd.DataFrame):
        frame = spans
    elif isinstance(spans, Mapping) or (isinstance(spans, Sequence) and not isinstance(spans, (str, bytes))):
        try:
            frame = pd.DataFrame(spans)
        except (TypeError, ValueError) as error:
            raise invalid(
                "spans", "a table of spans (a DataFrame, a dict of columns or a list of rows)", spans
            ) from error
    else:
        raise invalid("spans", "a table of spans (a DataFrame, a dict of columns or a list of rows)", spans)
    missing = [c for c in SPAN_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"a span table needs the columns annotator, start, end, label (and optionally document); "
            f"missing: {', '.join(missing)}; it has: {', '.join(map(str, frame.columns))}"
        )
    return frame.reset_index(drop=True)


def _positions(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, bool]:
    out = []
    integral = True
    for name in ("start", "end"):
        column = frame[name]
        try:
            values = pd.to_numeric(column, errors="raise").to_numpy(dtype=float)
        except (TypeError, ValueError):
            bad = pd.to_numeric(column, errors="coerce").isna().to_numpy()
            raise ValueError(
                f"{name} must hold numbers (positions); not a number in row(s): {_rows(frame, bad)}"
            ) from None
        bad = ~np.isfinite(values)
        if bad.any():
            raise ValueError(
                f"{name} must be a finite number in every row; missing or infinite in: {_rows(frame, bad)}"
            )
        integral &= bool(np.all(values == np.round(values)))
        out.append(values)
    start, end = out
    bad = end < start
    if bad.any():
        raise ValueError(f"a span's end must not come before its start (end is exclusive); in: {_rows(frame, bad)}")
    return start, end, integral


def _continuum(
    continuum: object, documents: pd.Index, start: np.ndarray, end: np.ndarray, doc: np.ndarray, has_documents: bool
) -> tuple[pd.Index, np.ndarray, np.ndarray]:
    """(documents, begins, lengths): the documents of the table plus any the continuum names without spans."""
    n = len(documents)
    if continuum is None:
        begin = np.full(n, np.inf)
        stop = np.full(n, -np.inf)
        np.minimum.at(begin, doc, start)
        np.maximum.at(stop, doc, end)
        warnings.warn(
            "no continuum given: each document's continuum is taken from its spans (first start to last end); "
            "alpha_U depends on it (the unmarked stretches before the first and after the last span are "
            "agreement too), so give continuum=(begin, length) or one per document",
            UserWarning,
            stacklevel=external_stacklevel(),
        )
        return documents, begin, stop - begin
    what = (
        "(begin, length), a mapping document -> (begin, length) or length, "
        "or a DataFrame with columns document, begin, length"
    )
    if isinstance(continuum, pd.DataFrame):
        if not {"document", "length"} <= set(continuum.columns):
            raise invalid("continuum", what, continuum)
        begins = continuum["begin"] if "begin" in continuum.columns else pd.Series(0, index=continuum.index)
        table = {k: (b, ln) for k, b, ln in zip(continuum["document"], begins, continuum["length"])}
        return _continuum(table, documents, start, end, doc, has_documents)
    if isinstance(continuum, Mapping):
        if not has_documents and len(continuum) == 1:
            continuum = {documents[0]: next(iter(continuum.values()))} if n else dict(continuum)
        known = set(documents)
        names = list(documents) + [k for k in continuum if k not in known]
        missing = [d for d in documents if d not in continuum]
        if missing:
            raise ValueError(
                f"continuum gives no (begin, length) for the document(s) {', '.join(map(repr, missing[:_SHOW]))}"
                + (f" (and {len(missing) - _SHOW} more)" if len(missing) > _SHOW else "")
            )
        pairs = [_one(continuum[k], what, continuum) for k in names]
        index = pd.Index(names)
        return index, np.array([p[0] for p in pairs], float), np.array([p[1] for p in pairs], float)
    first, size = _one(continuum, what, continuum)
    if n == 0:
        return pd.Index([None] if not has_documents else []), np.array([first]), np.array([size])
    return documents, np.full(n, first), np.full(n, size)


def _one(value: object, what: str, shown: object) -> tuple[float, float]:
    """One continuum: (begin, length), or a length (begin 0)."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        value = (0, value)
    if (
        not isinstance(value, (tuple, list, np.ndarray))
        or len(value) != 2
        or not all(
            isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) for v in value
        )
        or not all(np.isfinite(float(v)) for v in value)
        or float(value[1]) < 0
    ):
        raise invalid("continuum", what + " (finite numbers, length >= 0)", shown)
    return float(value[0]), float(value[1])


def _running_max(values: np.ndarray, new_group: np.ndarray) -> np.ndarray:
    """The running maximum of ``values`` within runs that start where ``new_group`` is True (exact, vectorised)."""
    return pd.Series(values).groupby(np.cumsum(new_group)).cummax().to_numpy()


def _merge(doc: np.ndarray, rater: np.ndarray, cat: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple:
    """Overlapping units of one rater and label (in one document) as their union; touching units stay apart."""
    order = np.lexsort((end, start, cat, rater, doc))
    doc, rater, cat, start, end = doc[order], rater[order], cat[order], start[order], end[order]
    group = np.concatenate([[True], (doc[1:] != doc[:-1]) | (rater[1:] != rater[:-1]) | (cat[1:] != cat[:-1])])
    reach = _running_max(end, group)
    previous = np.concatenate([[-np.inf], reach[:-1]])
    new = group | (start >= previous)
    first = np.flatnonzero(new)
    out_end = np.maximum.reduceat(end, first)
    return doc[first], rater[first], cat[first], start[first], out_end, int(len(order) - len(first))


def span_units(
    spans: object, continuum: object = None, annotators: Sequence | None = None, overlaps: str = "raise"
) -> SpanUnits:
    """Check and encode a span table (see the module's docstring); errors name the offending rows."""
    frame = _frame(spans)
    has_documents = "document" in frame.columns
    for name in ("annotator", "label") + (("document",) if has_documents else ()):
        bad = frame[name].isna().to_numpy()
        if bad.any():
            raise ValueError(f"{name} is missing in row(s): {_rows(frame, bad)}")
    start, end, _ = _positions(frame)
    rater_codes, rater_names = pd.factorize(frame["annotator"], sort=True)
    if annotators is not None:
        extra = [a for a in annotators if a not in set(rater_names)]
        listed = set(annotators)
        absent = [a for a in rater_names if a not in listed]
        if absent:
            raise ValueError(f"annotators does not list {', '.join(map(repr, absent[:_SHOW]))}, who marked spans")
        names = pd.Index(list(rater_names) + extra)
        rater_codes = names.get_indexer(frame["annotator"])
        rater_names = names
    cat_codes, cat_names = pd.factorize(frame["label"], sort=True)
    if has_documents:
        doc_codes, doc_names = pd.factorize(frame["document"], sort=True)
    else:
        doc_codes, doc_names = np.zeros(len(frame), np.int64), pd.Index([None] if len(frame) else [])
    documents, doc_begin, doc_length = _continuum(continuum, pd.Index(doc_names), start, end, doc_codes, has_documents)
    outside = (start < doc_begin[doc_codes]) | (end > doc_begin[doc_codes] + doc_length[doc_codes])
    if outside.any():
        raise ValueError(f"span(s) outside their document's continuum [begin, begin + length]: {_rows(frame, outside)}")
    doc_codes = np.asarray(doc_codes, np.int64)
    rater_codes = np.asarray(rater_codes, np.int64)
    cat_codes = np.asarray(cat_codes, np.int64)
    order = np.lexsort((end, start, cat_codes, rater_codes, doc_codes))
    same = (
        (doc_codes[order][1:] == doc_codes[order][:-1])
        & (rater_codes[order][1:] == rater_codes[order][:-1])
        & (cat_codes[order][1:] == cat_codes[order][:-1])
    )
    # one rater's units of one label overlap when a unit starts before an earlier one ends (touching is fine)
    ends = end[order]
    if same.any():
        reach = _running_max(ends, np.concatenate([[True], ~same]))
        clash = np.concatenate([[False], same & (start[order][1:] < reach[:-1])])
    else:
        clash = np.zeros(len(order), bool)
    merged = 0
    if clash.any() and overlaps != "keep":  # 'keep': gamma aligns a rater's overlapping units as they are
        if overlaps == "raise":
            mask = np.zeros(len(frame), bool)
            mask[order[clash]] = True
            raise ValueError(
                "an annotator's units of one label overlap (alpha_U needs them apart; overlaps='merge' takes their "
                f"union): {_rows(frame, mask)}"
            )
        doc_codes, rater_codes, cat_codes, start, end, merged = _merge(doc_codes, rater_codes, cat_codes, start, end)
    begin_rel = start - doc_begin[doc_codes]
    end_rel = end - doc_begin[doc_codes]
    return SpanUnits(
        document=doc_codes,
        annotator=rater_codes,
        category=cat_codes,
        begin=begin_rel,
        end=end_rel,
        documents=documents,
        annotators=pd.Index(rater_names),
        categories=pd.Index(cat_names),
        document_begin=doc_begin,
        document_length=doc_length,
        merged=merged,
    )
