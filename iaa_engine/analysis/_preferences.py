r"""Agreement of judges on pairwise preferences (A better / tie / B better), their position bias, and a gold answer."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.analysis._bradley_terry import fit_preferences
from iaa_engine.analysis._models import ModelAgreement, model_agreement
from iaa_engine.base._params import ANY, PARAMS, NoneOr, Real, Text, validate
from iaa_engine.base._policy import UndefinedMetricWarning
from iaa_engine.base._results import Result, nan_to_none, printable
from iaa_engine.data._preferences import JUDGE_COLUMNS, PROMPT_COLUMNS, find_column, read_preferences
from iaa_engine.metrics._agreement import joint_probability
from iaa_engine.metrics._alpha import krippendorff_alpha
from iaa_engine.metrics._kappa import cohen_kappa, fleiss_kappa, gwet_ac1
from iaa_engine.stats._multiple import holm

__all__ = ["PreferenceAgreement", "preference_agreement", "preference_model_agreement"]

_COLUMNS = {
    "item": NoneOr(PARAMS["item"]),
    "annotator": NoneOr(PARAMS["annotator"]),
    "response_a": Text(),
    "response_b": Text(),
    "strength": NoneOr(Text()),
}


@dataclass(frozen=True, eq=False, repr=False)
class PreferenceAgreement(Result):
    r"""Agreement on pairwise preferences: the result of :func:`preference_agreement`.

    Attributes
    ----------
    coefficients : dict
        On the canonical pairs: ``krippendorff_alpha[ordinal]`` (B better < tie < A better, or the signed
        strengths), ``krippendorff_alpha[nominal]``, ``fleiss_kappa``, ``gwet_ac1``, ``joint_probability`` (two
        judges of a pair agree) and, with exactly two judges, ``cohen_kappa``.
    judges : pandas.DataFrame
        One row per judge: ``judge``, ``n`` (judgments), ``n_decided`` (not ties), ``first_wins`` (how many of those
        the response shown first won), ``first_share``, ``p_value`` (two-sided exact binomial test of a share of
        1/2), ``p_holm`` (Holm-adjusted across judges), ``position_bias`` (``p_holm`` below ``bias_level``),
        ``agree_majority`` (share of the judge's judgments on pairs with a majority answer that equal it; the
        majority includes the judge), ``agree_bradley_terry`` (share of the judge's decided judgments that
        the prompt's Bradley–Terry scores order the same way), ``n_both_orders`` (pairs the judge saw in both
        orders) and ``position_consistency`` (the share of those answered alike in both orders; NaN without
        any; :func:`judge_consistency` gives the full analysis).
    pairs : pandas.DataFrame
        One row per canonical pair: ``item``, ``response_a``, ``response_b`` (sorted), ``n`` judgments, ``a``,
        ``tie``, ``b`` (counts on the canonical pair), ``majority`` (``'A'``, ``'tie'``, ``'B'``, or ``''`` when
        two answers share the most votes).
    scores : pandas.DataFrame
        Bradley–Terry scores of the responses of each prompt (:func:`bradley_terry`).
    bias_level : float
        The level of the position-bias flag.
    n_judgments, n_pairs, n_judges : int
        Sizes.
    notes : list of str
        What to know when reading the numbers.
    pooled : dict
        The position bias of all judges pooled: ``n_decided``, ``first_wins``, ``first_share``, ``p_value`` (the
        exact two-sided binomial test of a share of 1/2 over every decided judgment) and ``ci_low``, ``ci_high``
        (Clopper–Pearson 95 % interval of the share). It treats the judgments as independent; a few heavy judges
        weigh in it as much as their judgments.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics
    6(2), 65–70.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": "p1", "response_a": ["x", "y", "x", "y"], "response_b": ["y", "x", "y", "x"],
    ...                   "annotator": ["ann", "bob", "cy", "dee"], "label": ["A", "B", "A", "A"]})
    >>> res = ie.preference_agreement(t)
    >>> res.pairs[["response_a", "response_b", "a", "tie", "b", "majority"]]
      response_a response_b  a  tie  b majority
    0          x          y  3    0  1        A
    """

    coefficients: dict
    judges: pd.DataFrame
    pairs: pd.DataFrame
    scores: pd.DataFrame
    bias_level: float
    n_judgments: int
    n_pairs: int
    n_judges: int
    notes: list = field(default_factory=list)
    pooled: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the coefficients, the judges, the pairs, the scores, the pooled position bias, the sizes and
        the notes."""

        def rows(frame: pd.DataFrame) -> list:
            return [{k: nan_to_none(v) for k, v in r.items()} for r in frame.to_dict(orient="records")]

        return {
            "coefficients": nan_to_none(self.coefficients),
            "judges": rows(self.judges),
            "pairs": rows(self.pairs),
            "scores": rows(self.scores),
            "bias_level": self.bias_level,
            "n_judgments": self.n_judgments,
            "n_pairs": self.n_pairs,
            "n_judges": self.n_judges,
            "pooled_position_bias": nan_to_none(dict(self.pooled)),
            "notes": list(self.notes),
        }

    def to_frame(self) -> pd.DataFrame:
        """The judges table (a copy)."""
        return self.judges.copy()

    def __str__(self) -> str:
        return self.summary()

    def summary(self, top: int = 10) -> str:
        """What to read first: the coefficients, the pooled position bias with its test, how many judges are
        flagged, and the flagged judges (else those with the smallest p-values), at most ``top`` of them (0: all),
        smallest p first, each with its number of judgments. The full table is :attr:`judges`."""
        lines = [f"Preferences: {self.n_judgments:,} judgments of {self.n_pairs:,} pairs by {self.n_judges:,} judges"]
        for k, v in self.coefficients.items():
            lines.append(f"  {k:<30} {'undefined' if not np.isfinite(v) else f'{v:.4f}'}")
        pool = self.pooled
        if pool:
            if pool["n_decided"] > 0:
                lines.append(
                    f"  Position bias, all judges pooled: the first shown wins {pool['first_share']:.3f} of "
                    f"{pool['n_decided']:,} decided judgments (95% CI {pool['ci_low']:.3f}-{pool['ci_high']:.3f}; "
                    f"exact binomial test of 1/2: p = {pool['p_value']:.3g})"
                )
            else:
                lines.append("  Position bias, all judges pooled: undefined (no decided judgment, every one a tie)")
        flagged = self.judges["position_bias"].to_numpy(dtype=bool)
        n_flag = int(flagged.sum())
        lines.append(
            f"  Judges flagged for position bias (Holm-adjusted p below {self.bias_level:g}): {n_flag:,} of "
            f"{self.n_judges:,}"
        )
        order = self.judges.assign(_p=self.judges["p_value"].fillna(np.inf)).sort_values(["_p", "judge"], kind="stable")
        pool_rows = order[order["position_bias"]] if n_flag else order
        shown = pool_rows if top == 0 else pool_rows.head(top)
        if len(shown):
            head = "Flagged judges" if n_flag else "Judges with the smallest p-values (none flagged)"
            if len(shown) == self.n_judges and not n_flag:
                head = "Judges, smallest p first (none flagged)"
            lines.append(f"  {head}: the first shown wins (share of the decided judgments), p, Holm-adjusted p")
            width = min(max((len(str(printable(j))) for j in shown["judge"]), default=5), 32)
            for r in shown.itertuples(index=False):
                share = "undefined" if not np.isfinite(r.first_share) else f"{r.first_share:.3f}"
                p = "undefined" if not np.isfinite(r.p_value) else f"{r.p_value:.3g}"
                ph = "undefined" if not np.isfinite(r.p_holm) else f"{r.p_holm:.3g}"
                flag = "  POSITION BIAS" if r.position_bias else ""
                lines.append(
                    f"    {str(printable(r.judge))[:32]:<{width}}  {r.first_wins:,} of {r.n_decided:,} decided "
                    f"({share}), n {r.n:,}; p {p}, Holm {ph}{flag}"
                )
            rest = len(pool_rows) - len(shown)
            if rest > 0:
                what = "flagged judges" if n_flag else "judges"
                lines.append(f"    ... and {rest:,} more {what}: every judge in the judges table")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(fn(*args, **kwargs))


def _binom_two_sided(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Exact two-sided binomial p-values of k successes in n trials against 1/2 (symmetric: 2 P(X <= min))."""
    from scipy.stats import binom

    lo = np.minimum(k, n - k)
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * binom.cdf(lo, n, 0.5))
    p = np.where(2 * lo == n, 1.0, p)
    return np.where(n > 0, p, np.nan)


@validate(**_COLUMNS, bias_level=Real(0, 1, low_open=True, high_open=True))
def preference_agreement(
    table: Any,
    *,
    item: str | None = None,
    response_a: str = "response_a",
    response_b: str = "response_b",
    annotator: str | None = None,
    label: str = "label",
    strength: str | None = None,
    bias_level: float = 0.05,
    max_iter: int = 1000,
) -> PreferenceAgreement:
    r"""Agreement of judges on pairwise preferences, each judge's position bias, and the gold answers.

    One row per judgment: prompt (``item``), the responses in the order shown (``response_a`` first),
    the judge and the label A (the first shown is better), B or tie, optionally a ``strength`` (a positive
    number, how much better). See :mod:`iaa_engine.data._preferences` for the canonical pair: a judgment on
    (y, x) is the mirrored judgment on (x, y), so mirroring every judgment together with its pair changes nothing
    here but the position-bias columns (whose shares become one minus themselves).

    **Agreement.** The canonical pairs are the items and the signed judgments the labels
    (:math:`+s` first better, 0 tie, :math:`-s` second better): Krippendorff's alpha at the ordinal level (and
    nominal), Fleiss' kappa, Gwet's AC1, the joint probability of agreement and, with two judges, Cohen's kappa.

    **Position bias.** Pooled over every judge (``pooled``): the share of decided judgments the response shown
    first won, with the same exact test and its Clopper–Pearson interval. For judge j with :math:`n_j` decided
    (non-tie) judgments of which the response shown first won :math:`k_j`: the share :math:`k_j / n_j` and the
    exact two-sided binomial test of :math:`H_0: \pi_j = 1/2` (Clopper and Pearson's exact distribution; the
    p-value doubles the smaller tail), Holm-adjusted across judges; ``position_bias`` flags adjusted p-values below
    ``bias_level``. The test assumes the tool showed the two responses in random order (otherwise a better first
    response is not a bias).

    **Gold.** Per pair, the majority answer (none when two answers share the most votes); per prompt, the
    Bradley–Terry scores of its responses from all its judgments (:func:`bradley_terry`; a tie is half a win),
    whose order gives the gold answer of every pair, also pairs no one judged.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per judgment; blank labels are dropped.
    item, annotator : str, optional
        The prompt's and the judge's columns; by default ``prompt`` (else ``item``) and ``judge`` (else
        ``annotator``), the convention of every judgments function and of ``iaa preferences``; a table with both
        candidates is refused (name the one meant).
    response_a, response_b, label : str
        Column names.
    strength : str, optional
        Column of strengths (ordinal alpha then reads the signed strengths).
    bias_level : float, default 0.05
        Level of the position-bias flag (on Holm-adjusted p-values).
    max_iter : int, default 1000
        Bradley–Terry MM steps at most.

    Returns
    -------
    PreferenceAgreement

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``table`` is not a DataFrame.
    ValueError
        A column is missing; a label is not A, B or tie; a strength is not positive, or a tie has one; a
        judgment compares a response with itself; a judge judged a pair twice in the same order (both orders are
        accepted: one answer per judge and pair for agreement, the shared one or a tie).

    References
    ----------
    Krippendorff, K. (2004). Content analysis: an introduction to its methodology (2nd ed.). Sage.

    Clopper, C. J., & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in the case of
    the binomial. Biometrika 26(4), 404–413.

    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics
    6(2), 65–70.

    Zheng, L., et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena. NeurIPS 2023 Datasets and
    Benchmarks (position bias of LLM judges).

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": ["p1"] * 4 + ["p2"] * 4,
    ...                   "response_a": ["x", "y", "x", "y", "u", "v", "u", "v"],
    ...                   "response_b": ["y", "x", "y", "x", "v", "u", "v", "u"],
    ...                   "annotator": ["ann", "bob", "cy", "dee"] * 2,
    ...                   "label": ["A", "B", "A", "tie", "A", "A", "B", "A"]})
    >>> res = ie.preference_agreement(t)
    >>> round(res.coefficients["krippendorff_alpha[ordinal]"], 4)
    0.3375
    >>> res.judges[["judge", "n_decided", "first_wins"]]
      judge  n_decided  first_wins
    0   ann          2           2
    1   bob          2           1
    2    cy          2           1
    3   dee          1           1
    """
    item = find_column(table, item, PROMPT_COLUMNS, "item")
    annotator = find_column(table, annotator, JUDGE_COLUMNS, "annotator")
    prefs = read_preferences(
        table,
        item=item,
        response_a=response_a,
        response_b=response_b,
        annotator=annotator,
        label=label,
        strength=strength,
    )
    data = prefs.to_annotations()
    notes: list[str] = []
    coefs = {
        "krippendorff_alpha[ordinal]": _quiet(krippendorff_alpha, data, level="ordinal"),
        "krippendorff_alpha[nominal]": _quiet(krippendorff_alpha, data, level="nominal"),
        "fleiss_kappa": _quiet(fleiss_kappa, data),
        "gwet_ac1": _quiet(gwet_ac1, data),
        "joint_probability": _quiet(joint_probability, data),
    }
    n_judges = len(prefs.judges)
    if n_judges == 2:
        coefs["cohen_kappa"] = _quiet(cohen_kappa, data)
    # a pair a judge saw in both orders: one answer for agreement and the majority (the shared one, or a tie)
    both_a, both_b = prefs.both_orders()
    combined = np.sign(prefs.value).astype(np.int64)
    combined[both_a] = np.where(combined[both_a] == combined[both_b], combined[both_a], 0)
    one = np.ones(prefs.value.size, dtype=bool)
    one[both_b] = False
    consistent = np.bincount(
        prefs.judge[both_a], weights=np.sign(prefs.value[both_a]) == np.sign(prefs.value[both_b]), minlength=n_judges
    )
    n_both = np.bincount(prefs.judge[both_a], minlength=n_judges)
    if both_a.size:
        notes.append(
            f"{both_a.size} pair(s) were judged in both orders by the same judge: agreement and the majority count "
            "one answer per judge and pair (the shared answer, or a tie when the order changed it); the position "
            "bias test and Bradley-Terry count both judgments (ie.judge_consistency gives position consistency "
            "and preference)"
        )
    per_pair = np.bincount(prefs.pair[one], minlength=len(prefs.pairs))
    if not (per_pair >= 2).any():
        notes.append("no pair was judged by two or more judges: the agreement coefficients are undefined")

    # position bias
    decided = prefs.first_shown_wins >= 0
    n_dec = np.bincount(prefs.judge[decided], minlength=n_judges)
    k = np.bincount(prefs.judge[decided], weights=prefs.first_shown_wins[decided], minlength=n_judges)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_dec > 0, k / np.maximum(n_dec, 1), np.nan)
    p = _binom_two_sided(k, n_dec)
    p_holm = holm(p)

    # majority per pair
    sign = combined[one]
    pair_one, judge_one = prefs.pair[one], prefs.judge[one]
    cnt = np.bincount(pair_one * 3 + (1 - sign), minlength=3 * len(prefs.pairs)).reshape(-1, 3)  # a, tie, b
    top = cnt.max(axis=1)
    unique_top = (cnt == top[:, None]).sum(axis=1) == 1
    names = np.array(["A", "tie", "B"], dtype=object)
    majority = np.where(unique_top, names[np.argmax(cnt, axis=1)], "")
    pairs = prefs.pairs.assign(n=per_pair, a=cnt[:, 0], tie=cnt[:, 1], b=cnt[:, 2], majority=majority)
    maj_sign = np.where(unique_top, 1 - np.argmax(cnt, axis=1), 99)
    has_maj = maj_sign[pair_one] != 99
    agree_maj = np.bincount(
        judge_one[has_maj], weights=sign[has_maj] == maj_sign[pair_one][has_maj], minlength=n_judges
    ) / np.maximum(np.bincount(judge_one[has_maj], minlength=n_judges), 1)
    agree_maj = np.where(np.bincount(judge_one[has_maj], minlength=n_judges) > 0, agree_maj, np.nan)

    # Bradley-Terry per prompt
    scores, _, _, bt_notes = fit_preferences(prefs, int(max_iter), 1e-9)
    notes += bt_notes
    score_of = np.empty(len(prefs.responses))
    key = pd.MultiIndex.from_frame(prefs.responses[["item", "response"]])
    score_of[:] = scores.set_index(["item", "response"])["score"].reindex(key).to_numpy()
    bt_sign = np.sign(score_of[prefs.first] - score_of[prefs.second])
    each = np.sign(prefs.value)  # every judgment (both orders of a pair count here)
    agree_bt = np.bincount(prefs.judge[decided], weights=(each == bt_sign)[decided], minlength=n_judges)
    agree_bt = np.where(n_dec > 0, agree_bt / np.maximum(n_dec, 1), np.nan)

    judges = pd.DataFrame(
        {
            "judge": prefs.judges,
            "n": np.bincount(prefs.judge, minlength=n_judges),
            "n_decided": n_dec,
            "first_wins": k.astype(np.int64),
            "first_share": share,
            "p_value": p,
            "p_holm": p_holm,
            "position_bias": np.nan_to_num(p_holm, nan=1.0) < bias_level,
            "agree_majority": agree_maj,
            "agree_bradley_terry": agree_bt,
            "n_both_orders": n_both,
            "position_consistency": np.where(n_both > 0, consistent / np.maximum(n_both, 1), np.nan),
        }
    )
    if judges["position_bias"].any():
        biased = judges.loc[judges["position_bias"], "judge"]
        who = ", ".join(repr(printable(j)) for j in biased[:10])
        if len(biased) > 10:
            who += f" and {len(biased) - 10:,} more"
        notes.append(
            f"position bias (the response shown first wins more or less often than half the time, Holm-adjusted "
            f"p below {bias_level:g}): {who}"
        )
    n_all, k_all = int(n_dec.sum()), int(k.sum())
    pooled = {"n_decided": n_all, "first_wins": k_all, "first_share": np.nan, "p_value": np.nan}
    pooled.update(ci_low=np.nan, ci_high=np.nan)
    if n_all > 0:
        from scipy.stats import binomtest

        test = binomtest(k_all, n_all, 0.5)
        ci = test.proportion_ci(confidence_level=0.95, method="exact")
        pooled.update(
            first_share=k_all / n_all,
            p_value=float(_binom_two_sided(np.array([k_all]), np.array([n_all]))[0]),
            ci_low=float(ci.low),
            ci_high=float(ci.high),
        )
    return PreferenceAgreement(
        coefs,
        judges,
        pairs,
        scores,
        float(bias_level),
        int(prefs.value.size),
        len(prefs.pairs),
        n_judges,
        notes,
        pooled,
    )


@validate(models=ANY, **_COLUMNS)
def preference_model_agreement(
    humans: Any,
    models: Any,
    *,
    item: str | None = None,
    response_a: str = "response_a",
    response_b: str = "response_b",
    annotator: str | None = None,
    label: str = "label",
    strength: str | None = None,
    confidence: float = 0.95,
) -> ModelAgreement:
    r"""An LLM judge (or several) beside the human judges on pairwise preferences.

    Both tables are read as in :func:`preference_agreement` and put on canonical pairs (a model that saw the two
    responses the other way round is compared on the mirrored judgment), then compared as
    :func:`model_agreement` compares models with humans: each model against each human judge, against the pooled
    humans (a human drawn at random on each pair; compare with ``human_agreement``, two humans agreeing) and
    against the humans' majority answer. Labels are the signed judgments (A better, tie, B better).

    Parameters
    ----------
    humans, models : pandas.DataFrame
        Judgments of the humans and of the models (their judge column names the model).
    item, response_a, response_b, annotator, label, strength : str
        Column names, the same in both tables; ``item`` and ``annotator`` default to ``prompt`` (else ``item``)
        and ``judge`` (else ``annotator``), as in :func:`preference_agreement`.
    confidence : float, default 0.95
        Coverage of the intervals.

    Returns
    -------
    ModelAgreement
        As :func:`model_agreement`; items are the canonical pairs.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        A table is not a DataFrame.
    ValueError
        A table cannot be read (see :func:`preference_agreement`); a judge of ``models`` is also among the humans.

    References
    ----------
    Zheng, L., et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena. NeurIPS 2023 Datasets and
    Benchmarks.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> humans = pd.DataFrame({"item": "p1", "response_a": ["x", "y"], "response_b": ["y", "x"],
    ...                        "annotator": ["ann", "bob"], "label": ["A", "B"]})
    >>> llm = pd.DataFrame({"item": "p1", "response_a": ["y"], "response_b": ["x"], "annotator": ["gpt"],
    ...                     "label": ["B"]})
    >>> ie.preference_model_agreement(humans, llm).table[["model", "reference", "agreement"]]
      model        reference  agreement
    0   gpt              ann        1.0
    1   gpt              bob        1.0
    2   gpt  (pooled humans)        1.0
    3   gpt           (gold)        1.0
    """
    hp, mp = (
        read_preferences(
            t,
            item=find_column(t, item, PROMPT_COLUMNS, "item"),
            response_a=response_a,
            response_b=response_b,
            annotator=find_column(t, annotator, JUDGE_COLUMNS, "annotator"),
            label=label,
            strength=strength,
        )
        for t in (humans, models)
    )
    both = pd.Index(hp.judges).intersection(pd.Index(mp.judges))
    if len(both):
        raise ValueError(
            f"{', '.join(repr(printable(j)) for j in both[:5])} judges among the humans and among the models; a "
            "model is compared with the humans, so it cannot be one of them: leave its judgments out of the "
            "humans' table, or name the model otherwise"
        )
    return model_agreement(hp.to_annotations(), mp.to_annotations(), confidence=confidence, progress=False)
