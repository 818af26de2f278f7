"""The sufficient statistics: per-partition computation combines to the whole (the basis of distributed runs)."""

from __future__ import annotations

import numpy as np
import pandas as pd

import iaa_engine as ie
from iaa_engine.stats._tables import AnnotatorStats, ItemCounts, PairStats


def _data(seed=0, items=200, annotators=12, labels=4):
    rng = np.random.default_rng(seed)
    rows = [(i, a, int(rng.integers(labels))) for i in range(items) for a in range(annotators) if rng.random() < 0.3]
    return ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))


def _split(data, parts):
    """Partition the annotations by item (an item never spans two partitions)."""
    bounds = np.linspace(0, data.n_items, parts + 1).astype(int)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        keep = (data.item >= lo) & (data.item < hi)
        yield data.item[keep] - lo, data.annotator[keep], data.label[keep], hi - lo


def test_item_counts_combine():
    data = _data()
    parts = [ItemCounts.from_codes(i, lab, n, data.n_categories) for i, _, lab, n in _split(data, 5)]
    whole = ItemCounts.combine(parts)
    np.testing.assert_array_equal(whole.to_dense(), data.counts.to_dense())
    np.testing.assert_array_equal(whole.n_i, data.counts.n_i)
    np.testing.assert_array_equal(whole.max_i, data.counts.max_i)
    np.testing.assert_allclose(whole.coincidences().toarray(), data.counts.coincidences().toarray(), atol=1e-12)


def test_annotator_and_pair_stats_combine():
    data = _data(seed=1)
    a, c = data.n_annotators, data.n_categories
    splits = list(_split(data, 4))
    ann = AnnotatorStats.combine([AnnotatorStats.from_codes(an, lab, a, c) for _, an, lab, _ in splits])
    np.testing.assert_array_equal(ann.counts, data.annotator_stats.counts)
    pairs = PairStats.combine([PairStats.from_codes(i, an, lab, n, a, c) for i, an, lab, n in splits])
    ref = data.pair_stats
    np.testing.assert_array_equal(pairs.n_shared, ref.n_shared)
    np.testing.assert_array_equal(pairs.n_agree, ref.n_agree)
    np.testing.assert_array_equal(pairs.pairs[0], ref.pairs[0])
    for got, want in zip(pairs.pair_marginals, ref.pair_marginals):
        np.testing.assert_array_equal(got.toarray(), want.toarray())


def test_pair_stats_against_brute_force():
    data = _data(seed=2, items=60, annotators=6, labels=3)
    frame = data.to_long()
    wide = frame.pivot(index="item", columns="annotator", values="label")
    ps = data.pair_stats
    for i, x in enumerate(data.annotators):
        for j, y in enumerate(data.annotators):
            both = wide[[x, y]].dropna()
            if i == j:
                assert ps.n_shared[i, i] == wide[x].notna().sum()
                continue
            assert ps.n_shared[i, j] == len(both)
            assert ps.n_agree[i, j] == int((both[x] == both[y]).sum())
            row = int(np.searchsorted(ps.pairs[0], i * ps.n_annotators + j))
            r, s = (m.toarray() for m in ps.pair_marginals)
            for k, cat in enumerate(data.categories):
                assert r[row, k] == int((both[x] == cat).sum())  # a's labels on the shared items
                assert s[row, k] == int((both[y] == cat).sum())  # b's labels


def test_metrics_run_unchanged_on_statistics_only():
    """Annotations.from_stats (the distributed path's entry) gives every metric the same value as the raw data."""
    data = _data(seed=3)
    a, c = data.n_annotators, data.n_categories
    splits = list(_split(data, 3))
    stats_only = ie.Annotations.from_stats(
        ItemCounts.combine([ItemCounts.from_codes(i, lab, n, c) for i, _, lab, n in splits]),
        items=data.items,
        categories=data.categories,
        annotators=data.annotators,
        annotator_stats=AnnotatorStats.combine([AnnotatorStats.from_codes(an, lab, a, c) for _, an, lab, _ in splits]),
        pair_stats=PairStats.combine([PairStats.from_codes(i, an, lab, n, a, c) for i, an, lab, n in splits]),
    )
    assert stats_only.n_annotations == data.n_annotations
    full, part = ie.report(data).to_dict(), ie.report(stats_only).to_dict()
    assert full == part
    # re-reading at another level recodes the statistics
    order = list(reversed(data.categories))
    assert ie.krippendorff_alpha(stats_only.with_level("ordinal", order)) == ie.krippendorff_alpha(
        data.with_level("ordinal", order)
    )
    np.testing.assert_array_equal(
        ie.cohen_kappa_matrix(stats_only.with_level("nominal", order)).values, ie.cohen_kappa_matrix(data).values
    )


def test_exact_sums_make_partitioned_results_bit_identical():
    """Integer sums per annotation count, divided once: any partitioning of the items gives the in-memory floats
    to the last bit (the Dask engine relies on this)."""
    from iaa_engine.stats._sums import CountSums, ExactSums

    data = _data(seed=4, items=400)
    whole = CountSums.from_counts(data.counts)
    for parts in (2, 5, 13):
        combined = ExactSums.combine(
            [
                ExactSums.from_counts(ItemCounts.from_codes(i, lab, n, data.n_categories))
                for i, _, lab, n in _split(data, parts)
            ]
        ).finish()
        for field in (
            "n_pairable",
            "n_items",
            "sum_p",
            "sum_unanimous",
            "sum_props",
            "totals",
            "p_by_n",
            "items_by_n",
            "o_row",
            "o_col",
            "o_val",
        ):
            np.testing.assert_array_equal(getattr(combined, field), getattr(whole, field), err_msg=field)
        assert combined.krippendorff_alpha("nominal", None) == whole.krippendorff_alpha("nominal", None)


def test_sparse_pair_entries_equal_the_dense_table(monkeypatch):
    """Above the dense limit the pairs are enumerated and sorted: the same table, cell for cell."""
    import iaa_engine.stats._tables as stats

    rng = np.random.default_rng(11)
    for _ in range(25):
        a, c, n = int(rng.integers(2, 7)), int(rng.integers(1, 5)), int(rng.integers(1, 40))
        rows = [(i, x, int(rng.integers(0, c))) for i in range(n) for x in range(a) if rng.random() < 0.6]
        if not rows:
            continue
        item, ann, lab = (np.array(col, dtype=np.int64) for col in zip(*rows))
        dense = PairStats.from_codes(item, ann, lab, n, a, c)
        monkeypatch.setattr(stats, "_PAIR_CELLS", 0)
        sparse = PairStats.from_codes(item, ann, lab, n, a, c)
        monkeypatch.undo()
        np.testing.assert_array_equal(dense.to_cells(), sparse.to_cells())
        np.testing.assert_array_equal(dense.n_shared, sparse.n_shared)


def test_ratio_expected_sum_in_blocks_equals_the_full_table(monkeypatch):
    """The ratio metric's expected sum, a block of rows at a time over the symmetric table, equals the full einsum."""
    from iaa_engine.stats import _differences as diff

    rng = np.random.default_rng(5)
    monkeypatch.setattr(diff, "RATIO_CELLS", 7)  # many small blocks
    for c in (1, 2, 5, 37, 120):
        x = rng.random(c) * 5.0
        x[0] = 0.0  # x + y = 0 is defined as distance 0
        totals = rng.integers(0, 4, (3, c)).astype(float)
        full = np.einsum("...c,ck,...k->...", totals, diff.delta("ratio", x[:, None], x[None, :]), totals)
        np.testing.assert_allclose(diff.ratio_expected_sum(totals, x), full, rtol=1e-13, atol=1e-12)


def test_exact_sums_dense_and_sparse_coincidences_are_equal(monkeypatch):
    """ExactSums.from_counts takes the coincidences per annotation count from a dense items × labels table (one k × k
    product per count) when labels are few, from sparse products otherwise: the integers are the same."""
    import dataclasses

    from iaa_engine.stats import _sums
    from iaa_engine.stats._sums import ExactSums

    rng = np.random.default_rng(11)
    for n_items, k, big in [(1, 1, 1), (50, 2, 1), (400, 7, 3), (3000, 40, 1000)]:
        n_per = rng.integers(1, 9, n_items)
        item = np.repeat(np.arange(n_items), n_per)
        label = rng.integers(0, k, item.size)
        counts = ItemCounts.from_codes(item, label, n_items, k)
        counts = ItemCounts(counts.item, counts.category, counts.count * big, n_items, k)  # large counts too
        dense = ExactSums.from_counts(counts)
        monkeypatch.setattr(_sums, "DENSE_COINCIDENCE_LABELS", 0)
        sparse = ExactSums.from_counts(counts)
        monkeypatch.undo()
        for f in dataclasses.fields(ExactSums):
            a, b = getattr(dense, f.name), getattr(sparse, f.name)
            if f.name.startswith("coinc_"):  # the same cells, perhaps in another order
                o_a = np.lexsort((dense.coinc_key, dense.coinc_n))
                o_b = np.lexsort((sparse.coinc_key, sparse.coinc_n))
                a, b = a[o_a], b[o_b]
            np.testing.assert_array_equal(a, b, err_msg=f.name)
        assert dense.finish().o_val.tolist() == sparse.finish().o_val.tolist()
