r"""How a pairwise judge is biased: position consistency and positional preference (the same pair shown in both
orders) and repetition stability (the same pair, the same order, judged again)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import NoneOr, Text, validate
from iaa_engine.base._results import Result, nan_to_none, printable

__all__ = ["JudgeConsistency", "judge_consistency", "LengthControlledWinrate", "length_controlled_winrate"]

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


@validate(response_a=Text(), response_b=Text(), repetition=NoneOr(Text()))
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


@dataclass(frozen=True, eq=False, repr=False)
class LengthControlledWinrate(Result):
    r"""Each model's win rate against a baseline, raw and controlled for response length: the result of
    :func:`length_controlled_winrate`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per model: ``model``, ``n`` (judgments against the baseline), ``wins``, ``ties``, ``losses``,
        ``win_rate`` (raw, a tie counting half), ``lc_win_rate`` (the length-controlled rate
        :math:`\sigma(\hat\theta)`), ``lc_se`` (its standard error, delta method), ``theta`` and
        ``length_coef`` (the fitted :math:`\hat\theta`, :math:`\hat\beta`), ``length_sd`` (the standard
        deviation of the length differences the tanh reads) and
        ``reason`` (why ``lc_win_rate`` is undefined, else empty).
    baseline : str
        The baseline response (model) every other is compared with.
    notes : list of str
        What was left out and why.

    References
    ----------
    Dubois, Y., Galambosi, B., Liang, P., & Hashimoto, T. B. (2024). Length-controlled AlpacaEval: a simple way to
    debias automatic evaluators. arXiv:2404.04475.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": range(6), "response_a": "m", "response_b": "base",
    ...                   "label": ["A", "A", "B", "A", "tie", "B"], "length_a": [900, 1200, 700, 1500, 1000, 800],
    ...                   "length_b": [1000] * 6})
    >>> res = ie.length_controlled_winrate(t, baseline="base")
    >>> res.table[["model", "n", "wins", "ties", "win_rate"]].round(3)
      model  n  wins  ties  win_rate
    0     m  6     3     1     0.583
    """

    table: pd.DataFrame
    baseline: str
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the table, the baseline and the notes."""
        return {"table": _rows(self.table), "baseline": self.baseline, "notes": list(self.notes)}

    def __str__(self) -> str:
        lines = [f"Win rate against {printable(self.baseline)!r}, raw and length-controlled"]
        for r in self.table.to_dict(orient="records"):
            lc = "undefined" if not np.isfinite(r["lc_win_rate"]) else f"{r['lc_win_rate']:.3f}"
            lines.append(
                f"  {printable(r['model']):>16}: raw {r['win_rate']:.3f}, length-controlled {lc} ({r['n']} judgments)"
                + (f" ({r['reason']})" if r["reason"] else "")
            )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def _soft_logistic(x: np.ndarray, y: np.ndarray, max_iter: int = 100) -> tuple[np.ndarray, np.ndarray, bool]:
    """Maximum-likelihood logistic regression with soft labels y in [0, 1] (Newton's method on the concave
    log-likelihood): coefficients, their covariance (inverse Fisher information) and whether it converged."""
    w = np.zeros(x.shape[1])
    for _ in range(max_iter):
        eta = x @ w
        p = np.exp(-np.logaddexp(0.0, -eta))
        grad = x.T @ (y - p)
        hess = (x * (p * (1 - p))[:, None]).T @ x
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            return w, np.full((x.shape[1],) * 2, np.nan), False
        w = w + step
        if np.max(np.abs(step)) < 1e-12 * max(1.0, float(np.max(np.abs(w)))):
            eta = x @ w
            p = np.exp(-np.logaddexp(0.0, -eta))
            hess = (x * (p * (1 - p))[:, None]).T @ x
            return w, np.linalg.inv(hess), bool(np.all(np.abs(w) < 30))
    return w, np.full((x.shape[1],) * 2, np.nan), False


@validate(baseline=Text(), response_a=Text(), response_b=Text(), length_a=Text(), length_b=Text())
def length_controlled_winrate(
    table: Any,
    *,
    baseline: str,
    item: str = "item",
    response_a: str = "response_a",
    response_b: str = "response_b",
    label: str = "label",
    length_a: str = "length_a",
    length_b: str = "length_b",
) -> LengthControlledWinrate:
    r"""Each model's win rate against a baseline beside the rate a judge would give if the two responses were of equal
    length (Dubois et al. 2024's length-controlled win rate).

    One row per judgment as :func:`preference_agreement` reads them; ``response_a`` / ``response_b`` name the
    models whose responses were compared (shown first / second), ``length_a`` / ``length_b`` the responses'
    lengths (characters, tokens: any numbers). For a model m judged against ``baseline`` on n judgments, with
    :math:`y_j` = 1 when m's response won, 0 when the baseline's did and 1/2 for a tie, and
    :math:`\Delta_j` = m's length minus the baseline's, the GLM

    .. math::

        P(y_j = 1) = \sigma\big(\theta_m + \beta_m \tanh(\Delta_j / s_m)\big)

    (:math:`s_m` the standard deviation of the :math:`\Delta_j`) is fitted by maximum likelihood (soft labels,
    Newton's method); the length-controlled win rate is its prediction at equal length, :math:`\sigma(\hat\theta_m)`,
    with the delta-method standard error :math:`\sigma'(\hat\theta)\sqrt{\widehat{\mathrm{Var}}\,\hat\theta}`. The
    raw win rate is :math:`\bar y`.

    This is AlpacaEval's ``length_controlled_minimal`` GLM (``np.tanh(std_delta_len) + not_gamed_baseline - 1``)
    without its penalty: the ``length_controlled_v1`` model adds an instruction-difficulty term AlpacaEval estimates
    from its whole leaderboard and shrinks toward gamed baselines, neither of which a single study has. Undefined,
    with the reason, when the model won (or lost) every judgment: the likelihood then has no finite maximum.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per judgment; blank labels are dropped. Judgments between two models neither of which is the
        baseline are left out (with a note).
    baseline : str
        The model every other is compared with.
    item, response_a, response_b, label, length_a, length_b : str
        Column names.

    Returns
    -------
    LengthControlledWinrate

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``table`` is not a DataFrame.
    ValueError
        A column is missing; a label is not A, B or tie; a length is not a number; the baseline is never compared.

    References
    ----------
    Dubois, Y., Galambosi, B., Liang, P., & Hashimoto, T. B. (2024). Length-controlled AlpacaEval: a simple way to
    debias automatic evaluators. arXiv:2404.04475. Reference code: https://github.com/tatsu-lab/alpaca_eval
    (``src/alpaca_eval/metrics/glm_winrate.py``).

    Examples
    --------
    A judge that prefers the longer response: the verbose model's raw win rate overstates it.

    >>> import numpy as np, pandas as pd, iaa_engine as ie
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> len_m, len_b = rng.normal(1300, 300, n), rng.normal(1000, 300, n)
    >>> p = 1 / (1 + np.exp(-(0.0 + 1.5 * np.tanh((len_m - len_b) / 420))))
    >>> won = rng.random(n) < p
    >>> t = pd.DataFrame({"item": range(n), "response_a": "verbose", "response_b": "base",
    ...                   "label": np.where(won, "A", "B"), "length_a": len_m, "length_b": len_b})
    >>> row = ie.length_controlled_winrate(t, baseline="base").table.iloc[0]
    >>> round(float(row["win_rate"]), 3), round(float(row["lc_win_rate"]), 3), round(float(row["lc_se"]), 3)
    (0.628, 0.491, 0.011)

    The judge's preference at equal length is the truth's 1/2 (within its standard error); the raw rate is not.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame (a long table of judgments); got {type(table).__name__}")
    lab = _column(table, label, "the label: A, B or tie")
    ra = _column(table, response_a, "the model shown first").astype(str).str.strip()
    rb = _column(table, response_b, "the model shown second").astype(str).str.strip()
    _column(table, item, "the prompt")
    la_given = _column(table, length_a, "the length of the first response")
    lb_given = _column(table, length_b, "the length of the second response")
    la = pd.to_numeric(la_given, errors="coerce")
    lb = pd.to_numeric(lb_given, errors="coerce")
    text = lab.astype(str).str.strip().str.lower()
    keep = ~(lab.isna() | text.eq("")).to_numpy()
    choice = text.map({"a": 1.0, "b": 0.0, "tie": 0.5}).to_numpy(dtype=float)
    bad = keep & np.isnan(choice)
    if bad.any():
        found = ", ".join(repr(printable(v)) for v in pd.unique(lab[bad])[:5])
        raise ValueError(f"a preference label is A (the response shown first is better), B or tie; got {found}")
    nolen = keep & ~(np.isfinite(la.to_numpy(float)) & np.isfinite(lb.to_numpy(float)))
    if nolen.any():
        r = int(np.flatnonzero(nolen)[0])
        given = [
            "blank" if v is None or (isinstance(v, float) and v != v) else repr(printable(v))
            for v in (la_given.iloc[r], lb_given.iloc[r])
        ]
        raise ValueError(f"row {r + 1}: the lengths must be numbers; got {given[0]} and {given[1]}")
    base = str(baseline).strip()
    a_base, b_base = (ra == base).to_numpy(), (rb == base).to_numpy()
    vs = keep & (a_base ^ b_base)
    notes: list[str] = []
    other = keep & ~(a_base | b_base)
    if other.any():
        notes.append(f"{int(other.sum())} judgment(s) between two models other than the baseline are left out")
    if not vs.any():
        raise ValueError(f"no judgment compares a model with the baseline {base!r}")
    model = np.where(a_base, rb, ra)[vs]
    y = np.where(a_base, 1.0 - choice, choice)[vs]  # 1: the model's response won
    delta = np.where(a_base, lb - la, la - lb)[vs]
    rows = []
    for name in sorted(set(model)):  # a loop over models: one small GLM each
        sel = model == name
        yy, dd = y[sel], delta[sel]
        n = int(sel.sum())
        sd = float(np.std(dd, ddof=1)) if n > 1 else np.nan
        x_len = np.tanh(dd / sd) if sd > 0 else np.zeros(n)
        design = np.column_stack([np.ones(n), x_len]) if sd > 0 else np.ones((n, 1))
        reason = ""
        if yy.max() == yy.min() and yy[0] in (0.0, 1.0):
            reason = f"the model {'won' if yy[0] == 1.0 else 'lost'} every judgment: no finite maximum"
        w, cov, ok = _soft_logistic(design, yy) if not reason else (np.full(2, np.nan), np.full((2, 2), np.nan), False)
        if not reason and not ok:
            reason = "the fit did not converge (a separated design)"
        theta = float(w[0]) if not reason else np.nan
        lc = float(np.exp(-np.logaddexp(0.0, -theta))) if not reason else np.nan
        se = lc * (1 - lc) * float(np.sqrt(cov[0, 0])) if not reason else np.nan
        rows.append(
            {
                "model": name,
                "n": n,
                "wins": int((yy == 1.0).sum()),
                "ties": int((yy == 0.5).sum()),
                "losses": int((yy == 0.0).sum()),
                "win_rate": float(yy.mean()),
                "lc_win_rate": lc,
                "lc_se": se,
                "theta": theta,
                "length_coef": float(w[1]) if (not reason and design.shape[1] == 2) else np.nan,
                "length_sd": sd,
                "reason": reason,
            }
        )
    return LengthControlledWinrate(pd.DataFrame(rows), base, notes)
