"""ie.compare: the difference of one coefficient between two data sets (issue 27, item 1).

References:
- The README of Gwet's pairedCAC 1.0 (https://github.com/kgwet/pairedCAC, commit ca6431c, README.md) prints the
  test of ``ttest.fleiss`` (twice: ratings2 and its first three raters), ``ttest.ac2``, ``ttest.conger``,
  ``ttest.alpha``, ``ttest.bp`` and ``ttest.pa`` on its ``ratings1``/``ratings2`` (tests/data/pairedcac/). Each
  printed value is reproduced to its printed digits.
- The weighted cases are not printed there: their values come from pairedCAC 1.0's own R sources (the files of
  ``R/`` at commit ca6431c, ``source``d in R 4.2.2 — the package itself is not installed) run on the same data,
  printed with ``options(digits=15)``; checked to 1e-12.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.inference._analytic import linear_terms

DATA = Path(__file__).parent / "data" / "pairedcac"


def _ratings(name: str, columns: int = 4) -> ie.Annotations:
    table = pd.read_csv(DATA / f"{name}.csv").iloc[:, :columns]
    return ie.Annotations.from_wide(table, annotators_as="columns")


@pytest.fixture(scope="module")
def r1():
    return _ratings("ratings1")


@pytest.fixture(scope="module")
def r2():
    return _ratings("ratings2")


# pairedCAC README (commit ca6431c): coeff1, coeff2, coeff.diff, std.err, t.stat, p.value as printed (n.obs 15).
README = {
    "fleiss_kappa": (0.3856655, 0.7248495, 0.339184, 0.1574322, 2.154477, 0.04910569),
    "gwet_ac1": (0.4069193, 0.737382, 0.3304628, 0.1452689, 2.274835, 0.03917311),
    "multi_kappa": (0.3932584, 0.7250859, 0.3318275, 0.1527202, 2.172781, 0.04745695),
    "krippendorff_alpha": (0.3959044, 0.7294354, 0.3335309, 0.1548083, 2.154477, 0.04910569),
    "brennan_prediger": (0.4, 0.7333333, 0.3333333, 0.1477342, 2.256304, 0.04056859),
    "percent_agreement_weighted": (0.6, 0.8222222, 0.2222222, 0.09848947, 2.256304, 0.04056859),
}


def _digits(printed: float) -> int:
    """Decimal places R printed (7 significant digits)."""
    text = repr(printed)
    return len(text.split(".")[1]) if "." in text else 0


def _check_printed(c: ie.Comparison, printed: tuple[float, ...]) -> None:
    ours = (c.estimate_a, c.estimate_b, c.estimate, c.se, c.statistic, c.p_value)
    for value, shown in zip(ours, printed):
        assert round(value, _digits(shown)) == pytest.approx(shown, abs=1e-12), (ours, printed)


@pytest.mark.parametrize("metric", sorted(README))
def test_pairedcac_readme_table(metric, r1, r2):
    c = ie.compare(r1, r2, metric=metric)
    _check_printed(c, README[metric])
    assert c.paired and c.n_items == 15 and c.df == 14


def test_pairedcac_readme_fleiss_on_three_raters(r1):
    # README: ttest.fleiss(ratings1, ratings2[,1:3]) -> 0.3856655 0.7942073 0.4085418 0.1612858 2.53303 0.02389035
    c = ie.compare(r1, _ratings("ratings2", 3), metric="fleiss_kappa")
    _check_printed(c, (0.3856655, 0.7942073, 0.4085418, 0.1612858, 2.53303, 0.02389035))


# pairedCAC 1.0's R sources run in R 4.2.2 (not printed in its README): (coeff1, coeff2, std.err, p.value).
R_WEIGHTED = {
    ("fleiss_kappa", "quadratic"): (0.553719008264463, 0.822632139056403, 0.170954453056321, 0.138037563559469),
    ("multi_kappa", "quadratic"): (0.557860262008734, 0.822695035460993, 0.166263516126542, 0.133511742742872),
    ("gwet_ac1", "quadratic"): (0.570063694267516, 0.803767660910518, 0.174997615948958, 0.203030363713921),
    ("brennan_prediger", "quadratic"): (0.55, 0.791666666666667, 0.179062815971078, 0.198558536804669),
    ("percent_agreement_weighted", "quadratic"): (0.85, 0.930555555555556, 0.0596876053236926, 0.198558536804669),
    ("fleiss_kappa", "linear"): (0.47103274559194, 0.778425655976676, 0.159093781689705, 0.0738344831431701),
    ("multi_kappa", "linear"): (0.476744186046512, 0.778554778554779, 0.154241223341066, 0.0706254593141482),
    ("gwet_ac1", "linear"): (0.489878542510121, 0.771313941825476, 0.156176298882516, 0.0931058650116796),
    ("brennan_prediger", "linear"): (0.475, 0.7625, 0.159379376690605, 0.0928053534927304),
    ("percent_agreement_weighted", "linear"): (0.766666666666667, 0.894444444444444, 0.0708352785291577,
                                               0.0928053534927304),
}  # fmt: skip


@pytest.mark.parametrize("metric, weights", sorted(R_WEIGHTED))
def test_pairedcac_weighted_from_its_r_sources(metric, weights, r1, r2):
    c = ie.compare(r1, r2, metric=metric, weights=weights)
    a, b, se, p = R_WEIGHTED[metric, weights]
    assert (c.estimate_a, c.estimate_b, c.se, c.p_value) == pytest.approx((a, b, se, p), abs=1e-12)


def test_interval_alpha_is_pairedcacs_quadratic_alpha(r1, r2):
    # ttest.alpha(ratings1, ratings2, weights="quadratic") in pairedCAC's R sources: 0.561157024793388,
    # 0.82558827007213, std.err 0.168105212172049 (Krippendorff's interval metric is quadratic weights)
    c = ie.compare(r1, r2, metric="krippendorff_alpha", level="interval")
    assert (c.estimate_a, c.estimate_b, c.se) == pytest.approx((0.561157024793388, 0.82558827007213,
                                                                0.168105212172049), abs=1e-12)  # fmt: skip
    assert c.metric == "krippendorff_alpha[interval]"


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_terms_average_to_krippendorffs_alpha_with_missing_data(level):
    rng = np.random.default_rng(7)
    m = rng.integers(1, 6, size=(40, 5)).astype(float)
    m[rng.random(m.shape) < 0.35] = np.nan
    data = ie.Annotations.from_wide(pd.DataFrame(m), annotators_as="columns", level=level)
    t = linear_terms(data, "krippendorff_alpha")
    assert t.estimate == pytest.approx(ie.krippendorff_alpha(data), abs=1e-12)
    assert t.terms.mean() == pytest.approx(t.estimate, abs=1e-12)


def test_the_terms_give_estimates_standard_error(r1):
    for metric in ("fleiss_kappa", "multi_kappa", "gwet_ac1", "brennan_prediger", "percent_agreement_weighted"):
        t = linear_terms(r1, metric, weights="quadratic")
        e = ie.estimate(r1, metric, weights="quadratic")
        assert (t.estimate, t.se) == pytest.approx((e.estimate, e.se), abs=1e-14)
        assert t.terms.mean() == pytest.approx(e.estimate, abs=1e-14)


def test_independent_z_test_adds_the_two_variances(r1, r2):
    c = ie.compare(r1, r2, paired=False)
    ea, eb = ie.estimate(r1, "fleiss_kappa"), ie.estimate(r2, "fleiss_kappa")
    assert not c.paired and math.isnan(c.df) and c.n_items == 30
    assert c.se == pytest.approx(math.hypot(ea.se, eb.se), abs=1e-14)
    z = (eb.estimate - ea.estimate) / c.se
    assert c.statistic == pytest.approx(z)
    assert c.p_value == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), abs=1e-14)
    assert c.lower == pytest.approx(c.estimate - 1.959963984540054 * c.se, abs=1e-12)


def test_disjoint_items_are_compared_independently(r1, r2):
    b = r2.to_long().assign(item=lambda t: "other-" + t["item"].astype(str))
    c = ie.compare(r1, ie.Annotations.from_long(b))
    assert not c.paired
    with pytest.raises(ValueError, match="share 0 item"):
        ie.compare(r1, ie.Annotations.from_long(b), paired=True)


def test_paired_runs_on_the_shared_items_only(r1, r2):
    long_b = r2.to_long()
    long_b = long_b[long_b["item"].astype(int) < 10]  # b rated the first 10 items only
    c = ie.compare(r1, ie.Annotations.from_long(long_b))
    full_a = r1.to_long()
    a10 = ie.Annotations.from_long(full_a[full_a["item"].astype(int) < 10])
    assert c.paired and c.n_items == 10 and c.details["items_only_a"] == 5 and c.details["items_only_b"] == 0
    assert c.estimate_a == pytest.approx(ie.fleiss_kappa(a10), abs=1e-14)


def test_paired_cohen_kappa_against_a_brute_force_difference():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, size=(25, 2))
    y = np.where(rng.random((25, 2)) < 0.7, x, rng.integers(0, 3, size=(25, 2)))
    a = ie.Annotations.from_wide(pd.DataFrame(x, columns=["p", "q"]), annotators_as="columns")
    b = ie.Annotations.from_wide(pd.DataFrame(y, columns=["p", "q"]), annotators_as="columns")
    c = ie.compare(a, b, metric="cohen_kappa")
    ta, tb = linear_terms(a, "cohen_kappa"), linear_terms(b, "cohen_kappa")
    d = tb.terms - ta.terms
    assert c.estimate == pytest.approx(ie.cohen_kappa(b) - ie.cohen_kappa(a), abs=1e-14)
    assert c.se == pytest.approx(np.std(d, ddof=1) / np.sqrt(25), abs=1e-14)
    assert c.se_a == pytest.approx(ie.estimate(a, "cohen_kappa").se, abs=1e-14)


def test_bootstrap_agrees_with_the_linearisation_on_a_larger_sample():
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, 300)
    noisy = lambda p: np.where(rng.random((300, 3)) < p, truth[:, None], rng.integers(0, 3, (300, 3)))  # noqa: E731
    a = ie.Annotations.from_wide(pd.DataFrame(noisy(0.5)), annotators_as="columns")
    b = ie.Annotations.from_wide(pd.DataFrame(noisy(0.7)), annotators_as="columns")
    analytic = ie.compare(a, b)
    boot = ie.compare(a, b, method="bootstrap", n_boot=400, seed=5)
    assert boot.estimate == analytic.estimate and boot.details["n_boot"] == 400
    # 400 replicates: the bootstrap SE's own relative error is about 1/sqrt(2 * 400) = 3.5 %; 15 % is > 4 of them
    assert boot.se == pytest.approx(analytic.se, rel=0.15)
    assert boot.lower < analytic.estimate < boot.upper
    again = ie.compare(a, b, method="bootstrap", n_boot=400, seed=5)
    assert again.se == boot.se


def test_paired_bootstrap_of_a_data_set_with_itself_is_zero(r1):
    c = ie.compare(r1, r1, method="bootstrap", n_boot=50, seed=0)
    assert c.estimate == 0 and c.se == 0 and c.p_value == 1


def test_result_shape(r1, r2):
    c = ie.compare(r1, r2)
    assert isinstance(c, ie.Result) and c["p_value"] == c.p_value
    frame = c.to_frame()
    assert {"estimate", "estimate_a", "estimate_b", "se", "statistic", "df", "p_value", "n_items"} <= set(frame.name)
    out = json.loads(c.to_json())
    assert out["paired"] is True and out["df"] == 14 and out["method"].startswith("Gwet (2016)")
    assert "t(14) = 2.154" in repr(c)
    z = json.loads(ie.compare(r1, r2, paired=False).to_json())
    assert z["df"] is None


def test_bad_input_is_a_clear_error(r1, r2):
    with pytest.raises(ie.InvalidParameterError, match="^metric must be one of"):
        ie.compare(r1, r2, metric="icc")
    with pytest.raises(ie.InvalidParameterError, match="^paired must be True, False or 'auto'"):
        ie.compare(r1, r2, paired="yes")
    with pytest.raises(ie.InvalidParameterError, match="^weights must be 'identity' for krippendorff_alpha"):
        ie.compare(r1, r2, metric="krippendorff_alpha", weights="linear")
    with pytest.raises(ValueError, match="cohen_kappa"):
        ie.compare(r1, r2, metric="cohen_kappa")  # four annotators: which pair?


def test_an_undefined_coefficient_warns_and_gives_nan(r1):
    constant = ie.Annotations.from_wide(pd.DataFrame(np.ones((15, 4), dtype=int)), annotators_as="columns")
    with pytest.warns(ie.UndefinedMetricWarning):
        c = ie.compare(r1, constant)
    assert math.isnan(c.estimate) and math.isnan(c.p_value)


# --- properties ------------------------------------------------------------------------------------------------

METRICS = ["fleiss_kappa", "multi_kappa", "gwet_ac1", "brennan_prediger", "percent_agreement_weighted",
           "krippendorff_alpha"]  # fmt: skip

matrices = st.integers(4, 20).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, 3), min_size=3, max_size=3), min_size=n, max_size=n)
)


def _wide(rows) -> ie.Annotations:
    return ie.Annotations.from_wide(pd.DataFrame(rows, columns=["r1", "r2", "r3"]), annotators_as="columns")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=matrices, metric=st.sampled_from(METRICS))
def test_a_data_set_against_itself_differs_by_zero_with_p_one(rows, metric):
    d = _wide(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        c = ie.compare(d, d, metric=metric)
    if math.isnan(c.estimate_a):
        return  # undefined on this data (one category): nothing to compare
    assert c.estimate == 0 and c.se == 0 and c.p_value == 1 and c.statistic == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=matrices, other=matrices, metric=st.sampled_from(METRICS), paired=st.booleans())
def test_swapping_the_data_sets_flips_the_sign_only(rows, other, metric, paired):
    n = min(len(rows), len(other))
    a, b = _wide(rows[:n]), _wide(other[:n])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        ab = ie.compare(a, b, metric=metric, paired=paired)
        ba = ie.compare(b, a, metric=metric, paired=paired)
    if math.isnan(ab.estimate):
        assert math.isnan(ba.estimate)
        return
    assert ba.estimate == pytest.approx(-ab.estimate, abs=1e-12)
    assert (ba.estimate_a, ba.estimate_b) == (ab.estimate_b, ab.estimate_a)
    assert ba.se == pytest.approx(ab.se, abs=1e-12)
    assert ba.p_value == pytest.approx(ab.p_value, abs=1e-12)
    if np.isfinite(ab.statistic):
        assert ba.statistic == pytest.approx(-ab.statistic, abs=1e-9)
        assert (ba.lower, ba.upper) == pytest.approx((-ab.upper, -ab.lower), abs=1e-12)


# --- iaa compare -----------------------------------------------------------------------------------------------


def _files(tmp_path):
    paths = []
    for name in ("ratings1", "ratings2"):
        table = pd.read_csv(DATA / f"{name}.csv")
        table.insert(0, "subject", [f"s{i}" for i in range(1, 16)])
        path = tmp_path / f"{name}.csv"
        table.to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _run(argv, capsys):
    from iaa_engine.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_compare_prints_the_readme_values(tmp_path, capsys):
    a, b = _files(tmp_path)
    code, out, _ = _run(["compare", a, b], capsys)
    assert code == 0
    assert "fleiss_kappa: paired on 15 shared items" in out
    assert "0.3857" in out and "0.7248" in out and "0.3392" in out and "0.1574" in out
    assert "t(14) = 2.154, p = 0.04911" in out


@pytest.mark.parametrize("alias, metric", [("conger", "multi_kappa"), ("ac2", "gwet_ac1"), ("alpha",
                                           "krippendorff_alpha"), ("bp", "brennan_prediger"),
                                           ("pa", "percent_agreement_weighted")])  # fmt: skip
def test_cli_compare_json_matches_the_library(alias, metric, tmp_path, capsys):
    a, b = _files(tmp_path)
    code, out, _ = _run(["compare", a, b, "--metric", alias, "--format", "json"], capsys)
    assert code == 0
    got = json.loads(out)
    _check_printed(ie.Comparison(**{k: got[k] for k in ie.Comparison.__dataclass_fields__}), README[metric])
    assert got["a"] == "ratings1.csv" and got["b"] == "ratings2.csv"


def test_cli_compare_weights_paired_no_and_bootstrap(tmp_path, capsys):
    a, b = _files(tmp_path)
    code, out, _ = _run(["compare", a, b, "--weights", "quadratic", "--level", "interval", "--format", "json"], capsys)
    assert json.loads(out)["se"] == pytest.approx(R_WEIGHTED["fleiss_kappa", "quadratic"][2], abs=1e-12)
    code, out, _ = _run(["compare", a, b, "--paired", "no"], capsys)
    assert code == 0 and "independent data sets (15 and 15 items)" in out and "z = " in out
    code, out, _ = _run(["compare", a, b, "--method", "bootstrap", "--n-boot", "50", "--seed", "3", "--format",
                         "json"], capsys)  # fmt: skip
    assert json.loads(out)["details"]["n_boot"] == 50


def test_cli_compare_errors_are_one_line(tmp_path, capsys):
    a, b = _files(tmp_path)
    code, out, err = _run(["compare", a, str(tmp_path / "missing.csv")], capsys)
    assert code == 2 and err.splitlines()[-1].startswith("iaa: error: no such file")
    code, _, err = _run(["compare", a, b, "--metric", "cohen_kappa"], capsys)
    assert code == 2 and err.splitlines()[-1].startswith("iaa: error: --metric cohen_kappa compares two annotators")
    code, _, err = _run(["compare", a, b, "--confidence", "95"], capsys)
    assert code == 2 and err == "iaa: error: --confidence must be between 0 and 1 (exclusive); got 95.0\n"


def test_cli_metric_names_are_the_librarys():
    from iaa_engine.cli.compare import METRICS

    assert set(METRICS.values()) == set(ie.ANALYTIC_METRICS)


def test_count_tables_are_compared_item_by_item():
    a = ie.Annotations.from_counts([[3, 1], [2, 2], [4, 0], [0, 4], [1, 3]])
    b = ie.Annotations.from_counts([[4, 0], [2, 2], [4, 0], [0, 4], [0, 4]])
    c = ie.compare(a, b)
    assert c.paired and c.n_items == 5
    assert (c.estimate_a, c.se_a) == pytest.approx((ie.fleiss_kappa(a), ie.estimate(a, "fleiss_kappa").se), abs=1e-14)
    with pytest.raises(ValueError, match="count table"):
        ie.compare(a, b, metric="multi_kappa")
    with pytest.raises(ValueError, match="fractional"):
        ie.compare(ie.Annotations.from_counts([[1.5, 0.5], [1, 1]]), b)


def test_cli_an_undefined_coefficient_prints_undefined_not_nan(tmp_path, capsys):
    """The undefined-value policy on the terminal: Fleiss' kappa of a file with one label is 0/0, and the table
    printed "nan" eight times ("B - A nan nan 95% CI [nan, nan]", "t(1) = nan, p = nan")."""
    one, other = tmp_path / "one.csv", tmp_path / "other.csv"
    pd.DataFrame({"item": ["001", "001", "002", "002", "003"], "annotator": ["a", "b", "a", "b", "a"],
                  "label": "x"}).to_csv(one, index=False)  # fmt: skip
    pd.DataFrame({"item": ["001", "001", "002", "002", "003", "003"], "annotator": ["a", "b"] * 3,
                  "label": ["x", "x", "y", "y", "x", "y"]}).to_csv(other, index=False)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        code, out, _ = _run(["compare", str(other), str(one)], capsys)
    assert code == 0 and "nan" not in out
    lines = out.splitlines()
    assert lines[3].split() == ["B", "one.csv", "undefined", "undefined"]
    assert lines[4].split()[:4] == ["B", "-", "A", "undefined"]
    assert lines[4].endswith("undefined (fleiss_kappa is undefined on B): no test")
