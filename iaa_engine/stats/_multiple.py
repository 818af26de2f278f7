r"""Small tests on batches of summaries: the one-sided one-sample t-test, the Benjamini–Yekutieli step-up, and
Holm's step-down adjustment (the family-wise counterpart, shared by the scorecard's flags, the agreement-by
comparisons and the judges' position-bias tests).

They work on arrays (one entry per hypothesis), so a test of every annotator is one call.
"""

from __future__ import annotations

import numpy as np

__all__ = ["t_test_less", "benjamini_yekutieli", "benjamini_yekutieli_reject", "holm"]


def t_test_less(mean: np.ndarray, ss: np.ndarray, n: np.ndarray, mu: float) -> tuple[np.ndarray, np.ndarray]:
    r"""One-sided one-sample t-tests of :math:`H_0: \mu_j \ge \mu` against :math:`H_1: \mu_j < \mu`, batched.

    With :math:`\bar d_j` the sample mean, :math:`SS_j = \sum_t (d_{jt} - \bar d_j)^2` the sum of squared deviations
    and :math:`n_j` the sample size,

    .. math::

        t_j = \frac{\bar d_j - \mu}{\sqrt{SS_j / (n_j - 1) / n_j}},\qquad p_j = F_{t,\,n_j - 1}(t_j),

    Student's (1908) test, as ``scipy.stats.ttest_1samp(d, mu, alternative='less')`` computes it, including its
    reading of a sample without spread: :math:`t = \mp\infty` (p 0 or 1) when the mean is below or above
    :math:`\mu`, undefined (NaN) when it equals :math:`\mu`. Fewer than two observations: NaN.

    Parameters
    ----------
    mean, ss, n : numpy.ndarray
        Per hypothesis: the sample mean, the sum of squared deviations from it, the sample size.
    mu : float
        The value under the null hypothesis.

    Returns
    -------
    (t, p) : tuple of numpy.ndarray

    References
    ----------
    Student (1908). The probable error of a mean. Biometrika 6(1), 1–25.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([0.0, -1.0, 0.0, 1.0, -1.0, -1.0])
    >>> t, p = t_test_less(np.array([d.mean()]), np.array([((d - d.mean()) ** 2).sum()]), np.array([6]), 0.2)
    >>> float(np.round(t[0], 6)), float(np.round(p[0], 6))  # scipy.stats.ttest_1samp(d, 0.2, alternative="less")
    (-1.6, 0.085248)
    """
    from scipy.special import stdtr  # Student's t distribution function (what scipy.stats.t.cdf calls)

    mean, ss, n = (np.asarray(v, dtype=float) for v in (mean, ss, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(ss / (n - 1.0) / n)
        t = (mean - mu) / se
        p = stdtr(n - 1.0, t)
    bad = n < 2
    return np.where(bad, np.nan, t), np.where(bad | np.isnan(t), np.nan, p)


def benjamini_yekutieli(p: np.ndarray, m: int | None = None) -> np.ndarray:
    r"""Benjamini and Yekutieli's (2001) step-up adjusted p-values, which control the false discovery rate under any
    dependence between the tests.

    With the finite p-values sorted, :math:`p_{(1)} \le \dots \le p_{(k)}`, :math:`m` hypotheses and
    :math:`c(m) = \sum_{i=1}^m 1/i`, the procedure at level q rejects :math:`H_{(1)},\dots,H_{(r)}` for the largest
    r with :math:`p_{(r)} \le \frac{r}{m}\,\frac{q}{c(m)}`. The adjusted p-values

    .. math::

        \tilde p_{(i)} = \min\Big(1,\ \min_{j \ge i} \frac{m\,c(m)}{j}\,p_{(j)}\Big)

    say the same at every level at once: :math:`H_{(i)}` is rejected at level q exactly when
    :math:`\tilde p_{(i)} \le q`.

    Parameters
    ----------
    p : numpy.ndarray
        p-values; NaN (a test that could not be made) stays NaN and is never rejected.
    m : int, optional
        The number of hypotheses (default: the finite p-values). Pass the whole count to let an undefined test
        count as a hypothesis that was not rejected (as a NaN sorts last in a step-up over all of them).

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the order of ``p``.

    References
    ----------
    Benjamini, Y., & Yekutieli, D. (2001). The control of the false discovery rate in multiple testing under
    dependency. The Annals of Statistics 29(4), 1165–1188.

    Examples
    --------
    >>> import numpy as np
    >>> benjamini_yekutieli(np.array([0.01, 0.02, 0.04, 0.5])).round(4).tolist()
    [0.0833, 0.0833, 0.1111, 1.0]
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if not ok.size:
        return out
    total = ok.size if m is None else int(m)
    c = float(np.sum(1.0 / np.arange(1, total + 1)))
    order = ok[np.argsort(p[ok], kind="stable")]
    steps = total * c / np.arange(1, ok.size + 1) * p[order]
    out[order] = np.minimum(np.minimum.accumulate(steps[::-1])[::-1], 1.0)
    return out


def benjamini_yekutieli_reject(p: np.ndarray, q: float, m: int | None = None) -> np.ndarray:
    r"""Which hypotheses Benjamini and Yekutieli's step-up procedure rejects at level ``q``.

    The largest r with :math:`p_{(r)} \le \frac{r}{m}\,\frac{q}{c(m)}` and the r smallest p-values rejected, the
    comparison made in that form (so a p-value on a threshold is decided as the procedure states it, not through a
    rounded adjusted p-value). ``p`` and ``m`` as in :func:`benjamini_yekutieli`; NaN is never rejected.

    Examples
    --------
    >>> import numpy as np
    >>> benjamini_yekutieli_reject(np.array([0.01, 0.02, 0.04, 0.5]), 0.1).tolist()
    [True, True, False, False]
    """
    p = np.asarray(p, dtype=float)
    out = np.zeros(p.shape, dtype=bool)
    ok = np.flatnonzero(np.isfinite(p))
    if not ok.size:
        return out
    total = ok.size if m is None else int(m)
    c = float(np.sum(1.0 / np.arange(1, total + 1)))
    order = ok[np.argsort(p[ok], kind="stable")]
    below = np.flatnonzero(p[order] <= (np.arange(1, ok.size + 1) / total) * (q / c))
    if below.size:
        out[order[: below[-1] + 1]] = True
    return out


def holm(p: np.ndarray) -> np.ndarray:
    r"""Holm's step-down adjusted p-values of the finite entries of ``p`` (NaN stays NaN).

    With the finite p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`, the adjusted values are

    .. math:: \tilde p_{(i)} = \min\Bigl(1, \max_{j \le i} (m - j + 1)\, p_{(j)}\Bigr),

    so that rejecting every hypothesis whose adjusted p-value is below a level keeps the family-wise error rate at
    most that level.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian Journal of Statistics*,
    6(2), 65-70.
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if ok.size:
        order = ok[np.argsort(p[ok], kind="stable")]
        steps = (ok.size - np.arange(ok.size)) * p[order]
        out[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return out
