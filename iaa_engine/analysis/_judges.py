r"""Can a model replace the annotators? The Alternative Annotator Test and human-likeness of model judges.

Models (LLM judges, ML backends, pre-labellers) are a second set of annotations read against the humans', as in
:func:`iaa_engine.model_agreement`; the humans' own annotations are never changed by them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, AnyOf, Choice, Function, Real, Whole, validate
from iaa_engine.base._policy import UndefinedMetricWarning, invalid
from iaa_engine.base._results import Result, nan_to_none, printable
from iaa_engine.data._model import Annotations, as_annotations, extra_codes
from iaa_engine.stats._multiple import benjamini_yekutieli, benjamini_yekutieli_reject, t_test_less

__all__ = ["AltTest", "alt_test", "SCORINGS", "HumanLikeness", "human_likeness"]

#: The built-in alignment scores of :func:`alt_test`.
SCORINGS = ("accuracy", "neg_rmse")

#: Above this many categories a callable score is evaluated on the label pairs themselves, not on a table of all
#: category pairs (the table would have more than 4 million cells).
_GRID_CATEGORIES = 2048

#: Up to this many cells (items x categories) the humans' count table is a dense array (80 MB at most).
_DENSE_CELLS = 10_000_000


def _rows(frame: pd.DataFrame) -> list:
    return [{k: nan_to_none(v) for k, v in r.items()} for r in frame.to_dict(orient="records")]


@dataclass(frozen=True, eq=False, repr=False)
class AltTest(Result):
    r"""The Alternative Annotator Test of each model: the result of :func:`alt_test`.

    Attributes
    ----------
    models : pandas.DataFrame
        One row per model (and group, with ``by``): ``model``, ``group`` (with ``by``), ``n_items`` (items the
        model labelled that at least ``min_humans`` humans labelled), ``n_humans`` (humans tested),
        ``n_rejected`` (humans whose advantage the test rejected), ``omega`` (the winning rate, ``n_rejected /
        n_humans``), ``rho`` (the advantage probability, the mean of the humans' ``rho``) and ``passed``
        (``omega`` at least 0.5). ``omega`` and ``rho`` are NaN when no human was tested (``passed`` False).
    humans : pandas.DataFrame
        One row per model and tested human (and group): ``model``, ``group``, ``human``, ``items``,
        ``model_wins`` and ``human_wins`` (items on which the model, resp. the human, aligned at least as well
        with the other humans; a tie counts for both), ``ties``, ``rho`` (``model_wins / items``), ``advantage``
        (the mean of the human's indicator minus the model's, :math:`\bar d_h`), ``t``, ``p_value`` (one-sided
        t-test of :math:`H_0: E[d_h] \ge \varepsilon`), ``p_adjusted`` (Benjamini–Yekutieli) and ``rejected``.
    left_out : pandas.DataFrame
        Humans not tested for want of items: ``model``, ``group``, ``human``, ``items`` (fewer than
        ``min_items``).
    summary : pandas.DataFrame
        With ``by``: one row per model, ``n_groups`` (groups in which at least one human was tested) and
        ``groups_passed``. Without ``by``: empty.
    epsilon, q : float
        The cost-benefit margin and the false discovery rate.
    scoring : str
        The alignment score (``'accuracy'``, ``'neg_rmse'`` or the callable's name).
    min_humans, min_items : int
        The thresholds used.
    by : str or None
        What the groups are (``None`` without groups).
    notes : list of str
        What was left out and why.

    References
    ----------
    Calderon, N., Reichart, R., & Dror, R. (2025). The Alternative Annotator Test for LLM-as-a-Judge: How to
    Statistically Justify Replacing Human Annotators with LLMs. Proceedings of ACL 2025, 16051–16081.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> humans = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "annotator": list("abcabc"),
    ...                        "label": list("xxyyyy")})
    >>> model = pd.DataFrame({"item": [1, 2], "annotator": "m", "label": ["x", "y"]})
    >>> res = ie.alt_test(humans, model, epsilon=0.1, min_items=2)
    >>> res.humans[["human", "items", "model_wins", "human_wins", "rho"]]
      human  items  model_wins  human_wins  rho
    0     a      2           2           2  1.0
    1     b      2           2           2  1.0
    2     c      2           2           1  1.0
    """

    models: pd.DataFrame
    humans: pd.DataFrame
    left_out: pd.DataFrame
    summary: pd.DataFrame
    epsilon: float
    q: float
    scoring: str
    min_humans: int
    min_items: int
    by: Any = None
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The models table (a copy)."""
        return self.models.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the models, humans, left-out humans, summary, the options and the notes."""
        return {
            "models": _rows(self.models),
            "humans": _rows(self.humans),
            "left_out": _rows(self.left_out),
            "summary": _rows(self.summary),
            "epsilon": self.epsilon,
            "q": self.q,
            "scoring": self.scoring,
            "min_humans": self.min_humans,
            "min_items": self.min_items,
            "by": None if self.by is None else str(self.by),
            "notes": list(self.notes),
        }

    def __str__(self) -> str:
        lines = [
            f"Alternative Annotator Test (epsilon {self.epsilon:g}, Benjamini-Yekutieli q {self.q:g}, "
            f"scoring {self.scoring})"
        ]
        for r in self.models.to_dict(orient="records"):
            where = f" [{printable(r['group'])}]" if "group" in r else ""
            if r["n_humans"] == 0:
                lines.append(
                    f"  {printable(r['model']):>16}{where}: undefined (no human with at least {self.min_items} items)"
                )
                continue
            verdict = "PASSED" if r["passed"] else "FAILED"
            lines.append(
                f"  {printable(r['model']):>16}{where}: {verdict}  winning rate {r['omega']:.2f} "
                f"({r['n_rejected']} of {r['n_humans']} humans)  advantage probability {r['rho']:.2f}"
            )
        for r in self.summary.to_dict(orient="records"):
            lines.append(f"  {printable(r['model']):>16}: passes in {r['groups_passed']} of {r['n_groups']} groups")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def _union_labels(humans: Annotations, models: Annotations) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """The models' item and label codes in the humans' codes (item -1: no human labelled it) and the union of the
    categories (the humans' first, then those only a model used)."""
    item = humans.items.get_indexer(models.items)[models.item]
    cats = humans.categories
    extra = models.categories[cats.get_indexer(models.categories) < 0]
    union = cats.append(extra) if len(extra) else cats
    return item, union.get_indexer(models.categories)[models.label], union


def _numeric(union: pd.Index, scoring: str) -> np.ndarray:
    values = pd.to_numeric(pd.Series(union, dtype=object), errors="coerce").to_numpy(float)
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(f"scoring={scoring!r} needs numeric labels; got {printable(union[np.flatnonzero(bad)[0]])!r}")
    return values


def _similarity_table(score: Callable, union: pd.Index) -> np.ndarray:
    """The table :math:`s(c, k)` of a pairwise similarity over all category pairs (vectorised call first, then one
    call per pair for a function of two scalars)."""
    values = union.to_numpy(dtype=object)
    c = len(values)
    a, b = np.repeat(values, c), np.tile(values, c)
    try:
        out = np.asarray(score(a, b), dtype=float)
        if out.shape != (c * c,):
            raise ValueError
    except Exception:
        try:
            out = np.array([float(score(x, y)) for x, y in zip(a, b)], dtype=float)
        except Exception as error:  # the user's function failed on two labels: say which
            raise ValueError(f"the scoring function failed on two labels ({error})") from error
    if not np.isfinite(out).all():
        raise ValueError("the scoring function returned a value that is not a finite number")
    return out.reshape(c, c)


def _item_groups(h: Annotations, by: Any) -> tuple[np.ndarray, pd.Index]:
    """One group code per item of the humans (-1: none) and the groups' names."""
    if isinstance(by, str):
        codes, groups = extra_codes(h, by)
        lo = np.full(h.n_items, np.iinfo(np.int64).max)
        hi = np.full(h.n_items, -1)
        ok = codes >= 0
        np.minimum.at(lo, h.item[ok], codes[ok])
        np.maximum.at(hi, h.item[ok], codes[ok])
        mixed = np.flatnonzero((hi >= 0) & (lo != hi))
        if mixed.size:
            raise ValueError(
                f"by={by!r} must give each item one group; item {printable(h.items[mixed[0]])!r} has two "
                f"({printable(groups[lo[mixed[0]]])!r} and {printable(groups[hi[mixed[0]]])!r})"
            )
        return np.where(hi >= 0, hi, -1), pd.Index(groups, dtype=object)
    if isinstance(by, pd.Series):
        mapping = by
    elif isinstance(by, Mapping):
        mapping = pd.Series(dict(by), dtype=object)
    else:
        raise invalid("by", "a column kept beside the humans' annotations, or a mapping {item: group}", by)
    values = mapping.reindex(h.items).to_numpy(dtype=object)
    missing = pd.isna(values)
    codes, groups = pd.factorize(pd.Series(values[~missing], dtype=object), sort=True)
    out = np.full(h.n_items, -1, dtype=np.int64)
    out[~missing] = codes
    return out, pd.Index(groups, dtype=object)


@validate(
    models=ANY,
    epsilon=Real(0, 1),
    scoring=AnyOf(Choice(*SCORINGS), Function(), what="'accuracy', 'neg_rmse' or a function s(a, b) of two labels"),
    q=Real(0, 1, low_open=True, high_open=True),
    min_humans=Whole(2),
    min_items=Whole(2),
    by=ANY,  # a kept column or a mapping {item: group}: checked in the body
)
def alt_test(
    humans: Any,
    models: Any,
    *,
    epsilon: float,
    scoring: str | Callable = "accuracy",
    q: float = 0.05,
    min_humans: int = 2,
    min_items: int = 30,
    by: Any = None,
) -> AltTest:
    r"""The Alternative Annotator Test: can each model replace the human annotators?

    Calderon, Reichart and Dror's (2025) leave-one-annotator-out procedure. For each human h and each item i that
    h labelled (among the items the model labelled and at least ``min_humans`` humans labelled), h and the model
    are each scored against the *other* humans' labels :math:`Y_{-h,i}`:

    .. math::

        W^h_i = [S(y_{hi}, Y_{-h,i}) \ge S(x_i, Y_{-h,i})],\qquad
        W^L_i = [S(x_i, Y_{-h,i}) \ge S(y_{hi}, Y_{-h,i})]

    (a tie counts for both), :math:`d_{hi} = W^h_i - W^L_i`, and the one-sided one-sample t-test of
    :math:`H_0: E[d_h] \ge \varepsilon` against :math:`H_1: E[d_h] < \varepsilon` (the human's advantage is
    less than the cost-benefit margin ε) gives :math:`p_h` (:func:`iaa_engine.stats._multiple.t_test_less`).
    The Benjamini–Yekutieli (2001) step-up at level q over the tested humans decides which are rejected; the
    model's winning rate is :math:`\omega = \#\text{rejected} / \#\text{tested}` and it passes when
    :math:`\omega \ge 0.5`. The advantage probability :math:`\rho = \frac{1}{|H|}\sum_h \frac{1}{n_h}\sum_i W^L_i`
    (the chance that the model is as good as a random human) ranks models.

    The scores S, each the mean alignment with the other humans' labels:

    ``'accuracy'``
        :math:`S(v, Y) = \frac{1}{|Y|}\sum_{y \in Y}[v = y]`; with :math:`n_{ic}` the humans' counts of category c
        on item i, h's score is :math:`(n_{i,y_{hi}} - 1)/(m_i - 1)` and the model's
        :math:`(n_{i,x_i} - [x_i = y_{hi}])/(m_i - 1)`: integer comparisons on the count table, no loop.
    ``'neg_rmse'``
        :math:`S(v, Y) = -\sqrt{\frac{1}{|Y|}\sum_{y}(v - y)^2}` on numeric labels; with :math:`S_1` the sum of the
        other humans' values and :math:`m' = m_i - 1`, the model is the better exactly when
        :math:`(x_i - y_{hi})\,(m'(x_i + y_{hi}) - 2S_1) < 0` (the difference of the two sums of squares, exact
        for whole-number labels).
    a function ``s(a, b)``
        A similarity of two labels (larger is closer) and :math:`S(v, Y)` its mean over Y (the authors' ``sim``).
        It is called once on two arrays of all category pairs (or, if that fails, once per pair of categories);
        above 2048 categories it must accept arrays of labels.

    Humans with fewer than ``min_items`` items are left out of the test (they still count among the others when
    the remaining humans are scored) and listed in ``left_out``; the paper's t-test asks for at least 30 items.
    With ``by`` the test is made per group of items (a domain, a dataset) and the Benjamini–Yekutieli correction
    runs over all groups' humans of a model together (the authors' advice for several environments).

    Parameters
    ----------
    humans : Annotations or convertible
        The human annotations (with annotator identities; each human labels an item at most once).
    models : Annotations or convertible
        The model annotations, one "annotator" per model (items no human labelled are left out, with a note).
    epsilon : float
        The cost-benefit margin ε in [0, 1]: the advantage a human must show to be worth keeping. The authors
        suggest 0.2 for experts, 0.15 for skilled annotators and 0.1 for crowd workers (smaller when the humans
        agree little).
    scoring : {'accuracy', 'neg_rmse'} or callable, default 'accuracy'
        The alignment score (see above).
    q : float, default 0.05
        The false discovery rate of the Benjamini–Yekutieli procedure.
    min_humans : int, default 2
        Items with fewer human annotations are left out.
    min_items : int, default 30
        Humans with fewer items (per model and group) are not tested.
    by : str or mapping, optional
        Groups of items: a column kept beside the humans' annotations (``Annotations.from_long(table,
        keep=[...])``; one group per item) or a mapping / Series ``{item: group}``. Items without a group are left
        out.

    Returns
    -------
    AltTest
        Per model ω, ρ and passed; per human the items, ρ_h, p and whether rejected; the humans left out.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``humans`` or ``models`` is not annotations nor convertible to them.
    ValueError
        Either set has no annotator identities or holds only statistics; a human (or a model) labelled an item
        twice; ``'neg_rmse'`` on labels that are not numbers; ``by`` gives an item two groups; the scoring
        function fails.

    See Also
    --------
    model_agreement : Each model's agreement with each annotator, the pooled humans and the gold labels.

    References
    ----------
    Calderon, N., Reichart, R., & Dror, R. (2025). The Alternative Annotator Test for LLM-as-a-Judge: How to
    Statistically Justify Replacing Human Annotators with LLMs. Proceedings of ACL 2025, 16051–16081.
    Reference implementation: https://github.com/nitaytech/AltTest (``alt_test_example.ipynb``).

    Benjamini, Y., & Yekutieli, D. (2001). The control of the false discovery rate in multiple testing under
    dependency. The Annals of Statistics 29(4), 1165–1188.

    Examples
    --------
    Three humans label 40 items; a model that copies annotator ``a`` ties with ``a`` on every item:

    >>> import numpy as np, pandas as pd, iaa_engine as ie
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 40)
    >>> noisy = lambda: np.where(rng.random(40) < 0.8, truth, rng.integers(0, 3, 40))
    >>> labels = {name: noisy() for name in "abc"}
    >>> humans = pd.DataFrame([(i, a, labels[a][i]) for a in "abc" for i in range(40)],
    ...                       columns=["item", "annotator", "label"])
    >>> model = pd.DataFrame({"item": range(40), "annotator": "copy_of_a", "label": labels["a"]})
    >>> res = ie.alt_test(humans, model, epsilon=0.2)
    >>> res.humans.loc[res.humans["human"] == "a", ["items", "ties", "rho"]].to_numpy().tolist()
    [[40.0, 40.0, 1.0]]
    """
    h = as_annotations(humans)
    m = as_annotations(models)
    h.require_annotators("alt_test (the humans)")
    m.require_annotators("alt_test (the models)")
    if h.label is None or m.label is None:
        raise ValueError("alt_test needs the annotations themselves, not only statistics")
    n_ann = len(cast(pd.Index, h.annotators))
    n_models = len(cast(pd.Index, m.annotators))
    h_ann, m_ann = np.asarray(h.annotator), np.asarray(m.annotator)
    for who, data, ann, size in (("human", h, h_ann, n_ann), ("model", m, m_ann, n_models)):
        key = np.sort(data.item * max(size, 1) + ann)
        twice = np.flatnonzero(key[1:] == key[:-1])
        if twice.size:
            first = np.flatnonzero(data.item * max(size, 1) + ann == key[twice[0]])[0]
            raise ValueError(
                f"alt_test: {who} {printable(cast(pd.Index, data.annotators)[ann[first]])!r} labelled item "
                f"{printable(data.items[data.item[first]])!r} more than once (one label per {who} and item)"
            )
    notes: list[str] = []
    named_like = sorted(set(map(str, cast(pd.Index, m.annotators))) & set(map(str, cast(pd.Index, h.annotators))))
    if named_like:  # a model is never one of the humans; a shared name is most often the wrong file or column
        notes.append(
            f"model(s) {', '.join(repr(printable(n)) for n in named_like[:5])} have the name of a human annotator: "
            "they are read as separate annotators (the model is never among the humans it is tested against)"
        )
    m_item, m_label, union = _union_labels(h, m)
    outside = m_item < 0
    if outside.any():
        notes.append(f"{int(outside.sum())} model annotation(s) on items no human labelled are left out")

    # items: enough humans, and a group
    per_item = np.bincount(h.item, minlength=h.n_items)
    group_of_item = np.zeros(h.n_items, dtype=np.int64)
    groups: pd.Index = pd.Index([None], dtype=object)
    if by is not None:
        group_of_item, groups = _item_groups(h, by)
        if (group_of_item < 0).any():
            notes.append(f"{int((group_of_item < 0).sum())} item(s) without a group are left out")
    keep_item = (per_item >= min_humans) & (group_of_item >= 0)
    few = int(((per_item < min_humans) & (group_of_item >= 0)).sum())
    if few:
        notes.append(f"{few} item(s) with fewer than {min_humans} human annotations are left out")
    n_groups = len(groups)

    # the humans' side of every comparison, once
    y = h.label
    mi = per_item[h.item]
    if scoring == "accuracy":
        # the count table n_{ic}: dense when it is small, else its non-zero cells, sorted
        dense = h.n_items * len(union) <= _DENSE_CELLS
        item_label = h.item * len(union) + y
        if dense:
            counts = np.bincount(item_label, minlength=h.n_items * len(union))
            same = counts[item_label]  # n_{i, y_hi}
        else:
            uniq, inverse, counts = np.unique(item_label, return_inverse=True, return_counts=True)
            same = counts[inverse]
    elif scoring == "neg_rmse":
        values = _numeric(union, "neg_rmse")
        yv = values[y]
        s1 = np.bincount(h.item, weights=yv, minlength=h.n_items)
        s1_others = s1[h.item] - yv
    else:
        score_fn = cast(Callable, scoring)
        if len(union) <= _GRID_CATEGORIES:
            table = _similarity_table(score_fn, union)

            def sim(a: np.ndarray, b: np.ndarray) -> np.ndarray:
                return table[a, b]
        else:
            label_values = union.to_numpy(dtype=object)

            def sim(a: np.ndarray, b: np.ndarray) -> np.ndarray:
                out = np.asarray(score_fn(label_values[a], label_values[b]), dtype=float)
                if out.shape != a.shape or not np.isfinite(out).all():
                    raise ValueError("the scoring function must return one finite number per pair of labels")
                return out

        # every ordered pair (a, b) of distinct human annotations on one kept item
        sel = np.flatnonzero(keep_item[h.item])
        order = sel[np.argsort(h.item[sel], kind="stable")]
        sorted_item = h.item[order]
        cnt = per_item[sorted_item]
        block = np.searchsorted(sorted_item, sorted_item, side="left")  # where each one's item starts
        offset = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        first = np.repeat(np.arange(order.size), cnt)
        second = np.repeat(block, cnt) + offset
        off = first != second
        pa, pb = order[first[off]], order[second[off]]
        human_sum = np.bincount(pa, weights=sim(y[pa], y[pb]), minlength=h.n_annotations)

    model_names = np.asarray(m.annotators, dtype=object)
    ann_names = np.asarray(h.annotators, dtype=object)
    cells = n_groups * n_ann
    rows_models, rows_humans, rows_left = [], [], []
    p_all: list[np.ndarray] = []
    for j in range(n_models):  # a loop over models, each step array algebra over all annotations
        mine = (m_ann == j) & ~outside
        x_of_item = np.full(h.n_items, -1, dtype=np.int64)
        x_of_item[m_item[mine]] = m_label[mine]
        x = x_of_item[h.item]
        valid = (x >= 0) & keep_item[h.item]
        if scoring == "accuracy":
            key = h.item * len(union) + np.maximum(x, 0)
            if dense:
                n_x = counts[key]
            else:
                pos = np.minimum(np.searchsorted(uniq, key), uniq.size - 1)
                n_x = np.where(uniq[pos] == key, counts[pos], 0)
            human_score, model_score = same - 1, n_x - (x == y)
            sign = np.sign(human_score - model_score)
        elif scoring == "neg_rmse":
            xv = values[np.maximum(x, 0)]
            # sum of squares of the model minus the human's: positive when the human is closer
            sign = np.sign((xv - yv) * ((mi - 1) * (xv + yv) - 2.0 * s1_others))
        else:
            px = x[pa]
            ok = px >= 0
            model_sum = np.bincount(pa[ok], weights=sim(px[ok], y[pb[ok]]), minlength=h.n_annotations)
            sign = np.sign(human_sum - model_sum)
        sign = sign[valid]
        cell = group_of_item[h.item[valid]] * n_ann + h_ann[valid]
        n = np.bincount(cell, minlength=cells)
        plus = np.bincount(cell[sign > 0], minlength=cells)  # the human strictly better
        minus = np.bincount(cell[sign < 0], minlength=cells)  # the model strictly better
        ties = n - plus - minus
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = (plus - minus) / n
            ss = plus * (1.0 - mean) ** 2 + minus * (1.0 + mean) ** 2 + ties * mean**2
            rho = (minus + ties) / n
        t, p = t_test_less(mean, ss, n, float(epsilon))
        tested = n >= min_items
        gcode, acode = np.divmod(np.arange(cells), n_ann)
        left = (n > 0) & ~tested
        rows_left.append(
            pd.DataFrame(
                {
                    "model": model_names[j],
                    "group": groups[gcode[left]],
                    "human": ann_names[acode[left]],
                    "items": n[left],
                }
            )
        )
        idx = np.flatnonzero(tested)
        p_all.append(p[idx])
        rows_humans.append(
            pd.DataFrame(
                {
                    "model": model_names[j],
                    "group": groups[gcode[idx]],
                    "human": ann_names[acode[idx]],
                    "items": n[idx],
                    "model_wins": minus[idx] + ties[idx],
                    "human_wins": plus[idx] + ties[idx],
                    "ties": ties[idx],
                    "rho": rho[idx],
                    "advantage": mean[idx],
                    "t": t[idx],
                    "p_value": p[idx],
                    "p_adjusted": benjamini_yekutieli(p[idx], m=idx.size),
                    "rejected": benjamini_yekutieli_reject(p[idx], float(q), m=idx.size),
                    "_g": gcode[idx],
                }
            )
        )
        frame = rows_humans[-1]
        items_per_group = np.bincount(group_of_item[np.unique(h.item[valid])], minlength=n_groups)
        g_of = frame["_g"].to_numpy(np.int64)
        n_h = np.bincount(g_of, minlength=n_groups)
        n_rej = np.bincount(g_of, weights=frame["rejected"].to_numpy(float), minlength=n_groups)
        rho_sum = np.bincount(g_of, weights=frame["rho"].to_numpy(float), minlength=n_groups)
        with np.errstate(divide="ignore", invalid="ignore"):
            omega = np.where(n_h > 0, n_rej / np.maximum(n_h, 1), np.nan)
            rho_m = np.where(n_h > 0, rho_sum / np.maximum(n_h, 1), np.nan)
        rows_models.append(
            pd.DataFrame(
                {
                    "model": model_names[j],
                    "group": groups,
                    "n_items": items_per_group,
                    "n_humans": n_h,
                    "n_rejected": n_rej.astype(np.int64),
                    "omega": omega,
                    "rho": rho_m,
                    "passed": np.nan_to_num(omega, nan=0.0) >= 0.5,
                }
            )
        )
        if not tested.any():
            notes.append(
                f"model {printable(model_names[j])!r}: no human labelled {min_items} or more of its items: "
                "the test is undefined"
            )
    models_t = pd.concat(rows_models, ignore_index=True) if rows_models else pd.DataFrame()
    humans_t = pd.concat(rows_humans, ignore_index=True).drop(columns="_g") if rows_humans else pd.DataFrame()
    left_t = pd.concat(rows_left, ignore_index=True) if rows_left else pd.DataFrame()
    summary = pd.DataFrame()
    if by is None:
        models_t, humans_t, left_t = (t_.drop(columns="group", errors="ignore") for t_ in (models_t, humans_t, left_t))
    else:  # the correction already ran over every group's humans of a model together
        per_group = models_t["n_humans"].to_numpy().reshape(n_models, n_groups)
        summary = pd.DataFrame(
            {
                "model": model_names,
                "n_groups": (per_group > 0).sum(axis=1),
                "groups_passed": models_t["passed"].to_numpy().reshape(n_models, n_groups).sum(axis=1),
            }
        )
    if n_ann < 2:
        notes.append("one human only: the test compares each human with the others, so it needs at least two humans")
    elif n_ann < 3:
        notes.append("the authors recommend at least three humans (with two, a model only sides with one of them)")
    name = scoring if isinstance(scoring, str) else getattr(scoring, "__name__", "custom")
    return AltTest(
        models_t,
        humans_t,
        left_t,
        summary,
        float(epsilon),
        float(q),
        str(name),
        int(min_humans),
        int(min_items),
        by if by is None or isinstance(by, str) else "mapping",
        notes,
    )


#: The readings of a human-likeness z-score (Han et al. 2025's thresholds).
HUMAN_LIKE, SUPER_CONSISTENT, BELOW_HUMANS = "human-like", "super-consistent", "below humans"


@dataclass(frozen=True, eq=False, repr=False)
class HumanLikeness(Result):
    r"""Each model's agreement with the humans placed among the humans' agreement with each other: the result of
    :func:`human_likeness`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per model: ``model``, ``kappa`` (the mean of its Cohen's kappas with the humans), ``n_humans``
        (humans it shares at least ``min_items`` items with), ``human_mean`` and ``human_sd`` (mean and standard
        deviation of the humans' pairwise kappas), ``n_pairs`` (human pairs counted), ``z`` and ``reading``
        (``'human-like'`` for :math:`|z| < 1`, ``'super-consistent'`` for :math:`z \ge 1`, ``'below humans'`` for
        :math:`z \le -1`; empty when z is undefined) and ``reason`` (why z is undefined, else empty).
    pairs : pandas.DataFrame
        The human pairs: ``annotator_a``, ``annotator_b``, ``n_shared``, ``kappa``.
    min_items : int
        The fewest shared items a pair (human–human or model–human) needs to count.

    References
    ----------
    Han, S., Titericz Junior, G., Balough, T., & Zhou, W. (2025). Judge's Verdict: A comprehensive analysis of LLM
    judge capability through human agreement. arXiv:2510.09738.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> humans = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4], "annotator": list("abc") * 4,
    ...                        "label": list("xxy" "yyy" "xyx" "yyy")})
    >>> model = pd.DataFrame({"item": [1, 2, 3, 4], "annotator": "m", "label": list("xyxy")})
    >>> res = ie.human_likeness(humans, model, min_items=2)
    >>> res.table[["model", "kappa", "human_mean", "z", "reading"]].round(3)
      model  kappa  human_mean      z     reading
    0     m  0.667       0.222  0.924  human-like
    """

    table: pd.DataFrame
    pairs: pd.DataFrame
    min_items: int

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the table, the human pairs and ``min_items``."""
        return {"table": _rows(self.table), "pairs": _rows(self.pairs), "min_items": self.min_items}

    def __str__(self) -> str:
        lines = ["Human-likeness (a model's mean kappa with the humans among the humans' pairwise kappas)"]
        for r in self.table.to_dict(orient="records"):
            if not np.isfinite(r["z"]):
                lines.append(f"  {printable(r['model']):>16}: undefined ({r['reason']})")
                continue
            lines.append(
                f"  {printable(r['model']):>16}: kappa {r['kappa']:.3f} vs humans {r['human_mean']:.3f} "
                f"(sd {r['human_sd']:.3f}, {r['n_pairs']} pairs): z {r['z']:+.2f}, {r['reading']}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


@validate(models=ANY, min_items=Whole(2), agreement=ANY)
def human_likeness(humans: Any, models: Any, *, min_items: int = 20, agreement: Any = None) -> HumanLikeness:
    r"""How human each model's agreement with the humans is: a z-score in the distribution of human–human agreement.

    With :math:`\kappa_{ab}` Cohen's (1960) kappa of humans a and b on the items both labelled (pairs sharing at
    least ``min_items`` items), :math:`\mu` and :math:`\sigma` their mean and standard deviation (:math:`n - 1`
    in the denominator) over the pairs, and :math:`\bar\kappa_m` the mean of model m's kappas with the humans
    (each on the items both labelled, at least ``min_items``):

    .. math::

        z_m = \frac{\bar\kappa_m - \mu}{\sigma}

    read as Judge's Verdict reads it (Han et al. 2025): :math:`|z| < 1` human-like (the model agrees with people
    as people agree with each other), :math:`z \ge 1` super-consistent (more consistent with people than people
    are: reliable, or flattening hard cases), :math:`z \le -1` below the humans. Undefined (NaN, with the reason)
    with fewer than two human pairs, humans who all agree alike (:math:`\sigma = 0`), or a model sharing too few
    items with every human.

    Parameters
    ----------
    humans : Annotations or convertible
        The human annotations (with annotator identities).
    models : Annotations or convertible
        The model annotations, one "annotator" per model.
    min_items : int, default 20
        The fewest shared items for a pair's kappa to count.
    agreement : ModelAgreement, optional
        :func:`model_agreement` of the same humans and models, already computed (its per-annotator kappas are
        used instead of computing them again).

    Returns
    -------
    HumanLikeness

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``humans`` or ``models`` is not annotations nor convertible to them.
    ValueError
        Either set has no annotator identities or holds only statistics.

    See Also
    --------
    model_agreement : The per-annotator kappas the model's mean is taken over.
    alt_test : Whether the model can replace the humans.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37–46.

    Han, S., Titericz Junior, G., Balough, T., & Zhou, W. (2025). Judge's Verdict: A comprehensive analysis of LLM
    judge capability through human agreement. arXiv:2510.09738.

    Examples
    --------
    Three humans right 90%, 80% and 70% of the time; a model right 80% of the time agrees with them as they agree
    with each other, a model always right agrees with every one of them more than they agree among themselves:

    >>> import numpy as np, pandas as pd, iaa_engine as ie
    >>> rng = np.random.default_rng(1)
    >>> truth = rng.integers(0, 2, 200)
    >>> rows = [(i, a, truth[i] if rng.random() < q else 1 - truth[i])
    ...         for a, q in (("a", 0.9), ("b", 0.8), ("c", 0.7), ("m", 0.8), ("perfect", 1.0)) for i in range(200)]
    >>> table = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    >>> humans, models = table[table.annotator.isin(["a", "b", "c"])], table[table.annotator.isin(["m", "perfect"])]
    >>> ie.human_likeness(humans, models).table[["model", "kappa", "human_mean", "z", "reading"]].round(3)
         model  kappa  human_mean      z           reading
    0        m   0.31       0.331 -0.125        human-like
    1  perfect   0.57       0.331  1.424  super-consistent
    """
    from iaa_engine.analysis._models import ModelAgreement, model_agreement
    from iaa_engine.metrics._kappa import cohen_kappa_matrix

    h = as_annotations(humans)
    m = as_annotations(models)
    h.require_annotators("human_likeness (the humans)")
    m.require_annotators("human_likeness (the models)")
    if h.label is None or m.label is None:
        raise ValueError("human_likeness needs the annotations themselves, not only statistics")
    mat = cohen_kappa_matrix(h)
    values, shared = np.asarray(mat.values, dtype=float), np.asarray(mat.n_shared)
    a, b = np.triu_indices(values.shape[0], k=1)
    names = np.asarray(h.annotators, dtype=object)
    pairs = pd.DataFrame({"annotator_a": names[a], "annotator_b": names[b], "n_shared": shared[a, b],
                          "kappa": values[a, b]})  # fmt: skip
    pairs = pairs[pairs["n_shared"] > 0].reset_index(drop=True)
    counted = pairs[(pairs["n_shared"] >= min_items) & np.isfinite(pairs["kappa"])]["kappa"].to_numpy(float)
    mu = float(counted.mean()) if counted.size else np.nan
    sd = float(counted.std(ddof=1)) if counted.size >= 2 else np.nan
    if agreement is not None:
        if not isinstance(agreement, ModelAgreement):
            raise invalid("agreement", "the ModelAgreement of model_agreement(humans, models), or None", agreement)
        per = agreement.table
    else:
        with warnings.catch_warnings():  # only the per-annotator kappas are used; the humans' own agreement is not
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            per = model_agreement(h, m, progress=False).table
    per = per[(per["kind"] == "annotator") & (per["n"] >= min_items) & np.isfinite(per["kappa"])]
    rows = []
    for name in np.asarray(m.annotators, dtype=object):  # a loop over models: one mean each
        k = per.loc[per["model"] == name, "kappa"].to_numpy(float)
        kappa = float(k.mean()) if k.size else np.nan
        reason = ""
        if counted.size < 2:
            reason = f"fewer than two human pairs share {min_items} or more items"
        elif not sd > 0:
            reason = "every human pair agrees alike (no spread to place the model in)"
        elif not k.size:
            reason = f"the model shares fewer than {min_items} items with every human"
        z = (kappa - mu) / sd if not reason else np.nan
        reading = "" if reason else (SUPER_CONSISTENT if z >= 1 else BELOW_HUMANS if z <= -1 else HUMAN_LIKE)
        rows.append(
            {
                "model": name,
                "kappa": kappa,
                "n_humans": int(k.size),
                "human_mean": mu,
                "human_sd": sd,
                "n_pairs": int(counted.size),
                "z": z,
                "reading": reading,
                "reason": reason,
            }
        )
    return HumanLikeness(pd.DataFrame(rows), pairs, int(min_items))
