"""=IAA_SAMPLE_SIZE(...) and =IAA_SAMPLE_SIZE_SIM(range, ...) (iaa_engine/excel/_plan.py) through xlwings's own
Office.js call path, as tests/test_excel_compare.py: the payload Excel's client sends (one 2-D list per argument,
null for an omitted one), numbers as floats. Expected values: the R packages' documented examples that
tests/test_plan.py reproduces (kappaSize 1.2, irr 0.84.1, ICC.Sample.Size 1.1 run under R 4.2.2; Bonett 2002;
Krippendorff 2019), and ``iaa_engine.plan`` / ``plan_simulation`` themselves.

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
VALUE = {"type": "Error", "errorType": "Value"}
NA = {"type": "Error", "errorType": "NotAvailable"}


def load_addin():
    excel = importlib.import_module("iaa_engine.excel")
    if not all(hasattr(getattr(excel, name), "__xlfunc__") for name in excel.__all__):
        for module in ("_worksheet", "_functions", "_compare", "_judges", "_plan", "_rankings", "_spans"):
            importlib.reload(importlib.import_module(f"iaa_engine.excel.{module}"))
        importlib.reload(excel)
    spec = importlib.util.spec_from_file_location("iaa_functions_plan_under_test", ADDIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


addin = load_addin()


def call(name: str, *args):
    payload = {
        "func_name": name,
        "args": [None if a is None else (a if isinstance(a, list) else [[a]]) for a in args],
        "caller_address": "Sheet1!B2",
        "version": xw.__version__,
        "runtime": "1.4",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the add-in must not leak warnings either
        return asyncio.run(server.custom_functions_call(payload, addin))


def block(name: str, *args) -> dict:
    out = call(name, *args)
    assert len(out) == 7 and all(len(row) == 2 for row in out), out
    return {row[0]: row[1] for row in out}


def test_registered_with_help_for_every_argument():
    meta = {f["name"]: f for f in server.custom_functions_meta(addin)["functions"]}
    for name, first in (("IAA_SAMPLE_SIZE", ["coefficient", "method", "expected"]), ("IAA_SAMPLE_SIZE_SIM", ["data"])):
        f = meta[name]
        names = [p["name"] for p in f["parameters"]]
        assert names[: len(first)] == first
        assert all(p["description"] and not p["description"].startswith("Positional") for p in f["parameters"])


def test_kappasize_power_example_on_a_worksheet():
    """PowerBinary(kappa0=0.4, kappa1=0.6, props=0.30): 191 (raw 190.456, kappaSize 1.2 under R 4.2.2)."""
    got = block("IAA_SAMPLE_SIZE", "kappa", "power", 0.6, 0.4, 0.3)
    assert got["Items (kappa by power)"] == 191
    assert got["Items (raw)"] == pytest.approx(190.456402398022, rel=2e-5)
    assert got["Power at n"] >= 0.8 and got["Interval width at n"] == ""  # not a quantity of this calculator
    assert got["Source"].startswith("Donner")


def test_a_range_of_proportions_and_the_other_calculators():
    """Power3Cats's example (a row of three proportions): 135; CI4Cats's (a column of four, limits): 174; Bonett's
    example: 20; Krippendorff's minimum: 139; Flack (irr N2.cohen.kappa's example): 101; Cantor: 96."""
    assert block("IAA_SAMPLE_SIZE", "kappa", None, 0.6, 0.4, [[0.3, 0.6, 0.1]])["Items (kappa by power)"] == 135
    ci = block("IAA_SAMPLE_SIZE", "kappa", "width", 0.4, None, [[0.3], [0.2], [0.2], [0.3]], None, None, None, None,
               None, None, None, 0.3, 0.5)  # fmt: skip
    assert ci["Items (kappa by width)"] == 174 and ci["Lower limit at n"] >= 0.3
    assert block("IAA_SAMPLE_SIZE", "icc", "width", 0.85, None, None, 4, 0.2)["Items (icc by width)"] == 20
    assert block("IAA_SAMPLE_SIZE", "alpha", None, None, 0.8, 0.25)["Items (alpha by minimum)"] == 139
    flack = block("IAA_SAMPLE_SIZE", "kappa", "power", 0.6, 0.4, [[0.2, 0.25, 0.55]], None, None, None, None, None,
                  None, "flack")  # fmt: skip
    assert flack["Items (kappa by power)"] == 101
    cantor = block("IAA_SAMPLE_SIZE", "kappa", "power", 0.7, 0.85, 0.5, None, None, None, None, None, None, "cantor")
    assert cantor["Items (kappa by power)"] == 96
    # issue 32: which way the test goes, in the Source cell (the spill keeps its 7 rows)
    assert cantor["Source"] == "Cantor (1996); testing for kappa below 0.85 (one-sided; the planned value is 0.7)"


def test_equals_the_core_with_every_option():
    core = ie.plan("icc", null=0.6, expected=0.8, raters=3, power=0.9, significance=0.01, sides=1)
    got = block("IAA_SAMPLE_SIZE", "ICC", "power", 0.8, 0.6, None, 3, None, 0.9, 0.01, None, None, None, None, None, 1)
    assert got["Items (icc by power)"] == core.n and got["Items (raw)"] == core.n_raw
    assert got["Power at n"] == core.power
    fixed = ie.plan("kappa", method="fixed_n", expected=0.7, n_items=100, prevalence=0.5, raters=4)
    got = block("IAA_SAMPLE_SIZE", "kappa", "fixed_n", 0.7, None, 0.5, 4, None, None, None, None, 100)
    assert got["Lower limit at n"] == fixed.lower  # kappaSize FixedNBinary's example: 0.61 on its 0.001 grid


def test_simulation_from_a_pilot_range_equals_the_core():
    classroom = [[1.0, 1, 2, 2, 3, 1, 1, 2, 3, 3, 1, 2, 1, 1, 2], [1.0, 2, 2, 2, 3, 1, 1, 3, 3, 3, 1, 2, 2, 1, 2]]
    pilot = ie.Annotations.from_wide(classroom, annotators_as="rows")
    core = ie.plan_simulation(pilot, width=0.3, n_rep=200, seed=3)
    got = block("IAA_SAMPLE_SIZE_SIM", classroom, 0.3, None, None, None, None, 200, 3)
    assert got["Items (krippendorff_alpha by simulation)"] == core.n
    assert got["Items (raw)"] == core.n_raw and got["Monte-Carlo SE of n"] == core.mc_se
    assert got["Interval width at n"] == core.width and got["Power at n"] == ""


@pytest.mark.parametrize(
    "args",
    [
        ("IAA_SAMPLE_SIZE", "kapa", "power", 0.6, 0.4, 0.3),  # no such coefficient
        ("IAA_SAMPLE_SIZE", "kappa", "power", 0.6, 0.4),  # no prevalence
        ("IAA_SAMPLE_SIZE", "kappa", "power", 0.6, 0.4, [[0.5, 0.6]]),  # proportions that do not sum to 1
        ("IAA_SAMPLE_SIZE", "kappa", "power", "high", 0.4, 0.3),  # text for a number
        ("IAA_SAMPLE_SIZE", "icc", "minimum", 0.8, 0.6),  # a method the ICC has not
        ("IAA_SAMPLE_SIZE", "icc", "power", 0.8, 0.6, None, 1),  # one rater
        ("IAA_SAMPLE_SIZE", "kappa", "power", 0.6, 0.4, 0.3, None, None, 0.0),  # power 0 is not "the default"
        ("IAA_SAMPLE_SIZE_SIM", [[1.0, 2.0], [1.0, 2.0]], 0.2, "cohen_kappa"),  # not simulated
    ],
)
def test_bad_input_is_an_excel_error_value(args):
    assert call(*args) == [[VALUE]]


def test_an_error_cell_is_passed_on():
    assert call("IAA_SAMPLE_SIZE", "kappa", "power", 0.6, "#N/A", 0.3) == [[NA]]
