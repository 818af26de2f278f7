"""The `iaa` command line, run as a user runs it (a subprocess of the installed console script)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

EXAMPLES = Path(ie.__file__).parent / "examples"
IAA = shutil.which("iaa", path=str(Path(sys.executable).parent)) or shutil.which("iaa")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    assert IAA, "the iaa console script is not installed"
    env = {k: v for k, v in os.environ.items() if k != "IAA_DEBUG"}
    return subprocess.run([IAA, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_report_json_keys_on_the_crowd_example():
    """A long CSV with item,annotator,label columns is read without any flag; the JSON has the documented keys."""
    out = run("report", str(EXAMPLES / "crowd.csv"), "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    for key in (
        "n_items",
        "n_annotators",
        "n_annotations",
        "spa",
        "fleiss_kappa",
        "krippendorff_alpha",
        "multi_kappa",
        "bias",
        "percent_agreement",
        "cohen_kappa",
    ):
        assert key in rep, key
    assert set(rep["spa"]) == set(ie.SPA_WEIGHTS)
    assert set(rep["cohen_kappa"]) >= {"annotators", "matrix"}
    data = ie.read(EXAMPLES / "crowd.csv")
    assert rep["n_annotations"] == data.n_annotations == len(pd.read_csv(EXAMPLES / "crowd.csv"))
    assert rep["fleiss_kappa"] == pytest.approx(ie.fleiss_kappa(data), abs=1e-15)
    for scheme in ie.SPA_WEIGHTS:
        assert rep["spa"][scheme] == pytest.approx(ie.spa(data, weights=scheme), abs=1e-15)
    m = np.array(rep["cohen_kappa"]["matrix"], dtype=float)  # null -> nan
    np.testing.assert_allclose(m, ie.cohen_kappa_matrix(data).values, atol=1e-15)


def test_a_plain_report_never_imports_scipy():
    """SciPy costs a tenth of a second or more to import, a tenth of what reading 3 million annotations costs: the
    core imports it where it is used (sparse tables of many labels, pairwise matrices, intervals), so the plain
    report and its JSON on few labels never load it (benchmarks/bench_e2e.py times the whole command)."""
    code = (
        "import sys; from iaa_engine.cli import main; "
        f"status = main(['report', {str(EXAMPLES / 'crowd.csv')!r}, '--pairwise', 'no', '--json']); "
        "print(status, 'scipy' in sys.modules, 'pandas' in sys.modules, file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stderr.strip().splitlines()[-1] == "0 False True", out.stderr[-2000:]
    assert json.loads(out.stdout)["n_annotations"] == 926


def test_report_table_on_the_classroom_matrix():
    out = run("report", str(EXAMPLES / "classroom.csv"))
    assert out.returncode == 0, out.stderr
    assert "Fleiss' kappa" in out.stdout and "0.5994" in out.stdout  # seed 001: κ ≈ 0.599
    assert "annotator_0" in out.stdout  # the pairwise matrix is printed for a few annotators


def test_level_and_orientation_flags(tmp_path):
    frame = pd.read_csv(EXAMPLES / "classroom.csv", index_col=0)
    frame.T.to_csv(tmp_path / "items_as_rows.csv")
    out = run(
        "report", str(tmp_path / "items_as_rows.csv"), "--annotators-as", "columns", "--level", "interval", "--json"
    )
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    expected = ie.krippendorff_alpha(ie.Annotations.from_wide(frame, level="interval"))
    assert rep["krippendorff_alpha"] == pytest.approx(expected, abs=1e-15) and rep["level"] == "interval"
    assert rep["n_annotators"] == 3 and rep["n_items"] == 15


def test_column_names_and_file_formats(tmp_path):
    frame = pd.read_csv(EXAMPLES / "crowd.csv").rename(columns={"item": "doc", "annotator": "who", "label": "tag"})
    frame.to_csv(tmp_path / "c.tsv", sep="\t", index=False)
    frame.to_json(tmp_path / "c.json", orient="records")
    frame.to_parquet(tmp_path / "c.parquet")
    values = set()
    for name in ("c.tsv", "c.json", "c.parquet"):
        out = run(
            "report",
            str(tmp_path / name),
            "--item-col",
            "doc",
            "--annotator-col",
            "who",
            "--label-col",
            "tag",
            "--json",
        )
        assert out.returncode == 0, out.stderr
        values.add(json.loads(out.stdout)["spa"]["annotations_m1"])
    assert len(values) == 1


def test_ordinal_categories_flag(tmp_path):
    pd.DataFrame(
        {"item": [1, 1, 2, 2, 3, 3], "annotator": list("ababab"), "label": ["low", "mid", "high", "high", "low", "low"]}
    ).to_csv(tmp_path / "o.csv", index=False)
    out = run("report", str(tmp_path / "o.csv"), "--level", "ordinal")
    assert out.returncode == 2 and "order of the categories" in out.stderr
    out = run("report", str(tmp_path / "o.csv"), "--level", "ordinal", "--categories", "low,mid,high", "--json")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        (None, "missing.csv", "no such file"),
        (b"\x00\xff\xfe garbage \x81", "bad.parquet", "cannot parse 'bad.parquet'"),
        (b"item,annotator\n1,2\n", "short.csv", "'short.csv' has no columns 'item', 'annotator', 'label'"),
        (b"doc,who,tag\n1,a,x\n", "names.csv", "--item-col doc --annotator-col NAME --label-col tag"),
        (b"item,annotator,label\n1,a,x\n1,a,y\n", "dup.csv", "labelled more than once"),
        (b"item,annotator,label\n1,a,x\n", "data.xlsx", "expected a file ending in"),
        (b"item,annotator,label\n1,a,1\n1,b,x\n", "mixed.csv", None),
    ],
)
def test_bad_files_give_one_line_and_non_zero_exit(tmp_path, content, name, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    out = run("report", str(path))
    if message is None:  # a CSV column holding 1 and x is read as text: that is valid nominal data
        assert out.returncode == 0, out.stderr
        return
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith("iaa: error: ") and message in out.stderr


def test_interval_level_on_text_labels_is_a_clear_error():
    out = run("report", str(EXAMPLES / "crowd.csv"), "--level", "interval")
    assert out.returncode == 2 and "needs numeric labels" in out.stderr and "Traceback" not in out.stderr


def test_unknown_flag_value_is_rejected_by_argparse():
    out = run("report", str(EXAMPLES / "crowd.csv"), "--weights", "edge")
    assert out.returncode == 2 and "invalid choice: 'edge'" in out.stderr


def test_python_dash_m_and_version():
    out = subprocess.run([sys.executable, "-m", "iaa_engine", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and ie.__version__ in out.stdout


def test_gold_csv_keeps_ties_and_matches_the_library(tmp_path):
    csv = tmp_path / "tie.csv"
    pd.DataFrame(
        {"item": [1, 1, 2, 2, 2], "annotator": ["a", "b", "a", "b", "c"], "label": ["x", "y", "x", "x", "y"]}
    ).to_csv(csv, index=False)
    out = run("gold", str(csv))
    assert out.returncode == 0, out.stderr
    gold = pd.read_csv(__import__("io").StringIO(out.stdout))
    assert gold["gold"].tolist() == ["x|y", "x"] and gold["tie"].tolist() == [True, False]
    out = run("gold", str(csv), "--json")
    items = json.loads(out.stdout)["items"]
    assert items[0]["gold"] == ["x", "y"] and items[0]["tie"] is True


@pytest.mark.parametrize("rule", ["majority", "diff", "rat", "com", "inv", "dawid-skene"])
def test_gold_every_rule_writes_a_file(tmp_path, rule):
    target = tmp_path / "gold.csv"
    out = run("gold", str(EXAMPLES / "crowd.csv"), "--rule", rule, "-o", str(target))
    assert out.returncode == 0, out.stderr and "wrote gold labels" in out.stderr
    written = pd.read_csv(target)
    expected = ie.gold_standard(ie.read(EXAMPLES / "crowd.csv"), rule=rule.replace("-", "_")).per_item()
    assert written["gold"].astype(str).tolist() == expected["gold"].astype(str).tolist()


def test_report_sections_ci_hierarchy_strata(tmp_path):
    rows = [(i, a, f"{'AB'[i % 2]}/{'xyz'[(i + a) % 3 if a else i % 3]}") for i in range(40) for a in range(3)]
    path = tmp_path / "tree.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(path, index=False)
    out = run("report", str(path), "--ci", "--n-boot", "200", "--hierarchy", "--strata", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    data = ie.read(path)
    h = ie.hierarchical_agreement(data)
    assert rep["hierarchy"]["alpha_parent"] == pytest.approx(h.alpha_parent, abs=1e-15)
    assert rep["hierarchy"]["alpha_child"] == pytest.approx(h.alpha_child, abs=1e-15)
    assert set(rep["intervals"]["intervals"]) >= {"fleiss_kappa", "krippendorff_alpha", "spa[annotations_m1]"}
    boot = ie.bootstrap(data, n_boot=200, seed=0).table
    assert rep["intervals"]["intervals"]["fleiss_kappa"]["lower"] == pytest.approx(boot.loc["fleiss_kappa", "lower"])
    assert [s["stratum"] for s in rep["strata"]["strata"]] == ["rare", "moderate", "common"]
    table = run("report", str(path), "--ci", "--n-boot", "200", "--hierarchy", "--strata")
    assert "Bootstrap 95% intervals" in table.stdout and "consistency gamma" in table.stdout
    assert "Agreement by label frequency" in table.stdout
