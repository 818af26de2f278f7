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
from dataclasses import dataclass, replace
from typing import cast

import numpy as np
import pandas as pd

from iaa_engine.base._policy import external_stacklevel, invalid
from iaa_engine.data._model import MAX_MAGNITUDE

__all__ = ["SpanUnits", "span_units", "SPAN_COLUMNS", "AbsentAnnotatorsWarning"]

#: The columns of a span table (``document`` optional).
SPAN_COLUMNS = ("annotator", "start", "end", "label")
_SHOW = 5
#: Fewest documents with spans on which annotators without spans in most of them are taken to look absent.
_FEW_DOCUMENTS = 4


class AbsentAnnotatorsWarning(UserWarning):
    """Annotators without a span in most documents of a study given without ``participants=``.

    Without participants every annotator counts in every document, so an annotator who never saw a document is
    read as saying it holds no unit. In a crowd (each document seen by a few of many annotators) that is rarely
    what happened; giving ``participants=`` (who took part in which document) changes the number, so it is never
    done silently: this warning says how many annotators look absent rather than empty.

    Examples
    --------
    Four documents, each marked by its own two workers: without participants the other six count as having
    marked nothing in it.

    >>> import warnings
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"document": [f"doc{d}" for d in range(4) for _ in (0, 1)],
    ...                       "annotator": [f"w{k}" for k in range(8)], "start": 10, "end": 20, "label": "x"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     crowd = ie.unitizing_alpha(spans, continuum=100)
    >>> caught[0].category.__name__, round(crowd.estimate, 4)
    ('AbsentAnnotatorsWarning', 0.0207)
    >>> round(ie.unitizing_alpha(spans, continuum=100, participants=spans[["document", "annotator"]]).estimate, 4)
    1.0
    """


@dataclass(frozen=True, eq=False)
class SpanUnits:
    """A checked span table as codes and positions (positions relative to the begin of the unit's document).

    With participants: ``participant_document``/``participant_annotator`` are the codes of each (document,
    participant) pair (sorted by document, then annotator), ``n_participants`` the participants of each document
    and ``slot`` each unit's annotator's rank among its document's participants (0 .. n_participants - 1). Without
    them these are None (every annotator takes part in every document).
    """

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
    participant_document: np.ndarray | None = None
    participant_annotator: np.ndarray | None = None
    n_participants: np.ndarray | None = None
    slot: np.ndarray | None = None

    def raters(self) -> np.ndarray:
        """The number of annotators taking part in each document (R_d): the participants, or everyone."""
        if self.n_participants is not None:
            return self.n_participants
        return np.full(len(self.documents), len(self.annotators), np.int64)

    def same_raters(self) -> bool:
        """Whether every document has the same annotators (always without participants): only then can the
        documents be laid end to end as one study of R raters (INCEpTION's and DKPro's pooling)."""
        if self.n_participants is None:
            return True
        D = len(self.documents)
        if D == 0 or np.any(self.n_participants != self.n_participants[0]):
            return False
        table = cast(np.ndarray, self.participant_annotator).reshape(D, int(self.n_participants[0]))
        return bool(np.all(table == table[:1]))

    def without(self, annotator: int) -> SpanUnits:
        """The same study with one annotator (a code) left out of every document: their units and their
        participation (the others become the participants of each document)."""
        D, R = len(self.documents), len(self.annotators)
        if self.participant_document is None:
            p_doc, p_rater = np.repeat(np.arange(D), R), np.tile(np.arange(R), D)
        else:
            p_doc, p_rater = self.participant_document, cast(np.ndarray, self.participant_annotator)
        stay = p_rater != annotator
        p_doc, p_rater = p_doc[stay], p_rater[stay]
        key = p_doc * R + p_rater  # sorted: by document, then annotator
        rank = np.arange(key.size) - np.searchsorted(p_doc, np.arange(D))[p_doc]
        keep = self.annotator != annotator
        document, rater = self.document[keep], self.annotator[keep]
        return replace(
            self,
            document=document,
            annotator=rater,
            category=self.category[keep],
            begin=self.begin[keep],
            end=self.end[keep],
            participant_document=p_doc,
            participant_annotator=p_rater,
            n_participants=np.bincount(p_doc, minlength=D).astype(np.int64),
            slot=rank[np.searchsorted(key, document * R + rater)].astype(np.int64),
        )

    def rater_codes(self) -> tuple[np.ndarray, int]:
        """Each unit's annotator code for the statistics and their number: the slot within its document when
        participants are given (so that only R_d annotators are visited per document), else the annotator."""
        if self.slot is not None:
            n_part = cast(np.ndarray, self.n_participants)
            return self.slot, int(n_part.max()) if n_part.size else 0
        return self.annotator, len(self.annotators)


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
        flags = _booleans(column)
        if flags.any():
            raise ValueError(
                f"{name} must hold numbers (positions), not True/False (a boolean is not read as 0 or 1); "
                f"in row(s): {_rows(frame, flags)}"
            )
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
        big = np.abs(values) > MAX_MAGNITUDE
        if big.any():
            raise ValueError(
                f"{name} must lie within ±{MAX_MAGNITUDE:g} (the disagreements square and multiply lengths, which "
                f"overflow beyond it; positions count the continuum's smallest step, so rescale them); "
                f"in row(s): {_rows(frame, big)}"
            )
        integral &= bool(np.all(values == np.round(values)))
        out.append(values)
    start, end = out
    bad = end < start
    if bad.any():
        raise ValueError(f"a span's end must not come before its start (end is exclusive); in: {_rows(frame, bad)}")
    return start, end, integral


def _booleans(column: pd.Series) -> np.ndarray:
    """True where a cell is a boolean (a bool column, or True/False among the values of an object column)."""
    if pd.api.types.is_bool_dtype(column.dtype):
        return np.ones(len(column), bool)
    if column.dtype != object:
        return np.zeros(len(column), bool)
    return column.map(type).isin([bool, np.bool_]).to_numpy()


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
        or not all(np.isfinite(float(v)) and abs(float(v)) <= MAX_MAGNITUDE for v in value)
        or float(value[1]) < 0
    ):
        raise invalid("continuum", what + f" (numbers within ±{MAX_MAGNITUDE:g}, length >= 0)", shown)
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


_PARTICIPANTS = (
    "a table with columns document and annotator (one row per annotator who took part in a document) or a mapping "
    "document -> annotators"
)


def _participant_table(participants: object, has_documents: bool) -> pd.DataFrame:
    """``participants`` as a DataFrame (document, annotator) without repeated rows (document None for one)."""
    if isinstance(participants, pd.DataFrame):
        need = ["document", "annotator"] if has_documents else ["annotator"]
        missing = [c for c in need if c not in participants.columns]
        if missing:
            raise ValueError(
                f"participants needs the columns {', '.join(need)}; missing: {', '.join(missing)}; it has: "
                f"{', '.join(map(str, participants.columns))}"
            )
        table = pd.DataFrame(
            {
                "document": participants["document"].to_numpy() if "document" in participants else None,
                "annotator": participants["annotator"].to_numpy(),
            }
        )
        if not has_documents:
            table["document"] = None
    elif isinstance(participants, Mapping):
        documents, names = [], []
        for document, who in participants.items():
            if isinstance(who, (str, bytes)) or not hasattr(who, "__iter__"):
                raise invalid("participants", _PARTICIPANTS + " (an iterable of annotators per document)", who)
            who = list(who)
            documents += [document] * len(who)
            names += who
        table = pd.DataFrame(
            {"document": pd.Series(documents, dtype=object), "annotator": pd.Series(names, dtype=object)}
        )
        if not has_documents:
            if table["document"].nunique(dropna=False) > 1:
                raise ValueError("participants names several documents, but the span table has no document column")
            table["document"] = None
    else:
        raise invalid("participants", _PARTICIPANTS, participants)
    for name in ("document", "annotator") if has_documents else ("annotator",):
        bad = table[name].isna().to_numpy()
        if bad.any():
            raise ValueError(f"participants: {name} is missing in row(s): {_rows(table, bad)}")
    return table.drop_duplicates(ignore_index=True)


def _warn_absent(doc: np.ndarray, rater: np.ndarray, names: pd.Index) -> None:
    """Warn (:class:`AbsentAnnotatorsWarning`) when annotators have no span in most documents that hold spans."""
    R = len(names)
    if doc.size == 0 or R < 2:
        return
    marked = np.unique(doc)
    if marked.size < _FEW_DOCUMENTS:  # a handful of documents: too few to tell absence from sparse marking
        return
    seen = np.bincount(np.unique(doc * R + rater) % R, minlength=R)
    absent = (seen > 0) & (2 * (marked.size - seen) > marked.size)
    k = int(absent.sum())
    if not k:
        return
    first = int(np.flatnonzero(absent)[np.argmin(seen[absent])])
    warnings.warn(
        f"{k} of {R} annotators have no span in most of the {marked.size} documents that hold spans (e.g. "
        f"{str(names[first])!r}, spans in {seen[first]} of them). Without participants every annotator counts in every "
        "document, so an annotator who did not see a document is read as having marked nothing there, which "
        "lowers the agreement of a crowd. If each document was seen by only some annotators, say who: "
        "participants= (a table of document, annotator, or a mapping document -> annotators; "
        "iaa spans --participants FILE)",
        AbsentAnnotatorsWarning,
        stacklevel=external_stacklevel(),
    )


def span_units(
    spans: object,
    continuum: object = None,
    annotators: Sequence | None = None,
    overlaps: str = "raise",
    participants: object = None,
    warn_absent: bool = True,
) -> SpanUnits:
    """Check and encode a span table (see the module's docstring); errors name the offending rows.

    ``participants`` (a DataFrame with columns document and annotator, or a mapping document -> annotators) says
    who took part in which document; an annotator with spans in a document who is not its participant is refused.
    Without it every annotator takes part in every document, and ``warn_absent`` warns when annotators have no span
    in most documents (:class:`AbsentAnnotatorsWarning`).
    """
    frame = _frame(spans)
    has_documents = "document" in frame.columns
    for name in ("annotator", "label") + (("document",) if has_documents else ()):
        bad = frame[name].isna().to_numpy()
        if bad.any():
            raise ValueError(f"{name} is missing in row(s): {_rows(frame, bad)}")
    start, end, _ = _positions(frame)
    part = None
    if participants is not None:
        if annotators is not None:
            raise ValueError(
                "give either annotators= (every annotator took part in every document) or participants= (who took "
                "part in which document), not both"
            )
        part = _participant_table(participants, has_documents)
        both = pd.concat([frame["annotator"], part["annotator"]], ignore_index=True)
        try:
            codes, rater_names = pd.factorize(both, sort=True)
        except TypeError:
            codes, rater_names = pd.factorize(both.astype(str), sort=True)
        rater_codes, part_rater = codes[: len(frame)], codes[len(frame) :]
    else:
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
    doc_names = pd.Index(doc_names)
    if part is not None:
        if not has_documents and len(doc_names) == 0:
            doc_names = pd.Index([None])
        named = pd.Index(pd.unique(part["document"]))
        new = named[doc_names.get_indexer(named) < 0] if has_documents else named[:0]
        if len(new):
            try:
                new = new.sort_values()
            except TypeError:
                pass
            if continuum is None:
                raise ValueError(
                    f"participants name document(s) without spans, {', '.join(map(repr, list(new)[:_SHOW]))}"
                    + (f" (and {len(new) - _SHOW} more)" if len(new) > _SHOW else "")
                    + ": their length is unknown; give continuum= (each document's begin and length)"
                )
            doc_names = doc_names.append(new)
    documents, doc_begin, doc_length = _continuum(continuum, doc_names, start, end, doc_codes, has_documents)
    outside = (start < doc_begin[doc_codes]) | (end > doc_begin[doc_codes] + doc_length[doc_codes])
    if outside.any():
        raise ValueError(f"span(s) outside their document's continuum [begin, begin + length]: {_rows(frame, outside)}")
    doc_codes = np.asarray(doc_codes, np.int64)
    rater_codes = np.asarray(rater_codes, np.int64)
    cat_codes = np.asarray(cat_codes, np.int64)
    R = len(rater_names)
    part_key = None
    if part is not None:
        part_doc = (
            np.asarray(documents.get_indexer(part["document"]), np.int64)
            if has_documents
            else np.zeros(len(part), np.int64)
        )
        n_span_docs = int(doc_codes.max()) + 1 if len(frame) else 0
        if has_documents and n_span_docs and not (part_doc < n_span_docs).any():
            raise ValueError(
                "participants names none of the span table's documents (ids compare as values: '7' is not 7, "
                f"'007' is not '7'); the span table has e.g. {', '.join(map(repr, list(documents[:3])))}, "
                f"participants e.g. {', '.join(map(repr, list(pd.unique(part['document'])[:3])))}"
            )
        part_key = np.unique(part_doc * R + np.asarray(part_rater, np.int64))
        outsider = ~np.isin(doc_codes * R + rater_codes, part_key)
        if outsider.any():
            pairs = pd.DataFrame(
                {"document": frame["document"] if has_documents else None, "annotator": frame["annotator"]}
            )
            shown = pairs.loc[outsider].drop_duplicates()
            listed_text = "; ".join(
                f"{a!r} in {d!r}" if has_documents else repr(a) for d, a in shown.head(_SHOW).itertuples(index=False)
            )
            more = len(shown) - min(len(shown), _SHOW)
            raise ValueError(
                f"participants does not list {len(shown)} annotator(s) who marked spans in a document: {listed_text}"
                + (f" (and {more} more)" if more > 0 else "")
                + "; an annotator with spans in a document took part in it: add them to participants"
            )
    elif warn_absent and has_documents:
        _warn_absent(doc_codes, rater_codes, rater_names)
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
    extra_fields: dict = {}
    if part_key is not None:
        D = len(documents)
        p_doc, p_rater = part_key // R, part_key % R
        first = np.searchsorted(p_doc, np.arange(D))
        rank = np.arange(part_key.size) - first[p_doc]
        extra_fields = {
            "participant_document": p_doc,
            "participant_annotator": p_rater,
            "n_participants": np.bincount(p_doc, minlength=D).astype(np.int64),
            "slot": rank[np.searchsorted(part_key, doc_codes * R + rater_codes)].astype(np.int64),
        }
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
        **extra_fields,
    )
