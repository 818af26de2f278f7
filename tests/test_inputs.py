"""The data model's converters and the documented policy for bad or degenerate input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

SCALARS = [
    ie.spa,
    ie.joint_probability,
    ie.percent_agreement,
    ie.fleiss_kappa,
    ie.multi_kappa,
    ie.annotator_bias,
    ie.gwet_ac1,
    ie.brennan_prediger,
    ie.krippendorff_alpha,
]


def long(rows):
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


# ----------------------------------------------------------------------------- converters agree


def test_long_wide_and_orientation_give_the_same_data():
    wide = pd.DataFrame([[1, None, 2], [1, 2, ""], [np.nan, 2, 2]], index=["a", "b", "c"], columns=["x", "y", "z"])
    rows = [("x", "a", 1), ("z", "a", 2), ("x", "b", 1), ("y", "b", 2), ("y", "c", 2), ("z", "c", 2)]
    from_long = ie.Annotations.from_long(long(rows))
    for data in (
        ie.Annotations.from_wide(wide, annotators_as="rows"),
        ie.Annotations.from_wide(wide.T, annotators_as="columns"),
    ):
        assert data.n_annotations == 6
        for metric in (ie.fleiss_kappa, ie.krippendorff_alpha, ie.spa):
            assert metric(data) == pytest.approx(metric(from_long), abs=1e-15)
        np.testing.assert_allclose(ie.cohen_kappa_matrix(data).values, ie.cohen_kappa_matrix(from_long).values)


def test_missing_values_and_zero_labels():
    """Blank, None, NaN and "" are missing; 0 and "0" are labels (spec.md, policy questions)."""
    data = ie.Annotations.from_wide([[0, None, "  "], [0, np.nan, ""]], level="nominal")
    assert data.n_annotations == 2 and list(data.categories) == [0]
    data = ie.Annotations.from_wide([["0", None], ["0", "1"]], annotators_as="rows")
    assert data.n_annotations == 3 and list(data.categories) == ["0", "1"]


def test_count_table_matches_annotations():
    rng = np.random.default_rng(0)
    m = rng.integers(0, 3, size=(4, 20))
    table = np.stack([(m == k).sum(axis=0) for k in range(3)], axis=1)
    a, b = ie.Annotations.from_wide(m), ie.Annotations.from_counts(table)
    for metric in (ie.fleiss_kappa, ie.krippendorff_alpha, ie.spa, ie.gwet_ac1, ie.percent_agreement):
        assert metric(a) == pytest.approx(metric(b), abs=1e-15)


def test_count_table_has_no_annotators():
    data = ie.Annotations.from_counts([[2, 1], [0, 3]])
    for fn in (ie.multi_kappa, ie.annotator_bias, ie.cohen_kappa_matrix, ie.percent_agreement_matrix):
        with pytest.raises(ValueError, match="no annotator identities"):
            fn(data)
    rep = ie.report(data).to_dict()
    assert rep["multi_kappa"] is None and rep["cohen_kappa"] is None
    assert any("annotator identities" in n for n in rep["notes"])


def test_ordinal_needs_an_order_for_text():
    frame = long([(0, 0, "low"), (0, 1, "high"), (1, 0, "mid"), (1, 1, "mid")])
    with pytest.raises(ValueError, match="order of the categories"):
        ie.Annotations.from_long(frame, level="ordinal")
    data = ie.Annotations.from_long(frame, level="ordinal", categories=["low", "mid", "high"])
    assert list(data.categories) == ["low", "mid", "high"]
    numeric = ie.Annotations.from_long(frame.assign(label=[1, 3, 2, 2]), level="ordinal")
    assert ie.krippendorff_alpha(data) == pytest.approx(ie.krippendorff_alpha(numeric), abs=1e-15)


def test_with_level_reorders():
    data = ie.Annotations.from_wide([["b", "a", "c"], ["b", "c", "c"]])
    with pytest.raises(ValueError, match="order of the categories"):
        data.with_level("ordinal")
    assert ie.krippendorff_alpha(data.with_level("ordinal", ["a", "b", "c"])) == pytest.approx(
        ie.krippendorff_alpha(ie.Annotations.from_wide([[2, 1, 3], [2, 3, 3]], level="ordinal")), abs=1e-15
    )


# ----------------------------------------------------------------------------- bad input: clear errors


@pytest.mark.parametrize(
    "empty",
    [
        pd.DataFrame(columns=["item", "annotator", "label"]),
        pd.DataFrame({"item": [1, 2], "annotator": [1, 1], "label": [None, np.nan]}),
    ],
)
def test_empty_or_all_missing_long(empty):
    with pytest.raises(ValueError, match="no annotations"):
        ie.Annotations.from_long(empty)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        ([[None, "", None], [np.nan, None, " "]], "no annotations"),
        ([[]], "empty"),
        ([1, 2, 3], "2-dimensional"),
    ],
)
def test_empty_or_all_missing_wide(matrix, message):
    with pytest.raises(ValueError, match=message):
        ie.Annotations.from_wide(matrix)


def test_duplicate_item_annotator_pairs():
    frame = long([(0, "ann", "x"), (0, "ann", "y"), (0, "bob", "x"), (1, "ann", "x")])
    with pytest.raises(ValueError, match=r"1 \(item, annotator\) pair\(s\) are labelled more than once.*'ann'"):
        ie.Annotations.from_long(frame)
    first = ie.Annotations.from_long(frame, duplicates="first")
    last = ie.Annotations.from_long(frame, duplicates="last")
    assert first.n_annotations == last.n_annotations == 3
    assert ie.percent_agreement(first) == 1.0 and ie.percent_agreement(last) == 0.0


def test_taxonomy_paths_of_different_lengths_as_categories():
    """Paths (tuples) of different depths are categories as they are; pandas would otherwise try to build a
    MultiIndex from them and fail deep inside (IndexError: tuple index out of range)."""
    table = long([(1, "a", ("A", "x")), (1, "b", ("A",)), (2, "a", ("B",)), (2, "b", ("B", "y"))])
    cats = [("A",), ("A", "x"), ("B",), ("B", "y")]
    given = ie.Annotations.from_long(table, categories=cats)
    assert list(given.categories) == cats and given.n_categories == 4
    found = ie.Annotations.from_long(table)
    assert ie.krippendorff_alpha(given) == ie.krippendorff_alpha(found)
    counts = ie.Annotations.from_counts(pd.DataFrame([[1, 1, 0, 0], [0, 0, 1, 1]]), categories=cats)
    assert list(counts.categories) == cats
    assert list(given.with_level("nominal", categories=cats[::-1]).categories) == cats[::-1]
    with pytest.raises(ValueError, match=r"labels \[\('A', 'x'\)\] are not among the given categories"):
        ie.Annotations.from_long(table, categories=[("A",), ("B",), ("B", "y")])


def test_taxonomy_paths_of_different_lengths_through_every_output(tmp_path):
    """Paths of one, two and three names as labels: the adjudication list (text, JSON, frame), the scorecard,
    the gold and the HTML page all take them (each used to build a MultiIndex somewhere and fail)."""
    paths = [("A",), ("A", "x"), ("B", "y"), ("B",), ("C", "z", "w")]
    rows = [(i, f"a{j}", paths[(i + (j if (i * 7 + j) % 5 < 2 else 0)) % 5]) for i in range(40) for j in range(3)]
    data = ie.Annotations.from_long(long(rows))
    d = ie.disagreements(data)
    assert d.n_disagreeing > 0 and "('C', 'z', 'w')" in str(d) + str(d.to_frame()["labels"].tolist())
    assert d.to_dict()["pairs"] and d.to_dict()["items"][0]["annotations"]
    assert len(ie.annotator_report(data).table) == 3 and len(ie.gold_standard(data).per_item()) == 40
    page = tmp_path / "r.html"
    ie.write_html_report(data, page)
    assert "What to adjudicate" in page.read_text(encoding="utf-8")


def test_mixed_label_types():
    with pytest.raises(ValueError, match="labels must all be of one type.*int.*str"):
        ie.Annotations.from_long(long([(0, 0, 1), (0, 1, "a")]))


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda d: ie.krippendorff_alpha(d, level="nominel"), "level"),
        (lambda d: ie.krippendorff_alpha_matrix(d, level="cardinal"), "level"),
        (lambda d: ie.spa(d, weights="inverse"), "weights"),
        (lambda d: ie.spa_item_weights(d, weights="edge"), "weights"),
        (lambda d: ie.report(d, weights="edge"), "weights"),
        (lambda d: ie.Annotations.from_wide([[1]], annotators_as="cols"), "annotators_as"),
        (lambda d: ie.Annotations.from_long(d.to_long(), duplicates="newest"), "duplicates"),
    ],
)
def test_unknown_choice_names_use_one_template(call, name):
    data = ie.Annotations.from_wide([[1, 2], [1, 1]], annotators_as="rows")
    with pytest.raises(ValueError, match=rf"^{name} must be one of '.*'(, or None)?; got '"):
        call(data)


def test_non_numeric_labels_at_interval_and_ratio():
    for level in ("interval", "ratio"):
        with pytest.raises(
            ValueError,
            match=f"the {level} level needs numeric labels; label 'high' \\(annotator 0, item 0\\) is not a finite "
            "number",
        ):
            ie.Annotations.from_wide([["high", "low"], ["low", "low"]], annotators_as="rows", level=level)
        data = ie.Annotations.from_wide([["high", "low"], ["low", "low"]], annotators_as="rows")
        with pytest.raises(ValueError, match=f"the {level} level needs numeric labels"):
            ie.krippendorff_alpha(data, level=level)


def test_ratio_rejects_negative_values():
    with pytest.raises(ValueError, match="non-negative"):
        ie.Annotations.from_wide([[-1, 2], [1, 2]], annotators_as="rows", level="ratio")


def test_missing_column():
    with pytest.raises(
        ValueError,
        match=r"column\(s\) \['rater'\] not found; "
        r"the table has columns \['item', 'annotator', 'label'\]",
    ):
        ie.Annotations.from_long(long([(0, 0, 1)]), annotator="rater")


def test_wrong_types():
    with pytest.raises(TypeError, match="expected Annotations, a pandas DataFrame or a 2-D array-like"):
        ie.fleiss_kappa({"a": 1})
    with pytest.raises(TypeError, match="got a path"):
        ie.fleiss_kappa("data.csv")
    with pytest.raises(TypeError, match="replace_undefined_by must be a number"):
        ie.fleiss_kappa([[1, 2, 1], [1, 2, 2]], replace_undefined_by="zero")


def test_unknown_annotator_names_in_cohen():
    data = ie.Annotations.from_wide(pd.DataFrame([[1, 2], [1, 1], [2, 2]], index=["a", "b", "c"]), annotators_as="rows")
    with pytest.raises(ValueError, match="compares two annotators; the data has 3"):
        ie.cohen_kappa(data)
    with pytest.raises(ValueError, match="annotator 'z' is not in the data"):
        ie.cohen_kappa(data, "a", "z")
    with pytest.raises(ValueError, match="give both"):
        ie.cohen_kappa(data, "a")


# ----------------------------------------------------------------------------- degenerate data: the policy


def test_one_annotator_is_undefined_everywhere():
    data = ie.Annotations.from_wide([[1, 2, 3]])
    for metric in SCALARS:
        with pytest.warns(ie.UndefinedMetricWarning, match="is undefined"):
            assert np.isnan(metric(data)), metric.__name__
    with pytest.raises(ValueError, match="compares two annotators; the data has 1"):
        ie.cohen_kappa(data)


def test_one_item_is_computed():
    """One item with labels a, a, b: P = 1/3, p = (2/3, 1/3), Fleiss' κ = (1/3 − 5/9)/(1 − 5/9) = −1/2."""
    data = ie.Annotations.from_wide([["a"], ["a"], ["b"]], annotators_as="rows")  # 3 × 1: taller than wide
    assert ie.fleiss_kappa(data) == pytest.approx(-0.5, abs=1e-15)
    assert ie.spa(data) == pytest.approx(1 / 3, abs=1e-15)


def test_expected_agreement_of_one_is_undefined_with_replacement():
    data = ie.Annotations.from_wide([["a", "a"], ["a", "a"]], annotators_as="rows")
    for metric in (ie.fleiss_kappa, ie.multi_kappa, ie.krippendorff_alpha):
        with pytest.warns(ie.UndefinedMetricWarning, match="0/0"):
            assert np.isnan(metric(data))
        with pytest.warns(ie.UndefinedMetricWarning):
            assert metric(data, replace_undefined_by=0.0) == 0.0
    with pytest.warns(ie.UndefinedMetricWarning, match="0/0"):
        assert np.isnan(ie.cohen_kappa(data))
    # raw agreement stays defined: perfect
    assert ie.spa(data) == 1.0 and ie.percent_agreement(data) == 1.0
    # matrices hold the replacement without warning
    m = ie.cohen_kappa_matrix(data, replace_undefined_by=-9.0)
    assert m.values[0, 1] == -9.0 and m.values[0, 0] == 1.0


def test_pairs_without_shared_items_are_undefined():
    data = ie.Annotations.from_long(long([(0, "a", 1), (0, "b", 1), (1, "c", 1), (1, "b", 2)]))
    m = ie.cohen_kappa_matrix(data)
    assert m.n_shared[0, 2] == 0 and np.isnan(m.values[0, 2])
    with pytest.warns(ie.UndefinedMetricWarning, match="share no item"):
        assert np.isnan(ie.cohen_kappa(data, "a", "c"))
    assert m.to_dict()["matrix"][0][2] is None


def test_report_records_undefined_reasons():
    rep = ie.report(ie.Annotations.from_wide([["a", "a"], ["a", "a"]], annotators_as="rows"))
    d = rep.to_dict()
    assert d["fleiss_kappa"] is None and d["krippendorff_alpha"] is None
    assert any("Fleiss' kappa is undefined" in n for n in d["notes"])
    assert "undefined" in str(rep)
