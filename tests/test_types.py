"""The core type-checks: mypy over ``iaa_engine`` (configuration in pyproject.toml) finds nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_nothing_in_the_core():
    exe = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if exe is None:
        pytest.fail("mypy (a test dependency) is not installed")
    out = subprocess.run(
        [exe, "--no-incremental", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
