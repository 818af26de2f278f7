#!/usr/bin/env python
"""Generate the class-sized agreement workbook (``templates/class_workbook.xlsx``) with openpyxl.

    python templates/make_class_workbook.py            # writes templates/class_workbook.xlsx
    python templates/make_class_workbook.py --out DIR

A class pastes its own annotations - up to MAX_ANN = 10 annotators (columns) × MAX_ITEMS = 200 items (rows) with
up to MAX_CATS = 10 categories - into the yellow matrix of the **Data** sheet and declares its categories beside it.
Every formula is sized for the maximum and follows the filled part: blank cells are missing annotations, blank rows
(items without a label) and blank columns (annotators without a label) drop out of every count, as they do in
``iaa_engine``. Native formulas only, from the classic function set (SUMPRODUCT, COUNTIF, SUMSQ, INDEX, MATCH,
EXACT, LEN, TRIM, IF, IFERROR, ...; no LET, TEXTJOIN, UNIQUE, dynamic arrays, array entry or add-in): Excel 2010+,
LibreOffice and Google Sheets compute it as it is.

Orientation: **one item per row, one annotator per column** (how most spreadsheets hold annotations).

What a cell holds and how the workbook reads it (the README says the same):

* A cell whose text is empty or only spaces is a missing annotation (the engine: blank or whitespace).
* Any other value must be one of the declared categories, exactly: same type (the number 1 is not the text "1"),
  same case, no extra spaces. Typed values are refused by data validation (a list of the declared categories).
  Pasted values skip validation in every spreadsheet program, so a label outside the list is also caught by the
  formulas: it is marked red on Data, counted in Results!C10, and every result shows ``#N/A`` with a message
  instead of a number, as ``iaa_engine`` refuses labels that are not among the given ``categories`` (ValueError).
  Nothing is silently ignored. The same holds for a category listed twice.
* A new category: type it into the next free cell of the category list; it is counted from then on.

Computed, compared with iaa_engine by ``tests/test_class_workbook.py`` (LibreOffice recalculation, to 1e-9):
Fleiss' kappa with its P-bar and P-bar_e and the category shares p_k (Fleiss 1971 with varying numbers of
annotations: P-bar over the items with two or more, p_k the mean of the items' shares), Krippendorff's alpha
(nominal), the share of unanimous items (percent agreement), Cohen's kappa of every pair of annotators on the items
both annotated (45 pairs), P_j of every item and the majority gold label of every item with ties kept (``1|3``).
``RESULTS`` and the helper functions below name the cells.

The example data is seed 001's matrix A (3 annotators × 15 items, read one item per row; the Start sheet describes it
without referring to the exercise, so the workbook stands alone) plus item 16, on which
annotators 1 and 2 disagree (1 and 3) and annotator 3 gave no label: its gold label is the tie ``1|3``, and a
question on the Results sheet asks for it with a native answer check.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.formatting.rule import ColorScaleRule, FormulaRule
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

HERE = Path(__file__).resolve().parent
FILE_NAME = "class_workbook.xlsx"

MAX_ANN, MAX_ITEMS, MAX_CATS = 10, 200, 10
FIRST_ROW = 7  # first item row on Data, Codes and Items
LAST_ROW = FIRST_ROW + MAX_ITEMS - 1  # 206
ANN_COLS = [get_column_letter(3 + a) for a in range(MAX_ANN)]  # C..L: one column per annotator
CAT_COL = "N"  # Data!N7:N16: the declared categories
CAT_FIRST, CAT_LAST = FIRST_ROW, FIRST_ROW + MAX_CATS - 1
CATS = f"Data!${CAT_COL}${CAT_FIRST}:${CAT_COL}${CAT_LAST}"
MATRIX = f"Data!$C${FIRST_ROW}:${ANN_COLS[-1]}${LAST_ROW}"
CODES = f"Codes!$C${FIRST_ROW}:${ANN_COLS[-1]}${LAST_ROW}"
# Items sheet: n_jk in C..L (category k = 1..10), then n_j, P_j, the largest count, the gold label, unanimity,
# Krippendorff's per-item term, the tied labels joined (helper) and the labels outside the list.
K_COLS = [get_column_letter(3 + k) for k in range(MAX_CATS)]  # C..L
I_N, I_P, I_MAX, I_GOLD, I_UNAN, I_ALPHA, I_JOIN, I_OUT = "M", "N", "O", "P", "Q", "R", "S", "T"
PAIRS = [(x, y) for y in range(MAX_ANN) for x in range(y)]  # ordered by the later annotator: filled columns first
PAIR_FIRST = 7
PAIR_LAST = PAIR_FIRST + len(PAIRS) - 1
TIE_ITEM = 16  # the example's tied item (row FIRST_ROW + 15 on Data)

# Seed 001's matrix A: 3 annotators × 15 items; the workbook holds it one item per row, plus item 16 (the tie).
MATRIX_A = [
    [1, 1, 1, 3, 3, 2, 3, 3, 1, 2, 2, 2, 1, 3, 1],
    [1, 2, 1, 2, 3, 2, 3, 3, 1, 1, 2, 2, 1, 3, 1],
    [2, 1, 1, 3, 3, 2, 3, 3, 2, 2, 2, 2, 2, 3, 1],
]
EXAMPLE = [list(col) for col in zip(*MATRIX_A)] + [[1, 3, None]]  # items × annotators
EXAMPLE_CATEGORIES = [1, 2, 3]
EXAMPLE_ANNOTATORS = ["ann 1", "ann 2", "ann 3"]  # numbered as the columns (and the pairs "1-2", ...)

# Results sheet cells (tests/test_class_workbook.py reads them)
RESULTS = {
    "status": "B3",
    "n_annotators": "C6",
    "n_items": "C7",
    "n_pairable": "C8",
    "n_categories": "C9",
    "outside": "C10",
    "duplicates": "C11",
    "fleiss_kappa": "C14",
    "p_bar": "C15",
    "p_e": "C16",
    "krippendorff_alpha": "C17",
    "percent_agreement": "C18",
}
P_K_ROW = 22  # Results!C22:L22: p_k of the declared categories (row 21: their names)
MATRIX_ROW = 26  # Results!C26:L26 names, B27:B36 names, C27:L36 Cohen's kappa of each pair
TIE_QUESTION = "C40"  # the student's answer: gold label of item 16
# Plan sheet cells (the next study's size: Krippendorff's minimum sample for alpha; tests/test_plan.py reads them)
PLAN = {"alpha_min": "C5", "significance": "C6", "p_c": "C7", "z": "C8", "n": "C10", "n_raw": "C11",
        "n_pairable": "C12", "enough": "C13"}  # fmt: skip
TIE_CHECK = "D40"
TOLERANCE = 0.001

FILL = {
    "input": PatternFill("solid", fgColor="FFF2CC"),
    "calc": PatternFill("solid", fgColor="F2F2F2"),
    "result": PatternFill("solid", fgColor="C6EFCE"),
    "answer": PatternFill("solid", fgColor="FFFFFF"),
    "head": PatternFill("solid", fgColor="D9D9D9"),
}
BAD = PatternFill("solid", fgColor="FFC7CE", bgColor="FFC7CE")
GOOD = PatternFill("solid", fgColor="C6EFCE", bgColor="C6EFCE")
NOT_YET = PatternFill("solid", fgColor="FFEB9C", bgColor="FFEB9C")
THIN = Side(style="thin", color="A6A6A6")
BOX = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
P4 = "0.0000"
COUNT = "0;-0;;@"  # whole numbers, zero shown as an empty cell (the unused rows and columns stay quiet)
OK = "Results!$A$3"  # 1 when every label is a declared category and no category is listed twice
LABELS_PER_ANN = f"Codes!$C${LAST_ROW + 2}:${ANN_COLS[-1]}${LAST_ROW + 2}"  # labels of each annotator


def _cell(ws, ref, value=None, *, fill=None, fmt=None, bold=False, italic=False, size=None, color=None, center=True):
    c = ws[ref]
    c.value = value
    if fill:
        c.fill, c.border = FILL[fill], BOX
    if fmt:
        c.number_format = fmt
    c.font = Font(bold=bold, italic=italic, size=size, color=color)
    if center:
        c.alignment = Alignment(horizontal="center")
    return c


def _head(ws, ref, value):
    return _cell(ws, ref, value, fill="head", bold=True)


def _note(ws, ref, value, **kw):
    c = _cell(ws, ref, value, italic=True, color="404040", center=False, **kw)
    return c


def guarded(formula: str) -> str:
    """A result formula shown only when the data is valid (else #N/A, as the engine raises)."""
    return f"=IF({OK}=1,{formula},NA())"


# ----------------------------------------------------------------------------- sheets


def sheet_start(wb: Workbook) -> None:
    ws = wb.active
    ws.title = "Start"
    lines = [
        ("Agreement on your own annotations", dict(bold=True, size=16)),
        (
            "Class-sized workbook: up to 10 annotators × 200 items × 10 categories, native formulas only",
            dict(bold=True),
        ),
        ("", {}),
        ("What it computes", dict(bold=True, size=13)),
        ("• Fleiss' kappa (with P-bar, P-bar_e and the category shares p_k) for the whole group.", {}),
        ("• Krippendorff's alpha (nominal) and the share of items on which all annotators agree.", {}),
        ("• Cohen's kappa of every pair of annotators, on the items both annotated (table and chart).", {}),
        ("• For every item: its annotations per category, its agreement P_j and its majority gold label.", {}),
        ("• Plan sheet: how many items the next study needs for alpha (Krippendorff's minimum sample).", {}),
        ("", {}),
        ("Steps", dict(bold=True, size=13)),
        ("1. Data sheet: type or paste your categories into Data!N7:N16 (one per cell, from the top).", {}),
        ("2. Data sheet: paste your annotations into Data!C7:L206 - ONE ITEM PER ROW, ONE ANNOTATOR PER COLUMN.", {}),
        ("   Annotator names go into row 6 (Data!C6:L6), item names into column B (optional).", {}),
        ("3. Delete the example data you do not overwrite (select the rest of the yellow block, press Delete).", {}),
        ("4. Results sheet: read the status line first (Results!B3), then the coefficients and the kappa table.", {}),
        ("5. Items sheet: per item counts, P_j and the gold label (ties are kept: 1|3 means 1 and 3 tied).", {}),
        ("", {}),
        ("Rules (the same as the iaa-engine library)", dict(bold=True, size=13)),
        ("• A blank cell (or only spaces) is a missing annotation. Empty rows and columns are simply unused.", {}),
        (
            "• Every other cell must hold a declared category EXACTLY: same case, no extra spaces, and a number is not",
            {},
        ),
        ("  the same as a number stored as text. Typing anything else is refused (data validation). Pasting", {}),
        ("  skips validation, so such labels are also marked red on Data and every result then shows #N/A", {}),
        ("  until you fix the label or add it to the categories: nothing is ignored silently.", {}),
        ("• Fleiss' kappa with a varying number of annotations per item: P-bar is the mean P_j over the items", {}),
        ("  with 2+ annotations; p_k is the mean over items of the share of category k among the item's labels.", {}),
        ("• Cohen's kappa of a pair uses only the items both annotated; 'undefined' when they share none or", {}),
        ("  both used one and the same category throughout (chance agreement 1).", {}),
        ("• Gold label: the category with the most votes; all tied categories are kept, joined by |.", {}),
        ("", {}),
        ("Try it", dict(bold=True, size=13)),
        ("The example: 3 annotators labelled items 1-15 with the categories 1, 2, 3, and item 16, on which", {}),
        ("two annotators disagree and one gave no label. Its gold label is a tie: answer the question at", {}),
        ("Results!B40 and the check beside it turns 'correct'. Then blank a cell, add a category, paste text", {}),
        ("labels: every number follows.", {}),
        ("", {}),
        ("Colours: yellow = input, grey = computed, green = main result, red = a label that is not a category.", {}),
        ("A hidden sheet, Codes, turns each label into its category's position (Unhide Sheet to see it).", {}),
        ("For teachers: there is no hidden answer key; the answer to the question is on the Items sheet (row 22).", {}),
        ("Generated by templates/make_class_workbook.py (iaa-engine); checked against the library.", {}),
    ]
    for r, (text, font) in enumerate(lines, start=1):
        c = ws.cell(row=r, column=1, value=text)
        c.font = Font(**font)
        c.alignment = Alignment(wrap_text=True, vertical="top")  # no line is cut where a wider font is used
    ws.column_dimensions["A"].width = 120
    ws.sheet_view.showGridLines = False


def sheet_data(wb: Workbook) -> None:
    ws = wb.create_sheet("Data")
    _cell(ws, "A1", "Annotations: one item per row, one annotator per column", bold=True, size=14, center=False)
    _note(ws, "A2", "Paste up to 200 items (rows 7-206) × 10 annotators (columns C-L). Blank = no annotation.")
    _note(ws, "A3", "Categories in N7:N16 (one per cell). Red cell = a label that is not a declared category.")
    _head(ws, "B6", "item")
    for a, col in enumerate(ANN_COLS):
        name = EXAMPLE_ANNOTATORS[a] if a < len(EXAMPLE_ANNOTATORS) else f"ann {a + 1}"
        _cell(ws, f"{col}6", name, fill="input", bold=True)
    for j in range(MAX_ITEMS):
        r = FIRST_ROW + j
        _cell(ws, f"B{r}", j + 1, fill="input")
        for a, col in enumerate(ANN_COLS):
            value = EXAMPLE[j][a] if j < len(EXAMPLE) and a < len(EXAMPLE[j]) else None
            _cell(ws, f"{col}{r}", value, fill="input")
    _head(ws, f"{CAT_COL}6", "categories")
    _head(ws, "O6", "status")
    for t in range(MAX_CATS):
        r = CAT_FIRST + t
        _cell(ws, f"{CAT_COL}{r}", EXAMPLE_CATEGORIES[t] if t < len(EXAMPLE_CATEGORIES) else None, fill="input")
        n = f"{CAT_COL}{r}"
        _cell(
            ws,
            f"O{r}",
            f'=IF(LEN(TRIM({n}))=0,"",IF(SUMPRODUCT(({CATS}={n})*EXACT({CATS}&"",{n}&""))>1,"listed twice","ok"))',
            fill="calc",
        )
    dv = DataValidation(
        type="list",
        formula1=f"=${CAT_COL}${CAT_FIRST}:${CAT_COL}${CAT_LAST}",
        allow_blank=True,
        showErrorMessage=True,
        errorStyle="stop",
        errorTitle="Not a category",
        error="Type one of the categories listed in N7:N16, or leave the cell blank (no annotation). "
        "A new category: add it to the list first.",
        showInputMessage=True,
        promptTitle="Annotation",
        prompt="A category of N7:N16, or blank.",
    )
    dv.add(f"C{FIRST_ROW}:{ANN_COLS[-1]}{LAST_ROW}")
    ws.add_data_validation(dv)
    ws.conditional_formatting.add(
        f"C{FIRST_ROW}:{ANN_COLS[-1]}{LAST_ROW}",
        FormulaRule(formula=[f"Codes!C{FIRST_ROW}=-1"], fill=BAD, font=Font(bold=True, color="9C0006")),
    )
    ws.conditional_formatting.add(
        f"O{CAT_FIRST}:O{CAT_LAST}", FormulaRule(formula=[f'O{CAT_FIRST}="listed twice"'], fill=BAD)
    )
    ws.column_dimensions["A"].width = 2
    ws.column_dimensions["B"].width = 7
    for col in ANN_COLS:
        ws.column_dimensions[col].width = 9
    ws.column_dimensions["M"].width = 3
    ws.column_dimensions[CAT_COL].width = 12
    ws.column_dimensions["O"].width = 12
    ws.freeze_panes = f"C{FIRST_ROW}"


def sheet_codes(wb: Workbook) -> None:
    """Each annotation as the position of its category in the list (1..10), 0 when blank, -1 when not a category."""
    ws = wb.create_sheet("Codes")
    _cell(ws, "A1", "Codes: each annotation as the position of its category (0 = blank, -1 = not a category)",
          bold=True, size=12, center=False)  # fmt: skip
    _note(
        ws, "A2", "Computed from Data; nothing to type here. A label matches a category only if it is EXACTLY the same."
    )
    _head(ws, "B6", "item")
    for col in ANN_COLS:
        _cell(ws, f"{col}6", f"=Data!{col}6", fill="head", bold=True)
    pos = f"(ROW({CATS})-ROW(Data!${CAT_COL}${CAT_FIRST})+1)"
    for j in range(MAX_ITEMS):
        r = FIRST_ROW + j
        _cell(ws, f"B{r}", f"=Data!B{r}", fill="calc")
        for col in ANN_COLS:
            x = f"Data!{col}{r}"
            # one match at position p gives p; none gives -1 (a category listed twice is refused on its own)
            f = f'=IF(LEN(TRIM({x}))=0,0,SUMPRODUCT(({CATS}={x})*EXACT({CATS}&"",{x}&"")*(LEN({CATS})>0)*({pos}+1))-1)'
            _cell(ws, f"{col}{r}", f, fill="calc", fmt=COUNT)
    r = LAST_ROW + 2
    _head(ws, f"B{r}", "labels")
    for col in ANN_COLS:
        _cell(ws, f"{col}{r}", f'=COUNTIF({col}{FIRST_ROW}:{col}{LAST_ROW},">0")', fill="calc", fmt="0")
    ws.column_dimensions["A"].width = 2
    ws.freeze_panes = f"C{FIRST_ROW}"
    ws.sheet_state = "hidden"  # machinery: Home > Format > Hide & Unhide > Unhide Sheet shows it


def sheet_items(wb: Workbook) -> None:
    ws = wb.create_sheet("Items")
    _cell(ws, "A1", "Per item: annotations per category, agreement P_j and the majority gold label (ties kept)",
          bold=True, size=12, center=False)  # fmt: skip
    _note(ws, "A2", "n_jk = annotators who chose category k for item j;  n_j = its annotations;  "
          "P_j = (sum_k n_jk^2 - n_j) / (n_j (n_j - 1)) for n_j >= 2.")  # fmt: skip
    _note(ws, "A3", "Gold: the categories with the most votes, joined by | on a tie. Blank rows stay blank.")
    _head(ws, "B6", "item")
    for k, col in enumerate(K_COLS):
        _cell(ws, f"{col}5", k + 1, fmt="0", italic=True, color="808080")  # the category's position
        _cell(ws, f"{col}6", f'=IF(LEN(TRIM(Data!{CAT_COL}{CAT_FIRST + k}))=0,"",Data!{CAT_COL}{CAT_FIRST + k})',
              fill="head", bold=True)  # fmt: skip
    for col, h in zip(
        (I_N, I_P, I_MAX, I_GOLD, I_UNAN, I_ALPHA, I_JOIN, I_OUT),
        ("n_j", "P_j", "most votes", "gold", "unanimous", "alpha term", "tied (helper)", "not a category"),
    ):
        _head(ws, f"{col}6", h)
    for j in range(MAX_ITEMS):
        r = FIRST_ROW + j
        row_codes = f"Codes!$C{r}:${ANN_COLS[-1]}{r}"
        _cell(ws, f"B{r}", f"=Data!B{r}", fill="calc")
        for col in K_COLS:
            _cell(ws, f"{col}{r}", f"=COUNTIF({row_codes},{col}$5)", fill="calc", fmt=COUNT)
        ks = f"{K_COLS[0]}{r}:{K_COLS[-1]}{r}"
        n = f"{I_N}{r}"
        _cell(ws, f"{I_N}{r}", f"=SUM({ks})", fill="calc", fmt=COUNT)
        _cell(ws, f"{I_P}{r}", f'=IF({n}>=2,(SUMSQ({ks})-{n})/({n}*({n}-1)),"")', fill="calc", fmt=P4)
        _cell(ws, f"{I_MAX}{r}", f'=IF({n}>0,MAX({ks}),"")', fill="calc", fmt="0")
        join = "&".join(f'IF({col}{r}=${I_MAX}{r},{col}$6&"|","")' for col in K_COLS)
        _cell(ws, f"{I_JOIN}{r}", f'=IF({n}>0,{join},"")', fill="calc")
        _cell(ws, f"{I_GOLD}{r}", f'=IF({n}>0,LEFT({I_JOIN}{r},LEN({I_JOIN}{r})-1),"")', fill="result", bold=True)
        _cell(ws, f"{I_UNAN}{r}", f'=IF({n}>=2,IF({I_MAX}{r}={n},1,0),"")', fill="calc", fmt="0")
        _cell(ws, f"{I_ALPHA}{r}", f'=IF({n}>=2,(SUMSQ({ks})-{n})/({n}-1),"")', fill="calc", fmt=P4)
        _cell(ws, f"{I_OUT}{r}", f"=COUNTIF({row_codes},-1)", fill="calc", fmt=COUNT)
    ws.conditional_formatting.add(f"{I_P}{FIRST_ROW}:{I_P}{LAST_ROW}", agreement_scale())
    ws.column_dimensions["A"].width = 2
    for col in K_COLS:
        ws.column_dimensions[col].width = 6
    for col, w in ((I_P, 8), (I_MAX, 11), (I_GOLD, 10), (I_UNAN, 11), (I_ALPHA, 11), (I_JOIN, 13), (I_OUT, 15)):
        ws.column_dimensions[col].width = w
    ws.freeze_panes = f"C{FIRST_ROW}"


def pair_col(a: str) -> str:
    """Codes column of the annotator whose index (1-based) is in cell ``a``."""
    return f"INDEX({CODES},0,{a})"


def sheet_pairs(wb: Workbook) -> None:
    ws = wb.create_sheet("Pairs")
    _cell(ws, "A1", "Cohen's kappa of every pair of annotators, on the items both annotated",
          bold=True, size=12, center=False)  # fmt: skip
    _note(ws, "A2", "J = items annotated by both;  A = share of J on which they agree;")
    _note(ws, "A3", "E = sum_k n_x(k) n_y(k) / J^2 (counts on J);  kappa = (A - E) / (1 - E).")
    heads = ["pair", "x", "y", "annotator x", "annotator y", "both used", "J", "agree", "A", "E", "kappa", "chart"]
    for col, h in zip("ABCDEFGHIJKL", heads):
        _head(ws, f"{col}6", h)
    nx_cols = [get_column_letter(14 + k) for k in range(MAX_CATS)]  # N..W
    ny_cols = [get_column_letter(14 + MAX_CATS + k) for k in range(MAX_CATS)]  # X..AG
    for k in range(MAX_CATS):
        _head(ws, f"{nx_cols[k]}6", f"n_x({k + 1})")
        _head(ws, f"{ny_cols[k]}6", f"n_y({k + 1})")
        _cell(ws, f"{nx_cols[k]}5", k + 1, fmt="0", italic=True, color="808080")
    for t, (x, y) in enumerate(PAIRS):
        r = PAIR_FIRST + t
        _cell(ws, f"A{r}", f"{x + 1}-{y + 1}", fill="head")
        _cell(ws, f"B{r}", x + 1, fill="head", fmt="0")
        _cell(ws, f"C{r}", y + 1, fill="head", fmt="0")
        _cell(ws, f"D{r}", f"=INDEX(Data!$C$6:${ANN_COLS[-1]}$6,1,B{r})", fill="calc")
        _cell(ws, f"E{r}", f"=INDEX(Data!$C$6:${ANN_COLS[-1]}$6,1,C{r})", fill="calc")
        labels = f"Codes!$C${LAST_ROW + 2}:${ANN_COLS[-1]}${LAST_ROW + 2}"
        _cell(ws, f"F{r}", f"=IF(AND(INDEX({labels},1,B{r})>0,INDEX({labels},1,C{r})>0),1,0)", fill="calc", fmt="0")
        X, Y = pair_col(f"$B{r}"), pair_col(f"$C{r}")
        _cell(ws, f"G{r}", f"=SUMPRODUCT(({X}>0)*({Y}>0))", fill="calc", fmt=COUNT)
        _cell(ws, f"H{r}", f"=SUMPRODUCT(({X}>0)*({Y}>0)*({X}={Y}))", fill="calc", fmt=COUNT)
        for k in range(MAX_CATS):
            _cell(ws, f"{nx_cols[k]}{r}", f"=SUMPRODUCT(({X}={nx_cols[k]}$5)*({Y}>0))", fill="calc", fmt=COUNT)
            _cell(ws, f"{ny_cols[k]}{r}", f"=SUMPRODUCT(({Y}={nx_cols[k]}$5)*({X}>0))", fill="calc", fmt=COUNT)
        _cell(ws, f"I{r}", f'=IF(G{r}>0,H{r}/G{r},"")', fill="calc", fmt=P4)
        nx = f"{nx_cols[0]}{r}:{nx_cols[-1]}{r}"
        ny = f"{ny_cols[0]}{r}:{ny_cols[-1]}{r}"
        _cell(ws, f"J{r}", f'=IF(G{r}>0,SUMPRODUCT({nx},{ny})/G{r}^2,"")', fill="calc", fmt=P4)
        kappa = f'IF(F{r}=0,"",IF(G{r}=0,"undefined",IF(J{r}=1,"undefined",(I{r}-J{r})/(1-J{r}))))'
        _cell(ws, f"K{r}", guarded(kappa), fill="result", fmt=P4, bold=True)
        _cell(ws, f"L{r}", f"=IF(ISNUMBER(K{r}),K{r},NA())", fill="calc", fmt=P4)  # the chart skips #N/A
    ws.conditional_formatting.add(f"K{PAIR_FIRST}:K{PAIR_LAST}", agreement_scale())
    ws.print_area = f"A1:K{PAIR_LAST}"  # the counts n_x(k), n_y(k) and the chart column stay on screen only
    ws.column_dimensions["A"].width = 7
    for col in "DE":
        ws.column_dimensions[col].width = 12
    ws.freeze_panes = f"B{PAIR_FIRST}"


def agreement_scale() -> ColorScaleRule:
    """Colour scale for agreement cells: red at 0 (chance), yellow at 0.6, green at 1 (perfect)."""
    return ColorScaleRule(
        start_type="num", start_value=0, start_color="F8696B",
        mid_type="num", mid_value=0.6, mid_color="FFEB84",
        end_type="num", end_value=1, end_color="63BE7B",
    )  # fmt: skip


def sheet_results(wb: Workbook) -> None:
    ws = wb.create_sheet("Results", 2)
    _cell(ws, "A1", "Agreement of your annotators", bold=True, size=16, center=False)
    items = f"Items!$%s${FIRST_ROW}:$%s${LAST_ROW}"
    n_col = items % (I_N, I_N)
    R = RESULTS
    # status: H3 = 1 when the data can be read
    # A3 (left of the status line, so its text can run on to the right): 1 when the data can be read
    _cell(ws, "A3", f"=IF(AND({R['outside']}=0,{R['duplicates']}=0),1,0)", fmt="0", color="FFFFFF")
    ws[R["status"]].value = (
        f'=IF(A3=1,"Data read: "&{R["n_items"]}&" items, "&{R["n_annotators"]}&" annotators, "'
        f'&{R["n_categories"]}&" categories.","Fix the data first: "&{R["outside"]}&" label(s) not among the '
        f'categories (red on Data), "&{R["duplicates"]}&" category(ies) listed twice. Results show #N/A until then.")'
    )
    ws[R["status"]].font = Font(bold=True, size=12)
    ws.conditional_formatting.add(R["status"], FormulaRule(formula=["$A$3=0"], fill=BAD, font=Font(color="9C0006")))
    ws.conditional_formatting.add(R["status"], FormulaRule(formula=["$A$3=1"], fill=GOOD, font=Font(color="006100")))
    _cell(ws, "B5", "Size of the data", bold=True, center=False)
    size_rows = [
        ("n_annotators", "annotators with a label", f'=COUNTIF({LABELS_PER_ANN},">0")'),
        ("n_items", "items with a label", f'=COUNTIF({n_col},">0")'),
        ("n_pairable", "items with 2+ labels", f'=COUNTIF({n_col},">=2")'),
        ("n_categories", "categories declared", f"=SUMPRODUCT(--(LEN(TRIM({CATS}))>0))"),
        ("outside", "labels not among the categories", f"=COUNTIF({CODES},-1)"),
        ("duplicates", "categories listed twice", f'=COUNTIF(Data!$O${CAT_FIRST}:$O${CAT_LAST},"listed twice")'),
    ]  # fmt: skip
    for key, label, f in size_rows:
        r = int(R[key][1:])
        _cell(ws, f"B{r}", label, center=False)
        _cell(ws, R[key], f, fill="calc", fmt="0")
    ws.conditional_formatting.add(f"{R['outside']}:{R['duplicates']}", FormulaRule(formula=["C10>0"], fill=BAD))
    _cell(ws, "B13", "Agreement", bold=True, center=False)
    p_k = f"$C${P_K_ROW}:$L${P_K_ROW}"
    pbar = f'IF({R["n_pairable"]}=0,"undefined",AVERAGE({items % (I_P, I_P)}))'
    pe = f'IF({R["n_items"]}=0,"undefined",SUMSQ({p_k}))'
    pb, pe_ = R["p_bar"], R["p_e"]
    fleiss = f'IF(OR(ISTEXT({pb}),ISTEXT({pe_})),"undefined",IF({pe_}=1,"undefined",({pb}-{pe_})/(1-{pe_})))'
    n_tot = f"SUMPRODUCT(({n_col}>=2)*{n_col})"
    nk = ",".join(
        f"SUMPRODUCT(({n_col}>=2)*Items!${c}${FIRST_ROW}:${c}${LAST_ROW})" for c in K_COLS
    )  # pairable values per category
    # nominal alpha = ((n-1) sum_j sum_k n_jk(n_jk-1)/(n_j-1) - sum_k n_k(n_k-1)) / (n(n-1) - sum_k n_k(n_k-1))
    sq = f"(SUMSQ({nk})-{n_tot})"
    alpha = (
        f'IF({R["n_pairable"]}=0,"undefined",IF({n_tot}*({n_tot}-1)-{sq}=0,"undefined",'
        f"(({n_tot}-1)*SUM({items % (I_ALPHA, I_ALPHA)})-{sq})/({n_tot}*({n_tot}-1)-{sq})))"
    )
    pa = f'IF({R["n_pairable"]}=0,"undefined",AVERAGE({items % (I_UNAN, I_UNAN)}))'
    rows = [
        ("fleiss_kappa", "Fleiss' kappa", fleiss, "result"),
        ("p_bar", "  P-bar (observed agreement, items with 2+ labels)", pbar, "calc"),
        ("p_e", "  P-bar_e = sum_k p_k^2 (chance agreement)", pe, "calc"),
        ("krippendorff_alpha", "Krippendorff's alpha (nominal)", alpha, "result"),
        ("percent_agreement", "Percent agreement (share of unanimous items)", pa, "result"),
    ]
    for key, label, f, fill in rows:
        r = int(R[key][1:])
        _cell(ws, f"B{r}", label, center=False, bold=fill == "result")
        _cell(ws, R[key], guarded(f), fill=fill, fmt=P4, bold=fill == "result")
    for key in ("fleiss_kappa", "krippendorff_alpha", "percent_agreement"):
        ws.conditional_formatting.add(R[key], agreement_scale())
    _note(ws, "B19", "0 = chance level, 1 = perfect agreement; 'undefined' when there is nothing to compare.")
    _cell(ws, f"B{P_K_ROW - 2}", "Category shares p_k (mean over items of the share of k among the item's labels)",
          bold=True, center=False)  # fmt: skip
    _head(ws, f"B{P_K_ROW - 1}", "category")
    _head(ws, f"B{P_K_ROW}", "p_k")
    for k, col in enumerate(K_COLS):
        _cell(ws, f"{col}{P_K_ROW - 1}", f"=Items!{col}6", fill="head", bold=True)
        share = f"SUMPRODUCT(Items!{col}${FIRST_ROW}:{col}${LAST_ROW}/({n_col}+({n_col}=0)))/{R['n_items']}"
        _cell(ws, f"{col}{P_K_ROW}", guarded(f'IF(OR({col}{P_K_ROW - 1}="",{R["n_items"]}=0),"",{share})'),
              fill="calc", fmt=P4)  # fmt: skip
    _cell(ws, f"B{MATRIX_ROW - 1}", "Cohen's kappa of each pair of annotators (items both annotated)",
          bold=True, center=False)  # fmt: skip
    for a, col in enumerate(K_COLS):
        _cell(ws, f"{col}{MATRIX_ROW}", f"=Data!{ANN_COLS[a]}6", fill="head", bold=True)
        _cell(ws, f"B{MATRIX_ROW + 1 + a}", f"=Data!{ANN_COLS[a]}6", fill="head", bold=True)
    for x in range(MAX_ANN):
        for y in range(MAX_ANN):
            ref = f"{K_COLS[y]}{MATRIX_ROW + 1 + x}"
            if x == y:
                _cell(ws, ref, None, fill="head")
                continue
            key = f"{min(x, y) + 1}-{max(x, y) + 1}"
            _cell(ws, ref, f'=INDEX(Pairs!$K${PAIR_FIRST}:$K${PAIR_LAST},MATCH("{key}",Pairs!$A${PAIR_FIRST}:'
                  f"$A${PAIR_LAST},0))", fill="calc", fmt="0.000")  # fmt: skip
    grid = f"C{MATRIX_ROW + 1}:L{MATRIX_ROW + MAX_ANN}"
    ws.conditional_formatting.add(grid, agreement_scale())
    # the tie question (a native answer check, as in the classroom exercise)
    r = int(TIE_QUESTION[1:])
    _cell(ws, f"B{r - 1}", "Your turn: ties are kept", bold=True, center=False)
    gold = f"Items!${I_GOLD}${FIRST_ROW + TIE_ITEM - 1}"
    _cell(ws, f"B{r}", f"Gold label of item {TIE_ITEM}:", center=False)
    _cell(ws, TIE_QUESTION, None, fill="input")
    ws[
        TIE_CHECK
    ].value = f'=IFERROR(IF({TIE_QUESTION}="","",IF({TIE_QUESTION}&""={gold}&"","correct","not yet")),"not yet")'
    ws[TIE_CHECK].fill, ws[TIE_CHECK].border = FILL["answer"], BOX
    ws[TIE_CHECK].font = Font(bold=True)
    ws.conditional_formatting.add(TIE_CHECK, FormulaRule(formula=[f'{TIE_CHECK}="correct"'], fill=GOOD))
    ws.conditional_formatting.add(TIE_CHECK, FormulaRule(formula=[f'{TIE_CHECK}="not yet"'], fill=NOT_YET))
    _note(ws, f"B{r + 1}", "A tie keeps every tied category, in the order of the category list, joined by |.")
    _note(ws, f"B{r + 2}", f"Check it on the Items sheet (row {FIRST_ROW + TIE_ITEM - 1}): how many votes does each "
          "category get?")  # fmt: skip
    # chart of the pairwise kappas (pairs of filled columns come first)
    chart = BarChart()
    chart.type = "col"
    chart.title = "Pairwise Cohen's kappa"
    chart.y_axis.title = "kappa"
    chart.x_axis.title = "annotator pair (column numbers)"
    chart.y_axis.scaling.min = -0.2
    chart.y_axis.scaling.max = 1
    chart.y_axis.number_format = "0.0"
    chart.x_axis.delete = chart.y_axis.delete = False
    chart.legend = None
    pairs = wb["Pairs"]
    n_shown = 15  # the pairs of the first six annotators
    chart.add_data(Reference(pairs, min_col=12, min_row=PAIR_FIRST - 1, max_row=PAIR_FIRST + n_shown - 1),
                   titles_from_data=True)  # fmt: skip
    chart.set_categories(Reference(pairs, min_col=1, min_row=PAIR_FIRST, max_row=PAIR_FIRST + n_shown - 1))
    chart.height, chart.width = 6.5, 15
    ws.add_chart(chart, "E4")
    ws.column_dimensions["A"].width = 2
    ws.column_dimensions["B"].width = 46
    for col in K_COLS:
        ws.column_dimensions[col].width = 8
    ws.column_dimensions["C"].width = 10
    ws.sheet_view.showGridLines = False


def sheet_plan(wb: Workbook) -> None:
    """The next study's size: Krippendorff's (2019) minimum number of units for alpha, after Bloch & Kraemer (1989),
    from the smallest acceptable alpha, a level of significance and the least frequent category's share p_k."""
    ws = wb.create_sheet("Plan", 3)
    P = PLAN
    _cell(ws, "A1", "Plan the next study: how many items?", bold=True, size=16, center=False)
    _note(ws, "B3", "How many items must two annotators label for alpha to be shown at least as high as the smallest "
          "value you accept? Krippendorff (2019), after Bloch & Kraemer (1989).")  # fmt: skip
    rows = [
        ("alpha_min", "Smallest acceptable alpha (0.800; 0.667 for tentative conclusions)", 0.8, "input", "0.000"),
        ("significance", "Level of significance (one-sided)", 0.05, "input", "0.000"),
        ("p_c", "Share of the least frequent category, p_c (the smallest p_k on Results)",
         guarded(f'IF(MIN(Results!$C${P_K_ROW}:$L${P_K_ROW})=0,"undefined",MIN(Results!$C${P_K_ROW}:$L${P_K_ROW}))'),
         "calc", P4),
        ("z", "  z of the level of significance", f"=NORMSINV(1-{P['significance']})", "calc", P4),
    ]  # fmt: skip
    for key, label, value, fill, fmt in rows:
        r = int(P[key][1:])
        _cell(ws, f"B{r}", label, center=False)
        _cell(ws, P[key], value, fill=fill, fmt=fmt)
    a, pc, z = P["alpha_min"], P["p_c"], P["z"]
    raw = f"2*{z}^2*((1+{a})*(3-{a})/(4*(1-{a})*{pc}*(1-{pc}))-{a})"
    _cell(ws, f"B{int(P['n'][1:])}", "Minimum number of items (rounded up)", bold=True, center=False)
    _cell(ws, P["n"], f'=IF(ISTEXT({pc}),"undefined",ROUNDUP({raw},0))', fill="result", fmt="0", bold=True)
    _cell(ws, f"B{int(P['n_raw'][1:])}", "  before rounding", center=False)
    _cell(ws, P["n_raw"], f'=IF(ISTEXT({pc}),"undefined",{raw})', fill="calc", fmt="0.00")
    _cell(ws, f"B{int(P['n_pairable'][1:])}", "Items with 2+ labels in your data", center=False)
    _cell(ws, P["n_pairable"], f"=Results!{RESULTS['n_pairable']}", fill="calc", fmt="0")
    _cell(ws, f"B{int(P['enough'][1:])}", "Enough for the next study already?", center=False)
    enough = P["enough"]
    ws[enough].value = f'=IFERROR(IF(ISTEXT({P["n"]}),"",IF({P["n_pairable"]}>={P["n"]},"enough","not yet")),"")'
    ws[enough].fill, ws[enough].border, ws[enough].font = FILL["answer"], BOX, Font(bold=True)
    ws.conditional_formatting.add(enough, FormulaRule(formula=[f'{enough}="enough"'], fill=GOOD))
    ws.conditional_formatting.add(enough, FormulaRule(formula=[f'{enough}="not yet"'], fill=NOT_YET))
    for ref, low, high, what in ((a, 0, 0.999, "an alpha from 0 to 0.999"), (P["significance"], 0.0001, 0.5,
                                 "a level from 0.0001 to 0.5")):  # fmt: skip
        dv = DataValidation(type="decimal", operator="between", formula1=str(low), formula2=str(high),
                            showErrorMessage=True, errorStyle="stop", error=f"Type {what}.")  # fmt: skip
        ws.add_data_validation(dv)
        dv.add(ref)
    notes = [
        "N = 2 z^2 [ (1 + a)(3 - a) / (4 (1 - a) p_c (1 - p_c)) - a ], a the smallest acceptable alpha.",
        "A rarer category needs more items: the chance of seeing it often enough to tell agreement from chance falls.",
        "More annotators per item, missing labels or another coefficient: iaa-engine's ie.plan_simulation (the",
        "add-in's IAA_SAMPLE_SIZE_SIM, iaa plan simulate on the command line) simulates the design from these data.",
        'The add-in\'s =IAA_SAMPLE_SIZE("alpha", , , 0.8, p_c) and iaa plan alpha --null 0.8 --prevalence p_c give N.',
    ]
    for k, text in enumerate(notes):
        _note(ws, f"B{16 + k}", text)
    ws.column_dimensions["A"].width = 2
    ws.column_dimensions["B"].width = 70
    ws.column_dimensions["C"].width = 12
    ws.sheet_view.showGridLines = False


def build() -> Workbook:
    wb = Workbook()
    sheet_start(wb)
    sheet_data(wb)
    sheet_codes(wb)
    sheet_items(wb)
    sheet_pairs(wb)
    sheet_results(wb)  # inserted after Data
    sheet_plan(wb)  # after Results
    for ws in wb.worksheets:
        ws.page_setup.orientation = "portrait" if ws.title == "Start" else "landscape"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
    return wb


def write(out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / FILE_NAME
    build().save(path)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=HERE, help="output folder (default: templates/)")
    args = ap.parse_args(argv)
    print(write(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
