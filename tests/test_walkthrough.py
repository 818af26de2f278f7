"""docs/team-lead.md cannot go stale: every command it shows is run and must print what the page quotes.

- ``console`` blocks: each ``$ iaa ...`` line is run through the ``iaa`` entry point (``iaa_engine.cli:main``, in one
  child process from the repository root); its output must match the lines quoted under it (a ``...`` line stands
  for lines left out; trailing spaces ignored).
- ``pycon`` blocks run as one doctest session.
- The Excel table's formulas are evaluated by the add-in's own functions on the sheet the page describes.
- The data in docs/team-lead/ are what ``scripts/screenshots.py`` writes, every picture the page shows exists and is
  one the script makes, and every relative link points at a file and heading that exist.
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "team-lead.md"
TEXT = DOC.read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in FENCE.findall(TEXT) if lang == kind]


def commands() -> list[tuple[list[str], str]]:
    """(argv after ``iaa``, the quoted output) for every ``$ iaa`` line of the console blocks."""
    out = []
    for body in blocks("console"):
        for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
            line, _, expected = chunk.partition("\n")
            argv = shlex.split(line)
            assert argv[0] == "iaa", line
            out.append((argv[1:], expected))
    return out


def screenshots_module():
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _rstrip_lines(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


DRIVER = """
import contextlib, io, json, sys
from iaa_engine.cli import main
results = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code
    results.append([status, out.getvalue(), err.getvalue()])
print(json.dumps(results))
"""


def test_the_page_shows_commands_python_and_pictures():
    cmds = commands()
    assert len(cmds) >= 8
    assert {a[0] for a, _ in cmds} == {"report", "disagreements", "annotators"}
    assert len(blocks("pycon")) >= 2
    assert re.findall(r"\(images/([\w-]+)\.png\)", TEXT)


def test_every_command_prints_what_the_page_quotes(tmp_path):
    cmds = commands()
    runs = []
    for argv, _ in cmds:
        argv = list(argv)
        if "--html" in argv:  # the page's report.html goes to a temporary directory
            argv[argv.index("--html") + 1] = str(tmp_path / argv[argv.index("--html") + 1])
        runs.append(argv)
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(runs)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout)
    checker = doctest.OutputChecker()
    for (argv, expected), (status, out, err) in zip(cmds, results):
        assert status in (0, None), (argv, err)
        want, got = _rstrip_lines(expected), _rstrip_lines(out) if out else ""
        if not expected.strip():
            assert not out.strip(), (argv, out)
            continue
        assert checker.check_output(want, got, doctest.ELLIPSIS), (
            f"`iaa {shlex.join(argv)}` no longer prints what docs/team-lead.md quotes:\n"
            + checker.output_difference(doctest.Example("", want), got, doctest.ELLIPSIS)
        )
    page = tmp_path / "report.html"
    html = page.read_text(encoding="utf-8")
    for anchor in ('id="adjudicate"', 'id="annotators"', 'id="fig-coincidence"', 'href="#pair-1"', "benchmark reading"):
        assert anchor in html, anchor


def test_python_blocks_run_as_a_doctest(monkeypatch):
    monkeypatch.chdir(ROOT)
    parser, globs, attempted = doctest.DocTestParser(), {}, 0
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for match in FENCE.finditer(TEXT):
        if match.group(1) != "pycon":
            continue
        line = TEXT.count("\n", 0, match.start(2))  # failures name the page's own line numbers
        test = parser.get_doctest(match.group(2), globs, "docs/team-lead.md", str(DOC), line)
        result = runner.run(test, out=lambda s: pytest.fail(s), clear_globs=False)
        assert result.failed == 0
        globs.update(test.globs)  # a DocTest runs on a copy: carry the names over to the next block
        attempted += result.attempted
    assert attempted >= 10


def _sheet() -> tuple[list[list], list[list]]:
    """The sheet of section 8: A1:M401 (one review per row, one annotator per column) and O1:P81 (gold)."""
    team = pd.read_csv(ROOT / "docs" / "team-lead" / "team.csv", dtype=str, keep_default_na=False)
    wide = team.pivot(index="item", columns="annotator", values="label")
    rows = [["item", *wide.columns]] + [
        [item, *[None if pd.isna(v) else v for v in values]] for item, values in zip(wide.index, wide.to_numpy())
    ]
    gold = pd.read_csv(ROOT / "docs" / "team-lead" / "gold.csv", dtype=str, keep_default_na=False)
    return rows, [["item", "label"], *gold.to_numpy().tolist()]


def test_the_excel_examples_return_what_the_page_says(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "excel_addin"))
    f = pytest.importorskip("iaa_functions")
    data, known = _sheet()
    assert (len(data), len(data[0]), len(known)) == (401, 13, 81)  # A1:M401 and O1:P81 as the page says
    pairs = f.CONFUSED_PAIRS(data, 3, None, None, True)
    cell = "INDEX(CONFUSED_PAIRS(A1:M401, 3, , , TRUE), 2, {})"
    pair_formula = "=" + cell.format(2) + ' & "/" & ' + cell.format(3)
    evaluate = {
        '=INDEX(IAA_BENCHMARK(A1:M401, "krippendorff_alpha", , , , , , , TRUE), 2, 2)': lambda: f.IAA_BENCHMARK(
            data, "krippendorff_alpha", None, None, None, None, None, None, True
        )[1][1],
        "=INDEX(DISAGREEMENTS(A1:M401, 5, , TRUE), 2, 2)": lambda: f.DISAGREEMENTS(data, 5, None, True)[1][1],
        pair_formula: lambda: f"{pairs[1][1]}/{pairs[1][2]}",
        "=INDEX(ANNOTATORS(A1:M401, , , , , TRUE), 13, 20)": lambda: f.ANNOTATORS(data, None, None, None, None, True)[
            12
        ][19],
        "=INDEX(GOLD_ACCURACY(A1:M401, O1:P81, 0.8, , , TRUE), 13, 8)": lambda: f.GOLD_ACCURACY(
            data, known, 0.8, None, None, True
        )[12][7],
    }
    shown = dict(re.findall(r"^\| `(=[^`]+)` \| ([^|]+?) \|$", TEXT, re.M))
    assert set(shown) == set(evaluate), "the page's Excel table and this test list different formulas"
    for formula, value in shown.items():
        assert str(evaluate[formula]()) == value, formula
    # row 13 of ANNOTATORS and GOLD_ACCURACY is the annotator the page names
    assert f.ANNOTATORS(data, None, None, None, None, True)[12][0] == "lee"
    assert f.GOLD_ACCURACY(data, known, 0.8, None, None, True)[12][0] == "lee"


def test_the_data_are_what_the_script_writes(tmp_path):
    mod = screenshots_module()
    for path in mod.write_data(tmp_path):
        committed = ROOT / "docs" / "team-lead" / path.name
        assert committed.read_bytes() == path.read_bytes(), f"{committed} differs: run python scripts/screenshots.py"
    team = pd.read_csv(tmp_path / "team.csv")
    assert team.groupby("item").size().eq(3).all() and team["annotator"].nunique() == 12
    head = blocks("text")[0].splitlines()
    assert head[:-1] == (tmp_path / "team.csv").read_text().splitlines()[: len(head) - 1]


def test_every_picture_is_made_by_the_script_and_every_link_resolves():
    mod = screenshots_module()
    shown = set(re.findall(r"\(images/([\w-]+)\.png\)", TEXT))
    assert shown == set(mod.SHOTS), "the page and scripts/screenshots.py list different pictures"
    for name in shown:
        png = ROOT / "docs" / "images" / f"{name}.png"
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
        assert 20_000 < png.stat().st_size < 400_000, (png, png.stat().st_size)
    for target, anchor in re.findall(r"\]\((\.\./[^)#\s]+|team-lead/)(?:#([^)\s]+))?\)", TEXT):
        path = (DOC.parent / target).resolve()
        assert path.exists(), target
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-") for h in headings}
            assert anchor in slugs, (target, anchor)


@pytest.mark.slow
def test_the_script_still_cuts_the_same_pictures_out_of_the_page(tmp_path):
    """``scripts/screenshots.py`` end to end (~20 s): the committed pictures match what it makes of today's page."""
    if shutil.which("chromium") is None and not os.access("/usr/bin/chromium", os.X_OK):
        reason = "chromium is not installed (apt-get install chromium, or bash scripts/system-deps.sh)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must install it with scripts/system-deps.sh")
        pytest.skip(reason)
    from PIL import Image

    mod = screenshots_module()
    sizes = mod.write_pictures(ROOT / "docs" / "team-lead", tmp_path)
    assert set(sizes) == set(mod.SHOTS)
    for name, (width, height) in sizes.items():
        committed = Image.open(ROOT / "docs" / "images" / f"{name}.png")
        # a section the script no longer finds leaves the whole page: many times taller
        assert width == committed.width and abs(height - committed.height) <= 0.1 * committed.height, (
            name,
            (width, height),
            committed.size,
        )
        made = np.asarray(Image.open(tmp_path / f"{name}.png").convert("L"))
        assert (made < 128).mean() > 0.005, name  # text and lines, not a blank page
