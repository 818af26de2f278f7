"""Gold labels from disagreeing annotations: majority vote, the bias-correcting rules, and Dawid-Skene."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, Choice, validate
from iaa_engine.base._progress import Progress
from iaa_engine.base._results import Result
from iaa_engine.data._model import Annotations, as_annotations

__all__ = ["GOLD_RULES", "GoldStandard", "bcr_weights", "gold_standard"]

GOLD_RULES = ("majority", "diff", "rat", "com", "inv", "dawid_skene")
GoldRule = Literal["majority", "diff", "rat", "com", "inv", "dawid_skene"]
_BCR = ("diff", "rat", "com", "inv")
_EPS = 1e-10  # crowd-kit's floor for confusion-matrix entries and priors


@dataclass(frozen=True, eq=False)
class GoldStandard(Result):
    """Gold labels of every item, with the evidence behind them.

    Attributes
    ----------
    rule : str
    labels : pandas.DataFrame
        One row per (item, winning label): columns ``item``, ``label``,
        ``score`` (votes, the weighted score, or the posterior probability),
        ``share`` (score over the item's total score), ``tie`` (the item has
        several winning labels: all are kept, one row each) and
        ``n_annotations``. Items without annotations have no row.
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

    @validate()
    def per_item(self, sep: str = "|") -> pd.DataFrame:
        """One row per item: ``gold`` joins tied labels with ``sep`` (in category order)."""
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
        """Dawid-Skene confusion matrix of one annotator: rows true label, columns given label."""
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
        if self.confusion is not None:
            out["priors"] = dict(zip(map(str, self.categories), self.priors.to_numpy()))
            out["confusion"] = {
                "annotators": self.annotators,
                "categories": self.categories,
                "matrix": self.confusion,
                "n_iter": self.n_iter,
            }
        return nan_to_none(out)


@validate(rule=Choice(*_BCR))
def bcr_weights(data: Any, rule: Literal["diff", "rat", "com", "inv"]) -> pd.DataFrame:
    r"""Bias-correcting weights :math:`w_{ik}` of seed 001 ("Annotation aggregation").

    .. math::

        \mathrm{Freq}_i(k) = \frac{|\{a_{i*} = k\}|}{|\{a_{i*}\}|},\qquad
        \mathrm{Freq}(k) = \frac{|\{a_{**} = k\}|}{|\{a_{**}\}|}

    =========  ===============================================
    ``diff``   :math:`w_{ik} = 1 + \mathrm{Freq}(k) - \mathrm{Freq}_i(k)`
    ``rat``    :math:`w_{ik} = \mathrm{Freq}(k) / \mathrm{Freq}_i(k)`
    ``com``    :math:`w_{ik} = 1 + 1/|K| - \mathrm{Freq}_i(k)`
    ``inv``    :math:`w_{ik} = 1 / \mathrm{Freq}_i(k)`
    =========  ===============================================

    :math:`|K|` is the number of categories. Where annotator i never used k, ``rat``
    and ``inv`` divide by zero; such weights are NaN and never applied.

    Returns
    -------
    pandas.DataFrame
        Annotators × categories.
    """
    data = as_annotations(data)
    data.require_annotators("the bias-correcting rules")
    freq_i = data.annotator_stats.distributions
    totals = data.counts.category_totals()
    freq = totals / totals.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        if rule == "diff":
            w = 1.0 + freq[None, :] - freq_i
        elif rule == "rat":
            w = freq[None, :] / freq_i
        elif rule == "com":
            w = 1.0 + 1.0 / data.n_categories - freq_i
        else:
            w = 1.0 / freq_i
    w = np.where(data.annotator_stats.counts > 0, w, np.nan)
    return pd.DataFrame(w, index=data.annotators, columns=data.categories)


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


@validate(rule=Choice(*GOLD_RULES))
def gold_standard(
    data: Any,
    *,
    rule: GoldRule = "majority",
    tie_tolerance: float = 1e-9,
    max_iter: int = 100,
    tol: float = 1e-5,
    progress: bool | None = None,
) -> GoldStandard:
    r"""Aggregate annotations into gold labels; ties keep every tied label.

    ``majority``
        :math:`\arg\max_k n_{jk}`: the most frequent label.
    ``diff``, ``rat``, ``com``, ``inv``
        Seed 001's bias-correcting rules:
        :math:`F_w(A)_j = \arg\max_k \sum_{i \in N_j, a_{ij} = k} w_{ik}` with the
        weights of :func:`bcr_weights`.
    ``dawid_skene``
        Dawid & Skene (1979), *J. R. Stat. Soc. C* 28:20-28: EM over class
        priors :math:`p_t` and per-annotator confusion matrices
        :math:`e^a_{t,o}`, initialised from majority-vote proportions, with the
        updates of crowd-kit's ``DawidSkene`` (entries floored at 1e-10), stopping
        when the evidence lower bound per annotation rises by less than ``tol``.

    A label is tied when its score is within ``tie_tolerance`` (relative) of
    the item's best score; the exercise (seed 001) demands that all tied labels
    are kept, so a tied item has one row per tied label.

    Parameters
    ----------
    data : Annotations or convertible
        The voting rules need annotator identities except ``majority``.
    rule : {'majority', 'diff', 'rat', 'com', 'inv', 'dawid_skene'}
    tie_tolerance : float
    max_iter, tol : EM settings for ``dawid_skene``.
    progress : bool, optional
        Show EM progress on stderr (default: only on a terminal).

    Returns
    -------
    GoldStandard
    """
    data = as_annotations(data)
    cats = list(data.categories)
    anns = None if data.annotators is None else list(data.annotators)
    c = data.counts
    if rule == "majority":
        labels = _winners(data, c.item, c.category, c.count.astype(float), tie_tolerance)
        return GoldStandard(rule, labels, cats, anns)
    if rule in _BCR:
        w = bcr_weights(data, rule)
        if data.label is None:
            raise ValueError("the bias-correcting rules need the annotations themselves, not only statistics")
        per_annotation = w.to_numpy()[data.annotator, data.label]
        keys = c.item * max(data.n_categories, 1) + c.category
        entry = np.searchsorted(keys, data.item * max(data.n_categories, 1) + data.label)
        score = np.bincount(entry, weights=per_annotation, minlength=keys.size)
        labels = _winners(data, c.item, c.category, score, tie_tolerance)
        return GoldStandard(rule, labels, cats, anns, weights=w)
    return _dawid_skene(data, tie_tolerance, max_iter, tol, progress)


def _dawid_skene(
    data: Annotations, tie_tolerance: float, max_iter: int, tol: float, progress: bool | None
) -> GoldStandard:
    data.require_annotators("Dawid-Skene")
    if data.label is None:
        raise ValueError("Dawid-Skene needs the annotations themselves, not only statistics")
    n_items, n_ann, n_cat = data.n_items, data.n_annotators, data.n_categories
    item, ann, lab = data.item, data.annotator, data.label
    pair = ann * n_cat + lab
    used = (data.annotator_stats.counts > 0)[:, :, None]  # (annotator, given label, 1)
    counts = data.counts.to_dense().astype(float)
    post = counts / counts.sum(axis=1, keepdims=True).clip(min=1)  # majority-vote proportions

    def m_step(post: np.ndarray) -> np.ndarray:
        e = np.stack(
            [np.bincount(pair, weights=post[item, t], minlength=n_ann * n_cat) for t in range(n_cat)], axis=-1
        ).reshape(n_ann, n_cat, n_cat)  # (annotator, given, true)
        e = np.where(used, np.maximum(e, _EPS), 0.0)
        return e / e.sum(axis=1, keepdims=True)

    def log_lik(priors: np.ndarray, e: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            log_e = np.where(used, np.log(np.where(used, e, 1.0)), 0.0)
        per_annotation = log_e[ann, lab, :]  # (annotations, true)
        ll = np.stack(
            [np.bincount(item, weights=per_annotation[:, t], minlength=n_items) for t in range(n_cat)], axis=-1
        )
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
        list(data.annotators),
        confusion=np.transpose(e, (0, 2, 1)).copy(),
        priors=pd.Series(priors, index=data.categories, name="prior"),
        posteriors=pd.DataFrame(post, index=data.items, columns=data.categories),
        n_iter=n_iter,
        loss_history=history,
    )
