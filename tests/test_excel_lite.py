"""The xlwings Lite bundle (``excel_addin/lite/``): the wheel it installs, the two files a user pastes, and the
worksheet functions run without the dependencies Pyodide does not have.

xlwings Lite runs the worksheet functions inside Excel on Pyodide: ``main.py`` holds the code,
``requirements.txt`` the packages, which micropip installs from PyPI (pure-Python wheels) or from Pyodide's own
builds (numpy, pandas, scipy, pyarrow, ...). Facts the tests below rest on, with their sources:

* Pyodide ships numpy, pandas, scipy (every release) and pyarrow (0.27.1 to 0.27.7, and again from 0.29.2; the
  0.28.0 to 0.29.1 releases dropped it: Pyodide's changelog, docs/project/changelog.md). xlwings Lite runs Pyodide
  0.27.5 since its April 2025 release (lite.xlwings.org/changelog); its 0.27 lock file lists numpy 2.0.2, pandas
  2.2.3, scipy 1.14.1, pyarrow 18.1.0 and tqdm 4.66.2.
* Pyodide has no rapidfuzz (requests pyodide/pyodide#4994 and pyodide/pyodide-recipes#240 are open) and
  rapidfuzz publishes no pure-Python or Pyodide wheel on PyPI (its release workflow builds the Pyodide wheel as a CI
  artifact only). So the Lite wheel requires rapidfuzz everywhere but on Pyodide (see ``build_lite.py``).
* tqdm is pure Python (a ``py3-none-any`` wheel on PyPI, and in Pyodide's lock file).

The worksheet functions are called the way xlwings Lite calls them: through ``xlwings.server.custom_functions_call``
with the Office.js payload (``XLWINGS_LICENSE_KEY=noncommercial``, the PolyForm Noncommercial terms of
``xlwings.server``, is set in the test's own subprocesses only).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LITE = ROOT / "excel_addin" / "lite"
MAIN = LITE / "main.py"
REQUIREMENTS = LITE / "requirements.txt"


def _load_build_lite():
    spec = importlib.util.spec_from_file_location("build_lite_under_test", LITE / "build_lite.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


build_lite = _load_build_lite()
VERSION = build_lite.version()

#: iaa-engine's runtime dependencies and how Pyodide gets each (module docstring): every new dependency must be
#: placed here, after checking that micropip can install it, or marked off Pyodide in build_lite.NOT_ON_PYODIDE.
FROM_PYODIDE = {"numpy", "pandas", "scipy"}  # pyarrow: marked off Pyodide (some releases lack it; not needed)
PURE_PYTHON_ON_PYPI = {"tqdm"}
#: Files a pure-Python wheel never holds: compiled extensions, native libraries, sources to compile.
COMPILED = {".so", ".pyd", ".dll", ".dylib", ".a", ".lib", ".o", ".obj", ".exe", ".wasm", ".c", ".cpp", ".pyx"}

# Seed 001, "Data": 3 judges (rows) x 15 instances, categories 1-3 (Fleiss' kappa 0.599); text labels of seed 002.
MATRIX_A = [
    [1, 1, 1, 3, 3, 2, 3, 3, 1, 2, 2, 2, 1, 3, 1],
    [1, 2, 1, 2, 3, 2, 3, 3, 1, 1, 2, 2, 1, 3, 1],
    [2, 1, 1, 3, 3, 2, 3, 3, 2, 2, 2, 2, 2, 3, 1],
]
TEXT = [
    ["EVE", "PER", "PER", "PER", "YEAR", "YEAR", "ORG", "QTY"],
    ["TITLE", None, "PER", "PER", "YEAR", "YEAR", "PER", None],
    ["EVE", "PER", "ORG", "PER", "YEAR", "QTY", "ORG", "QTY"],
]


# ----------------------------------------------------------------------------- the wheel


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    """One copy of the sources for both wheels (the checkout may change between two builds)."""
    return build_lite.snapshot_sources(tmp_path_factory.mktemp("sources") / "src")


@pytest.fixture(scope="module")
def project_wheel(tmp_path_factory, sources) -> Path:
    """The wheel the project builds (``pip wheel --no-deps``), from an untouched copy of the sources."""
    return build_lite.build_wheel(tmp_path_factory.mktemp("wheel"), lite=False, sources=sources)


@pytest.fixture(scope="module")
def lite_wheel(tmp_path_factory, sources) -> Path:
    return build_lite.build_wheel(tmp_path_factory.mktemp("lite-wheel"), lite=True, sources=sources)


def _dist_info(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as z:
        return z.read(f"iaa_engine-{VERSION}.dist-info/{name}").decode()


def _requires(wheel: Path) -> list[str]:
    """The wheel's unconditional and platform-conditional requirements (not the extras)."""
    lines = [v.strip() for k, v in re.findall(r"^(Requires-Dist):(.*)$", _dist_info(wheel, "METADATA"), re.M)]
    return [r for r in lines if "extra ==" not in r]


def test_the_wheel_builds_and_is_pure_python(project_wheel):
    assert project_wheel.name == f"iaa_engine-{VERSION}-py3-none-any.whl"
    wheel_meta = _dist_info(project_wheel, "WHEEL")
    assert "Root-Is-Purelib: true" in wheel_meta
    assert re.findall(r"^Tag: (.+)$", wheel_meta, re.M) == ["py3-none-any"]
    with zipfile.ZipFile(project_wheel) as z:
        names = z.namelist()
    compiled = [n for n in names if Path(n).suffix.lower() in COMPILED]
    assert compiled == []
    assert {Path(n).suffix for n in names} <= {".py", ".typed", ".csv", "", ".txt"}, names
    assert "iaa_engine/__init__.py" in names and "iaa_engine/base/_version.py" in names
    assert f"Version: {VERSION}" in _dist_info(project_wheel, "METADATA")


def test_every_dependency_is_installable_on_pyodide(lite_wheel):
    """micropip resolves a wheel's requirements: each one must come from Pyodide, be pure Python on PyPI, or be
    marked off Pyodide (``sys_platform != 'emscripten'``), else installing iaa-engine in xlwings Lite fails."""
    markers = pytest.importorskip("packaging.markers")
    requirements = pytest.importorskip("packaging.requirements")
    pyodide = {"sys_platform": "emscripten", "platform_system": "Emscripten", "python_version": "3.12"}
    on_pyodide = set()
    for line in _requires(lite_wheel):
        req = requirements.Requirement(line)
        if req.marker is None or req.marker.evaluate(pyodide):
            on_pyodide.add(req.name.lower())
    assert on_pyodide == FROM_PYODIDE | PURE_PYTHON_ON_PYPI
    assert markers.Marker("sys_platform != 'emscripten'").evaluate(pyodide) is False


def test_the_lite_wheel_is_the_project_wheel_with_rapidfuzz_marked_off_pyodide(project_wheel, lite_wheel):
    assert lite_wheel.name == project_wheel.name

    def contents(wheel):
        with zipfile.ZipFile(wheel) as z:
            return {n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist() if not n.startswith("iaa_engine-")}

    assert contents(lite_wheel) == contents(project_wheel)  # same code, same data files
    project, lite = _requires(project_wheel), _requires(lite_wheel)
    changed = [(a, b) for a, b in zip(project, lite) if a != b]
    assert len(project) == len(lite)
    assert [a.split(";")[0].strip() for a, _ in changed] == [b.split(";")[0].strip() for _, b in changed]
    for name in build_lite.NOT_ON_PYODIDE:
        (line,) = [r for r in lite if r.lower().startswith(name)]
        assert re.search(r";\s*sys_platform\s*!=\s*[\"']emscripten[\"']", line), line


@pytest.mark.slow
def test_the_lite_wheel_installs_in_a_clean_venv_without_a_compiler(lite_wheel, tmp_path):
    """A fresh venv, only binary wheels from the machine's package index (``--only-binary=:all:``: nothing can be
    compiled), no C compiler reachable through ``CC``/``CXX``; then the installed package computes seed 001."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(CC="false", CXX="false", PIP_NO_INPUT="1")
    # --no-compile: pip would byte-compile every module of numpy, pandas and scipy (two thirds of the install's CPU);
    # Python compiles what the check below imports, as it does after any install
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--only-binary=:all:", "--no-compile", str(lite_wheel)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    assert "Building wheel" not in install.stdout
    site = subprocess.run(
        [str(python), "-c", "import iaa_engine, pathlib; print(pathlib.Path(iaa_engine.__file__).parent)"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    ).stdout.strip()
    assert [p for p in Path(site).rglob("*") if p.suffix.lower() in COMPILED] == []
    code = (
        "import json, iaa_engine as ie, rapidfuzz\n"
        f"d = ie.Annotations.from_wide({MATRIX_A!r})\n"
        "print(json.dumps([ie.__version__, ie.fleiss_kappa(d), ie.krippendorff_alpha(d)]))\n"
    )
    run = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    version, kappa, alpha = json.loads(run.stdout.strip().splitlines()[-1])
    assert version == VERSION
    assert round(kappa, 3) == 0.599 and round(alpha, 3) == 0.608


# ----------------------------------------------------------------------------- the two files a user pastes


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """The statements of a module other than its docstring, as (module, names) of ``from ... import ...``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = [n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    assert all(isinstance(n, ast.ImportFrom) for n in body), path  # nothing but imports
    return [(n.module, [a.name for a in n.names]) for n in body]


def test_main_py_is_generated_from_the_add_in_and_up_to_date():
    text = MAIN.read_text(encoding="utf-8")
    assert text == build_lite.main_py(), "excel_addin/lite/main.py is stale: run python excel_addin/lite/build_lite.py"
    # one source of the worksheet functions: main.py imports them from the package as iaa_functions.py does
    assert _imports(MAIN) == _imports(ROOT / "excel_addin" / "iaa_functions.py")
    assert _imports(MAIN) == [("iaa_engine.excel", ["*"]), ("iaa_engine.excel", ["__all__"])]
    header = text[: text.index("\nfrom ")]
    assert all(line.startswith("#") or not line.strip() for line in header.splitlines())  # comments only
    compile(text, str(MAIN), "exec")
    assert build_lite.main(["--check"]) == 0


def test_requirements_pin_the_wheel_and_leave_pyodide_packages_alone():
    text = REQUIREMENTS.read_text(encoding="utf-8")
    assert text == build_lite.requirements_txt(), "excel_addin/lite/requirements.txt is stale: run build_lite.py"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # xlwings Lite hands each line to micropip: no comments, no pip options
    assert all(not line.startswith(("#", "-")) for line in lines), lines
    wheels = [line for line in lines if line.endswith(".whl")]
    assert len(wheels) == 1 and wheels[0].startswith("https://"), lines
    assert wheels[0].rsplit("/", 1)[1] == f"iaa_engine-{VERSION}-py3-none-any.whl"  # the file name pins the version
    names = {re.split(r"[<>=!~;\[ @]", line, maxsplit=1)[0].lower() for line in lines if line not in wheels}
    assert names.isdisjoint(FROM_PYODIDE | {"pyarrow"}), (
        "numpy, pandas, scipy, pyarrow come with Pyodide: never pin them"
    )
    assert names == {"xlwings"}
    assert f"xlwings=={build_lite.XLWINGS_VERSION}" in lines
    xlwings = pytest.importorskip("xlwings")
    assert xlwings.__version__ == build_lite.XLWINGS_VERSION, (
        "the Lite bundle pins the xlwings release the add-in's tests run with: update XLWINGS_VERSION in build_lite.py"
    )


def test_the_readme_shows_the_current_requirements():
    """excel_addin/README.md quotes requirements.txt in its xlwings Lite steps: the quote follows the file."""
    readme = (ROOT / "excel_addin" / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^ *```\n(.*?)^ *```", readme, re.M | re.S)
    quoted = [[line.strip() for line in b.splitlines()] for b in blocks if "xlwings==" in b]
    assert quoted == [REQUIREMENTS.read_text(encoding="utf-8").splitlines()]


def test_url_base_writes_a_ready_requirements_file():
    text = build_lite.requirements_txt("https://example.org/wheels")
    assert text.splitlines()[1] == f"https://example.org/wheels/iaa_engine-{VERSION}-py3-none-any.whl"


# ----------------------------------------------------------------------------- without what Pyodide lacks

# UALPHA's range: a spans table (headers, then annotator, start, end, label).
SPANS = [["annotator", "start", "end", "label"], ["a", 0.0, 5.0, "X"], ["b", 1.0, 5.0, "X"], ["a", 7.0, 9.0, "Y"]]

# Runs every worksheet function of the generated main.py through xlwings's Office.js call path (as xlwings Lite
# does), on numbers and on text labels, with the modules named in argv[2] made unimportable first.
RUNNER = r"""
import asyncio, importlib.util, inspect, json, logging, sys
for name in filter(None, sys.argv[2].split(",")):
    sys.modules[name] = None  # "import name" now raises ImportError, as on Pyodide without the package
import xlwings as xw
import xlwings.server as server
spec = importlib.util.spec_from_file_location("main", sys.argv[1])
main = importlib.util.module_from_spec(spec)
spec.loader.exec_module(main)
logged = []
handler = logging.Handler()
handler.emit = lambda record: logged.append(record.getMessage())
logging.getLogger("iaa_engine.excel").addHandler(handler)
data = json.loads(sys.argv[3])
spans = data.pop("spans")  # UALPHA reads a spans table, not a rating range
results = {}
for func in main.__all__:
    params = list(inspect.signature(getattr(main, func)).parameters)
    pair = "metric" not in params  # COHEN, SCOTTPI, COHEN_WEIGHTED: annotators 1 and 2; IAA_ESTIMATE: Fleiss
    for label, rng in data.items():
        given = {"data": spans if func == "UALPHA" else rng, "layout": [["rows"]], "known": [rng[0]],
                 "data_b": rng, "coefficient": [["alpha"]], "null": [[0.8]], "prevalence": [[0.25]],
                 "model": [rng[0]], "epsilon": [[0.2]], "min_items": [[2]],  # ALT_TEST: annotator 1 as the model
                 "judge": [rng[0] + rng[0]], "positive": [[rng[0][0]]]}  # JUDGE_ACCURACY: 15 more items judged
        if pair:
            given.update(annotator_a=[[1]], annotator_b=[[2]])
        args = [given.get(p) for p in params]
        payload = {"func_name": func, "args": args, "caller_address": "Sheet1!B2", "version": xw.__version__,
                   "runtime": "1.4"}
        results[f"{func}/{label}"] = asyncio.run(server.custom_functions_call(payload, main))
registered = [f["name"] for f in server.custom_functions_meta(main)["functions"]]
print(json.dumps({"results": results, "logged": logged, "registered": registered}))
"""


def _run_functions(block: str = "") -> dict:
    env = dict(os.environ, XLWINGS_ON_SERVER="true", XLWINGS_LICENSE_KEY="noncommercial")
    data = {"numbers": [[float(v) for v in row] for row in MATRIX_A], "text": TEXT, "spans": SPANS}
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, str(MAIN), block, json.dumps(data)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def with_everything() -> dict:
    if importlib.util.find_spec("xlwings") is None:
        pytest.skip("xlwings is not installed")
    return _run_functions()


def test_every_function_answers_through_the_lite_call_path(with_everything):
    results = with_everything["results"]
    exported = with_everything["registered"]  # what xlwings registers from main.py (the runner's main.__all__)
    assert {key.split("/")[0] for key in results} == set(exported)
    assert round(results["FLEISS/numbers"][0][0], 3) == 0.599
    numbers = {k: v for k, v in results.items() if k.endswith("/numbers")}
    errors = {k: v for k, v in numbers.items() if any(isinstance(c, dict) for row in v for c in row)}
    assert errors == {}, errors  # numeric ratings: every function gives a value
    assert isinstance(results["FLEISS/text"][0][0], float) and isinstance(results["KALPHA/text"][0][0], float)


def test_the_worksheet_functions_do_not_need_rapidfuzz(with_everything):
    """Pyodide has no rapidfuzz: the Lite wheel does not require it there, so the functions must not import it."""
    without = _run_functions("rapidfuzz")
    assert without["results"] == with_everything["results"]
    assert not [m for m in without["logged"] if "rapidfuzz" in m or "ModuleNotFound" in m], without["logged"]


def test_the_worksheet_functions_do_not_need_pyarrow(with_everything):
    """Pyodide 0.28.0-0.29.1 ship no pyarrow: iaa_engine.data._encode then reads labels with pandas/numpy, and every
    function gives the same result (tests/test_encode_without_pyarrow.py compares the two paths in detail)."""
    without = _run_functions("pyarrow,pyarrow.compute")
    assert without["results"] == with_everything["results"], without["logged"][:3]
    assert not [m for m in without["logged"] if "pyarrow" in m or "ModuleNotFound" in m], without["logged"]
