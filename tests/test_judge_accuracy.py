"""A judged rate corrected for the judge's errors (issue 34, item 2): ie.judge_accuracy, Lee et al.'s interval and
their calibration-budget split.

References run in a scratch directory under /tmp (never copied):
- Lee et al. 2025, https://github.com/UW-Madison-Lee-Lab/LLM-judge-reporting at 082884d: ``point_estimator``,
  ``confidence_interval`` and ``allocate_calibration_sample`` on their README's examples and a few more inputs;
- judgy (MIT), https://github.com/ai-evals-course/judgy at e6cd4fe: ``estimate_success_rate``'s point estimates on
  the cases of its ``tests/test_core.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.stats._misclassification import allocate_calibration, lee_interval, rogan_gladen


def _tables(truth, said, others, positive=1):
    """Calibration items 0..len(truth)-1 labelled by one human; the judge labels those and then the others."""
    humans = pd.DataFrame({"item": range(len(truth)), "annotator": "expert", "label": list(truth)})
    judge = pd.DataFrame(
        {"item": range(len(truth) + len(others)), "annotator": "llm", "label": list(said) + list(others)}
    )
    return humans, judge


def test_lee_readme_example():
    """README of LLM-judge-reporting: p = 0.4 (n = 1000), q0 = 0.7, q1 = 0.9 (m0 = m1 = 200), alpha 0.05. Their code
    prints theta_hat = 0.1667, 95% CI = (0.0564, 0.2627); full precision from running it."""
    truth = [0] * 200 + [1] * 200
    said = [0] * 140 + [1] * 60 + [1] * 180 + [0] * 20  # specificity 140/200, sensitivity 180/200
    others = [1] * 400 + [0] * 600
    res = ie.judge_accuracy(*_tables(truth, said, others), positive=1)
    row = res.table.iloc[0]
    assert (row["m0"], row["m1"], row["n_test"]) == (200, 200, 1000)
    assert row["specificity"] == pytest.approx(0.7) and row["sensitivity"] == pytest.approx(0.9)
    assert row["corrected"] == pytest.approx(0.1666666666666668, rel=1e-13)
    assert row["lower"] == pytest.approx(0.05635072484160894, rel=1e-12)
    assert row["upper"] == pytest.approx(0.2627330257859588, rel=1e-12)
    assert (f"{row['corrected']:.4f}", f"{row['lower']:.4f}", f"{row['upper']:.4f}") == ("0.1667", "0.0564", "0.2627")
    assert row["method"] == "rogan_gladen" and row["reason"] == ""


@pytest.mark.parametrize(
    "args, expected",
    [
        # confidence_interval(p, q0, q1, n, m0, m1, alpha) of their calibration.py, run in /tmp; the last argument
        # here is our confidence, their alpha = 1 - confidence (0.1 and 0.05; checked again by qa2)
        ((0.55, 0.8, 0.75, 37, 12, 9, 0.9), (0.2507157475579473, 1.0)),
        ((0.02, 0.95, 0.9, 500, 100, 40, 0.95), (0.0, 0.012399583181696386)),
    ],
)
def test_lee_interval_against_their_code(args, expected):
    np.testing.assert_allclose(lee_interval(*args), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    "args, expected",
    [
        ((200, 0.4, 0.7, 0.9, 10), (136, 64)),  # their README's allocation example
        ((200, 0.4, 0.7, 0.9, 0), (144, 56)),  # no pilot: the beliefs as given
        ((1000, 0.8, 0.95, 0.6, 20), (105, 895)),
        ((50, 0.1, 0.6, 0.99, 3), (46, 4)),
    ],
)
def test_allocation_against_their_code(args, expected):
    assert allocate_calibration(*args) == expected


def test_allocation_at_no_positive_judgment_keeps_the_formulas_limit():
    # their code gives m - m_pilot to the positives at p = 0; the formula's limit (p -> 0) gives them the pilot only
    assert allocate_calibration(200, 1e-9, 0.7, 0.9, 10) == (190, 10)
    assert allocate_calibration(200, 1e-4, 0.7, 0.9, 10) == (190, 10)


@pytest.mark.parametrize(
    "truth, said, others, expected",
    [  # judgy tests/test_core.py: the point estimates estimate_success_rate returns (run in /tmp)
        ([1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0, 1, 0, 1, 1, 0], 0.7000000000000002),
        ([1, 1, 1, 0, 0, 0], [1, 1, 1, 0, 0, 0], [1, 1, 0, 0], 0.5),
        ([1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0] * 10, 0.7000000000000002),
        ([1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 1, 0], [1, 1, 0, 1, 0], 0.8),
        ([1, 0], [1, 0], [1], 1.0),
    ],
)
def test_judgy_cases(truth, said, others, expected):
    res = ie.judge_accuracy(*_tables(truth, said, others), positive=1)
    assert res.table.loc[0, "corrected"] == pytest.approx(expected, rel=1e-14)


def test_judgy_large_sample_case():
    """judgy's test_large_sample_stability: its data (numpy's legacy seed 42), its estimate 0.7078124999999996."""
    rs = np.random.RandomState(42)
    labels = np.concatenate([np.ones(200), np.zeros(200)]).astype(int)
    preds = np.concatenate([(rs.rand(200) < 0.8).astype(int), (rs.rand(200) >= 0.85).astype(int)])
    true_unlabeled = (rs.rand(1000) < 0.7).astype(int)
    unlabeled = np.where(true_unlabeled == 1, (rs.rand(1000) < 0.8).astype(int), (rs.rand(1000) >= 0.85).astype(int))
    res = ie.judge_accuracy(*_tables(labels, preds, unlabeled), positive=1)
    assert res.table.loc[0, "corrected"] == pytest.approx(0.7078124999999996, rel=1e-14)


def test_a_judge_no_better_than_chance_is_refused_with_the_reason():
    # judgy's test_poor_judge_accuracy: always wrong
    res = ie.judge_accuracy(*_tables([1, 1, 1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1, 1, 1], [1, 0, 1, 0]), positive=1)
    row = res.table.iloc[0]
    assert np.isnan(row["corrected"]) and np.isnan(row["lower"]) and "no better than chance" in row["reason"]
    assert "undefined (the judge is no better than chance" in str(res)
    assert json.loads(res.to_json())["table"][0]["corrected"] is None


def test_text_labels_several_judges_and_several_humans():
    humans = pd.DataFrame(
        {
            "item": ["a", "a", "a", "b", "b", "c", "d", "d"],
            "annotator": ["x", "y", "z", "x", "y", "x", "x", "y"],
            "label": ["good", "good", "bad", "bad", "bad", "good", "good", "bad"],  # d ties: left out
        }
    )
    items = ["a", "b", "c", "d", "e", "f", "g", "h"]
    judges = pd.DataFrame(
        {
            "item": items * 2,
            "annotator": ["j1"] * 8 + ["j2"] * 8,
            "label": ["good", "bad", "good", "good", "good", "bad", "good", "good"]
            + ["good", "good", "bad", "bad", "bad", "bad", "good", "bad"],
        }
    )
    res = ie.judge_accuracy(humans, judges, positive="good")
    t = res.table.set_index("model")
    # truth: a good, b bad, c good (d tied). j1: a good, b bad, c good -> q1 = 2/2, q0 = 1/1; test e..h: 3 of 4 good
    assert t.loc["j1", ["m0", "m1", "n_test"]].tolist() == [1, 2, 4]
    assert t.loc["j1", "raw"] == 0.75 and t.loc["j1", "corrected"] == 0.75
    # j2: a good (TP), b good (FP), c bad (FN): q1 = 1/2, q0 = 0 -> refused
    assert "no better than chance" in t.loc["j2", "reason"]
    assert any("tie" in n for n in res.notes)
    with pytest.raises(ValueError, match="positive must be a label"):
        ie.judge_accuracy(humans, judges, positive="great")


def test_every_item_calibrated_leaves_nothing_to_correct():
    res = ie.judge_accuracy(*_tables([1, 0, 1, 0], [1, 0, 1, 1], []), positive=1)
    assert "nothing left to correct" in res.table.loc[0, "reason"]


def _multiclass(seed: int, n_cal: int = 600, n_test: int = 3000):
    rng = np.random.default_rng(seed)
    confusion = np.array([[0.8, 0.1, 0.1], [0.15, 0.7, 0.15], [0.05, 0.15, 0.8]])
    prior = np.array([0.5, 0.3, 0.2])
    t_cal = rng.choice(3, n_cal, p=prior)
    t_test = rng.choice(3, n_test, p=prior)
    said = np.array([rng.choice(3, p=confusion[k]) for k in np.concatenate([t_cal, t_test])])
    cats = np.array(["neg", "neu", "pos"])
    return _tables(cats[t_cal], cats[said[:n_cal]], cats[said[n_cal:]]), t_cal, said


def test_more_than_two_classes_inverts_the_confusion_matrix():
    (humans, judge), t_cal, said = _multiclass(0)
    res = ie.judge_accuracy(humans, judge, positive="pos", n_boot=500, seed=1)
    # brute force: the estimated matrix, solved by hand
    m = np.zeros((3, 3))
    np.add.at(m, (t_cal, said[: t_cal.size]), 1)
    m /= m.sum(axis=1, keepdims=True)
    p = np.bincount(said[t_cal.size :], minlength=3) / (said.size - t_cal.size)
    pi = np.linalg.solve(m.T, p)
    d = res.distribution.set_index("category")
    np.testing.assert_allclose(d.loc[["neg", "neu", "pos"], "corrected"], pi / pi.sum(), rtol=1e-12)
    row = res.table.iloc[0]
    assert row["method"] == "matrix" and row["corrected"] == pytest.approx(pi[2] / pi.sum())
    assert row["lower"] < row["corrected"] < row["upper"]
    assert abs(row["corrected"] - 0.2) < 0.08  # the true share (the interval is about +-0.05 wide here)
    again = ie.judge_accuracy(humans, judge, positive="pos", n_boot=500, seed=1)
    pd.testing.assert_frame_equal(res.table, again.table)


def test_a_perfect_judge_needs_no_correction_in_any_number_of_classes():
    (humans, judge), t_cal, said = _multiclass(1, n_cal=90, n_test=200)
    perfect = judge.copy()
    perfect.loc[: len(t_cal) - 1, "label"] = humans["label"].to_numpy()
    res = ie.judge_accuracy(humans, perfect, positive="neu", n_boot=200)
    d = res.distribution
    np.testing.assert_allclose(d["corrected"], d["raw"], rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(5, 60),
    st.integers(5, 60),
    st.integers(1, 200),
    st.floats(0.5, 1.0),
    st.floats(0.5, 1.0),
    st.floats(0, 1),
)
def test_binary_closed_form_against_the_formula(m0, m1, n, q0, q1, p):
    """Integer counts from the proportions; the result is the closed forms on those counts (two categories)."""
    k0, k1, k = round(q0 * m0), round(q1 * m1), round(p * n)
    truth = [0] * m0 + [1] * m1
    said = [0] * k0 + [1] * (m0 - k0) + [1] * k1 + [0] * (m1 - k1)
    others = [1] * k + [0] * (n - k)
    row = ie.judge_accuracy(*_tables(truth, said, others), positive=1).table.iloc[0]
    q0_, q1_, p_ = k0 / m0, k1 / m1, k / n
    if q0_ + q1_ <= 1:
        assert np.isnan(row["corrected"]) and row["reason"]
    else:
        assert row["corrected"] == pytest.approx(float(rogan_gladen(p_, q0_, q1_)), abs=1e-15)
        np.testing.assert_allclose([row["lower"], row["upper"]], lee_interval(p_, q0_, q1_, n, m0, m1), rtol=1e-14)
        assert 0 <= row["lower"] <= row["upper"] <= 1


def test_plan_splits_a_calibration_budget():
    """ie.plan("judge", method="calibration"): the README allocation example of LLM-judge-reporting (136, 64), and
    the expected interval at that split is Lee et al.'s interval with those sizes."""
    p = ie.plan(
        "judge", method="calibration", n_items=200, prevalence=0.4, specificity=0.7, sensitivity=0.9, n_pilot=10
    )
    assert (p.details["m0"], p.details["m1"], p.n) == (136, 64, 200)
    assert p.details["corrected"] == pytest.approx(0.1666666666666668, rel=1e-13) and np.isnan(p.width)
    q = ie.plan(
        "judge", method="calibration", n_items=200, prevalence=0.4, specificity=0.7, sensitivity=0.9, n_test=1000
    )
    assert (q.details["m0"], q.details["m1"]) == (144, 56)
    assert (q.lower, q.upper) == lee_interval(0.4, 0.7, 0.9, 1000, 144, 56)
    # the split narrows the interval against an even one
    assert q.width < np.subtract(*lee_interval(0.4, 0.7, 0.9, 1000, 100, 100)[::-1])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"prevalence": 0.4, "specificity": 0.7}, "sensitivity must be"),
        ({"prevalence": 0.4, "specificity": 0.7, "sensitivity": 1.2}, "sensitivity must be"),
        ({"specificity": 0.7, "sensitivity": 0.9}, "prevalence must be"),
        ({"prevalence": 0.4, "specificity": 0.7, "sensitivity": 0.9, "n_pilot": 150}, "n_pilot must be"),
        # a judge no better than chance is refused, as judge_accuracy refuses it (its interval would be NaN)
        (
            {"prevalence": 0.4, "specificity": 0.3, "sensitivity": 0.6, "n_test": 1000},
            r"specificity \+ sensitivity must be above 1 \(a judge no better than chance.*got 0\.9$",
        ),
        ({"prevalence": 0.4, "specificity": 0.5, "sensitivity": 0.5}, r"sensitivity must be above 1.*got 1\.0$"),
    ],
)
def test_plan_judge_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ie.plan("judge", method="calibration", n_items=200, **kwargs)
