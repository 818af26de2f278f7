"""Krippendorff's alpha at the nominal, ordinal, interval and ratio levels, overall and per annotator pair."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ._data import LEVELS, Annotations, as_annotations
from ._policy import EPS, check_choice, check_replacement, safe_ratio, undefined
from ._results import PairwiseMatrix

__all__ = ["krippendorff_alpha", "krippendorff_alpha_matrix", "coincidence_matrix"]


def _positions_from(level: str, totals: np.ndarray, values: np.ndarray | None, n_categories: int) -> np.ndarray:
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
    return values


def _positions(data: Annotations, level: str, totals: np.ndarray) -> np.ndarray:
    values = data.category_values(level) if level in ("interval", "ratio") else None
    return _positions_from(level, totals, values, data.n_categories)


def _delta(level: str, xc: np.ndarray, xk: np.ndarray) -> np.ndarray:
    """Krippendorff's squared difference functions."""
    if level == "nominal":
        return (xc != xk).astype(float)
    if level in ("ordinal", "interval"):
        return (xc - xk) ** 2
    s = xc + xk
    return np.divide((xc - xk) ** 2, s * s, out=np.zeros(np.broadcast(xc, s).shape), where=s != 0)


def _expected_sum(level: str, totals: np.ndarray, x: np.ndarray) -> np.ndarray:
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
    d = _delta(level, x[:, None], x[None, :])
    return np.einsum("...c,ck,...k->...", totals, d, totals)


def coincidence_matrix(data: Any) -> np.ndarray:
    r"""Krippendorff's coincidence matrix (dense, categories × categories).

    .. math::

        o_{ck} = \sum_{i: n_i \ge 2} \frac{n_{ic} n_{ik} - [c = k]\, n_{ic}}{n_i - 1}

    Krippendorff (2011), "Computing Krippendorff's alpha-reliability", §C;
    seed 004 §2.2 (``o_ck``). Rows and columns follow ``data.categories``.
    """
    data = as_annotations(data)
    return data.counts.coincidences().toarray()


def krippendorff_alpha(
    data: Any,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    replace_undefined_by: float = np.nan,
) -> float:
    r"""Krippendorff's alpha with missing data, at any level of measurement.

    .. math::

        \alpha = 1 - \frac{D_o}{D_e},\qquad
        D_o = \frac{1}{n} \sum_{c,k} o_{ck}\,\delta^2_{ck},\qquad
        D_e = \frac{1}{n(n-1)} \sum_{c,k} n_c n_k\, \delta^2_{ck}

    with :math:`o_{ck}` the coincidences (:func:`coincidence_matrix`),
    :math:`n_c = \sum_k o_{ck}` and n the number of pairable values (items with
    one annotation are dropped). Difference functions: nominal
    :math:`[c \ne k]`; ordinal :math:`(\sum_{g=c}^{k} n_g - \frac{n_c + n_k}{2})^2`;
    interval :math:`(c - k)^2`; ratio :math:`((c - k)/(c + k))^2`.

    Krippendorff (2011), "Computing Krippendorff's alpha-reliability"; seed 004
    §2; seed 002 (Datasaur's form :math:`(p_a - p_e)/(1 - p_e)` with the
    :math:`\bar r` correction gives the same value). Equals the ``krippendorff``
    package.

    Parameters
    ----------
    data : Annotations or convertible
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Defaults to ``data.level`` (nominal for raw input). Ordinal needs the
        category order (numbers, or ``categories=`` when building the data);
        interval and ratio need numbers; ratio needs non-negative numbers.
    replace_undefined_by : float, default nan
        Returned with a warning when no item has two annotations or when every
        pairable value is the same (:math:`D_e = 0`). Seed 004 §8.2 returns 1
        in that case: pass ``replace_undefined_by=1.0`` for that convention.
    """
    if level is not None:
        check_choice("level", level, LEVELS)
    data = as_annotations(data, level=level)
    level = data.level
    check_replacement(replace_undefined_by)
    if data.count_sums.n_pairable <= 0:
        return undefined("Krippendorff's alpha", "no item has two or more annotations", replace_undefined_by)
    values = data.category_values(level) if level in ("interval", "ratio") else None
    d_o, d_e = data.count_sums.alpha_parts(level, values)
    if not (d_e > EPS):
        return undefined(
            "Krippendorff's alpha",
            "every pairable value is the same, so expected disagreement is 0 and alpha is 0/0",
            replace_undefined_by,
        )
    return float(1.0 - d_o / d_e)


def krippendorff_alpha_matrix(
    data: Any,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    replace_undefined_by: float = np.nan,
) -> PairwiseMatrix:
    r"""Krippendorff's alpha for every pair of annotators on the items both annotated.

    For annotators a and b with shared items :math:`J_{ab}` (each item then
    has exactly two pairable values, :math:`n = 2|J_{ab}|`):

    .. math::

        D_o = \frac{1}{|J_{ab}|} \sum_{j \in J_{ab}} \delta^2(x_{aj}, x_{bj}),\qquad
        D_e = \frac{1}{n(n-1)} \sum_{c,k} n_c n_k\,\delta^2_{ck},\qquad
        \alpha_{ab} = 1 - D_o / D_e

    with :math:`n_c` counting both annotators' labels on :math:`J_{ab}` (ordinal
    distances use the pair's own marginals). This is Datasaur's labeller-vs-
    labeller and labeller-vs-reviewer matrix (seed 002: items with one label are
    removed before computing); a reviewer is just another annotator here.
    """
    if level is not None:
        check_choice("level", level, LEVELS)
    data = as_annotations(data, level=level)
    data.require_annotators("the pairwise alpha matrix")
    level = data.level
    fill = check_replacement(replace_undefined_by)
    ps = data.pair_stats
    m = ps.n_annotators
    shared = ps.n_shared.astype(float)
    totals = ps.pair_label_totals()  # (a, b, k)
    x = _positions(data, level, totals)
    if level == "ordinal":
        xk, xl = x[ps.a, ps.b, ps.k], x[ps.a, ps.b, ps.l]
    else:
        xk, xl = x[ps.k], x[ps.l]
    dis = np.bincount(ps.a * m + ps.b, weights=ps.count * _delta(level, xk, xl), minlength=m * m).reshape(m, m)
    d_o = safe_ratio(dis, shared, np.nan)
    n = 2.0 * shared
    d_e = safe_ratio(_expected_sum(level, totals, x), n * (n - 1.0), np.nan)
    vals = 1.0 - safe_ratio(d_o, d_e, np.nan)
    bad = (shared == 0) | ~(d_e > EPS) | ~np.isfinite(vals)
    vals[bad] = fill
    np.fill_diagonal(vals, np.where(np.diag(ps.n_shared) > 0, 1.0, fill))
    return PairwiseMatrix(f"krippendorff_alpha[{level}]", list(data.annotators), vals, ps.n_shared.copy())
