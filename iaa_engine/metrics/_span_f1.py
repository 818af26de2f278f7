"""Pairwise span F1: how often two annotators mark the same spans, per pair, per document and per label."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import Choice, Real, validate
from iaa_engine.base._policy import undefined
from iaa_engine.base._results import PairwiseMatrix, ScalarResult, nan_to_none
from iaa_engine.data._regions import span_matches
from iaa_engine.data._spans import _participant_table, span_units
from iaa_engine.stats._span_f1 import span_pair_counts

__all__ = ["SpanF1", "span_f1", "SPAN_MATCHES"]

_METRIC = "Pairwise span F1"
#: How two spans of two annotators match (``span_f1``'s ``match``).
SPAN_MATCHES = ("exact", "overlap")


@dataclass(frozen=True, eq=False, repr=False)
class SpanF1(ScalarResult):
    """Pairwise span F1 of a span table: every annotator pair, and the mean and SD over pairs.

    Returned by :func:`span_f1`.

    Attributes
    ----------
    metric : str
        ``'span_f1'``.
    estimate : float
        The mean over annotator pairs of each pair's F1 on all the documents both took part in (bratiaa's
        "Mean F1"; ``replace_undefined_by`` when no pair has a span).
    sd : float
        The population standard deviation of the pairs' F1 (divisor the number of pairs, as bratiaa's ``np.std``).
    pooled : float
        The micro-averaged F1 over all pairs: 2 Σ tp / Σ (n_a + n_b).
    n_pairs : int
        The pairs the mean is taken over (pairs sharing a document with at least one span between them).
    match : str
        ``'exact'`` or ``'overlap'``.
    threshold : float
        The IoU two spans need to match with ``match='overlap'`` (1 for exact).
    n_spans, n_duplicates, n_annotators, n_documents, n_labels : int
        Spans counted (each distinct span of an annotator once), repeated spans left out, annotators, documents
        and labels.
    pairs : pandas.DataFrame
        One row per pair with a shared document: ``annotator_a``, ``annotator_b``, ``n_documents`` (shared),
        ``n_a``, ``n_b`` (their spans there), ``tp`` (matched), ``fp`` (b's unmatched), ``fn`` (a's unmatched),
        ``precision`` (tp / n_b), ``recall`` (tp / n_a), ``f1`` (nan where neither has a span).
    per_document, per_label : pandas.DataFrame
        One row per document (per label): ``document`` (``label``), ``n_pairs`` (pairs with a defined F1 there),
        ``mean_f1``, ``sd_f1`` (population SD over those pairs), ``pooled_f1`` (micro-average), ``n_spans``.
    counts : pandas.DataFrame
        The sufficient counts, one row per (pair, document, label) with a span: ``annotator_a``, ``annotator_b``,
        ``document``, ``label``, ``n_a``, ``n_b``, ``tp``, ``fp``, ``fn``.
    matrix : PairwiseMatrix
        The pairs' F1 as an annotator × annotator matrix (1 on the diagonal where an annotator has a span).

    References
    ----------
    Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and reliability in information retrieval.
    Journal of the American Medical Informatics Association 12(3), 296-298.

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame([("ann", 0, 5, "PER"), ("bob", 0, 5, "PER"), ("bob", 9, 12, "ORG")],
    ...                      columns=["annotator", "start", "end", "label"])
    >>> result = ie.span_f1(spans)
    >>> type(result).__name__, round(result.estimate, 4), result.n_pairs
    ('SpanF1', 0.6667, 1)
    """

    metric: str
    estimate: float
    sd: float
    pooled: float
    n_pairs: int
    match: str
    threshold: float
    n_spans: int
    n_duplicates: int
    n_annotators: int
    n_documents: int
    n_labels: int
    pairs: pd.DataFrame
    per_document: pd.DataFrame
    per_label: pd.DataFrame
    counts: pd.DataFrame
    matrix: PairwiseMatrix

    _TABLES = ("pairs", "per_document", "per_label", "counts")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the scalars and the tables as lists of records (undefined values are null)."""
        out = {k: nan_to_none(getattr(self, k)) for k in self.keys() if k not in (*self._TABLES, "matrix")}
        for name in self._TABLES:
            table = getattr(self, name)
            columns = {c: nan_to_none(table[c].to_numpy()) for c in table.columns}
            out[name] = [dict(zip(columns, row)) for row in zip(*columns.values())]
        return out

    def __repr__(self) -> str:
        value = "undefined" if self.estimate != self.estimate else f"{self.estimate:.4f}"
        return (
            f"SpanF1({value} ± {self.sd:.4f} SD over {self.n_pairs} pairs, {self.match} match; pooled "
            f"{self.pooled:.4f}; {self.n_spans} spans, {self.n_annotators} annotators, {self.n_documents} documents)"
        )


def _sorted_union(first: pd.Index, more: pd.Index) -> tuple[pd.Index, np.ndarray]:
    """The names of ``first`` and ``more`` together, sorted (as given when they do not sort), and where each of
    ``first`` went."""
    names = first.append(more).unique()
    try:
        names = names.sort_values()
    except TypeError:
        pass
    return names, names.get_indexer(first).astype(np.int64)


def _participation(
    participants: Any, units: Any, has_documents: bool
) -> tuple[pd.Index, pd.Index, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Who took part in which document (read as :func:`unitizing_alpha` reads ``participants``). Returns the
    documents and annotators (sorted, the participants' own among them), the participants' codes, and where the span
    table's document and annotator codes went. An annotator with spans in a document who is not listed there is
    refused (as the other span coefficients refuse them: ids that do not compare equal, '7' and 7, show up here)."""
    table = _participant_table(participants, has_documents)
    if not has_documents:
        table = table.assign(document=units.documents[0] if len(units.documents) else None)
    documents, doc_map = _sorted_union(units.documents, pd.Index(pd.unique(table["document"])))
    annotators, ann_map = _sorted_union(units.annotators, pd.Index(pd.unique(table["annotator"])))
    doc = documents.get_indexer(table["document"]).astype(np.int64)
    ann = annotators.get_indexer(table["annotator"]).astype(np.int64)
    listed = np.unique(doc * len(annotators) + ann)
    span_key = doc_map[units.document] * len(annotators) + ann_map[units.annotator]
    outsider = ~np.isin(span_key, listed)
    if outsider.any():
        shown = pd.DataFrame(
            {
                "document": documents.take(doc_map[units.document[outsider]]),
                "annotator": annotators.take(ann_map[units.annotator[outsider]]),
            }
        ).drop_duplicates()
        listed_text = "; ".join(f"{a!r} in {d!r}" for d, a in shown.head(5).itertuples(index=False))
        raise ValueError(
            f"participants does not list {len(shown)} annotator(s) who marked spans in a document: {listed_text}"
            + (f" (and {len(shown) - 5} more)" if len(shown) > 5 else "")
            + "; an annotator with spans in a document took part in it: add them to participants"
        )
    return documents, annotators, doc, ann, doc_map, ann_map


def _summary(
    f1: pd.Series, key: pd.Series, tp: pd.Series, total: pd.Series, names: pd.Index, column: str
) -> pd.DataFrame:
    """Per ``key``: the pairs with a defined F1, their mean and population SD, the micro-average and the spans."""
    frame = pd.DataFrame({"key": key.to_numpy(), "f1": f1.to_numpy(), "tp": tp.to_numpy(), "total": total.to_numpy()})
    grouped = frame.groupby("key", sort=True)
    stats = grouped["f1"].agg(["count", "mean"])
    stats["sd"] = grouped["f1"].std(ddof=0)
    sums = grouped[["tp", "total"]].sum()
    out = pd.DataFrame({column: names}, index=pd.RangeIndex(len(names)))
    out["n_pairs"] = stats["count"].reindex(out.index, fill_value=0).astype(np.int64)
    out["mean_f1"] = stats["mean"].reindex(out.index)
    out["sd_f1"] = stats["sd"].reindex(out.index)
    t, n = sums["tp"].reindex(out.index, fill_value=0), sums["total"].reindex(out.index, fill_value=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["pooled_f1"] = np.where(n > 0, 2.0 * t / np.where(n > 0, n, 1), np.nan)
    return out


def _pair_scores(pairs: pd.DataFrame) -> tuple[pd.Series, float]:
    """Adds ``fp``, ``fn``, ``precision``, ``recall`` and ``f1`` to ``pairs`` (a row per pair of annotators with
    ``n_a``, ``n_b`` and ``tp``; NaN where undefined), in place; returns the defined F1s and the pooled F1 (NaN
    without any span). Shared by :func:`span_f1` and the Dask engine's finishing."""
    with np.errstate(divide="ignore", invalid="ignore"):
        total = pairs["n_a"] + pairs["n_b"]
        pairs["fp"] = pairs["n_b"] - pairs["tp"]
        pairs["fn"] = pairs["n_a"] - pairs["tp"]
        pairs["precision"] = np.where(pairs["n_b"] > 0, pairs["tp"] / pairs["n_b"].where(pairs["n_b"] > 0, 1), np.nan)
        pairs["recall"] = np.where(pairs["n_a"] > 0, pairs["tp"] / pairs["n_a"].where(pairs["n_a"] > 0, 1), np.nan)
        pairs["f1"] = np.where(total > 0, 2.0 * pairs["tp"] / total.where(total > 0, 1), np.nan)
    all_tp, all_total = float(pairs["tp"].sum()), float((pairs["n_a"] + pairs["n_b"]).sum())
    return pairs["f1"].dropna(), 2.0 * all_tp / all_total if all_total > 0 else float("nan")


def _mean_and_sd(defined: pd.Series, replace_undefined_by: float) -> tuple[float, float]:
    """The mean F1 over the pairs with a defined F1 and its (population) standard deviation; without such a pair,
    ``replace_undefined_by`` (with the policy's warning) and NaN."""
    if defined.size:
        return float(defined.mean()), float(defined.std(ddof=0))
    reason = "no pair of annotators has a span on a document both took part in"
    return undefined(_METRIC, reason, replace_undefined_by), float("nan")


def _f1_matrix(
    pairs: pd.DataFrame, names: Any, has: np.ndarray, n_self: np.ndarray, match: str, threshold: float
) -> PairwiseMatrix:
    """The annotators' F1 matrix from ``pairs`` (codes ``a``, ``b``, ``f1``, ``n_documents``): on the diagonal 1
    for an annotator with a span (``has``), else NaN, and the annotator's documents (``n_self``). Shared by
    :func:`span_f1` and the Dask engine's finishing."""
    k = len(names)
    values = np.full((k, k), np.nan)
    n_shared = np.zeros((k, k), np.int64)
    pa, pb = pairs["a"].to_numpy(), pairs["b"].to_numpy()
    values[pa, pb] = values[pb, pa] = pairs["f1"].to_numpy()
    n_shared[pa, pb] = n_shared[pb, pa] = pairs["n_documents"].to_numpy()
    values[np.diag_indices(k)] = np.where(has, 1.0, np.nan)
    n_shared[np.diag_indices(k)] = n_self
    label = "exact" if match == "exact" else f"IoU >= {threshold:g}"
    return PairwiseMatrix(f"span F1 ({label} match)", list(names), values, n_shared)


@validate(match=Choice(*SPAN_MATCHES), threshold=Real(0, 1, low_open=True))
def span_f1(
    spans: Any,
    *,
    match: str = "exact",
    threshold: float = 0.5,
    participants: Any = None,
    replace_undefined_by: float = np.nan,
) -> SpanF1:
    r"""Pairwise span F1 (Hripcsak & Rothschild 2005), as bratiaa reports it (Prodigy's ``metric.iaa.span``
    reports pairwise F1 too).

    For annotators a and b on the documents both took part in, with :math:`t` spans matched one to one,
    :math:`n_a` and :math:`n_b` their spans,

    .. math::

        F_{ab} = \frac{2 t}{n_a + n_b},\qquad \bar F = \frac{1}{P} \sum_{a<b} F_{ab},\qquad
        s_F = \sqrt{\frac{1}{P} \sum_{a<b} (F_{ab} - \bar F)^2}

    over the P pairs with a defined F1 (population SD, as bratiaa's ``np.std``). F is symmetric: a's precision is
    b's recall. The same counts restricted to one document (summed over its labels) or one label (summed over the
    documents) give the mean and SD per document and per label; ``pooled`` is the micro-average
    2 Σ t / Σ (n_a + n_b).

    **Matching.** ``match='exact'``: two spans match when document, label, start and end are equal (bratiaa's
    instance-based agreement). ``match='overlap'``: when document and label are equal and their intersection over
    union is at least ``threshold`` (default 0.5; a tiny threshold counts any overlap); each span matches at most one
    span of each other annotator (above 0.5 that is automatic for non-overlapping spans; otherwise the most matches,
    then the largest total IoU, by the Hungarian method on that document, label and pair). An annotator's repeated
    span (same document, label, start and end) counts once, as in bratiaa (``n_duplicates``).

    **Who took part.** A pair counts only the documents both annotators took part in. ``participants``, a table
    (columns ``document``, ``annotator``) or a mapping {document: annotators}, says who saw which document: a
    participant with no span in a document has agreed that it holds none (their partner's spans there are misses).
    An annotator with spans in a document must be listed there (refused otherwise, as by :func:`unitizing_alpha`;
    documents only participants name need no continuum here). **Without** ``participants`` a document counts for a
    pair when both have a span in it, so an annotator who saw a document and marked nothing is not counted there
    (bratiaa counts every document whose file both annotators have, so pass ``participants`` to reproduce it when
    some files are empty).

    **Undefined values.** A pair with no span on its shared documents (per document, per label) has an undefined
    F1 (0/0); it is left out of the mean and SD (``n_pairs`` says how many remain), where bratiaa's ``np.mean``
    returns nan for the whole row. The headline is undefined, following the library's policy, when no pair has a
    span.

    Parameters
    ----------
    spans : DataFrame, dict of columns or list of rows
        One row per span: ``annotator``, ``start``, ``end`` (exclusive), ``label`` and optionally ``document``,
        checked as :func:`unitizing_alpha` checks them.
    match : {'exact', 'overlap'}
        When two spans match.
    threshold : float
        With ``match='overlap'``: the IoU, in (0, 1], two spans need.
    participants : DataFrame or mapping, optional
        Who took part in each document (see above).
    replace_undefined_by : float
        Returned (with a warning) when no pair has a span.

    Returns
    -------
    SpanF1
        ``estimate`` (mean F1 over pairs), ``sd``, ``pooled``, the ``pairs``, ``per_document``, ``per_label`` and
        ``counts`` tables, and the F1 ``matrix``.

    Raises
    ------
    InvalidParameterError
        ``match`` is not one of the choices or ``threshold`` is not in (0, 1].
    ValueError
        The span table is malformed (a missing column, an end before its start, a boolean or non-finite position,
        a position beyond ±1e100), or ``participants`` leaves out an annotator who marked spans in a document.

    References
    ----------
    Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and reliability in information retrieval.
    Journal of the American Medical Informatics Association 12(3), 296-298.

    Kolditz, T. et al. (2019). Annotating German clinical documents for de-identification. MedInfo 2019, 203-207
    (bratiaa, github.com/kldtz/bratiaa).

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame(
    ...     [("ann", 0, 5, "PER"), ("ann", 10, 14, "ORG"), ("bob", 0, 5, "PER"), ("bob", 10, 15, "ORG"),
    ...      ("cat", 0, 5, "PER")],
    ...     columns=["annotator", "start", "end", "label"])
    >>> result = ie.span_f1(spans)
    >>> result.pairs[["annotator_a", "annotator_b", "tp", "f1"]].round(4)
      annotator_a annotator_b  tp      f1
    0         ann         bob   1  0.5000
    1         ann         cat   1  0.6667
    2         bob         cat   1  0.6667
    >>> round(result.estimate, 4), round(result.sd, 4)
    (0.6111, 0.0786)
    >>> round(ie.span_f1(spans, match="overlap").estimate, 4)
    0.7778
    """
    with warnings.catch_warnings():  # no continuum: F1 needs none (its warning is about alpha_U)
        warnings.filterwarnings("ignore", message="no continuum given", category=UserWarning)
        units = span_units(spans, None, None, "keep", warn_absent=False)  # F1 does not count absent annotators
    has_documents = "document" in (spans if isinstance(spans, pd.DataFrame) else pd.DataFrame(spans)).columns
    documents, annotators = units.documents, units.annotators
    p_doc = p_ann = np.zeros(0, np.int64)
    span_doc, span_ann = units.document, units.annotator
    if participants is not None:
        documents, annotators, p_doc, p_ann, doc_map, ann_map = _participation(participants, units, has_documents)
        span_doc, span_ann = doc_map[span_doc], ann_map[span_ann]

    # distinct spans: an annotator's repeated span counts once
    table = pd.DataFrame({"d": span_doc, "a": span_ann, "c": units.category, "b": units.begin, "e": units.end})
    distinct = table.drop_duplicates(ignore_index=True)
    d, a, c = (distinct[k].to_numpy(np.int64) for k in ("d", "a", "c"))
    b, e = distinct["b"].to_numpy(float), distinct["e"].to_numpy(float)
    m_doc, m_cat, m_a, m_b, m_n = span_matches(d, a, c, b, e, None if match == "exact" else float(threshold))

    # spans per (document, label, annotator); participants: the given ones and everyone with a span
    per = distinct.groupby(["d", "c", "a"], sort=True).size()
    idx = per.index
    present = pd.DataFrame({"d": np.concatenate([d, p_doc]), "a": np.concatenate([a, p_ann])}).drop_duplicates()
    counts = span_pair_counts(
        idx.get_level_values(0).to_numpy(np.int64),
        idx.get_level_values(1).to_numpy(np.int64),
        idx.get_level_values(2).to_numpy(np.int64),
        per.to_numpy(np.int64),
        present["d"].to_numpy(np.int64),
        present["a"].to_numpy(np.int64),
        m_doc,
        m_cat,
        m_a,
        m_b,
        m_n,
    )

    names = pd.Index(annotators)
    rows = pd.DataFrame(
        {
            "a": counts.a,
            "b": counts.b,
            "document": counts.document,
            "label": counts.category,
            "n_a": counts.n_a,
            "n_b": counts.n_b,
            "tp": counts.tp,
        }
    )
    rows["total"] = rows["n_a"] + rows["n_b"]

    def f1_of(groups: list[str]) -> pd.DataFrame:
        sums = rows.groupby(groups, sort=True)[["tp", "total"]].sum().reset_index()
        sums["f1"] = 2.0 * sums["tp"] / sums["total"]  # every row here has a span: total > 0
        return sums

    # pairs: every pair with a shared document, with or without spans
    shared = pd.DataFrame({"a": counts.shared_a, "b": counts.shared_b})
    n_docs = shared.groupby(["a", "b"], sort=True).size().rename("n_documents").reset_index()
    sums = rows.groupby(["a", "b"], sort=True)[["n_a", "n_b", "tp"]].sum().reset_index()
    pairs = n_docs.merge(sums, on=["a", "b"], how="left").fillna({"n_a": 0, "n_b": 0, "tp": 0})
    for col in ("n_a", "n_b", "tp"):
        pairs[col] = pairs[col].astype(np.int64)
    defined, pooled = _pair_scores(pairs)
    n_pairs = int(defined.size)
    estimate, sd = _mean_and_sd(defined, replace_undefined_by)

    by_doc = f1_of(["a", "b", "document"])
    per_document = _summary(by_doc["f1"], by_doc["document"], by_doc["tp"], by_doc["total"], documents, "document")
    by_label = f1_of(["a", "b", "label"])
    per_label = _summary(
        by_label["f1"], by_label["label"], by_label["tp"], by_label["total"], units.categories, "label"
    )
    spans_doc = np.bincount(d, minlength=len(documents))
    per_document["n_spans"] = spans_doc.astype(np.int64)
    per_label["n_spans"] = np.bincount(c, minlength=len(units.categories)).astype(np.int64)
    shared_docs = np.unique(counts.shared_document)
    per_document = per_document[per_document.index.isin(shared_docs) | (per_document["n_spans"] > 0)]
    per_document = per_document.reset_index(drop=True)

    out_pairs = pd.DataFrame(
        {
            "annotator_a": names.take(pairs["a"].to_numpy()),
            "annotator_b": names.take(pairs["b"].to_numpy()),
        }
    )
    for col in ("n_documents", "n_a", "n_b", "tp", "fp", "fn", "precision", "recall", "f1"):
        out_pairs[col] = pairs[col].to_numpy()
    out_counts = pd.DataFrame(
        {
            "annotator_a": names.take(rows["a"].to_numpy()),
            "annotator_b": names.take(rows["b"].to_numpy()),
            "document": documents.take(rows["document"].to_numpy()),
            "label": units.categories.take(rows["label"].to_numpy()),
            "n_a": rows["n_a"].to_numpy(),
            "n_b": rows["n_b"].to_numpy(),
            "tp": rows["tp"].to_numpy(),
        }
    )
    out_counts["fp"] = out_counts["n_b"] - out_counts["tp"]
    out_counts["fn"] = out_counts["n_a"] - out_counts["tp"]

    k = len(names)
    has = np.bincount(a, minlength=k) > 0
    n_self = np.bincount(present["a"].to_numpy(np.int64), minlength=k)
    return SpanF1(
        metric="span_f1",
        estimate=estimate,
        sd=sd,
        pooled=pooled,
        n_pairs=n_pairs,
        match=match,
        threshold=1.0 if match == "exact" else float(threshold),
        n_spans=int(len(distinct)),
        n_duplicates=int(len(table) - len(distinct)),
        n_annotators=k,
        n_documents=len(documents),
        n_labels=len(units.categories),
        pairs=out_pairs,
        per_document=per_document,
        per_label=per_label,
        counts=out_counts,
        matrix=_f1_matrix(pairs, names, has, n_self, match, threshold),
    )
