"""The classroom workbook (templates/) recalculated by a real spreadsheet engine, LibreOffice headless.

The committed ``templates/classroom_solution.xlsx`` and ``classroom_exercise.xlsx`` hold formulas without cached
values (openpyxl writes none), so LibreOffice computes every formula when it loads them; the converted copies are
read back with ``openpyxl(data_only=True)`` and every computed step (the registry ``CELLS`` of the generator) is
compared with ``iaa_engine`` on the same data to 1e-9. The add-in's check cells show #NAME? in LibreOffice (no
UDF there), so the comparison reads the native formula cells only.

Without ``soffice`` these tests skip, except on CI (``CI=true``) where they fail: CI installs LibreOffice with
``scripts/system-deps.sh``.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import os
import shutil
import subprocess
import uuid
import warnings
from pathlib import Path

import numpy as np
import pytest

import iaa_engine as ie

openpyxl = pytest.importorskip("openpyxl")

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
def recalculated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("recalc")
    sol, exe = convert([SOLUTION, EXERCISE], "xlsx", tmp / "out", tmp)
    return (openpyxl.load_workbook(sol, data_only=True), openpyxl.load_workbook(exe, data_only=True))


# ----------------------------------------------------------------------------- expected values from iaa_engine


def read_inputs(wb) -> tuple[list[list], list[list], list[list]]:
    """The matrix on Data, the sparse copy on SPA (Data with the blanks of SPARSE_BLANKS), the spans on Alpha."""
    data = wb["Data"]
    matrix = [[data.cell(row=5 + i, column=2 + j).value for j in range(gen.N_ITEMS)] for i in range(gen.N_ANN)]
    blanks = set(gen.SPARSE_BLANKS)
    sparse = [[None if (i, j) in blanks else matrix[i][j] for j in range(gen.N_ITEMS)] for i in range(gen.N_ANN)]
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
    n_items = d.n_items
    agree = ie.percent_agreement_matrix(d).values
    for x, y in [(0, 1), (0, 2), (1, 2)]:
        kappa = ie.cohen_kappa(d, x, y)
        a = agree[x, y]
        exp["cohen", x, y, "A"] = a
        exp["cohen", x, y, "kappa"] = kappa
        exp["cohen", x, y, "E"] = (a - kappa) / (1 - kappa)  # κ = (A - E)/(1 - E)
        for j, col in enumerate(cols):
            exp["cohen", x, y, "same", col] = float(matrix[x][j] == matrix[y][j])  # the indicator's definition
        for t, c in enumerate(cat_idx):
            exp["cohen", x, y, "n_x", t] = ann_counts[x, c]
            exp["cohen", x, y, "n_y", t] = ann_counts[y, c]
            exp["cohen", x, y, "pxpy", t] = ann_counts[x, c] / n_items * ann_counts[y, c] / n_items
    dense = d.counts.to_dense()
    p_i = ie.item_agreement(d).to_numpy()
    fk = ie.fleiss_kappa(d)
    pbar = ie.joint_probability(d)
    totals = d.counts.category_totals()
    exp["fleiss", "P_bar"] = pbar
    exp["fleiss", "kappa"] = fk
    exp["fleiss", "P_e"] = (pbar - fk) / (1 - fk)
    for j, col in enumerate(cols):
        exp["fleiss", "n", col] = d.counts.n_i[j]
        exp["fleiss", "P_j", col] = p_i[j]
        for t, c in enumerate(cat_idx):
            exp["fleiss", "n_kj", t, col] = dense[j, c]
    for t, c in enumerate(cat_idx):
        exp["fleiss", "sum_k", t] = totals[c]
        exp["fleiss", "p_k", t] = totals[c] / totals.sum()
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


def test_committed_workbooks_match_the_generator():
    """The committed .xlsx files are what the script writes (python templates/make_classroom_workbook.py)."""
    for path, exercise in ((SOLUTION, False), (EXERCISE, True)):
        committed = openpyxl.load_workbook(path)
        fresh = gen.build(exercise=exercise)
        assert committed.sheetnames == fresh.sheetnames == ["Start", "Data", "Cohen", "Fleiss", "Gold", "SPA", "Alpha"]
        for ws in fresh.worksheets:
            old = committed[ws.title]
            for row in ws.iter_rows():
                for c in row:
                    assert (old[c.coordinate].value or None) == (c.value or None), (path.name, ws.title, c.coordinate)


def test_only_classic_functions():
    """Excel 2010+ and LibreOffice: no LET, XLOOKUP, FILTER, UNIQUE, SEQUENCE, LAMBDA or other dynamic arrays."""
    wb = openpyxl.load_workbook(SOLUTION)
    banned = ("LET(", "XLOOKUP(", "FILTER(", "UNIQUE(", "SEQUENCE(", "LAMBDA(", "TEXTJOIN(", "CONCAT(", "_xlfn")
    addin = ("FLEISS(", "COHEN(", "KALPHA(", "SPA(", "GOLD(", "BCR_WEIGHTS(", "IAA_REPORT(")
    n_checks = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, str) and c.value.startswith("=") and c.data_type == "f":
                    assert not any(b in c.value.upper() for b in banned), (ws.title, c.coordinate, c.value)
                    n_checks += any(c.value.upper().startswith("=" + a) for a in addin)
    assert n_checks >= 20  # a check cell beside every result


def addin_layout_positions() -> dict[str, int]:
    """Each worksheet function of the add-in -> the 0-based position of its ``layout`` argument (read from the
    source with ``ast``: no xlwings import needed here)."""
    tree = ast.parse((ROOT / "excel_addin" / "iaa_functions.py").read_text(encoding="utf-8"))
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.isupper():
            names = [a.arg for a in node.args.args]
            out[node.name] = names.index("layout")
    return out


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
    wb = openpyxl.load_workbook(path)
    seen = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if not (isinstance(c.value, str) and c.value.startswith("=") and c.data_type == "f"):
                    continue
                if c.value[1:].partition("(")[0] not in positions:
                    continue
                name, args = formula_args(c.value)
                seen += 1
                want = '"columns"' if args[0].startswith("Alpha!") else '"rows"'
                idx = positions[name]
                got = args[idx] if idx < len(args) else None
                assert got == want, (ws.title, c.coordinate, c.value)
    assert seen >= 20


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
    assert raw["Fleiss"]["B19"].value is None and raw["Fleiss"]["D19"].value.startswith("=FLEISS(")


def test_seed_worked_numbers_appear_where_the_exercise_shows_them(recalculated):
    """Seed 001: A_01 = 0.8, E_01 ≈ 0.337 (exact 76/225), κ_01 ≈ 0.698, Fleiss κ ≈ 0.599, Freq(k) = 15/45, 16/45,
    14/45, Freq_1(1) = 0.4, w_11 = Freq(1)/Freq_1(1) = 0.8333 (printed 0.832); seed 002: α = 0.56."""
    for wb in recalculated:  # the worked examples are in both versions
        cohen, gold, fleiss = wb["Cohen"], wb["Gold"], wb["Fleiss"]
        assert cohen["B9"].value == pytest.approx(0.8, abs=1e-12)
        assert cohen["B14"].value == pytest.approx(76 / 225, abs=1e-12)
        assert round(cohen["B15"].value, 3) == 0.698
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
