"""Regions matched across annotators: text spans, time intervals, boxes, polygons, ellipses, key points, masks.

A region annotation (a named-entity span, a bounding box, an audio segment) is not an answer to a fixed item: the
items, *units*, have to be found first by matching the regions of different annotators of one item (a document, an
image, a recording). :func:`match_regions` does that with an optimal assignment (the Hungarian method, SciPy's
``linear_sum_assignment``) on the regions' overlap (intersection over union) or, for key points, their distance,
and returns

* the units as :class:`~iaa_engine.Annotations`: every annotator of the item who did not mark a unit gets the
  explicit value ``no_region`` for it, so that a missed region counts as a disagreement in every coefficient;
* per annotator pair, the precision, recall and F1 of region matching (each pair matched directly), the way
  Label Studio Enterprise and detection benchmarks report it.

This module is a converter (its output is the data model every metric reads), so it sits in the data layer: it uses
no coefficient. Polygons, ellipses and rotated boxes need shapely (``pip install "iaa-engine[regions]"``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, Choice, Flag, NoneOr, Real, Text, validate
from iaa_engine.base._policy import invalid
from iaa_engine.base._results import PairwiseMatrix, Result, nan_to_none
from iaa_engine.data._model import MAX_MAGNITUDE, Annotations

__all__ = ["REGION_KINDS", "NO_REGION", "RegionMatch", "match_regions", "span_matches"]

#: The kinds of region :func:`match_regions` matches, and the geometry columns each reads (``rotation`` optional).
REGION_KINDS = {
    "span": ("start", "end"),
    "box": ("x", "y", "width", "height"),
    "polygon": ("points",),
    "ellipse": ("x", "y", "radius_x", "radius_y"),
    "keypoint": ("x", "y"),
    "mask": ("mask",),
}
#: the label an annotator of an item gets for a unit she did not mark
NO_REGION = "(no region)"
#: vertices of the polygon that stands for an ellipse (its area is sin(2π/n)·n/2π = 99.96 % of the ellipse's)
ELLIPSE_VERTICES = 128
_IOU_KINDS = ("span", "box", "polygon", "ellipse", "mask")
_RAGGED = ("polygon", "mask")  # no sort key: their regions keep the rows' order within an annotator


def _shapely() -> Any:
    try:
        import shapely
    except ImportError:  # pragma: no cover - shapely is a test dependency
        raise ImportError(
            "polygons, ellipses and rotated boxes need shapely >= 2: pip install 'iaa-engine[regions]' "
            "(or pip install shapely)"
        ) from None
    return shapely


# --------------------------------------------------------------------------- geometry


def _floats(frame: pd.DataFrame, columns: tuple[str, ...], kind: str) -> np.ndarray:
    """The columns as an (n, k) float array; a missing column or a non-finite value is an error naming it."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"regions of kind {kind!r} need the columns {', '.join(columns)}; missing: {', '.join(missing)}"
        )
    for name in columns:
        column = frame[name]
        flags = (
            np.ones(len(column), bool)
            if pd.api.types.is_bool_dtype(column.dtype)
            else column.map(type).isin([bool, np.bool_]).to_numpy()
            if column.dtype == object
            else np.zeros(len(column), bool)
        )
        if flags.any():
            row = int(np.flatnonzero(flags)[0])
            raise ValueError(
                f"{name} of region {row} (row {frame.index[row]!r}) is True/False: give a number (a boolean is not "
                "read as 0 or 1)"
            )
    try:
        out = frame[list(columns)].to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"the columns {', '.join(columns)} of {kind!r} regions must hold numbers") from None
    bad = ~np.isfinite(out)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(f"{columns[col]} of region {row} (row {frame.index[row]!r}) is not a finite number")
    big = np.abs(out) > MAX_MAGNITUDE
    if big.any():
        row, col = np.argwhere(big)[0]
        raise ValueError(
            f"{columns[col]} of region {row} (row {frame.index[row]!r}) is beyond ±{MAX_MAGNITUDE:g}: areas and "
            "unions of such coordinates overflow; rescale them (IoU does not change when every coordinate is "
            "divided by the same number)"
        )
    return out


def _rotation(frame: pd.DataFrame) -> np.ndarray:
    if "rotation" not in frame.columns:
        return np.zeros(len(frame))
    rot = pd.to_numeric(frame["rotation"], errors="coerce").fillna(0.0).to_numpy(dtype=float)
    if not np.isfinite(rot).all():
        raise ValueError("rotation must be a finite number of degrees")
    return rot


def _rotate(dx: np.ndarray, dy: np.ndarray, degrees: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Offsets rotated by ``degrees`` (clockwise on screen: image coordinates grow to the right and down)."""
    t = np.deg2rad(degrees)[:, None]
    c, s = np.cos(t), np.sin(t)
    return dx * c - dy * s, dx * s + dy * c


def _box_corners(g: np.ndarray, rot: np.ndarray) -> np.ndarray:
    """(n, 4, 2) corners of boxes (x, y, width, height) rotated about their top-left corner."""
    x, y, w, h = g.T
    dx = np.stack([np.zeros_like(w), w, w, np.zeros_like(w)], axis=1)
    dy = np.stack([np.zeros_like(h), np.zeros_like(h), h, h], axis=1)
    rx, ry = _rotate(dx, dy, rot)
    return np.stack([x[:, None] + rx, y[:, None] + ry], axis=2)


def _ellipse_vertices(g: np.ndarray, rot: np.ndarray) -> np.ndarray:
    """(n, ELLIPSE_VERTICES, 2) vertices of ellipses (centre x, y, radii, rotation about the centre)."""
    x, y, rx, ry = g.T
    t = np.linspace(0.0, 2.0 * np.pi, ELLIPSE_VERTICES, endpoint=False)[None, :]
    px, py = _rotate(rx[:, None] * np.cos(t), ry[:, None] * np.sin(t), rot)
    return np.stack([x[:, None] + px, y[:, None] + py], axis=2)


def _geometries(frame: pd.DataFrame, kind: str) -> Any:
    """The regions as an array of shapely polygons (kinds polygon, ellipse, rotated box)."""
    shapely = _shapely()
    if kind == "polygon":
        if "points" not in frame.columns:
            raise ValueError("regions of kind 'polygon' need the column points (a list of [x, y] per region)")
        points = frame["points"].to_numpy()
        sizes = np.fromiter((len(p) if isinstance(p, (list, tuple, np.ndarray)) else 0 for p in points), int)
        if (sizes < 3).any():
            row = int(np.flatnonzero(sizes < 3)[0])
            raise ValueError(f"polygon {row} (row {frame.index[row]!r}) needs at least 3 points [x, y]")
        try:
            flat = np.asarray(list(itertools.chain.from_iterable(points)), dtype=float).reshape(-1, 2)
        except (TypeError, ValueError):
            raise ValueError("every polygon point must be a pair of numbers [x, y]") from None
        if not np.isfinite(flat).all():
            raise ValueError("polygon points must be finite numbers")
        rings = shapely.linearrings(flat, indices=np.repeat(np.arange(len(points)), sizes))
        geoms = shapely.make_valid(shapely.polygons(rings))  # a self-intersecting outline: its valid area
    elif kind == "ellipse":
        g = _floats(frame, REGION_KINDS["ellipse"], kind)
        if (g[:, 2:] < 0).any():
            raise ValueError("ellipse radii must not be negative")
        geoms = shapely.polygons(_ellipse_vertices(g, _rotation(frame)))
    else:
        g = _floats(frame, REGION_KINDS["box"], kind)
        geoms = shapely.polygons(_box_corners(g, _rotation(frame)))
    return geoms


def _pair_scores(frame: pd.DataFrame, kind: str, threshold: float, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Similarity in [0, 1] of each ordered pair (i, j): IoU, or for key points 1 - distance / threshold."""
    if kind == "span":
        g = _floats(frame, REGION_KINDS["span"], kind)
        s, e = g[:, 0], g[:, 1]
        if (e < s).any():
            row = int(np.flatnonzero(e < s)[0])
            raise ValueError(f"span {row} (row {frame.index[row]!r}) ends before it starts")
        inter = np.clip(np.minimum(e[i], e[j]) - np.maximum(s[i], s[j]), 0.0, None)
        union = (e[i] - s[i]) + (e[j] - s[j]) - inter
        same_point = (union == 0) & (s[i] == s[j])  # two empty spans at one offset are the same region
        return np.where(union > 0, inter / np.where(union > 0, union, 1.0), same_point.astype(float))
    if kind == "keypoint":
        g = _floats(frame, REGION_KINDS["keypoint"], kind)
        d = np.hypot(g[i, 0] - g[j, 0], g[i, 1] - g[j, 1])
        return np.where(d <= threshold, 1.0 - d / threshold if threshold > 0 else 1.0, -1.0)
    if kind == "box":
        g = _floats(frame, REGION_KINDS["box"], kind)
        if (g[:, 2:] < 0).any():
            raise ValueError("box width and height must not be negative")
        if not _rotation(frame).any():  # axis-aligned: closed form, no shapely needed
            x0, y0, x1, y1 = g[:, 0], g[:, 1], g[:, 0] + g[:, 2], g[:, 1] + g[:, 3]
            iw = np.clip(np.minimum(x1[i], x1[j]) - np.maximum(x0[i], x0[j]), 0.0, None)
            ih = np.clip(np.minimum(y1[i], y1[j]) - np.maximum(y0[i], y0[j]), 0.0, None)
            area = g[:, 2] * g[:, 3]
            inter = iw * ih
            union = area[i] + area[j] - inter
            return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
    shapely = _shapely()
    geoms = _geometries(frame, kind)
    area = shapely.area(geoms)
    upper = i < j  # the measure is symmetric: compute each unordered pair once
    inter = np.zeros(len(i))
    inter[upper] = shapely.area(shapely.intersection(geoms[i[upper]], geoms[j[upper]]))
    union = area[i] + area[j] - inter
    iou = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
    return iou


def _mask_scores(masks: list[np.ndarray]) -> np.ndarray:
    """IoU matrix of boolean masks of one item: |A∩B| = M Mᵀ on the flattened masks."""
    shapes = {np.shape(m) for m in masks}
    if len(shapes) > 1:
        raise ValueError(f"the masks of one item must have one shape; got {sorted(shapes)}")
    m = np.stack([np.asarray(x).reshape(-1) for x in masks]).astype(bool).astype(np.float64)
    inter = m @ m.T
    area = np.diag(inter)
    union = area[:, None] + area[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


# --------------------------------------------------------------------------- matching


def _assign(ok: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A one-to-one matching of rows to columns among the allowed pairs ``ok``: as many pairs as possible, then the
    largest total ``score`` (each pair weighs ``big + score`` with ``big`` above any total of scores)."""
    if ok.size == 0 or not ok.any():
        return np.empty(0, int), np.empty(0, int)
    from scipy.optimize import linear_sum_assignment  # imported when needed: SciPy's optimizer takes a second

    big = float(min(ok.shape)) + 1.0
    weight = np.where(ok, big + score, 0.0)  # allowed pairs score in [0, 1]
    r, c = linear_sum_assignment(weight, maximize=True)
    keep = ok[r, c]
    return r[keep], c[keep]


@dataclass(frozen=True, eq=False, repr=False)
class RegionMatch(Result):
    """Regions matched across annotators: the units, their annotations and the pairwise matching quality.

    Returned by :func:`match_regions`.

    Attributes
    ----------
    kind : str
        The kind of region (one of :data:`REGION_KINDS`).
    threshold : float
        The IoU a pair of regions needs to match (the largest distance, for key points).
    units : pandas.DataFrame
        One row per (unit, annotator of its item): ``item``, ``unit`` (number within the item), ``annotator``,
        ``label`` (``no_region`` for an annotator who did not mark the unit) and ``region`` (the row position of the
        region in the input, -1 for no region).
    annotations : Annotations
        The units as items named ``"<item>#<unit>"``: what the agreement coefficients read.
    precision, recall, f1 : PairwiseMatrix
        Entry (a, b): annotator a is the reference, b is compared with it, on the items both annotated.
        ``precision`` = matched / regions of b, ``recall`` = matched / regions of a, ``f1`` (symmetric) =
        2 matched / (regions of a + regions of b). Undefined entries (no region on the shared items) are nan.
        ``n_shared`` holds the items both annotated.
    pairs : pandas.DataFrame
        One row per annotator pair with shared items: ``annotator_a``, ``annotator_b``, ``n_items``,
        ``n_regions_a``, ``n_regions_b``, ``n_matched``, ``precision``, ``recall``, ``f1``.
    f1_overall : float
        The micro-averaged F1 over every pair: 2 Σ matched / Σ (regions of a + regions of b) (nan without regions).
    no_region : str
        The label of a missed unit.

    References
    ----------
    Kuhn, H. W. (1955). The Hungarian method for the assignment problem. Naval Research Logistics Quarterly 2,
    83-97.

    Everingham, M., Van Gool, L., Williams, C. K. I., Winn, J., & Zisserman, A. (2010). The PASCAL Visual Object
    Classes (VOC) challenge. International Journal of Computer Vision 88(2), 303-338.

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"item": ["d1", "d1", "d1"], "annotator": ["ann", "ann", "bob"],
    ...                       "label": ["PER", "ORG", "PER"], "start": [0, 10, 0], "end": [5, 14, 5]})
    >>> m = ie.match_regions(spans, kind="span")
    >>> m.f1.values.round(4)
    array([[1.    , 0.6667],
           [0.6667, 1.    ]])
    """

    kind: str
    threshold: float
    units: pd.DataFrame
    annotations: Annotations
    precision: PairwiseMatrix
    recall: PairwiseMatrix
    f1: PairwiseMatrix
    pairs: pd.DataFrame
    f1_overall: float
    no_region: str = NO_REGION

    def to_dict(self) -> dict:
        """JSON-ready: kind, threshold, counts, the overall F1, the pairs table and the three matrices."""
        marked = self.units["region"].to_numpy() >= 0
        return {
            "kind": self.kind,
            "threshold": float(self.threshold),
            "n_regions": int(marked.sum()),
            "n_units": int(self.units[["item", "unit"]].drop_duplicates().shape[0]),
            "n_missed": int((~marked).sum()),
            "f1_overall": nan_to_none(float(self.f1_overall)),
            "pairs": nan_to_none(self.pairs.to_dict(orient="records")),
            "precision": self.precision.to_dict(),
            "recall": self.recall.to_dict(),
            "f1": self.f1.to_dict(),
        }

    def to_frame(self) -> pd.DataFrame:
        """The pairs table."""
        return self.pairs.copy()

    def __repr__(self) -> str:
        d = self.to_dict()
        f1 = "undefined" if d["f1_overall"] is None else f"{d['f1_overall']:.4f}"
        return (
            f"RegionMatch({self.kind}, threshold {self.threshold:g}: {d['n_regions']} regions in {d['n_units']} "
            f"units, {d['n_missed']} missed; F1 {f1})\n{self.pairs.round(4).to_string(index=False)}"
        )


def _codes(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes in sorted order of the names (text order when they do not sort), so results do not depend on row order."""
    try:
        codes, names = pd.factorize(values, sort=True)
    except TypeError:
        codes, names = pd.factorize(values.astype(str), sort=True)
        names = pd.Index(values.groupby(codes).first().to_numpy())
    return codes, pd.Index(names)


@validate(
    kind=Choice(*REGION_KINDS),
    threshold=NoneOr(Real(0, low_open=True)),
    present=ANY,
    no_region=Text(),
    same_label=Flag(),
)
def match_regions(
    regions: pd.DataFrame,
    *,
    kind: str,
    threshold: float | None = None,
    present: pd.DataFrame | None = None,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    no_region: str = NO_REGION,
    same_label: bool = False,
) -> RegionMatch:
    r"""Match regions across the annotators of each item into units; pairwise precision, recall and F1.

    Similarity of two regions :math:`r, s` (Jaccard 1912; the PASCAL VOC criterion, Everingham et al. 2010):

    .. math::

        \mathrm{IoU}(r, s) = \frac{|r \cap s|}{|r \cup s|}, \qquad
        r \sim s \iff \mathrm{IoU}(r, s) \ge t \quad(\text{key points: } \lVert r - s \rVert \le t)

    with :math:`|\cdot|` the length of an interval, the area of a box, polygon or ellipse, or the pixel count of a
    mask. Among the allowed pairs an optimal one-to-one assignment (Kuhn 1955; SciPy's ``linear_sum_assignment``,
    Crouse 2016) takes as many pairs as possible, then the largest total similarity (IoU, or
    :math:`1 - d/t` for key points).

    **Units** (what the agreement coefficients read). The annotators of an item are taken in turn, in sorted
    order of their names; the first one's regions open one unit each; each next annotator's regions are assigned
    optimally to the existing units, a region being allowed into a unit only when it matches *every* region already
    in it (complete linkage), with the mean similarity to them as the score; a region left over opens a unit. A unit
    thus holds at most one region per annotator, and every annotator of the item (``present``) who did not mark it
    gets the label ``no_region``:

    .. math::

        x_{u a} = \begin{cases} \text{label of } a\text{'s region in } u \\ \texttt{no\_region}
        & \text{if } a \text{ annotated the item but marked nothing in } u \end{cases}

    so a missed region is a disagreement (as in Label Studio Enterprise), and a region only one annotator of the
    item saw is not dropped. The units do not depend on the order of the rows (an annotator's regions are taken in
    order of their geometry and label; polygons and masks, which have no such order, in row order, which matters only
    for exact ties). They can depend on the names of the annotators only when matching is ambiguous (a chain
    r ~ s ~ q with r ≁ q across three annotators); with two annotators they are the optimal pairwise matching.

    **Pairwise matching quality**, each pair of annotators matched directly on every item both annotated
    (independent of any order): with :math:`m_{ab}` matched pairs and :math:`n_a, n_b` the regions of each on
    those items,

    .. math::

        P_{ab} = \frac{m_{ab}}{n_b},\qquad R_{ab} = \frac{m_{ab}}{n_a},\qquad
        F_{ab} = \frac{2 m_{ab}}{n_a + n_b},\qquad
        F = \frac{2 \sum_{a<b} m_{ab}}{\sum_{a<b} (n_a + n_b)}

    Parameters
    ----------
    regions : pandas.DataFrame
        One row per region: the ``item``, ``annotator`` and ``label`` columns and the geometry of ``kind``
        (:data:`REGION_KINDS`): ``span`` ``start, end`` (text offsets or seconds); ``box`` ``x, y, width, height``
        and optionally ``rotation`` (degrees, clockwise on screen, about the top-left corner); ``polygon``
        ``points`` (a list of ``[x, y]``); ``ellipse`` ``x, y`` (centre), ``radius_x, radius_y`` and optionally
        ``rotation`` (about the centre); ``keypoint`` ``x, y``; ``mask`` ``mask`` (a boolean array, one shape per
        item). Coordinates in one unit throughout (pixels, so that rotations are right).
    kind : {'span', 'box', 'polygon', 'ellipse', 'keypoint', 'mask'}
        The kind of region.
    threshold : float, optional
        The IoU a pair needs, in (0, 1] (default 0.5; 1 means identical regions, e.g. exact span boundaries); for
        key points the largest distance, in the coordinates' unit (required).
    present : pandas.DataFrame, optional
        Columns ``item`` and ``annotator``: who annotated each item, including those who marked no region. Default:
        the annotators with a region on the item.
    item, annotator, label : str, default 'item', 'annotator', 'label'
        Column names.
    no_region : str, default '(no region)'
        The label of a unit an annotator of the item did not mark.
    same_label : bool, default False
        Pairwise matching quality: a pair of regions matches only when their labels are equal too. Units always
        match on geometry alone (a different label is a disagreement the coefficients see).

    Returns
    -------
    RegionMatch
        ``units``, ``annotations`` (the units as items), ``precision``, ``recall``, ``f1`` (annotator ×
        annotator), ``pairs`` and ``f1_overall``.

    Raises
    ------
    ValueError
        An empty table, a missing column or non-finite coordinate, a span that ends before it starts, a negative
        size, a polygon with fewer than three points, masks of different shapes in one item, a label equal to
        ``no_region``, an IoU threshold above 1, or no threshold for key points.
    ImportError
        Polygons, ellipses and rotated boxes without shapely.

    References
    ----------
    Jaccard, P. (1912). The distribution of the flora in the alpine zone. New Phytologist 11(2), 37-50.

    Kuhn, H. W. (1955). The Hungarian method for the assignment problem. Naval Research Logistics Quarterly 2,
    83-97.

    Crouse, D. F. (2016). On implementing 2D rectangular assignment algorithms. IEEE Transactions on Aerospace and
    Electronic Systems 52(4), 1679-1696.

    Everingham, M., Van Gool, L., Williams, C. K. I., Winn, J., & Zisserman, A. (2010). The PASCAL Visual Object
    Classes (VOC) challenge. International Journal of Computer Vision 88(2), 303-338.

    HumanSignal (n.d.). Task agreement and how it is calculated. Label Studio Enterprise documentation.

    Examples
    --------
    ann marks four entities, bob one of them; the three bob missed are disagreements:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"item": "doc", "annotator": ["ann"] * 4 + ["bob"], "label": "PER",
    ...                       "start": [0, 10, 20, 30, 0], "end": [5, 15, 25, 35, 5]})
    >>> m = ie.match_regions(spans, kind="span", threshold=1.0)
    >>> m.annotations.n_items, sorted(m.units["label"].value_counts().items())
    (4, [('(no region)', 3), ('PER', 5)])
    >>> m.pairs[["n_regions_a", "n_regions_b", "n_matched", "precision", "recall", "f1"]]
       n_regions_a  n_regions_b  n_matched  precision  recall   f1
    0            4            1          1        1.0    0.25  0.4
    >>> round(ie.krippendorff_alpha(m.annotations), 4)
    -0.4
    """
    if not isinstance(regions, pd.DataFrame):
        raise TypeError(f"regions must be a pandas DataFrame (one row per region); got {type(regions).__name__}")
    for col in (item, annotator, label):
        if col not in regions.columns:
            raise ValueError(f"regions has no column {col!r} (columns: {', '.join(map(str, regions.columns))})")
    if threshold is None:
        if kind == "keypoint":
            raise ValueError("threshold must be given for key points: the largest distance at which two match")
        threshold = 0.5
    if kind in _IOU_KINDS and threshold > 1:
        raise invalid("threshold", "an IoU in (0, 1] for regions of kind " + repr(kind), threshold)
    frame = regions.reset_index(drop=True)
    if frame.empty:
        raise ValueError("regions holds no region (an empty table): nothing to match")
    if frame[item].isna().any() or frame[annotator].isna().any():
        raise ValueError("every region needs an item and an annotator (missing values found)")
    if frame[label].isna().any():
        raise ValueError("every region needs a label (missing values found)")
    if (frame[label].astype(object) == no_region).any():
        raise ValueError(f"a region's label is {no_region!r}, the no_region label: pass another no_region")

    # codes: items and annotators sorted by name; regions sorted by (item, annotator, row)
    pres = frame[[item, annotator]] if present is None else _present(present, item, annotator, frame)
    all_items = pd.concat([frame[item], pres[item]], ignore_index=True)
    item_codes_all, item_names = _codes(all_items)
    ann_codes_all, ann_names = _codes(pd.concat([frame[annotator], pres[annotator]], ignore_index=True))
    n = len(frame)
    it, an = item_codes_all[:n], ann_codes_all[:n]
    # within an annotator: by geometry (then label text), so that the units do not depend on the rows' order
    geometry_cols = [c for c in REGION_KINDS[kind] + ("rotation",) if c in frame.columns and kind not in _RAGGED]
    keys = [np.arange(n), frame[label].astype(str).to_numpy()]
    keys += [pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=float) for c in reversed(geometry_cols)]
    order = np.lexsort((*keys, an, it))
    it, an = it[order], an[order]
    n_items, n_ann = len(item_names), len(ann_names)
    presence = np.zeros((n_items, n_ann), dtype=bool)
    presence[item_codes_all[n:], ann_codes_all[n:]] = True
    presence[it, an] = True
    sizes = np.bincount(it, minlength=n_items)
    starts = np.concatenate([[0], np.cumsum(sizes)])

    # every ordered pair of regions within an item, block by block (item k: pairs starting at pstart[k], row-major)
    reps = sizes[it]
    pi = np.repeat(np.arange(n), reps)
    first = np.repeat(np.cumsum(reps) - reps, reps)
    pj = np.repeat(starts[it], reps) + (np.arange(len(pi)) - first)
    pstart = np.concatenate([[0], np.cumsum(sizes**2)])
    sorted_frame = frame.iloc[order].reset_index(drop=True)
    if kind == "mask":
        if "mask" not in frame.columns:
            raise ValueError("regions of kind 'mask' need the column mask (a boolean array per region)")
        masks = sorted_frame["mask"].tolist()
        blocks = [_mask_scores(masks[starts[k] : starts[k + 1]]).ravel() for k in range(n_items) if sizes[k]]
        score = np.concatenate(blocks) if blocks else np.zeros(0)
    else:
        score = _pair_scores(sorted_frame, kind, float(threshold), pi, pj)
        if kind not in ("span", "keypoint") and len(score):  # computed for i < j only: mirror
            upper = pi < pj
            lower_pos = pstart[it[pi]] + (pj - starts[it[pi]]) * sizes[it[pi]] + (pi - starts[it[pi]])
            score[lower_pos[upper]] = score[upper]
    # allowed pairs (a tolerance of 1e-12 keeps an IoU that is the threshold up to rounding)
    ok_all = score >= 0.0 if kind == "keypoint" else score >= threshold - 1e-12
    labels = sorted_frame[label].to_numpy(dtype=object)
    same_lab = None
    if same_label:
        label_codes = pd.factorize(pd.Series(labels, dtype=object))[0]
        same_lab = label_codes[pi] == label_codes[pj]

    unit = np.full(n, -1, dtype=np.int64)
    n_units_item = np.zeros(n_items, dtype=np.int64)
    matched: np.ndarray = np.zeros((n_ann, n_ann), dtype=np.int64)
    for k in np.flatnonzero(sizes):  # per item: the matching is inherently one assignment problem per item
        s0, m = starts[k], sizes[k]
        block = slice(pstart[k], pstart[k + 1])
        S = score[block].reshape(m, m)
        OK = ok_all[block].reshape(m, m)
        a_item = an[s0 : s0 + m]
        bounds = np.flatnonzero(np.diff(np.concatenate([[-1], a_item, [-2]])))
        groups = [(bounds[g], bounds[g + 1]) for g in range(len(bounds) - 1)]
        u = np.full(m, -1, dtype=np.int64)
        n_units = 0
        for g0, g1 in groups:  # annotators in turn, joined to the units so far
            if n_units:
                onehot = np.zeros((g0, n_units))
                onehot[np.arange(g0), u[:g0]] = 1.0
                size = onehot.sum(axis=0)
                ok = OK[g0:g1, :g0].astype(float) @ onehot == size
                mean = (S[g0:g1, :g0] @ onehot) / size
                r, c = _assign(ok, mean)
                u[g0 + r] = c
            rest = np.flatnonzero(u[g0:g1] < 0) + g0
            u[rest] = n_units + np.arange(len(rest))
            n_units += len(rest)
        unit[s0 : s0 + m] = u
        n_units_item[k] = n_units
        if same_lab is not None:
            OK = OK & same_lab[block].reshape(m, m)
        for (a0, a1), (b0, b1) in itertools.combinations(groups, 2):  # each pair of annotators matched directly
            r, _ = _assign(OK[a0:a1, b0:b1], S[a0:a1, b0:b1])
            matched[a_item[a0], a_item[b0]] += len(r)
    matched = np.asarray(matched + matched.T, dtype=np.int64)

    # units and the explicit "no region" of every other annotator of the item: a units × annotators grid
    ustart = np.concatenate([[0], np.cumsum(n_units_item)])
    u_item = np.repeat(np.arange(n_items), n_units_item)
    cell = np.full((int(ustart[-1]), n_ann), -1, dtype=np.int64)
    cell[ustart[it] + unit, an] = np.arange(n)
    u_row, a_col = np.nonzero(presence[u_item] | (cell >= 0))  # by unit, then annotator
    reg = cell[u_row, a_col]
    got = reg >= 0
    lab = np.full(len(reg), no_region, dtype=object)
    lab[got] = labels[reg[got]]
    units = pd.DataFrame(
        {
            "item": item_names.take(u_item[u_row]),
            "unit": (u_row - ustart[u_item[u_row]]).astype(np.int64),
            "annotator": ann_names.take(a_col),
            "label": lab,
            "region": np.where(got, order[np.where(got, reg, 0)], -1).astype(np.int64),
        }
    )
    unit_names = (
        pd.Index(item_names.take(u_item).astype(str))
        + "#"
        + pd.Index((np.arange(len(u_item)) - ustart[u_item]).astype(str))
    )
    annotations = Annotations.from_long(
        pd.DataFrame({"item": unit_names.take(u_row), "annotator": units["annotator"], "label": lab})
    )

    # pairwise counts: regions of a on the items b annotated too, and the items both annotated
    counts = np.zeros((n_items, n_ann))
    np.add.at(counts, (it, an), 1.0)
    pres_f = presence.astype(float)
    n_on_shared = counts.T @ pres_f  # [a, b]: regions of a on items b annotated
    shared = (pres_f.T @ pres_f).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = np.where(n_on_shared > 0, matched / np.where(n_on_shared > 0, n_on_shared, 1), np.nan)
        precision = recall.T.copy()
        denom = n_on_shared + n_on_shared.T
        f1 = np.where(denom > 0, 2 * matched / np.where(denom > 0, denom, 1), np.nan)
    has = counts.sum(axis=0) > 0
    for mat in (precision, recall, f1):
        np.fill_diagonal(mat, np.where(has, 1.0, np.nan))
    names = list(ann_names)
    a_idx, b_idx = np.triu_indices(n_ann, k=1)
    keep = shared[a_idx, b_idx] > 0
    a_idx, b_idx = a_idx[keep], b_idx[keep]
    pairs = pd.DataFrame(
        {
            "annotator_a": [names[x] for x in a_idx],
            "annotator_b": [names[x] for x in b_idx],
            "n_items": shared[a_idx, b_idx],
            "n_regions_a": n_on_shared[a_idx, b_idx].astype(np.int64),
            "n_regions_b": n_on_shared[b_idx, a_idx].astype(np.int64),
            "n_matched": matched[a_idx, b_idx],
            "precision": precision[a_idx, b_idx],
            "recall": recall[a_idx, b_idx],
            "f1": f1[a_idx, b_idx],
        }
    )
    total = float((pairs["n_regions_a"] + pairs["n_regions_b"]).sum())
    f1_overall = 2.0 * float(pairs["n_matched"].sum()) / total if total > 0 else float("nan")
    metric = f"{kind} matching[{'IoU' if kind != 'keypoint' else 'distance'} {threshold:g}]"
    return RegionMatch(
        kind=kind,
        threshold=float(threshold),
        units=units,
        annotations=annotations,
        precision=PairwiseMatrix(f"precision of {metric}", names, precision, shared),
        recall=PairwiseMatrix(f"recall of {metric}", names, recall, shared),
        f1=PairwiseMatrix(f"F1 of {metric}", names, f1, shared),
        pairs=pairs,
        f1_overall=f1_overall,
        no_region=no_region,
    )


def _present(present: Any, item: str, annotator: str, frame: pd.DataFrame) -> pd.DataFrame:
    if not isinstance(present, pd.DataFrame) or item not in present.columns or annotator not in present.columns:
        raise invalid("present", f"a DataFrame with columns {item!r} and {annotator!r}, or None", present)
    if present[item].isna().any() or present[annotator].isna().any():
        raise ValueError("present must not hold missing items or annotators")
    return present[[item, annotator]]


# --------------------------------------------------------------------------- span matches between annotator pairs


def _combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dense codes of the pairs (a, b) of non-negative integer codes, in their sorted order."""
    _, code = np.unique(a.astype(np.int64) * (int(b.max()) + 1) + b, return_inverse=True)
    return code.astype(np.int64)


def span_matches(
    document: np.ndarray,
    annotator: np.ndarray,
    category: np.ndarray,
    begin: np.ndarray,
    end: np.ndarray,
    threshold: float | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One-to-one matches of spans between every pair of annotators, within a document and a label.

    The spans (integer codes and positions) must be distinct per annotator (a repeated span counted once).
    ``threshold`` None: a match is an identical span (same begin, same end); a number t: two spans match when their
    intersection over union (as :func:`match_regions`) is at least t, and each span matches at most one span of each
    other annotator: where a span has several candidates, the largest number of matches, then the largest total
    IoU, is chosen by :func:`_assign` (the Hungarian method on that document, label and pair only).

    Candidates come from one sweep over the spans sorted by (document, label, begin), not from all pairs: a span's
    candidates start at or after its begin and at or before its end (a searchsorted on the positions' ranks).

    Returns
    -------
    (document, category, annotator_a, annotator_b, matched)
        One row per (document, label, pair a < b) with at least one match.
    """
    n = begin.size
    empty = np.zeros(0, np.int64)
    if n == 0:
        return empty, empty, empty, empty, empty
    block = _combine(document, category)
    order = np.lexsort((end, begin, block))
    block, ann, b, e = block[order], annotator[order], begin[order], end[order]
    doc, cat = document[order], category[order]
    # positions as ranks (exact order), so that one integer key sorts by (block, position)
    _, rank = np.unique(np.concatenate([b, e]), return_inverse=True)
    width = np.int64(2 * n + 1)
    key_begin = block * width + rank[:n]
    key_end = block * width + rank[n:]
    hi = np.searchsorted(key_begin, key_end, side="right")  # spans beginning at or before this one's end
    reps = np.maximum(hi - np.arange(n) - 1, 0)
    i = np.repeat(np.arange(n), reps)
    j = i + 1 + (np.arange(i.size) - np.repeat(np.cumsum(reps) - reps, reps))
    keep = ann[i] != ann[j]
    i, j = i[keep], j[keep]
    if threshold is None:
        keep = (b[i] == b[j]) & (e[i] == e[j])
        score: np.ndarray = np.ones(int(keep.sum()))
    else:
        inter = np.clip(np.minimum(e[i], e[j]) - np.maximum(b[i], b[j]), 0.0, None)
        union = (e[i] - b[i]) + (e[j] - b[j]) - inter
        same_point = (union == 0) & (b[i] == b[j])
        iou = np.where(union > 0, inter / np.where(union > 0, union, 1.0), same_point.astype(float))
        keep = iou >= threshold - 1e-12
        score = iou[keep]
    i, j = i[keep], j[keep]
    swap = ann[i] > ann[j]  # each edge as (span of a, span of b) with a < b
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    # edges of one (block, a, b) group; a span with two candidates in its group makes the group ambiguous
    pair_key = _combine(_combine(block[i], ann[i]), ann[j]) if i.size else empty
    twice = (
        pd.DataFrame({"s": i, "g": pair_key}).duplicated(keep=False).to_numpy()
        | pd.DataFrame({"s": j, "g": pair_key}).duplicated(keep=False).to_numpy()
    )
    ambiguous_groups = np.unique(pair_key[twice])
    matched_edge = ~np.isin(pair_key, ambiguous_groups)  # unambiguous edges are matches as they are
    chosen_i, chosen_j = [i[matched_edge]], [j[matched_edge]]
    if ambiguous_groups.size:
        sel = np.flatnonzero(np.isin(pair_key, ambiguous_groups))
        by_group = sel[np.argsort(pair_key[sel], kind="stable")]
        bounds = np.flatnonzero(np.diff(pair_key[by_group])) + 1
        for edges in np.split(by_group, bounds):  # only the ambiguous (document, label, pair) groups
            rows, r = np.unique(i[edges], return_inverse=True)
            cols, c = np.unique(j[edges], return_inverse=True)
            ok = np.zeros((rows.size, cols.size), bool)
            weight = np.zeros(ok.shape)
            ok[r, c] = True
            weight[r, c] = score[edges]
            rr, cc = _assign(ok, weight)
            chosen_i.append(rows[rr])
            chosen_j.append(cols[cc])
    mi, mj = np.concatenate(chosen_i), np.concatenate(chosen_j)
    if mi.size == 0:
        return empty, empty, empty, empty, empty
    table = pd.DataFrame({"d": doc[mi], "c": cat[mi], "a": ann[mi], "b": ann[mj]})
    counts = table.groupby(["d", "c", "a", "b"], sort=True).size()
    idx = counts.index
    return (
        idx.get_level_values(0).to_numpy(np.int64),
        idx.get_level_values(1).to_numpy(np.int64),
        idx.get_level_values(2).to_numpy(np.int64),
        idx.get_level_values(3).to_numpy(np.int64),
        counts.to_numpy(np.int64),
    )
