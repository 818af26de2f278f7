r"""Pairwise preference judgments read from a long table and put on a canonical pair.

One row per judgment: the prompt, the two responses in the order the judge saw them (``response_a`` shown first,
or on the left), the judge and the label ``A`` (the first is better), ``B`` (the second is better) or ``tie``
(case and surrounding spaces do not matter), with an optional ``strength`` (how much better, a positive number).

**The canonical pair.** A judgment on (B, A) is the mirrored judgment on (A, B): the pair is written with its two
responses in sorted order, and a judgment made with the responses shown the other way round has its label
mirrored (A and B swap; a strength keeps its size). The judgment becomes a signed value on the canonical pair,
:math:`+s` when the first (in sorted order) response wins, :math:`-s` when the second wins, 0 for a tie
(:math:`s = 1` without a strength column): an ordinal scale, B better < tie < A better.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._results import printable
from iaa_engine.data._model import Annotations

__all__ = ["PREFERENCE_LABELS", "PROMPT_COLUMNS", "JUDGE_COLUMNS", "Preferences", "find_column", "read_preferences"]

#: The labels of a pairwise judgment (case-insensitive).
PREFERENCE_LABELS = ("A", "B", "tie")
#: The column of the prompt when ``item=`` is not given: the first of these the table has (both: refused).
PROMPT_COLUMNS = ("prompt", "item")
#: The column of the judge when ``annotator=`` is not given: the first of these the table has (both: refused).
JUDGE_COLUMNS = ("judge", "annotator")
_FLAGS = {"item": "--item-col", "annotator": "--annotator-col"}


def find_column(table: Any, given: Any, candidates: tuple[str, ...], option: str, *, required: bool = True) -> Any:
    """The column ``given``, or (``given`` None) the one of ``candidates`` the table has.

    The one convention of the judgments functions and their commands (``iaa preferences``, ``iaa rankings``): the
    prompt is the column ``prompt``, else ``item``; the judge ``judge``, else ``annotator``; ``item=`` and
    ``annotator=`` (``--item-col``, ``--annotator-col``) name any other. A table with both candidates is refused
    (which one is meant?); without either, ``None`` when not ``required``.
    """
    if given is not None or not isinstance(table, pd.DataFrame):
        return given
    names = list(map(str, table.columns))
    have = [c for c in candidates if c in names]
    flag = _FLAGS.get(option, "")
    if len(have) > 1:
        raise ValueError(
            f"the table has the columns {have[0]!r} and {have[1]!r}, either of which could be the "
            f"{'prompt' if option == 'item' else 'judge'}; name the one meant with {option}= (CLI: {flag})"
        )
    if have:
        return have[0]
    if not required:
        return None
    raise ValueError(
        f"the table has no column {' or '.join(map(repr, candidates))} (the "
        f"{'prompt' if option == 'item' else 'judge'}); it has columns {names!r}. Name it with {option}= "
        f"(CLI: {flag})"
    )


@dataclass(frozen=True, eq=False)
class Preferences:
    """Judgments on canonical pairs (all arrays have one entry per judgment).

    ``pair`` codes into ``pairs`` (columns ``item``, ``response_a``, ``response_b``, sorted responses);
    ``prompt`` codes into ``prompts``; ``first``/``second`` code the pair's responses into ``responses`` (one
    response per prompt and name); ``judge`` into ``judges`` (-1 without a judge column); ``value`` the signed
    judgment on the canonical pair; ``first_shown_wins``: 1 when the response shown first won, 0 when the other
    won, -1 for a tie.
    """

    pair: np.ndarray
    pairs: pd.DataFrame
    prompt: np.ndarray
    prompts: pd.Index
    first: np.ndarray
    second: np.ndarray
    responses: pd.DataFrame
    judge: np.ndarray
    judges: pd.Index
    value: np.ndarray
    first_shown_wins: np.ndarray

    def both_orders(self) -> tuple[np.ndarray, np.ndarray]:
        """The judgments of a pair a judge judged in both orders, as (first, second) positions of the two rows."""
        if self.judge.size == 0 or (self.judge < 0).any():
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        key = self.pair * max(len(self.judges), 1) + self.judge
        order = np.argsort(key, kind="stable")
        same = np.flatnonzero(key[order][1:] == key[order][:-1])
        return order[same], order[same + 1]

    def to_annotations(self) -> Annotations:
        """The judgments as :class:`Annotations`: items are the canonical pairs, labels the signed values (ordinal).

        A pair a judge judged in both orders is one annotation: the answer the two share, or a tie when they differ
        (an answer that changes with the order shown is no preference; Shi et al. 2024's inconsistency as a tie).
        """
        first, second = self.both_orders()
        if first.size:
            value = self.value.copy()
            value[first] = np.where(np.sign(value[first]) == np.sign(value[second]), value[first], 0.0)
            keep = np.ones(value.size, dtype=bool)
            keep[second] = False
            return replace(self, value=value)._annotations(keep)
        return self._annotations(np.ones(self.value.size, dtype=bool))

    def _annotations(self, keep: np.ndarray) -> Annotations:
        cats, codes = np.unique(self.value[keep], return_inverse=True)
        items = pd.Index(list(self.pairs.itertuples(index=False, name=None)), tupleize_cols=False)
        return Annotations(
            self.pair[keep],
            self.judge[keep],
            codes.astype(np.int64),
            items=items,
            annotators=self.judges,
            categories=pd.Index(cats),
            level="ordinal",
        )


def _column(table: pd.DataFrame, name: str | None, what: str) -> pd.Series | None:
    if name is None:
        return None
    if name not in table.columns:
        raise ValueError(
            f"column {name!r} ({what}) not found; the table has columns {list(map(str, table.columns))!r}. "
            "Name the columns with the function's options (CLI: --item-col, --response-a-col, ...)"
        )
    return table[name]


def _ids(values: pd.Series, what: str, rows: np.ndarray) -> pd.Series:
    missing = values.isna().to_numpy() | values.astype(str).str.strip().eq("").to_numpy()
    if missing.any():
        r = int(rows[np.flatnonzero(missing)[0]])
        raise ValueError(f"the {what} column is blank on row {r + 1}; every judgment needs a {what}")
    return values.astype(str).str.strip()


def read_preferences(
    table: Any,
    *,
    item: str | None,
    response_a: str,
    response_b: str,
    annotator: str | None,
    label: str,
    strength: str | None = None,
) -> Preferences:
    """Read a long table of pairwise judgments (see the module's notes); blank labels are dropped.

    Raises
    ------
    TypeError
        ``table`` is not a DataFrame.
    ValueError
        A column is missing; a label is not A, B or tie; a strength is not a positive number (a tie's not blank or
        0); the two responses
        of a judgment are the same; a judge judged one pair twice; nothing to read.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame (a long table of judgments); got {type(table).__name__}")
    lab_col = cast(pd.Series, _column(table, label, "the label: A, B or tie"))
    ra_col = cast(pd.Series, _column(table, response_a, "the response shown first"))
    rb_col = cast(pd.Series, _column(table, response_b, "the response shown second"))
    item_col = _column(table, item, "the prompt")
    judge_col = _column(table, annotator, "the judge")
    strength_col = _column(table, strength, "the strength")
    text = lab_col.astype(str).str.strip().str.lower()
    keep = ~(lab_col.isna().to_numpy() | text.eq("").to_numpy())
    if not keep.any():
        raise ValueError("the table holds no judgments (every label is missing or the table is empty)")
    rows = np.flatnonzero(keep)
    text = text[keep]
    sign = text.map({"a": 1.0, "b": -1.0, "tie": 0.0}).to_numpy(dtype=float)
    bad = np.isnan(sign)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        found = ", ".join(repr(printable(v)) for v in pd.unique(lab_col[keep][bad])[:5])
        raise ValueError(
            f"a preference label is A (the response shown first is better), B (the second is better) or tie; "
            f"got {found} (row {int(rows[r]) + 1} and others)"
        )
    size = np.ones(sign.size)
    if strength_col is not None:
        st = pd.to_numeric(strength_col[keep], errors="coerce").to_numpy(dtype=float)
        need = sign != 0
        wrong = need & ~(np.isfinite(st) & (st > 0))
        if wrong.any():
            r = int(np.flatnonzero(wrong)[0])
            raise ValueError(
                f"the strength of an A or B judgment must be a positive number; row {int(rows[r]) + 1} has "
                f"{printable(strength_col[keep].iloc[r])!r}"
            )
        tied = ~need & np.isfinite(st) & (st != 0)
        if tied.any():
            r = int(np.flatnonzero(tied)[0])
            raise ValueError(
                f"row {int(rows[r]) + 1} is a tie with the strength {printable(strength_col[keep].iloc[r])}; a tie "
                "has no strength (how much better one response is): leave it blank or 0, or label the row A or B"
            )
        size = np.where(need, st, 0.0)
    ra = _ids(ra_col[keep], response_a, rows)
    rb = _ids(rb_col[keep], response_b, rows)
    same = (ra == rb).to_numpy(dtype=bool)
    if same.any():
        r = int(np.flatnonzero(same)[0])
        raise ValueError(f"row {int(rows[r]) + 1} compares response {printable(ra.iloc[r])!r} with itself")
    prompt_text = _ids(item_col[keep], item or "item", rows) if item_col is not None else pd.Series("", index=ra.index)
    prompt, prompts = pd.factorize(prompt_text, sort=True)
    n = prompt.size
    # response names coded once, in sorted order (so comparing codes compares the names)
    name_code, names = pd.factorize(pd.concat([ra, rb], ignore_index=True), sort=True)
    ca, cb = name_code[:n].astype(np.int64), name_code[n:].astype(np.int64)
    swapped = ca > cb
    lo_c, hi_c = np.minimum(ca, cb), np.maximum(ca, cb)
    names_arr = np.asarray(names, dtype=object)
    value = np.where(swapped, -sign, sign) * size
    # responses: one per prompt and name
    n_names = max(len(names), 1)
    resp_codes, resp_uniques = pd.factorize(
        np.concatenate([prompt * n_names + lo_c, prompt * n_names + hi_c]), sort=True
    )
    first, second = resp_codes[:n].astype(np.int64), resp_codes[n:].astype(np.int64)
    rp, rn = np.divmod(np.asarray(resp_uniques, dtype=np.int64), n_names)
    responses = pd.DataFrame({"item": np.asarray(prompts, dtype=object)[rp], "response": names_arr[rn]})
    n_resp = max(len(responses), 1)
    pair_key = first * n_resp + second
    pair, pair_uniques = pd.factorize(pair_key, sort=True)
    pf, ps = np.divmod(np.asarray(pair_uniques, dtype=np.int64), n_resp)
    pairs = pd.DataFrame(
        {
            "item": responses["item"].to_numpy()[pf],
            "response_a": responses["response"].to_numpy()[pf],
            "response_b": responses["response"].to_numpy()[ps],
        }
    )
    if judge_col is not None:
        judge, judges = pd.factorize(_ids(judge_col[keep], annotator or "judge", rows), sort=True)
        # a pair judged in both orders is accepted (position consistency); the same order twice is not
        dup = pd.Series((pair.astype(np.int64) * len(judges) + judge) * 2 + swapped).duplicated().to_numpy()
        if dup.any():
            r = int(np.flatnonzero(dup)[0])
            raise ValueError(
                f"judge {printable(judges[judge[r]])!r} judged the pair ({printable(ra.iloc[r])!r}, "
                f"{printable(rb.iloc[r])!r}) of prompt {printable(prompts[prompt[r]])!r} twice in the same order "
                f"(row {int(rows[r]) + 1}); keep one judgment per judge, pair and order (a repeated run: "
                "ie.judge_consistency(table, repetition=...) measures its stability)"
            )
        judge = judge.astype(np.int64)
        judge_index = pd.Index(judges)
    else:
        judge = np.full(n, -1, dtype=np.int64)
        judge_index = pd.Index([])
    first_wins = np.where(sign > 0, 1, np.where(sign < 0, 0, -1)).astype(np.int64)
    return Preferences(
        pair.astype(np.int64),
        pairs,
        prompt.astype(np.int64),
        pd.Index(prompts),
        first,
        second,
        responses,
        judge,
        judge_index,
        value,
        first_wins,
    )
