"""The Alternative Annotator Test (issue 34, item 1): ie.alt_test against the authors' own code and data, and its
properties.

Reference: Calderon, Reichart & Dror (ACL 2025), https://github.com/nitaytech/AltTest at commit 18428b1
(``alt_test_example.ipynb``). The repository has no licence: its code was run in a scratch directory under /tmp,
never copied; tests/data/alttest/README.md says how the reference numbers were produced.
"""

from __future__ import annotations

import json
import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.stats._multiple import benjamini_yekutieli, benjamini_yekutieli_reject, t_test_less

DATA = Path(__file__).parent / "data" / "alttest"
ALTTEST_GIT = Path(os.environ.get("IAA_ALTTEST_GIT", "/work/.mirror/nitaytech+AltTest/repo"))
ALTTEST_COMMIT = "18428b1"


def synthetic(seed: int, n_items: int = 120, n_humans: int = 8, per_item: int = 3, n_cat: int = 4):
    """A sparse design: each item labelled by ``per_item`` of ``n_humans`` humans (70% right), and two models (75% and
    60% right), as the dictionaries the authors' ``alt_test`` takes (human -> item -> label; model -> item -> label).
    """
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cat, n_items)
    humans: dict = {f"h{k}": {} for k in range(n_humans)}
    for i in range(n_items):
        for k in rng.choice(n_humans, per_item, replace=False):
            humans[f"h{k}"][f"i{i:03d}"] = int(truth[i] if rng.random() < 0.7 else rng.integers(0, n_cat))
    models = {}
    for name, acc in (("good", 0.75), ("poor", 0.6)):
        models[name] = {
            f"i{i:03d}": int(truth[i] if rng.random() < acc else rng.integers(0, n_cat)) for i in range(n_items)
        }
    return humans, models


def similarity(a, b):
    """The callable score of the synthetic reference: 1 - |a - b| / 3 (the authors' ``sim`` with this function)."""
    return 1.0 - np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) / 3.0


def long(humans: dict) -> pd.DataFrame:
    return pd.DataFrame(
        [(i, a, v) for a, d in humans.items() for i, v in d.items()], columns=["item", "annotator", "label"]
    )


def model_table(models: dict) -> pd.DataFrame:
    return pd.DataFrame(
        [(i, m, v) for m, d in models.items() for i, v in d.items()], columns=["item", "annotator", "label"]
    )


def _check(res: ie.AltTest, ref: dict, order: list, model: str) -> None:
    row = res.models.set_index("model").loc[model]
    assert row["omega"] == pytest.approx(ref["omega"], abs=1e-15)
    assert row["rho"] == pytest.approx(ref["rho"], rel=1e-13)
    assert bool(row["passed"]) == (ref["omega"] >= 0.5)
    got = res.humans[res.humans["model"] == model].set_index("human").loc[order]
    assert got["items"].tolist() == ref["n"]
    np.testing.assert_allclose(got["p_value"].to_numpy(float), ref["p"], rtol=1e-12, atol=0)
    assert sorted(np.flatnonzero(got["rejected"].to_numpy())) == sorted(ref["rejected"])


# ---------------------------------------------------------------- the authors' own code and data


def _alttest_file(path: str) -> bytes:
    """A file of the authors' repository at the pinned commit, from a local git mirror (skip without one)."""
    if not ALTTEST_GIT.exists():
        pytest.skip(f"no copy of nitaytech/AltTest at {ALTTEST_GIT} (set IAA_ALTTEST_GIT to a git directory)")
    out = subprocess.run(
        ["git", "--git-dir", str(ALTTEST_GIT), "show", f"{ALTTEST_COMMIT}:{path}"], capture_output=True, check=False
    )
    if out.returncode:
        pytest.skip(f"the AltTest mirror has no {path} at {ALTTEST_COMMIT}")
    return out.stdout


REFERENCE = json.loads((DATA / "reference.json").read_text())

#: The notebook's printed table (alt_test_example.ipynb, cell "Example (paper's data)", as committed at 18428b1):
#: dataset, model, winning rate, advantage probability, both to two decimals.
NOTEBOOK_TABLE = """
wax gemini_flash 0.38 0.69
wax gemini_pro 0.50 0.74
wax gpt-4o 0.50 0.73
wax llama-31 0.00 0.57
wax gpt-4o-mini 0.00 0.59
wax mistral-v03 0.00 0.50
lgbteen gemini_flash 0.25 0.71
lgbteen gemini_pro 0.00 0.67
lgbteen gpt-4o 0.75 0.77
lgbteen llama-31 0.00 0.72
lgbteen gpt-4o-mini 0.75 0.76
lgbteen mistral-v03 0.25 0.75
mtbench gemini_flash 0.00 0.72
mtbench gemini_pro 0.00 0.76
mtbench gpt-4o 0.00 0.77
mtbench llama-31 0.00 0.69
mtbench gpt-4o-mini 0.00 0.74
mtbench mistral-v03 0.00 0.68
framing gemini_flash 1.00 0.83
framing gemini_pro 1.00 0.91
framing gpt-4o 1.00 0.92
framing llama-31 0.50 0.80
framing gpt-4o-mini 1.00 0.87
framing mistral-v03 0.25 0.80
cebab_aspects gemini_flash 0.70 0.91
cebab_aspects gemini_pro 0.90 0.94
cebab_aspects gpt-4o 0.90 0.93
cebab_aspects llama-31 0.60 0.89
cebab_aspects gpt-4o-mini 0.50 0.90
cebab_aspects mistral-v03 0.10 0.81
summeval gemini_flash 0.00 0.46
summeval gemini_pro 0.00 0.44
summeval gpt-4o 0.00 0.48
summeval llama-31 0.00 0.58
summeval gpt-4o-mini 0.00 0.54
summeval mistral-v03 0.00 0.62
10k_prompts gemini_flash 0.31 0.67
10k_prompts gemini_pro 0.08 0.63
10k_prompts gpt-4o 0.69 0.76
10k_prompts llama-31 0.15 0.67
10k_prompts gpt-4o-mini 0.92 0.80
10k_prompts mistral-v03 0.15 0.67
cebab_stars gemini_flash 0.60 0.82
cebab_stars gemini_pro 0.80 0.87
cebab_stars gpt-4o 0.90 0.90
cebab_stars llama-31 0.60 0.85
cebab_stars gpt-4o-mini 0.90 0.89
cebab_stars mistral-v03 0.50 0.83
lesion gemini_flash 0.17 0.71
lesion gemini_pro 1.00 0.81
lesion gpt-4o 0.00 0.62
lesion gpt-4o-mini 0.67 0.73
"""

#: The notebook's scoring function and epsilon per dataset (the same cell).
NOTEBOOK_SETUP = {
    "wax": ("accuracy", 0.1),
    "lgbteen": ("accuracy", 0.2),
    "mtbench": ("accuracy", 0.2),
    "framing": ("accuracy", 0.15),
    "cebab_aspects": ("accuracy", 0.1),
    "summeval": ("neg_rmse", 0.2),
    "10k_prompts": ("neg_rmse", 0.15),
    "cebab_stars": ("neg_rmse", 0.1),
    "lesion": ("neg_rmse", 0.15),
}


@pytest.mark.parametrize("dataset", list(NOTEBOOK_SETUP))
def test_reproduces_the_authors_notebook(dataset):
    """Every model of every dataset of the notebook: omega and rho, each human's items, p-value (to 1e-12 relative)
    and rejection, as the authors' alt_test computes them (tests/data/alttest/reference.json), and the printed table
    to two decimals."""
    humans = json.loads(_alttest_file(f"data/{dataset}/human_annotations.json"))
    llms = json.loads(_alttest_file(f"data/{dataset}/llm_annotations.json"))
    scoring, epsilon = NOTEBOOK_SETUP[dataset]
    printed = {
        (d, m): (float(w), float(r)) for d, m, w, r in (line.split() for line in NOTEBOOK_TABLE.strip().splitlines())
    }
    res = ie.alt_test(long(humans), model_table(llms), epsilon=epsilon, scoring=scoring)
    for model in llms:
        ref = REFERENCE[f"{dataset}/{model}"]
        assert (ref["scoring"], ref["epsilon"]) == (scoring, epsilon)
        order = [h for h in humans if h in set(res.humans.loc[res.humans["model"] == model, "human"])]
        _check(res, ref, order, model)
        row = res.models.set_index("model").loc[model]
        assert (f"{row['omega']:.2f}", f"{row['rho']:.2f}") == tuple(f"{v:.2f}" for v in printed[(dataset, model)])


# ---------------------------------------------------------------- the authors' code on our synthetic data


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "scoring, epsilon", [("accuracy", 0.1), ("accuracy", 0.2), ("neg_rmse", 0.15), (similarity, 0.1)]
)
def test_reproduces_the_authors_code_on_sparse_data(seed, scoring, epsilon):
    """The authors' alt_test run on :func:`synthetic` (a sparse design: 3 of 8 humans per item), numbers recorded in
    tests/data/alttest/synthetic.json; a callable score is their ``sim`` with :func:`similarity`."""
    name = scoring if isinstance(scoring, str) else "similarity"
    humans, models = synthetic(seed)
    res = ie.alt_test(long(humans), model_table(models), epsilon=epsilon, scoring=scoring, min_items=20)
    ref_all = json.loads((DATA / "synthetic.json").read_text())
    for model in models:
        ref = ref_all[f"{seed}/{name}/{epsilon}/{model}"]
        order = [h for h in humans if h in set(res.humans.loc[res.humans["model"] == model, "human"])]
        _check(res, ref, order, model)


# ---------------------------------------------------------------- the statistics helpers


def test_benjamini_yekutieli_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    for size in (1, 2, 5, 40):
        p = rng.random(size) ** 3
        for q in (0.05, 0.2):
            reject, adjusted, _, _ = multipletests(p, alpha=q, method="fdr_by")
            np.testing.assert_allclose(benjamini_yekutieli(p), adjusted, rtol=1e-13)
            assert benjamini_yekutieli_reject(p, q).tolist() == reject.tolist()
    # NaN stays NaN, is never rejected, and counts among m when asked
    p = np.array([0.001, np.nan, 0.01])
    assert np.isnan(benjamini_yekutieli(p)[1]) and not benjamini_yekutieli_reject(p, 0.05)[1]
    c3 = 1 + 1 / 2 + 1 / 3
    assert benjamini_yekutieli(p, m=3)[0] == pytest.approx(3 * c3 * 0.001)


def test_t_test_matches_scipy():
    from scipy.stats import ttest_1samp

    rng = np.random.default_rng(4)
    samples = [rng.integers(-1, 2, n).astype(float) for n in (2, 5, 31, 200)]
    samples += [np.zeros(10), np.ones(10), -np.ones(4), np.array([0.2] * 5)]
    for d in samples:
        for mu in (0.0, 0.1, 0.2):
            t, p = t_test_less(np.array([d.mean()]), np.array([((d - d.mean()) ** 2).sum()]), np.array([d.size]), mu)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scipy's precision-loss warning on a sample without spread
                ref = ttest_1samp(d, mu, alternative="less")
            np.testing.assert_allclose([t[0], p[0]], [ref.statistic, ref.pvalue], rtol=1e-12, equal_nan=True)
    t, p = t_test_less(np.array([0.5]), np.array([0.0]), np.array([1]), 0.1)
    assert np.isnan(t[0]) and np.isnan(p[0])


# ---------------------------------------------------------------- behaviour


def test_hand_worked_ties_count_for_both():
    # item 1: a=x, b=x, c=y; model x. Leave out a: others {x, y}: a scores 1/2, model 1/2 -> tie.
    # Leave out c: others {x, x}: c scores 0, model 1 -> model better. Item 2: all y, model y: ties everywhere.
    humans = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "annotator": list("abcabc"), "label": list("xxyyyy")})
    model = pd.DataFrame({"item": [1, 2], "annotator": "m", "label": ["x", "y"]})
    res = ie.alt_test(humans, model, epsilon=0.1, min_items=2)
    h = res.humans.set_index("human")
    assert h.loc["c", ["ties", "model_wins", "human_wins"]].tolist() == [1, 2, 1]
    assert h.loc["a", ["ties", "model_wins", "human_wins"]].tolist() == [2, 2, 2]
    # c: d = (0 - 1, 1 - 1) = (-1, 0): mean -1/2, SS 1/2, t = (-0.5 - 0.1) / sqrt(0.5 / 1 / 2) = -1.2, df 1
    from scipy.stats import t as student

    assert h.loc["c", "t"] == pytest.approx(-1.2)
    assert h.loc["c", "p_value"] == pytest.approx(student.cdf(-1.2, 1))
    # a and b tie on both items: d = 0 without spread, below epsilon: t = -inf, p = 0 (scipy's reading)
    assert h.loc["a", "p_value"] == 0.0 and bool(h.loc["a", "rejected"])


def test_a_model_named_like_a_human_is_still_a_separate_annotator_and_a_note_says_so():
    """A model whose name is a human's (a wrong file or column, or a model named after its trainer) is tested as any
    other model, and a note names it (qa2's acceptance walk of issue 34)."""
    humans, models = synthetic(0)
    table, mt = long(humans), model_table(models)
    plain = ie.alt_test(table, mt, epsilon=0.1, min_items=20)
    clash = ie.alt_test(table, mt.assign(annotator=mt.annotator.map({"good": "h1", "poor": "poor"})), epsilon=0.1,
                        min_items=20)  # fmt: skip
    pd.testing.assert_frame_equal(plain.humans.drop(columns="model"), clash.humans.drop(columns="model"))
    assert [n for n in clash.notes if "have the name of a human" in n] == [
        "model(s) 'h1' have the name of a human annotator: they are read as separate annotators (the model is never "
        "among the humans it is tested against)"
    ]
    assert not any("name of a human" in n for n in plain.notes)


def test_left_out_humans_are_listed_and_still_count_as_others():
    humans, models = synthetic(0)
    table = long(humans)
    few = table[(table.annotator != "h7") | (table.item < "i030")]  # h7 keeps only its items among the first 30
    res = ie.alt_test(few, model_table(models), epsilon=0.1, min_items=20, min_humans=3)
    assert "h7" in set(res.left_out["human"]) and "h7" not in set(res.humans["human"])
    assert (res.left_out["items"] < 20).all()
    # h7 still counts on its items: with three humans needed per item, its items stay in the others' tests, while
    # without h7 at all they have two humans and drop out
    without = ie.alt_test(table[table.annotator != "h7"], model_table(models), epsilon=0.1, min_items=20, min_humans=3)
    a = res.humans.set_index(["model", "human"])["items"]
    b = without.humans.set_index(["model", "human"])["items"]
    assert (a.loc[b.index] >= b).all() and (a.loc[b.index] > b).any()


def test_by_groups_share_one_correction():
    humans, models = synthetic(1, n_items=240)
    table = long(humans)
    group = {f"i{i:03d}": ("news" if i < 120 else "reviews") for i in range(240)}
    res = ie.alt_test(table, model_table(models), epsilon=0.15, min_items=20, by=group)
    assert set(res.models["group"]) == {"news", "reviews"} and len(res.models) == 4
    for model in models:
        rows = res.humans[res.humans["model"] == model]
        # the p-values are each group's own test...
        for g in ("news", "reviews"):
            part = ie.alt_test(
                table[table["item"].map(group) == g], model_table(models), epsilon=0.15, min_items=20
            ).humans
            part = part[part["model"] == model].set_index("human")["p_value"]
            mine = rows[rows["group"] == g].set_index("human")["p_value"]
            np.testing.assert_allclose(mine.loc[part.index], part, rtol=1e-14)
        # ...and the correction runs over both groups' humans together
        np.testing.assert_allclose(rows["p_adjusted"], benjamini_yekutieli(rows["p_value"].to_numpy()), rtol=1e-14)
        assert rows["rejected"].tolist() == benjamini_yekutieli_reject(rows["p_value"].to_numpy(), 0.05).tolist()
    summary = res.summary.set_index("model")
    assert summary.loc["good", "groups_passed"] == res.models.query("model == 'good'")["passed"].sum()
    assert "passes in" in str(res)


def test_by_a_kept_column():
    humans, models = synthetic(2)
    table = long(humans)
    table["domain"] = np.where(table["item"] < "i060", "a", "b")
    data = ie.Annotations.from_long(table, keep=["domain"])
    res = ie.alt_test(data, model_table(models), epsilon=0.1, min_items=10, by="domain")
    ref = ie.alt_test(table, model_table(models), epsilon=0.1, min_items=10, by=dict(zip(table.item, table.domain)))
    pd.testing.assert_frame_equal(res.humans, ref.humans)
    table.loc[0, "domain"] = "b" if table.loc[0, "domain"] == "a" else "a"
    with pytest.raises(ValueError, match="one group"):
        ie.alt_test(ie.Annotations.from_long(table, keep=["domain"]), model_table(models), epsilon=0.1, by="domain")


def test_bad_input_is_refused_plainly():
    humans, models = synthetic(0)
    table, mt = long(humans), model_table(models)
    with pytest.raises(ValueError, match="epsilon must be"):
        ie.alt_test(table, mt, epsilon=1.5)
    with pytest.raises(ValueError, match="scoring must be"):
        ie.alt_test(table, mt, epsilon=0.1, scoring="f1")
    with pytest.raises(ValueError, match="min_humans must be"):
        ie.alt_test(table, mt, epsilon=0.1, min_humans=1)
    text = table.assign(label=table["label"].map(lambda v: "abcd"[v]))
    with pytest.raises(ValueError, match="numeric labels"):
        ie.alt_test(text, mt.assign(label=mt["label"].map(lambda v: "abcd"[v])), epsilon=0.1, scoring="neg_rmse")
    with pytest.raises(ValueError, match="more than once"):
        ie.alt_test(table, _with_duplicate(mt), epsilon=0.1)
    with pytest.raises(ValueError, match="by must be"):
        ie.alt_test(table, mt, epsilon=0.1, by=3)


def _with_duplicate(mt: pd.DataFrame) -> ie.Annotations:
    a = ie.Annotations.from_long(mt)
    return ie.Annotations(
        np.append(a.item, a.item[0]),
        np.append(a.annotator, a.annotator[0]),
        np.append(a.label, a.label[0]),
        items=a.items,
        annotators=a.annotators,
        categories=a.categories,
    )


def test_undefined_when_no_human_has_enough_items():
    humans, models = synthetic(0, n_items=40)
    res = ie.alt_test(long(humans), model_table(models), epsilon=0.1)  # about 15 items each, below 30
    assert res.humans.empty and len(res.left_out) == 16
    assert res.models["omega"].isna().all() and not res.models["passed"].any()
    assert "undefined" in str(res) and res.to_dict()["models"][0]["omega"] is None
    json.dumps(res.to_dict())


# ---------------------------------------------------------------- properties


@st.composite
def designs(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    n_cat = draw(st.integers(2, 5))
    return seed, n_cat


def _design(seed: int, n_cat: int):
    humans, models = synthetic(seed, n_items=60, n_humans=5, per_item=3, n_cat=n_cat)
    return long(humans), model_table(models)


def _canonical(res: ie.AltTest) -> pd.DataFrame:
    return res.humans.sort_values(["model", "human"]).reset_index(drop=True)


@settings(max_examples=25, deadline=None)
@given(designs(), st.sampled_from(["accuracy", "neg_rmse", "similarity"]), st.integers(0, 4))
def test_a_model_copying_a_human_ties_with_that_human(design, scoring, who):
    table, _ = _design(*design)
    copy = table[table.annotator == f"h{who}"].assign(annotator="copy")
    score = similarity if scoring == "similarity" else scoring
    res = ie.alt_test(table, copy, epsilon=0.1, min_items=2, scoring=score)
    row = res.humans.set_index("human").loc[f"h{who}"]
    assert row["ties"] == row["items"] and row["rho"] == 1.0 and row["advantage"] == 0.0


@settings(max_examples=25, deadline=None)
@given(designs(), st.randoms(use_true_random=False))
def test_renaming_labels_consistently_changes_nothing(design, rnd):
    table, mt = _design(*design)
    cats = sorted(set(table["label"]) | set(mt["label"]))
    names = [f"c{k}" for k in range(len(cats))]
    rnd.shuffle(names)
    rename = dict(zip(cats, names))
    a = ie.alt_test(table, mt, epsilon=0.1, min_items=5)
    b = ie.alt_test(
        table.assign(label=table.label.map(rename)), mt.assign(label=mt.label.map(rename)), epsilon=0.1, min_items=5
    )
    pd.testing.assert_frame_equal(_canonical(a), _canonical(b))
    pd.testing.assert_frame_equal(a.models, b.models)


@settings(max_examples=25, deadline=None)
@given(designs(), st.sampled_from(["accuracy", "neg_rmse", "similarity"]), st.randoms(use_true_random=False))
def test_order_of_humans_and_items_changes_nothing(design, scoring, rnd):
    table, mt = _design(*design)
    score = similarity if scoring == "similarity" else scoring
    a = ie.alt_test(table, mt, epsilon=0.15, min_items=5, scoring=score)
    rows = list(range(len(table)))
    rnd.shuffle(rows)
    humans = sorted(set(table.annotator))
    shuffled = humans[:]
    rnd.shuffle(shuffled)
    rename = dict(zip(humans, [f"z{h}" for h in shuffled]))  # new names sort in another order
    back = {v: k for k, v in rename.items()}
    b = ie.alt_test(
        table.iloc[rows].assign(annotator=lambda t: t.annotator.map(rename)),
        mt.iloc[::-1],
        epsilon=0.15,
        min_items=5,
        scoring=score,
    )
    got = b.humans.assign(human=b.humans.human.map(back))
    pd.testing.assert_frame_equal(_canonical(a), _canonical(ie.AltTest(b.models, got, *_rest(b))), rtol=1e-12)
    pd.testing.assert_frame_equal(a.models, b.models)


def _rest(res: ie.AltTest) -> tuple:
    return (
        res.left_out,
        res.summary,
        res.epsilon,
        res.q,
        res.scoring,
        res.min_humans,
        res.min_items,
        res.by,
        res.notes,
    )


def _brute_force(table: pd.DataFrame, model: pd.DataFrame, sim, epsilon: float, min_items: int) -> pd.DataFrame:
    """The test written plainly: loops over humans and items, scores as means of ``sim`` over the other humans."""
    from scipy.stats import ttest_1samp

    labels = table.pivot(index="item", columns="annotator", values="label")
    x = model.set_index("item")["label"]
    rows = []
    for h in labels.columns:
        d, w = [], []
        for i, row in labels.iterrows():
            if pd.isna(row[h]) or i not in x.index or row.notna().sum() < 2:
                continue
            others = [v for k, v in row.items() if k != h and pd.notna(v)]
            sh = np.mean([sim(row[h], o) for o in others])
            sm = np.mean([sim(x[i], o) for o in others])
            w.append(sm >= sh)
            d.append(int(sh >= sm) - int(sm >= sh))
        if len(d) >= min_items:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                p = ttest_1samp(d, epsilon, alternative="less").pvalue
            rows.append((h, len(d), float(np.mean(w)), p))
    return pd.DataFrame(rows, columns=["human", "items", "rho", "p_value"])


@pytest.mark.parametrize("n_cat, n_items", [(5, 50), (100_000, 900)])
def test_a_callable_score_against_brute_force(n_cat, n_items):
    """Above 2048 categories the callable is evaluated on the label pairs themselves (no category table)."""
    rng = np.random.default_rng(n_cat)
    truth = rng.integers(0, n_cat, n_items)
    rows = [
        (i, f"h{k}", int(truth[i] + rng.integers(-2, 3)))
        for i in range(n_items)
        for k in rng.choice(4, 3, replace=False)
    ]
    table = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    model = pd.DataFrame({"item": range(n_items), "annotator": "m", "label": truth + rng.integers(-1, 2, n_items)})
    assert (pd.concat([table.label, model.label]).nunique() > 2048) == (n_cat > 2048)

    def closeness(a, b):
        return -np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))

    res = ie.alt_test(table, model, epsilon=0.1, scoring=closeness, min_items=5).humans.set_index("human")
    ref = _brute_force(table, model, lambda a, b: float(closeness(a, b)), 0.1, 5).set_index("human")
    assert list(res.index) == list(ref.index)
    np.testing.assert_allclose(res["rho"], ref["rho"], rtol=1e-14)
    np.testing.assert_allclose(res["p_value"], ref["p_value"], rtol=1e-12)
    assert (res["items"] == ref["items"]).all()
