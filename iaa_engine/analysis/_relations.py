r"""Agreement on relations between regions that were matched across annotators (:func:`match_regions`)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.analysis._facets import label_agreement
from iaa_engine.base._params import Instance, NoneOr, Text, validate
from iaa_engine.base._policy import UndefinedMetricWarning
from iaa_engine.base._results import Result, nan_to_none, printable
from iaa_engine.data._model import Annotations
from iaa_engine.data._regions import RegionMatch
from iaa_engine.metrics._alpha import krippendorff_alpha

__all__ = ["NO_LABEL", "NO_RELATION", "RelationAgreement", "relation_agreement"]

#: The label an annotator of an item gets for a relation she did not draw.
NO_RELATION = "(no relation)"
#: The label of a relation drawn without a label (a missing or blank label, an empty list of labels).
NO_LABEL = "(no label)"
_DIRECTIONS = {"right": "->", "left": "<-", "bi": "<->"}


@dataclass(frozen=True, eq=False, repr=False)
class RelationAgreement(Result):
    r"""Agreement on relations between matched regions: the result of :func:`relation_agreement`.

    Attributes
    ----------
    alpha : float
        Nominal Krippendorff's alpha over the relation units (a relation one annotator did not draw is the label
        ``no_relation`` for her).
    per_label : pandas.DataFrame
        Per relation label ``ℓ``: ``frequency``, ``alpha`` (alpha of "ℓ or not", :func:`label_agreement`) and
        ``n_pairable``, indexed by label (``no_relation`` left out).
    pairs : pandas.DataFrame
        Per annotator pair with shared items: ``annotator_a``, ``annotator_b``, ``n_relations_a``,
        ``n_relations_b``, ``n_matched`` (the same relation unit with the same label) and ``f1``
        (:math:`2 m / (n_a + n_b)`), on the items both annotated.
    units : pandas.DataFrame
        One row per relation unit and annotator of its item: ``item``, ``from_unit``, ``to_unit``, ``direction``
        (``'->'`` or ``'<->'``), ``annotator``, ``label``.
    annotations : Annotations
        The relation units as items named ``"<item>#<from unit><direction><to unit>"``.
    n_relations, n_units : int
        Relations drawn, relation units.
    no_relation : str
        The label of a relation not drawn.
    notes : list of str
        What was left out and why.

    References
    ----------
    Krippendorff, K. (2004). Content analysis: an introduction to its methodology (2nd ed.). Sage.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> spans = pd.DataFrame({"item": "d1", "annotator": ["ann", "ann", "bob", "bob"], "label": "ENT",
    ...                       "start": [0, 10, 0, 10], "end": [5, 14, 5, 14]})
    >>> m = ie.match_regions(spans, kind="span")
    >>> rel = pd.DataFrame({"annotator": ["ann", "bob"], "from_id": [0, 2], "to_id": [1, 3],
    ...                     "label": ["works_for", "works_for"]})
    >>> ie.relation_agreement(m, rel).pairs[["annotator_a", "annotator_b", "n_matched", "f1"]]
      annotator_a annotator_b  n_matched   f1
    0         ann         bob          1  1.0
    """

    alpha: float
    per_label: pd.DataFrame
    pairs: pd.DataFrame
    units: pd.DataFrame
    annotations: Annotations | None
    n_relations: int
    n_units: int
    no_relation: str = NO_RELATION
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: alpha, the per-label table, the pairs, the sizes and the notes."""
        per_label = self.per_label.reset_index().rename(columns={"index": "label"})
        return {
            "alpha": nan_to_none(self.alpha),
            "n_relations": self.n_relations,
            "n_units": self.n_units,
            "per_label": [{k: nan_to_none(v) for k, v in r.items()} for r in per_label.to_dict(orient="records")],
            "pairs": [{k: nan_to_none(v) for k, v in r.items()} for r in self.pairs.to_dict(orient="records")],
            "notes": list(self.notes),
        }

    def to_frame(self) -> pd.DataFrame:
        """The per-label table, one row per relation label."""
        return self.per_label.rename_axis("label").reset_index()


def _region_positions(
    relations: pd.DataFrame, col: str, annotator: str, regions: pd.DataFrame | None, region_id: str | None
) -> np.ndarray:
    """The row positions (in the table given to :func:`match_regions`) of the regions a relations column names."""
    values = relations[col]
    if region_id is None:
        pos = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(pos) | (pos != np.round(pos))
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{col} names a region by its row position in the regions table (a whole number) unless "
                f"region_id= names an id column; row {r + 1} has {printable(values.iloc[r])!r}"
            )
        return pos.astype(np.int64)
    if regions is None:
        raise ValueError("region_id= needs regions= (the table given to match_regions, with its id column)")
    if region_id not in regions.columns or annotator not in regions.columns:
        raise ValueError(f"the regions table needs the columns {region_id!r} and {annotator!r}")
    key = pd.MultiIndex.from_arrays([regions[annotator].astype(str), regions[region_id].astype(str)])
    if key.has_duplicates:
        dup = key[key.duplicated()][0]
        raise ValueError(f"region id {printable(dup[1])!r} of annotator {printable(dup[0])!r} is not unique")
    look = pd.MultiIndex.from_arrays([relations[annotator].astype(str), values.astype(str)])
    pos = key.get_indexer(look)
    if (pos < 0).any():
        r = int(np.flatnonzero(pos < 0)[0])
        raise ValueError(
            f"relation {r + 1} names region {printable(values.iloc[r])!r} of annotator "
            f"{printable(relations[annotator].iloc[r])!r}, which is not in the regions table"
        )
    return pos.astype(np.int64)


def _relation_labels(values: pd.Series) -> np.ndarray:
    """Each relation's label as text: a list of labels joined, sorted, with ``+``; a missing or blank label, or an
    empty list, :data:`NO_LABEL` (never the text 'nan')."""
    out = np.empty(len(values), dtype=object)
    is_list = np.fromiter((isinstance(v, (list, tuple, np.ndarray)) for v in values), bool, len(values))
    if is_list.any():
        out[is_list] = [
            "+".join(sorted({str(x).strip() for x in v if not _blank(x)})) for v in values.to_numpy()[is_list]
        ]
    plain = values[~is_list]
    missing = plain.isna().to_numpy()
    text = plain.astype(str).str.strip().to_numpy(dtype=object)
    text[missing] = ""
    out[~is_list] = text
    out[out == ""] = NO_LABEL
    return out


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, float) and v != v) or str(v).strip() == ""


@validate(
    relations=Instance(pd.DataFrame, what="a pandas DataFrame"),
    regions=NoneOr(Instance(pd.DataFrame, what="a pandas DataFrame")),
    region_id=NoneOr(Text()),
    from_region=Text(),
    to_region=Text(),
    direction=NoneOr(Text()),
    no_relation=Text(),
)
def relation_agreement(
    match: Any,
    relations: pd.DataFrame,
    *,
    regions: pd.DataFrame | None = None,
    region_id: str | None = None,
    from_region: str = "from_id",
    to_region: str = "to_id",
    annotator: str = "annotator",
    label: str = "label",
    direction: str | None = None,
    no_relation: str = NO_RELATION,
) -> RelationAgreement:
    r"""Agreement on relations between regions matched across annotators (the units of :func:`match_regions`).

    A relation drawn by annotator a from her region r to her region s becomes a *relation unit*
    (u(r), u(s), direction), u the unit :func:`match_regions` put the region in, with its label. A
    ``direction`` of ``'left'`` is the relation (u(s), u(r), ``'->'``); ``'bi'`` is the unordered pair
    (sorted units, ``'<->'``); ``'right'`` (the default) keeps (u(r), u(s), ``'->'``). Every annotator of the
    item who did not draw the unit gets the label ``no_relation`` for it, so a relation one annotator did not draw
    counts against her, as a missed region does:

    .. math::

        x_{R a} = \begin{cases} \text{label of } a\text{'s relation } R \\ \texttt{no\_relation}
        & \text{if } a \text{ annotated the item but did not draw } R \end{cases}

    Then nominal Krippendorff's alpha over the relation units, per relation label the alpha of "ℓ or not"
    (:func:`label_agreement`), and per annotator pair the F1 of the relations both drew with the same label
    (:math:`2 m_{ab} / (n_a + n_b)` on the items both annotated). Several labels of one relation (a list) are
    joined, sorted, with ``+``; a relation without a label (missing, blank, an empty list) has the label
    ``'(no label)'`` (:data:`NO_LABEL`, the name the Label Studio connector gives it). Refused with a message:
    a relation from a region to itself, two rows of one annotator for the same relation unit (a relation turned
    round with ``'left'`` and the two ways of ``'bi'`` being the same unit; give several labels as a list
    instead), and a drawn relation whose label is ``no_relation`` (it would merge with the relations not
    drawn).

    Parameters
    ----------
    match : RegionMatch
        The regions matched across annotators (:func:`match_regions`).
    relations : pandas.DataFrame
        One row per relation: ``annotator``, ``from_region``, ``to_region``, ``label`` and optionally
        ``direction``.
    regions : pandas.DataFrame, optional
        The table given to :func:`match_regions`, needed when ``region_id`` names its id column.
    region_id : str, optional
        The regions table's id column (ids unique per annotator, as Label Studio's region ids). Without it, the
        relations name regions by their row position (0-based) in that table.
    from_region, to_region, annotator, label : str
        Column names of ``relations``.
    direction : str, optional
        Column of directions ``'right'``, ``'left'`` or ``'bi'`` (Label Studio's); default every relation runs
        from ``from_region`` to ``to_region``.
    no_relation : str, default '(no relation)'
        The label of a relation not drawn.

    Returns
    -------
    RelationAgreement

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``match`` is not a :class:`RegionMatch`.
    ValueError
        A column is missing; a relation names a region that is not in the table, or was drawn by another
        annotator, or links regions of two items, or a region to itself; an unknown direction; an annotator
        gives one relation unit two rows; a label equal to ``no_relation``.

    References
    ----------
    Krippendorff, K. (2004). Content analysis: an introduction to its methodology (2nd ed.). Sage.

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> spans = pd.DataFrame({"item": "d1", "annotator": ["ann", "ann", "bob", "bob", "cy", "cy"],
    ...                       "label": "ENT", "start": [0, 10] * 3, "end": [5, 14] * 3})
    >>> m = ie.match_regions(spans, kind="span")
    >>> rel = pd.DataFrame({"annotator": ["ann", "bob", "cy"], "from_id": [0, 2, 5], "to_id": [1, 3, 4],
    ...                     "label": ["works_for"] * 3})
    >>> res = ie.relation_agreement(m, rel)
    >>> res.units[["from_unit", "to_unit", "direction", "annotator", "label"]]
       from_unit  to_unit direction annotator          label
    0          0        1        ->       ann      works_for
    1          0        1        ->       bob      works_for
    2          0        1        ->        cy  (no relation)
    3          1        0        ->       ann  (no relation)
    4          1        0        ->       bob  (no relation)
    5          1        0        ->        cy      works_for
    """
    if not isinstance(match, RegionMatch):
        raise TypeError(f"match must be the result of match_regions (a RegionMatch); got {type(match).__name__}")
    cols = [annotator, from_region, to_region, label] + ([direction] if direction else [])
    missing = [c for c in cols if c not in relations.columns]
    if missing:
        raise ValueError(
            f"the relations table needs the column(s) {missing!r}; it has {list(map(str, relations.columns))!r}"
        )
    notes: list[str] = []
    units = match.units
    marked = units[units["region"] >= 0]
    n_regions = int(max(units["region"].max() + 1, 0))
    reg_item = np.full(n_regions, None, dtype=object)
    reg_unit = np.full(n_regions, -1, dtype=np.int64)
    reg_ann = np.full(n_regions, None, dtype=object)
    rpos = marked["region"].to_numpy()
    reg_item[rpos] = marked["item"].to_numpy()
    reg_unit[rpos] = marked["unit"].to_numpy()
    reg_ann[rpos] = marked["annotator"].astype(str).to_numpy()

    rel = relations.reset_index(drop=True)
    src = _region_positions(rel, from_region, annotator, regions, region_id)
    dst = _region_positions(rel, to_region, annotator, regions, region_id)
    for pos, col in ((src, from_region), (dst, to_region)):
        bad = (pos < 0) | (pos >= n_regions)
        bad[~bad] = reg_unit[pos[~bad]] < 0
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(f"relation {r + 1}: {col} {printable(rel[col].iloc[r])!r} is not a matched region")
    who = rel[annotator].astype(str).to_numpy()
    wrong = (reg_ann[src] != who) | (reg_ann[dst] != who)
    if wrong.any():
        r = int(np.flatnonzero(wrong)[0])
        raise ValueError(f"relation {r + 1} links regions that annotator {printable(who[r])!r} did not draw")
    cross = reg_item[src] != reg_item[dst]
    if cross.any():
        r = int(np.flatnonzero(cross)[0])
        raise ValueError(f"relation {r + 1} links regions of two items ({reg_item[src][r]!r}, {reg_item[dst][r]!r})")
    u_from, u_to = reg_unit[src], reg_unit[dst]
    dirs = np.full(len(rel), "->", dtype=object)
    if direction:
        d = rel[direction].fillna("right").astype(str).str.strip().str.lower()
        unknown = ~d.isin(list(_DIRECTIONS))
        if unknown.any():
            r = int(np.flatnonzero(unknown.to_numpy())[0])
            raise ValueError(f"a direction is 'right', 'left' or 'bi'; relation {r + 1} has {d.iloc[r]!r}")
        d = d.to_numpy()
        left = d == "left"
        u_from, u_to = np.where(left, u_to, u_from), np.where(left, u_from, u_to)
        bi = d == "bi"
        u_from, u_to = np.where(bi, np.minimum(u_from, u_to), u_from), np.where(bi, np.maximum(u_from, u_to), u_to)
        dirs[bi] = "<->"
    self_loop = src == dst
    if self_loop.any():
        r = int(np.flatnonzero(self_loop)[0])
        raise ValueError(
            f"relation {r + 1} links region {printable(rel[from_region].iloc[r])!r} to itself; a relation links two "
            "regions"
        )
    labels = _relation_labels(rel[label])
    clash = labels == no_relation
    if clash.any():
        r = int(np.flatnonzero(clash)[0])
        raise ValueError(
            f"relation {r + 1} has the label {no_relation!r}, which stands for a relation not drawn; name the "
            "absence another way with no_relation= (e.g. no_relation='(none drawn)')"
        )
    drawn = pd.DataFrame(
        {
            "item": reg_item[src],
            "from_unit": u_from,
            "to_unit": u_to,
            "direction": dirs,
            "annotator": who,
            "label": labels,
        }
    )
    key = ["item", "from_unit", "to_unit", "direction", "annotator"]
    again = drawn.duplicated(key, keep=False).to_numpy()
    if again.any():
        rows = np.flatnonzero(again)
        first = rows[0]
        same = rows[(drawn.loc[rows, key] == drawn.loc[first, key]).all(axis=1).to_numpy()]
        arrow = {"->": "->", "<->": "<->"}[drawn.at[first, "direction"]]
        raise ValueError(
            f"annotator {printable(who[first])!r} drew the relation unit {drawn.at[first, 'from_unit']} {arrow} "
            f"{drawn.at[first, 'to_unit']} of item {printable(drawn.at[first, 'item'])!r} twice (relation rows "
            f"{same[0] + 1} and {same[1] + 1}, counting a relation turned round with 'left', or the two ways of "
            "'bi', as the same); keep one row per relation, and give a relation with several labels its labels "
            "as a list"
        )
    drawn = drawn.sort_values(key, kind="stable").reset_index(drop=True)
    # every annotator of the item for every relation unit of the item
    present = units[["item", "annotator"]].drop_duplicates()
    present = present.assign(annotator=present["annotator"].astype(str))
    rel_units = drawn[key[:-1]].drop_duplicates()
    grid = rel_units.merge(present, on="item", how="inner")
    full = grid.merge(drawn, on=key, how="left")
    full["label"] = full["label"].fillna(no_relation)
    full = full.sort_values(key, kind="stable").reset_index(drop=True)
    n_units = len(rel_units)
    if n_units == 0:
        notes.append("no relation was drawn")
        empty = pd.DataFrame(columns=["frequency", "alpha", "n_pairable"])
        return RelationAgreement(np.nan, empty, pd.DataFrame(), full, None, 0, 0, no_relation, notes)
    names = (
        full["item"].astype(str) + "#" + full["from_unit"].astype(str) + full["direction"] + full["to_unit"].astype(str)
    )
    data = Annotations.from_long(pd.DataFrame({"item": names, "annotator": full["annotator"], "label": full["label"]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        alpha = float(krippendorff_alpha(data, level="nominal"))
    per_label = label_agreement(data)
    per_label = per_label[per_label.index != no_relation]

    # pairs: relations both drew with the same label, on the items both annotated
    both = present.merge(present, on="item", suffixes=("_a", "_b"))
    both = both[both["annotator_a"] < both["annotator_b"]]
    n_by = drawn.groupby(["item", "annotator"]).size().rename("n").reset_index()
    na = both.merge(n_by.rename(columns={"annotator": "annotator_a", "n": "n_a"}), how="left")
    na = na.merge(n_by.rename(columns={"annotator": "annotator_b", "n": "n_b"}), how="left").fillna(
        {"n_a": 0, "n_b": 0}
    )
    m = drawn.merge(drawn, on=["item", "from_unit", "to_unit", "direction", "label"], suffixes=("_a", "_b"))
    m = m[m["annotator_a"] < m["annotator_b"]].groupby(["annotator_a", "annotator_b"]).size().rename("n_matched")
    pairs = na.groupby(["annotator_a", "annotator_b"])[["n_a", "n_b"]].sum()
    pairs = pairs.join(m, how="left").fillna({"n_matched": 0}).reset_index()
    pairs = pairs.rename(columns={"n_a": "n_relations_a", "n_b": "n_relations_b"})
    for c in ("n_relations_a", "n_relations_b", "n_matched"):
        pairs[c] = pairs[c].astype(np.int64)
    tot = pairs["n_relations_a"] + pairs["n_relations_b"]
    pairs["f1"] = np.where(tot > 0, 2.0 * pairs["n_matched"] / tot.where(tot > 0, 1), np.nan)
    return RelationAgreement(alpha, per_label, pairs, full, data, int(len(rel)), n_units, no_relation, notes)
