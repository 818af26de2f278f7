"""Relations between matched regions (ie.relation_agreement): worked by hand, equal to Krippendorff's alpha of the
relation units written out independently, direction handling, region ids, per-label alpha and pairwise F1."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.analysis._relations import NO_LABEL
from iaa_engine.analysis._relations import NO_RELATION as NO


def three_annotators():
    """Document d1: three entities (0-5, 10-14, 20-26) marked by ann, bob and cy alike; document d2: two entities
    marked by ann and bob. Row positions: d1 ann 0-2, bob 3-5, cy 6-8; d2 ann 9-10, bob 11-12."""
    rows = []
    for who in ("ann", "bob", "cy"):
        rows += [("d1", who, "ENT", s, e) for s, e in ((0, 5), (10, 14), (20, 26))]
    for who in ("ann", "bob"):
        rows += [("d2", who, "ENT", s, e) for s, e in ((0, 3), (8, 9))]
    regions = pd.DataFrame(rows, columns=["item", "annotator", "label", "start", "end"])
    regions["id"] = [f"{w}-{k}" for w, k in zip(regions["annotator"], range(len(regions)))]
    return regions


def test_worked_by_hand():
    """ann and bob draw works_for 0 -> 1 in d1; cy draws it 1 -> 0 (the other direction: another unit). Units
    (d1): R1 = 0->1: (works_for, works_for, none); R2 = 1->0: (none, none, works_for). Nominal alpha from the
    coincidences (ordered pairs within a unit, each weighing 1/(3 - 1)): R1 gives ww 2 x 1/2 = 1 and wn + nw
    4 x 1/2 = 2; R2 gives nn 1 and nw + wn 2. So o_ww = o_nn = 1, o_wn + o_nw = 4, n = 6, n_w = n_n = 3:
    D_o = 4/6, D_e = 2 * 3 * 3 / (6 * 5) = 0.6, alpha = 1 - (2/3) / 0.6 = -1/9."""
    regions = three_annotators()
    m = ie.match_regions(regions, kind="span")
    rel = pd.DataFrame(
        {"annotator": ["ann", "bob", "cy"], "from_id": [0, 3, 7], "to_id": [1, 4, 6], "label": "works_for"}
    )
    res = ie.relation_agreement(m, rel)
    assert res.alpha == pytest.approx(-1 / 9, abs=1e-15)
    assert res.n_units == 2 and res.n_relations == 3
    pairs = res.pairs.set_index(["annotator_a", "annotator_b"])
    assert pairs.loc[("ann", "bob"), ["n_matched", "f1"]].tolist() == [1, 1.0]
    assert pairs.loc[("ann", "cy"), ["n_matched", "f1"]].tolist() == [0, 0.0]
    # 'bi' makes the direction not matter: all three agree
    bi = ie.relation_agreement(m, rel.assign(dir="bi"), direction="dir")
    assert bi.n_units == 1 and set(bi.units["label"]) == {"works_for"}
    # 'left' turns cy's relation round: again all three agree
    left = ie.relation_agreement(m, rel.assign(dir=["right", "right", "left"]), direction="dir")
    assert left.n_units == 1 and left.pairs["f1"].tolist() == [1.0, 1.0, 1.0]


def random_relations(seed: int, regions: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for (item, who), g in regions.groupby(["item", "annotator"]):
        idx = g.index.to_numpy()
        for a, b in itertools.permutations(idx, 2):
            if rng.random() < 0.3:
                rows.append((who, a, b, rng.choice(["works_for", "located_in"])))
    return pd.DataFrame(rows, columns=["annotator", "from_id", "to_id", "label"])


@pytest.mark.parametrize("seed", range(6))
def test_alpha_equals_alpha_of_relation_units_written_out(seed):
    """Independently: every (item, from unit, to unit) any annotator drew, every annotator of the item, her label
    or 'no relation'; then the library's nominal alpha and per-label alpha of that table."""
    regions = three_annotators()
    m = ie.match_regions(regions, kind="span")
    rel = random_relations(seed, regions)
    res = ie.relation_agreement(m, rel)
    unit_of = {int(r.region): (r.item, int(r.unit)) for r in m.units.itertuples() if r.region >= 0}
    drawn = {}
    for r in rel.itertuples():
        (item, u), (_, v) = unit_of[r.from_id], unit_of[r.to_id]
        drawn.setdefault((item, u, v), {})[r.annotator] = r.label
    present = {"d1": ["ann", "bob", "cy"], "d2": ["ann", "bob"]}
    rows = [(f"{item}#{u}->{v}", who, by.get(who, NO)) for (item, u, v), by in drawn.items() for who in present[item]]
    table = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    expected = ie.krippendorff_alpha(ie.Annotations.from_long(table))
    assert res.alpha == pytest.approx(expected, abs=1e-14) or (math.isnan(res.alpha) and math.isnan(expected))
    per = ie.label_agreement(ie.Annotations.from_long(table)).drop(index=NO)
    pd.testing.assert_frame_equal(res.per_label, per, check_names=False)
    # pairwise F1 by hand
    for (a, b), row in res.pairs.set_index(["annotator_a", "annotator_b"]).iterrows():
        items = [i for i in present if a in present[i] and b in present[i]]
        ra = {(k, lab) for k, by in drawn.items() for w, lab in by.items() if w == a and k[0] in items}
        rb = {(k, lab) for k, by in drawn.items() for w, lab in by.items() if w == b and k[0] in items}
        assert (row["n_relations_a"], row["n_relations_b"], row["n_matched"]) == (len(ra), len(rb), len(ra & rb))


def test_region_ids_and_annotators_without_relations():
    regions = three_annotators()
    m = ie.match_regions(regions, kind="span")
    rel = pd.DataFrame(
        {"annotator": ["ann", "bob"], "src": ["ann-9", "bob-11"], "dst": ["ann-10", "bob-12"], "label": ["r", "r"]}
    )
    res = ie.relation_agreement(m, rel, regions=regions, region_id="id", from_region="src", to_region="dst")
    assert math.isnan(res.alpha)  # one unit on which both agree: no variation, alpha undefined
    assert res.units["annotator"].tolist() == ["ann", "bob"]
    # a relation only in d1 for ann: bob and cy get 'no relation' there
    rel1 = pd.DataFrame({"annotator": ["ann"], "from_id": [0], "to_id": [2], "label": ["r"]})
    res1 = ie.relation_agreement(m, rel1)
    assert res1.units["label"].tolist() == ["r", NO, NO]


def test_errors():
    regions = three_annotators()
    m = ie.match_regions(regions, kind="span")
    ok = {"annotator": ["ann"], "from_id": [0], "to_id": [1], "label": ["r"]}
    with pytest.raises(ValueError, match="did not draw"):
        ie.relation_agreement(m, pd.DataFrame({**ok, "to_id": [4]}))
    with pytest.raises(ValueError, match="two items"):
        ie.relation_agreement(m, pd.DataFrame({**ok, "to_id": [9]}))
    with pytest.raises(ValueError, match="not a matched region"):
        ie.relation_agreement(m, pd.DataFrame({**ok, "to_id": [99]}))
    with pytest.raises(ValueError, match="'right', 'left' or 'bi'"):
        ie.relation_agreement(m, pd.DataFrame({**ok, "d": ["up"]}), direction="d")
    with pytest.raises(ValueError, match="column"):
        ie.relation_agreement(m, pd.DataFrame(ok), from_region="source")
    with pytest.raises(ValueError, match="not in the regions table"):
        ie.relation_agreement(m, pd.DataFrame({**ok, "from_id": ["zz"]}), regions=regions, region_id="id")
    with pytest.raises(TypeError, match="RegionMatch"):
        ie.relation_agreement(regions, pd.DataFrame(ok))
    with pytest.raises(ie.InvalidParameterError):
        ie.relation_agreement(m, "relations.csv")


# --------------------------------------------------------------------------- issue 32: inputs once read wrongly


def test_a_relation_without_a_label_is_the_no_label_label_not_the_text_nan():
    """A missing label used to become the category "nan"; it is a relation drawn without a label, '(no label)' (the
    name the Label Studio connector gives an unlabelled relation), never a label named 'nan'."""
    m = ie.match_regions(three_annotators(), kind="span")
    rel = pd.DataFrame(
        {"annotator": ["ann", "bob", "cy"], "from_id": [0, 3, 6], "to_id": [1, 4, 7], "label": [None, np.nan, ""]}
    )
    res = ie.relation_agreement(m, rel)
    assert set(res.units["label"]) == {NO_LABEL} == {"(no label)"}
    assert "nan" not in set(res.per_label.index) and "" not in set(res.per_label.index)
    assert res.n_units == 1 and math.isnan(res.alpha)  # all three drew it alike: no variation
    assert res.pairs["f1"].tolist() == [1.0, 1.0, 1.0]
    # an empty list of labels (Label Studio's "labels": []) is no label too
    listed = ie.relation_agreement(m, rel.assign(label=[[], ["r"], ["r"]]))
    assert listed.units.set_index("annotator").loc[["ann", "bob"], "label"].tolist() == ["(no label)", "r"]


def test_a_label_spelled_like_the_absence_of_a_relation_is_refused():
    """A drawn relation labelled '(no relation)' was merged with the relations not drawn (and left out of the
    per-label table): refused, with the way out (no_relation= another text)."""
    m = ie.match_regions(three_annotators(), kind="span")
    rel = pd.DataFrame({"annotator": ["ann", "bob"], "from_id": [0, 3], "to_id": [1, 4], "label": ["r", NO]})
    with pytest.raises(ValueError, match=r"relation 2 .*label '\(no relation\)'.*no_relation="):
        ie.relation_agreement(m, rel)
    res = ie.relation_agreement(m, rel, no_relation="(none drawn)")
    assert set(res.units["label"]) == {"r", NO, "(none drawn)"}


def test_a_relation_from_a_region_to_itself_is_refused():
    m = ie.match_regions(three_annotators(), kind="span")
    rel = pd.DataFrame({"annotator": ["ann", "ann"], "from_id": [0, 2], "to_id": [1, 2], "label": "r"})
    with pytest.raises(ValueError, match="relation 2 links region '2' to itself"):
        ie.relation_agreement(m, rel)


@pytest.mark.parametrize(
    "second, direction",
    [
        ((0, 1, "other"), ("right", "right")),  # the same relation twice, two labels
        ((0, 1, "r"), ("right", "right")),  # the same relation twice, one label
        ((1, 0, "other"), ("right", "left")),  # turned round with 'left': the same relation
        ((1, 0, "other"), ("bi", "bi")),  # both ways: the same unordered pair
    ],
)
def test_one_annotator_giving_one_relation_two_rows_is_refused(second, direction):
    """Two rows of one annotator for one relation unit were joined into the label 'other+r' without a word;
    refused as preferences and rankings refuse a judge's second judgment (several labels: give them as a list)."""
    m = ie.match_regions(three_annotators(), kind="span")
    rel = pd.DataFrame(
        {
            "annotator": ["ann", "ann"],
            "from_id": [0, second[0]],
            "to_id": [1, second[1]],
            "label": ["r", second[2]],
            "dir": list(direction),
        }
    )
    with pytest.raises(ValueError, match="annotator 'ann' drew the relation .* twice .*rows? 1 and 2.*list"):
        ie.relation_agreement(m, rel, direction="dir")
    # one row with a list of labels is one relation with two labels
    one = ie.relation_agreement(m, pd.DataFrame({"annotator": ["ann"], "from_id": [0], "to_id": [1],
                                                 "label": [["r", "other"]]}))  # fmt: skip
    assert one.units.set_index("annotator").loc["ann", "label"] == "other+r"
