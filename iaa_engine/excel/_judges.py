"""=ALT_TEST(humans, model, epsilon, ...) and =JUDGE_ACCURACY(humans, judge, positive, ...): can a model replace the
annotators, and what is the rate behind a judge's labels?

``humans`` is a rating range read as every rating range is (``layout``, ``headers``). ``model`` / ``judge`` is one
row or one column of the model's labels, one per item in the order of the humans' items (a blank: the model did not
label that item; cells past the humans' last item are items no human labelled). The core computes
(:func:`iaa_engine.alt_test`, :func:`iaa_engine.judge_accuracy`); these functions only read the ranges and spill the
verdict: label / value pairs, an undefined value as ``#DIV/0!``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

import iaa_engine as ie
from iaa_engine.excel._range import (
    ExcelError,
    cell,
    confidence_option,
    fraction,
    grid,
    labels,
    option,
    out,
    passed_on,
    read,
    whole,
)
from iaa_engine.excel._worksheet import DOC_CONFIDENCE, DOC_DATA, worksheet

__all__ = ["ALT_TEST", "JUDGE_ACCURACY"]

DOC_HUMANS = "The human annotations: a rating range. " + DOC_DATA
DOC_MODEL = (
    "The model's labels: one row or one column, one label per item in the order of the humans' items (blank: not "
    "labelled)."
)
DOC_EPSILON = "The cost-benefit margin epsilon: 0.2 expert annotators, 0.15 skilled, 0.1 crowd workers."
DOC_SCORING = '"accuracy" (default) or "neg_rmse" (numeric labels).'
DOC_Q = "False discovery rate of the Benjamini-Yekutieli correction over the humans (default 0.05)."
DOC_MIN_ITEMS = "Humans with fewer items are not tested (default 30)."
DOC_POSITIVE = 'The label whose true share is wanted (e.g. "correct" or 1).'


def _line(value: Any, what: str) -> list[Any]:
    """One row or one column of a range, as labels (numbers, or texts as written), blanks as None."""
    rows = grid(value)
    if len(rows) > 1 and len(rows[0]) > 1:
        raise ExcelError("#VALUE!", f"{what} must be one row or one column; got {len(rows)} x {len(rows[0])}")
    flat = [r[0] for r in rows] if len(rows) > 1 else list(rows[0])
    return labels([flat])[0]


def _models(line: list[Any], items: list[Any], who: str) -> pd.DataFrame:
    names = list(items) + [("(no human)", k) for k in range(len(items), len(line))]
    rows = [(names[k], who, v) for k, v in enumerate(line) if cell(v) is not None]
    if not rows:
        raise ExcelError("#DIV/0!", f"the {who}'s range holds no label")
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


@worksheet(
    counts=False, data=DOC_HUMANS, model=DOC_MODEL, epsilon=DOC_EPSILON, scoring=DOC_SCORING, q=DOC_Q,
    min_items=DOC_MIN_ITEMS,
)  # fmt: skip
def ALT_TEST(data, model=None, epsilon=None, scoring=None, q=None, min_items=None, layout=None, headers=None):
    """The Alternative Annotator Test (Calderon, Reichart & Dror 2025): can the model replace the annotators?
    Spills 8 rows x 2 columns: the verdict, the winning rate, the advantage probability, the humans tested and
    rejected, the items, epsilon and the humans left out."""
    if model is None:
        raise ExcelError("#VALUE!", "give the model's labels: ALT_TEST(humans, model, epsilon)")
    passed_on(epsilon, "epsilon")
    if cell(epsilon) is None:
        raise ExcelError("#VALUE!", "give epsilon: 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers")
    eps = fraction(epsilon, "epsilon", 0.0)
    sc = option(scoring, "scoring", ("accuracy", "neg_rmse"), "accuracy")
    level = fraction(q, "q", 0.05, low_open=True)
    if level >= 1:
        raise ExcelError("#VALUE!", f"q must be a number between 0 and 1; got {q!r}")
    k = whole(min_items, "min_items", 2) or 30
    humans, items, _ = read(data, layout, headers, allow_counts=False)
    res = ie.alt_test(humans, _models(_line(model, "model"), items, "model"), epsilon=eps, scoring=sc, q=level,
                      min_items=k)  # fmt: skip
    row = res.models.iloc[0]
    tested = int(row["n_humans"])
    verdict = "undefined" if tested == 0 else ("PASSED" if row["passed"] else "FAILED")
    return [
        ["Verdict", verdict],
        ["Winning rate", out(row["omega"])],
        ["Advantage probability", out(row["rho"])],
        ["Humans tested", tested],
        ["Humans rejected", int(row["n_rejected"])],
        ["Items", int(row["n_items"])],
        ["Epsilon", eps],
        [f"Humans with < {k} items", len(res.left_out)],
    ]


@worksheet(counts=False, data=DOC_HUMANS, judge=DOC_MODEL, positive=DOC_POSITIVE, confidence=DOC_CONFIDENCE)
def JUDGE_ACCURACY(data, judge=None, positive=None, confidence=None, layout=None, headers=None):
    """A judge's rate of a label corrected for its errors on the human-labelled items (Rogan-Gladen, with Lee et
    al.'s 2025 interval; a matrix inversion with more than two labels). Spills 10 rows x 2 columns."""
    if judge is None:
        raise ExcelError("#VALUE!", "give the judge's labels: JUDGE_ACCURACY(humans, judge, positive)")
    passed_on(positive, "positive")
    pos = cell(positive)
    if pos is None:
        raise ExcelError("#VALUE!", 'give the positive label: JUDGE_ACCURACY(humans, judge, "correct")')
    conf = confidence_option(confidence)
    humans, items, _ = read(data, layout, headers, allow_counts=False)
    res = ie.judge_accuracy(humans, _models(_line(judge, "judge"), items, "judge"), positive=pos, confidence=conf)
    row = res.table.iloc[0]
    pct = f"{conf * 100:g}%"
    return [
        [f"Corrected rate of {row['positive']}", out(row["corrected"])],
        [f"Lower {pct}", out(row["lower"])],
        [f"Upper {pct}", out(row["upper"])],
        ["Judged rate", out(row["raw"])],
        ["Specificity", out(row["specificity"])],
        ["Sensitivity", out(row["sensitivity"])],
        ["Calibration items", int(row["n_calibration"])],
        ["Other items", int(row["n_test"])],
        ["Method", "Rogan-Gladen, Lee et al." if row["method"] == "rogan_gladen" else "confusion matrix, bootstrap"],
        ["Reason", row["reason"] or "-"],
    ]
