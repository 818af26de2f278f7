r"""A rate measured through an imperfect classifier: Rogan–Gladen's correction, Lee et al.'s interval and their split
of a calibration budget. Closed forms on numbers (no data model), shared by the judge analysis and the planners."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["rogan_gladen", "lee_interval", "allocate_calibration"]


def rogan_gladen(p: Any, q0: Any, q1: Any) -> np.ndarray:
    r"""The prevalence behind an apparent rate, corrected for the classifier's errors, clipped to [0, 1].

    .. math::

        \hat\theta = \frac{p + q_0 - 1}{q_0 + q_1 - 1}

    with p the share the classifier calls positive, :math:`q_0` its specificity and :math:`q_1` its sensitivity
    (Rogan & Gladen 1978). NaN where :math:`q_0 + q_1 \le 1` (a classifier no better than chance carries no
    information about the rate).

    References
    ----------
    Rogan, W. J., & Gladen, B. (1978). Estimating prevalence from the results of a screening test. American Journal
    of Epidemiology 107(1), 71–76.

    Examples
    --------
    >>> float(rogan_gladen(0.4, 0.7, 0.9))  # (0.4 + 0.7 - 1) / (0.7 + 0.9 - 1)
    0.1666666666666668
    """
    p, q0, q1 = (np.asarray(v, dtype=float) for v in (p, q0, q1))
    d = q0 + q1 - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.clip((p + q0 - 1.0) / d, 0.0, 1.0)
    return np.where(d > 0, theta, np.nan)


def lee_interval(
    p: float, q0: float, q1: float, n: int, m0: int, m1: int, confidence: float = 0.95
) -> tuple[float, float]:
    r"""Lee et al.'s (2025) interval for the corrected rate, carrying the uncertainty of the test set and of both
    calibration sets.

    With :math:`z = \Phi^{-1}(1 - \alpha/2)`, the estimates smoothed (Agresti–Coull's for p, add-one for the
    calibration shares) :math:`\tilde p = (np + z^2/2)/(n + z^2)`, :math:`\tilde q_0 = (m_0 q_0 + 1)/(m_0 + 2)`,
    :math:`\tilde q_1 = (m_1 q_1 + 1)/(m_1 + 2)`, the sizes :math:`\tilde n = n + z^2`, :math:`\tilde m_j = m_j + 2`
    and :math:`\tilde\theta = (\tilde p + \tilde q_0 - 1)/(\tilde q_0 + \tilde q_1 - 1)`:

    .. math::

        \tilde\theta + d\theta \pm z\,\frac{\sqrt{\tilde p(1-\tilde p)/\tilde n
        + (1-\tilde\theta)^2\tilde q_0(1-\tilde q_0)/\tilde m_0 + \tilde\theta^2\tilde q_1(1-\tilde q_1)/\tilde m_1}}
        {\tilde q_0 + \tilde q_1 - 1},\qquad
        d\theta = 2z^2\Big(\frac{\tilde\theta\,\tilde q_1(1-\tilde q_1)}{\tilde m_1}
        - \frac{(1-\tilde\theta)\,\tilde q_0(1-\tilde q_0)}{\tilde m_0}\Big),

    each end clipped to [0, 1] (their ``confidence_interval``). NaN when the smoothed judge is no better than chance.

    Parameters
    ----------
    p : float
        The share judged positive among the ``n`` test items.
    q0, q1 : float
        Specificity on ``m0`` truly negative and sensitivity on ``m1`` truly positive calibration items.
    n, m0, m1 : int
        The sizes (positive).
    confidence : float, default 0.95
        Coverage, :math:`1 - \alpha`.

    Returns
    -------
    (lower, upper) : tuple of float

    References
    ----------
    Lee, C., Zeng, T., Jeong, J., Sohn, J., & Lee, K. (2025). How to correctly report LLM-as-a-judge evaluations.
    arXiv:2511.21140. Reference code: https://github.com/UW-Madison-Lee-Lab/LLM-judge-reporting.

    Examples
    --------
    The example of their README:

    >>> [round(v, 4) for v in lee_interval(0.4, 0.7, 0.9, 1000, 200, 200)]
    [0.0564, 0.2627]
    """
    from scipy.special import ndtri

    z = float(ndtri(1.0 - (1.0 - confidence) / 2.0))
    pt = (n * p + z**2 / 2) / (n + z**2)
    q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    nt, m0t, m1t = n + z**2, m0 + 2, m1 + 2
    d = q0t + q1t - 1
    if not d > 0:
        return math.nan, math.nan
    th = (pt + q0t - 1) / d
    shift = 2 * z**2 * (-(1 - th) * q0t * (1 - q0t) / m0t + th * q1t * (1 - q1t) / m1t)
    se = math.sqrt(pt * (1 - pt) / nt + (1 - th) ** 2 * q0t * (1 - q0t) / m0t + th**2 * q1t * (1 - q1t) / m1t) / d
    return min(1.0, max(0.0, th + shift - z * se)), min(1.0, max(0.0, th + shift + z * se))


def allocate_calibration(
    budget: int, p: float, q0: float, q1: float, pilot: int = 0, eps: float = 1e-6
) -> tuple[int, int]:
    r"""Split a calibration budget between truly negative (:math:`m_0`) and truly positive (:math:`m_1`) items to
    narrow the corrected rate's interval (Lee et al. 2025, their ``allocate_calibration_sample``).

    .. math::

        m_1 = \frac{m}{1 + (1/p - 1)\sqrt{\kappa}},\qquad
        \kappa = \frac{m_\text{pilot}(1 - q_0) + 1}{m_\text{pilot}(1 - q_1) + 1}

    (without a pilot, :math:`\kappa = (1 - q_0)/(1 - q_1)` from the beliefs, :math:`q_1` capped at
    :math:`1 - \epsilon`), rounded half to even and kept within :math:`[m_\text{pilot}, m - m_\text{pilot}]`;
    :math:`m_0 = m - m_1`. At :math:`p < \epsilon` the reference code gives :math:`m - m_\text{pilot}` to the
    positives; here the formula's own limit is kept (:math:`m_1 = m_\text{pilot}`: with no item judged positive the
    sensitivity does not enter the estimate).

    Parameters
    ----------
    budget : int
        The total m.
    p : float
        The share the judge calls positive on the test items.
    q0, q1 : float
        Pilot estimates (or beliefs) of the specificity and sensitivity.
    pilot : int, default 0
        The pilot calibration items already labelled.
    eps : float, default 1e-6
        Below this p counts as 0.

    Returns
    -------
    (m0, m1) : tuple of int

    References
    ----------
    Lee, C., Zeng, T., Jeong, J., Sohn, J., & Lee, K. (2025). How to correctly report LLM-as-a-judge evaluations.
    arXiv:2511.21140.

    Examples
    --------
    The allocation example of their README:

    >>> allocate_calibration(200, 0.4, 0.7, 0.9, pilot=10)
    (136, 64)
    """
    if p < eps:
        m1 = pilot
    else:
        if pilot == 0:
            kappa = (1 - q0) / (1 - min(q1, 1 - eps))
        else:
            kappa = (pilot * (1 - q0) + 1) / (pilot * (1 - q1) + 1)
        m1 = max(pilot, round(min(budget - pilot, budget / (1 + (1 / p - 1) * math.sqrt(kappa)))))
    return int(budget - m1), int(m1)
