r"""Tests and intervals on count tables, batched over a leading axis: marginal homogeneity of square tables
(Stuart-Maxwell, Bhapkar), the chi-square test of two label distributions, Wilson's interval of a proportion and
the large-sample standard error of Cohen's kappa from its agreement table.

Pure array kernels: every function takes a stack of tables (one per annotator or per annotator pair) and returns
one value per table, so the scorecard of :mod:`iaa_engine.analysis._scorecard` computes them for every annotator
at once, without a loop over annotators or annotations.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

__all__ = [
    "marginal_homogeneity_tables",
    "two_sample_chi2",
    "wilson_interval",
    "kappa_from_tables",
    "chi2_sf",
    "normal_cdf",
    "normal_quantile",
]


#: Largest chi-square degrees of freedom summed in closed form; above it (or for a fractional df) SciPy's
#: incomplete gamma function is used.
_SERIES_DF = 400
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def normal_cdf(x: np.ndarray) -> np.ndarray:
    r"""The standard normal CDF, :math:`\Phi(x) = \tfrac12 \operatorname{erfc}(-x/\sqrt2)`, elementwise.

    ``math.erfc`` (the C library's, accurate to the last bit or two) over the array: no SciPy import, which costs a
    page its first ~70 ms. Meant for one value per annotator or pair, not per annotation.
    """
    x = np.asarray(x, dtype=float)
    return np.asarray(0.5 * _ERFC(-x / math.sqrt(2.0)), dtype=float)


def chi2_sf(stat: np.ndarray, df: np.ndarray) -> np.ndarray:
    r"""Upper tail of the chi-square distribution (NaN where ``df < 1`` or the statistic is NaN).

    For a whole number of degrees of freedom (up to 400, the tables of the scorecard) the tail is the finite sum of
    the regularised upper incomplete gamma function, with :math:`y = x/2`:

    .. math::

        Q_{2k}(x) = e^{-y} \sum_{j=0}^{k-1} \frac{y^j}{j!}, \qquad
        Q_{2k+1}(x) = \operatorname{erfc}(\sqrt y) + e^{-y} \sum_{j=0}^{k-1} \frac{y^{j+1/2}}{\Gamma(j+3/2)}

    (Abramowitz and Stegun 26.4.4-26.4.5), each term taken through its logarithm; otherwise SciPy's ``chdtrc``.
    """
    stat = np.asarray(stat, dtype=float)
    df = np.asarray(df, dtype=float)
    shape = np.broadcast(stat, df).shape
    x = np.maximum(np.broadcast_to(stat, shape), 0.0).ravel()
    nu = np.broadcast_to(df, shape).ravel()
    ok = (nu >= 1) & np.isfinite(x)
    out = np.full(x.shape, np.nan)
    series = ok & (nu == np.floor(nu)) & (nu <= _SERIES_DF)
    if (ok & ~series).any():
        from scipy import special  # the chi-square tail without importing scipy.stats (~1.5 s)

        rest = ok & ~series
        out[rest] = special.chdtrc(nu[rest], x[rest])
    if series.any():
        y, v = x[series] / 2.0, nu[series].astype(np.int64)
        half = (v % 2).astype(float) / 2.0  # 1/2 for an odd df
        k = v // 2  # terms in the sum
        j = np.arange(int(k.max()) if k.size else 0, dtype=float)
        lgam = np.array([[math.lgamma(i + h + 1.0) for i in j] for h in (0.0, 0.5)]).reshape(2, j.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_y = np.log(y)[:, None]
            terms = np.exp((j[None, :] + half[:, None]) * log_y - lgam[(2 * half).astype(np.int64)] - y[:, None])
        terms = np.where(j[None, :] < k[:, None], terms, 0.0)
        head = np.where(half > 0, np.asarray(_ERFC(np.sqrt(y)), dtype=float), 0.0)
        out[series] = np.where(y > 0, np.minimum(head + terms.sum(axis=1), 1.0), 1.0)
    return out.reshape(shape)


def normal_quantile(confidence: float) -> float:
    """The two-sided normal quantile :math:`z_{(1+c)/2}` (1.959964 for 95 %), by Wichura's AS 241 algorithm
    (:class:`statistics.NormalDist`, accurate to about 1e-16; no SciPy import)."""
    return float(NormalDist().inv_cdf((1.0 + confidence) / 2.0))


def marginal_homogeneity_tables(tables: np.ndarray, method: str = "stuart_maxwell") -> tuple[np.ndarray, ...]:
    r"""Stuart-Maxwell or Bhapkar test of marginal homogeneity for each square table of a stack.

    For a :math:`K \times K` table :math:`n_{ij}` of N objects (rows: rater 1, columns: rater 2) with margins
    :math:`r_i`, :math:`c_j`, let :math:`d_i = r_i - c_i` and

    .. math::

        S_{ii} = r_i + c_i - 2 n_{ii},\qquad S_{ij} = -(n_{ij} + n_{ji})\ (i \ne j).

    Stuart (1955) and Maxwell (1970): :math:`X^2_{SM} = d^\top S^{-1} d`; Bhapkar (1966):
    :math:`X^2_{B} = d^\top (S - d d^\top / N)^{-1} d = X^2_{SM} / (1 - X^2_{SM}/N)`, both over K - 1 of the
    categories (the statistic does not depend on which one is left out) and referred to chi-square.

    A category with no disagreement (row and column zero off the diagonal: :math:`S_{ii} = 0`) carries no
    information on the margins and makes S singular; it is left out of the statistic with its objects (so Bhapkar's
    N counts the objects of the other categories), as Uebersax's MH program does, and counted in the degrees of
    freedom: ``df`` = (categories either rater used) - 1, Uebersax's "conservative"
    degrees of freedom. R irr's ``stuart.maxwell.mh`` instead leaves out every category whose two margins are equal
    and lowers the degrees of freedom with them; the two agree whenever no margin is equal.

    Parameters
    ----------
    tables : array of shape (..., K, K)
        Counts (fractional counts are accepted).
    method : {'stuart_maxwell', 'bhapkar'}

    Returns
    -------
    (statistic, df, p_value) : arrays of shape (...)
        NaN statistic and p-value where fewer than two categories are used or the tables are empty; statistic 0
        and p-value 1 where every object lies on the diagonal.
    """
    t = np.asarray(tables, dtype=float)
    batch = t.shape[:-2]
    k = t.shape[-1]
    t = t.reshape((-1, k, k))
    r, c = t.sum(axis=2), t.sum(axis=1)
    n = r.sum(axis=1)
    diag = np.einsum("pii->pi", t)
    used = (r + c) > 0
    df = used.sum(axis=1) - 1
    s = -(t + np.swapaxes(t, 1, 2))
    sii = r + c - 2.0 * diag
    idx = np.arange(k)
    s[:, idx, idx] = sii
    d = r - c
    keep = sii > 1e-12 * np.maximum(n, 1.0)[:, None]
    # objects of a category without disagreement leave with it (Uebersax's MH program: N of the kept categories)
    n_kept = n - np.sum(np.where(keep, 0.0, diag), axis=1)
    # leave out one informative category per table (the last kept one): the statistic uses K - 1 margins
    last = k - 1 - np.argmax(keep[:, ::-1], axis=1)
    has = keep.any(axis=1)
    keep[np.flatnonzero(has), last[has]] = False
    if method == "bhapkar":
        s = (
            s
            - np.where(keep[:, :, None] & keep[:, None, :], d[:, :, None] * d[:, None, :], 0.0)
            / np.maximum(n_kept, 1.0)[:, None, None]
        )
    mask2 = keep[:, :, None] & keep[:, None, :]
    eye = np.broadcast_to(np.eye(k), s.shape)
    s = np.where(mask2, s, eye)  # categories left out: identity rows and columns, zero margins difference
    d = np.where(keep, d, 0.0)
    with np.errstate(all="ignore"):
        try:
            sol = np.linalg.solve(s, d[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            sol = np.einsum("pij,pj->pi", np.linalg.pinv(s), d)
        stat = np.einsum("pi,pi->p", d, sol)
    stat = np.where(has, stat, 0.0)
    bad = (df < 1) | (n <= 0)
    stat = np.where(bad, np.nan, stat)
    p = chi2_sf(stat, df)
    return stat.reshape(batch), df.reshape(batch), p.reshape(batch)


def two_sample_chi2(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Pearson's chi-square test that two count vectors come from one distribution, per row of a stack.

    The 2 × K table with rows ``a`` and ``b``: :math:`X^2 = \sum (O - E)^2 / E` with
    :math:`E_{gk} = n_g n_{\cdot k} / N` over the categories either row used, df = (those categories) - 1
    (Pearson 1900; Agresti 2002, §3.2).

    Returns
    -------
    (statistic, df, p_value) : arrays of shape (rows,); NaN where a row is empty or df < 1.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    col = a + b
    na, nb = a.sum(axis=-1, keepdims=True), b.sum(axis=-1, keepdims=True)
    n = na + nb
    with np.errstate(divide="ignore", invalid="ignore"):
        ea, eb = na * col / n, nb * col / n
        term = np.where(col > 0, (a - ea) ** 2 / ea + (b - eb) ** 2 / eb, 0.0)
    stat = term.sum(axis=-1)
    df = (col > 0).sum(axis=-1) - 1
    empty = (na[..., 0] <= 0) | (nb[..., 0] <= 0) | (df < 1)
    stat = np.where(empty, np.nan, stat)
    return stat, df, chi2_sf(stat, df)


def wilson_interval(successes: np.ndarray, n: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Wilson's (1927) score interval of a proportion :math:`\hat p = x / n`:

    .. math::

        \frac{\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n}

    with :math:`z` the normal quantile of ``(1 + confidence) / 2``. NaN where n = 0.
    """
    x = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = normal_quantile(confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / n
        den = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / den
        half = z * np.sqrt(np.maximum(p * (1.0 - p) / n + z * z / (4.0 * n * n), 0.0)) / den
    lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
    hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return lo, hi


def kappa_from_tables(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Cohen's kappa and its large-sample standard error for each square agreement table of a stack.

    With :math:`p_{ij} = n_{ij}/n`, :math:`p_o = \sum_i p_{ii}`, :math:`p_e = \sum_i p_{i\cdot} p_{\cdot i}`,
    :math:`\kappa = (p_o - p_e)/(1 - p_e)` (Cohen 1960) and, Fleiss, Cohen & Everitt (1969),

    .. math::

        \widehat{\mathrm{Var}}(\kappa) = \frac{A + B - C}{n (1 - p_e)^2},\quad
        A = \sum_i p_{ii}\,[1 - (p_{i\cdot} + p_{\cdot i})(1-\kappa)]^2,\
        B = (1-\kappa)^2 \sum_{i \ne j} p_{ij} (p_{\cdot i} + p_{j\cdot})^2,\
        C = [\kappa - p_e (1-\kappa)]^2.

    Returns
    -------
    (kappa, se, p_o, n) : arrays of shape (...); NaN kappa where n = 0 or :math:`p_e = 1`.
    """
    t = np.asarray(tables, dtype=float)
    n = t.sum(axis=(-1, -2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = t / n[..., None, None]
        row, col = p.sum(axis=-1), p.sum(axis=-2)
        diag = np.einsum("...ii->...i", p)
        po = diag.sum(axis=-1)
        pe = np.sum(row * col, axis=-1)
        kappa = np.where((n > 0) & (1.0 - pe > 1e-12), (po - pe) / (1.0 - pe), np.nan)
        one = (1.0 - kappa)[..., None]
        a = np.sum(diag * (1.0 - (row + col) * one) ** 2, axis=-1)
        w = (col[..., :, None] + row[..., None, :]) ** 2  # (p_.i + p_j.)^2 at (i, j)
        off = p * w
        b = (1.0 - kappa) ** 2 * (off.sum(axis=(-1, -2)) - np.einsum("...ii->...", off))
        cc = (kappa - pe * (1.0 - kappa)) ** 2
        var = (a + b - cc) / (n * (1.0 - pe) ** 2)
        se = np.sqrt(np.maximum(var, 0.0))
    return kappa, np.where(np.isfinite(kappa), se, np.nan), po, n
