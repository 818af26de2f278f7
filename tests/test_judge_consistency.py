"""Position consistency, positional preference and repetition stability of pairwise judges (issue 34, item 3):
ie.judge_consistency against Position-Bias-Analyzer (Shi et al. 2024) on the judgment files it ships
(tests/data/position_bias/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

DATA = Path(__file__).parent / "data" / "position_bias"
REF = json.loads((DATA / "reference.json").read_text())
REFERENCE_MODEL = {"MTBench": "vicuna-13b-v1.3", "DevBench": "human"}


def _judgments(bench: str, runs=(1,)) -> pd.DataFrame:
    c = pd.read_csv(DATA / "choices.csv.gz", keep_default_na=False)
    c = c[(c.benchmark == bench) & c.run.isin(runs)]
    parts = c.cmp_index.str.split(";", expand=True)
    ref = REFERENCE_MODEL[bench]
    model = np.where(parts[1].str.lower() == ref, parts[2], parts[1])  # the model under test (their model_of_interest)
    return pd.DataFrame(
        {
            "item": parts[0],
            "response_a": parts[1],
            "response_b": parts[2],
            "annotator": c.judge.to_numpy(),
            "label": c.choice.map({"A": "A", "B": "B", "C": "tie", "N": ""}).to_numpy(),
            "unit": pd.Series(model).str.cat(c.task.to_numpy(), sep="|").to_numpy(),
            "run": c.run.to_numpy(),
        }
    )


@pytest.mark.parametrize("bench", ["MTBench", "DevBench"])
def test_units_reproduce_position_bias_analyzer(bench):
    """Per (judge, model, task): their positional consistency, primacy and recency counts exactly, and their
    positional preference score wherever every judgment's answer was extracted (their score divides by all the
    unit's pairs, failed extractions included; ours by the pairs with both answers)."""
    res = ie.judge_consistency(_judgments(bench), by="unit").position.set_index(["judge", "unit"])
    ref = pd.DataFrame(REF[bench]["units"])
    assert len(ref) == len(res) and len(ref) > 100
    checked = 0
    for r in ref.itertuples(index=False):
        mine = res.loc[(r.Judge, f"{r.Model}|{r.Task}")]
        assert mine["primacy"] == r[4] and mine["recency"] == r[5]
        assert mine["position_consistency"] == pytest.approx(r[3], abs=1e-15)
        if r[7] == 1.0:
            assert mine["preference"] == pytest.approx(r[6], abs=1e-15)
            checked += 1
    assert checked > 0.9 * len(ref)


@pytest.mark.parametrize("bench", ["MTBench", "DevBench"])
def test_judges_reproduce_position_bias_analyzer(bench):
    """Per judge: their Average Positional Consistency (consistent pairs over all pairs with both answers) for every
    judge; their Average Positional Preference Score (the mean of the units') where nothing failed to extract."""
    table = _judgments(bench)
    overall = ie.judge_consistency(table).position.set_index("judge")
    units = ie.judge_consistency(table, by="unit").position
    ref = pd.DataFrame(REF[bench]["judges"]).set_index("Judge")
    for judge, r in ref.iterrows():
        assert overall.loc[judge, "position_consistency"] == pytest.approx(r.iloc[0], abs=1e-15)
        if r.iloc[2] == 1.0:
            mean = units.loc[units.judge == judge, "preference"].mean()
            assert mean == pytest.approx(r.iloc[1], abs=1e-14)


@pytest.mark.parametrize("bench", ["MTBench", "DevBench"])
def test_repetition_stability_reproduces_position_bias_analyzer(bench):
    table = _judgments(bench, runs=(1, 2, 3))
    res = ie.judge_consistency(table, repetition="run").repetition.set_index("judge")
    failed = set(table.loc[table.label == "", "annotator"])
    for judge, value in REF[bench]["repetitional_consistency"].items():
        if judge not in failed:  # theirs counts a failed extraction among the runs; ours leaves it out
            assert res.loc[judge, "stability"] == pytest.approx(value, abs=1e-14)
    assert res["repetitions"].max() == 3


def test_hand_worked_pairs():
    t = pd.DataFrame(
        {
            "item": ["q"] * 8,
            "response_a": ["x", "y", "u", "v", "s", "t", "m", "n"],
            "response_b": ["y", "x", "v", "u", "t", "s", "n", "m"],
            "annotator": "j",
            "label": ["A", "B", "tie", "tie", "B", "B", "tie", "A"],
        }
    )
    row = ie.judge_consistency(t).position.iloc[0]
    # (x,y): A then B -> consistent; (u,v): tie, tie -> consistent; (s,t): B, B -> recency; (m,n): tie, A -> primacy
    assert row[["n_pairs", "consistent", "primacy", "recency"]].tolist() == [4, 2, 1, 1]
    assert row["position_consistency"] == 0.5 and row["preference"] == 0.0
    assert row["primacy_share"] == 0.5


def test_mirroring_every_judgment_swaps_primacy_and_recency():
    t = _judgments("MTBench")
    a = ie.judge_consistency(t).position.set_index("judge")
    mirror = t.assign(
        response_a=t.response_b, response_b=t.response_a, label=t.label.map({"A": "B", "B": "A"}).fillna(t.label)
    )
    b = ie.judge_consistency(mirror).position.set_index("judge")
    assert (a["primacy"] == b["recency"]).all() and (a["consistent"] == b["consistent"]).all()
    np.testing.assert_allclose(a["preference"], -b["preference"])


def test_bad_input():
    t = pd.DataFrame({"item": "q", "response_a": ["x", "x"], "response_b": ["y", "y"], "annotator": "j", "label": "A"})
    with pytest.raises(ValueError, match="repetition="):
        ie.judge_consistency(t)
    with pytest.raises(ValueError, match="A .* B or tie"):
        ie.judge_consistency(t.assign(label="maybe", response_b=["y", "z"]))
    with pytest.raises(ValueError, match="column 'label'"):
        ie.judge_consistency(t.drop(columns="label"))
    none = ie.judge_consistency(t.iloc[:1])
    assert none.position.loc[0, "n_pairs"] == 0 and np.isnan(none.position.loc[0, "position_consistency"])
    assert "undefined" in str(none) and json.loads(none.to_json())["position"][0]["preference"] is None
