"""Raw agreement: per-item agreement, joint probability of agreement, SPA, percentage agreement."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from iaa_engine.base._choices import SPA_WEIGHTS
from iaa_engine.base._params import ANY, Real, validate
from iaa_engine.base._policy import check_replacement, invalid, safe_ratio, undefined
from iaa_engine.base._results import PairwiseMatrix
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.stats._sums import spa_weight_table, variance_from_moments

__all__ = [
    "SPA_WEIGHTS",
    "item_agreement",
    "joint_probability",
    "item_agreement_variance",
    "spa_item_weights",
    "spa",
    "spa_kappa",
    "percent_agreement",
    "percent_agreement_matrix",
]

SpaScheme = Literal["flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class"]


def _item_p(data: Annotations) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n_i, P_i, pairable mask)`` with ``P_i`` nan where ``n_i < 2``."""
    c = data.counts
    n = c.n_i
    ok = c.pairable
    p = safe_ratio(c.sumsq_i - n, n * (n - 1.0), np.nan)
    p[~ok] = np.nan
    return n, p, ok


@validate()
def item_agreement(data: Any, *, replace_undefined_by: float = np.nan) -> pd.Series:
    r"""Agreement of every item: the share of agreeing pairs among its annotations.

    .. math::

        P_i = \frac{1}{n_i (n_i - 1)} \sum_c n_{ic} (n_{ic} - 1)

    with :math:`n_{ic}` the annotations of item i in category c and :math:`n_i = \sum_c n_{ic}`: of the
    :math:`n_i (n_i - 1) / 2` pairs of annotations of the item, the share whose two labels agree (Nørregaard &
    Derczynski (2022), eqs. 1 and 7; the :math:`P_j` of Weeber (2025); Fleiss (1971)). An item with fewer than two
    annotations has no pair, so its agreement is undefined.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    replace_undefined_by : float, default nan
        Value for items with fewer than two annotations (their agreement is undefined). No warning is given.

    Returns
    -------
    pandas.Series
        The agreement of each item, from 0 to 1, indexed by item name and named ``'agreement'``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        ``data`` holds only sums over items (:meth:`Annotations.from_stats` with ``count_sums``), not the per-item
        counts this function needs.
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    joint_probability : The mean of these values.
    spa : Their weighted mean.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material,
    based on material by Eva Maria Vecchi).

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378-382.

    Examples
    --------
    The first item of the classroom exercise has the labels 1, 1, 2: one agreeing pair out of three.

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> ie.item_agreement(data).round(3).head(3)
    item_1    0.333
    item_2    0.333
    item_3    1.000
    Name: agreement, dtype: float64
    """
    data = as_annotations(data)
    fill = check_replacement(replace_undefined_by)
    _, p, ok = _item_p(data)
    p[~ok] = fill
    return pd.Series(p, index=data.items, name="agreement")


@validate()
def joint_probability(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Joint probability of agreement: the mean item agreement over the items with two or more annotations.

    .. math::

        \bar P = \frac{1}{I'} \sum_{i : n_i \ge 2} P_i

    with :math:`P_i` the agreement of item i (:func:`item_agreement`) and :math:`I'` the number of items with two or
    more annotations (Nørregaard & Derczynski (2022), eq. 2; Fleiss' :math:`\bar P`, Fleiss (1971)). Items with
    fewer than two annotations are left out. It equals :func:`spa` with ``weights='flat'``.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when no item has two or more annotations.

    Returns
    -------
    float
        The probability that two annotations of the same item agree, from 0 to 1.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    spa : The weighted mean, for items annotated by different numbers of annotators.
    fleiss_kappa : Its chance-corrected version.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378-382.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> round(ie.joint_probability(data), 4)  # 11/15: nine items at 1, six at 1/3
    0.7333
    """
    return spa(data, weights="flat", replace_undefined_by=replace_undefined_by)


@validate(p=ANY)
def item_agreement_variance(n: Any, p: Any) -> np.ndarray:
    r"""Exact variance of an item's agreement when its n labels are drawn i.i.d. from ``p``.

    .. math::

        q = \sum_c p_c^2,\quad r = \sum_c p_c^3,\qquad
        \operatorname{Var}[\hat P] = \frac{2\,\big(q(1-q) + 2(n-2)(r - q^2)\big)}{n(n-1)}

    This is the closed form of Nørregaard & Derczynski (2022), eq. 50 (Appendix B.4, with its factor
    :math:`1/(4N^2)`; the main text's eqs. 20-22 lose constant factors of the appendix's eqs. 41 and 50):
    :math:`\hat P` is the mean of :math:`N = n(n-1)/2` pair-agreement indicators with mean q, and two pairs that
    share one annotation covary by :math:`r - q^2`. For uniform p, :math:`r = q^2` and the variance is
    :math:`q(1-q)/N`.

    Parameters
    ----------
    n : int or array-like of int
        Annotations on the item, each a whole number of at least 0; an array gives one variance for each entry.
        An item with 0 or 1 annotation has no pair, so no agreement and no variance of one: nan (the undefined-
        value policy; a scalar ``n`` also warns why). Inverse-variance weighting gives such an item weight 0
        (:func:`spa_item_weights`).
    p : array-like of float
        Class distribution (non-negative, sums to 1).

    Returns
    -------
    ndarray of float
        The variance, with the shape of ``n``; nan where ``n < 2`` (no pair of annotations, so no agreement: an
        :class:`UndefinedMetricWarning` says so when ``n`` is one number; arrays are filled without a warning,
        as per-item tables are).

    Raises
    ------
    ValueError
        ``p`` is not a one-dimensional probability vector (non-negative, summing to 1 within 1e-9).
    InvalidParameterError
        ``n`` holds a negative, fractional or non-finite number, or is not numeric (a ``ValueError``).

    See Also
    --------
    spa_item_weights : The ``inv_var`` and ``inv_var_class`` weights are the inverses of this variance.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> ie.item_agreement_variance([1, 2, 3], [0.5, 0.5]).round(4).tolist()  # q(1 - q) / N, q = 1/2, N = 1 and 3
    [nan, 0.25, 0.0833]
    >>> round(float(ie.item_agreement_variance(3, [0.8, 0.2])), 4)  # 2 (0.68 * 0.32 + 2 * (0.52 - 0.68**2)) / 6
    0.1109
    """
    try:
        n = np.asarray(n, dtype=float)
    except (TypeError, ValueError):
        raise invalid("n", "a whole number of at least 0 (or an array of them)", n) from None
    flat = n.ravel()
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(flat) & (flat >= 0) & (flat == np.floor(flat)))
    if bad.any():  # a negative or fractional count is a mistake, not an item without pairs
        first = flat[bad][0].item()
        shown = int(first) if np.isfinite(first) and first == int(first) else first  # -3, not -3.0
        raise invalid("n", "a whole number of at least 0 (or an array of them)", shown)
    p = np.asarray(p, dtype=float)
    if p.ndim != 1 or p.size == 0 or (p < 0).any() or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"p must be a probability vector (non-negative, summing to 1); got {p!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        var = variance_from_moments(n, float(np.sum(p**2)), float(np.sum(p**3)))
    if n.ndim == 0 and n < 2:
        return np.asarray(
            undefined(
                "item_agreement_variance",
                f"an item with {int(n)} annotation{'s' * (int(n) != 1)} has no pair of annotations, so no agreement",
                np.nan,
            )
        )
    return np.where(n >= 2, np.maximum(var, 0.0), np.nan)


@validate()
def spa_item_weights(data: Any, *, weights: SpaScheme = "annotations_m1") -> pd.Series:
    r"""The weight :math:`k_i` SPA gives each item under a weighting scheme.

    ===================  ==========================================================
    ``flat``             1
    ``annotations``      :math:`n_i`
    ``annotations_m1``   :math:`n_i - 1`
    ``edges``            :math:`n_i (n_i - 1) / 2`
    ``inv_var``          :math:`1/\operatorname{Var}[\hat P_i]` with a uniform class distribution over the C categories
    ``inv_var_class``    :math:`1/\operatorname{Var}[\hat P_i]` under the observed classes :math:`p_c = n_c / n`
    ===================  ==========================================================

    The schemes of Nørregaard & Derczynski (2022), section 5. The inverse-variance weights are

    .. math::

        k_i = \frac{1}{\operatorname{Var}[\hat P_i]}
            = \frac{n_i (n_i - 1)}{2\,\big(q(1-q) + 2(n_i-2)(r - q^2)\big)},\qquad
        q = \sum_c p_c^2,\quad r = \sum_c p_c^3

    with the variance of :func:`item_agreement_variance`; :math:`p_c = 1/C` for ``inv_var``, and for
    ``inv_var_class`` the share of category c among all annotations. Items with fewer than two annotations get
    weight 0 in every scheme. When the class distribution is degenerate (a single category), every item's agreement
    is 1 with no variance; the weights then fall back to ``edges`` (the uniform limit, where
    :math:`1/\operatorname{Var}[\hat P_i]` is proportional to :math:`n_i (n_i - 1) / 2`).

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : {'flat', 'annotations', 'annotations_m1', 'edges', 'inv_var', 'inv_var_class'}, default 'annotations_m1'
        The weighting scheme.

    Returns
    -------
    pandas.Series
        The weight of each item (not normalised: :func:`spa` divides by their sum), indexed by item name and named
        ``'weight[<scheme>]'``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        ``data`` holds only sums over items (:meth:`Annotations.from_stats` with ``count_sums``), not the per-item
        counts this function needs.
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    spa : The weighted mean of the item agreements.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Examples
    --------
    Item t1 has three annotations, t2 two and t3 one:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("t1", "ann", "A"), ("t1", "bob", "A"), ("t1", "cat", "B"),
    ...         ("t2", "ann", "B"), ("t2", "bob", "B"), ("t3", "cat", "A")]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    >>> ie.spa_item_weights(data).tolist()  # n_i - 1
    [2.0, 1.0, 0.0]
    >>> ie.spa_item_weights(data, weights="inv_var").tolist()  # 1 / (q(1 - q) / N) = 4 N with q = 1/2 (two classes)
    [12.0, 4.0, 0.0]
    """
    data = as_annotations(data)
    sums = data.count_sums
    n = data.counts.n_i
    return pd.Series(
        spa_weight_table(n, weights, data.n_categories, sums.class_distribution()),
        index=data.items,
        name=f"weight[{weights}]",
    )


@validate()
def spa(
    data: Any,
    *,
    weights: SpaScheme = "annotations_m1",
    replace_undefined_by: float = np.nan,
) -> float:
    r"""Sparse Probability of Agreement (SPA), the weighted mean of the item agreements.

    .. math::

        \bar P_{\mathrm{spa}} = \frac{\sum_i k_i \hat P_i}{\sum_i k_i},\qquad
        \hat P_i = \frac{1}{n_i(n_i - 1)} \sum_c n_{ic}(n_{ic} - 1)

    with :math:`k_i` the weight of item i (:func:`spa_item_weights`; 0 for items with fewer than two annotations).
    SPA is the probability that two annotations of the same item agree, estimated from items annotated by
    different numbers of annotators (Nørregaard & Derczynski (2022), eq. 7). It is unbiased for the complete data's
    agreement when annotations are missing at random (their section 4). With ``flat`` weights it is the joint
    probability of agreement (:func:`joint_probability`, Fleiss' :math:`\bar P` on complete data); with
    ``annotations`` weights it is Krippendorff's nominal :math:`1 - D_o` (their eq. 6); with ``edges`` it pools
    every pair of annotations.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : {'flat', 'annotations', 'annotations_m1', 'edges', 'inv_var', 'inv_var_class'}, default 'annotations_m1'
        The weighting scheme, see :func:`spa_item_weights`. The default, ``annotations_m1``, is the paper's
        recommendation (section 6.4).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when no item has two or more annotations.

    Returns
    -------
    float
        The agreement, from 0 to 1.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    spa_kappa : SPA corrected for chance agreement.
    spa_standard_error : Its standard error.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378-382.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Examples
    --------
    Item t1 has agreement 1/3 over three annotations, t2 agreement 1 over two; t3 has a single annotation and
    weight 0:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("t1", "ann", "A"), ("t1", "bob", "A"), ("t1", "cat", "B"),
    ...         ("t2", "ann", "B"), ("t2", "bob", "B"), ("t3", "cat", "A")]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    >>> round(ie.spa(data), 4)  # (2 * 1/3 + 1 * 1) / (2 + 1)
    0.5556
    >>> round(ie.spa(data, weights="flat"), 4)  # (1/3 + 1) / 2
    0.6667
    """
    data = as_annotations(data)
    sums = data.count_sums
    if sums.n_pairable <= 0:
        return undefined("SPA", "no item has two or more annotations", replace_undefined_by)
    return float(sums.spa(weights))


@validate()
def spa_kappa(
    data: Any,
    *,
    weights: SpaScheme = "annotations_m1",
    replace_undefined_by: float = np.nan,
) -> float:
    r"""Chance-corrected SPA, with an expected agreement that stays unbiased under missing annotations.

    .. math::

        \kappa_{\mathrm{spa}} = \frac{\bar P_{\mathrm{spa}} - P_e}{1 - P_e},\qquad
        P_e = \frac{\sum_c n_c (n_c - 1)}{n (n - 1)}

    where :math:`\bar P_{\mathrm{spa}}` is :func:`spa` and :math:`n_c` counts category c among the n pairable
    annotations (those on items with two or more). :math:`P_e` is the chance that two *distinct* annotations agree:
    a U-statistic, unbiased for :math:`\sum_c p_c^2` under i.i.d. sampling and, under random removal of
    annotations, for the complete data's value, whereas the Fleiss-style :math:`\sum_c (n_c/n)^2` is biased upwards
    by about :math:`(1 - \sum_c p_c^2)/n` and the bias grows as annotations go missing. This is Krippendorff's
    expected agreement (Krippendorff 2011); with ``weights='annotations'`` the coefficient equals nominal
    Krippendorff's alpha exactly. The ratio keeps the :math:`O(1/n)` bias of any ratio estimator (Nørregaard &
    Derczynski (2022), section 4.4); :func:`missingness_simulation` measures both corrections.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : {'flat', 'annotations', 'annotations_m1', 'edges', 'inv_var', 'inv_var_class'}, default 'annotations_m1'
        The weighting scheme of :math:`\bar P_{\mathrm{spa}}`, see :func:`spa_item_weights`.
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when no item has two or more annotations or every
        pairable annotation has the same label (:math:`P_e = 1`, so the coefficient is 0/0).

    Returns
    -------
    float
        The coefficient: 1 for perfect agreement, 0 for agreement at chance level, negative below it.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    spa : The agreement before chance correction.
    krippendorff_alpha : Equal to this coefficient with ``weights='annotations'`` (nominal level).

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Examples
    --------
    The pairable annotations (items t1 and t2) are two A and three B, so
    :math:`P_e = (2 \cdot 1 + 3 \cdot 2) / (5 \cdot 4) = 2/5`:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("t1", "ann", "A"), ("t1", "bob", "A"), ("t1", "cat", "B"),
    ...         ("t2", "ann", "B"), ("t2", "bob", "B"), ("t3", "cat", "A")]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    >>> round(ie.spa_kappa(data), 4)  # (5/9 - 2/5) / (1 - 2/5), with SPA = 5/9
    0.2593
    >>> round(ie.spa_kappa(data, weights="annotations"), 4), round(ie.krippendorff_alpha(data), 4)
    (0.3333, 0.3333)
    """
    data = as_annotations(data)
    sums = data.count_sums
    if sums.n_pairable <= 0:
        return undefined("chance-corrected SPA", "no item has two or more annotations", replace_undefined_by)
    from iaa_engine.base._policy import chance_corrected

    return chance_corrected(
        float(sums.spa(weights)), float(sums.pairable_expected()), "chance-corrected SPA", replace_undefined_by
    )


@validate(tolerance=Real(0))
def percent_agreement(data: Any, *, tolerance: float = 0.0, replace_undefined_by: float = np.nan) -> float:
    r"""Overall percentage agreement: the share of items on which all annotators gave the same label.

    .. math::

        P_{\mathrm{overall}} = \frac{1}{I'} \sum_{i: n_i \ge 2} \mathbf 1\{x_{1i} = \dots = x_{n_i i}\}

    With a ``tolerance`` :math:`t > 0` (ordered categories), an item counts as agreed when its ratings lie
    within :math:`t` of each other, :math:`\max_j x_{ji} - \min_j x_{ji} \le t` (R irr's ``agree(ratings,
    tolerance)``, "extended percentage agreement").

    over the :math:`I'` items with two or more annotations, :math:`x_{1i}, \dots, x_{n_i i}` being the labels of
    item i (the technical report "Mathematical Foundations of Inter-Annotator Agreement Analysis" (2025), section 3.1,
    eq. 8, which states it for complete data). No correction for chance.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    tolerance : float, default 0
        Ratings this far apart still agree: on the categories' numbers, or on their positions 1..q when the labels
        are not numbers and their order is given (``level='ordinal'`` with ``categories=``). 1 on a 1–5 scale
        accepts neighbouring ratings.
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when no item has two or more annotations.

    Returns
    -------
    float
        The share of unanimous items (within the tolerance), from 0 to 1.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    percent_agreement_matrix : The same for every pair of annotators.
    joint_probability : The share of agreeing pairs instead of unanimous items.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025).

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> ie.percent_agreement(data)  # 9 of the 15 items are unanimous
    0.6
    >>> import pandas as pd
    >>> ratings = pd.DataFrame({"r1": [1, 2, 5], "r2": [1, 3, 3]})  # items in rows
    >>> likert = ie.Annotations.from_wide(ratings, annotators_as="columns")
    >>> ie.percent_agreement(likert), ie.percent_agreement(likert, tolerance=1)
    (0.3333333333333333, 0.6666666666666666)
    """
    data = as_annotations(data)
    sums = data.count_sums
    if sums.n_pairable <= 0:
        return undefined("percentage agreement", "no item has two or more annotations", replace_undefined_by)
    if tolerance == 0:
        return float(sums.percent_agreement())
    return _within_tolerance(data, float(tolerance))


def _within_tolerance(data: Annotations, tolerance: float) -> float:
    """The share of items (with two or more annotations) whose ratings span at most ``tolerance``."""
    numeric = pd.api.types.is_numeric_dtype(data.categories.dtype)
    if not numeric and data.level != "ordinal":
        raise ValueError(
            "a tolerance needs ordered categories: numeric labels, or text labels read with level='ordinal' and "
            f"categories=[lowest, ..., highest]; got {data.level} labels {list(data.categories)[:5]!r}"
        )
    values = data.categories.to_numpy(float) if numeric else np.arange(1.0, data.n_categories + 1.0)
    c = data.counts
    v = values[c.category]
    low = np.full(c.n_items, np.inf)
    high = np.full(c.n_items, -np.inf)
    np.minimum.at(low, c.item, v)
    np.maximum.at(high, c.item, v)
    ok = c.pairable
    return float(np.mean(high[ok] - low[ok] <= tolerance * (1 + 1e-12)))


@validate()
def percent_agreement_matrix(data: Any, *, replace_undefined_by: float = np.nan) -> PairwiseMatrix:
    r"""Pairwise percentage agreement for every pair of annotators, on the items both annotated.

    .. math::

        P_{ab} = \frac{|\{i \in J_{ab} : x_{ai} = x_{bi}\}|}{|J_{ab}|}

    with :math:`J_{ab}` the items annotated by both a and b and :math:`x_{ai}` the label a gave item i (the
    technical report "Mathematical Foundations of Inter-Annotator Agreement Analysis" (2025), section 3.2,
    eqs. 9-10; the agreement score :math:`A_{xy}` of Weeber (2025)). The diagonal is 1 for every annotator with at
    least one annotation.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    replace_undefined_by : float, default nan
        Value of the entries of pairs that share no item (no warning; ``n_shared`` tells which).

    Returns
    -------
    PairwiseMatrix
        ``metric='percent_agreement'``; ``values`` holds :math:`P_{ab}` and ``n_shared`` the number of items
        :math:`|J_{ab}|` (an annotator's own item count on the diagonal).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        ``data`` has no annotator identities (it was built from an items × categories count table).
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    percent_agreement : The share of items on which all annotators agree.
    cohen_kappa_matrix : The pairwise agreement corrected for chance.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025).

    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material,
    based on material by Eva Maria Vecchi).

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> ie.percent_agreement_matrix(data).to_frame()  # 12, 12 and 9 agreements on 15 shared items
                 annotator_0  annotator_1  annotator_2
    annotator_0          1.0          0.8          0.8
    annotator_1          0.8          1.0          0.6
    annotator_2          0.8          0.6          1.0
    """
    data = as_annotations(data)
    data.require_annotators("the pairwise agreement matrix")
    fill = check_replacement(replace_undefined_by)
    ps = data.pair_stats
    vals = safe_ratio(ps.n_agree, ps.n_shared, fill)
    return PairwiseMatrix("percent_agreement", list(data.annotators), vals, ps.n_shared.copy())
