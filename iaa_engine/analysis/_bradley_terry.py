r"""Bradley–Terry scores of the responses of each prompt from pairwise judgments (a gold ranking)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import PARAMS, NoneOr, Text, validate
from iaa_engine.base._results import Result, nan_to_none
from iaa_engine.data._preferences import JUDGE_COLUMNS, PROMPT_COLUMNS, Preferences, find_column, read_preferences
from iaa_engine.stats._bradley_terry import bt_mm

__all__ = ["BradleyTerry", "bradley_terry", "fit_preferences"]


@dataclass(frozen=True, eq=False, repr=False)
class BradleyTerry(Result):
    r"""Bradley–Terry strengths of the responses of each prompt: the result of :func:`bradley_terry`.

    Attributes
    ----------
    scores : pandas.DataFrame
        One row per prompt and response: ``item``, ``response``, ``score`` (the strength :math:`p`, summing to 1
        within a prompt; the probability that response i beats j is :math:`p_i / (p_i + p_j)`), ``wins`` (ties
        counted as half), ``comparisons`` and ``rank`` (1 = strongest; equal scores share the best rank), sorted by
        prompt and rank.
    iterations : int
        MM steps taken.
    converged : bool
        Whether the largest change of a prompt's scores fell below ``tol``.
    notes : list of str
        What to know when reading the scores.

    References
    ----------
    Bradley, R. A., & Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The method of paired
    comparisons. Biometrika 39(3/4), 324–345.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": "p1", "response_a": ["x", "y", "z"], "response_b": ["y", "z", "x"],
    ...                   "label": ["A", "A", "A"]})
    >>> ie.bradley_terry(t).scores["score"].round(4).tolist()
    [0.3333, 0.3333, 0.3333]
    """

    scores: pd.DataFrame
    iterations: int
    converged: bool
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the scores table, the iterations, convergence and the notes."""
        rows = [{k: nan_to_none(v) for k, v in r.items()} for r in self.scores.to_dict(orient="records")]
        return {"scores": rows, "iterations": self.iterations, "converged": self.converged, "notes": list(self.notes)}

    def to_frame(self) -> pd.DataFrame:
        """The scores table (a copy)."""
        return self.scores.copy()


def fit_preferences(prefs: Preferences, max_iter: int, tol: float) -> tuple[pd.DataFrame, int, bool, list[str]]:
    """Bradley–Terry on read judgments: ``(scores table, iterations, converged, notes)``; ties are half wins."""
    win_first = np.where(prefs.value > 0, 1.0, np.where(prefs.value < 0, 0.0, 0.5))
    group = prefs.responses["item"].to_numpy()
    group_code = pd.Index(prefs.prompts).get_indexer(group).astype(np.int64)
    p, it, done = bt_mm(
        prefs.first,
        prefs.second,
        win_first,
        np.ones(win_first.size),
        group_code,
        len(prefs.prompts),
        max_iter=max_iter,
        tol=tol,
    )
    converged = bool(done.all())
    n = len(prefs.responses)
    wins = np.bincount(prefs.first, weights=win_first, minlength=n) + np.bincount(
        prefs.second, weights=1.0 - win_first, minlength=n
    )
    comps = np.bincount(prefs.first, minlength=n) + np.bincount(prefs.second, minlength=n)
    scores = prefs.responses.assign(score=p, wins=wins, comparisons=comps, _g=group_code)
    scores["rank"] = scores.groupby("_g")["score"].rank(method="min", ascending=False).astype(np.int64)
    scores = scores.sort_values(["_g", "rank", "response"], kind="stable").drop(columns="_g").reset_index(drop=True)
    notes: list[str] = []
    if not converged:
        notes.append(f"the scores did not converge in {max_iter} MM steps (tol {tol:g})")
    zero = (wins == 0) | (wins == comps)
    if zero.any():
        notes.append(
            f"{int(zero.sum())} response(s) won all or none of their comparisons: their maximum-likelihood score is "
            "at the boundary (0, or the whole prompt's weight), which the MM steps only approach"
        )
    return scores, it, converged, notes


@validate(item=NoneOr(PARAMS["item"]), annotator=NoneOr(PARAMS["annotator"]), response_a=Text(), response_b=Text())
def bradley_terry(
    table: Any,
    *,
    item: str | None = None,
    response_a: str = "response_a",
    response_b: str = "response_b",
    annotator: str | None = None,
    label: str = "label",
    max_iter: int = 1000,
    tol: float = 1e-9,
) -> BradleyTerry:
    r"""Bradley–Terry strengths of the responses of each prompt, fitted to all its pairwise judgments.

    The model (Bradley and Terry 1952): response i beats j with probability :math:`p_i / (p_i + p_j)`. The
    maximum-likelihood strengths come from Hunter's (2004) MM algorithm, each step

    .. math::

        p_i \leftarrow \frac{W_i}{\sum_j n_{ij} / (p_i + p_j)}, \qquad \textstyle\sum_{i \in \text{prompt}} p_i = 1

    from equal strengths (:math:`W_i` the wins of i, :math:`n_{ij}` the judgments of the pair), every prompt
    fitted on its own and all prompts at once. **A tie counts as half a win for each response** (the likelihood of
    a tie is that of half a win and half a loss: the convention of chess ratings and of the Chatbot Arena
    leaderboard; Davidson's (1970) tie parameter is not fitted). The step is the one of crowd-kit's
    ``BradleyTerry``, with its scores normalised the same way; with ``tol=-inf`` exactly ``max_iter`` steps are
    taken, which reproduces crowd-kit's ``BradleyTerry(n_iter=max_iter, tol=0)``.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per judgment: the prompt (``item``), the two responses
        (``response_a`` shown first) and the label A, B or tie (see :func:`preference_agreement`). Judges are not
        needed.
    item, annotator : str, optional
        The prompt's and the judge's columns, as in :func:`preference_agreement`: by default ``prompt`` (else
        ``item``) and ``judge`` (else ``annotator``). Judges are not needed (a table without a judge column is
        fine); when there is one, a judge who judged one pair twice is refused, as there.
    response_a, response_b, label : str
        Column names.
    max_iter : int, default 1000
        MM steps at most.
    tol : float, default 1e-9
        Stop when the largest L1 change of a prompt's scores in a step is below it (``-inf``: never).

    Returns
    -------
    BradleyTerry
        ``scores`` (item, response, score, wins, comparisons, rank), ``iterations``, ``converged``, ``notes``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``table`` is not a DataFrame.
    ValueError
        A column is missing, a label is not A, B or tie, a judgment compares a response with itself.

    Notes
    -----
    The maximum-likelihood strengths exist (are positive and finite) only when every split of a prompt's
    responses into two groups has a win from each side to the other (Zermelo 1929; Hunter 2004, assumption 1); a
    response that wins all its comparisons otherwise drifts to the whole weight, one that never wins to 0. A note
    says so.

    References
    ----------
    Bradley, R. A., & Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The method of paired
    comparisons. Biometrika 39(3/4), 324–345.

    Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. Annals of Statistics 32(1), 384–406.

    Davidson, R. R. (1970). On extending the Bradley-Terry model to accommodate ties in paired comparison
    experiments. Journal of the American Statistical Association 65(329), 317–328.

    Chiang, W.-L., et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by human preference.
    Proceedings of ICML 2024.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": "p1", "response_a": ["x", "x", "y", "y"], "response_b": ["y", "y", "x", "z"],
    ...                   "label": ["A", "tie", "B", "A"]})
    >>> ie.bradley_terry(t).scores[["response", "wins", "comparisons", "rank"]]
      response  wins  comparisons  rank
    0        x   2.5            3     1
    1        y   1.5            4     2
    2        z   0.0            1     3
    """
    prefs = read_preferences(
        table,
        item=find_column(table, item, PROMPT_COLUMNS, "item"),
        response_a=response_a,
        response_b=response_b,
        annotator=find_column(table, annotator, JUDGE_COLUMNS, "annotator", required=False),
        label=label,
    )
    scores, it, converged, notes = fit_preferences(prefs, int(max_iter), float(tol))
    return BradleyTerry(scores, it, converged, notes)
