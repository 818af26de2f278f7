r"""Agreement weights between categories: Gwet's eight families, or the user's own square array.

A weight :math:`w_{kl} \in [0, 1]` is the credit two annotations in categories :math:`k` and :math:`l` earn towards
agreement (1 on the diagonal: identical labels agree fully). The families are defined on the categories' values
:math:`x_1 < \dots < x_q` (their numbers, or their positions 1..q when the labels are not numbers), exactly as in
Gwet (2014, ch. 3) and irrCAC:

=============  ======================================================================================
``identity``   :math:`w_{kl} = [k = l]` (the unweighted coefficients)
``linear``     :math:`1 - |x_k - x_l| / R` with :math:`m = x_{min}`, :math:`M = x_{max}`, :math:`R = M - m`
``quadratic``  :math:`1 - (x_k - x_l)^2 / R^2`
``ordinal``    :math:`1 - m_{kl} / \max m`, :math:`m_{kl} = \binom{|k - l| + 1}{2}` (positions, not values)
``radical``    :math:`1 - \sqrt{|x_k - x_l|} / \sqrt{R}`
``ratio``      :math:`1 - \rho_{kl}^2 / \max \rho^2`, :math:`\rho_{kl} = (x_k - x_l) / (x_k + x_l)`
``circular``   :math:`1 - s_{kl} / \max s`, :math:`s_{kl} = \sin^2(\pi (x_k - x_l) / (R + 1))`
``bipolar``    :math:`1 - b_{kl} / \max b`, :math:`b_{kl} = \frac{(x_k - x_l)^2}{(x_k + x_l - 2m)(2M - x_k - x_l)}`
=============  ======================================================================================

With one category every family is the 1 × 1 identity. ``ratio`` needs non-negative values; a 0/0 (both values 0)
is taken as agreement (weight 1), where irrCAC refuses a category 0.

References
----------
Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.), ch. 3. Advanced Analytics.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from iaa_engine.base._choices import AGREEMENT_WEIGHTS
from iaa_engine.base._policy import invalid

__all__ = ["AGREEMENT_WEIGHTS", "weight_matrix", "check_weight_matrix"]


def weight_matrix(family: str, values: np.ndarray) -> np.ndarray:
    """The q × q weights of ``family`` on the categories' values (in the categories' order).

    ``values`` are the categories' numbers, or their positions 1..q. Raises ``ValueError`` for an unknown family or
    (``ratio``) negative values.
    """
    x = np.asarray(values, dtype=float)
    q = x.size
    if family == "identity" or q <= 1:
        if family not in AGREEMENT_WEIGHTS:
            raise ValueError(f"unknown weight family {family!r}")
        return np.eye(q)
    d = x[:, None] - x[None, :]
    span = float(x.max() - x.min())
    if family == "ordinal":
        pos = np.argsort(np.argsort(x, kind="stable"), kind="stable").astype(float)  # ranks: positions when sorted
        m = np.abs(pos[:, None] - pos[None, :]) + 1.0
        raw = m * (m - 1.0) / 2.0
        return 1.0 - raw / raw.max()
    if span == 0.0:  # distinct categories with one value: only identical labels agree
        return np.eye(q)
    if family == "linear":
        return 1.0 - np.abs(d) / span
    if family == "quadratic":
        return 1.0 - (d / span) ** 2
    if family == "radical":
        return 1.0 - np.sqrt(np.abs(d)) / np.sqrt(span)
    if family == "ratio":
        if x.min() < 0:
            raise ValueError(f"ratio weights need non-negative category values; got {x.min()!r}")
        s = x[:, None] + x[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(s > 0, d / np.where(s > 0, s, 1.0), 0.0) ** 2
        top = ((x.max() - x.min()) / (x.max() + x.min())) ** 2
        return 1.0 - r / top
    if family == "circular":
        raw = np.sin(np.pi * d / (span + 1.0)) ** 2
        return 1.0 - raw / raw.max() if raw.max() > 0 else np.eye(q)
    if family == "bipolar":
        s = x[:, None] + x[None, :]
        den = (s - 2.0 * x.min()) * (2.0 * x.max() - s)  # > 0 off the diagonal: two distinct values are not both
        with np.errstate(invalid="ignore", divide="ignore"):  # the minimum or both the maximum
            raw = np.where(d != 0, d**2 / np.where(d != 0, den, 1.0), 0.0)
        return 1.0 - raw / raw.max()
    raise ValueError(f"unknown weight family {family!r}")


def check_weight_matrix(weights: Any, n_categories: int) -> np.ndarray:
    """A user's q × q weight array as floats, or the one error saying what was expected and what came.

    Agreement weights are credits: finite, in [0, 1], 1 on the diagonal (identical labels agree fully), to 1e-12;
    one row and one column per category, in the categories' order.
    """
    q = n_categories
    expected = (
        f"a {q} × {q} array of weights in [0, 1] with 1 on the diagonal (a row and a column per category, in order)"
    )
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise invalid("weights", expected, weights) from None
    if w.shape != (q, q):
        raise invalid("weights", expected, f"shape {w.shape}")
    tol = 1e-12
    if not np.isfinite(w).all():
        raise invalid("weights", expected, "an array with a value that is not a finite number")
    if (w < -tol).any() or (w > 1 + tol).any():
        raise invalid("weights", expected, f"an array with values from {w.min():g} to {w.max():g}")
    off = np.flatnonzero(np.abs(np.diag(w) - 1.0) > tol)
    if off.size:
        raise invalid("weights", expected, f"{w[off[0], off[0]]:g} on the diagonal (row {off[0]})")
    return w
