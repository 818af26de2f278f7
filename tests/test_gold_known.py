"""Gold questions: gold_standard(known=...) keeps known labels fixed under Dawid-Skene (as crowd-kit's
DawidSkene.fit(data, true_labels) does, crowd-kit 1.4.2), the voting rules report their agreement with them, and
gold_accuracy gives each annotator's accuracy with Wilson's interval and a verdict."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_engine as ie


def noisy_crowd(seed: int = 0, n_items: int = 400, n_ann: int = 7) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    acc = np.array([0.8, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45])[:n_ann]
    rows = []
    for i in range(n_items):
        for a in rng.choice(n_ann, size=3, replace=False):
            lab = truth[i] if rng.random() < acc[a] else (truth[i] + rng.integers(1, 3)) % 3
            rows.append((f"t{i:04d}", f"w{a}", f"c{lab}"))
    df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    return df, pd.Series([f"c{t}" for t in truth], index=[f"t{i:04d}" for i in range(n_items)])


def test_dawid_skene_keeps_every_known_item_fixed():
    df, truth = noisy_crowd()
    plain = ie.gold_standard(df, rule="dawid_skene", progress=False).per_item().set_index("item")["gold"]
    wrong = truth[plain.reindex(truth.index) != truth]  # items Dawid-Skene gets wrong without help
    assert len(wrong) > 20
    known = pd.concat([wrong, truth.drop(wrong.index).iloc[:50]])
    gold = ie.gold_standard(df, rule="dawid_skene", known=known, progress=False)
    got = gold.per_item().set_index("item")["gold"]
    assert (got.loc[known.index] == known).all()  # every known item keeps its label, none tied
    post = gold.posteriors.loc[known.index]
    assert np.all(post.max(axis=1).to_numpy() == 1.0)
    assert gold.known_agreement == 1.0 and gold.known["agrees"].all()
    # and known labels drawn at random teach the rest: accuracy on the other items does not drop
    sample = truth.sample(frac=0.3, random_state=0)
    helped = ie.gold_standard(df, rule="dawid_skene", known=sample, progress=False).per_item().set_index("item")
    rest = truth.drop(sample.index)
    assert (helped["gold"].loc[rest.index] == rest).mean() >= (plain.loc[rest.index] == rest).mean() - 0.01


def test_dawid_skene_with_known_labels_matches_crowd_kit():
    """crowd-kit 1.4.2's DawidSkene.fit(data, true_labels) sets the posterior of a known task to the known label's
    indicator after initialisation and after every E-step (_correct_probas_with_golden), as we do. Both run
    exactly 60 EM steps (their convergence losses differ): same posteriors and confusion matrices to 1e-9 (crowd-kit
    floors its returned posteriors at 1e-10)."""
    ck = pytest.importorskip("crowdkit.aggregation")
    from importlib.metadata import version

    assert tuple(int(p) for p in version("crowd-kit").split(".")[:2]) >= (1, 4)  # true_labels: crowd-kit >= 1.4
    df, truth = noisy_crowd(seed=1)
    known = truth.iloc[::7]
    ours = ie.gold_standard(df, rule="dawid_skene", known=known, max_iter=60, tol=-np.inf, progress=False)
    frame = df.rename(columns={"item": "task", "annotator": "worker"})
    theirs = ck.DawidSkene(n_iter=60, tol=-np.inf).fit(frame, true_labels=known)
    probas = theirs.probas_.reindex(index=ours.posteriors.index, columns=ours.posteriors.columns)
    np.testing.assert_allclose(ours.posteriors.to_numpy(), probas.to_numpy(), atol=1e-9)
    np.testing.assert_allclose(ours.priors.to_numpy(), theirs.priors_.reindex(ours.priors.index).to_numpy(), atol=1e-12)
    without = ck.DawidSkene(n_iter=60, tol=-np.inf).fit(frame).probas_.reindex_like(probas)
    assert np.abs(without.to_numpy() - probas.to_numpy()).max() > 0.1  # the known labels do change the answer


def test_voting_rules_report_agreement_with_known_labels():
    # items: p (a, a, b) majority a; q (b, b, a) majority b; r (a, b) tied
    data = ie.Annotations.from_long(
        pd.DataFrame(
            [("p", 1, "a"), ("p", 2, "a"), ("p", 3, "b"), ("q", 1, "b"), ("q", 2, "b"), ("q", 3, "a"),
             ("r", 1, "a"), ("r", 2, "b")],
            columns=["item", "annotator", "label"],
        )
    )  # fmt: skip
    known = {"p": "a", "q": "a", "r": "b", "unseen": "a"}
    gold = ie.gold_standard(data, known=known)
    table = gold.known.set_index("item")
    # p agrees (a), q does not (b), r is a tie a|b: the majority did not decide it, so it does not agree even
    # though b is among the tied labels (issue 36: "agrees with 100%" about a tie); 1 of 3; the unseen item is ignored
    assert list(table["agrees"]) == [True, False, False]
    assert list(table["tie"]) == [False, False, True]
    assert table.loc["r", "gold"] == "a|b"
    assert gold.known_agreement == pytest.approx(1 / 3)
    assert json.loads(gold.to_json())["known"]["agreement"] == pytest.approx(1 / 3)
    assert [r["tie"] for r in json.loads(gold.to_json())["known"]["items"]] == [False, False, True]
    with pytest.raises(ValueError, match="not one of the data's categories"):
        ie.gold_standard(data, known={"p": "c"})
    with pytest.raises(ValueError, match="more than once"):
        ie.gold_standard(data, known=pd.DataFrame({"item": ["p", "p"], "label": ["a", "b"]}))
    with pytest.raises(TypeError, match="known must be"):
        ie.gold_standard(data, known=["p", "a"])
    with pytest.raises(ValueError, match="columns 'item' and 'label'"):
        ie.gold_standard(data, known=pd.DataFrame({"a": [1], "b": [2], "c": [3]}))


def test_gold_accuracy_by_hand():
    # annotator u answers 9 gold questions, 8 right; v answers 9, 4 right; w answers none
    rows = [(f"g{i}", "u", "y" if i else "n") for i in range(9)]
    rows += [(f"g{i}", "v", "y" if i < 4 else "n") for i in range(9)]
    rows += [("extra", "w", "y"), ("extra", "u", "y")]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    known = pd.DataFrame({"item": [f"g{i}" for i in range(9)], "label": ["y"] * 9})
    acc = ie.gold_accuracy(data, known, threshold=0.5).table.set_index("annotator")
    assert list(acc["n_gold"]) == [9, 9, 0] and list(acc["n_correct"]) == [8, 4, 0]
    # Wilson 95 % of 8/9: centre (8/9 + z^2/18) / (1 + z^2/9) = 0.7912, half-width 0.2378 -> (0.5650, 0.9801)
    assert (round(acc.loc["u", "lower"], 4), round(acc.loc["u", "upper"], 4)) == (0.5650, 0.9801)
    assert acc.loc["u", "status"] == "pass" and acc.loc["u", "passed"]
    # 4/9 = 0.444 < 0.5 but its interval (0.189, 0.733) contains 0.5: failed by the estimate, undecided by the interval
    assert not acc.loc["v", "passed"] and acc.loc["v", "status"] == "undecided"
    assert acc.loc["w", "status"] == "no gold" and np.isnan(acc.loc["w", "accuracy"])
    strict = ie.gold_accuracy(data, known, threshold=0.95).table.set_index("annotator")
    assert strict.loc["v", "status"] == "fail"  # upper end 0.733 < 0.95
    with pytest.raises(ie.InvalidParameterError, match="threshold"):
        ie.gold_accuracy(data, known, threshold=1.5)


def test_a_three_way_tie_broken_by_ground_truth_neither_agrees_nor_fails_anyone():
    """Issue 36: three annotators give three labels, the ground truth picks one of them. The majority left a tie, so
    it does not agree with the known label; the two annotators who chose otherwise answered one gold question wrong,
    and one answer decides nothing (Wilson's 95 % upper end for 0/1 is z^2/(1+z^2) = 0.793 < 0.8)."""
    rows = [("t", "a", "pos"), ("t", "b", "neu"), ("t", "c", "neg")]
    rows += [(f"x{i}", w, "pos") for i in range(6) for w in "abc"]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    gold = ie.gold_standard(data, known={"t": "neg"})
    assert (
        gold.known_agreement == 0.0 and bool(gold.known["tie"].iloc[0]) and gold.known["gold"].iloc[0] == "neg|neu|pos"
    )
    acc = ie.gold_accuracy(data, {"t": "neg"}).table.set_index("annotator")
    assert list(acc["n_correct"]) == [0, 0, 1] and list(acc["n_gold"]) == [1, 1, 1]
    assert acc.loc["a", "upper"] == pytest.approx(1.959963984540054**2 / (1 + 1.959963984540054**2))
    assert list(acc["status"]) == ["undecided"] * 3
    # min_gold is the floor of a verdict: with it at 1 the single wrong answer fails (the interval alone)
    assert list(ie.gold_accuracy(data, {"t": "neg"}, min_gold=1).table["status"]) == ["fail", "fail", "undecided"]
    # 0 of 5 wrong: the interval settles it, as before
    five = {f"x{i}": "neg" for i in range(5)}
    assert set(ie.gold_accuracy(data, five).table["status"]) == {"fail"}
    with pytest.raises(ie.InvalidParameterError, match="min_gold"):
        ie.gold_accuracy(data, five, min_gold=0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abc"), min_size=1, max_size=4), min_size=1, max_size=6),
    st.lists(st.sampled_from("abc"), min_size=6, max_size=6),
)
def test_a_known_item_agrees_exactly_when_the_majority_alone_gives_the_known_label(votes, known_labels):
    """Property (issue 36): ``agrees`` is "the majority's only winner is the known label"; a tie never agrees,
    whichever labels tie; ``known_agreement`` is the share of such items. Checked against counting by hand."""
    rows = [(f"i{i}", f"w{k}", lab) for i, labs in enumerate(votes) for k, lab in enumerate(labs)]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    known = {f"i{i}": known_labels[i] for i in range(len(votes)) if known_labels[i] in set(sum(votes, []))}
    if not known:
        return
    gold = ie.gold_standard(data, known=known).known.set_index("item")
    for item, label in known.items():
        counts = pd.Series(votes[int(item[1:])]).value_counts()
        winners = set(counts.index[counts == counts.max()])
        assert bool(gold.loc[item, "tie"]) == (len(winners) > 1)
        assert bool(gold.loc[item, "agrees"]) == (winners == {label})
