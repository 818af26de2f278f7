"""Human-likeness of model judges (issue 34, item 4): ie.human_likeness against brute force with scikit-learn's
Cohen's kappa, and its undefined cases. The reading follows Han et al. (2025), Judge's Verdict, arXiv:2510.09738:
|z| < 1 human-like, z > 1 super-consistent."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import iaa_engine as ie


def _sparse(seed: int, n_items: int = 400, n_humans: int = 6):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    acc = rng.uniform(0.6, 0.95, n_humans)
    rows = []
    for i in range(n_items):
        for h in rng.choice(n_humans, 3, replace=False):
            rows.append((i, f"h{h}", int(truth[i] if rng.random() < acc[h] else rng.integers(0, 3))))
    humans = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    models = pd.DataFrame(
        [(i, m, int(truth[i] if rng.random() < a else rng.integers(0, 3))) for m, a in (("ok", 0.8), ("oracle", 1.0))
         for i in range(n_items)],
        columns=["item", "annotator", "label"],
    )  # fmt: skip
    return humans, models


@pytest.mark.parametrize("seed", [0, 1])
def test_against_brute_force(seed):
    humans, models = _sparse(seed)
    res = ie.human_likeness(humans, models, min_items=40)
    wide = humans.pivot(index="item", columns="annotator", values="label")
    kappas = []
    for a, b in itertools.combinations(wide.columns, 2):
        both = wide[[a, b]].dropna()
        if len(both) >= 40:
            kappas.append(cohen_kappa_score(both[a], both[b]))
    mu, sd = np.mean(kappas), np.std(kappas, ddof=1)
    for model, g in models.groupby("annotator"):
        lab = g.set_index("item")["label"]
        ks = []
        for h in wide.columns:
            col = wide[h].dropna()
            shared = col.index.intersection(lab.index)
            if len(shared) >= 40:
                ks.append(cohen_kappa_score(col.loc[shared], lab.loc[shared]))
        row = res.table.set_index("model").loc[model]
        assert row["kappa"] == pytest.approx(np.mean(ks), rel=1e-12)
        assert row["z"] == pytest.approx((np.mean(ks) - mu) / sd, rel=1e-10)
        assert row["n_pairs"] == len(kappas) and row["n_humans"] == len(ks)
    t = res.table.set_index("model")
    assert t.loc["oracle", "reading"] == "super-consistent"


def test_undefined_cases_say_why():
    humans, models = _sparse(2, n_items=30)
    res = ie.human_likeness(humans, models, min_items=40)  # no pair shares 40 items
    assert res.table["z"].isna().all() and "fewer than two human pairs" in res.table.loc[0, "reason"]
    assert "undefined (fewer than two human pairs" in str(res)
    assert res.to_dict()["table"][0]["z"] is None
    same = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "annotator": list("abcabc"), "label": list("xxxyyy")})
    res = ie.human_likeness(same, same[same.annotator == "a"].assign(annotator="m"), min_items=2)
    assert "agrees alike" in res.table.loc[0, "reason"]


def test_a_computed_model_agreement_is_reused():
    humans, models = _sparse(3)
    a = ie.human_likeness(humans, models, min_items=40)
    b = ie.human_likeness(humans, models, min_items=40, agreement=ie.model_agreement(humans, models, progress=False))
    pd.testing.assert_frame_equal(a.table, b.table)
    with pytest.raises(ValueError, match="agreement must be"):
        ie.human_likeness(humans, models, agreement="no")
