r"""Agreement on rankings: Kendall's W, Krippendorff's alpha with a rank distance, a gold ranking.

**The ranking syntax** (one ranking per row of a long table, in the label column): response ids from best to
worst separated by ``>``; ``=`` joins responses that share a place (a tie, or one bucket of Label Studio's Ranker):
``"r2 > r1 = r3 > r4"``. A ranking may instead be written worst first with ``<``: ``"r4 < r1 = r3 < r2"`` is the
same ranking; one ranking mixing ``>`` and ``<``, and ``>=`` or ``<=``, are refused. Spaces around a separator do
not matter, spaces inside an id are part of it (``"gpt 4o > llama 3"`` ranks two responses); an id may not contain
``>``, ``<`` or ``=`` (give such ids as a list instead). A list (or tuple) label is read the same way: its elements
are the places from best to worst, an element that is itself a list being a bucket (``["r2", ["r1", "r3"],
"r4"]``). A ranking that does not name every
response of its prompt is a *top-k list*: the responses it leaves out share one place below the last it names
(Fagin, Kumar and Sivakumar 2003). The responses of a prompt are those named by any of its rankings.

Each ranking becomes *positions*: a response's place counted from 1, the mid-rank for a shared place (responses
at places 2 and 3 of a bucket of two both get 2.5), the left-out responses the mid-rank of the bottom bucket.

**Distances** between two rankings :math:`\sigma, \tau` over the responses :math:`D` (every response the pairable
rankings name), each pair of responses :math:`\{i, j\}` scored by the signs :math:`s = \operatorname{sign}
(\sigma_i - \sigma_j)`, :math:`t = \operatorname{sign}(\tau_i - \tau_j)`:

* ``'kendall_tau'``: :math:`K^{(p)}(\sigma, \tau) = \binom{|D|}{2}^{-1} \sum_{i<j} \big([st = -1] + p\,[s t = 0,\
  s \ne t]\big)`, Fagin et al.'s (2003, 2006) Kendall distance with penalty :math:`p` for a pair tied in one
  ranking only (default :math:`p = 1/2`). On complete rankings without ties it is the normalised Kendall tau
  distance, the share of discordant pairs; on top-k lists it is Fagin et al.'s :math:`K^{(p)}`.
* ``'footrule'``: Spearman's footrule on the positions, :math:`F(\sigma, \tau) = \sum_i |\sigma_i - \tau_i| /
  \lfloor |D|^2/2 \rfloor` (the denominator is the largest footrule of two permutations; Diaconis and Graham 1977;
  on bucket orders with mid-ranks, Fagin et al. 2006's :math:`F_{\mathrm{prof}}`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import PARAMS, Choice, Flag, NoneOr, Real, validate
from iaa_engine.base._policy import undefined
from iaa_engine.base._results import Result, ScalarResult, nan_to_none, printable
from iaa_engine.data._model import Annotations
from iaa_engine.data._preferences import JUDGE_COLUMNS, PROMPT_COLUMNS, find_column
from iaa_engine.stats._bradley_terry import bt_mm

__all__ = [
    "RANK_DISTANCES",
    "MAX_RANK_RESPONSES",
    "KendallW",
    "RankingAgreement",
    "kendall_w",
    "parse_rankings",
    "rank_distance_table",
    "ranking_agreement",
]

#: The rank distances of :func:`ranking_agreement` and ``krippendorff_alpha(distance=...)``.
RANK_DISTANCES = ("kendall_tau", "footrule")
#: Most distinct responses that alpha with a rank distance compares rankings over (positions: rankings × responses).
MAX_RANK_RESPONSES = 100


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class Parsed:
    """Rankings as one row per named response: ``row`` (the ranking), ``element`` (code into ``elements``),
    ``position`` (mid-rank of its place), and per ranking the number of responses it names (``listed``)."""

    row: np.ndarray
    element: np.ndarray
    position: np.ndarray
    listed: np.ndarray
    elements: pd.Index
    canonical: np.ndarray  # each ranking written canonically: places joined by '>', a bucket's ids sorted, '='


def _flatten_lists(labels: np.ndarray) -> pd.DataFrame:
    rows, elems, buckets = [], [], []
    for r, lab in enumerate(labels):
        if isinstance(lab, str):
            raise ValueError("rankings mix text and lists; give every ranking one way")
        for b, place in enumerate(lab):
            for e in place if isinstance(place, (list, tuple)) else (place,):
                rows.append(r)
                elems.append(str(e).strip())
                buckets.append(b)
    return pd.DataFrame({"row": rows, "element": elems, "bucket": buckets})


def _split_text(labels: pd.Series) -> pd.DataFrame:
    """``"a > b = c"`` -> rows (row, element, bucket), vectorised with pandas' string methods."""
    places = labels.str.split(">").explode()
    row = places.index.to_numpy()
    bucket = pd.Series(row).groupby(row).cumcount().to_numpy()
    places = pd.Series(places.to_numpy(), index=pd.RangeIndex(len(places)))
    elems = places.str.split("=").explode()
    take = elems.index.to_numpy()
    return pd.DataFrame({"row": row[take], "element": elems.str.strip().to_numpy(), "bucket": bucket[take]})


def _best_first(labels: pd.Series, name: Any) -> pd.Series:
    """Rankings written worst first with ``<`` turned round into the ``>`` syntax; ``>=``/``<=`` and a ranking
    mixing ``>`` with ``<`` refused (which way would it read?)."""
    compound = labels.str.contains(r"[<>]\s*=", regex=True).to_numpy()
    if compound.any():
        r = int(np.flatnonzero(compound)[0])
        raise ValueError(
            f"{name(r)} ({printable(labels.iloc[r])!r}) uses '>=' or '<='; a ranking separates places with '>' "
            "(better first) or '<' (worse first) and joins a shared place with '=', e.g. 'r2 > r1 = r3'"
        )
    less = labels.str.contains("<", regex=False).to_numpy()
    if not less.any():
        return labels
    mixed = less & labels.str.contains(">", regex=False).to_numpy()
    if mixed.any():
        r = int(np.flatnonzero(mixed)[0])
        raise ValueError(
            f"{name(r)} ({printable(labels.iloc[r])!r}) uses both '>' and '<'; write a ranking one way: 'a > b > c' "
            "(better first) or 'c < b < a' (worse first)"
        )
    out = labels.copy()
    out[less] = labels[less].str.split("<").str[::-1].str.join(">")
    return out


def parse_rankings(labels: Any, where: Any = None) -> Parsed:
    """Parse ranking labels (text in the documented syntax, or lists) into positions; see the module's notes.

    ``where(i)`` names ranking ``i`` in a message (default ``ranking i+1``).

    Raises
    ------
    ValueError
        An empty place (``"a >> b"``, ``"a >"``), ``>=`` or ``<=``, ``>`` and ``<`` in one ranking, a response
        named twice in one ranking, a label that is neither text nor a list.
    """
    name = where or (lambda i: f"ranking {i + 1}")
    values = np.asarray(pd.Series(labels, dtype=object).to_numpy(), dtype=object)
    is_text = np.fromiter((isinstance(v, str) for v in values), bool, len(values))
    if is_text.all():
        long = _split_text(_best_first(pd.Series(values, dtype=object), name))
    elif not is_text.any() and all(isinstance(v, (list, tuple, np.ndarray)) for v in values):
        long = _flatten_lists(values)
    else:
        bad = next((i for i, v in enumerate(values) if not isinstance(v, (str, list, tuple, np.ndarray))), None)
        if bad is None:
            raise ValueError("the rankings mix text and lists; give every ranking one way")
        raise ValueError(
            f"a ranking is text such as 'r1 > r2 = r3' or a list of places; {name(bad)} is "
            f"{values[bad]!r} ({type(values[bad]).__name__})"
        )
    empty = (long["element"] == "").to_numpy()
    if empty.any():
        r = int(long["row"].to_numpy()[np.flatnonzero(empty)[0]])
        raise ValueError(
            f"{name(r)} ({printable(values[r])!r}) has an empty place: places are separated by '>' (better "
            "first; or '<', worse first) and '=' joins a shared place, e.g. 'r2 > r1 = r3'"
        )
    codes, elements = pd.factorize(long["element"], sort=True)
    row = long["row"].to_numpy(np.int64)
    bucket = long["bucket"].to_numpy(np.int64)
    key = row * max(len(elements), 1) + codes
    if len(np.unique(key)) != len(key):
        dup = pd.Series(key).duplicated().to_numpy()
        r = int(row[np.flatnonzero(dup)[0]])
        raise ValueError(f"{name(r)} ({printable(values[r])!r}) names a response twice")
    # places: sizes and starts per (row, bucket), in order
    order = np.lexsort((codes, bucket, row))
    row, bucket, codes = row[order], bucket[order], codes[order].astype(np.int64)
    new_place = np.ones(row.size, bool)
    new_place[1:] = (row[1:] != row[:-1]) | (bucket[1:] != bucket[:-1])
    place_id = np.cumsum(new_place) - 1
    size = np.bincount(place_id)
    first = np.flatnonzero(new_place)
    n = len(values)
    listed = np.bincount(row, minlength=n)
    row_start = np.concatenate(([0], np.cumsum(listed)[:-1]))
    start = first - row_start[row[first]]  # responses in earlier places
    position = start[place_id] + (size[place_id] + 1) / 2.0
    # canonical text: each response with the separator before it ('' first in a ranking, '=' in the same place)
    elem_text = np.asarray(elements, dtype=object)[codes]
    sep = np.where(new_place, ">", "=").astype(object)
    new_row = np.ones(row.size, bool)
    new_row[1:] = row[1:] != row[:-1]
    sep[new_row] = ""
    canonical = np.full(n, "", dtype=object)
    if row.size:
        starts = np.flatnonzero(new_row)
        canonical[row[starts]] = np.add.reduceat(sep + elem_text, starts)
    return Parsed(row, codes, position, listed, pd.Index(elements), canonical)


def _dense_positions(p: Parsed, rows: np.ndarray, elements: np.ndarray) -> np.ndarray:
    """Positions of the rankings ``rows`` over the responses ``elements`` (codes): unnamed ones share the bottom."""
    n = elements.size
    local = np.full(len(p.elements), -1, dtype=np.int64)
    local[elements] = np.arange(n)
    new_row = np.full(p.listed.size, -1, dtype=np.int64)
    new_row[rows] = np.arange(rows.size)
    listed = p.listed[rows].astype(float)
    out = np.repeat((listed + (n - listed + 1) / 2.0)[:, None], n, axis=1)
    keep = (new_row[p.row] >= 0) & (local[p.element] >= 0)
    out[new_row[p.row[keep]], local[p.element[keep]]] = p.position[keep]
    return out


# --------------------------------------------------------------------------- distances


def _check_penalty(penalty: float) -> float:
    if not (0.0 <= penalty <= 1.0):
        raise ValueError(f"penalty must be a number from 0 to 1; got {penalty!r}")
    return float(penalty)


def _norm(distance: str, n: int) -> float:
    return n * (n - 1) / 2.0 if distance == "kendall_tau" else float(n * n // 2)


def rank_distance_table(labels: Any, distance: str, penalty: float = 0.5) -> np.ndarray:
    """The C × C table of rank distances between the ranking labels ``labels`` (over every response they name).

    With it, ``krippendorff_alpha``'s definition gives :func:`ranking_agreement`'s alpha (the tests check both).
    """
    p = parse_rankings(list(labels))
    n = len(p.elements)
    c = p.listed.size
    if n > MAX_RANK_RESPONSES:
        raise ValueError(
            f"distance={distance!r} compares rankings over every response they name; these name {n} distinct "
            f"responses, more than {MAX_RANK_RESPONSES}. Alpha with a rank distance needs the same responses "
            "(model names, or positions) across prompts"
        )
    if n < 2:
        return np.zeros((c, c))
    pos = _dense_positions(p, np.arange(c), np.arange(n))
    if distance == "footrule":
        from scipy.spatial.distance import cdist

        return np.asarray(cdist(pos, pos, "cityblock")) / _norm(distance, n)
    i, j = np.triu_indices(n, 1)
    s = np.sign(pos[:, i] - pos[:, j])
    plus, minus, zero = (s > 0).astype(float), (s < 0).astype(float), (s == 0).astype(float)
    disc = plus @ minus.T + minus @ plus.T
    one_tied = zero @ (1.0 - zero).T + (1.0 - zero) @ zero.T
    table = (disc + penalty * one_tied) / _norm(distance, n)
    np.fill_diagonal(table, 0.0)
    return table


def _alpha_sums(unit: np.ndarray, pos: np.ndarray, distance: str, penalty: float) -> tuple[float, float]:
    r"""Krippendorff's :math:`D_o` and :math:`D_e` of the rankings (rows of ``pos``, units ``unit`` of two or more).

    :math:`D_o = \frac1N \sum_u \frac{1}{m_u - 1} \sum_{v \ne w \in u} \delta(v, w)`, :math:`D_e = \frac{1}{N(N-1)}
    \sum_{v \ne w} \delta(v, w)`. Both sums are taken response pair by response pair (Kendall: from the counts of
    the three signs per unit; footrule: from the sorted positions, :math:`\sum_{v<w}|x_v - x_w| = \sum_k (2k - m
    - 1) x_{(k)}`), never over pairs of rankings.
    """
    n_tot, n = pos.shape
    units = int(unit.max()) + 1
    m = np.bincount(unit, minlength=units).astype(float)
    obs = exp = 0.0
    if distance == "kendall_tau":
        for i in range(n - 1):
            s = np.sign(pos[:, i : i + 1] - pos[:, i + 1 :]).astype(np.int64) + 1
            k = s.shape[1]
            codes = (unit[:, None] * k + np.arange(k)[None, :]) * 3 + s
            cnt = np.bincount(codes.ravel(), minlength=units * k * 3).reshape(units, k, 3).astype(float)
            cm, c0, cp = cnt[..., 0], cnt[..., 1], cnt[..., 2]
            within = 2.0 * cm * cp + penalty * 2.0 * c0 * (cm + cp)
            obs += float(np.sum(within.sum(axis=1) / (m - 1.0)))
            g = cnt.sum(axis=0)
            exp += float(np.sum(2.0 * g[:, 0] * g[:, 2] + penalty * 2.0 * g[:, 1] * (g[:, 0] + g[:, 2])))
    else:
        start = np.concatenate(([0], np.cumsum(m)[:-1])).astype(np.int64)
        for i in range(n):
            x = pos[:, i]
            order = np.lexsort((x, unit))
            us = unit[order]
            k = np.arange(n_tot) - start[us] + 1.0
            within = np.bincount(us, weights=(2.0 * k - m[us] - 1.0) * x[order], minlength=units)
            obs += float(np.sum(2.0 * within / (m - 1.0)))
            xs = np.sort(x)
            exp += 2.0 * float(np.sum((2.0 * np.arange(1, n_tot + 1) - n_tot - 1.0) * xs))
    norm = _norm(distance, n)
    return obs / n_tot / norm, exp / (n_tot * (n_tot - 1.0)) / norm


# --------------------------------------------------------------------------- Kendall's W


def _w_values(
    s: np.ndarray, m: np.ndarray, n: np.ndarray, ties: np.ndarray, correct: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """W, chi-square, df and p from S, m judges, n objects and the tie sums T (vectorised over groups)."""
    from scipy.stats import chi2

    den = m * m * (n**3 - n) - (m * ties if correct else 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where((den > 1e-12) & (m >= 2) & (n >= 2), 12.0 * s / den, np.nan)
    stat = m * (n - 1.0) * w
    df = n - 1.0
    p = np.where(np.isfinite(stat), chi2.sf(stat, np.maximum(df, 1.0)), np.nan)
    return w, stat, df, p


@dataclass(frozen=True, eq=False, repr=False)
class KendallW(ScalarResult):
    r"""Kendall's coefficient of concordance W with its chi-square test (the result of :func:`kendall_w`).

    Attributes
    ----------
    w : float
        Kendall's W (``Wt`` with the tie correction).
    statistic : float
        :math:`\chi^2 = m (n - 1) W`.
    df : int
        :math:`n - 1`.
    p_value : float
        Upper tail of the chi-square distribution with ``df`` degrees of freedom (valid for large samples).
    n_items, n_judges : int
        Objects ranked (rows kept) and judges.
    correct : bool
        Whether W is corrected for ties.
    ties : bool
        Whether some judge gave tied ranks.

    References
    ----------
    Kendall, M. G., & Babington Smith, B. (1939). The problem of m rankings. Annals of Mathematical Statistics
    10(3), 275–287.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> ie.kendall_w([[1, 1], [2, 3], [3, 2]]).w
    0.75
    """

    w: float
    statistic: float
    df: int
    p_value: float
    n_items: int
    n_judges: int
    correct: bool
    ties: bool

    def __repr__(self) -> str:
        name = "Wt" if self.correct else "W"
        return (
            f"KendallW({name} = {self.w:.4f}, chi2({self.df}) = {self.statistic:.4g}, p = {self.p_value:.3g}; "
            f"{self.n_items} items, {self.n_judges} judges)"
        )


@validate(correct=Flag())
def kendall_w(ratings: Any, *, correct: bool = True) -> KendallW:
    r"""Kendall's coefficient of concordance W of m judges ranking n objects, with the correction for ties.

    The ``ratings`` hold one row per object and one column per judge (the layout of R irr's ``kendall``); each
    judge's column is ranked (average ranks for equal values), so scores and ranks both work. With :math:`R_i` the
    sum of object i's ranks, :math:`S = \sum_i (R_i - \bar R)^2` and :math:`T_j = \sum (t^3 - t)` over the groups
    of t tied ranks of judge j:

    .. math::

        W = \frac{12 S}{m^2 (n^3 - n)}, \qquad
        W_t = \frac{12 S}{m^2 (n^3 - n) - m \sum_j T_j}, \qquad \chi^2_{n-1} = m (n - 1) W

    Rows with a missing value are left out (listwise, as irr does).

    Parameters
    ----------
    ratings : 2-D array-like, pandas.DataFrame or Annotations
        Objects in rows, judges in columns; numbers (ranks or scores, higher or lower is better alike).
        :class:`Annotations` are read as items x annotators (numeric labels, or the order of ordinal
        categories).
    correct : bool, default True
        Correct W for ties within judges (irr's ``correct=TRUE``; with ``False`` the uncorrected W of irr's
        default, which is too small when there are ties).

    Returns
    -------
    KendallW
        ``w``, ``statistic``, ``df``, ``p_value``, ``n_items``, ``n_judges``, ``correct``, ``ties``. When W is
        undefined (fewer than two objects or judges, or every judge ties every object) ``w`` is nan and an
        :class:`UndefinedMetricWarning` says why.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    ValueError
        ``ratings`` is not a 2-D table of numbers.

    See Also
    --------
    ranking_agreement : W per prompt of a long table of rankings, and alpha with a rank distance.

    References
    ----------
    Kendall, M. G., & Babington Smith, B. (1939). The problem of m rankings. Annals of Mathematical Statistics
    10(3), 275–287.

    Kendall, M. G. (1948). Rank correlation methods. London: Griffin.

    Gamer, M., Lemon, J., Fellows, I., & Singh, P. (2019). irr: Various coefficients of interrater reliability and
    agreement. R package version 0.84.1 (``kendall``).

    Examples
    --------
    R irr's ``anxiety`` data (20 subjects, 3 raters); irr's ``kendall(anxiety, TRUE)`` gives Wt = 0.5397:

    >>> import iaa_engine as ie
    >>> anxiety = [[3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2], [2, 2, 1], [3, 4, 6],
    ...            [5, 3, 1], [2, 3, 1], [2, 2, 1], [6, 3, 2], [1, 3, 3], [5, 3, 3], [2, 2, 1], [2, 2, 1],
    ...            [1, 1, 3], [2, 3, 3], [4, 3, 2], [3, 4, 2]]
    >>> round(ie.kendall_w(anxiety).w, 4), round(ie.kendall_w(anxiety, correct=False).w, 4)
    (0.5397, 0.5019)
    """
    from scipy.stats import rankdata

    if isinstance(ratings, Annotations):
        if ratings.annotator is None:
            raise ValueError("kendall_w needs the judges' own annotations, not a count table")
        values = (
            ratings.category_values()
            if pd.api.types.is_numeric_dtype(ratings.categories.dtype)
            else np.arange(ratings.n_categories, dtype=float)
        )
        wide = np.full((ratings.n_items, len(cast(pd.Index, ratings.annotators))), np.nan)
        wide[ratings.item, ratings.annotator] = values[ratings.label]
        ratings = wide
    try:
        x = np.asarray(pd.DataFrame(ratings).apply(pd.to_numeric, errors="raise").to_numpy(), dtype=float)
    except (ValueError, TypeError):
        raise ValueError(
            "kendall_w expects a table of numbers (objects in rows, judges in columns: ranks or scores)"
        ) from None
    if x.ndim != 2:
        raise ValueError(f"kendall_w expects a 2-D table (objects x judges); got {x.ndim} dimension(s)")
    x = x[np.isfinite(x).all(axis=1)]
    n, m = x.shape
    ranks = rankdata(x, axis=0) if n else x
    srt = np.sort(x, axis=0)
    run_start = np.ones_like(srt, dtype=bool)
    run_start[1:] = srt[1:] != srt[:-1]
    run_id = np.cumsum(run_start.T.ravel()) - 1  # runs numbered judge by judge
    t = np.bincount(run_id).astype(float) if run_id.size else np.zeros(0)
    ties = float(np.sum(t**3 - t))
    r_sum = ranks.sum(axis=1)
    s = float(np.sum((r_sum - r_sum.mean()) ** 2)) if n else 0.0
    w, stat, df, p = _w_values(np.array([s]), np.array([float(m)]), np.array([float(n)]), np.array([ties]), correct)
    value = float(w[0])
    if not np.isfinite(value):
        value = undefined(
            "kendall_w",
            "it needs two or more objects and judges, and some judge who does not tie every object",
            np.nan,
        )
    return KendallW(value, float(stat[0]), int(max(n - 1, 0)), float(p[0]), int(n), int(m), correct, ties > 0)


# --------------------------------------------------------------------------- long tables of rankings


@dataclass(frozen=True, eq=False, repr=False)
class RankingAgreement(Result):
    r"""Agreement of judges ranking the responses of prompts: the result of :func:`ranking_agreement`.

    Attributes
    ----------
    alpha, d_o, d_e : float
        Krippendorff's alpha with the rank distance, and its observed and expected disagreement (nan with a note
        when it cannot be computed).
    alpha_undefined : str
        Why alpha is nan (``''`` when it is a number): among others, only one prompt ranked by two or more judges
        (then :math:`D_o = D_e` by construction and alpha would be 0 whatever the rankings).
    distance : str
        ``'kendall_tau'`` or ``'footrule'``.
    penalty : float
        The Kendall distance's penalty for a pair tied in one ranking only.
    mean_w : float
        The mean of the prompts' Kendall's W (prompts with W defined).
    per_item : pandas.DataFrame
        One row per prompt: ``item``, ``n_judges``, ``n_responses``, ``complete`` (every judge named every response
        and no one tied), ``w``, ``statistic``, ``df``, ``p_value``.
    gold : pandas.DataFrame
        The gold ranking: one row per prompt and response, ``item``, ``response``, ``score`` (mean Borda points:
        responses ranked below, a shared place counting half; or the Bradley–Terry strength) and ``rank``
        (1 = best; equal scores share the best rank).
    gold_rule : str
        ``'borda'`` or ``'bradley_terry'``.
    judges : pandas.DataFrame
        One row per judge: ``judge``, ``n_rankings`` and ``distance_to_gold``, the mean rank distance between the
        judge's rankings and the gold ranking of the prompt.
    n_items, n_rankings, n_judges : int
        Prompts, rankings and judges.
    notes : list of str
        What was left out and why.

    References
    ----------
    Krippendorff, K. (2004). Content analysis: an introduction to its methodology (2nd ed.). Sage.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": ["p1"] * 3, "annotator": ["a", "b", "c"], "label": ["x>y>z", "x>z>y", "x>y>z"]})
    >>> res = ie.ranking_agreement(t)
    >>> round(res.mean_w, 4), res.gold["response"].tolist()
    (0.7778, ['x', 'y', 'z'])
    """

    alpha: float
    d_o: float
    d_e: float
    distance: str
    penalty: float
    mean_w: float
    per_item: pd.DataFrame
    gold: pd.DataFrame
    gold_rule: str
    judges: pd.DataFrame
    n_items: int
    n_rankings: int
    n_judges: int
    notes: list = field(default_factory=list)
    alpha_undefined: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the scalars, the per-prompt table, the gold ranking, the judges and the notes."""
        out = {
            k: nan_to_none(getattr(self, k))
            for k in ("alpha", "d_o", "d_e", "distance", "penalty", "mean_w", "gold_rule")
        }
        out["alpha_undefined"] = self.alpha_undefined or None
        out.update(n_items=self.n_items, n_rankings=self.n_rankings, n_judges=self.n_judges)
        for name in ("per_item", "gold", "judges"):
            frame = getattr(self, name)
            out[name] = [{k: nan_to_none(v) for k, v in r.items()} for r in frame.to_dict(orient="records")]
        out["notes"] = list(self.notes)
        return out

    def to_frame(self) -> pd.DataFrame:
        """The per-prompt table (a copy)."""
        return self.per_item.copy()

    def alpha_text(self) -> str:
        """Alpha as the terminal shows it: four decimals, or ``undefined (why)``."""
        if np.isfinite(self.alpha):
            return f"{self.alpha:.4f}"
        return f"undefined ({self.alpha_undefined})" if self.alpha_undefined else "undefined"

    def __str__(self) -> str:
        def f(v: float) -> str:
            return "undefined" if not np.isfinite(v) else f"{v:.4f}"

        lines = [
            f"Rankings: {self.n_rankings} rankings of {self.n_items} prompts by {self.n_judges} judges",
            f"  Krippendorff's alpha [{self.distance}]: {self.alpha_text()} (D_o {f(self.d_o)}, D_e {f(self.d_e)})",
            f"  Kendall's W, mean over prompts: {f(self.mean_w)}",
        ]
        why = f"alpha is undefined: {self.alpha_undefined}"
        lines += [f"  note: {n}" for n in self.notes if n != why]
        return "\n".join(lines)


def _group_starts(sizes: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)


@dataclass(frozen=True)
class RankingTable:
    """A long table of rankings read once: codes of prompts and judges, the parsed rankings, each prompt's
    responses (``unit_elem``: element codes, grouped by prompt in ``unit_start``/``unit_size``)."""

    unit: np.ndarray
    judge: np.ndarray
    units: pd.Index
    judges: pd.Index
    parsed: Parsed
    unit_elem: np.ndarray
    unit_start: np.ndarray
    unit_size: np.ndarray


def read_rankings(table: Any, item: str, annotator: str, label: str) -> RankingTable:
    """Read a long table of rankings (one row per prompt and judge); rows with a blank label are dropped."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame (a long table of rankings); got {type(table).__name__}")
    missing = [c for c in (item, annotator, label) if c not in table.columns]
    if missing:
        raise ValueError(
            f"column(s) {missing!r} not found; the table has columns {list(map(str, table.columns))!r}. "
            "Name the columns with item=, annotator=, label= (CLI: --item-col, --annotator-col, --label-col)"
        )
    lab = table[label]
    keep = ~(lab.isna().to_numpy() | lab.astype(str).str.strip().eq("").to_numpy())
    if not keep.any():
        raise ValueError("the table holds no rankings (every label is missing or the table is empty)")
    frame = table.loc[keep]
    rows = np.flatnonzero(keep)
    for col in (item, annotator):
        if frame[col].isna().any():
            r = int(rows[np.flatnonzero(frame[col].isna().to_numpy())[0]])
            raise ValueError(f"the {col} column is missing on row {r + 1}; every ranking needs a prompt and a judge")
    unit, units = pd.factorize(frame[item].astype(str).str.strip(), sort=True)
    judge, judges = pd.factorize(frame[annotator].astype(str).str.strip(), sort=True)
    key = unit.astype(np.int64) * len(judges) + judge
    dup = pd.Series(key).duplicated().to_numpy()
    if dup.any():
        r = int(np.flatnonzero(dup)[0])
        raise ValueError(
            f"judge {printable(judges[judge[r]])!r} ranked prompt {printable(units[unit[r]])!r} twice (row "
            f"{int(rows[r]) + 1}); keep one ranking per judge and prompt"
        )
    parsed = parse_rankings(frame[label].to_numpy(dtype=object), where=lambda i: f"the ranking on row {rows[i] + 1}")
    ue = np.unique(unit[parsed.row].astype(np.int64) * len(parsed.elements) + parsed.element)
    ue_unit, ue_elem = np.divmod(ue, max(len(parsed.elements), 1))
    size = np.bincount(ue_unit, minlength=len(units))
    return RankingTable(
        unit.astype(np.int64),
        judge.astype(np.int64),
        pd.Index(units),
        pd.Index(judges),
        parsed,
        ue_elem,
        _group_starts(size),
        size,
    )


def grid_positions(rt: RankingTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every ranking over every response of its prompt: ``(ranking, element, position)`` (unnamed: bottom place)."""
    p = rt.parsed
    n_rank = rt.unit.size
    n_u = rt.unit_size[rt.unit]
    ranking = np.repeat(np.arange(n_rank), n_u)
    offset = np.arange(ranking.size) - np.repeat(_group_starts(n_u), n_u)
    elem = rt.unit_elem[rt.unit_start[rt.unit[ranking]] + offset]
    listed = p.listed[ranking].astype(float)
    pos = listed + (n_u[ranking] - listed + 1.0) / 2.0
    ne = max(len(p.elements), 1)
    key = ranking * ne + elem
    named = p.row * ne + p.element
    order = np.argsort(named, kind="stable")
    idx = np.searchsorted(named[order], key)
    idx = np.minimum(idx, max(named.size - 1, 0))
    hit = named[order][idx] == key if named.size else np.zeros(key.size, bool)
    pos[hit] = p.position[order[idx[hit]]]
    return ranking, elem, pos


def _ties_sum(ranking: np.ndarray, pos: np.ndarray, n_rank: int) -> np.ndarray:
    """Per ranking, the sum of t^3 - t over its groups of t responses sharing a place."""
    order = np.lexsort((pos, ranking))
    r, x = ranking[order], pos[order]
    new = np.ones(r.size, bool)
    new[1:] = (r[1:] != r[:-1]) | (x[1:] != x[:-1])
    run = np.cumsum(new) - 1
    t = np.bincount(run).astype(float)
    return np.bincount(r[new], weights=t**3 - t, minlength=n_rank)


def pairs_of_rankings(
    ranking: np.ndarray, elem: np.ndarray, pos: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All pairs of responses within each ranking (grid rows grouped by ranking, ``sizes`` responses each):
    ``(first, second, wins of first)`` with a shared place as half a win."""
    starts = _group_starts(sizes)
    firsts, seconds = [], []
    for k in np.unique(sizes):
        if k < 2:
            continue
        rows = np.flatnonzero(sizes == k)
        i, j = np.triu_indices(int(k), 1)
        base = starts[rows][:, None]
        firsts.append((base + i[None, :]).ravel())
        seconds.append((base + j[None, :]).ravel())
    if not firsts:
        z = np.zeros(0, dtype=np.int64)
        return z, z, np.zeros(0)
    a, b = np.concatenate(firsts), np.concatenate(seconds)
    wins = np.where(pos[a] < pos[b], 1.0, np.where(pos[a] == pos[b], 0.5, 0.0))
    return elem[a], elem[b], wins


@validate(
    item=NoneOr(PARAMS["item"]),
    annotator=NoneOr(PARAMS["annotator"]),
    distance=Choice(*RANK_DISTANCES),
    penalty=Real(0, 1),
    correct=Flag(),
    gold=Choice("borda", "bradley_terry"),
)
def ranking_agreement(
    table: Any,
    *,
    item: str | None = None,
    annotator: str | None = None,
    label: str = "label",
    distance: str = "kendall_tau",
    penalty: float = 0.5,
    correct: bool = True,
    gold: str = "borda",
    max_iter: int = 1000,
) -> RankingAgreement:
    r"""Agreement of judges who rank the responses of prompts: alpha with a rank distance, Kendall's W, a gold ranking.

    The table has one row per prompt (``item``) and judge (``annotator``) with the judge's ranking in ``label``,
    written ``"r2 > r1 = r3 > r4"`` (``>`` between places, better first; ``=`` inside a shared place or bucket;
    or worst first with ``<``, ``"r4 < r1 = r3 < r2"``) or given as a list of places; a ranking that leaves
    responses out is a top-k list, the rest sharing its bottom place (see :mod:`iaa_engine.metrics._rankings`).

    Krippendorff's alpha with a rank distance :math:`\delta` (``'kendall_tau'``: Fagin et al.'s :math:`K^{(p)}`,
    the share of discordant pairs on complete rankings; ``'footrule'``: Spearman's footrule on mid-rank positions;
    both normalised to [0, 1]):

    .. math::

        \alpha = 1 - \frac{D_o}{D_e},\quad
        D_o = \frac1N \sum_u \frac{1}{m_u - 1} \sum_{v \ne w \in u} \delta(v, w),\quad
        D_e = \frac{1}{N (N - 1)} \sum_{v \ne w} \delta(v, w)

    over the N rankings of prompts ranked by two or more judges, every ranking taken over all the responses those
    rankings name (so the responses must mean the same across prompts: model names, or positions A, B, C; above
    :data:`MAX_RANK_RESPONSES` distinct responses alpha is left undefined with a note). It equals
    ``krippendorff_alpha(data, distance=d)`` with ``d`` the same distance as a callable on two rankings (taken over
    all the responses); the sums run response pair by response pair, never over pairs of rankings. When a single
    prompt has two or more rankings, :math:`D_e` comes from the same pairs of rankings as :math:`D_o`, so
    :math:`D_o = D_e` and the definition gives 0 whatever the rankings: alpha is then undefined (nan, the reason in
    ``alpha_undefined`` and the notes; ``krippendorff_alpha`` with the callable still returns that 0).

    Kendall's W per prompt, over the prompt's own responses (:func:`kendall_w`; unnamed responses share the bottom
    place, so W is corrected for those ties when ``correct``), with its chi-square test; ``mean_w`` averages them.

    The gold ranking per prompt: ``'borda'``, the mean Borda score (responses ranked below, a shared place
    counting half; Borda 1781), or ``'bradley_terry'``, the strengths of :func:`bradley_terry` fitted to every pair
    of responses the rankings order (a shared place as half a win each).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per ranking; blank labels are dropped.
    item, annotator : str, optional
        The prompt's and the judge's columns: by default ``prompt`` (else ``item``) and ``judge`` (else
        ``annotator``), the convention of every judgments function and command; a table with both candidates is
        refused (name the one meant).
    label : str, default 'label'
        The ranking's column.
    distance : {'kendall_tau', 'footrule'}, default 'kendall_tau'
        The rank distance of alpha (and of ``judges.distance_to_gold``).
    penalty : float, default 0.5
        Kendall: the penalty of a pair tied in one ranking and ordered in the other (Fagin et al.'s p; 1/2 is
        their neutral choice).
    correct : bool, default True
        Correct W for ties.
    gold : {'borda', 'bradley_terry'}, default 'borda'
        The rule of the gold ranking.
    max_iter : int, default 1000
        Bradley–Terry MM steps at most.

    Returns
    -------
    RankingAgreement

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``table`` is not a DataFrame.
    ValueError
        A column is missing; a ranking cannot be read (an empty place, a response named twice, ``>`` mixed with
        ``<``, ``>=``); a judge ranked a prompt twice; no ranking at all.

    References
    ----------
    Fagin, R., Kumar, R., & Sivakumar, D. (2003). Comparing top k lists. SIAM Journal on Discrete Mathematics
    17(1), 134–160.

    Fagin, R., Kumar, R., Mahdian, M., Sivakumar, D., & Vee, E. (2006). Comparing partial rankings. SIAM Journal
    on Discrete Mathematics 20(3), 628–648.

    Diaconis, P., & Graham, R. L. (1977). Spearman's footrule as a measure of disarray. Journal of the Royal
    Statistical Society B 39(2), 262–268.

    Kendall, M. G., & Babington Smith, B. (1939). The problem of m rankings. Annals of Mathematical Statistics
    10(3), 275–287.

    Krippendorff, K. (2004). Content analysis: an introduction to its methodology (2nd ed.). Sage.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> t = pd.DataFrame({"item": ["p1"] * 3 + ["p2"] * 3, "annotator": list("abcabc"),
    ...                   "label": ["x>y>z", "x>z>y", "x>y>z", "z>y>x", "z>y=x", "y>z>x"]})
    >>> res = ie.ranking_agreement(t)
    >>> round(res.alpha, 4), res.per_item["w"].round(4).tolist()
    (0.5283, [0.7778, 0.6364])
    """
    rt = read_rankings(
        table,
        find_column(table, item, PROMPT_COLUMNS, "item"),
        find_column(table, annotator, JUDGE_COLUMNS, "annotator"),
        label,
    )
    p = rt.parsed
    n_rank = rt.unit.size
    n_units = len(rt.units)
    notes: list[str] = []
    max_steps = int(max_iter)

    # ---- alpha over the pairable rankings
    m_unit = np.bincount(rt.unit, minlength=n_units)
    pairable = np.flatnonzero(m_unit[rt.unit] >= 2)
    alpha = d_o = d_e = math.nan
    why = ""
    if pairable.size:
        used = np.unique(p.element[np.isin(p.row, pairable)])
        n_pairable_units = np.unique(rt.unit[pairable]).size
        if used.size > MAX_RANK_RESPONSES:
            why = (
                f"the rankings name {used.size} distinct responses, more than {MAX_RANK_RESPONSES}; alpha compares "
                "rankings of different prompts response by response, so the responses need the same names across "
                "prompts (model names, or positions A, B, C)"
            )
        elif used.size < 2:
            why = "the rankings name only one response, so there is no pair of responses to order"
        else:
            pos = _dense_positions(p, pairable, used)
            _, unit_codes = np.unique(rt.unit[pairable], return_inverse=True)
            d_o, d_e = _alpha_sums(unit_codes.astype(np.int64), pos, distance, penalty)
            if n_pairable_units == 1:
                why = (
                    "only one prompt was ranked by two or more judges: D_e then comes from the same pairs of "
                    "rankings as D_o (D_o = D_e), so alpha would be 0 whatever the rankings; read Kendall's W"
                )
            elif int(rt.unit_size[np.unique(rt.unit[pairable])].sum()) == used.size:
                why = (
                    "no two of the prompts ranked by two or more judges name a common response: alpha compares "
                    "rankings of different prompts response by response, and with each prompt's own responses D_e "
                    "counts every response of one prompt against the unnamed ones of another (a value near 1 "
                    "whatever the rankings); name the responses alike across prompts (model names, or positions A, "
                    "B, C), or read Kendall's W"
                )
            elif not d_e > 1e-12:
                why = "every pairable ranking is the same, so the expected disagreement is 0 and alpha is 0/0"
            else:
                alpha = 1.0 - d_o / d_e
            if (rt.unit_size[np.unique(rt.unit[pairable])] < used.size).any():
                notes.append(
                    "the prompts' rankings name different sets of responses: a response a ranking leaves out "
                    "shares its bottom place (the top-k convention)"
                )
    else:
        why = "no prompt was ranked by two or more judges"
    if why:
        notes.insert(0, f"alpha is undefined: {why}")

    # ---- W per prompt over its own responses
    ranking, elem, pos_g = grid_positions(rt)
    n_u = rt.unit_size[rt.unit]
    ties = _ties_sum(ranking, pos_g, n_rank)
    g_unit = rt.unit[ranking]
    ne = max(len(p.elements), 1)
    ue_key = g_unit * ne + elem
    uniq_key, ue_idx = np.unique(ue_key, return_inverse=True)
    r_sum = np.bincount(ue_idx, weights=pos_g)
    ue_unit = uniq_key // ne
    m_f = m_unit.astype(float)
    n_f = rt.unit_size.astype(float)
    mean = m_f * (n_f + 1.0) / 2.0
    s = np.bincount(ue_unit, weights=(r_sum - mean[ue_unit]) ** 2, minlength=n_units)
    t_sum = np.bincount(rt.unit, weights=ties, minlength=n_units)
    w, stat, df, pv = _w_values(s, m_f, n_f, t_sum, correct)
    complete = np.bincount(rt.unit, weights=(p.listed == n_u) & (ties == 0), minlength=n_units) == m_unit
    per_item = pd.DataFrame(
        {
            "item": rt.units,
            "n_judges": m_unit,
            "n_responses": rt.unit_size,
            "complete": complete,
            "w": w,
            "statistic": stat,
            "df": df.astype(np.int64),
            "p_value": pv,
        }
    )
    mean_w = float(np.nanmean(w)) if np.isfinite(w).any() else math.nan

    # ---- gold ranking
    if gold == "borda":
        borda = np.bincount(ue_idx, weights=n_u[ranking] - pos_g) / m_f[ue_unit]
        score = borda
    else:
        a, b, wins = pairs_of_rankings(ranking, ue_idx, pos_g, n_u)
        score, _, done = bt_mm(a, b, wins, np.ones(a.size), ue_unit, n_units, max_iter=max_steps, tol=1e-9)
        if not done.all():
            notes.append(f"Bradley-Terry did not converge in {max_steps} steps")
    gold_frame = pd.DataFrame(
        {"item": rt.units[ue_unit], "response": p.elements[uniq_key % ne], "score": score, "_u": ue_unit}
    )
    gold_frame["rank"] = gold_frame.groupby("_u")["score"].rank(method="min", ascending=False).astype(np.int64)
    gold_frame = gold_frame.sort_values(["_u", "rank", "response"], kind="stable").drop(columns="_u")
    gold_frame = gold_frame.reset_index(drop=True)

    # ---- each judge against the gold ranking (positions of the gold scores: higher score, better place)
    gold_pos = pd.Series(score).groupby(ue_unit).rank(method="average", ascending=False).to_numpy()
    diff_pos = np.abs(pos_g - gold_pos[ue_idx])
    if distance == "footrule":
        per_rank = np.bincount(ranking, weights=diff_pos, minlength=n_rank) / np.maximum(
            (n_u**2 // 2).astype(float), 1.0
        )
    else:
        a, b, _ = pairs_of_rankings(ranking, np.arange(ranking.size), pos_g, n_u)
        sj = np.sign(pos_g[a] - pos_g[b])
        sg = np.sign(gold_pos[ue_idx[a]] - gold_pos[ue_idx[b]])
        pen = (sj * sg < 0) + penalty * ((sj * sg == 0) & (sj != sg))
        per_rank = np.bincount(ranking[a], weights=pen, minlength=n_rank) / np.maximum(n_u * (n_u - 1) / 2.0, 1.0)
    n_j = np.bincount(rt.judge, minlength=len(rt.judges))
    judges = pd.DataFrame(
        {
            "judge": rt.judges,
            "n_rankings": n_j,
            "distance_to_gold": np.bincount(rt.judge, weights=per_rank, minlength=len(rt.judges)) / n_j,
        }
    )
    return RankingAgreement(
        float(alpha),
        float(d_o),
        float(d_e),
        distance,
        float(penalty),
        mean_w,
        per_item,
        gold_frame,
        gold,
        judges,
        n_units,
        n_rank,
        len(rt.judges),
        notes,
        alpha_undefined=why,
    )
