#!/usr/bin/env python
"""Build ``excel_addin/iaa_functions.xlsm``: a ready workbook for classic xlwings (Excel on Windows, local Python).

    python excel_addin/make_classic_workbook.py          # writes excel_addin/iaa_functions.xlsm

The workbook is xlwings's own ``quickstart.xlsm`` (what ``xlwings quickstart NAME`` copies, shipped inside the
xlwings package of the version pinned below), with its first sheet turned into a page of instructions and worked
examples. What that template brings, and the tests check in the file (``tests/test_excel_classic.py``):

* ``xl/vbaProject.bin``, byte for byte xlwings's, whose VBA project carries a **reference to the xlwings add-in**
  (REFERENCENAME ``xlwings``, REFERENCEPROJECT ``...\\xlwings.xlam``): the *Tools > References > xlwings* step a
  workbook needs before imported worksheet functions can call Python is done. Excel resolves the reference to the
  installed add-in by its project name.
* The macro-enabled content type and the ``vbaProject`` relationship, and the sheets' VBA code names (``Sheet1``,
  ``Sheet2``, ``ThisWorkbook``) that the project's document modules belong to (openpyxl keeps them with
  ``keep_vba=True``; no sheet is added, so no document module is missing).
* The inactive ``_xlwings.conf`` sheet (renamed ``xlwings.conf`` it overrides the add-in's settings for this
  workbook); its *UDF Modules* cell is filled in with ``iaa_functions``.

The file is named after the worksheet-function module and lives next to it: xlwings takes the workbook's name as the
default *UDF Modules* and puts the workbook's folder on the Python path, so in a checkout of this repository
*Import Functions* finds ``iaa_functions.py`` without any setting. The worked examples are the seed-001 matrix with
the add-in's formulas (layout stated) beside the values iaa-engine gives (typed numbers, computed when the file is
built); until *Import Functions* has run, the formula cells show ``#NAME?``.

:func:`vba_references` reads the references of any ``.xlsm`` (MS-OVBA ``dir`` stream, decompressed here, read
with ``olefile``).
"""

from __future__ import annotations

import argparse
import io
import struct
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "iaa_functions.xlsm"
MODULE = "iaa_functions"  # the worksheet-function module; the workbook carries its name
XLWINGS_VERSION = "0.37.8"  # the release whose quickstart.xlsm is used (the same pin as the xlwings Lite bundle)

MATRIX_A = [
    [1, 1, 1, 3, 3, 2, 3, 3, 1, 2, 2, 2, 1, 3, 1],
    [1, 2, 1, 2, 3, 2, 3, 3, 1, 1, 2, 2, 1, 3, 1],
    [2, 1, 1, 3, 3, 2, 3, 3, 2, 2, 2, 2, 2, 3, 1],
]
DATA_ROW = 21  # the matrix in B21:P23, annotators in rows
DATA = f"$B${DATA_ROW}:$P${DATA_ROW + 2}"
FIRST_EXAMPLE = 27
EXPECTED = "H"  # the column of the values iaa-engine gives (merged H:I)
# (label, formula, the iaa_engine call that gives the same value)
EXAMPLES = [
    ("Fleiss' kappa", f'=FLEISS({DATA},"rows")', "fleiss_kappa(d)"),
    ("Cohen's kappa, annotators 1 and 2", f'=COHEN({DATA},1,2,"rows")', "cohen_kappa(d, 0, 1)"),
    ("Krippendorff's alpha (nominal)", f'=KALPHA({DATA},"nominal","rows")', "krippendorff_alpha(d)"),
    ("SPA (annotations_m1)", f'=SPA({DATA},"annotations_m1","rows")', "spa(d)"),
    ("Percent agreement", f'=PERCENT_AGREEMENT({DATA},"rows")', "percent_agreement(d)"),
    ("Gwet's AC1", f'=GWET_AC1({DATA},"rows")', "gwet_ac1(d)"),
    (
        "Weighted Fleiss' kappa (quadratic)",
        f'=FLEISS_WEIGHTED({DATA},"quadratic","rows")',
        "fleiss_kappa(d, weights='quadratic')",
    ),  # fmt: skip
    (
        "Standard error of Fleiss' kappa",
        f'=INDEX(IAA_ESTIMATE({DATA},"fleiss_kappa",,,,,"rows"),2,2)',
        "estimate(d, 'fleiss_kappa').se",
    ),
]

STEPS = [
    "Classic xlwings: Excel for Windows with Python installed locally. (macOS and Excel on the web: use xlwings Lite,",
    "see excel_addin/README.md; classic xlwings has no worksheet functions on macOS.)",
    '1. In a command prompt, in a checkout of the iaa-engine repository:  python -m pip install ".[excel]"',
    "2. Install the xlwings Excel add-in:  xlwings addin install   (Excel then has an xlwings tab).",
    "3. Excel: File > Options > Trust Center > Trust Center Settings > Macro Settings: tick",
    "   'Trust access to the VBA project object model' (Import Functions writes VBA wrappers into this workbook).",
    "4. Open THIS file from the excel_addin folder, next to iaa_functions.py, and enable macros.",
    "   Its VBA project already has the reference to xlwings (Alt+F11 > Tools > References: 'xlwings' is ticked).",
    "5. xlwings tab: set Interpreter to the Python of step 1 if it is not the one that ran 'xlwings addin install'.",
    "   UDF Modules and PYTHONPATH can stay empty: xlwings uses the workbook's name (iaa_functions) and folder.",
    "6. xlwings tab > Import Functions. Then Ctrl+Alt+F9: the grey cells below compute and match the column",
    "   'iaa-engine gives'. Save the workbook (.xlsm) under any name; copy iaa_functions.py along if you move it,",
    "   or set PYTHONPATH to its folder and UDF Modules to iaa_functions.",
]


# ----------------------------------------------------------------------------- VBA project references


def _decompress(data: bytes) -> bytes:
    """MS-OVBA 2.4.1 decompression of a compressed container (the ``dir`` stream and module sources)."""
    if not data or data[0] != 1:
        raise ValueError("not an MS-OVBA compressed container")
    out = bytearray()
    pos = 1
    while pos < len(data):
        header = struct.unpack_from("<H", data, pos)[0]
        pos += 2
        size = (header & 0x0FFF) + 3
        end = min(pos + size - 2, len(data))
        if not header & 0x8000:  # raw chunk
            out += data[pos : pos + 4096]
            pos += 4096
            continue
        chunk = bytearray()
        while pos < end:
            flags = data[pos]
            pos += 1
            for bit in range(8):
                if pos >= end:
                    break
                if not (flags >> bit) & 1:
                    chunk.append(data[pos])
                    pos += 1
                    continue
                token = struct.unpack_from("<H", data, pos)[0]
                pos += 2
                bits = max((len(chunk) - 1).bit_length(), 4)
                length = (token & (0xFFFF >> bits)) + 3
                offset = (token >> (16 - bits)) + 1
                for _ in range(length):
                    chunk.append(chunk[-offset])
        out += chunk
    return bytes(out)


def vba_references(path: Path | bytes) -> dict[str, list[str]]:
    """The references of a macro workbook's VBA project: name -> its libids (``*\\G{...}`` for a type library,
    ``*\\C<path>`` for another VBA project such as the xlwings add-in).

    Read from the ``VBA/dir`` stream of ``xl/vbaProject.bin`` (MS-OVBA 2.3.4.2.2: REFERENCENAME 0x0016, then
    REFERENCEREGISTERED 0x000D, REFERENCEPROJECT 0x000E or REFERENCECONTROL 0x002F).
    """
    import olefile

    raw = Path(path).read_bytes() if isinstance(path, Path) else path
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        ole = olefile.OleFileIO(io.BytesIO(z.read("xl/vbaProject.bin")))
    d = _decompress(ole.openstream("VBA/dir").read())
    refs: dict[str, list[str]] = {}
    name = None
    pos = 0
    while pos + 6 <= len(d):
        rid, size = struct.unpack_from("<HI", d, pos)
        if rid == 0x0009:  # PROJECTVERSION: size field is 4, the record holds 6 bytes
            pos += 12
            continue
        body = d[pos + 6 : pos + 6 + size]
        if rid == 0x0016:  # REFERENCENAME (MBCS name; a Unicode copy follows as 0x003E)
            name = body.decode("latin-1")
            refs.setdefault(name, [])
        elif rid == 0x003E:
            pass
        elif rid == 0x000D and name is not None:  # REFERENCEREGISTERED: size, libid
            n = struct.unpack_from("<I", body, 0)[0]
            refs[name].append(body[4 : 4 + n].decode("latin-1"))
        elif rid == 0x000E and name is not None:  # REFERENCEPROJECT: absolute libid, relative libid, versions
            n = struct.unpack_from("<I", body, 0)[0]
            absolute = body[4 : 4 + n].decode("latin-1")
            m = struct.unpack_from("<I", body, 4 + n)[0]
            relative = body[8 + n : 8 + n + m].decode("latin-1")
            refs[name] += [absolute, relative]
        elif rid == 0x0030:  # REFERENCECONTROL's extended part: its size is that of the rest
            pass
        elif rid == 0x000F:  # PROJECTMODULES: the references are over
            break
        pos += 6 + size
    return refs


def quickstart_template() -> Path:
    """xlwings's quickstart.xlsm from the installed package (must be the pinned release)."""
    import xlwings

    if xlwings.__version__ != XLWINGS_VERSION:
        raise SystemExit(f"xlwings {xlwings.__version__} is installed; this workbook is built from {XLWINGS_VERSION}")
    return Path(xlwings.__file__).parent / "quickstart.xlsm"


# ----------------------------------------------------------------------------- the workbook


def engine_values() -> list[float]:
    """The values iaa-engine gives for EXAMPLES on MATRIX_A (typed into the sheet beside each formula)."""
    import iaa_engine as ie

    d = ie.Annotations.from_wide(MATRIX_A)
    scope = {"d": d, **{name: getattr(ie, name) for name in ie.__all__}}
    return [float(eval(expr, scope)) for _, _, expr in EXAMPLES]  # noqa: S307 (our own constant expressions)


def build():
    from openpyxl import load_workbook
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side

    wb = load_workbook(quickstart_template(), keep_vba=True)
    ws = wb["Sheet1"]
    ws.title = "iaa-engine"
    thin = Side(style="thin", color="A6A6A6")
    box = Border(left=thin, right=thin, top=thin, bottom=thin)
    yellow = PatternFill("solid", fgColor="FFF2CC")
    grey = PatternFill("solid", fgColor="EDEDED")
    head = PatternFill("solid", fgColor="D9D9D9")
    ws["A1"] = "iaa-engine worksheet functions - classic xlwings workbook"
    ws["A1"].font = Font(bold=True, size=14)
    for r, line in enumerate(STEPS, start=3):
        ws.cell(row=r, column=1, value=line)
    ws.cell(row=3, column=1).font = Font(italic=True)
    r0 = DATA_ROW - 2
    ws.cell(
        row=r0, column=1, value="Example: the classroom exercise's matrix (3 annotators in rows x 15 items)"
    ).font = Font(bold=True)
    for i, row in enumerate(MATRIX_A):
        c = ws.cell(row=DATA_ROW + i, column=1, value=f"annotator {i + 1}")
        c.fill, c.border = head, box
        for j, v in enumerate(row):
            c = ws.cell(row=DATA_ROW + i, column=2 + j, value=v)
            c.fill, c.border, c.alignment = yellow, box, Alignment(horizontal="center")
    for j in range(15):
        c = ws.cell(row=DATA_ROW - 1, column=2 + j, value=f"item {j + 1}")
        c.fill, c.border, c.font = head, box, Font(bold=True, size=9)
    hr = FIRST_EXAMPLE - 1
    for col, text in (("A", "coefficient"), ("B", "add-in formula (grey)"), (EXPECTED, "iaa-engine gives")):
        ws[f"{col}{hr}"] = text
        ws[f"{col}{hr}"].font = Font(bold=True)
        ws[f"{col}{hr}"].fill = head
    for k, ((label, formula, _), value) in enumerate(zip(EXAMPLES, engine_values())):
        r = FIRST_EXAMPLE + k
        ws[f"A{r}"] = label
        c = ws[f"B{r}"]
        c.value = formula
        c.fill, c.border, c.number_format = grey, box, "0.0000"
        ws.merge_cells(f"B{r}:G{r}")
        c = ws[f"{EXPECTED}{r}"]
        c.value = round(value, 12)
        c.number_format, c.border = "0.0000", box
        ws.merge_cells(f"{EXPECTED}{r}:I{r}")
        ws[f"J{r}"] = formula[1:]  # the formula as text, to read before the functions are imported
        ws[f"J{r}"].font = Font(color="7F7F7F", size=9)
    end = FIRST_EXAMPLE + len(EXAMPLES) + 1
    ws[f"A{end}"] = (
        '#NAME? in the grey cells: the functions are not imported yet (step 6). "#VALUE!" as text: see the error '
        "table in excel_addin/README.md."
    )
    ws[f"A{end}"].font = Font(italic=True, color="595959")
    ws.column_dimensions["A"].width = 36
    for j in range(2, 17):
        ws.column_dimensions[chr(64 + j)].width = 7
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    conf = wb["_xlwings.conf"]
    assert conf["A6"].value == "UDF Modules"
    conf["B6"] = MODULE
    conf.page_setup.orientation = "landscape"  # xlwings's long instruction lines: one page, not three
    conf.page_setup.fitToWidth = 1
    conf.page_setup.fitToHeight = 0
    conf.sheet_properties.pageSetUpPr.fitToPage = True
    return wb


def write(path: Path = OUT) -> Path:
    build().save(path)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    print(write(ap.parse_args(argv).out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
