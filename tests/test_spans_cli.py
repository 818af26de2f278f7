"""``iaa spans FILE`` (iaa_engine/cli/spans.py) and its ``--html`` page (iaa_engine/reporting/_spans_page.py).

Every value is checked against ``iaa_engine.unitizing_alpha`` on the same spans (the coefficient's own tests,
tests/test_unitizing.py, check it against DKPro Agreement and exact fractions), and Krippendorff's (2004, p. 254)
worked example: printed 0.8591, exactly 0.858667 (his printed value rounds intermediate values).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import warnings
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.cli import main
from iaa_engine.reporting import _spans_page

K2004 = pd.DataFrame(
    [
        ("i", 225, 295, "c"),
        ("i", 370, 400, "c"),
        ("j", 220, 300, "c"),
        ("j", 355, 375, "c"),
        ("j", 400, 420, "c"),
        ("i", 180, 240, "k"),
        ("i", 300, 350, "k"),
        ("j", 180, 240, "k"),
        ("j", 300, 350, "k"),
    ],
    columns=["annotator", "start", "end", "label"],
)
EXAMPLE = Path(str(files("iaa_engine") / "examples" / "spans.csv"))
EXAMPLE_TEXTS = Path(str(files("iaa_engine") / "examples" / "spans_texts.csv"))


def cli(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    """``iaa ARGS`` in process: (status, stdout, stderr); ``main``'s one-line warning printer is undone after."""
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    monkeypatch.delenv("IAA_DEBUG", raising=False)
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def one_error(status: int, err: str, *needles: str) -> str:
    errors = [line for line in err.splitlines() if line.startswith("iaa: error:")]
    assert status == 2 and len(errors) == 1, err
    assert "Traceback" not in err and all(n in errors[0] for n in needles), err
    return errors[0]


def api(frame: pd.DataFrame, **kw) -> ie.UnitizingAlpha:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ie.unitizing_alpha(frame, **kw)


def as_json(capsys, monkeypatch, *args: str) -> dict:
    status, out, err = cli(capsys, monkeypatch, *args, "--format", "json")
    assert status == 0, err
    return json.loads(out)["unitizing_alpha"]


# --------------------------------------------------------------------------- values


def test_krippendorff_2004_example(tmp_path, capsys, monkeypatch):
    path = tmp_path / "k2004.csv"
    K2004.to_csv(path, index=False)
    got = as_json(capsys, monkeypatch, "spans", str(path), "--continuum", "150,300")
    want = api(K2004, continuum=(150, 300))
    assert got["estimate"] == want.estimate and round(got["estimate"], 4) == 0.8587
    assert [r["alpha"] for r in got["per_category"]] == want.per_category["alpha"].tolist()
    assert "per_document" not in got  # on request only
    status, out, err = cli(capsys, monkeypatch, "spans", str(path), "--continuum", "150,300")
    assert status == 0 and out.splitlines()[0] == "Krippendorff's unitizing alpha (α_U): 0.8587"
    assert "1 document, one continuum" in out and "iaa: read 9 spans by 2 annotators from 'k2004.csv'" in err


def test_every_file_format_and_column_names_give_the_same_value(tmp_path, capsys, monkeypatch):
    renamed = K2004.rename(columns={"annotator": "coder", "start": "from", "end": "to", "label": "tag"})
    flags = ["--annotator-col", "coder", "--start-col", "from", "--end-col", "to", "--label-col", "tag"]
    renamed.to_csv(tmp_path / "s.tsv", sep="\t", index=False)
    renamed.to_json(tmp_path / "s.json", orient="records")
    renamed.to_json(tmp_path / "s.jsonl", orient="records", lines=True)
    renamed.to_parquet(tmp_path / "s.parquet")
    want = api(K2004, continuum=(150, 300)).estimate
    for name in ("s.tsv", "s.json", "s.jsonl", "s.parquet"):
        got = as_json(capsys, monkeypatch, "spans", str(tmp_path / name), "--continuum", "150,300", *flags)
        assert got["estimate"] == want, name


def test_text_ids_stay_text_and_the_continuum_file_names_documents(tmp_path, capsys, monkeypatch):
    spans = pd.DataFrame(
        [
            ("007", "a", 0, 5, "PER"),
            ("007", "b", 0, 5, "PER"),
            ("007", "a", 8, 12, "ORG"),
            ("007", "b", 9, 12, "ORG"),
            ("7", "a", 2, 6, "PER"),
            ("7", "b", 3, 6, "PER"),
            ("7", "b", 10, 14, "LOC"),
        ],
        columns=["document", "annotator", "start", "end", "label"],
    )
    path = tmp_path / "spans.csv"
    spans.to_csv(path, index=False)
    # document 0099 has no span: part of the continuum (nobody marked anything there)
    (tmp_path / "texts.csv").write_text("document,begin,length\n007,0,20\n7,0,16\n0099,0,30\n", encoding="utf-8")
    got = as_json(capsys, monkeypatch, "spans", str(path), "--continuum", str(tmp_path / "texts.csv"), "--per-document")
    want = api(spans, continuum={"007": (0, 20), "7": (0, 16), "0099": (0, 30)})
    assert got["estimate"] == want.estimate and got["length"] == 66
    assert [d["document"] for d in got["per_document"]] == ["007", "7", "0099"]
    assert [d["alpha"] for d in got["per_document"][:2]] == want.per_document["alpha"].tolist()[:2]
    # document,length (begin 0) gives the same
    (tmp_path / "lengths.csv").write_text("document,length\n007,20\n7,16\n0099,30\n", encoding="utf-8")
    again = as_json(capsys, monkeypatch, "spans", str(path), "--continuum", str(tmp_path / "lengths.csv"))
    assert again["estimate"] == want.estimate


def test_numbered_documents_match_a_continuum_file_and_keep_their_order(tmp_path, capsys, monkeypatch):
    spans = pd.DataFrame(
        {
            "document": [7, 7, 12, 12],
            "annotator": ["a", "b", "a", "b"],
            "start": [0, 1, 2, 2],
            "end": [5, 5, 4, 6],
            "label": "X",
        }
    )
    spans.to_json(tmp_path / "n.json", orient="records")
    (tmp_path / "texts.csv").write_text("document,length\n12,8\n7,10\n", encoding="utf-8")
    got = as_json(
        capsys,
        monkeypatch,
        "spans",
        str(tmp_path / "n.json"),
        "--continuum",
        str(tmp_path / "texts.csv"),
        "--per-document",
    )
    want = api(spans, continuum={7: 10, 12: 8})
    assert [d["document"] for d in got["per_document"]] == [7, 12]  # numbers, in their order (not "12" < "7")
    assert got["estimate"] == want.estimate
    assert [d["alpha"] for d in got["per_document"]] == want.per_document["alpha"].tolist()


def test_per_document_table_and_csv(tmp_path, capsys, monkeypatch):
    want = api(
        pd.read_csv(EXAMPLE, dtype={"document": str}), continuum=pd.read_csv(EXAMPLE_TEXTS, dtype={"document": str})
    )
    status, out, _ = cli(
        capsys, monkeypatch, "spans", str(EXAMPLE), "--continuum", str(EXAMPLE_TEXTS), "--per-document"
    )
    assert status == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line[:3] in ("001", "002", "003", "007")}
    assert sorted(rows) == ["001", "002", "003", "007"]  # the leading zeros kept
    for r in want.per_document.itertuples(index=False):
        assert rows[r.document][-1] == f"{r.alpha:.4f}"
    out_path = tmp_path / "out.csv"
    status, _, err = cli(
        capsys,
        monkeypatch,
        "spans",
        str(EXAMPLE),
        "--continuum",
        str(EXAMPLE_TEXTS),
        "--per-document",
        "--format",
        "csv",
        "-o",
        str(out_path),
    )
    assert status == 0 and f"wrote {out_path}" in err
    table = pd.read_csv(out_path, dtype={"name": str})
    assert table["scope"].tolist() == ["pooled"] * 2 + ["category"] * 3 + ["document"] * 4
    assert table.loc[0, "value"] == pytest.approx(want.estimate, abs=0, rel=1e-15)
    # the second pooled row: INCEpTION's pooling (documents concatenated), named
    assert table.loc[1, "name"] == "inception"
    assert table.loc[1, "value"] == pytest.approx(want.estimate_inception, abs=0, rel=1e-15)
    assert np.allclose(table.loc[2:4, "value"], want.per_category["alpha"], rtol=1e-15, atol=0)
    assert table.loc[5:, "name"].tolist() == ["001", "002", "003", "007"]
    assert np.allclose(table.loc[5:, "value"], want.per_document["alpha"], rtol=1e-15, atol=0)


def test_overlaps_raise_names_the_rows_and_merge_takes_their_union(tmp_path, capsys, monkeypatch):
    spans = pd.DataFrame(
        [("a", 0, 5, "X"), ("a", 3, 8, "X"), ("b", 1, 8, "X"), ("b", 10, 12, "X")],
        columns=["annotator", "start", "end", "label"],
    )
    path = tmp_path / "o.csv"
    spans.to_csv(path, index=False)
    status, _, err = cli(capsys, monkeypatch, "spans", str(path), "--continuum", "0,20")
    line = one_error(status, err, "overlap", "overlaps='merge'")
    assert "'row': 2" in line and "'start': 3" in line  # the offending data row, as the file has it
    got = as_json(capsys, monkeypatch, "spans", str(path), "--continuum", "0,20", "--overlaps", "merge")
    assert got["estimate"] == api(spans, continuum=(0, 20), overlaps="merge").estimate
    assert got["n_units"] == 3


def test_gamma_on_request_is_the_cores_beside_alpha(tmp_path, capsys, monkeypatch):
    spans = pd.read_csv(EXAMPLE, dtype={"document": str})
    texts = pd.read_csv(EXAMPLE_TEXTS, dtype={"document": str})
    want = ie.gamma_agreement(spans, continuum=texts, n_samples=12, seed=5)
    args = ["spans", str(EXAMPLE), "--continuum", str(EXAMPLE_TEXTS), "--gamma", "--gamma-samples", "12", "--seed", "5"]
    status, out, err = cli(capsys, monkeypatch, *args, "--format", "json")
    assert status == 0, err
    got = json.loads(out)
    assert got["gamma"]["estimate"] == want.estimate and got["gamma"]["se"] == want.se
    assert got["gamma"]["gamma_cat"] == want.gamma_cat and "alignment" not in got["gamma"]
    assert got["unitizing_alpha"]["estimate"] == api(spans, continuum=texts).estimate
    status, out, _ = cli(capsys, monkeypatch, *args, "--format", "csv")
    table = pd.read_csv(io.StringIO(out))
    row = table[table["coefficient"] == "gamma"].iloc[0]
    assert row["scope"] == "pooled" and row["value"] == want.estimate and row["d_o"] == want.observed_disorder
    status, out, _ = cli(capsys, monkeypatch, *args)
    assert f"(γ): {want.estimate:.4f} (sampling SE {want.se:.2g}, 12 samples); γ-cat {want.gamma_cat:.4f}" in out
    status, _, _ = cli(capsys, monkeypatch, *args, "--html", str(tmp_path / "g.html"))
    page = (tmp_path / "g.html").read_text(encoding="utf-8")
    assert f'<p class="pooled extra" data-value="{want.estimate!r}">' in page
    # without --gamma no gamma is computed
    status, out, _ = cli(
        capsys, monkeypatch, "spans", str(EXAMPLE), "--continuum", str(EXAMPLE_TEXTS), "--format", "json"
    )
    assert "gamma" not in json.loads(out)


def test_the_2016_family_on_request_is_the_cores(capsys, monkeypatch):
    spans = pd.read_csv(EXAMPLE, dtype={"document": str})
    texts = pd.read_csv(EXAMPLE_TEXTS, dtype={"document": str})
    want = ie.unitizing_family(spans, continuum=texts)
    args = ["spans", str(EXAMPLE), "--continuum", str(EXAMPLE_TEXTS), "--family", "--per-document"]
    status, out, err = cli(capsys, monkeypatch, *args, "--format", "json")
    assert status == 0, err
    got = json.loads(out)["unitizing_family"]
    assert (got["estimate"], got["binary"], got["coding"]) == (want.estimate, want.binary, want.coding)
    assert [v["alpha"] for v in got["per_value"]] == want.per_value["alpha"].tolist()
    assert [d["u_alpha"] for d in got["per_document"]] == want.per_document["u_alpha"].tolist()
    status, out, _ = cli(capsys, monkeypatch, *args, "--format", "csv")
    table = pd.read_csv(io.StringIO(out), dtype={"name": str})
    k = table[table["coefficient"] == "k_u_alpha"]
    assert (
        k["name"].tolist() == want.per_value["value"].tolist()
        and k["value"].tolist() == want.per_value["alpha"].tolist()
    )
    pooled = table[(table["scope"] == "pooled")].set_index("coefficient")["value"]
    assert pooled["u_alpha"] == want.estimate and pooled["coding_u_alpha"] == want.coding
    docs = table[(table["coefficient"] == "binary_u_alpha") & (table["scope"] == "document")]
    assert docs["name"].tolist() == ["001", "002", "003", "007"]
    assert docs["value"].tolist() == want.per_document["binary_alpha"].tolist()
    status, out, _ = cli(capsys, monkeypatch, *args)
    assert f"2016 family: uα {want.estimate:.4f}, |uα {want.binary:.4f}" in out and "  document 002: uα" in out


def test_no_continuum_warns_and_uses_the_spans(tmp_path, capsys, monkeypatch):
    path = tmp_path / "k.csv"
    K2004.to_csv(path, index=False)
    status, out, err = cli(capsys, monkeypatch, "spans", str(path), "--format", "json")
    assert status == 0 and "iaa: warning: no continuum given" in err
    assert json.loads(out)["unitizing_alpha"]["estimate"] == api(K2004).estimate


def test_csv_output_neutralises_formulas(tmp_path, capsys, monkeypatch):
    spans = K2004.assign(label=K2004["label"].map({"c": "=cmd|' /C calc'!A0", "k": "k"}))
    path = tmp_path / "f.csv"
    spans.to_csv(path, index=False)
    status, out, _ = cli(capsys, monkeypatch, "spans", str(path), "--continuum", "150,300", "--format", "csv")
    assert status == 0 and "'=cmd" in out and "\n=cmd" not in out and ",=cmd" not in out


# --------------------------------------------------------------------------- errors: one line, exit 2


@pytest.mark.parametrize(
    "content,args,needles",
    [
        ("annotator,begin,end,label\na,0,5,X\n", (), ("'start'", "not found", "--start-col")),
        ("Annotator,start,end,label\na,0,5,X\n", (), ("did you mean 'Annotator'",)),
        ("annotator,start,end,label\na,5,2,X\nb,0,5,X\n", ("--continuum", "0,10"), ("end must not come before",)),
        (
            "annotator,start,end,label\na,five,7,X\nb,0,5,X\n",
            ("--continuum", "0,10"),
            ("start must hold numbers", "five"),
        ),
        ("annotator,start,end,label\na,,7,X\nb,0,5,X\n", ("--continuum", "0,10"), ("start must be a finite number",)),
        ("annotator,start,end,label\na,0,7,\nb,0,5,X\n", ("--continuum", "0,10"), ("label is missing", "'row': 1")),
        ("annotator,start,end,label\na,0,17,X\nb,0,5,X\n", ("--continuum", "0,10"), ("outside their document",)),
        ("annotator,start,end,label\na,0,7,X\n", ("--continuum", "zero,ten"), ("no such file", "BEGIN,LENGTH")),
        ("annotator,start,end,label\na,0,7,X\n", ("--continuum", "0,-5"), ("LENGTH one of at least 0",)),
        ("annotator,start,end,label\na,0,7,X\n", ("--document-col", "doc"), ("--document-col 'doc'",)),
    ],
)
def test_bad_input_is_one_error_line(tmp_path, capsys, monkeypatch, content, args, needles):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    status, _, err = cli(capsys, monkeypatch, "spans", str(path), *args)
    one_error(status, err, *needles)


def test_bad_continuum_files(tmp_path, capsys, monkeypatch):
    path = tmp_path / "s.csv"
    path.write_text("document,annotator,start,end,label\nd1,a,0,5,X\nd2,b,0,5,X\n", encoding="utf-8")
    cases = [
        ("doc,length\nd1,10\n", ("needs columns document",)),
        ("document,length\nd1,10\n", ("no (begin, length) for the document(s) 'd2'",)),
        ("document,length\nd1,10\nd2,ten\n", ("length must be a number of at least 0", "data row 2")),
        ("document,length\nd1,10\nd1,12\nd2,5\n", ("'d1' has two rows",)),
    ]
    for content, needles in cases:
        (tmp_path / "c.csv").write_text(content, encoding="utf-8")
        status, _, err = cli(capsys, monkeypatch, "spans", str(path), "--continuum", str(tmp_path / "c.csv"))
        one_error(status, err, *needles)
    status, _, err = cli(capsys, monkeypatch, "spans", str(tmp_path / "absent.csv"))
    one_error(status, err, "no such file")


# --------------------------------------------------------------------------- the page


class _Page(HTMLParser):
    """The page's svg elements, unit bars, cells with their data-value, and ids."""

    def __init__(self) -> None:
        super().__init__()
        self.svgs: list[str] = []
        self.units = 0
        self.values: dict[str, list[str]] = {}
        self.ids: dict[str, str] = {}
        self.table: str | None = None
        self.external = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svgs.append(a.get("id", ""))
        if tag == "rect" and a.get("class") == "unit":
            self.units += 1
        if tag == "table":
            self.table = a.get("id")
        if tag in ("script", "link", "img") or "src" in a:
            self.external += 1
        if "data-value" in a:
            if tag == "td" and self.table:
                self.values.setdefault(self.table, []).append(a["data-value"])
            if "id" in a:
                self.ids[a["id"]] = a["data-value"]


def test_html_page_has_the_numbers_of_the_api_and_the_pictures(tmp_path, capsys, monkeypatch):
    out = tmp_path / "page.html"
    status, stdout, err = cli(
        capsys, monkeypatch, "spans", str(EXAMPLE), "--continuum", str(EXAMPLE_TEXTS), "--html", str(out), "--top", "3"
    )
    assert status == 0 and f"iaa: wrote {out}" in err and stdout.startswith("Krippendorff")
    want = api(
        pd.read_csv(EXAMPLE, dtype={"document": str}), continuum=pd.read_csv(EXAMPLE_TEXTS, dtype={"document": str})
    )
    page = _Page()
    text = out.read_text(encoding="utf-8")
    page.feed(text)
    assert float(page.ids["card-estimate"]) == want.estimate
    assert [float(v) for v in page.values["per-category"][2::3]] == want.per_category["alpha"].tolist()
    doc_alpha = [float(v) for v in page.values["per-document"][4::5]]
    assert doc_alpha == want.per_document["alpha"].tolist()
    # three pictures: the documents with the lowest alpha_U, lowest first; one bar per span of those documents
    lowest = want.per_document.sort_values("alpha").head(3)
    assert page.svgs == ["doc0-svg", "doc1-svg", "doc2-svg"]
    spans = pd.read_csv(EXAMPLE, dtype={"document": str})
    assert page.units == int(spans["document"].isin(lowest["document"]).sum())
    titles = [t.split("</h3>")[0] for t in text.split('<figure id="fig-doc')[1:]]
    assert [t.split("<h3>")[1] for t in titles] == [f"Document {d}" for d in lowest["document"]]
    assert page.external == 0


def test_html_page_escapes_names_and_draws_a_long_document_in_its_worst_window(tmp_path, monkeypatch):
    monkeypatch.setattr(_spans_page, "MAX_SEGMENTS", 20)
    rng = np.random.default_rng(3)
    starts = np.arange(0, 1000, 10)
    rows = [("<b>a</b>", s, s + 6, "X&Y") for s in starts]
    # annotator b agrees in the first half and is off by 3 in the second: the worst window is in the second half
    rows += [("b", s + (3 if s >= 500 else 0), s + 6, "X&Y") for s in starts]
    spans = pd.DataFrame(rows, columns=["annotator", "start", "end", "label"]).sample(
        frac=1, random_state=rng.integers(1 << 30)
    )
    result = api(spans, continuum=(0, 1000))
    page_text = _spans_page.render_spans_page(spans, result)
    assert "&lt;b&gt;a&lt;/b&gt;" in page_text and "X&amp;Y" in page_text and "<b>a</b>" not in page_text
    assert "drawn: its window [" in page_text
    window = page_text.split("drawn: its window [")[1].split(")")[0]
    lo, hi = (float(v) for v in window.split(", "))
    assert lo >= 500 and hi - lo == pytest.approx(100)
    page = _Page()
    page.feed(page_text)
    assert 0 < page.units <= 2 * 20 + 4


def test_html_page_of_one_document_and_of_an_undefined_study(tmp_path):
    one = _spans_page.render_spans_page(K2004, api(K2004, continuum=(150, 300)))
    assert one.count("<svg") == 1 and 'id="per-document"' not in one
    lonely = K2004[K2004["annotator"] == "i"]
    page = _spans_page.render_spans_page(lonely, api(lonely, continuum=(150, 300)))
    assert 'data-value="nan"' in page and "undefined" in page


# --------------------------------------------------------------------------- the console script


def test_the_iaa_console_script(tmp_path):
    script = Path(sys.executable).with_name("iaa")
    if not script.exists():
        pytest.skip("the iaa console script is not installed beside this Python")
    run = subprocess.run(
        [str(script), "spans", str(EXAMPLE), "--continuum", str(EXAMPLE_TEXTS), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)["unitizing_alpha"]
    want = api(
        pd.read_csv(EXAMPLE, dtype={"document": str}), continuum=pd.read_csv(EXAMPLE_TEXTS, dtype={"document": str})
    )
    assert got["estimate"] == want.estimate
    bad = subprocess.run(
        [str(script), "spans", str(EXAMPLE), "--continuum", "x"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and bad.stderr.splitlines()[-1].startswith("iaa: error: --continuum 'x'")


# --------------------------------------------------------------------------- the picture


def test_continuum_plot_lanes_and_refusals():
    from iaa_engine.reporting._draw_spans import LABEL_COLOURS, continuum_plot

    # annotator a: X [0, 10) and Y [5, 8) overlap (two labels may), so a's row has two lanes; b has one
    svg = continuum_plot("t", "t", 0, 20, ["a", "b"], [0, 0, 1], [0, 5, 2], [10, 8, 9], [0, 1, 0], ["X", "Y"])
    bars = [part.split(">")[0] for part in svg.split('<rect class="unit" ')[1:]]
    ys = [float(b.split('y="')[1].split('"')[0]) for b in bars]
    assert ys[1] - ys[0] == pytest.approx(13.0)  # the second lane of a's row
    assert ys[2] > ys[1]  # b's row below both lanes
    assert f'fill="{LABEL_COLOURS[1]}"' in bars[1] and "<title>a: Y [5, 8)</title>" in svg
    for bad in (dict(annotators=[]), dict(length=0), dict(begin=float("nan"))):
        kw = dict(begin=0, length=20, annotators=["a"]) | bad
        with pytest.raises(ValueError):
            continuum_plot("t", "t", kw["begin"], kw["length"], kw["annotators"], [0], [1], [2], [0], ["X"])
    with pytest.raises(ValueError, match="id_prefix"):
        continuum_plot("1bad", "t", 0, 20, ["a"], [0], [1], [2], [0], ["X"])


# --------------------------------------------------------------------------- crowds: participants, pooling (issue 33)


def crowd_files(tmp_path, n_docs=30, workers=12, per_doc=3, seed=0):
    """A crowd's span table and participants file, documents with leading zeros; one participant per document
    marks nothing (they are in the participants file only)."""
    rng = np.random.default_rng(seed)
    rows, part = [], []
    for d in range(n_docs):
        who = rng.choice(workers, per_doc + 1, replace=False)
        for k, w in enumerate(who):
            part.append((f"{d:03d}", f"w{w:02d}"))
            if k < per_doc:
                b = 10 + int(rng.integers(-2, 3))
                rows.append((f"{d:03d}", f"w{w:02d}", b, b + 20 + int(rng.integers(-2, 3)), "X"))
    spans = pd.DataFrame(rows, columns=["doc_id", "worker", "start", "end", "label"])
    participants = pd.DataFrame(part, columns=["doc_id", "worker"])
    spans.to_csv(tmp_path / "crowd.csv", index=False)
    participants.to_csv(tmp_path / "who.csv", index=False)
    api_spans = spans.rename(columns={"doc_id": "document", "worker": "annotator"})
    return api_spans, participants.rename(columns={"doc_id": "document", "worker": "annotator"})


COLS = ("--document-col", "doc_id", "--annotator-col", "worker", "--continuum", "0,50")


def test_participants_file_gives_the_cores_value_among_each_documents_participants(tmp_path, capsys, monkeypatch):
    spans, part = crowd_files(tmp_path)
    crowd, who = str(tmp_path / "crowd.csv"), str(tmp_path / "who.csv")
    got = as_json(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", who, "--per-document")
    want = api(spans, continuum=(0, 50), participants=part)
    assert got["estimate"] == want.estimate and got["n_participants"] == 120
    assert [r["document"] for r in got["per_document"]][:2] == ["000", "001"]  # text as written
    assert {r["n_annotators"] for r in got["per_document"]} == {4}
    assert got["estimate_inception"] is None  # documents with different participants: no concatenated study
    status, out, err = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", who)
    assert status == 0 and "iaa: warning" not in err
    assert "120 document-participant pairs (4 per document)" in out


def test_a_crowd_without_participants_gets_one_warning_line(tmp_path, capsys, monkeypatch):
    spans, part = crowd_files(tmp_path)
    crowd = str(tmp_path / "crowd.csv")
    status, out, err = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--family", "--gamma", "--gamma-samples", "3")
    warned = [line for line in err.splitlines() if line.startswith("iaa: warning:")]
    assert status == 0 and len(warned) == 1, err
    assert "12 of 12 annotators have no span in most of the 30 documents" in warned[0]
    assert "--participants FILE" in warned[0]
    # the number is not changed in silence: it is the value without participants
    assert out.splitlines()[0].endswith(f"{api(spans, continuum=(0, 50)).estimate:.4f}")
    # a complete design: no warning
    status, _, err = cli(capsys, monkeypatch, "spans", str(EXAMPLE), "--continuum", str(EXAMPLE_TEXTS))
    assert status == 0 and "iaa: warning" not in err


def test_pooling_inception_and_the_other_value_beside_the_headline(tmp_path, capsys, monkeypatch):
    spans = EXAMPLE
    want = api(
        pd.read_csv(EXAMPLE, dtype={"document": str}), continuum=pd.read_csv(EXAMPLE_TEXTS, dtype={"document": str})
    )
    assert f"{want.estimate:.4f}" != f"{want.estimate_inception:.4f}"
    status, out, _ = cli(capsys, monkeypatch, "spans", str(spans), "--continuum", str(EXAMPLE_TEXTS))
    lines = out.splitlines()
    assert lines[0].endswith(f"{want.estimate:.4f}")
    assert lines[1] == f"  INCEpTION and DKPro Agreement (documents concatenated): {want.estimate_inception:.4f}"
    assert "a gap ending at its document's end" in lines[2]
    got = as_json(capsys, monkeypatch, "spans", str(spans), "--continuum", str(EXAMPLE_TEXTS), "--pooling", "inception")
    assert got["estimate"] == want.estimate_inception and got["pooling"] == "inception"
    assert got["estimate_documents"] == want.estimate
    assert "INCEpTION" in got["pooled"] and f"{want.estimate:.4f}" in got["pooled"]
    status, out, _ = cli(
        capsys, monkeypatch, "spans", str(spans), "--continuum", str(EXAMPLE_TEXTS), "--pooling", "inception"
    )
    assert out.splitlines()[1].endswith(f"pooled by document (a gap ends at its document's end): {want.estimate:.4f}")
    page = tmp_path / "p.html"
    cli(capsys, monkeypatch, "spans", str(spans), "--continuum", str(EXAMPLE_TEXTS), "--html", str(page))
    text = page.read_text(encoding="utf-8")
    assert f"INCEpTION and DKPro Agreement (documents concatenated): {want.estimate_inception:.4f}" in text


def test_per_annotator_section(tmp_path, capsys, monkeypatch):
    spans, part = crowd_files(tmp_path)
    crowd, who = str(tmp_path / "crowd.csv"), str(tmp_path / "who.csv")
    want = api(spans, continuum=(0, 50), participants=part, per_annotator=True).per_annotator
    got = as_json(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", who, "--per-annotator")
    assert [r["alpha_without"] for r in got["per_annotator"]] == want["alpha_without"].tolist()
    status, out, _ = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", who, "--per-annotator")
    assert "Who fragments, who misses" in out and "α_U without" in out
    assert sum(line.startswith("w") for line in out.splitlines()) == 12


def test_bad_participants_files_are_one_error_line(tmp_path, capsys, monkeypatch):
    crowd_files(tmp_path)
    crowd = str(tmp_path / "crowd.csv")
    (tmp_path / "bad.csv").write_text("doc,worker\n000,w01\n", encoding="utf-8")
    status, _, err = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", str(tmp_path / "bad.csv"))
    one_error(status, err, "--participants bad.csv: no column 'doc_id'")
    (tmp_path / "few.csv").write_text("doc_id,worker\n000,w01\n", encoding="utf-8")
    status, _, err = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", str(tmp_path / "few.csv"))
    one_error(status, err, "participants does not list")
    status, _, err = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", str(tmp_path / "none.csv"))
    one_error(status, err, "no such file")


def test_the_page_of_a_crowd_draws_each_documents_participants(tmp_path, capsys, monkeypatch):
    spans, part = crowd_files(tmp_path)
    crowd, who, page = str(tmp_path / "crowd.csv"), str(tmp_path / "who.csv"), tmp_path / "c.html"
    status, _, err = cli(
        capsys, monkeypatch, "spans", crowd, *COLS, "--participants", who, "--html", str(page), "--top", "1"
    )
    assert status == 0, err
    text = page.read_text(encoding="utf-8")
    want = api(spans, continuum=(0, 50), participants=part)
    worst = want.per_document.sort_values("alpha", kind="stable").iloc[0]["document"]
    drawn = set(part.loc[part.document == worst, "annotator"])
    assert len(drawn) == 4  # three who marked, one who marked nothing: an empty row
    for name in set(part["annotator"]):
        assert (f">{name}<" in text) == (name in drawn), name
    assert "each document among its participants" in text
    assert '<th class="num">raters</th>' in text and '<td class="num">4</td>' in text  # participants per document


def test_the_page_of_a_crowd_without_participants_carries_the_warning(tmp_path, capsys, monkeypatch):
    """Issue 33 item 2, "never change the number in silence": the warning went to stderr only, and the page (the
    thing that is shared) showed the crowd's low α_U without a word. With participants it has no warning."""
    crowd_files(tmp_path)
    crowd, who, page = str(tmp_path / "crowd.csv"), str(tmp_path / "who.csv"), tmp_path / "c.html"
    status, _, err = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--html", str(page))
    assert status == 0 and err.count("iaa: warning:") == 1
    text = page.read_text(encoding="utf-8")
    assert text.count('id="absent-annotators"') == 1
    assert "have no span in most of the" in text and "--participants FILE" in text
    status, _, err = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", who, "--html", str(page))
    assert status == 0 and "warning" not in err
    assert 'id="absent-annotators"' not in page.read_text(encoding="utf-8")


def test_participant_counts_per_document_and_no_nan_on_the_terminal(tmp_path, capsys, monkeypatch):
    """A continuum file naming more documents than the span and participants files (the texts of a whole batch):
    the headline said "30 document-participant pairs (1 per document)" when 6 documents had 5 each, and the
    per-document table printed D_o and D_e of a document without participants as "nan"."""
    spans, part = crowd_files(tmp_path, n_docs=6, per_doc=4)  # 5 participants per document, one marks nothing
    pd.DataFrame({"document": [f"{d:03d}" for d in range(30)], "length": 50}).to_csv(tmp_path / "t.csv", index=False)
    crowd, who = str(tmp_path / "crowd.csv"), str(tmp_path / "who.csv")
    cols = ("--document-col", "doc_id", "--annotator-col", "worker", "--continuum", str(tmp_path / "t.csv"))
    status, out, err = cli(capsys, monkeypatch, "spans", crowd, *cols, "--participants", who, "--per-document")
    assert status == 0, err
    assert "; 30 document-participant pairs (0–5 per document; 24 documents with fewer than two, left out):" in out
    assert " nan" not in out and "pooled over 1 category and 30 documents" in out
    empty = [line for line in out.splitlines() if line.startswith("029 ")]
    assert empty and empty[0].split()[-3:] == ["undefined"] * 3
    status, out, err = cli(capsys, monkeypatch, "spans", crowd, *COLS, "--participants", who)
    assert status == 0 and "; 30 document-participant pairs (5 per document):" in out


def test_a_continuum_file_may_name_its_document_column_as_the_span_table_does(tmp_path, capsys, monkeypatch):
    """With --document-col doc_id, the participants file could use doc_id but the continuum file had to say
    'document': "needs columns document, begin (optional) and length; it has columns ['doc_id', 'length']"."""
    spans, part = crowd_files(tmp_path, n_docs=6)
    texts = pd.DataFrame({"doc_id": [f"{d:03d}" for d in range(6)], "length": 50})
    texts.to_csv(tmp_path / "t.csv", index=False)
    cols = ("--document-col", "doc_id", "--annotator-col", "worker", "--continuum", str(tmp_path / "t.csv"))
    status, out, err = cli(capsys, monkeypatch, "spans", str(tmp_path / "crowd.csv"), *cols, "--format", "json")
    assert status == 0, err
    want = api(spans, continuum=(0, 50))
    assert json.loads(out)["unitizing_alpha"]["estimate"] == want.estimate
    texts.rename(columns={"doc_id": "text"}).to_csv(tmp_path / "t.csv", index=False)
    status, _, err = cli(capsys, monkeypatch, "spans", str(tmp_path / "crowd.csv"), *cols)
    assert status == 2 and "needs columns doc_id (or document), begin (optional) and length" in err


def test_the_help_says_how_the_headline_pools(capsys, monkeypatch):
    """Issue 33 item 3: say which pooling the headline uses. The help said "every document laid end to end in one
    continuum", INCEpTION's pooling, while the default ends a gap at its document's end."""
    with pytest.raises(SystemExit):
        main(["spans", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "laid end to end in one continuum" not in text
    assert "each document its own stretch of one continuum: a gap ends at its document's end" in text
    assert "--pooling inception lays the documents end to end as INCEpTION does" in text


def test_gamma_cat_of_a_single_category_is_shown_undefined(tmp_path, capsys, monkeypatch):
    path = tmp_path / "one.csv"
    pd.DataFrame(
        {"annotator": ["a", "a", "b", "b"], "start": [0, 10, 1, 11], "end": [5, 15, 5, 16], "label": "x"}
    ).to_csv(path, index=False)
    args = ["spans", str(path), "--continuum", "0,20", "--gamma", "--gamma-samples", "4"]
    status, out, err = cli(capsys, monkeypatch, *args)
    assert status == 0, err
    assert "γ-cat undefined (a single category" in out
    status, out, err = cli(capsys, monkeypatch, *args, "--format", "json")
    got = json.loads(out)["gamma"]
    assert got["gamma_cat"] is None and got["gamma_cat_undefined"].startswith("a single category")


def test_gamma_per_document_shows_each_standard_error_and_when_to_raise_the_samples(capsys, monkeypatch):
    spans = pd.read_csv(EXAMPLE, dtype={"document": str})
    texts = pd.read_csv(EXAMPLE_TEXTS, dtype={"document": str})
    want = ie.gamma_agreement(spans, continuum=texts, n_samples=30, seed=0, per_document=True).per_document
    args = ["spans", str(EXAMPLE), "--continuum", str(EXAMPLE_TEXTS), "--gamma", "--per-document"]
    status, out, err = cli(capsys, monkeypatch, *args)
    assert status == 0, err
    for d in want.itertuples(index=False):
        assert f"  document {d.document}: γ {d.gamma:.4f} (SE {d.se:.3f}, {d.n_units} units)" in out
    worst = want["se"].max()
    assert worst > 0.01 and f"a document's γ has a sampling SE up to {worst:.3f} with 30 samples: raise" in out
    status, out, err = cli(capsys, monkeypatch, *args, "--format", "json")
    got = json.loads(out)["gamma"]["per_document"]
    assert [d["se"] for d in got] == want["se"].tolist()
    status, out, err = cli(capsys, monkeypatch, *args, "--format", "csv")
    table = pd.read_csv(io.StringIO(out), dtype={"name": str})
    se = table[(table["coefficient"] == "gamma_se") & (table["scope"] == "document")]
    assert se["value"].tolist() == pytest.approx(want["se"].tolist(), rel=1e-12)
    # without --per-document: no per-document gamma is computed
    status, out, err = cli(capsys, monkeypatch, *args[:-1], "--format", "json")
    assert "per_document" not in json.loads(out)["gamma"]
