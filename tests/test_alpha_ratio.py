"""Krippendorff's alpha at the ratio level and Gwet's ratio weights above 4096 distinct values: the quadrature of
``iaa_engine.stats._differences`` (1/(c + k)^2 = int_0^inf t e^{-t(c + k)} dt, trapezoidal rule after t = e^u and
u = v - e^{-v}) against exact rational arithmetic (``fractions.Fraction``) and against the exact pairwise path.

References: Krippendorff, K. (2011), Computing Krippendorff's alpha-reliability (the ratio difference
((c - k)/(c + k))^2); Trefethen & Weideman (2014), SIAM Review 56:385 (the trapezoidal rule).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.stats import _differences as diff
from iaa_engine.stats import _weight_sums as weight_sums
from iaa_engine.stats._weights import weight_matrix


def _value_sets(q: int, seed: int) -> dict[str, np.ndarray]:
    """Adversarial values: a tight cluster, 1e-9 to 1e9, zeros, ties, two values, two far clusters, 1e-300 to 1."""
    rng = np.random.default_rng(seed)
    zeros = rng.random(q) * 5.0
    zeros[: q // 10] = 0.0
    return {
        "uniform": rng.random(q) * 5.0 + 0.1,
        "cluster": 1000.0 + rng.random(q) * 1e-3,
        "wide": np.exp(rng.uniform(np.log(1e-9), np.log(1e9), q)),
        "zeros": zeros,
        "ties": np.repeat(rng.random(q // 4) + 0.5, 4),
        "two": np.r_[np.full(q // 2, 1.0), np.full(q - q // 2, 3.0)],
        "two clusters": np.r_[1.0 + rng.random(q // 2) * 1e-6, 1e6 * (1.0 + rng.random(q - q // 2) * 1e-6)],
        "extreme": np.exp(rng.uniform(-345.0, 0.0, q)),  # 1e-150 to 1
    }


def _exact_pair_sum(n: np.ndarray, x: np.ndarray) -> Fraction:
    """sum_{c,k} n_c n_k ((c - k)/(c + k))^2 in rational arithmetic (0 for c = k = 0)."""
    xs = [Fraction(float(v)) for v in x]
    ns = [Fraction(float(v)) for v in n]
    total = Fraction(0)
    for i, (ni, xi) in enumerate(zip(ns, xs)):
        for nk, xk in zip(ns[i + 1 :], xs[i + 1 :]):
            if xi + xk:
                total += 2 * ni * nk * ((xi - xk) / (xi + xk)) ** 2
    return total


def _exact_row_sums(x: np.ndarray, a: np.ndarray) -> list[Fraction]:
    xs = [Fraction(float(v)) for v in x]
    aa = [Fraction(float(v)) for v in a]
    return [sum((ak * ((xc - xk) / (xc + xk)) ** 2 for ak, xk in zip(aa, xs) if xc + xk), Fraction(0)) for xc in xs]


@pytest.mark.parametrize("name", list(_value_sets(48, 0)))
def test_the_quadrature_equals_exact_rational_arithmetic(name, monkeypatch):
    """On 48 values (the quadrature forced), D_e's pair sum, batched sums and every row sum to 1e-13 relative."""
    monkeypatch.setattr(diff, "ratio_uses_quadrature", lambda x: True)
    x = _value_sets(48, 0)[name]
    rng = np.random.default_rng(1)
    n = rng.integers(1, 6, (2, x.size)).astype(float)
    for row, got in zip(n, diff.ratio_expected_sum_quadrature(n, x)):
        exact = _exact_pair_sum(row, x)
        assert abs(Fraction(float(got)) / exact - 1) < 1e-13, name
    a = rng.random(x.size)
    got_rows = diff.ratio_row_sums(x, a)
    for got, exact in zip(got_rows, _exact_row_sums(x, a)):
        assert abs(Fraction(float(got)) - exact) <= 1e-13 * exact, name


def test_the_rule_integrates_one_over_s_squared_off_its_check_grid():
    """sum_j W_j e^{-t_j s} = 1/s^2 to 1e-14 at random s in [2r, 2] (not the run-time check's grid), so the check
    never falls back to the plain rule; node counts."""
    rng = np.random.default_rng(2)
    counts = {}
    for r in (0.5, 0.1, 1e-3, 1e-9, 1e-18, 1e-300):
        log_t, log_w = diff._ratio_rule(r)
        counts[r] = log_t.size
        assert log_t[0] < -36 and np.all(np.diff(log_t) > 0)  # the double-exponential rule, not the fallback
        for s in np.exp(rng.uniform(np.log(2 * r), np.log(2.0), 200)):
            total = math.fsum(np.exp(log_w - np.exp(log_t + np.log(s)) + 2 * np.log(s)))
            # exp of arguments near 1400 (r = 1e-300) carries ~1e-13 relative rounding of its own
            assert abs(total - 1.0) < 1e-14 * (1 + np.log(45 / (2 * r)) / 10), (r, s)
    assert counts[0.1] <= 50 and counts[1e-9] <= 150 and counts[1e-300] <= 3850, counts


@pytest.mark.parametrize("q", [5000, 20_000])
def test_the_quadrature_equals_the_exact_pairs_on_thousands_of_values(q, monkeypatch):
    """Above the threshold the dispatcher takes the quadrature; it equals the blocked pairs to 1e-12 relative."""
    rng = np.random.default_rng(q)
    for name, x in _value_sets(q, 3).items():
        if q > 5000 and name != "two clusters":  # the hardest set (digits lost to a shared centre); the rest at 5000
            continue
        n = rng.integers(1, 5, x.size).astype(float)
        assert diff.ratio_uses_quadrature(x) == (name != "extreme")  # 1e-150 to 1: 1700 nodes, the pairs are cheaper
        exact = float(diff.ratio_expected_sum_exact(n, x))
        assert float(diff.ratio_expected_sum_quadrature(n, x)) == pytest.approx(exact, rel=1e-12), name
        a = rng.random(x.size)
        with monkeypatch.context() as m:
            m.setattr(diff, "ratio_uses_quadrature", lambda x: True)
            np.testing.assert_allclose(diff.ratio_row_sums(x, a), diff.ratio_row_sums_exact(x, a), rtol=1e-12)


def test_batches_far_from_the_common_centre_are_computed_on_their_own():
    """A batch whose counts sit on the other cluster (the common centre would cost digits) equals its own sum."""
    rng = np.random.default_rng(4)
    x = np.r_[1.0 + rng.random(3000) * 1e-6, 1e6 * (1.0 + rng.random(3000) * 1e-6)]
    n = np.zeros((3, x.size))
    n[0, :3000] = rng.integers(1, 4, 3000)  # low cluster only
    n[1, 3000:] = rng.integers(1, 4, 3000)  # high cluster only
    n[2] = 1.0
    for row, got in zip(n, diff.ratio_expected_sum_quadrature(n, x)):
        own = diff.ratio_expected_sum_exact(row, x)
        assert float(got) == pytest.approx(float(own), rel=1e-12)
        # within a cluster, (c - k)/(c + k) is about 1e-6: a centre in the other cluster would leave no digit


def test_few_values_and_zeros_keep_the_exact_path():
    """Up to 4096 positive values, or with values 1e-300 times apart, the pairs are visited (the reference)."""
    x = np.r_[0.0, np.linspace(1.0, 2.0, 4096)]
    assert not diff.ratio_uses_quadrature(x)
    assert diff.ratio_uses_quadrature(np.r_[0.0, np.linspace(1.0, 2.0, 4097)])
    assert not diff.ratio_uses_quadrature(np.r_[1e-310, np.linspace(1.0, 2.0, 5000)])
    n = np.ones(x.size)
    assert float(diff.ratio_expected_sum(n, x)) == float(diff.ratio_expected_sum_exact(n, x))


def _two_raters(x: np.ndarray) -> ie.Annotations:
    rng = np.random.default_rng(5)
    b = np.where(rng.random(x.size) < 0.5, x, rng.permutation(x))
    frame = pd.DataFrame(
        {
            "item": np.r_[np.arange(x.size), np.arange(x.size)],
            "annotator": np.r_[np.zeros(x.size), np.ones(x.size)],
            "label": np.r_[x, b],
        }
    )
    return ie.Annotations.from_long(frame, level="ratio")


@pytest.mark.parametrize("name", ["uniform", "cluster", "wide", "zeros", "two clusters"])
def test_ratio_alpha_with_the_quadrature_equals_the_exact_pairs(name, monkeypatch):
    """krippendorff_alpha(level='ratio') on 6000 distinct values: quadrature vs exact pairs, 1e-12 relative (the
    cluster 100 to 101 here: at 1000 to 1.001 the expected disagreement is below alpha's 1e-12 floor)."""
    x = np.unique(_value_sets(6000, 6)[name])
    if name == "cluster":
        x = 100.0 + (x - 1000.0) * 1e3
    data = _two_raters(x)
    assert diff.ratio_uses_quadrature(x)
    fast = ie.krippendorff_alpha(data, level="ratio")
    matrix = ie.krippendorff_alpha_matrix(data, level="ratio").values[0, 1]
    monkeypatch.setattr(diff, "RATIO_QUADRATURE_Q", 10**9)
    exact = ie.krippendorff_alpha(data, level="ratio")
    assert fast == pytest.approx(exact, rel=1e-12) and matrix == pytest.approx(exact, rel=1e-12)
    assert ie.krippendorff_alpha_matrix(data, level="ratio").values[0, 1] == pytest.approx(exact, rel=1e-12)


def test_ratio_weights_with_the_quadrature_equal_their_matrix(monkeypatch):
    """Gwet's ratio weights over 4500 values: weighted coefficients and standard errors equal the q x q matrix given
    as an array (1e-12); the sums equal the matrix's (matvec, total, group sums with a large group)."""
    monkeypatch.setattr(weight_sums, "DENSE_Q", 0)
    x = np.unique(_value_sets(4500, 7)["wide"])
    data = _two_raters(x)
    values = np.asarray(data.categories, dtype=float)
    dense = weight_matrix("ratio", values)
    ours = weight_sums.FamilyWeights("ratio", values)
    v = np.random.default_rng(8).random(values.size)
    np.testing.assert_allclose(ours.matvec(v), dense @ v, rtol=1e-12)
    assert ours.total() == pytest.approx(dense.sum(), rel=1e-12)
    for name in ("fleiss_kappa", "gwet_ac1", "brennan_prediger", "multi_kappa", "percent_agreement_weighted"):
        a, b = ie.estimate(data, name, weights="ratio"), ie.estimate(data, name, weights=dense)
        assert a.estimate == pytest.approx(b.estimate, abs=1e-12), name
        assert a.se == pytest.approx(b.se, abs=1e-12), name


def test_ratio_weights_are_no_longer_refused_at_a_million_pairs_limit(monkeypatch):
    """The pair limit counts only the groups summed pair by pair: 4500 values by quadrature pass a limit of 1000."""
    monkeypatch.setattr(weight_sums, "DENSE_Q", 0)
    monkeypatch.setattr(weight_sums, "MAX_PAIRS", 1000)
    data = _two_raters(np.unique(_value_sets(4500, 9)["uniform"]))
    assert np.isfinite(ie.fleiss_kappa(data, weights="ratio"))
    with pytest.raises(weight_sums.TooManyCategoriesError):
        ie.fleiss_kappa(data, weights="radical")
