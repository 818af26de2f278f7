r"""Models beside humans: a second set of annotations (pre-labellers, LLMs, model versions) compared with the humans'.

The design decision (issue 17, item 4): model raters are *a second set of annotations compared with the first*,
not annotators of a kind mixed into the human data. The humans' own agreement is then untouched by construction
(the models never enter it), and each model is read against three references: each annotator, the pooled humans
and the humans' gold label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, validate
from iaa_engine.base._results import Result, nan_to_none
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.stats._homogeneity import kappa_from_tables, normal_quantile, wilson_interval

__all__ = ["ModelAgreement", "model_agreement"]

#: Above this many table cells (models x references x categories^2) the kappas come from the margins alone and
#: carry no standard error (the full tables would not fit in memory comfortably).
TABLE_CELLS_LIMIT = 20_000_000
POOLED = "(pooled humans)"
GOLD = "(gold)"


@dataclass(frozen=True, eq=False)
class ModelAgreement(Result):
    r"""Each model's agreement with each annotator, with the pooled humans and with the gold labels.

    The result of :func:`model_agreement`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per model and reference: ``model``, ``reference`` (an annotator, ``'(pooled humans)'`` or
        ``'(gold)'``), ``kind`` (``'annotator'``, ``'humans'``, ``'gold'``), ``n`` (items compared; for the pooled
        humans each item weighs one), ``agreement`` with ``agreement_lower`` / ``agreement_upper`` (Wilson),
        ``kappa`` with ``kappa_se``, ``kappa_lower`` / ``kappa_upper``.
    human_agreement : float
        The humans among themselves: the probability that two humans' labels on an item agree (Fleiss' observed
        agreement :math:`\bar P`, :func:`joint_probability`). Compare with a model's ``agreement`` with the pooled
        humans, the probability that the model and a human drawn at random agree on an item.
    gold : str
        Where the gold labels came from (``'majority'``, ``'dawid_skene'`` or ``'known'``).
    confidence : float
        Coverage of the intervals.
    notes : list of str
        What was left out and why.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> humans = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "annotator": list("ababab"),
    ...                        "label": ["x", "x", "y", "y", "x", "y"]})
    >>> model = pd.DataFrame({"item": [1, 2, 3], "annotator": "m1", "label": ["x", "x", "x"]})
    >>> res = ie.model_agreement(humans, model)
    >>> res.table[["model", "reference", "n", "agreement"]].round(3)
      model        reference    n  agreement
    0    m1                a  3.0      0.667
    1    m1                b  3.0      0.333
    2    m1  (pooled humans)  3.0      0.500
    3    m1           (gold)  2.0      0.500
    """

    table: pd.DataFrame
    human_agreement: float
    gold: str
    confidence: float
    notes: list

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def to_dict(self) -> dict:
        """JSON-ready: the rows, the humans' agreement, the gold source, the confidence and the notes."""
        rows = [{k: nan_to_none(v) for k, v in r.items()} for r in self.table.to_dict(orient="records")]
        return {
            "rows": rows,
            "human_agreement": nan_to_none(self.human_agreement),
            "gold": self.gold,
            "confidence": self.confidence,
            "notes": list(self.notes),
        }

    def __str__(self) -> str:
        def num(v: float) -> str:
            return f"{v:.3f}" if np.isfinite(v) else "undefined"

        humans = num(self.human_agreement)
        if humans == "undefined":
            humans += " (no item has two human labels)"
        lines = [f"Models beside humans (humans among themselves: agreement {humans})"]
        for r in self.table.itertuples(index=False):
            head = f"  {r.model!s:>16} vs {r.reference!s:<18} n={r.n:>9.0f}  "
            if not r.n > 0:
                lines.append(head + "undefined (no item labelled by both)")
                continue
            lines.append(
                head + f"agreement {num(r.agreement)} [{num(r.agreement_lower)}, {num(r.agreement_upper)}]  "
                f"kappa {num(r.kappa)}"
            )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _stats(
    group: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    w: np.ndarray,
    n_groups: int,
    n_cat: int,
    z: float,
    confidence: float,
) -> dict[str, np.ndarray]:
    """Agreement (Wilson) and Cohen's kappa (FCE standard error) of the weighted label pairs ``(a, b)`` per group."""
    n = np.bincount(group, weights=w, minlength=n_groups)
    agree = np.bincount(group, weights=w * (a == b), minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement = np.where(n > 0, agree / n, np.nan)
    lo, hi = wilson_interval(agree, n, confidence)
    if n_groups * n_cat * n_cat <= TABLE_CELLS_LIMIT:
        tables = np.bincount((group * n_cat + a) * n_cat + b, weights=w, minlength=n_groups * n_cat * n_cat)
        kappa, se, _, _ = kappa_from_tables(tables.reshape(n_groups, n_cat, n_cat))
    else:  # margins only: kappa without its standard error
        row = np.bincount(group * n_cat + a, weights=w, minlength=n_groups * n_cat).reshape(n_groups, n_cat)
        col = np.bincount(group * n_cat + b, weights=w, minlength=n_groups * n_cat).reshape(n_groups, n_cat)
        with np.errstate(divide="ignore", invalid="ignore"):
            pe = np.sum(row * col, axis=1) / (n * n)
            kappa = np.where((n > 0) & (1.0 - pe > 1e-12), (agreement - pe) / (1.0 - pe), np.nan)
        se = np.full(n_groups, np.nan)
    return {
        "n": n,
        "agreement": agreement,
        "agreement_lower": lo,
        "agreement_upper": hi,
        "kappa": kappa,
        "kappa_se": se,
        "kappa_lower": np.clip(kappa - z * se, -1.0, 1.0),
        "kappa_upper": np.clip(kappa + z * se, -1.0, 1.0),
    }


def _align(humans: Annotations, models: Annotations) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The models' annotations in the humans' item and category codes: ``(item, label, keep, n_cat)``.

    Items no human labelled are dropped (``keep`` False); a category only a model uses gets a code after the
    humans' categories (it can only disagree).
    """
    item = humans.items.get_indexer(models.items)[models.item]
    cats = humans.categories
    extra = models.categories[cats.get_indexer(models.categories) < 0]
    union = cats.append(extra) if len(extra) else cats
    label = union.get_indexer(models.categories)[models.label]
    return item, label, item >= 0, len(union)


@validate(models=ANY, gold=ANY)
def model_agreement(
    humans: Any,
    models: Any,
    *,
    gold: Any = "majority",
    confidence: float = 0.95,
    max_iter: int = 100,
    progress: bool | None = None,
) -> ModelAgreement:
    r"""Each model's agreement with each annotator, with the pooled humans and with the humans' gold labels.

    Models are a second set of annotations (their "annotator" column names the model, e.g. a Label Studio model
    version) compared with the humans; the humans' own agreement is computed without them, so adding models never
    changes it. Exact-match (nominal) agreement; with :math:`x_{mi}` model m's label on item i, :math:`n_{il}`
    the humans' label counts and :math:`m_i` the item's human annotations:

    each annotator a
        Agreement :math:`\frac{1}{n_{ma}}\sum_{i} [x_{mi} = y_{ai}]` on the :math:`n_{ma}` items both labelled,
        with Wilson's (1927) interval, and Cohen's (1960) kappa of the model × annotator table with the
        Fleiss, Cohen & Everitt (1969) standard error.
    the pooled humans
        The table :math:`T^{(m)}_{kl} = \sum_{i:\,x_{mi}=k} n_{il}/m_i` (each item weighing one: the model against
        a human drawn at random on each item, as :func:`annotator_report` pools the others). ``agreement``
        :math:`\mathrm{tr}\,T/n` is the probability that the model and a random human agree on an item: compare it
        with :attr:`ModelAgreement.human_agreement`, the probability that two humans agree (Fleiss 1971). A model
        that agrees with people less than people agree with each other shows it there.
    the gold labels
        Accuracy against the humans' gold label (``gold='majority'`` or ``'dawid_skene'``: a unique winner on an
        item with at least two human annotations; or known labels as in :func:`gold_standard`), the gold labels of
        :func:`annotator_report`, tied items left out, with
        Wilson's interval, and Cohen's kappa of the model × gold table.

    Parameters
    ----------
    humans : Annotations or convertible
        The human annotations (with annotator identities).
    models : Annotations or convertible
        The model annotations: one "annotator" per model; items and labels as in ``humans`` (an item no human
        labelled is left out, with a note; a label the humans never used counts as a disagreement).
    gold : {'majority', 'dawid_skene'} or known labels, default 'majority'
        The gold labels the models are read against (known labels: a mapping ``{item: label}``, a Series or a table
        with ``item`` and ``label``).
    confidence : float, default 0.95
        Coverage of the intervals.
    max_iter : int, default 100
        EM iterations for ``gold='dawid_skene'``.
    progress : bool, optional
        Show Dawid-Skene's progress (default: only on a terminal).

    Returns
    -------
    ModelAgreement
        The table of rows per model and reference, and the humans' own agreement.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``humans`` or ``models`` is not annotations nor convertible to them.
    ValueError
        Either set has no annotator identities (a count table), or a known label is not a category.

    See Also
    --------
    annotator_report : The same columns for each human annotator against the others.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37–46.

    Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of kappa and weighted kappa.
    Psychological Bulletin 72(5), 323–327.

    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. Journal of the
    American Statistical Association 22(158), 209–212.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> long = data.to_long()
    >>> humans = long[long["annotator"] != "annotator_0"]
    >>> model = long[long["annotator"] == "annotator_0"].assign(annotator="prelabeller")
    >>> res = ie.model_agreement(humans, model)
    >>> res.table.set_index("reference").loc["(pooled humans)", ["n", "agreement"]].round(3).tolist()
    [15.0, 0.8]

    That is annotator_0's agreement with the pooled others in the scorecard:

    >>> float(ie.annotator_report(data, progress=False).table.loc[0, "agreement"])
    0.8
    """
    from iaa_engine.analysis._scorecard import _gold_codes

    h = as_annotations(humans)
    m = as_annotations(models)
    h.require_annotators("model_agreement (the humans)")
    m.require_annotators("model_agreement (the models)")
    if h.label is None or m.label is None:
        raise ValueError("model_agreement needs the annotations themselves, not only statistics")
    notes: list[str] = []
    z = normal_quantile(confidence)
    m_item, m_label, keep, n_cat = _align(h, m)
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} model annotation(s) on items no human labelled are left out")
    m_item, m_label, m_model = m_item[keep], m_label[keep], np.asarray(m.annotator)[keep]
    n_models = len(cast(pd.Index, m.annotators))
    h_ann = np.asarray(h.annotator)
    n_ann = len(cast(pd.Index, h.annotators))

    # join every model annotation with the human annotations of its item (sorted by item: offsets, no loop)
    order = np.argsort(h.item, kind="stable")
    per_item = np.bincount(h.item, minlength=h.n_items)
    start = np.concatenate(([0], np.cumsum(per_item)[:-1]))
    reps = per_item[m_item]
    left = np.repeat(np.arange(m_item.size), reps)
    offset = np.arange(left.size) - np.repeat(np.cumsum(reps) - reps, reps)
    right = order[start[m_item[left]] + offset]
    mod, ann = m_model[left], h_ann[right]
    lab_m, lab_h = m_label[left], h.label[right]

    # each annotator (one pair per item; an annotator who labelled an item twice counts twice)
    per_ann = _stats(mod * n_ann + ann, lab_m, lab_h, np.ones(left.size), n_models * n_ann, n_cat, z, confidence)
    # the pooled humans: each item weighs one
    pooled = _stats(mod, lab_m, lab_h, 1.0 / per_item[m_item[left]], n_models, n_cat, z, confidence)
    # the gold labels
    if isinstance(gold, str) and gold not in ("majority", "dawid_skene"):
        raise ValueError(f"gold must be 'majority', 'dawid_skene' or known labels; got {gold!r}")
    gold_code, gold_name = _gold_codes(h, gold, max_iter, progress)  # the scorecard's gold labels, same rules
    g = gold_code[m_item]
    has = g >= 0
    vs_gold = _stats(m_model[has], m_label[has], g[has], np.ones(int(has.sum())), n_models, n_cat, z, confidence)

    models_names = np.asarray(m.annotators, dtype=object)
    ann_names = np.asarray(h.annotators, dtype=object)
    frames = []
    keep_ann = per_ann["n"] > 0
    grid_m, grid_a = np.divmod(np.arange(n_models * n_ann), n_ann)
    frames.append(
        pd.DataFrame(
            {
                "model": models_names[grid_m[keep_ann]],
                "reference": ann_names[grid_a[keep_ann]],
                "kind": "annotator",
                **{k: v[keep_ann] for k, v in per_ann.items()},
                "_order": grid_m[keep_ann] * (n_ann + 2) + grid_a[keep_ann],
            }
        )
    )
    for name, kind, stats, pos in ((POOLED, "humans", pooled, n_ann), (GOLD, "gold", vs_gold, n_ann + 1)):
        frames.append(
            pd.DataFrame(
                {
                    "model": models_names,
                    "reference": name,
                    "kind": kind,
                    **stats,
                    "_order": np.arange(n_models) * (n_ann + 2) + pos,
                }
            )
        )
    table = pd.concat(frames, ignore_index=True).sort_values("_order", kind="stable").drop(columns="_order")
    table = table.reset_index(drop=True)
    from iaa_engine.metrics._agreement import joint_probability

    human = float(joint_probability(h, replace_undefined_by=np.nan)) if h.n_annotations else float("nan")
    return ModelAgreement(table, human, gold_name, float(confidence), notes)
