"""=KENDALL_W(range, [correct], [headers]) and =KENDALL_W_TEST (iaa_engine/excel/_rankings.py) through xlwings's own
Office.js call path, as tests/test_excel_spans.py calls UALPHA: one 2-D list per argument, null for an omitted one,
numbers as floats. Expected values: R irr's ``kendall`` on its ``anxiety`` data (tests/test_rankings.py checks
``ie.kendall_w`` against irr's code and DescTools' printed Wt = 0.5396569), and the core on the same ranks.

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
from tests.test_rankings import ANXIETY  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ADDIN = ROOT / "excel_addin" / "iaa_functions.py"


def load_addin():
    excel = importlib.import_module("iaa_engine.excel")
    if not all(hasattr(getattr(excel, name), "__xlfunc__") for name in excel.__all__):
        for module in ("_worksheet", "_functions", "_compare", "_judges", "_plan", "_rankings", "_spans"):
            importlib.reload(importlib.import_module(f"iaa_engine.excel.{module}"))
        importlib.reload(excel)
    spec = importlib.util.spec_from_file_location("iaa_functions_rankings_under_test", ADDIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


addin = load_addin()

VALUE = {"type": "Error", "errorType": "Value"}
DIV0 = {"type": "Error", "errorType": "Div0"}

SHEET = [[float(v) for v in row] for row in ANXIETY]  # 20 items (rows) x 3 judges (columns)


def call(func, *args):
    payload = {
        "func_name": func,
        "args": [None if a is None else (a if isinstance(a, list) else [[a]]) for a in args],
        "caller_address": "Sheet1!B2",
        "version": xw.__version__,
        "runtime": "1.4",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the add-in must not leak warnings either
        return asyncio.run(server.custom_functions_call(payload, addin))


def one(func, *args):
    out = call(func, *args)
    assert len(out) == 1 and len(out[0]) == 1, out
    return out[0][0]


def test_registered_with_help_for_every_argument():
    meta = {f["name"]: f for f in server.custom_functions_meta(addin)["functions"]}
    for name in ("KENDALL_W", "KENDALL_W_TEST"):
        f = meta[name]
        assert [p["name"] for p in f["parameters"]] == ["data", "correct", "headers"]
        assert "Kendall" in f["description"]
        assert all(p["description"] and not p["description"].startswith("Positional") for p in f["parameters"])


def test_anxiety_with_and_without_the_tie_correction():
    assert round(one("KENDALL_W", SHEET), 7) == 0.5396569  # irr: kendall(anxiety, TRUE)
    assert one("KENDALL_W", SHEET, True) == pytest.approx(ie.kendall_w(ANXIETY).w, abs=1e-15)
    assert one("KENDALL_W", SHEET, False) == pytest.approx(ie.kendall_w(ANXIETY, correct=False).w, abs=1e-15)


def test_the_test_table_spills():
    table = call("KENDALL_W_TEST", SHEET)
    core = ie.kendall_w(ANXIETY)
    assert [r[0] for r in table] == ["Wt", "Chi-square", "df", "p-value", "Items", "Judges"]
    assert table[0][1] == pytest.approx(core.w, abs=1e-15)
    assert table[1][1] == pytest.approx(core.statistic, abs=1e-12)
    assert table[3][1] == pytest.approx(core.p_value, abs=1e-15)
    assert [table[2][1], table[4][1], table[5][1]] == [19, 20, 3]
    assert call("KENDALL_W_TEST", SHEET, False)[0][0] == "W"


def test_headers_and_blank_cells():
    named = [["", "ann", "bob", "cy"]] + [[f"s{i}", *row] for i, row in enumerate(SHEET)]
    assert one("KENDALL_W", named, None, True) == pytest.approx(one("KENDALL_W", SHEET), abs=1e-15)
    holed = [list(r) for r in SHEET]
    holed[4][1] = None  # a blank cell: the row is left out, as irr's na.omit
    assert one("KENDALL_W", holed) == pytest.approx(ie.kendall_w([r for i, r in enumerate(ANXIETY) if i != 4]).w)


def test_bad_input_is_an_error_value():
    assert one("KENDALL_W", [["a", "b"], ["c", "d"], ["e", "f"]]) == VALUE  # text is not a rank
    assert one("KENDALL_W", SHEET, "maybe") == VALUE
    assert one("KENDALL_W", [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]) == DIV0  # every judge ties every item
