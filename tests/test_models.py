"""Models beside humans (issue 17, item 4): ie.model_agreement against hand-worked cases and brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import iaa_engine as ie


def _crowd(seed: int, n_items: int = 300, n_ann: int = 6, n_models: int = 2, cats=("a", "b", "c", "d")):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(cats), n_items)
    rows, mrows = [], []
    for i in range(n_items):
        who = rng.choice(n_ann, size=rng.integers(1, 4), replace=False)  # sparse overlap, some single
        for a in who:
            lab = truth[i] if rng.random() < 0.75 else rng.integers(0, len(cats))
            rows.append((f"{i:05d}", f"ann{a:02d}", cats[lab]))
        for m in range(n_models):
            if rng.random() < 0.9:
                lab = truth[i] if rng.random() < 0.6 + 0.2 * m else rng.integers(0, len(cats))
                mrows.append((f"{i:05d}", f"model-v{m}", cats[lab]))
    cols = ["item", "annotator", "label"]
    return pd.DataFrame(rows, columns=cols), pd.DataFrame(mrows, columns=cols)


def test_hand_worked():
    # items 1..3; humans a, b; the model says x everywhere
    humans = pd.DataFrame(
        {"item": [1, 1, 2, 2, 3, 3], "annotator": list("ababab"), "label": ["x", "x", "y", "y", "x", "y"]}
    )
    model = pd.DataFrame({"item": [1, 2, 3], "annotator": "m", "label": ["x", "x", "x"]})
    t = ie.model_agreement(humans, model).table.set_index("reference")
    # vs a: items 1 (x=x), 2 (x!=y), 3 (x=x) -> 2/3; vs b: x=x, x!=y, x!=y -> 1/3
    assert t.loc["a", "agreement"] == pytest.approx(2 / 3)
    assert t.loc["b", "agreement"] == pytest.approx(1 / 3)
    # pooled: item 1 both agree (1), item 2 none (0), item 3 one of two (1/2) -> (1 + 0 + 0.5) / 3
    assert t.loc["(pooled humans)", "agreement"] == pytest.approx(0.5)
    # gold (majority over >= 2, unique): item 1 x, item 2 y, item 3 tied (left out) -> 1 of 2
    assert t.loc["(gold)", "n"] == 2 and t.loc["(gold)", "agreement"] == pytest.approx(0.5)
    # kappa of a constant rater is 0 (p_e = p_o's marginal share): vs a, p_o = 2/3, p_e = 1 * 2/3
    assert t.loc["a", "kappa"] == pytest.approx(0.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_against_brute_force(seed):
    humans, models = _crowd(seed)
    res = ie.model_agreement(humans, models, gold="majority")
    t = res.table
    for (mod, item), g in models.groupby(["annotator", "item"]):
        assert len(g) == 1
    for row in t.itertuples(index=False):
        mlab = models[models.annotator == row.model].set_index("item")["label"]
        if row.kind == "annotator":
            alab = humans[humans.annotator == row.reference].set_index("item")["label"]
            shared = mlab.index.intersection(alab.index)
            assert row.n == len(shared)
            assert row.agreement == pytest.approx(np.mean(mlab[shared].to_numpy() == alab[shared].to_numpy()))
            labels = sorted(set(humans.label) | set(models.label))
            k = cohen_kappa_score(mlab[shared], alab[shared], labels=labels)
            assert row.kappa == pytest.approx(k, abs=1e-12) or (np.isnan(row.kappa) and np.isnan(k))
        elif row.kind == "humans":
            shares = []
            for item, lab in mlab.items():
                hl = humans.loc[humans.item == item, "label"]
                if len(hl):
                    shares.append(np.mean(hl.to_numpy() == lab))
            assert row.n == pytest.approx(len(shares))
            assert row.agreement == pytest.approx(np.mean(shares))
        else:
            counts = humans.groupby("item")["label"].value_counts()
            hits = n = 0
            for item, lab in mlab.items():
                if item not in counts.index.get_level_values(0):
                    continue
                c = counts.loc[item]
                if c.sum() >= 2 and (c == c.max()).sum() == 1:
                    n += 1
                    hits += c.idxmax() == lab
            assert row.n == n and row.agreement == pytest.approx(hits / n)
    assert 0 <= res.table["agreement_lower"].min() and res.table["agreement_upper"].max() <= 1


def test_humans_unchanged_by_models():
    humans, models = _crowd(3)
    res = ie.model_agreement(humans, models)
    assert res.human_agreement == ie.joint_probability(humans)
    # the better model (v1: 80 % right) agrees with people more than the worse one (v0: 60 % right)
    pooled = res.table[res.table.kind == "humans"].set_index("model")["agreement"]
    assert pooled["model-v1"] > pooled["model-v0"]


def test_items_and_labels_only_models_have():
    humans = pd.DataFrame({"item": ["001", "001"], "annotator": ["a", "b"], "label": ["x", "x"]})
    models = pd.DataFrame({"item": ["001", "999"], "annotator": ["m", "m"], "label": ["z", "x"]})
    res = ie.model_agreement(humans, models)
    assert any("no human labelled" in n for n in res.notes)
    t = res.table.set_index("reference")
    assert t.loc["a", "n"] == 1 and t.loc["a", "agreement"] == 0.0  # 'z' is a category only the model uses
    assert "001" in humans.item.tolist()  # text ids with leading zeros are matched as text


def test_known_gold():
    humans, models = _crowd(4, n_items=60)
    known = {f"{i:05d}": "a" for i in range(10)}
    res = ie.model_agreement(humans, models, gold=known)
    assert res.gold == "known"
    for mod, g in res.table[res.table.kind == "gold"].groupby("model"):
        mlab = models[(models.annotator == mod) & models.item.isin(known)]
        assert g["n"].iloc[0] == len(mlab)
        assert g["agreement"].iloc[0] == pytest.approx(np.mean(mlab.label == "a"))


def test_errors():
    humans, models = _crowd(5, n_items=20)
    with pytest.raises(ValueError, match="gold must be 'majority', 'dawid_skene' or known labels; got 'best'"):
        ie.model_agreement(humans, models, gold="best")
    with pytest.raises(ie.InvalidParameterError, match="confidence must be"):
        ie.model_agreement(humans, models, confidence=1.5)
    counts = pd.DataFrame({"a": [2, 0], "b": [1, 3]})
    with pytest.raises(ValueError, match="annotator"):
        ie.model_agreement(ie.Annotations.from_counts(counts), models)


def test_to_dict_and_text():
    humans, models = _crowd(6, n_items=40)
    res = ie.model_agreement(humans, models, gold="dawid_skene", progress=False)
    d = res.to_dict()
    assert d["gold"] == "dawid_skene" and len(d["rows"]) == len(res.table)
    assert "pooled humans" in str(res)
