"""Hierarchical facets and frequency strata.

After the technical report *Mathematical Foundations of Inter-Annotator Agreement Analysis* (2025), §4 (frequency
strata), §5 (hierarchical facets) and §7 (the hierarchy test and the frequency regression).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_engine.base._params import validate
from iaa_engine.base._policy import EPS, check_replacement
from iaa_engine.base._results import Result, ScalarResult
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.inference._inference import count_patterns
from iaa_engine.metrics._alpha import krippendorff_alpha
from iaa_engine.stats._sums import CountSums

__all__ = [
    "HierarchyResult",
    "split_hierarchy",
    "hierarchical_agreement",
    "hierarchy_test",
    "StrataResult",
    "label_agreement",
    "frequency_strata",
]


# --------------------------------------------------------------------------- hierarchical labels


def _path(label: Any, sep: str) -> tuple:
    """A label as a path: tuples/lists as given, Label Studio taxonomy values ([[a, b]]), or 'a/b' strings."""
    if isinstance(label, (tuple, list)):
        if len(label) == 1 and isinstance(label[0], (tuple, list)):  # Label Studio: a list holding one path
            return tuple(label[0])
        return tuple(label)
    if isinstance(label, str):
        return tuple(part.strip() for part in label.split(sep))
    return (label,)


def _recode(data: Annotations, names: list, to_code: np.ndarray) -> Annotations:
    """Relabel every annotation through a per-category lookup (codes < 0 drop the annotation)."""
    codes = to_code[data.label]
    keep = codes >= 0
    return Annotations(
        data.item[keep],
        None if data.annotator is None else data.annotator[keep],
        codes[keep],
        items=data.items,
        annotators=data.annotators,
        categories=pd.Index(names),
        level="nominal",
    )


def _components(paths: list[tuple]) -> tuple[list, np.ndarray, list, np.ndarray]:
    """The sorted parent and child names of the categories' paths, and each category's parent and child code (-1:
    no child), with one hash look-up per category (linear in the number of categories)."""
    parents = sorted({p[0] for p in paths}, key=str)
    children = sorted({p[1] for p in paths if len(p) > 1}, key=str)
    parent_at = {name: k for k, name in enumerate(parents)}
    child_at = {name: k for k, name in enumerate(children)}
    parent_code = np.fromiter((parent_at[p[0]] for p in paths), np.int64, len(paths))
    child_code = np.fromiter((child_at[p[1]] if len(p) > 1 else -1 for p in paths), np.int64, len(paths))
    return parents, parent_code, children, child_code


def _conditional_alphas(
    item: np.ndarray, parent: np.ndarray, child: np.ndarray, n_parents: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Nominal alpha of the child labels within each parent, for all parents at once.

    For the annotations of parent :math:`\ell` (with a child), :math:`n_{ic}` per item and child, :math:`m_i` their
    sum on item i, over the items with :math:`m_i \ge 2`: :math:`n_c = \sum_i n_{ic}`, :math:`n = \sum_c n_c`,

    .. math::

        D_o = \frac{1}{n} \sum_i \frac{m_i^2 - \sum_c n_{ic}^2}{m_i - 1},\qquad
        D_e = \frac{n^2 - \sum_c n_c^2}{n (n - 1)},\qquad \alpha^{(2|\ell)} = 1 - D_o / D_e

    (Krippendorff 2011, nominal), nan where no item is pairable or :math:`D_e \le` EPS. One sort of the
    annotations by (parent, item, child) and grouped sums; no loop over parents. Returns the alphas, the
    pairable items and the annotations of each parent.
    """
    return _conditional_finish(*_conditional_sums(item, parent, child, n_parents))


def _conditional_sums(item: np.ndarray, parent: np.ndarray, child: np.ndarray, n_parents: int) -> tuple:
    """The sums behind :func:`_conditional_alphas`, additive over sets of whole items: per parent the observed
    disagreement's numerator, the pairable annotations, the pairable items and the annotations; and per (parent,
    child) run the pairable annotations (arrays of parents, children, counts)."""
    n_annotations = np.bincount(parent, minlength=n_parents)
    zeros, none = np.zeros(n_parents), np.zeros(0, dtype=np.int64)
    if item.size == 0:
        return zeros, zeros, np.zeros(n_parents, dtype=np.int64), n_annotations, none, none, np.zeros(0)
    order = np.lexsort((child, item, parent))
    g, it, ch = parent[order], item[order], child[order]
    new_cell = np.r_[True, (g[1:] != g[:-1]) | (it[1:] != it[:-1]) | (ch[1:] != ch[:-1])]
    cell_start = np.flatnonzero(new_cell)
    n_cell = np.diff(np.r_[cell_start, g.size]).astype(float)  # n_ic of each (parent, item, child)
    cg, ci, cc = g[cell_start], it[cell_start], ch[cell_start]
    new_pi = np.r_[True, (cg[1:] != cg[:-1]) | (ci[1:] != ci[:-1])]
    pi_of_cell = np.cumsum(new_pi) - 1  # the (parent, item) group of each cell
    m = np.bincount(pi_of_cell, weights=n_cell)
    sumsq = np.bincount(pi_of_cell, weights=n_cell * n_cell)
    pi_parent = cg[new_pi]
    ok = m >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        part = np.where(ok, (m * m - sumsq) / np.where(ok, m - 1.0, 1.0), 0.0)
    obs = np.bincount(pi_parent, weights=part, minlength=n_parents)
    n = np.bincount(pi_parent, weights=np.where(ok, m, 0.0), minlength=n_parents)
    n_items = np.bincount(pi_parent, weights=ok, minlength=n_parents).astype(np.int64)
    cell_ok = ok[pi_of_cell]
    pg, pc, w = _runs(cg[cell_ok], cc[cell_ok], n_cell[cell_ok])
    return obs, n, n_items, n_annotations, pg, pc, w


def _runs(cg: np.ndarray, cc: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The weights ``w`` summed per distinct (parent, child): the pairs sorted, summed per run."""
    o2 = np.lexsort((cc, cg))
    cg, cc, w = cg[o2], cc[o2], w[o2]
    if not cg.size:
        return cg, cc, w
    run = np.r_[True, (cg[1:] != cg[:-1]) | (cc[1:] != cc[:-1])]
    return cg[run], cc[run], np.bincount(np.cumsum(run) - 1, weights=w)


def _conditional_finish(
    obs: np.ndarray,
    n: np.ndarray,
    n_items: np.ndarray,
    n_annotations: np.ndarray,
    pg: np.ndarray,
    pc: np.ndarray,
    w: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_conditional_alphas` from its sums (:func:`_conditional_sums`, possibly added over parts)."""
    n_parents = n_annotations.size
    if not n_items.any() and not w.size:
        return np.full(n_parents, np.nan), n_items, n_annotations
    pg, _, n_c = _runs(pg, pc, w)  # (parent, child) pairs met in several parts are added up here
    sum_nc2 = np.bincount(pg, weights=n_c * n_c, minlength=n_parents)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = obs / n
        d_e = (n * n - sum_nc2) / (n * (n - 1.0))
        alpha = np.where((n_items > 0) & (d_e > EPS), 1.0 - d_o / d_e, np.nan)
    return alpha, n_items, n_annotations


@validate()
def split_hierarchy(data: Any, *, sep: str = "/") -> dict[str, Annotations]:
    r"""The three views of hierarchical labels: ``parent``, ``child`` and ``full``.

    .. math::

        X^{(1)}_{ij} = \pi_1(X_{ij}),\qquad X^{(2)}_{ij} = \pi_2(X_{ij}),\qquad X^{(\mathrm{full})}_{ij} = X_{ij}

    (*Mathematical Foundations of Inter-Annotator Agreement Analysis*, 2025,
    §5.1). Labels may be (parent, child) tuples, paths such as
    ``"Animals/Mammals"`` (split on ``sep``) or Label Studio taxonomy values (a
    list holding one path). The parent is a label's first component and the
    child its second (:math:`\pi_1`, :math:`\pi_2`); the full label is the
    whole path, written with ``sep`` between its components. A label with no
    second component has no child: it is missing from the child view. Only the
    categories are parsed (no loop over annotations). Every view is nominal and
    keeps the items and annotators of ``data``.

    Parameters
    ----------
    data : Annotations or convertible
        Annotations whose labels are paths; they must be the annotations
        themselves (not a count table or statistics only).
    sep : str, default '/'
        Separator between the components of a text label (surrounding
        whitespace of each component is dropped).

    Returns
    -------
    dict of str to Annotations
        ``{"parent": ..., "child": ..., "full": ...}``; the parent and child
        categories are sorted by their text.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them (e.g. a path: read it with :func:`read` first).
    ValueError
        The data holds only a count table or sufficient statistics: the views need the annotations themselves.

    See Also
    --------
    hierarchical_agreement : Agreement on the three views.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §5.1.

    Label Studio documentation. Taxonomy tag. https://labelstud.io/tags/taxonomy

    Examples
    --------
    Two annotators (rows) label four items with ``parent/child`` paths:

    >>> import iaa_engine as ie
    >>> data = ie.Annotations.from_wide([["Animal/Dog", "Animal/Cat", "Plant/Tree", "Plant/Moss"],
    ...                                  ["Animal/Dog", "Animal/Dog", "Plant/Tree", "Plant/Tree"]])
    >>> views = ie.split_hierarchy(data)
    >>> list(views["parent"].categories), list(views["child"].categories)
    (['Animal', 'Plant'], ['Cat', 'Dog', 'Moss', 'Tree'])
    >>> views["parent"].to_long().head(3)
       item  annotator   label
    0     0          0  Animal
    1     1          0  Animal
    2     2          0   Plant
    """
    data = as_annotations(data)
    if data.label is None:
        raise ValueError("hierarchical analysis needs the annotations themselves, not only statistics")
    paths = [_path(c, sep) for c in data.categories]
    parents, parent_code, children, child_code = _components(paths)
    full = [sep.join(map(str, p)) for p in paths]
    return {
        "parent": _recode(data, parents, parent_code),
        "child": _recode(data, children, child_code),
        "full": _recode(data, full, np.arange(len(paths), dtype=np.int64)),
    }


@dataclass(frozen=True, eq=False)
class HierarchyResult(Result):
    r"""Agreement on hierarchical labels: the result of :func:`hierarchical_agreement`.

    .. math::

        \gamma = \frac{\alpha^{(\mathrm{full})}}{\max(\alpha^{(1)}, \alpha^{(2)})}

    (*Mathematical Foundations of Inter-Annotator Agreement Analysis*, 2025, §5).
    ``to_dict()`` gives the same fields as plain JSON-ready data (undefined values ``None``).

    Attributes
    ----------
    alpha_parent, alpha_child, alpha_full : float
        Krippendorff's alpha (nominal) on the parent, child and full labels
        (nan when undefined, with a note).
    gamma : float
        Hierarchical consistency :math:`\alpha^{(\mathrm{full})} / \max(\alpha^{(1)}, \alpha^{(2)})`;
        undefined (``replace_undefined_by``, noted) when the denominator is not positive.
    conditional : pandas.DataFrame
        Indexed by parent :math:`\ell_1`: the child alpha among annotations with that
        parent (``alpha``; ``replace_undefined_by`` when undefined), with ``n_items`` (items with two
        or more such annotations) and ``n_annotations``.
    notes : list of str
        Why a value is undefined, one line each.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §5.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> data = ie.Annotations.from_wide([["Animal/Dog", "Animal/Cat", "Plant/Tree", "Plant/Moss"],
    ...                                  ["Animal/Dog", "Animal/Dog", "Plant/Tree", "Plant/Tree"]])
    >>> result = ie.hierarchical_agreement(data)
    >>> result.alpha_parent, round(result.alpha_child, 4), round(result.gamma, 4)
    (1.0, 0.3636, 0.3636)
    >>> result.to_dict()["conditional"][0]
    {'parent': 'Animal', 'alpha': 0.0, 'n_items': 2, 'n_annotations': 4}
    """

    alpha_parent: float
    alpha_child: float
    alpha_full: float
    gamma: float
    conditional: pd.DataFrame
    notes: list

    def to_dict(self) -> dict:
        from iaa_engine.base._results import nan_to_none

        return nan_to_none(
            {
                "alpha_parent": self.alpha_parent,
                "alpha_child": self.alpha_child,
                "alpha_full": self.alpha_full,
                "gamma": self.gamma,
                "conditional": self.conditional.reset_index().to_dict(orient="records"),
                "notes": self.notes,
            }
        )


def _quiet_alpha(data: Annotations, notes: list, what: str) -> float:
    import warnings

    from iaa_engine.base._policy import UndefinedMetricWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        value = krippendorff_alpha(data, level="nominal")
    for w in caught:
        notes.append(f"{what}: {str(w.message).split('; returning')[0]}")
    return value


@validate()
def hierarchical_agreement(data: Any, *, sep: str = "/", replace_undefined_by: float = np.nan) -> HierarchyResult:
    r"""Parent, child and full-label agreement, the consistency γ and conditional child agreement.

    .. math::

        \gamma = \frac{\alpha^{(\mathrm{full})}}{\max(\alpha^{(1)}, \alpha^{(2)})},\qquad
        \alpha^{(2|\ell_1)} = \alpha\big(\{x_{ij} : \pi_1(x_{ij}) = \ell_1\}\big)

    with :math:`\alpha^{(1)}`, :math:`\alpha^{(2)}` and :math:`\alpha^{(\mathrm{full})}` Krippendorff's
    nominal alpha on the parent, child and full labels (:func:`split_hierarchy`)
    and :math:`\pi_1` the parent of a label (*Mathematical Foundations of
    Inter-Annotator Agreement Analysis*, 2025, §5.1-5.3, eqs. 18-19). The report
    states :math:`\gamma \in [0, 1]`, which holds only when
    :math:`0 < \alpha^{(\mathrm{full})} \le \max(\alpha^{(1)}, \alpha^{(2)})`;
    γ is undefined (``replace_undefined_by``, with a note) when the denominator
    is not positive, and it can exceed 1 when the full labels agree more than
    either projection. The conditional child agreement uses only the
    annotations whose parent is :math:`\ell_1`, on items with at least two of
    them, as eq. (19) selects.

    Parameters
    ----------
    data : Annotations or convertible
        Annotations whose labels are paths (see :func:`split_hierarchy`); they
        must be the annotations themselves, not a count table.
    sep : str, default '/'
        Separator between the components of a text label.
    replace_undefined_by : float, default nan
        Returned for γ, and for a parent's conditional alpha, when it is
        undefined (γ: the larger of the parent and child alphas is not
        positive; a conditional alpha: fewer than two annotations with that
        parent on any item, or a single child label among them). The three
        alphas themselves are nan when undefined; each undefined value is
        explained in ``notes`` (γ and the three alphas) instead of a warning.

    Returns
    -------
    HierarchyResult
        ``alpha_parent``, ``alpha_child``, ``alpha_full``, ``gamma``,
        ``conditional`` (per parent: ``alpha``, ``n_items``,
        ``n_annotations``) and ``notes``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The data holds only a count table or sufficient statistics: hierarchical analysis needs the
        annotations themselves.

    See Also
    --------
    hierarchy_test : Bootstrap test of parent against child agreement.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §5.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Examples
    --------
    The parents always agree; the children disagree on two of four items.
    The child alpha is :math:`1 - D_o / D_e` with 8 values (Cat 1, Dog 3,
    Moss 1, Tree 3) and 4 disagreeing ordered pairs:

    >>> import iaa_engine as ie
    >>> data = ie.Annotations.from_wide([["Animal/Dog", "Animal/Cat", "Plant/Tree", "Plant/Moss"],
    ...                                  ["Animal/Dog", "Animal/Dog", "Plant/Tree", "Plant/Tree"]])
    >>> result = ie.hierarchical_agreement(data)
    >>> result.alpha_parent
    1.0
    >>> round(result.alpha_child, 4)  # 1 - (4/8) / (44/56) = 4/11
    0.3636
    >>> round(result.gamma, 4)  # alpha_full / max(1, 4/11)
    0.3636
    >>> result.conditional.reset_index()  # within each parent, the children agree at chance level
       parent  alpha  n_items  n_annotations
    0  Animal    0.0        2              4
    1   Plant    0.0        2              4
    """
    fill = check_replacement(replace_undefined_by)
    views = split_hierarchy(data, sep=sep)
    notes: list[str] = []
    a1 = _quiet_alpha(views["parent"], notes, "parent-level alpha")
    a2 = _quiet_alpha(views["child"], notes, "child-level alpha")
    af = _quiet_alpha(views["full"], notes, "full-label alpha")
    den = max(a1, a2) if np.isfinite(a1) and np.isfinite(a2) else np.nan
    if np.isfinite(den) and den > EPS and np.isfinite(af):
        gamma = af / den
    else:
        gamma = fill
        notes.append("gamma is undefined: max(parent alpha, child alpha) is not positive")
    # conditional child agreement: child labels of annotations whose parent is l1, per l1 (vectorised per parent)
    full = as_annotations(data)
    _, cat_parent, _, cat_child = _components([_path(c, sep) for c in full.categories])
    has_child = cat_child[full.label] >= 0  # annotations with a child label, grouped by their parent
    alpha, n_items, n_annotations = _conditional_alphas(
        full.item[has_child],
        cat_parent[full.label[has_child]],
        cat_child[full.label[has_child]],
        views["parent"].n_categories,
    )
    conditional = pd.DataFrame(
        {
            "parent": views["parent"].categories,
            "alpha": np.where(np.isfinite(alpha), alpha, fill),
            "n_items": n_items,
            "n_annotations": n_annotations,
        }
    ).set_index("parent")
    return HierarchyResult(a1, a2, af, gamma, conditional, notes)


@dataclass(frozen=True, eq=False)
class HierarchyTest(ScalarResult):
    r"""Bootstrap test of parent-level against child-level agreement: the result of :func:`hierarchy_test`.

    .. math::

        p = \frac{1}{B'} \sum_{b=1}^{B'} \mathbf{1}\big[\alpha^{(1)}_b - \alpha^{(2)}_b \le 0\big]

    over the :math:`B'` replicates in which both alphas are defined. Fields are
    read as attributes or as ``result["p_value"]``; ``to_dict()`` gives them as
    JSON-ready data (undefined values ``None``).

    Attributes
    ----------
    difference : float
        :math:`\alpha^{(1)} - \alpha^{(2)}` on the data.
    p_value : float
        Share of replicates with a difference at or below 0 (one-sided; nan when no replicate is defined).
    lower, upper : float
        95 % percentile interval of the difference (2.5 % and 97.5 % quantiles of the replicates).
    n_boot, n_undefined : int
        Replicates drawn, and those in which a difference was undefined.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §7.1.

    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> data = ie.Annotations.from_wide([["Animal/Dog", "Animal/Cat", "Plant/Tree", "Plant/Moss"],
    ...                                  ["Animal/Dog", "Animal/Dog", "Plant/Tree", "Plant/Tree"]])
    >>> test = ie.hierarchy_test(data, n_boot=1000, seed=0)
    >>> round(test.difference, 4), round(test["p_value"], 3), test.n_undefined
    (0.6364, 0.062, 111)
    """

    difference: float
    p_value: float
    lower: float
    upper: float
    n_boot: int
    n_undefined: int


@validate()
def hierarchy_test(data: Any, *, sep: str = "/", n_boot: int = 2000, seed: int | None = None) -> HierarchyTest:
    r"""Bootstrap test of "parent-level agreement exceeds child-level agreement".

    :math:`H_0: \alpha^{(1)} \le \alpha^{(2)}` against :math:`H_1: \alpha^{(1)} > \alpha^{(2)}`
    (*Mathematical Foundations of Inter-Annotator Agreement Analysis*, 2025,
    §7.1, eqs. 21-22), with :math:`\alpha^{(1)}` and :math:`\alpha^{(2)}`
    Krippendorff's nominal alpha on the parent and child labels
    (:func:`split_hierarchy`). Items are resampled with replacement B times
    (parent and child alpha from the same replicate, so their correlation is
    kept):

    .. math::

        p = \frac{1}{B'} \sum_{b=1}^{B'} \mathbf{1}\big[\alpha^{(1)}_b - \alpha^{(2)}_b \le 0\big],\qquad
        [L, U] = \big[q_{0.025}, q_{0.975}\big] \text{ of } \alpha^{(1)}_b - \alpha^{(2)}_b

    over the :math:`B'` replicates in which both alphas are defined (the
    others are counted in ``n_undefined``). Vectorised: items with the same
    full-label count vector are interchangeable, so each replicate is a
    multinomial draw over count patterns, projected to parent and child counts.

    Parameters
    ----------
    data : Annotations or convertible
        Annotations whose labels are paths (see :func:`split_hierarchy`); they
        must be the annotations themselves, not a count table.
    sep : str, default '/'
        Separator between the components of a text label.
    n_boot : int, default 2000
        Number of bootstrap replicates B (2 to 100,000).
    seed : int, optional
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.

    Returns
    -------
    HierarchyTest
        ``difference`` (observed), ``p_value``, ``lower``, ``upper``, ``n_boot``, ``n_undefined`` (as attributes,
        or ``result["p_value"]``). With no defined replicate, ``p_value``, ``lower`` and ``upper`` are nan.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The data holds only a count table or sufficient statistics (hierarchical analysis needs the annotations
        themselves); no label has a child ("no labels at this level of the hierarchy"); or the items ×
        categories table is too large to resample (more than 50 million cells).

    See Also
    --------
    hierarchical_agreement : The point estimates, γ and conditional agreement.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §7.1.

    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    Parents agree perfectly, children on half of the items: the observed
    difference is :math:`1 - 4/11`, but four items give little evidence.

    >>> import iaa_engine as ie
    >>> data = ie.Annotations.from_wide([["Animal/Dog", "Animal/Cat", "Plant/Tree", "Plant/Moss"],
    ...                                  ["Animal/Dog", "Animal/Dog", "Plant/Tree", "Plant/Tree"]])
    >>> test = ie.hierarchy_test(data, n_boot=1000, seed=0)
    >>> round(test.difference, 4)  # 1 - 4/11
    0.6364
    >>> round(test.p_value, 3), test.lower, round(test.upper, 4), test.n_undefined
    (0.062, 0.0, 1.2727, 111)
    """
    views = split_hierarchy(data, sep=sep)
    full = views["full"]
    parent_names, cat_parent, child_names, cat_child = _components([_path(c, sep) for c in full.categories])
    patterns, mult = count_patterns(full)  # refuses a table too large to resample before anything is built
    # category -> parent and category -> child as sparse 0/1 projections (categories x parents would be dense
    # categories^2 with many labels)
    with_child = np.flatnonzero(cat_child >= 0)
    projections = [
        sp.csr_matrix((np.ones(rows.size), (rows, codes[rows])), shape=(full.n_categories, len(names)))
        for rows, codes, names in (
            (np.arange(full.n_categories), cat_parent, parent_names),
            (with_child, cat_child, child_names),
        )
    ]
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(int(mult.sum()), mult / mult.sum(), size=int(n_boot)).astype(float)
    alphas = []
    for proj in projections:
        pat = np.asarray(proj.T @ patterns.T).T.astype(np.int64)  # the patterns' counts per parent (per child)
        view = Annotations.from_counts(pat) if pat.sum() else None
        if view is None:
            raise ValueError("no labels at this level of the hierarchy")
        s = view.count_sums
        feats = CountSums.pattern_features(pat, s.o_row, s.o_col)
        size = CountSums.pattern_n_values(pat)
        with np.errstate(all="ignore"):
            point = CountSums.from_features(mult @ feats, pat.shape[1], size, s.o_row, s.o_col).krippendorff_alpha(
                "nominal", None
            )
            reps = CountSums.from_features(draws @ feats, pat.shape[1], size, s.o_row, s.o_col).krippendorff_alpha(
                "nominal", None
            )
        alphas.append((float(point), reps))
    diff = alphas[0][1] - alphas[1][1]
    good = diff[np.isfinite(diff)]
    if good.size == 0:
        return HierarchyTest(
            difference=alphas[0][0] - alphas[1][0],
            p_value=np.nan,
            lower=np.nan,
            upper=np.nan,
            n_boot=int(n_boot),
            n_undefined=int(diff.size),
        )
    lo, hi = np.quantile(good, [0.025, 0.975])
    return HierarchyTest(
        difference=alphas[0][0] - alphas[1][0],
        p_value=float(np.mean(good <= 0.0)),
        lower=float(lo),
        upper=float(hi),
        n_boot=int(n_boot),
        n_undefined=int(diff.size - good.size),
    )


# --------------------------------------------------------------------------- frequency strata


@validate()
def label_agreement(data: Any) -> pd.DataFrame:
    r"""Per-label agreement: Krippendorff's alpha of the binary variable "label ℓ or not".

    .. math::

        \alpha_\ell = 1 - \frac{(n-1) \sum_i \frac{2\,n_{i\ell}(n_i - n_{i\ell})}{n_i - 1}}{2\,n_\ell (n - n_\ell)}

    over items with two or more annotations (n pairable values, :math:`n_\ell`
    of them ℓ; :math:`n_i` values on item i, :math:`n_{i\ell}` of them ℓ). This
    is nominal Krippendorff's alpha after recoding every label to "ℓ" or "not
    ℓ". It measures how reliably annotators separate ℓ from everything else
    (1: whenever one annotator says ℓ, all do; 0: no better than chance), the
    per-label agreement :math:`\alpha_\ell` of the frequency regression in
    *Mathematical Foundations of Inter-Annotator Agreement Analysis* (2025),
    eq. (23). Undefined (nan, without a warning) for a label with no pairable
    occurrence or used by every pairable value.

    Parameters
    ----------
    data : Annotations or convertible
        The annotations, or their per-item counts (a count table works; statistics summed over items do not).

    Returns
    -------
    pandas.DataFrame
        Indexed by label: ``frequency`` (:math:`f_\ell`, all annotations,
        eq. 11 of the report), ``alpha``, ``n_pairable`` (:math:`n_\ell`).

    Raises
    ------
    TypeError
        ``data`` is not annotations nor convertible to them (this function has no option that could be
        refused with :class:`InvalidParameterError`).
    ValueError
        The data holds only sums over items (e.g. from :func:`summarize_dask`): per-item counts are needed.

    See Also
    --------
    frequency_strata : Strata of label frequency and the regression of :math:`\alpha_\ell` on
        :math:`\log f_\ell`.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §4.1 and §7.2.

    Examples
    --------
    Three annotators, three categories (the classroom exercise): category
    ``3`` is the one annotators separate best from the others.

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> ie.label_agreement(data).round(3).reset_index()
      label  frequency  alpha  n_pairable
    0     1         15  0.511          15
    1     2         16  0.431          16
    2     3         14  0.899          14

    With two labels, each label's alpha is the nominal alpha,
    here :math:`1 - 5 \cdot 2 / (2 \cdot 3 \cdot 3) = 4/9`:

    >>> two = ie.Annotations.from_wide([["a", "a", "b"], ["a", "b", "b"]])
    >>> ie.label_agreement(two)["alpha"].round(4).tolist()
    [0.4444, 0.4444]
    """
    data = as_annotations(data)
    return label_table(*label_sums(data), data.categories)


def label_sums(data: Annotations) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The sums over items behind :func:`label_agreement`: per category the within-item disagreement
    :math:`\sum_i 2 n_{i\ell}(n_i - n_{i\ell})/(n_i - 1)` over pairable items, the pairable values
    :math:`n_\ell` and all values (they add over disjoint sets of items, e.g. a cluster's partitions)."""
    c = data.counts
    n_i = c.n_i[c.item]
    ok = n_i >= 2
    within = np.bincount(
        c.category[ok], weights=2.0 * c.count[ok] * (n_i[ok] - c.count[ok]) / (n_i[ok] - 1.0), minlength=c.n_categories
    )
    return within, c.category_totals(c.pairable).astype(float), c.category_totals().astype(float)


def label_table(within: np.ndarray, n_l: np.ndarray, totals: np.ndarray, categories: Any) -> pd.DataFrame:
    """:func:`label_agreement`'s table from the sums of :func:`label_sums`."""
    n_categories = len(within)
    n = n_l.sum()
    den = 2.0 * n_l * (n - n_l)
    alpha = np.full(n_categories, np.nan)
    good = den > EPS
    alpha[good] = 1.0 - (n - 1.0) * within[good] / den[good]
    return pd.DataFrame(
        {"frequency": totals.astype(np.int64), "alpha": alpha, "n_pairable": n_l.astype(np.int64)},
        index=pd.Index(categories, name="label"),
    )


@dataclass(frozen=True, eq=False)
class StrataResult(Result):
    r"""Frequency-stratified agreement: the result of :func:`frequency_strata`.

    .. math::

        \alpha_\ell = \beta_0 + \beta_1 \log f_\ell + \epsilon_\ell

    is the regression reported in :attr:`regression` (*Mathematical Foundations
    of Inter-Annotator Agreement Analysis*, 2025, §4 and §7.2). ``to_frame()``
    gives one row per stratum and ``to_dict()`` everything as JSON-ready data.

    Attributes
    ----------
    labels : pandas.DataFrame
        Indexed by label: ``frequency``, ``alpha``, ``n_pairable`` (:func:`label_agreement`) and ``stratum``
        (``None`` for a category that is never used).
    strata : pandas.DataFrame
        Indexed by stratum name: ``labels`` (list), ``upper_quantile`` (:math:`Q_s`; the largest frequency for
        the last stratum), ``n_items``, ``alpha`` (:math:`\alpha^{(s)}`, nan when undefined).
    regression : dict
        Ordinary least squares fit of :math:`\alpha_\ell = \beta_0 + \beta_1 \log f_\ell + \epsilon_\ell` over
        labels with defined alpha: ``beta0``, ``beta1``, ``se_beta1``, ``r2``, ``p_value`` (two-sided t test of
        β1 = 0), ``n``; nan values and a ``note`` when fewer than three labels with different frequencies
        have a defined alpha.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §4 and §7.2.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> crowd = ie.read(files("iaa_engine") / "examples" / "crowd.csv")
    >>> result = ie.frequency_strata(crowd)
    >>> result.to_frame().round(3)
        stratum            labels  upper_quantile  n_items  alpha
    0      rare  [mixed, neutral]           237.0      194  0.188
    1  moderate        [negative]           251.0      136  0.091
    2    common        [positive]           287.0      147  0.079
    >>> round(result.regression["beta1"], 3), result.regression["n"]
    (0.329, 4)
    """

    labels: pd.DataFrame
    strata: pd.DataFrame
    regression: dict

    def to_frame(self) -> pd.DataFrame:
        """One row per stratum (``labels``, ``upper_quantile``, ``n_items``, ``alpha``)."""
        return self.strata.reset_index()

    def to_dict(self) -> dict:
        from iaa_engine.base._results import nan_to_none

        return nan_to_none(
            {
                "labels": self.labels.reset_index().to_dict(orient="records"),
                "strata": self.strata.reset_index().to_dict(orient="records"),
                "regression": self.regression,
            }
        )


@validate()
def frequency_strata(data: Any, *, n_strata: int = 3, names: Sequence[str] | None = None) -> StrataResult:
    r"""Label frequencies, quantile strata, agreement per stratum, and agreement against log frequency.

    Strata (*Mathematical Foundations of Inter-Annotator Agreement Analysis*,
    2025, eqs. 12-15): with :math:`Q_s` the :math:`s/k` quantiles of the label
    frequencies :math:`f_\ell` (annotations with label ℓ, eq. 11),

    .. math::

        S_1 = \{\ell : f_\ell \le Q_1\},\qquad
        S_s = \{\ell : Q_{s-1} < f_\ell \le Q_s\},\qquad
        S_k = \{\ell : f_\ell > Q_{k-1}\}

    with default names rare / moderate / common for k = 3. The quantiles are
    NumPy's default (linear interpolation) over the frequencies of the
    categories that occur.

    Stratum agreement (eqs. 16-17): :math:`X^{(s)}` keeps every item on which
    some annotator used a label of :math:`S_s`, with all of that item's
    annotations (so a disagreement with a label of another stratum still
    counts), and :math:`\alpha^{(s)}` is nominal alpha on it (nan if undefined).

    Regression (eq. 23) of :func:`label_agreement`'s :math:`\alpha_\ell` on
    :math:`\log f_\ell`, ordinary least squares over the labels with a defined
    :math:`\alpha_\ell`:

    .. math::

        \alpha_\ell = \beta_0 + \beta_1 \log f_\ell + \epsilon_\ell

    Parameters
    ----------
    data : Annotations or convertible
        The annotations themselves (not a count table or statistics only).
    n_strata : int, default 3
        Number of strata k (at least 1).
    names : sequence of str, optional
        Names of the strata, rarest first; ``n_strata`` of them. Default:
        ``rare``, ``moderate``, ``common`` for k = 3, otherwise ``stratum 1`` … ``stratum k``.

    Returns
    -------
    StrataResult
        ``labels`` (per label: ``frequency``, ``alpha``, ``n_pairable``,
        ``stratum``), ``strata`` (per stratum: ``labels``, ``upper_quantile``,
        ``n_items``, ``alpha``) and ``regression`` (``beta0``, ``beta1``,
        ``se_beta1``, ``r2``, ``p_value``, ``n``; nan with a ``note`` when
        fewer than three labels with different frequencies have a defined
        alpha).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        ``names`` does not have ``n_strata`` entries, or the data holds only a count table or sufficient
        statistics (the strata need the annotations themselves).

    See Also
    --------
    label_agreement : The per-label alpha.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §4 and §7.2.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Examples
    --------
    Label frequencies 151, 237, 251 and 287 have the tertiles 237 and 251:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> crowd = ie.read(files("iaa_engine") / "examples" / "crowd.csv")
    >>> result = ie.frequency_strata(crowd)
    >>> result.labels[["frequency", "stratum"]].reset_index()
          label  frequency   stratum
    0     mixed        151      rare
    1  negative        251  moderate
    2   neutral        237      rare
    3  positive        287    common
    >>> result.strata["alpha"].round(3).tolist()
    [0.188, 0.091, 0.079]
    >>> {k: round(result.regression[k], 3) for k in ("beta0", "beta1", "r2")}
    {'beta0': -1.437, 'beta1': 0.329, 'r2': 0.959}
    """
    data = as_annotations(data)
    names = strata_names(n_strata, names)
    per_label, stratum = assign_strata(label_agreement(data), names)
    subsets = [stratum_subset(data, stratum == s) for s in range(len(names))]
    alphas = [np.nan if sub is None or not int(np.sum(sub.counts.n_i >= 2)) else _quiet_alpha(sub, [], "")
              for sub, _ in subsets]  # fmt: skip
    return finish_strata(per_label, stratum, names, [hit for _, hit in subsets], alphas)


def strata_names(n_strata: int, names: Sequence[str] | None) -> list:
    """The strata's names, rarest first (checked against ``n_strata``)."""
    if names is None:
        names = ["rare", "moderate", "common"] if n_strata == 3 else [f"stratum {s + 1}" for s in range(n_strata)]
    names = list(names)
    if len(names) != n_strata:
        raise ValueError(f"names has {len(names)} entries but n_strata is {n_strata}")
    return names


def _quantiles(per_label: pd.DataFrame, n_strata: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = per_label["frequency"].to_numpy(dtype=float)
    used = f > 0
    q = np.quantile(f[used], np.arange(1, n_strata) / n_strata) if n_strata > 1 else np.array([])
    return f, used, q


def assign_strata(per_label: pd.DataFrame, names: list) -> tuple[pd.DataFrame, np.ndarray]:
    """Each label's stratum by the quantiles of the used labels' frequencies: the table with its ``stratum``
    column, and the stratum codes (-1: an unused label)."""
    f, used, q = _quantiles(per_label, len(names))
    stratum = np.searchsorted(q, f, side="left")  # f <= Q_1 -> 0, Q_1 < f <= Q_2 -> 1, ...
    per_label = per_label.assign(stratum=[names[s] if u else None for s, u in zip(stratum, used)])
    return per_label, np.where(used, stratum, -1)


def stratum_subset(data: Annotations, in_s: np.ndarray) -> tuple[Annotations | None, int]:
    """The annotations of the items with a label of the stratum (``in_s``: a mask over the categories), nominal,
    and the number of those items."""
    c = data.counts
    hit = np.zeros(c.n_items, dtype=bool)
    hit[c.item[in_s[c.category]]] = True
    sub_item = hit[data.item] if data.item is not None else None
    if sub_item is None:
        raise ValueError("frequency strata need the annotations themselves, not only statistics")
    sub = (
        Annotations(
            data.item[sub_item],
            None if data.annotator is None else data.annotator[sub_item],
            data.label[sub_item],
            items=data.items,
            annotators=data.annotators,
            categories=data.categories,
            level="nominal",
        )
        if sub_item.any()
        else None
    )
    return sub, int(hit.sum())


def finish_strata(per_label: pd.DataFrame, stratum: np.ndarray, names: list, hits: list, alphas: list) -> StrataResult:
    """:func:`frequency_strata`'s result from the labels' table, their strata, each stratum's items and alpha."""
    f, used, q = _quantiles(per_label, len(names))
    rows = []
    for s, name in enumerate(names):
        in_s = stratum == s
        rows.append(
            {
                "stratum": name,
                "labels": [lab for lab, m in zip(per_label.index, in_s) if m],
                "upper_quantile": float(q[s]) if s < len(q) else float(f[used].max(initial=0)),
                "n_items": int(hits[s]),
                "alpha": alphas[s],
            }
        )
    strata = pd.DataFrame(rows).set_index("stratum")
    ok = used & np.isfinite(per_label["alpha"].to_numpy())
    x, y = np.log(f[ok]), per_label["alpha"].to_numpy()[ok]
    reg: dict[str, Any] = {"n": int(ok.sum())}
    if ok.sum() >= 3 and np.ptp(x) > 0:
        from scipy import stats

        fit = stats.linregress(x, y)
        reg.update(
            beta0=float(fit.intercept),
            beta1=float(fit.slope),
            se_beta1=float(fit.stderr),
            r2=float(fit.rvalue**2),
            p_value=float(fit.pvalue),
        )
    else:
        reg.update(beta0=np.nan, beta1=np.nan, se_beta1=np.nan, r2=np.nan, p_value=np.nan)
        reg["note"] = "the regression needs at least three labels with defined agreement and different frequencies"
    return StrataResult(per_label, strata, reg)
