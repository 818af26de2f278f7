"""Counts of pairwise span F1: for every pair of annotators (a < b), document both took part in, and label, the
spans of each and the matched spans (true positives).

With t the matches of a pair on a document and label and n_a, n_b the spans of each there, a's spans unmatched are
b's false negatives (n_a - t) and b's unmatched its false positives (n_b - t), a being the reference; F1 =
2t / (n_a + n_b) is symmetric. The counts add over documents and labels, so every F1 (per pair, per document, per
label, pooled) is a sum of these rows. Pure array code: sorted composite keys and ``reduceat``, no loop over spans.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SpanPairCounts", "span_pair_counts"]


@dataclass(frozen=True, eq=False)
class SpanPairCounts:
    """Rows (a, b, document, category) with a < b and the pair's spans and matches there; ``shared_*`` lists every
    (a, b, document) both took part in, with or without spans."""

    a: np.ndarray
    b: np.ndarray
    document: np.ndarray
    category: np.ndarray
    tp: np.ndarray
    n_a: np.ndarray
    n_b: np.ndarray
    shared_a: np.ndarray
    shared_b: np.ndarray
    shared_document: np.ndarray


def _within_groups(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j), i < j, of positions in one run of equal ``group`` values (``group`` sorted)."""
    n = group.size
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    last = np.searchsorted(group, group, side="right")
    reps = last - np.arange(n) - 1
    i = np.repeat(np.arange(n), reps)
    j = i + 1 + (np.arange(i.size) - np.repeat(np.cumsum(reps) - reps, reps))
    return i, j


def span_pair_counts(
    count_document: np.ndarray,
    count_category: np.ndarray,
    count_annotator: np.ndarray,
    count: np.ndarray,
    participant_document: np.ndarray,
    participant_annotator: np.ndarray,
    match_document: np.ndarray,
    match_category: np.ndarray,
    match_a: np.ndarray,
    match_b: np.ndarray,
    match_count: np.ndarray,
) -> SpanPairCounts:
    """The rows of :class:`SpanPairCounts` from the spans per (document, category, annotator), the participants
    (unique (document, annotator) pairs; every annotator with a span in a document among them) and the matches per
    (document, category, a < b)."""
    order = np.lexsort((participant_annotator, participant_document))
    p_doc, p_ann = participant_document[order], participant_annotator[order]
    i, j = _within_groups(p_doc)
    shared_a, shared_b, shared_doc = p_ann[i], p_ann[j], p_doc[i]
    # each count row meets every other participant of its document
    first = np.searchsorted(p_doc, count_document, side="left")
    size = np.searchsorted(p_doc, count_document, side="right") - first
    row = np.repeat(np.arange(count.size), size)
    other = p_ann[np.repeat(first, size) + (np.arange(row.size) - np.repeat(np.cumsum(size) - size, size))]
    mine = count_annotator[row]
    keep = other != mine
    row, other, mine = row[keep], other[keep], mine[keep]
    n = count[row]
    a = np.concatenate([np.minimum(mine, other), match_a])
    b = np.concatenate([np.maximum(mine, other), match_b])
    doc = np.concatenate([count_document[row], match_document])
    cat = np.concatenate([count_category[row], match_category])
    zeros = np.zeros(match_count.size, np.int64)
    n_a = np.concatenate([np.where(mine < other, n, 0), zeros])
    n_b = np.concatenate([np.where(mine > other, n, 0), zeros])
    tp = np.concatenate([np.zeros(row.size, np.int64), match_count])
    order = np.lexsort((cat, doc, b, a))
    a, b, doc, cat = a[order], b[order], doc[order], cat[order]
    if a.size == 0:
        empty = np.zeros(0, np.int64)
        return SpanPairCounts(empty, empty, empty, empty, empty, empty, empty, shared_a, shared_b, shared_doc)
    new = np.concatenate(
        [[True], (a[1:] != a[:-1]) | (b[1:] != b[:-1]) | (doc[1:] != doc[:-1]) | (cat[1:] != cat[:-1])]
    )
    starts = np.flatnonzero(new)
    return SpanPairCounts(
        a=a[starts],
        b=b[starts],
        document=doc[starts],
        category=cat[starts],
        tp=np.add.reduceat(tp[order], starts),
        n_a=np.add.reduceat(n_a[order], starts),
        n_b=np.add.reduceat(n_b[order], starts),
        shared_a=shared_a,
        shared_b=shared_b,
        shared_document=shared_doc,
    )
