"""Bootstrap intervals, the delta-method variance of alpha and SPA's standard error."""

from __future__ import annotations

from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.inference._inference import COUNT_METRICS, count_patterns
from iaa_engine.stats._sums import CountSums

EXAMPLES = Path(ie.__file__).parent / "examples"


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
    from iaa_engine.inference._resampling import item_keys

    frame = crowd(4, n_items=40)
    data = ie.Annotations.from_long(frame)
    rng = np.random.default_rng(9)
    with Progress(1, "x", show=False) as bar:
        out = _annotator_replicates(data, 1, np.random.default_rng(9), bar, chunk=1)
    idx = rng.integers(0, data.n_items, size=(1, data.n_items))[0]
    order = np.argsort(item_keys(data.items), kind="stable")  # the units: the items in the order of their keys
    parts = [frame[frame["item"] == data.items[order[i]]].assign(item=k) for k, i in enumerate(idx)]
    resampled = ie.Annotations.from_long(pd.concat(parts))
    assert out["multi_kappa"][0] == pytest.approx(ie.multi_kappa(resampled), abs=1e-12)
    assert out["bias"][0] == pytest.approx(ie.annotator_bias(resampled), abs=1e-12)


def test_block_replicates_match_recomputation():
    """Above ANNOTATOR_BLOCKS items, one replicate is multi_kappa on the items of the resampled blocks (an item's
    block: a hash of its id, modulo the blocks)."""
    from iaa_engine.base._progress import Progress
    from iaa_engine.inference._inference import _annotator_replicates
    from iaa_engine.inference._resampling import item_keys

    frame = crowd(5, n_items=60)
    data = ie.Annotations.from_long(frame)
    with Progress(1, "x", show=False) as bar:
        out = _annotator_replicates(data, 1, np.random.default_rng(3), bar, chunk=1, blocks=7)
    rng = np.random.default_rng(3)
    block = (item_keys(data.items) % np.uint64(7)).astype(np.int64)
    assert np.bincount(block, minlength=7).min() > 0  # every block holds items here (60 items, 7 blocks)
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


@pytest.mark.slow
@pytest.mark.parametrize("n_items", [150, 40])
def test_coverage_of_95_percent_intervals(n_items):
    """Coverage by simulation (seed 2026): 200 datasets of 150 (and 40) items × 4 annotations from a model with
    known agreement; the 95 % BCa intervals of the joint probability and of Fleiss' kappa must cover the truth in
    90 %-99 % of datasets (a binomial 95 % band for 200 draws at p = 0.95 is about ±3 %)."""
    p_true, kappa_true = true_agreement()
    covered = {"joint_probability": 0, "fleiss_kappa": 0}
    sims = 200
    for s in range(sims):
        data = ie.Annotations.from_long(crowd(2026 + s, n_items=n_items))
        t = ie.bootstrap(data, n_boot=400, seed=s, annotator_metrics=False).table
        assert (t["method"] == "bca").all()
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


# ----------------------------------------------------------------------------- BCa and the basic interval


def test_bca_constants_of_the_mean_in_closed_form():
    """For the mean, theta_(i) = (n xbar - x_i) / (n - 1), so the jackknife acceleration is
    sum (x_i - xbar)^3 / (6 (sum (x_i - xbar)^2)^(3/2)) (Efron & Tibshirani 1993, eq. 14.15); z0 is the normal
    quantile of the share of replicates below the estimate (ties half). Weights are multiplicities: the same as
    repeating the value."""
    from iaa_engine.inference._inference import bca_constants

    x = np.random.default_rng(0).exponential(size=40)
    n, xbar = x.size, x.mean()
    jack = (n * xbar - x) / (n - 1)
    reps = np.array([0.1, 0.5, xbar, xbar, 2.0, 3.0, 4.0, 5.0])
    z0, a = bca_constants(xbar, reps, jack)
    assert a == pytest.approx(np.sum((x - xbar) ** 3) / (6 * np.sum((x - xbar) ** 2) ** 1.5), rel=1e-12)
    assert z0 == pytest.approx(NormalDist().inv_cdf(3 / 8), rel=1e-12)  # 2 below, 2 ties
    values, counts = np.unique(np.round(x, 1), return_counts=True)
    assert bca_constants(1.0, reps, values, counts)[1] == pytest.approx(
        bca_constants(1.0, reps, np.repeat(values, counts))[1], rel=1e-12
    )
    assert bca_constants(xbar, np.full(5, xbar + 1), jack)[0] == -np.inf


def test_bca_equals_the_percentile_interval_without_bias_or_acceleration():
    from iaa_engine.inference._inference import _interval

    reps = np.random.default_rng(1).normal(size=999)
    reps = np.concatenate([reps, -reps, [0.0]])  # symmetric about the estimate 0: z0 = 0
    lo, hi, method = _interval("fleiss_kappa", 0.0, reps, np.ones(10), None, 0.9)
    assert method == "bca"
    assert (lo, hi) == pytest.approx(tuple(np.quantile(reps, [0.05, 0.95])), abs=1e-14)


def test_an_estimate_in_the_tail_of_its_replicates_gets_the_basic_interval():
    """z0 = Phi^-1(1/1000): BCa's lower level would be far below 1/B, so the interval is the basic one, cut to
    the metric's range."""
    from iaa_engine.inference._inference import _interval

    reps = np.linspace(0.5, 0.7, 1000)
    lo, hi, method = _interval("joint_probability", 0.5001, reps, np.ones(10), None, 0.95)
    q = np.quantile(reps, [0.025, 0.975])
    assert method == "basic"
    assert (lo, hi) == pytest.approx((max(0.0, 2 * 0.5001 - q[1]), 2 * 0.5001 - q[0]), abs=1e-14)


def test_bca_interval_matches_scipy():
    """Peer: scipy.stats.bootstrap(method='BCa') (scipy 1.17.1, its own resamples and delete-one-item jackknife) on
    Fleiss' kappa of 60 complete items: the endpoints agree within the Monte Carlo error of 20,000 replicates."""
    from scipy import stats

    data = ie.Annotations.from_long(crowd(11, n_items=60))
    counts = data.counts.to_dense().astype(float)
    m = counts.sum(axis=1)[0]

    def fleiss(idx, axis=-1):
        c = counts[idx]  # (..., n, C)
        p_bar = ((c**2).sum(-1) - m).mean(-1) / (m * (m - 1))
        p = c.sum(-2) / (c.shape[-2] * m)
        pe = (p**2).sum(-1)
        return (p_bar - pe) / (1 - pe)

    assert fleiss(np.arange(60)) == pytest.approx(ie.fleiss_kappa(data), abs=1e-12)
    ref = stats.bootstrap(
        (np.arange(60),), fleiss, n_resamples=20000, method="BCa", random_state=np.random.default_rng(5)
    ).confidence_interval
    ours = ie.bootstrap(data, n_boot=20000, seed=5, annotator_metrics=False).table.loc["fleiss_kappa"]
    assert ours["method"] == "bca"
    assert ours["lower"] == pytest.approx(ref.low, abs=0.006)
    assert ours["upper"] == pytest.approx(ref.high, abs=0.006)


def test_count_jackknife_against_brute_force():
    """The jackknife behind the acceleration: each item left out (exact, weighted by pattern), and each random
    group of items left out (grouped), equal recomputing the public metrics without them."""
    from iaa_engine.inference._inference import _count_jackknife

    frame = crowd(12, n_items=25)
    data = ie.Annotations.from_long(frame)
    patterns = count_patterns(data)
    jack, w = _count_jackknife(data, "nominal", None, "annotations_m1", patterns, np.random.default_rng(0))
    dense = data.counts.to_dense()
    for u, pattern in enumerate(patterns[0]):
        i = int(np.flatnonzero((dense == pattern).all(axis=1))[0])  # one item of the pattern
        rest = ie.Annotations.from_long(frame[frame["item"] != data.items[i]])
        assert jack["fleiss_kappa"][u] == pytest.approx(ie.fleiss_kappa(rest), abs=1e-12)
        assert jack["spa[inv_var_class]"][u] == pytest.approx(ie.spa(rest, weights="inv_var_class"), abs=1e-12)
    assert w.sum() == data.n_items
    jack, w = _count_jackknife(
        data, "nominal", None, "annotations_m1", patterns, np.random.default_rng(3), exact=0, units=4
    )
    pattern_of_item = np.repeat(np.arange(len(patterns[1])), patterns[1])
    group = np.random.default_rng(3).permutation(data.n_items) % 4
    rows = np.concatenate([np.flatnonzero((dense == p).all(axis=1)) for p in patterns[0]])  # items in pattern order
    assert (dense[rows] == patterns[0][pattern_of_item]).all()
    for g in range(4):
        rest = ie.Annotations.from_counts(pd.DataFrame(np.delete(dense[rows], np.flatnonzero(group == g), axis=0)))
        assert jack["krippendorff_alpha"][g] == pytest.approx(ie.krippendorff_alpha(rest), abs=1e-12)
    assert np.array_equal(w, np.ones(4))


def test_annotator_jackknife_against_brute_force():
    from iaa_engine.inference._inference import _AnnotatorUnits
    from iaa_engine.inference._resampling import item_keys

    frame = crowd(13, n_items=30)
    data = ie.Annotations.from_long(frame)
    jack = _AnnotatorUnits(data, np.random.default_rng(0)).jackknife(np.random.default_rng(0))
    order = np.argsort(item_keys(data.items), kind="stable")  # unit i: the item with the i-th smallest key
    for i, item in enumerate(data.items[order]):
        rest = ie.Annotations.from_long(frame[frame["item"] != item])
        assert jack["multi_kappa"][i] == pytest.approx(ie.multi_kappa(rest), abs=1e-12)
        assert jack["bias"][i] == pytest.approx(ie.annotator_bias(rest), abs=1e-12)


def crowd_with_bias(seed, n_items, preference, n_ann=40, annotator_seed=12345):
    """Annotators of skill 0.45-0.95 who, with probability preference × U(0, 1) (fixed per annotator), give their
    favourite class instead; 1-6 annotations per item. Returns the table and the annotators' true B (their label
    distributions are known in closed form)."""
    k, priors = 4, np.array([0.3, 0.25, 0.35, 0.10])
    gen = np.random.default_rng(annotator_seed)
    skill, fav, strength = gen.uniform(0.45, 0.95, n_ann), gen.integers(0, k, n_ann), preference * gen.random(n_ann)
    rng = np.random.default_rng(seed)
    truth = rng.choice(k, size=n_items, p=priors)
    per = rng.choice(np.arange(1, 7), size=n_items, p=[0.1, 0.3, 0.25, 0.15, 0.1, 0.1])
    items = np.repeat(np.arange(n_items), per)
    who = np.concatenate([rng.choice(n_ann, size=m, replace=False) for m in per])
    right = rng.random(items.size) < skill[who]
    label = np.where(right, truth[items], (truth[items] + rng.integers(1, k, items.size)) % k)
    label = np.where(rng.random(items.size) < strength[who], fav[who], label)
    base = skill[:, None] * priors + (1 - skill[:, None]) * (1 - priors) / (k - 1)
    dist = ((1 - strength[:, None]) * base + strength[:, None] * np.eye(k)[fav])[np.unique(who)]
    b_true = dist.var(axis=0).sum() / (dist.shape[0] - 1)
    return pd.DataFrame({"item": items, "annotator": who, "label": label}), b_true


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n_items", "preference", "band"),
    [(1500, 0.3, (0.90, 0.99)), (300, 0.0, (0.93, 1.0))],
    ids=["annotator-bias", "noise-only"],
)
def test_coverage_of_the_bias_interval(n_items, preference, band):
    """Coverage by simulation: 100 seeded crowds of 40 annotators whose label distributions, hence B, are known
    (500 replicates each).
    With real annotator bias (1,500 items, B = 4.6e-4) the 95 % basic interval covers the true B in 90-99 % of
    crowds; where B's estimate is mostly sampling noise (300 items, B = 3e-5: the bundled example's design) it is
    conservative. The percentile interval of the same replicates covers in neither (its replicates sit above the
    estimate)."""
    hits = perc = 0
    sims = 100
    for s in range(sims):
        frame, b_true = crowd_with_bias(s, n_items, preference)
        res = ie.bootstrap(ie.Annotations.from_long(frame), n_boot=500, seed=s, progress=False)
        row = res.table.loc["bias"]
        assert row["method"] == "basic"
        hits += row["lower"] <= b_true <= row["upper"]
        assert row["lower"] <= row["corrected"] <= row["upper"]  # the interval contains its own estimate
        q = np.quantile(res.replicates["bias"], [0.025, 0.975])
        perc += q[0] <= b_true <= q[1]
    assert band[0] <= hits / sims <= band[1], hits / sims
    assert perc / sims < 0.1


def test_bias_interval_on_the_bundled_crowd_example():
    """The bundled crowd example (scripts/make_examples.py): its 40 workers' label distributions follow from their
    skills and the class shares, so the true B is known: 4.2e-5. B's estimate, 1.2e-3, is almost all sampling
    noise (about 23 annotations per worker); the percentile interval [0.0016, 0.0025] missed both. The basic
    interval covers the true B, and it lies below the estimate (the bootstrap puts the estimate's bias at 8e-4,
    3.6 standard errors). The basic interval's own point estimate is the bias-corrected one (2 B - mean of the
    replicates, Efron & Tibshirani 1993 §10.6: 0.0004), which it contains, and which the report shows beside it."""
    rng = np.random.default_rng(20251124)  # the generator's first draws: true classes, then skills
    priors = np.array([0.3, 0.25, 0.35, 0.10])
    rng.choice(4, size=300, p=priors)
    skill = rng.uniform(0.45, 0.95, size=40)
    dist = skill[:, None] * priors + (1 - skill[:, None]) * (1 - priors) / 3
    b_true = dist.var(axis=0).sum() / 39
    assert b_true == pytest.approx(4.18e-5, rel=1e-3)
    data = ie.read(EXAMPLES / "crowd.csv")
    res = ie.bootstrap(data, n_boot=1000, seed=0, progress=False)
    row = res.table.loc["bias"]
    assert row["method"] == "basic"
    assert row["lower"] <= b_true <= row["upper"]
    assert row["upper"] < row["estimate"] == pytest.approx(ie.annotator_bias(data), abs=1e-15)
    corrected = 2 * row["estimate"] - res.replicates["bias"].mean()
    assert row["corrected"] == pytest.approx(corrected, abs=1e-15) and 0 < corrected < row["estimate"]
    assert row["lower"] <= row["corrected"] <= row["upper"]
    text = str(ie.report(data, ci=True, n_boot=1000, seed=0))
    assert f"basic (bias-corrected estimate {row['corrected']:.4f})" in text


def test_report_states_the_interval_method():
    data = ie.read(EXAMPLES / "crowd.csv")
    rep = ie.report(data, ci=True, n_boot=200)
    doc = rep.to_dict()["intervals"]
    assert doc["intervals"]["bias"]["method"] == "basic"
    assert doc["intervals"]["fleiss_kappa"]["method"] == "bca"
    assert set(doc["methods"]) == {"bca", "basic"}
    text = str(rep)
    assert "BCa" in text and "basic" in text


# ----------------------------------------------------------------------------- estimate(population=)


def test_population_smaller_than_the_items_rated_is_refused():
    """Issue 25: a population of 2 items when 5 are rated is impossible (the correction 1 - n/N would be negative);
    refused with the one message template, as 0 and inf are."""
    data = ie.Annotations.from_long(crowd(14, n_items=5))
    for metric in ("gwet_ac1", "krippendorff_alpha", "cohen_kappa"):
        with pytest.raises(ie.InvalidParameterError, match=r"population must be at least the number of items rated "
                           r"\(5\); got 2$"):  # fmt: skip
            ie.estimate(data, metric, population=2, annotator_a=0, annotator_b=1)
    assert ie.estimate(data, "gwet_ac1", population=5).se == 0.0  # the whole population rated: no sampling error
    assert ie.estimate(data, "gwet_ac1", population=50).se > 0.0


@pytest.mark.parametrize("n_cls", [3, 12, 40])
def test_count_patterns_are_the_distinct_rows(n_cls):
    """The distinct count vectors and their multiplicities, as numpy.unique(axis=0) gives them (in another order):
    by a tally of base-b keys (few categories), by sorting the keys (12), and from the dense table (40: the keys
    would not fit)."""
    priors = np.full(n_cls, 1.0 / n_cls)
    data = ie.Annotations.from_long(crowd(15, n_items=400, per_item=6, n_ann=12, n_cls=n_cls, priors=priors))
    uniq, mult = count_patterns(data)
    order = np.lexsort(uniq.T[::-1])  # numpy.unique's order: by rows
    ref, ref_mult = np.unique(data.counts.to_dense(), axis=0, return_counts=True)
    assert np.array_equal(uniq[order], ref) and np.array_equal(mult[order], ref_mult)
