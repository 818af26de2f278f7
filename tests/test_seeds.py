"""Every worked number of the seeds (shared/seeds/) that concerns the core metrics.

Each test names the seed and the place the number comes from.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

# Seed 001, "Data": the annotation matrix A (3 judges × 15 instances, categories 1-3), judges as rows.
MATRIX_A = [
    [1, 1, 1, 3, 3, 2, 3, 3, 1, 2, 2, 2, 1, 3, 1],
    [1, 2, 1, 2, 3, 2, 3, 3, 1, 1, 2, 2, 1, 3, 1],
    [2, 1, 1, 3, 3, 2, 3, 3, 2, 2, 2, 2, 2, 3, 1],
]


@pytest.fixture
def classroom() -> ie.Annotations:
    return ie.Annotations.from_wide(MATRIX_A)


# ----------------------------------------------------------------------------- seed 001


def test_seed001_cohen_example_A01_E01_kappa01(classroom):
    """Seed 001, "Cohen's Kappa", Example: A_01 = 12/15 = 0.8, E ≈ 0.337, κ ≈ 0.698."""
    a01 = ie.percent_agreement_matrix(classroom).values[0, 1]
    assert a01 == pytest.approx(12 / 15, abs=1e-15)
    kappa = ie.cohen_kappa(classroom, 0, 1)
    e01 = (a01 - kappa) / (1 - kappa)  # recover E from κ = (A - E)/(1 - E)
    # E = 6/15·6/15 + 4/15·5/15 + 5/15·4/15 = 76/225, exactly as the seed expands it
    assert e01 == pytest.approx(76 / 225, abs=1e-14)
    assert round(e01, 3) == 0.338 or round(e01, 3) == 0.337  # seed prints "≈ 0.337" (76/225 = 0.33778)
    assert kappa == pytest.approx(104 / 149, abs=1e-14)
    assert round(kappa, 3) == 0.698


def test_seed001_first_item_agreement(classroom):
    """Seed 001, "Fleiss' Kappa", Example: instance 1 has n = (2, 1, 0), P_1 = 2/6 = 0.33."""
    p = ie.item_agreement(classroom)
    assert p.iloc[0] == pytest.approx(1 / 3, abs=1e-15)
    assert round(p.iloc[0], 2) == 0.33


def test_seed001_fleiss_kappa(classroom):
    """Seed 001, "Fleiss' Kappa", Example: κ ≈ 0.599 (P̄ = 11/15, P̄_e = 677/2025)."""
    kappa = ie.fleiss_kappa(classroom)
    assert ie.joint_probability(classroom) == pytest.approx(11 / 15, abs=1e-15)
    assert kappa == pytest.approx((11 / 15 - 677 / 2025) / (1 - 677 / 2025), abs=1e-14)
    assert round(kappa, 3) == 0.599


def test_seed001_fleiss_p_k(classroom):
    """Seed 001, "Annotation aggregation", Example: Freq(1) = 15/45, Freq(2) = 16/45, Freq(3) = 14/45.

    These are also Fleiss' p_k for the matrix; Freq_1(1) = 6/15 = 0.4 is annotator 1's share of category 1.
    """
    totals = classroom.counts.category_totals()
    np.testing.assert_allclose(totals / totals.sum(), [15 / 45, 16 / 45, 14 / 45], atol=1e-15)
    dist = classroom.annotator_stats.distributions
    assert dist[0, 0] == pytest.approx(0.4, abs=1e-15)
    np.testing.assert_allclose(dist[0], [6 / 15, 4 / 15, 5 / 15], atol=1e-15)


# ----------------------------------------------------------------------------- seed 000


FIG1 = ["blue"] * 5 + ["red"] * 3 + ["green"] * 2 + ["pink"]


def test_seed000_figure1_edges():
    """Seed 000, Figure 1: 11 annotations in groups 5/3/2/1 give 14 of 55 edges, agreement 14/55 ≈ 25.5 %."""
    data = ie.Annotations.from_long(pd.DataFrame({"item": 0, "annotator": range(11), "label": FIG1}))
    p = ie.item_agreement(data).iloc[0]
    assert p == pytest.approx(14 / 55, abs=1e-15)
    assert round(100 * p, 1) == 25.5
    assert p * 11 * 10 / 2 == pytest.approx(14)  # eq. (10): n_edges = P × N


def test_seed000_eq14_removing_one_annotation_keeps_expected_agreement():
    """Seed 000 §4.1.1 eq. (14): removing one annotation uniformly at random leaves E[P'] = P (exact enumeration)."""
    full = ie.item_agreement(pd.DataFrame({"item": 0, "annotator": range(11), "label": FIG1})).iloc[0]
    removed = []
    for drop in range(11):
        keep = [j for j in range(11) if j != drop]
        frame = pd.DataFrame({"item": 0, "annotator": keep, "label": [FIG1[j] for j in keep]})
        removed.append(ie.item_agreement(frame).iloc[0])
    assert np.mean(removed) == pytest.approx(full, abs=1e-15)


def test_seed000_eq15_16_fewer_than_two_annotations_are_excluded():
    """Seed 000 eqs. (15)-(16) and §5.5: items with one annotation have no agreement; weight 0 in every scheme."""
    frame = pd.DataFrame({"item": [0, 0, 1, 2, 2, 2], "annotator": [0, 1, 0, 0, 1, 2], "label": list("aabaab")})
    p = ie.item_agreement(frame)
    assert np.isnan(p.iloc[1])
    for scheme in ie.SPA_WEIGHTS:
        w = ie.spa_item_weights(frame, weights=scheme)
        assert w.iloc[1] == 0.0 and (w.iloc[[0, 2]] > 0).all()


def test_seed000_eq7_spa_weighted_mean():
    """Seed 000 eq. (7): SPA = Σ k_i P_i / Σ k_i for each of the six schemes of §5."""
    rng = np.random.default_rng(7)
    rows = [(i, a, rng.integers(3)) for i in range(40) for a in range(6) if rng.random() < 0.5]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    p = ie.item_agreement(frame, replace_undefined_by=0.0).to_numpy()
    n = frame.groupby("item").size().reindex(range(frame["item"].max() + 1)).dropna().to_numpy()
    expected_k = {
        "flat": np.where(n >= 2, 1.0, 0.0),
        "annotations": np.where(n >= 2, n, 0.0),
        "annotations_m1": np.where(n >= 2, n - 1, 0.0),
        "edges": np.where(n >= 2, n * (n - 1) / 2, 0.0),
    }
    for scheme, k in expected_k.items():
        assert ie.spa(frame, weights=scheme) == pytest.approx(np.sum(k * p) / np.sum(k), abs=1e-14), scheme


def test_seed000_spa_equals_pbar_on_complete_data(classroom):
    """Seed 000 §3: P̄_spa = P̄ when the same annotators annotate all items (every scheme, since n_i is constant)."""
    for scheme in ie.SPA_WEIGHTS:
        assert ie.spa(classroom, weights=scheme) == pytest.approx(ie.joint_probability(classroom), abs=1e-14)


# ----------------------------------------------------------------------------- seed 002

# Seed 002, Table 1: spans labelled by Labeler A and the Reviewer (a blank = that person gave no label).
DATASAUR = pd.DataFrame(
    [
        ("The Tragedy of Hamlet", "EVE", "TITLE"),
        ("Prince of Denmark", "PER", None),
        ("Hamlet", "PER", "PER"),
        ("William Shakespeare", "PER", "PER"),
        ("1599", "YEAR", "YEAR"),
        ("1601", "YEAR", "YEAR"),
        ("Shakespeare", "ORG", "PER"),
        ("30557", None, "QTY"),
    ],
    columns=["span", "Labeler A", "Reviewer"],
).set_index("span")


def test_seed002_alpha_056_and_cleaning():
    """Seed 002, steps 2-7: spans with one label are dropped (6 remain), p_a = 0.6944, p_e = 0.3055, α = 0.56."""
    data = ie.Annotations.from_wide(DATASAUR, annotators_as="columns")
    assert data.n_items == 8 and int(np.sum(data.counts.pairable)) == 6  # step 2: n = 6 spans
    alpha = ie.krippendorff_alpha(data)
    assert round(alpha, 2) == 0.56
    # Datasaur's own computation (Gwet's form), steps 3-6, written out independently:
    counts = data.counts.to_dense()[data.counts.pairable]  # r_ik on the cleaned spans
    r_i = counts.sum(axis=1)  # eq. (1): all 2
    n = counts.shape[0]
    r = counts.sum()  # eq. (3): 12
    r_bar = r / n  # eq. (4): 2
    r_ik_plus = counts  # eq. (6) with identity weights w_kl (eq. 5)
    pa_ik = counts * (r_ik_plus - 1) / (r_bar * (r_i[:, None] - 1))  # eq. (7)
    pa_prime = pa_ik.sum(axis=1).mean()  # eqs. (8)-(9): 0.6666
    pa = pa_prime * (1 - 1 / (n * r_bar)) + 1 / (n * r_bar)  # eq. (10): 0.6944
    pi = counts.sum(axis=0) / r  # eq. (11)
    pe = np.sum(pi**2)  # eq. (12): 0.3055
    assert (n, r, r_bar) == (6, 12, 2)
    assert pa_prime == pytest.approx(4 / 6)
    assert pa == pytest.approx(0.6944, abs=1e-4) and pe == pytest.approx(0.3055, abs=1e-4)
    # QTY only occurs on the removed span 30557, so it has π = 0; the five labels of the seed remain
    np.testing.assert_allclose(sorted(pi[pi > 0]), sorted([1 / 12, 1 / 12, 5 / 12, 1 / 12, 4 / 12]))
    # spec.md: Datasaur's formula equals Krippendorff's alpha on the same data, exactly.
    assert (pa - pe) / (1 - pe) == pytest.approx(alpha, abs=1e-14)


def test_seed002_pairwise_matrix_labeler_vs_reviewer():
    """Seed 002, Summary: the same computation for every labeler/reviewer pair; the A-vs-Reviewer cell is 0.56."""
    data = ie.Annotations.from_wide(DATASAUR, annotators_as="columns")
    m = ie.krippendorff_alpha_matrix(data)
    assert m.annotators == ["Labeler A", "Reviewer"]
    assert round(m.values[0, 1], 2) == 0.56 and m.values[0, 1] == m.values[1, 0]
    assert m.n_shared[0, 1] == 6


# ----------------------------------------------------------------------------- seed 003

# Seed 003 §13.2: Alice and Bill on ten items. The seed prints Bill as YYNNYYYNYY but Alice's string is garbled
# (nine characters); the text fixes what matters: observed agreement 0.7, P(yes|Alice) = 0.6, P(yes|Bill) = 0.7.
# This Alice has those properties (5 joint yes, 2 joint no, 1 yes/no, 2 no/yes); π and κ depend on nothing else.
BILL = "YYNNYYYNYY"
ALICE = "YYNYYYNNYN"


def _coders(*strings: str) -> ie.Annotations:
    return ie.Annotations.from_wide([list(s) for s in strings])


def test_seed003_alice_bill_match_the_text():
    assert len(ALICE) == len(BILL) == 10
    assert ALICE.count("Y") == 6 and BILL.count("Y") == 7
    assert sum(a == b for a, b in zip(ALICE, BILL)) == 7


def test_seed003_two_coders_pi_and_kappa():
    """Seed 003 §13.2: A_o = 0.7, A_e^π = 0.545, A_e^κ = 0.54, π ≈ 0.341, κ ≈ 0.348."""
    data = _coders(ALICE, BILL)
    pi, kappa = ie.scott_pi(data), ie.cohen_kappa(data)
    assert pi == pytest.approx((0.7 - 0.545) / (1 - 0.545), abs=1e-14)
    assert kappa == pytest.approx((0.7 - 0.54) / (1 - 0.54), abs=1e-14)
    assert (round(pi, 3), round(kappa, 3)) == (0.341, 0.348)
    # with two coders Fleiss' kappa is Scott's pi and the multi-coder kappa is Cohen's kappa
    assert ie.fleiss_kappa(data) == pytest.approx(pi, abs=1e-14)
    assert ie.multi_kappa(data) == pytest.approx(kappa, abs=1e-14)
    # §13.3: B = A_e^π − A_e^κ = Σ_k ((P(k|c1) − P(k|c2))/2)^2 = 2 · 0.05^2
    assert ie.annotator_bias(data) == pytest.approx(0.005, abs=1e-15)


@pytest.mark.parametrize(("coders", "ae_kappa"), [(4, 0.54333333333333333), (6, 0.544)])
def test_seed003_more_coders_expected_agreement(coders, ae_kappa):
    """Seed 003 §13.4: with Claire = Alice, Dave = Bill (and a fifth/sixth likewise) A_e^κ = 0.54333… and 0.544."""
    data = _coders(*[ALICE, BILL] * (coders // 2))
    a_o = ie.joint_probability(data)
    kappa = ie.multi_kappa(data)
    assert (a_o - kappa) / (1 - kappa) == pytest.approx(ae_kappa, abs=1e-14)
    # A_e^π stays 0.545 (Fleiss), and B = 0.005 / (c - 1): bias drops with the number of coders
    fleiss = ie.fleiss_kappa(data)
    assert (a_o - fleiss) / (1 - fleiss) == pytest.approx(0.545, abs=1e-14)
    assert ie.annotator_bias(data) == pytest.approx(0.545 - ae_kappa, abs=1e-14)
    assert ie.annotator_bias(data) == pytest.approx(0.005 / (coders - 1), abs=1e-15)


def test_seed003_bias_is_variance_of_coder_distributions():
    """Seed 003 §13.4: B = (1/(c−1)) Σ_k σ²_{P(k|c)}, by brute force over coders."""
    rng = np.random.default_rng(3)
    m = rng.integers(0, 4, size=(5, 30))
    data = ie.Annotations.from_wide(m)
    p = np.array([[np.mean(row == k) for k in range(4)] for row in m])
    assert ie.annotator_bias(data) == pytest.approx(p.var(axis=0).sum() / 4, abs=1e-15)


# ----------------------------------------------------------------------------- seed 004


def test_seed004_percentage_agreement_eq8_eq9_eq10():
    """Seed 004 §3: overall agreement (eq. 8) is the share of unanimous items; P_ik (eq. 9); unit diagonal (eq. 10)."""
    x = np.array([[1, 2, 3, 1, 2], [1, 2, 3, 2, 2], [1, 1, 3, 1, 2]])
    data = ie.Annotations.from_wide(x)
    unanimous = np.mean([len(set(col)) == 1 for col in x.T])
    assert ie.percent_agreement(data) == pytest.approx(unanimous, abs=1e-15)
    m = ie.percent_agreement_matrix(data)
    for i, k in itertools.product(range(3), repeat=2):
        assert m.values[i, k] == pytest.approx(np.mean(x[i] == x[k]), abs=1e-15)
    np.testing.assert_array_equal(np.diag(m.values), 1.0)


def test_seed004_alpha_from_coincidences_algorithm1():
    """Seed 004 §2, Algorithm 1: α = 1 − D_o/D_e from the coincidence matrix (nominal δ).

    Seed 004 eq. (7) divides the expected disagreement by Σ n_c n_k = n²; Krippendorff's exact form divides by
    n(n−1) (Krippendorff 2011). With n(n−1) the algorithm reproduces our alpha to the last digit; the seed's n²
    variant differs by the factor (n−1)/n in D_e and only agrees asymptotically.
    """
    rng = np.random.default_rng(4)
    x = rng.integers(0, 4, size=(4, 25)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    data = ie.Annotations.from_wide(x)
    o = ie.coincidence_matrix(data)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d_o = (o.sum() - np.trace(o)) / o.sum()  # step 5
    outer = np.outer(n_c, n_c)
    d_e_exact = (outer.sum() - np.trace(outer)) / (n * (n - 1))
    d_e_seed = (outer.sum() - np.trace(outer)) / outer.sum()  # step 6 as printed
    assert 1 - d_o / d_e_exact == pytest.approx(ie.krippendorff_alpha(data), abs=1e-14)
    assert d_e_seed == pytest.approx(d_e_exact * (n - 1) / n, abs=1e-15)


def test_seed004_undefined_alpha_rule():
    """Seed 004 §8.2: when D_e = 0, α is undefined; the seed returns 1 when D_o = 0 too.

    Our policy returns nan with an UndefinedMetricWarning; replace_undefined_by=1.0 gives the seed's rule.
    """
    data = ie.Annotations.from_wide([["a", "a", "a"], ["a", "a", "a"]])
    with pytest.warns(ie.UndefinedMetricWarning, match="expected disagreement is 0"):
        assert np.isnan(ie.krippendorff_alpha(data))
    with pytest.warns(ie.UndefinedMetricWarning):
        assert ie.krippendorff_alpha(data, replace_undefined_by=1.0) == 1.0
