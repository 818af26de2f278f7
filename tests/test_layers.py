"""The core's layers import downward only (import-linter's layers contract in pyproject.toml), and every module of
the core sits in one of the layers; no import circle anywhere in the core (import-linter's acyclic_siblings
contract, and a cycle search over grimp's import graph, which also sees a module importing its own package); the
same for the Label Studio connector (its contracts in plugins/label_studio/pyproject.toml: layers, HTTP only in its
client, statistics only through the core)."""

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
    n = len(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"])
    assert n >= 2 and f"{n} kept, 0 broken" in out.stdout


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


def import_cycles(package: str) -> list[list[str]]:
    """The import circles among the modules of ``package``: the strongly connected components of more than one
    module in grimp's import graph (every import, at module level or inside a function; a package is its
    ``__init__``), each sorted, found with Tarjan's algorithm."""
    grimp = pytest.importorskip("grimp")  # import-linter's graph library
    graph = grimp.build_graph(package, cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.find_modules_directly_imported_by(v)):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return sorted(found)


def test_no_import_circle_in_the_core():
    """A helper two modules need goes one floor down, and a package's ``__init__`` only re-exports: the circles
    analysis._by <-> analysis._scorecard (Holm's adjustment) and iaa_engine.excel <-> its modules (the worksheet
    decorator in the package's __init__) were both found here, and are gone."""
    assert import_cycles("iaa_engine") == []


def test_the_circle_search_finds_circles(tmp_path, monkeypatch):
    pkg = tmp_path / "circles_demo"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from circles_demo.a import f\n")
    (pkg / "a.py").write_text("def f():\n    from circles_demo.b import g\n    return g\n")  # inside a function
    (pkg / "b.py").write_text("from circles_demo.a import f\n\ng = 1\n")
    (pkg / "sub" / "__init__.py").write_text("from circles_demo.sub.x import X\n")
    (pkg / "sub" / "x.py").write_text("from circles_demo.sub import helper\n\nX = 1\n")  # its own package
    (pkg / "c.py").write_text("from circles_demo import sub\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("circles_demo") == [
        ["circles_demo.a", "circles_demo.b"],
        ["circles_demo.sub", "circles_demo.sub.x"],
    ]


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
