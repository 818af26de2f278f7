"""Weighted agreement (Gwet's eight weight families, custom arrays) and Gwet's analytic standard errors.

Reference values:
* irrCAC 0.4.4 (Python, ``irrCAC.raw.CAC``; a reimplementation of Gwet's R package irrCAC) run on the same data in
  this process, to 1e-12, with ``categories`` given explicitly (under pandas 3 irrCAC otherwise counts NaN as a
  category: its own docstring values then come out wrong);
* the values printed in irrCAC's documentation (module docstring of ``irrCAC/raw.py``) for Gwet's (2014) 4 raters ×
  12 items with missing ratings (R irrCAC's ``cac.raw4raters``), at the 5 decimals printed;
* scikit-learn's ``cohen_kappa_score(weights=...)`` and statsmodels' ``cohens_kappa(table, wt=...)`` for two raters.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.stats._weights import weight_matrix

irrcac = pytest.importorskip("irrCAC.raw")
irrcac_weights = pytest.importorskip("irrCAC.weights")

NAN = np.nan
#: Gwet (2014) / irrCAC ``cac.raw4raters``: 12 items, 4 raters, categories 1..5, missing ratings.
RAW4 = pd.DataFrame(
    {
        "Rater1": [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        "Rater2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, NAN],
        "Rater3": [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
        "Rater4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    }
)
CATS = [1.0, 2.0, 3.0, 4.0, 5.0]
METHODS = {"fleiss_kappa": "fleiss", "gwet_ac1": "gwet", "brennan_prediger": "bp", "multi_kappa": "conger"}


def _data(frame: pd.DataFrame, categories=None) -> ie.Annotations:
    long = frame.rename_axis("item").reset_index().melt(id_vars="item", var_name="annotator", value_name="label")
    return ie.Annotations.from_long(long, categories=categories)


def _sparse(seed: int, n_items: int = 40, n_raters: int = 5, q: int = 5, missing: float = 0.35) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, q + 1, n_items)
    noise = rng.integers(-1, 2, (n_items, n_raters)) * (rng.random((n_items, n_raters)) < 0.4)
    x = np.clip(truth[:, None] + noise, 1, q).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, 0][np.isnan(x).sum(axis=1) >= n_raters - 1] = truth[np.isnan(x).sum(axis=1) >= n_raters - 1]
    return pd.DataFrame(x, columns=[f"r{j}" for j in range(n_raters)])


@pytest.mark.parametrize("family", ie.AGREEMENT_WEIGHTS)
def test_weight_families_equal_irrcacs(family):
    for cats in ([1, 2, 3, 4, 5], [0.5, 1, 2.5, 7], [2, 3, 10, 11, 12, 30]):
        ours = weight_matrix(family, np.asarray(cats, dtype=float))
        ref = irrcac_weights.Weights(cats)[family]
        np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-15)


@pytest.mark.parametrize("family", ie.AGREEMENT_WEIGHTS)
@pytest.mark.parametrize("frame", ["raw4", "sparse0", "sparse1", "complete"])
def test_weighted_coefficients_and_their_standard_errors_equal_irrcacs(family, frame):
    """On Gwet's example and random data with missing ratings, and on complete data."""
    table = {"raw4": RAW4, "complete": _sparse(8, n_items=30, n_raters=4, missing=0.0)}.get(frame)
    table = _sparse(int(frame[-1])) if table is None else table
    data = _data(table)
    cats = sorted(float(c) for c in data.categories)
    cac = irrcac.CAC(table, weights=family, categories=cats, digits=15)
    for name, method in METHODS.items():
        ref = getattr(cac, method)()["est"]
        value = getattr(ie, name)(data, weights=family)
        e = ie.estimate(data, name, weights=family)
        assert value == pytest.approx(ref["coefficient_value"], abs=1e-12), (name, family)
        assert e.estimate == pytest.approx(value, abs=1e-14)
        assert e.se == pytest.approx(ref["se"], abs=1e-12), (name, family)
        assert e.details["pa"] == pytest.approx(ref["pa"], abs=1e-12)
        assert e.details["pe"] == pytest.approx(ref["pe"], abs=1e-12)
        lo, hi = ref["confidence_interval"]
        assert (e.lower, e.upper) == pytest.approx((lo, hi), abs=1e-12), (name, family)
        if name != "brennan_prediger":  # irrCAC's Python bp reports a one-sided p-value; R's bp.coeff.raw two-sided
            assert e.p_value == pytest.approx(ref["p_value"], abs=1e-12), (name, family)
    assert ie.percent_agreement_weighted(data, weights=family) == pytest.approx(cac.fleiss()["est"]["pa"], abs=1e-12)


def test_the_values_irrcac_documents_for_gwets_four_raters():
    """irrCAC 0.4.4, ``irrCAC/raw.py`` module docstring (Gwet 2014's 4 raters × 12 items), 5 decimals."""
    data = _data(RAW4)
    ac1 = ie.estimate(data, "gwet_ac1")
    assert (round(ac1.estimate, 5), round(ac1.se, 5), round(ac1.details["pa"], 5), round(ac1.details["pe"], 5)) == (
        0.77544, 0.14295, 0.81818, 0.19032,
    )  # fmt: skip
    assert (round(ac1.lower, 5), round(ac1.upper, 5), round(ac1.p_value, 5)) == (0.46081, 1, 0.00021)
    fleiss = ie.estimate(data, "fleiss_kappa")
    assert (round(fleiss.estimate, 5), round(fleiss.se, 5), round(fleiss.lower, 5)) == (0.76117, 0.15302, 0.42438)
    assert round(fleiss.p_value, 5) == 0.00042 and round(fleiss.details["pe"], 5) == 0.23872
    ac2 = ie.estimate(data, "gwet_ac1", weights="bipolar")
    assert (round(ac2.estimate, 5), round(ac2.se, 5), round(ac2.details["pa"], 5), round(ac2.details["pe"], 5)) == (
        0.90037, 0.10582, 0.96836, 0.68244,
    )  # fmt: skip
    assert (round(ac2.lower, 5), round(ac2.upper, 5)) == (0.66747, 1)
    assert ac2.metric == "gwet_ac1[bipolar]" and "AC2" not in repr(ac1)


@pytest.mark.parametrize("family", ["linear", "quadratic"])
def test_weighted_cohen_equals_scikit_learn_and_statsmodels(family):
    sk = pytest.importorskip("sklearn.metrics")
    sm = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(7)
    a = rng.integers(1, 6, 80)
    b = np.clip(a + rng.integers(-2, 3, 80) * (rng.random(80) < 0.5), 1, 5)
    frame = pd.DataFrame({"x": a.astype(float), "y": b.astype(float)})
    frame.loc[:9, "y"] = np.nan  # items the second rater skipped: Cohen's kappa uses the shared items
    data = _data(frame, categories=[1.0, 2.0, 3.0, 4.0, 5.0])
    keep = ~np.isnan(frame["y"].to_numpy())
    expected = sk.cohen_kappa_score(a[keep], b[keep], weights=family)
    assert ie.cohen_kappa(data, "x", "y", weights=family) == pytest.approx(expected, abs=1e-13)
    table = pd.crosstab(pd.Categorical(a[keep], categories=range(1, 6)), pd.Categorical(b[keep], range(1, 6)),
                        dropna=False).to_numpy()  # fmt: skip
    wt = {"linear": "linear", "quadratic": "quadratic"}[family]
    assert ie.cohen_kappa(data, "x", "y", weights=family) == pytest.approx(sm.cohens_kappa(table, wt=wt).kappa)
    m = ie.cohen_kappa_matrix(data, weights=family)
    assert m.values[0, 1] == pytest.approx(expected, abs=1e-13) and m.values[1, 0] == pytest.approx(expected)


def test_cohen_and_scott_standard_errors_equal_gwets_two_rater_forms():
    """On complete two-rater data Conger's kappa is Cohen's and Fleiss' kappa is Scott's pi: irrCAC gives both SEs."""
    frame = _sparse(3, n_items=60, n_raters=2, missing=0.0)
    data = _data(frame)
    cats = sorted(float(c) for c in data.categories)
    for family in ("identity", "quadratic", "ordinal"):
        cac = irrcac.CAC(frame, weights=family, categories=cats, digits=15)
        cohen, scott = ie.estimate(data, "cohen_kappa", weights=family), ie.estimate(data, "scott_pi", weights=family)
        assert cohen.estimate == pytest.approx(cac.conger()["est"]["coefficient_value"], abs=1e-12)
        assert cohen.se == pytest.approx(cac.conger()["est"]["se"], abs=1e-12)
        assert scott.estimate == pytest.approx(cac.fleiss()["est"]["coefficient_value"], abs=1e-12)
        assert scott.se == pytest.approx(cac.fleiss()["est"]["se"], abs=1e-12)
        assert cohen.estimate == pytest.approx(ie.cohen_kappa(data, weights=family), abs=1e-14)
        assert scott.estimate == pytest.approx(ie.scott_pi(data, weights=family), abs=1e-14)


def test_identity_array_equals_the_unweighted_coefficients():
    for seed in range(4):
        data = _data(_sparse(seed))
        eye = np.eye(data.n_categories)
        for name in ("fleiss_kappa", "gwet_ac1", "brennan_prediger", "multi_kappa"):
            fn = getattr(ie, name)
            assert fn(data, weights=eye) == pytest.approx(fn(data), abs=1e-14), name
        assert ie.percent_agreement_weighted(data) == pytest.approx(ie.joint_probability(data), abs=1e-14)
        m0, m1 = ie.cohen_kappa_matrix(data), ie.cohen_kappa_matrix(data, weights=eye)
        np.testing.assert_allclose(m1.values, m0.values, atol=1e-14)
        np.testing.assert_allclose(ie.scott_pi_matrix(data, weights=eye).values, ie.scott_pi_matrix(data).values,
                                   atol=1e-14)  # fmt: skip


def test_asymmetric_weights_make_the_pair_order_matter_symmetric_ones_do_not():
    data = _data(_sparse(5, n_raters=2, missing=0.1))
    q = data.n_categories
    asym = np.tril(np.ones((q, q))) * 0.5 + np.eye(q) * 0.5  # credit when b's label is below a's
    ab, ba = ie.cohen_kappa(data, "r0", "r1", weights=asym), ie.cohen_kappa(data, "r1", "r0", weights=asym)
    assert ab != pytest.approx(ba)
    assert ie.cohen_kappa(data, "r1", "r0", weights=asym.T) == pytest.approx(ab, abs=1e-14)
    for family in ("linear", "quadratic", "bipolar"):
        assert ie.cohen_kappa(data, "r0", "r1", weights=family) == pytest.approx(
            ie.cohen_kappa(data, "r1", "r0", weights=family), abs=1e-14
        )


def test_affine_maps_of_the_values_leave_linear_and_quadratic_weights_alone():
    table = _sparse(2)
    data = _data(table)
    moved = _data(table * 3.0 + 10.0)
    for name in ("fleiss_kappa", "gwet_ac1", "multi_kappa"):
        for family in ("linear", "quadratic", "radical", "bipolar"):
            fn = getattr(ie, name)
            assert fn(moved, weights=family) == pytest.approx(fn(data, weights=family), abs=1e-13), (name, family)
    # ratio weights are invariant to scaling only
    assert ie.fleiss_kappa(_data(table * 7.0), weights="ratio") == pytest.approx(
        ie.fleiss_kappa(data, weights="ratio"), abs=1e-13
    )


def test_text_labels_use_their_order():
    frame = RAW4.apply(lambda col: col.map({1: "none", 2: "mild", 3: "moderate", 4: "severe", 5: "extreme"}))
    order = ["none", "mild", "moderate", "severe", "extreme"]
    text = _data(frame, categories=order).with_level("ordinal", order)  # the order: positions 1..5, RAW4's numbers
    numbers = _data(RAW4)
    assert text.n_annotations == numbers.n_annotations  # 'none' is a declared category, not a missing value
    for family in ie.AGREEMENT_WEIGHTS:
        assert ie.gwet_ac1(text, weights=family) == pytest.approx(ie.gwet_ac1(numbers, weights=family), abs=1e-14)
    shuffled = _data(frame).with_level("ordinal", order[::-1])  # reversed: the same distances (symmetric families)
    assert ie.gwet_ac1(shuffled, weights="quadratic") == pytest.approx(ie.gwet_ac1(numbers, weights="quadratic"))


def test_bad_weights_are_refused_with_the_one_template():
    data = _data(RAW4)
    with pytest.raises(ie.InvalidParameterError, match=r"^weights must be a 5 × 5 array of weights in \[0, 1\]"):
        ie.fleiss_kappa(data, weights=np.eye(3))
    with pytest.raises(ie.InvalidParameterError, match=r"^weights must be one of 'identity', 'linear'"):
        ie.gwet_ac1(data, weights="cubic")
    with pytest.raises(ie.InvalidParameterError, match=r"^metric must be one of 'fleiss_kappa'"):
        ie.estimate(data, "krippendorff")
    with pytest.raises(ie.InvalidParameterError, match=r"^weights must be"):
        ie.spa(data, weights="quadratic")  # SPA's weights are item weightings, not agreement weights


def test_undefined_weighted_coefficients_follow_the_policy():
    one = pd.DataFrame({"a": [1.0, 2.0], "b": [NAN, NAN]})
    data = _data(pd.DataFrame({"a": [1.0, 2.0, 1.0], "b": [1.0, 2.0, 1.0]}))
    with pytest.warns(ie.UndefinedMetricWarning, match="no item has two or more annotations"):
        assert ie.fleiss_kappa(_data(one), weights="linear", replace_undefined_by=-1.0) == -1.0
    assert ie.fleiss_kappa(data, weights="quadratic") == pytest.approx(1.0)
    e = ie.estimate(data, "fleiss_kappa", weights="quadratic")
    assert e.se == 0.0 and e.upper == 1.0


def test_finite_population_correction_scales_the_variance():
    data = _data(RAW4)
    e, f = ie.estimate(data, "fleiss_kappa"), ie.estimate(data, "fleiss_kappa", population=24)
    assert f.se == pytest.approx(e.se * np.sqrt(1 - 12 / 24), abs=1e-15)
    cac = irrcac.CAC(RAW4, categories=CATS, N=24, digits=15)
    assert f.se == pytest.approx(cac.fleiss()["est"]["se"], abs=1e-12)


def test_estimate_result_shape():
    e = ie.estimate(_data(RAW4), "multi_kappa", weights="quadratic", confidence=0.9)
    d = e.to_dict()
    assert set(d) >= {"metric", "estimate", "se", "lower", "upper", "p_value", "confidence", "n_items", "details"}
    assert set(d["details"]) >= {"pa", "pe", "df"}
    assert d["confidence"] == 0.9 and e["se"] == e.se and e.n_items == 12
    assert e.lower < e.estimate < e.upper <= 1
    assert "multi_kappa[quadratic]" in repr(e) and "90% CI" in repr(e)


def test_report_and_cli_carry_the_weighted_coefficients(tmp_path):
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    long = RAW4.rename_axis("item").reset_index().melt(id_vars="item", var_name="annotator", value_name="label")
    path = tmp_path / "ratings.csv"
    long.dropna().to_csv(path, index=False)
    data = _data(RAW4)
    nominal = ie.report(data)
    assert nominal.kappa_weights is None and nominal.estimates == {}  # nominal data: no weights unless asked
    ordinal = ie.report(data.with_level("ordinal", CATS))
    assert ordinal.kappa_weights == "quadratic"
    e = ordinal.estimates["gwet_ac1[quadratic]"]
    assert e.estimate == pytest.approx(ie.gwet_ac1(data, weights="quadratic"), abs=1e-14)
    assert e.se == pytest.approx(ie.estimate(data, "gwet_ac1", weights="quadratic").se, abs=1e-15)
    interval = ie.report(data.with_level("interval"), kappa_weights="linear", ci=True, n_boot=50)
    assert {"fleiss_kappa[linear]", "fleiss_kappa", "ICC(1,1)", "ICC(2,1)"} <= set(interval.estimates)
    assert interval.to_dict()["estimates"]["ICC(2,1)"]["details"]["df1"] == 7  # 8 items rated by all four
    iaa = shutil.which("iaa", path=str(Path(sys.executable).parent)) or shutil.which("iaa")
    assert iaa
    out = subprocess.run(
        [iaa, "report", str(path), "--level", "ordinal", "--kappa-weights", "bipolar", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["kappa_weights"] == "bipolar"
    assert rep["estimates"]["gwet_ac1[bipolar]"]["estimate"] == pytest.approx(0.90037, abs=5e-6)  # irrCAC's docs
    assert rep["estimates"]["gwet_ac1[bipolar]"]["se"] == pytest.approx(0.10582, abs=5e-6)
    text = subprocess.run([iaa, "report", str(path), "--level", "ordinal"], capture_output=True, text=True)
    assert "fleiss_kappa[quadratic]" in text.stdout and "analytic standard errors" in text.stdout
    bad = subprocess.run([iaa, "report", str(path), "--kappa-weights", "cubic"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--kappa-weights" in bad.stderr


def test_html_report_shows_the_analytic_intervals():
    import xml.etree.ElementTree as ET

    data = _data(RAW4).with_level("ordinal", CATS)
    page = ie.render_html_report(data, n_boot=0)
    assert 'id="metric-table"' in page and 'data-metric="gwet_ac1[quadratic]"' in page
    value = ie.gwet_ac1(data, weights="quadratic")
    assert f'data-value="{value!r}"' in page
    figure = page[page.index('id="fig-estimates"') :]
    svg = figure[figure.index("<svg") : figure.index("</svg>") + 6]
    ET.fromstring(svg)  # well-formed
    nominal = ie.render_html_report(_data(RAW4), n_boot=0)
    assert "analytic 95% interval" not in nominal  # nothing weighted to show on nominal data


# --- Bangdiwala's B, category-wise kappa, agreement within a tolerance ---------------------------------------------


def test_bangdiwala_b_equals_its_definition_on_the_pairs_table():
    for seed in range(5):
        frame = _sparse(seed, n_raters=3, missing=0.3)
        data = _data(frame)
        for a, b in (("r0", "r1"), ("r2", "r0")):
            both = frame[[a, b]].dropna()
            table = pd.crosstab(both[a], both[b]).reindex(index=CATS, columns=CATS, fill_value=0).to_numpy(float)
            expected = np.sum(np.diag(table) ** 2) / (table.sum(axis=1) @ table.sum(axis=0))
            assert ie.bangdiwala_b(data, a, b) == pytest.approx(expected, abs=1e-15)
            assert ie.bangdiwala_b(data, b, a) == pytest.approx(expected, abs=1e-15)
    perfect = _data(pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1.0, 2.0, 3.0]}))
    assert ie.bangdiwala_b(perfect) == 1.0
    never = _data(pd.DataFrame({"x": [1.0, 1.0], "y": [2.0, 2.0]}))
    assert ie.bangdiwala_b(never) == 0.0


def test_category_kappas_match_fleiss_1971_on_complete_data_and_average_to_kappa():
    rng = np.random.default_rng(11)
    m, n = 5, 40
    frame = pd.DataFrame(np.clip(rng.integers(1, 4, (n, 1)) + rng.integers(-1, 2, (n, m)), 1, 3).astype(float))
    data = _data(frame)
    x = np.stack([(frame.to_numpy() == c).sum(axis=1) for c in (1.0, 2.0, 3.0)], axis=1)  # items × categories
    p = x.sum(axis=0) / (n * m)
    fleiss_1971 = 1 - np.sum(x * (m - x), axis=0) / (n * m * (m - 1) * p * (1 - p))  # Fleiss (1971), eq. 12
    by_cat = ie.fleiss_kappa_by_category(data)
    np.testing.assert_allclose(by_cat.to_numpy(), fleiss_1971, atol=1e-14)
    for seed in range(3):  # with missing annotations: their weighted mean is still Fleiss' kappa
        d = _data(_sparse(seed))
        parts = d.counts.to_dense().astype(float)
        r = parts.sum(axis=1)
        pi = (parts[r > 0] / r[r > 0, None]).mean(axis=0)
        w = pi * (1 - pi)
        kappas = ie.fleiss_kappa_by_category(d).to_numpy()
        assert np.sum(w * kappas) / w.sum() == pytest.approx(ie.fleiss_kappa(d), abs=1e-13)


def test_percent_agreement_within_a_tolerance_is_irrs_extended_agreement():
    """R irr's agree(ratings, tolerance): the share of items whose ratings span at most the tolerance."""
    frame = _sparse(6, missing=0.25)
    data = _data(frame)
    rows = frame.to_numpy()
    spans = np.nanmax(rows, axis=1) - np.nanmin(rows, axis=1)
    rated = np.sum(~np.isnan(rows), axis=1) >= 2
    for tol in (0, 1, 2, 0.5):
        expected = np.mean(spans[rated] <= tol)
        assert ie.percent_agreement(data, tolerance=tol) == pytest.approx(expected, abs=1e-15)
    labels = frame.map(lambda v: None if np.isnan(v) else ["lo", "mid-lo", "mid", "mid-hi", "hi"][int(v) - 1])
    order = ["lo", "mid-lo", "mid", "mid-hi", "hi"]
    ordinal = _data(labels, categories=order).with_level("ordinal", order)
    assert ie.percent_agreement(ordinal, tolerance=1) == pytest.approx(ie.percent_agreement(data, tolerance=1))
    with pytest.raises(ValueError, match="a tolerance needs ordered categories"):
        ie.percent_agreement(_data(labels), tolerance=1)
    with pytest.raises(ie.InvalidParameterError, match="^tolerance must be a number of at least 0"):
        ie.percent_agreement(data, tolerance=-1)


# --- identities, with hypothesis -----------------------------------------------------------------------------------

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def rating_frames(draw):
    n_items = draw(st.integers(3, 12))
    n_raters = draw(st.integers(2, 5))
    cells = draw(
        st.lists(
            st.lists(st.one_of(st.none(), st.integers(1, 5)), min_size=n_raters, max_size=n_raters),
            min_size=n_items,
            max_size=n_items,
        )
    )
    frame = pd.DataFrame(cells, columns=[f"r{j}" for j in range(n_raters)], dtype=float)
    frame.iloc[0, 0], frame.iloc[0, 1] = 1.0, 2.0  # one disagreement: every coefficient is defined
    return frame


HYPO = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@HYPO
@given(frame=rating_frames())
def test_identity_weights_are_the_unweighted_coefficients(frame):
    data = _data(frame)
    eye = np.eye(data.n_categories)
    for name in ("fleiss_kappa", "gwet_ac1", "brennan_prediger", "multi_kappa"):
        fn = getattr(ie, name)
        assume(np.isfinite(fn(data, replace_undefined_by=np.nan)))
        assert fn(data, weights=eye) == pytest.approx(fn(data), abs=1e-12), name
    assert ie.cohen_kappa(data, "r0", "r1", weights=eye) == pytest.approx(ie.cohen_kappa(data, "r0", "r1"), abs=1e-12)
    assert ie.scott_pi(data, "r0", "r1", weights=eye) == pytest.approx(ie.scott_pi(data, "r0", "r1"), abs=1e-12)


@HYPO
@given(frame=rating_frames(), family=st.sampled_from(ie.AGREEMENT_WEIGHTS))
def test_symmetric_weights_make_the_pair_order_irrelevant(frame, family):
    data = _data(frame)
    ab = ie.cohen_kappa(data, "r0", "r1", weights=family, replace_undefined_by=-9.0)
    ba = ie.cohen_kappa(data, "r1", "r0", weights=family, replace_undefined_by=-9.0)
    assert ab == pytest.approx(ba, abs=1e-12)


@HYPO
@given(frame=rating_frames(), scale=st.floats(0.1, 50), shift=st.floats(-20, 20), family=st.sampled_from(
    ["linear", "quadratic", "radical", "bipolar", "ordinal"]))  # fmt: skip
def test_the_families_ignore_affine_maps_of_the_values(frame, scale, shift, family):
    data, moved = _data(frame), _data(frame * scale + shift)
    for name in ("fleiss_kappa", "gwet_ac1", "multi_kappa", "percent_agreement_weighted"):
        fn = getattr(ie, name)
        before = fn(data, weights=family, replace_undefined_by=-9.0)
        assert fn(moved, weights=family, replace_undefined_by=-9.0) == pytest.approx(before, abs=1e-9), name


def test_estimate_of_alpha_is_the_jackknife():
    data = _data(RAW4).with_level("interval")
    e = ie.estimate(data, "krippendorff_alpha")
    av = ie.alpha_variance(data)
    assert e.metric == "krippendorff_alpha[interval]" and e.estimate == pytest.approx(ie.krippendorff_alpha(data))
    assert e.se == pytest.approx(av.se_jackknife, abs=1e-15) and e.details["se_delta"] == av.se_delta
    assert e.n_items == 12 and e.lower < e.estimate < e.upper
    with pytest.raises(ie.InvalidParameterError, match="^weights must be 'identity' for krippendorff_alpha"):
        ie.estimate(data, "krippendorff_alpha", weights="quadratic")


def test_fractional_count_tables_go_through_gwets_formulas():
    """Fractional counts (averaged votes): Gwet's formulas are sums of real counts; the exact sums refuse them."""
    table = np.array([[1.5, 0.5, 0.0], [0.0, 2.0, 1.0], [2.5, 0.0, 0.5], [1.0, 1.0, 1.0]])
    data = ie.Annotations.from_counts(table)
    assert data.fractional
    r = table.sum(axis=1)
    pa = np.mean(np.sum(table * (table - 1), axis=1) / (r * (r - 1)))  # all items have r_i >= 2
    pi = (table / r[:, None]).mean(axis=0)
    for fn, pe in [
        (ie.fleiss_kappa, np.sum(pi**2)),
        (ie.gwet_ac1, np.sum(pi * (1 - pi)) / 2),
        (ie.brennan_prediger, 1 / 3),
    ]:
        assert fn(data) == pytest.approx((pa - pe) / (1 - pe), abs=1e-14), fn.__name__
    assert ie.percent_agreement_weighted(data) == pytest.approx(pa, abs=1e-14)
    assert np.isfinite(ie.estimate(data, "fleiss_kappa", weights="linear").se)
    whole = ie.Annotations.from_counts(table * 2)  # whole numbers: the exact path, the same formula
    assert not whole.fractional
    assert ie.fleiss_kappa(whole) == pytest.approx(ie.fleiss_kappa(whole, weights=np.eye(3)), abs=1e-14)
    with pytest.raises(ValueError, match="fractional counts"):
        ie.krippendorff_alpha(data)
    with pytest.raises(ValueError, match="non-negative numbers"):
        ie.Annotations.from_counts([[1.0, -0.5]])


def test_count_tables_can_be_read_at_another_level():
    """A count table asked for at another level (numeric categories) keeps its counts (was a TypeError)."""
    table = np.array([[1, 2, 0], [0, 2, 1], [2, 0, 1], [3, 0, 0]])
    counts = ie.Annotations.from_counts(table)
    labels = [(i, np.repeat(np.arange(3), row)) for i, row in enumerate(table)]  # each item's labels, in order
    long = pd.DataFrame(
        [(i, f"a{j}", int(k)) for i, ks in labels for j, k in enumerate(ks)], columns=["item", "annotator", "label"]
    )
    for level in ("ordinal", "interval", "ratio"):
        assert ie.krippendorff_alpha(counts, level=level) == pytest.approx(
            ie.krippendorff_alpha(ie.Annotations.from_long(long), level=level), abs=1e-14
        )
    fractional = ie.Annotations.from_counts(table / 2.0 + 0.25).with_level("interval")
    assert fractional.fractional and fractional.level == "interval"


# --- weights without the q × q matrix (issue 24) and the checks of issue 25 ----------------------------------------

from iaa_engine.stats import _weight_sums as weight_sums  # noqa: E402


def _wide_values(seed: int, n_items: int = 120, n_raters: int = 6, q: int = 70, missing: float = 0.3) -> pd.DataFrame:
    """Ratings on q unevenly spaced values (ties: raters often share a value), with missing ratings."""
    rng = np.random.default_rng(seed)
    values = np.cumsum(rng.gamma(0.7, 1.0, q)) + rng.integers(-5, 5)
    values = values - values.min() + 0.25  # non-negative: the ratio family accepts them
    truth = rng.integers(0, q, n_items)
    step = rng.integers(-4, 5, (n_items, n_raters)) * (rng.random((n_items, n_raters)) < 0.6)
    x = values[np.clip(truth[:, None] + step, 0, q - 1)]
    x[rng.random(x.shape) < missing] = np.nan
    x[:, 0][np.isnan(x).sum(axis=1) >= n_raters - 1] = values[truth[np.isnan(x).sum(axis=1) >= n_raters - 1]]
    return pd.DataFrame(x, columns=[f"r{j}" for j in range(n_raters)])


@pytest.mark.parametrize("small", [weight_sums.SMALL, 0])  # 0: every group, even an item's, by the closed forms
@pytest.mark.parametrize("family", ie.AGREEMENT_WEIGHTS)
def test_the_sums_without_a_matrix_equal_the_matrix(family, small, monkeypatch):
    """Every coefficient and standard error with a family by name (closed forms, or pairs in blocks) equals the same
    computation with the family's q × q matrix given as an array (the dense path), to 1e-12."""
    monkeypatch.setattr(weight_sums, "SMALL", small)
    monkeypatch.setattr(weight_sums, "DENSE_Q", 0)  # no matrix behind the family, whatever q
    for seed in range(3):
        table = _wide_values(seed)
        data = _data(table)
        if seed == 2:  # text labels in a given order (not the values'): the families on positions 1..q
            data = _data(table.apply(lambda col: col.map(lambda v: None if v != v else f"v{v:.6f}")))
            data = data.with_level("ordinal", list(np.random.default_rng(2).permutation(data.categories)))
        values = np.asarray(data.categories, dtype=float) if seed < 2 else np.arange(1.0, data.n_categories + 1)
        dense = weight_matrix(family, values)
        assert data.n_categories > 40
        for name in ("fleiss_kappa", "gwet_ac1", "brennan_prediger", "multi_kappa", "percent_agreement_weighted"):
            a, b = ie.estimate(data, name, weights=family), ie.estimate(data, name, weights=dense)
            assert a.estimate == pytest.approx(b.estimate, abs=1e-12), (name, family)
            assert a.se == pytest.approx(b.se, abs=1e-12), (name, family)
            assert a.details["pe"] == pytest.approx(b.details["pe"], abs=1e-12)
            assert getattr(ie, name)(data, weights=family) == pytest.approx(a.estimate, abs=1e-14)
        for name in ("cohen_kappa", "scott_pi"):
            a, b = (
                ie.estimate(data, name, weights=family, annotator_a="r1", annotator_b="r2"),
                ie.estimate(data, name, weights=dense, annotator_a="r1", annotator_b="r2"),
            )
            assert (a.estimate, a.se) == pytest.approx((b.estimate, b.se), abs=1e-12), (name, family)
            m_a = getattr(ie, f"{name}_matrix")(data, weights=family).values
            m_b = getattr(ie, f"{name}_matrix")(data, weights=dense).values
            np.testing.assert_allclose(m_a, m_b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("family", ie.AGREEMENT_WEIGHTS)
def test_group_sums_equal_brute_force(family, monkeypatch):
    """T_e = sum over e's group of a_e' w(k_e, k_e'), against the matrix entry by entry (groups small and large,
    values unsorted, negative, tied with the group's other entries' values)."""
    monkeypatch.setattr(weight_sums, "DENSE_Q", 0)
    rng = np.random.default_rng(11)
    for x in (rng.normal(size=90) * 1e3 + 1e6, rng.permutation(np.arange(60.0)) - 20, np.array([0.0, 2.0, 7.0])):
        x = np.abs(x) if family == "ratio" else x
        q = x.size
        w = weight_matrix(family, x)
        ours = weight_sums.FamilyWeights(family, x)
        np.testing.assert_allclose(ours.to_dense(), w, rtol=0, atol=1e-13)
        group = np.r_[rng.integers(0, 30, 400), np.full(q, 77)]
        code = np.r_[rng.integers(0, q, 400), np.arange(q)]
        key = np.unique(group * q + code)
        group, code = key // q, key % q
        a = rng.random(group.size) * 3
        brute = np.array([a[group == g] @ w[k, code[group == g]] for g, k in zip(group, code)])
        np.testing.assert_allclose(ours.group_sums(group, code, a), brute, rtol=0, atol=1e-10)
        v = rng.random(q)
        np.testing.assert_allclose(ours.matvec(v), w @ v, rtol=0, atol=1e-10)
        assert ours.total() == pytest.approx(w.sum(), abs=1e-9)


def test_a_family_without_a_closed_form_is_refused_above_its_limit_and_the_report_says_so(monkeypatch):
    monkeypatch.setattr(weight_sums, "MAX_PAIRS", 1000)
    monkeypatch.setattr(weight_sums, "DENSE_Q", 0)
    data = _data(_wide_values(4)).with_level("ratio")
    with pytest.raises(weight_sums.TooManyCategoriesError, match="ratio weights have no closed form"):
        ie.fleiss_kappa(data, weights="ratio")
    assert np.isfinite(ie.fleiss_kappa(data, weights="quadratic"))  # closed forms: no limit
    rep = ie.report(data)  # ratio data: ratio weights by default
    assert rep.kappa_weights == "ratio" and not any(k.endswith("[ratio]") for k in rep.estimates)
    assert any("ratio weights have no closed form" in n for n in rep.notes)
    assert {"ICC(1,1)", "ICC(2,1)"} <= set(rep.estimates) and np.isfinite(rep.values["krippendorff_alpha"])


#: Issue 25: two raters on a three-step text scale. scikit-learn 1.9.1:
#: cohen_kappa_score(A, B, labels=["low", "mid", "high"], weights="quadratic") = 0.6153846153846154 (8/13);
#: in alphabetical order (high < low < mid) the same call gives 0.0.
SCALE_A = ["low", "mid", "low", "low", "high", "high", "high", "mid", "mid"]
SCALE_B = ["low", "low", "low", "mid", "high", "high", "mid", "high", "low"]


def _scale(level="nominal", categories=None):
    frame = pd.DataFrame({"a": SCALE_A, "b": SCALE_B})
    return ie.Annotations.from_wide(frame, annotators_as="columns", level=level, categories=categories)


def test_text_labels_are_never_ordered_alphabetically_for_weights(tmp_path):
    sk = pytest.importorskip("sklearn.metrics")
    order = ["low", "mid", "high"]
    truth = sk.cohen_kappa_score(SCALE_A, SCALE_B, labels=order, weights="quadratic")
    assert truth == pytest.approx(8 / 13, abs=1e-15)
    assert sk.cohen_kappa_score(SCALE_A, SCALE_B, labels=sorted(order), weights="quadratic") == pytest.approx(0.0)
    text = _scale()
    for call in (
        lambda: ie.cohen_kappa(text, weights="quadratic"),
        lambda: ie.cohen_kappa_matrix(text, weights="linear"),
        lambda: ie.gwet_ac1(text, weights="ordinal"),
        lambda: ie.estimate(text, "fleiss_kappa", weights="quadratic"),
        lambda: ie.report(text, kappa_weights="quadratic"),
    ):
        with pytest.raises(ValueError, match=r"never ordered alphabetically: give their order with categories="):
            call()
    assert ie.cohen_kappa(text) == pytest.approx(sk.cohen_kappa_score(SCALE_A, SCALE_B), abs=1e-15)  # unweighted
    assert ie.gwet_ac1(text, weights=np.eye(3)) == pytest.approx(ie.gwet_ac1(text), abs=1e-15)  # an array: as given
    ordered = _scale("ordinal", order)
    assert ie.cohen_kappa(ordered, weights="quadratic") == pytest.approx(truth, abs=1e-14)
    assert ie.cohen_kappa(text.with_level("ordinal", order), weights="quadratic") == pytest.approx(truth, abs=1e-14)
    numbers = ie.Annotations.from_wide(
        pd.DataFrame({"a": SCALE_A, "b": SCALE_B}).replace({"low": 10, "mid": 20, "high": 30}), annotators_as="columns"
    )
    assert ie.cohen_kappa(numbers, weights="quadratic") == pytest.approx(truth, abs=1e-14)  # numbers: their order
    # the command line names its flags; with them it answers
    from iaa_engine import cli

    path = tmp_path / "scale.csv"
    pd.DataFrame(
        {"item": np.tile(np.arange(9), 2), "annotator": np.repeat(["a", "b"], 9), "label": SCALE_A + SCALE_B}
    ).to_csv(path, index=False)
    import subprocess
    import sys

    bad = subprocess.run([sys.executable, "-m", "iaa_engine", "report", str(path), "--kappa-weights", "quadratic"],
                         capture_output=True, text=True)  # fmt: skip
    assert bad.returncode == 2 and bad.stdout == ""
    last = bad.stderr.strip().splitlines()[-1]
    assert last.startswith("iaa: error: quadratic weights need the order") and "categories=" not in last
    assert last.endswith("never ordered alphabetically: give their order with --level ordinal --categories "
                         "lowest,...,highest")  # fmt: skip
    good = ["report", str(path), "--level", "ordinal", "--categories", "low,mid,high", "--json"]
    assert cli.main(good + ["--kappa-weights", "quadratic"]) == 0


def test_ordinal_alpha_takes_the_order_where_its_message_sends_the_user():
    """Issue 25: the message says 'pass categories=[lowest, ..., highest]'; krippendorff_alpha accepts it (the quick
    start's call). Reference: krippendorff 0.9.0 on the positions 0, 1, 2 of the order given."""
    kd = pytest.importorskip("krippendorff")
    text = _scale()
    with pytest.raises(ValueError, match=r"pass categories=\[lowest, \.\.\., highest\]"):
        ie.krippendorff_alpha(text, level="ordinal")
    order = ["low", "mid", "high"]
    codes = np.array([[order.index(v) for v in SCALE_A], [order.index(v) for v in SCALE_B]], dtype=float)
    expected = kd.alpha(reliability_data=codes, level_of_measurement="ordinal")
    assert ie.krippendorff_alpha(text, level="ordinal", categories=order) == pytest.approx(expected, abs=1e-12)
    m = ie.krippendorff_alpha_matrix(text, level="ordinal", categories=order)
    assert m.values[0, 1] == pytest.approx(expected, abs=1e-12)
    reverse = kd.alpha(reliability_data=2 - codes, level_of_measurement="ordinal")
    assert ie.krippendorff_alpha(text, level="ordinal", categories=order[::-1]) == pytest.approx(reverse, abs=1e-12)
    alphabetical = kd.alpha(
        reliability_data=np.array([[sorted(order).index(v) for v in r] for r in (SCALE_A, SCALE_B)], dtype=float),
        level_of_measurement="ordinal",
    )
    assert alphabetical != pytest.approx(expected)  # the order matters: it is never guessed


def test_the_quick_start_calls_run(tmp_path):
    path = tmp_path / "annotations.csv"
    pd.DataFrame(
        {"item": np.tile(np.arange(9), 2), "annotator": np.repeat(["a", "b"], 9), "label": SCALE_A + SCALE_B}
    ).to_csv(path, index=False)
    data = ie.read(path)
    value = ie.krippendorff_alpha(data, level="ordinal", categories=["low", "mid", "high"])  # docs/guides/quickstart
    assert value == pytest.approx(ie.krippendorff_alpha(_scale("ordinal", ["low", "mid", "high"])), abs=1e-15)


@pytest.mark.parametrize(
    "bad, why",
    [
        (-np.eye(3), "negative"),
        (np.eye(3) * 0.5, "diagonal"),
        (np.eye(3) + 0.5, "above 1"),
        (np.full((3, 3), np.nan), "nan"),
        (np.ones((3, 2)), "not square"),
        (np.eye(4), "size"),
    ],
)
def test_weight_arrays_outside_0_1_or_off_the_diagonal_are_refused(bad, why):
    """Issue 25: gwet_ac1(weights=-W) was -1.0097; every bad array now meets the one template."""
    data = _scale("ordinal", ["low", "mid", "high"])
    for fn in (ie.gwet_ac1, ie.fleiss_kappa, ie.cohen_kappa):
        with pytest.raises(ie.InvalidParameterError, match=r"^weights must be .*array of weights in \[0, 1\] with 1 on "
                                                            r"the diagonal"):  # fmt: skip
            fn(data, weights=bad)
    with pytest.raises(ie.InvalidParameterError, match=r"^weights must be"):
        ie.estimate(data, "multi_kappa", weights=bad)
