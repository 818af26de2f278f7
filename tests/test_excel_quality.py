"""The Excel functions that say what to do after the number: ANNOTATORS, DISAGREEMENTS, CONFUSED_PAIRS,
GOLD_ACCURACY, IAA_BENCHMARK (excel_addin/iaa_functions.py), through xlwings's own Office.js call path.

Every call goes through ``xlwings.server.custom_functions_call`` with the payload Excel sends (see
tests/test_excel_addin.py, whose helpers are reused). Expected values come from the core on the same data
(``annotator_report``, ``disagreements``, ``gold_accuracy``, ``benchmark_reading``), from R irrCAC's printed
benchmarking vignette and from Wilson's interval worked by hand.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie  # noqa: E402
from tests.test_excel_addin import A_T, NA, ROOT, VALUE, A, addin, call, core, excel_error, server

NAN = float("nan")
#: Seed 001 as the add-in names it without headers: annotators 1..3, items 1..15 (positions in the range).
SEED001 = ie.Annotations.from_wide(
    pd.DataFrame([[int(v) for v in r] for r in A], index=[1, 2, 3], columns=range(1, 16)), annotators_as="rows"
)


# ----------------------------------------------------------------------------- data


def sparse_long(seed: int = 7, n_items: int = 60) -> pd.DataFrame:
    """A sparse crowd with text ids: items '000'..'059' (leading zeros), annotators 'ann_1'..'ann_6', 2-4 of them
    per item, labels neg/neu/pos; ann_6 clicks at random, the others are right 85 % of the time."""
    rng = np.random.default_rng(seed)
    labels = np.array(["neg", "neu", "pos"])
    rows = []
    for i in range(n_items):
        truth = rng.integers(3)
        who = rng.choice(6, size=int(rng.integers(2, 5)), replace=False)
        for a in sorted(who):
            lab = rng.integers(3) if a == 5 or rng.random() > 0.85 else truth
            rows.append((f"{i:03d}", f"ann_{a + 1}", str(labels[lab])))
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


LONG = sparse_long()
WIDE = LONG.pivot(index="item", columns="annotator", values="label")
#: The range as Excel sends it, one item per row with headers: text ids stay text ("007"), blanks are None.
SPARSE = [["", *WIDE.columns]] + [[it, *[None if pd.isna(v) else v for v in row]] for it, row in WIDE.iterrows()]
SPARSE_T = [list(col) for col in zip(*SPARSE)]  # the same, one annotator per row


def by_name(table: list[list], key: str = "Annotator") -> dict:
    header, *rows = table
    col = header.index(key)
    return {r[col]: dict(zip(header, r)) for r in rows}


def close(got, want, tol=1e-12) -> bool:
    if isinstance(want, (float, np.floating)) and not math.isfinite(want):
        return got == {"type": "Error", "errorType": "Div0"}
    if isinstance(want, (bool, np.bool_)) or isinstance(want, str):
        return got == want
    return got == pytest.approx(float(want), abs=tol)


# ----------------------------------------------------------------------------- ANNOTATORS

SCORE_COLUMNS = {
    "Items": "n_items",
    "Shared items": "n_pairable",
    "Agreement": "agreement",
    "Agreement lower 95%": "agreement_lower",
    "Agreement upper 95%": "agreement_upper",
    "Kappa": "kappa",
    "Kappa lower 95%": "kappa_lower",
    "Kappa upper 95%": "kappa_upper",
    "Accuracy": "accuracy",
    "Accuracy lower 95%": "accuracy_lower",
    "Accuracy upper 95%": "accuracy_upper",
    "Gold kappa": "gold_kappa",
    "Alpha without [nominal]": "alpha_without",
    "Alpha change": "alpha_change",
    "Label TVD": "tvd",
    "Label chi-square p": "chi2_p",
    "Competence (MACE)": "competence",
    "Flag": "flag",
}


def assert_scorecard(out: list[list], card: ie.AnnotatorReport) -> None:
    header = out[0]
    assert header[0] == "Annotator" and header[-1] == "Flag" and len(out) == len(card.table) + 1
    gold_col = next(h for h in header if h.startswith("Gold items"))
    assert gold_col == f"Gold items ({card.gold})"
    got = by_name(out)
    for row in card.table.to_dict(orient="records"):
        mine = got[row["annotator"]]
        assert mine[gold_col] == row["n_gold"]
        for label, key in SCORE_COLUMNS.items():
            assert close(mine[label], row[key]), (row["annotator"], label, mine[label], row[key])


@pytest.mark.parametrize("gold", ["majority", "dawid_skene"])
def test_annotators_equals_the_core_on_seed001_in_both_layouts(gold):
    card = core(ie.annotator_report, SEED001, gold=gold, pairwise=False, progress=False)
    assert_scorecard(call("ANNOTATORS", A, gold), card)  # annotators in rows (auto)
    assert call("ANNOTATORS", A_T, gold) == call("ANNOTATORS", A, gold)  # items in rows (auto)
    assert call("ANNOTATORS", A_T, gold, None, None, "columns") == call("ANNOTATORS", A, gold)


def test_annotators_seed001_hand_checked_columns():
    """The core's docstring numbers: agreement 0.8/0.7/0.7, alpha 0.608 falls to 0.414 without annotator 1."""
    got = by_name(call("ANNOTATORS", A))
    assert [round(got[a]["Agreement"], 3) for a in (1, 2, 3)] == [0.8, 0.7, 0.7]
    assert [round(got[a]["Alpha without [nominal]"], 3) for a in (1, 2, 3)] == [0.414, 0.709, 0.707]
    assert round(got[1]["Alpha change"], 3) == -0.194
    # agreement of annotator 1 with the pooled others: 12 of its 15 pairs-with-one-other agree -> 0.8, Wilson 95%
    z = 1.959963984540054
    n, p = 15, 0.8
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert got[1]["Agreement lower 95%"] == pytest.approx((centre - half) / (1 + z * z / n), abs=1e-12)
    assert got[1]["Agreement upper 95%"] == pytest.approx((centre + half) / (1 + z * z / n), abs=1e-12)


def test_annotators_known_gold_as_a_line_or_a_table():
    known = {j + 1: (1 if j % 3 else 2) for j in range(15)}  # items named by position without headers
    card = core(ie.annotator_report, SEED001, gold=known, pairwise=False, progress=False)
    line = [[float(known[j + 1]) for j in range(15)]]
    assert_scorecard(call("ANNOTATORS", A, line), card)
    column = [[v] for v in line[0]]
    assert call("ANNOTATORS", A, column) == call("ANNOTATORS", A, line)
    table = [["item", "label"]] + [[float(k), float(v)] for k, v in known.items()]
    assert call("ANNOTATORS", A, table) == call("ANNOTATORS", A, line)
    # a blank cell is an item without a known label
    partial = [[None if j < 5 else v for j, v in enumerate(line[0])]]
    card = core(ie.annotator_report, SEED001, gold={k: v for k, v in known.items() if k > 5}, pairwise=False)
    out = call("ANNOTATORS", A, partial)
    assert_scorecard(out, card)
    assert {r[9] for r in out[1:]} == {10}


def test_annotators_on_a_sparse_range_with_text_ids_flags_the_random_clicker():
    card = core(ie.annotator_report, LONG, min_items=10, pairwise=False, progress=False)
    assert card.flagged() == ["ann_6"]  # the data is what it says: one random clicker
    out = call("ANNOTATORS", SPARSE, None, None, 10.0, None, True)
    assert_scorecard(out, card)
    assert [r[0] for r in out[1:]] == [f"ann_{k}" for k in range(1, 7)]
    assert {r[0]: r[-1] for r in out[1:]}["ann_6"].startswith("random")
    assert call("ANNOTATORS", SPARSE_T, None, None, 10.0, "rows", True) == out  # one annotator per row


# ----------------------------------------------------------------------------- DISAGREEMENTS, CONFUSED_PAIRS


def assert_disagreements(out: list[list], res: ie.Disagreements) -> None:
    frame = res.to_frame()
    assert out[0] == [
        "Rank",
        "Item",
        "Annotations",
        "Agreement",
        "Tied",
        "Entropy (Dawid-Skene)",
        "Labels",
        "Annotators",
    ]
    assert len(out) == len(frame) + 1
    for mine, row in zip(out[1:], frame.to_dict(orient="records")):
        assert mine[0] == row["rank"] and mine[1] == row["item"] and mine[2] == row["n_annotations"]
        assert mine[3] == pytest.approx(row["agreement"], abs=1e-12) and mine[4] == row["tie"]
        assert mine[5] == pytest.approx(row["entropy"], abs=1e-9)
        assert mine[6] == row["labels"] and mine[7] == row["annotators"]


def test_disagreements_equals_the_core_on_seed001():
    res = core(ie.disagreements, SEED001, progress=False)
    out = call("DISAGREEMENTS", A)
    assert_disagreements(out, res)
    assert len(out) == 1 + 6  # the six items that are not unanimous
    assert call("DISAGREEMENTS", A_T) == out  # items in rows
    top = call("DISAGREEMENTS", A, 2.0)
    assert top == out[:3]


def test_disagreements_on_sparse_text_ids_keep_their_leading_zeros():
    res = core(ie.disagreements, LONG, top=10, progress=False)
    out = call("DISAGREEMENTS", SPARSE, 10.0, None, True)
    assert_disagreements(out, res)
    assert all(isinstance(r[1], str) and len(r[1]) == 3 for r in out[1:])  # "007", not 7
    assert call("DISAGREEMENTS", SPARSE_T, 10.0, "rows", True) == out


def test_disagreements_of_a_count_table():
    """A count table has no annotators: no Dawid-Skene entropy and no who-said-what (#N/A), the rest as the core."""
    counts = SEED001.counts.to_dense().astype(float).tolist()
    res = core(
        ie.disagreements,
        ie.Annotations.from_counts(pd.DataFrame(counts, index=range(1, 16), columns=[1, 2, 3])),
        progress=False,
    )
    out = call("DISAGREEMENTS", counts, None, "counts")
    assert not res.dawid_skene and len(out) == len(res.items) + 1 == 7
    for mine, row in zip(out[1:], res.to_frame().to_dict(orient="records")):
        assert mine[:5] == [row["rank"], row["item"], row["n_annotations"], pytest.approx(row["agreement"]), row["tie"]]
        assert mine[5] == NA and mine[7] == NA and mine[6] == row["labels"]


def test_disagreements_hand_worked():
    """t2 splits 1:1 (agreement 0, tied), t3 is 2:1 (1/3), t1 unanimous (not listed): the core's docstring case."""
    rng = [["", "a", "b", "c"], ["t1", "pos", "pos", None], ["t2", "neg", "pos", None], ["t3", "neg", "neg", "pos"],
           ["t4", "neg", "neg", None]]  # fmt: skip
    out = call("DISAGREEMENTS", rng, None, "columns", True)
    assert [r[:5] for r in out[1:]] == [[1, "t2", 2, 0.0, True], [2, "t3", 3, pytest.approx(1 / 3), False]]
    assert out[2][6] == "neg×2, pos×1" and out[2][7] == "a=neg, b=neg, c=pos"
    pairs = call("CONFUSED_PAIRS", rng, None, None, "columns", True)
    # o = 1*1/1 (t2) + 2*1/2 (t3) = 2; pairable values n_neg = 1 + 2 + 2 = 5 (t2, t3, t4), n_pos = 2 + 1 + 1 = 4
    # (t1, t2, t3), n = 9: e = 5*4/8 = 2.5, ratio 0.8; the only disagreeing pair: share 1
    assert pairs == [
        ["Rank", "Label A", "Label B", "Observed", "Expected", "Ratio", "Share", "Items", "Items behind"],
        [1, "neg", "pos", 2.0, 2.5, pytest.approx(0.8, abs=1e-12), 1.0, 2, "t2|t3"],
    ]


def test_confused_pairs_equals_the_core():
    for data, rng, args in [(SEED001, A, ()), (LONG, SPARSE, (None, True))]:
        res = core(ie.disagreements, data, dawid_skene=False, items_per_pair=3, progress=False)
        out = call("CONFUSED_PAIRS", rng, None, 3.0, *args)
        frame = res.pairs_frame()
        assert len(out) == len(frame) + 1
        for mine, row in zip(out[1:], frame.to_dict(orient="records")):
            want = [row["rank"], row["label_a"], row["label_b"], row["observed"], row["expected"], row["ratio"]]
            assert mine[:6] == [pytest.approx(v, abs=1e-12) if isinstance(v, float) else v for v in want]
            assert mine[6] == pytest.approx(row["share"], abs=1e-12) and mine[7] == row["n_items"]
            assert mine[8] == row["items"] and len(mine[8].split("|")) <= 3
    assert call("CONFUSED_PAIRS", A, 1.0, None, None, None, ", ")[1][8] == "1, 2, 9, 10, 13"


# ----------------------------------------------------------------------------- GOLD_ACCURACY


def wilson(x: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = x / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def test_gold_accuracy_hand_worked():
    """Annotator 2 answers 2 of 3 gold questions right: 2/3, Wilson 95% (0.208, 0.939): undecided against 0.8."""
    data = [["a", "b", "a"], ["a", "a", "a"]]
    out = call("GOLD_ACCURACY", data, [["a", "b", "a"]])
    assert out[0] == [
        "Annotator",
        "Gold questions",
        "Correct",
        "Accuracy",
        "Lower 95%",
        "Upper 95%",
        "Passed",
        "Status",
    ]
    lo, hi = wilson(2, 3)
    assert (round(lo, 3), round(hi, 3)) == (0.208, 0.939)
    assert out[2] == [2, 3, 2, pytest.approx(2 / 3), pytest.approx(lo), pytest.approx(hi), False, "undecided"]
    assert out[1][:4] == [1, 3, 3, 1.0] and out[1][6:] == [True, "undecided"]
    # a lower threshold passes both; a 90% interval is narrower
    assert [r[6] for r in call("GOLD_ACCURACY", data, [["a", "b", "a"]], 0.5)[1:]] == [True, True]
    lo90, hi90 = wilson(2, 3, 1.6448536269514722)
    assert call("GOLD_ACCURACY", data, [["a", "b", "a"]], None, 0.9)[2][4:6] == [
        pytest.approx(lo90),
        pytest.approx(hi90),
    ]
    assert call("GOLD_ACCURACY", data, [["a", "b", "a"]], None, 0.9)[0][4] == "Lower 90%"


def test_gold_accuracy_equals_the_core_on_sparse_text_ids():
    rng = np.random.default_rng(3)
    gold_items = sorted(rng.choice(LONG["item"].unique(), size=15, replace=False))
    known = {it: ["neg", "neu", "pos"][int(rng.integers(3))] for it in gold_items}
    acc = ie.gold_accuracy(LONG, known, threshold=0.6)
    table = [["item", "label"]] + [[it, lab] for it, lab in known.items()] + [["999", "pos"]]  # 999: not an item
    out = call("GOLD_ACCURACY", SPARSE, table, 0.6, None, None, True)
    got = by_name(out)
    for row in acc.table.to_dict(orient="records"):
        mine = got[row["annotator"]]
        want = [row["n_gold"], row["n_correct"], row["accuracy"], row["lower"], row["upper"], row["passed"]]
        have = [mine[k] for k in ("Gold questions", "Correct", "Accuracy", "Lower 95%", "Upper 95%", "Passed")]
        assert all(close(h, w) for h, w in zip(have, want)), (row, mine)
        assert mine["Status"] == row["status"]
    # the same labels as a line aligned with the items (one cell per item row, blank = no gold question)
    line = [[known.get(it)] for it in WIDE.index]
    assert call("GOLD_ACCURACY", SPARSE, line, 0.6, None, None, True) == out
    # one annotator per row: the known line is a row along the items
    assert call("GOLD_ACCURACY", SPARSE_T, [[known.get(it) for it in WIDE.index]], 0.6, None, "rows", True) == out
    # "7" is not "007": ids with leading zeros are matched as text
    assert call("GOLD_ACCURACY", SPARSE, [["7", "neg"], ["8", "pos"]], None, None, None, True) == [[NA]]


# ----------------------------------------------------------------------------- IAA_BENCHMARK

#: R irrCAC's cac.raw4raters (12 items x 4 raters, categories 1..5, missing ratings), one item per row.
RAW4 = [
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, None, 3, None],
]
RAW4_F = [[None if v is None else float(v) for v in r] for r in RAW4]


def test_benchmark_reproduces_irrcac_vignette_through_excel():
    """R irrCAC 1.0's benchmarking vignette: AC1 of cac.raw4raters 0.77544 (SE 0.14295); landis.koch.bf CumProb
    0.39674, 0.88336, 0.99542, 0.99997, 1, 1: "Moderate" with probability 0.99542 (point estimate: Substantial)."""
    out = call("IAA_BENCHMARK", RAW4_F, "gwet_ac1")
    assert out[0][:2] == ["Estimate (gwet_ac1)", pytest.approx(0.77544, abs=5e-6)]
    assert out[0][2:4] == ["Standard error", pytest.approx(0.14295, abs=5e-6)]
    assert out[1][:3] == ["Reading (Landis-Koch)", "Moderate or better", "Probability"]
    assert out[1][3] == pytest.approx(0.99542, abs=2e-5)
    assert out[2][:2] == ["Point estimate in", "Substantial"] and out[2][2:4] == ["Threshold", 0.95]
    assert out[3] == ["Band (Landis-Koch)", "Lower", "Upper", "Probability", "Cumulative"]
    assert [r[0] for r in out[4:]] == ["Almost Perfect", "Substantial", "Moderate", "Fair", "Slight", "Poor"]
    np.testing.assert_allclose([r[4] for r in out[4:]], [0.39674, 0.88336, 0.99542, 0.99997, 1, 1], atol=2e-5)
    fleiss = call("IAA_BENCHMARK", RAW4_F, "gwet_ac1", "fleiss")
    np.testing.assert_allclose([r[4] for r in fleiss[4:]], [0.54414, 0.99542, 1.0], atol=2e-5)
    assert fleiss[1][1] == "Intermediate to Good or better"


@pytest.mark.parametrize("scale", sorted(ie.BENCHMARK_SCALES))
@pytest.mark.parametrize("metric", ["fleiss_kappa", "krippendorff_alpha", "gwet_ac1"])
def test_benchmark_equals_the_core(scale, metric):
    e = ie.estimate(SEED001, metric)
    r = ie.benchmark_reading(e, scale=scale, threshold=0.9)
    out = call("IAA_BENCHMARK", A, metric, scale.upper(), None, 0.9)
    assert out[0][1] == pytest.approx(r.estimate, abs=1e-12) and out[0][3] == pytest.approx(r.se, abs=1e-12)
    lowest = r.bands["band"].iloc[-1]
    assert out[1][1] == (r.reading if r.reading == lowest else f"{r.reading} or better")
    assert out[1][3] == pytest.approx(r.probability, abs=1e-12) and out[2][1] == r.point_band
    for mine, (lo, hi, name, p, c) in zip(out[4:], r.bands.itertuples(index=False, name=None)):
        assert mine == [name, lo, hi, pytest.approx(p, abs=1e-12), pytest.approx(c, abs=1e-12)]
    assert call("IAA_BENCHMARK", A_T, metric, scale, None, 0.9) == out  # items in rows


def test_benchmark_weighted_and_pairs():
    e = ie.estimate(SEED001, "cohen_kappa", weights="quadratic", annotator_a=1, annotator_b=3)
    r = ie.benchmark_reading(e, scale="altman")
    out = call("IAA_BENCHMARK", A, "cohen_kappa", "altman", "quadratic", None, 1.0, 3.0)
    assert out[0][0] == f"Estimate ({e.metric})" and out[0][1] == pytest.approx(e.estimate, abs=1e-12)
    assert [row[4] for row in out[4:]] == pytest.approx(r.bands["cumulative"].tolist(), abs=1e-12)


# ----------------------------------------------------------------------------- errors with their reason

ERRORS = [
    ("ANNOTATORS", (A, "best"), VALUE, 'gold must be "majority", "dawid_skene" or a range of known labels'),
    ("ANNOTATORS", (A, excel_error("#N/A")), NA, "error value #N/A"),
    ("ANNOTATORS", (A, None, "fuzzy"), VALUE, "level must be one of"),
    ("ANNOTATORS", (A, None, None, 0.0), VALUE, "min_items must be a whole number"),
    ("ANNOTATORS", (A, [[1.0] * 16]), VALUE, "16 cells in a line but the range has 15 items"),
    ("ANNOTATORS", (A, [[1.0, 2.0, 3.0]] * 3), VALUE, "3 x 3"),
    ("ANNOTATORS", (A, [[9.0] * 15]), VALUE, "not one of the data's categories"),
    ("ANNOTATORS", (A, None, None, None, "counts"), VALUE, "layout must be one of"),
    ("ANNOTATORS", ([[1.0, 2.0], [2.0, 1.0]],), VALUE, "square"),
    ("DISAGREEMENTS", (A, 0.0), VALUE, "top must be a whole number"),
    ("DISAGREEMENTS", (A, "three"), VALUE, "top must be a whole number"),
    ("DISAGREEMENTS", ([[excel_error("#N/A"), 1.0, 2.0]],), NA, "error value"),
    ("CONFUSED_PAIRS", (A, None, 2.5), VALUE, "items_per_pair must be a whole number"),
    ("GOLD_ACCURACY", (A,), VALUE, "give the known labels"),
    ("GOLD_ACCURACY", (A, [[None]]), VALUE, "give the known labels"),
    ("GOLD_ACCURACY", (A, [[1.0] * 15], 1.5), VALUE, "threshold must be a number between 0 and 1"),
    ("GOLD_ACCURACY", (A, [[1.0] * 15], None, 95.0), VALUE, "confidence must be a number between 0 and 1"),
    ("GOLD_ACCURACY", (A, [[20.0, 1.0], [21.0, 2.0]]), NA, "none of the 2 items of known"),
    ("GOLD_ACCURACY", (A, [[1.0, 1.0], [1.0, 2.0]]), VALUE, "more than once"),
    ("GOLD_ACCURACY", (A, [[None, 1.0], [2.0, 2.0]]), VALUE, "has no item name"),
    ("IAA_BENCHMARK", (A, "ICC(2,1)"), VALUE, "got the intraclass correlation"),
    ("IAA_BENCHMARK", (A, "fleiss"), VALUE, "metric must be one of"),
    ("IAA_BENCHMARK", (A, None, "cohen"), VALUE, "scale must be one of"),
    ("IAA_BENCHMARK", (A, None, None, None, 0.0), VALUE, "threshold must be a number above 0"),
    ("IAA_BENCHMARK", (A, "fleiss_kappa", None, None, None, 1.0, 2.0), VALUE, "are for cohen_kappa and scott_pi"),
    ("IAA_BENCHMARK", (A, "cohen_kappa", None, None, None, 1.0, 7.0), NA, "not an annotator name"),
]


def test_text_names_with_leading_zeros_are_names_not_positions():
    """An annotator "002" named as "002" is that annotator, not the second one; 2 is the second one."""
    rng = [["", "002", "001", "x"]] + [[f"{i:03d}", *r] for i, r in enumerate(A_T)]
    d = ie.Annotations.from_wide(
        pd.DataFrame([r[1:] for r in rng[1:]], columns=["002", "001", "x"]), annotators_as="columns"
    )
    assert call("COHEN", rng, "002", "x", None, True) == [[pytest.approx(ie.cohen_kappa(d, "002", "x"))]]
    assert call("COHEN", rng, 2.0, 3.0, None, True) == [[pytest.approx(ie.cohen_kappa(d, "001", "x"))]]
    assert [r[0] for r in call("ANNOTATORS", rng, None, None, None, None, True)[1:]] == ["002", "001", "x"]


@pytest.mark.parametrize("func,args,error,reason", ERRORS, ids=[f"{e[0]}-{e[3][:24]}" for e in ERRORS])
def test_bad_input_is_an_error_value_with_the_reason(func, args, error, reason, caplog):
    with caplog.at_level(logging.WARNING, logger="iaa_engine.excel"):
        assert call(func, *args) == [[error]]
    assert any(reason in m for m in caplog.messages), caplog.messages


def test_undefined_benchmark_is_not_a_word():
    """All labels the same: kappa undefined -> no reading, every probability #DIV/0! (never a bare band)."""
    same = [[1.0] * 6, [1.0] * 6]
    out = call("IAA_BENCHMARK", same)
    assert out[0][1] == {"type": "Error", "errorType": "Div0"}
    assert out[1][1] == NA and all(r[3] == {"type": "Error", "errorType": "Div0"} for r in out[4:])


def test_nothing_to_adjudicate_is_the_header_alone():
    same = [[1.0, 2.0, 3.0, 1.0], [1.0, 2.0, 3.0, 1.0]]
    assert call("DISAGREEMENTS", same)[1:] == [] and call("CONFUSED_PAIRS", same)[1:] == []


# ----------------------------------------------------------------------------- the function wizard and Lite


def test_new_functions_register_with_help_on_every_argument():
    meta = {f["name"]: f for f in server.custom_functions_meta(addin)["functions"]}
    for name in ("ANNOTATORS", "DISAGREEMENTS", "CONFUSED_PAIRS", "GOLD_ACCURACY", "IAA_BENCHMARK"):
        f = meta[name]
        assert f["description"] and all(p["description"] for p in f["parameters"]), name
        assert [p["name"] for p in f["parameters"]][-2:] in (["layout", "headers"], ["headers", "sep"]), name


def test_the_lite_copy_is_current_and_holds_the_new_functions():
    out = subprocess.run(
        [sys.executable, str(ROOT / "excel_addin" / "lite" / "build_lite.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    spec = importlib.util.spec_from_file_location("lite_main_under_test", ROOT / "excel_addin" / "lite" / "main.py")
    main = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(main)  # main.py imports the functions of the package, as xlwings Lite does
    registered = {f["name"] for f in server.custom_functions_meta(main)["functions"]}
    for name in ("ANNOTATORS", "DISAGREEMENTS", "CONFUSED_PAIRS", "GOLD_ACCURACY", "IAA_BENCHMARK"):
        assert name in registered
