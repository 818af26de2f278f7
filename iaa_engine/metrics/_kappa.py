"""The kappa family: Cohen, Scott, Fleiss, Artstein & Poesio's multi-coder kappa and bias, Gwet's AC1,
Brennan-Prediger."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, validate
from iaa_engine.base._policy import chance_corrected, check_replacement, safe_ratio, undefined
from iaa_engine.base._results import PairwiseMatrix
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.metrics._weighted import (
    KAPPA_WEIGHTS,
    gwet_coefficient,
    gwet_parts,
    is_identity,
    pair_data,
    pair_weighted,
    resolve_weights,
)
from iaa_engine.stats._tables import PairStats

__all__ = [
    "cohen_kappa",
    "cohen_kappa_matrix",
    "scott_pi",
    "scott_pi_matrix",
    "fleiss_kappa",
    "multi_kappa",
    "annotator_bias",
    "gwet_ac1",
    "brennan_prediger",
    "percent_agreement_weighted",
    "bangdiwala_b",
    "fleiss_kappa_by_category",
    "pick_pair",
]


# --------------------------------------------------------------------------- pairwise (two annotators)


def _pair_expected(ps: PairStats, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(observed, expected, n_shared)`` for every ordered annotator pair; Cohen or Scott expectation."""
    s = ps.n_shared.astype(float)
    observed = safe_ratio(ps.n_agree, s, np.nan)
    r, t = ps.pair_marginals  # (pair, k): a's and b's labels on their shared items, sparse
    if kind == "cohen":
        # E_ab = sum_k n_a(k|J_ab) n_b(k|J_ab) / |J_ab|^2
        per_pair: np.ndarray = np.asarray(r.multiply(t).sum(axis=1)).ravel()
    else:
        # Scott: one pooled distribution of both annotators' labels on J_ab
        tot = ps.pair_label_totals()
        per_pair = np.asarray(tot.multiply(tot).sum(axis=1)).ravel() / 4.0
    cross = ps.per_pair(per_pair)
    expected = safe_ratio(cross, s * s, np.nan)
    return observed, expected, ps.n_shared


def _weights_name(weights: Any) -> str:
    return weights if isinstance(weights, str) else "custom"


def _weighted(data: Annotations, kind: str, metric: str, weights: Any, replace_undefined_by: float) -> float:
    """A weighted multi-annotator coefficient (Gwet's framework) under the undefined-result policy."""
    est = gwet_coefficient(data, kind, resolve_weights(data, weights), with_variance=False)
    if not np.isfinite(est.pa):
        return undefined(metric, "no item has two or more annotations", replace_undefined_by)
    if not np.isfinite(est.estimate):
        reason = (
            "it needs at least two categories"
            if data.n_categories < 2
            else "it needs at least two annotators"
            if kind == "multi_kappa"
            else "the chance agreement is 1, so the coefficient is 0/0"
        )
        return undefined(metric, reason, replace_undefined_by)
    return est.estimate


def _pair_matrix(
    data: Any, kind: str, metric: str, replace_undefined_by: float, weights: Any = "identity"
) -> PairwiseMatrix:
    data = as_annotations(data)
    data.require_annotators(metric)
    fill = check_replacement(replace_undefined_by)
    if is_identity(weights):
        obs, exp, shared = _pair_expected(data.pair_stats, kind)
    else:
        obs, exp, shared = pair_weighted(data, resolve_weights(data, weights), kind)
        metric = f"{metric}[{_weights_name(weights)}]"
    vals = safe_ratio(obs - exp, 1.0 - exp, fill)
    vals[(shared == 0) | ~np.isfinite(vals)] = fill
    has_items = np.diag(shared) > 0
    np.fill_diagonal(vals, np.where(has_items, 1.0, fill))
    return PairwiseMatrix(metric, list(data.annotators), vals, shared.copy())


def pick_pair(data: Annotations, a: Any, b: Any, metric: str) -> tuple[int, int]:
    """The codes of the pair ``(a, b)`` (both None: the data's two annotators), or a clear error."""
    annotators = cast(pd.Index, data.annotators)  # the callers require annotators
    names = list(annotators)
    if a is None and b is None:
        if len(names) != 2:
            raise ValueError(
                f"{metric} compares two annotators; the data has {len(names)} ({names[:6]!r}...). "
                "Name them with annotator_a= and annotator_b=, or use the matrix function"
            )
        return 0, 1
    if a is None or b is None:
        raise ValueError("give both annotator_a and annotator_b, or neither")
    out = []
    for who in (a, b):
        hit = annotators.get_indexer([who])[0]
        if hit < 0:
            raise ValueError(f"annotator {who!r} is not in the data; annotators are {names[:10]!r}")
        out.append(int(hit))
    if out[0] == out[1]:
        raise ValueError(f"annotator_a and annotator_b must differ; both are {a!r}")
    return out[0], out[1]


def _pair_scalar(
    data: Any, a: Any, b: Any, kind: str, metric: str, replace_undefined_by: float, weights: Any = "identity"
) -> float:
    data = as_annotations(data)
    data.require_annotators(metric)
    i, j = pick_pair(data, a, b, metric)
    names = (data.annotators[i], data.annotators[j])
    if not is_identity(weights):
        sub = pair_data(data, i, j)
        obs, exp, shared = pair_weighted(sub, resolve_weights(data, weights), kind)
        i, j = 0, 1
        if shared[i, j] == 0:
            return undefined(metric, f"annotators {names[0]!r} and {names[1]!r} share no item", replace_undefined_by)
        return chance_corrected(obs[i, j], exp[i, j], metric, replace_undefined_by)
    ps = data.__dict__.get("pair_stats")
    if ps is None:  # only this pair's annotations: memory and time O(their annotations), not every pair's
        mine = (data.annotator == i) | (data.annotator == j)
        ps = PairStats.from_codes(
            data.item[mine],
            (data.annotator[mine] == j).astype(np.int64),
            data.label[mine],
            data.n_items,
            2,
            data.n_categories,
        )
        i, j = 0, 1
    obs, exp, shared = _pair_expected(ps, kind)
    if shared[i, j] == 0:
        return undefined(metric, f"annotators {names[0]!r} and {names[1]!r} share no item", replace_undefined_by)
    return chance_corrected(obs[i, j], exp[i, j], metric, replace_undefined_by)


@validate(weights=KAPPA_WEIGHTS)
def cohen_kappa(
    data: Any,
    annotator_a: Any = None,
    annotator_b: Any = None,
    *,
    weights: str | np.ndarray = "identity",
    replace_undefined_by: float = np.nan,
) -> float:
    r"""Cohen's kappa between two annotators on the items both annotated.

    .. math::

        A_{xy} = \frac{|\{j \in J : a_{xj} = a_{yj}\}|}{|J|},\quad
        E_{xy} = \sum_k \frac{n_x(k)}{|J|}\frac{n_y(k)}{|J|},\quad
        \kappa_{xy} = \frac{A_{xy} - E_{xy}}{1 - E_{xy}}

    where J is the set of items annotated by both x and y, :math:`a_{xj}` the label x gave item j, and
    :math:`n_x(k)` counts x's labels k on J (Cohen 1960; the "Cohen's Kappa" of Weeber (2025)). Each annotator
    keeps their own label distribution in the chance agreement :math:`E_{xy}`.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    annotator_a, annotator_b : optional
        Names of the two annotators (as in ``data.annotators``); both may be omitted when the data has exactly two
        annotators.
    weights : str or array, default 'identity'
        Agreement weights between categories: one of Gwet's families by name (``identity``, ``linear``,
        ``quadratic``, ``ordinal``, ``radical``, ``ratio``, ``circular``, ``bipolar``; :data:`AGREEMENT_WEIGHTS`)
        or a q × q array over the categories in order, row: ``annotator_a``'s label, column: ``annotator_b``'s
        (an asymmetric array makes the order of the pair matter). Weighted:
        :math:`\kappa_w = (\sum_{kl} w_{kl} o_{kl} - \sum_{kl} w_{kl} m^a_k m^b_l) / (1 - \sum_{kl} w_{kl} m^a_k m^b_l)`
        on the shared items (:math:`o` the joint shares, :math:`m^a, m^b` the annotators' label shares); with
        linear or quadratic weights on labels 1..q it equals scikit-learn's ``cohen_kappa_score(weights=...)``.
        Not SPA's ``weights`` (item weighting).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when the two annotators share no item or
        :math:`E_{xy} = 1` (both gave one and the same label to every shared item, so kappa is 0/0).

    Returns
    -------
    float
        Kappa: 1 for perfect agreement, 0 for agreement at chance level, negative below it.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        ``data`` has no annotator identities (it was built from an items × categories count table); neither
        annotator is named and the data does not have exactly two annotators; only one of ``annotator_a`` and
        ``annotator_b`` is given; a named annotator is not in the data; or both name the same annotator.
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    cohen_kappa_matrix : Cohen's kappa for every pair of annotators.
    scott_pi : The same with one label distribution pooled over both annotators.

    Notes
    -----
    Equals ``sklearn.metrics.cohen_kappa_score`` on the shared items.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37-46.

    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material,
    based on material by Eva Maria Vecchi).

    Examples
    --------
    The worked example of the classroom exercise: annotators 0 and 1 agree on 12 of 15 items, and
    :math:`E_{01} = (6 \cdot 6 + 4 \cdot 5 + 5 \cdot 4) / 15^2 = 76/225`:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> round(ie.cohen_kappa(data, "annotator_0", "annotator_1"), 4)  # (12/15 - 76/225) / (1 - 76/225)
    0.698
    """
    return _pair_scalar(data, annotator_a, annotator_b, "cohen", "Cohen's kappa", replace_undefined_by, weights)


@validate(weights=KAPPA_WEIGHTS)
def cohen_kappa_matrix(
    data: Any, *, weights: str | np.ndarray = "identity", replace_undefined_by: float = np.nan
) -> PairwiseMatrix:
    r"""Cohen's kappa for every pair of annotators, with the number of shared items.

    .. math::

        \kappa_{ab} = \frac{A_{ab} - E_{ab}}{1 - E_{ab}}

    with the observed agreement :math:`A_{ab}` and the chance agreement :math:`E_{ab}` of annotators a and b on
    the items both annotated, as in :func:`cohen_kappa` (Cohen 1960; the pairwise kappas of Weeber (2025)). The
    matrix is symmetric; the diagonal is 1 for every annotator with at least one annotation.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : str or array, default 'identity'
        Agreement weights between categories: one of Gwet's families by name (``identity``, ``linear``,
        ``quadratic``, ``ordinal``, ``radical``, ``ratio``, ``circular``, ``bipolar``; :data:`AGREEMENT_WEIGHTS`)
        or a q × q array over the categories in order, row: ``annotator_a``'s label, column: ``annotator_b``'s
        (an asymmetric array makes the order of the pair matter). Weighted:
        :math:`\kappa_w = (\sum_{kl} w_{kl} o_{kl} - \sum_{kl} w_{kl} m^a_k m^b_l) / (1 - \sum_{kl} w_{kl} m^a_k m^b_l)`
        on the shared items (:math:`o` the joint shares, :math:`m^a, m^b` the annotators' label shares); with
        linear or quadratic weights on labels 1..q it equals scikit-learn's ``cohen_kappa_score(weights=...)``.
        Not SPA's ``weights`` (item weighting).
    replace_undefined_by : float, default nan
        Value of the entries of pairs that share no item or whose expected agreement is 1 (no warning;
        ``n_shared`` tells which pairs share no item).

    Returns
    -------
    PairwiseMatrix
        ``metric='cohen_kappa'``; ``values`` holds the kappas and ``n_shared`` the number of shared items (an
        annotator's own item count on the diagonal).

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
    cohen_kappa : One pair, with a warning when undefined.
    scott_pi_matrix : Scott's pi for every pair.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37-46.

    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material,
    based on material by Eva Maria Vecchi).

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> ie.cohen_kappa_matrix(data).to_frame().round(3)
                 annotator_0  annotator_1  annotator_2
    annotator_0        1.000        0.698        0.708
    annotator_1        0.698        1.000        0.408
    annotator_2        0.708        0.408        1.000
    """
    return _pair_matrix(data, "cohen", "cohen_kappa", replace_undefined_by, weights)


@validate(weights=KAPPA_WEIGHTS)
def scott_pi(
    data: Any,
    annotator_a: Any = None,
    annotator_b: Any = None,
    *,
    weights: str | np.ndarray = "identity",
    replace_undefined_by: float = np.nan,
) -> float:
    r"""Scott's pi between two annotators on the items both annotated.

    .. math::

        P(k) = \frac{n_k}{2|J|},\qquad A_e^\pi = \sum_k P(k)^2,\qquad
        \pi = \frac{A_o - A_e^\pi}{1 - A_e^\pi}

    with :math:`A_o` the share of the shared items J on which the two annotators agree and :math:`n_k` the labels k
    given by either annotator on J: unlike :func:`cohen_kappa`, one label distribution is pooled over both
    annotators (Scott 1955; Artstein & Poesio (2005), section 13.2).

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    annotator_a, annotator_b : optional
        Names of the two annotators (as in ``data.annotators``); both may be omitted when the data has exactly two
        annotators.
    weights : str or array, default 'identity'
        Agreement weights between categories (see :func:`cohen_kappa`); the chance agreement uses the pair's
        pooled label shares, so the weights are symmetrised. Not SPA's ``weights`` (item weighting).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when the two annotators share no item or
        :math:`A_e^\pi = 1` (every label on the shared items is the same, so pi is 0/0).

    Returns
    -------
    float
        Pi: 1 for perfect agreement, 0 for agreement at chance level, negative below it.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        ``data`` has no annotator identities (it was built from an items × categories count table); neither
        annotator is named and the data does not have exactly two annotators; only one of ``annotator_a`` and
        ``annotator_b`` is given; a named annotator is not in the data; or both name the same annotator.
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    scott_pi_matrix : Scott's pi for every pair of annotators.
    fleiss_kappa : Its generalisation to any number of annotators.

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: the case of nominal scale coding. Public Opinion Quarterly
    19(3), 321-325.

    Artstein, R., & Poesio, M. (2005). Bias decreases in proportion to the number of annotators. Proceedings of
    FG-MoL 2005.

    Examples
    --------
    Artstein & Poesio's (2005) two coders, Alice and Bill, agree on 7 of 10 items; of their 20 labels, 13 are
    "Y" and 7 "N", so :math:`A_e^\pi = 0.65^2 + 0.35^2 = 0.545`:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> wide = pd.DataFrame([list("YYNYNYNNYY"), list("YYNNYYYNYY")], index=["alice", "bill"])
    >>> round(ie.scott_pi(wide), 4)  # (0.7 - 0.545) / (1 - 0.545)
    0.3407
    >>> round(ie.cohen_kappa(wide), 4)  # with each coder's own distribution: (0.7 - 0.54) / (1 - 0.54)
    0.3478
    """
    return _pair_scalar(data, annotator_a, annotator_b, "scott", "Scott's pi", replace_undefined_by, weights)


@validate(weights=KAPPA_WEIGHTS)
def scott_pi_matrix(
    data: Any, *, weights: str | np.ndarray = "identity", replace_undefined_by: float = np.nan
) -> PairwiseMatrix:
    r"""Scott's pi for every pair of annotators, with the number of shared items.

    .. math::

        \pi_{ab} = \frac{A_o - A_e^\pi}{1 - A_e^\pi},\qquad A_e^\pi = \sum_k \Big(\frac{n_k}{2|J_{ab}|}\Big)^2

    computed as in :func:`scott_pi` on the items :math:`J_{ab}` annotated by both a and b, with :math:`n_k` the
    labels k given by either of them there (Scott 1955; Artstein & Poesio (2005), section 13.2). The matrix is
    symmetric; the diagonal is 1 for every annotator with at least one annotation.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : str or array, default 'identity'
        Agreement weights between categories (see :func:`cohen_kappa`); the chance agreement uses the pair's
        pooled label shares, so the weights are symmetrised. Not SPA's ``weights`` (item weighting).
    replace_undefined_by : float, default nan
        Value of the entries of pairs that share no item or whose expected agreement is 1 (no warning;
        ``n_shared`` tells which pairs share no item).

    Returns
    -------
    PairwiseMatrix
        ``metric='scott_pi'``; ``values`` holds the pis and ``n_shared`` the number of shared items (an annotator's
        own item count on the diagonal).

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
    scott_pi : One pair, with a warning when undefined.
    cohen_kappa_matrix : Cohen's kappa for every pair.

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: the case of nominal scale coding. Public Opinion Quarterly
    19(3), 321-325.

    Artstein, R., & Poesio, M. (2005). Bias decreases in proportion to the number of annotators. Proceedings of
    FG-MoL 2005.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> ie.scott_pi_matrix(data).to_frame().round(3)
                 annotator_0  annotator_1  annotator_2
    annotator_0        1.000        0.697        0.699
    annotator_1        0.697        1.000        0.394
    annotator_2        0.699        0.394        1.000
    """
    return _pair_matrix(data, "scott", "scott_pi", replace_undefined_by, weights)


# --------------------------------------------------------------------------- many annotators


def _observed(data: Annotations) -> tuple[float, int]:
    """Fleiss' observed agreement (mean P_i over items with n_i >= 2) and the number of such items."""
    sums = data.count_sums
    return float(sums.joint_probability()), int(sums.n_pairable)


@validate(weights=KAPPA_WEIGHTS)
def fleiss_kappa(data: Any, *, weights: str | np.ndarray = "identity", replace_undefined_by: float = np.nan) -> float:
    r"""Fleiss' kappa: Scott's pi generalised to any number of annotators, who need not label every item.

    .. math::

        \bar P = \frac{1}{I'} \sum_{i: n_i\ge 2} \frac{\sum_k n_{ik}(n_{ik}-1)}{n_i(n_i-1)},\qquad
        p_k = \frac{1}{I} \sum_i \frac{n_{ik}}{n_i},\qquad
        \bar P_e = \sum_k p_k^2,\qquad
        \kappa = \frac{\bar P - \bar P_e}{1 - \bar P_e}

    with :math:`n_{ik}` the annotations of item i in category k, :math:`n_i = \sum_k n_{ik}`, :math:`I'` the
    number of items with two or more annotations and I the number of items with at least one (Fleiss 1971;
    Nørregaard & Derczynski (2022), eqs. 3-4; the "Fleiss' Kappa" of Weeber (2025)). With a constant number of
    annotations per item, :math:`p_k` is the pooled proportion of category k of Fleiss (1971); with varying numbers
    it is the mean of the items' proportions, as in Gwet (2014) and the irrCAC package.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : str or array, default 'identity'
        Agreement weights between categories, for ordinal or numeric scales: one of Gwet's families by name
        (``identity`` — the unweighted coefficient —, ``linear``, ``quadratic``, ``ordinal``, ``radical``,
        ``ratio``, ``circular``, ``bipolar``; :data:`AGREEMENT_WEIGHTS`), computed from the categories' numbers
        (their positions 1..q when the labels are not numbers) exactly as irrCAC does, or a q × q array over the
        categories in order. Weighted, the observed agreement credits :math:`w_{kl}` to a pair of labels k, l and
        the chance agreement is weighted alike (Gwet 2014; missing annotations as in Gwet's multi-rater
        framework, :func:`estimate` gives the standard error). Not SPA's ``weights`` (item weighting).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when no item has two or more annotations or
        :math:`\bar P_e = 1` (every annotation has the same label, so kappa is 0/0).

    Returns
    -------
    float
        Kappa: 1 for perfect agreement, 0 for agreement at chance level, negative below it.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    multi_kappa : The multi-annotator kappa that keeps each annotator's own distribution.
    spa_kappa : A chance correction that stays unbiased when annotations are missing.

    Notes
    -----
    Equals ``statsmodels.stats.inter_rater.fleiss_kappa`` on complete data.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378-382.

    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material,
    based on material by Eva Maria Vecchi).

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    The classroom exercise: :math:`\bar P = 11/15` and the categories' shares are 15/45, 16/45 and 14/45, so
    :math:`\bar P_e = (15^2 + 16^2 + 14^2) / 45^2 = 677/2025`:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> round(ie.fleiss_kappa(data), 4)  # (1485 - 677) / (2025 - 677), the exercise's 0.599
    0.5994
    """
    data = as_annotations(data)
    if not is_identity(weights) or data.fractional:  # fractional count tables: Gwet's formulas take real counts
        return _weighted(data, "fleiss_kappa", "Fleiss' kappa", weights, replace_undefined_by)
    p_bar, n_pairable = _observed(data)
    return chance_corrected(
        p_bar, float(data.count_sums.fleiss_expected()), "Fleiss' kappa", replace_undefined_by, n_pairs=n_pairable
    )


def _coder_expected(data: Annotations) -> tuple[float, float, np.ndarray]:
    """``(A_e^pi, A_e^kappa, P(k|c))`` from the annotators' label distributions (Artstein & Poesio 2005, §13.4)."""
    dist = data.annotator_stats.distributions
    dist = dist[data.annotator_stats.n_a > 0]
    c = dist.shape[0]
    mean = dist.mean(axis=0)
    ae_pi = float(np.sum(mean**2))
    col = dist.sum(axis=0)
    ae_kappa = float(np.sum(col**2 - np.sum(dist**2, axis=0)) / (c * (c - 1.0))) if c > 1 else float("nan")
    return ae_pi, ae_kappa, dist


@validate(weights=KAPPA_WEIGHTS)
def multi_kappa(data: Any, *, weights: str | np.ndarray = "identity", replace_undefined_by: float = np.nan) -> float:
    r"""Artstein & Poesio's multi-coder kappa (Conger's kappa): Cohen's kappa generalised to any number of annotators.

    .. math::

        A_o = \bar P,\qquad
        A_e^\kappa = \sum_k \binom{c}{2}^{-1} \sum_{m<n} P(k|c_m)\,P(k|c_n),\qquad
        \kappa = \frac{A_o - A_e^\kappa}{1 - A_e^\kappa}

    with :math:`\bar P` the observed agreement of :func:`fleiss_kappa` (mean item agreement over the items with
    two or more annotations) and c the number of annotators with at least one annotation (Artstein & Poesio (2005),
    section 13.4; Conger 1980). Each annotator keeps their own distribution :math:`P(k|c) = n_{ck}/n_c` over the
    items they labelled (Artstein & Poesio write :math:`n_{ck}/i` for complete data, where :math:`n_c = i`), so
    :math:`A_e^\kappa` is the mean over pairs of annotators of Cohen's chance agreement
    :math:`\sum_k P(k|c_m) P(k|c_n)`, each distribution taken over all the items its annotator labelled.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : str or array, default 'identity'
        Agreement weights between categories, as in :func:`fleiss_kappa` (a family of
        :data:`AGREEMENT_WEIGHTS` or a q × q array). Not SPA's ``weights`` (item weighting).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when fewer than two annotators have annotations, no item
        has two or more annotations, or :math:`A_e^\kappa = 1` (kappa is 0/0).

    Returns
    -------
    float
        Kappa: 1 for perfect agreement, 0 for agreement at chance level, negative below it.

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
    fleiss_kappa : The same observed agreement with one pooled distribution.
    annotator_bias : The difference of the two expected agreements.

    Notes
    -----
    Equals irrCAC's ``conger``, also on sparse data.

    References
    ----------
    Artstein, R., & Poesio, M. (2005). Bias decreases in proportion to the number of annotators. Proceedings of
    FG-MoL 2005.

    Conger, A. J. (1980). Integration and generalization of kappas for multiple raters. Psychological Bulletin
    88(2), 322-328.

    Artstein, R., & Poesio, M. (2008). Inter-coder agreement for computational linguistics. Computational
    Linguistics 34(4), 555-596.

    Examples
    --------
    In the classroom exercise the three annotators' distributions over categories 1, 2, 3 are (6, 4, 5), (6, 5, 4)
    and (3, 7, 5) of 15 labels; the products of the three pairs sum to 76, 71 and 73, so
    :math:`A_e^\kappa = 220/675`:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> round(ie.multi_kappa(data), 4)  # (11/15 - 220/675) / (1 - 220/675) = (495 - 220) / (675 - 220)
    0.6044
    """
    data = as_annotations(data)
    data.require_annotators("the multi-coder kappa")
    if not is_identity(weights):
        return _weighted(data, "multi_kappa", "multi-coder kappa", weights, replace_undefined_by)
    a_o, ok = _observed(data)
    _, ae_kappa, dist = _coder_expected(data)
    if dist.shape[0] < 2:
        return undefined("multi-coder kappa", "it needs at least two annotators", replace_undefined_by)
    return chance_corrected(a_o, ae_kappa, "multi-coder kappa", replace_undefined_by, n_pairs=ok)


@validate()
def annotator_bias(data: Any, *, replace_undefined_by: float = np.nan) -> float:
    r"""Artstein & Poesio's annotator bias B: how much the annotators' label distributions differ.

    .. math::

        B = A_e^\pi - A_e^\kappa = \frac{1}{c - 1} \sum_k \sigma^2_{P(k|c)}

    where :math:`A_e^\pi = \sum_k \bar P(k)^2` uses the mean of the annotators' distributions,
    :math:`A_e^\kappa` is the expected agreement of :func:`multi_kappa`, and :math:`\sigma^2` is the (population)
    variance of :math:`P(k|c) = n_{ck}/n_c` across the c annotators with at least one annotation (Artstein &
    Poesio (2005), sections 13.3-13.4). B is 0 when all annotators share one distribution; for a given spread of
    the distributions it shrinks in proportion to :math:`1/(c-1)`. On complete data :math:`A_e^\pi` is Fleiss'
    :math:`\bar P_e` and B is the difference of the expected agreements of :func:`fleiss_kappa` and
    :func:`multi_kappa`. It is computed from the variances, so it is never negative.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when fewer than two annotators have annotations.

    Returns
    -------
    float
        The bias, at least 0.

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
    multi_kappa : The kappa whose expected agreement is :math:`A_e^\kappa`.

    References
    ----------
    Artstein, R., & Poesio, M. (2005). Bias decreases in proportion to the number of annotators. Proceedings of
    FG-MoL 2005.

    Examples
    --------
    Artstein & Poesio's (2005) example: Alice labels "Y" 6 times of 10 and Bill 7 times, so
    :math:`A_e^\pi = 0.65^2 + 0.35^2 = 0.545` and :math:`A_e^\kappa = 0.6 \cdot 0.7 + 0.4 \cdot 0.3 = 0.54`:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> wide = pd.DataFrame([list("YYNYNYNNYY"), list("YYNNYYYNYY")], index=["alice", "bill"])
    >>> ie.annotator_bias(wide)  # 0.545 - 0.54
    0.005
    """
    data = as_annotations(data)
    data.require_annotators("the annotator bias")
    _, _, dist = _coder_expected(data)
    c = dist.shape[0]
    if c < 2:
        return undefined("annotator bias", "it needs at least two annotators", replace_undefined_by)
    # the variance form: never negative, unlike the difference of two nearly equal sums
    return float(np.sum(dist.var(axis=0)) / (c - 1.0))


@validate(weights=KAPPA_WEIGHTS)
def gwet_ac1(data: Any, *, weights: str | np.ndarray = "identity", replace_undefined_by: float = np.nan) -> float:
    r"""Gwet's AC1 for any number of annotators and missing annotations.

    .. math::

        p_a = \bar P,\qquad
        p_e = \frac{1}{Q - 1} \sum_k \pi_k (1 - \pi_k),\qquad
        \pi_k = \frac{1}{I}\sum_i \frac{n_{ik}}{n_i},\qquad
        AC_1 = \frac{p_a - p_e}{1 - p_e}

    with :math:`\bar P` the observed agreement of :func:`fleiss_kappa` (mean item agreement over the items with two
    or more annotations), :math:`\pi_k` the mean share of category k over the I items with at least one annotation,
    and Q the number of categories (the given ``categories``, or those observed) (Gwet 2008; Gwet 2014).

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : str or array, default 'identity'
        Agreement weights between categories, as in :func:`fleiss_kappa` (a family of
        :data:`AGREEMENT_WEIGHTS` or a q × q array). Not SPA's ``weights`` (item weighting).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when there is a single category (Q = 1) or no item has
        two or more annotations.

    Returns
    -------
    float
        AC1: 1 for perfect agreement, 0 for agreement at chance level, negative below it.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a DataFrame or a 2-D array-like of labels (a file path must be read
        with :func:`read` first).

    See Also
    --------
    brennan_prediger : Chance agreement from a uniform choice among the categories.
    fleiss_kappa : The same observed agreement with :math:`\sum_k p_k^2` as chance agreement.

    Notes
    -----
    Equals irrCAC's ``gwet``.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    British Journal of Mathematical and Statistical Psychology 61(1), 29-48.

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    The classroom exercise: :math:`\bar P = 11/15`, the shares are 15/45, 16/45 and 14/45 and Q = 3, so
    :math:`p_e = (1 - 677/2025) / 2 = 674/2025`:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> round(ie.gwet_ac1(data), 4)  # (1485 - 674) / (2025 - 674)
    0.6003
    """
    data = as_annotations(data)
    if not is_identity(weights) or data.fractional:  # fractional count tables: Gwet's formulas take real counts
        return _weighted(
            data, "gwet_ac1", "Gwet's AC1" if is_identity(weights) else "Gwet's AC2", weights, replace_undefined_by
        )
    p_a, ok = _observed(data)
    q = data.n_categories
    if q < 2:
        return undefined("Gwet's AC1", "it needs at least two categories", replace_undefined_by)
    p_e = float(data.count_sums.gwet_expected())
    return chance_corrected(p_a, p_e, "Gwet's AC1", replace_undefined_by, n_pairs=ok)


@validate(weights=KAPPA_WEIGHTS)
def brennan_prediger(
    data: Any, *, weights: str | np.ndarray = "identity", replace_undefined_by: float = np.nan
) -> float:
    r"""Brennan & Prediger's kappa: chance agreement from a uniform choice among Q categories.

    .. math::

        \kappa_{BP} = \frac{\bar P - 1/Q}{1 - 1/Q}

    with :math:`\bar P` the observed agreement of :func:`fleiss_kappa` (mean item agreement over the items with two
    or more annotations) and Q the number of categories (the given ``categories``, or those observed), as in
    :func:`gwet_ac1` (Brennan & Prediger 1981; Gwet 2014).

    Parameters
    ----------
    data : Annotations or convertible
        The annotations: an :class:`Annotations` object, or anything :func:`as_annotations` reads (a long
        DataFrame with columns ``item``, ``annotator``, ``label``; a wide matrix with annotators as rows).
    weights : str or array, default 'identity'
        Agreement weights between categories, as in :func:`fleiss_kappa` (a family of
        :data:`AGREEMENT_WEIGHTS` or a q × q array). Not SPA's ``weights`` (item weighting).
    replace_undefined_by : float, default nan
        Returned, with an :class:`UndefinedMetricWarning`, when there is a single category (Q = 1) or no item has
        two or more annotations.

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
    gwet_ac1 : Chance agreement from the observed category shares.

    Notes
    -----
    Equals irrCAC's ``bp``.

    References
    ----------
    Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and alternatives. Educational
    and Psychological Measurement 41(3), 687-699.

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> round(ie.brennan_prediger(data), 4)  # (11/15 - 1/3) / (1 - 1/3), three categories
    0.6
    """
    data = as_annotations(data)
    if not is_identity(weights) or data.fractional:  # fractional count tables: Gwet's formulas take real counts
        return _weighted(data, "brennan_prediger", "Brennan-Prediger kappa", weights, replace_undefined_by)
    p_a, ok = _observed(data)
    q = data.n_categories
    if q < 2:
        return undefined("Brennan-Prediger kappa", "it needs at least two categories", replace_undefined_by)
    return chance_corrected(p_a, 1.0 / q, "Brennan-Prediger kappa", replace_undefined_by, n_pairs=ok)


@validate(weights=KAPPA_WEIGHTS)
def percent_agreement_weighted(
    data: Any, *, weights: str | np.ndarray = "identity", replace_undefined_by: float = np.nan
) -> float:
    r"""Weighted percent agreement: the observed agreement :math:`p_a` of Gwet's framework (irrCAC's ``pa``).

    .. math::

        p_a = \frac{1}{n_2} \sum_{i: r_i \ge 2} \frac{\sum_k r_{ik} (r^\star_{ik} - 1)}{r_i (r_i - 1)},\qquad
        r^\star_{ik} = \sum_l w_{kl} r_{il}

    over the :math:`n_2` items with two or more annotations, :math:`r_{ik}` the annotations of item :math:`i` in
    category :math:`k`. With ``weights='identity'`` it is the share of agreeing pairs per item, averaged over
    items: :func:`joint_probability` (not :func:`percent_agreement`, which follows the hierarchical-label report's
    pairwise definition).

    Parameters
    ----------
    data : Annotations or convertible
    weights : str or array, default 'identity'
        A family of agreement weights by name (``identity``, ``linear``, ``quadratic``, ``ordinal``,
        ``radical``, ``ratio``, ``circular``, ``bipolar``; see :func:`fleiss_kappa`) or a q × q array over the
        categories in order.
    replace_undefined_by : float, default nan
        Returned with an :class:`UndefinedMetricWarning` when no item has two annotations.

    Returns
    -------
    float
        :math:`p_a` in [0, 1] for weights in [0, 1].

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came), or a weight array is
        not q × q.

    References
    ----------
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    Two ratings one step apart on a 1–5 scale earn 3/4 of an agreement with linear weights:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("i1", "a", 1), ("i1", "b", 2), ("i2", "a", 5), ("i2", "b", 5)]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]),
    ...                                 categories=[1, 2, 3, 4, 5])
    >>> ie.percent_agreement_weighted(data, weights="linear")  # (3/4 + 1) / 2
    0.875
    >>> ie.percent_agreement_weighted(data)
    0.5
    """
    data = as_annotations(data)
    est = gwet_coefficient(data, "percent_agreement", resolve_weights(data, weights), with_variance=False)
    if not np.isfinite(est.pa):
        return undefined("weighted percent agreement", "no item has two or more annotations", replace_undefined_by)
    return est.pa


@validate(annotator_a=ANY, annotator_b=ANY)
def bangdiwala_b(
    data: Any, annotator_a: Any = None, annotator_b: Any = None, *, replace_undefined_by: float = np.nan
) -> float:
    r"""Bangdiwala's B between two annotators: the share of the agreement chart's area that is full agreement.

    .. math::

        B = \frac{\sum_k n_{kk}^2}{\sum_k n_{k+}\, n_{+k}}

    on the items both annotated, :math:`n_{kl}` counting the items annotator a labelled k and b labelled l,
    :math:`n_{k+}, n_{+k}` their row and column totals. B is 1 for perfect agreement and 0 when the two never
    agree (also when no category is used by both, where the formula reads 0/0); it is not corrected for chance.

    Parameters
    ----------
    data : Annotations or convertible
    annotator_a, annotator_b : optional
        Names of the two annotators; may be omitted when the data has exactly two.
    replace_undefined_by : float, default nan
        Returned with an :class:`UndefinedMetricWarning` when the pair shares no item.

    Returns
    -------
    float
        B in [0, 1].

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        The data has no annotator identities (a count table), or more than two annotators and no pair named, or an
        annotator named is not in the data.

    References
    ----------
    Bangdiwala, S. I. (1985). A graphical test for observer agreement. Proceedings of the 45th International
    Statistical Institute Meeting, Amsterdam, 307–308.

    Bangdiwala, S. I., & Shankar, V. (2013). The agreement chart. BMC Medical Research Methodology 13, 97.

    Examples
    --------
    Two annotators agree on items 1 and 2 (labels x and y) and disagree on item 3 (x against y):

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [(1, "a", "x"), (1, "b", "x"), (2, "a", "y"), (2, "b", "y"), (3, "a", "x"), (3, "b", "y")]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    >>> ie.bangdiwala_b(data)  # (1 + 1) / (2 * 1 + 1 * 2)
    0.5
    """
    data = as_annotations(data)
    data.require_annotators("Bangdiwala's B")
    i, j = pick_pair(data, annotator_a, annotator_b, "Bangdiwala's B")
    names = cast(pd.Index, data.annotators)
    ps = pair_data(data, i, j).pair_stats
    q = data.n_categories
    ab = (ps.a == 0) & (ps.b == 1)
    table = np.bincount(ps.k[ab] * q + ps.l[ab], weights=ps.count[ab], minlength=q * q).reshape(q, q)
    if table.sum() == 0:
        return undefined(
            "Bangdiwala's B", f"annotators {names[i]!r} and {names[j]!r} share no item", replace_undefined_by
        )
    den = float(table.sum(axis=1) @ table.sum(axis=0))
    # no category used by both: the chart has no agreement square at all (0/0 read as 0)
    return float(np.sum(np.diag(table) ** 2) / den) if den > 0 else 0.0


@validate()
def fleiss_kappa_by_category(data: Any, *, replace_undefined_by: float = np.nan) -> pd.Series:
    r"""Fleiss' kappa for each category: how reliably the annotators agree on that category against the rest.

    .. math::

        \kappa_k = 1 - \frac{\frac{1}{n_2}\sum_{i: r_i \ge 2} \frac{r_{ik}(r_i - r_{ik})}{r_i (r_i - 1)}}
                            {\pi_k (1 - \pi_k)},\qquad
        \pi_k = \frac1n \sum_i \frac{r_{ik}}{r_i}

    (Fleiss 1971, eq. 12, for complete data; with missing annotations each item's pairs are weighted as in
    :func:`fleiss_kappa`, Gwet's treatment). The overall kappa is their weighted mean:
    :math:`\kappa = \sum_k \pi_k(1-\pi_k)\kappa_k / \sum_k \pi_k(1-\pi_k)`.

    Parameters
    ----------
    data : Annotations or convertible
    replace_undefined_by : float, default nan
        The entry of a category no or every annotation is in (:math:`\pi_k(1-\pi_k) = 0`), and of every category
        when no item has two annotations (no warning: ``pi`` shows which).

    Returns
    -------
    pandas.Series
        :math:`\kappa_k` indexed by category.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> by_cat = ie.fleiss_kappa_by_category(data)
    >>> import numpy as np  # the weighted mean of the categories' kappas is Fleiss' kappa:
    >>> pi = data.counts.to_dense() / data.counts.to_dense().sum(axis=1, keepdims=True)
    >>> w = pi.mean(axis=0) * (1 - pi.mean(axis=0))
    >>> round(float(np.sum(w * by_cat.to_numpy()) / w.sum()), 10) == round(ie.fleiss_kappa(data), 10)
    True
    """
    data = as_annotations(data)
    fill = check_replacement(replace_undefined_by)
    parts = gwet_parts(data, resolve_weights(data, "identity"))  # no q × q identity matrix
    if parts.n2 == 0:
        return pd.Series(fill, index=data.categories, name="fleiss_kappa", dtype=float)
    r = parts.r
    two = r >= 2
    counts = parts.counts
    # sum_i r_ik (r_i - r_ik) / (r_i (r_i - 1)) over items with r_i >= 2, from the sparse counts
    coo = counts.tocoo()
    row, cat, x = coo.row, coo.col, coo.data
    keep = two[row]
    disagree = (
        np.bincount(
            cat[keep],
            weights=x[keep] * (r[row[keep]] - x[keep]) / (r[row[keep]] * (r[row[keep]] - 1.0)),
            minlength=data.n_categories,
        )
        / parts.n2
    )
    spread = parts.pi * (1.0 - parts.pi)
    kappa = safe_ratio(spread - disagree, spread, fill)
    return pd.Series(kappa, index=data.categories, name="fleiss_kappa")
