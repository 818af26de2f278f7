"""Regions matched across annotators (ie.match_regions): hand-worked cases for every kind of region, IoU computed
independently (by rasterising on a fine grid, not with shapely), threshold behaviour, precision / recall / F1 by
hand, the explicit "no region" of a missed unit, and properties (order of rows and names, identical annotations)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.data._regions import NO_REGION as NO


def frame(rows, columns):
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- the hand-worked case


def test_a_missed_span_is_a_disagreement_worked_by_hand():
    """Annotator A marks 4 entities, B marks 1 of them. Before, the 3 spans only A marked were dropped and the one
    shared span made every coefficient 'perfect' (joint probability 1). Now each is a unit where B has 'no region'.

    Units (nominal): u1 = (PER, PER), u2 = u3 = u4 = (PER, none). Coincidences o_ck = Σ_u Σ_pairs 1/(m_u - 1):
    o_PER,PER = 2 (u1, its two ordered pairs), o_PER,none = o_none,PER = 3 (one per unit u2-u4), o_none,none = 0.
    n_PER = 2 + 3 = 5, n_none = 3, n = 8.
    D_o = (o_PER,none + o_none,PER) / n = 6 / 8 = 0.75
    D_e = 2 n_PER n_none / (n (n - 1)) = 2·5·3 / (8·7) = 30 / 56
    alpha = 1 - D_o / D_e = 1 - 0.75 · 56 / 30 = 1 - 1.4 = -0.4
    Joint probability of agreement (mean over units of agreeing pairs): (1 + 0 + 0 + 0) / 4 = 0.25.
    F1 of span matching: 2·1 / (4 + 1) = 0.4; precision of B against A 1/1, recall 1/4.
    """
    rows = [("doc", "A", "PER", 0, 5), ("doc", "A", "ORG", 10, 15), ("doc", "A", "LOC", 20, 25)]
    rows += [("doc", "A", "PER", 30, 35), ("doc", "B", "PER", 0, 5)]
    spans = frame(rows, ["item", "annotator", "label", "start", "end"])
    m = ie.match_regions(spans, kind="span", threshold=1.0)
    o_pp, o_pn, o_np, n_p, n_n = 2, 3, 3, 5, 3
    n = n_p + n_n
    alpha_by_hand = 1 - ((o_pn + o_np) / n) / (2 * n_p * n_n / (n * (n - 1)))
    assert alpha_by_hand == pytest.approx(-0.4, abs=1e-15) and o_pp == 2
    # labels differ per span here (PER, ORG, LOC, PER): recompute the coincidences on the labels themselves
    # u1 = (PER, PER), u2 = (ORG, none), u3 = (LOC, none), u4 = (PER, none): n = 8, n_PER = 3, n_ORG = n_LOC = 1,
    # n_none = 3; disagreeing coincidences 2 per u2-u4 = 6; D_o = 6/8;
    # D_e = (n² - Σ n_c²) / (n (n - 1)) = (64 - 9 - 1 - 1 - 9) / 56 = 44 / 56
    alpha_labels = 1 - (6 / 8) / (44 / 56)
    assert ie.krippendorff_alpha(m.annotations) == pytest.approx(alpha_labels, abs=1e-12)
    assert ie.joint_probability(m.annotations) == pytest.approx(0.25, abs=1e-15)
    same_label = spans.assign(label="PER")
    m1 = ie.match_regions(same_label, kind="span", threshold=1.0)
    assert ie.krippendorff_alpha(m1.annotations) == pytest.approx(alpha_by_hand, abs=1e-12)
    # the old behaviour (units only one annotator marked dropped) on the same data: a perfect score
    old = m1.units[m1.units["label"] != m1.no_region]
    old = old[old.groupby(["item", "unit"])["annotator"].transform("size") >= 2]
    old_data = ie.Annotations.from_long(old.assign(item=old["item"] + "#" + old["unit"].astype(str)))
    assert ie.joint_probability(old_data) == 1.0
    p = m1.pairs.iloc[0]
    assert (p.n_regions_a, p.n_regions_b, p.n_matched) == (4, 1, 1)
    assert (p.precision, p.recall, p.f1) == (1.0, 0.25, 0.4)
    assert m1.f1.values[0, 1] == m1.f1.values[1, 0] == 0.4
    assert m1.precision.values[0, 1] == 1.0 and m1.recall.values[0, 1] == 0.25
    assert m1.precision.values[1, 0] == 0.25 and m1.recall.values[1, 0] == 1.0
    assert m1.f1_overall == 0.4


def test_an_annotator_who_marked_nothing_gets_no_region_for_every_unit():
    spans = frame([("d", "A", "PER", 0, 5), ("d", "A", "ORG", 6, 9)], ["item", "annotator", "label", "start", "end"])
    present = frame([("d", "A"), ("d", "B"), ("e", "B")], ["item", "annotator"])
    m = ie.match_regions(spans, kind="span", present=present)
    assert sorted(m.units.itertuples(index=False)) == [
        ("d", 0, "A", "PER", 0),
        ("d", 0, "B", NO, -1),
        ("d", 1, "A", "ORG", 1),
        ("d", 1, "B", NO, -1),
    ]
    p = m.pairs.iloc[0]
    assert (p.n_items, p.n_regions_a, p.n_regions_b, p.n_matched, p.recall, p.f1) == (1, 2, 0, 0, 0.0, 0.0)
    assert np.isnan(p.precision)  # B marked nothing: precision is 0/0
    assert m.precision.n_shared[0, 1] == 1 and m.precision.n_shared[1, 1] == 2  # B annotated d and e


# --------------------------------------------------------------------------- spans and intervals, thresholds


def test_span_iou_and_threshold_behaviour():
    # [0, 10) and [4, 10): IoU 6 / 10 = 0.6; [0, 10) and [20, 30): 0
    spans = frame(
        [("t", "a", "X", 0, 10), ("t", "b", "X", 4, 10), ("t", "a", "Y", 20, 30)],
        ["item", "annotator", "label", "start", "end"],
    )
    for threshold, matched in ((0.5, 1), (0.6, 1), (0.61, 0), (1.0, 0)):
        m = ie.match_regions(spans, kind="span", threshold=threshold)
        assert m.pairs["n_matched"].iloc[0] == matched, threshold
        n_units = m.units[["item", "unit"]].drop_duplicates().shape[0]
        assert n_units == 3 - matched
    # seconds of audio work the same way (interval IoU): [1.5, 3.0) and [2.0, 3.5): 1.0 / 2.0
    audio = frame(
        [("r", "a", "S", 1.5, 3.0), ("r", "b", "S", 2.0, 3.5)], ["item", "annotator", "label", "start", "end"]
    )
    assert ie.match_regions(audio, kind="span", threshold=0.5).pairs["n_matched"].iloc[0] == 1
    assert ie.match_regions(audio, kind="span", threshold=0.51).pairs["n_matched"].iloc[0] == 0
    # two empty spans at one offset are the same region; at different offsets they are not
    empty = frame([("t", "a", "X", 3, 3), ("t", "b", "X", 3, 3), ("u", "a", "X", 3, 3), ("u", "b", "X", 4, 4)],
                  ["item", "annotator", "label", "start", "end"])  # fmt: skip
    assert ie.match_regions(empty, kind="span", threshold=1.0).pairs["n_matched"].iloc[0] == 1


def test_optimal_assignment_beats_greedy():
    """The assignment takes as many matching pairs as possible, then the largest total IoU."""
    rows = [
        ("t", "a", "X", 0, 10),  # a1
        ("t", "a", "X", 6, 16),  # a2
        ("t", "b", "X", 2, 12),  # b1: IoU(a1) = 8/12 = 0.667, IoU(a2) = 6/14 = 0.429
        ("t", "b", "X", 0, 9),  # b2: IoU(a1) = 9/10 = 0.9, IoU(a2) = 3/16 = 0.1875
    ]
    spans = frame(rows, ["item", "annotator", "label", "start", "end"])
    m = ie.match_regions(spans, kind="span", threshold=0.4)
    # greedy by IoU would pair a1-b2 (0.9) and then a2-b1 (0.429): 2 matches; the assignment finds the same
    assert m.pairs["n_matched"].iloc[0] == 2
    # threshold 0.5: a2 matches nothing; a1 can take b1 or b2 -> one match, the larger IoU (b2) wins
    m = ie.match_regions(spans, kind="span", threshold=0.5)
    assert m.pairs["n_matched"].iloc[0] == 1
    u = m.units.set_index(["annotator", "region"])["unit"]
    assert u[("a", 0)] == u[("b", 3)] and u[("b", 2)] != u[("a", 0)]
    # more matches first: a: [0, 10), [10, 20); b: [0, 12) (IoU 10/12 with a1, 2/20 with a2), [8, 20) (IoU 2/20,
    # 10/12): threshold 0.1 allows all four pairs; the assignment makes two matches (not one 0.83 and a loss)
    rows = [("t", "a", "X", 0, 10), ("t", "a", "X", 10, 20), ("t", "b", "X", 0, 12), ("t", "b", "X", 8, 20)]
    m = ie.match_regions(frame(rows, ["item", "annotator", "label", "start", "end"]), kind="span", threshold=0.1)
    assert m.pairs["n_matched"].iloc[0] == 2


# --------------------------------------------------------------------------- images: boxes, polygons, ellipses


GRID = 0.04


def _grid(lo, hi):
    xs = np.arange(lo + GRID / 2, hi, GRID)
    return np.meshgrid(xs, xs)


def _inside_rotated_box(X, Y, x, y, w, h, deg):
    """Point in a box rotated by deg (clockwise on screen, y down) about its top-left corner: rotate back."""
    t = np.deg2rad(deg)
    dx, dy = X - x, Y - y
    u = dx * np.cos(t) + dy * np.sin(t)
    v = -dx * np.sin(t) + dy * np.cos(t)
    return (u >= 0) & (u <= w) & (v >= 0) & (v <= h)


def _inside_polygon(X, Y, pts):
    """Even-odd ray casting, vectorised over the grid (no geometry library)."""
    inside = np.zeros(X.shape, bool)
    n = len(pts)
    for k in range(n):
        (x1, y1), (x2, y2) = pts[k], pts[(k + 1) % n]
        crosses = (y1 > Y) != (y2 > Y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xint = x1 + (Y - y1) * (x2 - x1) / (y2 - y1)
        inside ^= crosses & (X < xint)
    return inside


def _raster_iou(a, b):
    return (a & b).sum() / (a | b).sum()


def test_axis_aligned_boxes_closed_form():
    # a = [0, 10] x [0, 10], b = [5, 15] x [0, 10]: intersection 50, union 150 -> 1/3
    boxes = frame([("i", "a", "car", 0, 0, 10, 10), ("i", "b", "car", 5, 0, 10, 10)],
                  ["item", "annotator", "label", "x", "y", "width", "height"])  # fmt: skip
    assert ie.match_regions(boxes, kind="box", threshold=1 / 3).pairs["n_matched"].iloc[0] == 1
    assert ie.match_regions(boxes, kind="box", threshold=0.34).pairs["n_matched"].iloc[0] == 0


def test_rotated_box_iou_against_a_raster():
    a = (10.0, 10.0, 40.0, 20.0, 0.0)
    b = (10.0, 10.0, 40.0, 20.0, 30.0)  # the same box turned 30 degrees about its top-left corner
    X, Y = _grid(-15, 60)
    want = _raster_iou(_inside_rotated_box(X, Y, *a), _inside_rotated_box(X, Y, *b))
    boxes = frame([("i", "a", "car", *a), ("i", "b", "car", *b)],
                  ["item", "annotator", "label", "x", "y", "width", "height", "rotation"])  # fmt: skip
    m = ie.match_regions(boxes, kind="box", threshold=0.01)
    got = _iou_of_the_match(boxes, "box")
    assert got == pytest.approx(want, abs=2e-3)
    assert 0.2 < want < 0.7  # a real overlap, not an edge case
    assert ie.match_regions(boxes, kind="box", threshold=want - 0.01).pairs["n_matched"].iloc[0] == 1
    assert ie.match_regions(boxes, kind="box", threshold=want + 0.01).pairs["n_matched"].iloc[0] == 0
    assert m.pairs["n_matched"].iloc[0] == 1
    # the direction of rotation matters (clockwise on screen, as Label Studio draws it): a box below a, which b
    # swings into, overlaps b turned clockwise much more than b turned the other way
    c = (10.0, 30.0, 40.0, 20.0, 0.0)
    want_c = _raster_iou(_inside_rotated_box(X, Y, *c), _inside_rotated_box(X, Y, *b))
    other_way = _raster_iou(_inside_rotated_box(X, Y, *c), _inside_rotated_box(X, Y, *b[:4], -30.0))
    boxes_c = frame([("i", "a", "car", *c), ("i", "b", "car", *b)], list(boxes.columns))
    assert _iou_of_the_match(boxes_c, "box") == pytest.approx(want_c, abs=2e-3)
    assert want_c > other_way + 0.1


def _iou_of_the_match(regions, kind):
    """The IoU of two regions as the matching sees it: the largest threshold at which they still match."""
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if mid == 0:
            break
        if ie.match_regions(regions, kind=kind, threshold=max(mid, 1e-9)).pairs["n_matched"].iloc[0]:
            lo = mid
        else:
            hi = mid
    return lo


def test_polygon_iou_against_a_raster():
    a = [[0, 0], [30, 0], [30, 30], [15, 12], [0, 30]]  # concave (an arrow head)
    b = [[10, -5], [40, 5], [25, 35], [5, 20]]
    X, Y = _grid(-10, 45)
    want = _raster_iou(_inside_polygon(X, Y, a), _inside_polygon(X, Y, b))
    polys = frame([("i", "a", "roof", a), ("i", "b", "roof", b)], ["item", "annotator", "label", "points"])
    assert _iou_of_the_match(polys, "polygon") == pytest.approx(want, abs=2e-3)
    assert 0.2 < want < 0.8


def test_ellipse_iou_against_a_raster():
    a = (20.0, 20.0, 12.0, 6.0, 0.0)
    b = (22.0, 20.0, 12.0, 6.0, 40.0)  # rotated about its centre

    def inside(X, Y, x, y, rx, ry, deg):
        t = np.deg2rad(deg)
        dx, dy = X - x, Y - y
        u = dx * np.cos(t) + dy * np.sin(t)
        v = -dx * np.sin(t) + dy * np.cos(t)
        return (u / rx) ** 2 + (v / ry) ** 2 <= 1

    X, Y = _grid(0, 40)
    want = _raster_iou(inside(X, Y, *a), inside(X, Y, *b))
    ell = frame([("i", "a", "cell", *a), ("i", "b", "cell", *b)],
                ["item", "annotator", "label", "x", "y", "radius_x", "radius_y", "rotation"])  # fmt: skip
    # the ellipse is a 128-gon (area 99.96 % of the ellipse's): within 3e-3 of the raster
    assert _iou_of_the_match(ell, "ellipse") == pytest.approx(want, abs=3e-3)


def test_keypoints_match_within_the_distance():
    pts = frame([("i", "a", "eye", 0.0, 0.0), ("i", "b", "eye", 3.0, 4.0), ("i", "c", "eye", 3.0, 4.1)],
                ["item", "annotator", "label", "x", "y"])  # fmt: skip
    m = ie.match_regions(pts, kind="keypoint", threshold=5.0)  # a-b at distance 5 exactly: a match
    got = {(p.annotator_a, p.annotator_b): p.n_matched for p in m.pairs.itertuples()}
    assert got == {("a", "b"): 1, ("a", "c"): 0, ("b", "c"): 1}
    # units: a, then b joins a's (distance 5), c is within 0.1 of b but 5.0009 from a: complete linkage opens a unit
    units = m.units[m.units["region"] >= 0].set_index("annotator")["unit"]
    assert units["a"] == units["b"] != units["c"]
    with pytest.raises(ValueError, match="threshold must be given for key points"):
        ie.match_regions(pts, kind="keypoint")
    # a closer key point is preferred: b has two candidates for a's point
    two = frame([("i", "a", "eye", 0, 0), ("i", "b", "eye", 2, 0), ("i", "b", "eye", 1, 0)], list(pts.columns))
    m = ie.match_regions(two, kind="keypoint", threshold=3.0)
    u = m.units.set_index(["annotator", "region"])["unit"]
    assert u[("a", 0)] == u[("b", 2)] != u[("b", 1)]


def test_mask_iou_by_hand():
    a = np.zeros((4, 5), bool)
    a[0:2, 0:4] = True  # 8 pixels
    b = np.zeros((4, 5), bool)
    b[1:3, 0:4] = True  # 8 pixels, 4 shared: IoU 4 / 12
    masks = frame([("img", "a", "sky", a), ("img", "b", "sky", b)], ["item", "annotator", "label", "mask"])
    assert ie.match_regions(masks, kind="mask", threshold=1 / 3).pairs["n_matched"].iloc[0] == 1
    assert ie.match_regions(masks, kind="mask", threshold=0.34).pairs["n_matched"].iloc[0] == 0
    bad = frame([("img", "a", "sky", a), ("img", "b", "sky", b[:3])], list(masks.columns))
    with pytest.raises(ValueError, match="one shape"):
        ie.match_regions(bad, kind="mask")


# --------------------------------------------------------------------------- several annotators, P/R/F1 by hand


def test_three_annotators_precision_recall_f1_by_hand():
    """Exact boundaries. a: s1, s2, s3; b: s1, s2; c: s1, s4 (one item).
    a-b: 2 matched, n_a 3, n_b 2: P(b vs a) 2/2, R 2/3, F1 4/5. a-c: 1 matched: P 1/2, R 1/3, F1 2/5.
    b-c: 1 matched, n 2 and 2: P = R = F1 = 1/2. Overall F1 = 2 (2 + 1 + 1) / (5 + 5 + 4) = 8/14."""
    s = {"s1": (0, 5), "s2": (10, 15), "s3": (20, 25), "s4": (30, 35)}
    marks = {"a": ["s1", "s2", "s3"], "b": ["s1", "s2"], "c": ["s1", "s4"]}
    rows = [("t", who, "X", *s[k]) for who, ks in marks.items() for k in ks]
    m = ie.match_regions(frame(rows, ["item", "annotator", "label", "start", "end"]), kind="span", threshold=1.0)
    want = {("a", "b"): (2, 1.0, 2 / 3, 0.8), ("a", "c"): (1, 0.5, 1 / 3, 0.4), ("b", "c"): (1, 0.5, 0.5, 0.5)}
    for p in m.pairs.itertuples():
        got = (p.n_matched, p.precision, p.recall, p.f1)
        assert got == pytest.approx(want[(p.annotator_a, p.annotator_b)], abs=1e-15)
    assert m.f1_overall == pytest.approx(8 / 14, abs=1e-15)
    # four units; every annotator gets a value for each: 3 + 2 + 2 marked, 5 'no region'
    assert m.annotations.n_items == 4 and len(m.units) == 12 and (m.units["label"] == NO).sum() == 5
    # same_label: b calls s2 'Y' -> no longer a match for the pair a-b; units unchanged (the label disagrees there)
    rows_y = [r if not (r[1] == "b" and r[3] == 10) else ("t", "b", "Y", 10, 15) for r in rows]
    f = frame(rows_y, ["item", "annotator", "label", "start", "end"])
    strict = ie.match_regions(f, kind="span", threshold=1.0, same_label=True)
    assert strict.pairs.set_index(["annotator_a", "annotator_b"]).loc[("a", "b"), "n_matched"] == 1
    assert strict.annotations.n_items == 4


def test_complete_linkage_and_its_documented_order_dependence():
    """A chain: a [0, 10), b [2, 12), c [4, 14): IoU(a, b) = IoU(b, c) = 8/12, IoU(a, c) = 6/14 < 0.5.
    Taken in name order (a, b, c) b joins a, and c (not matching a) opens a unit. Renaming the annotators so that b
    comes first makes one of a or c join b: the units depend on the names only in such a chain. The pairwise
    precision / recall / F1 never do."""
    rows = [("t", "a", "X", 0, 10), ("t", "b", "X", 2, 12), ("t", "c", "X", 4, 14)]
    f = frame(rows, ["item", "annotator", "label", "start", "end"])
    m = ie.match_regions(f, kind="span", threshold=0.5)
    u = m.units[m.units["region"] >= 0].set_index("annotator")["unit"]
    assert u["a"] == u["b"] != u["c"]
    renamed = f.assign(annotator=f["annotator"].map({"a": "z", "b": "a", "c": "c"}))
    m2 = ie.match_regions(renamed, kind="span", threshold=0.5)
    assert m2.units[["item", "unit"]].drop_duplicates().shape[0] == 2
    key = {"a": "z", "b": "a", "c": "c"}
    f1 = m.f1.to_frame().rename(index=key, columns=key)
    pd.testing.assert_frame_equal(f1.loc[m2.f1.annotators, m2.f1.annotators], m2.f1.to_frame())


# --------------------------------------------------------------------------- properties


region_sets = st.lists(
    st.tuples(
        st.sampled_from(["i1", "i2"]),
        st.sampled_from(["ann", "bob", "cy", "dee"]),
        st.sampled_from(["PER", "ORG"]),
        st.integers(0, 30),
        st.integers(1, 12),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=60, deadline=None)
@given(region_sets, st.randoms(use_true_random=False), st.sampled_from([0.3, 0.5, 1.0]))
def test_pairwise_quality_does_not_depend_on_row_order_or_annotator_names(rows, rnd, threshold):
    f = frame([(i, a, lab, s, s + w) for i, a, lab, s, w in rows], ["item", "annotator", "label", "start", "end"])
    m = ie.match_regions(f, kind="span", threshold=threshold)
    perm = list(range(len(f)))
    rnd.shuffle(perm)
    names = sorted(f["annotator"].unique())
    new = names[:]
    rnd.shuffle(new)
    key = dict(zip(names, [f"x{n}" for n in new]))
    g = f.iloc[perm].assign(annotator=lambda d: d["annotator"].map(key))
    m2 = ie.match_regions(g, kind="span", threshold=threshold)
    for what in ("precision", "recall", "f1"):
        a = getattr(m, what).to_frame().rename(index=key, columns=key)
        b = getattr(m2, what).to_frame()
        pd.testing.assert_frame_equal(a.loc[b.index, b.columns], b, check_exact=True)
    assert m.f1_overall == pytest.approx(m2.f1_overall, abs=1e-15, nan_ok=True)
    # row order alone never changes the units (annotator names kept)
    m3 = ie.match_regions(f.iloc[perm], kind="span", threshold=threshold)
    key_cols = ["item", "unit", "annotator", "label"]
    pd.testing.assert_frame_equal(
        m.units[key_cols].reset_index(drop=True), m3.units[key_cols].reset_index(drop=True), check_exact=True
    )
    # every annotator of an item has exactly one value per unit of the item
    per = m.units.groupby(["item", "unit"])["annotator"].agg(["size", "nunique"])
    present = f.groupby("item")["annotator"].nunique()
    assert (per["size"] == per["nunique"]).all()
    assert (per["size"].to_numpy() == present.loc[per.index.get_level_values("item")].to_numpy()).all()


@settings(max_examples=40, deadline=None)
@given(region_sets, st.integers(2, 4))
def test_identical_annotations_agree_perfectly(rows, n_copies):
    one = frame([(i, lab, s, s + w) for i, _, lab, s, w in rows], ["item", "label", "start", "end"])
    one = one.drop_duplicates(["item", "start", "end"])  # one annotator never marks one span twice
    f = pd.concat([one.assign(annotator=f"a{k}") for k in range(n_copies)], ignore_index=True)
    for threshold in (0.5, 1.0):
        m = ie.match_regions(f, kind="span", threshold=threshold)
        assert (m.pairs["f1"] == 1.0).all() and m.f1_overall == 1.0
        assert (m.units["label"] != NO).all()
        assert ie.percent_agreement(m.annotations) == 1.0


# --------------------------------------------------------------------------- errors at the boundary


box_sets = st.lists(
    st.tuples(
        st.sampled_from(["i1", "i2"]),
        st.sampled_from(["ann", "bob", "cy"]),
        st.integers(0, 20),
        st.integers(0, 20),
        st.integers(1, 10),
        st.integers(1, 10),
        st.sampled_from([0.0, 0.0, 30.0]),
    ),
    min_size=1,
    max_size=10,
)


@settings(max_examples=25, deadline=None)
@given(box_sets, st.randoms(use_true_random=False), st.sampled_from(["box", "keypoint"]))
def test_boxes_and_key_points_pairwise_quality_is_order_free_and_identical_copies_agree(rows, rnd, kind):
    f = frame(rows, ["item", "annotator", "x", "y", "width", "height", "rotation"]).assign(label="car")
    threshold = 0.3 if kind == "box" else 4.0
    m = ie.match_regions(f, kind=kind, threshold=threshold)
    perm = list(range(len(f)))
    rnd.shuffle(perm)
    key = {"ann": "zed", "bob": "amy", "cy": "kim"}
    m2 = ie.match_regions(f.iloc[perm].assign(annotator=lambda d: d["annotator"].map(key)), kind=kind,
                          threshold=threshold)  # fmt: skip
    a = m.f1.to_frame().rename(index=key, columns=key)
    pd.testing.assert_frame_equal(a.loc[m2.f1.annotators, m2.f1.annotators], m2.f1.to_frame(), check_exact=True)
    one = f[f["annotator"] == f["annotator"].iloc[0]].drop_duplicates(["item", "x", "y", "width", "height"])
    copies = pd.concat([one.assign(annotator=f"a{k}") for k in range(3)], ignore_index=True)
    same = ie.match_regions(copies, kind=kind, threshold=threshold)
    # identical copies: every region matches its copy (the assignment takes the most matches)
    assert (same.pairs["n_matched"] == same.pairs["n_regions_a"]).all() and same.f1_overall == 1.0


def test_errors_say_what_is_wrong():
    spans = frame([("t", "a", "X", 5, 3)], ["item", "annotator", "label", "start", "end"])
    with pytest.raises(ValueError, match="ends before it starts"):
        ie.match_regions(spans, kind="span")
    with pytest.raises(ValueError, match="need the columns x, y, width, height; missing: x, y, width, height"):
        ie.match_regions(spans, kind="box")
    with pytest.raises(ie.InvalidParameterError, match=r"^threshold must be an IoU in \(0, 1\]"):
        ie.match_regions(spans.assign(end=9), kind="span", threshold=1.5)
    with pytest.raises(ie.InvalidParameterError, match="^kind must be one of 'span'"):
        ie.match_regions(spans, kind="spans")
    with pytest.raises(ie.InvalidParameterError, match="^threshold must be a number greater than 0"):
        ie.match_regions(spans, kind="span", threshold=0)
    with pytest.raises(ValueError, match="the no_region label"):
        ie.match_regions(spans.assign(end=9, label=NO), kind="span")
    with pytest.raises(ValueError, match="at least 3 points"):
        ie.match_regions(frame([("t", "a", "X", [[0, 0], [1, 1]])], ["item", "annotator", "label", "points"]),
                         kind="polygon")  # fmt: skip
    with pytest.raises(ValueError, match="holds no region"):
        ie.match_regions(spans.iloc[:0], kind="span")
    with pytest.raises(ie.InvalidParameterError, match="^present must be a DataFrame"):
        ie.match_regions(spans.assign(end=9), kind="span", present=[("t", "a")])


def test_without_shapely_polygons_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "shapely", None)
    polys = frame([("i", "a", "x", [[0, 0], [1, 0], [0, 1]])], ["item", "annotator", "label", "points"])
    with pytest.raises(ImportError, match=r"pip install 'iaa-engine\[regions\]'"):
        ie.match_regions(polys, kind="polygon")
    # axis-aligned boxes need no shapely
    boxes = frame([("i", "a", "car", 0, 0, 1, 1)], ["item", "annotator", "label", "x", "y", "width", "height"])
    assert ie.match_regions(boxes, kind="box").annotations.n_items == 1


def test_boolean_and_huge_coordinates_are_refused():
    """Issue 32 item 3 for regions too: True/False are not positions, and coordinates beyond ±1e100 overflowed
    (a box's area, NaN with RuntimeWarnings)."""
    span = pd.DataFrame({"item": "d", "annotator": ["a", "b"], "label": "X", "start": [0, 0], "end": [5, 5]})
    with pytest.raises(ValueError, match=r"start of region 0 .* is True/False"):
        ie.match_regions(span.assign(start=pd.Series([True, 0], dtype=object)), kind="span")
    with pytest.raises(ValueError, match=r"True/False"):
        ie.match_regions(span.assign(end=[True, True]), kind="span")
    box = pd.DataFrame(
        {"item": "d", "annotator": ["a", "b"], "label": "X", "x": 0.0, "y": 0.0, "width": 1e300, "height": 1e300}
    )
    with pytest.raises(ValueError, match=r"width of region 0 .* beyond ±1e\+100"):
        ie.match_regions(box, kind="box")
    assert ie.match_regions(box.assign(width=1e100, height=1e100), kind="box").f1_overall == 1.0
