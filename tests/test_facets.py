"""Hierarchical facets and frequency strata (seed 004 §4, §5, §7) on constructed data with known answers."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

# Two annotators, four items; worked by hand below.
HAND = [("A/x", "A/x"), ("A/y", "A/x"), ("B/z", "B/z"), ("B/z", "A/y")]


def hand_data(fmt=lambda s: s):
    rows = [(i, who, fmt(lab)) for i, pair in enumerate(HAND) for who, lab in zip("ab", pair)]
    return ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))


def test_closed_form_hierarchy():
    """Parent view (A,A),(A,A),(B,B),(B,A): n = 8, n_A = 5, n_B = 3, one disagreeing item:
    D_o = 2/8, D_e = (64 - 25 - 9)/56, α1 = 1 - (1/4)/(30/56) = 16/30.
    Child view (x,x),(y,x),(z,z),(z,y): n_x = 3, n_y = 2, n_z = 3, two disagreeing items:
    D_o = 4/8, D_e = (64 - 9 - 4 - 9)/56 = 3/4, α2 = 1/3; full labels partition the values like the children: 1/3.
    γ = (1/3)/(16/30) = 0.625. Conditional on A: values x,x | y,x (item 4 has one A-annotation):
    D_o = 2/4, D_e = (16 - 9 - 1)/12 = 1/2, α = 0; on B: one pairable item, all z: undefined."""
    h = ie.hierarchical_agreement(hand_data())
    assert h.alpha_parent == pytest.approx(16 / 30, abs=1e-15)
    assert h.alpha_child == pytest.approx(1 / 3, abs=1e-15)
    assert h.alpha_full == pytest.approx(1 / 3, abs=1e-15)
    assert h.gamma == pytest.approx(0.625, abs=1e-15)
    assert h.conditional.loc["A", "alpha"] == pytest.approx(0.0, abs=1e-15)
    assert h.conditional.loc["A", "n_items"] == 2 and h.conditional.loc["A", "n_annotations"] == 5
    assert np.isnan(h.conditional.loc["B", "alpha"]) and h.conditional.loc["B", "n_items"] == 1


def test_label_forms_are_equivalent():
    """Paths 'A/x', (parent, child) tuples, Label Studio taxonomy values [['A', 'x']] and another separator."""
    base = ie.hierarchical_agreement(hand_data()).to_dict()
    for fmt, sep in [
        (lambda s: tuple(s.split("/")), "/"),
        (lambda s: [s.split("/")], "/"),
        (lambda s: s.replace("/", " > "), ">"),
    ]:
        other = ie.hierarchical_agreement(hand_data(fmt), sep=sep).to_dict()
        for key in ("alpha_parent", "alpha_child", "alpha_full", "gamma"):
            assert other[key] == pytest.approx(base[key], abs=1e-15)


def test_projections_by_brute_force():
    rng = np.random.default_rng(1)
    tree = {"P": ["a", "b"], "Q": ["a", "c", "d"], "R": []}
    labels = [f"{p}/{c}" for p, cs in tree.items() for c in cs] + ["R"]
    frame = pd.DataFrame(
        [(i, a, labels[rng.integers(len(labels))]) for i in range(60) for a in range(4) if rng.random() < 0.7],
        columns=["item", "annotator", "label"],
    )
    views = ie.split_hierarchy(frame)
    parent = frame.assign(label=frame["label"].str.split("/").str[0])
    child = frame[frame["label"].str.contains("/")].assign(label=lambda f: f["label"].str.split("/").str[1])
    assert ie.krippendorff_alpha(views["parent"]) == pytest.approx(ie.krippendorff_alpha(parent), abs=1e-14)
    assert ie.krippendorff_alpha(views["child"]) == pytest.approx(ie.krippendorff_alpha(child), abs=1e-14)
    assert views["child"].n_annotations == len(child)  # "R" has no child: missing at the child level
    h = ie.hierarchical_agreement(frame)
    for p in ("P", "Q"):
        sub = child[frame.loc[child.index, "label"].str.startswith(p + "/")]
        assert h.conditional.loc[p, "alpha"] == pytest.approx(ie.krippendorff_alpha(sub), abs=1e-14)


def test_gamma_undefined_when_denominator_not_positive():
    # parents and children disagree systematically: both alphas negative
    frame = pd.DataFrame(
        [(0, "a", "A/x"), (0, "b", "B/y"), (1, "a", "B/y"), (1, "b", "A/x")], columns=["item", "annotator", "label"]
    )
    h = ie.hierarchical_agreement(frame)
    assert h.alpha_parent < 0 and h.alpha_child < 0
    assert np.isnan(h.gamma) and any("gamma is undefined" in n for n in h.notes)
    assert ie.hierarchical_agreement(frame, replace_undefined_by=0.0).gamma == 0.0


def _tree_crowd(seed, parent_acc, child_acc, n_items=300):
    rng = np.random.default_rng(seed)
    tree = {"Animals": ["Mammals", "Birds"], "Plants": ["Trees", "Flowers"]}
    rows = []
    for i in range(n_items):
        p = rng.choice(list(tree))
        c = rng.choice(tree[p])
        for a in range(3):
            pp = p if rng.random() < parent_acc else rng.choice(list(tree))
            cc = c if (pp == p and rng.random() < child_acc) else rng.choice(tree[pp])
            rows.append((i, a, f"{pp}/{cc}"))
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


def test_hierarchy_test_detects_higher_parent_agreement():
    """Parents agree far more than children (seed 7): H0 α1 <= α2 is rejected (p < 0.01)."""
    res = ie.hierarchy_test(_tree_crowd(7, parent_acc=0.95, child_acc=0.5), seed=1, n_boot=1000)
    assert res["difference"] > 0.2 and res["p_value"] < 0.01 and res["lower"] > 0


def test_hierarchy_test_does_not_reject_when_children_agree_more():
    """Child names determine the parent here, and children agree about as well as parents: no rejection."""
    res = ie.hierarchy_test(_tree_crowd(8, parent_acc=0.8, child_acc=1.0), seed=2, n_boot=1000)
    assert res["p_value"] > 0.05


# ----------------------------------------------------------------------------- frequency strata


def test_label_agreement_is_binary_alpha():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        [(i, a, "abcd"[min(rng.geometric(0.4) - 1, 3)]) for i in range(80) for a in range(3) if rng.random() < 0.8],
        columns=["item", "annotator", "label"],
    )
    per_label = ie.label_agreement(frame)
    for lab in "abcd":
        binary = frame.assign(label=(frame["label"] == lab).map({True: "yes", False: "no"}))
        assert per_label.loc[lab, "alpha"] == pytest.approx(ie.krippendorff_alpha(binary), abs=1e-14)
        assert per_label.loc[lab, "frequency"] == (frame["label"] == lab).sum()  # seed 004 eq. (11)


def test_strata_by_quantiles_and_stratum_alpha():
    rng = np.random.default_rng(4)
    labels = list("abcdefgh")
    weights = np.array([1, 2, 3, 5, 8, 13, 21, 34], float)
    frame = pd.DataFrame(
        [(i, a, labels[rng.choice(8, p=weights / weights.sum())]) for i in range(150) for a in range(3)],
        columns=["item", "annotator", "label"],
    )
    res = ie.frequency_strata(frame)
    f = frame["label"].value_counts().reindex(labels).to_numpy()
    q1, q2 = np.quantile(f, [1 / 3, 2 / 3])
    expected = np.where(f <= q1, "rare", np.where(f <= q2, "moderate", "common"))  # seed 004 eqs. (12)-(15)
    assert res.labels.loc[labels, "stratum"].tolist() == expected.tolist()
    for name in ("rare", "moderate", "common"):
        members = [lab for lab, s in zip(labels, expected) if s == name]
        touched = frame.loc[frame["label"].isin(members), "item"].unique()
        subset = frame[frame["item"].isin(touched)]  # eq. (16): items where some annotator used a stratum label
        assert res.strata.loc[name, "alpha"] == pytest.approx(ie.krippendorff_alpha(subset), abs=1e-14)
        assert res.strata.loc[name, "n_items"] == len(touched)


def test_frequency_regression_closed_form():
    """Labels used with frequencies 2, 4, 8, 16 (annotations), always unanimously: every α_ℓ = 1, so
    β0 = 1 and β1 = 0 exactly; and a fit on disagreeing data matches scipy's linregress on the same points."""
    rows, item = [], 0
    for lab, pairs in zip("abcd", (1, 2, 4, 8)):
        for _ in range(pairs):
            rows += [(item, 0, lab), (item, 1, lab)]
            item += 1
    res = ie.frequency_strata(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    assert res.labels["alpha"].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert res.regression["beta0"] == pytest.approx(1.0, abs=1e-14)
    assert res.regression["beta1"] == pytest.approx(0.0, abs=1e-14)
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        [(i, a, "abcde"[min(rng.geometric(0.35) - 1, 4)]) for i in range(200) for a in range(3)],
        columns=["item", "annotator", "label"],
    )
    res = ie.frequency_strata(frame)
    lab = res.labels
    slope, intercept = np.polyfit(np.log(lab["frequency"]), lab["alpha"], 1)
    assert res.regression["beta1"] == pytest.approx(slope, abs=1e-12)
    assert res.regression["beta0"] == pytest.approx(intercept, abs=1e-12)


def test_strata_argument_errors():
    frame = pd.DataFrame([(0, 0, "a"), (0, 1, "a")], columns=["item", "annotator", "label"])
    with pytest.raises(ValueError, match="n_strata must be a whole number from 1 to 100; got 0"):
        ie.frequency_strata(frame, n_strata=0)
    # issue 25: 10**9 strata ended in a MemoryError (a name per stratum); refused by the bound, before any work
    with pytest.raises(ValueError, match="n_strata must be a whole number from 1 to 100; got 1000000000"):
        ie.frequency_strata(frame, n_strata=10**9)
    with pytest.raises(ValueError, match="names has 2 entries but n_strata is 3"):
        ie.frequency_strata(frame, names=["x", "y"])


def _conditional_by_subsets(data, sep="/"):
    """Brute force: for each parent, Krippendorff's nominal alpha on a fresh long table of its annotations' children."""
    long = data.to_long()
    parts = long["label"].map(lambda s: str(s).split(sep))
    long = long.assign(parent=parts.str[0], child=parts.map(lambda p: p[1] if len(p) > 1 else None))
    out = {}
    for parent, g in long[long["child"].notna()].groupby("parent"):
        sub = ie.Annotations.from_long(g[["item", "annotator", "child"]].rename(columns={"child": "label"}))
        pairable = int((sub.counts.n_i >= 2).sum())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
            value = ie.krippendorff_alpha(sub) if pairable else np.nan
        out[parent] = (value, pairable, len(g))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_conditional_alphas_all_parents_at_once_equal_one_alpha_per_parent(seed):
    """The conditional child alphas come from one sort and grouped sums (issue 25: the loop over parents was
    quadratic); checked against Krippendorff's alpha on each parent's own subset, with parents that have one child
    only (undefined), items with a single annotation of the parent (not pairable) and labels without a child."""
    rng = np.random.default_rng(seed)
    n = 600
    labels = [f"P{p}/C{c}" for p, c in zip(rng.integers(0, 25, n), rng.integers(0, 3, n))]
    labels[:40] = ["Solo/only"] * 40  # one child: D_e = 0, undefined
    labels[40:60] = ["Leaf"] * 20  # no child: not in the child view
    frame = pd.DataFrame({"item": rng.integers(0, 150, n), "annotator": np.arange(n) % 7, "label": labels})
    data = ie.Annotations.from_long(frame.drop_duplicates(["item", "annotator"]))
    h = ie.hierarchical_agreement(data, replace_undefined_by=-9.0)
    expected = _conditional_by_subsets(data)
    for parent, row in h.conditional.iterrows():
        if parent not in expected:  # no annotation with a child under this parent
            assert (row["alpha"], row["n_items"], row["n_annotations"]) == (-9.0, 0, 0)
            continue
        value, pairable, count = expected[parent]
        assert row["n_items"] == pairable and row["n_annotations"] == count
        if np.isfinite(value):
            assert row["alpha"] == pytest.approx(value, abs=1e-12)
        else:
            assert row["alpha"] == -9.0
    assert h.conditional.loc["Solo", "alpha"] == -9.0


def test_hierarchy_cost_does_not_grow_with_parents_times_rows(monkeypatch):
    """Issue 25: --hierarchy on 5k/10k/20k rows of many labels took 7/26/87 s (one alpha per parent, a list search
    per category, and dense items × categories tables). Now three alphas whatever the number of parents, and the
    count tables of data with many labels are sparse: a few MB for 4,500 annotations of 1,900 labels (a dense
    1,500 × 1,900 table alone is 23 MB)."""
    import tracemalloc

    import iaa_engine.analysis._facets as facets

    rng = np.random.default_rng(0)
    n = 4500
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(n // 3), 3),
            "annotator": np.tile(np.arange(3), n // 3),
            "label": [f"P{p}/C{c}" for p, c in zip(rng.integers(0, 450, n), rng.integers(0, 5, n))],
        }
    )
    data = ie.Annotations.from_long(frame)
    calls = []
    real = facets.krippendorff_alpha
    monkeypatch.setattr(facets, "krippendorff_alpha", lambda *a, **k: calls.append(1) or real(*a, **k))
    tracemalloc.start()
    ie.hierarchical_agreement(data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(calls) == 3  # parent, child, full: no alpha per parent
    assert peak < 12 * 2**20, peak / 2**20
    tracemalloc.start()
    ie.cohen_kappa_matrix(data)  # the annotator-pair table: sparse as well, with (3 x 1,900)^2 possible cells
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 12 * 2**20, peak / 2**20


def test_hierarchy_test_refuses_a_table_too_large_before_building_projections():
    """6,667 items x 8,650 labels is above the bootstrap's 50 million cells: refused with its one line before any
    table is built (the category -> parent projection was a dense 8,650 x 2,000 array, 138 MB, built first)."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 20_000
    labels = [f"P{p}/C{c}" for p, c in zip(rng.integers(0, 2000, n), rng.integers(0, 5, n))]
    frame = pd.DataFrame({"item": np.arange(n) // 3, "annotator": np.arange(n) % 3, "label": labels})
    data = ie.Annotations.from_long(frame)
    tracemalloc.start()
    with pytest.raises(ValueError, match="too large"):
        ie.hierarchy_test(data, n_boot=10)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 32 * 2**20, peak / 2**20
