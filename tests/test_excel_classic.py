"""The ready classic-xlwings workbook ``excel_addin/iaa_functions.xlsm``: its VBA project and the reference to the
xlwings add-in (read from the file: the zip parts, the OLE ``vbaProject.bin``, the MS-OVBA ``dir`` stream), the
settings xlwings derives from its name and folder, and the worked examples against iaa-engine."""

from __future__ import annotations

import importlib.util
import inspect
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

import iaa_engine as ie

openpyxl = pytest.importorskip("openpyxl")
pytest.importorskip("olefile")

ROOT = Path(__file__).resolve().parents[1]
ADDIN = ROOT / "excel_addin"


def _load():
    spec = importlib.util.spec_from_file_location("make_classic_workbook", ADDIN / "make_classic_workbook.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _load()
BOOK = gen.OUT
CT = "{http://schemas.openxmlformats.org/package/2006/content-types}"
REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def parts() -> dict[str, bytes]:
    with zipfile.ZipFile(BOOK) as z:
        return {n: z.read(n) for n in z.namelist()}


def test_the_workbook_is_macro_enabled_with_a_vba_project():
    p = parts()
    assert "xl/vbaProject.bin" in p
    types = ElementTree.fromstring(p["[Content_Types].xml"])
    overrides = {o.get("PartName"): o.get("ContentType") for o in types.iter(f"{CT}Override")}
    defaults = {d.get("Extension"): d.get("ContentType") for d in types.iter(f"{CT}Default")}
    assert overrides["/xl/workbook.xml"] == "application/vnd.ms-excel.sheet.macroEnabled.main+xml"
    assert overrides.get("/xl/vbaProject.bin", defaults.get("bin")) == "application/vnd.ms-office.vbaProject"
    rels = ElementTree.fromstring(p["xl/_rels/workbook.xml.rels"])
    vba = [r for r in rels.iter(f"{REL}Relationship") if r.get("Type").endswith("/vbaProject")]
    assert [r.get("Target") for r in vba] == ["vbaProject.bin"]
    assert vba[0].get("Type") == "http://schemas.microsoft.com/office/2006/relationships/vbaProject"


def test_the_vba_project_references_the_xlwings_addin():
    """The Tools > References > xlwings step, done: a REFERENCEPROJECT named xlwings pointing at xlwings.xlam.
    xlwings's standalone template (the xlwings module copied in, no add-in) has no such reference: the reader can
    tell the difference."""
    refs = gen.vba_references(BOOK)
    assert "xlwings" in refs, refs
    assert any(lib.startswith("*\\C") and lib.lower().endswith("\\xlwings.xlam") for lib in refs["xlwings"])
    xlwings = pytest.importorskip("xlwings")
    standalone = Path(xlwings.__file__).parent / "quickstart_standalone.xlsm"
    assert "xlwings" not in gen.vba_references(standalone)
    # byte for byte the VBA project of xlwings's quickstart.xlsm (what `xlwings quickstart` copies)
    with zipfile.ZipFile(gen.quickstart_template()) as z:
        assert parts()["xl/vbaProject.bin"] == z.read("xl/vbaProject.bin")


def test_sheets_keep_the_code_names_of_the_vba_document_modules():
    import io

    import olefile

    ole = olefile.OleFileIO(io.BytesIO(parts()["xl/vbaProject.bin"]))
    project = ole.openstream("PROJECT").read().decode("latin-1")
    documents = set(re.findall(r"^Document=(\w+)/", project, re.M))
    wb = openpyxl.load_workbook(BOOK, keep_vba=True)
    code_names = {ws.sheet_properties.codeName for ws in wb.worksheets}
    assert code_names | {"ThisWorkbook"} == documents
    assert wb.code_name == "ThisWorkbook"
    assert wb.sheetnames == ["iaa-engine", "_xlwings.conf"]


def test_xlwings_finds_the_module_from_the_workbooks_name_and_folder():
    """xlwings's VBA (GetUdfModules) falls back to the workbook's name for UDF Modules and puts its folder on the
    Python path: iaa_functions.xlsm next to iaa_functions.py needs no setting."""
    assert BOOK.stem == gen.MODULE and (BOOK.parent / f"{gen.MODULE}.py").is_file()
    xlwings = pytest.importorskip("xlwings")
    bas = (Path(xlwings.__file__).parent / "xlwings.bas").read_text(encoding="latin-1")
    assert "GetUdfModules = Left$(wb.Name, Len(wb.Name) - 5)" in bas
    assert 'AddExcelDir = GetConfig("ADD_WORKBOOK_TO_PYTHONPATH", "true")' in bas
    conf = openpyxl.load_workbook(BOOK)["_xlwings.conf"]
    assert (conf["A6"].value, conf["B6"].value) == ("UDF Modules", gen.MODULE)


def _addin_parameters() -> dict[str, list[str]]:
    """Each worksheet function of ``iaa_functions.py`` (the module the workbook names) -> its parameters."""
    pytest.importorskip("xlwings")
    spec = importlib.util.spec_from_file_location("iaa_functions_for_classic", ADDIN / f"{gen.MODULE}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return {name: list(inspect.signature(getattr(mod, name)).parameters) for name in mod.__all__}


def test_every_formula_calls_an_addin_function_with_its_layout():
    params = _addin_parameters()
    ws = openpyxl.load_workbook(BOOK)["iaa-engine"]
    formulas = [c.value for row in ws.iter_rows() for c in row if c.data_type == "f"]
    assert len(formulas) == len(gen.EXAMPLES)
    for f in formulas:
        names = re.findall(r"([A-Z_][A-Z0-9_]*)\(", f)
        addin = [n for n in names if n in params]
        assert addin, f
        args = f[f.index(addin[0]) + len(addin[0]) + 1 :].split(",")
        position = params[addin[0]].index("layout")
        assert args[position].strip('")') == "rows", f


def test_the_worked_examples_are_iaa_engines_values():
    ws = openpyxl.load_workbook(BOOK)["iaa-engine"]
    matrix = [[ws.cell(row=gen.DATA_ROW + i, column=2 + j).value for j in range(15)] for i in range(3)]
    assert matrix == gen.MATRIX_A
    d = ie.Annotations.from_wide(matrix, annotators_as="rows")
    typed = [ws[f"{gen.EXPECTED}{gen.FIRST_EXAMPLE + k}"].value for k in range(len(gen.EXAMPLES))]
    want = [
        ie.fleiss_kappa(d),
        ie.cohen_kappa(d, 0, 1),
        ie.krippendorff_alpha(d),
        ie.spa(d),
        ie.percent_agreement(d),
        ie.gwet_ac1(d),
        ie.fleiss_kappa(d, weights="quadratic"),
        ie.estimate(d, "fleiss_kappa").se,
    ]
    assert typed == pytest.approx(want, abs=1e-12)
    assert round(typed[0], 3) == 0.599 and round(typed[1], 3) == 0.698  # seed 001's worked numbers


def test_committed_workbook_matches_the_generator():
    fresh = gen.build()
    committed = openpyxl.load_workbook(BOOK, keep_vba=True)
    for ws in fresh.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert committed[ws.title][c.coordinate].value == c.value, (ws.title, c.coordinate)


def test_libreoffice_opens_and_prints_it(tmp_path):
    """A real spreadsheet program reads the macro workbook: LibreOffice prints its two sheets on two pages (the
    instructions and examples, xlwings's settings sheet) and keeps the worked values."""
    from tests.test_excel_template import convert

    (pdf,) = convert([BOOK], "pdf", tmp_path / "pdf", tmp_path)
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes())) == 2
    (xlsx,) = convert([BOOK], "xlsx", tmp_path / "xlsx", tmp_path)
    ws = openpyxl.load_workbook(xlsx, data_only=True)["iaa-engine"]
    assert round(ws[f"{gen.EXPECTED}{gen.FIRST_EXAMPLE}"].value, 4) == 0.5994
