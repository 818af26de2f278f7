"""Agreement within groups of items and of each annotator with the others, against brute force."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

import iaa_engine as ie
from iaa_engine import Annotations

from .test_properties import SETTINGS, Raw, assert_same_array, raw_data, same

#: schemes whose item weights depend only on n_i (inv_var: proportional to the edges for any C >= 2), so that
#: restricting the data to a group does not change the weights
RESTRICTABLE = ("flat", "annotations", "annotations_m1", "edges", "inv_var")

# three annotators (rows) × five items; item 4 has a single annotation
HAND = [[1, 1, 1, 3, None], [1, 2, 1, 2, None], [2, 1, None, 3, 2]]


def hand_data() -> Annotations:
    return Annotations.from_wide(HAND)


def by_mod(n_groups: int):
    """Items named i0, i1, ... (the Raw data) grouped by their number modulo n_groups."""
    return lambda name: int(str(name)[1:]) % n_groups


def sub_data(data: Annotations, items) -> Annotations:
    long = data.to_long()
    return Annotations.from_long(long[long["item"].isin(list(items))].reset_index(drop=True))


# =========================================================================== group_agreement


def test_group_agreement_by_hand():
    """Items 0, 1: P = 1/3 each; items 2, 3: P = 1 and 1/3; item 4 unpairable."""
    groups = {0: "a", 1: "a", 2: "b", 3: "b", 4: "c"}
    g = ie.group_agreement(hand_data(), groups)
    assert list(g.index) == ["a", "b", "c"] and g.index.name == "group" and g.name == "agreement"
    assert g["a"] == pytest.approx(1 / 3, abs=1e-15)
    assert g["b"] == pytest.approx(2 / 3, abs=1e-15)
    assert math.isnan(g["c"])
    # edges: item 2 has 1 pair (agreeing), item 3 has 3 pairs (1 agreeing): (1 + 1) / (1 + 3)
    assert ie.group_agreement(hand_data(), groups, weights="edges")["b"] == pytest.approx(2 / 4, abs=1e-15)


@SETTINGS
@given(raw=raw_data(max_items=12), n_groups=st.integers(1, 4))
def test_group_agreement_is_spa_of_each_group_alone(raw, n_groups):
    """For weights that depend only on n_i, each group's value is joint_probability / spa of its own annotations."""
    data = raw.data()
    mapping = pd.Series({name: by_mod(n_groups)(name) for name in data.items})
    for w in RESTRICTABLE:
        got = ie.group_agreement(data, mapping, weights=w)
        assert list(got.index) == sorted(set(mapping))
        for g, value in got.items():
            sub = sub_data(data, mapping.index[mapping == g])
            if not (sub.counts.n_i >= 2).any():
                assert math.isnan(value), (w, g)
                continue
            want = ie.joint_probability(sub) if w == "flat" else ie.spa(sub, weights=w)
            assert same(value, want, 1e-12), (w, g, value, want)


@SETTINGS
@given(raw=raw_data(max_items=12), n_groups=st.integers(1, 4))
def test_group_agreement_uses_the_whole_data_item_weights(raw, n_groups):
    """Every scheme (inv_var_class too): Σ_{i∈g} k_i P_i / Σ_{i∈g} k_i with spa_item_weights of the whole data."""
    data = raw.data()
    p = ie.item_agreement(data)
    for w in ie.SPA_WEIGHTS:
        k = ie.spa_item_weights(data, weights=w)
        got = ie.group_agreement(data, by_mod(n_groups), weights=w)
        for g, value in got.items():
            num = den = 0.0
            for item in data.items:
                if by_mod(n_groups)(item) == g and k[item] > 0:
                    num += k[item] * p[item]
                    den += k[item]
            assert same(value, num / den if den > 0 else math.nan, 1e-12), (w, g)


@SETTINGS
@given(raw=raw_data())
def test_one_group_is_spa_and_singletons_are_item_agreement(raw):
    data = raw.data()
    p = ie.item_agreement(data)
    for w in ie.SPA_WEIGHTS:
        whole = ie.group_agreement(data, lambda _: "all", weights=w)
        assert list(whole.index) == ["all"]
        assert whole["all"] == ie.spa(data, weights=w), w  # the same integer sums in the same order: exactly
        own = ie.group_agreement(data, lambda item: item, weights=w)
        assert_same_array(own.loc[p.index].to_numpy(), p.to_numpy(), 1e-14, w)
    assert ie.group_agreement(data, lambda _: 0)[0] == ie.joint_probability(data)


def test_label_studio_style_groups_and_mapping_forms():
    """Span units named task/span, grouped by task; a callable, a dict and a Series give the same result."""
    rows = [
        ("t1/s0", "ann", "PER"),
        ("t1/s0", "bob", "PER"),
        ("t1/s1", "ann", "LOC"),
        ("t1/s1", "bob", "PER"),
        ("t2/s0", "ann", "ORG"),
        ("t2/s0", "bob", "ORG"),
        ("t2/s0", "cat", "ORG"),
        ("t3/s0", "cat", "PER"),
    ]
    data = Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    task = {name: name.split("/")[0] for name in data.items}
    by_callable = ie.group_agreement(data, lambda name: name.split("/")[0])
    by_dict = ie.group_agreement(data, {**task, "t9/s9": "t9"})  # entries for other items are ignored
    by_series = ie.group_agreement(data, pd.Series(task).iloc[::-1])
    for g in (by_dict, by_series):
        pd.testing.assert_series_equal(g, by_callable)
    assert list(by_callable.index) == ["t1", "t2", "t3"]
    assert by_callable["t1"] == 0.5 and by_callable["t2"] == 1.0 and math.isnan(by_callable["t3"])


def test_numeric_group_names_are_sorted_as_numbers():
    data = hand_data()
    g = ie.group_agreement(data, {0: 10, 1: 10, 2: 2, 3: 2, 4: 10})
    assert list(g.index) == [2, 10]
    assert pd.api.types.is_integer_dtype(g.index.dtype)


def test_undefined_groups_are_filled_silently():
    data = hand_data()
    groups = {0: "a", 1: "a", 2: "a", 3: "a", 4: "alone"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(ie.group_agreement(data, groups)["alone"])
        filled = ie.group_agreement(data, groups, weights="edges", replace_undefined_by=-1.0)
    assert filled["alone"] == -1.0 and filled["a"] >= 0
    single = Annotations.from_long(pd.DataFrame({"item": [0, 1], "annotator": ["x", "y"], "label": [1, 2]}))
    assert np.isnan(ie.group_agreement(single, lambda _: 0).to_numpy()).all()


def test_count_tables_need_no_annotators():
    data = Annotations.from_counts([[0, 0, 3], [2, 1, 0], [1, 1, 1]])
    g = ie.group_agreement(data, {0: "x", 1: "x", 2: "y"}, weights="annotations_m1")
    assert g["x"] == pytest.approx((2 * 1 + 2 * (1 / 3)) / 4, abs=1e-15)
    assert g["y"] == 0.0


@pytest.mark.parametrize(
    ("groups", "error", "message"),
    [
        ([0, 0, 1, 1, 2], TypeError, "groups must be a pandas Series indexed by item name.*got list"),
        (np.zeros(5), TypeError, "got ndarray"),
        ("task", TypeError, "got str"),
        ({0: "a", 1: "a"}, ValueError, r"no group .* for 3 of the 5 items, e\.g\. 2, 3, 4"),
        (pd.Series(["a", "a", None, "b", "b"]), ValueError, r"for 1 of the 5 items, e\.g\. 2"),
        (pd.Series(["a", np.nan, "b", "b", "b"]), ValueError, r"e\.g\. 1"),
        (pd.Series(["a", "b", "c"], index=[0, 0, 1]), ValueError, "item 0 is listed more than once"),
        (pd.Series(["a"] * 5, index=list("01234")), ValueError, r"for 5 of the 5 items, e\.g\. 0, 1, 2, 3, 4$"),
        (lambda item: None if item == 3 else "g", ValueError, r"e\.g\. 3"),
        ({}, ValueError, "for 5 of the 5 items"),
    ],
)
def test_bad_groups(groups, error, message):
    with pytest.raises(error, match=message):
        ie.group_agreement(hand_data(), groups)


def test_many_uncovered_items_are_abbreviated():
    data = Annotations.from_wide([[1] * 20, [2] * 20])
    with pytest.raises(ValueError, match=r"for 19 of the 20 items, e\.g\. 1, 2, 3, 4, 5, \.\.\.$"):
        ie.group_agreement(data, {0: "a"})


def test_group_agreement_bad_options():
    with pytest.raises(ValueError, match="weights must be one of 'flat'.*got 'pairs'"):
        ie.group_agreement(hand_data(), lambda _: 0, weights="pairs")
    with pytest.raises(TypeError, match="replace_undefined_by must be a number or nan; got 'zero'"):
        ie.group_agreement(hand_data(), lambda _: 0, replace_undefined_by="zero")
    with pytest.raises(TypeError):
        ie.group_agreement(hand_data(), lambda _: 0, "flat")  # options are keyword-only


# =========================================================================== annotator_agreement


def brute_pairs(raw: Raw) -> dict[int, list[tuple[int, int]]]:
    """Per annotator: every (own label, other's label) pair with another annotation of the same item."""
    out = {}
    n_ann, n_items = raw.codes.shape
    for a in range(n_ann):
        out[a] = []
        for i in range(n_items):
            if raw.codes[a, i] < 0:
                continue
            for b in range(n_ann):
                if b != a and raw.codes[b, i] >= 0:
                    out[a].append((int(raw.codes[a, i]), int(raw.codes[b, i])))
    return out


def brute_annotator(raw: Raw) -> pd.DataFrame:
    rows = []
    per_item = (raw.codes >= 0).sum(axis=0)
    for a, pairs in brute_pairs(raw).items():
        n_items = int(sum(1 for i in range(raw.codes.shape[1]) if raw.codes[a, i] >= 0 and per_item[i] >= 2))
        if not pairs:
            rows.append((n_items, 0, math.nan, math.nan, math.nan))
            continue
        table = np.zeros((raw.n_categories, raw.n_categories))
        for x, y in pairs:
            table[x, y] += 1
        total = table.sum()
        agree = np.trace(table) / total
        expected = float(table.sum(axis=1) @ table.sum(axis=0)) / total**2
        kappa = (agree - expected) / (1 - expected) if expected < 1 else math.nan
        rows.append((n_items, len(pairs), agree, expected, kappa))
    return pd.DataFrame(rows, columns=["n_items", "n_pairs", "agreement", "expected", "kappa"], index=raw.annotators)


def test_annotator_agreement_by_hand():
    """Annotator 0 agrees with 1 of 2 partners on items 0, 1, 3 and with 1 of 1 on item 2: 4/7."""
    t = ie.annotator_agreement(hand_data())
    assert list(t.columns) == ["n_items", "n_pairs", "agreement", "expected", "kappa"]
    assert t.index.name == "annotator" and list(t.index) == [0, 1, 2]
    assert list(t["n_items"]) == [4, 4, 3] and list(t["n_pairs"]) == [7, 7, 6]
    assert t.loc[0, "agreement"] == pytest.approx(4 / 7, abs=1e-15)
    # annotator 0: own labels 1,1,1,3 with 2,2,1,2 partners: rows (1: 5, 3: 2); others: 1 ×3, 2 ×3, 3 ×1
    assert t.loc[0, "expected"] == pytest.approx((5 * 3 + 2 * 1) / 49, abs=1e-15)
    assert t.loc[0, "kappa"] == pytest.approx((4 / 7 - 17 / 49) / (1 - 17 / 49), abs=1e-15)


@SETTINGS
@given(raw=raw_data())
def test_annotator_agreement_is_the_brute_force_pair_table(raw):
    got = ie.annotator_agreement(raw.data())
    want = brute_annotator(raw)
    assert list(got.index) == list(want.index)
    assert (got["n_items"] == want["n_items"]).all() and (got["n_pairs"] == want["n_pairs"]).all()
    for col in ("agreement", "expected", "kappa"):
        assert_same_array(got[col].to_numpy(), want[col].to_numpy(), 1e-12, col)


@SETTINGS
@given(raw=raw_data())
def test_kappa_is_sklearn_cohen_kappa_of_the_pairs(raw):
    """kappa_a = cohen_kappa_score(a's labels, the others' labels) over a's pairs."""
    got = ie.annotator_agreement(raw.data())
    for a, pairs in brute_pairs(raw).items():
        name = raw.annotators[a]
        if not pairs:
            assert math.isnan(got.loc[name, "kappa"])
            continue
        mine, theirs = zip(*pairs)
        if len(set(mine) | set(theirs)) < 2:  # one category on both sides: E = 1, kappa undefined
            assert math.isnan(got.loc[name, "kappa"]) and got.loc[name, "agreement"] == 1.0
            continue
        assert same(got.loc[name, "kappa"], cohen_kappa_score(mine, theirs), 1e-12), name


@SETTINGS
@given(raw=raw_data())
def test_pooled_annotator_agreement_is_spa_edges(raw):
    """Σ_a tr T_a / Σ_a N_a = Σ_i Σ_c n_ic(n_ic - 1) / Σ_i n_i(n_i - 1) = spa(weights='edges')."""
    data = raw.data()
    t = ie.annotator_agreement(data)
    ok = t["n_pairs"] > 0
    pooled = float((t.loc[ok, "agreement"] * t.loc[ok, "n_pairs"]).sum() / t["n_pairs"].sum())
    dense = data.counts.to_dense()
    n = dense.sum(axis=1)
    agreeing_pairs = float((dense * (dense - 1)).sum())
    assert same(pooled, agreeing_pairs / float((n * (n - 1)).sum()), 1e-12)
    assert same(pooled, ie.spa(data, weights="edges"), 1e-12)
    assert t["n_pairs"].sum() == (n * (n - 1)).sum()  # every ordered pair once
    assert t["n_items"].sum() == n[n >= 2].sum()  # every pairable annotation once


def test_pooled_agreement_is_not_spa_annotations_m1():
    """annotations_m1 divides each item's pairs by n_i: it differs from the pooled share when the n_i differ."""
    data = hand_data()
    t = ie.annotator_agreement(data)
    pooled = (t["agreement"] * t["n_pairs"]).sum() / t["n_pairs"].sum()
    assert pooled == pytest.approx(ie.spa(data, weights="edges"), abs=1e-15)
    assert abs(pooled - ie.spa(data, weights="annotations_m1")) > 1e-3


@SETTINGS
@given(raw=raw_data(min_annotators=2, max_annotators=2))
def test_two_annotators_give_cohen_kappa(raw):
    """With two annotators, each one's pair table is the cross-tabulation of the pair on their shared items."""
    data = raw.data()
    t = ie.annotator_agreement(data)
    a, b = data.annotators
    shared = ((raw.codes >= 0).sum(axis=0) == 2).sum()
    assert list(t["n_items"]) == [shared, shared] and list(t["n_pairs"]) == [shared, shared]
    assert same(t.loc[a, "agreement"], ie.percent_agreement_matrix(data).values[0, 1])
    assert same(t.loc[a, "kappa"], ie.cohen_kappa(data, a, b), 1e-12)
    assert same(t.loc[b, "kappa"], ie.cohen_kappa(data, a, b), 1e-12)


def test_undefined_annotator_rows_are_filled_silently():
    """x and y share item 0 and both say 1 (E = 1); z shares nothing; w labelled nothing (wide matrix row)."""
    frame = pd.DataFrame([[1, None], [1, None], [None, 2], [None, None]], index=list("xyzw"))
    data = Annotations.from_wide(frame, annotators_as="rows")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = ie.annotator_agreement(data)
        filled = ie.annotator_agreement(data, replace_undefined_by=-1.0)
    assert list(t.index) == list("xyzw")
    assert list(t["n_items"]) == [1, 1, 0, 0] and list(t["n_pairs"]) == [1, 1, 0, 0]
    assert list(t.loc["x", ["agreement", "expected"]]) == [1.0, 1.0] and math.isnan(t.loc["x", "kappa"])
    assert t.loc[["z", "w"], ["agreement", "expected", "kappa"]].isna().all().all()
    assert (filled.loc[["z", "w"], ["agreement", "expected", "kappa"]] == -1.0).all().all()
    assert filled.loc["x", "kappa"] == -1.0 and filled.loc["x", "agreement"] == 1.0


def test_annotator_agreement_needs_annotators_and_annotations():
    with pytest.raises(ValueError, match="annotator agreement needs to know who gave each label"):
        ie.annotator_agreement(Annotations.from_counts([[1, 2], [3, 0]]))
    data = hand_data()
    stats = Annotations.from_stats(
        data.counts,
        items=data.items,
        categories=data.categories,
        annotators=data.annotators,
        annotator_stats=data.annotator_stats,
        pair_stats=data.pair_stats,
    )
    with pytest.raises(ValueError, match="needs the annotations themselves, not only statistics"):
        ie.annotator_agreement(stats)
    with pytest.raises(TypeError, match="replace_undefined_by must be a number or nan; got None"):
        ie.annotator_agreement(data, replace_undefined_by=None)
    with pytest.raises(TypeError, match="expected Annotations"):
        ie.annotator_agreement({"a": [1, 2]})


def test_exact_match_whatever_the_level():
    """Ordinal data: only equal categories agree (no partial credit for neighbours)."""
    data = Annotations.from_wide([[1, 2, 3], [2, 2, 3]], level="ordinal")
    t = ie.annotator_agreement(data)
    assert list(t["agreement"]) == [pytest.approx(2 / 3)] * 2


def test_long_and_wide_give_the_same_table():
    data = hand_data()
    again = Annotations.from_long(data.to_long().iloc[::-1].reset_index(drop=True))
    pd.testing.assert_frame_equal(
        ie.annotator_agreement(again), ie.annotator_agreement(data), check_exact=False, rtol=0, atol=1e-15
    )
