"""Krippendorff's alpha at the nominal, ordinal, interval and ratio levels, or with a distance between labels
(partial credit for set-valued and free-text labels), overall and per annotator pair."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from iaa_engine.base._params import AnyOf, Choice, Function, NoneOr, validate
from iaa_engine.base._policy import EPS, check_replacement, safe_ratio, undefined
from iaa_engine.base._results import PairwiseMatrix
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.metrics._distance import ALPHA_DISTANCES, check_distance, distance_name, distance_table
from iaa_engine.stats import _differences as diff

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["krippendorff_alpha", "krippendorff_alpha_matrix", "coincidence_matrix"]

#: What ``distance=`` accepts: a named distance for set or text labels, or the user's own.
DISTANCE = NoneOr(
    AnyOf(
        Choice(*ALPHA_DISTANCES),
        Function(),
        what=f"one of {', '.join(map(repr, ALPHA_DISTANCES))} or a callable d(a, b) -> float",
    )
)


def _positions(data: Annotations, level: str, totals: np.ndarray) -> np.ndarray:
    values = data.category_values(level) if level in ("interval", "ratio") else None
    return diff.positions_from(level, totals, values, data.n_categories)


def _distance_option(level: str | None, distance: Any) -> str | Callable[[Any, Any], float]:
    """Validate ``distance`` with ``level``: a distance replaces the difference function of a level."""
    distance = check_distance(distance)
    if level is not None:
        if level != "nominal":
            raise ValueError(
                "distance= replaces the difference function of a level of measurement, so it goes with "
                f"level='nominal' or no level; got level={level!r} with distance={distance_name(distance)!r}"
            )
    return distance


def _used_table(data: Annotations, used: np.ndarray, distance: Any) -> tuple[np.ndarray, np.ndarray]:
    """The distance table over the categories ``used`` and the map category code -> row of the table (-1: unused)."""
    table = distance_table([data.categories[k] for k in used], distance)
    pos = np.full(data.n_categories, -1, dtype=np.int64)
    pos[used] = np.arange(used.size)
    return table, pos


def _distance_parts(data: Annotations, distance: Any) -> tuple[float, float]:
    """``(D_o, D_e)`` with ``delta^2_ck = d(c, k)`` from the coincidence entries (needs ``n_pairable > 0``)."""
    sums = data.count_sums
    totals = np.bincount(sums.o_row, weights=sums.o_val, minlength=sums.n_categories)  # n_c of the pairable values
    n = totals.sum()
    used = np.flatnonzero(totals > 0)  # every coincidence entry lies among them
    table, pos = _used_table(data, used, distance)
    d_o = float(np.sum(sums.o_val * table[pos[sums.o_row], pos[sums.o_col]])) / n
    t = totals[used]
    d_e = float(t @ table @ t) / (n * (n - 1.0))
    return d_o, d_e


def _pair_level_parts(
    data: Annotations,
    level: str,
    t: sp.csr_matrix,
    row: np.ndarray,
    k: np.ndarray,
    l: np.ndarray,  # noqa: E741
) -> tuple[np.ndarray, np.ndarray]:
    """Per pair-table entry (row, k, l): ``delta(k, l)``; per row of ``t``: ``sum_{c,g} t_c t_g delta(c, g)``.

    ``t`` holds each pair's label totals (sparse rows, sorted columns). Ordinal positions are the mid-ranks of
    each pair's own totals, computed on the stored entries (a cumulative sum within rows).
    """
    c = max(data.n_categories, 1)
    sizes = np.diff(t.indptr)
    entry_row = np.repeat(np.arange(t.shape[0]), sizes)
    cats, tv = t.indices.astype(np.int64), t.data
    if level == "ordinal":
        cum = np.cumsum(tv)
        before = np.where(t.indptr[:-1] > 0, cum[np.maximum(t.indptr[:-1] - 1, 0)], 0.0)
        xe = cum - before[entry_row] - tv / 2.0
        where = entry_row * c + cats  # sorted: rows ascending, columns sorted within rows
        xk = xe[np.searchsorted(where, row * c + k)]
        xl = xe[np.searchsorted(where, row * c + l)]
    else:
        x = _positions(data, level, np.zeros(c))
        xe, xk, xl = x[cats], x[k], x[l]
    delta = diff.delta(level, xk, xl)
    n = np.bincount(entry_row, weights=tv, minlength=t.shape[0])
    if level == "nominal":
        return delta, n * n - np.bincount(entry_row, weights=tv * tv, minlength=t.shape[0])
    if level in ("ordinal", "interval"):
        centre = np.bincount(entry_row, weights=tv * xe, minlength=t.shape[0]) / np.where(n > 0, n, 1.0)
        xc = xe - centre[entry_row]
        s1 = np.bincount(entry_row, weights=tv * xc, minlength=t.shape[0])
        s2 = np.bincount(entry_row, weights=tv * xc * xc, minlength=t.shape[0])
        return delta, 2.0 * n * s2 - 2.0 * s1 * s1
    # ratio: no moment form; rows of equal width are evaluated together, a block at a time
    out = np.zeros(t.shape[0])
    for w in np.unique(sizes[sizes >= 2]):
        w = int(w)
        rows = np.flatnonzero(sizes == w)
        if w * w > diff.RATIO_CELLS:
            for r in rows:
                lo = t.indptr[r]
                out[r] = diff.ratio_expected_sum(tv[lo : lo + w], xe[lo : lo + w])
            continue
        step = max(1, diff.RATIO_CELLS // (w * w))
        for lo in range(0, rows.size, step):
            idx = t.indptr[rows[lo : lo + step], None] + np.arange(w)
            xr, tr = xe[idx], tv[idx]
            d = diff.delta("ratio", xr[:, :, None], xr[:, None, :])
            out[rows[lo : lo + step]] = np.einsum("pc,pcg,pg->p", tr, d, tr)
    return delta, out


def _pair_expected_sums(t: sp.csr_matrix, table: np.ndarray) -> np.ndarray:
    """``sum_{c,k} t_pc t_pk d(c, k)`` for every row p of the sparse totals, a few rows at a time (bounded memory)."""
    out = np.zeros(t.shape[0])
    rows = np.flatnonzero(np.diff(t.indptr))
    step = max(1, (1 << 22) // max(table.shape[0], 1))
    for lo in range(0, rows.size, step):
        r = rows[lo : lo + step]
        tr = t[r]
        out[r] = np.asarray(tr.multiply(tr @ table).sum(axis=1)).ravel()
    return out


@validate()
def coincidence_matrix(data: Any) -> np.ndarray:
    r"""Krippendorff's coincidence matrix (dense, categories × categories).

    .. math::

        o_{ck} = \sum_{i: n_i \ge 2} \frac{n_{ic} n_{ik} - [c = k]\, n_{ic}}{n_i - 1}

    with :math:`n_{ic}` the annotations of category c on item i and
    :math:`n_i = \sum_c n_{ic}`: every ordered pair of two different annotations
    of an item counts :math:`1/(n_i - 1)`, so each pairable value contributes 1
    in total. Items with one annotation are dropped. The matrix is symmetric,
    its row sums are the pairable values of each category, :math:`n_c = \sum_k
    o_{ck}`, and its total is n, the number of pairable values: the
    quantities :func:`krippendorff_alpha` is built from (Krippendorff 2011,
    section C; *Mathematical Foundations of Inter-Annotator Agreement
    Analysis*, 2025, §2.2).

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
        The annotations; only per-item label counts are used, so a count table
        (:meth:`Annotations.from_counts`) will do.

    Returns
    -------
    numpy.ndarray of float, shape (C, C)
        :math:`o_{ck}`; rows and columns follow ``data.categories``.

    Raises
    ------
    TypeError
        ``data`` is not :class:`Annotations`, a pandas DataFrame or a 2-D
        array-like of labels (a path: read it with :func:`read` first).
    ValueError
        ``data`` holds only sums over items (e.g. from :func:`summarize_dask`),
        not the per-item counts the matrix is built from; or it cannot be read
        as annotations (e.g. it holds no label).

    See Also
    --------
    krippendorff_alpha : The coefficient computed from these coincidences.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025), §2.2.

    Examples
    --------
    Item t1 has two ``pos`` (2 ordered pairs of weight 1), t2 one ``neg`` and
    one ``pos``, t3 three ``neg`` (6 ordered pairs of weight 1/2); t4 has one
    annotation and is left out:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("t1", "ann", "pos"), ("t1", "bob", "pos"), ("t2", "ann", "neg"), ("t2", "bob", "pos"),
    ...         ("t3", "ann", "neg"), ("t3", "bob", "neg"), ("t3", "cy", "neg"), ("t4", "cy", "pos")]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    >>> list(data.categories)
    ['neg', 'pos']
    >>> ie.coincidence_matrix(data)
    array([[3., 1.],
           [1., 2.]])
    """
    data = as_annotations(data)
    return data.counts.coincidences().toarray()


def _alpha_input(
    data: Any, level: Any, distance: Any, categories: Sequence[Any] | None = None
) -> tuple[Annotations, Any, Any]:
    """The checked ``(data, level, distance)`` of an alpha: a distance replaces the level (nominal only);
    ``categories`` gives the categories' order (:func:`as_annotations`)."""
    if distance is not None:
        return as_annotations(data, categories=categories), level, _distance_option(level, distance)
    data = as_annotations(data, level=level, categories=categories)
    return data, data.level, None


@validate(distance=DISTANCE)
def krippendorff_alpha(
    data: Any,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    distance: Literal["jaccard", "masi", "levenshtein"] | Callable[[Any, Any], float] | None = None,
    replace_undefined_by: float = np.nan,
    categories: Sequence[Any] | None = None,
) -> float:
    r"""Krippendorff's alpha with missing data, at any level of measurement or with a distance between labels.

    .. math::

        \alpha = 1 - \frac{D_o}{D_e},\qquad
        D_o = \frac{1}{n} \sum_{c,k} o_{ck}\,\delta^2_{ck},\qquad
        D_e = \frac{1}{n(n-1)} \sum_{c,k} n_c n_k\, \delta^2_{ck}

    with :math:`o_{ck}` the coincidences (:func:`coincidence_matrix`),
    :math:`n_c = \sum_k o_{ck}` and n the number of pairable values (items with
    one annotation are dropped). Difference functions: nominal
    :math:`[c \ne k]`; ordinal :math:`(\sum_{g=c}^{k} n_g - \frac{n_c + n_k}{2})^2`;
    interval :math:`(c - k)^2`; ratio :math:`((c - k)/(c + k))^2`.

    With ``distance=d`` the difference function is the distance itself,
    :math:`\delta^2_{ck} = d(c, k)` (Krippendorff 2011 admits any metric
    difference function; the distance is *not* squared). This is the convention
    of NLTK's ``AnnotationTask(distance=...).alpha()`` and of the ``krippendorff``
    package given a callable ``level_of_measurement``, whose built-in metrics
    already return squared differences. The 0/1 distance ``d(c, k) = [c != k]``
    gives the nominal alpha. Named distances:

    * ``'jaccard'``: :math:`1 - |A \cap B| / |A \cup B|`;
    * ``'masi'``: :math:`1 - J \cdot M` with J the Jaccard similarity and
      M = 1 if A = B, 2/3 if one set contains the other, 1/3 if they intersect
      otherwise, 0 if they are disjoint (Passonneau 2006);
    * ``'levenshtein'``: edit distance divided by the length of the longer
      string, 0 for two empty strings (Levenshtein 1966); labels must be
      strings. The edit distances are computed by the rapidfuzz library
      (Bachmann), ``rapidfuzz.distance.Levenshtein``, all pairs at once with
      ``rapidfuzz.process.cdist``.

    For the set distances a tuple, list, set or frozenset label is the set of its
    elements and any other label (a string, a number) the one-element set
    ``{label}``. Elements are compared whole: ``("A", "B")`` is the set of two
    choices; ``(("Animals", "Mammals"), ("Plants",))`` is a set of two taxonomy
    paths, and one path is the one-path set ``(("Animals", "Mammals"),)``
    (labels mixing tuples of strings with tuples of tuples are refused as
    ambiguous). Two empty sets are at distance 0.

    Krippendorff (2011) gives these definitions; the technical report
    *Mathematical Foundations of Inter-Annotator Agreement Analysis* (2025),
    §2, states them for nominal data; Datasaur's documentation computes the
    same value in the form :math:`(p_a - p_e)/(1 - p_e)` with its :math:`\bar r`
    correction. Equals the ``krippendorff`` package and, with a distance,
    NLTK's ``AnnotationTask.alpha``.

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
        The annotations (a count table or summed statistics will do: alpha
        needs only the coincidences).
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Defaults to ``data.level`` (nominal for raw input). Ordinal needs the
        category order (numbers, or ``categories=`` when building the data);
        interval and ratio need numbers; ratio needs non-negative numbers.
        With ``distance`` only ``'nominal'`` (or no level) is accepted.
    distance : {'jaccard', 'masi', 'levenshtein'} or callable, optional
        A distance between labels in place of the level's difference function
        (partial credit). A callable ``d(a, b) -> float`` receives two labels
        as they appear in ``data.categories`` and must return a number in
        [0, 1], be symmetric and give 0 for ``d(a, a)`` (checked on every pair
        of labels, to 1e-12; a ``ValueError`` names the first offending pair).
        Distances are evaluated once for every pair of distinct labels that
        occur on items with two or more annotations: at most 3000 such labels
        (a ``ValueError`` says how many came). Levenshtein distances count
        characters (Unicode code points); rapidfuzz computes them bit-parallel
        (Myers 1999), one step per block of 64 characters of the shorter string
        and character of the longer, and inputs needing more than about 1e9
        such steps in all (thousands of long texts) are refused with a
        ``ValueError``.
    replace_undefined_by : float, default nan
        Returned with an :class:`UndefinedMetricWarning` when no item has two
        annotations or when the expected disagreement is 0 (every pairable
        value the same, or at distance 0 from each other). The technical
        report (2025), §8.2, returns 1 in that case: pass
        ``replace_undefined_by=1.0`` for that convention.
    categories : sequence, optional
        All categories in their order, lowest first (as in
        :meth:`Annotations.from_long`): what the ordinal level needs for text
        labels, which are never sorted alphabetically, e.g.
        ``krippendorff_alpha(data, level="ordinal", categories=["low", "mid", "high"])``.

    Returns
    -------
    float
        Alpha: 1 for perfect agreement, 0 for agreement at chance level,
        negative below chance; ``replace_undefined_by`` when undefined.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a pandas DataFrame or a 2-D
        array-like of labels; a callable ``distance`` returned something that
        is not a number.
    ValueError
        ``distance`` is given with a level other than ``'nominal'``; the
        interval or ratio level meets labels that are not numbers (ratio:
        negative numbers); the distance cannot compare the labels
        (``'levenshtein'`` on a label that is not a string, set labels that
        mix tuples of values with tuples of tuples) or a callable is not a
        distance in [0, 1] (the message names the pair); more than 3000
        distinct labels with a distance; Levenshtein distances above the
        work limit; the ordinal level meets text labels without their order,
        or a label is not among ``categories``.

    Warns
    -----
    UndefinedMetricWarning
        Alpha is undefined (see ``replace_undefined_by``); the message says why.

    See Also
    --------
    coincidence_matrix : The coincidences :math:`o_{ck}`.
    krippendorff_alpha_matrix : Alpha of every pair of annotators.
    alpha_variance : Its delta-method and jackknife variances.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability measure for coding
    data. Communication Methods and Measures 1(1), 77-89.

    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025), §2 and §8.2.

    Datasaur (n.d.). Krippendorff's Alpha Calculation. Datasaur documentation, "Inter-annotator agreement".

    Passonneau, R. J. (2006). Measuring agreement on set-valued items (MASI) for semantic and pragmatic
    annotation. Proceedings of LREC 2006, Genoa.

    Levenshtein, V. I. (1966). Binary codes capable of correcting deletions, insertions, and reversals. Soviet
    Physics Doklady 10(8), 707-710.

    Bachmann, M. rapidfuzz. https://github.com/rapidfuzz/RapidFuzz

    Myers, G. (1999). A fast bit-vector algorithm for approximate string matching based on dynamic programming.
    Journal of the ACM 46(3), 395-415.

    Examples
    --------
    Multi-select answers: each item's two sets overlap in one of two choices
    (Jaccard distance 1/2), while sets from different items are disjoint:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("t1", "ann", ("pos", "joy")), ("t1", "bob", ("pos",)),
    ...         ("t2", "ann", ("neg",)), ("t2", "bob", ("neg", "anger"))]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    >>> ie.krippendorff_alpha(data, distance="jaccard")  # 1 - (1/2) / (5/6)
    0.4
    >>> ie.krippendorff_alpha(data, distance="masi")  # 1 - (2/3) / (8/9)
    0.25
    >>> ie.krippendorff_alpha(data)  # exact match of the sets: no agreement beyond chance
    0.0
    """
    data, level, distance = _alpha_input(data, level, distance, categories)
    if data.count_sums.n_pairable <= 0:
        return undefined("Krippendorff's alpha", "no item has two or more annotations", replace_undefined_by)
    if distance is not None:
        d_o, d_e = _distance_parts(data, distance)
    else:
        values = data.category_values(level) if level in ("interval", "ratio") else None
        d_o, d_e = data.count_sums.alpha_parts(level, values)
    if not (d_e > EPS):
        what = (
            "every pairable value is the same"
            if distance is None
            else "the pairable values are all one label, or at distance 0 from each other"
        )
        return undefined(
            "Krippendorff's alpha",
            f"{what}, so expected disagreement is 0 and alpha is 0/0",
            replace_undefined_by,
        )
    return float(1.0 - d_o / d_e)


@validate(distance=DISTANCE)
def krippendorff_alpha_matrix(
    data: Any,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    distance: Literal["jaccard", "masi", "levenshtein"] | Callable[[Any, Any], float] | None = None,
    replace_undefined_by: float = np.nan,
    categories: Sequence[Any] | None = None,
) -> PairwiseMatrix:
    r"""Krippendorff's alpha for every pair of annotators on the items both annotated.

    For annotators a and b with shared items :math:`J_{ab}` (each item then
    has exactly two pairable values, :math:`n = 2|J_{ab}|`):

    .. math::

        D_o = \frac{1}{|J_{ab}|} \sum_{j \in J_{ab}} \delta^2(x_{aj}, x_{bj}),\qquad
        D_e = \frac{1}{n(n-1)} \sum_{c,k} n_c n_k\,\delta^2_{ck},\qquad
        \alpha_{ab} = 1 - D_o / D_e

    with :math:`x_{aj}` a's label on item j and :math:`n_c` counting both
    annotators' labels on :math:`J_{ab}` (ordinal distances use the pair's own
    marginals). This is Datasaur's labeller-vs-labeller and
    labeller-vs-reviewer matrix (Datasaur's documentation removes items with
    one label before computing); a reviewer is just another annotator here.
    Each entry equals :func:`krippendorff_alpha` on the pair's shared items.

    ``distance`` works as in :func:`krippendorff_alpha` (:math:`\delta^2_{ck} =
    d(c, k)`, one table over the labels that some pair of annotators shares an
    item on).

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
        With annotator identities (not a count table).
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        As in :func:`krippendorff_alpha`; with ``distance`` only ``'nominal'``.
    distance : {'jaccard', 'masi', 'levenshtein'} or callable, optional
        As in :func:`krippendorff_alpha` (same checks, same limit of 3000
        distinct labels). The result's ``metric`` is
        ``'krippendorff_alpha[<distance>]'``.
    replace_undefined_by : float, default nan
        Entries of pairs that share no item or whose expected disagreement is
        0 (no warning; ``n_shared`` tells which), and the diagonal entry of an
        annotator with no item.
    categories : sequence, optional
        All categories in their order (as in :func:`krippendorff_alpha`).

    Returns
    -------
    PairwiseMatrix
        ``metric`` is ``'krippendorff_alpha[<level>]'`` (or ``[<distance>]``);
        ``values[a, b]`` is :math:`\alpha_{ab}` (symmetric, 1 on the diagonal),
        ``n_shared[a, b]`` is :math:`|J_{ab}|`.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a pandas DataFrame or a 2-D
        array-like of labels; a callable ``distance`` returned something that
        is not a number.
    ValueError
        ``data`` has no annotator identities (a count table); ``distance`` is
        given with a level other than ``'nominal'``; the level or the distance
        cannot use the labels, or a callable is not a distance in [0, 1] (as in
        :func:`krippendorff_alpha`).

    See Also
    --------
    krippendorff_alpha : The coefficient over all annotators at once.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Datasaur (n.d.). Krippendorff's Alpha Calculation. Datasaur documentation, "Inter-annotator agreement".

    Examples
    --------
    ann and bob share three items and disagree on one (t2); cy shares only t3,
    where everyone says ``neg``, so alpha is 0/0 with either of them:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("t1", "ann", "pos"), ("t1", "bob", "pos"), ("t2", "ann", "neg"), ("t2", "bob", "pos"),
    ...         ("t3", "ann", "neg"), ("t3", "bob", "neg"), ("t3", "cy", "neg")]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    >>> m = ie.krippendorff_alpha_matrix(data)
    >>> m.to_frame().round(4)  # ann-bob: 1 - (1/3) / (3/5) = 4/9
            ann     bob   cy
    ann  1.0000  0.4444  NaN
    bob  0.4444  1.0000  NaN
    cy      NaN     NaN  1.0
    >>> m.n_shared
    array([[3, 3, 1],
           [3, 3, 1],
           [1, 1, 1]])
    """
    data, level, distance = _alpha_input(data, level, distance, categories)
    data.require_annotators("the pairwise alpha matrix")
    fill = check_replacement(replace_undefined_by)
    ps = data.pair_stats
    m = ps.n_annotators
    shared = ps.n_shared.astype(float)
    keys, row = ps.pairs  # every quantity below is per pair that shares an item: memory O(entries), not A² × C
    if distance is not None:
        used = np.union1d(ps.k, ps.l)
        table, pos = _used_table(data, used, distance)
        delta = table[pos[ps.k], pos[ps.l]]
        # t[pair, k]: both annotators' labels k on their shared items (sparse: many labels, few per pair)
        import scipy.sparse as sp  # imported when needed: a plain report never loads SciPy

        t = sp.csr_matrix(
            (
                np.concatenate([ps.count, ps.count]).astype(float),
                (np.concatenate([row, row]), np.concatenate([pos[ps.k], pos[ps.l]])),
            ),
            shape=(keys.size, used.size),
        )
        expected = ps.per_pair(_pair_expected_sums(t, table))
        name = distance_name(distance)
    else:
        t = ps.pair_label_totals()  # (pair, k), sorted within rows
        delta, per_pair = _pair_level_parts(data, level, t, row, ps.k, ps.l)
        expected = ps.per_pair(per_pair)
        name = level
    dis = np.bincount(ps.a * m + ps.b, weights=ps.count * delta, minlength=m * m).reshape(m, m)
    d_o = safe_ratio(dis, shared, np.nan)
    n = 2.0 * shared
    d_e = safe_ratio(expected, n * (n - 1.0), np.nan)
    vals = 1.0 - safe_ratio(d_o, d_e, np.nan)
    bad = (shared == 0) | ~(d_e > EPS) | ~np.isfinite(vals)
    vals[bad] = fill
    np.fill_diagonal(vals, np.where(np.diag(ps.n_shared) > 0, 1.0, fill))
    return PairwiseMatrix(f"krippendorff_alpha[{name}]", list(data.annotators), vals, ps.n_shared.copy())
