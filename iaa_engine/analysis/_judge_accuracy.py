r"""The rate behind a judge's labels: people label a calibration subset, the judge labels everything, and the judge's
own errors (measured on the calibration items) are taken out of its rate on the rest."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, Whole, validate
from iaa_engine.base._results import Result, nan_to_none, printable
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.stats._misclassification import lee_interval, rogan_gladen

__all__ = ["JudgeAccuracy", "judge_accuracy"]


def _rows(frame: pd.DataFrame) -> list:
    return [{k: nan_to_none(v) for k, v in r.items()} for r in frame.to_dict(orient="records")]


@dataclass(frozen=True, eq=False, repr=False)
class JudgeAccuracy(Result):
    r"""Each judge's rate corrected for its errors: the result of :func:`judge_accuracy`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per model: ``model``, ``positive``, ``n_calibration`` (items with a human answer and the judge's),
        ``m0`` / ``m1`` (of which truly negative / positive), ``specificity`` (:math:`q_0`), ``sensitivity``
        (:math:`q_1`), ``n_test`` (items the judge labelled that no human did), ``raw`` (the share it calls
        positive there, p), ``corrected`` (θ), ``lower`` / ``upper`` (the interval), ``method``
        (``'rogan_gladen'`` or ``'matrix'``) and ``reason`` (why ``corrected`` is undefined, else empty).
    distribution : pandas.DataFrame
        One row per model and category: ``model``, ``category``, ``raw`` (the judge's share on the test items),
        ``corrected``, ``lower``, ``upper`` (two categories: the positive from the table, the other its
        complement).
    positive : object
        The positive label.
    confidence : float
        Coverage of the intervals.
    notes : list of str
        What was left out and why.

    References
    ----------
    Rogan, W. J., & Gladen, B. (1978). Estimating prevalence from the results of a screening test. American Journal
    of Epidemiology 107(1), 71–76.

    Lee, C., Zeng, T., Jeong, J., Sohn, J., & Lee, K. (2025). How to correctly report LLM-as-a-judge evaluations.
    arXiv:2511.21140.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> humans = pd.DataFrame({"item": range(6), "annotator": "ann", "label": [1, 1, 1, 0, 0, 0]})
    >>> judge = pd.DataFrame({"item": range(10), "annotator": "llm",
    ...                       "label": [1, 1, 0, 0, 0, 1, 1, 1, 0, 0]})
    >>> res = ie.judge_accuracy(humans, judge, positive=1)
    >>> res.table[["specificity", "sensitivity", "raw", "corrected"]].round(4)
       specificity  sensitivity  raw  corrected
    0       0.6667       0.6667  0.5        0.5
    """

    table: pd.DataFrame
    distribution: pd.DataFrame
    positive: Any
    confidence: float
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the table, the distribution, the positive label, the confidence and the notes."""
        return {
            "table": _rows(self.table),
            "distribution": _rows(self.distribution),
            "positive": nan_to_none(self.positive),
            "confidence": self.confidence,
            "notes": list(self.notes),
        }

    def __str__(self) -> str:
        lines = [f"Judged rate of {printable(self.positive)!r}, corrected for each judge's errors"]
        for r in self.table.to_dict(orient="records"):
            if not np.isfinite(r["corrected"]):
                lines.append(f"  {printable(r['model']):>16}: undefined ({r['reason']})")
                continue
            lines.append(
                f"  {printable(r['model']):>16}: raw {r['raw']:.3f} -> corrected {r['corrected']:.3f} "
                f"[{r['lower']:.3f}, {r['upper']:.3f}] (specificity {r['specificity']:.3f}, sensitivity "
                f"{r['sensitivity']:.3f}, {r['n_calibration']} calibration items, {r['n_test']} others)"
            )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def _truth(h: Annotations, n_cat: int) -> np.ndarray:
    """The humans' answer per item: the unique most frequent label (one annotation suffices), -1 for a tie or none."""
    key = h.item * n_cat + h.label
    uniq, counts = np.unique(key, return_counts=True)
    item_u, label_u = np.divmod(uniq, n_cat)
    top = np.zeros(h.n_items, dtype=np.int64)
    np.maximum.at(top, item_u, counts)
    win = counts == top[item_u]
    n_win = np.bincount(item_u[win], minlength=h.n_items)
    truth = np.full(h.n_items, -1, dtype=np.int64)
    one = win & (n_win[item_u] == 1)
    truth[item_u[one]] = label_u[one]
    return truth


def _matrix_estimates(confusion: np.ndarray, judged: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Batched :math:`\hat\pi` from confusion counts (..., C, C) (true x judged) and judged counts (..., C):
    :math:`M^\top \pi = p` with :math:`M` the row-normalised confusion matrix, negative entries set to 0 and the rest
    renormalised. Returns (pi, ok) where ok is False for a matrix with an empty row or that cannot be inverted."""
    rows = confusion.sum(axis=-1, keepdims=True)
    ok = (rows > 0).all(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(rows > 0, confusion / np.maximum(rows, 1), 0.0)
        p = judged / judged.sum(axis=-1, keepdims=True)
    mt = np.swapaxes(m, -1, -2)
    cond = np.linalg.cond(np.where(ok[..., None, None], mt, np.eye(m.shape[-1])))
    ok &= np.isfinite(cond) & (cond < 1e12)
    safe = np.where(ok[..., None, None], mt, np.eye(m.shape[-1]))
    pi = np.linalg.solve(safe, np.where(ok[..., None], p, 0.0)[..., None])[..., 0]
    pi = np.maximum(pi, 0.0)
    total = pi.sum(axis=-1, keepdims=True)
    ok &= total[..., 0] > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = np.where(ok[..., None], pi / total, np.nan)
    return pi, ok


@validate(models=ANY, positive=ANY, n_boot=Whole(100, 100_000))
def judge_accuracy(
    humans: Any,
    models: Any,
    *,
    positive: Any,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: Any = 0,
) -> JudgeAccuracy:
    r"""The share of items that are truly ``positive``, estimated from a judge's labels corrected for its errors.

    People label a calibration subset; the judge (an LLM, an ML backend) labels every item. On the calibration items
    (those with a human answer: the unique most frequent human label, one annotation sufficing; ties left out) the
    judge's specificity :math:`q_0` (share of truly negative items it calls negative, out of :math:`m_0`) and
    sensitivity :math:`q_1` (of :math:`m_1` truly positive items) are counted. On the other items (no human label,
    :math:`n` of them) it calls a share p positive, which is biased by its errors; the corrected rate is Rogan and
    Gladen's (1978)

    .. math::

        \hat\theta = \frac{p + q_0 - 1}{q_0 + q_1 - 1}\ \text{clipped to}\ [0, 1],

    with Lee et al.'s (2025) interval, which carries the uncertainty of p, :math:`q_0` and :math:`q_1`
    (:func:`iaa_engine.stats._misclassification.lee_interval`). A judge no better than chance
    (:math:`q_0 + q_1 \le 1`) is refused: its rate is undefined, with the reason.

    With more than two categories, the judge's confusion matrix :math:`M_{jk} = P(\text{judge } k \mid \text{true }
    j)` from the calibration items is inverted: :math:`\hat\pi = (M^\top)^{-1} p` (the judge's shares p on the
    other items; negative entries set to 0, then renormalised), the matrix method of misclassification correction
    (Buonaccorsi 2010, §3.5); ``corrected`` is :math:`\hat\pi` of ``positive``, with a percentile bootstrap
    interval (the calibration items and the other items resampled independently, as multinomial counts; replicates
    whose matrix cannot be inverted are left out).

    Parameters
    ----------
    humans : Annotations or convertible
        The human annotations of the calibration items.
    models : Annotations or convertible
        The judges' annotations, one "annotator" per judge.
    positive : label
        The label whose true share is wanted (e.g. ``"correct"``, ``1``); a label of the humans or the judges.
    confidence : float, default 0.95
        Coverage of the intervals.
    n_boot : int, default 2000
        Bootstrap replicates (more than two categories only).
    seed : int or numpy.random.Generator, default 0
        Seed of the bootstrap.

    Returns
    -------
    JudgeAccuracy

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``humans`` or ``models`` is not annotations nor convertible to them.
    ValueError
        ``positive`` is not a label of the data; a set has no annotator identities or holds only statistics.

    References
    ----------
    Rogan, W. J., & Gladen, B. (1978). Estimating prevalence from the results of a screening test. American Journal
    of Epidemiology 107(1), 71–76.

    Lee, C., Zeng, T., Jeong, J., Sohn, J., & Lee, K. (2025). How to correctly report LLM-as-a-judge evaluations.
    arXiv:2511.21140. https://github.com/UW-Madison-Lee-Lab/LLM-judge-reporting.

    Buonaccorsi, J. P. (2010). Measurement Error: Models, Methods, and Applications, §3.5. Chapman & Hall/CRC.

    Examples
    --------
    judgy's test case (ai-evals-course/judgy, ``tests/test_core.py``, ``test_basic_functionality``): eight
    calibration items, ten others:

    >>> import pandas as pd, iaa_engine as ie
    >>> truth, said = [1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0]
    >>> others = [1, 1, 0, 1, 0, 1, 0, 1, 1, 0]
    >>> humans = pd.DataFrame({"item": range(8), "annotator": "expert", "label": truth})
    >>> judge = pd.DataFrame({"item": range(18), "annotator": "llm", "label": said + others})
    >>> row = ie.judge_accuracy(humans, judge, positive=1).table.iloc[0]
    >>> float(row["specificity"]), float(row["sensitivity"]), float(row["raw"]), round(float(row["corrected"]), 4)
    (0.75, 0.75, 0.6, 0.7)
    """
    h = as_annotations(humans)
    m = as_annotations(models)
    h.require_annotators("judge_accuracy (the humans)")
    m.require_annotators("judge_accuracy (the models)")
    if h.label is None or m.label is None:
        raise ValueError("judge_accuracy needs the annotations themselves, not only statistics")
    cats = h.categories
    extra = m.categories[cats.get_indexer(m.categories) < 0]
    union = cats.append(extra) if len(extra) else cats
    where = union.get_indexer(pd.Index([positive], dtype=union.dtype if len(union) else object))
    if len(union) == 0 or where[0] < 0:
        raise ValueError(
            f"positive must be a label of the humans or the judges; got {positive!r} "
            f"(labels: {[printable(c) for c in list(union)[:10]]!r})"
        )
    pos = int(where[0])
    n_cat = len(union)
    notes: list[str] = []
    truth = _truth(h, n_cat)
    tied = int(((np.bincount(h.item, minlength=h.n_items) > 0) & (truth < 0)).sum())
    if tied:
        notes.append(f"{tied} item(s) whose human labels tie are left out of the calibration")
    # the judges' annotations in the humans' item codes (-1: an item no human labelled)
    m_item = h.items.get_indexer(m.items)[m.item]
    m_label = union.get_indexer(m.categories)[m.label]
    m_ann = np.asarray(m.annotator)
    n_models = len(cast(pd.Index, m.annotators))
    calib = m_item >= 0
    calib_truth = np.where(calib, truth[np.maximum(m_item, 0)], -1)
    in_cal = calib_truth >= 0
    test = ~calib  # items no human labelled
    # counts per model: confusion (true x judged) on calibration items, judged counts on the others
    conf = np.bincount(
        (m_ann[in_cal] * n_cat + calib_truth[in_cal]) * n_cat + m_label[in_cal], minlength=n_models * n_cat * n_cat
    ).reshape(n_models, n_cat, n_cat)
    judged = np.bincount(m_ann[test] * n_cat + m_label[test], minlength=n_models * n_cat).reshape(n_models, n_cat)
    names = np.asarray(m.annotators, dtype=object)
    rows, dist = [], []
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    for j in range(n_models):  # a loop over judges; each step is a closed form or one batched bootstrap
        c, t = conf[j], judged[j]
        n_test, n_cal = int(t.sum()), int(c.sum())
        tp = c[pos, pos]
        neg_rows = np.delete(np.arange(n_cat), pos)
        m1, m0 = int(c[pos].sum()), int(c[neg_rows].sum())
        tn = c[neg_rows][:, neg_rows].sum()  # a negative called any negative counts as negative
        q1 = tp / m1 if m1 else np.nan
        q0 = tn / m0 if m0 else np.nan
        raw = t[pos] / n_test if n_test else np.nan
        reason = ""
        if n_test == 0:
            reason = "every item the judge labelled has a human answer: nothing left to correct"
        elif m1 == 0 or m0 == 0:
            reason = f"the calibration items have no truly {'positive' if m1 == 0 else 'negative'} item"
        elif q0 + q1 <= 1:
            reason = (
                f"the judge is no better than chance on the calibration items (specificity + sensitivity = "
                f"{q0 + q1:.3f}, at most 1)"
            )
        shares = t / n_test if n_test else np.full(n_cat, np.nan)
        if n_cat <= 2:
            method = "rogan_gladen"
            theta = float(rogan_gladen(raw, q0, q1)) if not reason else np.nan
            lo, hi = lee_interval(raw, q0, q1, n_test, m0, m1, confidence) if not reason else (np.nan, np.nan)
            other = 1 - pos if n_cat == 2 else None
            dist.append(
                pd.DataFrame(
                    {
                        "model": names[j],
                        "category": [union[pos]] + ([union[other]] if other is not None else []),
                        "raw": [raw] + ([1 - raw] if other is not None else []),
                        "corrected": [theta] + ([1 - theta] if other is not None else []),
                        "lower": [lo] + ([1 - hi] if other is not None else []),
                        "upper": [hi] + ([1 - lo] if other is not None else []),
                    }
                )
            )
        else:
            method = "matrix"
            if not reason or reason.startswith("the judge is no better"):
                reason = ""
                pi, ok = _matrix_estimates(c.astype(float), t.astype(float))
                if n_test == 0:
                    reason = "every item the judge labelled has a human answer: nothing left to correct"
                elif not ok:
                    reason = (
                        "the judge's confusion matrix on the calibration items cannot be inverted (a category "
                        "with no calibration item, or labels that carry no information)"
                    )
            if reason:
                pi = np.full(n_cat, np.nan)
                band = np.full((2, n_cat), np.nan)
            else:
                # percentile bootstrap: calibration items and the other items resampled as multinomial counts
                cal_p = (c / n_cal).ravel()
                boot_c = rng.multinomial(n_cal, cal_p, size=n_boot).reshape(n_boot, n_cat, n_cat).astype(float)
                boot_t = rng.multinomial(n_test, t / n_test, size=n_boot).astype(float)
                pis, oks = _matrix_estimates(boot_c, boot_t)
                a = (1 - confidence) / 2
                band = np.quantile(pis[oks], [a, 1 - a], axis=0) if oks.any() else np.full((2, n_cat), np.nan)
                if (~oks).any():
                    notes.append(
                        f"judge {printable(names[j])!r}: {int((~oks).sum())} of {n_boot} bootstrap replicates "
                        "could not be inverted and were left out"
                    )
            theta, lo, hi = float(pi[pos]), float(band[0, pos]), float(band[1, pos])
            dist.append(
                pd.DataFrame(
                    {
                        "model": names[j],
                        "category": list(union),
                        "raw": shares,
                        "corrected": pi,
                        "lower": band[0],
                        "upper": band[1],
                    }
                )
            )
        rows.append(
            {
                "model": names[j],
                "positive": union[pos],
                "n_calibration": n_cal,
                "m0": m0,
                "m1": m1,
                "specificity": q0,
                "sensitivity": q1,
                "n_test": n_test,
                "raw": raw,
                "corrected": theta,
                "lower": lo,
                "upper": hi,
                "method": method,
                "reason": reason,
            }
        )
    table = pd.DataFrame(rows)
    distribution = pd.concat(dist, ignore_index=True) if dist else pd.DataFrame()
    return JudgeAccuracy(table, distribution, union[pos], float(confidence), notes)
