"""Bootstrap intervals, the delta-method variance of alpha and SPA's standard error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.inference._inference import COUNT_METRICS, count_patterns
from iaa_engine.stats._sums import CountSums


def crowd(seed, n_items=150, per_item=4, n_ann=10, accuracy=0.7, n_cls=3, priors=(0.5, 0.3, 0.2)):
    """Each item has a true class t ~ priors; each annotation is t with probability `accuracy`, else uniform."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(n_cls, size=n_items, p=priors)
    who = np.argsort(rng.random((n_items, n_ann)), axis=1)[:, :per_item]
    items = np.repeat(np.arange(n_items), per_item)
    keep = rng.random(items.size) < accuracy
    labels = np.where(keep, truth[items], rng.integers(0, n_cls, size=items.size))
    return pd.DataFrame({"item": items, "annotator": who.ravel(), "label": labels})


def true_agreement(accuracy=0.7, n_cls=3, priors=(0.5, 0.3, 0.2)):
    """Population values of the model above: P(two annotations of one item agree) and Fleiss' kappa."""
    priors = np.asarray(priors)
    hit = accuracy + (1 - accuracy) / n_cls  # P(label = t)
    miss = (1 - accuracy) / n_cls
    p_agree = hit**2 + (n_cls - 1) * miss**2
    marginal = priors * accuracy + (1 - accuracy) / n_cls
    pe = np.sum(marginal**2)
    return p_agree, (p_agree - pe) / (1 - pe)


def test_reproducible_with_a_seed():
    data = ie.Annotations.from_long(crowd(0))
    a = ie.bootstrap(data, n_boot=200, seed=7)
    b = ie.bootstrap(data, n_boot=200, seed=7)
    c = ie.bootstrap(data, n_boot=200, seed=8)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert not a.table["lower"].equals(c.table["lower"])
    assert set(a.table.index) == set(COUNT_METRICS) | {"multi_kappa", "bias"}


def test_estimates_are_the_point_estimates():
    data = ie.Annotations.from_long(crowd(1))
    t = ie.bootstrap(data, n_boot=50, seed=0).table
    assert t.loc["fleiss_kappa", "estimate"] == ie.fleiss_kappa(data)
    assert t.loc["spa[inv_var_class]", "estimate"] == ie.spa(data, weights="inv_var_class")
    assert t.loc["multi_kappa", "estimate"] == ie.multi_kappa(data)
    assert (t["lower"] <= t["upper"]).all()


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_vectorised_replicate_equals_recomputation(level):
    """A replicate (pattern multiplicities) computed by the vectorised finalisers equals the public metrics on
    the dataset it stands for (each count pattern repeated that many times)."""
    frame = crowd(2, n_cls=4, priors=(0.4, 0.3, 0.2, 0.1))
    frame["label"] += 1  # positive values for the ratio level
    data = ie.Annotations.from_long(frame, level=level)
    patterns, mult = count_patterns(data)
    rng = np.random.default_rng(3)
    draw = rng.multinomial(mult.sum(), mult / mult.sum())
    sums = data.count_sums
    feats = CountSums.pattern_features(patterns, sums.o_row, sums.o_col)
    s = CountSums.from_features(
        draw @ feats, data.n_categories, CountSums.pattern_n_values(patterns), sums.o_row, sums.o_col
    )
    resampled = ie.Annotations.from_counts(
        pd.DataFrame(np.repeat(patterns, draw, axis=0), columns=data.categories), level=level
    )
    values = data.category_values(level) if level in ("interval", "ratio") else None
    assert s.krippendorff_alpha(level, values) == pytest.approx(ie.krippendorff_alpha(resampled), abs=1e-12)
    assert s.fleiss_kappa() == pytest.approx(ie.fleiss_kappa(resampled), abs=1e-12)
    assert s.gwet_ac1() == pytest.approx(ie.gwet_ac1(resampled), abs=1e-12)
    assert s.percent_agreement() == pytest.approx(ie.percent_agreement(resampled), abs=1e-12)
    for w in ie.SPA_WEIGHTS:
        assert s.spa(w) == pytest.approx(ie.spa(resampled, weights=w), abs=1e-12)


def test_annotator_replicates_match_recomputation():
    """Multi-coder kappa of one bootstrap replicate equals multi_kappa on the resampled items."""
    from iaa_engine.base._progress import Progress
    from iaa_engine.inference._inference import _annotator_replicates

    frame = crowd(4, n_items=40)
    data = ie.Annotations.from_long(frame)
    rng = np.random.default_rng(9)
    with Progress(1, "x", show=False) as bar:
        out = _annotator_replicates(data, 1, np.random.default_rng(9), bar, chunk=1)
    idx = rng.integers(0, data.n_items, size=(1, data.n_items))[0]
    parts = [frame[frame["item"] == data.items[i]].assign(item=k) for k, i in enumerate(idx)]
    resampled = ie.Annotations.from_long(pd.concat(parts))
    assert out["multi_kappa"][0] == pytest.approx(ie.multi_kappa(resampled), abs=1e-12)
    assert out["bias"][0] == pytest.approx(ie.annotator_bias(resampled), abs=1e-12)


def test_block_replicates_match_recomputation():
    """Above ANNOTATOR_BLOCKS items, one replicate is multi_kappa on the items of the resampled random blocks."""
    from iaa_engine.base._progress import Progress
    from iaa_engine.inference._inference import _annotator_replicates

    frame = crowd(5, n_items=60)
    data = ie.Annotations.from_long(frame)
    with Progress(1, "x", show=False) as bar:
        out = _annotator_replicates(data, 1, np.random.default_rng(3), bar, chunk=1, blocks=7)
    rng = np.random.default_rng(3)
    block = rng.permutation(data.n_items) % 7
    assert np.bincount(block).max() - np.bincount(block).min() <= 1  # equal sizes
    drawn = rng.integers(0, 7, size=(1, 7))[0]
    parts = [
        frame[frame["item"].isin(data.items[block == g])].assign(item=lambda f, r=r: f["item"].astype(str) + f"#{r}")
        for r, g in enumerate(drawn)
    ]
    resampled = ie.Annotations.from_long(pd.concat(parts))
    assert out["multi_kappa"][0] == pytest.approx(ie.multi_kappa(resampled), abs=1e-12)
    assert out["bias"][0] == pytest.approx(ie.annotator_bias(resampled), abs=1e-12)


def test_block_bootstrap_spread_matches_the_items_bootstrap():
    """The blocks' replicates have the items bootstrap's spread (seeded: the numbers are fixed)."""
    from iaa_engine.base._progress import Progress
    from iaa_engine.inference._inference import _annotator_replicates

    data = ie.Annotations.from_long(crowd(6, n_items=6000))
    with Progress(1, "x", show=False) as bar:
        exact = _annotator_replicates(data, 600, np.random.default_rng(1), bar, blocks=10**6)
        blocked = _annotator_replicates(data, 600, np.random.default_rng(2), bar, blocks=300)
    for metric in ("multi_kappa", "bias"):
        se_exact, se_blocks = np.std(exact[metric], ddof=1), np.std(blocked[metric], ddof=1)
        assert se_blocks == pytest.approx(se_exact, rel=0.15), metric
        assert np.mean(blocked[metric]) == pytest.approx(np.mean(exact[metric]), abs=se_exact / 3), metric


def test_coverage_of_95_percent_intervals():
    """Coverage by simulation (seed 2026): 200 datasets of 150 items × 4 annotations from a model with known
    agreement; the 95 % percentile intervals of the joint probability and of Fleiss' kappa must cover the truth in
    90 %-99 % of datasets (a binomial 95 % band for 200 draws at p = 0.95 is about ±3 %; ±5 % leaves room for the
    percentile method's small-sample bias)."""
    p_true, kappa_true = true_agreement()
    covered = {"joint_probability": 0, "fleiss_kappa": 0}
    sims = 200
    for s in range(sims):
        data = ie.Annotations.from_long(crowd(2026 + s))
        t = ie.bootstrap(data, n_boot=400, seed=s, annotator_metrics=False).table
        covered["joint_probability"] += (
            t.loc["joint_probability", "lower"] <= p_true <= t.loc["joint_probability", "upper"]
        )
        covered["fleiss_kappa"] += t.loc["fleiss_kappa", "lower"] <= kappa_true <= t.loc["fleiss_kappa", "upper"]
    for name, hits in covered.items():
        assert 0.90 <= hits / sims <= 0.99, (name, hits / sims)


def test_alpha_jackknife_against_brute_force():
    """The vectorised delete-one-item jackknife equals a loop that drops each item and recomputes."""
    frame = crowd(5, n_items=30)
    data = ie.Annotations.from_long(frame)
    res = ie.alpha_variance(data)
    d_o, d_e, alpha = [], [], []
    for item in data.items:
        sub = ie.Annotations.from_long(frame[frame["item"] != item])
        o = ie.coincidence_matrix(sub)
        n_c = o.sum(axis=1)
        n = n_c.sum()
        d_o.append((o.sum() - np.trace(o)) / n)
        d_e.append((n * n - np.sum(n_c**2)) / (n * (n - 1)))
        alpha.append(ie.krippendorff_alpha(sub))

    def jack(v):
        v = np.asarray(v)
        return (len(v) - 1) / len(v) * np.sum((v - v.mean()) ** 2)

    assert res["var_d_o"] == pytest.approx(jack(d_o), rel=1e-10)
    assert res["var_d_e"] == pytest.approx(jack(d_e), rel=1e-10)
    assert res["var_jackknife"] == pytest.approx(jack(alpha), rel=1e-10)
    assert res["alpha"] == pytest.approx(ie.krippendorff_alpha(data), abs=1e-14)
    # seed 004 eq. (20)
    expected = res["var_d_o"] / res["d_e"] ** 2 + res["d_o"] ** 2 * res["var_d_e"] / res["d_e"] ** 4
    assert res["var_delta"] == pytest.approx(expected, rel=1e-14)


def test_delta_method_agrees_with_bootstrap():
    """On 600 items the delta-method SE of alpha is within 15 % of the bootstrap SE (seed 6)."""
    data = ie.Annotations.from_long(crowd(6, n_items=600))
    se_boot = ie.bootstrap(data, n_boot=2000, seed=6, annotator_metrics=False).table.loc["krippendorff_alpha", "se"]
    assert ie.alpha_variance(data)["se_delta"] == pytest.approx(se_boot, rel=0.15)


def test_spa_standard_error_formula():
    frame = crowd(7, n_items=50)
    frame = frame[np.random.default_rng(0).random(len(frame)) < 0.7]  # varying n_i
    data = ie.Annotations.from_long(frame)
    n = data.counts.n_i
    p = data.counts.category_totals() / data.counts.category_totals().sum()
    ok = n >= 2
    var = ie.item_agreement_variance(n[ok], p)
    k = n[ok] - 1
    assert ie.spa_standard_error(data) == pytest.approx(np.sqrt(np.sum(k**2 * var)) / np.sum(k), rel=1e-12)


def test_bootstrap_argument_errors():
    data = ie.Annotations.from_long(crowd(8, n_items=10))
    with pytest.raises(ValueError, match="n_boot must be a whole number from 2 to 100000"):
        ie.bootstrap(data, n_boot=1)
    with pytest.raises(ValueError, match=r"confidence must be a number in \(0, 1\); got"):
        ie.bootstrap(data, confidence=95)
    with pytest.raises(ValueError, match="level must be one of"):
        ie.bootstrap(data, level="nominel")
