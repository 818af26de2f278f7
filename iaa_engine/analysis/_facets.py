"""Hierarchical facets and frequency strata (seed 004 §4, §5, §7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

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


@validate()
def split_hierarchy(data: Any, *, sep: str = "/") -> dict[str, Annotations]:
    """The three views of hierarchical labels (seed 004 §5.1): ``parent``, ``child`` and ``full``.

    Labels may be (parent, child) tuples, paths such as ``"Animals/Mammals"``
    (split on ``sep``) or Label Studio taxonomy values (a list holding one
    path). The parent is a label's first component and the child its second
    (:math:`\\pi_1`, :math:`\\pi_2`); the full label is the whole path. A label
    with no second component has no child: it is missing from the child view.
    Only the categories are parsed (no loop over annotations).
    """
    data = as_annotations(data)
    if data.label is None:
        raise ValueError("hierarchical analysis needs the annotations themselves, not only statistics")
    paths = [_path(c, sep) for c in data.categories]
    parents = sorted({p[0] for p in paths}, key=str)
    children = sorted({p[1] for p in paths if len(p) > 1}, key=str)
    parent_code = np.array([parents.index(p[0]) for p in paths], dtype=np.int64)
    child_code = np.array([children.index(p[1]) if len(p) > 1 else -1 for p in paths], dtype=np.int64)
    full = [sep.join(map(str, p)) for p in paths]
    return {
        "parent": _recode(data, parents, parent_code),
        "child": _recode(data, children, child_code),
        "full": _recode(data, full, np.arange(len(paths), dtype=np.int64)),
    }


@dataclass(frozen=True, eq=False)
class HierarchyResult(Result):
    """Agreement on hierarchical labels (seed 004 §5).

    Attributes
    ----------
    alpha_parent, alpha_child, alpha_full : float
        Krippendorff's alpha (nominal) on the parent, child and full labels.
    gamma : float
        Hierarchical consistency :math:`\\alpha^{(full)} / \\max(\\alpha^{(1)}, \\alpha^{(2)})`; undefined (nan,
        noted) when the denominator is not positive.
    conditional : pandas.DataFrame
        Per parent :math:`\\ell_1`: the child alpha among annotations with that
        parent (``alpha``, nan when undefined), with ``n_items`` (items with two
        or more such annotations) and ``n_annotations``.
    notes : list of str
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

    Seed 004 §5.1-5.3. The seed states :math:`\gamma \in [0, 1]`, which holds
    only when both alphas are positive; γ is undefined (``replace_undefined_by``,
    with a note) when the denominator is not positive, and it can exceed 1 when
    the full labels agree more than either projection. The conditional child
    agreement uses only the annotations whose parent is :math:`\ell_1`, on items
    with at least two of them, as the seed's eq. (19) selects.
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
    parent, child = views["parent"], views["child"]
    full = as_annotations(data)
    paths = [_path(c, sep) for c in full.categories]
    cat_parent = np.array([list(parent.categories).index(p[0]) for p in paths])
    cat_child = np.array([list(child.categories).index(p[1]) if len(p) > 1 else -1 for p in paths])
    rows = []
    for k, name in enumerate(parent.categories):  # one alpha per parent category, not per annotation
        lookup = np.where((cat_parent == k) & (cat_child >= 0), cat_child, -1)
        sub = _recode(full, list(child.categories), lookup)
        n_pairable = int(np.sum(sub.counts.n_i >= 2))
        value = _quiet_alpha(sub, [], "") if n_pairable else np.nan
        rows.append(
            {
                "parent": name,
                "alpha": fill if not np.isfinite(value) else value,
                "n_items": n_pairable,
                "n_annotations": sub.n_annotations,
            }
        )
    conditional = pd.DataFrame(rows).set_index("parent")
    return HierarchyResult(a1, a2, af, gamma, conditional, notes)


@dataclass(frozen=True, eq=False)
class HierarchyTest(ScalarResult):
    """Bootstrap test of parent-level against child-level agreement (:func:`hierarchy_test`).

    Attributes
    ----------
    difference : float
        :math:`\\alpha^{(1)} - \\alpha^{(2)}` on the data.
    p_value : float
        Share of replicates with a difference at or below 0 (one-sided).
    lower, upper : float
        95 % percentile interval of the difference.
    n_boot, n_undefined : int
        Replicates drawn, and those in which a difference was undefined.
    """

    difference: float
    p_value: float
    lower: float
    upper: float
    n_boot: int
    n_undefined: int


@validate()
def hierarchy_test(data: Any, *, sep: str = "/", n_boot: int = 2000, seed: int | None = None) -> HierarchyTest:
    r"""Bootstrap test of "parent-level agreement exceeds child-level agreement" (seed 004 §7.1).

    :math:`H_0: \alpha^{(1)} \le \alpha^{(2)}` against :math:`H_1: \alpha^{(1)} > \alpha^{(2)}`.
    Items are resampled with replacement (parent and child alpha from the same
    replicate, so their correlation is kept); the one-sided p-value is the
    share of replicates with :math:`\alpha^{(1)} - \alpha^{(2)} \le 0`, and the
    95 % percentile interval of the difference is reported. Vectorised: items
    with the same full-label count vector are interchangeable, so each
    replicate is a multinomial draw over count patterns, projected to parent
    and child counts.

    Returns
    -------
    HierarchyTest
        ``difference`` (observed), ``p_value``, ``lower``, ``upper``, ``n_boot``, ``n_undefined`` (as attributes,
        or ``result["p_value"]``).
    """
    views = split_hierarchy(data, sep=sep)
    full = views["full"]
    paths = [_path(c, sep) for c in full.categories]
    parent_names, child_names = list(views["parent"].categories), list(views["child"].categories)
    to_parent = np.zeros((full.n_categories, len(parent_names)))
    to_child = np.zeros((full.n_categories, len(child_names)))
    for j, p in enumerate(paths):  # categories, not annotations
        to_parent[j, parent_names.index(p[0])] = 1.0
        if len(p) > 1:
            to_child[j, child_names.index(p[1])] = 1.0
    patterns, mult = count_patterns(full)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(int(mult.sum()), mult / mult.sum(), size=int(n_boot)).astype(float)
    alphas = []
    for proj in (to_parent, to_child):
        pat = (patterns @ proj).astype(np.int64)
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
    of them ℓ). It measures how reliably annotators separate ℓ from everything
    else (1: whenever one annotator says ℓ, all do; 0: no better than chance),
    the per-label agreement :math:`\alpha_\ell` of seed 004 eq. (23). Undefined
    (nan) for a label with no pairable occurrence or used by every pairable value.

    Returns
    -------
    pandas.DataFrame
        Indexed by label: ``frequency`` (:math:`f_\ell`, all annotations,
        seed 004 eq. 11), ``alpha``, ``n_pairable`` (:math:`n_\ell`).
    """
    data = as_annotations(data)
    c = data.counts
    n_i = c.n_i[c.item]
    ok = n_i >= 2
    within = np.bincount(
        c.category[ok], weights=2.0 * c.count[ok] * (n_i[ok] - c.count[ok]) / (n_i[ok] - 1.0), minlength=c.n_categories
    )
    n_l = c.category_totals(c.pairable)
    n = n_l.sum()
    den = 2.0 * n_l * (n - n_l)
    alpha = np.full(c.n_categories, np.nan)
    good = den > EPS
    alpha[good] = 1.0 - (n - 1.0) * within[good] / den[good]
    return pd.DataFrame(
        {"frequency": c.category_totals().astype(np.int64), "alpha": alpha, "n_pairable": n_l.astype(np.int64)},
        index=pd.Index(data.categories, name="label"),
    )


@dataclass(frozen=True, eq=False)
class StrataResult(Result):
    """Frequency-stratified agreement (seed 004 §4, §7.2).

    Attributes
    ----------
    labels : pandas.DataFrame
        Per label: ``frequency``, ``alpha`` (:func:`label_agreement`), ``stratum``.
    strata : pandas.DataFrame
        Per stratum: ``labels``, ``upper_quantile`` (:math:`Q_s`), ``n_items``, ``alpha`` (:math:`\\alpha^{(s)}`).
    regression : dict
        OLS fit of :math:`\\alpha_\\ell = \\beta_0 + \\beta_1 \\log f_\\ell + \\epsilon_\\ell` over labels with
        defined alpha: ``beta0``, ``beta1``, ``se_beta1``, ``r2``, ``p_value`` (two-sided t test of β1 = 0), ``n``.
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

    Strata (seed 004 eqs. 12-15): with :math:`Q_s` the :math:`s/k` quantiles of
    the label frequencies :math:`f_\ell`, :math:`S_1 = \{f \le Q_1\}`,
    :math:`S_s = \{Q_{s-1} < f \le Q_s\}`, :math:`S_k = \{f > Q_{k-1}\}`; default
    names rare / moderate / common for k = 3.

    Stratum agreement (eqs. 16-17): :math:`X^{(s)}` keeps every item on which
    some annotator used a label of :math:`S_s`, with all of that item's
    annotations (so a disagreement with a label of another stratum still
    counts), and :math:`\alpha^{(s)}` is nominal alpha on it (nan if undefined).

    Regression (eq. 23) of :func:`label_agreement`'s :math:`\alpha_\ell` on
    :math:`\log f_\ell`, ordinary least squares.
    """
    data = as_annotations(data)
    if names is None:
        names = ["rare", "moderate", "common"] if n_strata == 3 else [f"stratum {s + 1}" for s in range(n_strata)]
    names = list(names)
    if len(names) != n_strata:
        raise ValueError(f"names has {len(names)} entries but n_strata is {n_strata}")
    per_label = label_agreement(data)
    f = per_label["frequency"].to_numpy(dtype=float)
    used = f > 0
    q = np.quantile(f[used], np.arange(1, n_strata) / n_strata) if n_strata > 1 else np.array([])
    stratum = np.searchsorted(q, f, side="left")  # f <= Q_1 -> 0, Q_1 < f <= Q_2 -> 1, ...
    per_label = per_label.assign(stratum=[names[s] if u else None for s, u in zip(stratum, used)])
    c = data.counts
    rows = []
    for s, name in enumerate(names):  # one subset per stratum
        in_s = (stratum == s) & used
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
        alpha = np.nan
        if sub is not None and int(np.sum(sub.counts.n_i >= 2)):
            alpha = _quiet_alpha(sub, [], "")
        rows.append(
            {
                "stratum": name,
                "labels": [lab for lab, m in zip(data.categories, in_s) if m],
                "upper_quantile": float(q[s]) if s < len(q) else float(f[used].max(initial=0)),
                "n_items": int(hit.sum()),
                "alpha": alpha,
            }
        )
    strata = pd.DataFrame(rows).set_index("stratum")
    ok = used & np.isfinite(per_label["alpha"].to_numpy())
    x, y = np.log(f[ok]), per_label["alpha"].to_numpy()[ok]
    reg: dict[str, float] = {"n": int(ok.sum())}
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
