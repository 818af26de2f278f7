"""Gold labels from disagreeing annotations: majority vote, the bias-correcting rules, and Dawid-Skene."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
from scipy import sparse

from iaa_engine.base._params import ANY, Choice, Real, Whole, validate
from iaa_engine.base._progress import Progress
from iaa_engine.base._results import Result
from iaa_engine.data._model import Annotations, as_annotations

__all__ = ["GOLD_RULES", "GoldAccuracy", "GoldStandard", "bcr_weights", "gold_accuracy", "gold_standard"]

#: The rules :func:`gold_standard` accepts: ``'majority'`` (most votes), the four bias-correcting rules ``'diff'``,
#: ``'rat'``, ``'com'`` and ``'inv'`` (weighted votes, :func:`bcr_weights`; Weeber 2025) and ``'dawid_skene'``
#: (Dawid & Skene 1979).
GOLD_RULES = ("majority", "diff", "rat", "com", "inv", "dawid_skene")
GoldRule = Literal["majority", "diff", "rat", "com", "inv", "dawid_skene"]
_BCR = ("diff", "rat", "com", "inv")
_EPS = 1e-10  # crowd-kit's floor for confusion-matrix entries and priors


@dataclass(frozen=True, eq=False)
class GoldStandard(Result):
    """Gold labels of every item, with the evidence behind them: the result of :func:`gold_standard`.

    Ties are kept: an item whose best score several labels share has one row per tied label in :attr:`labels`
    (:meth:`per_item` joins them into one row). ``to_dict()`` gives per item the list of gold labels and their
    support as JSON-ready data.

    Attributes
    ----------
    rule : str
        The rule that chose the labels (one of :data:`GOLD_RULES`).
    labels : pandas.DataFrame
        One row per (item, winning label): columns ``item``, ``label``,
        ``score`` (votes, the weighted score, or the posterior probability),
        ``share`` (score over the item's total score), ``tie`` (the item has
        several winning labels: all are kept, one row each) and
        ``n_annotations``. Items without annotations have no row.
    categories : list
        The categories, in the data's order (rows and columns of :attr:`confusion`).
    annotators : list or None
        The annotators (``None`` for a count table).
    weights : pandas.DataFrame or None
        Bias-correcting rules: the weight :math:`w_{ik}` of each annotator
        (rows) and category (columns); NaN where the annotator never used the
        category (the weight is then never applied).
    confusion : numpy.ndarray or None
        Dawid-Skene: ``confusion[a, t, o]`` = P(annotator a says o | true label t).
    priors : pandas.Series or None
        Dawid-Skene class priors.
    posteriors : pandas.DataFrame or None
        Dawid-Skene: items × categories posterior probabilities.
    n_iter : int
        EM iterations run (0 for the voting rules).
    loss_history : list of float
        Dawid-Skene: the evidence lower bound per annotation after each EM iteration (empty for the voting rules).
    known : pandas.DataFrame or None
        With ``known=``: one row per known item found in the data, columns ``item``, ``known`` (the given label),
        ``gold`` (the rule's labels, tied ones joined with ``|``), ``tie`` (the rule left a tie there) and
        ``agrees`` (the rule's gold is the known label alone). A tie never agrees, even when the known label is
        one of the tied ones: the rule did not decide the item, the known label did.
    known_agreement : float
        With ``known=``: the share of known items whose gold is the known label alone (ties count against; 1 for
        Dawid-Skene, which keeps them fixed); NaN without known labels.

    References
    ----------
    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material, based
    on material by Eva Maria Vecchi), "Annotation aggregation".

    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the EM
    algorithm. Applied Statistics 28(1), 20–28.

    Examples
    --------
    Two annotators agree on the first item and split on the second, whose two labels are both kept:

    >>> import iaa_engine as ie
    >>> gold = ie.gold_standard(ie.Annotations.from_wide([["pos", "neg"], ["pos", "pos"]], annotators_as="rows"))
    >>> gold.labels
       item label  score  share    tie  n_annotations
    0     0   pos    2.0    1.0  False              2
    1     1   neg    1.0    0.5   True              2
    2     1   pos    1.0    0.5   True              2
    >>> gold.per_item()[["item", "gold", "tie"]]
       item     gold    tie
    0     0      pos  False
    1     1  neg|pos   True
    """

    rule: str
    labels: pd.DataFrame
    categories: list
    annotators: list | None
    weights: pd.DataFrame | None = None
    confusion: np.ndarray | None = None
    priors: pd.Series | None = None
    posteriors: pd.DataFrame | None = None
    n_iter: int = 0
    loss_history: list = field(default_factory=list)
    known: pd.DataFrame | None = None
    known_agreement: float = float("nan")

    @validate()
    def per_item(self, sep: str = "|") -> pd.DataFrame:
        """One row per item: ``gold`` joins tied labels with ``sep`` (in category order).

        Parameters
        ----------
        sep : str, default '|'
            Text between tied labels.

        Returns
        -------
        pandas.DataFrame
            Columns ``item``, ``gold``, ``tie``, ``n_tied``, ``score``, ``share``, ``n_annotations``.
        """
        lab = self.labels
        joined = lab.groupby("item", sort=False)["label"].agg(lambda s: sep.join(map(str, s)))
        first = lab.groupby("item", sort=False).agg(
            n_tied=("label", "size"),
            score=("score", "first"),
            share=("share", "first"),
            n_annotations=("n_annotations", "first"),
        )
        out = first.assign(gold=joined).reset_index()
        out["tie"] = out["n_tied"] > 1
        return out[["item", "gold", "tie", "n_tied", "score", "share", "n_annotations"]]

    @validate(annotator=ANY)
    def confusion_matrix(self, annotator: Any) -> pd.DataFrame:
        """Dawid-Skene confusion matrix of one annotator: rows true label, columns given label.

        Parameters
        ----------
        annotator : object
            An annotator's name, as in the data.

        Returns
        -------
        pandas.DataFrame
            Categories × categories, ``P(annotator says given | true)``; each row sums to 1 over the labels the
            annotator used.

        Raises
        ------
        ValueError
            The rule is not ``'dawid_skene'``, or the annotator is not in the data.
        """
        if self.confusion is None or self.annotators is None:
            raise ValueError(f"rule {self.rule!r} has no confusion matrices; use rule='dawid_skene'")
        if annotator not in self.annotators:
            raise ValueError(f"annotator {annotator!r} is not in the data")
        m = self.confusion[self.annotators.index(annotator)]
        return pd.DataFrame(
            m, index=pd.Index(self.categories, name="true"), columns=pd.Index(self.categories, name="given")
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per (item, winning label): :attr:`labels`."""
        return self.labels

    def to_dict(self) -> dict:
        """JSON-ready: per item the list of gold labels (ties listed together) and their support."""
        from iaa_engine.base._results import nan_to_none

        lab = self.labels
        grouped = lab.groupby("item", sort=False)
        items = [
            {
                "item": item,
                "gold": list(g["label"]),
                "tie": bool(len(g) > 1),
                "score": float(g["score"].iloc[0]),
                "share": float(g["share"].iloc[0]),
                "n_annotations": int(g["n_annotations"].iloc[0]),
            }
            for item, g in grouped
        ]
        out: dict[str, Any] = {"rule": self.rule, "items": items}
        if self.weights is not None:
            out["weights"] = {
                "annotators": list(self.weights.index),
                "categories": list(self.weights.columns),
                "matrix": self.weights.to_numpy(),
            }
        if self.known is not None:
            out["known"] = {
                "items": [
                    {"item": i, "known": k, "gold": g, "tie": bool(t), "agrees": bool(a)}
                    for i, k, g, t, a in self.known[["item", "known", "gold", "tie", "agrees"]].itertuples(index=False)
                ],
                "agreement": self.known_agreement,
            }
        if self.confusion is not None:
            out["priors"] = dict(zip(map(str, self.categories), cast(pd.Series, self.priors).to_numpy()))
            out["confusion"] = {
                "annotators": self.annotators,
                "categories": self.categories,
                "matrix": self.confusion,
                "n_iter": self.n_iter,
            }
        return nan_to_none(out)


@validate(rule=Choice(*_BCR))
def bcr_weights(data: Any, rule: Literal["diff", "rat", "com", "inv"]) -> pd.DataFrame:
    r"""Bias-correcting weights :math:`w_{ik}` of annotator i for category k.

    The four bias-correcting rules (BCR) of Weeber (2025), "Annotation
    aggregation", from each annotator's and the overall relative frequency of
    every category:

    .. math::

        \mathrm{Freq}_i(k) = \frac{|\{a_{i*} = k\}|}{|\{a_{i*}\}|},\qquad
        \mathrm{Freq}(k) = \frac{|\{a_{**} = k\}|}{|\{a_{**}\}|}

    =========  ===============================================
    ``diff``   :math:`w_{ik} = 1 + \mathrm{Freq}(k) - \mathrm{Freq}_i(k)`
    ``rat``    :math:`w_{ik} = \mathrm{Freq}(k) / \mathrm{Freq}_i(k)`
    ``com``    :math:`w_{ik} = 1 + 1/|K| - \mathrm{Freq}_i(k)`
    ``inv``    :math:`w_{ik} = 1 / \mathrm{Freq}_i(k)`
    =========  ===============================================

    :math:`|K|` is the number of categories. Where annotator i never used k,
    ``rat`` and ``inv`` would divide by zero; under every rule such weights are
    NaN, and they are never applied (annotator i casts no vote for k).
    :func:`gold_standard` with ``rule=`` one of these names takes, per item, the
    category with the largest sum of weights of the annotators who chose it.

    Parameters
    ----------
    data : Annotations or convertible
        Annotations with annotator identities (not a count table).
    rule : {'diff', 'rat', 'com', 'inv'}
        Difference-, ratio-, complement- or inverse-based weights (table above).

    Returns
    -------
    pandas.DataFrame
        Annotators × categories.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The data has no annotator identities (a count table).

    References
    ----------
    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material, based
    on material by Eva Maria Vecchi), "Annotation aggregation".

    Examples
    --------
    The classroom exercise's worked example: annotator 0 chose category 1 on 6
    of 15 items and all annotators on 15 of 45 annotations, so the ratio
    weight is :math:`(15/45) / (6/15)`:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> w = ie.bcr_weights(data, "rat")
    >>> round(float(w.loc["annotator_0", "1"]), 4)  # (1/3) / 0.4
    0.8333
    >>> w.round(3)
                     1      2      3
    annotator_0  0.833  1.333  0.933
    annotator_1  0.833  1.067  1.167
    annotator_2  1.667  0.762  0.933
    """
    data = as_annotations(data)
    data.require_annotators("the bias-correcting rules")
    return bcr_table(data.annotator_stats.counts, rule, data.annotators, data.categories)


def bcr_table(counts: np.ndarray, rule: str, annotators: Any, categories: Any) -> pd.DataFrame:
    """:func:`bcr_weights` from the annotators × categories label counts (summed over any partition of the items)."""
    counts = np.asarray(counts, dtype=float)
    n_a = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        freq_i = counts / n_a
    totals = counts.sum(axis=0)
    freq = totals / totals.sum()
    n_categories = counts.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        if rule == "diff":
            w = 1.0 + freq[None, :] - freq_i
        elif rule == "rat":
            w = freq[None, :] / freq_i
        elif rule == "com":
            w = 1.0 + 1.0 / n_categories - freq_i
        else:
            w = 1.0 / freq_i
    w = np.where(counts > 0, w, np.nan)
    return pd.DataFrame(w, index=annotators, columns=categories)


def known_codes(data: Annotations, known: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """``(item codes, category codes, n_unmatched)`` of known labels given as a mapping, a Series or a DataFrame.

    A DataFrame needs columns ``item`` and ``label`` (or exactly two columns, in that order). Items not in the data
    are dropped and counted; a label that is not one of the data's categories is an error (a label read from a
    file as text matches a category whose text is the same, so ``"1"`` matches the category ``1``). An item given
    twice is an error.
    """
    if isinstance(known, pd.DataFrame):
        cols = list(known.columns)
        if "item" in cols and "label" in cols:
            items, labels = known["item"].to_numpy(), known["label"].to_numpy()
        elif len(cols) == 2:
            items, labels = known.iloc[:, 0].to_numpy(), known.iloc[:, 1].to_numpy()
        else:
            raise ValueError(f"known labels as a table need columns 'item' and 'label'; got columns {cols[:6]!r}")
    elif isinstance(known, pd.Series):
        items, labels = known.index.to_numpy(), known.to_numpy()
    elif isinstance(known, dict):
        items, labels = np.array(list(known.keys()), dtype=object), np.array(list(known.values()), dtype=object)
    else:
        raise TypeError(
            "known must be a mapping item -> label, a pandas Series indexed by item, or a DataFrame with columns "
            f"'item' and 'label'; got {type(known).__name__}"
        )
    keep = ~pd.isna(pd.Series(labels, dtype=object)).to_numpy()
    items, labels = items[keep], labels[keep]
    if pd.Index(items).has_duplicates:
        dup = pd.Index(items)[pd.Index(items).duplicated()]
        raise ValueError(f"known labels give item {dup[0]!r} more than once")
    it = data.items.get_indexer(pd.Index(items))
    if (it < 0).any():  # items read from a file as text: match the data's items by their text
        by_text = pd.Index(data.items.astype(str)).get_indexer(pd.Index(items).astype(str))
        it = np.where(it < 0, by_text, it)
    cat = data.categories.get_indexer(pd.Index(labels)) if len(labels) else np.zeros(0, dtype=np.int64)
    if (cat < 0).any():
        by_text = pd.Index(data.categories.astype(str)).get_indexer(pd.Index(labels).astype(str))
        cat = np.where(cat < 0, by_text, cat)
    found = it >= 0
    bad = found & (cat < 0)
    if bad.any():
        raise ValueError(
            f"known label {labels[np.flatnonzero(bad)[0]]!r} (item {items[np.flatnonzero(bad)[0]]!r}) is not one of "
            f"the data's categories {list(data.categories)[:10]!r}"
        )
    return it[found].astype(np.int64), cat[found].astype(np.int64), int((~found).sum())


def _known_table(
    data: Annotations, labels: pd.DataFrame, k_item: np.ndarray, k_cat: np.ndarray, sep: str = "|"
) -> tuple[pd.DataFrame, float]:
    """Each known item's known label beside the rule's gold labels; the share where the known label is among them."""
    winners = labels.assign(_code=data.items.get_indexer(pd.Index(labels["item"])))
    winners = winners[np.isin(winners["_code"].to_numpy(), k_item)]
    win_cat = data.categories.get_indexer(pd.Index(winners["label"]))
    win_key = winners["_code"].to_numpy() * max(data.n_categories, 1) + win_cat
    # a tie is not the rule's answer: the known label being among the tied labels is no agreement (issue 36)
    n_win = np.bincount(winners["_code"].to_numpy(dtype=np.int64), minlength=data.n_items)[k_item]
    tie = n_win > 1
    agrees = np.isin(k_item * max(data.n_categories, 1) + k_cat, win_key) & ~tie
    joined = winners.groupby("_code", sort=False)["label"].agg(lambda v: sep.join(map(str, v)))
    gold = joined.reindex(k_item).to_numpy()
    table = pd.DataFrame(
        {
            "item": data.items.take(k_item),
            "known": data.categories.take(k_cat),
            "gold": gold,
            "tie": tie,
            "agrees": agrees,
        }
    )
    return table, float(agrees.mean()) if agrees.size else float("nan")


def _winners(data: Annotations, item: np.ndarray, cat: np.ndarray, score: np.ndarray, tol: float) -> pd.DataFrame:
    """Rows of the top-scoring (item, category) entries per item; entries must be sorted by item."""
    if item.size == 0:
        return pd.DataFrame(columns=["item", "label", "score", "share", "tie", "n_annotations"])
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    sizes = np.diff(np.r_[starts, item.size])
    best = np.repeat(np.maximum.reduceat(score, starts), sizes)
    total = np.repeat(np.add.reduceat(score, starts), sizes)
    win = score >= best - tol * np.maximum(1.0, np.abs(best))
    n_tied = np.bincount(item[win], minlength=data.n_items)
    it, ct = item[win], cat[win]
    return pd.DataFrame(
        {
            "item": data.items.take(it),
            "label": data.categories.take(ct),
            "score": score[win],
            "share": np.divide(score[win], total[win], out=np.zeros(int(win.sum())), where=total[win] > 0),
            "tie": n_tied[it] > 1,
            "n_annotations": data.counts.n_i[it].astype(np.int64),
        }
    )


@validate(rule=Choice(*GOLD_RULES), known=ANY)
def gold_standard(
    data: Any,
    *,
    rule: GoldRule = "majority",
    known: Any = None,
    tie_tolerance: float = 1e-9,
    max_iter: int = 100,
    tol: float = 1e-5,
    progress: bool | None = None,
) -> GoldStandard:
    r"""Aggregate annotations into gold labels; ties keep every tied label.

    ``majority``
        :math:`\arg\max_k n_{jk}`: the most frequent label of item j.
    ``diff``, ``rat``, ``com``, ``inv``
        The bias-correcting rules of Weeber (2025), "Annotation aggregation":

        .. math::

            F_w(A)_j = \arg\max_{k \in K} \sum_{i \in N_j,\ a_{ij} = k} w_{ik}

        with :math:`N_j` the annotators of item j and the weights
        :math:`w_{ik}` of :func:`bcr_weights`.
    ``dawid_skene``
        Dawid & Skene (1979): EM over class priors :math:`p_t` and
        per-annotator confusion matrices :math:`e^a_{t,o}`, initialised from
        majority-vote proportions, with the updates of crowd-kit's
        ``DawidSkene`` (Ustalov et al. 2024; entries floored at 1e-10),
        stopping when the evidence lower bound per annotation rises by less
        than ``tol`` or after ``max_iter`` iterations. The gold label is the
        one with the largest posterior probability.

    Known labels (``known=``, gold questions): Dawid-Skene keeps them fixed, as crowd-kit's
    ``DawidSkene.fit(data, true_labels)`` does (crowd-kit 1.4.2): the posterior of a known item is the known
    label's indicator at the start and after every E-step, so the known items teach the confusion matrices and
    the priors and their gold label is the known one. The voting rules do not use them; every rule reports its
    agreement with them (:attr:`GoldStandard.known`, :attr:`GoldStandard.known_agreement`).

    A label is tied when its score is within ``tie_tolerance`` of the item's
    best score (relative to the best score when it exceeds 1 in absolute
    value, absolute otherwise); the exercise demands that all tied labels are
    kept, so a tied item has one row per tied label.

    Parameters
    ----------
    data : Annotations or convertible
        Every rule except ``majority`` needs annotator identities (not a count
        table), and all but ``majority`` need the annotations themselves.
    rule : {'majority', 'diff', 'rat', 'com', 'inv', 'dawid_skene'}, default 'majority'
        How votes are counted (see above and :data:`GOLD_RULES`).
    known : mapping, pandas.Series or pandas.DataFrame, optional
        Known labels of some items (gold questions): ``{item: label}``, a Series indexed by item, or a table with
        columns ``item`` and ``label``. Items not in the data are ignored; a label that is not a category is an
        error.
    tie_tolerance : float, default 1e-9
        Scores this close to the best (see above) tie with it; at least 0.
    max_iter : int, default 100
        Largest number of EM iterations (``dawid_skene``).
    tol : float, default 1e-5
        EM stops when the evidence lower bound per annotation rises by less
        than this (``dawid_skene``); ``-inf`` runs ``max_iter`` iterations.
    progress : bool, optional
        Show EM progress on stderr (default: only on a terminal).

    Returns
    -------
    GoldStandard
        ``labels`` (one row per item and winning label), and the evidence:
        ``weights`` (bias-correcting rules), or ``confusion``, ``priors``,
        ``posteriors``, ``n_iter`` and ``loss_history`` (Dawid-Skene); with ``known=``, ``known`` and
        ``known_agreement``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        A rule other than ``majority`` is given a count table (no annotator identities) or statistics only
        (the annotations themselves are needed), or a known label is not one of the categories.

    See Also
    --------
    bcr_weights : The weights of the bias-correcting rules.
    gold_accuracy : Each annotator's accuracy on the known labels.

    References
    ----------
    Weeber, F. (2025). Annotation Analysis Exercise. Methods in Computational Linguistics (course material, based
    on material by Eva Maria Vecchi), "Annotation aggregation".

    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the EM
    algorithm. Applied Statistics 28(1), 20–28.

    Ustalov, D., Pavlichenko, N., & Tseitlin, B. (2024). Learning from Crowds with Crowd-Kit. Journal of Open
    Source Software 9(96), 6227.

    Examples
    --------
    On the classroom exercise, item 1 has labels 1, 1, 2: with the ratio
    weights annotators 0 and 1 give 1 a score of 0.8333 + 0.8333 against 2's
    0.7619 (:func:`bcr_weights`):

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> gold = ie.gold_standard(data, rule="rat")
    >>> gold.per_item().head(3).round(3)
         item gold    tie  n_tied  score  share  n_annotations
    0  item_1    1  False       1  1.667  0.686              3
    1  item_2    1  False       1  2.500  0.701              3
    2  item_3    1  False       1  3.333  1.000              3
    >>> ds = ie.gold_standard(data, rule="dawid_skene", progress=False)
    >>> ds.per_item()["gold"].tolist() == gold.per_item()["gold"].tolist(), ds.n_iter
    (True, 10)

    Known labels stay fixed under Dawid-Skene; majority vote reports how often it agrees with them:

    >>> known = {"item_1": 2, "item_2": 1}
    >>> ie.gold_standard(data, rule="dawid_skene", known=known, progress=False).known_agreement
    1.0
    >>> ie.gold_standard(data, known=known).known[["item", "known", "gold", "agrees"]]
         item known gold  agrees
    0  item_1     2    1   False
    1  item_2     1    1    True
    """
    data = as_annotations(data)
    if known is None:
        return _gold(data, rule, tie_tolerance, max_iter, tol, progress, None)
    k_item, k_cat, _ = known_codes(data, known)
    gold = _gold(data, rule, tie_tolerance, max_iter, tol, progress, (k_item, k_cat))
    table, share = _known_table(data, gold.labels, k_item, k_cat)
    return replace(gold, known=table, known_agreement=share)


def _gold(
    data: Annotations,
    rule: str,
    tie_tolerance: float,
    max_iter: int,
    tol: float,
    progress: bool | None,
    known: tuple[np.ndarray, np.ndarray] | None,
) -> GoldStandard:
    cats = list(data.categories)
    anns = None if data.annotators is None else list(data.annotators)
    c = data.counts
    if rule == "majority":
        labels = _winners(data, c.item, c.category, c.count.astype(float), tie_tolerance)
        return GoldStandard(rule, labels, cats, anns)
    if rule in _BCR:
        w = bcr_weights(data, cast(Any, rule))
        if data.label is None:
            raise ValueError("the bias-correcting rules need the annotations themselves, not only statistics")
        return GoldStandard(rule, bcr_winners(data, w.to_numpy(), tie_tolerance), cats, anns, weights=w)
    return _dawid_skene(data, tie_tolerance, max_iter, tol, progress, known)


def bcr_winners(data: Annotations, w: np.ndarray, tie_tolerance: float) -> pd.DataFrame:
    """Each item's labels with the largest sum of the weights ``w`` (annotators × categories, rows in the order of
    ``data.annotators``) of the annotators who chose them."""
    c = data.counts
    per_annotation = w[data.annotator, data.label]
    keys = c.item * max(data.n_categories, 1) + c.category
    entry = np.searchsorted(keys, data.item * max(data.n_categories, 1) + data.label)
    score = np.bincount(entry, weights=per_annotation, minlength=keys.size)
    return _winners(data, c.item, c.category, score, tie_tolerance)


def _dawid_skene(
    data: Annotations,
    tie_tolerance: float,
    max_iter: int,
    tol: float,
    progress: bool | None,
    known: tuple[np.ndarray, np.ndarray] | None = None,
) -> GoldStandard:
    data.require_annotators("Dawid-Skene")
    if data.label is None:
        raise ValueError("Dawid-Skene needs the annotations themselves, not only statistics")
    n_items, n_ann, n_cat = data.n_items, cast(int, data.n_annotators), data.n_categories
    item, ann, lab = data.item, cast(np.ndarray, data.annotator), data.label
    pair = ann * n_cat + lab
    used = (data.annotator_stats.counts > 0)[:, :, None]  # (annotator, given label, 1)
    counts = data.counts.to_dense().astype(float)
    post = counts / counts.sum(axis=1, keepdims=True).clip(min=1)  # majority-vote proportions

    def clamp(post: np.ndarray) -> np.ndarray:
        """Known items: the posterior is the known label's indicator (crowd-kit's _correct_probas_with_golden)."""
        if known is not None and known[0].size:
            post[known[0]] = 0.0
            post[known[0], known[1]] = 1.0
        return post

    post = clamp(post)

    # One sparse (item x annotator.label) indicator S: the M-step's expected counts are S^T . post and the E-step's
    # log-likelihoods S . log e, two sparse products per iteration (repeated annotations count as often as given).
    indicator = sparse.csr_matrix((np.ones(item.size), (item, pair)), shape=(n_items, n_ann * n_cat), dtype=float)
    indicator_t = indicator.T.tocsr()

    def m_step(post: np.ndarray) -> np.ndarray:
        e: np.ndarray = np.asarray(indicator_t @ post).reshape(n_ann, n_cat, n_cat)  # (annotator, given, true)
        e = np.where(used, np.maximum(e, _EPS), 0.0)
        return e / e.sum(axis=1, keepdims=True)

    def log_lik(priors: np.ndarray, e: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            log_e = np.where(used, np.log(np.where(used, e, 1.0)), 0.0)
        ll = np.asarray(indicator @ log_e.reshape(n_ann * n_cat, n_cat))  # (item, true)
        return ll + np.log(np.maximum(priors, _EPS))[None, :]

    priors = post.mean(axis=0)
    e = m_step(post)
    history: list[float] = []
    loss = -np.inf
    n_iter = 0
    with Progress(max_iter, "Dawid-Skene EM", show=progress) as bar:
        for n_iter in range(1, max_iter + 1):
            ll = log_lik(priors, e)
            ll -= ll.max(axis=1, keepdims=True)
            post = np.exp(ll)
            post /= post.sum(axis=1, keepdims=True)
            post = clamp(post)
            priors = post.mean(axis=0)
            e = m_step(post)
            full = log_lik(priors, e)
            entropy = -np.sum(post * np.log(np.maximum(post, _EPS)))
            new_loss = float(np.sum(post * full) + entropy) / max(data.n_annotations, 1)
            history.append(new_loss)
            bar.update()
            if new_loss - loss < tol:
                break
            loss = new_loss
    flat_item = np.repeat(np.arange(n_items), n_cat)
    flat_cat = np.tile(np.arange(n_cat), n_items)
    labels = _winners(data, flat_item, flat_cat, post.ravel(), tie_tolerance)
    return GoldStandard(
        "dawid_skene",
        labels,
        list(data.categories),
        list(cast(pd.Index, data.annotators)),
        confusion=np.transpose(e, (0, 2, 1)).copy(),
        priors=pd.Series(priors, index=data.categories, name="prior"),
        posteriors=pd.DataFrame(post, index=data.items, columns=data.categories),
        n_iter=n_iter,
        loss_history=history,
    )


@dataclass(frozen=True, eq=False)
class GoldAccuracy(Result):
    """Each annotator's accuracy on the gold questions (items with known labels): the result of
    :func:`gold_accuracy`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per annotator: ``annotator``, ``n_gold`` (gold questions answered), ``n_correct``, ``accuracy``,
        ``lower`` and ``upper`` (Wilson's interval), ``passed`` (accuracy at least ``threshold``) and ``status``:
        ``'pass'`` when the whole interval is at or above the threshold, ``'fail'`` when it is wholly below,
        ``'undecided'`` otherwise or with fewer than ``min_gold`` answered (too few gold questions to tell),
        ``'no gold'`` without any.
    threshold : float
        The accuracy an annotator needs.
    min_gold : int
        The fewest answered gold questions that give a verdict.
    confidence : float
        The interval's coverage.
    n_known : int
        Known labels found in the data.
    n_unmatched : int
        Known labels whose item is not in the data (ignored).

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. Journal of the
    American Statistical Association 22(158), 209-212.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> data = ie.Annotations.from_wide([["a", "b", "a"], ["a", "a", "a"]])
    >>> ie.gold_accuracy(data, {0: "a", 1: "b", 2: "a"}, threshold=0.5).table[["annotator", "accuracy", "passed"]]
       annotator  accuracy  passed
    0          0  1.000000    True
    1          1  0.666667    True
    """

    table: pd.DataFrame
    threshold: float
    confidence: float
    n_known: int
    n_unmatched: int
    min_gold: int = 5

    def to_frame(self) -> pd.DataFrame:
        """One row per annotator: :attr:`table`."""
        return self.table

    def to_dict(self) -> dict:
        """JSON-ready: the settings and one record per annotator."""
        from iaa_engine.base._results import nan_to_none

        return nan_to_none(
            {
                "threshold": self.threshold,
                "confidence": self.confidence,
                "min_gold": self.min_gold,
                "n_known": self.n_known,
                "n_unmatched": self.n_unmatched,
                "annotators": self.table.to_dict(orient="records"),
            }
        )


def per_annotation_gold(data: Annotations, gold_cat: np.ndarray) -> np.ndarray:
    """The gold category of each annotation's item (``gold_cat`` per item, -1 for none)."""
    return gold_cat[data.item]


@validate(known=ANY, threshold=Real(0, 1), min_gold=Whole(1))
def gold_accuracy(
    data: Any, known: Any, *, threshold: float = 0.8, confidence: float = 0.95, min_gold: int = 5
) -> GoldAccuracy:
    r"""Each annotator's accuracy on the gold questions, with Wilson's interval and a pass/fail verdict.

    For annotator a with :math:`n_a` answered gold questions, :math:`x_a` of them equal to the known label,
    :math:`\hat p_a = x_a / n_a` and Wilson's (1927) score interval

    .. math::

        \frac{\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n},\qquad z = z_{(1+c)/2}.

    ``passed`` is :math:`\hat p_a \ge` ``threshold``; ``status`` says whether the interval settles it
    (``'pass'``: lower end at or above the threshold; ``'fail'``: upper end below it; else ``'undecided'``),
    once the annotator has answered at least ``min_gold`` gold questions: Wilson's upper end after a single wrong
    answer is :math:`z^2/(1+z^2) = 0.793` at 95 %, below the default threshold, so without that floor one hard
    item (a tie the ground truth broke) would fail an annotator. Crowd platforms likewise judge a worker only
    after a minimum number of control answers (Toloka's "recent control task responses to use").
    This is how crowdsourcing platforms screen workers with honeypots / control tasks (CVAT ground-truth jobs,
    Toloka control tasks), with the uncertainty of a small number of gold questions made explicit.

    Parameters
    ----------
    data : Annotations or convertible
        Annotations with annotator identities.
    known : mapping, pandas.Series or pandas.DataFrame
        Known labels: ``{item: label}``, a Series indexed by item, or a table with columns ``item`` and
        ``label``. Items not in the data are ignored (counted in ``n_unmatched``).
    threshold : float, default 0.8
        The accuracy an annotator needs, in [0, 1].
    confidence : float, default 0.95
        Coverage of the interval.
    min_gold : int, default 5
        An annotator with fewer answered gold questions is ``'undecided'`` whatever the interval says.

    Returns
    -------
    GoldAccuracy
        One row per annotator (:attr:`GoldAccuracy.table`).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them, or ``known`` is not a mapping, Series or table.
    ValueError
        The data has no annotator identities, or a known label is not one of the categories.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. Journal of the
    American Statistical Association 22(158), 209-212.

    Brown, L. D., Cai, T. T., & DasGupta, A. (2001). Interval estimation for a binomial proportion. Statistical
    Science 16(2), 101-133.

    Examples
    --------
    Annotator 1 answers two of three gold questions right: 2/3 with Wilson's 95 % interval (0.208, 0.939),
    too wide to tell against a threshold of 0.8:

    >>> import iaa_engine as ie
    >>> data = ie.Annotations.from_wide([["a", "b", "a"], ["a", "a", "a"]])
    >>> acc = ie.gold_accuracy(data, {0: "a", 1: "b", 2: "a"})
    >>> acc.table.round(3)
       annotator  n_gold  n_correct  accuracy  lower  upper  passed     status
    0          0       3          3     1.000  0.439  1.000    True  undecided
    1          1       3          2     0.667  0.208  0.939   False  undecided
    """
    data = as_annotations(data)
    data.require_annotators("gold accuracy")
    if data.label is None:
        raise ValueError("gold accuracy needs the annotations themselves, not only statistics")
    k_item, k_cat, unmatched = known_codes(data, known)
    gold_cat = np.full(data.n_items, -1, dtype=np.int64)
    gold_cat[k_item] = k_cat
    g = gold_cat[data.item]
    has = g >= 0
    n_ann = cast(int, data.n_annotators)
    ann = cast(np.ndarray, data.annotator)
    n_gold = np.bincount(ann[has], minlength=n_ann)
    n_correct = np.bincount(ann[has & (data.label == g)], minlength=n_ann)
    return accuracy_verdict(
        cast(pd.Index, data.annotators), n_gold, n_correct, threshold, confidence, min_gold, int(k_item.size), unmatched
    )


def accuracy_verdict(
    names: pd.Index,
    n_gold: np.ndarray,
    n_correct: np.ndarray,
    threshold: float,
    confidence: float,
    min_gold: int,
    n_known: int,
    unmatched: int,
) -> GoldAccuracy:
    """:func:`gold_accuracy` from each annotator's answered and right gold questions (whose sums over partitions
    of whole items the Dask engine adds up)."""
    from iaa_engine.stats._homogeneity import wilson_interval

    with np.errstate(divide="ignore", invalid="ignore"):
        acc = np.where(n_gold > 0, n_correct / np.maximum(n_gold, 1), np.nan)
    lo, hi = wilson_interval(n_correct, n_gold, confidence)
    status = np.where(
        n_gold == 0,
        "no gold",
        np.where(
            n_gold < min_gold,
            "undecided",
            np.where(lo >= threshold, "pass", np.where(hi < threshold, "fail", "undecided")),
        ),
    )
    table = pd.DataFrame(
        {
            "annotator": names.to_numpy(),
            "n_gold": n_gold,
            "n_correct": n_correct,
            "accuracy": acc,
            "lower": lo,
            "upper": hi,
            "passed": np.where(n_gold > 0, acc >= threshold, False),
            "status": status,
        }
    )
    return GoldAccuracy(table, float(threshold), float(confidence), int(n_known), int(unmatched), int(min_gold))
