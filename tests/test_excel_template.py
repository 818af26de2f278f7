"""The classroom workbook (templates/) recalculated by a real spreadsheet engine, LibreOffice headless.

The committed ``templates/classroom_solution.xlsx`` and ``classroom_exercise.xlsx`` hold formulas without cached
values (openpyxl writes none), so LibreOffice computes every formula when it loads them; the converted copies are
read back with ``openpyxl(data_only=True)`` and every computed step (the registry ``CELLS`` of the generator) is
compared with ``iaa_engine`` on the same data to 1e-9, also after a cell of the matrix is blanked (a missing
annotation). The add-in's check cells say "needs the add-in" in LibreOffice (no UDF there; no #NAME? anywhere),
so the comparison reads the native formula cells; with each add-in call swapped for the add-in's own result they
show that result.

The check cells that return tables are dynamic-array formulas (sized arrays marked for Excel 365): the parts Excel
needs are read from the unzipped files, each size is compared with what the add-in returns on the workbook's data,
and LibreOffice computes the arrays as written (with the add-in call swapped for the add-in's own result).

Without ``soffice`` these tests skip, except on CI (``CI=true``) where they fail: CI installs LibreOffice with
``scripts/system-deps.sh``.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import os
import re
import shutil
import subprocess
import uuid
import warnings
import zipfile
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import escape

import numpy as np
import pytest

import iaa_engine as ie

openpyxl = pytest.importorskip("openpyxl")
from openpyxl.worksheet.formula import ArrayFormula  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"
SOLUTION = TEMPLATES / "classroom_solution.xlsx"
EXERCISE = TEMPLATES / "classroom_exercise.xlsx"


def load_generator():
    spec = importlib.util.spec_from_file_location("make_classroom_workbook", TEMPLATES / "make_classroom_workbook.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = load_generator()
CELLS = gen.cells()
SPILLS = gen.spills()  # (sheet, anchor, ref, formula) of the check cells that return tables
CHECKS = list(gen.CHECKS)  # (key, sheet, answer cell, check cell, kind) of the native answer checks
VISIBLE = ["Start", "Data", "Cohen", "Fleiss", "Gold", "SPA", "Alpha"]
SHEETS = VISIBLE + [gen.key_sheet(t) for t in gen.KEYED]  # the answer keys are hidden sheets


# ----------------------------------------------------------------------------- LibreOffice


def soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe is None:
        reason = (
            "LibreOffice (soffice) is not installed: apt-get install libreoffice-calc-nogui, "
            "or bash scripts/system-deps.sh"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must install it with scripts/system-deps.sh")
        pytest.skip(reason)
    return exe


def convert(files: list[Path], fmt: str, outdir: Path, tmp: Path) -> list[Path]:
    """Run one soffice --convert-to with a private profile; returns the output files."""
    profile = tmp / f"lo-profile-{uuid.uuid4().hex}"
    outdir.mkdir(parents=True, exist_ok=True)
    cmd = [
        soffice(),
        f"-env:UserInstallation={profile.as_uri()}",
        "--headless",
        "--norestore",
        "--convert-to",
        fmt,
        "--outdir",
        str(outdir),
        *map(str, files),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    ext = fmt.split(":")[0]
    outs = [outdir / f"{f.stem}.{ext}" for f in files]
    missing = [o for o in outs if not o.exists()]
    assert proc.returncode == 0 and not missing, f"soffice failed: {proc.stdout}\n{proc.stderr}"
    return outs


@pytest.fixture(scope="module")
def recalculated_files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("recalc")
    return convert([SOLUTION, EXERCISE], "xlsx", tmp / "out", tmp)


@pytest.fixture(scope="module")
def recalculated(recalculated_files):
    sol, exe = recalculated_files
    return (openpyxl.load_workbook(sol, data_only=True), openpyxl.load_workbook(exe, data_only=True))


# ----------------------------------------------------------------------------- expected values from iaa_engine


def read_inputs(wb) -> tuple[list[list], list[list], list[list]]:
    """The matrix on Data, the sparse matrix typed on SPA (seed: Data with the blanks of SPARSE_BLANKS), the spans
    on Alpha."""
    data, spa = wb["Data"], wb["SPA"]
    matrix = [[data.cell(row=5 + i, column=2 + j).value for j in range(gen.N_ITEMS)] for i in range(gen.N_ANN)]
    sparse = [[spa.cell(row=5 + i, column=2 + j).value for j in range(gen.N_ITEMS)] for i in range(gen.N_ANN)]
    alpha = wb["Alpha"]
    spans = [[alpha.cell(row=5 + t, column=c).value for t in range(len(gen.SEED002_SPANS))] for c in (2, 3)]
    return matrix, sparse, spans


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        return fn(*args, **kw)


def expected_values(matrix, sparse, spans) -> dict[tuple, object]:
    """Every key of the generator's CELLS registry, computed with iaa_engine (nan = an empty cell)."""
    exp: dict[tuple, object] = {}
    cols = gen.COLS
    # ---- Cohen and Fleiss on the matrix
    d = ie.Annotations.from_wide(matrix)
    cat_idx = [d.categories.get_loc(k) for k in gen.CATEGORIES]
    ann_counts = d.annotator_stats.counts
    agree = ie.percent_agreement_matrix(d).values
    for x, y in gen.PAIRS:
        kappa = ie.cohen_kappa(d, x, y)
        a = agree[x, y]
        exp["cohen", x, y, "A"] = a
        exp["cohen", x, y, "kappa"] = kappa
        exp["cohen", x, y, "E"] = (a - kappa) / (1 - kappa)  # κ = (A - E)/(1 - E)
        # J: the items both annotated (the definitions of Cohen 1960 on J; A and κ above are the library's)
        both = [matrix[x][j] is not None and matrix[y][j] is not None for j in range(gen.N_ITEMS)]
        n_j = sum(both)
        exp["cohen", x, y, "J"] = n_j
        for j, col in enumerate(cols):
            exp["cohen", x, y, "both", col] = float(both[j])
            exp["cohen", x, y, "same", col] = float(both[j] and matrix[x][j] == matrix[y][j])
        for t, k in enumerate(gen.CATEGORIES):
            n_x = sum(b and matrix[x][j] == k for j, b in enumerate(both))
            n_y = sum(b and matrix[y][j] == k for j, b in enumerate(both))
            exp["cohen", x, y, "n_x", t], exp["cohen", x, y, "n_y", t] = n_x, n_y
            exp["cohen", x, y, "pxpy", t] = n_x / n_j * n_y / n_j
    dense = d.counts.to_dense()
    p_i = ie.item_agreement(d).to_numpy()
    fk = ie.fleiss_kappa(d)
    pbar = ie.joint_probability(d)
    totals = d.counts.category_totals()
    n_i = d.counts.n_i
    shares = dense / n_i[:, None]  # n_kj / n_j of every item (each item of d has a label)
    exp["fleiss", "J"] = d.n_items
    exp["fleiss", "P_bar"] = pbar
    exp["fleiss", "kappa"] = fk
    exp["fleiss", "P_e"] = (pbar - fk) / (1 - fk)
    for j, col in enumerate(cols):
        exp["fleiss", "n", col] = d.counts.n_i[j]
        exp["fleiss", "P_j", col] = p_i[j]
        for t, c in enumerate(cat_idx):
            exp["fleiss", "n_kj", t, col] = dense[j, c]
    for t, c in enumerate(cat_idx):
        exp["fleiss", "sum_k", t] = shares[:, c].sum()
        exp["fleiss", "p_k", t] = shares[:, c].mean()  # the library's p_k (Fleiss 1971; Gwet 2014 when n_j varies)
    assert math.isclose(sum(exp["fleiss", "p_k", t] ** 2 for t in range(len(cat_idx))), exp["fleiss", "P_e"])
    # ---- gold standard: bias-correcting rules
    dist = d.annotator_stats.distributions
    for i in range(gen.N_ANN):
        exp["gold", "labels", i] = ann_counts[i].sum()
        for t, c in enumerate(cat_idx):
            exp["gold", "count", i, t] = ann_counts[i, c]
            exp["gold", "freq", i, t] = dist[i, c]
    exp["gold", "labels", "all"] = totals.sum()
    for t, c in enumerate(cat_idx):
        exp["gold", "count", "all", t] = totals[c]
        exp["gold", "freq", "all", t] = totals[c] / totals.sum()
    exp["gold", "K"] = d.n_categories
    for rule in gen.BCR_RULES:
        w = ie.bcr_weights(d, rule).to_numpy()
        per_item = ie.gold_standard(d, rule=rule).per_item(sep="|")
        for i in range(gen.N_ANN):
            for t, c in enumerate(cat_idx):
                exp["gold", rule, "w", i, t] = w[i, c]
        for j, col in enumerate(cols):
            for t, c in enumerate(cat_idx):
                # the weighted vote F_w of seed 001: the core's weights summed over the annotators who chose k
                exp["gold", rule, "score", t, col] = sum(
                    w[i, c] for i in range(gen.N_ANN) if matrix[i][j] == gen.CATEGORIES[t]
                )
            row = per_item.iloc[j]
            exp["gold", rule, "best", col] = row["score"]
            exp["gold", rule, "gold", col] = str(row["gold"])
    # ---- SPA on the sparse copy
    s = ie.Annotations.from_wide(sparse)
    s_idx = [s.categories.get_loc(k) for k in gen.CATEGORIES]
    s_dense = s.counts.to_dense()
    s_p = ie.item_agreement(s).to_numpy()
    s_tot = s.counts.category_totals()
    p_obs = s_tot / s_tot.sum()
    C = s.n_categories
    exp["spa", "C"] = C
    exp["spa", "q", "uniform"], exp["spa", "r", "uniform"] = 1 / C, 1 / C**2
    exp["spa", "q", "observed"], exp["spa", "r", "observed"] = np.sum(p_obs**2), np.sum(p_obs**3)
    for t, c in enumerate(s_idx):
        exp["spa", "n_k", t] = s_tot[c]
        exp["spa", "p_k", t] = p_obs[c]
    n_i = s.counts.n_i
    var_u = ie.item_agreement_variance(n_i, np.full(C, 1 / C))
    var_o = ie.item_agreement_variance(n_i, p_obs)
    for j, col in enumerate(cols):
        exp["spa", "n", col] = n_i[j]
        exp["spa", "P_i", col] = s_p[j]
        for t, c in enumerate(s_idx):
            exp["spa", "n_ik", t, col] = s_dense[j, c]
        exp["spa", "w", "var_u", col] = var_u[j] if n_i[j] >= 2 else math.nan
        exp["spa", "w", "var_o", col] = var_o[j] if n_i[j] >= 2 else math.nan
    for scheme in gen.SPA_SCHEMES:
        k = ie.spa_item_weights(s, weights=scheme).to_numpy()
        for j, col in enumerate(cols):
            exp["spa", "w", scheme, col] = k[j]
        exp["spa", "den", scheme] = k.sum()
        exp["spa", "num", scheme] = np.nansum(k * s_p)
        exp["spa", "spa", scheme] = ie.spa(s, weights=scheme)
    # ---- Krippendorff's alpha, Datasaur's form, on the spans
    a2 = ie.Annotations.from_wide(spans)
    counts2 = a2.counts.to_dense()
    kept = a2.counts.pairable
    coinc = np.asarray(ie.coincidence_matrix(a2).sum(axis=1)).ravel()  # r_k over the pairable values
    alpha = quiet(ie.krippendorff_alpha, a2)
    n = kept.sum()
    r = coinc.sum()
    pi = coinc / r
    p_e = np.sum(pi**2)
    p_a = alpha * (1 - p_e) + p_e  # α = (p_a - p_e)/(1 - p_e)
    eps = 1 / (n * (r / n))
    exp["alpha", "n"], exp["alpha", "r"], exp["alpha", "r_bar"] = n, r, r / n
    exp["alpha", "p_e"], exp["alpha", "p_a"], exp["alpha", "alpha"] = p_e, p_a, alpha
    exp["alpha", "pa_prime"] = (p_a - eps) / (1 - eps)
    lab_idx = [a2.categories.get_loc(lab) for lab in gen.SEED002_LABELS]
    for u, c in enumerate(lab_idx):
        exp["alpha", "r_k", u] = coinc[c]
        exp["alpha", "pi_k", u] = pi[c]
    for t in range(len(gen.SEED002_SPANS)):
        r_i = a2.counts.n_i[t]
        exp["alpha", "r_i", t] = r_i
        exp["alpha", "kept", t] = float(kept[t])
        for u, c in enumerate(lab_idx):
            r_ik = counts2[t, c] if kept[t] else 0
            exp["alpha", "r_ik", t, u] = r_ik
            exp["alpha", "pa_ik", t, u] = r_ik * (r_ik - 1) / ((r / n) * (r_i - 1)) if kept[t] else math.nan
        exp["alpha", "pa_i", t] = sum(exp["alpha", "pa_ik", t, u] for u in range(len(lab_idx))) if kept[t] else math.nan
    return exp


def assert_cells(wb, exp, *, exercise: bool) -> int:
    """Compare every registered cell; in the exercise, cells not given must be empty. Returns cells compared."""
    compared = 0
    problems = []
    for key, sheet, cell, given in CELLS:
        got = wb[sheet][cell].value
        if exercise and not given:
            if got not in (None, ""):
                problems.append(f"{sheet}!{cell} {key}: should be empty in the exercise, holds {got!r}")
            continue
        want = exp[key]
        if isinstance(want, str):
            ok = str(got) == want
        elif isinstance(want, float) and math.isnan(want):
            ok = got in (None, "")
        else:
            ok = isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - float(want)) <= 1e-9
        if not ok:
            problems.append(f"{sheet}!{cell} {key}: LibreOffice {got!r}, iaa_engine {want!r}")
        compared += 1
    assert not problems, "\n".join(problems[:30])
    return compared


# ----------------------------------------------------------------------------- tests


def formula_text(value):
    """A cell's formula as text: an array formula (openpyxl's ArrayFormula) gives its text, anything else itself."""
    return value.text if isinstance(value, ArrayFormula) else value


def addin_cells(wb):
    """(sheet, cell, formula, the add-in calls in it) of every cell of ``wb`` whose formula calls the add-in."""
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                f = formula_text(c.value)
                calls = gen.addin_calls(f) if isinstance(f, str) and c.data_type == "f" else []
                if calls:
                    yield ws, c, f, calls


def comparable(value):
    return ("array", value.ref, value.text) if isinstance(value, ArrayFormula) else (value or None)


def test_committed_workbooks_match_the_generator():
    """The committed .xlsx files are what the script writes (python templates/make_classroom_workbook.py)."""
    for path, exercise in ((SOLUTION, False), (EXERCISE, True)):
        committed = openpyxl.load_workbook(path)
        fresh = gen.build(exercise=exercise)
        assert committed.sheetnames == fresh.sheetnames == SHEETS
        assert [ws.title for ws in committed.worksheets if ws.sheet_state == "visible"] == VISIBLE
        for ws in fresh.worksheets:
            old = committed[ws.title]
            for row in ws.iter_rows():
                for c in row:
                    got, want = comparable(old[c.coordinate].value), comparable(c.value)
                    assert got == want, (path.name, ws.title, c.coordinate)


def test_only_classic_functions():
    """Excel 2010+ and LibreOffice: no LET, XLOOKUP, FILTER, UNIQUE, SEQUENCE, LAMBDA or other dynamic arrays."""
    wb = openpyxl.load_workbook(SOLUTION)
    banned = ("LET(", "XLOOKUP(", "FILTER(", "UNIQUE(", "SEQUENCE(", "LAMBDA(", "TEXTJOIN(", "CONCAT(", "_xlfn")
    n_checks = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                f = formula_text(c.value)
                if isinstance(f, str) and f.startswith("=") and c.data_type == "f":
                    assert not any(b in f.upper() for b in banned), (ws.title, c.coordinate, f)
                    n_checks += bool(gen.addin_calls(f))
    assert n_checks >= 20  # a check cell beside every result (the 10 spilling ones included)


def addin_layout_positions() -> dict[str, int]:
    """Each worksheet function of the add-in -> the 0-based position of its ``layout`` argument (from the
    signatures of the functions ``excel_addin/iaa_functions.py`` imports from ``iaa_engine.excel``)."""
    addin = load_addin()
    params = {name: list(inspect.signature(getattr(addin, name)).parameters) for name in addin.__all__}
    return {name: p.index("layout") for name, p in params.items() if "layout" in p}  # UALPHA, IAA_SAMPLE_SIZE: none


def formula_args(formula: str) -> tuple[str, list[str]]:
    """'=F(a,"b",c)' -> ('F', ['a', '"b"', 'c']), splitting on the commas outside parentheses and quotes."""
    name, _, rest = formula[1:].partition("(")
    assert rest.endswith(")"), formula
    args, depth, quoted, cur = [], 0, False, ""
    for ch in rest[:-1]:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "()":
            depth += 1 if ch == "(" else -1
        elif not quoted and depth == 0 and ch == ",":
            args.append(cur)
            cur = ""
            continue
        cur += ch
    return name, [*args, cur]


@pytest.mark.parametrize("path", [SOLUTION, EXERCISE], ids=["solution", "exercise"])
def test_every_addin_formula_states_its_layout(path):
    """The add-in's default layout is "auto" (it refuses a square range): the workbook says "rows" for the
    annotators × items matrices (Data, SPA) and "columns" for the spans × annotators table (Alpha)."""
    positions = addin_layout_positions()
    assert set(gen.ADDIN_FUNCS) <= set(positions)
    seen, arrays = 0, 0
    for ws, c, f, calls in addin_cells(openpyxl.load_workbook(path)):
        for call in calls:
            name, args = formula_args("=" + call)
            seen += 1
            arrays += isinstance(c.value, ArrayFormula)
            want = '"columns"' if args[0].startswith("Alpha!") else '"rows"'
            idx = positions[name]
            got = args[idx] if idx < len(args) else None
            assert got == want, (ws.title, c.coordinate, f)
    assert seen >= 20 and arrays == len(SPILLS) == 10  # the spilling cells (array formulas) are checked too


@pytest.mark.parametrize("path", [SOLUTION, EXERCISE], ids=["solution", "exercise"])
def test_every_addin_call_is_guarded_by_the_probe(path):
    """Each add-in cell is IF(<probe says yes>, <the call>, <"needs the add-in">): the call appears once, inside
    the guard; only the probe (Data!B9) calls the add-in unguarded, inside IFERROR(ERROR.TYPE(...)<>5, TRUE)."""
    guarded = 0
    for ws, c, f, calls in addin_cells(openpyxl.load_workbook(path)):
        if (ws.title, c.coordinate) == ("Data", gen.ADDIN_CELL):
            assert f == gen.ADDIN_PROBE
            continue
        assert len(calls) == 1, (ws.title, c.coordinate, f)
        shape = ref_shape(c.value.ref) if isinstance(c.value, ArrayFormula) else (1, 1)
        assert f == gen.guarded(calls[0], *shape), (ws.title, c.coordinate, f)
        guarded += 1
    assert guarded >= 20


def test_solution_recalculated_by_libreoffice_equals_iaa_engine(recalculated):
    sol, _ = recalculated
    exp = expected_values(*read_inputs(sol))
    assert assert_cells(sol, exp, exercise=False) == len(CELLS)


def test_exercise_keeps_inputs_and_worked_examples(recalculated):
    _, exe = recalculated
    exp = expected_values(*read_inputs(exe))
    n = assert_cells(exe, exp, exercise=True)
    assert 0 < n < len(CELLS)
    # the students' cells exist (blue, empty) and the check cells are there
    raw = openpyxl.load_workbook(EXERCISE)
    assert raw["Fleiss"]["B19"].value is None and raw["Fleiss"]["D19"].value == gen.guarded(
        f"=FLEISS({gen.DATA},{gen.ROWS})"
    )


def test_seed_worked_numbers_appear_where_the_exercise_shows_them(recalculated):
    """Seed 001: A_12 = 0.8, E_12 ≈ 0.337 (exact 76/225), κ_12 ≈ 0.698 (the seed's first and second annotator, its
    i = 0 and i = 1), Fleiss κ ≈ 0.599, Freq(k) = 15/45, 16/45, 14/45, Freq_1(1) = 0.4, w_11 = Freq(1)/Freq_1(1) =
    0.8333 (printed 0.832); seed 002: α = 0.56."""
    for wb in recalculated:  # the worked examples are in both versions
        cohen, gold, fleiss = wb["Cohen"], wb["Gold"], wb["Fleiss"]
        assert cohen[f"B{gen.cohen_row(0, gen.C_J)}"].value == 15
        assert cohen[f"B{gen.cohen_row(0, gen.C_A)}"].value == pytest.approx(0.8, abs=1e-12)
        assert cohen[f"B{gen.cohen_row(0, gen.C_E)}"].value == pytest.approx(76 / 225, abs=1e-12)
        assert round(cohen[f"B{gen.cohen_row(0, gen.C_KAPPA)}"].value, 3) == 0.698
        assert [gold[f"{c}8"].value for c in "BCD"] == [15, 16, 14] and gold["E8"].value == 45
        assert gold["G5"].value == pytest.approx(0.4, abs=1e-12)
        assert gold["B28"].value == pytest.approx((15 / 45) / (6 / 15), abs=1e-12)
        assert fleiss["B9"].value == pytest.approx(1 / 3, abs=1e-12)
    sol = recalculated[0]
    assert round(sol["Fleiss"]["B19"].value, 3) == 0.599
    assert round(sol["Alpha"]["B22"].value, 2) == 0.56
    assert round(sol["Alpha"]["B19"].value, 4) == 0.6944 and round(sol["Alpha"]["B21"].value, 4) == 0.3056


def test_changed_matrix_recalculates_and_follows(tmp_path):
    """Change cells of the matrix and a span label; LibreOffice's results follow iaa_engine on the new data."""
    wb = openpyxl.load_workbook(SOLUTION)
    data = wb["Data"]
    data["B5"] = 3  # annotator 0, item 1
    data["F6"] = 1  # annotator 1, item 5
    data["K7"] = 1  # annotator 2, item 10
    data["P5"] = 2  # annotator 0, item 15
    wb["Alpha"]["C11"] = "ORG"  # the Reviewer now agrees on "Shakespeare"
    changed = tmp_path / "changed" / "classroom_changed.xlsx"
    changed.parent.mkdir()
    wb.save(changed)
    (out,) = convert([changed], "xlsx", tmp_path / "out", tmp_path)
    rec = openpyxl.load_workbook(out, data_only=True)
    matrix, sparse, spans = read_inputs(rec)
    assert matrix[0][0] == 3 and spans[1][6] == "ORG"
    exp = expected_values(matrix, sparse, spans)
    assert assert_cells(rec, exp, exercise=False) == len(CELLS)
    assert exp["fleiss", "kappa"] != pytest.approx(0.5994065281899109)  # it really changed (seed value: 0.599)


def test_rendered_to_pdf_and_png(tmp_path):
    """LibreOffice renders the workbook (every sheet) to PDF; pages become PNGs for a look (pdftoppm if present)."""
    (pdf,) = convert([SOLUTION], "pdf", tmp_path / "pdf", tmp_path)
    assert pdf.stat().st_size > 20_000
    keep = os.environ.get("IAA_TEMPLATE_RENDER_DIR")  # set it to keep the PDF/PNGs for viewing
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(tmp_path / "page")], check=True, timeout=120)
        pages = sorted(tmp_path.glob("page*.png"))
        assert len(pages) >= 6  # Start, Data, Cohen, Fleiss, Gold, SPA, Alpha
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for f in [pdf, *tmp_path.glob("page*.png")]:
            shutil.copy(f, keep)


# ----------------------------------------------------------------------------- dynamic arrays (cells that spill)

NS = {
    "m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "pr": "http://schemas.openxmlformats.org/package/2006/relationships",
    "ct": "http://schemas.openxmlformats.org/package/2006/content-types",
    "xda": "http://schemas.microsoft.com/office/spreadsheetml/2017/dynamicarray",
}
SPILLING = {  # function -> the spilling cells that call it: the ten check cells of issue 14 that return tables
    "IAA_REPORT": ["Data!B12:C32"],
    "ITEM_AGREEMENT": ["Fleiss!B10:P10"],
    "BCR_WEIGHTS": ["Gold!K13:N16", "Gold!K27:N30", "Gold!K41:N44", "Gold!K55:N58"],
    "GOLD": ["Gold!B23:P23", "Gold!B37:P37", "Gold!B51:P51", "Gold!B65:P65"],
}


def read_parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        return {name: z.read(name) for name in z.namelist()}


def ref_shape(ref: str) -> tuple[int, int]:
    (r1, c1), (r2, c2) = (openpyxl.utils.cell.coordinate_to_tuple(x) for x in ref.split(":"))
    return r2 - r1 + 1, c2 - c1 + 1


def part_of(base: str, target: str) -> str:
    """A relationship target -> the zip name of the part (absolute, or relative to the folder of ``base``)."""
    if target.startswith("/"):
        return target[1:]
    folder = base.rsplit("/", 1)[0] if "/" in base else ""
    return os.path.normpath(f"{folder}/{target}").replace(os.sep, "/")


def sheet_parts(parts: dict[str, bytes]) -> dict[str, str]:
    wb = ElementTree.fromstring(parts["xl/workbook.xml"])
    rels = ElementTree.fromstring(parts["xl/_rels/workbook.xml.rels"])
    target = {r.get("Id"): r.get("Target") for r in rels.findall("pr:Relationship", NS)}
    return {
        sh.get("name"): part_of("xl/workbook.xml", target[sh.get(f"{{{NS['r']}}}id")])
        for sh in wb.findall("m:sheets/m:sheet", NS)
    }


def dynamic_cell_metadata(parts: dict[str, bytes]) -> set[int]:
    """The ``cm`` values (1-based cell-metadata blocks) that mean "dynamic array" in this package: the workbook
    relates a sheetMetadata part of the right content type whose block points at XLDAPR with fDynamic="1"."""
    rels = ElementTree.fromstring(parts["xl/_rels/workbook.xml.rels"])
    meta = [
        part_of("xl/workbook.xml", r.get("Target"))
        for r in rels.findall("pr:Relationship", NS)
        if r.get("Type") == "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sheetMetadata"
    ]
    assert meta == ["xl/metadata.xml"], "the workbook has no (or several) sheetMetadata relationship(s)"
    types = ElementTree.fromstring(parts["[Content_Types].xml"])
    overrides = {o.get("PartName"): o.get("ContentType") for o in types.findall("ct:Override", NS)}
    assert overrides.get("/xl/metadata.xml") == (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheetMetadata+xml"
    ), "no content-type override for /xl/metadata.xml"
    md = ElementTree.fromstring(parts["xl/metadata.xml"])
    type_names = [t.get("name") for t in md.findall("m:metadataTypes/m:metadataType", NS)]
    assert "XLDAPR" in type_names
    assert md.find("m:metadataTypes", NS).get("count") == str(len(type_names))
    future = {f.get("name"): f for f in md.findall("m:futureMetadata", NS)}
    dyn_future = [
        bk.find("m:extLst/m:ext/xda:dynamicArrayProperties", NS) for bk in future["XLDAPR"].findall("m:bk", NS)
    ]
    assert future["XLDAPR"].get("count") == str(len(dyn_future))
    cell_md = md.find("m:cellMetadata", NS)
    blocks = cell_md.findall("m:bk", NS)
    assert cell_md.get("count") == str(len(blocks))
    dynamic = set()
    for i, bk in enumerate(blocks, start=1):
        rc = bk.find("m:rc", NS)
        t, v = int(rc.get("t")), int(rc.get("v"))  # t: 1-based metadata type; v: 0-based block of its futureMetadata
        props = dyn_future[v] if type_names[t - 1] == "XLDAPR" else None
        if props is not None and props.get("fDynamic") in ("1", "true"):
            dynamic.add(i)
    return dynamic


@pytest.mark.parametrize("path", [SOLUTION, EXERCISE], ids=["solution", "exercise"])
def test_spilling_cells_carry_the_dynamic_array_parts_excel_needs(path):
    """Unzipped: xl/metadata.xml (XLDAPR, fDynamic="1"), its content type and workbook relationship; each spilling
    cell is <c cm=..><f t="array" ref=..> with cm pointing at that dynamic-array block; no other cell has cm."""
    parts = read_parts(path)
    dynamic = dynamic_cell_metadata(parts)
    assert dynamic == {1}
    want = {ref_range for refs in SPILLING.values() for ref_range in refs}
    assert {f"{sheet}!{ref}" for sheet, _, ref, _ in SPILLS} == want
    seen = {}
    for sheet, name in sheet_parts(parts).items():
        root = ElementTree.fromstring(parts[name])  # every part stays well-formed XML
        for c in root.iter(f"{{{NS['m']}}}c"):
            f = c.find("m:f", NS)
            if c.get("cm") is not None:
                assert int(c.get("cm")) in dynamic, (sheet, c.get("r"))
                assert f is not None and f.get("t") == "array", (sheet, c.get("r"))
                seen[f"{sheet}!{f.get('ref')}"] = f.text
                assert f.get("ref").split(":")[0] == c.get("r")
            elif f is not None:
                assert f.get("t") != "array", f"{sheet}!{c.get('r')}: an array formula not marked dynamic"
    assert set(seen) == want
    for func, refs in SPILLING.items():
        for ref in refs:
            want_start = f'IF({gen.ADDIN}="yes",{func}(Data!$B$5:$P$7,'
            assert seen[ref].startswith(want_start), (ref, seen[ref])  # no "=", no "@", no _xlfn
    # a check cell that returns one value stays an ordinary formula: no cm, no array
    fleiss = ElementTree.fromstring(parts[sheet_parts(parts)["Fleiss"]])
    (d19,) = [c for c in fleiss.iter(f"{{{NS['m']}}}c") if c.get("r") == "D19"]
    assert d19.get("cm") is None and d19.find("m:f", NS).get("t") is None
    assert d19.find("m:f", NS).text.startswith(f'IF({gen.ADDIN}="yes",FLEISS(')


def load_addin():
    """The add-in module itself (its functions are plain callables outside Excel, in either xlwings mode)."""
    pytest.importorskip("xlwings")
    spec = importlib.util.spec_from_file_location(
        "iaa_functions_for_template", ROOT / "excel_addin" / "iaa_functions.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def addin_tables(wb) -> dict[tuple[str, str], list[list]]:
    """(sheet, anchor) -> the table the add-in returns for that spilling cell's call on the workbook's data."""
    values = addin_values(wb)
    return {(sheet, anchor): values[gen.addin_calls(formula)[0]] for sheet, anchor, _, formula in SPILLS}


def range_values(wb, ref: str) -> list[list]:
    """A range argument (``Data!$B$5:$P$7``) as xlwings hands it to a function: a 2-D list, numbers as float,
    blank cells as None."""
    sheet, _, cells = ref.partition("!")
    return [
        [float(c.value) if isinstance(c.value, (int, float)) else c.value for c in row]
        for row in wb[sheet][cells.replace("$", "")]
    ]


def addin_values(wb) -> dict[str, object]:
    """Every add-in call of the workbook (its text) -> what the add-in module returns for it on the workbook's data
    (a number, an error string or a table)."""
    addin = load_addin()
    out = {}
    for _, _, _, calls in addin_cells(wb):
        for call in calls:
            name, args = formula_args("=" + call)
            rest = [a.strip('"') if a.startswith('"') else float(a) for a in args[1:]]
            out[call] = getattr(addin, name)(range_values(wb, args[0]), *rest)
    return out


def test_spill_sizes_are_what_the_addin_returns():
    """Each sized array covers exactly the add-in's table on the seed data (older Excel shows that range), and the
    range is free (no value under it: Excel 365 would show #SPILL!, a CSE array would hide it)."""
    wb = openpyxl.load_workbook(SOLUTION)
    tables = addin_tables(wb)
    for sheet, anchor, ref, _ in SPILLS:
        table = tables[sheet, anchor]
        assert isinstance(table, list), (sheet, anchor, table)  # a table, not an error value
        assert ref_shape(ref) == (len(table), len(table[0])), (sheet, ref, len(table), len(table[0]))
        for row in wb[sheet][ref]:
            for c in row:
                if c.coordinate != anchor:
                    assert c.value is None, (sheet, c.coordinate, c.value)


def test_spilling_cells_in_libreoffice_stay_sized_arrays(recalculated_files, recalculated):
    """LibreOffice reads each spilling cell as an array over its ref and, with no add-in there, shows "needs the
    add-in" in its top-left cell and nothing in the rest of the range, like every other check cell; the probe
    Data!B9 says "no"; the native cells are compared by the tests above."""
    for path, values in zip(recalculated_files, recalculated):
        formulas = openpyxl.load_workbook(path)
        for sheet, anchor, ref, formula in SPILLS:
            f = formulas[sheet][anchor].value
            assert isinstance(f, ArrayFormula) and f.ref == ref, (path.name, sheet, anchor, f)
            assert f.text.upper() == formula.upper(), (f.text, formula)  # LibreOffice lower-cases unknown names
            for row in values[sheet][ref]:
                for c in row:
                    want = gen.NEEDS_ADDIN if c.coordinate == anchor else None
                    assert c.value == want, (path.name, sheet, c.coordinate, c.value)
        assert values["Fleiss"]["D19"].value == gen.NEEDS_ADDIN  # a single-value check cell
        assert values["Data"][gen.ADDIN_CELL].value == "no"


def array_constant(table: list[list]) -> str:
    """An inline array ({"a",1;"b",2}) holding a table the add-in returned."""
    return "{" + ";".join(",".join(literal(v) for v in row) for row in table) + "}"


def literal(v) -> str:
    """A value the add-in returned as a formula literal: an error value as itself, text quoted, a number in full."""
    if isinstance(v, str):
        return v if v.startswith("#") else '"' + v.replace('"', '""') + '"'
    return repr(float(v))


def test_addin_cells_compute_with_the_addin_in_libreoffice(tmp_path):
    """LibreOffice has no add-in, so in the committed file as it is (guards, sized arrays, cm, metadata part) each
    add-in call is swapped for the add-in's own result on the workbook's data (a number, an error value or an inline
    array); LibreOffice recalculates it: the probe says "yes" and every add-in cell, single or spilling (the
    top-left cell and all the others), holds the add-in's value - the guard passes it through."""
    wb = openpyxl.load_workbook(SOLUTION)
    values = addin_values(wb)
    assert len(values) >= 20
    parts = read_parts(SOLUTION)
    names = sheet_parts(parts)
    cells = []  # (sheet, cell, want)
    xml = {sheet: parts[name].decode("utf-8") for sheet, name in names.items()}
    for ws, c, f, calls in addin_cells(wb):
        new = f[1:]
        for call in calls:
            v = values[call]
            new = new.replace(call, array_constant(v) if isinstance(v, list) else literal(v))
        pat = re.compile(rf'(<c r="{c.coordinate}"[^>]*><f[^>]*>)[^<]*(</f>)')
        xml[ws.title], n = pat.subn(lambda m, new=new: m.group(1) + escape(new) + m.group(2), xml[ws.title])
        assert n == 1, (ws.title, c.coordinate)
        if (ws.title, c.coordinate) == ("Data", gen.ADDIN_CELL):
            cells.append((ws.title, c.coordinate, "yes"))
        elif isinstance(c.value, ArrayFormula):
            (r0, c0) = openpyxl.utils.cell.coordinate_to_tuple(c.coordinate)
            for i, trow in enumerate(values[calls[0]]):
                for k, v in enumerate(trow):
                    cells.append((ws.title, ws.cell(row=r0 + i, column=c0 + k).coordinate, v))
        else:
            cells.append((ws.title, c.coordinate, values[calls[0]]))
    for sheet, name in names.items():
        parts[name] = xml[sheet].encode("utf-8")
    swapped = tmp_path / "in" / "classroom_swapped.xlsx"
    swapped.parent.mkdir()
    with zipfile.ZipFile(swapped, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    (out,) = convert([swapped], "xlsx", tmp_path / "out", tmp_path)
    rec = openpyxl.load_workbook(out, data_only=True)
    problems = []
    for sheet, cell, want in cells:
        got = rec[sheet][cell].value
        if isinstance(want, str):
            ok = got == want
        else:
            ok = isinstance(got, (int, float)) and abs(got - float(want)) <= 1e-9
        if not ok:
            problems.append(f"{sheet}!{cell}: LibreOffice {got!r}, add-in {want!r}")
    assert not problems, "\n".join(problems[:30])
    assert len(cells) >= 190  # the probe and every cell the add-in fills (194 showed #NAME? before)
    assert rec["Fleiss"]["B10"].value == pytest.approx(1 / 3) and rec["Fleiss"]["P10"].value == 1
    assert rec["Fleiss"]["D19"].value == pytest.approx(ie.fleiss_kappa(ie.Annotations.from_wide(gen.MATRIX_A)))


# ----------------------------------------------------------------------------- answer checks without the add-in


def typed(value, kind: str):
    """The solution's value as a student types it: a number to 4 decimals (as the sheet shows it), a gold label
    "2" as the number 2, a tie "1|2" as text."""
    if kind == "label":
        return int(value) if str(value).isdigit() else str(value)
    return round(float(value), 4)


def test_answer_checks_cover_every_result():
    """A native check beside every answer: A, E and kappa of each Cohen pair, P-bar, P-bar_e and Fleiss' kappa, the
    60 gold labels (4 rules x 15 items), SPA under 6 schemes, p_a', p_a, p_e and alpha; each compares the answer
    cell with the same cell of a hidden key sheet computed from the same inputs."""
    assert len(CHECKS) == 9 + 3 + 4 * gen.N_ITEMS + len(gen.SPA_SCHEMES) + 4
    registry = {(sheet, cell): key for key, sheet, cell, _ in CELLS}
    results = {(s, c) for s, c in registry if s in gen.KEYED}
    for key, sheet, answer, check, kind in CHECKS:
        assert registry[sheet, answer] == key, (sheet, answer)
        assert (kind == "label") == (key[0] == "gold" and key[-2] == "gold"), key
    wb = openpyxl.load_workbook(EXERCISE)
    solution = gen.build(exercise=False)  # built once (it was built again for each of the 82 checks)
    for key, sheet, answer, check, kind in CHECKS:
        f = wb[sheet][check].value
        assert f == gen.answer_formula(answer, f"'{gen.key_sheet(sheet)}'!{answer}", kind), (sheet, check, f)
        assert wb[gen.key_sheet(sheet)].sheet_state == "hidden"
        assert wb[gen.key_sheet(sheet)][answer].value == solution[sheet][answer].value
    assert {(s, a) for _, s, a, _, _ in CHECKS} <= results


def test_answer_checks_work_without_the_addin(tmp_path, recalculated):
    """In LibreOffice (no add-in): the exercise as handed out shows a blank check beside each blank answer (and
    "correct" beside the worked examples); with the solution's values typed in (numbers to 4 decimals, one gold
    label typed as a formula) every check says "correct"; off by twice the tolerance or a wrong label, "not yet"."""
    _, handed_out = recalculated
    exp = expected_values(*read_inputs(handed_out))
    given = {(sheet, cell) for _, sheet, cell, g in CELLS if g}
    for key, sheet, answer, check, _ in CHECKS:
        got = handed_out[sheet][check].value
        assert got == ("correct" if (sheet, answer) in given else None), (sheet, check, got)
    right, wrong = openpyxl.load_workbook(EXERCISE), openpyxl.load_workbook(EXERCISE)
    formula_typed = False
    for key, sheet, answer, _, kind in CHECKS:
        value = typed(exp[key], kind)
        if kind == "label":
            if value == 1 and not formula_typed:  # a typed formula computes: the cell is not formatted as Text
                right[sheet][answer], formula_typed = "=Data!$R$5", True
            else:
                right[sheet][answer] = value
            wrong[sheet][answer] = 3 if value != 3 else "1|3"
        else:
            right[sheet][answer] = value
            wrong[sheet][answer] = value + 2 * gen.TOLERANCE
    assert formula_typed
    (tmp_path / "in").mkdir()
    files = [tmp_path / "in" / "right.xlsx", tmp_path / "in" / "wrong.xlsx"]
    right.save(files[0])
    wrong.save(files[1])
    out_right, out_wrong = (
        openpyxl.load_workbook(f, data_only=True) for f in convert(files, "xlsx", tmp_path / "out", tmp_path)
    )
    problems = []
    for key, sheet, answer, check, _ in CHECKS:
        if out_right[sheet][check].value != "correct":
            problems.append(
                f"right {sheet}!{answer}={out_right[sheet][answer].value!r}: {out_right[sheet][check].value!r}"
            )
        if out_wrong[sheet][check].value != "not yet":
            problems.append(
                f"wrong {sheet}!{answer}={out_wrong[sheet][answer].value!r}: {out_wrong[sheet][check].value!r}"
            )
    assert not problems, "\n".join(problems[:30])


# ----------------------------------------------------------------------------- traps for students


def fill_of(cell) -> str:
    return (cell.fill.fgColor.rgb or "")[-6:] if cell.fill and cell.fill.fill_type == "solid" else ""


@pytest.mark.parametrize("path", [SOLUTION, EXERCISE], ids=["solution", "exercise"])
def test_inputs_are_inputs_and_answers_are_not_text(path):
    """Every yellow input cell holds a typed value (no link to another sheet: copies are grey); no answer or step
    cell is formatted as Text (a formula a student types computes)."""
    wb = openpyxl.load_workbook(path)
    yellow = gen.FILL["input"].fgColor.rgb[-6:]
    inputs = 0
    for ws in wb.worksheets[1:]:  # the Start sheet's colour legend aside
        for row in ws.iter_rows():
            for c in row:
                if fill_of(c) == yellow:
                    inputs += 1
                    assert c.data_type != "f" and not str(c.value or "").startswith("="), (ws.title, c.coordinate)
    n = gen.N_ANN * gen.N_ITEMS
    assert inputs == n + len(gen.CATEGORIES) + n + 2 * len(gen.SEED002_SPANS)  # Data, its labels, SPA, Alpha
    for _, sheet, cell, _ in CELLS:
        assert wb[sheet][cell].number_format != "@", (sheet, cell)
    spa = wb["SPA"]
    blanks = set(gen.SPARSE_BLANKS)
    for i in range(gen.N_ANN):
        for j, col in enumerate(gen.COLS):
            assert spa[f"{col}{5 + i}"].value == (None if (i, j) in blanks else gen.MATRIX_A[i][j])


# ----------------------------------------------------------------------------- the Start sheet


@pytest.mark.parametrize("path", [SOLUTION, EXERCISE], ids=["solution", "exercise"])
def test_start_sheet_teaches(path):
    """Start comes first (and is the active sheet) with learning goals, numbered steps, hints and how the checks
    work; every Sheet!cell it names exists and is a cell of the exercise (input, step, result or answer check)."""
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames[0] == "Start" and wb.active.title == "Start"
    text = gen.start_text(wb)
    for heading in (
        "Learning goals",
        "Steps",
        "Hints",
        "Missing annotations (blank cells)",
        "Checking your answers",
        "Colours",
        "For teachers",
    ):
        assert heading in [c.value for c in wb["Start"]["B"]], heading
    numbers = [c.value for c in wb["Start"]["A"] if isinstance(c.value, str) and c.value.endswith(".")]
    assert numbers == [f"{n}." for n in range(1, len(gen.STEPS) + 1)] and len(numbers) >= 8
    assert wb["Start"].column_dimensions["B"].width >= 100
    assert all(c.alignment.wrap_text for c in wb["Start"]["B"] if c.value)
    styled = {gen.FILL[k].fgColor.rgb[-6:] for k in ("input", "step", "result", "answer", "copy", "check")}
    refs = re.findall(r"\b([A-Z][A-Za-z]+)!([A-Z]{1,2}\d+)(?::([A-Z]{1,2}\d+))?", text)
    assert len(refs) >= 40
    for sheet, first, last in refs:
        assert sheet in VISIBLE, sheet
        for row in wb[sheet][f"{first}:{last or first}"]:
            for c in row:
                assert fill_of(c) in styled, (sheet, c.coordinate, fill_of(c))


# ----------------------------------------------------------------------------- validation, formats, chart


@pytest.mark.parametrize("path", [SOLUTION, EXERCISE], ids=["solution", "exercise"])
def test_validation_conditional_formats_and_chart(path):
    """The matrices on Data and SPA accept only the seed's labels or a blank (with an error message); the pairwise
    kappas and P_j have a colour scale, the answer checks turn green / orange; a bar chart of the pairwise kappas."""
    wb = openpyxl.load_workbook(path)
    labels = ",".join(map(str, gen.CATEGORIES))
    for sheet in ("Data", "SPA"):
        (dv,) = wb[sheet].data_validations.dataValidation
        assert dv.type == "list" and dv.formula1 == f'"{labels}"' and dv.allow_blank
        assert dv.showErrorMessage and dv.errorStyle == "stop" and labels in dv.error
        assert str(dv.sqref) == f"{gen.FIRST}5:{gen.LAST}7"

    def rules(ws):
        return {str(rng.sqref): [r.type for r in rs] for rng, rs in ws.conditional_formatting._cf_rules.items()}

    r0 = gen.KAPPA_SUMMARY
    assert rules(wb["Cohen"])[f"B{r0 + 2}:B{r0 + 4}"] == ["colorScale"]
    assert rules(wb["Fleiss"])[f"{gen.FIRST}9:{gen.LAST}9"] == ["colorScale"]
    for sheet in {s for _, s, _, _, _ in CHECKS}:
        assert rules(wb[sheet])["A1:Z80"] == ["expression", "expression"], sheet
    kappas = [gen.cohen_row(t, gen.C_KAPPA) for t in range(3)]
    assert [wb["Cohen"][f"B{r0 + 2 + t}"].value for t in range(3)] == [f'=IF(B{k}="","",B{k})' for k in kappas]
    (chart,) = wb["Cohen"]._charts
    assert chart.tagname == "barChart" and len(chart.series) == 1
    assert chart.series[0].val.numRef.f == f"'Cohen'!$B${r0 + 2}:$B${r0 + 4}"


# ----------------------------------------------------------------------------- the workbooks stand alone


def all_text(wb) -> str:
    return "\n".join(
        str(c.value) for ws in wb.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, str)
    ) + "\n".join(c.comment.text for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.comment)


@pytest.mark.parametrize("path", [SOLUTION, EXERCISE], ids=["solution", "exercise"])
def test_workbooks_stand_alone(path):
    """No reference to material that is not shipped (the exercise sheet, the project's seeds), no #NAME? promised;
    annotators numbered 1..3 as in the add-in's COHEN(range, 1, 2); the Start sheet tells teachers the keys are
    hidden, not protected."""
    wb = openpyxl.load_workbook(path)
    text = all_text(wb)
    for gone in ("exercise sheet", "seed 0", "Seed 0", "#NAME?", "annotator 0", "pair 0", "_01", "kappa_02"):
        assert gone not in text, gone
    heads = [wb["Data"][f"A{5 + i}"].value for i in range(gen.N_ANN)]
    assert heads == ["annotator 1", "annotator 2", "annotator 3"]
    pairs = [wb["Cohen"][f"A{gen.cohen_row(t, 0)}"].value for t in range(3)]
    assert [p.split("   ")[0] for p in pairs] == [
        f"Pair: annotator {x + 1} and annotator {y + 1}" for x, y in gen.PAIRS
    ]
    cohen_calls = [
        gen.addin_calls(wb["Cohen"][f"D{gen.cohen_row(t, gen.C_KAPPA)}"].value)[0] for t in range(len(gen.PAIRS))
    ]
    assert [formula_args("=" + c)[1][1:3] for c in cohen_calls] == [[str(x + 1), str(y + 1)] for x, y in gen.PAIRS]
    teachers = start_section(wb, "For teachers")
    assert "hidden, not protected" in teachers and all(gen.key_sheet(t) in teachers for t in gen.KEYED)


def start_section(wb, heading: str) -> str:
    col = [c.value for c in wb["Start"]["B"]]
    out = []
    for v in col[col.index(heading) + 1 :]:
        if not v:
            break
        out.append(v)
    return "\n".join(out)


def error_cells(wb) -> list[str]:
    """Every cell of every sheet (hidden keys included) that holds an error value after recalculation."""
    errors = ("#NAME?", "#VALUE!", "#DIV/0!", "#REF!", "#N/A", "#NUM!", "#NULL!", "Err:")
    return [
        f"{ws.title}!{c.coordinate}={c.value}"
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith(errors)
    ]


def test_untouched_workbooks_show_no_error_value(recalculated):
    """Without the add-in (LibreOffice) the exercise as handed out, and the solution, show no #NAME? and no other
    error value in any cell: the add-in cells say "needs the add-in"."""
    for wb in recalculated:
        assert error_cells(wb) == []
        assert sum(c.value == gen.NEEDS_ADDIN for ws in wb.worksheets for row in ws.iter_rows() for c in row) >= 20


BLANK = ("C6", 1, 1)  # Data!C6: annotator 2 (row 6), item 2 (column C) - 0-based (1, 1)


@pytest.mark.slow  # two workbooks recalculated by LibreOffice: ~12 s
def test_a_blank_cell_gives_the_librarys_numbers(tmp_path):
    """One cell of the matrix blanked (a missing annotation), in the solution and in the exercise: LibreOffice
    recalculates and every step equals iaa_engine on the same data to 1e-9 - Cohen's kappa of the two affected
    pairs on the items both annotated (0.785 and 0.485), Fleiss' kappa 0.666 (P-bar over the items with 2+ labels,
    p_k the mean of the items' shares), the gold labels; the answer checks stay consistent and nothing shows an
    error value."""
    cell, i0, j0 = BLANK
    files = []
    for path in (SOLUTION, EXERCISE):
        wb = openpyxl.load_workbook(path)
        wb["Data"][cell] = None
        files.append(tmp_path / "in" / f"blank_{path.name}")
        files[-1].parent.mkdir(exist_ok=True)
        wb.save(files[-1])
    sol, exe = (openpyxl.load_workbook(f, data_only=True) for f in convert(files, "xlsx", tmp_path / "out", tmp_path))
    matrix, sparse, spans = read_inputs(sol)
    assert matrix[i0][j0] is None and sum(v is None for row in matrix for v in row) == 1
    d = ie.Annotations.from_wide(matrix)
    cohen = sol["Cohen"]
    for t, (x, y) in enumerate(gen.PAIRS):
        got = cohen[f"B{gen.cohen_row(t, gen.C_KAPPA)}"].value
        assert abs(got - ie.cohen_kappa(d, x, y)) <= 1e-9, (x, y, got)
        assert cohen[f"B{gen.cohen_row(t, gen.C_J)}"].value == (14 if i0 in (x, y) else 15)
    assert [round(cohen[f"B{gen.cohen_row(t, gen.C_KAPPA)}"].value, 3) for t in (0, 2)] == [0.785, 0.485]
    assert (
        abs(sol["Fleiss"]["B19"].value - ie.fleiss_kappa(d)) <= 1e-9 and round(sol["Fleiss"]["B19"].value, 3) == 0.666
    )
    exp = expected_values(matrix, sparse, spans)
    assert assert_cells(sol, exp, exercise=False) == len(CELLS)
    assert assert_cells(exe, exp, exercise=True) > 0  # the worked examples follow the blank too
    for wb in (sol, exe):
        assert error_cells(wb) == []
    for key, sheet, answer, check, _ in CHECKS:  # the solution's answers agree with the keys on the new data
        assert sol[sheet][check].value == "correct", (sheet, check)
