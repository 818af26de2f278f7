"""Pairwise span F1 (``ie.span_f1``, ``iaa spans --f1``).

Reference values: kldtz/bratiaa (MIT; commit b1e81832, 2022-06-26), run unchanged in a scratch virtual environment
(numpy 2.4, scipy, matplotlib, tabulate) on brat projects written from the span tables of :func:`project` below:
one directory per annotator, one ``.ann`` per document (an empty file where an annotator marked nothing), an
``annotation.conf`` listing the labels. ``compute_f1_agreement(root)`` then ``mean_sd_total()``,
``mean_sd_per_document()``, ``mean_sd_per_label()`` and the pairs' F1 from its count array ``_pdcl``. bratiaa counts
every document whose file both annotators have, so the tests pass every annotator as a participant of every
document. Where one pair's F1 is 0/0 (a label that pair never uses, a document nobody marked) bratiaa's
``np.mean`` returns nan for the whole row; ``span_f1`` leaves that pair out (the mean of bratiaa's defined pairs).
"""

from __future__ import annotations

import io
import itertools
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.cli import main

ANNOTATORS = ("amy", "bea", "cyd")
EVERYONE = {f"doc{d}": list(ANNOTATORS) for d in range(5)}


def project(seed, n_docs=5, annotators=ANNOTATORS, labels=("LOC", "ORG", "PER")):
    """Five documents: doc1 empty for everyone, cyd's doc3 empty; missed spans, shifted boundaries, changed labels,
    now and then a repeated span; MISC used by amy only (bea and cyd never use it); a tie: amy and bea both mark
    185-189 as LOC and as ORG."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_docs):
        doc = f"doc{d}"
        if d == 1:
            continue
        starts = np.sort(rng.choice(np.arange(0, 180, 6), size=6, replace=False))
        for s in starts:
            ln = int(rng.integers(2, 6))
            lab = labels[int(rng.integers(0, len(labels)))]
            for a in annotators:
                if d == 3 and a == "cyd":
                    continue
                u = rng.random()
                if u < 0.15:
                    continue
                ss, ee, ll = int(s), int(s) + ln, lab
                if u < 0.3:
                    ee += int(rng.integers(1, 3))
                elif u < 0.4:
                    ll = labels[int(rng.integers(0, len(labels)))]
                rows.append((doc, a, ss, ee, ll))
                if u > 0.97:
                    rows.append((doc, a, ss, ee, ll))
    rows += [("doc0", "amy", 190, 195, "MISC"), ("doc2", "amy", 190, 195, "MISC")]
    rows += [
        ("doc4", "amy", 185, 189, "LOC"),
        ("doc4", "amy", 185, 189, "ORG"),
        ("doc4", "bea", 185, 189, "ORG"),
        ("doc4", "bea", 185, 189, "LOC"),
    ]
    return pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])


nan = math.nan
#: bratiaa's output on project(seed): pairs (amy-bea, amy-cyd, bea-cyd), total (mean, SD), per document doc0..doc4
#: (means, SDs), per label LOC, MISC, ORG, PER (means, SDs); MISC's pairs' F1 are 0, 0 and 0/0.
BRATIAA = {
    1: {
        "pairs": [0.4897959183673469, 0.5, 0.32432432432432434],
        "total": [0.43804008089722374, 0.08051702010631727],
        "doc": [
            [0.4966329966329966, nan, 0.3444444444444445, 0.1818181818181818, 0.5277777777777778],
            [0.04130587254675184, nan, 0.3552081636254618, 0.25712973861329, 0.1712337223046938],
        ],
        "label": [
            [0.3630683042447749, nan, 0.3666666666666667, 0.5750000000000001],
            [0.04986554925559531, nan, 0.1649915822768611, 0.1541103500742244],
        ],
    },
    2: {
        "pairs": [0.5531914893617021, 0.3157894736842105, 0.3783783783783784],
        "total": [0.4157864471414303, 0.10046376450697672],
        "doc": [
            [0.34848484848484845, nan, 0.5888888888888889, 0.14814814814814814, 0.4101010101010101],
            [0.130338261621858, nan, 0.0684934889218775, 0.20951312035156963, 0.19332816137810493],
        ],
        "label": [
            [0.40701128936423053, nan, 0.42857142857142855, 0.45104895104895104],
            [0.22020012831872737, nan, 0.10101525445522108, 0.10305297770720555],
        ],
    },
}


@pytest.mark.parametrize("seed", sorted(BRATIAA))
def test_exact_f1_is_bratiaas(seed):
    ref = BRATIAA[seed]
    result = ie.span_f1(project(seed), participants=EVERYONE)
    assert result.pairs["f1"].tolist() == pytest.approx(ref["pairs"], abs=1e-12)
    assert [result.estimate, result.sd] == pytest.approx(ref["total"], abs=1e-12)
    docs = result.per_document.set_index("document")
    for k in range(5):
        row = docs.loc[f"doc{k}"]
        if k == 1:  # nobody marked anything: no pair defined (bratiaa: nan)
            assert row["n_pairs"] == 0 and math.isnan(row["mean_f1"])
        else:
            assert [row["mean_f1"], row["sd_f1"]] == pytest.approx([ref["doc"][0][k], ref["doc"][1][k]], abs=1e-12)
    labels = result.per_label.set_index("label")
    for k, lab in enumerate(["LOC", "MISC", "ORG", "PER"]):
        row = labels.loc[lab]
        if lab == "MISC":  # bratiaa: nan (bea-cyd 0/0); here the two defined pairs, both 0
            assert row["n_pairs"] == 2 and row["mean_f1"] == 0.0 and row["sd_f1"] == 0.0
        else:
            assert [row["mean_f1"], row["sd_f1"]] == pytest.approx([ref["label"][0][k], ref["label"][1][k]], abs=1e-12)
    assert result.n_duplicates == (project(seed).duplicated().sum())


def test_the_counts_add_up_and_the_matrix_is_the_pairs():
    result = ie.span_f1(project(1), participants=EVERYONE)
    c = result.counts
    assert (c["tp"] <= c[["n_a", "n_b"]].min(axis=1)).all()
    sums = c.groupby(["annotator_a", "annotator_b"])[["n_a", "n_b", "tp"]].sum().reset_index()
    assert sums[["n_a", "n_b", "tp"]].to_numpy().tolist() == result.pairs[["n_a", "n_b", "tp"]].to_numpy().tolist()
    assert result.pooled == pytest.approx(2 * c["tp"].sum() / (c["n_a"] + c["n_b"]).sum())
    m = result.matrix.to_frame()
    assert m.loc["amy", "cyd"] == m.loc["cyd", "amy"] == result.pairs["f1"].iloc[1]
    assert (result.pairs["precision"] == result.pairs["tp"] / result.pairs["n_b"]).all()
    d = result.to_dict()
    json.dumps(d)
    assert d["per_label"][1]["label"] == "MISC" and d["per_document"][1]["mean_f1"] is None


def test_without_participants_a_document_counts_for_a_pair_when_both_have_a_span():
    spans = project(1)
    alone = ie.span_f1(spans)
    # cyd's doc3 is empty: without participants, doc3 is not shared by cyd and the others
    pairs = alone.pairs.set_index(["annotator_a", "annotator_b"])
    assert pairs.loc[("amy", "cyd"), "n_documents"] == 3  # doc0, doc2, doc4 (doc1 nobody, doc3 not cyd)
    with_p = ie.span_f1(spans, participants=EVERYONE).pairs.set_index(["annotator_a", "annotator_b"])
    assert with_p.loc[("amy", "cyd"), "n_documents"] == 5
    n3 = ((spans["document"] == "doc3") & (spans["annotator"] == "amy")).sum()
    assert with_p.loc[("amy", "cyd"), "n_a"] == pairs.loc[("amy", "cyd"), "n_a"] + n3 - 0  # amy's doc3 spans: misses
    # the same with participants as a table
    table = pd.DataFrame([(d, a) for d, people in EVERYONE.items() for a in people], columns=["document", "annotator"])
    assert ie.span_f1(spans, participants=table).estimate == ie.span_f1(spans, participants=EVERYONE).estimate


def test_a_pair_who_never_shared_a_document_is_not_a_pair():
    spans = pd.DataFrame(
        [("d1", "a", 0, 5, "X"), ("d1", "b", 0, 5, "X"), ("d2", "c", 0, 5, "X"), ("d2", "b", 0, 4, "X")],
        columns=["document", "annotator", "start", "end", "label"],
    )
    result = ie.span_f1(spans)
    assert result.pairs[["annotator_a", "annotator_b"]].values.tolist() == [["a", "b"], ["b", "c"]]
    assert result.estimate == 0.5 and result.sd == 0.5
    assert math.isnan(result.matrix.to_frame().loc["a", "c"])
    # a participant who saw d2 and marked nothing: a's pairs on d2 are misses
    more = ie.span_f1(spans, participants={"d1": ["a", "b"], "d2": ["a", "b", "c"]})
    ac = more.pairs.set_index(["annotator_a", "annotator_b"]).loc[("a", "c")]
    assert ac["n_documents"] == 1 and ac["tp"] == 0 and ac["f1"] == 0.0


def _brute_matches(a_spans, b_spans, t):
    """The largest number of one-to-one matches with IoU >= t, by trying every assignment (small sets)."""

    def iou(u, v):
        inter = max(0, min(u[1], v[1]) - max(u[0], v[0]))
        union = (u[1] - u[0]) + (v[1] - v[0]) - inter
        return inter / union if union > 0 else float(u[0] == v[0])

    best = 0
    small, large = (a_spans, b_spans) if len(a_spans) <= len(b_spans) else (b_spans, a_spans)
    for perm in itertools.permutations(range(len(large)), len(small)):
        best = max(best, sum(iou(small[k], large[p]) >= t - 1e-12 for k, p in enumerate(perm)))
    return best


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.integers(0, 12), st.integers(1, 6), st.sampled_from("XY")),
        min_size=1,
        max_size=9,
    ),
    st.sampled_from([1e-9, 0.3, 0.5, 0.75, 1.0]),
)
def test_overlap_matching_is_the_largest_one_to_one_matching(rows, t):
    spans = pd.DataFrame(
        [(a, s, s + ln, lab) for a, s, ln, lab in rows], columns=["annotator", "start", "end", "label"]
    ).drop_duplicates()
    if spans["annotator"].nunique() < 2:
        return
    result = ie.span_f1(spans, match="overlap", threshold=t)
    want = 0
    for lab in "XY":
        sub = spans[spans["label"] == lab]
        a = list(sub.loc[sub["annotator"] == "a", ["start", "end"]].itertuples(index=False, name=None))
        b = list(sub.loc[sub["annotator"] == "b", ["start", "end"]].itertuples(index=False, name=None))
        want += _brute_matches(a, b, t) if a and b else 0
    assert int(result.pairs["tp"].iloc[0]) == want
    if t == 1.0:  # IoU 1 is an exact match
        assert result.pairs["tp"].iloc[0] == ie.span_f1(spans).pairs["tp"].iloc[0]


def test_overlap_f1_is_match_regions_pairwise_f1():
    """The same one-to-one IoU matching as ``ie.match_regions(kind='span', same_label=True)``, per pair."""
    spans = project(3).drop_duplicates()
    ours = ie.span_f1(spans, match="overlap", threshold=0.5)
    theirs = ie.match_regions(spans.rename(columns={"document": "item"}), kind="span", threshold=0.5, same_label=True)
    assert ours.pairs["f1"].tolist() == pytest.approx(theirs.pairs["f1"].tolist(), abs=1e-15)
    assert ours.pairs["tp"].tolist() == theirs.pairs["n_matched"].tolist()


def test_undefined_and_bad_input():
    one = pd.DataFrame({"annotator": ["a"], "start": [0], "end": [3], "label": ["X"]})
    with pytest.warns(ie.UndefinedMetricWarning, match="no pair of annotators"):
        assert math.isnan(ie.span_f1(one).estimate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ie.span_f1(one, replace_undefined_by=0.0).estimate == 0.0
    ok = pd.DataFrame({"annotator": ["a", "b"], "start": [0, 0], "end": [3, 3], "label": "X"})
    assert ie.span_f1(ok).estimate == 1.0
    with pytest.raises(ie.InvalidParameterError, match="^match must be one of"):
        ie.span_f1(ok, match="partial")
    with pytest.raises(ie.InvalidParameterError, match="^threshold must be a number in"):
        ie.span_f1(ok, match="overlap", threshold=0)
    with pytest.raises(ie.InvalidParameterError, match="^participants must be"):
        ie.span_f1(ok, participants=["a", "b"])
    with pytest.raises(ValueError, match="must hold numbers"):
        ie.span_f1(ok.assign(start=[True, False]))


def test_cli_f1_is_the_cores(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    spans = project(1).drop_duplicates()
    path = tmp_path / "spans.csv"
    spans.to_csv(path, index=False)
    want = ie.span_f1(spans)
    base = ["spans", str(path), "--continuum", "0,200", "--f1"]
    assert main([*base, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["span_f1"]
    assert got["estimate"] == want.estimate and got["sd"] == want.sd and "counts" not in got
    assert [p["f1"] for p in got["pairs"]] == want.pairs["f1"].tolist() and "per_document" not in got
    assert main(base) == 0
    out = capsys.readouterr().out
    assert f"Pairwise span F1 (exact match): mean {want.estimate:.4f}, SD {want.sd:.4f} over 3 annotator pairs" in out
    assert "  amy – bea: " in out and "  label MISC: mean 0.0000, SD 0.0000 over 2 pairs" in out
    assert main([*base, "--format", "csv", "--per-document"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    rows = table[table["coefficient"].isin(["span_f1", "span_f1_sd"])]
    assert set(rows["scope"]) == {"pooled", "pair", "category", "document"}
    pooled = rows[(rows["scope"] == "pooled")].set_index("coefficient")["value"]
    assert pooled["span_f1"] == want.estimate and pooled["span_f1_sd"] == want.sd
    overlap = ie.span_f1(spans, match="overlap", threshold=0.4)
    assert main([*base, "--f1-match", "overlap", "--f1-threshold", "0.4", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["span_f1"]["estimate"] == overlap.estimate
    # many pairs: the lowest 20 on the terminal
    crowd = pd.DataFrame(
        [("d", f"w{k:02d}", 0, 5 + (k % 3), "X") for k in range(8)],
        columns=["document", "annotator", "start", "end", "label"],
    )
    crowd.to_csv(path, index=False)
    assert main(["spans", str(path), "--continuum", "0,10", "--f1"]) == 0
    out = capsys.readouterr().out
    assert "the 20 lowest of 28 pairs (all: --format csv or json)" in out


def _sets_f1(spans, participants):
    """The definition with Python sets (bratiaa's instance-based reading): per pair, the documents both took part
    in; t = |A ∩ B| of (document, label, start, end) sets, F1 = 2t / (|A| + |B|)."""
    people = {d: set(p) for d, p in participants.items()}
    for d, a in zip(spans["document"], spans["annotator"]):
        people.setdefault(d, set()).add(a)
    own = {}
    for d, a, s, e, lab in spans[["document", "annotator", "start", "end", "label"]].itertuples(index=False):
        own.setdefault(a, set()).add((d, lab, s, e))
    names = sorted({a for p in people.values() for a in p})
    out = {}
    for a, b in itertools.combinations(names, 2):
        shared = {d for d, p in people.items() if a in p and b in p}
        if not shared:
            continue
        sa = {x for x in own.get(a, set()) if x[0] in shared}
        sb = {x for x in own.get(b, set()) if x[0] in shared}
        out[(a, b)] = 2 * len(sa & sb) / (len(sa) + len(sb)) if sa or sb else math.nan
    return out


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("uvw"), st.sampled_from("pqrs"), st.integers(0, 4), st.integers(1, 2), st.sampled_from("XY")
        ),  # fmt: skip
        max_size=25,
    ),
    st.dictionaries(st.sampled_from("uvwz"), st.sets(st.sampled_from("pqrs"), max_size=4), max_size=4),
)
def test_exact_f1_is_the_set_definition_with_participants(rows, participants):
    spans = pd.DataFrame(
        [(d, a, s, s + ln, lab) for d, a, s, ln, lab in rows],
        columns=["document", "annotator", "start", "end", "label"],
    )
    for d, a in zip(spans["document"], spans["annotator"]):  # an annotator with spans in a document took part
        participants.setdefault(d, set()).add(a)
    want = _sets_f1(spans, participants)
    defined = [v for v in want.values() if not math.isnan(v)]
    if not len(spans) or not want:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ie.span_f1(spans, participants={d: sorted(p) for d, p in participants.items()})
    pairs = {(r.annotator_a, r.annotator_b): r.f1 for r in got.pairs.itertuples(index=False)}
    assert set(pairs) == set(want)
    for key, value in want.items():
        assert (math.isnan(value) and math.isnan(pairs[key])) or pairs[key] == pytest.approx(value, abs=1e-12)
    if defined:
        assert got.estimate == pytest.approx(np.mean(defined), abs=1e-12)
        assert got.sd == pytest.approx(np.std(defined), abs=1e-12)


def test_participants_must_list_who_marked_spans():
    spans = pd.DataFrame(
        [("7", "a", 0, 5, "X"), ("7", "b", 0, 5, "X")], columns=["document", "annotator", "start", "end", "label"]
    )
    with pytest.raises(ValueError, match=r"participants does not list 2 annotator\(s\) who marked spans.*'a' in '7'"):
        ie.span_f1(spans, participants={7: ["a", "b"]})  # 7 is not '7'
    # documents only participants name need no continuum
    got = ie.span_f1(spans, participants={"7": ["a", "b"], "8": ["a", "b"]})
    assert got.pairs["n_documents"].tolist() == [2] and got.estimate == 1.0
    assert got.per_document["document"].tolist() == ["7", "8"]


def test_cli_f1_with_a_participants_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    spans = project(2).drop_duplicates()
    spans.to_csv(tmp_path / "spans.csv", index=False)
    table = pd.DataFrame([(d, a) for d, people in EVERYONE.items() for a in people], columns=["document", "annotator"])
    table.to_csv(tmp_path / "who.csv", index=False)
    args = ["spans", str(tmp_path / "spans.csv"), "--continuum", "0,200", "--participants", str(tmp_path / "who.csv")]
    assert main([*args, "--f1", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["span_f1"]
    want = ie.span_f1(spans, participants=table)
    assert got["estimate"] == want.estimate == pytest.approx(BRATIAA[2]["total"][0], abs=1e-12)
    assert [p["n_documents"] for p in got["pairs"]] == [5, 5, 5]
