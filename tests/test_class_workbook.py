"""The class-sized workbook (templates/class_workbook.xlsx) recalculated by LibreOffice after realistic edits.

Each edit a class makes - a blank cell, a cell of spaces, a new category, text labels, a tie, a larger pasted
matrix with a blank row and a blank column - is applied with openpyxl, every variant is recalculated in one
LibreOffice run, and every result cell (Fleiss' kappa, P-bar, P-bar_e, p_k, Krippendorff's alpha, percent
agreement, the 45 pairwise Cohen's kappas, P_j and the gold label of every item) is compared with iaa_engine on the
same data to 1e-9. Labels that are not among the declared categories (a pasted 5, a wrong case, a number stored as
text) and a category listed twice: the engine refuses them (ValueError) and the workbook shows #N/A in every result,
with the count and a message; typing them is refused by the data validation the file carries.
"""

from __future__ import annotations

import importlib.util
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

openpyxl = pytest.importorskip("openpyxl")

from tests.test_excel_template import convert  # noqa: E402  (LibreOffice headless, a private profile)

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"


def _load():
    spec = importlib.util.spec_from_file_location("make_class_workbook", TEMPLATES / "make_class_workbook.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _load()
BOOK = TEMPLATES / gen.FILE_NAME
R = gen.RESULTS


# ----------------------------------------------------------------------------- edits


def write_data(wb, matrix: list[list], categories: list, names: list[str] | None = None) -> None:
    """Clear the Data block and paste ``matrix`` (items × annotators, None = blank) and ``categories``."""
    ws = wb["Data"]
    for j in range(gen.MAX_ITEMS):
        for a, col in enumerate(gen.ANN_COLS):
            ws[f"{col}{gen.FIRST_ROW + j}"] = matrix[j][a] if j < len(matrix) and a < len(matrix[j]) else None
    for t in range(gen.MAX_CATS):
        ws[f"{gen.CAT_COL}{gen.CAT_FIRST + t}"] = categories[t] if t < len(categories) else None
    for a, col in enumerate(gen.ANN_COLS):
        ws[f"{col}6"] = names[a] if names and a < len(names) else f"ann {a}"


def read_data(wb) -> tuple[list[list], list]:
    ws = wb["Data"]
    matrix = [[ws[f"{col}{gen.FIRST_ROW + j}"].value for col in gen.ANN_COLS] for j in range(gen.MAX_ITEMS)]
    cats = [ws[f"{gen.CAT_COL}{gen.CAT_FIRST + t}"].value for t in range(gen.MAX_CATS)]
    return matrix, [c for c in cats if c is not None and str(c).strip() != ""]


def example() -> tuple[list[list], list]:
    return [list(r) for r in gen.EXAMPLE], list(gen.EXAMPLE_CATEGORIES)


def large(seed: int = 7) -> tuple[list[list], list]:
    """7 annotators × 150 items × 6 categories, ~15% blanks, pasted with a blank row (item 40) and a blank
    annotator column (the 4th of 8 columns)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 7, size=150)
    noisy = np.where(rng.random((150, 7)) < 0.7, truth[:, None], rng.integers(1, 7, size=(150, 7)))
    matrix: list[list] = [[int(v) for v in row] for row in noisy]
    for j, a in zip(*np.nonzero(rng.random((150, 7)) < 0.15)):
        matrix[j][a] = None
    matrix = [row[:3] + [None] + row[3:] for row in matrix]  # an empty annotator column
    matrix.insert(39, [None] * 8)  # an empty row
    return matrix, [1, 2, 3, 4, 5, 6]


def edits() -> dict[str, tuple[list[list], list]]:
    out = {"example": example()}
    m, c = example()
    m[1][0] = None  # a blank cell (annotator 0, item 2)
    m[4][2] = "   "  # a cell of spaces: also missing, as in the engine
    out["blank"] = (m, c)
    m, c = example()
    c = c + [4]  # a new category, typed into the next free cell, then used
    m[0][0], m[5][1], m[9][2] = 4, 4, 4
    out["new category"] = (m, c)
    m, c = example()
    names = {1: "pos", 2: "neg", 3: "neu"}
    out["text labels"] = ([[names.get(v) for v in row] for row in m], ["pos", "neg", "neu"])
    m, c = example()
    m[2] = [1, 2, 3]  # a three-way tie on item 3
    m[6] = [3, 1, None]  # and a two-way one on item 7
    out["tie"] = (m, c)
    out["large"] = large()
    return out


def refused_edits() -> dict[str, tuple[list[list], list]]:
    out = {}
    m, c = example()
    m[3][1] = 5
    out["pasted 5"] = (m, c)
    m, c = example()
    m[0][2] = "2"  # a number stored as text, as a CSV import can leave it
    out["number as text"] = (m, c)
    m, _ = edits()["text labels"]
    m[2][0] = "Pos"
    out["wrong case"] = (m, ["pos", "neg", "neu"])
    m, c = example()
    out["category listed twice"] = (m, c + [2])
    return out


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory) -> dict[str, tuple[object, list[list], list]]:
    """Every edit (valid and refused) written into a copy of the committed workbook, recalculated in one
    LibreOffice run; name -> (recalculated workbook, matrix, categories)."""
    tmp = tmp_path_factory.mktemp("class")
    variants = {**edits(), **refused_edits()}
    files = {}
    (tmp / "in").mkdir()
    for k, (name, (matrix, cats)) in enumerate(variants.items()):
        wb = openpyxl.load_workbook(BOOK)
        if name != "example":
            write_data(wb, matrix, cats, names=[f"ann {a}" for a in range(gen.MAX_ANN)])
        files[name] = tmp / "in" / f"v{k}.xlsx"
        wb.save(files[name])
    outs = convert(list(files.values()), "xlsx", tmp / "out", tmp)
    result = {}
    for (name, (matrix, cats)), out in zip(variants.items(), outs):
        rec = openpyxl.load_workbook(out, data_only=True)
        assert read_data(rec)[1] == [c for c in cats]  # the data went in as written
        result[name] = (rec, matrix, cats)
    return result


# ----------------------------------------------------------------------------- the engine's values


def engine_data(matrix: list[list], cats: list) -> ie.Annotations:
    """Items in rows, annotators in columns (named by their column position), blanks and spaces missing."""
    frame = pd.DataFrame(
        [[None if (v is None or (isinstance(v, str) and not v.strip())) else v for v in row] for row in matrix],
        columns=list(range(len(matrix[0]))),
    )
    frame = frame.astype(object).where(frame.notna(), None)
    return ie.Annotations.from_wide(frame, annotators_as="columns", categories=cats)


def expected(matrix: list[list], cats: list) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = engine_data(matrix, cats)
        exp: dict = {
            "fleiss_kappa": ie.fleiss_kappa(d),
            "p_bar": ie.joint_probability(d),
            "krippendorff_alpha": ie.krippendorff_alpha(d),
            "percent_agreement": ie.percent_agreement(d),
            # an empty column stays an annotator of the engine's data, without labels: not counted as one here
            "n_annotators": int(np.sum(d.annotator_stats.n_a > 0)),
            "n_items": d.n_items,
            "n_pairable": int(np.sum(d.counts.n_i >= 2)),
            "n_categories": len(cats),
            "outside": 0,
            "duplicates": 0,
        }
        k = exp["fleiss_kappa"]
        # p_k: the mean over items of each category's share (the docstring of fleiss_kappa)
        dense = d.counts.to_dense()
        shares = dense / dense.sum(axis=1, keepdims=True)
        exp["p_k"] = [float(v) for v in shares.mean(axis=0)]
        exp["p_e"] = float(np.sum(np.square(exp["p_k"])))
        if not math.isnan(k):
            assert exp["p_e"] == pytest.approx((exp["p_bar"] - k) / (1 - k), abs=1e-12)  # the engine's own P_e
        labelled = [a for a, n in zip(d.annotators, d.annotator_stats.n_a) if n > 0]
        exp["pairs"] = {}
        for x, y in gen.PAIRS:
            if x in labelled and y in labelled:
                exp["pairs"][x, y] = ie.cohen_kappa(d, x, y)
            elif x in d.annotators and y in d.annotators:  # an empty column: undefined, the workbook leaves it blank
                assert math.isnan(ie.cohen_kappa(d, x, y))
        items = list(d.items)
        p_j = ie.item_agreement(d)
        gold = ie.gold_standard(d).per_item(sep="|")
        exp["items"] = {int(j): (float(p_j.iloc[t]), str(gold.iloc[t]["gold"])) for t, j in enumerate(items)}
    return exp


def close(got, want) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return got == "undefined"
    return isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - want) <= 1e-9


def compare(rec, matrix, cats) -> list[str]:
    exp = expected(matrix, cats)
    res, items, pairs = rec["Results"], rec["Items"], rec["Pairs"]
    problems = []
    for key in ("fleiss_kappa", "p_bar", "p_e", "krippendorff_alpha", "percent_agreement", "n_annotators",
                "n_items", "n_pairable", "n_categories", "outside", "duplicates"):  # fmt: skip
        got = res[R[key]].value
        if not close(got, float(exp[key])):
            problems.append(f"Results!{R[key]} {key}: LibreOffice {got!r}, iaa_engine {exp[key]!r}")
    for t, want in enumerate(exp["p_k"]):
        got = res.cell(row=gen.P_K_ROW, column=3 + t).value
        if not close(got, want):
            problems.append(f"p_k[{t}]: LibreOffice {got!r}, iaa_engine {want!r}")
    for t, (x, y) in enumerate(gen.PAIRS):
        got = pairs[f"K{gen.PAIR_FIRST + t}"].value
        if (x, y) in exp["pairs"]:
            if not close(got, exp["pairs"][x, y]):
                problems.append(f"kappa {x}-{y}: LibreOffice {got!r}, iaa_engine {exp['pairs'][x, y]!r}")
            grid = res.cell(row=gen.MATRIX_ROW + 1 + y, column=3 + x).value
            if not close(grid, exp["pairs"][x, y]):
                problems.append(f"kappa table {y},{x}: {grid!r}")
        elif got not in (None, ""):
            problems.append(f"kappa {x}-{y}: annotator without labels, LibreOffice {got!r}")
    for j in range(gen.MAX_ITEMS):
        r = gen.FIRST_ROW + j
        p, g = items[f"{gen.I_P}{r}"].value, items[f"{gen.I_GOLD}{r}"].value
        if j in exp["items"]:
            want_p, want_g = exp["items"][j]
            if not close(p, want_p) and not (math.isnan(want_p) and p in (None, "")):
                problems.append(f"P_j item {j + 1}: LibreOffice {p!r}, iaa_engine {want_p!r}")
            if str(g) != want_g:
                problems.append(f"gold item {j + 1}: LibreOffice {g!r}, iaa_engine {want_g!r}")
        elif (p, g) != (None, None) and (p, g) != ("", ""):
            problems.append(f"item {j + 1} has no label but shows {p!r} {g!r}")
    return problems


# ----------------------------------------------------------------------------- tests


def test_committed_workbook_matches_the_generator():
    committed, fresh = openpyxl.load_workbook(BOOK), gen.build()
    assert committed.sheetnames == fresh.sheetnames == ["Start", "Data", "Results", "Plan", "Codes", "Items", "Pairs"]
    for ws in fresh.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert committed[ws.title][c.coordinate].value == (c.value or None), (ws.title, c.coordinate)


def test_only_classic_native_functions():
    """No add-in call, no dynamic-array or post-2010 function, no array entry: Excel 2010+, LibreOffice and Google
    Sheets compute every cell as written."""
    wb = openpyxl.load_workbook(BOOK)
    # MIN, NORMSINV, ROUNDUP: the Plan sheet
    allowed = {"IF", "IFERROR", "SUM", "SUMSQ", "SUMPRODUCT", "COUNTIF", "AVERAGE", "MAX", "LEN", "TRIM", "EXACT",
               "ROW", "INDEX", "MATCH", "LEFT", "AND", "OR", "ISTEXT", "ISNUMBER", "NA",
               "MIN", "NORMSINV", "ROUNDUP"}  # fmt: skip
    import re

    used, n = set(), 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type == "f":
                    assert isinstance(c.value, str), (ws.title, c.coordinate)  # no ArrayFormula (array entry)
                    text = re.sub(r'"[^"]*"', '""', c.value)
                    used |= set(re.findall(r"([A-Z][A-Z0-9.]*)\(", text))
                    n += 1
    assert used <= allowed, used - allowed
    assert n > 5000  # every item row, pair and category computed


@pytest.mark.parametrize("name", list(edits()))
def test_recalculated_after_each_edit_equals_the_engine(recalculated, name):
    rec, matrix, cats = recalculated[name]
    problems = compare(rec, matrix, cats)
    assert not problems, f"{name}:\n" + "\n".join(problems[:30])
    status = rec["Results"][R["status"]].value
    assert status.startswith("Data read:"), status


def test_the_edits_really_change_the_data(recalculated):
    """Each edit shows in the results (no test passes because nothing moved)."""
    base = recalculated["example"][0]["Results"][R["fleiss_kappa"]].value
    for name in ("blank", "new category", "text labels", "tie", "large"):
        rec = recalculated[name][0]
        assert rec["Results"][R["fleiss_kappa"]].value != base or name == "text labels", name
    large_rec = recalculated["large"][0]["Results"]
    assert large_rec[R["n_annotators"]].value == 7 and large_rec[R["n_items"]].value == 150
    assert recalculated["text labels"][0]["Results"][R["fleiss_kappa"]].value == pytest.approx(base, abs=1e-12)


def test_ties_are_kept_and_the_question_checks_itself(recalculated, tmp_path):
    """The example's item 16 (1, 3, blank) is a tie and the Results question on it checks the answer natively."""
    rec = recalculated["example"][0]
    assert rec["Items"][f"{gen.I_GOLD}{gen.FIRST_ROW + gen.TIE_ITEM - 1}"].value == "1|3"
    assert rec["Results"][gen.TIE_CHECK].value in (None, "")  # blank while unanswered
    tie = recalculated["tie"][0]["Items"]
    assert tie[f"{gen.I_GOLD}{gen.FIRST_ROW + 2}"].value == "1|2|3"
    assert tie[f"{gen.I_GOLD}{gen.FIRST_ROW + 6}"].value == "1|3"
    files = []
    (tmp_path / "in").mkdir()
    for k, answer in enumerate(["1|3", "1", "3|1"]):
        wb = openpyxl.load_workbook(BOOK)
        wb["Results"][gen.TIE_QUESTION] = answer
        files.append(tmp_path / "in" / f"a{k}.xlsx")
        wb.save(files[-1])
    outs = [openpyxl.load_workbook(f, data_only=True) for f in convert(files, "xlsx", tmp_path / "out", tmp_path)]
    assert [o["Results"][gen.TIE_CHECK].value for o in outs] == ["correct", "not yet", "not yet"]


@pytest.mark.parametrize("name", list(refused_edits()))
def test_labels_outside_the_categories_are_refused_like_the_engine(recalculated, name):
    rec, matrix, cats = recalculated[name]
    with pytest.raises(ValueError):  # the engine refuses the same data
        engine_data(matrix, cats)
    res = rec["Results"]
    twice = name == "category listed twice"
    assert (res[R["outside"]].value, res[R["duplicates"]].value) == ((0, 2) if twice else (1, 0)), name
    assert res[R["status"]].value.startswith("Fix the data first"), res[R["status"]].value
    for key in ("fleiss_kappa", "p_bar", "p_e", "krippendorff_alpha", "percent_agreement"):
        assert res[R[key]].value == "#N/A", (name, key, res[R[key]].value)
    assert rec["Pairs"][f"K{gen.PAIR_FIRST}"].value == "#N/A"
    assert res.cell(row=gen.P_K_ROW, column=3).value == "#N/A"


def test_data_validation_refuses_typed_labels_outside_the_list():
    """Typing: a list validation over the whole matrix, fed by the category cells, stops any other value."""
    ws = openpyxl.load_workbook(BOOK)["Data"]
    (dv,) = ws.data_validations.dataValidation
    assert dv.type == "list" and dv.errorStyle == "stop" and dv.showErrorMessage and dv.allow_blank
    assert dv.formula1 == f"=${gen.CAT_COL}${gen.CAT_FIRST}:${gen.CAT_COL}${gen.CAT_LAST}"
    assert str(dv.sqref) == f"C{gen.FIRST_ROW}:L{gen.LAST_ROW}"
    # a pasted label skips validation: the conditional format marks it red (Codes = -1)
    rules = [r for cf in ws.conditional_formatting for r in cf.rules if r.type == "expression"]
    assert any(f"Codes!C{gen.FIRST_ROW}=-1" in r.formula[0] for r in rules)


def test_rendered_to_pdf(tmp_path):
    """LibreOffice prints the visible sheets (Start, Data, Results, Items, Pairs; Codes is hidden) on a handful of
    pages: the Start sheet on one portrait page, Results on one (its chart beside the tables), Pairs without its
    count columns. pdftoppm turns them into PNGs when IAA_TEMPLATE_RENDER_DIR is set (for a look)."""
    import os
    import shutil
    import subprocess

    (pdf,) = convert([BOOK], "pdf", tmp_path / "pdf", tmp_path)
    text = pdf.read_bytes()
    pages = len(re.findall(rb"/Type\s*/Page[^s]", text))
    assert 8 <= pages <= 20, pages
    keep = os.environ.get("IAA_TEMPLATE_RENDER_DIR")
    if keep and shutil.which("pdftoppm"):
        Path(keep).mkdir(parents=True, exist_ok=True)
        subprocess.run(["pdftoppm", "-png", "-r", "70", str(pdf), str(Path(keep) / "class")], check=True, timeout=120)


def test_workbook_stands_alone():
    """No reference to material that is not in the file (the classroom exercise, the project's seeds), annotators
    and pairs numbered from 1 (ann 1, pair 1-2), and the Start sheet tells teachers where the answer is."""
    wb = openpyxl.load_workbook(BOOK)
    text = "\n".join(
        c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, str)
    ).lower()
    for gone in ("exercise", "seed", "#name?"):
        assert gone not in text, gone
    assert (
        [wb["Data"][f"{col}6"].value for col in gen.ANN_COLS[:3]]
        == gen.EXAMPLE_ANNOTATORS
        == ["ann 1", "ann 2", "ann 3"]
    )
    assert wb["Pairs"][f"A{gen.PAIR_FIRST}"].value == "1-2"
    start = [c.value for c in wb["Start"]["A"] if c.value]
    (teachers,) = [line for line in start if line.startswith("For teachers")]
    assert f"row {gen.FIRST_ROW + gen.TIE_ITEM - 1}" in teachers and gen.TIE_CHECK.startswith("D")
