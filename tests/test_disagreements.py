"""What to adjudicate (issue 17, item 1): the ranked items, the confused label pairs, the CLI and the HTML list.

The hand-worked case below has its arithmetic written out; the properties (hypothesis) check that relabelling the
categories permutes the confused pairs accordingly and that the order of the items does not change what is found.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie

EXAMPLES = Path(ie.__file__).parent / "examples"
IAA = shutil.which("iaa", path=str(Path(sys.executable).parent)) or shutil.which("iaa")

#: i1 unanimous (not listed), i7 a single annotation (not pairable); the others disagree.
LABELS = {
    "i1": "aaa",
    "i2": "ab",
    "i3": "abc",
    "i4": "aab",
    "i5": "aabb",
    "i6": "ccca",
    "i7": "b",
}


def _table(labels: dict[str, str]) -> pd.DataFrame:
    rows = [(item, "xyzw"[k], lab) for item, labs in labels.items() for k, lab in enumerate(labs)]
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


@pytest.fixture(scope="module")
def hand():
    return ie.disagreements(_table(LABELS), dawid_skene=False)


def test_hand_worked_ranking(hand):
    """P_i = sum_c n_ic (n_ic - 1) / (n_i (n_i - 1)):

    i2 a b      P = 0                tie (1:1)      n 2
    i3 a b c    P = 0                tie (1:1:1)    n 3
    i4 a a b    P = 2 / 6 = 1/3      no tie         n 3
    i5 a a b b  P = (2 + 2) / 12 = 1/3   tie (2:2)  n 4
    i6 c c c a  P = 6 / 12 = 1/2     no tie         n 4

    Lowest agreement first: {i2, i3} then {i4, i5} then i6; among i2 and i3 (both tied, no Dawid-Skene) more
    annotations first: i3, i2; among i4 and i5 the tie first: i5, i4.
    """
    assert hand.n_pairable == 6 and hand.n_disagreeing == 5
    items = hand.items
    assert items["item"].tolist() == ["i3", "i2", "i5", "i4", "i6"]
    assert items["rank"].tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(items["agreement"], [0, 0, 1 / 3, 1 / 3, 1 / 2], atol=1e-15)
    assert items["tie"].tolist() == [True, True, True, False, False]
    assert items["n_tied"].tolist() == [3, 2, 2, 1, 1]
    assert items["n_annotations"].tolist() == [3, 2, 4, 3, 4]
    assert items["entropy"].isna().all() and not hand.dawid_skene
    # each listed item with its labels and annotators
    frame = hand.to_frame().set_index("item")
    assert frame.loc["i5", "gold"] == "a|b" and frame.loc["i4", "gold"] == "a"
    assert frame.loc["i6", "labels"] == "a×1, c×3"
    assert frame.loc["i3", "annotators"] == "x=a, y=b, z=c"
    a = hand.annotations
    six = a[a["item"] == "i6"]  # in the data's order
    assert six[["annotator", "label"]].values.tolist() == [["x", "c"], ["y", "c"], ["z", "c"], ["w", "a"]]
    assert (six["rank"] == 5).all()


def test_hand_worked_confused_pairs(hand):
    """o_ck = sum_i n_ic n_ik / (n_i - 1), c != k:

    o_ab = i2 1/1 + i3 1/2 + i4 2*1/2 + i5 2*2/3 = 1 + 1/2 + 1 + 4/3 = 23/6
    o_ac = i3 1/2 + i6 3*1/3 = 3/2
    o_bc = i3 1/2
    pairable values: n_a = 3+1+1+2+2+1 = 10, n_b = 1+1+1+2 = 5, n_c = 1+3 = 4, n = 19
    e_ab = 10*5/18 = 25/9, ratio 207/150 = 1.38; e_ac = 40/18 = 20/9, ratio 27/40; e_bc = 20/18, ratio 9/20
    share of all disagreeing pairs: 2 o / (2 (23/6 + 3/2 + 1/2)) -> ab 23/35, ac 9/35, bc 3/35
    """
    p = hand.pairs
    assert list(zip(p["label_a"], p["label_b"])) == [("a", "b"), ("a", "c"), ("b", "c")]
    expect = [
        (F(23, 6), F(25, 9), F(207, 150), F(23, 35), 4),
        (F(3, 2), F(20, 9), F(27, 40), F(9, 35), 2),
        (F(1, 2), F(10, 9), F(9, 20), F(3, 35), 1),
    ]
    for row, (o, e, r, share, n) in zip(p.itertuples(), expect):
        assert row.observed == pytest.approx(float(o), abs=1e-14)
        assert row.expected == pytest.approx(float(e), abs=1e-14)
        assert row.ratio == pytest.approx(float(r), abs=1e-14)
        assert row.share == pytest.approx(float(share), abs=1e-14)
        assert row.n_items == n
    # the items behind a-b, largest share of o_ab first: i5 (4/3), then i2 and i4 (1 each, data order), i3 (1/2)
    ab = hand.pair_items[hand.pair_items["pair"] == 1]
    assert ab["item"].tolist() == ["i5", "i2", "i4", "i3"]
    np.testing.assert_allclose(ab["observed"], [4 / 3, 1, 1, 1 / 2], atol=1e-15)
    assert ab["item_rank"].tolist() == [3, 2, 4, 1]
    # the same coincidences as Krippendorff's matrix
    o = ie.coincidence_matrix(_table(LABELS))
    assert [o[0, 1], o[0, 2], o[1, 2]] == pytest.approx([23 / 6, 3 / 2, 1 / 2], abs=1e-14)


def test_top_cuts_the_lists_not_the_ranking(hand):
    top = ie.disagreements(_table(LABELS), top=2, dawid_skene=False)
    assert top.items["item"].tolist() == ["i3", "i2"] and top.n_disagreeing == 5
    assert len(top.pairs) == 2 and set(top.annotations["item"]) == {"i3", "i2"}
    assert set(top.pair_items["pair"]) == {1, 2}


def test_items_per_pair_keeps_the_largest_shares(hand):
    capped = ie.disagreements(_table(LABELS), dawid_skene=False, items_per_pair=2)
    assert capped.pair_items[capped.pair_items["pair"] == 1]["item"].tolist() == ["i5", "i2"]
    assert capped.pairs["n_items"].tolist() == hand.pairs["n_items"].tolist() == [4, 2, 1]  # still counts them all
    assert capped.pair_items.groupby("pair").size().tolist() == [2, 2, 1]
    assert not any("Dawid-Skene" in k for k in hand.ranking)  # the ranking names the keys it used


def test_dawid_skene_entropy_is_the_posteriors():
    data = ie.read(EXAMPLES / "crowd.csv")
    d = ie.disagreements(data, progress=False)
    post = ie.gold_standard(data, rule="dawid_skene", progress=False).posteriors
    p = post.loc[d.items["item"]].to_numpy()
    h = -(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)).sum(axis=1) / np.log(p.shape[1])
    np.testing.assert_allclose(d.items["entropy"], h, atol=1e-12)
    assert d.items["ds_label"].tolist() == list(post.loc[d.items["item"]].idxmax(axis=1))
    # within equal agreement and tie, the entropy decides (highest first)
    for _, g in d.items.groupby(["agreement", "tie"], sort=False):
        assert (np.diff(g["entropy"].to_numpy()) <= 1e-15).all()
    # the keys in order: agreement ascending, then ties first
    key = list(zip(d.items["agreement"].round(12), ~d.items["tie"]))
    assert key == sorted(key)


def test_count_table_without_annotators():
    table = ie.Annotations.from_counts([[3, 0], [1, 1], [2, 1], [0, 1]])
    d = ie.disagreements(table)
    assert not d.dawid_skene and d.items["item"].tolist() == [1, 2]
    assert d.annotations["annotator"].isna().all() and len(d.annotations) == 5
    assert "Who said what" not in str(d) and "None=" not in str(d)  # nobody to name
    with pytest.raises(ValueError, match="annotator identities"):
        ie.disagreements(table, dawid_skene=True)


def test_results_serialise():
    d = ie.disagreements(_table(LABELS), dawid_skene=False)
    out = json.loads(d.to_json())
    assert out["items"][0]["item"] == "i3" and out["items"][0]["gold"] == ["a", "b", "c"]
    assert out["items"][0]["annotations"] == [
        {"annotator": "x", "label": "a"},
        {"annotator": "y", "label": "b"},
        {"annotator": "z", "label": "c"},
    ]
    assert [i["item"] for i in out["pairs"][0]["items"]] == ["i5", "i2", "i4", "i3"]
    assert out["items"][0]["entropy"] is None
    assert "Most confused label pairs" in str(d)


def test_bad_options_are_refused():
    with pytest.raises(ie.InvalidParameterError, match="^top must be"):
        ie.disagreements(_table(LABELS), top=-1)  # 0 means all (issue 32), as --top 0
    with pytest.raises(ie.InvalidParameterError, match="^dawid_skene must be"):
        ie.disagreements(_table(LABELS), dawid_skene="yes")


# --------------------------------------------------------------------------- properties


@st.composite
def long_tables(draw):
    n_items = draw(st.integers(1, 10))
    rows = []
    for i in range(n_items):
        anns = draw(st.lists(st.sampled_from("pqrst"), min_size=1, max_size=5, unique=True))
        for a in anns:
            rows.append((f"it{i}", a, draw(st.sampled_from("abcd"))))
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


def _pairs(d, rename=lambda x: x) -> dict:
    return {
        frozenset((rename(a), rename(b))): (round(o, 10), round(r, 10), n)
        for a, b, o, r, n in d.pairs[["label_a", "label_b", "observed", "ratio", "n_items"]].itertuples(index=False)
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables(), st.permutations("abcd"))
def test_relabelling_categories_permutes_the_pairs(table, perm):
    mapping = dict(zip("abcd", ["L" + x for x in perm]))
    d0 = ie.disagreements(table, dawid_skene=False)
    d1 = ie.disagreements(table.assign(label=table["label"].map(mapping)), dawid_skene=False)
    assert _pairs(d1) == _pairs(d0, rename=mapping.get)
    assert d1.pairs["ratio"].tolist() == d0.pairs["ratio"].tolist()  # the same ranking, renamed
    assert d1.items["item"].tolist() == d0.items["item"].tolist()  # the items' ranking does not see the names


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables(), st.randoms(use_true_random=False))
def test_item_order_does_not_matter(table, rnd):
    names = sorted(table["item"].unique())
    new = names[:]
    rnd.shuffle(new)
    renamed = table.assign(item=table["item"].map(dict(zip(names, ["z" + n for n in new]))))
    shuffled = renamed.sample(frac=1.0, random_state=rnd.randint(0, 10**6))
    back = {"z" + n: o for o, n in zip(names, new)}
    d0 = ie.disagreements(table, dawid_skene=False)
    d1 = ie.disagreements(shuffled, dawid_skene=False)
    assert _pairs(d1) == _pairs(d0)
    cols = ["agreement", "tie", "n_tied", "n_annotations"]
    f0 = d0.items.set_index("item")[cols].sort_index()
    f1 = d1.items.assign(item=d1.items["item"].map(back)).set_index("item")[cols].sort_index()
    pd.testing.assert_frame_equal(f0, f1, check_index_type=False)
    # the ranking keys come out in the same order (only the last tie-break, the data's order, may differ)
    assert d1.items[cols].values.tolist() == d0.items[cols].values.tolist()


def test_relabelling_keeps_the_dawid_skene_entropy():
    data = ie.read(EXAMPLES / "crowd.csv")
    table = data.to_long()
    mapping = {c: f"z{k}" for k, c in enumerate(reversed(list(data.categories)))}
    d0 = ie.disagreements(table, progress=False)
    d1 = ie.disagreements(table.assign(label=table["label"].map(mapping)), progress=False)
    e0 = d0.items.set_index("item")["entropy"].sort_index()
    e1 = d1.items.set_index("item")["entropy"].sort_index()
    np.testing.assert_allclose(e1.to_numpy(), e0.to_numpy(), atol=1e-9)


# --------------------------------------------------------------------------- the command line


def run(*args: str) -> subprocess.CompletedProcess:
    assert IAA, "the iaa console script is not installed"
    env = {k: v for k, v in os.environ.items() if k != "IAA_DEBUG"}
    return subprocess.run([IAA, *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture(scope="module")
def hand_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("dis") / "hand.csv"
    _table(LABELS).to_csv(path, index=False)
    return path


def test_cli_table(hand_csv):
    out = run("disagreements", str(hand_csv), "--no-dawid-skene")
    assert out.returncode == 0, out.stderr
    assert "5 of 6 items with 2+ annotations disagree" in out.stdout
    lines = out.stdout.splitlines()
    first = next(line for line in lines if line.strip().startswith("1 "))
    assert first.split()[1] == "i3"
    assert "Most confused label pairs" in out.stdout and "1.38" in out.stdout
    # who said what, one line per listed item in rank order: i3 is x=a, y=b, z=c
    who = lines[lines.index("Who said what (annotator=label)") + 1 :]
    assert who[0].split() == ["i3", "x=a,", "y=b,", "z=c"] and who[1].split()[0] == "i2"


def test_cli_table_with_pairs_shows_the_pairs_and_the_items_behind_them(hand_csv):
    """Issue 32: ``--pairs`` on the terminal was ignored without a word (the items table came out). It now shows
    the label pairs and, for each, the items behind it (the CSV's ``items`` column: i5|i2|i4|i3, i6|i3, i3)."""
    out = run("disagreements", str(hand_csv), "--pairs", "--no-dawid-skene")
    assert out.returncode == 0, out.stderr
    assert "Items to adjudicate" not in out.stdout and "Who said what" not in out.stdout
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Most confused label pairs (3 shown") and "1.38" in out.stdout
    behind = lines[lines.index("Items behind each pair (largest share of the pair's coincidences first)") + 1 :]
    assert [line.split(": ")[1] for line in behind] == ["i5, i2, i4, i3", "i6, i3", "i3"]


def test_top_zero_means_all_in_python_as_on_the_command_line(hand_csv):
    """``ie.disagreements(top=0)`` was refused (top must be at least 1) while ``--top 0`` means all."""
    data = ie.read(hand_csv)
    every = ie.disagreements(data, dawid_skene=False, progress=False)
    zero = ie.disagreements(data, top=0, items_per_pair=0, dawid_skene=False, progress=False)
    pd.testing.assert_frame_equal(zero.items, every.items)
    pd.testing.assert_frame_equal(zero.pair_items, every.pair_items)
    assert len(zero.items) == every.n_disagreeing == 5
    with pytest.raises(ie.InvalidParameterError, match="^top must be"):
        ie.disagreements(data, top=-1)


def test_who_said_what_is_cut_with_a_count_of_the_rest():
    rows = [("big", f"annotator{k:02d}", "ab"[k % 2]) for k in range(30)]
    text = str(ie.disagreements(pd.DataFrame(rows, columns=["item", "annotator", "label"]), dawid_skene=False))
    line = next(line for line in text.splitlines() if line.strip().startswith("big "))
    assert line.endswith("annotator05=b, ... (+24 more)") and "annotator06" not in line  # 15 characters each
    # labels holding ", " (several choices) are counted as entries, not by their commas
    rows = [("big", f"p{k}", ("PER", "ORG") if k % 2 else ("LOC",)) for k in range(12)]
    text = str(ie.disagreements(pd.DataFrame(rows, columns=["item", "annotator", "label"]), dawid_skene=False))
    line = next(line for line in text.splitlines() if line.strip().startswith("big "))
    shown = line.count("=")
    assert line.endswith(f"(+{12 - shown} more)") and 0 < shown < 12
    # free texts: a long first entry is cut too
    from iaa_engine.analysis._disagreements import _shorten

    assert _shorten(["x=" + "a" * 300]) == "x=" + "a" * 95 + "..."
    assert _shorten(["x=" + "a" * 300, "y=b"]) == "x=" + "a" * 95 + "..., ... (+1 more)"
    assert _shorten(["x=a", "y=b"]) == "x=a, y=b"


def test_cli_csv_items_and_pairs(hand_csv, tmp_path):
    out = run("disagreements", str(hand_csv), "--format", "csv", "--top", "3", "--no-dawid-skene")
    assert out.returncode == 0, out.stderr
    frame = pd.read_csv(pd.io.common.StringIO(out.stdout))
    assert frame["item"].tolist() == ["i3", "i2", "i5"] and frame["gold"].tolist() == ["a|b|c", "a|b", "a|b"]
    out = run("disagreements", str(hand_csv), "--format", "csv", "--pairs", "--no-dawid-skene")
    pairs = pd.read_csv(pd.io.common.StringIO(out.stdout))
    assert pairs["items"].tolist() == ["i5|i2|i4|i3", "i6|i3", "i3"]
    assert pairs["ratio"].tolist() == pytest.approx([1.38, 0.675, 0.45], abs=1e-12)
    target = tmp_path / "d.csv"
    out = run("disagreements", str(hand_csv), "--format", "csv", "-o", str(target), "--no-dawid-skene")
    assert out.returncode == 0 and "wrote 5 of 5 items" in out.stderr
    assert pd.read_csv(target)["item"].tolist() == ["i3", "i2", "i5", "i4", "i6"]


def test_cli_json_with_dawid_skene():
    out = run("disagreements", str(EXAMPLES / "crowd.csv"), "--format", "json", "--top", "0")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    ref = ie.disagreements(ie.read(EXAMPLES / "crowd.csv"), progress=False)
    assert got["dawid_skene"] is True and len(got["items"]) == ref.n_disagreeing == got["n_disagreeing"]
    assert [i["item"] for i in got["items"]] == ref.items["item"].tolist()
    assert [i["entropy"] for i in got["items"]] == pytest.approx(ref.items["entropy"].tolist(), abs=1e-12)


def test_cli_errors_are_one_line_and_exit_2(tmp_path):
    out = run("disagreements", str(tmp_path / "missing.csv"))
    assert out.returncode == 2 and out.stderr.startswith("iaa: error:") and "missing.csv" in out.stderr
    assert "Traceback" not in out.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("item,annotator,label\nt1,a,x,extra\n", encoding="utf-8")
    out = run("disagreements", str(bad))
    assert out.returncode == 2 and "line 2" in out.stderr and "Traceback" not in out.stderr
    out = run("disagreements", str(EXAMPLES / "crowd.csv"), "--top", "-1")
    assert out.returncode == 2 and "at least 0" in out.stderr


# --------------------------------------------------------------------------- the HTML list


def test_html_lists_the_items_and_the_heat_map_links_to_them(hand_csv):
    data = ie.read(hand_csv)
    page = ie.render_html_report(data, n_boot=0)
    assert 'id="adjudicate"' in page and 'id="item-1"' in page and 'id="pair-1"' in page
    d = ie.disagreements(data, progress=False)
    for r in d.items.itertuples():
        assert f'<tr id="item-{r.rank}"><td class="num">{r.rank}</td><td>{r.item}</td>' in page
    # every off-diagonal cell of a pair that met links to that pair (both orientations), the diagonal to nothing
    svg = page[page.index('id="fig-coincidence"') :]
    svg = svg[: svg.index("</svg>")]
    assert svg.count('<a href="#pair-') == 2 * len(d.pairs)
    pair_row = page[page.index('<tr id="pair-1">') :].split("</tr>")[0]
    for item in d.pair_items[d.pair_items["pair"] == 1]["item"]:
        rank = int(d.items.loc[d.items["item"] == item, "rank"].iloc[0])
        assert f'href="#item-{rank}">{item}</a>' in pair_row


def test_the_one_result_shape():
    import dataclasses

    d = ie.disagreements(ie.read(EXAMPLES / "crowd.csv"), top=5, progress=False)
    assert isinstance(d, ie.Result)
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.items = None
    doc = d.to_dict()
    assert json.loads(json.dumps(doc, allow_nan=False)) == doc == json.loads(d.to_json())
    assert len(d.to_frame()) == 5 and "Disagreements" in repr(d) and d._repr_html_().lstrip().startswith("<")


# --- issue 25: the level's disagreement ranks the items; the model's label and a tie are shown where they are used

#: far: 1 vs 5; near: 3 vs 4; both split 1 : 1 (agreement 0, a tie); t3: 1, 3, 3, 1; same: unanimous.
LEVELS_TABLE = [
    ("far", "a", 1),
    ("far", "b", 5),
    ("near", "a", 3),
    ("near", "b", 4),
    ("same", "a", 2),
    ("same", "b", 2),
    ("t3", "a", 1),
    ("t3", "b", 3),
    ("t3", "c", 3),
    ("t3", "d", 1),
]


def _levels_data(level):
    frame = pd.DataFrame(LEVELS_TABLE, columns=["item", "annotator", "label"])
    return ie.Annotations.from_long(frame, level=level)


def test_interval_level_ranks_a_wide_split_before_a_narrow_one():
    """D_i = sum_{c != k} n_ic n_ik delta^2_ck / (n_i (n_i - 1)) with delta^2 = (c - k)^2 (Krippendorff 2011):
    far 2 * 16 / 2 = 16, t3 2 * (2 * 2 * 4) / 12 = 8/3, near 2 * 1 / 2 = 1. At the nominal level far and near both
    have agreement 0 and used to rank by data order alone, the narrow split as high as the wide one."""
    d = ie.disagreements(_levels_data("interval"), dawid_skene=False)
    assert d.items["item"].tolist() == ["far", "t3", "near"] and d.level == "interval"
    np.testing.assert_allclose(d.items["disagreement"], [16, 8 / 3, 1], rtol=1e-15)
    assert "interval level" in d.ranking[0]
    nominal = ie.disagreements(_levels_data("nominal"), dawid_skene=False)
    assert nominal.items["item"].tolist() == ["far", "near", "t3"]  # 1 - P_i: 1, 1, 2/3
    np.testing.assert_allclose(nominal.items["disagreement"], 1 - nominal.items["agreement"], atol=1e-15)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_item_disagreements_add_up_to_krippendorffs_alpha(level):
    """Krippendorff's observed disagreement is D_o = sum_i n_i D_i / n, so 1 - D_o / D_e with D_e by brute force
    over every pair of pairable values must be the library's alpha at each level (ordinal: mid-ranks of the
    pairable values; ratio: ((c - k)/(c + k))^2)."""
    rng = np.random.default_rng(3)
    rows = [(i, a, int(rng.integers(1, 6))) for i in range(40) for a in range(int(rng.integers(1, 5)))]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]), level=level)
    d = ie.disagreements(data, dawid_skene=False)
    values = data.to_long().groupby("item")["label"].apply(list)
    values = values[values.map(len) >= 2]
    pooled = np.concatenate(values.to_list()).astype(float)
    cats = np.unique(pooled)
    totals = np.array([(pooled == c).sum() for c in cats])
    mid = dict(zip(cats, np.cumsum(totals) - totals / 2.0))

    def dist(c, k):
        if level == "nominal":
            return float(c != k)
        if level == "ordinal":
            return (mid[c] - mid[k]) ** 2
        if level == "interval":
            return (c - k) ** 2
        return ((c - k) / (c + k)) ** 2

    n = pooled.size
    d_e = sum(dist(c, k) for c in pooled for k in pooled) / (n * (n - 1))
    by_item = dict(zip(d.items["item"], d.items["disagreement"]))
    for item, labs in values.items():  # each listed item's D_i by enumerating its ordered pairs
        m = len(labs)
        brute = sum(dist(float(x), float(y)) for j, x in enumerate(labs) for q, y in enumerate(labs) if j != q)
        assert by_item.get(item, 0.0) == pytest.approx(brute / (m * (m - 1)), abs=1e-12)
    d_o = sum(len(values[i]) * v for i, v in by_item.items()) / n
    assert 1 - d_o / d_e == pytest.approx(ie.krippendorff_alpha(data), abs=1e-12)


def test_terminal_shows_the_models_label_beside_its_entropy_and_a_tie_as_a_tie():
    data = _levels_data("interval")
    d = ie.disagreements(data, progress=False)
    text = str(d)
    header = next(line for line in text.splitlines() if line.split()[:2] == ["rank", "item"])
    assert header.split()[header.split().index("entropy") + 1] == "ds_label"
    far = next(line for line in text.splitlines() if line.strip().startswith("1 ") and "far" in line)
    assert "1|5 (tie)" in far and str(d.items.loc[0, "ds_label"]) in far.split()
    # the CSV and JSON hold the same label and tie (tie column, gold labels as gold_standard keeps them)
    frame = d.to_frame()
    assert frame.columns.get_loc("ds_label") == frame.columns.get_loc("entropy") + 1
    assert frame.loc[0, "gold"] == "1|5" and bool(frame.loc[0, "tie"])
    item = d.to_dict()["items"][0]
    assert item["ds_label"] == d.items.loc[0, "ds_label"] and item["tie"] is True and item["gold"] == ["1", "5"]
    gold = ie.gold_standard(data).per_item().set_index("item")
    for row in frame.itertuples():
        assert row.gold == gold.loc[row.item, "gold"] and row.tie == gold.loc[row.item, "tie"]
    # a clear majority carries no mark; without Dawid-Skene there is no model column
    plain = str(ie.disagreements(_table(LABELS), dawid_skene=False))
    assert "ds_label" not in plain
    i4 = next(line for line in plain.splitlines() if line.split()[:2] == ["4", "i4"])
    assert "(tie)" not in i4 and "a|b (tie)" in next(line for line in plain.splitlines() if " i5 " in line)


def test_cli_ranks_by_the_level(tmp_path):
    path = tmp_path / "levels.csv"
    pd.DataFrame(LEVELS_TABLE, columns=["item", "annotator", "label"]).to_csv(path, index=False)
    out = run("disagreements", str(path), "--level", "interval", "--format", "csv", "--no-dawid-skene")
    assert out.returncode == 0, out.stderr
    frame = pd.read_csv(pd.io.common.StringIO(out.stdout))
    assert frame["item"].tolist() == ["far", "t3", "near"]
    assert frame["disagreement"].tolist() == pytest.approx([16, 8 / 3, 1], rel=1e-15)


def test_the_top_items_are_the_head_of_the_whole_ranking():
    """With top=k only the items at least as disagreeing as the k-th are sorted (a partition first): the list must
    be the head of the full ranking, ties at the cut included, on crowds with many equal disagreements."""
    rng = np.random.default_rng(5)
    for n_items, k in [(300, 5), (2000, 40), (2000, 1), (50, 40)]:
        n_per = rng.integers(1, 6, n_items)
        item = np.repeat(np.arange(n_items), n_per)
        table = pd.DataFrame(
            {"item": item, "annotator": [f"a{j}" for j in range(item.size)], "label": rng.integers(0, 3, item.size)}
        )
        table["annotator"] = table.groupby("item").cumcount().map(lambda j: f"a{j}")
        data = ie.Annotations.from_long(table)
        whole = ie.disagreements(data, dawid_skene=False).items
        head = ie.disagreements(data, top=k, dawid_skene=False)
        pd.testing.assert_frame_equal(head.items.reset_index(drop=True), whole.head(k).reset_index(drop=True))
        assert head.n_disagreeing == len(whole)


def test_the_repr_is_a_short_summary_and_print_keeps_the_lists():
    """As for the report (issue 32, item 4): the repr was the whole printed list, 315,824 characters for 3,000
    disagreeing items, in a notebook cell or a debugger."""
    rng = np.random.default_rng(0)
    n = 3000
    data = ie.Annotations.from_long(pd.DataFrame({"item": np.repeat([f"{i:05d}" for i in range(n)], 3),
                                                  "annotator": np.tile(["a", "b", "c"], n),
                                                  "label": rng.choice(list("xyzw"), 3 * n)}))  # fmt: skip
    d = ie.disagreements(data, progress=False)
    text = repr(d)
    assert "\n" not in text and len(text) < 300
    assert text.startswith(f"Disagreements({d.n_disagreeing} of {n} items with 2+ annotations disagree, "
                           f"{len(d.items)} listed; first: {', '.join(d.items['item'].head(3))}, ... (+")  # fmt: skip
    assert len(str(d)) > 100_000 and str(d).count("\n") > n / 2  # print() still lists every item
