"""The documentation site builds without a warning (Sphinx -W: a broken cross-reference fails it), names every
public object and describes every constant; the quick start runs as written; ``make example`` says what to type next.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import iaa_engine as ie

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "docs" / "guides" / "quickstart.md"
VENV_BIN = Path(sys.executable).parent  # the environment the suite runs in: iaa-engine installed from this repository


def sphinx(src: Path, out: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("sphinx")
    pytest.importorskip("numpydoc")
    pytest.importorskip("myst_parser")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(out / "doctrees")]
    return subprocess.run([*cmd, str(src), str(out / "html")], capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    out = sphinx(ROOT / "docs", tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    html = tmp_path / "html"
    api = (html / "api" / "index.html").read_text()
    missing = [n for n in ie.__all__ if n != "__version__" and f"iaa_engine.{n}" not in api]
    assert not missing, missing
    assert (html / "_images" / "report-crowd.png").exists() or (html / "_static" / "report-crowd.png").exists()
    # every constant is described by the #: comment of its definition, not by its type's docstring
    constants = [n for n in ie.__all__ if n.isupper()]
    assert len(constants) >= 10
    for name in constants:
        page = (html / "api" / "generated" / f"iaa_engine.{name}.html").read_text()
        body = re.sub(r"<[^>]+>", "", page.partition("<dd>")[2].partition("</dd>")[0]).strip()
        assert len(body) > 20, (name, body)
        assert "Built-in" not in page and "If no argument is given" not in page, name
    assert "Levels of measurement" in (html / "api" / "generated" / "iaa_engine.LEVELS.html").read_text()
    # the team lead's walkthrough links into the Label Studio and Excel guides (no link out of the site)
    walk = (html / "team-lead.html").read_text()
    for target in (
        "guides/label-studio.html#reviewing-in-the-data-manager",
        "guides/excel.html#after-the-number-what-to-adjudicate-who-needs-help-gold-questions-what-the-number-means",
    ):
        assert f'href="{target}"' in walk, target


def test_a_broken_link_fails_the_docs_build(tmp_path):
    """The site's own configuration (docs/conf.py, read as it is) on two pages, one linking to a page and to a
    heading that do not exist: the build fails and names the link (no suppressed cross-reference warnings)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "import runpy\n"
        f"_conf = runpy.run_path({str(ROOT / 'docs' / 'conf.py')!r})\n"
        "globals().update({k: v for k, v in _conf.items() if not k.startswith('__')})\n"
        "html_static_path = []\n"
        "exclude_patterns = []\n"
    )
    (src / "index.md").write_text("# Home\n\n```{toctree}\nother\n```\n\nSee [the guide](missing-guide.md).\n")
    (src / "other.md").write_text("# Other\n\n## A section\n\nBack [home](index.md), [a heading](index.md#no-such).\n")
    out = sphinx(src, tmp_path)
    assert out.returncode != 0
    assert "missing-guide" in out.stderr and "no-such" in out.stderr, out.stderr[-3000:]
    assert "xref_missing" in out.stderr


def code_blocks(path: Path) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown page: (language, body)."""
    return re.findall(r"^```(\w+)\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def user_file(path: Path) -> None:
    """A user's own annotations: a long table item, annotator, label with the labels the quick start's Python block
    names (low, mid, high); 12 items, 4 annotators, some cells missing."""
    labels = ["low", "mid", "high"]
    rows = ["item,annotator,label"]
    for i in range(12):
        for a in range(4):
            if (i + a) % 5 != 4:
                rows.append(f"review-{i},ann-{a},{labels[(i + (a == 3) * (i % 2)) % 3]}")
    path.write_text("\n".join(rows) + "\n")


@pytest.mark.slow
def test_quickstart_runs_as_written(tmp_path):
    """Every line of the quick start's shell blocks and its Python block, as written, in a folder laid out like the
    repository root (the examples and the Makefile from this repository, ``.venv`` = the environment the suite runs
    in, which ``make`` installed from this repository) with a user's own ``annotations.csv``. The one line that
    would install, ``make example``, runs the real Makefile with the venv's install stamp taken as done (``make
    -o``): the report and the next steps it prints are checked. Each line must succeed."""
    if shutil.which("make") is None or not (VENV_BIN / "iaa").exists() or not (VENV_BIN / "activate").exists():
        pytest.skip("needs make and the suite's virtual environment (with bin/iaa and bin/activate)")
    work = tmp_path / "repo"
    work.mkdir()
    for name in ("iaa_engine", "docs"):
        (work / name).symlink_to(ROOT / name)
    (work / ".venv").symlink_to(VENV_BIN.parent)
    user_file(work / "annotations.csv")
    blocks = code_blocks(QUICKSTART)
    shell = [line for lang, body in blocks if lang == "sh" for line in body.splitlines() if line.strip()]
    python = [body for lang, body in blocks if lang == "python"]
    assert shell[0].split("#")[0].strip() == "make example" and len(shell) >= 5 and len(python) == 1
    assert not any(line.lstrip().startswith("pip install iaa-engine") for line in shell)  # published nowhere
    script = [
        "set -e",
        # the venv is installed already: make takes its stamps as done and runs the example's recipe as written
        f'make() {{ command make -f {ROOT / "Makefile"} -o .venv/.installed-core -o .venv/bin/python "$@"; }}',
    ]
    for n, line in enumerate(shell):
        script += [f"echo '>>> {n}'", line]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"  # no iaa on the PATH until the quick start activates the venv
    out = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, f"{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
    steps = out.stdout.split(">>> ")
    assert len(steps) == len(shell) + 1
    example = steps[1]
    assert "Fleiss" in example and "Next:" in example and ". .venv/bin/activate" in example
    assert "docs/team-lead.md" in example and "iaa report your_annotations.csv" in example
    assert "items" in steps[3] and "annotations.csv" in out.stderr  # the user's own file was read
    assert (work / "report.html").stat().st_size > 10_000 and (work / "gold.csv").read_text().startswith("item")
    py = subprocess.run(
        [str(VENV_BIN / "python"), "-W", "error::DeprecationWarning", "-c", python[0]],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert py.returncode == 0, py.stderr[-3000:]


def test_make_example_says_what_to_type_next():
    """``make example`` ends with the next steps: the venv's iaa (activate, or .venv/bin/iaa), a user's own file
    and the walkthrough (read from the recipe with ``make -n``: nothing is installed or run)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    out = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed-core", "-o", ".venv/bin/python", "example"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    recipe = out.stdout
    assert ".venv/bin/iaa report iaa_engine/examples/crowd.csv" in recipe
    tail = recipe.split("crowd.csv", 1)[1]
    for text in (".venv/bin/iaa", ". .venv/bin/activate", "your_annotations.csv", "docs/team-lead.md"):
        assert text in tail, text
    assert (ROOT / "docs" / "team-lead.md").exists()
