"""Marginal homogeneity (Stuart-Maxwell, Bhapkar), the two-sample chi-square, Wilson's interval and the standard
error of Cohen's kappa (iaa_engine.stats._homogeneity) against published outputs and established libraries."""

from __future__ import annotations

import numpy as np
import pytest

from iaa_engine.stats._homogeneity import (
    kappa_from_tables,
    marginal_homogeneity_tables,
    two_sample_chi2,
    wilson_interval,
)

#: Stuart (1955): unaided distance vision, right eye (rows) by left eye (columns), 7477 women; R irr's ``vision``
#: data, the example of ``stuart.maxwell.mh`` and ``bhapkar`` (https://rdrr.io/cran/irr/man/bhapkar.html).
VISION = np.array([[1520, 266, 124, 66], [234, 1512, 432, 78], [117, 362, 1772, 205], [36, 82, 179, 492]])


def _irr_stuart_maxwell(x: np.ndarray) -> float:
    """R irr 0.84 ``stuart.maxwell.mh`` transcribed line by line (https://rdrr.io/cran/irr/src/R/stuart.maxwell.R):
    categories with equal margins are dropped, K - 1 margins used."""
    rows, cols = x.sum(axis=1), x.sum(axis=0)
    keep = rows != cols
    x = x[np.ix_(keep, keep)]
    rows, cols = x.sum(axis=1), x.sum(axis=0)
    k1 = len(rows) - 1
    d = (rows - cols)[:k1]
    s = np.empty((k1, k1))
    for i in range(k1):
        for j in range(k1):
            s[i, j] = rows[i] + cols[j] - 2 * x[i, j] if i == j else -(x[i, j] + x[j, i])
    return float(d @ np.linalg.solve(s, d))


def _irr_bhapkar(x: np.ndarray) -> float:
    """R irr 0.84 ``bhapkar`` transcribed line by line (https://rdrr.io/cran/irr/src/R/bhapkar.r)."""
    ns = x.sum()
    rows, cols = x.sum(axis=1)[:-1], x.sum(axis=0)[:-1]
    dmat = np.tile(rows - cols, (len(rows), 1))
    delta = np.diag(rows + cols).astype(float)
    smx = x[:-1, :-1]
    w = delta - smx - smx.T - (dmat * dmat.T) / ns
    return float(np.sum(dmat * dmat.T * np.linalg.inv(w)))


def test_vision_matches_statsmodels_and_irr():
    sm = pytest.importorskip("statsmodels.stats.contingency_tables")
    for method in ("stuart_maxwell", "bhapkar"):
        stat, df, p = marginal_homogeneity_tables(VISION, method)
        ref = sm.SquareTable(VISION, shift_zeros=False).homogeneity(method=method)
        assert stat == pytest.approx(ref.statistic, rel=1e-12)
        assert df == ref.df == 3
        assert p == pytest.approx(ref.pvalue, rel=1e-9)
    assert marginal_homogeneity_tables(VISION, "stuart_maxwell")[0] == pytest.approx(_irr_stuart_maxwell(VISION))
    assert marginal_homogeneity_tables(VISION, "bhapkar")[0] == pytest.approx(_irr_bhapkar(VISION), rel=1e-12)
    # the published values: Stuart-Maxwell 11.957 (Stuart 1955; Agresti 2002, §10.3), Bhapkar 11.976
    assert round(float(marginal_homogeneity_tables(VISION, "stuart_maxwell")[0]), 3) == 11.957
    assert round(float(marginal_homogeneity_tables(VISION, "bhapkar")[0]), 3) == 11.976


def test_reproduces_irr_printed_example_output():
    """R irr 0.84's printed example ``bhapkar(vision)`` (https://rdrr.io/cran/irr/man/bhapkar.html):
    " Subjects = 7477 / Raters = 2 / Chisq = 12". irr's ``print.irrlist`` writes values with ``format(x, digits=3)``
    (three significant digits, trailing zeros dropped: 11.976 prints as 12), the statistic line as ``Chisq(3) = 12``
    and the p-value the same way; Python's ``%.3g`` is that format. The page shows the output up to "Chisq = 12";
    the p-values below are what the same print makes of statsmodels' values (``stuart.maxwell.mh(vision)``'s printed
    output is not on its page)."""
    for method, p_printed in (("bhapkar", "0.00747"), ("stuart_maxwell", "0.00753")):
        stat, df, p = marginal_homogeneity_tables(VISION, method)
        assert int(VISION.sum()) == 7477
        assert f"Chisq = {float(stat):.3g}" == "Chisq = 12"
        assert f"Chisq({int(df)}) = {float(stat):.3g}" == "Chisq(3) = 12"
        assert f"p-value = {float(p):.3g}" == f"p-value = {p_printed}"


def test_reproduces_printed_r_output_nonpar():
    # R nonpar 1.0.2, stuart.maxwell(matrix(c(12, 30, 13, 7, 70, 34, 3, 20, 32), 3, 3)), printed example output
    # (https://rdrr.io/cran/nonpar/man/stuart.maxwell.html): Test Statistic = 23.5709322524609, df 2,
    # p-value 7.61442467334117e-06. R fills the matrix by columns.
    x = np.array([12, 30, 13, 7, 70, 34, 3, 20, 32]).reshape(3, 3).T
    stat, df, p = marginal_homogeneity_tables(x, "stuart_maxwell")
    assert float(stat) == pytest.approx(23.5709322524609, rel=1e-13)
    assert int(df) == 2
    assert float(p) == pytest.approx(7.61442467334117e-06, rel=1e-9)


def test_perfect_agreement_category_as_uebersax_mh():
    # Uebersax's MH program 1.2, printed output for the table 30 0 0 / 0 10 2 / 0 4 8 ("1 category with perfect
    # agreement was not considered"; https://minato.sip21c.org/swtips/mt-zero-sample.txt): Bhapkar 0.686,
    # df (conservative) 2, p 0.710; Stuart-Maxwell 0.667, df 2, p 0.717. statsmodels gives NaN here (singular).
    x = np.array([[30, 0, 0], [0, 10, 2], [0, 4, 8]])
    sm, df, p_sm = marginal_homogeneity_tables(x, "stuart_maxwell")
    bh, _, p_bh = marginal_homogeneity_tables(x, "bhapkar")
    assert (round(float(sm), 3), int(df), round(float(p_sm), 3)) == (0.667, 2, 0.717)
    assert (round(float(bh), 3), round(float(p_bh), 3)) == (0.686, 0.710)
    # by hand on the two categories left: d = 12 - 14 = -2 (K - 1 = 1 margin), S = 2 + 4 = 6: 4/6; Bhapkar with
    # N = 24 objects of those categories: (2/3) / (1 - (2/3)/24) = 0.6857
    assert float(sm) == pytest.approx(4 / 6)
    assert float(bh) == pytest.approx((2 / 3) / (1 - (2 / 3) / 24))


def test_two_by_two_is_mcnemar_and_stack_is_elementwise():
    rng = np.random.default_rng(1)
    tables = rng.integers(0, 40, size=(30, 4, 4)) + np.eye(4, dtype=int) * 50
    for method in ("stuart_maxwell", "bhapkar"):
        batch = marginal_homogeneity_tables(tables, method)[0]
        single = [float(marginal_homogeneity_tables(t, method)[0]) for t in tables]
        np.testing.assert_allclose(batch, single, rtol=1e-12)
    # irr drops every category whose two margins are equal (even with disagreement in it); we drop only those
    # without disagreement (DescTools, Uebersax). They agree whenever no two margins are equal:
    unequal = np.array([not np.any(t.sum(axis=0) == t.sum(axis=1)) for t in tables])
    assert 0 < (~unequal).sum() < unequal.size
    np.testing.assert_allclose(
        marginal_homogeneity_tables(tables[unequal], "stuart_maxwell")[0],
        [_irr_stuart_maxwell(t) for t in tables[unequal]],
        rtol=1e-9,
    )
    np.testing.assert_allclose(
        marginal_homogeneity_tables(tables, "bhapkar")[0], [_irr_bhapkar(t) for t in tables], rtol=1e-9
    )
    b, c = 7, 19
    stat = marginal_homogeneity_tables(np.array([[30, b], [c, 40]]), "stuart_maxwell")[0]
    assert float(stat) == pytest.approx((b - c) ** 2 / (b + c))  # McNemar (1947)


def test_degenerate_tables():
    stat, df, p = marginal_homogeneity_tables(np.array([[5, 0], [0, 7]]), "stuart_maxwell")
    assert (float(stat), int(df), float(p)) == (0.0, 1, 1.0)  # all on the diagonal: no evidence of a difference
    stat, df, p = marginal_homogeneity_tables(np.zeros((3, 3)), "bhapkar")
    assert np.isnan(stat) and np.isnan(p)
    stat, df, _ = marginal_homogeneity_tables(np.array([[4, 0, 0], [0, 0, 0], [0, 0, 0]]), "stuart_maxwell")
    assert np.isnan(stat) and int(df) == 0  # one category used: nothing to compare


def test_two_sample_chi2_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    a = np.array([[10, 20, 0, 5], [3, 3, 3, 3]])
    b = np.array([[12, 9, 0, 15], [1, 8, 2, 9]])
    stat, df, p = two_sample_chi2(a, b)
    for i in range(2):
        used = (a[i] + b[i]) > 0
        ref = stats.chi2_contingency(np.vstack([a[i][used], b[i][used]]), correction=False)
        assert stat[i] == pytest.approx(ref.statistic, rel=1e-12)
        assert df[i] == ref.dof
        assert p[i] == pytest.approx(ref.pvalue, rel=1e-9)


def test_wilson_and_kappa_se_match_statsmodels():
    prop = pytest.importorskip("statsmodels.stats.proportion")
    inter = pytest.importorskip("statsmodels.stats.inter_rater")
    for x, n in [(0, 10), (7, 20), (20, 20), (133, 401)]:
        lo, hi = wilson_interval(x, n, 0.9)
        ref = prop.proportion_confint(x, n, alpha=0.1, method="wilson")
        assert (float(lo), float(hi)) == pytest.approx(ref, abs=1e-12)
    # 7 of 20 by hand: p = 0.35, z = 1.959964, centre (0.35 + z²/40) / (1 + z²/20) = 0.3744, half 0.1929
    lo, hi = wilson_interval(7, 20, 0.95)
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.1812, 0.5671)
    kappa, se, po, n = kappa_from_tables(VISION)
    ref = inter.cohens_kappa(VISION)
    assert float(kappa) == pytest.approx(ref.kappa, rel=1e-12)
    assert float(se) == pytest.approx(ref.std_kappa, rel=1e-10)
    assert float(n) == 7477 and float(po) == pytest.approx((1520 + 1512 + 1772 + 492) / 7477)


def test_tails_without_scipy_match_scipy_special():
    """The page's p-values no longer import scipy.special (about 70 ms of the --html report): the closed-form
    chi-square tail (Abramowitz & Stegun 26.4.4-26.4.5), math.erfc's normal CDF and AS 241's quantile against it."""
    from scipy import special

    from iaa_engine.stats._homogeneity import chi2_sf, normal_cdf, normal_quantile

    rng = np.random.default_rng(7)
    df = np.concatenate([np.arange(1, 401), rng.integers(1, 401, 3000)]).astype(float)
    x = np.concatenate(
        [rng.uniform(0, 3, 400) * df[:400], rng.exponential(1, 3000) * df[400:] * rng.uniform(0.1, 5, 3000)]
    )
    x[:5] = 0.0
    ref = special.chdtrc(df, x)
    got = chi2_sf(x, df)
    tiny = ref < 1e-290
    np.testing.assert_allclose(got[~tiny], ref[~tiny], rtol=1e-11, atol=0)
    np.testing.assert_allclose(got[tiny], ref[tiny], atol=1e-290)
    # fractional or very large df: SciPy's function; NaN and df < 1 stay undefined
    np.testing.assert_allclose(
        chi2_sf(np.array([2.5, 700.0]), np.array([1.5, 650.0])), special.chdtrc([1.5, 650], [2.5, 700])
    )
    assert np.isnan(chi2_sf(np.array([np.nan, 3.0]), np.array([2.0, 0.0]))).all()
    z = np.linspace(-37, 9, 20001)
    np.testing.assert_allclose(normal_cdf(z), special.ndtr(z), rtol=1e-12)  # both within a few ulps/term of the tail
    for c in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999999):
        assert normal_quantile(c) == pytest.approx(special.ndtri((1 + c) / 2), rel=1e-14)
