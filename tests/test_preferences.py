"""Pairwise preferences: crowd-kit's Bradley-Terry scores on its own test data, the MM fixed point against a direct
maximum-likelihood fit, the swap invariant (hypothesis), position bias against scipy's binomial test, the
coefficients on the canonical pairs, the LLM judge beside the humans, and the errors."""

from __future__ import annotations

import io
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.stats import binomtest

import iaa_engine as ie

# crowd-kit 1.4.2, tests/aggregation/test_bt_aggregation.py (github.com/Toloka/crowd-kit): its fixtures data_abc
# and data_equal (columns worker, task, left, right, label = the winner).
DATA_ABC = [("a", "b", "a"), ("b", "c", "b"), ("c", "a", "a")]
DATA_EQUAL = [("a", "b", "a"), ("b", "c", "b"), ("c", "a", "c")]


def crowdkit_to_ours(rows) -> pd.DataFrame:
    return pd.DataFrame(
        [("all", left, right, "A" if win == left else "B") for left, right, win in rows],
        columns=["item", "response_a", "response_b", "label"],
    )


def scores(res) -> dict:
    return res.scores.set_index("response")["score"].to_dict()


def test_crowdkit_equal_fixture():
    """crowd-kit: ``BradleyTerry(n_iter=10, tol=0)`` and ``(n_iter=100500, tol=1e-5)`` on data_equal give 1/3 each
    (result_equal, atol 0.005); the cycle a > b > c > a is the fixed point from the start (our max_iter stops at
    10^5)."""
    for max_iter, tol in ((10, -math.inf), (100_000, 1e-5)):
        got = scores(ie.bradley_terry(crowdkit_to_ours(DATA_EQUAL), max_iter=max_iter, tol=tol))
        assert got == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, abs=1e-15)


def test_crowdkit_step_by_step_fixture():
    """crowd-kit: ``BradleyTerry(n_iter=n, tol=0)`` on data_abc gives result_iter_0 = (1/3, 1/3, 1/3) and
    result_iter_10 = (0.934, 0.065, 0.0) (atol 0.005; result_iter_0 is the equal start, which max_iter >= 1 does
    not return); crowd-kit 1.4.2 run here printed
    (0.9348970414207921, 0.06510295857920784, 0.0) for 10 steps."""
    data = crowdkit_to_ours(DATA_ABC)
    res = ie.bradley_terry(data, max_iter=10, tol=-math.inf)
    assert res.iterations == 10 and not res.converged
    assert scores(res) == pytest.approx({"a": 0.9348970414207921, "b": 0.06510295857920784, "c": 0.0}, abs=1e-13)
    assert any("all or none" in n for n in res.notes)


# 60 comparisons of six responses drawn at random (numpy seed 7; a beats b with probability rank(a) / (rank(a) +
# rank(b))), columns left, right, winner. Reference: crowd-kit 1.4.2 (pip, in its own venv under benchmarks/out)
# BradleyTerry(n_iter=2000, tol=0).fit(...).scores_. With its default tol=1e-5 crowd-kit 1.4.2 stops after two steps
# (its p_old aliases p_new, so the loss it checks is always 0), which is why the reference uses tol=0.
RANDOM_60 = (
    "e d d|f e f|b f f|a f f|b e b|f b f|c d d|e f f|c b b|f a f|a d d|c e e|c b c|a b b|e b e|b d b|c b c|e f f|"
    "e a e|a e e|d c d|d c d|a b b|e d d|d c c|f d f|f b f|c f c|e a a|b a b|f e e|e f e|c b c|a e e|e d e|f c f|"
    "d a d|e f e|e c e|e a e|f c f|d a a|c d d|f c f|c e c|e c e|c e c|f e e|e a e|d f f|f b f|f a f|b f f|a c c|"
    "c b c|e f f|d e d|c f f|d f f|a f f"
)
CROWDKIT_60 = {
    "a": 0.021467816917676137,
    "b": 0.07705144229125717,
    "c": 0.1171801089122662,
    "d": 0.16404920535067408,
    "e": 0.17342153475014915,
    "f": 0.4468298917779772,
}


def random_60() -> pd.DataFrame:
    return crowdkit_to_ours([tuple(r.split()) for r in RANDOM_60.split("|")])


def test_crowdkit_reference_values_on_random_comparisons():
    res = ie.bradley_terry(random_60(), max_iter=2000, tol=-math.inf)
    assert scores(res) == pytest.approx(CROWDKIT_60, abs=1e-12)
    converged = ie.bradley_terry(random_60(), tol=1e-13)
    assert converged.converged and scores(converged) == pytest.approx(CROWDKIT_60, abs=1e-9)


def direct_mle(table: pd.DataFrame) -> dict:
    """Maximise the Bradley-Terry log-likelihood (a tie: half a win, half a loss) over log-strengths with BFGS."""
    names = sorted(set(table["response_a"]) | set(table["response_b"]))
    idx = {n: k for k, n in enumerate(names)}
    a = table["response_a"].map(idx).to_numpy()
    b = table["response_b"].map(idx).to_numpy()
    w = table["label"].map({"A": 1.0, "B": 0.0, "tie": 0.5}).to_numpy()

    def nll(theta):
        diff = theta[a] - theta[b]
        return -np.sum(w * -np.logaddexp(0, -diff) + (1 - w) * -np.logaddexp(0, diff)) + 1e-12 * theta.sum() ** 2

    theta = minimize(nll, np.zeros(len(names)), method="BFGS", options={"gtol": 1e-11}).x
    p = np.exp(theta - theta.max())
    return dict(zip(names, p / p.sum()))


def test_mm_fixed_point_is_the_maximum_likelihood_with_ties_as_half_wins():
    table = random_60()
    table.loc[::7, "label"] = "tie"
    assert scores(ie.bradley_terry(table)) == pytest.approx(direct_mle(table), abs=1e-6)


def test_prompts_are_fitted_separately():
    t1 = random_60().assign(item="p1")
    t2 = crowdkit_to_ours(DATA_EQUAL).assign(item="p2")
    both = ie.bradley_terry(pd.concat([t1, t2], ignore_index=True)).scores
    alone = ie.bradley_terry(t1).scores
    got = both[both["item"] == "p1"].reset_index(drop=True)
    np.testing.assert_allclose(got["score"], alone["score"], atol=1e-12)
    assert both[both["item"] == "p2"]["score"].sum() == pytest.approx(1.0)


# --------------------------------------------------------------------------- preference agreement


def judgments(seed: int, n_prompts: int = 6, n_judges: int = 4, bias_judge: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n_prompts):
        responses = [f"m{k}" for k in range(3)]
        for i in range(3):
            for j in range(i + 1, 3):
                for judge in range(n_judges):
                    if rng.random() < 0.2:
                        continue
                    first, second = (responses[i], responses[j]) if rng.random() < 0.5 else (responses[j], responses[i])
                    label = rng.choice(["A", "B", "tie"], p=[0.45, 0.4, 0.15])
                    if bias_judge and judge == 0:
                        label = "A"
                    rows.append((f"p{p}", first, second, f"j{judge}", label))
    return pd.DataFrame(rows, columns=["item", "response_a", "response_b", "annotator", "label"])


def mirror(table: pd.DataFrame, which: np.ndarray) -> pd.DataFrame:
    out = table.copy()
    out.loc[which, ["response_a", "response_b"]] = table.loc[which, ["response_b", "response_a"]].to_numpy()
    out.loc[which, "label"] = table.loc[which, "label"].map({"A": "B", "B": "A", "tie": "tie"})
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.data())
def test_swap_invariant(seed, data):
    """Mirroring judgments (swapping the two responses and A with B) changes nothing but who was shown first; all
    mirrored: each judge's first-shown share becomes one minus itself, with the same p-value."""
    table = judgments(seed)
    which = np.array(data.draw(st.lists(st.booleans(), min_size=len(table), max_size=len(table))))
    a, b = ie.preference_agreement(table), ie.preference_agreement(mirror(table, which))
    assert a.coefficients == pytest.approx(b.coefficients, nan_ok=True, abs=1e-12)
    pd.testing.assert_frame_equal(a.pairs, b.pairs)
    pd.testing.assert_frame_equal(a.scores, b.scores, atol=1e-12)
    cols = ["judge", "n", "n_decided", "agree_majority", "agree_bradley_terry"]
    pd.testing.assert_frame_equal(a.judges[cols], b.judges[cols])
    full = ie.preference_agreement(mirror(table, np.ones(len(table), bool)))
    np.testing.assert_allclose(full.judges["first_share"], 1 - a.judges["first_share"], atol=1e-15)
    np.testing.assert_allclose(full.judges["p_value"], a.judges["p_value"], atol=1e-15)


def test_coefficients_on_the_canonical_pairs():
    """The coefficients are the library's own on the table written by hand on canonical pairs."""
    table = judgments(4)
    res = ie.preference_agreement(table)
    swap = table["response_a"] > table["response_b"]
    canon = mirror(table, swap.to_numpy())
    value = canon["label"].map({"A": 1, "tie": 0, "B": -1})
    long = pd.DataFrame(
        {
            "item": canon["item"] + "|" + canon["response_a"] + "|" + canon["response_b"],
            "annotator": canon["annotator"],
            "label": value,
        }
    )
    data = ie.Annotations.from_long(long, level="ordinal")
    assert res.coefficients["krippendorff_alpha[ordinal]"] == pytest.approx(ie.krippendorff_alpha(data), abs=1e-14)
    assert res.coefficients["krippendorff_alpha[nominal]"] == pytest.approx(
        ie.krippendorff_alpha(data, level="nominal"), abs=1e-14
    )
    assert res.coefficients["fleiss_kappa"] == pytest.approx(ie.fleiss_kappa(data), abs=1e-14)
    assert res.coefficients["gwet_ac1"] == pytest.approx(ie.gwet_ac1(data), abs=1e-14)
    two = table[table["annotator"].isin(["j0", "j1"])]
    two_long = long[long["annotator"].isin(["j0", "j1"])]
    assert ie.preference_agreement(two).coefficients["cohen_kappa"] == pytest.approx(
        ie.cohen_kappa(ie.Annotations.from_long(two_long)), abs=1e-14
    )


def test_position_bias_flags_the_judge_who_always_prefers_the_first():
    res = ie.preference_agreement(judgments(9, n_prompts=12, bias_judge=True))
    j = res.judges.set_index("judge")
    assert j.loc["j0", "first_share"] == 1.0 and bool(j.loc["j0", "position_bias"])
    assert not j.drop(index="j0")["position_bias"].any()
    for name, r in j.iterrows():
        assert r["p_value"] == pytest.approx(
            binomtest(int(r["first_wins"]), int(r["n_decided"]), 0.5).pvalue, abs=1e-13
        )
    # Holm (1979) by hand: sorted p times (m - rank), running maximum, capped at 1
    p = j["p_value"].to_numpy()
    order = np.argsort(p)
    adj = np.minimum(np.maximum.accumulate((len(p) - np.arange(len(p))) * p[order]), 1)
    np.testing.assert_allclose(j["p_holm"].to_numpy()[order], adj, atol=1e-15)
    assert "position bias" in " ".join(res.notes) and "POSITION BIAS" in str(res)


def test_majority_and_bradley_terry_gold():
    t = pd.DataFrame(
        {
            "item": "p",
            "response_a": ["x", "y", "x", "x", "z", "y"],
            "response_b": ["y", "x", "y", "z", "x", "z"],
            "annotator": ["a", "b", "c", "a", "b", "a"],
            "label": ["A", "A", "tie", "A", "B", "A"],
        }
    )
    res = ie.preference_agreement(t)
    pairs = res.pairs.set_index(["response_a", "response_b"])
    # (x, y): x wins (a), y wins (b, shown first), tie (c) -> no majority; (x, z): x twice; (y, z): y once
    assert pairs.loc[("x", "y"), ["a", "tie", "b", "majority"]].tolist() == [1, 1, 1, ""]
    assert pairs.loc[("x", "z"), "majority"] == "A" and pairs.loc[("y", "z"), "majority"] == "A"
    assert res.scores["response"].tolist() == ["x", "y", "z"]
    direct = direct_mle(t[["response_a", "response_b", "label"]])
    assert dict(zip(res.scores["response"], res.scores["score"])) == pytest.approx(direct, abs=1e-6)


def test_strength_makes_a_finer_ordinal_scale():
    t = pd.DataFrame(
        {
            "item": "p",
            "response_a": ["x", "y", "x"],
            "response_b": ["y", "x", "y"],
            "annotator": ["a", "b", "c"],
            "label": ["A", "B", "A"],
            "strength": [2, 1, 1],
        }
    )
    res = ie.preference_agreement(t, strength="strength")
    assert res.coefficients["joint_probability"] == pytest.approx(1 / 3)  # values 2, 1, 1 on the canonical pair
    assert ie.preference_agreement(t).coefficients["joint_probability"] == 1.0


def canonical_long(table: pd.DataFrame) -> ie.Annotations:
    """Judgments written by hand on canonical pairs (responses sorted, the label mirrored when swapped)."""
    lo = table[["response_a", "response_b"]].min(axis=1)
    hi = table[["response_a", "response_b"]].max(axis=1)
    flip = np.where(table["response_a"] < table["response_b"], 1, -1)
    value = flip * table["label"].map({"A": 1, "tie": 0, "B": -1}).to_numpy()
    return ie.Annotations.from_long(
        pd.DataFrame({"item": table["item"] + "|" + lo + "|" + hi, "annotator": table["annotator"], "label": value})
    )


def test_llm_judge_beside_humans():
    humans = judgments(5)
    llm = humans[humans["annotator"] == "j0"].assign(annotator="llm").reset_index(drop=True)
    llm = mirror(llm, np.ones(len(llm), bool))  # it saw every pair the other way round, and judged alike
    res = ie.preference_model_agreement(humans, llm)
    row = res.table.set_index("reference").loc["j0"]
    assert row["agreement"] == 1.0 and row["n"] == (humans["annotator"] == "j0").sum()
    direct = ie.model_agreement(canonical_long(humans), canonical_long(llm))
    np.testing.assert_allclose(res.table["agreement"], direct.table["agreement"], atol=1e-15)
    np.testing.assert_allclose(res.table["kappa"], direct.table["kappa"], atol=1e-15, equal_nan=True)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(label=["A", "better"]), "is A .* B .* or tie; got 'better'"),
        (dict(response_b=["x", "x"]), "compares response 'x' with itself"),
        (dict(response_a=["x", "x"], response_b=["y", "y"], annotator=["a", "a"]), "twice in the same order"),
    ],
)
def test_errors(change, message):
    base = {
        "item": ["p", "p"],
        "response_a": ["x", "y"],
        "response_b": ["y", "z"],
        "annotator": ["a", "b"],
        "label": ["A", "B"],
    }
    base.update(change)
    with pytest.raises(ValueError, match=message):
        ie.preference_agreement(pd.DataFrame(base))


def test_option_and_column_errors():
    t = judgments(1)
    with pytest.raises(ValueError, match="column 'prompt'"):
        ie.preference_agreement(t, item="prompt")
    with pytest.raises(ie.InvalidParameterError, match="bias_level must be"):
        ie.preference_agreement(t, bias_level=2)
    with pytest.raises(ValueError, match="strength of an A or B judgment"):
        ie.preference_agreement(t.assign(strength=0), strength="strength")
    with pytest.raises(TypeError, match="DataFrame"):
        ie.bradley_terry([1, 2])


# --------------------------------------------------------------------------- iaa preferences


def run_cli(argv, capsys):
    from iaa_engine.cli import main

    code = main(argv)
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines(keepends=True) if not line.startswith("iaa: warning: plugin")]
    return code, captured.out, "".join(errors)  # a plugin being edited elsewhere may warn first


def test_cli_table_csv_json_and_the_bias_flag(tmp_path, capsys):
    table = judgments(9, n_prompts=12, bias_judge=True).rename(columns={"item": "prompt", "annotator": "judge"})
    path = tmp_path / "prefs.csv"
    table.to_csv(path, index=False)
    core = ie.preference_agreement(table, item="prompt", annotator="judge")
    code, out, _ = run_cli(["preferences", str(path)], capsys)
    assert code == 0 and "POSITION BIAS" in out and "j0" in out
    code, _, _ = run_cli(["preferences", str(path), "--fail-on-bias"], capsys)
    assert code == 1
    code, out, _ = run_cli(["preferences", str(path), "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["preferences"]["coefficients"] == pytest.approx(core.coefficients)
    code, out, _ = run_cli(["preferences", str(path), "--format", "csv", "--table", "judges"], capsys)
    got = pd.read_csv(io.StringIO(out))
    np.testing.assert_allclose(got["p_holm"], core.judges["p_holm"], rtol=1e-12)
    assert got["position_bias"].tolist() == core.judges["position_bias"].tolist()


def test_cli_models_beside_humans(tmp_path, capsys):
    table = judgments(5)
    path = tmp_path / "prefs.csv"
    table.to_csv(path, index=False)  # item and annotator columns: the defaults' fallbacks
    code, out, _ = run_cli(["preferences", str(path), "--models", "j3", "--format", "csv", "--table", "models"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    humans = table[table["annotator"] != "j3"]
    direct = ie.preference_model_agreement(humans, table[table["annotator"] == "j3"])
    np.testing.assert_allclose(got["agreement"], direct.table["agreement"], rtol=1e-12)


def test_cli_errors_are_one_line(tmp_path, capsys):
    path = tmp_path / "prefs.csv"
    judgments(5).to_csv(path, index=False)
    code, _, err = run_cli(["preferences", str(path), "--models", "nobody"], capsys)
    assert code == 2 and err.startswith("iaa: error: --models: no judge named 'nobody'") and err.count("\n") == 1
    code, _, err = run_cli(["preferences", str(path), "--label-col", "verdict"], capsys)
    assert code == 2 and "--label-col 'verdict': no such column" in err
    bad = judgments(5)
    bad.loc[3, "label"] = "=cmd()"
    bad.to_csv(path, index=False)
    code, _, err = run_cli(["preferences", str(path)], capsys)
    assert code == 2 and "is A (the response shown first is better)" in err and err.count("\n") == 1


def test_cli_csv_escapes_formulas(tmp_path, capsys):
    table = judgments(5)
    table["annotator"] = table["annotator"].replace({"j1": "=HYPERLINK(1)"})
    path = tmp_path / "prefs.csv"
    table.to_csv(path, index=False)
    code, out, _ = run_cli(["preferences", str(path), "--format", "csv"], capsys)
    assert code == 0 and "'=HYPERLINK(1)" in out


# --------------------------------------------------------------------------- issue 32: inputs once read wrongly


def test_a_tie_with_a_strength_is_refused():
    """A tie has no "how much better": a tie with a positive strength used to be read as a plain tie without a
    word. A blank or 0 strength on a tie is fine."""
    t = pd.DataFrame(
        {
            "item": "p",
            "response_a": ["x", "y", "x"],
            "response_b": ["y", "x", "y"],
            "annotator": ["a", "b", "c"],
            "label": ["A", "tie", "tie"],
            "strength": [2, np.nan, 0],
        }
    )
    assert ie.preference_agreement(t, strength="strength").n_judgments == 3
    with pytest.raises(ValueError, match=r"row 3 is a tie with the strength 1\.5; a tie has no strength"):
        ie.preference_agreement(t.assign(strength=[2, np.nan, 1.5]), strength="strength")


def test_a_model_that_is_one_of_the_human_judges_is_refused():
    """A "model" named like a human judge was compared with itself among the humans, without a word."""
    humans = judgments(3)
    llm = humans[humans["annotator"] == "j1"].reset_index(drop=True)
    with pytest.raises(ValueError, match=r"'j1' judges among the humans and among the models"):
        ie.preference_model_agreement(humans, llm)
    with pytest.raises(ValueError, match=r"'j1' judges among the humans and among the models"):
        ie.preference_model_agreement(humans, llm.assign(annotator=" j1 "))  # read as the same name
    assert len(ie.preference_model_agreement(humans, llm.assign(annotator="llm")).table) > 0


# --------------------------------------------------------------------------- issue 32: what people read first


def many_judges(n_judges: int = 400, n_biased: int = 3, seed: int = 1) -> pd.DataFrame:
    """A crowd: each judge judges 4-20 random pairs of one of 50 prompts (first shown random); the first
    ``n_biased`` judges judge 40 and always pick the first shown, the others pick at random."""
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(n_judges):
        for p in rng.choice(50, size=40 if j < n_biased else int(rng.integers(4, 21)), replace=False):
            a, b = rng.permutation(["m0", "m1", "m2"])[:2]
            label = "A" if j < n_biased else rng.choice(["A", "B", "tie"], p=[0.45, 0.45, 0.1])
            rows.append((f"p{p}", a, b, f"judge{j:03d}", label))
    return pd.DataFrame(rows, columns=["prompt", "response_a", "response_b", "judge", "label"])


def test_cli_preferences_shows_a_summary_not_one_line_per_judge(tmp_path, capsys):
    """3,815 judges once printed 3,821 unsorted lines without n or a pooled test. Now: the pooled first-shown share
    with its exact test (scipy's binomtest on the pooled counts), how many judges are flagged, the flagged judges
    smallest p first with their n; the whole table with --table judges or --format csv."""
    table = many_judges()
    path = tmp_path / "crowd.csv"
    table.to_csv(path, index=False)
    core = ie.preference_agreement(table, item="prompt", annotator="judge")
    code, out, _ = run_cli(["preferences", str(path)], capsys)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) < 30  # not one line per judge (400 judges)
    k, n = int(core.judges["first_wins"].sum()), int(core.judges["n_decided"].sum())
    ref = binomtest(k, n, 0.5)
    pooled = next(line for line in lines if "all judges pooled" in line)
    assert f"wins {k / n:.3f} of {n:,} decided" in pooled and f"p = {ref.pvalue:.3g}" in pooled
    ci = ref.proportion_ci(0.95, method="exact")
    assert f"95% CI {ci.low:.3f}-{ci.high:.3f}" in pooled
    assert core.pooled["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    flagged = core.judges[core.judges["position_bias"]]
    assert len(flagged) == 3
    assert "Holm-adjusted p below 0.05): 3 of 400" in out
    shown = [line.split()[0] for line in lines if "POSITION BIAS" in line]
    assert shown == flagged.sort_values("p_value")["judge"].tolist()
    for r in flagged.itertuples():
        assert f"{r.first_wins} of {r.n_decided} decided (1.000), n {r.n}; p {r.p_value:.3g}" in out
    # no judge flagged: the top N by p-value, with n, and where the rest are
    quiet = tmp_path / "quiet.csv"
    many_judges(n_biased=0).to_csv(quiet, index=False)
    code, out, _ = run_cli(["preferences", str(quiet), "--top", "5"], capsys)
    assert "0 of 400" in out and "smallest p-values (none flagged)" in out
    assert "... and 395 more judges" in out and "--table judges" in out
    # the whole table: csv, and on the terminal with --table judges
    code, out, _ = run_cli(["preferences", str(path), "--format", "csv", "--table", "judges"], capsys)
    assert len(pd.read_csv(io.StringIO(out))) == 400
    code, out, _ = run_cli(["preferences", str(path), "--table", "judges"], capsys)
    assert code == 0 and "the judges table (400 rows)" in out and len(out.splitlines()) == 402
    code, _, err = run_cli(["preferences", str(path), "--top", "-1"], capsys)
    assert code == 2 and "--top must be" in err


def test_one_column_convention_in_python_and_on_the_command_line(tmp_path, capsys):
    """Python read item/annotator and the CLI prompt/judge (else item/annotator); bradley_terry refused
    annotator=. Now every judgments function and command: prompt (else item), judge (else annotator), a table
    with both refused; item=/annotator= (--item-col/--annotator-col) name any other column."""
    table = judgments(4).rename(columns={"item": "prompt", "annotator": "judge"})
    res = ie.preference_agreement(table)  # once: "column 'item' ... not found"
    old = ie.preference_agreement(table.rename(columns={"prompt": "item", "judge": "annotator"}))
    assert res.coefficients == pytest.approx(old.coefficients, nan_ok=True)
    path = tmp_path / "prefs.csv"
    table.to_csv(path, index=False)
    code, out, _ = run_cli(["preferences", str(path), "--format", "json"], capsys)
    assert json.loads(out)["preferences"]["coefficients"] == pytest.approx(res.coefficients)
    pd.testing.assert_frame_equal(ie.bradley_terry(table).scores, res.scores)
    pd.testing.assert_frame_equal(ie.bradley_terry(table, annotator="judge").scores, res.scores)
    twice = pd.concat([table, table.iloc[:1]], ignore_index=True)
    with pytest.raises(ValueError, match="judged the pair .* twice"):
        ie.bradley_terry(twice, annotator="judge")  # with judges, as preference_agreement refuses it
    llm = table[table["judge"] == "j0"].assign(judge="llm")
    assert len(ie.preference_model_agreement(table[table["judge"] != "j0"], llm).table) > 0
    both = table.assign(item=table["prompt"])
    for fn in (ie.preference_agreement, ie.bradley_terry):
        with pytest.raises(ValueError, match=r"columns 'prompt' and 'item', .* item= \(CLI: --item-col\)"):
            fn(both)
    assert ie.preference_agreement(both, item="prompt").n_pairs == res.n_pairs
    both.to_csv(path, index=False)
    code, _, err = run_cli(["preferences", str(path)], capsys)
    assert code == 2 and "the columns 'prompt' and 'item'" in err and "--item-col" in err
    with pytest.raises(ValueError, match=r"no column 'prompt' or 'item' .*item="):
        ie.preference_agreement(table.rename(columns={"prompt": "question"}))
    rankings = pd.DataFrame({"prompt": "p", "judge": ["a", "b"], "label": ["x > y", "y > x"]})
    assert ie.ranking_agreement(rankings).n_judges == 2


def test_a_pair_judged_in_both_orders_is_one_answer_for_agreement():
    """Issue 34: a judge that saw a pair both ways is accepted. Agreement counts one answer per judge and pair: the
    shared one (A then B on the swapped order: the same response wins), or a tie when the order changed it."""
    both = pd.DataFrame(
        {
            "item": ["p"] * 6,
            "response_a": ["x", "y", "x", "y", "x", "x"],
            "response_b": ["y", "x", "y", "x", "y", "y"],
            "annotator": ["a", "a", "b", "b", "c", "d"],
            "label": ["A", "B", "A", "A", "A", "tie"],
        }
    )
    res = ie.preference_agreement(both)
    # a: x wins both ways -> x; b: the first shown wins both ways -> a tie; c: x; d: tie
    single = pd.DataFrame(
        {
            "item": "p",
            "response_a": "x",
            "response_b": "y",
            "annotator": list("abcd"),
            "label": ["A", "tie", "A", "tie"],
        }
    )
    ref = ie.preference_agreement(single)
    assert res.coefficients == ref.coefficients
    pd.testing.assert_frame_equal(res.pairs, ref.pairs)
    j = res.judges.set_index("judge")
    assert j.loc["a", "n"] == 2 and j.loc["a", "n_decided"] == 2 and j.loc["a", "first_wins"] == 1
    assert j.loc["a", "position_consistency"] == 1.0 and j.loc["b", "position_consistency"] == 0.0
    assert np.isnan(j.loc["c", "position_consistency"]) and j.loc["c", "n_both_orders"] == 0
    assert any("both orders" in n for n in res.notes)
    # the same judgments through ie.judge_consistency: a consistent, b primacy-preferred
    pos = ie.judge_consistency(both).position.set_index("judge")
    assert pos.loc["a", "consistent"] == 1 and pos.loc["b", "primacy"] == 1


def test_models_beside_humans_print_undefined_not_nan(tmp_path, capsys):
    """The undefined-value policy on the terminal: with one human judge left and no gold, the table printed
    "agreement nan [nan, nan]  kappa nan" and "humans among themselves: agreement nan"."""
    path = tmp_path / "two.csv"
    pd.DataFrame({"prompt": ["p1", "p1", "p2", "p2"], "judge": ["a", "b", "a", "b"], "response_a": "x",
                  "response_b": "y", "label": ["A", "A", "B", "B"]}).to_csv(path, index=False)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)  # SPA of the lone human (iaa: warning: ...)
        code, out, _ = run_cli(["preferences", str(path), "--models", "a"], capsys)
    assert code == 0 and "nan" not in out
    assert "Models beside humans (humans among themselves: agreement undefined (no item has two human labels))" in out
    assert "n=        0  undefined (no item labelled by both)" in out
    assert "a vs b                  n=        2  agreement 1.000 [0.342, 1.000]  kappa 1.000" in out
