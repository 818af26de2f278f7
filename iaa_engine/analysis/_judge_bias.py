r"""How a pairwise judge is biased: position consistency and positional preference (the same pair shown in both
orders) and repetition stability (the same pair, the same order, judged again)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import NoneOr, Text, validate
from iaa_engine.base._results import Result, nan_to_none, printable

__all__ = ["JudgeConsistency", "judge_consistency"]

_LABELS = {"a": "A", "b": "B", "tie": "C"}  # C: the tie of the three-option mode (Shi et al.'s letters)


def _rows(frame: pd.DataFrame) -> list:
    return [{k: nan_to_none(v) for k, v in r.items()} for r in frame.to_dict(orient="records")]


@dataclass(frozen=True, eq=False, repr=False)
class JudgeConsistency(Result):
    r"""Position consistency, positional preference and repetition stability of pairwise judges: the result of
    :func:`judge_consistency`.

    Attributes
    ----------
    position : pandas.DataFrame
        One row per judge (and group of ``by``): ``judge``, the ``by`` columns, ``n_pairs`` (pairs judged in both
        orders), ``consistent``, ``primacy`` (the response shown first preferred in one order and not the other's
        winner in the other: AA, A-tie, tie-A), ``recency`` (BB, B-tie, tie-B), ``position_consistency``
        (``consistent / n_pairs``), ``primacy_share`` and ``recency_share`` (of the inconsistent pairs) and
        ``preference`` (the positional preference score in [-1, 1]: −1 always the first shown, +1 always the
        second shown, 0 balanced or fully consistent).
    repetition : pandas.DataFrame
        With repeated judgments (the same judge, pair and order more than once): one row per judge,
        ``n_instances`` (judgments repeated), ``repetitions`` (the mean number of times) and ``stability`` (the
        mean share of an instance's repetitions that give its most frequent answer). Empty otherwise.
    notes : list of str
        What was left out and why.

    References
    ----------
    Shi, L., Ma, C., Liang, W., Diao, X., Ma, W., & Vosoughi, S. (2024). Judging the judges: a systematic
    investigation of position bias in pairwise comparative assessments by LLMs. arXiv:2406.07791.
    Reference code: https://github.com/Slimshilin/Position-Bias-Analyzer.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": ["q1", "q1", "q2", "q2"], "response_a": ["x", "y", "x", "y"],
    ...                   "response_b": ["y", "x", "y", "x"], "annotator": "llm", "label": ["A", "B", "A", "A"]})
    >>> ie.judge_consistency(t).position[["judge", "n_pairs", "consistent", "primacy", "preference"]]
      judge  n_pairs  consistent  primacy  preference
    0   llm        2           1        1        -0.5
    """

    position: pd.DataFrame
    repetition: pd.DataFrame
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The position table (a copy)."""
        return self.position.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the position and repetition tables and the notes."""
        return {"position": _rows(self.position), "repetition": _rows(self.repetition), "notes": list(self.notes)}

    def __str__(self) -> str:
        lines = ["Position consistency (the same pair shown in both orders)"]
        for r in self.position.to_dict(orient="records"):
            if not r["n_pairs"]:
                lines.append(f"  {printable(r['judge']):>16}: undefined (no pair judged in both orders)")
                continue
            lines.append(
                f"  {printable(r['judge']):>16}: consistency {r['position_consistency']:.3f} of {r['n_pairs']} "
                f"pairs, preference {r['preference']:+.3f} (-1 first shown, +1 second shown)"
            )
        if len(self.repetition):
            lines.append("Repetition stability (the same pair in the same order judged again)")
            for r in self.repetition.to_dict(orient="records"):
                lines.append(
                    f"  {printable(r['judge']):>16}: {r['stability']:.3f} over {r['n_instances']} judgments "
                    f"({r['repetitions']:.1f} times each)"
                )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def _column(table: pd.DataFrame, name: str, what: str) -> pd.Series:
    if name not in table.columns:
        raise ValueError(
            f"column {name!r} ({what}) not found; the table has columns {list(map(str, table.columns))!r}. "
            "Name the columns with the function's options"
        )
    return table[name]


@validate(
    item=Text(),
    response_a=Text(),
    response_b=Text(),
    annotator=Text(),
    label=Text(),
    repetition=NoneOr(Text()),
    by=NoneOr(Text()),
)
def judge_consistency(
    table: Any,
    *,
    item: str = "item",
    response_a: str = "response_a",
    response_b: str = "response_b",
    annotator: str = "annotator",
    label: str = "label",
    repetition: str | None = None,
    by: str | None = None,
) -> JudgeConsistency:
    r"""Position consistency and positional preference of pairwise judges that saw a pair in both orders, and their
    stability when a judgment is repeated.

    One row per judgment as :func:`preference_agreement` reads them (prompt, the response shown first and second,
    the judge, the label A, B or tie). A judge that judged the pair (x, y) in both orders gives a *choice pair*:
    its label with x first, then its label with y first (C for a tie). After Shi et al. (2024):

    - consistent: AB, BA, CC (the same response wins, or a tie, whichever is shown first);
    - primacy-preferred: AA, AC, CA; recency-preferred: BB, BC, CB.

    Per judge (and group), with :math:`n` pairs, :math:`P` primacy and :math:`R` recency pairs:
    position consistency :math:`(n - P - R)/n`, and the positional preference score

    .. math::

        \frac{1}{n}\Big(R\,\frac{R}{P + R} - P\,\frac{P}{P + R}\Big) \in [-1, 1]

    (their raw score :math:`R \cdot r\% - P \cdot p\%` rescaled by its extremes :math:`\pm n`, the number of pairs
    of the unit; 0 when no pair is inconsistent).

    With ``repetition`` (a column numbering the runs), judgments of one judge on one pair in one order are an
    *instance*; its stability is the share of its runs that give its most frequent answer, and a judge's
    repetition stability the mean over its instances (Shi et al.'s repetitional consistency). The position
    analysis then uses each instance's most frequent answer (the first in label order A, B, tie on a tie).
    Without ``repetition``, a judge that judged the same pair in the same order twice is an error.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per judgment; blank labels are dropped.
    item, response_a, response_b, annotator, label : str
        Column names.
    repetition : str, optional
        Column of the run number (repeated judgments).
    by : str, optional
        Column of groups (a task, the model under test): position scores per judge and group.

    Returns
    -------
    JudgeConsistency

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``table`` is not a DataFrame.
    ValueError
        A column is missing; a label is not A, B or tie; a judgment compares a response with itself; a judgment is
        repeated without a ``repetition`` column, or twice in one run.

    References
    ----------
    Shi, L., Ma, C., Liang, W., Diao, X., Ma, W., & Vosoughi, S. (2024). Judging the judges: a systematic
    investigation of position bias in pairwise comparative assessments by LLMs. arXiv:2406.07791.

    Zheng, L., et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena. NeurIPS 2023 Datasets and
    Benchmarks (position consistency).

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": "q1", "response_a": ["x", "y", "x", "y"], "response_b": ["y", "x", "y", "x"],
    ...                   "annotator": "llm", "label": ["A", "A", "A", "B"], "run": [1, 1, 2, 2]})
    >>> res = ie.judge_consistency(t, repetition="run")
    >>> res.repetition[["judge", "n_instances", "stability"]]
      judge  n_instances  stability
    0   llm            2       0.75
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame (a long table of judgments); got {type(table).__name__}")
    lab = _column(table, label, "the label: A, B or tie")
    cols = {
        "item": _column(table, item, "the prompt"),
        "ra": _column(table, response_a, "the response shown first"),
        "rb": _column(table, response_b, "the response shown second"),
        "judge": _column(table, annotator, "the judge"),
    }
    if repetition is not None:
        cols["run"] = _column(table, repetition, "the run")
    if by is not None:
        cols["group"] = _column(table, by, "the groups")
    text = lab.astype(str).str.strip().str.lower()
    keep = ~(lab.isna() | text.eq("")).to_numpy()
    notes: list[str] = []
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} judgment(s) without a label are left out")
    frame = pd.DataFrame({k: v[keep].astype(str).str.strip() if k != "run" else v[keep] for k, v in cols.items()})
    choice = text[keep].map(_LABELS)
    bad = choice.isna().to_numpy()
    if bad.any():
        found = ", ".join(repr(printable(v)) for v in pd.unique(lab[keep][bad])[:5])
        raise ValueError(f"a preference label is A (the response shown first is better), B or tie; got {found}")
    frame["choice"] = choice.to_numpy()
    if (frame["ra"] == frame["rb"]).any():
        r = int(np.flatnonzero((frame["ra"] == frame["rb"]).to_numpy())[0])
        raise ValueError(f"a judgment compares response {printable(frame['ra'].iloc[r])!r} with itself")
    instance = ["judge", "item", "ra", "rb"] + (["group"] if by is not None else [])
    repeated = pd.DataFrame()
    if repetition is None:
        dup = frame.duplicated(instance).to_numpy()
        if dup.any():
            r = frame[dup].iloc[0]
            raise ValueError(
                f"judge {printable(r['judge'])!r} judged ({printable(r['ra'])!r}, {printable(r['rb'])!r}) of prompt "
                f"{printable(r['item'])!r} twice in the same order; name the run column (repetition=...) to measure "
                "repetition stability"
            )
    else:
        if frame.duplicated(instance + ["run"]).any():
            raise ValueError("a judge judged one pair in one order twice in the same run")
        # repetition stability: per instance, the share of its runs giving its most frequent answer
        counts = frame.groupby(instance + ["choice"], sort=False, observed=True).size().rename("k").reset_index()
        top = counts.sort_values(["k", "choice"], ascending=[False, True], kind="stable").drop_duplicates(instance)
        runs = frame.groupby(instance, sort=False, observed=True).size().rename("runs").reset_index()
        inst = top.merge(runs, on=instance)
        inst["stability"] = inst["k"] / inst["runs"]
        multi = inst[inst["runs"] > 1]
        repeated = (
            multi.groupby("judge", sort=True)
            .agg(n_instances=("stability", "size"), repetitions=("runs", "mean"), stability=("stability", "mean"))
            .reset_index()
        )
        frame = inst[instance + ["choice"]]
    # position: the instance (x, y) beside its swapped instance (y, x)
    key = ["judge", "item"] + (["group"] if by is not None else [])
    left = frame.rename(columns={"choice": "first"})
    right = frame.rename(columns={"ra": "rb", "rb": "ra", "choice": "second"})
    both = left.merge(right, on=key + ["ra", "rb"])
    both = both[both["ra"] < both["rb"]]  # each unordered pair once
    pair = both["first"] + both["second"]
    both = both.assign(
        consistent=pair.isin(["AB", "BA", "CC"]),
        primacy=pair.isin(["AA", "AC", "CA"]),
        recency=pair.isin(["BB", "BC", "CB"]),
    )
    unit = ["judge"] + (["group"] if by is not None else [])
    judges = frame[unit].drop_duplicates().sort_values(unit, kind="stable")
    agg = both.groupby(unit, sort=True).agg(
        n_pairs=("consistent", "size"),
        consistent=("consistent", "sum"),
        primacy=("primacy", "sum"),
        recency=("recency", "sum"),
    )
    pos = judges.merge(agg.reset_index(), on=unit, how="left").fillna(
        {"n_pairs": 0, "consistent": 0, "primacy": 0, "recency": 0}
    )
    for c in ("n_pairs", "consistent", "primacy", "recency"):
        pos[c] = pos[c].astype(np.int64)
    n, p, r = (pos[c].to_numpy(float) for c in ("n_pairs", "primacy", "recency"))
    with np.errstate(divide="ignore", invalid="ignore"):
        pos["position_consistency"] = np.where(n > 0, pos["consistent"] / n, np.nan)
        pos["primacy_share"] = np.where(p + r > 0, p / (p + r), np.where(n > 0, 0.0, np.nan))
        pos["recency_share"] = np.where(p + r > 0, r / (p + r), np.where(n > 0, 0.0, np.nan))
        raw = np.where(p + r > 0, (r * r - p * p) / (p + r), 0.0)
        pos["preference"] = np.where(n > 0, raw / n, np.nan)
    if by is not None:
        pos = pos.rename(columns={"group": by})
    if (pos["n_pairs"] == 0).any():
        notes.append("judges with no pair judged in both orders have undefined position scores")
    return JudgeConsistency(pos.reset_index(drop=True), repeated, notes)
