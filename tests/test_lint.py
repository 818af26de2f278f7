"""The project's own habits, checked with the suite: ruff (pyflakes, pycodestyle, import order, and the
formatter; config in pyproject.toml) over every Python file of the repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.fail("ruff (a test dependency) is not installed")
    out = subprocess.run(
        [exe, "check", "--output-format", "concise", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_ruff_format_is_clean():
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.fail("ruff (a test dependency) is not installed")
    out = subprocess.run([exe, "format", "--check", "."], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, "run `ruff format .`:\n" + out.stdout[-4000:] + out.stderr[-2000:]
