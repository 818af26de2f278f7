"""Krippendorff's difference functions of the levels of measurement, as array kernels on category positions.

Shared by the alpha of :mod:`iaa_engine.metrics` and by the batched sums of :mod:`iaa_engine.stats._sums` (the
bootstrap's replicates), so they live here, below both.
"""

from __future__ import annotations

import numpy as np

__all__ = ["positions_from", "delta", "expected_sum", "ratio_expected_sum", "RATIO_CELLS"]


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


def ratio_expected_sum(totals: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``sum_{c,k} n_c n_k ((x_c - x_k)/(x_c + x_k))^2`` over the categories in use, a block of rows at a time.

    The ratio metric has no moment form, so the C × C table is needed, but only one block of rows of it lives at
    once: memory O(C + block), time O(C_used^2).
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
