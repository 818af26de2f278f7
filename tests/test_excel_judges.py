"""=ALT_TEST(humans, model, epsilon) and =JUDGE_ACCURACY(humans, judge, positive) (iaa_engine/excel/_judges.py)
through xlwings's own Office.js call path, as tests/test_excel_compare.py does: the spilled verdict equals the core
(``ie.alt_test``, ``ie.judge_accuracy``; their own tests reproduce the authors' code), and bad input is an Excel
error value. ``XLWINGS_LICENSE_KEY=noncommercial`` is set for this test module only."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

os.environ["XLWINGS_ON_SERVER"] = "true"
os.environ.setdefault("XLWINGS_LICENSE_KEY", "noncommercial")

xw = pytest.importorskip("xlwings")
if not getattr(xw, "on_server", False):
    xw = importlib.reload(xw)
server = pytest.importorskip("xlwings.server")

import iaa_engine as ie  # noqa: E402

ADDIN = Path(__file__).resolve().parents[1] / "excel_addin" / "iaa_functions.py"
VALUE = {"type": "Error", "errorType": "Value"}


def load_addin():
    excel = importlib.import_module("iaa_engine.excel")
    if not all(hasattr(getattr(excel, name), "__xlfunc__") for name in excel.__all__):
        for module in ("_worksheet", "_functions", "_compare", "_judges", "_plan", "_rankings", "_spans"):
            importlib.reload(importlib.import_module(f"iaa_engine.excel.{module}"))  # registered anew
        importlib.reload(excel)
    spec = importlib.util.spec_from_file_location("iaa_functions_judges_under_test", ADDIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


addin = load_addin()


def call(name, *args):
    payload = {
        "func_name": name,
        "args": [None if a is None else (a if isinstance(a, list) else [[a]]) for a in args],
        "caller_address": "Sheet1!B2",
        "version": xw.__version__,
        "runtime": "1.4",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return asyncio.run(server.custom_functions_call(payload, addin))


def block(name, *args) -> dict:
    return {row[0]: row[1] for row in call(name, *args)}


def _sheet(seed=0, n_items=60):
    """Items in rows, 4 humans in columns (one blank per row: a sparse design), and a model column."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 4, n_items)
    grid = [[float(t if rng.random() < 0.75 else rng.integers(1, 4)) for _ in range(4)] for t in truth]
    for i, row in enumerate(grid):
        row[i % 4] = None
    model = [[float(t if rng.random() < 0.8 else rng.integers(1, 4))] for t in truth]
    return grid, model


def test_alt_test_spills_the_core_verdict():
    grid, model = _sheet()
    humans = ie.Annotations.from_wide(pd.DataFrame(grid, dtype=object, index=range(1, 61)), annotators_as="columns")
    m = pd.DataFrame({"item": range(1, 61), "annotator": "model", "label": [r[0] for r in model]})
    core = ie.alt_test(humans, m, epsilon=0.15, min_items=20).models.iloc[0]
    got = block("ALT_TEST", grid, model, 0.15, None, None, 20)
    assert got["Verdict"] == ("PASSED" if core["passed"] else "FAILED")
    assert got["Winning rate"] == core["omega"] and got["Advantage probability"] == core["rho"]
    assert (got["Humans tested"], got["Items"], got["Epsilon"]) == (4, 60, 0.15)
    # each human labelled 45 items: with min_items 50 no human is tested and the verdict is undefined
    none = block("ALT_TEST", grid, model, 0.15, None, None, 50)
    assert none["Verdict"] == "undefined" and none["Winning rate"] == {"type": "Error", "errorType": "Div0"}
    assert none["Humans with < 50 items"] == 4
    # the model as a row instead of a column reads the same
    assert block("ALT_TEST", grid, [[r[0] for r in model]], 0.15, None, None, 20) == got


def test_judge_accuracy_spills_the_core_estimate():
    rng = np.random.default_rng(2)
    truth = rng.random(300) < 0.3
    said = np.where(truth, rng.random(300) < 0.9, rng.random(300) < 0.15)
    humans = [["pass" if t else "fail"] if i < 120 else [None] for i, t in enumerate(truth)]
    judge = [["pass" if s else "fail"] for s in said]
    h = pd.DataFrame({"item": range(1, 121), "annotator": 1, "label": ["pass" if t else "fail" for t in truth[:120]]})
    j = pd.DataFrame({"item": range(1, 301), "annotator": "judge", "label": [r[0] for r in judge]})
    core = ie.judge_accuracy(h, j, positive="pass").table.iloc[0]
    got = block("JUDGE_ACCURACY", humans, judge, "pass")
    assert got["Corrected rate of pass"] == core["corrected"]
    assert (got["Lower 95%"], got["Upper 95%"]) == (core["lower"], core["upper"])
    assert (got["Calibration items"], got["Other items"]) == (120, 180)
    assert got["Specificity"] == core["specificity"] and got["Reason"] == "-"


def test_a_judge_no_better_than_chance_is_div0_with_the_reason():
    humans = [["pass"], ["fail"], ["pass"], ["fail"], [None], [None]]
    judge = [["fail"], ["pass"], ["fail"], ["pass"], ["pass"], ["fail"]]
    got = block("JUDGE_ACCURACY", humans, judge, "pass")
    assert got["Corrected rate of pass"] == {"type": "Error", "errorType": "Div0"}
    assert "no better than chance" in got["Reason"]


def test_bad_input_is_an_excel_error_value():
    grid, model = _sheet()
    assert call("ALT_TEST", grid) == [[VALUE]]  # no model
    assert call("ALT_TEST", grid, model) == [[VALUE]]  # no epsilon
    assert call("ALT_TEST", grid, model, 1.5) == [[VALUE]]
    assert call("ALT_TEST", grid, model, 0.1, "f1") == [[VALUE]]
    assert call("ALT_TEST", grid, [r + r for r in model], 0.1) == [[VALUE]]  # two columns
    assert call("JUDGE_ACCURACY", grid, model) == [[VALUE]]  # no positive
    assert call("JUDGE_ACCURACY", grid, model, "great") == [[VALUE]]
