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
    assert np.isfinite(e.se) and e.se > 0 and e.lower < e.estimate < e.upper


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


# --- issue 25: the items the ICC rests on are stated where the number is, and it has a standard error


def _shrout_fleiss_formula(form, msr, msc, mse, msw, n, k):
    """The six forms as Shrout & Fleiss (1979) print them (Table 1, eqs. for ICC(1,1) ... ICC(3,k))."""
    return {
        "ICC(1,1)": (msr - msw) / (msr + (k - 1) * msw),
        "ICC(2,1)": (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
        "ICC(3,1)": (msr - mse) / (msr + (k - 1) * mse),
        "ICC(1,k)": (msr - msw) / msr,
        "ICC(2,k)": (msr - mse) / (msr + (msc - mse) / n),
        "ICC(3,k)": (msr - mse) / msr,
    }[form]


@pytest.mark.parametrize("form", ie.ICC_FORMS)
def test_standard_error_is_the_delta_method_by_finite_differences(form):
    """SE^2 = sum_j (d ICC / d MS_j)^2 * 2 MS_j^2 / df_j over the mean squares the form reads, the derivatives taken
    here by central differences of Shrout & Fleiss's printed formula (brute force against the closed gradient)."""
    e = ie.icc(_data(SF), form)
    d = e.details
    n, k = e.n_items, d["k"]
    df = {"msr": n - 1, "msc": k - 1, "mse": (n - 1) * (k - 1), "msw": n * (k - 1)}
    reads = ["msr", "msw"] if form.startswith("ICC(1") else ["msr", "msc", "mse"]
    var = 0.0
    for name in reads:
        h = 1e-6 * d[name]
        up = {**{m: d[m] for m in df}, name: d[name] + h}
        down = {**{m: d[m] for m in df}, name: d[name] - h}
        grad = (_shrout_fleiss_formula(form, **up, n=n, k=k) - _shrout_fleiss_formula(form, **down, n=n, k=k)) / (2 * h)
        var += grad**2 * 2 * d[name] ** 2 / df[name]
    assert e.estimate == pytest.approx(_shrout_fleiss_formula(form, *(d[m] for m in df), n=n, k=k), abs=1e-14)
    assert e.se == pytest.approx(np.sqrt(var), rel=1e-7)


def test_one_way_standard_error_is_fishers_up_to_a_small_sample_factor():
    """For ICC(1,1) the delta method gives 2 (1 - r)^2 (1 + (k - 1) r)^2 (nk - 1) / (k^2 n (n - 1)(k - 1)), which is
    Fisher's (1925, §40) large-sample variance 2 (1 - r)^2 (1 + (k - 1) r)^2 / (k (k - 1)(n - 1)) times
    (nk - 1) / (nk)."""
    e = ie.icc(_data(SF), "ICC(1,1)")
    r, n, k = e.estimate, 6, 4
    fisher = 2 * (1 - r) ** 2 * (1 + (k - 1) * r) ** 2 / (k * (k - 1) * (n - 1))
    assert e.se**2 == pytest.approx(fisher * (n * k - 1) / (n * k), rel=1e-12)


def test_standard_error_matches_the_spread_of_simulated_estimates():
    """Normal two-way model, 60 items x 4 raters, rater effects, true ICC(2,1) = 4 / (4 + 0.25 + 1) = 0.762: over
    400 simulated data sets the mean SE is within 15 % of the estimates' standard deviation (1.08 times it with this
    seed: the delta method reads MS_C on k - 1 = 3 degrees of freedom)."""
    rng = np.random.default_rng(25)
    n, k, estimates, ses = 60, 4, [], []
    for _ in range(400):
        x = rng.normal(0, 2, (n, 1)) + rng.normal(0, 0.5, (1, k)) + rng.normal(0, 1, (n, k))
        e = ie.icc(_data(pd.DataFrame(x, columns=list("abcd"))), "ICC(2,1)")
        estimates.append(e.estimate)
        ses.append(e.se)
    assert np.mean(ses) == pytest.approx(np.std(estimates, ddof=1), rel=0.15)


def test_the_items_left_out_are_stated_with_the_number():
    """40 rated items, 10 of them missing one rating: both forms rest on 30. The result's details say so in
    numbers and in a sentence; the report's notes and JSON carry the sentence (it was silent: n = 30 beside the
    other rows' 40)."""
    rng = np.random.default_rng(1)
    rows = [
        (f"s{i:02d}", f"r{a}", float(rng.normal()))
        for i in range(40)
        for a in range(4)
        if not (i % 4 == 0 and a == (i // 4) % 4)
    ]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]), level="interval")
    two = ie.icc(data, "ICC(2,1)")
    assert two.n_items == 30 and (two.details["items_used"], two.details["items_rated"]) == (30, 40)
    assert two.details["items_dropped"] == 10
    assert two.details["note"] == (
        "ICC(2,1) rests on 30 of the 40 rated items: those rated by all 4 annotators (complete cases); the two-way "
        "forms need every annotator on every item; 10 left out"
    )
    one = ie.icc(data, "ICC(1,1)")
    assert one.details["note"].startswith("ICC(1,1) rests on 30 of the 40 rated items: those with the most common")
    assert ie.icc(_data(SF)).details["note"] == ""  # nothing left out, nothing to say
    rep = ie.report(data)
    # the report names every form a sentence is about once (issue 32: all six forms are in the report)
    shared = "ICC(2,1), ICC(3,1), ICC(2,k), ICC(3,k) rest on 30 of the 40 rated items: those rated by all 4"
    assert any(n.startswith(shared) for n in rep.notes) and shared in str(rep)
    assert one.details["note"].replace("ICC(1,1) rests", "ICC(1,1), ICC(1,k) rest") in rep.notes
    out = rep.to_dict()
    assert out["estimates"]["ICC(2,1)"]["details"]["note"] == two.details["note"]
    assert out["estimates"]["ICC(2,1)"]["n_items"] == 30 and out["estimates"]["ICC(2,1)"]["se"] == two.se


# --- issue 32, item 1: perfect agreement is a normal case, not a ZeroDivisionError


#: Identical ratings (two copies of a file), and ratings one rater shifts by a constant (no residual, a rater effect).
IDENTICAL = pd.DataFrame([[1.0, 1.0, 1.0], [2.5, 2.5, 2.5], [3.0, 3.0, 3.0], [7.1, 7.1, 7.1]], columns=list("abc"))
SHIFTED = pd.DataFrame([[1.0, 2.0], [2.0, 3.0], [3.0, 4.0], [5.0, 6.0]], columns=list("ab"))


@pytest.mark.parametrize("form", ie.ICC_FORMS)
def test_identical_ratings_estimate_one_with_undefined_limits(form):
    """Every form: the estimate is 1, p = 0 (F = MS_R / 0), and the interval and standard error are nan with the
    reason (a warning and ``details['interval_note']``). ICC(2,·) raised ZeroDivisionError in its interval,
    ICC(1,1) and ICC(3,1) gave nan limits with a bare RuntimeWarning, the k forms [1, 1] and SE 0. (pingouin 0.7.0's
    ``intraclass_corr``, run in /tmp on this table, prints ICC 1 with CI95 [1.0, 1.0] from F ~ 1e16: its residual
    mean square is rounding noise, ~1e-32, where the exact one is 0 and F is infinite.)"""
    with pytest.warns(ie.UndefinedMetricWarning, match=r"interval are undefined: the ratings agree exactly"):
        e = ie.icc(_data(IDENTICAL), form)
    assert e.estimate == 1.0 and e.p_value == 0.0 and e.details["F"] == np.inf
    assert np.isnan(e.lower) and np.isnan(e.upper) and np.isnan(e.se)
    assert "agree exactly" in e.details["interval_note"]
    assert e.to_dict()["lower"] is None and e.to_dict()["upper"] is None


def test_a_constant_shift_is_exact_consistency_but_not_absolute_agreement():
    """Rater b = rater a + 1: no residual. Consistency (form 3) is exactly 1 with undefined limits; absolute
    agreement (form 2) is below 1 and keeps its Satterthwaite interval (finite: MS_C > 0)."""
    with pytest.warns(ie.UndefinedMetricWarning, match="MS_E = 0"):
        three = ie.icc(_data(SHIFTED), "ICC(3,1)")
    assert three.estimate == 1.0 and np.isnan(three.lower)
    two = ie.icc(_data(SHIFTED), "ICC(2,1)")
    msr, msc = two.details["msr"], two.details["msc"]
    assert two.estimate == pytest.approx(msr / (msr + 2 * msc / 4), abs=1e-14)  # S&F's ICC(2,1) with MS_E = 0
    assert 0 < two.lower < two.estimate < two.upper <= 1


def test_a_rater_who_repeats_themself_exactly_through_retest_and_both_commands(tmp_path, capsys):
    """ie.retest reached the same line through an annotator who repeats themself exactly (ZeroDivisionError);
    ``iaa report`` and ``iaa retest`` on such files now print the estimate 1 and the undefined limits with why."""
    import json

    from iaa_engine.cli import main

    rows = [(i, a, occ, float(3 * i + (a == "y"))) for i in range(5) for a in ("x", "y") for occ in (1, 2)]
    table = pd.DataFrame(rows, columns=["item", "annotator", "pass", "label"])
    r = ie.retest(table, occasion="pass")
    row = r.intra.set_index("annotator").loc["x"]
    assert row["icc"] == 1.0 and np.isnan(row["icc_lower"]) and np.isnan(row["icc_upper"])
    assert any("agree exactly" in n for n in r.notes)
    path = tmp_path / "repeats.csv"
    table.to_csv(path, index=False)
    assert main(["retest", str(path), "--occasion-col", "pass", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["intra"][0]
    assert got["icc"] == 1.0 and got["icc_lower"] is None and got["icc_upper"] is None
    assert main(["retest", str(path), "--occasion-col", "pass"]) == 0
    out = capsys.readouterr().out
    assert "undefined (" in out and "agree exactly" in out and "nan" not in out.lower()
    copies = tmp_path / "copies.csv"
    table[table["pass"] == 1].assign(label=lambda t: 3.0 * t["item"]).to_csv(copies, index=False)  # two copies
    assert main(["report", str(copies), "--level", "interval"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("ICC(1,1)"))
    assert line.split()[1] == "1.0000" and "undefined" in line and "agree exactly (MS_W = 0)" in out


# --- issue 32, item 5: the report shows all six forms, each with its interval

#: pingouin 0.7.0 ``intraclass_corr`` on Shrout & Fleiss's Table 2 (run in a scratch venv under /tmp): ICC to six
#: decimals and CI95 as it prints them (rounded to two decimals).
PINGOUIN = {
    "ICC(1,1)": (0.165742, -0.13, 0.72),
    "ICC(2,1)": (0.289764, 0.02, 0.76),
    "ICC(3,1)": (0.714841, 0.34, 0.95),
    "ICC(1,k)": (0.442797, -0.88, 0.91),
    "ICC(2,k)": (0.620051, 0.07, 0.93),
    "ICC(3,k)": (0.909316, 0.68, 0.99),
}


def test_the_report_shows_all_six_forms_with_their_intervals(tmp_path, capsys):
    """The report on interval data showed ICC(1,1) and ICC(2,1) only; clinicians report ICC(3,1) and the average-
    measures forms most. All six are in Report.estimates, the terminal table and the JSON, each equal to ie.icc and
    to pingouin (and to psych's intervals, PUBLISHED above)."""
    import json

    from iaa_engine.cli import main

    long = SF.rename_axis("item").reset_index().melt(id_vars="item", var_name="annotator", value_name="label")
    rep = ie.report(ie.Annotations.from_long(long, level="interval"), progress=False)
    assert [k for k in rep.estimates if k.startswith("ICC(")] == list(ie.ICC_FORMS)
    for form, (value, lower, upper) in PINGOUIN.items():
        e = rep.estimates[form]
        ref = ie.icc(_data(SF), form)
        assert (e.estimate, e.lower, e.upper, e.se, e.p_value) == (ref.estimate, ref.lower, ref.upper, ref.se,
                                                                   ref.p_value)  # fmt: skip
        assert round(e.estimate, 6) == value and (round(e.lower, 2), round(e.upper, 2)) == (lower, upper)
        assert round(e.lower, 3) == PUBLISHED[form][4]
    path = tmp_path / "sf.csv"
    long.to_csv(path, index=False)
    assert main(["report", str(path), "--level", "interval"]) == 0
    out = capsys.readouterr().out
    for form in ie.ICC_FORMS:
        e = rep.estimates[form]
        line = next(ln for ln in out.splitlines() if ln.strip().startswith(form))
        assert line.split()[1:5] == [f"{e.estimate:.4f}", f"{e.se:.4f}", f"{e.lower:.4f}", f"{e.upper:.4f}"]
    assert "ICC (Shrout & Fleiss): 1 one-way random, 2 two-way random (absolute agreement), 3 two-way mixed" in out
    assert main(["report", str(path), "--level", "interval", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["estimates"]
    assert {f: (got[f]["estimate"], got[f]["lower"], got[f]["upper"]) for f in ie.ICC_FORMS} == {
        f: (rep.estimates[f].estimate, rep.estimates[f].lower, rep.estimates[f].upper) for f in ie.ICC_FORMS
    }


def test_what_several_forms_share_is_said_once():
    """When several forms rest on the same items or agree exactly, the report says it once, naming them."""
    rep = ie.report(ie.Annotations.from_wide(IDENTICAL, annotators_as="columns", level="interval"), progress=False)
    exact = [n for n in rep.notes if "agree exactly" in n]
    assert exact == [
        "ICC(1,1), ICC(1,k): standard error and interval are undefined: the ratings agree exactly (MS_W = 0), so F = "
        "MS_R / MS_W is infinite and the F interval has no finite bound (the estimate is 1)",
        "ICC(2,1), ICC(3,1), ICC(2,k), ICC(3,k): standard error and interval are undefined: the ratings agree exactly "
        "(MS_E = 0), so F = MS_R / MS_E is infinite and the F interval has no finite bound (the estimate is 1)",
    ]
    assert all(rep.estimates[f].estimate == 1.0 for f in ie.ICC_FORMS)


def test_identical_ratings_in_excel_give_one_and_div0_limits():
    """The worksheet path of item 1: =IAA_ESTIMATE(range, "ICC(2,1)") on two identical columns was a
    ZeroDivisionError; now the estimate 1, p 0, and #DIV/0! for the undefined standard error and limits."""
    from iaa_engine import excel

    cells = [[1, 1], [2, 2], [3, 3], [5, 5]]
    for form in ("ICC(2,1)", "ICC(3,k)"):
        table = dict(map(tuple, excel.IAA_ESTIMATE(cells, form, layout="columns")))
        assert table[f"Estimate ({form})"] == 1.0 and table["p-value"] == 0.0
        assert table["Standard error"] == table["Lower 95%"] == table["Upper 95%"] == "#DIV/0!"
        assert excel.INTRACLASS(cells, form, layout="columns") == 1.0


def test_several_forms_from_one_table_equal_each_form_alone():
    """icc_forms (what the report runs) builds the items × ratings table once per design; each form is icc's."""
    from iaa_engine.metrics._icc import icc_forms

    rng = np.random.default_rng(32)
    rows = [(f"i{i}", f"r{a}", float(rng.normal())) for i in range(30) for a in range(4) if (i + a) % 7]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]), level="interval")
    together = icc_forms(data, ie.ICC_FORMS)
    for form in ie.ICC_FORMS:
        alone = ie.icc(data, form)
        assert (together[form].estimate, together[form].lower, together[form].upper, together[form].se) == (
            alone.estimate, alone.lower, alone.upper, alone.se)  # fmt: skip
        assert together[form].details == alone.details
