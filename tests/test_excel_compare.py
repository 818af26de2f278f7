"""=IAA_COMPARE(range_a, range_b, ...) (iaa_engine/excel/_compare.py) through xlwings's own Office.js call path.

As tests/test_excel_addin.py: every call goes through ``xlwings.server.custom_functions_call`` with the payload
Excel's Office.js client sends (one 2-D list per argument, null for an omitted one), numbers as floats. Expected
values: the README of Gwet's pairedCAC 1.0 (https://github.com/kgwet/pairedCAC, commit ca6431c) on its ratings1
and ratings2 (tests/data/pairedcac/), and ``iaa_engine.compare`` (tests/test_compare.py checks it further).

``XLWINGS_LICENSE_KEY=noncommercial`` (PolyForm Noncommercial terms of ``xlwings.server``) is set for this test
module only; the add-in itself uses only xlwings's BSD-licensed decorators.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import os
import warnings
from pathlib import Path

import pandas as pd
import pytest

os.environ["XLWINGS_ON_SERVER"] = "true"
os.environ.setdefault("XLWINGS_LICENSE_KEY", "noncommercial")

xw = pytest.importorskip("xlwings")
if not getattr(xw, "on_server", False):  # xlwings was imported earlier without server mode: re-read the env
    xw = importlib.reload(xw)
server = pytest.importorskip("xlwings.server")

import iaa_engine as ie  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ADDIN = ROOT / "excel_addin" / "iaa_functions.py"
DATA = Path(__file__).parent / "data" / "pairedcac"

VALUE = {"type": "Error", "errorType": "Value"}
DIV0 = {"type": "Error", "errorType": "Div0"}


def load_addin():
    excel = importlib.import_module("iaa_engine.excel")
    if not all(hasattr(getattr(excel, name), "__xlfunc__") for name in excel.__all__):
        for module in ("_worksheet", "_functions", "_compare", "_judges", "_plan", "_rankings", "_spans"):
            importlib.reload(importlib.import_module(f"iaa_engine.excel.{module}"))
        importlib.reload(excel)
    spec = importlib.util.spec_from_file_location("iaa_functions_compare_under_test", ADDIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


addin = load_addin()


def grid(name: str) -> list[list[float]]:
    """pairedCAC's data set as a 15 x 4 range (one subject per row, one rater per column), numbers as floats."""
    return [[float(v) for v in row] for row in pd.read_csv(DATA / f"{name}.csv").to_numpy()]


A, B = grid("ratings1"), grid("ratings2")


def call(*args):
    payload = {
        "func_name": "IAA_COMPARE",
        "args": [None if a is None else (a if isinstance(a, list) else [[a]]) for a in args],
        "caller_address": "Sheet1!B2",
        "version": xw.__version__,
        "runtime": "1.4",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the add-in must not leak warnings either
        return asyncio.run(server.custom_functions_call(payload, addin))


def block(*args) -> dict:
    out = call(*args)
    assert len(out) == 10 and all(len(row) == 2 for row in out), out
    return {row[0]: row[1] for row in out}


def test_registered_with_help_for_every_argument():
    meta = {f["name"]: f for f in server.custom_functions_meta(addin)["functions"]}
    f = meta["IAA_COMPARE"]
    names = [p["name"] for p in f["parameters"]]
    assert names[:4] == ["data", "data_b", "metric", "weights"]
    assert "B - A" in f["description"]
    assert all(p["description"] and not p["description"].startswith("Positional") for p in f["parameters"])


# pairedCAC README: coeff1, coeff2, coeff.diff, std.err, t.stat, p.value as printed
README = {
    "fleiss_kappa": (0.3856655, 0.7248495, 0.339184, 0.1574322, 2.154477, 0.04910569),
    "gwet_ac1": (0.4069193, 0.737382, 0.3304628, 0.1452689, 2.274835, 0.03917311),
    "multi_kappa": (0.3932584, 0.7250859, 0.3318275, 0.1527202, 2.172781, 0.04745695),
    "krippendorff_alpha": (0.3959044, 0.7294354, 0.3335309, 0.1548083, 2.154477, 0.04910569),
    "brennan_prediger": (0.4, 0.7333333, 0.3333333, 0.1477342, 2.256304, 0.04056859),
    "percent_agreement_weighted": (0.6, 0.8222222, 0.2222222, 0.09848947, 2.256304, 0.04056859),
}


@pytest.mark.parametrize("metric", sorted(README))
def test_pairedcac_readme_table_on_a_worksheet(metric):
    got = block(A, B, metric.upper())
    name = next(k for k in got if k.startswith("Difference"))
    values = (got["A"], got["B"], got[name], got["Standard error"], got["t (14 df)"], got["p-value"])
    for value, shown in zip(values, README[metric]):
        places = len(repr(shown).split(".")[1])
        assert round(value, places) == pytest.approx(shown, abs=1e-12)
    assert got["Items"] == 15 and got["Test"] == "paired on 15 shared items"


def test_weights_paired_and_confidence_equal_the_core():
    a = ie.Annotations.from_wide(pd.DataFrame(A), annotators_as="columns")
    b = ie.Annotations.from_wide(pd.DataFrame(B), annotators_as="columns")
    core = ie.compare(a, b, metric="gwet_ac1", weights="quadratic", paired=False, confidence=0.9)
    got = block(A, B, "gwet_ac1", "quadratic", False, 0.9)
    assert got["Difference B - A (gwet_ac1[quadratic])"] == core.estimate
    assert (got["Standard error"], got["Lower 90%"], got["z"]) == (core.se, core.lower, core.statistic)
    assert got["Test"] == "independent" and got["Items"] == 30
    assert block(A, B, None, None, "no")["Test"] == "independent"


def test_a_range_against_itself_differs_by_zero():
    got = block(A, A)
    assert got["Difference B - A (fleiss_kappa)"] == 0 and got["p-value"] == 1


def test_bad_input_is_an_excel_error_value():
    assert call(A) == [[VALUE]]  # no second range
    assert call(A, B, "icc") == [[VALUE]]
    assert call(A, B, "fleiss_kappa", "quad") == [[VALUE]]
    assert call(A, B, None, None, "maybe") == [[VALUE]]
    assert call(A, B, None, None, None, 95.0) == [[VALUE]]
    assert call(A, B, "cohen_kappa") == [[VALUE]]  # four annotators per range
    assert call(A, B, "krippendorff_alpha", "linear") == [[VALUE]]  # alpha weighs by its level


def test_an_undefined_coefficient_is_div0():
    constant = [[1.0] * 4 for _ in range(15)]
    got = call(A, constant)
    assert got[0][1] == DIV0
