"""The intraclass correlation: Shrout & Fleiss's six forms on their published example, the psych package's
printed intervals and F tests on the same data, mean squares against statsmodels' ANOVA, missing ratings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

#: Shrout & Fleiss (1979), Table 2: six targets × four judges.
SF = pd.DataFrame(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    columns=["j1", "j2", "j3", "j4"],
)

#: Shrout & Fleiss (1979), Table 4 (two decimals); F, df and the 95% interval as R's psych::ICC prints them for the
#: same data (psych's help page example ``ICC(sf)``, three decimals for the bounds).
PUBLISHED = {
    "ICC(1,1)": (0.17, 1.79, 5, 18, -0.133, 0.72),
    "ICC(2,1)": (0.29, 11.03, 5, 15, 0.019, 0.76),
    "ICC(3,1)": (0.71, 11.03, 5, 15, 0.342, 0.95),
    "ICC(1,k)": (0.44, 1.79, 5, 18, -0.884, 0.91),
    "ICC(2,k)": (0.62, 11.03, 5, 15, 0.071, 0.93),
    "ICC(3,k)": (0.91, 11.03, 5, 15, 0.676, 0.99),
}


def _data(frame: pd.DataFrame) -> ie.Annotations:
    return ie.Annotations.from_wide(frame, annotators_as="columns", level="interval")


@pytest.mark.parametrize("form", ie.ICC_FORMS)
def test_shrout_and_fleiss_published_example(form):
    value, f, df1, df2, lower, upper = PUBLISHED[form]
    e = ie.icc(_data(SF), form)
    assert round(e.estimate, 2) == value
    assert round(e.details["F"], 2) == f and (e.details["df1"], e.details["df2"]) == (df1, df2)
    assert round(e.lower, 3) == lower and round(e.upper, 2) == upper
    assert e.n_items == 6 and e.details["k"] == 4 and e.details["items_dropped"] == 0
    assert np.isnan(e.se) and e.lower < e.estimate < e.upper


def test_p_values_are_the_f_tests():
    from scipy import stats

    one = ie.icc(_data(SF), "ICC(1,1)")
    two = ie.icc(_data(SF), "ICC(2,1)")
    assert one.p_value == pytest.approx(stats.f.sf(one.details["F"], 5, 18)) and round(one.p_value, 3) == 0.165
    assert two.p_value == pytest.approx(stats.f.sf(two.details["F"], 5, 15)) and round(two.p_value, 5) == 0.00013


def test_mean_squares_equal_statsmodels_two_way_anova():
    sm = pytest.importorskip("statsmodels.formula.api")
    anova = pytest.importorskip("statsmodels.stats.anova")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(30, 1)) * 2 + rng.normal(size=(1, 5)) + rng.normal(size=(30, 5))
    frame = pd.DataFrame(x, columns=[f"r{j}" for j in range(5)])
    long = frame.rename_axis("item").reset_index().melt(id_vars="item", var_name="rater", value_name="y")
    table = anova.anova_lm(sm.ols("y ~ C(item) + C(rater)", data=long).fit())
    ms = table["sum_sq"] / table["df"]
    e = ie.icc(_data(frame), "ICC(3,1)")
    assert e.details["msr"] == pytest.approx(ms["C(item)"], rel=1e-12)
    assert e.details["msc"] == pytest.approx(ms["C(rater)"], rel=1e-12)
    assert e.details["mse"] == pytest.approx(ms["Residual"], rel=1e-12)
    oneway = anova.anova_lm(sm.ols("y ~ C(item)", data=long).fit())
    assert ie.icc(_data(frame), "ICC(1,1)").details["msw"] == pytest.approx(
        oneway.loc["Residual", "sum_sq"] / oneway.loc["Residual", "df"], rel=1e-12
    )


def test_other_names_of_the_forms():
    data = _data(SF)
    pairs = {"ICC1": "ICC(1,1)", "ICC(A,1)": "ICC(2,1)", "ICC(C,k)": "ICC(3,k)", "ICC2k": "ICC(2,k)"}
    for alias, form in pairs.items():
        assert ie.icc(data, alias).estimate == ie.icc(data, form).estimate
    with pytest.raises(ie.InvalidParameterError, match=r"^form must be one of 'ICC\(1,1\)'"):
        ie.icc(data, "ICC(4,1)")


def test_missing_ratings_use_complete_cases_or_the_common_count():
    frame = SF.astype(float).copy()
    extra = pd.DataFrame([[5.0, np.nan, 3.0, 4.0], [np.nan, np.nan, 2.0, 8.0]], columns=SF.columns)
    data = _data(pd.concat([frame, extra], ignore_index=True))
    two = ie.icc(data, "ICC(2,1)")
    assert two.estimate == pytest.approx(ie.icc(_data(SF), "ICC(2,1)").estimate, abs=1e-14)
    assert two.details["items_dropped"] == 2 and two.n_items == 6
    one = ie.icc(data, "ICC(1,1)")  # the six items with four ratings (the common count)
    assert one.estimate == pytest.approx(ie.icc(_data(SF), "ICC(1,1)").estimate, abs=1e-14)
    assert one.details["items_dropped"] == 2


def test_one_way_forms_ignore_who_rated():
    """Each item rated by its own raters (no rater rates twice): ICC(1,·) needs no crossing of raters and items."""
    rng = np.random.default_rng(4)
    rows = []
    for i in range(40):
        truth = rng.normal()
        for r in range(3):
            rows.append((f"i{i}", f"rater{3 * i + r}", truth + rng.normal(scale=0.5)))
    long = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    data = ie.Annotations.from_long(long, level="interval")
    wide = pd.DataFrame(long["label"].to_numpy().reshape(40, 3), columns=["a", "b", "c"])
    assert ie.icc(data, "ICC(1,k)").estimate == pytest.approx(ie.icc(_data(wide), "ICC(1,k)").estimate, abs=1e-12)
    with pytest.warns(ie.UndefinedMetricWarning, match="two items with two ratings"):
        assert np.isnan(ie.icc(data, "ICC(2,1)").estimate)  # no item is rated by all 120 raters


def test_constant_ratings_are_undefined():
    flat = pd.DataFrame([[3, 3], [3, 3], [3, 3]], columns=["a", "b"])
    with pytest.warns(ie.UndefinedMetricWarning, match="no variance"):
        assert ie.icc(_data(flat), "ICC(3,1)", replace_undefined_by=0.0).estimate == 0.0


def test_text_labels_are_refused_clearly():
    data = ie.Annotations.from_wide(pd.DataFrame({"a": ["x", "y"], "b": ["x", "x"]}), annotators_as="columns")
    with pytest.raises(ValueError, match="numeric"):
        ie.icc(data)
