"""A user's file reaches the math as the user wrote it (issue: "Real data reaches the math intact").

Every case of the issue's list is here as a regression: the right number, or one line on stderr and exit 2.
The files are written as a user's tools write them (csv module, Excel's BOM, R's NA, Parquet with timestamps).
"""

from __future__ import annotations

import csv
import json
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie

from .test_cli import run


def write_csv(path: Path, rows, header=("item", "annotator", "label"), **kw) -> Path:
    with open(path, "w", newline="", encoding=kw.pop("encoding", "utf-8")) as fh:
        w = csv.writer(fh, **kw)
        if header is not None:
            w.writerow(header)
        w.writerows(rows)
    return path


def one_line_error(out: subprocess.CompletedProcess, *needles: str) -> None:
    assert out.returncode == 2, (out.returncode, out.stdout[-500:], out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("iaa: error: ") and "Traceback" not in out.stderr, out.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# --------------------------------------------------------------------------- ids as written


def test_ids_with_leading_zeros_are_distinct_items(tmp_path):
    path = write_csv(
        tmp_path / "ids.csv",
        [("01", "a", "x"), ("1", "a", "y"), ("001", "a", "z"), ("01", "b", "x"), ("1", "b", "y"), ("001", "b", "z")],
    )
    data = ie.read(path)
    assert list(data.items) == ["001", "01", "1"] and data.n_items == 3
    assert ie.percent_agreement(data) == 1.0  # each item's two labels agree; merged items would not
    rep = json.loads(run("report", str(path), "--json").stdout)
    assert rep["n_items"] == 3 and rep["n_annotations"] == 6


def test_decimal_looking_ids_are_not_duplicates(tmp_path):
    path = write_csv(
        tmp_path / "dec.csv", [("1.1", "a", "x"), ("1.10", "a", "x"), ("1.1", "b", "x"), ("1.10", "b", "y")]
    )
    data = ie.read(path)  # no duplicate error: 1.1 and 1.10 are two items
    assert list(data.items) == ["1.1", "1.10"] and data.n_annotations == 4


def test_labels_01_and_1_disagree_at_the_nominal_level(tmp_path):
    rows = [(f"d{i}", a, lab) for i in range(6) for a, lab in (("a", "01"), ("b", "1"))]
    path = write_csv(tmp_path / "lab.csv", rows)
    data = ie.read(path)
    assert list(data.categories) == ["01", "1"]
    assert ie.percent_agreement(data) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        alpha = ie.krippendorff_alpha(data)
    # every pair disagrees: D_o = 1; D_e = 1 - 2 * 6 * 5 / (12 * 11) = 6/11 (6 of each label), alpha = 1 - 11/6
    assert alpha == pytest.approx(1 - 11 / 6, abs=1e-12)
    # at the interval level they are the same number, and agree
    with pytest.warns(ie.UndefinedMetricWarning, match="every pairable value is the same"):
        assert ie.krippendorff_alpha(ie.read(path, level="interval"), replace_undefined_by=-9) == -9


def test_typed_ids_keep_their_type(tmp_path):
    frame = pd.DataFrame(
        {"item": [3, 1, 2, 3, 1, 2], "annotator": ["a"] * 3 + ["b"] * 3, "label": ["x", "y", "x", "x", "y", "y"]}
    )
    frame.to_parquet(tmp_path / "t.parquet")
    data = ie.read(tmp_path / "t.parquet")
    assert list(data.items) == [1, 2, 3]
    records = frame.to_dict(orient="records")
    (tmp_path / "t.json").write_text(json.dumps(records))
    assert list(ie.read(tmp_path / "t.json").items) == [1, 2, 3]


# --------------------------------------------------------------------------- missing means blank


NA_LIKE = ["None", "null", "n/a", "#N/A", "NaN", "NA"]


def test_na_like_names_are_categories_not_missing(tmp_path):
    # 42 annotations, 36 of them with "none of the above"-style labels that pandas' defaults drop
    rows = []
    for i in range(14):
        for j, a in enumerate(("a", "b", "c")):
            rows.append((f"q{i}", a, NA_LIKE[(i + (j if i % 2 else 0)) % len(NA_LIKE)] if i < 12 else "cat"))
    path = write_csv(tmp_path / "na.csv", rows)
    with pytest.warns(ie.NALikeLabelWarning, match="--na-values"):
        data = ie.read(path)
    assert data.n_annotations == 42
    assert set(NA_LIKE) <= set(data.categories)
    # the CLI keeps them too, and says so in one warning line
    out = run("report", str(path), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["n_annotations"] == 42
    assert "iaa: warning: label(s)" in out.stderr and "Traceback" not in out.stderr
    # --na-values reads the named ones as missing
    out = run("report", str(path), "--json", "--na-values", "NA,None")
    n_named = sum(1 for r in rows if r[2] in ("NA", "None"))
    assert json.loads(out.stdout)["n_annotations"] == 42 - n_named


def test_blank_cells_are_missing_and_zero_is_a_label(tmp_path):
    path = write_csv(
        tmp_path / "b.csv", [("i1", "a", "0"), ("i1", "b", "  "), ("i1", "c", ""), ("i2", "a", "0"), ("i2", "b", "1")]
    )
    data = ie.read(path)
    assert data.n_annotations == 3 and list(data.categories) == ["0", "1"]


def test_surrounding_whitespace_is_not_part_of_a_value(tmp_path):
    path = write_csv(tmp_path / "w.csv", [(" i1", "a ", " x"), ("i1 ", " b", "x  ")])
    data = ie.read(path)
    assert list(data.items) == ["i1"] and list(data.annotators) == ["a", "b"] and list(data.categories) == ["x"]


def test_quoted_values_with_delimiters_newlines_and_a_bom(tmp_path):
    path = tmp_path / "q.csv"
    write_csv(
        path,
        [("i1", "a", "red, dark"), ("i1", "b", "red, dark"), ("i2", "a", "two\nlines"), ("i2", "b", "x")],
        encoding="utf-8-sig",
    )
    data = ie.read(path)
    assert sorted(data.categories) == ["red, dark", "two\nlines", "x"] and data.n_items == 2


# --------------------------------------------------------------------------- malformed files


def test_a_row_with_more_fields_than_the_header_names_its_line(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("item,annotator,label\ni1,a,x\ni1,b,x,extra\ni2,a,y\n")
    with pytest.raises(ValueError, match=r"line 3 has 4 field\(s\) but the header has 3"):
        ie.read(path)
    one_line_error(run("report", str(path)), "line 3")


def test_a_row_with_fewer_fields_names_its_line(tmp_path):
    path = tmp_path / "short.csv"
    path.write_text("item,annotator,label\ni1,a,x\ni1,b,x\ni2,a\n")
    one_line_error(run("report", str(path)), "line 4 has 2 field(s)")


def test_duplicate_and_blank_header_names_are_errors(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("item,annotator,label,label\ni1,a,x,y\n")
    one_line_error(run("report", str(path)), "line 1", "'label' twice")
    path.write_text("item,annotator,,label\ni1,a,x,y\n")
    one_line_error(run("report", str(path)), "column 3 has no name")


def test_empty_and_header_only_files_are_errors(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    one_line_error(run("report", str(tmp_path / "empty.csv")), "empty")
    (tmp_path / "header.csv").write_text("item,annotator,label\n")
    one_line_error(run("report", str(tmp_path / "header.csv")), "no data rows")


def test_a_file_that_is_not_utf8_says_so(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("item,annotator,label\ni1,a,caf\xe9\ni1,b,caf\xe9\n".encode("latin-1"))
    one_line_error(run("report", str(path)), "UTF-8")


def test_json_shapes(tmp_path):
    rows = [
        {"item": "01", "annotator": "a", "label": "x"},
        {"item": "1", "annotator": "a", "label": "y"},
        {"item": "01", "annotator": "b", "label": "x"},
        {"item": "1", "annotator": "b", "label": None},
    ]
    (tmp_path / "r.json").write_text(json.dumps(rows))
    (tmp_path / "l.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path / "c.json").write_text(json.dumps({k: [r[k] for r in rows] for k in rows[0]}))
    for name in ("r.json", "l.jsonl", "c.json"):
        data = ie.read(tmp_path / name)
        assert list(data.items) == ["01", "1"] and data.n_annotations == 3, name
    (tmp_path / "bad.jsonl").write_text(json.dumps(rows[0]) + "\n{oops\n")
    one_line_error(run("report", str(tmp_path / "bad.jsonl")), "line 2")


# --------------------------------------------------------------------------- numbers only where the level needs them


@pytest.mark.parametrize("text", ["inf", "-inf", "Infinity", "nan", "NaN"])
def test_non_finite_numbers_are_refused_at_the_interval_level(tmp_path, text):
    path = write_csv(
        tmp_path / "inf.csv", [("i1", "a", "1.5"), ("i1", "b", text), ("i2", "a", "2"), ("i2", "b", "2.5")]
    )
    with pytest.raises(ValueError, match=rf"label '{text}' \(annotation 2\) is not a finite number"):
        ie.read(path, level="interval")
    one_line_error(run("report", str(path), "--level", "interval"), repr(text))


def test_typed_infinity_is_refused_too():
    frame = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": [1.0, np.inf]})
    with pytest.raises(ValueError, match="not a finite number"):
        ie.Annotations.from_long(frame, level="interval")


def test_interval_labels_are_parsed_once_as_numbers(tmp_path):
    path = write_csv(
        tmp_path / "num.csv",
        [
            ("i1", "a", "1"),
            ("i1", "b", "1.0"),
            ("i2", "a", " 2"),
            ("i2", "b", "2e0"),
            ("i3", "a", "10"),
            ("i3", "b", "9"),
        ],
    )
    data = ie.read(path, level="interval")
    assert list(data.categories) == [1, 2, 9, 10]
    nominal = ie.read(path)
    assert list(nominal.categories) == ["1", "1.0", "10", "2", "2e0", "9"]
    assert ie.krippendorff_alpha(nominal, level="interval") == ie.krippendorff_alpha(data)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_ordinal_with_numeric_categories_on_numeric_labels(tmp_path, suffix):
    frame = pd.DataFrame(
        {"item": ["i1", "i1", "i2", "i2", "i3", "i3"], "annotator": list("ababab"), "label": [1, 2, 2, 2, 3, 1]}
    )
    path = tmp_path / f"ord{suffix}"
    frame.to_parquet(path) if suffix == ".parquet" else frame.to_csv(path, index=False)
    out = run("report", str(path), "--level", "ordinal", "--categories", "1,2,3", "--json")
    assert out.returncode == 0, out.stderr
    expected = ie.krippendorff_alpha(ie.Annotations.from_long(frame), level="ordinal")
    assert json.loads(out.stdout)["krippendorff_alpha"] == pytest.approx(expected, abs=1e-12)


def test_ordinal_without_an_order_reads_numbers_numerically(tmp_path):
    path = write_csv(tmp_path / "o.csv", [("i1", "a", "9"), ("i1", "b", "10"), ("i2", "a", "1"), ("i2", "b", "2")])
    assert list(ie.read(path, level="ordinal").categories) == [1, 2, 9, 10]  # not "10" < "2" < "9"
    text = write_csv(tmp_path / "t.csv", [("i1", "a", "low"), ("i1", "b", "high")])
    one_line_error(run("report", str(text), "--level", "ordinal"), "order of the categories", "'low'")


def test_count_tables_read_from_text(tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text("item,yes,no\nq1,3,0\nq2,1,2\nq3,,3\n")
    data = ie.read(path, layout="counts")
    assert ie.fleiss_kappa(data) == pytest.approx(
        ie.fleiss_kappa(ie.Annotations.from_counts([[3, 0], [1, 2], [0, 3]])), abs=1e-15
    )
    path.write_text("item,yes,no\nq1,3,x\n")
    one_line_error(run("report", str(path), "--layout", "counts"), "'x' is not a finite number")


# --------------------------------------------------------------------------- output


def test_timestamp_annotator_ids_serialise(tmp_path):
    frame = pd.DataFrame(
        {
            "item": ["i1", "i1", "i2", "i2"],
            "annotator": pd.to_datetime(["2024-01-01", "2024-01-02"] * 2),
            "label": ["x", "x", "y", "x"],
        }
    )
    frame.to_parquet(tmp_path / "ts.parquet")
    out = run("report", str(tmp_path / "ts.parquet"), "--json", "--pairwise", "yes")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["cohen_kappa"]["annotators"] == ["2024-01-01T00:00:00", "2024-01-02T00:00:00"]
    out = run("gold", str(tmp_path / "ts.parquet"), "--json")
    assert out.returncode == 0, out.stderr


def test_control_characters_in_names_are_escaped_in_the_terminal(tmp_path):
    evil = "\x1b]0;pwned\x07ann"
    path = write_csv(
        tmp_path / "evil.csv",
        [("i1", evil, "x"), ("i1", "b\u202eevil", "x"), ("i2", evil, "y"), ("i2", "b\u202eevil", "x")],
    )
    out = run("report", str(path))
    assert out.returncode == 0
    assert "\x1b" not in out.stdout and "\u202e" not in out.stdout
    assert "\\x1b]0;pwned\\x07ann" in out.stdout and "b\\u202eevil" in out.stdout
    assert json.loads(run("report", str(path), "--json").stdout)["cohen_kappa"]["annotators"] == sorted(
        [evil, "b\u202eevil"]
    )  # data outputs keep the names exactly


# --------------------------------------------------------------------------- renaming invariance


_text = (
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), min_size=1, max_size=8)
    .map(str.strip)
    .filter(bool)
)
_ids = st.one_of(_text, st.sampled_from(["01", "1", "001", "1.1", "1.10", "None", "NaN", "NA", "null", "0", "-0"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(_ids, min_size=2, max_size=6, unique=True),
    annotators=st.lists(_ids, min_size=2, max_size=4, unique=True),
    labels=st.lists(_ids, min_size=2, max_size=4, unique=True),
    cells=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=30),
    data=st.data(),
)
def test_report_is_invariant_to_renaming_ids_and_labels(tmp_path_factory, items, annotators, labels, cells, data):
    seen, rows, coded = set(), [], []
    for i, a, lab in cells:
        i, a, lab = i % len(items), a % len(annotators), lab % len(labels)
        if (i, a) in seen:
            continue
        seen.add((i, a))
        rows.append((items[i], annotators[a], labels[lab]))
        coded.append((f"item{i}", f"ann{a}", f"lab{lab}"))
    path = write_csv(tmp_path_factory.mktemp("rn") / "t.csv", rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ie.report(ie.read(path), pairwise=True)
        plain = ie.report(
            ie.Annotations.from_long(pd.DataFrame(coded, columns=["item", "annotator", "label"])), pairwise=True
        )
    assert (ours.n_items, ours.n_annotators, ours.n_annotations, ours.n_categories) == (
        len({r[0] for r in rows}),
        len({r[1] for r in rows}),
        len(rows),
        len({r[2] for r in rows}),
    )
    for key, value in plain.values.items():
        assert ours.values[key] == pytest.approx(value, abs=1e-12, nan_ok=True), key
    for key, value in plain.spa.items():
        assert ours.spa[key] == pytest.approx(value, abs=1e-12, nan_ok=True), key


def test_every_pandas_text_dtype_gives_the_same_data():
    rows = [("01", "a", "None"), ("1", "a", "x"), ("01", "b", "None"), ("1", "b", "NA"), ("001", "b", "x")]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"], dtype=object)
    variants = {
        "object": frame,
        "string": frame.astype("string"),
        "string[pyarrow]": frame.astype("string[pyarrow]"),
        "arrow": frame.astype(pd.ArrowDtype(__import__("pyarrow").string())),
        "categorical": frame.astype("category"),
    }
    expected = None
    for name, df in variants.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ie.NALikeLabelWarning)
            data = ie.Annotations.from_long(df)
        got = (
            list(data.items),
            list(data.annotators),
            list(data.categories),
            data.item.tolist(),
            data.annotator.tolist(),
            data.label.tolist(),
        )
        assert got[0] == ["001", "01", "1"] and got[2] == ["NA", "None", "x"], name
        expected = expected or got
        assert got == expected, name
