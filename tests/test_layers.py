"""The core's layers import downward only (import-linter's layers contract in pyproject.toml), and every module of
the core sits in one of the layers; the same for the Label Studio connector (its contracts in
plugins/label_studio/pyproject.toml: layers, HTTP only in its client, statistics only through the core)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_import_contract_is_kept():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports (import-linter, a test dependency) is not installed")
    out = subprocess.run(
        [exe, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "1 kept, 0 broken" in out.stdout


def test_every_core_module_is_in_a_layer():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    layers = {name.split(".", 1)[1] for name in config["layers"]}
    package = ROOT / "iaa_engine"
    top_level = {
        p.stem
        for p in package.iterdir()
        if not p.name.startswith((".", "__pycache__"))
        and (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))
    }
    # the public facade and the entry point of `python -m iaa_engine` sit above every layer
    assert top_level - {"__init__", "__main__"} == layers


PLUGIN = ROOT / "plugins" / "label_studio"


def test_the_label_studio_connector_contracts_are_kept():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports (import-linter, a test dependency) is not installed")
    pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")
    out = subprocess.run([exe, str(PLUGIN / "pyproject.toml")], cwd=PLUGIN, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    n = len(tomllib.loads((PLUGIN / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"])
    assert f"{n} kept, 0 broken" in out.stdout


def test_every_connector_module_is_in_a_layer():
    config = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    assert config["type"] == "layers"
    layers = {name.strip().split(".", 1)[1] for layer in config["layers"] for name in layer.split("|")}
    modules = {p.stem for p in (PLUGIN / "iaa_label_studio").glob("*.py")} - {"__init__"}
    assert modules == layers
