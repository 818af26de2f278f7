r"""Intraclass correlation coefficients: the six forms of Shrout & Fleiss (1979), with F test and interval."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from iaa_engine.base._params import Choice, validate
from iaa_engine.base._policy import UndefinedMetricWarning, check_memory, external_stacklevel, undefined
from iaa_engine.base._results import Estimate
from iaa_engine.data._model import Annotations, as_annotations

__all__ = ["ICC_FORMS", "ICC_NAMES", "icc", "icc_forms"]

#: The six forms in Shrout & Fleiss's (1979) notation; :func:`icc` also takes their other common names.
ICC_FORMS = ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)")

#: Other names of the six forms: McGraw & Wong (1996) and the psych / pingouin packages.
_ALIASES = {
    "ICC1": "ICC(1,1)",
    "ICC2": "ICC(2,1)",
    "ICC3": "ICC(3,1)",
    "ICC1k": "ICC(1,k)",
    "ICC2k": "ICC(2,k)",
    "ICC3k": "ICC(3,k)",
    "ICC(1)": "ICC(1,1)",
    "ICC(A,1)": "ICC(2,1)",
    "ICC(C,1)": "ICC(3,1)",
    "ICC(k)": "ICC(1,k)",
    "ICC(A,k)": "ICC(2,k)",
    "ICC(C,k)": "ICC(3,k)",
}

#: Every name :func:`icc` accepts for a form: Shrout & Fleiss's, McGraw & Wong's, psych's and pingouin's.
ICC_NAMES = (*ICC_FORMS, *_ALIASES)

METHOD = (
    "Shrout & Fleiss (1979) mean squares; F test; exact F interval (Satterthwaite's for ICC(2,·)); standard error by "
    "the delta method on the mean squares (variance 2 MS^2 / df each)"
)

#: The coefficient is (a · m) / (b · m) with m = (MS_R, MS_C, MS_E, MS_W): a and b per form (n items, k ratings).
_COEFFICIENTS = {
    "ICC(1,1)": lambda n, k: ((1.0, 0.0, 0.0, -1.0), (1.0, 0.0, 0.0, k - 1.0)),
    "ICC(1,k)": lambda n, k: ((1.0, 0.0, 0.0, -1.0), (1.0, 0.0, 0.0, 0.0)),
    "ICC(2,1)": lambda n, k: ((1.0, 0.0, -1.0, 0.0), (1.0, k / n, k - 1.0 - k / n, 0.0)),
    "ICC(2,k)": lambda n, k: ((1.0, 0.0, -1.0, 0.0), (1.0, 1.0 / n, -1.0 / n, 0.0)),
    "ICC(3,1)": lambda n, k: ((1.0, 0.0, -1.0, 0.0), (1.0, 0.0, k - 1.0, 0.0)),
    "ICC(3,k)": lambda n, k: ((1.0, 0.0, -1.0, 0.0), (1.0, 0.0, 0.0, 0.0)),
}


def _delta_se(form: str, ms: dict[str, float], n: int, k: int) -> float:
    r"""The delta-method standard error of an ICC form from its mean squares.

        Every form is a ratio of linear combinations of the mean squares :math:`m = (MS_R, MS_C, MS_E, MS_W)`,
        :math:`
    ho = a^	op m / b^	op m`. Under the normal ANOVA model the mean squares are independent with
        :math:`\operatorname{Var}(MS) = 2\,E[MS]^2 / df` (df: :math:`n - 1`, :math:`k - 1`, :math:`(n-1)(k-1)`,
        :math:`n(k-1)`), so

        .. math::

            \widehat{\operatorname{Var}}(\hat
    ho) = \sum_j \Big(rac{a_j\, b^	op m - b_j\, a^	op m}{(b^	op m)^2}\Big)^2
            rac{2\, m_j^2}{df_j}

        For ICC(1,1) this is :math:`2(1-
    ho)^2(1+(k-1)
    ho)^2 (nk-1) / (k^2 n (n-1)(k-1))`, Fisher's (1925) large-sample
        variance :math:`2(1-
    ho)^2(1+(k-1)
    ho)^2 / (k(k-1)(n-1))` up to a factor :math:`1 + O(1/n)`.
    """
    a, b = (np.asarray(v) for v in _COEFFICIENTS[form](float(n), float(k)))
    m = np.array([ms["msr"], ms["msc"], ms["mse"], ms["msw"]])
    df = np.array([n - 1.0, k - 1.0, (n - 1.0) * (k - 1.0), n * (k - 1.0)])
    num, den = float(a @ m), float(b @ m)
    grad = (a * den - b * num) / den**2
    used = (a != 0) | (b != 0)  # the mean squares the form reads (one-way: MS_R, MS_W; two-way: MS_R, MS_C, MS_E)
    return float(np.sqrt(np.sum((grad**2 * 2.0 * m**2 / df)[used])))


def _note(form: str, n: int, total: int, k: int, m: int | None) -> str:
    """Which items the form rests on, and why the others were left out (empty when none was)."""
    if n == total:
        return ""
    if form.startswith("ICC(1"):
        why = f"those with the most common number of ratings (k = {k}); the one-way form needs k ratings per item"
    else:
        why = (
            f"those rated by all {m} annotators (complete cases); the two-way forms need every annotator on every item"
        )
    return f"{form} rests on {n} of the {total} rated items: {why}; {total - n} left out"


def _matrix(data: Annotations, form: str) -> tuple[np.ndarray, int]:
    """The items × ratings matrix the form needs, and how many items were left out.

    Two-way forms (raters crossed with items): the items rated by every annotator (complete cases). One-way forms
    (raters nested in items, who rated which does not matter): the items with the most common number of ratings
    :math:`k`, their ratings in any order.
    """
    if data.label is None:
        raise ValueError("the ICC needs the annotations themselves, not only statistics")
    try:
        values = data.category_values("interval")[data.label]
    except ValueError:
        raise ValueError(
            f"the ICC needs numeric ratings; got categories {list(data.categories)[:5]!r} (for categories use a "
            "kappa or Krippendorff's alpha)"
        ) from None
    n_i = np.bincount(data.item, minlength=data.n_items)
    if form.startswith("ICC(1"):
        rated = n_i[n_i > 0]
        k = int(np.bincount(rated).argmax()) if rated.size else 0
        keep = n_i == k
        order = np.argsort(data.item, kind="stable")
        item, vals = data.item[order], values[order]
        mask = keep[item]
        mat = vals[mask].reshape(-1, k) if k else np.empty((0, 0))
        return mat, int((n_i > 0).sum() - keep.sum())
    data.require_annotators("the two-way ICC")
    ann = cast(np.ndarray, data.annotator)  # required above
    m = cast(int, data.n_annotators)
    check_memory(
        16.0 * data.n_items * m,
        f"the two-way ICC's items × annotators table ({data.n_items} × {m})",
        "use the one-way form ICC(1,1), which needs no table",
    )
    full = np.full((data.n_items, m), np.nan)
    full[data.item, ann] = values
    complete = ~np.isnan(full).any(axis=1)
    return full[complete], int((n_i > 0).sum() - complete.sum())


#: Why the interval of an ICC of exactly 1 is undefined (``details['interval_note']``).
_EXACT = (
    "the ratings agree exactly ({error} = 0), so F = MS_R / {error} is infinite and the F interval has no finite "
    "bound (the estimate is 1)"
)


def _exact(form: str, ms: dict[str, float]) -> bool:
    """Whether the ratings agree exactly in the form's sense: no within-item variance (form 1), no residual
    (form 3), no residual and no rater effect (form 2). Zero up to rounding, relative to MS_R."""
    tiny = 1e-12 * ms["msr"]
    if form.startswith("ICC(1"):
        return ms["msw"] <= tiny
    return ms["mse"] <= tiny and (form.startswith("ICC(3") or ms["msc"] <= tiny)


def _mean_squares(x: np.ndarray) -> dict[str, float]:
    n, k = x.shape
    grand = x.mean()
    rows, cols = x.mean(axis=1), x.mean(axis=0)
    ss_rows = k * float(np.sum((rows - grand) ** 2))
    ss_cols = n * float(np.sum((cols - grand) ** 2))
    ss_within = float(np.sum((x - rows[:, None]) ** 2))
    # the residual's own squares (not SS_total - SS_rows - SS_cols, whose rounding can leave -1e-15 for a
    # residual that is exactly 0, e.g. two raters who agree to the digit)
    ss_error = float(np.sum((x - rows[:, None] - cols[None, :] + grand) ** 2))
    return {
        "msr": ss_rows / (n - 1),
        "msc": ss_cols / (k - 1),
        "mse": ss_error / ((n - 1) * (k - 1)),
        "msw": ss_within / (n * (k - 1)),
    }


@validate(form=Choice(*ICC_NAMES))
def icc(
    data: Any, form: str = "ICC(2,1)", *, confidence: float = 0.95, replace_undefined_by: float = float("nan")
) -> Estimate:
    r"""Intraclass correlation for numeric ratings (interval or ratio), one of Shrout & Fleiss's six forms.

    With :math:`n` items (targets), :math:`k` ratings each, and the mean squares of the items (:math:`MS_R`),
    of the raters (:math:`MS_C`), of the residual (:math:`MS_E`) and within items (:math:`MS_W`):

    .. math::

        \mathrm{ICC}(1,1) = \frac{MS_R - MS_W}{MS_R + (k-1) MS_W},\quad
        \mathrm{ICC}(2,1) = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E + k (MS_C - MS_E)/n},\quad
        \mathrm{ICC}(3,1) = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E}

        \mathrm{ICC}(1,k) = \frac{MS_R - MS_W}{MS_R},\quad
        \mathrm{ICC}(2,k) = \frac{MS_R - MS_E}{MS_R + (MS_C - MS_E)/n},\quad
        \mathrm{ICC}(3,k) = \frac{MS_R - MS_E}{MS_R}

    ``(·,1)`` is the reliability of one rater, ``(·,k)`` of the mean of k raters; form 1 is one-way random
    (each item rated by its own raters), 2 two-way random (absolute agreement; McGraw & Wong's ICC(A,·)), 3
    two-way mixed (consistency; ICC(C,·)). The p-value is the F test of ICC = 0 (:math:`F = MS_R/MS_W` for form
    1, :math:`MS_R/MS_E` otherwise); the interval is the exact F interval of Shrout & Fleiss, Satterthwaite's
    approximation for form 2 (McGraw & Wong 1996, table 7).

    Missing ratings: the two-way forms need raters crossed with items, so they use the items every annotator
    rated (complete cases); the one-way forms use the items with the most common number of ratings :math:`k`,
    whoever gave them. ``n_items`` is the items used; ``details`` says how many were rated (``items_rated``) and
    left out (``items_dropped``), and ``details['note']`` says so in a sentence ("ICC(2,1) rests on 30 of the 40
    rated items: those rated by all 4 annotators ...; 10 left out"; empty when none was).

    The standard error is the delta method's on the mean squares (each mean square independent
    with variance :math:`2 MS^2/df` under the normal ANOVA model); the interval stays the exact F interval.

    Parameters
    ----------
    data : Annotations or convertible
        Numeric ratings (the interval or ratio level, or labels that are numbers).
    form : str, default 'ICC(2,1)'
        One of :data:`ICC_FORMS`, or its McGraw & Wong name (``'ICC(1)'``, ``'ICC(A,1)'``, ``'ICC(C,1)'``,
        ``'ICC(k)'``, ``'ICC(A,k)'``, ``'ICC(C,k)'``) or its psych/pingouin name (``'ICC1'`` … ``'ICC3k'``).
    confidence : float, default 0.95
        Coverage of the interval, in (0, 1).
    replace_undefined_by : float, default nan
        Returned with an :class:`UndefinedMetricWarning` when fewer than two items or raters remain, or the
        ratings have no variance.

    Notes
    -----
    Perfect agreement (the error mean square is 0: two copies of a file, a rater who repeats themself exactly)
    is a normal case: the estimate is 1 and the F test's p-value 0, but :math:`F = MS_R / 0` is infinite, so the
    F interval has no finite bound and the delta method no variance to estimate. ``se``, ``lower`` and ``upper``
    are then nan, an :class:`UndefinedMetricWarning` says why, and ``details['interval_note']`` keeps the reason.

    Returns
    -------
    Estimate
        ``estimate``, ``se`` (delta method), ``lower``, ``upper``, ``p_value`` (F test), ``n_items`` (the items
        used); ``details`` holds ``F``, ``df1``, ``df2``, ``k``, the mean squares, ``items_used``, ``items_rated``,
        ``items_dropped`` and ``note`` (which items were used and why others were left out; empty when none was).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        The labels are not numbers; a two-way form on data without annotator identities.

    References
    ----------
    Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater reliability.
    Psychological Bulletin 86(2), 420–428.

    McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass correlation coefficients.
    Psychological Methods 1(1), 30–46.

    Fisher, R. A. (1925). Statistical Methods for Research Workers, §40. Oliver & Boyd.

    Examples
    --------
    Shrout & Fleiss's (1979) Table 2: six targets rated by four judges.

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> ratings = pd.DataFrame([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    ...                        columns=["j1", "j2", "j3", "j4"])
    >>> data = ie.Annotations.from_wide(ratings, annotators_as="columns", level="interval")
    >>> [round(ie.icc(data, f).estimate, 2) for f in ie.ICC_FORMS]  # Shrout & Fleiss, Table 4
    [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    """
    form = _ALIASES.get(form, form)
    data = as_annotations(data)
    mat, dropped = _matrix(data, form)
    return _icc_of(form, mat, dropped, data.n_annotators, confidence, replace_undefined_by)


def icc_forms(data: Any, forms: Sequence[str] = ICC_FORMS, *, confidence: float = 0.95) -> dict[str, Estimate]:
    """:func:`icc` of several forms, the items × ratings table built once per design (one-way, two-way): what the
    report computes. Each form warns as :func:`icc` does."""
    data = as_annotations(data)
    out: dict[str, Estimate] = {}
    tables: dict[bool, tuple[np.ndarray, int]] = {}
    for form in forms:
        form = _ALIASES.get(form, form)
        one_way = form.startswith("ICC(1")
        if one_way not in tables:
            tables[one_way] = _matrix(data, form)
        out[form] = _icc_of(form, *tables[one_way], data.n_annotators, confidence, float("nan"))
    return out


def _icc_of(
    form: str, mat: np.ndarray, dropped: int, n_annotators: int | None, confidence: float, replace_undefined_by: float
) -> Estimate:
    """:func:`icc` of one form on its items × ratings table (``dropped``: the rated items left out of it)."""
    n, k = mat.shape if mat.ndim == 2 else (0, 0)
    ms = _mean_squares(mat) if n >= 2 and k >= 2 else None
    return icc_of_mean_squares(form, ms, n, k, dropped, n_annotators, confidence, replace_undefined_by)


def icc_of_mean_squares(
    form: str,
    ms: dict[str, float] | None,
    n: int,
    k: int,
    dropped: int,
    n_annotators: int | None,
    confidence: float,
    replace_undefined_by: float = float("nan"),
) -> Estimate:
    """:func:`icc` of one form from the mean squares of its n × k items × ratings table (``ms``: MS_R, MS_C, MS_E,
    MS_W as ``msr``, ``msc``, ``mse``, ``msw``; None when n or k is below 2), however they were summed (in memory
    from the table, or over partitions of whole items on a cluster)."""
    from scipy import special  # the F distribution without importing scipy.stats (~1.5 s)

    nan = float("nan")
    total = n + dropped
    kept = {
        "items_used": n,
        "items_rated": total,
        "items_dropped": dropped,
        "note": _note(form, n, total, k, n_annotators),
    }
    if n < 2 or k < 2 or ms is None:
        value = undefined(form, f"it needs two items with two ratings each; {n} × {k} remain", replace_undefined_by)
        return Estimate(form, value, nan, nan, nan, nan, float(confidence), n, METHOD, kept)
    msr, msc, mse, msw = ms["msr"], ms["msc"], ms["mse"], ms["msw"]
    one, single = form.startswith("ICC(1"), form.endswith(",1)")
    if one:
        num, den = msr - msw, (msr + (k - 1) * msw if single else msr)
        f0, df1, df2 = msr / msw if msw > 0 else np.inf, n - 1, n * (k - 1)
    else:
        num = msr - mse
        if form.startswith("ICC(2"):
            den = msr + (k - 1) * mse + k * (msc - mse) / n if single else msr + (msc - mse) / n
        else:
            den = msr + (k - 1) * mse if single else msr
        f0, df1, df2 = msr / mse if mse > 0 else np.inf, n - 1, (n - 1) * (k - 1)
    details: dict[str, Any] = {"F": f0, "df1": df1, "df2": df2, "k": k, **ms, **kept}
    if den <= 0 or not np.isfinite(num / den):
        value = undefined(form, "the ratings have no variance between items, so it is 0/0", replace_undefined_by)
        return Estimate(form, value, nan, nan, nan, nan, float(confidence), n, METHOD, details)
    value = num / den
    p = float(special.fdtrc(df1, df2, f0)) if np.isfinite(f0) else 0.0
    if _exact(form, ms):
        # perfect agreement: the estimate is 1; the F interval inverts F = MS_R / 0 and has no finite bound
        reason = _EXACT.format(error="MS_W" if one else "MS_E")
        details["interval_note"] = reason
        warnings.warn(
            f"{form}'s standard error and interval are undefined: {reason}; returning nan for them",
            UndefinedMetricWarning,
            stacklevel=external_stacklevel(),
        )
        details["F"] = np.inf
        return Estimate(form, 1.0, nan, nan, nan, 0.0, float(confidence), n, METHOD, details)
    q = 1.0 - (1.0 - confidence) / 2.0
    if form.startswith("ICC(2"):
        rho = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)  # ICC(2,1)
        a = k * rho / (n * (1.0 - rho))
        b = 1.0 + k * rho * (n - 1) / (n * (1.0 - rho))
        v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)))
        f_star, f_low = special.fdtri(n - 1, v, q), special.fdtri(v, n - 1, q)
        lo = n * (msr - f_star * mse) / (f_star * (k * msc + (k * n - k - n) * mse) + n * msr)
        hi = n * (f_low * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_low * msr)
        if not single:
            lo, hi = lo * k / (1 + lo * (k - 1)), hi * k / (1 + hi * (k - 1))
    else:
        fl = f0 / special.fdtri(df1, df2, q)
        fu = f0 * special.fdtri(df2, df1, q)
        if single:
            lo, hi = (fl - 1) / (fl + k - 1), (fu - 1) / (fu + k - 1)
        else:
            lo, hi = 1 - 1 / fl, 1 - 1 / fu
    se = _delta_se(form, ms, n, k)
    return Estimate(form, float(value), se, float(lo), float(hi), p, float(confidence), n, METHOD, details)
