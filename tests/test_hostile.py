"""Hostile input (issue 25): every probe class of the review gets a clean answer or a one-line error.

Classes, on the command line (the in-process ``main``), the Python API and the Excel add-in's worksheet functions:

1. formula payloads (``=1+1``, ``-2+3``, ``@ann()``, tab, carriage return) in every CSV the tool writes: ``iaa gold``,
   ``iaa disagreements --format csv`` (items and ``--pairs``), ``iaa annotators --format csv`` (``--pairs``,
   ``--gold FILE``): neutralised by OWASP's rule (a leading ``'``), recoverable, numbers left as numbers;
2. hostile names: control characters, bidi overrides, very long names;
3. absurd options (10**9 replicates, strata, workers, iterations; negative counts);
4. malformed files of known labels (``--gold``): not UTF-8, invalid JSON, a list, nested values, empty;
5. nested and huge JSON (200,000 levels; 200,000 known labels).

Reader problems of data files (orientation, quotes, missing columns, Arrow messages) are tested with the readers.
"""

from __future__ import annotations

import asyncio
import csv
import importlib
import importlib.util
import io
import json
import os
import re
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: OWASP's formula triggers (stated here, not imported: the test checks the writers against the rule itself).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")

#: Names that a spreadsheet would run as formulas, or that drive a terminal, or that are very long.
FORMULAS = ["=1+1", "-2+3", "@ann()", "+SUM(A1)", '=HYPERLINK("http://x","y")']
LONG = "L" * 5000


# --------------------------------------------------------------------------- helpers


def cli(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    """Run ``iaa ARGS`` in process; (status, stdout, stderr). ``main`` installs a one-line warning printer: undone."""
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    monkeypatch.delenv("IAA_DEBUG", raising=False)
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status: int, err: str, *needles: str) -> None:
    """Exit status 2 and exactly one ``iaa: error:`` line (the reading summary may precede it), no traceback."""
    errors = [line for line in err.splitlines() if line.startswith("iaa: error:")]
    assert status == 2 and len(errors) == 1, err
    assert "Traceback" not in err and all(n in errors[0] for n in needles), err


def unescape_cell(cell: str) -> str:
    """The documented way back: one leading ' removed."""
    return cell[1:] if cell.startswith("'") else cell


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def assert_formula_safe(text: str, originals: list[str]) -> None:
    """No cell starts a formula (unless it is a plain number), and each original name is recoverable."""
    rows = cells(text)
    flat = [c for row in rows for c in row]
    for c in flat:
        if c[:1] in FORMULA_TRIGGERS:
            assert PLAIN_NUMBER.fullmatch(c), f"formula cell written as it is: {c!r}"
    recovered = {unescape_cell(c) for c in flat}
    joined = "\n".join(unescape_cell(c) for c in flat)
    for name in originals:
        assert name in recovered or name in joined, (name, rows[:3])


@pytest.fixture(scope="module")
def payload_csv(tmp_path_factory) -> Path:
    """Items, annotators and labels that are formulas. Annotator '-2+3' always disagrees with '@ann()' (a
    negative kappa: numbers starting with '-' that must stay numbers)."""
    rows = []
    for i in range(12):
        item = FORMULAS[i % len(FORMULAS)] + f"#{i}" if i % 2 else f"i{i}"
        first = ["=cmd|' /C calc'!A0", "b"][i % 2]
        rows += [(item, "@ann()", first), (item, "-2+3", "b" if first != "b" else "=cmd|' /C calc'!A0")]
        rows += [(item, "=SUM(1)", first)]
    path = tmp_path_factory.mktemp("hostile") / "payload.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- 1. formula payloads in every CSV


def test_escape_rule_is_owasps_and_recoverable():
    from iaa_engine.base._csv import FORMULA_TRIGGERS as RULE
    from iaa_engine.base._csv import escape_cell, escape_frame, safe_csv
    from iaa_engine.base._csv import unescape_cell as helper_unescape

    assert RULE == FORMULA_TRIGGERS
    assert helper_unescape("''x") == "'x" and helper_unescape(-1.0) == -1.0
    for trigger in FORMULA_TRIGGERS:
        text = trigger + "cmd"
        assert escape_cell(text) == "'" + text and unescape_cell(escape_cell(text)) == text
    for plain in ("-0.25", "+3", "-1e-5", "-.5", "12"):  # numbers in text: a spreadsheet reads a number
        assert escape_cell(plain) == plain
    assert escape_cell("'quoted") == "''quoted" and unescape_cell("''quoted") == "'quoted"  # reversible
    assert escape_cell("cat") == "cat" and escape_cell("") == ""
    for number in (-0.25, -3, np.float64(-1.5), np.int64(-2), None, True):
        assert escape_cell(number) is number
    frame = pd.DataFrame(
        {
            "name": ["=1+1", "-2+3", "ok", "-0.25"],
            "value": [-0.25, 1.0, -3.0, 2.0],
            "count": [-1, 2, 3, 4],
            "cat": pd.Categorical(["@x", "y", "y", "\tz"]),
            "flag": [True, False, True, False],
        }
    )
    out = escape_frame(frame)
    assert out["name"].tolist() == ["'=1+1", "'-2+3", "ok", "-0.25"]
    assert out["cat"].tolist() == ["'@x", "y", "y", "'\tz"]
    pd.testing.assert_frame_equal(out[["value", "count", "flag"]], frame[["value", "count", "flag"]])
    back = pd.read_csv(io.StringIO(safe_csv(frame)))
    assert back["value"].tolist() == [-0.25, 1.0, -3.0, 2.0] and back["count"].tolist() == [-1, 2, 3, 4]
    assert back["name"].map(unescape_cell).tolist() == frame["name"].tolist()
    assert escape_frame(pd.DataFrame({"=evil": [1]})).columns.tolist() == ["'=evil"]  # the header row too


def test_every_cli_writer_uses_the_helper():
    """No CSV leaves the command line except through safe_csv (one helper for every writer)."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "iaa_engine" / "cli").glob("*.py")))
    assert ".to_csv(" not in source and "csv.writer" not in source
    assert source.count("safe_csv(") >= 4


def test_gold_csv_neutralises_formulas(payload_csv, tmp_path, capsys, monkeypatch):
    target = tmp_path / "gold.csv"
    status, _, err = cli(capsys, monkeypatch, "gold", str(payload_csv), "-o", str(target))
    assert status == 0, err
    assert_formula_safe(target.read_text(encoding="utf-8"), ["=cmd|' /C calc'!A0", "=1+1#5", "-2+3#1", "@ann()#7"])
    status, out, _ = cli(capsys, monkeypatch, "gold", str(payload_csv), "--rule", "dawid-skene")
    assert status == 0
    assert_formula_safe(out, ["=cmd|' /C calc'!A0"])


@pytest.mark.parametrize("extra", [[], ["--pairs"], ["--no-dawid-skene", "--top", "0"]])
def test_disagreements_csv_neutralises_formulas(payload_csv, extra, capsys, monkeypatch):
    status, out, err = cli(capsys, monkeypatch, "disagreements", str(payload_csv), "--format", "csv", *extra)
    assert status == 0, err
    assert_formula_safe(out, ["=cmd|' /C calc'!A0"] + ([] if "--pairs" in extra else ["=1+1#5"]))
    frame = pd.read_csv(io.StringIO(out))
    numeric = ["observed", "expected", "ratio"] if "--pairs" in extra else ["agreement", "disagreement"]
    assert all(pd.api.types.is_float_dtype(frame[c]) for c in numeric)


@pytest.mark.parametrize("extra", [[], ["--pairs"], ["--gold", "GOLD_CSV"], ["--gold", "GOLD_JSON"]])
def test_annotators_csv_neutralises_formulas_and_keeps_negative_numbers(
    payload_csv, extra, tmp_path, capsys, monkeypatch
):
    gold_csv = tmp_path / "known.csv"
    pd.DataFrame({"item": ["=1+1#5", "i0"], "label": ["b", "=cmd|' /C calc'!A0"]}).to_csv(gold_csv, index=False)
    gold_json = tmp_path / "known.json"
    gold_json.write_text(json.dumps({"=1+1#5": "b", "i0": "=cmd|' /C calc'!A0"}), encoding="utf-8")
    extra = [{"GOLD_CSV": str(gold_csv), "GOLD_JSON": str(gold_json)}.get(a, a) for a in extra]
    status, out, err = cli(capsys, monkeypatch, "annotators", str(payload_csv), "--format", "csv", *extra)
    assert status == 0, err
    names = ["@ann()", "-2+3", "=SUM(1)"]
    assert_formula_safe(out, names)
    frame = pd.read_csv(io.StringIO(out))
    if "--pairs" not in extra:
        assert frame["annotator"].map(unescape_cell).tolist() == sorted(names, key=str) or set(
            frame["annotator"].map(unescape_cell)
        ) == set(names)
        assert pd.api.types.is_float_dtype(frame["kappa"]) and (frame["kappa"] < 0).any()  # numbers stay numbers
        negative = [c for row in cells(out)[1:] for c in row if c.startswith("-") and PLAIN_NUMBER.fullmatch(c)]
        assert negative  # written as '-0.5', not "'-0.5"


# --------------------------------------------------------------------------- 2. hostile names


@pytest.fixture(scope="module")
def names_csv(tmp_path_factory) -> Path:
    rows = []
    for i, item in enumerate(["i\x1b[31mred", "\u202eevil-item", LONG, "plain", "x\x07bell"]):
        rows += [(item, "\u202eann", "a"), (item, "b\x1b]0;title\x07", "b" if i % 2 else "a")]
        rows += [(item, LONG[:300], LONG if i == 2 else "a")]
    path = tmp_path_factory.mktemp("names") / "names.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    "command", [["report"], ["disagreements"], ["annotators"], ["report", "--hierarchy"], ["report", "--strata"]]
)
def test_control_characters_bidi_and_long_names_in_tables(names_csv, command, capsys, monkeypatch):
    status, out, err = cli(capsys, monkeypatch, command[0], str(names_csv), *command[1:])
    assert status == 0, err
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out  # escaped, not sent to the terminal
    if command == ["disagreements"]:
        assert max(len(line) for line in out.splitlines()) < 1000  # long names are cut in the table


@pytest.mark.parametrize("command", [["report", "--json"], ["disagreements", "--format", "json"]])
def test_hostile_names_are_kept_exactly_in_json(names_csv, command, capsys, monkeypatch):
    status, out, err = cli(capsys, monkeypatch, command[0], str(names_csv), *command[1:])
    assert status == 0, err
    data = json.loads(out)
    if command[0] == "disagreements":
        assert {"\u202eevil-item", LONG} <= {i["item"] for i in data["items"]}  # the disagreeing ones
        assert "b\x1b]0;title\x07" in {a["annotator"] for i in data["items"] for a in i["annotations"]}
    else:
        assert data["n_items"] == 5 and "b\x1b]0;title\x07" in set(_strings(data))


def _strings(obj):
    """Every string (keys too) inside a JSON value."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def test_hostile_names_through_the_python_api(names_csv):
    data = ie.read(names_csv)
    for result in (ie.report(data), ie.disagreements(data, progress=False), ie.annotator_report(data)):
        text = str(result)
        assert "\x1b" not in text and "\u202e" not in text
    assert LONG in set(ie.disagreements(data, dawid_skene=False).items["item"])  # the data keeps the name whole


# --------------------------------------------------------------------------- 3. absurd options


@pytest.mark.parametrize(
    "args, needle",
    [
        (["report", "PATH", "--strata", "1000000000"], "strata must be a whole number from 1 to 100"),
        (["report", "PATH", "--ci", "--n-boot", "1000000000"], "n_boot must be a whole number from 2 to 100000"),
        (["gold", "PATH", "--max-iter", "1000000000"], "max_iter must be a whole number from 1 to 100000"),
        (["disagreements", "PATH", "--max-iter", "1000000000"], "max_iter must be a whole number"),
        (["gold", "PATH", "--sep", ""], "--sep must be a non-empty string"),
        (["report", "PATH", "--hierarchy", ""], "hierarchy must be a non-empty string"),
        (["annotators", "PATH", "--gold", "GOLD", "--threshold", "nan"], "threshold must be a number in [0, 1]"),
        (["annotators", "PATH", "--gold", "GOLD", "--threshold", "-1"], "threshold must be a number in [0, 1]"),
    ],
)
def test_absurd_options_are_one_line(payload_csv, tmp_path, args, needle, capsys, monkeypatch):
    gold = tmp_path / "g.csv"
    gold.write_text("item,label\ni0,b\n", encoding="utf-8")
    args = [{"PATH": str(payload_csv), "GOLD": str(gold)}.get(a, a) for a in args]
    start = time.perf_counter()
    status, _, err = cli(capsys, monkeypatch, *args)
    assert_one_line_error(status, err, needle)
    assert time.perf_counter() - start < 20  # refused before any work (10**9 of anything used to run or crash)


def test_huge_top_is_a_clean_answer(payload_csv, capsys, monkeypatch):
    status, out, _ = cli(capsys, monkeypatch, "disagreements", str(payload_csv), "--top", str(10**18))
    assert status == 0 and "Items to adjudicate" in out


def test_workers_beyond_the_cores_are_refused_before_a_cluster_starts(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    pytest.importorskip("pyarrow")
    path = tmp_path / "d.parquet"
    pd.DataFrame({"item": ["a", "a"], "annotator": ["x", "y"], "label": ["1", "2"]}).to_parquet(path)
    status, _, err = cli(capsys, monkeypatch, "report", str(path), "--engine", "dask", "--workers", "1000")
    assert_one_line_error(status, err, f"n_workers must be a whole number from 1 to {os.cpu_count() or 1}")


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda d: ie.missingness_simulation(d, n_rep=10**9), "n_rep must be a whole number from 1 to 100000"),
        (lambda d: ie.frequency_strata(d, n_strata=10**9), "n_strata must be a whole number from 1 to 100"),
        (lambda d: ie.report(d, strata=10**9), "strata must be a whole number from 1 to 100"),
        (lambda d: ie.hierarchy_test(d, n_boot=10**9), "n_boot must be a whole number from 2 to 100000"),
        (lambda d: ie.gold_standard(d, rule="dawid_skene", max_iter=10**9), "max_iter must be a whole number"),
        (
            lambda d: ie.item_agreement_variance(-3, [0.5, 0.5]),
            "n must be a whole number of at least 0 (or an array of them); got -3",
        ),
        (lambda d: ie.item_agreement_variance([2, 2.5], [0.5, 0.5]), "n must be a whole number of at least 0"),
        (lambda d: ie.item_agreement_variance("x", [0.5, 0.5]), "n must be a whole number of at least 0"),
        (lambda d: ie.read_dask("none.parquet", n_workers=1000), "n_workers must be a whole number from 1 to"),
    ],
)
def test_absurd_sizes_in_the_python_api_are_refused_at_once(call, needle):
    data = ie.read(ROOT / "iaa_engine" / "examples" / "classroom.csv")
    start = time.perf_counter()
    with pytest.raises(ie.InvalidParameterError) as info:
        call(data)
    assert needle in str(info.value) and "\n" not in str(info.value)
    assert time.perf_counter() - start < 5


def test_item_agreement_variance_of_items_without_pairs_is_undefined():
    """n = 0 and n = 1 have no pair, so no agreement and no variance of one: nan under the one policy (issue 32;
    it was inf), with an UndefinedMetricWarning saying why for one number; arrays are filled without a warning."""
    with pytest.warns(ie.UndefinedMetricWarning, match="item_agreement_variance is undefined: an item with 1 "
                      "annotation has no pair of annotations, so no agreement"):  # fmt: skip
        assert np.isnan(ie.item_agreement_variance(1, [0.5, 0.5]))
    assert np.isnan(ie.item_agreement_variance([0, 1], [0.5, 0.5])).all()
    assert ie.item_agreement_variance(2, [0.5, 0.5]) == pytest.approx(0.25)
    weights = ie.spa_item_weights(pd.DataFrame({"item": [1, 1, 2], "annotator": ["a", "b", "a"], "label": "x"}),
                                  weights="inv_var")  # fmt: skip
    assert weights.tolist()[1] == 0.0  # inverse-variance weighting still gives an item without a pair weight 0


# --------------------------------------------------------------------------- 4-5. malformed, nested, huge --gold


@pytest.mark.parametrize(
    "name, content, needle",
    [
        ("deep.json", b"[" * 200_000 + b"]" * 200_000, "the JSON is nested too deeply"),
        ("deeper.json", b'{"a":' * 200_000 + b"1" + b"}" * 200_000, "the JSON is nested too deeply"),
        ("latin.csv", "item,label\ni0,caf\xe9\n".encode("latin-1"), "not UTF-8 text (byte 0xe9"),
        ("latin.json", '{"i0": "caf\xe9"}'.encode("latin-1"), "not UTF-8 text (byte 0xe9"),
        ("broken.json", b'{"i0": ', "not valid JSON"),
        ("list.json", b'["i0", "b"]', "must be an object item -> label"),
        ("nested.json", b'{"i0": {"label": "b"}}', "a known label must be text or a number"),
        ("empty.csv", b"", "the file is empty"),
        ("columns.csv", b"a,b,c\n1,2,3\n", "needs columns 'item' and 'label'"),
        ("missing.csv", None, "--gold: no such file"),
    ],
)
def test_malformed_gold_files_are_one_line_naming_the_file(
    payload_csv, tmp_path, name, content, needle, capsys, monkeypatch
):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    status, _, err = cli(capsys, monkeypatch, "annotators", str(payload_csv), "--gold", str(path))
    assert_one_line_error(status, err, needle, name)


def test_a_huge_gold_file_is_read(payload_csv, tmp_path, capsys, monkeypatch):
    """200,000 known labels (most for items not in the data): a one-line answer about the items, quickly."""
    path = tmp_path / "huge.json"
    known = {f"x{k}": "b" for k in range(200_000)} | {"i0": "b", "i2": "b"}
    path.write_text(json.dumps(known), encoding="utf-8")
    start = time.perf_counter()
    status, out, err = cli(capsys, monkeypatch, "annotators", str(payload_csv), "--gold", str(path))
    assert status in (0, 2) and "Traceback" not in err
    if status == 2:
        assert_one_line_error(status, err)
    assert time.perf_counter() - start < 20


def test_a_deeply_nested_json_data_file_is_one_line(tmp_path, capsys, monkeypatch):
    path = tmp_path / "deep.json"
    path.write_bytes(b"[" * 200_000 + b"]" * 200_000)
    status, _, err = cli(capsys, monkeypatch, "report", str(path))
    assert_one_line_error(status, err, "deep.json")


# --------------------------------------------------------------------------- the Excel add-in


def _addin():
    """The add-in's worksheet functions as tests/test_excel_addin.py loads them (xlwings in server mode)."""
    os.environ["XLWINGS_ON_SERVER"] = "true"
    os.environ.setdefault("XLWINGS_LICENSE_KEY", "noncommercial")
    xw = pytest.importorskip("xlwings")
    if not getattr(xw, "on_server", False):
        xw = importlib.reload(xw)
    server = pytest.importorskip("xlwings.server")
    excel = importlib.import_module("iaa_engine.excel")
    if not all(hasattr(getattr(excel, name), "__xlfunc__") for name in excel.__all__):
        for module in ("_worksheet", "_functions", "_compare", "_judges", "_plan", "_rankings", "_spans"):
            importlib.reload(importlib.import_module(f"iaa_engine.excel.{module}"))
        importlib.reload(excel)
    spec = importlib.util.spec_from_file_location("iaa_functions_hostile", ROOT / "excel_addin" / "iaa_functions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return xw, server, mod, list(excel.__all__)


#: Ranges Excel could send: formula texts, control characters and bidi overrides, a very long text, extreme
#: numbers, one cell, an empty range.
RANGES = {
    "formulas": [["=1+1", "@ann()", "-2+3"], ["=1+1", "+x", "=1+1"], ["@ann()", "@ann()", "-2+3"], ["a", "b", "a"]],
    "names": [["\x1b[31mred", "\u202eevil", LONG], ["\x1b[31mred", "b", LONG], ["a", "\u202eevil", "a"]],
    "extreme": [[1e308, -1e308, 0.0], [1e308, 1e308, -1e308], [5e-324, 0.0, 1.0]],
    "one cell": [["x"]],
    "empty": [[None]],
}


def test_every_worksheet_function_answers_hostile_ranges_with_a_value_or_an_error():
    xw, server, addin, names = _addin()
    assert len(names) >= 20
    for func in names:
        for what, grid in RANGES.items():
            payload = {
                "func_name": func,
                "args": [grid],
                "caller_address": "Sheet1!B2",
                "version": xw.__version__,
                "runtime": "1.4",
            }
            out = asyncio.run(server.custom_functions_call(payload, addin))
            assert isinstance(out, list) and all(isinstance(row, list) for row in out), (func, what, out)
            for row in out:
                for cell in row:
                    if isinstance(cell, dict):  # an Excel error value as xlwings sends it to Office.js
                        assert cell.get("type") == "Error", (func, what, cell)
                        continue
                    assert cell is None or isinstance(cell, (str, int, float, bool)), (func, what, cell)
                    if isinstance(cell, str) and cell.startswith("#"):
                        assert cell.split()[0].rstrip("!?/0A") in ("#VALUE", "#N", "#NUM", "#DIV", "#REF", "#NAME"), (
                            func,
                            what,
                            cell,
                        )
