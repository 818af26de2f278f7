"""Agreement with the established implementations, on randomised sparse data.

Every comparison is made to an absolute tolerance of 1e-12. The datasets are
drawn from seeded numpy generators over a grid of sizes (5-30 annotators,
20-300 items, 2-6 categories, 20-70 % of the cells missing) and always contain
items with no annotation and items with a single annotation, annotators with
their own label preferences (so that Cohen/Conger-style and Scott/Fleiss-style
expectations differ), and irregularly spaced numeric category values (so that
the interval and ratio distances are not those of 0, 1, 2, ...).

Peers: ``krippendorff`` (Castro), ``statsmodels``, ``scikit-learn`` and
``irrCAC`` (the Python port of Gwet's R package). irrCAC is not among the
``dev`` extras of ``pyproject.toml`` (``make test`` installs it with
``--no-deps`` because it pins an old scipy); its tests are skipped, with the
reason shown by ``-ra``, where it is not installed. irrCAC rounds to
``digits``; with ``digits=15`` that adds at most 5e-16.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine import Annotations, UndefinedMetricWarning

krippendorff = pytest.importorskip("krippendorff")

TOL = 1e-12
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def assert_close(ours: float, theirs: float, what: str = "") -> None:
    """``|ours - theirs| <= 1e-12`` with no relative slack; nan only matches nan."""
    ours, theirs = float(ours), float(theirs)
    assert np.isfinite(ours) and np.isfinite(theirs), f"{what}: ours={ours!r}, peer={theirs!r}"
    assert abs(ours - theirs) <= TOL, f"{what}: ours={ours!r}, peer={theirs!r}, diff={ours - theirs:.3e}"


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Case:
    seed: int
    n_annotators: int
    n_items: int
    n_categories: int
    missing: float

    def __str__(self) -> str:  # readable test ids
        return f"s{self.seed}-A{self.n_annotators}-I{self.n_items}-C{self.n_categories}-m{int(self.missing * 100)}"


#: Hand-picked corners and middles of the size grid, plus random draws from it.
_FIXED = [
    Case(1, 5, 20, 2, 0.20),
    Case(2, 30, 300, 6, 0.70),
    Case(3, 5, 300, 3, 0.70),
    Case(4, 30, 20, 2, 0.50),
    Case(5, 12, 150, 4, 0.45),
    Case(6, 8, 60, 5, 0.30),
    Case(7, 20, 100, 6, 0.60),
    Case(8, 15, 250, 2, 0.25),
]
_rng = np.random.default_rng(20240611)
_RANDOM = [
    Case(
        100 + k,
        int(_rng.integers(5, 31)),
        int(_rng.integers(20, 301)),
        int(_rng.integers(2, 7)),
        round(float(_rng.uniform(0.2, 0.7)), 2),
    )
    for k in range(8)
]
CASES = _FIXED + _RANDOM


@dataclass(frozen=True)
class Sparse:
    """One dataset: ``codes`` (annotators × items, -1 = missing) and the numeric value of each code."""

    codes: np.ndarray
    values: np.ndarray  # strictly increasing, positive (valid at every level including ratio)

    @property
    def matrix(self) -> np.ndarray:
        """Annotators × items float matrix with nan for missing (krippendorff's ``reliability_data``)."""
        out = np.full(self.codes.shape, np.nan)
        seen = self.codes >= 0
        out[seen] = self.values[self.codes[seen]]
        return out

    def annotations(self, level: str = "nominal") -> Annotations:
        return Annotations.from_wide(self.matrix, annotators_as="rows", level=level)


def make_sparse(case: Case) -> Sparse:
    """A sparse annotation matrix with biased annotators, empty items and single-annotation items."""
    rng = np.random.default_rng(case.seed)
    a_n, i_n, c_n = case.n_annotators, case.n_items, case.n_categories
    # irregular, strictly increasing, positive category values
    values = np.cumsum(rng.uniform(0.25, 4.0, size=c_n)) + rng.uniform(0.1, 3.0)
    prevalence = rng.dirichlet(np.full(c_n, 2.0))
    truth = rng.choice(c_n, size=i_n, p=prevalence)
    accuracy = rng.uniform(0.2, 0.95, size=a_n)
    own = rng.dirichlet(np.ones(c_n), size=a_n)  # each annotator's own label preference
    codes = np.empty((a_n, i_n), dtype=np.int64)
    for a in range(a_n):
        guess = rng.choice(c_n, size=i_n, p=own[a])
        codes[a] = np.where(rng.random(i_n) < accuracy[a], truth, guess)
    codes[rng.random((a_n, i_n)) < case.missing] = -1
    # a few items with no annotation and a few with exactly one
    k = max(1, i_n // 15)
    special = rng.choice(i_n, size=2 * k, replace=False)
    empty, single = special[:k], special[k:]
    codes[:, empty] = -1
    for j in single:
        who = rng.integers(a_n)
        label = codes[who, j] if codes[who, j] >= 0 else rng.integers(c_n)
        codes[:, j] = -1
        codes[who, j] = label
    # every annotator labels something (irrCAC's Conger kappa needs it)
    ordinary = np.setdiff1d(np.arange(i_n), special)
    for a in range(a_n):
        if (codes[a] < 0).all():
            codes[a, rng.choice(ordinary)] = rng.integers(c_n)
    # at least two items with two differing labels, so that every coefficient is defined
    j0, j1 = ordinary[:2]
    codes[0, j0], codes[1, j0] = 0, 1
    codes[0, j1], codes[1, j1] = 1, 0
    return Sparse(codes, values)


@pytest.fixture(params=CASES, ids=str)
def sparse(request) -> Sparse:
    return make_sparse(request.param)


def test_generated_data_is_sparse_in_the_required_ways(sparse):
    """The generator (not a peer comparison) really yields empty items, single-annotation items and missing cells."""
    per_item = (sparse.codes >= 0).sum(axis=0)
    assert (per_item == 0).any()
    assert (per_item == 1).any()
    assert (per_item >= 2).sum() >= 2
    assert ((sparse.codes >= 0).sum(axis=1) >= 1).all()
    missing = (sparse.codes < 0).mean()
    assert 0.15 < missing < 0.85


# --------------------------------------------------------------------------- krippendorff


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_matches_krippendorff_package(sparse, level):
    """krippendorff.alpha(reliability_data, level_of_measurement) vs iaa_engine.krippendorff_alpha, every level."""
    theirs = krippendorff.alpha(reliability_data=sparse.matrix, level_of_measurement=level)
    assert_close(ie.krippendorff_alpha(sparse.annotations(level)), theirs, f"alpha[{level}]")
    # the level can also be chosen at call time on nominal-read data
    assert_close(ie.krippendorff_alpha(sparse.annotations(), level=level), theirs, f"alpha[{level}] via level=")


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_matrix_matches_krippendorff_package_per_pair(sparse, level):
    """krippendorff.alpha on each pair's 2 × shared-items sub-matrix vs iaa_engine.krippendorff_alpha_matrix."""
    m = sparse.matrix
    pm = ie.krippendorff_alpha_matrix(sparse.annotations(level))
    compared = 0
    for a, b in itertools.permutations(range(m.shape[0]), 2):
        shared = ~np.isnan(m[a]) & ~np.isnan(m[b])
        assert pm.n_shared[a, b] == shared.sum()
        sub = m[[a, b]][:, shared]
        if shared.sum() == 0 or np.unique(sub).size < 2:
            # the peer refuses (no pairable unit, or a one-value domain): alpha is 0/0
            assert np.isnan(pm.values[a, b]), (a, b, pm.values[a, b])
            continue
        theirs = krippendorff.alpha(reliability_data=sub, level_of_measurement=level)
        assert_close(pm.values[a, b], theirs, f"alpha_matrix[{level}][{a},{b}]")
        compared += 1
    assert compared > 0


# --------------------------------------------------------------------------- statsmodels


def _complete_codes(case: Case) -> np.ndarray:
    """Every annotator labels every item (annotators × items codes)."""
    full = make_sparse(Case(case.seed, case.n_annotators, case.n_items, case.n_categories, 0.0))
    rng = np.random.default_rng(case.seed + 7)
    codes = full.codes.copy()
    holes = codes < 0  # the generator's empty/single items: fill them in
    codes[holes] = rng.integers(case.n_categories, size=int(holes.sum()))
    return codes


@pytest.mark.parametrize("case", CASES, ids=str)
def test_fleiss_matches_statsmodels_on_complete_data(case):
    """statsmodels.stats.inter_rater.fleiss_kappa(table) vs iaa_engine.fleiss_kappa (wide matrix and from_counts)."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    codes = _complete_codes(case)
    table, _ = aggregate_raters(codes.T)  # items × categories counts
    assert (table.sum(axis=1) == case.n_annotators).all()
    theirs = fleiss_kappa(table, method="fleiss")
    assert_close(ie.fleiss_kappa(Annotations.from_wide(codes, annotators_as="rows")), theirs, "fleiss (wide)")
    assert_close(ie.fleiss_kappa(Annotations.from_counts(table)), theirs, "fleiss (counts)")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_fleiss_matches_statsmodels_on_constant_raters_per_item(case):
    """statsmodels fleiss_kappa(table) vs iaa_engine.fleiss_kappa when each item has k raters drawn from a
    larger pool."""
    from statsmodels.stats.inter_rater import fleiss_kappa

    rng = np.random.default_rng(case.seed + 11)
    codes = _complete_codes(case)
    k = max(2, int(round(case.n_annotators * (1 - case.missing))))
    sparse_codes = np.full_like(codes, -1)
    for j in range(codes.shape[1]):
        who = rng.choice(case.n_annotators, size=k, replace=False)
        sparse_codes[who, j] = codes[who, j]
    wide = np.where(sparse_codes >= 0, sparse_codes.astype(float), np.nan)
    data = Annotations.from_wide(wide, annotators_as="rows")
    table = data.counts.to_dense()
    assert (table.sum(axis=1) == k).all()
    theirs = fleiss_kappa(table, method="fleiss")
    assert_close(ie.fleiss_kappa(data), theirs, "fleiss (sparse, constant n)")
    assert_close(ie.fleiss_kappa(Annotations.from_counts(table)), theirs, "fleiss (counts)")


# --------------------------------------------------------------------------- scikit-learn


def test_cohen_matches_sklearn_for_every_pair(sparse):
    """sklearn.metrics.cohen_kappa_score on the shared items vs iaa_engine.cohen_kappa and cohen_kappa_matrix."""
    from sklearn.exceptions import UndefinedMetricWarning as SkUndefined
    from sklearn.metrics import cohen_kappa_score

    data = sparse.annotations()
    pm = ie.cohen_kappa_matrix(data)
    names = list(data.annotators)
    assert pm.annotators == names
    codes = sparse.codes
    compared = undefined = 0
    for a, b in itertools.combinations(range(codes.shape[0]), 2):
        shared = (codes[a] >= 0) & (codes[b] >= 0)
        assert pm.n_shared[a, b] == pm.n_shared[b, a] == shared.sum()
        if not shared.any():
            assert np.isnan(pm.values[a, b]) and np.isnan(pm.values[b, a])
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "a single label was found": expected on tiny overlaps
            warnings.simplefilter("error", SkUndefined)
            try:
                theirs = cohen_kappa_score(codes[a, shared], codes[b, shared])
            except SkUndefined:
                theirs = None
        if theirs is None or not np.isfinite(theirs):
            undefined += 1
            assert np.isnan(pm.values[a, b]) and np.isnan(pm.values[b, a])
            with pytest.warns(UndefinedMetricWarning):
                assert np.isnan(ie.cohen_kappa(data, names[a], names[b]))
            continue
        compared += 1
        assert_close(pm.values[a, b], theirs, f"cohen_matrix[{a},{b}]")
        assert_close(pm.values[b, a], theirs, f"cohen_matrix[{b},{a}]")
        assert_close(ie.cohen_kappa(data, names[a], names[b]), theirs, f"cohen_kappa({a},{b})")
    assert compared > 0


# --------------------------------------------------------------------------- irrCAC


@pytest.fixture
def cac(sparse):
    """irrCAC's CAC on the items × raters frame (nan = missing), rounding to 15 digits (≤ 5e-16 of slack)."""
    raw = pytest.importorskip("irrCAC.raw")
    frame = pd.DataFrame(sparse.matrix.T, columns=[f"r{a}" for a in range(sparse.codes.shape[0])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pandas deprecations inside irrCAC
        if hasattr(pd.errors, "SettingWithCopyWarning"):  # pandas < 3; irrCAC edits a slice in place
            warnings.simplefilter("ignore", pd.errors.SettingWithCopyWarning)
        # the observed categories, given explicitly: irrCAC infers them with DataFrame.stack(), which keeps NaN as
        # a category under pandas 3
        categories = sorted(pd.unique(frame.to_numpy().ravel()[~np.isnan(frame.to_numpy().ravel())]).tolist())
        return raw.CAC(frame, digits=15, categories=categories)


def _irr(cac, method: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # irrCAC's standard errors on tiny designs
        return float(getattr(cac, method)()["est"]["coefficient_value"])


def test_fleiss_matches_irrcac_on_sparse_data(sparse, cac):
    """irrCAC CAC.fleiss() (Gwet's missing-data Fleiss kappa) vs iaa_engine.fleiss_kappa."""
    assert_close(ie.fleiss_kappa(sparse.annotations()), _irr(cac, "fleiss"), "fleiss")


def test_gwet_matches_irrcac_on_sparse_data(sparse, cac):
    """irrCAC CAC.gwet() (AC1) vs iaa_engine.gwet_ac1."""
    assert_close(ie.gwet_ac1(sparse.annotations()), _irr(cac, "gwet"), "gwet AC1")


def test_brennan_prediger_matches_irrcac_on_sparse_data(sparse, cac):
    """irrCAC CAC.bp() vs iaa_engine.brennan_prediger."""
    assert_close(ie.brennan_prediger(sparse.annotations()), _irr(cac, "bp"), "Brennan-Prediger")


def test_multi_kappa_matches_irrcac_conger_on_sparse_data(sparse, cac):
    """irrCAC CAC.conger() (Conger's kappa) vs iaa_engine.multi_kappa."""
    assert_close(ie.multi_kappa(sparse.annotations()), _irr(cac, "conger"), "Conger / multi-kappa")


def test_alpha_matches_irrcac_krippendorff_on_sparse_data(sparse, cac):
    """irrCAC CAC.krippendorff() (Gwet's form of nominal alpha) vs iaa_engine.krippendorff_alpha(level='nominal')."""
    assert_close(ie.krippendorff_alpha(sparse.annotations(), level="nominal"), _irr(cac, "krippendorff"), "alpha")
