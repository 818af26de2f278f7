"""The documentation site builds without a warning (Sphinx -W), and names every public object."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import iaa_engine as ie

ROOT = Path(__file__).resolve().parent.parent


def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("numpydoc")
    pytest.importorskip("myst_parser")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(tmp_path / "doctrees"),
            str(ROOT / "docs"),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    api = (tmp_path / "html" / "api" / "index.html").read_text()
    missing = [n for n in ie.__all__ if n != "__version__" and f"iaa_engine.{n}" not in api]
    assert not missing, missing
    assert (tmp_path / "html" / "_images" / "report-crowd.png").exists() or (
        tmp_path / "html" / "_static" / "report-crowd.png"
    ).exists()
