"""The Excel add-in (excel_addin/iaa_functions.py) exercised through xlwings's own call path.

Every call goes through ``xlwings.server.custom_functions_call`` with the payload Excel's Office.js client sends
(one 2-D list per argument, null for an omitted argument), and the function metadata Excel registers comes from
``xlwings.server.custom_functions_meta`` (see shared/notes/excel.md). Expected values come from ``iaa_engine``
on the same data, and the worked numbers from the seeds they cite.

``XLWINGS_LICENSE_KEY=noncommercial`` (PolyForm Noncommercial terms of ``xlwings.server``) is set for this test
module only; the add-in itself uses only xlwings's BSD-licensed decorators.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
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
    """``excel_addin/iaa_functions.py``, which imports the functions of ``iaa_engine.excel``, decorated by the
    xlwings in server mode (reloaded if the package was imported before, when the decorators did nothing)."""
    excel = importlib.import_module("iaa_engine.excel")
    if not all(hasattr(getattr(excel, name), "__xlfunc__") for name in excel.__all__):
        for module in ("_worksheet", "_functions", "_compare", "_judges", "_plan", "_rankings", "_spans"):
            importlib.reload(importlib.import_module(f"iaa_engine.excel.{module}"))
        importlib.reload(excel)
    spec = importlib.util.spec_from_file_location("iaa_functions_under_test", ADDIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


addin = load_addin()
choices = importlib.import_module("iaa_engine.excel._range")  # the option choices the functions accept

# Seed 001, "Data": matrix A, 3 judges (rows) × 15 instances, categories 1-3. Excel sends numbers as floats.
MATRIX_A = [
    [1, 1, 1, 3, 3, 2, 3, 3, 1, 2, 2, 2, 1, 3, 1],
    [1, 2, 1, 2, 3, 2, 3, 3, 1, 1, 2, 2, 1, 3, 1],
    [2, 1, 1, 3, 3, 2, 3, 3, 2, 2, 2, 2, 2, 3, 1],
]
A = [[float(v) for v in row] for row in MATRIX_A]
A_T = [list(col) for col in zip(*A)]

# Seed 002, Tables 1-2: Labeler A and Reviewer on 8 spans; Prince of Denmark and 30557 have one label only.
SEED002 = [
    ["EVE", "PER", "PER", "PER", "YEAR", "YEAR", "ORG", "QTY"],
    ["TITLE", None, "PER", "PER", "YEAR", "YEAR", "PER", None],
]

DIV0 = {"type": "Error", "errorType": "Div0"}
VALUE = {"type": "Error", "errorType": "Value"}
NA = {"type": "Error", "errorType": "NotAvailable"}
NUM = {"type": "Error", "errorType": "Num"}


def excel_error(code: str) -> dict:
    """An error cell as Office.js sends it inside a range argument."""
    names = {"#N/A": "NotAvailable", "#DIV/0!": "Div0", "#VALUE!": "Value", "#REF!": "Ref", "#NUM!": "Num"}
    return {"type": "Error", "basicValue": code, "errorType": names[code]}


def call(func: str, *args):
    """Run a worksheet function exactly as Excel's Office.js client asks for it; returns the 2-D result."""
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


def value(func: str, *args):
    out = call(func, *args)
    assert len(out) == 1 and len(out[0]) == 1, out
    return out[0][0]


def core(fn, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        return fn(data, **kw)


@pytest.fixture(scope="module")
def classroom() -> ie.Annotations:
    return ie.Annotations.from_wide(MATRIX_A, annotators_as="rows")


# ----------------------------------------------------------------------------- metadata (function wizard)

FUNCTIONS = [
    "ALT_TEST",
    "ANNOTATORS",
    "ANNOTATOR_BIAS",
    "BCR_WEIGHTS",
    "COHEN",
    "COHEN_WEIGHTED",
    "CONFUSED_PAIRS",
    "DISAGREEMENTS",
    "FLEISS",
    "FLEISS_WEIGHTED",
    "GOLD",
    "GOLD_ACCURACY",
    "GWET_AC1",
    "GWET_WEIGHTED",
    "IAA_BENCHMARK",
    "IAA_COMPARE",
    "IAA_ESTIMATE",
    "IAA_REPORT",
    "IAA_SAMPLE_SIZE",
    "IAA_SAMPLE_SIZE_SIM",
    "INTRACLASS",
    "ITEM_AGREEMENT",
    "JUDGE_ACCURACY",
    "KALPHA",
    "KAPPA_MATRIX",
    "KENDALL_W",
    "KENDALL_W_TEST",
    "MULTIKAPPA",
    "PERCENT_AGREEMENT",
    "SCOTTPI",
    "SPA",
    "UALPHA",
]


def test_the_package_exports_every_registered_function_once():
    """The package's ``__init__`` only re-exports: its ``__all__`` is what the decorator registered, each once."""
    excel = importlib.import_module("iaa_engine.excel")
    registered = importlib.import_module("iaa_engine.excel._worksheet").FUNCTIONS
    assert sorted(excel.__all__) == sorted(registered) == FUNCTIONS
    assert len(set(excel.__all__)) == len(excel.__all__)


def test_metadata_registers_every_function_with_help():
    meta = server.custom_functions_meta(addin)
    by_name = {f["name"]: f for f in meta["functions"]}
    assert sorted(by_name) == FUNCTIONS
    for name, f in by_name.items():
        assert f["description"] and not f["description"].startswith("Python function"), name
        first = "coefficient" if name == "IAA_SAMPLE_SIZE" else "data"  # the one function without a rating range
        assert f["parameters"][0]["name"] == first and "optional" not in f["parameters"][0]
        for p in f["parameters"]:
            assert p["description"] and not p["description"].startswith("Positional argument"), (name, p)
        assert all(p.get("optional") for p in f["parameters"][1:]), name


# ----------------------------------------------------------------------------- values equal the core


SCALARS = [
    ("FLEISS", ie.fleiss_kappa),
    ("SPA", ie.spa),
    ("KALPHA", ie.krippendorff_alpha),
    ("MULTIKAPPA", ie.multi_kappa),
    ("ANNOTATOR_BIAS", ie.annotator_bias),
    ("PERCENT_AGREEMENT", ie.percent_agreement),
    ("GWET_AC1", ie.gwet_ac1),
]


@pytest.mark.parametrize("func,fn", SCALARS)
def test_scalar_functions_equal_core_on_seed001(func, fn, classroom):
    got = value(func, A)
    assert got == pytest.approx(fn(classroom), abs=1e-12)
    # the other orientation, named explicitly, gives the same value
    assert value(func, A_T, *([None] if func in ("SPA", "KALPHA") else []), "columns") == pytest.approx(got, abs=1e-12)


def test_seed001_worked_numbers_through_the_call_path(classroom):
    """Seed 001: κ_01 ≈ 0.698 (Cohen, annotators 0 and 1, here positions 1 and 2) and Fleiss κ ≈ 0.599."""
    assert round(value("COHEN", A, 1.0, 2.0), 3) == 0.698
    assert value("COHEN", A, 1.0, 2.0) == pytest.approx(ie.cohen_kappa(classroom, 0, 1), abs=1e-12)
    assert round(value("FLEISS", A), 3) == 0.599


def test_cohen_and_scott_every_pair(classroom):
    for a in range(3):
        for b in range(3):
            if a == b:
                continue
            assert value("COHEN", A, float(a + 1), float(b + 1)) == pytest.approx(ie.cohen_kappa(classroom, a, b))
            assert value("SCOTTPI", A, float(a + 1), float(b + 1)) == pytest.approx(ie.scott_pi(classroom, a, b))


def test_cohen_needs_two_names_with_three_annotators_and_defaults_with_two(classroom):
    assert value("COHEN", A) == VALUE  # three annotators: which two?
    assert value("COHEN", A, 1.0) == VALUE  # only one named
    assert value("COHEN", A[:2]) == pytest.approx(ie.cohen_kappa(classroom, 0, 1))
    assert value("COHEN", A, 1.0, 9.0) == NA  # no ninth annotator
    assert value("COHEN", A, 1.0, 1.0) == VALUE  # the same annotator twice


@pytest.mark.parametrize("scheme", ie.SPA_WEIGHTS)
def test_spa_every_scheme_on_a_sparse_matrix(scheme):
    sparse = [row[:] for row in A]
    for r, c in [(0, 1), (1, 4), (2, 7), (0, 10), (2, 12), (1, 13)]:
        sparse[r][c] = None
    sparse[2][3] = ""  # Office.js may send a blank as "" too
    expected = ie.spa(
        ie.Annotations.from_wide([[None if v in (None, "") else v for v in r] for r in sparse], annotators_as="rows"),
        weights=scheme,
    )
    assert value("SPA", sparse, scheme) == pytest.approx(expected, abs=1e-12)
    assert value("SPA", sparse, scheme.upper()) == pytest.approx(expected, abs=1e-12)  # names are case-blind


def test_kalpha_levels_and_seed002():
    """Seed 002, step 7: α = (0.6944 - 0.3055)/(1 - 0.3055) = 0.56 for Labeler A vs Reviewer."""
    got = value("KALPHA", SEED002)
    assert got == pytest.approx(
        ie.krippendorff_alpha(ie.Annotations.from_wide(SEED002, annotators_as="rows")), abs=1e-12
    )
    assert round(got, 2) == 0.56
    for level in ("ordinal", "interval", "ratio"):
        assert value("KALPHA", A, level) == pytest.approx(
            ie.krippendorff_alpha(ie.Annotations.from_wide(MATRIX_A, level=level, annotators_as="rows")), abs=1e-12
        )
    assert value("KALPHA", SEED002, "interval") == VALUE  # text labels have no interval distances


def test_kappa_matrix_spills_with_headers(classroom):
    out = call("KAPPA_MATRIX", A)
    m = ie.cohen_kappa_matrix(classroom).values
    assert out[0] == ["Cohen's kappa", 1, 2, 3]
    assert [r[0] for r in out[1:]] == [1, 2, 3]
    assert np.allclose(np.array([r[1:] for r in out[1:]], dtype=float), m, atol=1e-12)
    named = call(
        "KAPPA_MATRIX", [["", *[f"i{j}" for j in range(15)]]] + [[n, *r] for n, r in zip("xyz", A)], None, True
    )
    assert named[0][1:] == ["x", "y", "z"] and [r[0] for r in named[1:]] == ["x", "y", "z"]
    assert value("COHEN", [[n, *r] for n, r in zip("xyz", A)], "x", "y", None, "annotators") == pytest.approx(m[0, 1])


def test_item_agreement_spills_along_the_items(classroom):
    """Seed 001, Fleiss example: P_1 = (2² + 1² + 0² - 3)/6 = 0.33."""
    out = call("ITEM_AGREEMENT", A)
    assert len(out) == 1 and len(out[0]) == 15
    assert np.allclose(out[0], ie.item_agreement(classroom).to_numpy(), atol=1e-12)
    assert round(out[0][0], 2) == 0.33
    col = call("ITEM_AGREEMENT", A_T, "columns")
    assert [r[0] for r in col] == out[0]
    gappy = [row[:] for row in A]
    for r in range(3):
        gappy[r][4] = None  # item 5 blank for everyone
    gappy[0][6] = gappy[1][6] = None  # item 7 has one annotation
    got = call("ITEM_AGREEMENT", gappy)[0]
    assert got[4] == DIV0 and got[6] == DIV0 and len(got) == 15
    assert got[0] == pytest.approx(out[0][0])


def test_gold_rules_keep_ties(classroom):
    for rule in ("majority", "diff", "rat", "com", "inv"):
        g = ie.gold_standard(classroom, rule=rule).per_item(sep="|")
        expected = [int(x) if str(x).isdigit() else x for x in g["gold"]]
        assert call("GOLD", A, rule)[0] == expected, rule
    tie = [[1.0, 2.0, 3.0], [2.0, 2.0, 1.0]]
    assert call("GOLD", tie)[0] == ["1|2", 2, "1|3"]
    assert call("GOLD", tie, None, None, None, " or ")[0] == ["1 or 2", 2, "1 or 3"]
    # an item without annotations is #N/A; "rows" said explicitly (the 2 × 2 range is square). A blank item first
    # keeps its place; a blank item last is trimmed away with the unused part of the range.
    assert call("GOLD", [[None, 1.0], [None, 1.0]], None, "rows")[0] == [NA, 1]
    assert call("GOLD", [[1.0, None], [1.0, None]], None, "rows") == [[1]]


def test_bcr_weights_spill_seed001():
    """Seed 001, "Annotation aggregation": w_11 = Freq(1)/Freq_1(1) = (15/45)/(6/15) = 0.8333 (printed 0.832)."""
    out = call("BCR_WEIGHTS", A, "rat")
    assert out[0] == ["w (rat)", 1, 2, 3]
    assert out[1][1] == pytest.approx((15 / 45) / (6 / 15), abs=1e-15)
    w = ie.bcr_weights(ie.Annotations.from_wide(MATRIX_A, annotators_as="rows"), "rat").to_numpy()
    assert np.allclose(np.array([r[1:] for r in out[1:]], dtype=float), w)


def test_iaa_report_table(classroom):
    out = call("IAA_REPORT", A)
    table = {r[0]: r[1] for r in out[1:]}
    rep = ie.report(classroom, pairwise=False)
    assert out[0] == ["Metric", "Value"]
    assert table["Items"] == 15 and table["Annotators"] == 3 and table["Annotations"] == 45
    assert table["Fleiss' kappa"] == pytest.approx(rep.values["fleiss_kappa"])
    assert table["Krippendorff's alpha [nominal]"] == pytest.approx(rep.values["krippendorff_alpha"])
    for scheme in ie.SPA_WEIGHTS:
        assert table[f"SPA [{scheme}]"] == pytest.approx(rep.spa[scheme])


# ----------------------------------------------------------------------------- the count-table layout


def test_counts_layout(classroom):
    counts = classroom.counts.to_dense().astype(float).tolist()  # items × categories
    for func, fn in [
        ("FLEISS", ie.fleiss_kappa),
        ("PERCENT_AGREEMENT", ie.percent_agreement),
        ("GWET_AC1", ie.gwet_ac1),
    ]:
        assert value(func, counts, "counts") == pytest.approx(fn(classroom), abs=1e-12)
    assert value("SPA", counts, "flat", "counts") == pytest.approx(ie.spa(classroom, weights="flat"), abs=1e-12)
    assert value("KALPHA", counts, None, "counts") == pytest.approx(ie.krippendorff_alpha(classroom), abs=1e-12)
    with_headers = [["item", "a", "b", "c"]] + [[f"doc{i}", *r] for i, r in enumerate(counts)]
    assert call("GOLD", with_headers, None, "counts", True) == [
        [x] for x in ["a", "a", "a", "c", "c", "b", "c", "c", "a", "b", "b", "b", "a", "c", "a"]
    ]
    # count tables have no annotators: pairwise functions refuse them, and counts must be whole numbers
    assert value("COHEN", counts, 1.0, 2.0, "counts") == VALUE
    assert value("MULTIKAPPA", counts, "counts") == VALUE
    assert value("FLEISS", [[-1.0, 1.0]], "counts") == VALUE
    # fractional counts (averaged votes): the core takes them for Gwet's coefficients, the exact-sum metrics refuse
    fractional = ie.Annotations.from_counts([[1.5, 1.0], [0.5, 2.0]])
    assert value("FLEISS", [[1.5, 1.0], [0.5, 2.0]], "counts") == ie.fleiss_kappa(fractional)
    assert value("KALPHA", [[1.5, 1.0], [0.5, 2.0]], None, "counts") == VALUE


# ----------------------------------------------------------------------------- layout "auto" and trimming

SQUARE = 'the range is square: say layout "rows" (annotators in rows) or "columns" (annotators in columns)'


def reasons(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "iaa_engine.excel"]


def test_auto_reads_one_item_per_row_and_the_classroom_layout(classroom):
    """Issue 14: seed 001 laid out one item per row, without layout, gave KALPHA -0.021 and FLEISS -0.044."""
    alpha, kappa = ie.krippendorff_alpha(classroom), ie.fleiss_kappa(classroom)
    assert round(alpha, 3) == 0.608 and round(kappa, 3) == 0.599
    for data in (A_T, A):  # 15 × 3 (one item per row) and 3 × 15 (the classroom layout)
        assert value("KALPHA", data) == alpha
        assert value("FLEISS", data) == kappa
        assert value("KALPHA", data, None, "auto") == alpha  # "auto" named, any case
        assert value("FLEISS", data, "AUTO") == kappa
    for func, fn in SCALARS:
        assert value(func, A_T) == pytest.approx(fn(classroom), abs=1e-12), func
    assert value("COHEN", A_T, 1.0, 2.0) == ie.cohen_kappa(classroom, 0, 1)
    assert call("KAPPA_MATRIX", A_T) == call("KAPPA_MATRIX", A)
    assert call("IAA_ESTIMATE", A_T, "gwet_ac1", "quadratic") == call("IAA_ESTIMATE", A, "gwet_ac1", "quadratic")


def test_auto_spills_along_the_items_it_read():
    row = call("ITEM_AGREEMENT", A)  # annotators in rows: one row of 15
    col = call("ITEM_AGREEMENT", A_T)  # one item per row: one column of 15
    assert len(row) == 1 and len(row[0]) == 15
    assert col == [[v] for v in row[0]] == call("ITEM_AGREEMENT", A_T, "columns")
    assert call("GOLD", A_T, "rat") == [[v] for v in call("GOLD", A, "rat")[0]]


def test_auto_with_headers():
    """The shape is the body's, after the headers; with one header line the layout whose body fits is taken."""
    table = [["", *[f"doc{j}" for j in range(15)]]] + [[f"ann{i}", *r] for i, r in enumerate(A)]  # 4 × 16
    transposed = [list(c) for c in zip(*table)]  # 16 × 4: items in rows, annotator names on top
    bare = value("FLEISS", A)
    assert value("FLEISS", table, None, True) == bare
    assert value("FLEISS", transposed, None, True) == bare
    assert value("FLEISS", transposed[1:], None, "items") == bare  # names of the items, left; no annotator names
    assert value("FLEISS", [r[1:] for r in transposed], None, "annotators") == bare  # annotator names on top
    named = call("KAPPA_MATRIX", [r[1:] for r in transposed], None, "annotators")
    assert named[0] == ["Cohen's kappa", "ann0", "ann1", "ann2"]


def test_square_range_without_layout_is_value_error_with_the_reason(caplog):
    square = [r[:3] for r in A]  # 3 annotators × 3 items, or 3 items × 3 annotators?
    for func in ("KALPHA", "FLEISS", "COHEN", "ITEM_AGREEMENT", "IAA_ESTIMATE"):
        caplog.clear()
        with caplog.at_level("WARNING", logger="iaa_engine.excel"):
            assert call(func, square) == [[VALUE]], func
        assert reasons(caplog) == [f"{func}: {SQUARE}"]
    # said explicitly, it is read as said
    three = ie.Annotations.from_wide([row[:3] for row in MATRIX_A], annotators_as="rows")
    assert value("FLEISS", square, "rows") == ie.fleiss_kappa(three)
    assert value("FLEISS", square, "columns") == ie.fleiss_kappa(
        ie.Annotations.from_wide(square, annotators_as="columns")
    )
    # square once the headers are off
    with_names = [["", "x", "y", "z"]] + [[f"d{j}", *r] for j, r in enumerate(square)]
    assert value("FLEISS", with_names, None, True) == VALUE
    assert value("FLEISS", with_names, "columns", True) == value("FLEISS", square, "columns")


def test_count_table_without_layout_is_value_error_with_the_reason(classroom, caplog):
    """Issue 14: KALPHA on seed 001's count table, without layout, gave 0.025 (right: 0.608)."""
    counts = classroom.counts.to_dense().astype(float).tolist()  # 15 items × 3 categories, every row sums to 3
    reason = 'this looks like a count table (every row sums to 3): pass layout "counts", or "rows"/"columns" if'
    for func, args in [("KALPHA", ()), ("FLEISS", ()), ("SPA", ()), ("GOLD", ()), ("IAA_REPORT", ())]:
        caplog.clear()
        with caplog.at_level("WARNING", logger="iaa_engine.excel"):
            assert call(func, counts, *args) == [[VALUE]], func
        assert len(reasons(caplog)) == 1 and reasons(caplog)[0].startswith(f"{func}: {reason}"), reasons(caplog)
    assert value("KALPHA", counts, None, "counts") == ie.krippendorff_alpha(classroom)
    assert value("FLEISS", counts, "counts") == ie.fleiss_kappa(classroom)
    # functions that need who said what say so
    caplog.clear()
    with caplog.at_level("WARNING", logger="iaa_engine.excel"):
        assert value("COHEN", counts, 1.0, 2.0) == VALUE
    assert reasons(caplog)[0].startswith("COHEN: this looks like a count table (every row sums to 3), which")
    # with headers: the body is what is looked at
    with_headers = [["item", "a", "b", "c"]] + [[f"doc{i}", *r] for i, r in enumerate(counts)]
    assert value("FLEISS", with_headers, None, True) == VALUE
    assert value("FLEISS", with_headers, "counts", True) == ie.fleiss_kappa(classroom)
    # an explicit layout is never second-guessed: "rows" (the old default) reads the 15 rows as annotators and the
    # numbers as labels, which is the old silent 0.025; "columns" reads them as 15 items of 3 annotators
    assert value("KALPHA", counts, None, "rows") == ie.krippendorff_alpha(
        ie.Annotations.from_wide(counts, annotators_as="rows")
    )
    assert round(value("KALPHA", counts, None, "rows"), 3) == 0.025
    as_labels = ie.Annotations.from_wide(counts, annotators_as="columns")
    assert value("KALPHA", counts, None, "columns") == ie.krippendorff_alpha(as_labels)


def test_ratings_with_zeros_are_not_taken_for_counts():
    """A count table needs a 0, whole numbers and equal row sums >= 2; ratings rarely have all three."""
    ratings = [[0.0, 1.0, 2.0], [1.0, 1.0, 1.0], [2.0, 2.0, 0.0], [0.0, 0.0, 1.0]]  # row sums 3, 3, 4, 1
    assert value("FLEISS", ratings) == ie.fleiss_kappa(ie.Annotations.from_wide(ratings, annotators_as="columns"))
    no_zero = [[1.0, 2.0], [2.0, 1.0], [3.0, 0.5]]  # a fraction: not counts
    assert math.isfinite(value("FLEISS", no_zero))


def blank_tail(rows: list[list], n_rows: int, n_cols: int = 0, blank=None) -> list[list]:
    """The range a whole-column / whole-row reference sends: the data, then blank rows and columns."""
    width = len(rows[0]) + n_cols
    return [[*r, *[blank] * n_cols] for r in rows] + [[blank] * width for _ in range(n_rows)]


def test_whole_column_reference_equals_the_used_range(classroom):
    whole = blank_tail(A_T, 50_000)  # =FLEISS(A:C): 15 filled rows of 50,015
    for func, fn in SCALARS:
        assert value(func, whole) == value(func, A_T) == pytest.approx(fn(classroom), abs=1e-12), func
    assert value("FLEISS", blank_tail(A_T, 50_000, blank="")) == value("FLEISS", A_T)  # blanks sent as ""
    assert value("FLEISS", whole, "columns") == value("FLEISS", A_T, "columns")
    assert call("ITEM_AGREEMENT", whole) == call("ITEM_AGREEMENT", A_T)  # 15 values, not 50,015
    assert call("GOLD", whole, "rat") == call("GOLD", A_T, "rat")
    assert value("COHEN", whole, 1.0, 3.0) == value("COHEN", A_T, 1.0, 3.0)
    # trailing blank columns too (a whole-row reference, or a range wider than the data), and both at once
    assert value("KALPHA", blank_tail(A, 0, 1_000)) == value("KALPHA", A)
    assert call("ITEM_AGREEMENT", blank_tail(A, 10, 1_000)) == call("ITEM_AGREEMENT", A)
    assert value("FLEISS", blank_tail(A_T, 1_000, 5)) == value("FLEISS", A_T)
    # with headers: A:D with names on top and on the left
    table = [["", "x", "y", "z"]] + [[f"doc{j}", *r] for j, r in enumerate(A_T)]
    assert value("FLEISS", blank_tail(table, 50_000), None, True) == value("FLEISS", A)
    # the count layout: trailing blank rows are not items
    counts = classroom.counts.to_dense().astype(float).tolist()
    assert call("ITEM_AGREEMENT", blank_tail(counts, 1_000), "counts") == call("ITEM_AGREEMENT", counts, "counts")


def test_leading_blank_lines_keep_their_place(classroom):
    """Only trailing blank lines are trimmed: an item's position in the range stays its name and its spill cell."""
    lead = [[None] * 3, *A_T]  # a blank first row: item 1 has no annotation, the data's items are 2..16
    out = call("ITEM_AGREEMENT", lead)
    assert len(out) == 16 and out[0] == [DIV0] and out[1:] == call("ITEM_AGREEMENT", A_T)
    assert value("FLEISS", lead) == ie.fleiss_kappa(classroom)
    left = [[None, *r] for r in A]  # a blank first column in the classroom layout
    assert call("GOLD", left)[0][0] == NA and call("GOLD", left)[0][1:] == call("GOLD", A)[0]


def test_layout_help_says_auto_is_the_default():
    meta = {f["name"]: f for f in server.custom_functions_meta(addin)["functions"]}
    for name, f in meta.items():
        if name in ("IAA_SAMPLE_SIZE", "UALPHA", "KENDALL_W", "KENDALL_W_TEST"):  # no rating range with a layout:
            # planner inputs; a spans table with headers; ranks with items in rows and judges in columns
            continue
        doc = next(p["description"] for p in f["parameters"] if p["name"] == "layout")
        assert doc.startswith('"auto" (default)') and '"rows"' in doc and '"columns"' in doc, name
        assert ('"counts"' in doc) == (
            name
            not in (
                "COHEN",
                "SCOTTPI",
                "KAPPA_MATRIX",
                "MULTIKAPPA",
                "ANNOTATOR_BIAS",
                "BCR_WEIGHTS",
                "COHEN_WEIGHTED",
                "INTRACLASS",
                "ANNOTATORS",
                "GOLD_ACCURACY",
                "ALT_TEST",
                "JUDGE_ACCURACY",
            )
        ), name
        data_doc = next(p["description"] for p in f["parameters"] if p["name"] == "data")
        assert "Default layout: one row per annotator" not in data_doc


# ----------------------------------------------------------------------------- awkward input


def test_numbers_typed_as_text_are_numbers(classroom):
    texty = [[str(int(v)) if (i + j) % 3 == 0 else v for j, v in enumerate(row)] for i, row in enumerate(A)]
    assert value("FLEISS", texty) == pytest.approx(ie.fleiss_kappa(classroom), abs=1e-12)
    assert value("FLEISS", [[" 1 ", 2.0], ["1", "2.0"]], "rows") == 1.0  # square: the layout is said


def test_text_labels_keep_their_spelling_as_in_the_cli(tmp_path, caplog):
    """Issue 25: at the nominal level the text labels ``01`` and ``1`` are two categories in Excel, as in a file
    read by the CLI (``iaa report``) and the API. By hand: items (01, 1) and (2, 2); percent agreement 1/2; Fleiss'
    kappa with p = (1/4, 1/4, 1/2): P_e = 6/16, (1/2 - 6/16) / (1 - 6/16) = 0.2 (merged, it would be 1)."""
    text = [["01", "2"], ["1", "2"]]  # annotators in rows, every cell text (formatted as Text, or typed '01)
    assert value("PERCENT_AGREEMENT", text, "rows") == 0.5
    assert value("FLEISS", text, "rows") == pytest.approx(0.2, abs=1e-12)
    csv = tmp_path / "labels.csv"
    csv.write_text("item,annotator,label\n1,a,01\n2,a,2\n1,b,1\n2,b,2\n", encoding="utf-8")
    cli = subprocess.run(
        [sys.executable, "-m", "iaa_engine", "report", str(csv), "--json"], capture_output=True, text=True, check=True
    )
    want = json.loads(cli.stdout)
    got = {label: v for label, v in call("IAA_REPORT", text, "rows")[1:]}
    assert got["Categories"] == want["n_categories"] == 3
    for spec in ie.METRICS:
        name = f"{spec.label} [nominal]" if spec.name == "krippendorff_alpha" else spec.label
        assert got[name] == pytest.approx(want[spec.name], abs=1e-12), spec.name
    assert call("KAPPA_MATRIX", text, "rows")[1][2] == pytest.approx(want["cohen_kappa"]["matrix"][0][1], abs=1e-12)
    # the spelling is kept in what the functions spill
    assert call("GOLD", [["01", "2"], ["01", "2"], ["1", "3"]], None, "rows") == [["01", "2"]]
    # levels that need numbers parse the labels, as the CLI does: 01 is 1 there
    assert value("KALPHA", text, "interval", "rows") == 1.0
    # numeric cells: 1.0 and 1 are one label, and text that spells a number plainly is that number (as before)
    assert value("PERCENT_AGREEMENT", [[1.0, 2.0], [1, "2"]], "rows") == 1.0
    # a code beside numbers is refused with the reason, not merged into 1
    with caplog.at_level("WARNING", logger="iaa_engine.excel"):
        assert value("PERCENT_AGREEMENT", [["01", 2.0], [1.0, 2.0]], "rows") == VALUE
    assert "leading zero" in caplog.records[-1].getMessage()
    # known labels are read as the data's: text here, a number cell as it shows (1.0 is "1")
    table = call("GOLD_ACCURACY", [["01", "2", "3"], ["1", "2", "3"]], [[1.0, 2.0, 3.0]], None, None, "rows")
    assert [r[2] for r in table[1:]] == [2, 3]  # correct answers of annotators 1 (01 is not 1) and 2


def test_text_mixed_with_numbers_is_value_error(caplog):
    with caplog.at_level("WARNING", logger="iaa_engine.excel"):
        assert value("FLEISS", [[1.0, "yes"], [1.0, "no"]], "rows") == VALUE  # square: the layout is said
    assert not any("square" in r.getMessage() for r in caplog.records)  # refused for its labels, not its shape


@pytest.mark.parametrize("code", ["#N/A", "#DIV/0!", "#REF!"])
def test_error_cells_propagate(code):
    data = [row[:] for row in A]
    data[1][3] = excel_error(code)
    expected = {"#N/A": NA, "#DIV/0!": DIV0, "#REF!": {"type": "Error", "errorType": "Ref"}}[code]
    for func in ("FLEISS", "SPA", "KALPHA", "COHEN"):
        assert value(func, data) == expected, func


def test_other_runtimes_cell_encodings():
    """The range is read raw: classic xlwings (COM) sends error cells as integers, Pyodide may send JsNull."""

    class JsNull:  # stands in for pyodide.ffi.JsNull (only its type name is looked at)
        pass

    data = [row[:] for row in A]
    data[0][0] = -2146826246  # COM's #N/A
    assert value("FLEISS", data) == NA
    data[0][0] = JsNull()  # a blank cell in xlwings Lite
    sparse = [row[:] for row in A]
    sparse[0][0] = None
    assert value("FLEISS", data) == pytest.approx(
        ie.fleiss_kappa(ie.Annotations.from_wide(sparse, annotators_as="rows")), abs=1e-12
    )
    assert value("FLEISS", [[{"type": "Double", "basicValue": 1.0}, 1.0], [1.0, 2.0]], "rows") == pytest.approx(
        ie.fleiss_kappa(ie.Annotations.from_wide([[1, 1], [1, 2]], annotators_as="rows")), abs=1e-12
    )  # an entity value's basicValue
    assert call("GOLD", A, None, None, None, [[excel_error("#N/A")]]) == [[NA]]


def test_single_cell_empty_range_and_all_blank():
    assert value("FLEISS", 1.0) == DIV0  # one annotation: no pair
    assert value("FLEISS", [[None]]) == DIV0  # one blank cell arrives as null
    assert value("FLEISS", [[None, ""], ["", None]]) == DIV0
    assert value("SPA", [[2.0], [2.0]], None, "rows") == 1.0  # one item, two agreeing annotations: P = 1
    assert value("SPA", [[2.0], [2.0]]) == DIV0  # "auto": one item per row, i.e. two items with one annotation each
    assert call("ITEM_AGREEMENT", [[1.0]]) == [[DIV0]]


def test_undefined_results_are_div0():
    same = [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]  # expected agreement 1: every kappa is 0/0
    for func in ("FLEISS", "KALPHA", "COHEN", "SCOTTPI", "MULTIKAPPA"):
        assert value(func, same) == DIV0, func
    assert value("SPA", same) == 1.0  # raw agreement is defined
    disjoint = [[1.0, 2.0, None, None], [None, None, 1.0, 2.0]]  # the two share no item
    assert value("COHEN", disjoint) == DIV0
    km = call("KAPPA_MATRIX", disjoint)
    assert km[1][2] == DIV0 and km[1][1] == 1.0


@pytest.mark.parametrize(
    "func,args",
    [
        ("SPA", ("inverse",)),
        ("KALPHA", ("cardinal",)),
        ("GOLD", ("vote",)),
        ("FLEISS", ("diagonal",)),
        ("FLEISS", (None, "sometimes")),
        ("BCR_WEIGHTS", ("majority",)),
        ("SPA", (3.0,)),
    ],
)
def test_unknown_option_names_are_value_errors(func, args):
    assert value(func, A, *args) == VALUE


def test_omitted_argument_and_blank_argument_take_the_default(classroom):
    expected = ie.spa(classroom)  # default scheme annotations_m1
    assert value("SPA", A, None) == pytest.approx(expected)  # omitted: null
    assert value("SPA", A, [[None]]) == pytest.approx(expected)  # a blank cell as argument
    assert value("SPA", A, "") == pytest.approx(expected)


def test_error_as_option_propagates():
    assert value("SPA", A, [[excel_error("#N/A")]]) == NA


def test_reasons_are_logged_not_shown(caplog):
    with caplog.at_level("WARNING", logger="iaa_engine.excel"):
        assert value("SPA", A, "inverse") == VALUE
    assert any("scheme must be one of" in r.getMessage() for r in caplog.records)
    assert not any("Traceback" in r.getMessage() for r in caplog.records)


def test_headers_rule():
    """headers=TRUE: first row item names, first column annotator names; results equal the bare range."""
    table = [["", *[f"doc{j}" for j in range(15)]]] + [[f"ann{i}", *r] for i, r in enumerate(A)]
    bare = value("FLEISS", A)
    assert value("FLEISS", table, None, True) == pytest.approx(bare)
    assert value("FLEISS", table, None, "both") == pytest.approx(bare)
    assert value("FLEISS", [r[1:] for r in table], None, "items") == pytest.approx(bare)
    assert value("FLEISS", [r for r in table[1:]], None, "annotators") == pytest.approx(bare)
    transposed = [list(c) for c in zip(*table)]
    assert value("FLEISS", transposed, "columns", True) == pytest.approx(bare)
    assert value("FLEISS", table) == VALUE  # headers read as labels: text mixed with numbers
    assert math.isfinite(value("FLEISS", table, None, 1.0))  # 1 = TRUE


# ----------------------------------------------------------------------------- weighted agreement, ICC, inference

# Shrout & Fleiss (1979), Table 2: six targets (rows) rated by four judges (columns); Table 4 prints the six ICCs.
SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
SF = [[float(v) for v in row] for row in SHROUT_FLEISS]
ESTIMATE_LABELS = ["Standard error", "Lower 95%", "Upper 95%", "p-value", "Items"]


def sparse_a() -> tuple[list[list], ie.Annotations]:
    """Matrix A with blank cells (null and "", as Office.js sends them) and the same data for the core."""
    sparse = [row[:] for row in A]
    for r, c in [(0, 1), (1, 4), (2, 7), (0, 10), (2, 12), (1, 13)]:
        sparse[r][c] = None
    sparse[2][3] = ""
    core_data = ie.Annotations.from_wide(
        [[None if v in (None, "") else v for v in r] for r in sparse], annotators_as="rows"
    )
    return sparse, core_data


def block(out) -> dict:
    """IAA_ESTIMATE's spilled block as {label: value}, after checking its shape."""
    assert len(out) == 6 and all(len(r) == 2 for r in out), out
    return {r[0]: r[1] for r in out}


def assert_block_equals(out, e: ie.Estimate, *, pct: str = "95%"):
    """Every cell of the block is the core's Estimate, to the last bit."""
    assert [r[0] for r in out] == [
        f"Estimate ({e.metric})",
        "Standard error",
        f"Lower {pct}",
        f"Upper {pct}",
        "p-value",
        "Items",
    ]
    assert out[0][1] == e.estimate
    assert out[1][1] == (e.se if np.isfinite(e.se) else DIV0)  # the ICC's too: the delta method's (issue 25)
    assert out[2][1] == e.lower and out[3][1] == e.upper
    assert out[4][1] == e.p_value
    assert out[5][1] == e.n_items


def test_addin_choices_match_the_core():
    """The add-in's lists of metrics and ICC names are the ones the core validates against."""
    from iaa_engine.inference._analytic import ANALYTIC_METRICS

    assert choices.ESTIMATE_METRICS == ANALYTIC_METRICS
    assert set(choices.ICC_NAMES) == set(ie.icc.__iaa_constraints__["form"].values)


def test_new_functions_help_names_every_option():
    meta = {f["name"]: f for f in server.custom_functions_meta(addin)["functions"]}
    for name in ("COHEN_WEIGHTED", "FLEISS_WEIGHTED", "GWET_WEIGHTED", "IAA_ESTIMATE"):
        doc = next(p["description"] for p in meta[name]["parameters"] if p["name"] == "weights")
        assert all(f'"{w}"' in doc for w in ie.AGREEMENT_WEIGHTS), name
    assert "AC2" in meta["GWET_WEIGHTED"]["description"]
    assert "ICC(2,1)" in meta["INTRACLASS"]["description"]
    form = next(p["description"] for p in meta["INTRACLASS"]["parameters"] if p["name"] == "form")
    assert all(f'"{f}"' in form for f in ie.ICC_FORMS)
    params = [p["name"] for p in meta["IAA_ESTIMATE"]["parameters"]]
    assert params == ["data", "metric", "weights", "confidence", "annotator_a", "annotator_b", "layout", "headers"]


@pytest.mark.parametrize("weights", ie.AGREEMENT_WEIGHTS)
def test_weighted_functions_equal_core(weights, classroom):
    assert value("COHEN_WEIGHTED", A, weights, 1.0, 2.0) == ie.cohen_kappa(classroom, 0, 1, weights=weights)
    assert value("COHEN_WEIGHTED", A, weights, 3.0, 1.0) == ie.cohen_kappa(classroom, 2, 0, weights=weights)
    assert value("FLEISS_WEIGHTED", A, weights) == ie.fleiss_kappa(classroom, weights=weights)
    assert value("GWET_WEIGHTED", A, weights) == ie.gwet_ac1(classroom, weights=weights)
    assert value("FLEISS_WEIGHTED", A, weights.upper()) == ie.fleiss_kappa(classroom, weights=weights)


def test_weighted_functions_default_to_quadratic_and_identity_is_unweighted(classroom):
    assert value("COHEN_WEIGHTED", A, None, 1.0, 2.0) == ie.cohen_kappa(classroom, 0, 1, weights="quadratic")
    assert value("COHEN_WEIGHTED", A[:2]) == ie.cohen_kappa(classroom, 0, 1, weights="quadratic")  # two annotators
    assert value("FLEISS_WEIGHTED", A) == ie.fleiss_kappa(classroom, weights="quadratic")
    assert value("GWET_WEIGHTED", A, "") == ie.gwet_ac1(classroom, weights="quadratic")  # blank option: default
    assert value("FLEISS_WEIGHTED", A, "identity") == pytest.approx(value("FLEISS", A), abs=1e-15)
    assert value("GWET_WEIGHTED", A, "identity") == pytest.approx(value("GWET_AC1", A), abs=1e-15)
    assert value("COHEN_WEIGHTED", A, "identity", 1.0, 2.0) == pytest.approx(value("COHEN", A, 1.0, 2.0), abs=1e-15)
    # weighting credits the near misses 1-2 and 2-3 of matrix A: above its unweighted Fleiss kappa (0.599)
    assert value("FLEISS_WEIGHTED", A) > value("FLEISS", A)


@pytest.mark.parametrize("form", choices.ICC_NAMES)
def test_intraclass_every_form_equals_core(form, classroom):
    assert value("INTRACLASS", A, form) == ie.icc(classroom, form).estimate
    assert value("INTRACLASS", A, form.lower()) == ie.icc(classroom, form).estimate  # names are case-blind


def test_intraclass_shrout_fleiss_table_4():
    """Shrout & Fleiss (1979), Table 4: 0.17, 0.29, 0.71, 0.44, 0.62, 0.91 (items in rows: layout "columns")."""
    data = ie.Annotations.from_wide(SHROUT_FLEISS, annotators_as="columns")
    got = [value("INTRACLASS", SF, f, "columns") for f in ie.ICC_FORMS]
    assert [round(v, 2) for v in got] == [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    assert got == [ie.icc(data, f).estimate for f in ie.ICC_FORMS]
    assert value("INTRACLASS", SF, None, "columns") == got[1]  # default ICC(2,1)
    assert value("INTRACLASS", SF, "ICC(A, 1)", "columns") == got[1]  # spaces and McGraw & Wong's name
    transposed = [list(c) for c in zip(*SF)]  # the classroom layout: judges in rows
    assert value("INTRACLASS", transposed, "ICC(3,k)") == got[5]


@pytest.mark.parametrize("metric", choices.ESTIMATE_METRICS)
@pytest.mark.parametrize("weights", ["identity", "quadratic", "ordinal"])
def test_iaa_estimate_equals_core_for_every_metric(metric, weights, classroom):
    pair = metric in ("cohen_kappa", "scott_pi")
    who = (1.0, 3.0) if pair else (None, None)
    out = call("IAA_ESTIMATE", A, metric, weights, None, *who)
    if metric == "krippendorff_alpha" and weights != "identity":  # alpha's level weighs differences, not weights
        assert out == [[VALUE]]
        return
    kw = {"annotator_a": 0, "annotator_b": 2} if pair else {}
    assert_block_equals(out, ie.estimate(classroom, metric, weights=weights, **kw))
    # the estimate row is the coefficient itself
    if metric == "fleiss_kappa":
        assert out[0][1] == value("FLEISS_WEIGHTED", A, weights)
    if metric == "gwet_ac1":
        assert out[0][1] == value("GWET_WEIGHTED", A, weights)
    if metric == "cohen_kappa":
        assert out[0][1] == value("COHEN_WEIGHTED", A, weights, 1.0, 3.0)


def test_iaa_estimate_defaults_and_confidence(classroom):
    out = call("IAA_ESTIMATE", A)  # fleiss_kappa, unweighted, 95%
    assert_block_equals(out, ie.estimate(classroom, "fleiss_kappa"))
    assert out[0] == ["Estimate (fleiss_kappa)", value("FLEISS", A)]
    assert round(out[0][1], 3) == 0.599  # seed 001's Fleiss kappa
    b = block(out)
    assert b["Lower 95%"] < b["Estimate (fleiss_kappa)"] < b["Upper 95%"] and b["Items"] == 15
    out90 = call("IAA_ESTIMATE", A, "GWET_AC1", "quadratic", 0.9)
    assert_block_equals(out90, ie.estimate(classroom, "gwet_ac1", weights="quadratic", confidence=0.9), pct="90%")
    assert out90[0][0] == "Estimate (gwet_ac1[quadratic])"
    assert call("IAA_ESTIMATE", A, None, None, "0.99")[2][0] == "Lower 99%"  # a number typed as text
    assert call("IAA_ESTIMATE", A, None, None, 0.975)[3][0] == "Upper 97.5%"


@pytest.mark.parametrize("form", ie.ICC_FORMS)
def test_iaa_estimate_icc_block(form, classroom):
    out = call("IAA_ESTIMATE", A, form)
    assert_block_equals(out, ie.icc(classroom, form))  # the F interval, the delta method's SE
    assert out[0][1] == value("INTRACLASS", A, form)
    out = call("IAA_ESTIMATE", SF, form.lower(), "identity", 0.9, None, None, "columns")
    data = ie.Annotations.from_wide(SHROUT_FLEISS, annotators_as="columns")
    assert_block_equals(out, ie.icc(data, form, confidence=0.9), pct="90%")


def test_iaa_estimate_pairs_need_two_annotators(classroom):
    assert value("IAA_ESTIMATE", A, "cohen_kappa") == VALUE  # three annotators: which two?
    assert value("IAA_ESTIMATE", A, "cohen_kappa", None, None, 1.0) == VALUE  # only one named
    assert value("IAA_ESTIMATE", A, "scott_pi", None, None, 1.0, 9.0) == NA  # no ninth annotator
    assert_block_equals(
        call("IAA_ESTIMATE", A[:2], "scott_pi"), ie.estimate(classroom, "scott_pi", annotator_a=0, annotator_b=1)
    )
    named = [[n, *r] for n, r in zip("xyz", A)]
    out = call("IAA_ESTIMATE", named, "cohen_kappa", "linear", None, "z", "y", None, "annotators")
    assert_block_equals(out, ie.estimate(classroom, "cohen_kappa", weights="linear", annotator_a=2, annotator_b=1))
    assert value("COHEN_WEIGHTED", named, "linear", "z", "y", None, "annotators") == out[0][1]


def test_new_functions_read_blank_cells_as_missing():
    sparse, d = sparse_a()
    assert value("COHEN_WEIGHTED", sparse, None, 1.0, 2.0) == ie.cohen_kappa(d, 0, 1, weights="quadratic")
    assert value("FLEISS_WEIGHTED", sparse, "linear") == ie.fleiss_kappa(d, weights="linear")
    assert value("GWET_WEIGHTED", sparse) == ie.gwet_ac1(d, weights="quadratic")
    assert value("INTRACLASS", sparse) == ie.icc(d).estimate  # two-way: complete cases only
    assert value("INTRACLASS", sparse, "ICC(1,1)") == ie.icc(d, "ICC(1,1)").estimate
    assert_block_equals(
        call("IAA_ESTIMATE", sparse, "gwet_ac1", "quadratic"), ie.estimate(d, "gwet_ac1", weights="quadratic")
    )
    assert_block_equals(call("IAA_ESTIMATE", sparse, "multi_kappa"), ie.estimate(d, "multi_kappa"))
    icc_block = call("IAA_ESTIMATE", sparse, "ICC(2,1)")
    assert_block_equals(icc_block, ie.icc(d))
    assert icc_block[5][1] == 8  # complete cases: 7 of the 15 items have a blank


def test_new_functions_items_in_rows_and_in_columns(classroom):
    rows = [
        value("COHEN_WEIGHTED", A, "linear", 1.0, 2.0),
        value("FLEISS_WEIGHTED", A),
        value("GWET_WEIGHTED", A, "ordinal"),
        value("INTRACLASS", A, "ICC(3,1)"),
    ]
    cols = [
        value("COHEN_WEIGHTED", A_T, "linear", 1.0, 2.0, "columns"),
        value("FLEISS_WEIGHTED", A_T, None, "columns"),
        value("GWET_WEIGHTED", A_T, "ordinal", "columns"),
        value("INTRACLASS", A_T, "ICC(3,1)", "columns"),
    ]
    assert cols == rows
    for metric in ("fleiss_kappa", "multi_kappa", "ICC(1,k)"):
        assert call("IAA_ESTIMATE", A_T, metric, None, None, None, None, "columns") == call("IAA_ESTIMATE", A, metric)
    with_headers = [["", *[f"doc{j}" for j in range(15)]]] + [[f"ann{i}", *r] for i, r in enumerate(A)]
    assert value("INTRACLASS", with_headers, None, None, True) == value("INTRACLASS", A)
    assert value("INTRACLASS", with_headers, "ICC(3,1)", None, True) == rows[3]
    assert value("FLEISS_WEIGHTED", [list(c) for c in zip(*with_headers)], None, "columns", True) == rows[1]


def test_new_functions_on_a_count_table(classroom):
    counts = classroom.counts.to_dense().astype(float).tolist()  # items × categories 1, 2, 3
    assert value("FLEISS_WEIGHTED", counts, "quadratic", "counts") == ie.fleiss_kappa(classroom, weights="quadratic")
    assert value("GWET_WEIGHTED", counts, "linear", "counts") == ie.gwet_ac1(classroom, weights="linear")
    assert_block_equals(
        call("IAA_ESTIMATE", counts, "brennan_prediger", "quadratic", None, None, None, "counts"),
        ie.estimate(classroom, "brennan_prediger", weights="quadratic"),
    )
    # who said what is needed: pairs, Conger's kappa and the ICC refuse a count table
    assert value("COHEN_WEIGHTED", counts, None, 1.0, 2.0, "counts") == VALUE
    assert value("INTRACLASS", counts, None, "counts") == VALUE
    for metric in ("multi_kappa", "cohen_kappa", "ICC(1,1)"):
        assert value("IAA_ESTIMATE", counts, metric, None, None, None, None, "counts") == VALUE, metric


@pytest.mark.parametrize(
    "func,args,message",
    [
        ("COHEN_WEIGHTED", ("quad", 1.0, 2.0), "weights must be one of identity, linear, quadratic"),
        ("FLEISS_WEIGHTED", ("squared",), "weights must be one of identity, linear, quadratic"),
        ("GWET_WEIGHTED", (2.0,), "weights must be one of identity, linear, quadratic"),
        ("IAA_ESTIMATE", ("gwet_ac1", "quad"), "weights must be one of identity, linear, quadratic"),
        ("INTRACLASS", ("ICC(4,1)",), "form must be one of ICC(1,1), ICC(2,1)"),
        ("INTRACLASS", ("pearson",), "form must be one of ICC(1,1), ICC(2,1)"),
        ("IAA_ESTIMATE", ("ICC(2,2)",), "metric must be one of ICC(1,1), ICC(2,1)"),
        ("IAA_ESTIMATE", ("spa",), "metric must be one of fleiss_kappa, gwet_ac1"),
        ("IAA_ESTIMATE", (None, None, 1.5), "confidence must be a number between 0 and 1"),
        ("IAA_ESTIMATE", (None, None, 95.0), "confidence must be a number between 0 and 1"),
        ("IAA_ESTIMATE", (None, None, "high"), "confidence must be a number between 0 and 1"),
        ("IAA_ESTIMATE", ("ICC(2,1)", "quadratic"), "weights are for the kappa family"),
        ("IAA_ESTIMATE", ("fleiss_kappa", None, None, 1.0, 2.0), "annotator_a and annotator_b are for cohen_kappa"),
        ("FLEISS_WEIGHTED", (None, "diagonal"), "layout must be one of rows, columns, counts"),
    ],
)
def test_bad_options_of_the_new_functions_are_value_errors_with_a_plain_reason(func, args, message, caplog):
    with caplog.at_level("WARNING", logger="iaa_engine.excel"):
        assert value(func, A, *args) == VALUE
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith(f"{func}: {message}") for m in messages), messages
    assert not any("Traceback" in m for m in messages)


def test_new_functions_pass_errors_on_and_undefined_is_div0():
    na = [[excel_error("#N/A")]]
    assert value("FLEISS_WEIGHTED", A, na) == NA  # an error as the option
    assert value("INTRACLASS", A, na) == NA
    assert value("IAA_ESTIMATE", A, na) == NA
    assert value("IAA_ESTIMATE", A, None, None, na) == NA
    data = [row[:] for row in A]
    data[1][3] = excel_error("#REF!")
    for func in ("COHEN_WEIGHTED", "FLEISS_WEIGHTED", "GWET_WEIGHTED", "INTRACLASS", "IAA_ESTIMATE"):
        assert value(func, data) == {"type": "Error", "errorType": "Ref"}, func
    same = [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]  # expected agreement 1, no variance: every coefficient is 0/0
    for func in ("COHEN_WEIGHTED", "FLEISS_WEIGHTED", "INTRACLASS"):
        assert value(func, same) == DIV0, func
    out = call("IAA_ESTIMATE", same, "fleiss_kappa", "quadratic")
    assert [r[1] for r in out] == [DIV0, DIV0, DIV0, DIV0, DIV0, 3]
    assert value("INTRACLASS", [["a", "b"], ["a", "a"]], None, "rows") == VALUE  # the ICC needs numbers
