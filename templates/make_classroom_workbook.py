#!/usr/bin/env python
"""Generate the classroom workbook of the annotation-analysis exercise (seed 001 of the project) with openpyxl.

    python templates/make_classroom_workbook.py            # writes templates/classroom_solution.xlsx
                                                           #    and templates/classroom_exercise.xlsx
    python templates/make_classroom_workbook.py --out DIR

The workbooks stand alone: every formula, worked number and instruction a student needs is in them (no reference to
an exercise sheet that is not shipped), annotators are numbered 1..3 everywhere (sheets, pairs, the add-in's
arguments), and the Start sheet says what the hidden answer keys are for a teacher.

Every step is a native formula from the classic function set (SUM, COUNT, COUNTIF, COUNTIFS, SUMSQ, SUMPRODUCT, IF,
AVERAGE, ...), so Excel 2010+ and LibreOffice compute it; no LET, XLOOKUP or dynamic-array functions.

Blank cells of the matrix are missing annotations and every step treats them as iaa_engine does (the sheets say
so): Cohen's kappa of a pair counts the items both annotated (J, row "both?"); Fleiss' P_j needs 2+ labels (blank
otherwise) and P-bar is the mean over the instances that have it; p_k is the mean over the labelled instances of
their shares n_kj/n_j (the pooled share when every instance has the same number of labels); Freq_i(k) counts
annotator i's own labels and a blank gives no vote. ``tests/test_excel_template.py`` blanks a cell and compares.

Beside each result a check cell calls the iaa-engine add-in (FLEISS(...), COHEN(...), ...), guarded by the probe
cell ADDIN (Data!B9: "yes" when the add-in answered, "no" when its function is unknown, i.e. ``ERROR.TYPE`` 5 =
#NAME?): ``=IF(Data!$B$9="yes",FLEISS(...),"needs the add-in")``. Without the add-in (LibreOffice, Google Sheets,
Excel without it) the grey cells say "needs the add-in" instead of #NAME?; with it they compute, and the add-in's own
error values (#VALUE! with a reason, #DIV/0! when undefined) pass through unchanged.
Every check cell states the orientation of its range (``layout``): "rows" for the annotators × items matrix of the
Data and SPA sheets, "columns" for the spans × annotators table of the Alpha sheet; the add-in's default, "auto",
would refuse a square matrix (e.g. after a class pastes 3 annotators × 3 items).

Check cells whose function returns a table (IAA_REPORT, ITEM_AGREEMENT, BCR_WEIGHTS, GOLD) spill. Written as plain
formulas, Excel 365 would read them as legacy formulas (``=@GOLD(...)``, only the top-left value). They are written
as array formulas sized to the table the add-in returns for the seed data (``<f t="array" ref="B12:C32">``: Excel
2010-2019 and LibreOffice compute a sized Ctrl-Shift-Enter array), and after saving :func:`mark_dynamic_arrays` adds
what makes Excel 365 treat them as dynamic arrays that spill to the size of the result: the cell attribute ``cm="1"``
pointing at a cell-metadata block of ``xl/metadata.xml`` whose type XLDAPR carries ``fDynamic="1"``, with that part's
content type and workbook relationship (the layout XlsxWriter's ``write_dynamic_array_formula`` writes; openpyxl
cannot write it). Without the add-in they show an inline array of the same size: "needs the add-in" in the top-left
cell, the rest blank. :func:`spills` lists them.

The solution version has every step; the exercise version keeps the inputs and the worked examples (pair 1-2 of
Cohen's kappa, instance 1 of Fleiss' kappa, Freq_1(k), Freq(k) and w_11) and leaves the other step cells (blue)
empty for students.

Answer checks without the add-in: beside each answer (A, E, kappa of each Cohen pair; P-bar, P-bar_e, Fleiss'
kappa; the 60 gold labels; SPA under six schemes; p_a', p_a, p_e, alpha) a native formula (IF, ABS, IFERROR) shows
"correct" (a number within TOLERANCE = 0.001 of the answer; a gold label equal as text, so 1 and "1" agree, ties
as "1|2"), "not yet" (anything else, an error value included) or nothing while the answer is blank. It compares
with the same cell of a hidden sheet "Key <sheet>": the solution's steps built by the same code, computing from the
workbook's own inputs (Data; the typed matrix of SPA; the spans of Alpha), so the checks follow edited data and
work in Excel, LibreOffice and Google Sheets. ``CHECKS`` lists them (key, sheet, answer cell, check cell, kind).
The keys are hidden, not protected: the Start sheet tells teachers so.

Inputs (yellow) are typed values only; a cell that copies another one by formula is light grey ("copy"). The
matrices on Data and SPA accept only the labels of CATEGORIES or a blank (data validation with an error message);
P_j (Fleiss) and the pairwise kappas (a summary table under the Cohen blocks, with a bar chart) have a colour scale.
The Start sheet (first) has learning goals, numbered STEPS naming the cells to fill, HINTS and how the checks work.

``CELLS`` lists every computed cell (key, sheet, cell, given in the exercise); the tests in
``tests/test_excel_template.py`` recalculate both versions in LibreOffice and compare each with iaa_engine.
"""

from __future__ import annotations

import argparse
import io
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.comments import Comment
from openpyxl.formatting.rule import ColorScaleRule, FormulaRule
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.worksheet.pagebreak import Break

HERE = Path(__file__).resolve().parent

# Seed 001, "Data": matrix A, 3 annotators (rows) × 15 instances (columns), categories 1-3.
MATRIX_A = [
    [1, 1, 1, 3, 3, 2, 3, 3, 1, 2, 2, 2, 1, 3, 1],
    [1, 2, 1, 2, 3, 2, 3, 3, 1, 1, 2, 2, 1, 3, 1],
    [2, 1, 1, 3, 3, 2, 3, 3, 2, 2, 2, 2, 2, 3, 1],
]
CATEGORIES = [1, 2, 3]
N_ANN, N_ITEMS = 3, 15
# SPA sheet: cells of the sparse copy left blank (annotator, item), 0-based; item 11 keeps one annotation only.
SPARSE_BLANKS = [(0, 1), (1, 4), (2, 7), (0, 10), (1, 10), (2, 12)]
SPA_SCHEMES = ("flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class")
BCR_RULES = {
    "diff": ("difference-based", "w_ik = 1 + Freq(k) - Freq_i(k)"),
    "rat": ("ratio-based", "w_ik = Freq(k) / Freq_i(k)"),
    "com": ("complement-based", "w_ik = 1 + 1/|K| - Freq_i(k)"),
    "inv": ("inverse-based", "w_ik = 1 / Freq_i(k)"),
}
# Seed 002, Table 1: spans labelled by Labeler A and the Reviewer (None = no label).
SEED002_SPANS = [
    ("The Tragedy of Hamlet", "EVE", "TITLE"),
    ("Prince of Denmark", "PER", None),
    ("Hamlet", "PER", "PER"),
    ("William Shakespeare", "PER", "PER"),
    ("1599", "YEAR", "YEAR"),
    ("1601", "YEAR", "YEAR"),
    ("Shakespeare", "ORG", "PER"),
    ("30557", None, "QTY"),
]
SEED002_LABELS = ["EVE", "ORG", "PER", "TITLE", "YEAR"]  # Table 3 (after cleaning): m = 5 labels

DATA = "Data!$B$5:$P$7"  # the matrix on the Data sheet
ROWS = '"rows"'  # the add-in's layout argument for DATA: one row per annotator (stated, not left to "auto")
COLS = [get_column_letter(2 + j) for j in range(N_ITEMS)]  # B..P: one column per item
FIRST, LAST = COLS[0], COLS[-1]
# Rows of the add-in's IAA_REPORT table: a header, 5 counts, the core's 9 metrics (iaa_engine.METRICS) and SPA under
# its 6 weighting schemes. tests/test_excel_template.py checks every spill size against the add-in's real output.
REPORT_ROWS = 21

# ----------------------------------------------------------------------------- styles

FILL = {
    "input": PatternFill("solid", fgColor="FFF2CC"),  # yellow: data you may change
    "step": PatternFill("solid", fgColor="DDEBF7"),  # blue: a step (empty in the exercise)
    "result": PatternFill("solid", fgColor="C6EFCE"),  # green: a result
    "check": PatternFill("solid", fgColor="EDEDED"),  # grey: the add-in's function
    "copy": PatternFill("solid", fgColor="F2F2F2"),  # light grey: copied from another sheet by a formula
    "answer": PatternFill("solid", fgColor="FFFFFF"),  # white, boxed: the native answer check (correct / not yet)
    "head": PatternFill("solid", fgColor="D9D9D9"),
}
GOOD = PatternFill("solid", fgColor="C6EFCE", bgColor="C6EFCE")  # conditional formats: "correct"
NOT_YET = PatternFill("solid", fgColor="FFEB9C", bgColor="FFEB9C")  # "not yet"
THIN = Side(style="thin", color="A6A6A6")
BOX = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
P4 = "0.0000"
CHECK_NOTE = (
    "Optional check: the iaa-engine Excel add-in computes the same value here. Without the add-in (LibreOffice, "
    'Google Sheets, Excel without it) the cell says "needs the add-in"; Data!B9 says whether it was found.'
)
# The add-in probe: "yes" when the add-in's FLEISS answered (a number or one of its own error values), "no" when
# the spreadsheet does not know the function (#NAME?, ERROR.TYPE 5). Every add-in cell is guarded by it.
ADDIN_CELL = "B9"
ADDIN = f"Data!${ADDIN_CELL[0]}${ADDIN_CELL[1:]}"
NEEDS_ADDIN = "needs the add-in"
ADDIN_FUNCS = ("FLEISS", "COHEN", "KALPHA", "SPA", "GOLD", "BCR_WEIGHTS", "IAA_REPORT", "ITEM_AGREEMENT")
ADDIN_PROBE = f'=IF(IFERROR(ERROR.TYPE(FLEISS({DATA},{ROWS}))<>5,TRUE),"yes","no")'


def guarded(call: str, rows: int = 1, cols: int = 1) -> str:
    """``=IF(<add-in found>,<call>,<fallback>)``: the add-in's result, or "needs the add-in" without the add-in.
    A call returning a rows × cols table falls back to an inline array of that size ("needs the add-in" top left,
    the rest blank), so a sized array formula shows the message once."""
    if rows == cols == 1:
        fallback = f'"{NEEDS_ADDIN}"'
    else:
        fallback = "{" + ";".join(",".join(f'"{NEEDS_ADDIN}"' if (r, c) == (0, 0) else '""' for c in range(cols))
                                  for r in range(rows)) + "}"  # fmt: skip
    return f'=IF({ADDIN}="yes",{call.lstrip("=")},{fallback})'


def addin_calls(formula: str) -> list[str]:
    """The add-in calls in ``formula`` (``NAME(args)`` with balanced parentheses, quotes respected)."""
    out = []
    for m in re.finditer(r"(?<![A-Z_.])(" + "|".join(sorted(ADDIN_FUNCS, key=len, reverse=True)) + r")\(", formula):
        depth, quoted = 0, False
        for k in range(m.end() - 1, len(formula)):
            ch = formula[k]
            if ch == '"':
                quoted = not quoted
            elif not quoted and ch == "(":
                depth += 1
            elif not quoted and ch == ")":
                depth -= 1
                if depth == 0:
                    out.append(formula[m.start() : k + 1])
                    break
    return out


CELLS: list[tuple[tuple, str, str, bool]] = []  # (key, sheet, cell, given in the exercise)
# Answer checks without the add-in: (key, sheet, answer cell, check cell, kind "number" | "label").
CHECKS: list[tuple[tuple, str, str, str, str]] = []
TOLERANCE = 0.001  # a number is "correct" within this absolute tolerance; gold labels must match exactly
KEY_PREFIX = "Key "  # hidden sheets "Key Cohen", ... : the solution's steps, computed from the same inputs
KEYED = ("Cohen", "Fleiss", "Gold", "SPA", "Alpha")


def key_sheet(title: str) -> str:
    return f"{KEY_PREFIX}{title}"


def answer_formula(cell: str, key_ref: str, kind: str) -> str:
    """The native answer check of ``cell``: blank -> blank; a number within TOLERANCE of the key (or, for a gold
    label, the same text: 1 and "1" are the same label, ties as "1|2") -> "correct"; anything else, an error
    included -> "not yet". Classic functions only (IF, ABS, IFERROR)."""
    if kind == "label":
        test = f'{cell}&""={key_ref}&""'
    else:
        test = f"ABS({cell}-{key_ref})<={TOLERANCE}"
    return f'=IFERROR(IF({cell}="","",IF({test},"correct","not yet")),"not yet")'


class Sheet:
    """Writes one sheet; in exercise mode, step cells that are not worked examples stay empty."""

    def __init__(self, wb: Workbook, title: str, exercise: bool, record: bool, key: bool = False) -> None:
        """``key``: the hidden answer-key copy of sheet ``title`` (every step, no add-in cells, no answer checks)."""
        self.ws = wb.create_sheet(key_sheet(title) if key else title)
        self.title = title
        self.key = key
        self.exercise = exercise and not key
        self.record = record and not key
        if key:
            self.ws.sheet_state = "hidden"

    def text(self, cell: str, value, *, bold=False, italic=False, size=None, fill=None, wrap=False, color=None):
        c = self.ws[cell]
        c.value = value
        if isinstance(value, str) and value.startswith("= "):
            c.data_type = "s"  # an explanation such as "= mean of P_j" is text, not a formula
        c.font = Font(bold=bold, italic=italic, size=size, color=color)
        if fill:
            c.fill = FILL[fill]
            c.border = BOX
        if wrap:
            c.alignment = Alignment(wrap_text=True, vertical="top")
        return c

    def head(self, cell: str, value):
        c = self.text(cell, value, bold=True, fill="head")
        c.alignment = Alignment(horizontal="center")
        return c

    def given(self, cell: str, value, fmt: str | None = None, *, key: tuple | None = None):
        """Input (yellow, a typed value) or a copy of another cell (a formula: light grey, not an input), present
        in both versions."""
        c = self.ws[cell]
        c.value = value
        c.fill = FILL["copy" if isinstance(value, str) and value.startswith("=") else "input"]
        c.border = BOX
        c.alignment = Alignment(horizontal="center")
        if fmt:
            c.number_format = fmt
        if key is not None and self.record:
            CELLS.append((key, self.title, cell, True))
        return c

    def step(
        self, cell: str, formula: str, key: tuple | None, fmt: str = P4, *, worked: bool = False, kind: str = "step"
    ):
        """A computed step; ``worked`` = shown in the exercise too (a worked example)."""
        c = self.ws[cell]
        c.value = formula if (worked or not self.exercise) else None
        c.fill = FILL[kind]
        c.border = BOX
        c.number_format = fmt
        c.alignment = Alignment(horizontal="center")
        if kind == "result":
            c.font = Font(bold=True)
        if key is not None and self.record:
            CELLS.append((key, self.title, cell, worked))
        return c

    def answer(self, cell: str, target: str, key: tuple, kind: str = "number"):
        """A native answer check in ``cell`` for the student's answer in ``target`` (compared with the hidden key
        sheet's same cell)."""
        if self.key:
            return None
        c = self.ws[cell]
        c.value = answer_formula(target, f"'{key_sheet(self.title)}'!{target}", kind)
        c.fill = FILL["answer"]
        c.border = BOX
        c.font = Font(bold=True)
        c.alignment = Alignment(horizontal="center")
        if self.record:
            CHECKS.append((key, self.title, target, cell, kind))
        return c

    def check(
        self, cell: str, formula: str, label_cell: str | None = None, fmt: str = P4, width: int = 2, *, raw=False
    ):
        """An optional add-in cell: ``formula`` (the add-in call) guarded by the probe (:func:`guarded`)."""
        if self.key:
            return None
        if label_cell:
            self.text(label_cell, "add-in:", italic=True, color="595959")
            self.ws[label_cell].alignment = Alignment(horizontal="right")
        c = self.ws[cell]
        c.value = formula if raw else guarded(formula)
        c.fill = FILL["check"]
        c.border = BOX
        c.number_format = fmt
        c.font = Font(italic=True, color="595959")
        c.comment = Comment(CHECK_NOTE, "iaa-engine")
        c.alignment = Alignment(horizontal="center", shrink_to_fit=True)
        if width > 1:
            self.ws.merge_cells(f"{cell}:{get_column_letter(c.column + width - 1)}{c.row}")
        return c

    def spill(
        self,
        cell: str,
        formula: str,
        rows: int,
        cols: int,
        label_cell: str | None = None,
        fmt: str = P4,
        *,
        head_row: bool = False,
        head_col: bool = False,
    ):
        """A check cell whose function returns a rows × cols table: an array formula over that range (a sized
        CSE array for Excel 2010-2019 and LibreOffice), made a dynamic, spilling array for Excel 365 after saving
        (:func:`mark_dynamic_arrays`). The whole range gets the check style; header row/column in General."""
        if self.key:
            return None
        c = self.check(cell, formula, label_cell, fmt, width=1)
        last = f"{get_column_letter(c.column + cols - 1)}{c.row + rows - 1}"
        c.value = ArrayFormula(f"{cell}:{last}", guarded(formula, rows, cols))
        for r in range(rows):
            for k in range(cols):
                cc = self.ws.cell(row=c.row + r, column=c.column + k)
                if (r, k) != (0, 0):
                    cc.fill, cc.border, cc.font = FILL["check"], BOX, Font(italic=True, color="595959")
                    cc.alignment = Alignment(horizontal="center")
                cc.number_format = "General" if (head_row and r == 0) or (head_col and k == 0) else fmt
        return c

    def widths(self, first: float, rest: float = 7.5, n: int = 16, extra: dict | None = None):
        self.ws.column_dimensions["A"].width = first
        for j in range(2, n + 1):
            self.ws.column_dimensions[get_column_letter(j)].width = rest
        for col, w in (extra or {}).items():
            self.ws.column_dimensions[col].width = w

    def title_rows(self, title: str, subtitle: str):
        self.text("A1", title, bold=True, size=14)
        self.text("A2", subtitle, italic=True, color="404040")


def item_header(s: Sheet, row: int, label: str = "item j"):
    s.head(f"A{row}", label)
    for col in COLS:
        s.head(f"{col}{row}", f"=Data!{col}$4")


def validate_labels(s: Sheet, rng: str) -> DataValidation:
    """Only the seed's labels (or a blank = missing annotation) may be typed into the matrix ``rng``."""
    labels = ",".join(str(k) for k in CATEGORIES)
    dv = DataValidation(
        type="list",
        formula1=f'"{labels}"',
        allow_blank=True,
        showErrorMessage=True,
        errorStyle="stop",
        errorTitle="Not a category",
        error=f"Type one of the categories {labels}, or leave the cell blank (no annotation).",
        showInputMessage=True,
        promptTitle="Annotation",
        prompt=f"A category ({labels}) or blank.",
    )
    dv.add(rng)
    s.ws.add_data_validation(dv)
    return dv


def agreement_scale() -> ColorScaleRule:
    """Colour scale for agreement cells: red at 0 (chance), yellow at 0.6, green at 1 (perfect)."""
    return ColorScaleRule(
        start_type="num", start_value=0, start_color="F8696B",
        mid_type="num", mid_value=0.6, mid_color="FFEB84",
        end_type="num", end_value=1, end_color="63BE7B",
    )  # fmt: skip


PAIRS = [(0, 1), (0, 2), (1, 2)]  # 0-based annotator indices; shown 1-based everywhere ("annotator 1", "pair 1-2")
COHEN_STRIDE = 16  # rows per pair block on the Cohen sheet
# Row offsets inside a Cohen block: title, item header, a_xj, a_yj, both?, same?, |J|, A, category header, the
# three categories, E, kappa.
C_HEAD, C_AX, C_AY, C_BOTH, C_SAME, C_J, C_A, C_CAT, C_K0, C_E, C_KAPPA = 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13


def cohen_row(t: int, offset: int) -> int:
    """Row of ``offset`` in the block of pair ``t`` (0, 1, 2) on the Cohen sheet."""
    return 4 + COHEN_STRIDE * t + offset


def pair_name(x: int, y: int) -> str:
    return f"{x + 1}{y + 1}"


KAPPA_SUMMARY = cohen_row(len(PAIRS), 0)  # first row of the Cohen sheet's summary table (pairs, kappas) and chart


def kappa_summary(s: Sheet) -> None:
    """Cohen sheet: a table of the three pairwise kappas (copied from the blocks above; blank until filled), a
    colour scale on it and a bar chart of it."""
    r0 = KAPPA_SUMMARY
    s.text(f"A{r0}", "Summary: pairwise Cohen's kappa (fills in as you compute the blocks above)", bold=True, size=12)
    s.head(f"A{r0 + 1}", "pair")
    s.head(f"B{r0 + 1}", "kappa")
    for t, (x, y) in enumerate(PAIRS):
        r = r0 + 2 + t
        kappa = f"B{cohen_row(t, C_KAPPA)}"
        s.head(f"A{r}", f"{x + 1} and {y + 1}")
        c = s.ws[f"B{r}"]
        c.value = f'=IF({kappa}="","",{kappa})'
        c.number_format = P4
        c.border = BOX
        c.fill = FILL["copy"]
        c.alignment = Alignment(horizontal="center")
    s.ws.conditional_formatting.add(f"B{r0 + 2}:B{r0 + 4}", agreement_scale())
    chart = BarChart()
    chart.type = "bar"
    chart.title = "Pairwise Cohen's kappa"
    chart.y_axis.title = "kappa"
    chart.x_axis.title = "annotator pair"
    chart.y_axis.scaling.min = 0
    chart.y_axis.scaling.max = 1
    chart.y_axis.number_format = "0.0"
    chart.x_axis.delete = chart.y_axis.delete = False  # openpyxl 3.1 hides the axes unless told
    chart.legend = None
    chart.add_data(Reference(s.ws, min_col=2, min_row=r0 + 1, max_row=r0 + 4), titles_from_data=True)
    chart.set_categories(Reference(s.ws, min_col=1, min_row=r0 + 2, max_row=r0 + 4))
    chart.height, chart.width = 6.5, 13
    s.ws.add_chart(chart, f"D{r0 + 1}")


# ----------------------------------------------------------------------------- sheets


GOALS = [
    "Compute Cohen's kappa for a pair of annotators by hand: observed agreement A, chance agreement E, "
    "kappa = (A - E)/(1 - E).",
    "Compute Fleiss' kappa for the whole group: the agreement P_j of each instance, its mean P-bar, the chance "
    "agreement P-bar_e from the category shares p_k.",
    "Build a gold standard with the bias-correcting rules (weights w_ik, weighted votes) and keep ties.",
    "See how missing annotations are handled (SPA) and follow Krippendorff's alpha step by step.",
    "Read an agreement number: 0 is chance level, 1 is perfect agreement.",
]


def _cohen_step(t: int) -> str:
    """The cells of Cohen block ``t`` as the Start sheet names them."""

    def rng(off: int) -> str:
        return f"Cohen!{FIRST}{cohen_row(t, off)}:{LAST}{cohen_row(t, off)}"

    x, y = PAIRS[t]
    xy = pair_name(x, y)
    return (
        f"the both? row {rng(C_BOTH)} (1 when both annotated the instance), the same? row {rng(C_SAME)}, "
        f"|J| in Cohen!B{cohen_row(t, C_J)}, A_{xy} in Cohen!B{cohen_row(t, C_A)}, the counts n_x(k), n_y(k) on J "
        f"and p_x(k) p_y(k) in Cohen!B{cohen_row(t, C_K0)}:D{cohen_row(t, C_K0 + 2)}, E_{xy} in "
        f"Cohen!B{cohen_row(t, C_E)} and kappa_{xy} in Cohen!B{cohen_row(t, C_KAPPA)}"
    )


def _cohen_checks(t: int) -> str:
    return ", ".join(f"Cohen!G{cohen_row(t, off)}" for off in (C_A, C_E, C_KAPPA))


# Numbered steps: (title, text). Every Sheet!Cell named here exists (tests/test_excel_template.py checks it).
STEPS = [
    (
        "Data",
        "Look at the annotation matrix Data!B5:P7 (yellow: 3 annotators in rows, 15 instances in columns) and the "
        "categories Data!R5:R7. Only 1, 2, 3 or a blank (no annotation) can be typed into the matrix.",
    ),
    ("Cohen, pair 1-2", f"Read the worked example: {_cohen_step(0)} (= 0.698)."),
    ("Cohen, pair 1-3", f"Fill {_cohen_step(1)}. Your checks: {_cohen_checks(1)}."),
    (
        "Cohen, pair 2-3",
        f"The same: {_cohen_step(2)} (checks {_cohen_checks(2)}). The chart beside "
        f"Cohen!B{KAPPA_SUMMARY + 2}:B{KAPPA_SUMMARY + 4} then shows your three kappas.",
    ),
    (
        "Fleiss",
        "Instance 1 is worked (column B). Fill n_kj in Fleiss!C5:P7, n_j in Fleiss!C8:P8 and P_j in Fleiss!C9:P9; "
        "then P-bar in Fleiss!B11, |J| in Fleiss!B12, the sums of shares and p_k in Fleiss!B14:C16, P-bar_e in "
        "Fleiss!B17 and kappa in Fleiss!B19 (by hand: 0.599). Checks: Fleiss!G11, Fleiss!G17, Fleiss!G19.",
    ),
    (
        "Gold",
        "Counts and totals of annotators 2 and 3 in Gold!B6:E7, their Freq_i(k) in Gold!G6:I7 (annotator 1 and "
        "all annotators are worked). Then, rule by rule, the weights w_ik (rule 'diff': Gold!B14:D16), the "
        "weighted votes (Gold!B18:P20), the best score (Gold!B21:P21) and the gold labels (Gold!B22:P22). "
        "Rules 'rat', 'com' and 'inv' follow in the same layout: gold labels in Gold!B36:P36, Gold!B50:P50, "
        "Gold!B64:P64 (w_11 of 'rat' is worked in Gold!B28). Checks: Gold!B24:P24, Gold!B38:P38, Gold!B52:P52, "
        "Gold!B66:P66.",
    ),
    (
        "SPA",
        "On the sparse matrix SPA!B5:P7 (matrix A with six blanks; a typed copy you may change) compute n_i in "
        "SPA!B8:P8, n_ik in SPA!B9:P11 and P_i in SPA!B12:P12 (blank when fewer than 2 annotations), the class "
        "shares in SPA!B15:C17, C in SPA!F15, q and r in SPA!F16:G17, the item weights in SPA!B20:P27 and SPA "
        "under each scheme in SPA!B31:D36. Checks: SPA!E31:E36.",
    ),
    (
        "Alpha",
        "The label counts are worked. Fill p(a|i,k) in Alpha!K5:O12, p(a|i) in Alpha!P5:P12, p_a' in Alpha!B18, "
        "p_a in Alpha!B19, pi_k in Alpha!F20:J20, p_e in Alpha!B21 and alpha in Alpha!B22 (Datasaur: 0.56). "
        "Checks: Alpha!I18, Alpha!I19, Alpha!I21, Alpha!I22.",
    ),
]
HINTS = [
    "Start from the worked example of each sheet (pair 1-2, instance 1, annotator 1, w_11): look at its formula, "
    "then fill it right or down - relative references do the rest.",
    "COUNTIF(range, k) counts the cells holding category k; COUNTIFS(range, k, both_row, 1) counts them on the "
    "instances where both_row is 1; SUMSQ(range) adds up squares; SUMPRODUCT(r1, r2) multiplies pair by pair and "
    "adds up; COUNT(range) counts the numbers (a blank is not counted).",
    "In Cohen's kappa, J is the set of instances both annotators labelled (|J| = 15 while nothing is blank); in P_j, "
    "n_j is the number of labels of instance j.",
    "A gold label is the category with the largest weighted vote. On a tie type all tied categories, smallest "
    "first, joined by | (for example 1|2).",
    "Keep full precision: refer to cells instead of typing rounded numbers (rounded by hand, E_12 = 0.337; the "
    "exact value is 0.3378).",
    "Change a label on Data, or blank one, and watch every sheet follow; the checks then judge your formulas on the "
    "new data.",
]
MISSING = [
    "A blank cell of a matrix is an annotation that was not made. Every step treats it as the iaa-engine library does:",
    "Cohen's kappa of a pair uses only the instances both annotated (J): A_xy = agreements / |J|, and n_x(k), n_y(k) "
    "count the labels on J, so E_xy = sum_k (n_x(k)/|J|)(n_y(k)/|J|).",
    "Fleiss' kappa: n_j is the number of labels of instance j; P_j needs 2 or more (blank otherwise) and P-bar is "
    "the mean of the P_j shown; p_k is the mean, over the |J| instances with a label, of the share n_kj / n_j of "
    "category k among that instance's labels (with n labels everywhere this is sum_j n_kj / (|J| n)).",
    "Gold standard: Freq_i(k) is the share of annotator i's own labels; a blank gives no vote. SPA and alpha "
    "skip instances with fewer than 2 labels.",
]
CHECKING = [
    'Beside each answer a check cell says "correct" (green) when your number is within 0.001 of the answer, or '
    'your gold label is exactly the answer; "not yet" (orange) otherwise, also for an error value. While the '
    "answer cell is blank, the check stays blank.",
    "The checks are ordinary formulas (IF, ABS, IFERROR): they work in Excel, LibreOffice and Google Sheets without "
    "any add-in. They compare with hidden sheets (Key Cohen, ...) that compute every step from the same inputs - "
    "looking there spoils the exercise.",
    "Optional: with the iaa-engine Excel add-in the grey cells compute each result with the library (Data!B9 says "
    f'"yes"); without it they say "{NEEDS_ADDIN}" - that is expected and changes nothing else.',
]
TEACHERS = [
    "The answer keys are the hidden sheets Key Cohen, Key Fleiss, Key Gold, Key SPA and Key Alpha (the checks "
    "need them). They are hidden, not protected: anyone can show them (Excel: right-click a sheet tab > Unhide; "
    "LibreOffice: Sheet > Show Sheet) and read every answer. Use the checks as a learning aid, not for grading.",
    "classroom_solution.xlsx has every step filled in; classroom_exercise.xlsx is the same workbook with the blue "
    "step cells empty except the worked examples.",
]


def sheet_start(wb: Workbook, exercise: bool) -> None:
    ws = wb.active
    ws.title = "Start"
    version = "EXERCISE: fill in the blue cells" if exercise else "SOLUTION: every step computed"
    rows: list[tuple[str | None, str, dict, str | None]] = [  # (column A, column B, font, fill of column A)
        (None, "Annotation analysis: agreement and gold standard", dict(bold=True, size=16), None),
        (None, f"Classroom workbook - {version}", dict(bold=True, size=12), None),
        (
            None,
            "After an exercise of the course Methods in Computational Linguistics (Franziska Weeber, after material "
            "by Eva Maria Vecchi) and Datasaur's worked example of Krippendorff's alpha. Everything you need - data, "
            "formulas, worked examples, steps - is in this workbook.",
            dict(italic=True),
            None,
        ),
        (None, "", {}, None),
        (None, "Learning goals", dict(bold=True, size=13), None),
        *[("•", g, {}, None) for g in GOALS],
        (None, "", {}, None),
        (None, "Steps", dict(bold=True, size=13), None),
        *[(f"{n}.", f"{title}: {text}", {}, None) for n, (title, text) in enumerate(STEPS, start=1)],
        (None, "", {}, None),
        (None, "Hints", dict(bold=True, size=13), None),
        *[("•", h, {}, None) for h in HINTS],
        (None, "", {}, None),
        (None, "Missing annotations (blank cells)", dict(bold=True, size=13), None),
        *[("•", m, {}, None) for m in MISSING],
        (None, "", {}, None),
        (None, "Checking your answers", dict(bold=True, size=13), None),
        *[("•", c, {}, None) for c in CHECKING],
        (None, "", {}, None),
        (None, "Colours", dict(bold=True, size=13), None),
        (None, "Input: a typed value you may change (the matrix on Data and on SPA, the spans on Alpha).", {}, "input"),
        (None, "Copy: a formula showing a value of another cell (change the input it comes from).", {}, "copy"),
        (None, "Step: a formula of the exercise. In the exercise version these are empty: your turn.", {}, "step"),
        (None, "Result of a section (an answer that has a check).", {}, "result"),
        (None, 'Check without the add-in: "correct" / "not yet" (blank while the answer is blank).', {}, "answer"),
        (None, f'Optional check by the iaa-engine add-in ("{NEEDS_ADDIN}" without it).', {}, "check"),
        (None, "", {}, None),
        (None, "Notes", dict(bold=True, size=13), None),
        (
            "•",
            "Numbering: annotators are 1, 2, 3 everywhere (rows of Data, pairs 1-2, 1-3, 2-3, Freq_1(k), w_11 and "
            "the add-in's COHEN(range, 1, 2))."
            " Rounding: the notes marked 'by hand' round intermediate values as a hand calculation would (E_12 = "
            "0.337, w_11 = 0.832); this workbook keeps full precision and shows 4 decimals (E_12 = 76/225 = 0.3378, "
            "w_11 = 0.8333).",
            {},
            None,
        ),
        (
            "•",
            "Formulas use only the classic function set (Excel 2010+, LibreOffice, Google Sheets).",
            {},
            None,
        ),
        (
            "•",
            'Add-in cells name the layout of their range: "rows" = one row per annotator (Data, SPA), "columns" = '
            "one column per annotator (Alpha). Those returning a table are array formulas: Excel 365 spills them, "
            "Excel 2010-2019 fills the grey block.",
            {},
            None,
        ),
        ("•", "Generated by templates/make_classroom_workbook.py (iaa-engine); checked against iaa_engine.", {}, None),
        (None, "", {}, None),
        (None, "For teachers", dict(bold=True, size=13), None),
        *[("•", t, {}, None) for t in TEACHERS],
    ]
    for r, (mark, text, font, fill) in enumerate(rows, start=1):
        a = ws.cell(row=r, column=1, value=mark)
        a.alignment = Alignment(horizontal="right", vertical="top")
        if fill:
            a.fill, a.border = FILL[fill], BOX
        b = ws.cell(row=r, column=2, value=text)
        b.font = Font(**font)
        b.alignment = Alignment(wrap_text=True, vertical="top")
        if font.get("size", 11) > 11:
            ws.row_dimensions[r].height = 1.6 * font["size"]
        elif len(text) > 125:  # wrapped text: room for its lines
            ws.row_dimensions[r].height = 15 * (len(text) // 125 + 1)
    ws.column_dimensions["A"].width = 5
    ws.column_dimensions["B"].width = 120
    ws.sheet_view.zoomScale = 110


def start_text(wb: Workbook) -> str:
    """The Start sheet's text, one line per row."""
    return "\n".join(str(c.value) for c in wb["Start"]["B"] if c.value)


def sheet_data(wb: Workbook, exercise: bool, record: bool) -> None:
    s = Sheet(wb, "Data", exercise, record)
    s.title_rows(
        "Data: annotation matrix A (N = 3 annotators, |J| = 15 instances, |K| = 3 categories)",
        "Row i holds the categories annotator i assigned; a blank cell is a missing annotation. Yellow cells are "
        "inputs: change them and every sheet follows.",
    )
    s.head("A4", "annotator \\ item")
    for j, col in enumerate(COLS):
        s.head(f"{col}4", j + 1)
    for i in range(N_ANN):
        s.head(f"A{5 + i}", f"annotator {i + 1}")
        for j, col in enumerate(COLS):
            s.given(f"{col}{5 + i}", MATRIX_A[i][j])
    s.head("R4", "categories K")
    for t, k in enumerate(CATEGORIES):
        s.given(f"R{5 + t}", k)
    validate_labels(s, f"{FIRST}5:{LAST}7")
    s.text("A9", "add-in found?", bold=True)
    s.check(ADDIN_CELL, ADDIN_PROBE, fmt="General", raw=True)
    s.text(
        "D9",
        f'Optional: "yes" = the grey cells compute with the iaa-engine add-in; "no" = they say "{NEEDS_ADDIN}" '
        "(nothing else needs it).",
        italic=True,
        color="595959",
    )
    s.text("A10", "Fleiss' kappa")
    s.check("B10", f"=FLEISS({DATA},{ROWS})")
    s.text("A11", "Krippendorff's alpha")
    s.check("B11", f'=KALPHA({DATA},"nominal",{ROWS})')
    s.text("A12", "Report (spills)")
    s.spill("B12", f"=IAA_REPORT({DATA},{ROWS})", REPORT_ROWS, 2, fmt="General")  # a 21 x 2 table (metric, value)
    s.widths(17, 6, 16, {"Q": 3, "R": 13})


def sheet_cohen(wb: Workbook, exercise: bool, record: bool, key: bool = False) -> None:
    s = Sheet(wb, "Cohen", exercise, record, key)
    s.title_rows(
        "Cohen's kappa for each pair of annotators, on the instances both annotated (J)",
        "A_xy = share of J with the same category;  E_xy = sum_k p_x(k) p_y(k) with p_x(k) = n_x(k)/|J| "
        "(x's labels k on J);  kappa_xy = (A_xy - E_xy)/(1 - E_xy).  A blank cell is not in J.",
    )
    for t, (x, y) in enumerate(PAIRS):

        def row(off: int, t: int = t) -> int:
            return cohen_row(t, off)

        xy = pair_name(x, y)
        worked = t == 0  # the worked example: pair 1-2
        s.text(
            f"A{row(0)}",
            f"Pair: annotator {x + 1} and annotator {y + 1}" + ("   (worked example)" if worked else ""),
            bold=True,
            size=12,
        )
        item_header(s, row(C_HEAD))
        s.head(f"A{row(C_AX)}", f"a_{x + 1}j")
        s.head(f"A{row(C_AY)}", f"a_{y + 1}j")
        s.head(f"A{row(C_BOTH)}", "both? (in J)")
        s.head(f"A{row(C_SAME)}", "same? (1/0)")
        for col in COLS:
            ax, ay, both = f"{col}{row(C_AX)}", f"{col}{row(C_AY)}", f"{col}{row(C_BOTH)}"
            s.given(ax, f'=IF(Data!{col}{5 + x}="","",Data!{col}{5 + x})')
            s.given(ay, f'=IF(Data!{col}{5 + y}="","",Data!{col}{5 + y})')
            s.step(both, f"=IF(COUNT({ax}:{ay})=2,1,0)", ("cohen", x, y, "both", col), "0", worked=worked)
            s.step(
                f"{col}{row(C_SAME)}",
                f"=IF({both}=1,IF({ax}={ay},1,0),0)",
                ("cohen", x, y, "same", col),
                "0",
                worked=worked,
            )
        both_row = f"${FIRST}${row(C_BOTH)}:${LAST}${row(C_BOTH)}"
        s.head(f"A{row(C_J)}", "|J|")
        s.step(f"B{row(C_J)}", f"=SUM({both_row})", ("cohen", x, y, "J"), "0", worked=worked)
        s.text(f"C{row(C_J)}", "= instances both annotated (a blank is not in J)", italic=True)
        s.head(f"A{row(C_A)}", f"A_{xy}")
        s.step(
            f"B{row(C_A)}",
            f"=SUM({FIRST}{row(C_SAME)}:{LAST}{row(C_SAME)})/B{row(C_J)}",
            ("cohen", x, y, "A"),
            worked=worked,
        )
        s.text(f"C{row(C_A)}", "= agreements / |J|", italic=True)
        s.head(f"A{row(C_CAT)}", "category k")
        s.head(f"B{row(C_CAT)}", f"n_{x + 1}(k)")
        s.head(f"C{row(C_CAT)}", f"n_{y + 1}(k)")
        s.head(f"D{row(C_CAT)}", "p_x p_y")
        s.text(f"E{row(C_CAT)}", "= labels k on J only (COUNTIFS with both? = 1); p_x(k) = n_x(k)/|J|", italic=True)
        for k in range(len(CATEGORIES)):
            r = row(C_K0 + k)
            s.given(f"A{r}", f"=Data!$R${5 + k}")
            for c, who, src in (("B", "n_x", C_AX), ("C", "n_y", C_AY)):
                s.step(
                    f"{c}{r}",
                    f"=COUNTIFS(${FIRST}{row(src)}:${LAST}{row(src)},$A{r},{both_row},1)",
                    ("cohen", x, y, who, k),
                    "0",
                    worked=worked,
                )
            s.step(
                f"D{r}",
                f"=(B{r}/$B${row(C_J)})*(C{r}/$B${row(C_J)})",
                ("cohen", x, y, "pxpy", k),
                worked=worked,
            )
        s.head(f"A{row(C_E)}", f"E_{xy}")
        s.step(f"B{row(C_E)}", f"=SUM(D{row(C_K0)}:D{row(C_K0 + 2)})", ("cohen", x, y, "E"), worked=worked)
        s.text(f"C{row(C_E)}", "= sum over k of p_x(k) p_y(k)", italic=True)
        s.head(f"A{row(C_KAPPA)}", f"kappa_{xy}")
        s.step(
            f"B{row(C_KAPPA)}",
            f"=(B{row(C_A)}-B{row(C_E)})/(1-B{row(C_E)})",
            ("cohen", x, y, "kappa"),
            worked=worked,
            kind="result",
        )
        s.check(f"D{row(C_KAPPA)}", f"=COHEN({DATA},{x + 1},{y + 1},{ROWS})", f"C{row(C_KAPPA)}")
        for off, what in ((C_A, "A"), (C_E, "E"), (C_KAPPA, "kappa")):
            s.answer(f"G{row(off)}", f"B{row(off)}", ("cohen", x, y, what))
        if worked:
            for off, note in (
                (C_A, "by hand: A_12 = 12/15 = 0.8"),
                (C_E, "by hand: E_12 = 0.337 (from rounded terms; exact 76/225 = 0.3378)"),
                (C_KAPPA, "by hand: kappa_12 = (0.8 - 0.337)/(1 - 0.337) = 0.698"),
            ):
                s.text(f"I{row(off)}", note, italic=True, color="7F6000")
    s.widths(14, 7.5, 16)
    s.ws.row_breaks.append(Break(id=cohen_row(2, 0) - 1))
    if not key:
        kappa_summary(s)


def sheet_fleiss(wb: Workbook, exercise: bool, record: bool, key: bool = False) -> None:
    s = Sheet(wb, "Fleiss", exercise, record, key)
    s.title_rows(
        "Fleiss' kappa for the whole group",
        "n_kj = annotators who chose k for instance j;  P_j = (sum_k n_kj^2 - n_j)/(n_j(n_j-1)) for n_j >= 2;  "
        "p_k = mean over instances of n_kj/n_j;  kappa = (P-bar - P-bar_e)/(1 - P-bar_e).",
    )
    item_header(s, 4)
    for t in range(len(CATEGORIES)):
        r = 5 + t
        s.given(f"A{r}", f"=Data!$R${5 + t}", '"n_kj, k = "0')
        for col in COLS:
            s.step(
                f"{col}{r}",
                f"=COUNTIF(Data!{col}$5:{col}$7,$A{r})",
                ("fleiss", "n_kj", t, col),
                "0",
                worked=col == FIRST,
            )
    s.head("A8", "n_j (labels)")
    s.head("A9", "P_j")
    for col in COLS:
        s.step(f"{col}8", f"=SUM({col}5:{col}7)", ("fleiss", "n", col), "0", worked=col == FIRST)
        s.step(
            f"{col}9",
            f'=IF({col}8>=2,(SUMSQ({col}5:{col}7)-{col}8)/({col}8*({col}8-1)),"")',
            ("fleiss", "P_j", col),
            worked=col == FIRST,
        )
    s.text("R9", "blank: fewer than 2 labels (no pair to agree)", italic=True)
    s.text(
        "A3",
        "Worked by hand (instance 1): n_11 = 2, n_21 = 1, n_31 = 0, P_1 = (2^2 + 1^2 + 0^2 - 3)/6 = 0.33",
        italic=True,
        color="7F6000",
    )
    s.spill("B10", f"=ITEM_AGREEMENT({DATA},{ROWS})", 1, N_ITEMS, "A10")  # P_j along the 15 items
    s.ws["A10"].value = "add-in (spills):"
    s.head("A11", "P-bar")
    s.step("B11", f"=AVERAGE({FIRST}9:{LAST}9)", ("fleiss", "P_bar"))
    s.text("C11", "= mean of the P_j shown (instances with 2+ labels)", italic=True)
    s.head("A12", "|J|")
    s.step("B12", f'=COUNTIF({FIRST}8:{LAST}8,">0")', ("fleiss", "J"), "0")
    s.text("C12", "= instances with at least one label", italic=True)
    s.head("A13", "category k")
    s.head("B13", "Σ n_kj/n_j")
    s.head("C13", "p_k")
    for t in range(len(CATEGORIES)):
        r = 14 + t
        n = f"{FIRST}$8:{LAST}$8"
        s.given(f"A{r}", f"=Data!$R${5 + t}")
        s.step(f"B{r}", f"=SUMPRODUCT({FIRST}{5 + t}:{LAST}{5 + t}/({n}+({n}=0)))", ("fleiss", "sum_k", t))
        s.step(f"C{r}", f"=B{r}/$B$12", ("fleiss", "p_k", t))
    s.text("D14", "p_k = (1/|J|) sum_j n_kj/n_j: the mean share of k among an instance's labels", italic=True)
    s.text("D15", "(= sum_j n_kj / (|J| n) when every instance has n labels; +(n_j=0) skips an unlabelled one)",
           italic=True)  # fmt: skip
    s.head("A17", "P-bar_e")
    s.step("B17", "=SUMSQ(C14:C16)", ("fleiss", "P_e"))
    s.text("C17", "= p_1^2 + p_2^2 + p_3^2", italic=True)
    s.head("A19", "kappa")
    s.step("B19", "=(B11-B17)/(1-B17)", ("fleiss", "kappa"), kind="result")
    s.check("D19", f"=FLEISS({DATA},{ROWS})", "C19")
    s.text("I19", "by hand: kappa = 0.599", italic=True, color="7F6000")
    s.answer("G11", "B11", ("fleiss", "P_bar"))
    s.answer("G17", "B17", ("fleiss", "P_e"))
    s.answer("G19", "B19", ("fleiss", "kappa"))
    if not key:  # P_j from red (no agreement) over yellow to green (all agree)
        s.ws.conditional_formatting.add(f"{FIRST}9:{LAST}9", agreement_scale())
    s.widths(15, 7, 16, {"B": 10})


def sheet_gold(wb: Workbook, exercise: bool, record: bool, key: bool = False) -> None:
    s = Sheet(wb, "Gold", exercise, record, key)
    s.title_rows(
        "Gold standard with the bias-correcting rules (ties kept)",
        "Freq_i(k) = share of annotator i's labels that are k;  Freq(k) = share of all labels that are k;  "
        "gold_j = argmax_k sum of w_ik over the annotators i who chose k for j.",
    )
    cat_cols = ["B", "C", "D"]
    freq_cols = ["G", "H", "I"]
    s.head("A4", "annotator")
    for t, (cc, fc) in enumerate(zip(cat_cols, freq_cols)):
        s.head(f"{cc}4", None)
        s.ws[f"{cc}4"].value = f'="k = "&Data!$R${5 + t}'
        s.head(f"{fc}4", None)
        s.ws[f"{fc}4"].value = f'="k = "&Data!$R${5 + t}'
    s.head("B3", "labels k given")
    s.ws.merge_cells("B3:E3")
    s.head("G3", "Freq_i(k); last row Freq(k)")
    s.ws.merge_cells("G3:I3")
    s.head("E4", "all")
    for i in range(N_ANN + 1):
        r = 5 + i
        rng = f"Data!${FIRST}${5 + i}:${LAST}${5 + i}" if i < N_ANN else DATA
        worked = i in (0, N_ANN)  # the worked examples Freq_1(k) and Freq(k)
        s.head(f"A{r}", f"annotator {i + 1}" if i < N_ANN else "all annotators")
        who = i if i < N_ANN else "all"
        for t, (cc, fc) in enumerate(zip(cat_cols, freq_cols)):
            s.step(f"{cc}{r}", f"=COUNTIF({rng},Data!$R${5 + t})", ("gold", "count", who, t), "0", worked=worked)
            s.step(f"{fc}{r}", f"={cc}{r}/$E{r}", ("gold", "freq", who, t), worked=worked)
        s.step(f"E{r}", f"=COUNT({rng})", ("gold", "labels", who), "0", worked=worked)
    s.text(
        "K5",
        "by hand: Freq_1(1) = 6/15 = 0.4",
        italic=True,
        color="7F6000",
    )
    s.text("K8", "by hand: Freq(k) = 15/45, 16/45, 14/45", italic=True, color="7F6000")
    s.text("K6", "Freq_i(k) = n_i(k) / labels of annotator i (a blank is no label)", italic=True)
    s.head("A10", "|K|")
    s.step("B10", "=COUNT(Data!$R$5:$R$7)", ("gold", "K"), "0", worked=True)
    row = 12
    for rule, (name, formula) in BCR_RULES.items():
        s.text(f"A{row}", f"Rule '{rule}' ({name} BCR):  {formula}", bold=True, size=12)
        s.head(f"A{row + 1}", "w_ik")
        for t, cc in enumerate(cat_cols):
            s.ws[f"{cc}{row + 1}"].value = f'="k = "&Data!$R${5 + t}'
            s.head(f"{cc}{row + 1}", s.ws[f"{cc}{row + 1}"].value)
        for i in range(N_ANN):
            r = row + 2 + i
            s.head(f"A{r}", f"annotator {i + 1}")
            for t, (cc, fc) in enumerate(zip(cat_cols, freq_cols)):
                fi = f"{fc}{5 + i}"
                fk = f"{fc}$8"
                expr = {"diff": f"1+{fk}-{fi}", "rat": f"{fk}/{fi}", "com": f"1+1/$B$10-{fi}", "inv": f"1/{fi}"}[rule]
                worked = rule == "rat" and i == 0 and t == 0  # the worked example w_11
                s.step(f"{cc}{r}", f'=IF({cc}{5 + i}>0,{expr},"")', ("gold", rule, "w", i, t), worked=worked)
        if rule == "rat":
            s.text(
                f"E{row + 2}",
                "← by hand: w_11 = Freq(1)/Freq_1(1) = 0.333/0.4 = 0.832 (exact: (15/45)/(6/15) = 0.8333)",
                italic=True,
                color="7F6000",
            )
        s.spill(  # w_ik with a header row (categories) and column (annotators): 4 x 4
            f"K{row + 1}",
            f'=BCR_WEIGHTS({DATA},"{rule}",{ROWS})',
            N_ANN + 1,
            len(CATEGORIES) + 1,
            f"J{row + 1}",
            head_row=True,
            head_col=True,
        )
        item_header(s, row + 5)
        for t in range(len(CATEGORIES)):
            r = row + 6 + t
            s.given(f"A{r}", f"=Data!$R${5 + t}", '"votes for k = "0')
            wcol = cat_cols[t]
            for col in COLS:
                s.step(
                    f"{col}{r}",
                    f"=SUMPRODUCT((Data!{col}$5:{col}$7=$A{r})*1,${wcol}${row + 2}:${wcol}${row + 4})",
                    ("gold", rule, "score", t, col),
                )
        s.head(f"A{row + 9}", "best score")
        s.head(f"A{row + 10}", "gold label")
        for col in COLS:
            best = f"{col}{row + 9}"
            s.step(best, f"=MAX({col}{row + 6}:{col}{row + 8})", ("gold", rule, "best", col))
            tied = "&".join(
                f'IF(ABS({col}{row + 6 + t}-{best})<=1E-9*MAX(1,ABS({best})),$A{row + 6 + t}&" ","")'
                for t in range(len(CATEGORIES))
            )
            s.step(
                f"{col}{row + 10}",
                f'=SUBSTITUTE(TRIM({tied})," ","|")',
                ("gold", rule, "gold", col),
                "General",  # not Text: a typed formula computes
                kind="result",
            )
            s.answer(f"{col}{row + 12}", f"{col}{row + 10}", ("gold", rule, "gold", col), "label")
        if not key:
            s.text(f"A{row + 12}", "check (no add-in)", italic=True)
        s.spill(f"B{row + 11}", f'=GOLD({DATA},"{rule}",{ROWS})', 1, N_ITEMS, f"A{row + 11}", "General")  # 1 x 15
        s.ws[f"A{row + 11}"].value = "add-in (spills):"
        row += 14
    s.widths(20, 8.5, 16)


def sheet_spa(wb: Workbook, exercise: bool, record: bool, key: bool = False) -> None:
    s = Sheet(wb, "SPA", exercise, record, key)
    s.title_rows(
        "SPA: Sparse Probability of Agreement on a sparse copy of A",
        "P_i = (sum_k n_ik^2 - n_i)/(n_i(n_i - 1)) for items with n_i >= 2;  SPA = sum_i k_i P_i / sum_i "
        "k_i with the item weights k_i of a scheme.",
    )
    item_header(s, 4)
    blanks = set(SPARSE_BLANKS)
    src = "SPA!" if key else ""  # the key sheet computes from the SPA sheet's own inputs
    for i in range(N_ANN):
        s.head(f"A{5 + i}", f"annotator {i + 1}")
        for j, col in enumerate(COLS):
            if not key:  # typed values (a copy of Data with some cells blank), not links: real inputs
                s.given(f"{col}{5 + i}", None if (i, j) in blanks else MATRIX_A[i][j])
    if not key:
        validate_labels(s, f"{FIRST}5:{LAST}7")
    s.text("R5", "= matrix A of Data with some cells blank (missing);", italic=True)
    s.text("R6", "blank or fill cells here to change the design", italic=True)
    s.head("A8", "n_i")
    for col in COLS:
        s.step(f"{col}8", f"=COUNT({src}{col}5:{col}7)", ("spa", "n", col), "0")
    for t in range(len(CATEGORIES)):
        r = 9 + t
        s.given(f"A{r}", f"=Data!$R${5 + t}", '"n_ik, k = "0')
        for col in COLS:
            s.step(f"{col}{r}", f"=COUNTIF({src}{col}$5:{col}$7,$A{r})", ("spa", "n_ik", t, col), "0")
    s.head("A12", "P_i")
    for col in COLS:
        s.step(f"{col}12", f'=IF({col}8>=2,(SUMSQ({col}9:{col}11)-{col}8)/({col}8*({col}8-1)),"")', ("spa", "P_i", col))
    s.text("R12", "blank: fewer than 2 annotations (excluded)", italic=True)
    # class distribution and the moments q, r of the closed-form variance
    s.head("A14", "category k")
    s.head("B14", "n_k")
    s.head("C14", "p_k")
    for t in range(len(CATEGORIES)):
        r = 15 + t
        s.given(f"A{r}", f"=Data!$R${5 + t}")
        s.step(f"B{r}", f"=SUM({FIRST}{9 + t}:{LAST}{9 + t})", ("spa", "n_k", t), "0")
        s.step(f"C{r}", f"=B{r}/SUM(${FIRST}$8:${LAST}$8)", ("spa", "p_k", t))
    s.head("E14", "")
    s.head("F14", "uniform")
    s.head("G14", "observed")
    s.head("E15", "C")
    s.step("F15", '=COUNTIF(B15:B17,">0")', ("spa", "C"), "0")
    s.head("E16", "q")
    s.step("F16", "=1/F15", ("spa", "q", "uniform"))
    s.step("G16", "=SUMSQ(C15:C17)", ("spa", "q", "observed"))
    s.head("E17", "r")
    s.step("F17", "=1/F15^2", ("spa", "r", "uniform"))
    s.step("G17", "=SUMPRODUCT(C15:C17,C15:C17,C15:C17)", ("spa", "r", "observed"))
    s.text("I14", "q = Σ p_k^2,  r = Σ p_k^3  (p: uniform 1/C, or the observed p_k)", italic=True)
    s.text("I15", "Var[P_i] = 2 (q(1-q) + 2(n_i-2)(r - q^2)) / (n_i(n_i-1))", italic=True)
    s.text(
        "I16", "(exact variance when an item's labels are drawn i.i.d. from p; inv_var uses a uniform p", italic=True
    )
    s.text("I17", "over the C categories, inv_var_class the observed p_k)", italic=True)
    # per-item weights
    rows = {
        "flat": 20,
        "annotations": 21,
        "annotations_m1": 22,
        "edges": 23,
        "var_u": 24,
        "var_o": 25,
        "inv_var": 26,
        "inv_var_class": 27,
    }
    s.text("A19", "Item weights k_i (0 for items with fewer than 2 annotations)", bold=True)
    labels = {
        "flat": "flat: 1",
        "annotations": "annotations: n_i",
        "annotations_m1": "annotations_m1: n_i-1",
        "edges": "edges: n_i(n_i-1)/2",
        "var_u": "Var[P_i], uniform p",
        "var_o": "Var[P_i], observed p",
        "inv_var": "inv_var: 1/Var (uniform)",
        "inv_var_class": "inv_var_class: 1/Var (obs.)",
    }
    for name, r in rows.items():
        s.head(f"A{r}", labels[name])
        s.ws[f"A{r}"].alignment = Alignment(horizontal="left")
        for col in COLS:
            n = f"{col}$8"
            f = {
                "flat": f"=IF({n}>=2,1,0)",
                "annotations": f"=IF({n}>=2,{n},0)",
                "annotations_m1": f"=IF({n}>=2,{n}-1,0)",
                "edges": f"=IF({n}>=2,{n}*({n}-1)/2,0)",
                "var_u": f'=IF({n}>=2,2*($F$16*(1-$F$16)+2*({n}-2)*($F$17-$F$16^2))/({n}*({n}-1)),"")',
                "var_o": f'=IF({n}>=2,2*($G$16*(1-$G$16)+2*({n}-2)*($G$17-$G$16^2))/({n}*({n}-1)),"")',
                "inv_var": f"=IF({n}>=2,1/{col}{rows['var_u']},0)",
                "inv_var_class": f"=IF({n}>=2,1/{col}{rows['var_o']},0)",
            }[name]
            s.step(f"{col}{r}", f, ("spa", "w", name, col), "0.000")
    s.text("A29", "SPA under each weighting scheme", bold=True)
    for c, h in zip("ABCDEF", ["scheme", "Σ k_i P_i", "Σ k_i", "SPA", "check", "add-in"]):
        s.head(f"{c}30", h)
    for t, scheme in enumerate(SPA_SCHEMES):
        r = 31 + t
        wr = rows[scheme]
        s.head(f"A{r}", scheme)
        s.step(f"B{r}", f"=SUMPRODUCT({FIRST}{wr}:{LAST}{wr},{FIRST}$12:{LAST}$12)", ("spa", "num", scheme), "0.000")
        s.step(f"C{r}", f"=SUM({FIRST}{wr}:{LAST}{wr})", ("spa", "den", scheme), "0.000")
        s.step(f"D{r}", f"=B{r}/C{r}", ("spa", "spa", scheme), kind="result")
        s.check(f"F{r}", f'=SPA(SPA!${FIRST}$5:${LAST}$7,"{scheme}",{ROWS})')
        s.answer(f"E{r}", f"D{r}", ("spa", "spa", scheme))
    s.text(
        "H31",
        "flat = Fleiss' P-bar on the items with 2+ annotations; annotations = Krippendorff's 1 - D_o;",
        italic=True,
    )
    s.text("H32", "annotations_m1 is the paper's recommendation.", italic=True)
    s.widths(26, 8, 16)


def sheet_alpha(wb: Workbook, exercise: bool, record: bool, key: bool = False) -> None:
    s = Sheet(wb, "Alpha", exercise, record, key)
    s.title_rows(
        "Krippendorff's alpha as Datasaur computes it: Labeler A vs Reviewer (Datasaur's worked example)",
        "p_a = p_a' (1 - 1/(n r')) + 1/(n r');  p_e = sum_k pi_k^2;  alpha = (p_a - p_e)/(1 - p_e).  "
        "Spans with a single label are removed (cleaning).",
    )
    heads = ["span", "Labeler A", "Reviewer", "r_i", "kept (r_i>=2)"]
    for c, h in zip("ABCDE", heads):
        s.head(f"{c}4", h)
    lab_cols = ["F", "G", "H", "I", "J"]
    pa_cols = ["K", "L", "M", "N", "O"]
    for c, lab in zip(lab_cols, SEED002_LABELS):
        s.head(f"{c}4", lab)
    for c, lab in zip(pa_cols, SEED002_LABELS):
        s.head(f"{c}4", f"p(a|i,{lab})")
    s.head("P4", "p(a|i)")
    s.head("F3", "r_ik: labels k on span i")
    s.ws.merge_cells("F3:J3")
    s.head("K3", "p_a|ik = r_ik (r_ik+ - 1) / (r' (r_i - 1)),  r_ik+ = r_ik")
    s.ws.merge_cells("K3:P3")
    first, last = 5, 4 + len(SEED002_SPANS)
    for t, (span, a, rv) in enumerate(SEED002_SPANS):
        r = 5 + t
        s.head(f"A{r}", span)
        s.ws[f"A{r}"].alignment = Alignment(horizontal="left")
        if not key:  # the key sheet computes from the Alpha sheet's own inputs
            s.given(f"B{r}", a)
            s.given(f"C{r}", rv)
        src = "Alpha!" if key else ""
        s.step(f"D{r}", f"=COUNTA({src}B{r}:C{r})", ("alpha", "r_i", t), "0", worked=True)
        s.step(f"E{r}", f"=IF(D{r}>=2,1,0)", ("alpha", "kept", t), "0", worked=True)
        for u, c in enumerate(lab_cols):
            s.step(
                f"{c}{r}", f"=IF($E{r}=1,COUNTIF({src}$B{r}:$C{r},{c}$4),0)", ("alpha", "r_ik", t, u), "0", worked=True
            )
        for u, (c, lc) in enumerate(zip(pa_cols, lab_cols)):
            s.step(f"{c}{r}", f'=IF($E{r}=1,{lc}{r}*({lc}{r}-1)/($B$17*($D{r}-1)),"")', ("alpha", "pa_ik", t, u))
        s.step(f"P{r}", f'=IF($E{r}=1,SUM(K{r}:O{r}),"")', ("alpha", "pa_i", t))
    rows = [
        (14, "n (spans kept)", f"=SUM(E{first}:E{last})", ("alpha", "n"), "0", True),
        (16, "r (labels)", "=SUM(F15:J15)", ("alpha", "r"), "0", True),
        (17, "r' = r/n", "=B16/B14", ("alpha", "r_bar"), P4, True),
        (18, "p_a' = mean p(a|i)", f"=SUM(P{first}:P{last})/B14", ("alpha", "pa_prime"), P4, False),
        (19, "p_a", "=B18*(1-1/(B14*B17))+1/(B14*B17)", ("alpha", "p_a"), P4, False),
        (21, "p_e = sum pi_k^2", "=SUMSQ(F20:J20)", ("alpha", "p_e"), P4, False),
    ]
    for r, label, f, key, fmt, worked in rows:
        s.head(f"A{r}", label)
        s.ws[f"A{r}"].alignment = Alignment(horizontal="left")
        s.step(f"B{r}", f, key, fmt, worked=worked)
    s.head("A15", "r_k (label totals)")
    s.ws["A15"].alignment = Alignment(horizontal="left")
    s.head("A20", "pi_k = r_k / r")
    s.ws["A20"].alignment = Alignment(horizontal="left")
    for u, c in enumerate(lab_cols):
        s.step(f"{c}15", f"=SUM({c}{first}:{c}{last})", ("alpha", "r_k", u), "0", worked=True)
        s.step(f"{c}20", f"={c}15/$B$16", ("alpha", "pi_k", u))
    s.head("A22", "alpha")
    s.ws["A22"].alignment = Alignment(horizontal="left")
    s.step("B22", "=(B19-B21)/(1-B21)", ("alpha", "alpha"), kind="result")
    s.text("C18", "Datasaur: 0.6666", italic=True, color="7F6000")
    s.text("C19", "Datasaur: p_a = 0.6944", italic=True, color="7F6000")
    s.text("C21", "Datasaur: p_e = 0.3055", italic=True, color="7F6000")
    s.text("C22", "Datasaur: alpha = 0.56", italic=True, color="7F6000")
    s.check("G22", f'=KALPHA(Alpha!$B${first}:$C${last},"nominal","columns")', "F22")
    for r, k in ((18, "pa_prime"), (19, "p_a"), (21, "p_e"), (22, "alpha")):
        s.answer(f"I{r}", f"B{r}", ("alpha", k))
    s.widths(22, 9, 16, {"B": 11, "C": 11, "E": 12, **{c: 11.5 for c in "KLMNO"}})


def build(exercise: bool, record: bool = False) -> Workbook:
    wb = Workbook()
    sheet_start(wb, exercise)
    sheet_data(wb, exercise, record)
    sheet_cohen(wb, exercise, record)
    sheet_fleiss(wb, exercise, record)
    sheet_gold(wb, exercise, record)
    sheet_spa(wb, exercise, record)
    sheet_alpha(wb, exercise, record)
    for builder in (sheet_cohen, sheet_fleiss, sheet_gold, sheet_spa, sheet_alpha):
        builder(wb, exercise, record=False, key=True)  # hidden answer keys of the native checks
    for ws in wb.worksheets:
        if ws.title in KEYED:  # the answer checks turn green ("correct") or orange ("not yet")
            ws.conditional_formatting.add(
                "A1:Z80", FormulaRule(formula=['A1="correct"'], font=Font(bold=True, color="006100"), fill=GOOD)
            )
            ws.conditional_formatting.add(
                "A1:Z80", FormulaRule(formula=['A1="not yet"'], font=Font(bold=True, color="9C5700"), fill=NOT_YET)
            )
        ws.sheet_view.showGridLines = ws.title != "Start"
        ws.page_setup.orientation = "landscape"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
    return wb


def cells() -> list[tuple[tuple, str, str, bool]]:
    """The registry of computed cells (key, sheet, cell, given in the exercise), built once."""
    if not CELLS:
        build(exercise=False, record=True)
    return list(CELLS)


def array_cells(wb: Workbook) -> dict[str, dict[str, str]]:
    """Sheet title -> {anchor cell: ref} of every array formula of the workbook (here: the spilling check cells)."""
    out: dict[str, dict[str, str]] = {}
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, ArrayFormula):
                    out.setdefault(ws.title, {})[c.coordinate] = c.value.ref
    return out


def spills() -> list[tuple[str, str, str, str]]:
    """The spilling check cells: (sheet, anchor, ref, formula), the same in both versions."""
    wb = build(exercise=False)
    return [
        (sheet, anchor, ref, wb[sheet][anchor].value.text)
        for sheet, cells_ in array_cells(wb).items()
        for anchor, ref in cells_.items()
    ]


# ----------------------------------------------------------------------------- dynamic-array metadata

NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
METADATA_PART = "xl/metadata.xml"
METADATA_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheetMetadata+xml"
METADATA_REL_TYPE = f"{NS_REL}/sheetMetadata"
# One cell-metadata block (cm="1") of type XLDAPR (dynamic array properties: fDynamic="1"), as Excel 365 and
# XlsxWriter write it; the GUID is the ext URI Excel uses for xda:dynamicArrayProperties.
METADATA_XML = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<metadata xmlns="{NS_MAIN}" xmlns:xda="http://schemas.microsoft.com/office/spreadsheetml/2017/dynamicarray">'
    '<metadataTypes count="1"><metadataType name="XLDAPR" minSupportedVersion="120000" copy="1" pasteAll="1" '
    'pasteValues="1" merge="1" splitFirst="1" rowColShift="1" clearFormats="1" clearComments="1" assign="1" '
    'coerce="1" cellMeta="1"/></metadataTypes>'
    '<futureMetadata name="XLDAPR" count="1"><bk><extLst><ext uri="{bdbb8cdc-fa1e-496e-a857-3c3f30c029c3}">'
    '<xda:dynamicArrayProperties fDynamic="1" fCollapsed="0"/></ext></extLst></bk></futureMetadata>'
    '<cellMetadata count="1"><bk><rc t="1" v="0"/></bk></cellMetadata>'
    "</metadata>"
)


def _sheet_parts(parts: dict[str, bytes]) -> dict[str, str]:
    """Sheet name -> its worksheet part (zip name), from xl/workbook.xml and its relationships."""
    wb = ElementTree.fromstring(parts["xl/workbook.xml"])
    rels = ElementTree.fromstring(parts["xl/_rels/workbook.xml.rels"])
    target = {r.get("Id"): r.get("Target") for r in rels}
    out = {}
    for sh in wb.iter(f"{{{NS_MAIN}}}sheet"):
        t = target[sh.get(f"{{{NS_REL}}}id")]
        out[sh.get("name")] = t.lstrip("/") if t.startswith("/") else f"xl/{t}"
    return out


def mark_dynamic_arrays(path: Path, arrays: dict[str, dict[str, str]]) -> None:
    """Make the array formulas ``arrays`` (sheet -> {anchor: ref}) of the saved workbook ``path`` dynamic arrays:
    ``cm="1"`` on each anchor cell, ``xl/metadata.xml`` (XLDAPR, fDynamic="1"), its content-type override and its
    workbook relationship. Each anchor must already hold ``<f t="array" ref=...>`` (openpyxl's ArrayFormula)."""
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        parts = {i.filename: z.read(i) for i in infos}
    sheet_parts = _sheet_parts(parts)
    for sheet, anchors in arrays.items():
        name = sheet_parts[sheet]
        xml = parts[name].decode("utf-8")
        for anchor, ref in anchors.items():
            pat = re.compile(rf'<c r="{anchor}"((?: [a-z]+="[^"]*")*)><f t="array" ref="{ref}">')
            xml, n = pat.subn(lambda m: f'<c r="{anchor}"{m.group(1)} cm="1"><f t="array" ref="{ref}">', xml)
            if n != 1:
                raise ValueError(f"{sheet}!{anchor}: no array formula over {ref} in {name}")
        parts[name] = xml.encode("utf-8")
    ct = parts["[Content_Types].xml"].decode("utf-8")
    if f'PartName="/{METADATA_PART}"' not in ct:
        ct = ct.replace(
            "</Types>", f'<Override PartName="/{METADATA_PART}" ContentType="{METADATA_CONTENT_TYPE}"/></Types>'
        )
    parts["[Content_Types].xml"] = ct.encode("utf-8")
    rels = parts["xl/_rels/workbook.xml.rels"].decode("utf-8")
    if METADATA_REL_TYPE not in rels:
        ids = set(re.findall(r'Id="([^"]+)"', rels))
        rid = next(f"rId{k}" for k in range(1, len(ids) + 2) if f"rId{k}" not in ids)
        rels = rels.replace(
            "</Relationships>",
            f'<Relationship Type="{METADATA_REL_TYPE}" Target="metadata.xml" Id="{rid}"/></Relationships>',
        )
    parts["xl/_rels/workbook.xml.rels"] = rels.encode("utf-8")
    parts[METADATA_PART] = METADATA_XML.encode("utf-8")
    names = [i.filename for i in infos] + ([METADATA_PART] if METADATA_PART not in {i.filename for i in infos} else [])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name in names:
            z.writestr(name, parts[name])
    path.write_bytes(buf.getvalue())


def save(wb: Workbook, path: Path) -> None:
    """Save with openpyxl, then mark the array formulas (the spilling check cells) as dynamic arrays."""
    wb.save(path)
    mark_dynamic_arrays(path, array_cells(wb))


def write(out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = (out_dir / "classroom_solution.xlsx", out_dir / "classroom_exercise.xlsx")
    save(build(exercise=False), paths[0])
    save(build(exercise=True), paths[1])
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=HERE, help="output folder (default: templates/)")
    args = ap.parse_args(argv)
    for p in write(args.out):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
