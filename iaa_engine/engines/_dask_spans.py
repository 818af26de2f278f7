"""Krippendorff's unitizing alpha (α_U) of a span table on a Dask cluster, document by document (issue 35).

The span rows, the continuum (one row per document) and the participants (one row per document and annotator) are
put in one frame and shuffled by document, so that everything one document needs meets in one partition. Each
partition runs the in-memory code (:func:`iaa_engine.data._spans.span_units` and the per-document sums of
:func:`iaa_engine.metrics._unitizing._compute`) on its whole documents and returns what is small:

* its documents' rows of the per-document table (each document's α_U depends on that document alone);
* per category: units, Σ l(l-1)(2l-1)/3, Σ l(l-1), the observed sums Σ_d O_d(c) and Σ_d O_d(c)/(R_d - 1);
* the expected disagreement's unit × gap term does not add over documents (every unit meets every gap of the whole
  continuum), but it is a function of two distributions only: per category, how many units have each length, and
  the total weight of the gaps of each length. The partitions return those histograms (for positions in
  characters or tokens their size is bounded by the number of distinct lengths, not by the number of units) and
  the client evaluates the term on them with the in-memory tail sums;
* INCEpTION's pooling lays the documents end to end, so a rater's last gap of a document runs on into the next
  document's first one: the gaps inside one document's run of units (between two of a rater's units of a
  category) are the same in both poolings and come back as a histogram; the others are known from each
  (document, rater, category)'s first start and last end, which come back as rows, and each document's offset,
  the sum of the lengths of the documents before it in the order of the per-document table.

The client then finishes as in memory: :func:`iaa_engine.metrics._unitizing._disagreements`, ``_ratio`` and
``_alpha`` on the summed sums.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, Choice, Flag, Real, validate

__all__ = ["unitizing_alpha_dask", "span_f1_dask", "unitizing_family_dask"]

_SPAN, _CONTINUUM, _PARTICIPANT = 0, 1, 2

#: ``per_annotator`` on Dask: each partition computes its documents' sums once per annotator, so the annotators are
#: bounded (a crowd of hundreds is refused in one line; the in-memory engine computes it from one pass).
PER_ANNOTATOR_MAX = 64
_COLUMNS = ["document", "annotator", "start", "end", "label", "_kind", "_begin", "_length", "_order"]


def _rows(meta: pd.DataFrame, table: pd.DataFrame, kind: int) -> pd.DataFrame:
    """A continuum or participants table as rows of the union frame (the span columns it lacks missing)."""
    n = len(table)
    data: dict[str, Any] = {}
    for name in ("document", "annotator", "start", "end", "label"):
        if name in ("document", "annotator") and name in table.columns:
            values = pd.Series(np.asarray(table[name], dtype=object))
        else:
            values = pd.Series([None] * n, dtype=object)
        if name in ("document", "annotator") and not pd.api.types.is_string_dtype(meta[name].dtype):
            # numbered ids, and ids as text that name none of them (text, as in memory): as text for the shuffle,
            # with whether each was a number (_restore turns them back)
            data[f"_number_{name}"] = values.map(lambda v: not isinstance(v, str)).to_numpy(bool)
            data[name] = values.map(str).astype("string")
            continue
        try:
            data[name] = values.astype(meta[name].dtype)
        except (TypeError, ValueError):
            data[name] = values
    data["_kind"] = np.full(n, kind, np.int8)
    data["_begin"] = np.asarray(table["begin"], float) if kind == _CONTINUUM else np.full(n, np.nan)
    data["_length"] = np.asarray(table["length"], float) if kind == _CONTINUUM else np.full(n, np.nan)
    data["_order"] = np.arange(n, dtype=np.int64)
    return pd.DataFrame(data)[_COLUMNS + [c for c in data if c.startswith("_number_")]]


def _union(spans: Any, continuum: pd.DataFrame | None, participants: pd.DataFrame | None) -> Any:
    """The span rows, continuum rows and participant rows in one Dask frame (column ``_kind``), ready to be
    shuffled by document."""
    import dask.dataframe as dd

    spans = spans[["document", "annotator", "start", "end", "label"]]
    for name in ("start", "end"):
        if pd.api.types.is_numeric_dtype(spans[name].dtype):
            spans = spans.assign(**{name: spans[name].astype("float64")})
    spans = spans.assign(_kind=np.int8(_SPAN), _begin=np.nan, _length=np.nan, _order=np.int64(-1))
    meta = spans._meta
    parts = [spans]
    for kind, table in ((_CONTINUUM, continuum), (_PARTICIPANT, participants)):
        if table is None or not len(table):
            continue
        rows = _rows(meta, table, kind)
        parts.append(dd.from_pandas(rows, npartitions=max(1, min(spans.npartitions, len(rows) // 50_000 + 1))))
    if len(parts) == 1:
        return spans
    for name in ("document", "annotator"):
        flag = f"_number_{name}"
        if any(flag in p.columns for p in parts[1:]):  # the span table's numbers as text too (see _rows)
            parts = [
                p.assign(**{flag: True, name: p[name].map(str, meta=(name, object)).astype("string")})
                if flag not in p.columns
                else p
                for p in parts
            ]
    parts = [p[parts[-1].columns.tolist()] for p in parts]
    meta = parts[0]._meta
    for k in range(1, len(parts)):  # one dtype per column across the pieces
        for name in parts[0].columns:
            if parts[k][name].dtype != meta[name].dtype:
                parts = [p.assign(**{name: p[name].astype(object)}) for p in parts]
                meta = parts[0]._meta
    return dd.concat(parts, interleave_partitions=True)


def _numbers(spans: Any) -> dict:
    """The id columns of the span table that hold numbers, and their dtypes (for :func:`_restore`)."""
    return {
        name: str(spans[name].dtype)
        for name in ("document", "annotator")
        if not pd.api.types.is_string_dtype(spans[name].dtype)
    }


def _restore(part: pd.DataFrame, numbers: dict) -> pd.DataFrame:
    """Ids :func:`_union` wrote as text for the shuffle back as the numbers they were (``numbers``: column -> dtype)."""
    for name, dtype in numbers.items():
        flag = f"_number_{name}"
        if flag not in part.columns:
            continue
        values = part[name].to_numpy(dtype=object).copy()
        number = part[flag].to_numpy(bool)
        values[number] = [np.dtype(dtype).type(v) for v in values[number]]
        values[number] = [v.item() for v in values[number]]
        part = part.assign(**{name: values})
    return part


def _gaps(doc: np.ndarray, rater: np.ndarray, cat: np.ndarray, b: np.ndarray, e: np.ndarray, Ld: np.ndarray) -> dict:
    """The gaps of each (document, category, rater) with units, as :func:`unitizing_sums` forms them (inner gaps
    from the document's begin, trailing gaps to its end), split for INCEpTION's pooling into the gaps inside a run
    (between two units) and each run's first start and last end."""
    if doc.size == 0:
        none, empty = np.zeros(0, np.int64), np.zeros(0)
        return {
            "gap_length": empty,
            "gap_cat": none,
            "run_gap_length": empty,
            "run_gap_cat": none,
            "first": (none, none, none, empty, empty),
        }
    order = np.lexsort((e, b, rater, cat, doc))
    d, c, r, b, e = doc[order], cat[order], rater[order], b[order], e[order]
    new = np.concatenate([[True], (d[1:] != d[:-1]) | (c[1:] != c[:-1]) | (r[1:] != r[:-1])])
    last = np.concatenate([new[1:], [True]])
    previous = np.concatenate([[0.0], e[:-1]])
    previous[new] = 0.0
    inner = b - previous
    trailing = Ld[d[last]] - e[last]
    return {
        "gap_length": np.concatenate([inner, trailing]),
        "gap_cat": np.concatenate([c, c[last]]),
        "run_gap_length": inner[~new],
        "run_gap_cat": c[~new],
        "first": (d[new], r[new], c[new], b[new], e[last]),
    }


def _histogram(key: np.ndarray, value: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, value) pairs made distinct, their weights added."""
    if value.size == 0:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    frame = pd.DataFrame({"k": key.astype(np.int64), "v": value.astype(float), "w": weight.astype(float)})
    sums = frame.groupby(["k", "v"], sort=True)["w"].sum()
    return (
        sums.index.get_level_values(0).to_numpy(np.int64),
        sums.index.get_level_values(1).to_numpy(float),
        sums.to_numpy(float),
    )


def _split(part: pd.DataFrame, has_participants: bool) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """A partition's span rows and (with participants) its participant rows, in their files' order."""
    kind = part["_kind"].to_numpy()
    spans = part.loc[kind == _SPAN, ["document", "annotator", "start", "end", "label"]].reset_index(drop=True)
    participants = None
    if has_participants:
        who_rows = part.loc[kind == _PARTICIPANT].sort_values("_order")
        participants = pd.DataFrame(
            {
                "document": who_rows["document"].to_numpy(dtype=object),
                "annotator": who_rows["annotator"].to_numpy(dtype=object),
                "_order": who_rows["_order"].to_numpy(np.int64),
            }
        )
    return spans, participants


def _pieces(units: Any, categories: pd.Index, sums: Any) -> tuple[dict, dict, np.ndarray]:
    """The additive pieces of the pooled α_U (by document) of one partition's ``units`` (``sums`` its
    :func:`unitizing_sums`): per category the used units, Σ l(l-1)(2l-1)/3, Σ l(l-1), the observed sums, and the
    histograms of unit and gap lengths; with the gaps (:func:`_gaps`) and each run's rater code."""
    C = len(categories)
    to_global = np.asarray(categories.get_indexer(units.categories), np.int64)
    Rd = units.raters()
    Ld = units.document_length
    use = Rd >= 2
    codes, _ = units.rater_codes()
    keep = use[units.document]
    cat = to_global[units.category] if units.category.size else units.category.astype(np.int64)
    length = units.end - units.begin
    cubes = length * (length - 1.0) * (2.0 * length - 1.0) / 3.0
    squares = length * (length - 1.0)
    pair_cat = to_global[sums.pair_category] if sums.pair_category.size else sums.pair_category
    weighted = sums.pair_observed / np.maximum(Rd[sums.pair_document] - 1.0, 1.0)

    # the gaps (documents pooling), as unitizing_sums forms them for the kept units
    g = _gaps(units.document[keep], codes[keep], cat[keep], units.begin[keep], units.end[keep], Ld)
    gap_length, gap_cat = g["gap_length"], g["gap_cat"]
    ok = gap_length > 0
    # whole-document gaps: R_d per document for every category, less those raters with units of c in d
    d0, r0, c0, _, _ = g["first"]
    with_units = pd.DataFrame({"d": d0, "c": c0}).groupby(["d", "c"], sort=True).size()
    neg_doc = with_units.index.get_level_values(0).to_numpy(np.int64)
    neg_cat = with_units.index.get_level_values(1).to_numpy(np.int64)
    gap_key, gap_value, gap_weight = _histogram(
        np.concatenate([gap_cat[ok], neg_cat]),
        np.concatenate([gap_length[ok], Ld[neg_doc]]),
        np.concatenate([np.ones(int(ok.sum())), -with_units.to_numpy(float)]),
    )
    all_value, all_weight = _histogram(np.zeros(Ld.size, np.int64), Ld, np.where(use, Rd, 0).astype(float))[1:]
    unit_key, unit_value, unit_count = _histogram(cat[keep], length[keep], np.ones(int(keep.sum())))
    pieces = {
        "_cat": cat,
        "used_units": np.bincount(cat[keep], minlength=C).astype(float),
        "used_cubes": np.bincount(cat[keep], weights=cubes[keep], minlength=C),
        "squares": np.bincount(cat[keep], weights=squares[keep], minlength=C),
        "observed": np.bincount(pair_cat, weights=sums.pair_observed, minlength=C),
        "weighted": np.bincount(pair_cat, weights=weighted, minlength=C),
        "raters": np.unique(Rd[use]),
        "positions": float(np.sum((Rd * Ld)[use])),
        "length_used": float(Ld[use].sum()),
        "length_all": float(Ld.sum()),
        "used": bool(use.any()),
        "units": (unit_key, unit_value, unit_count),
        "gaps": (gap_key, gap_value, gap_weight),
        "whole": (all_value, all_weight),
    }
    return pieces, g, r0


def _part_sums(
    part: pd.DataFrame,
    continuum: Any,
    has_participants: bool,
    annotators: list | None,
    categories: pd.Index,
    overlaps: str,
    inception: bool,
    f1: tuple[str, float] | None = None,
    numbers: dict | None = None,
    leave_out: list | None = None,
    family: bool = False,
) -> dict | None:
    """One partition's whole documents: their per-document rows and the sums the pooled α_U needs (and with
    ``f1``, (match, threshold), pairwise F1's counts of :func:`_f1_part` from the same shuffle; with ``leave_out``,
    the study's annotators, each one's units and lengths and the pooled sums without them, :func:`_without`)."""
    from iaa_engine.data._spans import span_units
    from iaa_engine.metrics._unitizing import _compute

    part = _restore(part, numbers or {})
    kind = part["_kind"].to_numpy()
    if not len(part):
        return None
    spans = part.loc[kind == _SPAN, ["document", "annotator", "start", "end", "label"]].reset_index(drop=True)
    where = continuum
    cont_rows = part.loc[kind == _CONTINUUM]
    if continuum == "file":
        cont_rows = cont_rows.sort_values("_order")
        where = pd.DataFrame(
            {
                "document": cont_rows["document"].to_numpy(dtype=object),
                "begin": cont_rows["_begin"].to_numpy(float),
                "length": cont_rows["_length"].to_numpy(float),
            }
        )
        if not len(where):
            where = {}
    participants = None
    if has_participants:
        who_rows = part.loc[kind == _PARTICIPANT].sort_values("_order")
        participants = pd.DataFrame(
            {
                "document": who_rows["document"].to_numpy(dtype=object),
                "annotator": who_rows["annotator"].to_numpy(dtype=object),
            }
        )
    if (
        not len(spans)
        and (not len(cont_rows) or continuum != "file")
        and (participants is None or not len(participants))
    ):
        return None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="no continuum given", category=UserWarning)
        units = span_units(
            spans,
            where,
            None if has_participants else annotators,
            overlaps,
            participants,
            warn_absent=False,
        )
    parts = _compute(units, "documents")
    sums = parts["sums"]
    pieces, g, r0 = _pieces(units, categories, sums)
    cat = pieces.pop("_cat")
    C = len(categories)

    docs = units.documents
    span_docs = set(pd.unique(spans["document"])) if len(spans) else set()
    part_docs = set(pd.unique(participants["document"])) if participants is not None and len(participants) else set()
    rank = np.array([0 if d in span_docs else 1 if d in part_docs else 2 for d in docs], np.int64)
    order: np.ndarray = np.full(len(docs), -1, np.int64)
    if continuum == "file" and len(cont_rows):
        position = dict(zip(cont_rows["document"], cont_rows["_order"]))
        order = np.array([position.get(d, -1) for d in docs], np.int64)
    per_document = parts["per_document"].assign(_rank=rank, _order=order)

    out: dict[str, Any] = {
        "per_document": per_document,
        "n_rows": int(len(spans)),
        "n_units": int(units.begin.size),
        "n_participants": 0 if units.participant_document is None else int(units.participant_document.size),
        "category_units": np.bincount(cat, minlength=C).astype(np.int64),
        **pieces,
        "same_raters": None,
        "spans_by_annotator": None,
        "f1": None if f1 is None else _f1_part(part, has_participants, *f1),
        "without": None if leave_out is None else _without(units, categories, leave_out, inception),
        "family": _family_part(units, categories, per_document[["_rank", "_order"]]) if family else None,
    }
    if annotators is not None and len(spans):
        # how many of the documents with spans each annotator marked (AbsentAnnotatorsWarning)
        seen = spans[["document", "annotator"]].drop_duplicates()["annotator"].value_counts()
        out["spans_by_annotator"] = (int(spans["document"].nunique()), seen)
    if inception:
        out.update(_inception_part(units, g, r0))
    return out


def _inception_part(units: Any, g: dict, r0: np.ndarray) -> dict:
    """What INCEpTION's pooling needs of a partition's documents beyond :func:`_pieces`: whether they have the same
    raters (True, or the participants' names), each (document, rater, category)'s first start and last end, and the
    histogram of the gaps inside a run (:func:`_gaps`, ``g``; ``r0`` each run's rater code)."""
    docs = units.documents
    if not (units.same_raters() and len(docs)):
        return {"same_raters": False}
    names = units.annotators
    who = None
    if units.participant_annotator is not None:
        who = tuple(names[units.participant_annotator[: int(units.raters()[0])]])
    run_key, run_value, run_weight = _histogram(
        g["run_gap_cat"][g["run_gap_length"] > 0],
        g["run_gap_length"][g["run_gap_length"] > 0],
        np.ones(int((g["run_gap_length"] > 0).sum())),
    )
    # the rater of each run by name (a partition's codes are its own; with participants, codes are slots)
    slot_names = np.asarray(names if who is None else who, dtype=object)
    run_rater = slot_names[r0] if r0.size else np.zeros(0, object)
    f_doc, _, f_cat, f_begin, f_end = g["first"]
    runs = pd.DataFrame(
        {
            "document": np.asarray(docs, dtype=object)[f_doc] if f_doc.size else np.zeros(0, object),
            "rater": run_rater,
            "category": f_cat,
            "first": f_begin,
            "last": f_end,
        }
    )
    same = frozenset(who) if who is not None else True  # names, whatever a partition's order of its annotators
    return {"same_raters": same, "runs": runs, "run_gaps": (run_key, run_value, run_weight)}


def _without(units: Any, categories: pd.Index, annotators: list, inception: bool = False) -> dict:
    """Per annotator of the study (``annotators``, in its order): their documents, units and total unit length in
    this partition, and the additive pieces (:func:`_pieces`) of the pooled α_U with them left out of every document
    (None where they are not in the partition: the pieces with everyone then stand)."""
    from iaa_engine.metrics._unitizing import _compute

    A = len(annotators)
    local = {name: k for k, name in enumerate(units.annotators)}
    R = len(units.annotators)
    D = len(units.documents)
    length = units.end - units.begin
    n_units = np.bincount(units.annotator, minlength=R).astype(np.int64)
    total_length = np.bincount(units.annotator, weights=length, minlength=R)
    n_docs: np.ndarray = np.full(R, D, np.int64)
    if units.participant_annotator is not None:
        n_docs = np.bincount(units.participant_annotator, minlength=R).astype(np.int64)
    where = np.array([local.get(a, -1) for a in annotators], np.int64)
    found = where >= 0
    out_docs, out_units, out_length = np.zeros(A, np.int64), np.zeros(A, np.int64), np.zeros(A)
    out_docs[found], out_units[found], out_length[found] = (
        n_docs[where[found]],
        n_units[where[found]],
        total_length[where[found]],
    )
    pieces: list[dict | None] = []
    for k in where:
        if k < 0:
            pieces.append(None)
            continue
        left = units.without(int(k))
        piece, g, r0 = _pieces(left, categories, _compute(left, "documents", tables=False)["sums"])
        piece.pop("_cat")
        if inception:
            piece.update(_inception_part(left, g, r0))
        pieces.append(piece)
    return {"n_documents": out_docs, "n_units": out_units, "total_length": out_length, "pieces": pieces}


def _family_part(units: Any, categories: pd.Index, keys: pd.DataFrame) -> dict:
    """One partition's sums of the 2016 unitizing family (:func:`iaa_engine.unitizing_family`): the observed
    coincidence matrix, S_c and S*_c (sums over documents, on the study's values) and its documents' rows."""
    from iaa_engine.metrics._unitizing_family import _per_document, _positive_units
    from iaa_engine.stats._unitizing_family import family_sums, pooled_matrix

    C, D = len(categories), len(units.documents)
    Rd = units.raters()
    use = Rd >= 2
    doc, rater, cat, begin, end, n_codes = _positive_units(units)
    counted = use[doc]
    to_global = np.asarray(categories.get_indexer(units.categories), np.int64)
    global_cat = to_global[cat] if cat.size else cat.astype(np.int64)
    sums = family_sums(
        doc[counted], rater[counted], global_cat[counted], begin[counted], end[counted], units.document_length,
        n_codes, document_raters=np.where(use, Rd, 0),
    )  # fmt: skip
    matrix, self_sums, coded_self = pooled_matrix(sums, C + 1)
    per_document = _per_document(units, sums, doc, D, Rd).assign(
        _rank=keys["_rank"].to_numpy(), _order=keys["_order"].to_numpy()
    )
    return {
        "matrix": matrix,
        "self": self_sums,
        "coded_self": coded_self,
        "per_document": per_document,
        "n_units": int(begin.size),
        "used": bool(use.any()),
        "length_used": float(units.document_length[use].sum()),
        "length_all": float(units.document_length.sum()),
    }


def _family_finish(parts: list[dict], annotators: list, categories: pd.Index, replace_undefined_by: float) -> Any:
    """The partitions' family sums added up and finished as :func:`iaa_engine.unitizing_family` finishes them."""
    from iaa_engine.metrics._unitizing_family import NO_UNIT, UnitizingFamily, _family_estimate
    from iaa_engine.stats._unitizing_family import family_coefficients

    R, C = len(annotators), len(categories)
    matrix = np.sum([p["matrix"] for p in parts], axis=0)
    self_sums = np.sum([p["self"] for p in parts], axis=0)
    coded_self = np.sum([p["coded_self"] for p in parts], axis=0)
    pooled = family_coefficients(matrix, self_sums, coded_self)
    names = pd.Index([NO_UNIT, *categories], dtype=object)
    lengths = matrix.sum(axis=1)
    per_value = pd.DataFrame(
        {
            "value": categories,
            "length": lengths[1:],
            "coded_length": pooled["k_length"],
            "coverage": pooled["k_coverage"],
            "alpha": pooled["k_alpha"],
        }
    )
    per_document = _document_order(pd.concat([p["per_document"] for p in parts], ignore_index=True))
    used = any(p["used"] for p in parts)
    L = float(sum(p["length_used"] for p in parts)) if used else float(sum(p["length_all"] for p in parts))
    n_units = int(sum(p["n_units"] for p in parts))
    estimate = _family_estimate(pooled, n_units, R, used, L, replace_undefined_by)
    defined = used and L > 0 and n_units > 0
    nan = float("nan")
    return UnitizingFamily(
        metric="unitizing_family",
        estimate=estimate,
        binary=float(pooled["binary"]) if defined else nan,
        coding=float(pooled["coded"]) if defined else nan,
        coding_coverage=float(pooled["coverage"]) if defined else nan,
        d_o=float(pooled["d_o"]) if defined else nan,
        d_e=float(pooled["d_e"]) if defined else nan,
        n_units=n_units,
        n_annotators=R,
        n_documents=len(per_document),
        n_categories=C,
        length=L,
        coincidence=pd.DataFrame(matrix, index=names, columns=names),
        expected=pd.DataFrame(pooled["expected"], index=names, columns=names),
        per_value=per_value,
        per_document=per_document,
        document_coincidences=pd.DataFrame(
            {
                "document": pd.Series(dtype=object),
                "value": pd.Series(dtype=object),
                "other": pd.Series(dtype=object),
                "length": pd.Series(dtype=float),
            }
        ),  # fmt: skip
    )


def _cross(
    unit: tuple[np.ndarray, np.ndarray, np.ndarray],
    gaps: tuple[np.ndarray, np.ndarray, np.ndarray],
    n_categories: int,
) -> np.ndarray:
    """Σ_u l_u² Σ_{gaps G ≥ l_u} (G - l_u + 1) per category, from the histograms of unit and gap lengths."""
    from iaa_engine.stats._unitizing import _tail_sums

    u_cat, u_len, u_count = unit
    s, w = _tail_sums(gaps[0], gaps[1], gaps[2], u_cat, u_len)
    return np.bincount(u_cat, weights=u_count * u_len**2 * (s - (u_len - 1.0) * w), minlength=n_categories)


def _merge(pieces: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not pieces:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    return _histogram(*(np.concatenate([p[k] for p in pieces]) for k in range(3)))


def _document_order(table: pd.DataFrame) -> pd.DataFrame:
    """The per-document rows in the in-memory order: documents with spans sorted, then documents only the
    participants name (sorted), then documents only the continuum names (in its order)."""
    pieces = []
    for rank in (0, 1, 2):
        rows = table[table["_rank"] == rank]
        if rank == 2:
            rows = rows.sort_values("_order", kind="stable")
        elif len(rows):
            try:
                codes, _ = pd.factorize(rows["document"], sort=True)
            except TypeError:
                codes = np.arange(len(rows))
            rows = rows.iloc[np.argsort(codes, kind="stable")]
        pieces.append(rows)
    out = pd.concat(pieces, ignore_index=True)
    return out.drop(columns=["_rank", "_order"])


@validate(client=ANY, pooling=Choice("documents", "inception"), per_annotator=Flag())
def unitizing_alpha_dask(
    spans: Any,
    *,
    client: Any,
    continuum: Any = None,
    participants: pd.DataFrame | None = None,
    pooling: str = "documents",
    overlaps: str = "raise",
    per_annotator: bool = False,
    replace_undefined_by: float = np.nan,
    progress: bool | None = None,
) -> Any:
    r""":func:`iaa_engine.unitizing_alpha` of a Dask DataFrame of spans, computed document by document.

    The spans (columns ``document``, ``annotator``, ``start``, ``end``, ``label``), the continuum and the
    participants are shuffled by document, so each document meets in one partition; each partition computes its
    documents' rows of the per-document table and the sums of the pooled α_U with the in-memory code, and the client
    finishes them as in memory. The pooled expected disagreement

    .. math::

        E(c) = (N_c - 1) \sum_u \tfrac{l_u(l_u-1)(2l_u-1)}{3} + \sum_u l_u^2 \sum_{\text{gaps } G \ge l_u}
        (G - l_u + 1)

    needs every unit against every gap of the continuum: the partitions return, per category, the number of units
    of each length and the weight of the gaps of each length (``pooling='inception'`` also each (document, rater,
    category)'s first start and last end, whose gaps run on across documents), and the client evaluates it on them.

    Parameters
    ----------
    spans : dask.dataframe.DataFrame
        One row per span: ``document``, ``annotator``, ``start``, ``end`` (exclusive), ``label``.
    client : distributed.Client
        The cluster (e.g. from :func:`iaa_engine.engines._commands.dask_session`).
    continuum : (begin, length), DataFrame or None
        As :func:`iaa_engine.unitizing_alpha`'s (a DataFrame has columns ``document``, ``begin`` (optional) and
        ``length``); a mapping is taken as such a table.
    participants : DataFrame, optional
        Who took part in which document (columns ``document``, ``annotator``).
    pooling : {'documents', 'inception'}
        How the headline pools the documents.
    overlaps : {'raise', 'merge'}
        A rater's overlapping units of one label.
    per_annotator : bool
        Also the ``per_annotator`` table (for at most :data:`PER_ANNOTATOR_MAX` annotators): each annotator's
        documents, units and lengths add over documents; the pooled α_U without annotator a needs, per category,
        the histograms of unit and gap lengths without a (and for ``pooling='inception'`` the runs without a),
        which each partition collects for every annotator of its documents (a loop over annotators).
    replace_undefined_by : float
        Returned (with a warning) where α_U is undefined.
    progress : bool, optional
        Dask's progress bar on standard error (default: on a terminal).

    Returns
    -------
    UnitizingAlpha
        As :func:`iaa_engine.unitizing_alpha` returns it (``per_annotator`` None unless asked).

    Raises
    ------
    ValueError
        As :func:`iaa_engine.unitizing_alpha` (a malformed span table, a document without a continuum,
        ``pooling='inception'`` with different participants per document), ``per_annotator`` with more than
        :data:`PER_ANNOTATOR_MAX` annotators, or a failure on the cluster (one line).

    References
    ----------
    Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology (2nd ed.), §12.4. Sage.

    Examples
    --------
    >>> import dask.dataframe as dd, distributed, pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"document": ["d1", "d1", "d2", "d2"], "annotator": ["a", "b", "a", "b"],
    ...                       "start": [0, 1, 5, 5], "end": [10, 10, 9, 9], "label": "x"})
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=None) as client:  # doctest: +SKIP
    ...     result = ie.unitizing_alpha_dask(dd.from_pandas(spans, npartitions=2), client=client, continuum=20)
    >>> round(result.estimate, 6) == round(ie.unitizing_alpha(spans, continuum=20).estimate, 6)  # doctest: +SKIP
    True
    """
    return _alpha_dask(
        spans,
        client=client,
        continuum=continuum,
        participants=participants,
        pooling=pooling,
        overlaps=overlaps,
        per_annotator=per_annotator,
        replace_undefined_by=replace_undefined_by,
        progress=progress,
    )[0]


@validate(client=ANY)
def unitizing_family_dask(
    spans: Any,
    *,
    client: Any,
    continuum: Any = None,
    participants: pd.DataFrame | None = None,
    overlaps: str = "raise",
    replace_undefined_by: float = np.nan,
    progress: bool | None = None,
) -> Any:
    r""":func:`iaa_engine.unitizing_family` of a Dask DataFrame of spans, computed document by document.

    The spans, the continuum and the participants are shuffled by document (as :func:`unitizing_alpha_dask`). The
    observed coincidences and the self-pairing sums of the 2016 family add over documents,

    .. math::

        l_{ck} = \sum_d l_{ck}^{(d)},\qquad S_c = \sum_d S_c^{(d)},\qquad S^*_c = \sum_d S^{*(d)}_c,

    so each partition returns its documents' sums and rows, and the client finishes uα, ``|uα``, cuα and (k)uα
    with the in-memory :func:`iaa_engine.stats._unitizing_family.family_coefficients`.

    Parameters
    ----------
    spans : dask.dataframe.DataFrame
        One row per span: ``document``, ``annotator``, ``start``, ``end`` (exclusive), ``label``.
    client : distributed.Client
        The cluster.
    continuum : (begin, length), DataFrame or None
        As :func:`iaa_engine.unitizing_family`'s.
    participants : DataFrame, optional
        Who took part in which document (columns ``document``, ``annotator``).
    overlaps : {'raise', 'merge'}
        A rater's overlapping units of one label.
    replace_undefined_by : float
        Returned (with a warning) where uα is undefined.
    progress : bool, optional
        Dask's progress bar on standard error (default: on a terminal).

    Returns
    -------
    UnitizingFamily
        As :func:`iaa_engine.unitizing_family` returns it, but for ``document_coincidences`` (the (document, value)
        rows stay on the cluster: an empty table).

    Raises
    ------
    ValueError
        As :func:`iaa_engine.unitizing_family` (an annotator's units that overlap, whatever their labels; a
        malformed span table), or a failure on the cluster (one line).

    References
    ----------
    Krippendorff, K., Mathet, Y., Bouvry, S., & Widlöcher, A. (2016). On the reliability of unitizing textual
    continua: Further developments. Quality & Quantity 50(6), 2347-2364.

    Examples
    --------
    >>> import dask.dataframe as dd, distributed, pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"document": ["d1", "d1", "d2", "d2"], "annotator": ["a", "b", "a", "b"],
    ...                       "start": [0, 1, 5, 5], "end": [10, 10, 9, 9], "label": "x"})
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=None) as client:  # doctest: +SKIP
    ...     result = ie.unitizing_family_dask(dd.from_pandas(spans, npartitions=2), client=client, continuum=20)
    >>> round(result.estimate, 12) == round(ie.unitizing_family(spans, continuum=20).estimate, 12)  # doctest: +SKIP
    True
    """
    return _alpha_dask(
        spans,
        client=client,
        continuum=continuum,
        participants=participants,
        overlaps=overlaps,
        replace_undefined_by=replace_undefined_by,
        progress=progress,
        family=True,
        quiet_alpha=True,
    )[3]


def _alpha_dask(
    spans: Any,
    *,
    client: Any,
    continuum: Any = None,
    participants: pd.DataFrame | None = None,
    pooling: str = "documents",
    overlaps: str = "raise",
    per_annotator: bool = False,
    replace_undefined_by: float = np.nan,
    progress: bool | None = None,
    f1: tuple[str, float] | None = None,
    family: bool = False,
    quiet_alpha: bool = False,
) -> tuple[Any, int, Any, Any, list]:
    """:func:`unitizing_alpha_dask`'s result, the number of span rows read, with ``f1`` (match, threshold) the
    pairwise span F1 and with ``family`` the 2016 family, computed on the same shuffle (else None), and the
    annotators with spans, sorted."""
    import dask

    from iaa_engine.engines._commands import _by_item, _run
    from iaa_engine.engines._distributed import _sort_key

    Choice("documents", "inception").check("pooling", pooling)
    Choice("raise", "merge").check("overlaps", overlaps)
    if f1 is not None:
        Choice("exact", "overlap").check("match", f1[0])
        Real(0, 1, low_open=True).check("threshold", f1[1])
    missing = [c for c in ("document", "annotator", "start", "end", "label") if c not in spans.columns]
    if missing:
        raise ValueError(
            f"the span table needs the columns document, annotator, start, end, label; missing: {', '.join(missing)}"
        )
    table = None
    mode: Any = None
    if continuum is None:
        warnings.warn(
            "no continuum given: each document's continuum is taken from its spans (first start to last end); "
            "alpha_U depends on it (the unmarked stretches before the first and after the last span are "
            "agreement too), so give continuum=(begin, length) or one per document",
            UserWarning,
            stacklevel=3,
        )
    elif isinstance(continuum, pd.DataFrame) or isinstance(continuum, dict):
        if isinstance(continuum, dict):
            items = [(k, *(v if isinstance(v, (tuple, list)) else (0, v))) for k, v in continuum.items()]
            continuum = pd.DataFrame(items, columns=["document", "begin", "length"])
        if not {"document", "length"} <= set(continuum.columns):
            raise ValueError("continuum needs the columns document, begin (optional) and length")
        table = continuum.assign(begin=continuum["begin"] if "begin" in continuum.columns else 0.0)
        mode = "file"
    else:
        mode = continuum
    if participants is not None:
        from iaa_engine.data._spans import _participant_table

        participants = _participant_table(participants, True)

    labels, names = dask.compute(spans["label"].dropna().unique(), spans["annotator"].dropna().unique())
    try:
        categories = pd.Index(pd.factorize(pd.Series(np.asarray(labels, dtype=object)), sort=True)[1])
    except TypeError:
        categories = pd.Index(pd.factorize(pd.Series(np.asarray(labels, dtype=object)).astype(str), sort=True)[1])
    every = list(pd.unique(np.asarray(names, dtype=object)))
    if participants is not None:
        every = list(pd.unique(np.asarray(every + list(participants["annotator"]), dtype=object)))
    annotators = sorted(every, key=_sort_key)
    if per_annotator and len(annotators) > PER_ANNOTATOR_MAX:
        raise ValueError(
            f"per_annotator on Dask collects every partition's sums once per annotator, at most {PER_ANNOTATOR_MAX} "
            f"annotators; this study has {len(annotators)} (use the in-memory engine for its per-annotator table)"
        )
    shuffled = _by_item(_union(spans, table, participants), "document")
    tasks = [
        dask.delayed(_part_sums)(
            p, mode, participants is not None, None if participants is not None else annotators, categories,
            overlaps, True, f1, _numbers(spans), annotators if per_annotator else None, family,
        )
        for p in shuffled.to_delayed()
    ]  # fmt: skip
    results = [r for r in _run(client, tasks, progress) if r is not None]
    if not results:
        raise ValueError("the span table holds no document")

    with warnings.catch_warnings():
        if quiet_alpha:  # α_U computed on the way to the family only: its undefined values are not news
            from iaa_engine.base._policy import UndefinedMetricWarning

            warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = _finish_alpha(results, annotators, categories, participants is not None, pooling, replace_undefined_by)
    f1_result = None
    if f1 is not None:
        f1_parts = [r["f1"] for r in results if r["f1"] is not None]
        f1_result = _f1_finish(f1_parts, categories, f1[0], f1[1], replace_undefined_by) if f1_parts else None
    family_result = None
    if family:
        family_result = _family_finish([r["family"] for r in results], annotators, categories, replace_undefined_by)
    with_spans = sorted(pd.unique(np.asarray(names, dtype=object)), key=_sort_key)
    return result, int(sum(r["n_rows"] for r in results)), f1_result, family_result, with_spans


def _documents_pooled(results: list[dict], C: int, R: int) -> tuple[np.ndarray, np.ndarray, float, dict]:
    """The per-category D_o and D_e and the pooled α_U (by document) from the partitions' pieces (:func:`_pieces`),
    as :func:`iaa_engine.metrics._unitizing._compute` finishes its own; with the summed pieces."""
    from iaa_engine.metrics._unitizing import _disagreements, _ratio

    add = lambda key: np.sum([r[key] for r in results], axis=0)  # noqa: E731
    used = any(r["used"] for r in results)
    L = float(sum(r["length_used"] for r in results)) if used else float(sum(r["length_all"] for r in results))
    squares = add("squares")
    observed = add("observed")
    unit_hist = _merge([r["units"] for r in results])
    whole = _merge([(np.zeros(r["whole"][0].size, np.int64), *r["whole"]) for r in results])
    gaps = _merge([r["gaps"] for r in results])
    every_cat = (np.repeat(np.arange(C, dtype=np.int64), whole[1].size), np.tile(whole[1], C), np.tile(whole[2], C))
    gap_all = tuple(np.concatenate([a, b]) for a, b in zip(gaps, every_cat))
    used_units = add("used_units")
    used_cubes = add("used_cubes")
    expected = (used_units - 1.0) * used_cubes + _cross(unit_hist, gap_all, C)
    counts = np.unique(np.concatenate([r["raters"] for r in results]))
    if counts.size <= 1:
        r_ = float(counts[0]) if counts.size else float(R)
        cat_o, cat_e = _disagreements(observed, expected, squares, r_, L)
    else:
        N = float(sum(r["positions"] for r in results))
        with np.errstate(divide="ignore", invalid="ignore"):
            cat_o = add("weighted") / (N * L)
            den_e = L * (N * (N - 1.0) - squares)
            cat_e = np.where(den_e > 0, 2.0 * expected / np.where(den_e > 0, den_e, 1.0), np.nan)
    sums = {"used": used, "L": L, "squares": squares, "observed": observed, "used_units": used_units,
            "used_cubes": used_cubes}  # fmt: skip
    return cat_o, cat_e, _ratio(cat_o, cat_e), sums


def _same_raters(results: list[dict]) -> bool:
    """Whether every partition's documents have the same raters (INCEpTION's pooling applies)."""
    flags = [r["same_raters"] for r in results]
    return all(f is True for f in flags) or (all(isinstance(f, frozenset) for f in flags) and len(set(flags)) == 1)


def _inception_pooled(
    results: list[dict], annotators: list, per_document: pd.DataFrame, C: int, R0: int, sums: dict
) -> tuple[np.ndarray, np.ndarray, float]:
    """D_o, D_e per category and α_U of INCEpTION's pooling (documents end to end, in the per-document table's
    order; ``R0`` raters in every document) from the partitions' pieces and runs; ``sums`` as
    :func:`_documents_pooled` gives them."""
    from iaa_engine.metrics._unitizing import _disagreements, _ratio

    Ld = per_document["length"].to_numpy(float)
    offset = pd.Series(np.cumsum(Ld) - Ld, index=pd.Index(per_document["document"]))
    total = float(Ld.sum())
    runs = pd.concat([r["runs"] for r in results], ignore_index=True)
    off = offset.reindex(pd.Index(runs["document"])).to_numpy(float)
    rater = pd.Index(annotators).get_indexer(runs["rater"]).astype(np.int64)
    c = runs["category"].to_numpy(np.int64)
    first = runs["first"].to_numpy(float) + off
    last = runs["last"].to_numpy(float) + off
    o = np.lexsort((last, first, rater, c))
    c, rater, first, last = c[o], rater[o], first[o], last[o]
    new = np.concatenate([[True], (c[1:] != c[:-1]) | (rater[1:] != rater[:-1])]) if c.size else c.astype(bool)
    end_group = np.concatenate([new[1:], [True]]) if c.size else new
    previous = np.concatenate([[0.0], last[:-1]]) if c.size else last
    previous[new] = 0.0
    between = np.concatenate([first - previous, total - last[end_group]])
    between_cat = np.concatenate([c, c[end_group]])
    keep = between > 0
    raters_with = np.bincount(c[new], minlength=C)
    inc_gaps = _merge(
        [r["run_gaps"] for r in results]
        + [
            (between_cat[keep], between[keep], np.ones(int(keep.sum()))),
            (np.arange(C, dtype=np.int64), np.full(C, total), (R0 - raters_with).astype(float)),
        ]
    )
    all_units = _merge([r["units"] for r in results])
    inc_expected = (sums["used_units"] - 1.0) * sums["used_cubes"] + _cross(all_units, inc_gaps, C)
    inc_o, inc_e = _disagreements(sums["observed"], inc_expected, sums["squares"], float(R0), sums["L"])
    return inc_o, inc_e, _ratio(inc_o, inc_e)


def _finish_alpha(
    results: list[dict],
    annotators: list,
    categories: pd.Index,
    has_participants: bool,
    pooling: str,
    replace_undefined_by: float,
) -> Any:
    """The partitions' sums (:func:`_part_sums`) added up and finished as :func:`iaa_engine.unitizing_alpha`
    finishes its own."""
    from iaa_engine.data._spans import _FEW_DOCUMENTS, AbsentAnnotatorsWarning
    from iaa_engine.metrics._unitizing import UnitizingAlpha, _alpha, _headline

    R = len(annotators)
    C = len(categories)
    per_document = _document_order(pd.concat([r["per_document"] for r in results], ignore_index=True))
    D = len(per_document)
    Rd = per_document["n_annotators"].to_numpy(float)
    add = lambda key: np.sum([r[key] for r in results], axis=0)  # noqa: E731
    cat_units = add("category_units").astype(np.int64)
    cat_o, cat_e, documents_estimate, sums = _documents_pooled(results, C, R)
    used, L = sums["used"], sums["L"]

    same = _same_raters(results)
    if pooling == "inception" and not same:
        raise ValueError(
            "pooling='inception' lays the documents end to end as one study of the same raters (as INCEpTION and "
            "DKPro Agreement do), which cannot say that documents had different participants; use "
            "pooling='documents' (the default) with participants"
        )
    inception = float("nan")
    inc_o = inc_e = None
    if same and used:
        if D > 1:
            inc_o, inc_e, inception = _inception_pooled(results, annotators, per_document, C, int(Rd[0]), sums)
        else:
            inception = documents_estimate
    if pooling == "inception" and inc_o is not None and inc_e is not None:
        cat_o, cat_e = inc_o, inc_e
    value = inception if pooling == "inception" else documents_estimate
    n_units = int(sum(r["n_units"] for r in results))
    if not has_participants:
        _warn_absent(results, annotators, _FEW_DOCUMENTS, AbsentAnnotatorsWarning)
    estimate = _headline(value, n_units, R, used, L, replace_undefined_by)
    per_category = pd.DataFrame(
        {"category": categories, "n_units": cat_units, "d_o": cat_o, "d_e": cat_e, "alpha": _alpha(cat_o, cat_e)}
    )
    result = UnitizingAlpha(
        metric="unitizing_alpha",
        estimate=estimate,
        d_o=float(np.mean(cat_o)) if C else float("nan"),
        d_e=float(np.mean(cat_e)) if C else float("nan"),
        n_units=n_units,
        n_annotators=R,
        n_documents=D,
        n_categories=C,
        length=L,
        per_category=per_category,
        per_document=per_document.reset_index(drop=True),
        pooling=pooling,
        estimate_documents=documents_estimate,
        estimate_inception=inception,
        n_participants=int(sum(r["n_participants"] for r in results)),
        per_annotator=(
            _per_annotator(results, annotators, C, pooling, per_document) if results[0]["without"] is not None else None
        ),
    )
    return result


def _per_annotator(
    results: list[dict], annotators: list, C: int, pooling: str, per_document: pd.DataFrame
) -> pd.DataFrame:
    """The in-memory ``per_annotator`` table from the partitions' :func:`_without`: counts and lengths added up,
    and each annotator's pooled α_U without them finished on the pieces without them (those with everyone where
    they are absent)."""
    R = len(annotators)
    add = lambda key: np.sum([r["without"][key] for r in results], axis=0)  # noqa: E731
    n_docs = add("n_documents").astype(float)
    n_units = add("n_units").astype(float)
    total_length = add("total_length")
    without = np.full(R, np.nan)
    for a in range(R):
        pieces = [r if r["without"]["pieces"][a] is None else r["without"]["pieces"][a] for r in results]
        _, _, without[a], sums = _documents_pooled(pieces, C, R)
        if pooling == "inception":  # the concatenated study without a (every document has the same raters)
            if not (_same_raters(pieces) and sums["used"]):
                without[a] = np.nan
            elif len(per_document) > 1:
                R0 = int(per_document["n_annotators"].iloc[0]) - 1
                without[a] = _inception_pooled(pieces, annotators, per_document, C, R0, sums)[2]
    with np.errstate(divide="ignore", invalid="ignore"):
        per_doc = n_units / n_docs
        others_per_doc = (n_units.sum() - n_units) / (n_docs.sum() - n_docs)
        mean_length = total_length / n_units
        others_mean = (total_length.sum() - total_length) / (n_units.sum() - n_units)
    return pd.DataFrame(
        {
            "annotator": annotators,
            "n_documents": n_docs.astype(np.int64),
            "n_units": n_units.astype(np.int64),
            "units_per_document": per_doc,
            "others_units_per_document": others_per_doc,
            "mean_length": mean_length,
            "others_mean_length": others_mean,
            "alpha_without": without,
        }
    )


def _warn_absent(results: list, annotators: list, few: int, category: type) -> None:
    """:class:`~iaa_engine.AbsentAnnotatorsWarning` from the partitions' counts, as the in-memory check words it."""
    marked = sum(r["spans_by_annotator"][0] for r in results if r["spans_by_annotator"] is not None)
    R = len(annotators)
    if R < 2 or marked < few:
        return
    seen = pd.Series(0, index=pd.Index(annotators, dtype=object), dtype=np.int64)
    for r in results:
        if r["spans_by_annotator"] is not None:
            counts = r["spans_by_annotator"][1]
            seen = seen.add(pd.Series(counts.to_numpy(), index=pd.Index(counts.index, dtype=object)), fill_value=0)
    values = seen.to_numpy(np.int64)
    absent = (values > 0) & (2 * (marked - values) > marked)
    k = int(absent.sum())
    if not k:
        return
    first = int(np.flatnonzero(absent)[np.argmin(values[absent])])
    warnings.warn(
        f"{k} of {R} annotators have no span in most of the {marked} documents that hold spans (e.g. "
        f"{str(annotators[first])!r}, spans in {values[first]} of them). Without participants every annotator counts "
        "in every document, so an annotator who did not see a document is read as having marked nothing there, "
        "which lowers the agreement of a crowd. If each document was seen by only some annotators, say who: "
        "participants= (a table of document, annotator, or a mapping document -> annotators; "
        "iaa spans --participants FILE)",
        category,
        stacklevel=3,
    )


# ------------------------------------------------------------------------------------------------ pairwise span F1
def _f1_part(
    part: pd.DataFrame, has_participants: bool, match: str, threshold: float, numbers: dict | None = None
) -> dict | None:
    """One partition's whole documents through the in-memory :func:`iaa_engine.span_f1`: its per-document rows, and
    per pair (and per pair and label) the counts that add over documents."""
    from iaa_engine.metrics._span_f1 import span_f1

    part = _restore(part, numbers or {})
    spans, participants = _split(part, has_participants)
    if not len(spans) and (participants is None or not len(participants)):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a partition without a pair: said once, by the client, for the whole
        result = span_f1(spans, match=match, threshold=threshold, participants=participants)
    counts = result.counts.assign(total=result.counts["n_a"] + result.counts["n_b"])
    names = list(result.matrix.annotators)
    n = np.asarray(result.matrix.n_shared)
    values = np.asarray(result.matrix.values)
    # where memory puts each document when the ids do not sort together: the span table's first, then the
    # participants' others in the order they first appear
    span_docs = set(pd.unique(spans["document"])) if len(spans) else set()
    first: dict = {}
    if participants is not None and len(participants):
        first = participants.groupby("document", sort=False)["_order"].min().to_dict()
    per_document = result.per_document.assign(
        _span=[d in span_docs for d in result.per_document["document"]],
        _first=[first.get(d, -1) for d in result.per_document["document"]],
    )
    return {
        "pairs": result.pairs[["annotator_a", "annotator_b", "n_documents", "n_a", "n_b", "tp"]],
        "pair_label": counts.groupby(["annotator_a", "annotator_b", "label"], sort=False)[["tp", "total"]]
        .sum()
        .reset_index(),
        "per_document": per_document,
        "label_spans": result.per_label[["label", "n_spans"]],
        "present": pd.Series(np.diag(n).astype(np.int64), index=pd.Index(names, dtype=object)),
        "has": pd.Series(np.diag(values) == 1.0, index=pd.Index(names, dtype=object)),
        "n_spans": result.n_spans,
        "n_duplicates": result.n_duplicates,
        "n_documents": result.n_documents,
    }


@validate(client=ANY, match=Choice("exact", "overlap"), threshold=Real(0, 1, low_open=True))
def span_f1_dask(
    spans: Any,
    *,
    client: Any,
    match: str = "exact",
    threshold: float = 0.5,
    participants: pd.DataFrame | None = None,
    replace_undefined_by: float = np.nan,
    progress: bool | None = None,
) -> Any:
    r""":func:`iaa_engine.span_f1` of a Dask DataFrame of spans, computed document by document.

    The spans and the participants are shuffled by document; each partition runs the in-memory :func:`span_f1` on
    its whole documents. A pair's F1 on the documents both took part in is :math:`F_{ab} = 2 t / (n_a + n_b)` with
    :math:`t, n_a, n_b` sums over documents, so the partitions' per-pair (and per-pair-and-label) counts are added
    up and the client finishes as in memory (the mean and population SD over pairs, per label; each document's
    rows come from its partition).

    Parameters
    ----------
    spans : dask.dataframe.DataFrame
        One row per span: ``document``, ``annotator``, ``start``, ``end`` (exclusive), ``label``.
    client : distributed.Client
        The cluster.
    match : {'exact', 'overlap'}
        When two spans match (as :func:`iaa_engine.span_f1`).
    threshold : float
        With ``match='overlap'``: the IoU, in (0, 1], two spans need.
    participants : DataFrame, optional
        Who took part in which document (columns ``document``, ``annotator``).
    replace_undefined_by : float
        Returned (with a warning) when no pair has a span.
    progress : bool, optional
        Dask's progress bar on standard error (default: on a terminal).

    Returns
    -------
    SpanF1
        As :func:`iaa_engine.span_f1` returns it, but for ``counts`` (the (pair, document, label) rows stay on the
        cluster: an empty table).

    Raises
    ------
    ValueError
        As :func:`iaa_engine.span_f1` (a malformed span table, an annotator with spans who is not a participant),
        or a failure on the cluster (one line).

    References
    ----------
    Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and reliability in information retrieval.
    Journal of the American Medical Informatics Association 12(3), 296-298.

    Examples
    --------
    >>> import dask.dataframe as dd, distributed, pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"document": ["d1", "d1", "d2", "d2"], "annotator": ["a", "b", "a", "b"],
    ...                       "start": [0, 0, 5, 6], "end": [10, 10, 9, 9], "label": "x"})
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=None) as client:  # doctest: +SKIP
    ...     result = ie.span_f1_dask(dd.from_pandas(spans, npartitions=2), client=client)
    >>> result.estimate == ie.span_f1(spans).estimate  # doctest: +SKIP
    True
    """
    import dask

    from iaa_engine.engines._commands import _by_item, _run

    missing = [c for c in ("document", "annotator", "start", "end", "label") if c not in spans.columns]
    if missing:
        raise ValueError(
            f"the span table needs the columns document, annotator, start, end, label; missing: {', '.join(missing)}"
        )
    if participants is not None:
        from iaa_engine.data._spans import _participant_table

        participants = _participant_table(participants, True)
    (labels,) = dask.compute(spans["label"].dropna().unique())
    try:
        categories = pd.Index(pd.factorize(pd.Series(np.asarray(labels, dtype=object)), sort=True)[1])
    except TypeError:
        categories = pd.Index(pd.factorize(pd.Series(np.asarray(labels, dtype=object)).astype(str), sort=True)[1])
    shuffled = _by_item(_union(spans, None, participants), "document")
    numbers = _numbers(spans)
    tasks = [
        dask.delayed(_f1_part)(p, participants is not None, match, threshold, numbers) for p in shuffled.to_delayed()
    ]
    results = [r for r in _run(client, tasks, progress) if r is not None]
    if not results:
        raise ValueError("the span table holds no document")
    return _f1_finish(results, categories, match, threshold, replace_undefined_by)


def _f1_finish(results: list, categories: pd.Index, match: str, threshold: float, replace_undefined_by: float) -> Any:
    """The partitions' counts added up and finished as :func:`iaa_engine.span_f1` finishes them."""
    from iaa_engine.metrics._span_f1 import SpanF1, _f1_matrix, _mean_and_sd, _pair_scores, _summary

    present = pd.concat([r["present"] for r in results]).groupby(level=0).sum()
    has = pd.concat([r["has"] for r in results]).groupby(level=0).any()
    try:
        codes, names = pd.factorize(pd.Series(present.index.to_numpy(dtype=object)), sort=True)
    except TypeError:
        codes, names = pd.factorize(pd.Series(present.index.to_numpy(dtype=object)).astype(str), sort=True)
    names = pd.Index(names)
    present, has = present.reindex(names, fill_value=0), has.reindex(names, fill_value=False)
    pairs = (
        pd.concat([r["pairs"] for r in results], ignore_index=True)
        .assign(a=lambda t: names.get_indexer(t["annotator_a"]), b=lambda t: names.get_indexer(t["annotator_b"]))
        .groupby(["a", "b"], sort=True)[["n_documents", "n_a", "n_b", "tp"]]
        .sum()
        .reset_index()
    )
    for col in ("n_documents", "n_a", "n_b", "tp"):
        pairs[col] = pairs[col].astype(np.int64)
    defined, pooled = _pair_scores(pairs)
    n_pairs = int(defined.size)
    estimate, sd = _mean_and_sd(defined, replace_undefined_by)

    by_label = (
        pd.concat([r["pair_label"] for r in results], ignore_index=True)
        .assign(
            a=lambda t: names.get_indexer(t["annotator_a"]),
            b=lambda t: names.get_indexer(t["annotator_b"]),
            c=lambda t: categories.get_indexer(t["label"]),
        )
        .groupby(["a", "b", "c"], sort=True)[["tp", "total"]]
        .sum()
        .reset_index()
    )
    by_label["f1"] = 2.0 * by_label["tp"] / by_label["total"]
    per_label = _summary(by_label["f1"], by_label["c"], by_label["tp"], by_label["total"], categories, "label")
    label_spans = pd.concat([r["label_spans"] for r in results]).groupby("label")["n_spans"].sum()
    per_label["n_spans"] = label_spans.reindex(categories, fill_value=0).to_numpy(np.int64)
    per_document = pd.concat([r["per_document"] for r in results], ignore_index=True)
    if len(per_document):
        try:  # as memory's sorted union of the documents (an Index's sort: ids that do not sort together raise)
            _, order = pd.Index(per_document["document"].to_numpy(dtype=object)).sort_values(return_indexer=True)
            per_document = per_document.iloc[order]
        except TypeError:  # ids that do not sort together: the span table's (sorted), then the participants' others
            spans_first = per_document[per_document["_span"]]
            codes, _ = pd.factorize(spans_first["document"], sort=True)
            others = per_document[~per_document["_span"]].sort_values("_first", kind="stable")
            per_document = pd.concat([spans_first.iloc[np.argsort(codes, kind="stable")], others])
    per_document = per_document.drop(columns=["_span", "_first"]).reset_index(drop=True)

    out_pairs = pd.DataFrame(
        {"annotator_a": names.take(pairs["a"].to_numpy()), "annotator_b": names.take(pairs["b"].to_numpy())}
    )
    for col in ("n_documents", "n_a", "n_b", "tp", "fp", "fn", "precision", "recall", "f1"):
        out_pairs[col] = pairs[col].to_numpy()
    k = len(names)
    counts = pd.DataFrame(
        {c: pd.Series(dtype=object) for c in ("annotator_a", "annotator_b", "document", "label")}
        | {c: pd.Series(dtype=np.int64) for c in ("n_a", "n_b", "tp", "fp", "fn")}
    )
    return SpanF1(
        metric="span_f1",
        estimate=estimate,
        sd=sd,
        pooled=pooled,
        n_pairs=n_pairs,
        match=match,
        threshold=1.0 if match == "exact" else float(threshold),
        n_spans=int(sum(r["n_spans"] for r in results)),
        n_duplicates=int(sum(r["n_duplicates"] for r in results)),
        n_annotators=k,
        n_documents=int(sum(r["n_documents"] for r in results)),
        n_labels=len(categories),
        pairs=out_pairs,
        per_document=per_document,
        per_label=per_label,
        counts=counts,
        matrix=_f1_matrix(pairs, names, has.to_numpy(bool), present.to_numpy(np.int64), match, threshold),
    )
