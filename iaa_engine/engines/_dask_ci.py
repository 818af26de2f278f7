"""What the bootstrap and the analytic standard errors need, summarised on a Dask cluster.

Each partition (whole items, :func:`iaa_engine.engines._distributed.summarize_dask`) tallies its items' distinct
count vectors and its share of the annotator metrics' resampling units
(:class:`~iaa_engine.inference._resampling.UnitSums`: units keyed by a hash of the item id, never by position);
the shares add up in the summary's tree reduction. On the client, :func:`resampling_fields` puts the tally in the
order :func:`~iaa_engine.inference._inference.count_patterns` gives in memory, so :func:`iaa_engine.bootstrap`
draws the same replicates from the same seed: the intervals equal the in-memory ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from iaa_engine.stats._tables import ItemCounts

__all__ = ["Resampling", "partition_resampling", "combine_resampling", "resampling_fields"]


@dataclass
class Resampling:
    """One partition's (or a sum of partitions') tally of count patterns and annotator-unit sums (``None``: could
    not be tallied, e.g. too many categories for a dense pattern table; the reason is kept)."""

    patterns: tuple[np.ndarray, np.ndarray] | None
    units: Any
    reason: str | None = None
    #: per (annotator · C + label, pattern): the items with that pattern carrying that annotation (Conger's kappa's
    #: standard error); None when too many
    entries: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def partition_resampling(
    items: Any,
    item_codes: np.ndarray,
    ann_codes: np.ndarray,
    lab_codes: np.ndarray,
    counts: ItemCounts,
    n_ann: int,
    n_cat: int,
) -> Resampling:
    """A partition's share (``items``: its item ids, in the order of its item codes)."""
    from iaa_engine.inference._inference import annotator_blocks
    from iaa_engine.inference._resampling import UnitSums, entry_patterns, item_keys

    patterns: tuple[np.ndarray, np.ndarray] | None = None
    entries = reason = None
    try:
        patterns, entries = entry_patterns(counts, item_codes, ann_codes * n_cat + lab_codes)
    except ValueError as exc:
        reason = str(exc)
    units = UnitSums.from_codes(
        item_keys(items), item_codes, ann_codes, lab_codes, counts, n_ann, n_cat, annotator_blocks(n_ann, n_cat)
    )
    return Resampling(patterns, units, reason, entries)


def combine_resampling(parts: Sequence[Resampling | None]) -> Resampling | None:
    """The sum of disjoint partitions' shares."""
    from iaa_engine.inference._resampling import UnitSums, merge_entry_patterns

    held = [p for p in parts if p is not None]
    if not held:
        return None
    reason = next((p.reason for p in held if p.reason), None)
    patterns = entries = None
    if not reason:
        patterns, entries = merge_entry_patterns([(cast(Any, p.patterns), p.entries) for p in held])
    return Resampling(patterns, UnitSums.combine([p.units for p in held]), reason, entries)


def resampling_fields(total: Resampling | None) -> dict[str, Any]:
    """``patterns`` (in :func:`count_patterns`' order) and ``unit_sums`` for :meth:`Annotations.from_stats`."""
    from iaa_engine.inference._resampling import PATTERN_CELLS, pattern_order

    if total is None:
        return {}
    patterns = entries = None
    if total.patterns is not None:
        rows, mult = total.patterns
        if rows.size <= PATTERN_CELLS:
            order = pattern_order(rows)
            patterns = (rows[order], mult[order])
            if total.entries is not None:
                rank = np.empty(order.size, dtype=np.int64)
                rank[order] = np.arange(order.size)
                e, pat, n = total.entries
                entries = (e, rank[pat], n)
    return {"patterns": patterns, "unit_sums": total.units, "entry_patterns": entries}
