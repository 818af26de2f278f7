"""``iaa judges HUMANS MODELS`` (issue 34, item 5): the table, CSV and JSON carry what the core computes."""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.cli import main
from tests.test_alt_test import long, model_table, synthetic


def cli(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    monkeypatch.delenv("IAA_DEBUG", raising=False)
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def files(tmp_path):
    humans, models = synthetic(0, n_items=300)
    h, m = long(humans), model_table(models)
    h.to_csv(tmp_path / "humans.csv", index=False)
    m.to_csv(tmp_path / "models.csv", index=False)
    return tmp_path / "humans.csv", tmp_path / "models.csv", h, m


def test_table_csv_and_json_carry_the_core_numbers(files, capsys, monkeypatch):
    hp, mp, h, m = files
    alt = ie.alt_test(h, m, epsilon=0.15)
    like = ie.human_likeness(h, m)
    status, out, err = cli(capsys, monkeypatch, "judges", str(hp), str(mp), "--epsilon", "0.15")
    assert status == 0 and "Traceback" not in err
    good = alt.models.set_index("model").loc["good"]
    assert f"good: {'PASSED' if good['passed'] else 'FAILED'}  winning rate {good['omega']:.2f}" in out
    assert f"z {like.table.set_index('model').loc['poor', 'z']:+.2f}" in out
    status, out, _ = cli(capsys, monkeypatch, "judges", str(hp), str(mp), "--epsilon", "0.15", "--format", "csv")
    table = pd.read_csv(io.StringIO(out)).set_index("model")
    np.testing.assert_allclose(table["omega"], alt.models.set_index("model")["omega"].loc[table.index])
    np.testing.assert_allclose(table["rho"], alt.models.set_index("model")["rho"].loc[table.index], rtol=1e-12)
    status, out, _ = cli(capsys, monkeypatch, "judges", str(hp), str(mp), "--epsilon", "0.15", "--format", "json")
    doc = json.loads(out)
    assert doc["alt_test"]["humans"] == json.loads(alt.to_json())["humans"]
    assert {r["model"] for r in doc["models"]} == {"good", "poor"}
    status, out, _ = cli(
        capsys, monkeypatch, "judges", str(hp), str(mp), "--epsilon", "0.15", "--format", "csv", "--table", "humans"
    )
    assert len(pd.read_csv(io.StringIO(out))) == len(alt.humans)


def test_corrected_rate_for_binary_labels(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(5)
    truth = rng.random(600) < 0.3
    humans = pd.DataFrame({"item": range(200), "annotator": "expert", "label": np.where(truth[:200], "pass", "fail")})
    said = np.where(truth, rng.random(600) < 0.85, rng.random(600) < 0.2)
    judge = pd.DataFrame({"item": range(600), "annotator": "llm", "label": np.where(said, "pass", "fail")})
    humans.to_csv(tmp_path / "h.csv", index=False)
    judge.to_csv(tmp_path / "j.csv", index=False)
    ref = ie.judge_accuracy(humans, judge, positive="pass").table.iloc[0]
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "j.csv"),
                           "--epsilon", "0.2", "--positive", "pass")  # fmt: skip
    assert status == 0, err
    assert f"corrected {ref['corrected']:.3f} [{ref['lower']:.3f}, {ref['upper']:.3f}]" in out
    # one human: the alternative annotator test is undefined, and says so
    assert "llm: undefined" in out


def test_errors_are_one_line(files, capsys, monkeypatch):
    hp, mp, _, _ = files
    with pytest.raises(SystemExit):
        cli(capsys, monkeypatch, "judges", str(hp), str(mp))  # --epsilon is required
    status, out, err = cli(capsys, monkeypatch, "judges", str(hp), str(mp), "--epsilon", "2")
    assert status == 2 and "--epsilon must be" in err and "Traceback" not in err


def test_html_page(files, capsys, monkeypatch):
    hp, mp, h, m = files
    page_path = hp.parent / "judges.html"
    status, out, err = cli(capsys, monkeypatch, "judges", str(hp), str(mp), "--epsilon", "0.15", "--html",
                           str(page_path))  # fmt: skip
    assert status == 0, err
    page = page_path.read_text(encoding="utf-8")
    alt = ie.alt_test(h, m, epsilon=0.15)
    assert (
        page.count("<svg") == 2
        and "<script" not in page
        and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    )
    good = alt.models.set_index("model").loc["good"]
    assert f'data-value="{float(good["omega"])!r}"' in page and f'data-value="{float(good["rho"])!r}"' in page
    # a header row per table (the models, each model's humans), a row per model and per tested human
    assert page.count("<tr>") == 3 + 2 + len(alt.humans)


def test_html_escapes_names(tmp_path, capsys, monkeypatch):
    humans, models = synthetic(1, n_items=120)
    h, m = long(humans), model_table(models)
    m["annotator"] = m["annotator"].map({"good": "<b>good</b>", "poor": "poor&co"})
    h.to_csv(tmp_path / "h.csv", index=False)
    m.to_csv(tmp_path / "m.csv", index=False)
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "m.csv"),
                           "--epsilon", "0.1", "--min-items", "10", "--html", str(tmp_path / "p.html"))  # fmt: skip
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert status == 0 and "<b>good</b>" not in page and "&lt;b&gt;good&lt;/b&gt;" in page and "poor&amp;co" in page


def test_by_a_column_of_the_humans_file(tmp_path, capsys, monkeypatch):
    humans, models = synthetic(2, n_items=240)
    h, m = long(humans), model_table(models)
    h["domain"] = np.where(h["item"] < "i120", "news", "reviews")
    h.to_csv(tmp_path / "h.csv", index=False)
    m.to_csv(tmp_path / "m.csv", index=False)
    ref = ie.alt_test(h, m, epsilon=0.15, min_items=10, by=dict(zip(h.item, h.domain)))
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "m.csv"),
                           "--epsilon", "0.15", "--min-items", "10", "--by", "domain")  # fmt: skip
    assert status == 0, err
    for r in ref.summary.itertuples(index=False):
        assert f"{r.model}: " in out and f"passes in {r.groups_passed} of {r.n_groups} groups" in out
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "m.csv"),
                           "--epsilon", "0.15", "--min-items", "10", "--by", "domain", "--format", "csv",
                           "--table", "humans")  # fmt: skip
    got = pd.read_csv(io.StringIO(out))
    np.testing.assert_allclose(got["p_adjusted"], ref.humans["p_adjusted"], rtol=1e-12)
    assert list(got["group"]) == list(ref.humans["group"])


def test_undefined_values_say_why_on_a_sparse_crowd(tmp_path, capsys, monkeypatch):
    """A crowd where each item is labelled by 3 of 40 people: no two people share 20 items, so human-likeness is
    undefined and the table says why (not "z undefined: undefined"); with one human only, the verdict, the humans'
    agreement and the note say why too (qa2's acceptance walk of issue 34)."""
    rng = np.random.default_rng(3)
    labels = np.array(["None", "NA", "Yes"])
    truth = rng.integers(0, 3, 400)
    rows = [
        (f"{i:05d}", f"h{h:02d}", labels[truth[i] if rng.random() < 0.8 else rng.integers(0, 3)])
        for i in range(400)
        for h in rng.choice(40, 3, replace=False)
    ]
    humans = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    judge = pd.DataFrame({"item": [f"{i:05d}" for i in range(400)], "annotator": "llm", "label": labels[truth]})
    humans.to_csv(tmp_path / "h.csv", index=False)
    judge.to_csv(tmp_path / "j.csv", index=False)
    reason = ie.human_likeness(humans, judge).table["reason"].iloc[0]
    assert reason
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "j.csv"),
                           "--epsilon", "0.1")  # fmt: skip
    assert status == 0, err
    assert f"z undefined ({reason})" in out and "undefined: undefined" not in out
    # the humans left out are counted and named as humans, not as (model, human) pairs
    left = ie.alt_test(humans, judge, epsilon=0.1).left_out
    assert 0 < left["human"].nunique() < 40
    assert f"note: {left['human'].nunique()} human(s) with fewer than 30 items beside a model not tested (" in out
    assert ", ".join(sorted(left["human"].unique())[:3]) in out
    humans[humans["annotator"] == "h00"].to_csv(tmp_path / "one.csv", index=False)
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "one.csv"), str(tmp_path / "j.csv"),
                           "--epsilon", "0.1")  # fmt: skip
    assert status == 0, err
    assert "llm: undefined (no human labelled 30 or more" in out
    assert "agreement undefined (no item has two human labels)" in out
    assert "one human only" in out and "with two, a model only sides" not in out
    for line in out.splitlines():  # every undefined value carries its reason
        assert "undefined" not in line.replace("undefined (", "") or "the test is undefined" in line, line


def test_a_models_file_with_its_own_columns_or_one_column_per_model(files, capsys, monkeypatch, tmp_path):
    """An LLM judge's export rarely has the humans' column names: --models-item-col / -annotator-col / -label-col
    and --models-layout read it on its own (the shared --item-col would break the humans' file), and the reader's
    advice names those options (qa2's acceptance walk of issue 34)."""
    hp, _, h, m = files
    ref = ie.alt_test(h, m, epsilon=0.15).models.set_index("model")
    renamed = tmp_path / "judge_export.csv"
    m.rename(columns={"item": "doc", "annotator": "judge", "label": "verdict"}).to_csv(renamed, index=False)
    status, out, err = cli(capsys, monkeypatch, "judges", str(hp), str(renamed), "--epsilon", "0.15")
    assert status == 2 and "--models-item-col doc --models-annotator-col judge --models-label-col verdict" in err
    status, out, err = cli(capsys, monkeypatch, "judges", str(hp), str(renamed), "--epsilon", "0.15", "--format",
                           "csv", "--models-item-col", "doc", "--models-annotator-col", "judge",
                           "--models-label-col", "verdict")  # fmt: skip
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("model")
    np.testing.assert_allclose(table["rho"], ref["rho"].loc[table.index], rtol=1e-12)
    wide = tmp_path / "judge_wide.csv"
    m.pivot(index="item", columns="annotator", values="label").reset_index().to_csv(wide, index=False)
    status, out, err = cli(capsys, monkeypatch, "judges", str(hp), str(wide), "--epsilon", "0.15", "--format", "csv",
                           "--models-layout", "wide")  # fmt: skip
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("model")
    np.testing.assert_allclose(table["rho"], ref["rho"].loc[table.index], rtol=1e-12)


def test_html_page_says_why_a_value_is_undefined(tmp_path, capsys, monkeypatch):
    """One human and a judge no better than chance: every undefined cell of the page's models table carries its
    reason, as the terminal does (qa2's acceptance walk of issue 34)."""
    rng = np.random.default_rng(4)
    truth = rng.random(300) < 0.4
    humans = pd.DataFrame({"item": [f"{i:04d}" for i in range(100)], "annotator": "expert",
                           "label": np.where(truth[:100], "pass", "fail")})  # fmt: skip
    coin = pd.DataFrame({"item": [f"{i:04d}" for i in range(300)], "annotator": "coin",
                         "label": np.where(~truth, "pass", "fail")})  # fmt: skip
    humans.to_csv(tmp_path / "h.csv", index=False)
    coin.to_csv(tmp_path / "j.csv", index=False)
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "j.csv"),
                           "--epsilon", "0.2", "--positive", "pass", "--html", str(tmp_path / "p.html"))  # fmt: skip
    assert status == 0, err
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    models = page[page.index('id="models"') : page.index("</table>", page.index('id="models"'))]
    reasons = ie.human_likeness(humans, coin).table["reason"].iloc[0]
    why = ie.judge_accuracy(humans, coin, positive="pass").table["reason"].iloc[0]
    assert why and reasons
    assert f"undefined ({reasons})" in models and f"undefined ({why})" in models
    assert "undefined (no item has two human labels)" in models and "undefined (no human with at least 30" in models


def test_files_with_no_item_in_common_are_refused(tmp_path, capsys, monkeypatch):
    """A judge's export through a spreadsheet loses the ids' leading zeros ('0007' -> '7'): no item is shared, and
    the command says so (and why) instead of a table of undefined values (qa2's acceptance walk of issue 34)."""
    humans, models = synthetic(0, n_items=60)
    h, m = long(humans), model_table(models)

    def zeros(i):  # the synthetic ids are 'i003'
        return f"{int(str(i).lstrip('i')):04d}"

    h.assign(item=h["item"].map(zeros)).to_csv(tmp_path / "h.csv", index=False)
    m.assign(item=m["item"].map(zeros)).to_csv(tmp_path / "m.csv", index=False)
    m.assign(item=m["item"].map(lambda i: int(zeros(i)))).to_csv(tmp_path / "stripped.csv", index=False)
    m.assign(item="x" + m["item"].astype(str)).to_csv(tmp_path / "other.csv", index=False)
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "m.csv"),
                           "--epsilon", "0.1")  # fmt: skip
    assert status == 0, err
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "stripped.csv"),
                           "--epsilon", "0.1")  # fmt: skip
    assert status == 2 and out == "" and "Traceback" not in err
    assert "no item of 'stripped.csv' is an item of 'h.csv'" in err and "leading zeros" in err and "'0000'" in err
    status, out, err = cli(capsys, monkeypatch, "judges", str(tmp_path / "h.csv"), str(tmp_path / "other.csv"),
                           "--epsilon", "0.1")  # fmt: skip
    assert status == 2 and "no item of 'other.csv'" in err and "leading zeros" not in err
