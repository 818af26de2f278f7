"""Krippendorff's difference functions of the levels of measurement, as array kernels on category positions.

Shared by the alpha of :mod:`iaa_engine.metrics` and by the batched sums of :mod:`iaa_engine.stats._sums` (the
bootstrap's replicates), so they live here, below both.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = [
    "positions_from",
    "delta",
    "expected_sum",
    "ratio_expected_sum",
    "ratio_expected_sum_exact",
    "ratio_expected_sum_quadrature",
    "ratio_row_sums",
    "ratio_row_sums_exact",
    "ratio_uses_quadrature",
    "RATIO_CELLS",
    "RATIO_QUADRATURE_Q",
]


def positions_from(level: str, totals: np.ndarray, values: np.ndarray | None, n_categories: int) -> np.ndarray:
    """Category positions x such that delta is a function of (x_c, x_k).

    Ordinal distances are squared differences of mid-ranks: with
    :math:`m_c = \\sum_{g \\le c} n_g - n_c/2`,
    :math:`\\big(\\sum_{g=c}^{k} n_g - \\tfrac{n_c + n_k}{2}\\big)^2 = (m_k - m_c)^2`,
    so the ordinal metric is the interval metric on mid-ranks. ``totals`` may
    carry leading batch axes (one set of marginals per annotator pair or per
    bootstrap replicate).
    """
    if level == "nominal":
        return np.arange(n_categories, dtype=float)
    if level == "ordinal":
        return np.cumsum(totals, axis=-1) - totals / 2.0
    if values is None:
        raise ValueError(f"the {level} level needs the categories' values")
    return values


def delta(level: str, xc: np.ndarray, xk: np.ndarray) -> np.ndarray:
    """Krippendorff's squared difference functions."""
    if level == "nominal":
        return (xc != xk).astype(float)
    if level in ("ordinal", "interval"):
        return (xc - xk) ** 2
    s = xc + xk
    return np.divide((xc - xk) ** 2, s * s, out=np.zeros(np.broadcast(xc, s).shape), where=s != 0)


def expected_sum(level: str, totals: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``sum_{c,k} n_c n_k delta(c, k)`` for marginals ``totals`` (batched on leading axes)."""
    if level == "nominal":
        n = totals.sum(axis=-1)
        return n * n - np.sum(totals * totals, axis=-1)
    if level in ("ordinal", "interval"):
        n = totals.sum(axis=-1)
        safe_n = np.where(n > 0, n, 1.0)
        centre = np.sum(totals * x, axis=-1) / safe_n
        xc = x - centre[..., None]  # centring keeps the moment formula accurate
        s1 = np.sum(totals * xc, axis=-1)
        s2 = np.sum(totals * xc * xc, axis=-1)
        return 2.0 * n * s2 - 2.0 * s1 * s1
    return ratio_expected_sum(totals, x)


#: Category pairs of the ratio metric evaluated at once (bounds its temporary table to about 32 MB).
RATIO_CELLS = 1 << 22

#: Above this many distinct positive values (and five times the quadrature's nodes) the ratio sums are an integral
#: by the trapezoidal rule (time O(q × nodes)); up to it, the exact sum over the pairs (time O(q²)), then as fast.
RATIO_QUADRATURE_Q = 4096

#: Step h of the trapezoidal rule in u = log t: the rule's error on one pair's integral is below 1e-16 relative
#: (:func:`_ratio_node_blocks`).
_RATIO_STEP = 0.2


def _ratio_rule(r: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Logarithms of nodes :math:`t_j` and weights :math:`W_j` (no overflow) with
    :math:`\sum_j W_j e^{-t_j s} = 1/s^2` to about :math:`10^{-15}` relative for every :math:`s \in [2r, 2]`
    (positive values scaled to a largest of 1, r the smallest).

    The trapezoidal rule of step h = 0.2 on :math:`1/s^2 = \int_0^\infty t e^{-ts}\,dt` after
    :math:`t = e^u` (see :func:`_ratio_node_blocks` for its error bound) and, to shorten the slow left tail, the
    double-exponential map :math:`u = v - e^{-v}` (Takahasi & Mori 1974): the integrand then decays doubly
    exponentially at both ends, the nodes run from v = -3.5 (u = -36.6) to :math:`u = \log(45/2r) + 0.5`, and
    :math:`W_j = h\,t_j^2 (1 + e^{-v_j})`: 48 nodes for values within a factor 10 of each other, 71 within a
    factor 1000, 140 from :math:`10^{-9}` to :math:`10^9` (at most about 3,800 for any double-precision values).
    The rule is checked on 4001 values of s spread evenly in log s over :math:`[2r, 2]`: error below
    :math:`10^{-14} (1 + \log(45/2r)/10)`, which allows for the rounding of exp at large arguments (weights near
    :math:`e^{1400}` when r is near 1e-300: about :math:`10^{-13}`; :math:`10^{-15}` for :math:`r \ge 10^{-3}`);
    should the check fail, the plain rule in u with its proven bound is used.
    """
    hi = float(np.log(45.0 / (2.0 * r)))
    v = np.arange(-3.5, hi + 3.0, _RATIO_STEP)
    u = v - np.exp(-v)
    keep = u <= hi + 0.5
    u, log_w = u[keep], np.log(_RATIO_STEP) + 2.0 * u[keep] + np.log1p(np.exp(-v[keep]))
    s = np.exp(np.linspace(np.log(2.0 * r), np.log(2.0), 4001))
    log_s = np.log(s)[:, None]
    err = np.max(np.abs(np.sum(np.exp(log_w - np.exp(u + log_s) + 2.0 * log_s), axis=1) - 1.0))
    if not err < 1e-14 * (1.0 + hi / 10.0):  # pragma: no cover - the map never failed the check
        u = -20.0 - np.log(2.0) + _RATIO_STEP * np.arange(int(np.ceil((hi + 20.0 + np.log(2.0)) / _RATIO_STEP)) + 1)
        log_w = np.log(_RATIO_STEP) + 2.0 * u
    return u, log_w


def ratio_uses_quadrature(x: np.ndarray) -> bool:
    """Whether the quadrature is cheaper than the pairs for these values: q above :data:`RATIO_QUADRATURE_Q` and
    five times the nodes (one node costs about as much as five pairs of values per value), and the smallest positive
    value at least 1e-300 times the largest (the nodes stay finite)."""
    pos = x[x > 0]
    return (
        pos.size > RATIO_QUADRATURE_Q
        and float(pos.min()) >= 1e-300 * float(pos.max())
        and pos.size > 5 * _ratio_rule(float(pos.min()) / float(pos.max()))[0].size
    )


def ratio_expected_sum(totals: np.ndarray, x: np.ndarray) -> np.ndarray:
    r"""``sum_{c,k} n_c n_k ((x_c - x_k)/(x_c + x_k))^2``: exact over the pairs up to
    :data:`RATIO_QUADRATURE_Q` values in use, by quadrature above (:func:`ratio_expected_sum_quadrature`).

    ``totals`` may carry leading batch axes; ``x`` are the categories' non-negative values.
    """
    used = np.flatnonzero(np.any(totals.reshape(-1, totals.shape[-1]) > 0, axis=0))
    if ratio_uses_quadrature(x[used]):
        return ratio_expected_sum_quadrature(totals[..., used], x[used])
    return ratio_expected_sum_exact(totals[..., used], x[used])


def ratio_expected_sum_exact(totals: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``sum_{c,k} n_c n_k ((x_c - x_k)/(x_c + x_k))^2`` over every pair of categories, a block of rows at a time.

    The reference the quadrature is tested against: memory O(C + block), time O(C^2).
    """
    used = np.flatnonzero(np.any(totals.reshape(-1, totals.shape[-1]) > 0, axis=0))
    t, xu = totals[..., used], x[used]
    out = np.zeros(totals.shape[:-1])
    step = max(1, RATIO_CELLS // max(used.size, 1))
    for lo in range(0, used.size, step):
        hi = min(lo + step, used.size)
        # the table is symmetric with a zero diagonal: the block's own square once, the columns after it twice
        rows = xu[lo:hi, None]
        diff, tot = rows - xu[None, lo:], rows + xu[None, lo:]
        d = np.divide(diff * diff, tot * tot, out=np.zeros(diff.shape), where=tot != 0)
        tb = t[..., lo:hi]
        out = out + np.einsum("...c,ck,...k->...", tb, d[:, : hi - lo], tb)
        out = out + 2.0 * np.einsum("...c,ck,...k->...", tb, d[:, hi - lo :], t[..., hi:])
    return out


def _ratio_node_blocks(x: np.ndarray, p: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    r"""The quadrature's nodes for positive values ``x`` (:func:`_ratio_rule`), a block at a time: ``(e, z)``, nodes ×
    values (rows contiguous: the products with the values' vectors run along them), with
    :math:`e_{cj} = e^{-t_j x_c}`, :math:`z_{cj} = \sqrt{W_j} (x_c - \bar x_j)`, so that
    :math:`\sum_j e_{cj} e_{kj} (z_{cj} - z_{kj})^2 \approx (x_c - x_k)^2/(x_c + x_k)^2`.

    :math:`\bar x_j` is the mean of the values weighted by :math:`p_c e^{-t_j x_c}`: the values that count at
    node j lie around it, and their differences from it are exact (Sterbenz) where the values cluster, so values
    close together keep their difference to the last digit (``t x`` would not). The nodes are those of
    :func:`_ratio_rule` divided by :math:`\max x` (the ratio difference does not change with the scale). Where e
    is not 0, |z| is below about 1000 (t x and the centre's t x̄ are below 745); elsewhere z may be large (below
    1e302 as the values are within a factor 1e300), so callers form e z and e z², never z² alone.

    The error bound of the plain rule in :math:`u = \log t`:

    One pair with :math:`s = x_c + x_k` contributes :math:`\int e^{2u} e^{-s e^u}\,du = 1/s^2` (times
    :math:`(x_c - x_k)^2`); with :math:`v = u + \log s` the integrand is :math:`g(v) = e^{2v - e^v}`, of integral 1,
    so every pair is the same integral shifted. Truncation: :math:`\int_{-\infty}^{V} g < e^{2V}/2 < 10^{-17}` for
    :math:`V = -20`, and :math:`\int_{V}^{\infty} g = (1 + e^V) e^{-e^V} < 10^{-17}` for :math:`e^V = 45`; with
    :math:`s \in [2r, 2]` (r the smallest value) the nodes run from :math:`u = -20 - \log 2` to
    :math:`\log(45 / 2r)`. Discretisation: g is analytic in the strip :math:`|\mathrm{Im}\,v| < \pi/2` with
    :math:`\int |g(v + ia)|\,dv = 1/\cos^2 a`, so the rule's error is at most
    :math:`2/(\cos^2 a\,(e^{2\pi a/h} - 1))` (Trefethen & Weideman 2014, Theorem 5.1): below :math:`10^{-16}`
    with h = 0.2 and a = 1.3. The number of nodes, :math:`(24 + \log(1/r))/h`, is at most about 3,850 for any
    double-precision values (:math:`r \ge 5\cdot10^{-324}`); 130 for values within a factor 10 of each other,
    330 from :math:`10^{-9}` to :math:`10^{9}`.
    """
    top = float(x.max())
    log_t, log_w = _ratio_rule(float(x.min()) / top)
    nodes, roots = np.exp(log_t - np.log(top)), np.exp(0.5 * log_w - np.log(top))
    step = max(1, RATIO_CELLS // x.size)
    for first in range(0, nodes.size, step):
        e = np.multiply.outer(-nodes[first : first + step], x)  # finite: t x <= 45 max/(2 min) <= 2.25e301
        np.exp(e, out=e)
        w0 = e @ p
        centre = np.divide(e @ (p * x), w0, out=np.zeros_like(w0), where=w0 > 0)
        z = x[None, :] - centre[:, None]  # exact for values within a factor 2 of the centre (Sterbenz)
        z *= roots[first : first + step, None]
        yield e, z


def ratio_expected_sum_quadrature(totals: np.ndarray, x: np.ndarray) -> np.ndarray:
    r"""``sum_{c,k} n_c n_k ((x_c - x_k)/(x_c + x_k))^2`` in time O(q × nodes), from an integral.

    Krippendorff's (2011) ratio difference is :math:`\delta^2_{ck} = ((c - k)/(c + k))^2`, 0 for
    :math:`c = k = 0`. A value 0 is at difference 1 from every positive value, so with :math:`n_0` the zeros and
    n all values, the pairs with a zero give :math:`2 n_0 (n - n_0)`. Over the positive values,
    :math:`1/(c + k)^2 = \int_0^\infty t\,e^{-t(c + k)}\,dt`, so

    .. math::

        \sum_{c,k} n_c n_k \frac{(c - k)^2}{(c + k)^2}
        = \int_0^\infty t \sum_{c,k} w_c w_k (c - k)^2\,dt
        = \int_{-\infty}^{\infty} 2 \big(A_0 A_2 - A_1^2\big)\,du,\qquad
        w_c = n_c e^{-tc},\ A_j = \sum_c w_c z_c^j,\ z_c = t (c - \bar x(t)),\ t = e^u

    (:math:`e^{2u}(c - k)^2 = (z_c - z_k)^2`). :math:`A_0 A_2 - A_1^2` is a weighted variance: centred on the
    weighted mean :math:`\bar x(t)` of the values (of all batches together) :math:`A_1` is about 0 and
    :math:`A_0 A_2` a sum of non-negative terms, so unlike the form :math:`n^2 - 4 \sum n_c n_k\,ck/(c + k)^2`
    it keeps its relative accuracy when the values cluster (when :math:`\delta^2 \ll 1`). In u the integrand is
    analytic and decays like :math:`e^{2u}` on the left and doubly exponentially on the right, so the trapezoidal
    rule converges exponentially (Trefethen & Weideman 2014, §5); :func:`_ratio_node_blocks` sets the range and
    step for an error below :math:`10^{-16}` relative on every pair. The q × nodes table is evaluated a block of
    nodes at a time (:data:`RATIO_CELLS` cells). A batch whose own weighted mean is far from the common one (the
    centring would lose more than three digits) is computed again on its own.

    Parameters
    ----------
    totals : numpy.ndarray, shape (..., q)
        Non-negative counts :math:`n_c`, with optional leading batch axes.
    x : numpy.ndarray, shape (q,)
        The non-negative values.

    Returns
    -------
    numpy.ndarray, shape (...)
        The sums (a 0-d array without batch axes).

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Trefethen, L. N., & Weideman, J. A. C. (2014). The exponentially convergent trapezoidal rule. SIAM Review
    56(3), 385-458.
    """
    totals = np.asarray(totals, dtype=float)
    x = np.asarray(x, dtype=float)
    batch = totals.shape[:-1]
    flat = totals.reshape(-1, x.size)
    zero = x == 0
    n = flat.sum(axis=1)
    n0 = flat[:, zero].sum(axis=1)
    out = 2.0 * n0 * (n - n0)
    pos = ~zero
    if np.count_nonzero(pos) >= 2:
        tp, c = flat[:, pos], x[pos]
        var, scale = _ratio_variance_integral(tp, c)
        bad = np.flatnonzero(scale > 1e3 * var) if tp.shape[0] > 1 else np.zeros(0, dtype=np.int64)
        for b in bad:  # own centre: one batch at a time
            var[b] = _ratio_variance_integral(tp[b : b + 1], c)[0][0]
        out = out + 2.0 * var
    return out.reshape(batch)


def _ratio_variance_integral(t: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`\sum_j (A_0 A_2 - A_1^2)(t_j)` per row of ``t`` (see :func:`ratio_expected_sum_quadrature`), and
    :math:`\sum_j A_0 A_2` (the size of the rounding errors of the difference)."""
    var = np.zeros(t.shape[0])
    scale = np.zeros(t.shape[0])
    tt = np.ascontiguousarray(t.T)
    for e, z in _ratio_node_blocks(c, t.sum(axis=0)):
        a0 = e @ tt  # nodes × batches
        e *= z
        a1 = e @ tt
        e *= z
        a2 = e @ tt
        var += np.sum(a0 * a2 - a1 * a1, axis=0)
        scale += np.sum(a0 * a2, axis=0)
    return var, scale


def ratio_row_sums(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    r"""For every value :math:`x_c`: :math:`\sum_k a_k\,((x_c - x_k)/(x_c + x_k))^2` (0 for :math:`x_c = x_k = 0`).

    With non-negative weights ``a`` and more than :data:`RATIO_QUADRATURE_Q` positive values (and five times the
    nodes), by the integral of
    :func:`ratio_expected_sum_quadrature` taken at each value (time O(q × nodes)):

    .. math::

        \sum_k a_k \frac{(c - k)^2}{(c + k)^2}
        = \int_{-\infty}^{\infty} e^{-tc} \big(B_0 z_c^2 - 2 B_1 z_c + B_2\big)\,du,\qquad
        B_j = \sum_k a_k e^{-tk} z_k^j,\ z = t (x - \bar x(t)),\ t = e^u

    over the positive values (a zero is at difference 1 from each of them), with :math:`\bar x(t)` the mean of the
    values weighted by :math:`a_k e^{-tk}`, so that :math:`B_1` is about 0 and the sum has no cancellation
    (it is :math:`\sum_k a_k e^{-tk} (z_c - z_k)^2`); otherwise over the pairs, in blocks (time O(q²)).

    Parameters
    ----------
    x : numpy.ndarray, shape (q,)
        Non-negative values.
    a : numpy.ndarray, shape (q,)
        Weights.

    Returns
    -------
    numpy.ndarray, shape (q,)

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Trefethen, L. N., & Weideman, J. A. C. (2014). The exponentially convergent trapezoidal rule. SIAM Review
    56(3), 385-458.
    """
    x = np.asarray(x, dtype=float)
    a = np.asarray(a, dtype=float)
    pos = x > 0
    if not ratio_uses_quadrature(x) or bool(np.any(a < 0)):
        return ratio_row_sums_exact(x, a)
    out = np.empty(x.size)
    a_pos = float(a[pos].sum())
    out[~pos] = a_pos
    c, w = x[pos], a[pos]
    acc = np.zeros(c.size)
    for e, z in _ratio_node_blocks(c, w):
        b0 = e @ w
        ez = e * z
        b1 = ez @ w
        cross = b1 @ ez
        ez *= z  # e z^2 (never z^2 alone: z may be huge where e is 0)
        b2 = ez @ w
        acc += b0 @ ez - 2.0 * cross + b2 @ e
    out[pos] = acc + float(a[~pos].sum())
    return out


def ratio_row_sums_exact(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """:func:`ratio_row_sums` over every pair, a block of rows at a time (the reference; time O(q²))."""
    x = np.asarray(x, dtype=float)
    a = np.asarray(a, dtype=float)
    step = max(1, RATIO_CELLS // max(x.size, 1))
    return np.concatenate(
        [delta("ratio", x[lo : lo + step, None], x[None, :]) @ a for lo in range(0, x.size, step)] or [np.zeros(0)]
    )
