"""SPA's inverse-variance weights (seed 000 §5.2-5.5, Appendices A-B) against brute-force enumeration.

The closed form in iaa_engine (shared/notes/spec.md) is checked against
(a) enumeration of all C^n label assignments with their probabilities, and
(b) the paper's own Appendix formulas, eq. (41) for a uniform class distribution
and eq. (50) for a given one, transcribed with the corrections listed in spec.md.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

SIZES = [(n, c) for n in range(2, 7) for c in range(1, 5)]


def brute_force_variance(n: int, p: np.ndarray) -> float:
    """Var[P_hat] over all C^n assignments of n i.i.d. labels drawn from p."""
    c = len(p)
    mean = second = 0.0
    for labels in itertools.product(range(c), repeat=n):
        prob = float(np.prod(p[list(labels)]))
        counts = np.bincount(labels, minlength=c)
        agreement = np.sum(counts * (counts - 1)) / (n * (n - 1))
        mean += prob * agreement
        second += prob * agreement**2
    return second - mean**2


def paper_eq41_uniform(n: int, c: int) -> float:
    """Seed 000 Appendix A eq. (41), with 1/(4 N^2 C^n) and 2^{I(n0 != n1)} (not eq. 20/21's typos)."""
    big_n = n * (n - 1) / 2

    def k_sps(nc):
        return comb(n, nc) * c * (c - 1) ** (n - nc)

    def k_csp(n0, n1):
        return comb(n, n0) * comb(n - n0, n1) * c * (c - 1) * (c - 2) ** (n - n0 - n1) if c >= 2 else 0

    cross = sum(
        2 ** (n0 != n1) * k_csp(n0, n1) * n0 * n1 * (n0 - 1) * (n1 - 1)
        for n0 in range(n + 1)
        for n1 in range(min(n0, n - n0) + 1)
    )
    self_ = sum(k_sps(nc) * nc**2 * (nc - 1) ** 2 for nc in range(n + 1))
    return (cross + self_) / (4 * big_n**2 * c**n) - (1 / c) ** 2


def paper_eq50(n: int, p: np.ndarray) -> float:
    """Seed 000 Appendix B eq. (50), with its 1/(4 N^2) (eq. 22 drops the 1/N^2)."""
    big_n = n * (n - 1) / 2
    c = len(p)
    cross = 0.0
    for a, b in itertools.permutations(range(c), 2):
        for na in range(n + 1):
            for nb in range(n - na + 1):
                prob = comb(n, na) * comb(n - na, nb) * p[a] ** na * p[b] ** nb * (1 - p[a] - p[b]) ** (n - na - nb)
                cross += prob * na * nb * (na - 1) * (nb - 1)
    self_ = sum(
        comb(n, k) * p[a] ** k * (1 - p[a]) ** (n - k) * k**2 * (k - 1) ** 2 for a in range(c) for k in range(n + 1)
    )
    return (cross + self_) / (4 * big_n**2) - np.sum(p**2) ** 2


@pytest.mark.parametrize(("n", "c"), SIZES)
def test_closed_form_equals_brute_force(n, c):
    """spec.md closed form = enumeration of all C^n assignments, for a uniform and a skewed class distribution."""
    rng = np.random.default_rng(100 * n + c)
    for p in (np.full(c, 1 / c), rng.dirichlet(np.ones(c))):
        expected = brute_force_variance(n, p)
        assert ie.item_agreement_variance(n, p) == pytest.approx(expected, abs=1e-13)


@pytest.mark.parametrize(("n", "c"), SIZES)
def test_paper_appendix_formulas_equal_brute_force(n, c):
    """Seed 000 eq. (41) (uniform) and eq. (50) (class distribution) agree with enumeration once corrected."""
    rng = np.random.default_rng(7 * n + c)
    p = rng.dirichlet(np.ones(c))
    assert paper_eq50(n, p) == pytest.approx(brute_force_variance(n, p), abs=1e-13)
    assert paper_eq41_uniform(n, c) == pytest.approx(brute_force_variance(n, np.full(c, 1 / c)), abs=1e-13)


def _dataset_with_sizes(sizes: list[int], c: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(i, a, int(rng.integers(c))) for i, n in enumerate(sizes) for a in range(n)]
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


@pytest.mark.parametrize("c", [2, 3, 4])
def test_inv_var_weights_equal_brute_force(c):
    """`inv_var` weights = 1 / enumerated variance under a uniform distribution over the C categories (n ≤ 6)."""
    sizes = [1, 2, 3, 4, 5, 6] * 3
    frame = _dataset_with_sizes(sizes, c, seed=c)
    data = ie.Annotations.from_long(frame, categories=range(c))
    w = ie.spa_item_weights(data, weights="inv_var").to_numpy()
    expected = np.array([0.0 if n < 2 else 1 / brute_force_variance(n, np.full(c, 1 / c)) for n in sizes])
    np.testing.assert_allclose(w, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("c", [2, 3, 4])
def test_inv_var_class_weights_equal_brute_force(c):
    """`inv_var_class` weights = 1 / enumerated variance under the observed class distribution p_c = n_c / n."""
    sizes = [1, 2, 3, 4, 5, 6] * 4
    frame = _dataset_with_sizes(sizes, c, seed=10 + c)
    data = ie.Annotations.from_long(frame, categories=range(c))
    p = np.bincount(frame["label"], minlength=c) / len(frame)
    w = ie.spa_item_weights(data, weights="inv_var_class").to_numpy()
    expected = np.array([0.0 if n < 2 else 1 / brute_force_variance(n, p) for n in sizes])
    np.testing.assert_allclose(w, expected, rtol=1e-10, atol=0)


def test_inv_var_is_edges_and_independent_of_c():
    """Seed 000 §6.1 observed that inv_var weights do not depend on C and look like `edges`; the closed form
    (uniform p: r = q², Var = q(1-q)/N) makes both exact. Normalised weights coincide for C = 2..7."""
    n = np.arange(2, 11)
    edges = n * (n - 1) / 2
    for c in range(2, 8):
        w = 1 / ie.item_agreement_variance(n, np.full(c, 1 / c))
        np.testing.assert_allclose(w / w.max(), edges / edges.max(), rtol=1e-12)


def test_degenerate_class_distribution_falls_back_to_edges():
    """A single category has zero variance everywhere; the documented fallback is `edges` weighting."""
    frame = _dataset_with_sizes([2, 3, 4], 1, seed=0)
    for scheme in ("inv_var", "inv_var_class"):
        w = ie.spa_item_weights(frame, weights=scheme).to_numpy()
        np.testing.assert_allclose(w, [1, 3, 6])


def test_variance_input_errors():
    with pytest.raises(ValueError, match="probability vector"):
        ie.item_agreement_variance(3, [0.5, 0.6])
    with pytest.warns(ie.UndefinedMetricWarning, match="no pair"):
        assert np.isnan(ie.item_agreement_variance(1, [0.5, 0.5]))
