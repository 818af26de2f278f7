"""Gold labels: seed 001's bias-correcting rules on the worked matrix, ties, Dawid-Skene vs truth and crowd-kit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

from .test_seeds import MATRIX_A

BCR = ["diff", "rat", "com", "inv"]


@pytest.fixture
def classroom():
    return ie.Annotations.from_wide(MATRIX_A)


def seed001_weights(matrix: np.ndarray, rule: str) -> np.ndarray:
    """Seed 001's table of w_ik, written out from the definitions (annotators × categories 1..3)."""
    cats = [1, 2, 3]
    freq_i = np.array([[np.mean(row == k) for k in cats] for row in matrix])  # Freq_i(k)
    freq = np.array([np.mean(matrix == k) for k in cats])  # Freq(k)
    return {
        "diff": 1 + freq - freq_i,
        "rat": freq / freq_i,
        "com": 1 + 1 / len(cats) - freq_i,
        "inv": 1 / freq_i,
    }[rule]


def seed001_aggregate(matrix: np.ndarray, w: np.ndarray) -> list[list[int]]:
    """F_w(A)_j = argmax_k Σ_{i: a_ij = k} w_ik, keeping every tie, as the exercise's hint describes:
    find the maximum value, then iterate through all values to collect the categories equal to it."""
    out = []
    for j in range(matrix.shape[1]):
        scores = {k: sum(w[i, k - 1] for i in range(matrix.shape[0]) if matrix[i, j] == k) for k in (1, 2, 3)}
        best = max(scores.values())
        out.append([k for k, v in scores.items() if np.isclose(v, best, rtol=1e-12, atol=0)])
    return out


def test_seed001_frequencies_and_w11(classroom):
    """Seed 001, Example: Freq_1(1) = 6/15 = 0.4; Freq(1..3) = 15/45, 16/45, 14/45; ratio rule w_11 = 0.333/0.4.

    The seed prints w_11 = 0.832 from rounded inputs; the exact value is (15/45)/(6/15) = 0.8333… (spec.md).
    """
    w = ie.bcr_weights(classroom, "rat")
    assert w.iloc[0, 0] == pytest.approx((15 / 45) / (6 / 15), abs=1e-15)
    assert round(w.iloc[0, 0], 3) == 0.833
    freq_1 = classroom.annotator_stats.distributions[0]
    np.testing.assert_allclose(freq_1, [0.4, 4 / 15, 5 / 15])
    assert [round(v, 3) for v in freq_1] == [0.4, 0.267, 0.333]  # seed: 0.4, ≈ 0.267, ≈ 0.333


@pytest.mark.parametrize("rule", BCR)
def test_seed001_weights_of_every_rule(classroom, rule):
    """Seed 001's table of the four bias-correcting rules (Diff, Rat, Com, Inv), every w_ik."""
    expected = seed001_weights(np.array(MATRIX_A), rule)
    np.testing.assert_allclose(ie.bcr_weights(classroom, rule).to_numpy(), expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("rule", BCR)
def test_seed001_aggregation_of_every_rule(classroom, rule):
    """Seed 001's weighted aggregator on matrix A, for all four rules, against the exercise's own procedure."""
    m = np.array(MATRIX_A)
    expected = seed001_aggregate(m, seed001_weights(m, rule))
    got = ie.gold_standard(classroom, rule=rule).labels.groupby("item", sort=True)["label"].agg(list)
    assert [sorted(v) for v in got] == expected


def test_ties_keep_every_tied_label():
    """Seed 001: "If there are ties, include all options in the final dataset"."""
    data = ie.Annotations.from_wide(
        [["a", "a", "x"], ["b", "a", "x"], ["c", "b", "y"], [None, "b", "y"]], annotators_as="rows"
    )
    gold = ie.gold_standard(data, rule="majority")
    by_item = gold.labels.groupby("item")["label"].agg(list)
    assert by_item[0] == ["a", "b", "c"] and by_item[1] == ["a", "b"] and by_item[2] == ["x", "y"]
    assert gold.labels["tie"].all()
    per_item = gold.per_item()
    assert per_item["gold"].tolist() == ["a|b|c", "a|b", "x|y"] and per_item["n_tied"].tolist() == [3, 2, 2]
    d = gold.to_dict()
    assert d["items"][0]["gold"] == ["a", "b", "c"] and d["items"][0]["tie"] is True


def test_bcr_tie_between_weighted_scores():
    """A tie of weighted scores: two annotators with mirrored habits give equal weights to opposite labels."""
    # annotator a says 1 twice as often as b does, and b says 2 as often as a says 1: their inv weights mirror
    m = [[1, 1, 2, 1], [2, 2, 1, 2]]
    data = ie.Annotations.from_wide(m)
    for rule in BCR:
        expected = seed001_aggregate_any(np.array(m), ie.bcr_weights(data, rule).to_numpy())
        got = ie.gold_standard(data, rule=rule).labels.groupby("item")["label"].agg(list).tolist()
        assert [sorted(g) for g in got] == expected, rule
    assert all(len(g) == 2 for g in ie.gold_standard(data, rule="inv").labels.groupby("item")["label"].agg(list))


def seed001_aggregate_any(matrix, w):
    cats = sorted(set(matrix.ravel().tolist()))
    out = []
    for j in range(matrix.shape[1]):
        scores = {k: sum(w[i, cats.index(k)] for i in range(matrix.shape[0]) if matrix[i, j] == k) for k in cats}
        best = max(scores.values())
        out.append([k for k, v in scores.items() if np.isclose(v, best, rtol=1e-12, atol=0)])
    return out


def test_bcr_weights_unused_categories_are_nan():
    data = ie.Annotations.from_wide([[1, 1, 2], [1, 1, 1]])
    w = ie.bcr_weights(data, "inv")
    assert np.isnan(w.iloc[1, 1]) and w.iloc[1, 0] == 1.0


def test_majority_works_on_count_tables_and_bcr_needs_annotators():
    counts = ie.Annotations.from_counts([[3, 1], [2, 2]])
    assert ie.gold_standard(counts).labels["label"].tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="no annotator identities"):
        ie.gold_standard(counts, rule="diff")
    with pytest.raises(ValueError, match="rule must be one of"):
        ie.gold_standard(counts, rule="minority")


def test_gold_is_invariant_to_order_and_names():
    rng = np.random.default_rng(5)
    m = rng.integers(0, 3, size=(5, 40)).astype(object)
    m[rng.random(m.shape) < 0.3] = None
    data = ie.Annotations.from_wide(m)
    perm_items, perm_ann = rng.permutation(40), rng.permutation(5)
    shuffled = ie.Annotations.from_wide(pd.DataFrame(m).iloc[perm_ann, perm_items])
    for rule in ie.GOLD_RULES:
        a = ie.gold_standard(data, rule=rule).labels.set_index(["item", "label"]).sort_index()
        b = ie.gold_standard(shuffled, rule=rule).labels.set_index(["item", "label"]).sort_index()
        pd.testing.assert_index_equal(a.index, b.index)
        np.testing.assert_allclose(a["score"], b["score"], rtol=1e-9)


# ----------------------------------------------------------------------------- Dawid-Skene


def simulate_crowd(seed=11, n_items=1500, n_ann=12, per_item=5, n_cls=3):
    """A crowd with known truth: each annotator has a confusion matrix with accuracy 0.55-0.9."""
    rng = np.random.default_rng(seed)
    priors = np.array([0.5, 0.3, 0.2])[:n_cls]
    truth = rng.choice(n_cls, size=n_items, p=priors / priors.sum())
    conf = np.empty((n_ann, n_cls, n_cls))
    for a in range(n_ann):
        acc = rng.uniform(0.55, 0.9)
        off = rng.dirichlet(np.ones(n_cls - 1), size=n_cls) * (1 - acc)
        for t in range(n_cls):
            conf[a, t] = np.insert(off[t], t, acc)
    who = np.argsort(rng.random((n_items, n_ann)), axis=1)[:, :per_item]
    items = np.repeat(np.arange(n_items), per_item)
    anns = who.ravel()
    u = rng.random(items.size)[:, None]
    labels = (u > np.cumsum(conf[anns, truth[items]], axis=1)).sum(axis=1)
    frame = pd.DataFrame({"item": items, "annotator": anns, "label": labels})
    return frame, truth, conf


def test_dawid_skene_recovers_truth_and_confusions():
    """Simulated crowd (seed 11): DS labels ≥ 95 % correct and better than majority vote; every confusion entry
    within 0.08 of the truth and the priors within 0.03 (tolerances stated here, 1500 items × 5 annotations)."""
    frame, truth, conf = simulate_crowd()
    data = ie.Annotations.from_long(frame)
    ds = ie.gold_standard(data, rule="dawid_skene", tol=1e-8, max_iter=500)
    post = ds.posteriors.to_numpy()
    accuracy = np.mean(post.argmax(axis=1) == truth)
    mv = ie.gold_standard(data, rule="majority").labels.drop_duplicates("item", keep="first")
    mv_accuracy = np.mean(mv["label"].to_numpy() == truth[mv["item"].to_numpy()])
    assert accuracy >= 0.95 and accuracy >= mv_accuracy
    assert np.max(np.abs(ds.confusion - conf)) < 0.08
    np.testing.assert_allclose(ds.priors.to_numpy(), np.bincount(truth) / truth.size, atol=0.03)


def test_dawid_skene_matches_crowd_kit():
    """crowd-kit's DawidSkene (the reference implementation) on the same data, both running exactly 60 EM steps
    (early stopping off, since the two define their convergence loss differently): same posteriors, priors,
    confusion matrices and labels to 1e-9 (crowd-kit floors its returned posteriors at 1e-10)."""
    ck = pytest.importorskip("crowdkit.aggregation")
    frame, _, _ = simulate_crowd(seed=3, n_items=400, n_ann=8, per_item=4)
    ref = ck.DawidSkene(n_iter=60, tol=-np.inf).fit(frame.rename(columns={"item": "task", "annotator": "worker"}))
    ours = ie.gold_standard(ie.Annotations.from_long(frame), rule="dawid_skene", tol=-np.inf, max_iter=60)
    assert ours.n_iter == len(ref.loss_history_) == 60
    ref_post = ref.probas_.sort_index().reindex(columns=sorted(ref.probas_.columns))
    np.testing.assert_allclose(ours.posteriors.to_numpy(), ref_post.to_numpy(), atol=1e-9)
    np.testing.assert_allclose(ours.priors.to_numpy(), ref.priors_.sort_index().to_numpy(), atol=1e-12)
    # crowd-kit's errors_: rows (worker, observed label), columns true label
    for a in ours.annotators:
        mine = ours.confusion_matrix(a)
        theirs = ref.errors_.loc[a].reindex(index=mine.columns, fill_value=0.0).T
        np.testing.assert_allclose(mine.to_numpy(), theirs.to_numpy(), atol=1e-12)
    assert (ours.labels.drop_duplicates("item")["label"].to_numpy() == ref.labels_.sort_index().to_numpy()).all()


def test_dawid_skene_input_errors():
    data = ie.Annotations.from_wide([[1, 2], [1, 1]], annotators_as="rows")
    with pytest.raises(ValueError, match="max_iter must be a whole number from 1 to 100000; got 0"):
        ie.gold_standard(data, rule="dawid_skene", max_iter=0)
    with pytest.raises(ValueError, match="no annotator identities"):
        ie.gold_standard(ie.Annotations.from_counts([[1, 1]]), rule="dawid_skene")
