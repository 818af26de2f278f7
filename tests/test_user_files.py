"""The user's own files and first minutes (issue 25): nothing misread in silence, every error names the mistake.

Each case was reproduced on main before the fix (the wrong number or the unhelpful message is quoted in the test's
docstring); the right numbers come from an independent reading of the same annotations (a long table built from the
same Python lists), never from a hard-coded result.
"""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.data._orient import column_role, guess_long_columns, wide_orientation

from .test_cli import IAA, run

NAMES = ["alice", "bob", "carol", "dave"]
LABELS = ["neg", "neu", "pos"]


def one_line_error(out: subprocess.CompletedProcess, *needles: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stdout[-300:], out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("iaa: error: ") and "Traceback" not in out.stderr, out.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def ratings(n_docs: int = 60, seed: int = 25) -> list[list[str]]:
    """``n_docs`` documents × 4 annotators, 70 % of labels the document's own."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_docs)
    return [[LABELS[truth[i] if rng.random() < 0.7 else rng.integers(0, 3)] for _ in NAMES] for i in range(n_docs)]


def long_of(rows: list[list[str]]) -> ie.Annotations:
    """The independent reading: one row per (doc, annotator, label)."""
    table = pd.DataFrame(
        [(f"d{i:02d}", who, label) for i, row in enumerate(rows) for who, label in zip(NAMES, row)],
        columns=["item", "annotator", "label"],
    )
    return ie.Annotations.from_long(table)


def write_wide(path, rows, corner="doc_id"):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(",".join([corner, *NAMES]) + "\n")
        for i, row in enumerate(rows):
            fh.write(",".join([f"d{i:02d}", *row]) + "\n")
    return path


# --------------------------------------------------------------------------- wide files: no silent orientation


def test_a_wide_file_with_items_in_rows_is_read_items_in_rows(tmp_path):
    """main: `iaa report wide.csv` read 4 items × 60 annotators (Fleiss' kappa -0.0095 on the issue's file), exit 0."""
    rows = ratings()
    path = write_wide(tmp_path / "wide.csv", rows)
    expected = long_of(rows)
    out = run("report", str(path), "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert (rep["n_items"], rep["n_annotators"]) == (60, 4)
    assert rep["fleiss_kappa"] == pytest.approx(ie.fleiss_kappa(expected), abs=1e-15)
    assert "iaa: read 60 items × 4 annotators (240 annotations) from 'wide.csv'" in out.stderr
    assert "the first column 'doc_id' names items" in out.stderr
    data = ie.read(path)
    assert (data.n_items, data.n_annotators) == (60, 4)
    assert ie.krippendorff_alpha(data) == pytest.approx(ie.krippendorff_alpha(expected), abs=1e-15)
    # the other reading only when asked for, and the CLI says so
    other = run("report", str(path), "--annotators-as", "rows", "--json")
    assert json.loads(other.stdout)["n_items"] == 4 and "as --annotators-as rows says" in other.stderr


def test_without_telling_names_the_shape_decides_and_square_asks(tmp_path):
    rows = ratings(30)
    path = write_wide(tmp_path / "blank_corner.csv", rows, corner="")
    data = ie.read(path)
    assert (data.n_items, data.n_annotators) == (30, 4)
    assert ie.fleiss_kappa(data) == pytest.approx(ie.fleiss_kappa(long_of(rows)), abs=1e-15)
    square = write_wide(tmp_path / "square.csv", ratings(4), corner="")
    line = one_line_error(run("report", str(square)), "it is square (4 rows × 4 columns)", "--annotators-as rows")
    assert "annotators_as=" not in line
    with pytest.raises(ValueError, match=r"annotators_as='rows'.*annotators_as='columns'"):
        ie.read(square)
    assert ie.read(square, annotators_as="columns").n_annotators == 4


def test_the_classroom_file_and_matrix_keep_their_reading():
    """Annotators as rows: the classroom CSV (first column 'annotator', wider than tall) and README's matrix."""
    out = run("report", str(ie.__path__[0] + "/examples/classroom.csv"))
    assert out.returncode == 0 and "0.5994" in out.stdout
    assert "read 15 items × 3 annotators" in out.stderr and "names annotators" in out.stderr
    matrix = [[1, 1, 1, 3], [1, 2, 1, 2], [2, 1, None, 3]]
    data = ie.Annotations.from_wide(matrix)
    assert (data.n_annotators, data.n_items) == (3, 4)
    assert data.n_annotations == ie.Annotations.from_wide(matrix, annotators_as="rows").n_annotations == 11


def test_from_wide_follows_the_shape_and_refuses_a_square_matrix():
    rows = ratings(12)
    tall = ie.Annotations.from_wide(rows)
    assert (tall.n_items, tall.n_annotators) == (12, 4)
    assert ie.fleiss_kappa(tall) == pytest.approx(ie.fleiss_kappa(long_of(rows)), abs=1e-15)
    with pytest.raises(ValueError, match=r"square \(2 rows × 2 columns\).*annotators_as='rows'"):
        ie.Annotations.from_wide([[1, 2], [2, 1]])
    with pytest.raises(ValueError, match="square"):
        ie.fleiss_kappa(np.array([[1, 2], [2, 1]]))
    # a DataFrame's names tell, whatever its shape
    frame = pd.DataFrame(rows[:4], columns=NAMES, index=pd.Index([f"d{i}" for i in range(4)], name="doc_id"))
    assert ie.Annotations.from_wide(frame).n_annotators == 4
    raters = pd.DataFrame(rows[:4], columns=["rater_1", "rater_2", "rater_3", "rater_4"])
    assert list(ie.Annotations.from_wide(raters).annotators) == list(raters.columns)


def test_the_shared_rule():
    """iaa_engine.data._orient.wide_orientation: what the Excel functions' shape rule says, plus the names."""
    assert wide_orientation(60, 4)[0] == "columns" and wide_orientation(3, 15)[0] == "rows"
    assert wide_orientation(5, 5)[0] is None and wide_orientation(1, 1)[0] == "rows"
    assert wide_orientation(3, 15, corner="doc_id")[0] == "columns"  # the names win over the shape
    assert wide_orientation(60, 4, corner="Annotator")[0] == "rows"
    assert wide_orientation(4, 4, column_names=["coder1", "coder2", "coder3", "coder4"])[0] == "columns"
    assert wide_orientation(4, 4, column_names=["item_1", "item_2", "item_3", "item_4"])[0] == "rows"
    assert wide_orientation(4, 4, row_names=["rater A", "rater B", "rater C", "rater D"])[0] == "rows"
    assert wide_orientation(4, 4, column_names=["alice", "bob", "item_3", "x"])[0] is None
    # a Label Studio CSV export's columns: the whole-word names win ("id" over "annotation_id")
    export = ["annotation_id", "annotator", "created_at", "id", "lead_time", "sentiment", "text", "updated_at"]
    assert guess_long_columns(export) == {"item": "id", "annotator": "annotator", "label": "sentiment"}
    assert [column_role(n) for n in ("docId", "annotator_id", "WorkerID", "sentiment", "alice", 3)] == [
        "item",
        "annotator",
        "annotator",
        "label",
        None,
        None,
    ]


# --------------------------------------------------------------------------- runaway quotes


def write_lines(path, lines):
    path.write_text("".join(lines), encoding="utf-8")
    return path


def rows_with(n, bad_at, bad):
    return ["item,annotator,label\n"] + [
        bad if i == bad_at else f"i{i // 3},a{i % 5},{LABELS[i % 3]}\n" for i in range(n)
    ]


def test_an_unterminated_quote_is_an_error_with_its_line(tmp_path):
    """main: a quote opened on line 12 of a 1,000-row CSV swallowed the rest into one label; 11 annotations."""
    path = write_lines(tmp_path / "q.csv", rows_with(1000, 10, 'i10,a0,"pos\n'))
    one_line_error(run("report", str(path)), "line 12", "swallow")
    with pytest.raises(ValueError, match="line 12: a quoted value"):
        ie.read(path)
    small = write_lines(tmp_path / "small.csv", rows_with(20, 10, 'i10,a0,"pos\n'))
    with pytest.raises(ValueError, match="line 12: a quoted value starts here and never closes"):
        ie.read(small)
    # closed 400 lines later by the next quote: swallowing beyond the limit
    mid = rows_with(1000, 10, 'i10,a0,"pos\n')
    mid[411] = 'i400,a1,"neg"\n'
    with pytest.raises(ValueError, match=r"line 12: a quoted value runs over 401 lines"):
        ie.read(write_lines(tmp_path / "mid.csv", mid))


def test_an_unterminated_quote_in_a_large_file(tmp_path):
    """Past Arrow's first 1 MB block the unclosed quote made Arrow drop rows without an error (100,000 rows read as
    22,733 on main); every physical line is now accounted for."""
    path = write_lines(tmp_path / "big.csv", rows_with(100_000, 10, 'i10,a0,"pos\n'))
    with pytest.raises(ValueError, match="line 12: a quoted value starts here and never closes"):
        ie.read(path)


def test_quoted_line_breaks_blank_lines_and_long_values_are_read_or_named(tmp_path):
    ok = write_lines(tmp_path / "ok.csv", ["\n", "\n", "item,annotator,label\n", 'i1,a,"multi\nline"\n', "i1,b,x\n"])
    data = ie.read(ok)  # main: "has no data rows (columns: [])" for the blank lines before the header
    assert data.n_annotations == 2 and list(data.categories) == ["multi\nline", "x"]
    blank_rows = write_lines(tmp_path / "blank_rows.csv", ["item,annotator,label\n", "i1,a,x\n", "\n", "i1,b,y\n\n"])
    assert ie.read(blank_rows).n_annotations == 2
    crlf = tmp_path / "crlf.csv"  # Excel's line ends, a quoted comma, no line end after the last row
    crlf.write_bytes(b'item,annotator,label\r\ni1,a,"x, y"\r\ni1,b,x\r\ni2,a,"x, y"\r\ni2,b,"x, y"')
    assert list(ie.read(crlf).to_long()["label"]) == ["x, y", "x", "x, y", "x, y"]
    huge = ["item,annotator,label\n", 'i0,a,"x\ny"\n', "i0,b,x\n", 'i1,a,"' + ("y" * 100_000 + "\n") * 15 + '"\n']
    huge += ["i1,b,x\n", 'i2,a,"' + "y" * 2_000_000 + '"\n']
    # main: Arrow's "straddling object straddles two block boundaries (try to increase block size?)"
    with pytest.raises(ValueError, match=r"line 5: a row holds a value of more than 1,000,000 characters"):
        ie.read(write_lines(tmp_path / "huge.csv", huge))


# --------------------------------------------------------------------------- columns: named, missing, other names


def label_studio_export(path):
    pd.DataFrame(
        {
            "id": [1, 1, 2, 2, 3, 3],
            "annotator": [1, 2, 1, 2, 1, 2],
            "sentiment": ["Positive", "Positive", "Negative", "Positive", "Neutral", "Neutral"],
            "text": ["good", "good", "bad", "bad", "meh", "meh"],
            "created_at": ["2024-01-01"] * 6,
        }
    ).to_csv(path, index=False)
    return path


def test_an_export_without_the_default_columns_lists_them_and_the_flags(tmp_path):
    """main: `annotator names must be unique; '1' appears twice` (read as a wide matrix)."""
    path = label_studio_export(tmp_path / "export.csv")
    line = one_line_error(run("report", str(path)), "'id', 'annotator', 'sentiment', 'text', 'created_at'")
    assert "--item-col id --annotator-col annotator --label-col sentiment" in line
    with pytest.raises(ValueError, match=r"item='id', annotator='annotator', label='sentiment'"):
        ie.read(path)
    out = run("report", str(path), "--item-col", "id", "--label-col", "sentiment", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["n_annotations"] == 6


def test_a_named_column_that_is_missing_is_named_with_a_near_match(tmp_path):
    """main: `--item-col task` (mistyped) and `--label-col Sentiment` (wrong case) gave the wide matrix's
    `annotator names must be unique`; the right message came only with --layout long."""
    path = label_studio_export(tmp_path / "export.csv")
    one_line_error(
        run("report", str(path), "--item-col", "task", "--label-col", "sentiment"),
        "column(s) ['task'] not found in 'export.csv'",
        "it has columns ['id', 'annotator', 'sentiment', 'text', 'created_at']",
        "--item-col",
    )
    one_line_error(
        run("report", str(path), "--item-col", "id", "--label-col", "Sentiment"),
        "did you mean 'sentiment'? column names are case-sensitive",
    )
    with pytest.raises(ValueError, match=r"did you mean 'sentiment'.*Name the columns with item=, annotator="):
        ie.read(path, item="id", label="Sentiment")


def test_a_long_dataframe_with_other_column_names_is_refused():
    """main: `ie.fleiss_kappa(df)` read doc/worker/tag as a 6 × 3 wide matrix (0.217, ids as labels), no warning;
    `ie.report(pd.read_csv(export))` failed with "a mix of float, int, str"."""
    df = pd.DataFrame({"doc": [1, 1, 2, 2, 3, 3], "worker": ["w1", "w2"] * 3, "tag": ["x", "y", "x", "x", "y", "y"]})
    with pytest.raises(
        ValueError, match=r"ie\.Annotations\.from_long\(df, item='doc', annotator='worker', label='tag'\)"
    ):
        ie.fleiss_kappa(df)
    with pytest.raises(ValueError, match=r"from_long\(df, item='doc'"):
        ie.Annotations.from_wide(df)  # without annotators_as: the same check
    expected = ie.Annotations.from_long(df, item="doc", annotator="worker", label="tag")
    assert (expected.n_items, expected.n_annotators) == (3, 2)
    export = pd.DataFrame({"id": [1, 1], "annotator": [1, 2], "sentiment": ["a", "b"], "lead_time": [1.5, 2.0]})
    with pytest.raises(ValueError, match=r"from_long\(df, item='id', annotator='annotator', label='sentiment'\)"):
        ie.report(export)


# --------------------------------------------------------------------------- the command line's own manners


def test_the_duplicate_error_speaks_the_surface_language(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("item,annotator,label\n1,a,x\n1,a,y\n2,a,x\n2,b,x\n")
    one_line_error(run("report", str(path)), "pass --duplicates first or --duplicates last")
    with pytest.raises(ValueError, match=r"pass duplicates='first' or duplicates='last'"):
        ie.read(path)


def test_a_closed_pipe_ends_quietly(tmp_path):
    """main: `iaa report ... | head` ended with `iaa: error: [Errno 32] Broken pipe`."""
    env = {k: v for k, v in os.environ.items() if k != "IAA_DEBUG"}
    proc = subprocess.Popen(
        [IAA, "report", ie.__path__[0] + "/examples/crowd.csv"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdout.close()  # the reader is gone before the report is written
    err = proc.stderr.read().decode()
    status = proc.wait(timeout=120)
    proc.stderr.close()
    assert "Broken pipe" not in err and "error" not in err, err
    assert status == 128 + 13  # as a Unix tool killed by SIGPIPE


# --------------------------------------------------------------------------- numbers at the edges


def test_counts_beyond_exact_integers_are_refused():
    """main: from_counts([[1e20, 1e20], [1, 1]]) built an object with n_annotations=2 (int64 overflow)."""
    for table in ([[1e20, 1e20], [1, 1]], [[10**20, 1], [1, 1]]):
        with pytest.raises(ValueError, match=r"count 1.*\(item 0, category 0\) is more than 2\*\*53"):
            ie.Annotations.from_counts(table)
    big = ie.Annotations.from_counts([[2**52, 0], [1, 1]])
    assert big.n_annotations == 2**52 + 2
    assert ie.Annotations.from_counts([[0.5, 1.5], [1, 1]]).fractional  # fractional counts stay accepted


def test_huge_interval_labels_are_refused_not_undefined(tmp_path):
    """main: labels of ±1e308 gave "every pairable value is the same" (an overflow of the squared differences)."""
    with pytest.raises(ValueError, match=r"label -1e\+308 is beyond ±1e\+100.*rescale"):
        ie.Annotations.from_wide([[1e308, -1e308, 1.0], [1e308, 1.0, -1e308]], level="interval")
    path = tmp_path / "big.csv"
    path.write_text("item,annotator,label\n1,a,1e308\n1,b,-1e308\n2,a,1\n2,b,1\n")
    one_line_error(run("report", str(path), "--level", "interval"), "beyond ±1e+100")
    scaled = ie.Annotations.from_wide([[1e98, -1e98, 1.0], [1e98, 1.0, -1e98]], level="interval")
    plain = ie.Annotations.from_wide([[1.0, -1.0, 1e-98], [1.0, 1e-98, -1.0]], level="interval")
    assert ie.krippendorff_alpha(scaled) == pytest.approx(ie.krippendorff_alpha(plain), abs=1e-12)


def test_a_non_finite_label_is_named_plainly_with_its_row():
    """main: "label np.float64(inf) is not a finite number", without its row."""
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"], "label": [1.0, None, 2.0, np.inf]})
    with pytest.raises(ValueError, match=r"^label inf \(annotation 4\) is not a finite number"):
        ie.Annotations.from_long(frame, level="interval")
    with pytest.raises(ValueError, match=r"^label -inf \(annotator 'b', item 'y'\) is not a finite number"):
        ie.Annotations.from_wide(
            pd.DataFrame([[1.0, 2.0, 3.0], [1.0, -np.inf, 3.0]], index=["a", "b"], columns=["x", "y", "z"]),
            level="interval",
        )


def test_parquet_binary_labels_are_text(tmp_path):
    """main: "Cannot use .str.strip with values of inferred dtype 'bytes'"."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = {"item": ["1", "1", "2", "2"], "annotator": ["a", "b", "a", "b"], "label": ["x", "y", "x", "x"]}
    pq.write_table(pa.table(table), tmp_path / "text.parquet")
    binary = {k: pa.array([v.encode() for v in vs], pa.binary()) for k, vs in table.items()}
    pq.write_table(pa.table(binary), tmp_path / "binary.parquet")
    a, b = ie.read(tmp_path / "text.parquet"), ie.read(tmp_path / "binary.parquet")
    assert list(b.categories) == list(a.categories) == ["x", "y"] and ie.fleiss_kappa(a) == ie.fleiss_kappa(b)
    binary["label"] = pa.array([b"x", b"\xff", b"x", b"x"], pa.binary())
    pq.write_table(pa.table(binary), tmp_path / "bad.parquet")
    with pytest.raises(ValueError, match="column 'label' holds bytes that are not UTF-8 text"):
        ie.read(tmp_path / "bad.parquet")
