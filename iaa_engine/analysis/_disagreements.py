"""What to adjudicate: the items annotators disagree on most, and the label pairs they confuse most."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import AnyOf, Choice, Flag, NoneOr, Whole, validate
from iaa_engine.base._results import Result, nan_to_none, printable
from iaa_engine.data._model import as_annotations
from iaa_engine.stats._differences import delta, positions_from

__all__ = ["Disagreements", "disagreements", "RANKING"]

#: ``dawid_skene='auto'`` runs Dawid-Skene only while annotators × labels² is at most this many cells.
DS_CELLS = 1 << 24

#: How :func:`disagreements` ranks the items (the sort keys, in order); the first names the data's level.
RANKING = (
    "disagreement at the data's level (mean delta^2 of the item's label pairs), highest first",
    "a tied majority label before a clear one",
    "Dawid-Skene posterior entropy, highest first",
    "more annotations first",
    "the data's item order",
)


@dataclass(frozen=True, eq=False)
class Disagreements(Result):
    """The items to adjudicate and the most confused label pairs: the result of :func:`disagreements`.

    Attributes
    ----------
    items : pandas.DataFrame
        One row per item with at least two annotations that do not all agree, ranked (see :data:`RANKING`):
        ``rank`` (1 = adjudicate first), ``item``, ``n_annotations``, ``agreement`` (the share of agreeing pairs,
        :func:`item_agreement`), ``disagreement`` (the mean of the level's difference :math:`\\delta^2` over the
        item's pairs of annotations: 1 - agreement at the nominal level), ``tie`` (several labels share the most
        votes), ``n_tied``, ``entropy`` (of the Dawid-Skene posterior, in [0, 1]: divided by log C; NaN without
        Dawid-Skene), ``ds_label`` and ``ds_probability`` (the Dawid-Skene gold label and its posterior
        probability).
    annotations : pandas.DataFrame
        The annotations of the listed items: ``rank``, ``item``, ``annotator`` (None for a count table),
        ``label``, in the order of the data.
    pairs : pandas.DataFrame
        One row per pair of different labels that met on an item, ranked by ``ratio`` (then ``observed``):
        ``rank``, ``label_a``, ``label_b`` (in category order), ``observed`` (the coincidence
        :math:`o_{ab}`), ``expected`` (:math:`e_{ab} = n_a n_b / (n - 1)`), ``ratio`` (observed / expected: above 1,
        the two labels meet more often than chance would bring them together), ``share`` (of all disagreeing
        pairs of annotations, :math:`2 o_{ab} / \\sum_{c \\ne k} o_{ck}`) and ``n_items``.
    pair_items : pandas.DataFrame
        The items behind each listed pair: ``pair`` (its rank), ``item``, ``item_rank`` (its rank in
        :attr:`items`, 0 when not listed), ``observed`` (the item's share of :math:`o_{ab}`,
        :math:`n_{ia} n_{ib} / (n_i - 1)`), largest first, then in the data's order (at most ``items_per_pair``
        per pair).
    categories : list
        The categories (the rows and columns of the coincidence matrix).
    n_pairable : int
        Items with two or more annotations.
    n_disagreeing : int
        Of them, the items whose annotations do not all agree (all are ranked; :attr:`items` may hold only the
        top ones).
    dawid_skene : bool
        Whether the Dawid-Skene posterior was computed.
    ranking : tuple of str
        The sort keys used, in order (:data:`RANKING` with the level named, without the entropy when Dawid-Skene
        was not run).
    level : str
        The level of measurement whose difference function ranks the items.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the EM
    algorithm. Applied Statistics 28(1), 20–28.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> d = ie.disagreements(data, top=3, progress=False)
    >>> d.n_pairable, d.n_disagreeing
    (15, 6)
    >>> d.to_frame()[["rank", "item", "agreement", "entropy", "labels"]].round(3)  # all 2 : 1; Dawid-Skene decides
       rank     item  agreement  entropy    labels
    0     1  item_10      0.333    0.001  1×1, 2×2
    1     2   item_1      0.333    0.000  1×2, 2×1
    2     3   item_9      0.333    0.000  1×2, 2×1
    """

    items: pd.DataFrame
    annotations: pd.DataFrame
    pairs: pd.DataFrame
    pair_items: pd.DataFrame
    categories: list
    n_pairable: int
    n_disagreeing: int
    dawid_skene: bool
    ranking: tuple = field(default=RANKING)
    level: str = "nominal"

    def _per_item_text(self) -> tuple[pd.Series, pd.Series, pd.Series]:
        """Per listed item (by rank): the labels with their counts, the majority labels and who said what."""
        a = self.annotations
        if a.empty:
            empty = pd.Series([], dtype=object)
            return empty, empty, empty
        counts = a.groupby(["rank", "label"], sort=False).size().rename("n").reset_index()
        position = pd.Index(self.categories, tupleize_cols=False).get_indexer(
            counts["label"]
        )  # labels in category order
        counts = counts.iloc[np.lexsort((position, counts["rank"].to_numpy()))]
        text = counts["label"].map(str) + "×" + counts["n"].map(str)
        labels = text.groupby(counts["rank"], sort=False).agg(", ".join)
        top = counts["n"] == counts.groupby("rank")["n"].transform("max")
        gold = counts.loc[top, "label"].map(str).groupby(counts.loc[top, "rank"], sort=False).agg("|".join)
        who = (a["annotator"].map(str) + "=" + a["label"].map(str)).groupby(a["rank"], sort=False).agg(", ".join)
        return labels, gold, who

    def to_frame(self) -> pd.DataFrame:
        """The ranked items, with ``labels`` (label×count), ``gold`` (majority labels, ties joined by ``|`` as
        :func:`gold_standard` keeps them; the ``tie`` column says so) and ``annotators`` (annotator=label)."""
        labels, gold, who = self._per_item_text()
        out = self.items.copy()
        out["labels"] = out["rank"].map(labels)
        out["gold"] = out["rank"].map(gold)
        out["annotators"] = out["rank"].map(who)
        return out

    def pairs_frame(self) -> pd.DataFrame:
        """The ranked label pairs, with ``items``: the items behind each, largest contribution first, joined by ``|``.

        Returns
        -------
        pandas.DataFrame
            :attr:`pairs` and a column ``items``.
        """
        joined = self.pair_items["item"].map(str).groupby(self.pair_items["pair"], sort=False).agg("|".join)
        return self.pairs.assign(items=self.pairs["rank"].map(joined).fillna(""))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the ranked items (each with its gold labels and its annotations) and the confused pairs
        (each with its items)."""
        labels, gold, _ = self._per_item_text()
        a = self.annotations
        per_rank = {
            int(r): [{"annotator": x, "label": y} for x, y in zip(g["annotator"], g["label"])]
            for r, g in a.groupby("rank", sort=False)
        }
        items = []
        for row in self.items.itertuples(index=False):
            d = row._asdict()
            d["gold"] = str(gold.get(row.rank, "")).split("|") if row.rank in gold.index else []
            d["annotations"] = per_rank.get(int(row.rank), [])
            items.append(d)
        pi = self.pair_items
        behind = {int(p): list(zip(g["item"], g["observed"])) for p, g in pi.groupby("pair", sort=False)}
        pairs = []
        for row in self.pairs.itertuples(index=False):
            d = row._asdict()
            d["items"] = [{"item": i, "observed": o} for i, o in behind.get(int(row.rank), [])]
            pairs.append(d)
        return nan_to_none(
            {
                "n_pairable": self.n_pairable,
                "n_disagreeing": self.n_disagreeing,
                "dawid_skene": self.dawid_skene,
                "level": self.level,
                "ranking": list(self.ranking),
                "categories": list(self.categories),
                "items": items,
                "pairs": pairs,
            }
        )

    def __str__(self) -> str:
        f = self.to_frame()
        lines = [
            f"Items to adjudicate: {self.n_disagreeing} of {self.n_pairable} items with 2+ annotations disagree"
            + (f" (top {len(f)} shown)" if len(f) < self.n_disagreeing else ""),
            "  ranked by " + "; then ".join(self.ranking),
        ]
        if len(f):
            cols = ["rank", "item", "n_annotations", "agreement"]
            cols += ["disagreement"] if self.level != "nominal" else []  # nominal: 1 - agreement
            cols += ["tie"] + (["entropy", "ds_label"] if self.dawid_skene else []) + ["gold", "labels"]
            shown = f[cols].copy()
            shown["item"] = shown["item"].map(_short)
            # a tie is shown as one: every tied majority label, as the gold-label rules keep them
            shown["gold"] = [_short(g) + (" (tie)" if t else "") for g, t in zip(shown["gold"], shown["tie"])]
            if self.dawid_skene:
                shown["ds_label"] = shown["ds_label"].map(_short)
            shown["labels"] = shown["labels"].map(_short)
            lines += ["  " + line for line in shown.round(3).to_string(index=False).splitlines()]
            a = self.annotations
            if len(a) and not a["annotator"].isna().all():  # a count table has no annotators
                entries = (a["annotator"].map(printable) + "=" + a["label"].map(printable)).groupby(
                    a["rank"], sort=False
                )
                who = {rank: _shorten(list(e)) for rank, e in entries}
                width = max(len(_short(i)) for i in f["item"])
                lines += ["", "Who said what (annotator=label)"]
                lines += [f"  {_short(item):>{width}}  {who.get(r, '')}" for item, r in zip(f["item"], f["rank"])]
        lines += ["", *self._pairs_lines()]
        return "\n".join(lines)

    def _pairs_lines(self) -> list[str]:
        p = self.pairs_frame()
        lines = [f"Most confused label pairs ({len(p)} shown; observed / expected coincidences)"]
        if len(p):
            cols = ["rank", "label_a", "label_b", "observed", "expected", "ratio", "share", "n_items"]
            shown = p[cols].copy()
            for c in ("label_a", "label_b"):
                shown[c] = shown[c].map(_short)
            lines += ["  " + line for line in shown.round(3).to_string(index=False).splitlines()]
        return lines

    def pairs_text(self) -> str:
        """The terminal's view of the label pairs alone (``iaa disagreements --pairs``): the ranked pairs, then the
        items behind each, largest contribution first."""
        lines = self._pairs_lines()
        pi = self.pair_items
        if len(self.pairs) and len(pi):
            lines += ["", "Items behind each pair (largest share of the pair's coincidences first)"]
            behind = {int(k): list(g["item"]) for k, g in pi.groupby("pair", sort=False)}
            for row in self.pairs.itertuples(index=False):
                items = behind.get(int(row.rank), [])
                lines.append(f"  {row.rank:>3}  {_short(row.label_a)} / {_short(row.label_b)}: "
                             f"{_shorten([_short(i) for i in items])}")  # fmt: skip
        return "\n".join(lines)

    def __repr__(self) -> str:
        """A short summary (what is inside, the first items to adjudicate); ``print`` shows the lists."""
        first = ", ".join(_short(i) for i in self.items["item"].head(3))
        more = f", ... (+{len(self.items) - 3} more)" if len(self.items) > 3 else ""
        head = f"; first: {first}{more}" if first else ""
        return (
            f"Disagreements({self.n_disagreeing} of {self.n_pairable} items with 2+ annotations disagree, "
            f"{len(self.items)} listed{head}; {len(self.pairs)} label pairs; print() it for the lists, "
            ".to_frame() for the table)"
        )


#: Longest text of a cell of the terminal table (a longer name is cut, with "..."; CSV and JSON keep it whole).
CELL_WIDTH = 60


def _short(value: Any) -> str:
    """A value as the terminal table shows it: control characters escaped (:func:`printable`), cut at
    :data:`CELL_WIDTH` characters."""
    text = printable(value)
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 3] + "..."


def _shorten(entries: list[str], limit: int = 100) -> str:
    """``entries`` joined by commas, as many as fit in ``limit`` characters (at least one, cut when longer),
    saying how many were left out."""
    text = ", ".join(entries)
    if len(text) <= limit:
        return text
    shown: list[str] = []
    used = 0
    for e in entries:
        if shown and used + len(e) + 2 > limit:
            break
        shown.append(e)
        used += len(e) + 2
    if len(shown[0]) > limit:  # one long entry (a free text): cut it
        shown[0] = shown[0][: limit - 3] + "..."
    rest = len(entries) - len(shown)
    return ", ".join(shown) + (f", ... (+{rest} more)" if rest else "")


def _entry_pairs(item: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All pairs (j, j') with j < j' of entries of the same item; ``item`` sorted. Grouped by entries per item."""
    if item.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    sizes = np.diff(np.r_[starts, item.size])
    left, right = [], []
    for m in np.unique(sizes[sizes >= 2]):  # one pass per distinct number of labels on an item (at most C)
        s = starts[sizes == m]
        iu, iw = np.triu_indices(int(m), 1)
        left.append((s[:, None] + iu[None, :]).ravel())
        right.append((s[:, None] + iw[None, :]).ravel())
    if not left:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(left), np.concatenate(right)


@validate(
    top=NoneOr(Whole(0)),
    items_per_pair=NoneOr(Whole(0)),
    dawid_skene=AnyOf(Flag(), Choice("auto"), what="True, False or 'auto'"),
)
def disagreements(
    data: Any,
    *,
    top: int | None = None,
    items_per_pair: int | None = None,
    dawid_skene: bool | Literal["auto"] = "auto",
    max_iter: int = 100,
    progress: bool | None = None,
) -> Disagreements:
    r"""The items to adjudicate, ranked by how unsettled they are, and the label pairs annotators confuse most.

    **Items.** Every item with two or more annotations that do not all agree is ranked by the keys of
    :data:`RANKING`, in order:

    1. its disagreement at the data's level, highest first: the mean of Krippendorff's difference function over
       the item's pairs of annotations,

       .. math::

           D_i = \frac{\sum_{c \ne k} n_{ic}\, n_{ik}\, \delta^2_{ck}}{n_i (n_i - 1)}

       with :math:`\delta^2` of the level (Krippendorff 2011): nominal 1 for two different labels (so
       :math:`D_i = 1 - P_i`, one minus the item agreement
       :math:`P_i = \sum_c n_{ic}(n_{ic} - 1) / (n_i(n_i - 1))` of :func:`item_agreement`); ordinal the squared
       difference of the categories' mid-ranks among the pairable values; interval :math:`(c - k)^2`; ratio
       :math:`((c - k)/(c + k))^2`. At the interval level a 1-vs-5 split (16) comes before a 3-vs-4 one (1);
    2. a tied majority (several labels share the most votes, as :func:`gold_standard` keeps them) before a clear
       one;
    3. the entropy of the Dawid-Skene posterior :math:`\pi_{it}` (:func:`gold_standard` with
       ``rule='dawid_skene'``), :math:`H_i = -\sum_t \pi_{it} \log \pi_{it} / \log C`, highest first: the
       model's own doubt, which weighs each annotator by their estimated reliability;
    4. more annotations first (more people disagreeing);
    5. the data's item order.

    **Label pairs.** From Krippendorff's coincidences :math:`o_{ck} = \sum_i n_{ic} n_{ik} / (n_i - 1)`
    (:func:`coincidence_matrix`) and the coincidences expected by chance,

    .. math::

        e_{ck} = \frac{n_c\, n_k}{n - 1}\quad (c \ne k),\qquad \text{ratio}_{ck} = \frac{o_{ck}}{e_{ck}}

    with :math:`n_c = \sum_k o_{ck}` the pairable values of category c and :math:`n` their total (Krippendorff
    2011). Every pair of different labels with :math:`o_{ck} > 0` is ranked by the ratio, highest first (then by
    :math:`o_{ck}`): a ratio near 1 means the two labels meet as often as if annotators labelled at random, above
    1 that they are confused more than chance. Each pair lists the items behind it, by their share
    :math:`n_{ic} n_{ik} / (n_i - 1)` of :math:`o_{ck}`.

    Everything is array algebra on the items × categories counts (the within-item label pairs are formed once per
    distinct number of labels on an item); Dawid-Skene runs its EM (:func:`gold_standard`).

    Parameters
    ----------
    data : Annotations or convertible
        The annotations (per-item counts are needed; a count table is read without Dawid-Skene).
    top : int, optional
        List only the ``top`` first items and pairs (default, or 0: all, as ``iaa disagreements --top 0``). The
        ranking is over all of them.
    items_per_pair : int, optional
        List only this many items behind each pair, those with the largest share first (default, or 0: all;
        ``n_items`` counts them all).
    dawid_skene : bool or 'auto', default 'auto'
        Compute the Dawid-Skene posterior for the entropy key; ``'auto'``: when the data has annotators and the
        annotations themselves (not a count table) and its confusion tables, annotators × labels², hold at most
        :data:`DS_CELLS` (2**24) cells; ``True``: always, or a ``NotEnoughMemoryError`` before allocating when
        they would not fit in the available memory.
    max_iter : int, default 100
        Largest number of Dawid-Skene EM iterations.
    progress : bool, optional
        Show the EM's progress on stderr (default: only on a terminal).

    Returns
    -------
    Disagreements
        ``items`` (ranked), ``annotations`` (who said what on them), ``pairs`` (ranked), ``pair_items``.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The data holds only sums over items (no per-item counts) or fractional counts, or ``dawid_skene=True`` on a
        count table.
    NotEnoughMemoryError
        ``dawid_skene=True`` and its annotators × labels² confusion tables would not fit in the available memory
        (raised before allocating; a ``ValueError``).

    See Also
    --------
    item_agreement, coincidence_matrix, gold_standard

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the EM
    algorithm. Applied Statistics 28(1), 20–28.

    Examples
    --------
    Item t2 splits 1 : 1 (agreement 0, a tie), t3 has 2 : 1 (agreement 1/3); t1 is unanimous and not listed.
    ``neg`` and ``pos`` meet on t2 (1/(2-1) = 1) and t3 (2·1/(3-1) = 1): :math:`o = 2`; the pairable values are
    :math:`n_{neg} = 4`, :math:`n_{pos} = 3`, :math:`n = 7`, so :math:`e = 4 \cdot 3 / 6 = 2` and the ratio is 1:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("t1", "a", "pos"), ("t1", "b", "pos"), ("t2", "a", "neg"), ("t2", "b", "pos"),
    ...         ("t3", "a", "neg"), ("t3", "b", "neg"), ("t3", "c", "pos")]
    >>> d = ie.disagreements(pd.DataFrame(rows, columns=["item", "annotator", "label"]), dawid_skene=False)
    >>> d.items[["rank", "item", "agreement", "tie"]]
       rank item  agreement    tie
    0     1   t2   0.000000   True
    1     2   t3   0.333333  False
    >>> d.pairs[["label_a", "label_b", "observed", "expected", "ratio", "n_items"]]
      label_a label_b  observed  expected  ratio  n_items
    0     neg     pos       2.0       2.0    1.0        2
    """
    top = top or None  # 0: all, as the command line's --top 0
    items_per_pair = items_per_pair or None
    return _disagreements(as_annotations(data), top, items_per_pair, dawid_skene, max_iter, progress)


def _disagreements(
    data: Any,
    top: int | None,
    items_per_pair: int | None,
    dawid_skene: Any,
    max_iter: int,
    progress: bool | None,
    *,
    posteriors: np.ndarray | None = None,
    per_cat: np.ndarray | None = None,
    pair_top: Any = "top",
) -> Disagreements:
    """:func:`disagreements`' body. A cluster runs it on a partition of whole items with the global quantities it
    needs given: the items' Dawid-Skene ``posteriors`` (from the distributed EM), the pairable values per category
    ``per_cat`` (the ordinal positions and the expected coincidences), and ``pair_top`` (None: every label pair
    with its ``items_per_pair`` largest items, to be merged)."""
    pair_top = top if pair_top == "top" else pair_top
    if data.fractional:
        raise ValueError(
            "disagreements needs whole annotations; this count table holds fractional weights (nothing to adjudicate)"
        )
    if not data.has_item_counts:
        raise ValueError(
            "disagreements needs per-item counts; this data holds only sums over items (summarised by the Dask or "
            "DuckDB engine)"
        )
    can_ds = data.annotators is not None and data.label is not None and data.n_categories >= 2
    if dawid_skene is True and not can_ds:
        raise ValueError("dawid_skene=True needs the annotations with annotator identities (not a count table)")
    use_ds = bool(can_ds) if dawid_skene == "auto" else bool(dawid_skene)
    if posteriors is not None:
        use_ds = True
    elif use_ds:  # Dawid-Skene's EM holds an annotators x labels x labels confusion table and its temporaries
        ds_cells = float(cast(int, data.n_annotators)) * data.n_categories**2
        if dawid_skene == "auto" and ds_cells > DS_CELLS:
            use_ds = False
        elif dawid_skene is True:
            from iaa_engine.base._policy import check_memory

            check_memory(
                8.0 * (6.0 * ds_cells + 4.0 * data.n_items * data.n_categories),
                f"Dawid-Skene ({data.n_annotators} annotators x {data.n_categories}x{data.n_categories} labels)",
                "use dawid_skene=False or 'auto'",
            )

    c = data.counts
    n_cat = data.n_categories
    n_i = c.n_i
    count = c.count.astype(float)
    pairable = n_i >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement = np.where(pairable, (c.sumsq_i - n_i) / (n_i * (n_i - 1.0)), np.nan)
    top_count = c.max_i
    n_tied = np.bincount(c.item[count == top_count[c.item]], minlength=c.n_items)
    disagreeing = pairable & (agreement < 1.0 - 1e-12)

    entropy = np.full(c.n_items, np.nan)
    ds_label = np.full(c.n_items, -1, dtype=np.int64)
    ds_prob = np.full(c.n_items, np.nan)
    if use_ds:
        from iaa_engine.analysis._gold import gold_standard

        p = (
            posteriors
            if posteriors is not None
            else cast(
                pd.DataFrame, gold_standard(data, rule="dawid_skene", max_iter=max_iter, progress=progress).posteriors
            ).to_numpy()
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
        entropy = -plogp.sum(axis=1) / np.log(n_cat)
        ds_label = p.argmax(axis=1)
        ds_prob = p.max(axis=1)

    # --- within-item pairs of count entries (for the level's disagreement and the label pairs)
    ok_entry = pairable[c.item]
    e_idx = np.flatnonzero(ok_entry)
    left, right = _entry_pairs(c.item[e_idx])
    left, right = e_idx[left], e_idx[right]
    both = count[left] * count[right]  # n_ic n_ik of each pair of different labels on an item
    ca, cb = c.category[left], c.category[right]  # ca < cb: entries are sorted by category within an item
    if per_cat is None:
        per_cat = np.bincount(c.category[ok_entry], weights=count[ok_entry], minlength=n_cat)  # n_c (pairable values)

    # --- the level's disagreement per item: the mean delta^2 over its ordered pairs of annotations
    level = data.level or "nominal"
    values = data.category_values(level) if level in ("interval", "ratio") else None
    x = positions_from(level, per_cat, values, n_cat)
    dis_sum = np.bincount(c.item[left], weights=both * delta(level, x[ca], x[cb]), minlength=c.n_items)
    with np.errstate(divide="ignore", invalid="ignore"):
        disagreement = np.where(pairable, 2.0 * dis_sum / (n_i * (n_i - 1.0)), np.nan)

    # --- items: rank every disagreeing item (np.lexsort: the last key is the primary one)
    cand = np.flatnonzero(disagreeing)
    n_disagreeing = int(cand.size)
    if top is not None and cand.size > 4 * top:  # only items at least as disagreeing as the top-th can be listed
        kth = np.partition(-disagreement[cand], top - 1)[top - 1] if top > 0 else -np.inf
        cand = cand[-disagreement[cand] <= kth]  # ties with the top-th stay: the later keys decide among them
    ent_key = np.where(np.isnan(entropy[cand]), 0.0, -entropy[cand])
    order = cand[np.lexsort((cand, -n_i[cand], ent_key, (n_tied[cand] <= 1), -disagreement[cand]))]
    listed = order if top is None else order[:top]
    rank_of = np.zeros(c.n_items, dtype=np.int64)
    rank_of[listed] = np.arange(1, listed.size + 1)
    items = pd.DataFrame(
        {
            "rank": np.arange(1, listed.size + 1),
            "item": data.items.take(listed),
            "n_annotations": n_i[listed].astype(np.int64),
            "agreement": agreement[listed],
            "disagreement": disagreement[listed],
            "tie": n_tied[listed] > 1,
            "n_tied": n_tied[listed],
            "entropy": entropy[listed],
            "ds_label": data.categories.take(ds_label[listed]) if use_ds else [None] * listed.size,
            "ds_probability": ds_prob[listed],
        }
    )

    # --- the annotations of the listed items (or the count entries of a table without annotations)
    if data.label is not None and data.annotators is not None:
        is_listed = np.zeros(c.n_items, dtype=bool)
        is_listed[listed] = True
        sel = np.flatnonzero(is_listed[data.item])  # in the data's order (no sort); a gather of bytes, not of int64
        annotations = pd.DataFrame(
            {
                "rank": rank_of[data.item[sel]],
                "item": data.items.take(data.item[sel]),
                "annotator": data.annotators.take(cast(np.ndarray, data.annotator)[sel]),
                "label": data.categories.take(data.label[sel]),
            }
        )
    else:  # a count table: one row per label occurrence, no annotator
        keep = np.flatnonzero(rank_of[c.item] > 0)
        keep = keep[np.lexsort((c.category[keep], rank_of[c.item[keep]]))]
        rep = np.repeat(keep, c.count[keep].astype(np.int64))
        annotations = pd.DataFrame(
            {
                "rank": rank_of[c.item[rep]],
                "item": data.items.take(c.item[rep]),
                "annotator": [None] * rep.size,
                "label": data.categories.take(c.category[rep]),
            }
        )

    # --- label pairs: within-item pairs of count entries, weighted n_ic n_ik / (n_i - 1)
    w = both / (n_i[c.item[left]] - 1.0)
    key = ca * max(n_cat, 1) + cb
    # the off-diagonal coincidences, only the label pairs that occur (sparse: no labels x labels table)
    if max(n_cat, 1) ** 2 <= max(4 * key.size, 1 << 16):  # few labels: a lookup table instead of unique's sort
        seen = np.bincount(key, minlength=max(n_cat, 1) ** 2)
        cells = np.flatnonzero(seen)
        lookup = np.zeros(seen.size, dtype=np.int64)
        lookup[cells] = np.arange(cells.size)
        slot = lookup[key]
    else:
        cells, slot = np.unique(key, return_inverse=True)
        slot = slot.ravel()
    observed = np.bincount(slot, weights=w, minlength=cells.size)
    n_items_pair = np.bincount(slot, minlength=cells.size)
    n_total = float(per_cat.sum())
    occurs = np.flatnonzero(observed > 0)
    a_code, b_code = np.divmod(cells[occurs], max(n_cat, 1))
    expected = per_cat[a_code] * per_cat[b_code] / max(n_total - 1.0, 1.0)
    ratio = observed[occurs] / expected
    off_total = 2.0 * float(observed.sum())
    p_order = np.lexsort((cells[occurs], -observed[occurs], -ratio))
    if pair_top is not None:
        p_order = p_order[:pair_top]
    pslots = occurs[p_order]
    pairs = pd.DataFrame(
        {
            "rank": np.arange(1, pslots.size + 1),
            "label_a": data.categories.take(a_code[p_order]),
            "label_b": data.categories.take(b_code[p_order]),
            "observed": observed[pslots],
            "expected": expected[p_order],
            "ratio": ratio[p_order],
            "share": 2.0 * observed[pslots] / off_total if off_total > 0 else np.zeros(pslots.size),
            "n_items": n_items_pair[pslots].astype(np.int64),
        }
    )
    pair_rank = np.zeros(cells.size, dtype=np.int64)
    pair_rank[pslots] = np.arange(1, pslots.size + 1)
    pr = pair_rank[slot]
    # the items behind each listed pair: by pair, then the item's share of the pair's coincidences (largest first),
    # then the data's item order. Grouped by pair with one stable counting sort; within a pair only the
    # ``items_per_pair`` largest shares are sorted (one step per listed pair, not per annotation).
    sel = np.flatnonzero(pr > 0)
    sel = sel[np.argsort(pr[sel].astype(np.int16 if pslots.size < 2**15 else np.int64), kind="stable")]
    bounds = np.searchsorted(pr[sel], np.arange(1, pslots.size + 2))
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        group = sel[lo:hi]
        if items_per_pair is not None and group.size > items_per_pair:
            cut = -np.partition(-w[group], items_per_pair - 1)[items_per_pair - 1]  # the k-th largest share
            tied = group[w[group] == cut]
            above = group[w[group] > cut]
            group = np.concatenate([above, tied[np.argsort(left[tied])][: items_per_pair - above.size]])
        parts.append(group[np.lexsort((left[group], -w[group]))])
    sel = np.concatenate(parts) if parts else sel
    it = c.item[left[sel]]
    pair_items = pd.DataFrame(
        {"pair": pr[sel], "item": data.items.take(it), "item_rank": rank_of[it], "observed": w[sel]}
    )
    return Disagreements(
        items=items,
        annotations=annotations,
        pairs=pairs,
        pair_items=pair_items,
        categories=list(data.categories),
        n_pairable=int(pairable.sum()),
        n_disagreeing=n_disagreeing,
        dawid_skene=use_ds,
        ranking=tuple(
            k.replace("the data's level", f"the {level} level") for k in RANKING if use_ds or "Dawid-Skene" not in k
        ),
        level=level,
    )
