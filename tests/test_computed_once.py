"""One CLI run computes each statistic once: the HTML page and the JSON draw the report and bootstrap already made."""

from __future__ import annotations

import json

import iaa_engine.inference._inference as inference
import iaa_engine.reporting._report as report_module
from iaa_engine import cli
from iaa_engine.data._model import Annotations
from iaa_engine.stats._tables import PairStats

from .test_cli import EXAMPLES


def test_report_ci_html_json_computes_one_report_and_one_bootstrap(tmp_path, monkeypatch, capsys):
    calls = {"report": 0, "bootstrap": 0, "pair_stats": 0}
    real_report, real_boot, real_pairs = report_module.report, inference.bootstrap, PairStats.from_codes

    def counting(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(report_module, "report", counting("report", real_report))
    monkeypatch.setattr(inference, "bootstrap", counting("bootstrap", real_boot))
    monkeypatch.setattr(PairStats, "from_codes", staticmethod(counting("pair_stats", real_pairs)))
    out = tmp_path / "r.html"
    status = cli.main(["report", str(EXAMPLES / "crowd.csv"), "--ci", "--n-boot", "50", "--html", str(out), "--json"])
    assert status == 0
    assert calls == {"report": 1, "bootstrap": 1, "pair_stats": 1}, calls
    page = out.read_text()
    doc = json.loads(capsys.readouterr().out)
    # the page shows the intervals that the JSON carries: the same bootstrap
    lower = doc["intervals"]["table"]["fleiss_kappa"]["lower"] if "table" in doc["intervals"] else None
    assert "fig-forest" in page and "Confidence intervals" in page
    if lower is not None:
        assert f"{lower:.4f}" in page


def test_html_without_ci_draws_no_intervals_and_runs_no_bootstrap(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(inference, "bootstrap", lambda *a, **k: calls.append(1))
    out = tmp_path / "r.html"
    assert cli.main(["report", str(EXAMPLES / "crowd.csv"), "--html", str(out)]) == 0
    assert calls == [] and "add --ci" in out.read_text()


def test_a_count_table_builds_no_annotator_statistics(tmp_path, monkeypatch):
    built = []
    monkeypatch.setattr(Annotations, "pair_stats", property(lambda self: built.append(1)))
    path = tmp_path / "counts.csv"
    path.write_text("item,a,b\nq1,2,1\nq2,0,3\n")
    assert cli.main(["report", str(path), "--layout", "counts", "--json"]) == 0
    assert built == []


def test_the_weighted_coefficients_share_one_pass_over_the_items(tmp_path, monkeypatch, capsys):
    """An ordinal report computes the weighted family's per-item terms once for all five coefficients."""
    import iaa_engine.metrics._weighted as weighted

    calls = {"parts": 0}
    real = weighted._gwet_parts

    def counting(*args, **kwargs):
        calls["parts"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(weighted, "_gwet_parts", counting)
    table = tmp_path / "ratings.csv"
    rows = [f"i{i},a{a},{1 + (i * 7 + a * 3) % 5}" for i in range(40) for a in range(4) if (i + a) % 5]
    table.write_text("item,annotator,label\n" + "\n".join(rows) + "\n")
    assert cli.main(["report", str(table), "--level", "ordinal", "--ci", "--n-boot", "20", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"fleiss_kappa[quadratic]", "gwet_ac1[quadratic]", "fleiss_kappa"} <= set(doc["estimates"])
    assert calls["parts"] == 2, calls  # quadratic weights once, identity (the --ci analytic SEs) once
