"""=UALPHA(range, [begin], [length]) (iaa_engine/excel/_spans.py) through xlwings's own Office.js call path.

As tests/test_excel_addin.py: every call goes through ``xlwings.server.custom_functions_call`` with the payload
Excel's Office.js client sends (one 2-D list per argument, null for an omitted one), numbers as floats. Expected
values are ``iaa_engine.unitizing_alpha`` on the same spans (whose own tests check it against DKPro Agreement and
exact fractions), and Krippendorff's (2004, p. 254) worked example.

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


def load_addin():
    excel = importlib.import_module("iaa_engine.excel")
    if not all(hasattr(getattr(excel, name), "__xlfunc__") for name in excel.__all__):
        for module in ("_worksheet", "_functions", "_compare", "_judges", "_plan", "_rankings", "_spans"):
            importlib.reload(importlib.import_module(f"iaa_engine.excel.{module}"))
        importlib.reload(excel)
    spec = importlib.util.spec_from_file_location("iaa_functions_spans_under_test", ADDIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


addin = load_addin()

VALUE = {"type": "Error", "errorType": "Value"}
DIV0 = {"type": "Error", "errorType": "Div0"}
NA = {"type": "Error", "errorType": "NotAvailable"}

# Krippendorff (2004), Content Analysis 2nd ed., p. 254: observers i and j, categories c and k, the continuum from
# 150 of length 300. He prints alpha_U = 0.8591; the exact value is 0.858667... (tests/test_unitizing.py checks it
# in exact fractions on the definition), 0.8587 to four places.
K2004 = [
    ("i", 225, 295, "c"),
    ("i", 370, 400, "c"),
    ("j", 220, 300, "c"),
    ("j", 355, 375, "c"),
    ("j", 400, 420, "c"),
    ("i", 180, 240, "k"),
    ("i", 300, 350, "k"),
    ("j", 180, 240, "k"),
    ("j", 300, 350, "k"),
]
HEAD = ["annotator", "start", "end", "label"]


def sheet(rows, head=HEAD):
    """A range as Office.js sends it: the header row, then numbers as floats."""
    return [list(head)] + [[float(v) if isinstance(v, int) else v for v in r] for r in rows]


def call(*args):
    payload = {
        "func_name": "UALPHA",
        "args": [None if a is None else (a if isinstance(a, list) else [[a]]) for a in args],
        "caller_address": "Sheet1!B2",
        "version": xw.__version__,
        "runtime": "1.4",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the add-in must not leak warnings either
        out = asyncio.run(server.custom_functions_call(payload, addin))
    assert len(out) == 1 and len(out[0]) == 1, out
    return out[0][0]


def core(rows, **kw):
    frame = pd.DataFrame(rows, columns=HEAD if len(rows[0]) == 4 else [*HEAD, "document"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ie.unitizing_alpha(frame, **kw).estimate


def test_registered_with_help_for_every_argument():
    meta = {f["name"]: f for f in server.custom_functions_meta(addin)["functions"]}
    f = meta["UALPHA"]
    assert [p["name"] for p in f["parameters"]] == ["data", "begin", "length"]
    assert "unitizing alpha" in f["description"]
    assert all(p["description"] and not p["description"].startswith("Positional") for p in f["parameters"])
    assert [bool(p.get("optional")) for p in f["parameters"]] == [False, True, True]


def test_krippendorff_2004_example():
    got = call(sheet(K2004), 150.0, 300.0)
    assert got == pytest.approx(core(K2004, continuum=(150, 300)), abs=1e-15)
    assert round(got, 4) == 0.8587  # printed 0.8591 in the book (rounded intermediate values)


def test_columns_found_by_name_in_any_order_with_blank_rows_and_extra_columns():
    head = ["Label", "note", "END", "Start", "Annotator"]
    rows = [[r[3], "x", r[2], r[1], r[0]] for r in K2004]
    rows.insert(3, [None] * 5)  # a blank row inside the table
    rows.append(["", None, "", None, ""])  # and one at its end
    assert call(sheet(rows, head), 150.0, 300.0) == call(sheet(K2004), 150.0, 300.0)


def test_length_alone_begins_at_zero_and_no_continuum_is_the_cores_default():
    shifted = [(a, s - 150, e - 150, lab) for a, s, e, lab in K2004]
    assert call(sheet(shifted), None, 300.0) == pytest.approx(call(sheet(K2004), 150.0, 300.0), abs=1e-15)
    assert call(sheet(K2004)) == pytest.approx(core(K2004), abs=1e-15)  # first start 180 to last end 420
    assert call(sheet(K2004)) != pytest.approx(core(K2004, continuum=(150, 300)))


def test_documents_with_text_ids_and_numeric_annotators():
    rows = [
        (1, 0, 5, "PER", "007"),
        (2, 0, 5, "PER", "007"),
        (1, 8, 12, "ORG", "007"),
        (2, 9, 12, "ORG", "007"),
        (1, 2, 6, "PER", "7"),
        (2, 3, 6, "PER", "7"),
        (2, 10, 14, "LOC", "7"),
    ]
    got = call(sheet(rows, [*HEAD, "document"]), 0.0, 20.0)
    assert got == pytest.approx(core(rows, continuum=(0, 20)), abs=1e-15)
    # "007" and "7" are two documents: read as the number 7 both, annotator 1's PER spans [0, 5) and [2, 6) would
    # overlap, which the core refuses (#VALUE!)
    assert isinstance(got, float)
    with pytest.raises(ValueError, match="overlap"):
        core([r[:4] + ("7",) for r in rows], continuum=(0, 20))


@pytest.mark.parametrize(
    "rng,args,error",
    [
        (sheet(K2004, ["who", "start", "end", "label"]), (150.0, 300.0), VALUE),  # no annotator column
        (sheet([("i", 10, 5, "c"), ("j", 1, 4, "c")]), (0.0, 20.0), VALUE),  # end before start
        (sheet([("i", "ten", 15, "c"), ("j", 1, 4, "c")]), (0.0, 20.0), VALUE),  # not a number
        (sheet([("i", 0, 5, "c"), ("i", 3, 8, "c"), ("j", 1, 4, "c")]), (0.0, 20.0), VALUE),  # overlapping
        (sheet([("i", 0, 25, "c"), ("j", 1, 4, "c")]), (0.0, 20.0), VALUE),  # outside the continuum
        (sheet([(None, 0, 5, "c"), ("j", 1, 4, "c")]), (0.0, 20.0), VALUE),  # annotator missing
        (sheet(K2004), (150.0, None), VALUE),  # begin without length
        (sheet(K2004), (None, -3.0), VALUE),  # negative length
        (sheet(K2004), ("abc", 300.0), VALUE),  # begin not a number
        (sheet([("i", 0, 5, "c")]), (0.0, 20.0), DIV0),  # one annotator: undefined
        ([HEAD], (0.0, 20.0), DIV0),  # headers only
        ([[None]], (), DIV0),  # empty range
    ],
)
def test_bad_input_is_an_excel_error_value(rng, args, error):
    assert call(rng, *args) == error


def test_an_error_cell_in_the_range_is_passed_on():
    rng = sheet(K2004)
    rng[2][1] = {"type": "Error", "basicValue": "#N/A", "errorType": "NotAvailable"}
    assert call(rng, 150.0, 300.0) == NA
