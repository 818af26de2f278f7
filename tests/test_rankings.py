"""Rankings: Kendall's W against R irr's ``kendall`` (its man page data), alpha with each rank distance against a
brute-force Krippendorff alpha whose distance enumerates discordant pairs, the ranking syntax and its errors."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2, kendalltau, rankdata

import iaa_engine as ie
from iaa_engine.metrics._rankings import parse_rankings, rank_distance_table

# R irr 0.84.1, data(anxiety): decoded from the package's data/anxiety.rda (github.com/cran/irr, the R XDR
# serialisation: three INTSXP columns of 20 values, rater1..rater3); the same values are printed in DescTools'
# KendallW example. 20 subjects (rows) x 3 raters (columns), ratings 1-6.
ANXIETY = np.array(
    [
        [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3],
        [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4],
        [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2],
    ]
).T


def irr_kendall(ratings: np.ndarray, correct: bool) -> tuple[float, float, float]:
    """irr 0.84.1's R/kendall.R transcribed line by line: (coefficient, Xvalue, p.value)."""
    ns, nr = ratings.shape
    ranks = np.column_stack([rankdata(ratings[:, j]) for j in range(nr)])  # R's rank(): average ranks
    var_rowsums = np.var(ranks.sum(axis=1), ddof=1)  # R's var(): n - 1 denominator
    if not correct:
        coeff = (12 * var_rowsums * (ns - 1)) / (nr**2 * (ns**3 - ns))
    else:
        tj = 0.0
        for i in range(nr):
            _, counts = np.unique(ranks[:, i], return_counts=True)  # table(ratings.rank[,i])
            ties = counts[counts > 1]
            tj += float(np.sum(ties.astype(float) ** 3 - ties))
        coeff = (12 * var_rowsums * (ns - 1)) / (nr**2 * (ns**3 - ns) - nr * tj)
    x = nr * (ns - 1) * coeff
    return coeff, x, chi2.sf(x, ns - 1)


# --------------------------------------------------------------------------- Kendall's W: R irr


def test_kendall_w_anxiety_with_tie_correction_printed_value():
    """irr's man page example ``kendall(anxiety, TRUE)``: Wt = 0.5396569 as printed by DescTools' KendallW (the
    same function, "integrated without logical changes"; andrisignorell.github.io/DescTools/reference/KendallW)."""
    res = ie.kendall_w(ANXIETY, correct=True)
    assert round(res.w, 7) == 0.5396569
    assert (res.n_items, res.n_judges, res.df) == (20, 3, 19)
    assert res.ties


@pytest.mark.parametrize("correct", [True, False])
def test_kendall_w_anxiety_equals_irr_code(correct):
    """Both branches of irr's code (computed independently by the transcription above), W, chi-square and p."""
    coeff, x, p = irr_kendall(ANXIETY.astype(float), correct)
    res = ie.kendall_w(ANXIETY, correct=correct)
    assert res.w == pytest.approx(coeff, abs=1e-14)
    assert res.statistic == pytest.approx(x, abs=1e-12)
    assert res.p_value == pytest.approx(p, abs=1e-14)
    assert res.correct is correct


def test_kendall_w_listwise_deletion_and_no_ties():
    """A row with a missing value is left out (irr: na.omit); without ties W = Wt, equal to irr's code."""
    rng = np.random.default_rng(3)
    x = np.column_stack([rng.permutation(8) + 1 for _ in range(4)]).astype(float)
    with_na = np.vstack([x, [np.nan, 1, 2, 3]])
    a, b = ie.kendall_w(with_na), ie.kendall_w(with_na, correct=False)
    assert a.n_items == 8 and a.w == pytest.approx(b.w, abs=1e-15) and not a.ties
    assert a.w == pytest.approx(irr_kendall(x, False)[0], abs=1e-14)


def test_kendall_w_perfect_and_undefined():
    assert ie.kendall_w([[1, 1, 1], [2, 2, 2], [3, 3, 3]]).w == pytest.approx(1.0)
    with pytest.warns(ie.UndefinedMetricWarning, match="kendall_w is undefined"):
        assert math.isnan(ie.kendall_w([[1, 1], [1, 1]]).w)
    with pytest.warns(ie.UndefinedMetricWarning, match="kendall_w is undefined"):
        assert ie.kendall_w([[1, np.nan], [2, 3]]).n_items == 1


def test_kendall_w_reads_annotations():
    """Annotations are items x annotators: the anxiety data as a long table gives the matrix's Wt."""
    long = pd.DataFrame(
        [(i, f"r{j}", int(ANXIETY[i, j])) for i in range(20) for j in range(3)], columns=["item", "annotator", "label"]
    )
    data = ie.Annotations.from_long(long, level="interval")
    assert ie.kendall_w(data).w == pytest.approx(ie.kendall_w(ANXIETY).w, abs=1e-15)
    ordinal = ie.Annotations.from_long(
        long.assign(label=long["label"].map("v{}".format)), level="ordinal", categories=[f"v{k}" for k in range(1, 7)]
    )
    assert ie.kendall_w(ordinal).w == pytest.approx(ie.kendall_w(ANXIETY).w, abs=1e-15)
    with pytest.raises(ValueError, match="table of numbers"):
        ie.kendall_w([["a", "b"], ["c", "d"]])
    with pytest.raises(ie.InvalidParameterError, match="correct must be"):
        ie.kendall_w(ANXIETY, correct="yes")


def test_long_table_w_equals_matrix_w_on_anxiety():
    """The long table path: each rater's scores written as one ranking (equal scores share a place) gives the
    matrix path's Wt (W does not change when every ranking is reversed)."""
    subjects = [f"s{i:02d}" for i in range(20)]
    rows = []
    for j in range(3):
        col = ANXIETY[:, j]
        places = ["=".join(s for s, v in zip(subjects, col) if v == value) for value in sorted(set(col), reverse=True)]
        rows.append(("study", f"rater{j + 1}", " > ".join(places)))
    table = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    res = ie.ranking_agreement(table)
    row = res.per_item.iloc[0]
    coeff, x, p = irr_kendall(ANXIETY.astype(float), True)
    assert row["w"] == pytest.approx(coeff, abs=1e-13)
    assert row["statistic"] == pytest.approx(x, abs=1e-11)
    assert row["p_value"] == pytest.approx(p, abs=1e-13)
    assert not row["complete"]
    res_u = ie.ranking_agreement(table, correct=False)
    assert res_u.per_item["w"].iloc[0] == pytest.approx(irr_kendall(ANXIETY.astype(float), False)[0], abs=1e-13)


# --------------------------------------------------------------------------- brute force: distances and alpha


def places_of(label: str) -> list[list[str]]:
    return [[e.strip() for e in place.split("=")] for place in label.split(">")]


def brute_distance(x: str, y: str, domain: list[str], distance: str, p: float) -> float:
    """The distance by definition: Kendall by enumerating every pair of responses and asking each ranking whether
    it orders them (a response a ranking leaves out is below all it names, tied with the other left-out ones);
    footrule from the positions counted by hand."""

    def place_index(label: str) -> dict[str, int]:
        pl = places_of(label)
        idx = {e: k for k, place in enumerate(pl) for e in place}
        return {e: idx.get(e, len(pl)) for e in domain}  # left out: one place below the last

    if distance == "kendall_tau":
        a, b = place_index(x), place_index(y)
        total = 0.0
        for i, j in itertools.combinations(domain, 2):
            s = (a[i] > a[j]) - (a[i] < a[j])
            t = (b[i] > b[j]) - (b[i] < b[j])
            if s * t == -1:
                total += 1
            elif (s == 0) != (t == 0):
                total += p
        return total / math.comb(len(domain), 2)

    def positions(label: str) -> dict[str, float]:
        pos: dict[str, float] = {}
        done = 0
        named = set()
        for place in places_of(label):
            for e in place:
                pos[e] = done + (len(place) + 1) / 2
                named.add(e)
            done += len(place)
        rest = [e for e in domain if e not in named]
        for e in rest:
            pos[e] = done + (len(rest) + 1) / 2
        return pos

    a, b = positions(x), positions(y)
    return sum(abs(a[e] - b[e]) for e in domain) / (len(domain) ** 2 // 2)


def brute_alpha(table: pd.DataFrame, distance: str, p: float = 0.5) -> float:
    """Krippendorff's alpha by its definition over pairs of values (units with two or more values)."""
    groups = [g["label"].tolist() for _, g in table.groupby("item") if len(g) >= 2]
    values = [v for g in groups for v in g]
    domain = sorted({e for v in values for place in places_of(v) for e in place})
    n = len(values)
    d_o = (
        sum(
            brute_distance(g[i], g[j], domain, distance, p) / (len(g) - 1)
            for g in groups
            for i in range(len(g))
            for j in range(len(g))
            if i != j
        )
        / n
    )
    d_e = sum(
        brute_distance(values[i], values[j], domain, distance, p) for i in range(n) for j in range(n) if i != j
    ) / (n * (n - 1))
    return 1 - d_o / d_e


def random_ranking(rng: np.random.Generator, responses: list[str], ties: bool, topk: bool) -> str:
    order = list(rng.permutation(responses))
    if topk:
        order = order[: int(rng.integers(1, len(order) + 1))]
    places: list[list[str]] = []
    for e in order:
        if ties and places and rng.random() < 0.35:
            places[-1].append(e)
        else:
            places.append([e])
    return " > ".join("=".join(pl) for pl in places)


def random_table(seed: int, ties: bool, topk: bool, n_items: int = 5, n_resp: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    responses = [f"r{k}" for k in range(n_resp)]
    rows = []
    for i in range(n_items):
        judges = rng.choice(["a", "b", "c", "d"], size=int(rng.integers(1, 5)), replace=False)
        rows += [(f"p{i}", j, random_ranking(rng, responses, ties, topk)) for j in judges]
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


@pytest.mark.parametrize("distance", ["kendall_tau", "footrule"])
@pytest.mark.parametrize("ties, topk", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("seed", range(4))
def test_alpha_equals_brute_force(distance, ties, topk, seed):
    table = random_table(seed, ties, topk)
    res = ie.ranking_agreement(table, distance=distance)
    expected = brute_alpha(table, distance)
    if math.isnan(expected):
        assert math.isnan(res.alpha)
    else:
        assert res.alpha == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("p", [0.0, 0.25, 1.0])
def test_kendall_penalty_equals_brute_force(p):
    table = random_table(11, ties=True, topk=True)
    assert ie.ranking_agreement(table, penalty=p).alpha == pytest.approx(
        brute_alpha(table, "kendall_tau", p), abs=1e-12
    )


@pytest.mark.parametrize("distance", ["kendall_tau", "footrule"])
def test_alpha_equals_krippendorff_alpha_with_the_distance_as_a_callable(distance):
    """The library's own alpha with a callable distance (pairs of labels from a C x C table) gives the same."""
    table = random_table(5, ties=True, topk=True, n_items=8)
    domain = sorted({e for v in table["label"] for place in places_of(v) for e in place})

    def d(x: str, y: str) -> float:
        return brute_distance(x, y, domain, distance, 0.5)

    assert ie.ranking_agreement(table, distance=distance).alpha == pytest.approx(
        ie.krippendorff_alpha(table, distance=d), abs=1e-12
    )


@pytest.mark.parametrize("distance", ["kendall_tau", "footrule"])
def test_distance_table_equals_brute_force(distance):
    labels = list(dict.fromkeys(random_table(8, ties=True, topk=True, n_items=10)["label"]))
    domain = sorted({e for v in labels for place in places_of(v) for e in place})
    table = rank_distance_table(labels, distance)
    brute = np.array([[brute_distance(x, y, domain, distance, 0.5) for y in labels] for x in labels])
    np.testing.assert_allclose(table, brute, atol=1e-14)


@settings(max_examples=40, deadline=None)
@given(st.permutations(list("abcdef")), st.permutations(list("abcdef")))
def test_kendall_on_permutations_is_the_share_of_discordant_pairs(x, y):
    """On complete rankings without ties K = (1 - tau) / 2 with Kendall's tau (scipy), and the footrule is
    sum |x_i - y_i| / floor(n^2 / 2)."""
    labels = [">".join(x), ">".join(y)]
    table = rank_distance_table(labels, "kendall_tau")
    rx = {e: k for k, e in enumerate(x)}
    ry = {e: k for k, e in enumerate(y)}
    tau = kendalltau([rx[e] for e in "abcdef"], [ry[e] for e in "abcdef"]).statistic
    assert table[0, 1] == pytest.approx((1 - tau) / 2, abs=1e-12)
    foot = rank_distance_table(labels, "footrule")
    assert foot[0, 1] == pytest.approx(sum(abs(rx[e] - ry[e]) for e in "abcdef") / 18, abs=1e-12)


def test_fagin_top_k_disjoint_lists():
    """Fagin, Kumar and Sivakumar (2003), K^(p) of two disjoint top-2 lists over 4 responses: the 4 pairs across
    the lists each cost 1 (each list puts its own above), the 2 pairs inside one list cost p each (the other list
    leaves them tied below): (4 + 2p) / C(4, 2)."""
    for p in (0.0, 0.5, 1.0):
        t = rank_distance_table(["a > b", "c > d"], "kendall_tau", penalty=p)
        assert t[0, 1] == pytest.approx((4 + 2 * p) / 6, abs=1e-15)


# --------------------------------------------------------------------------- the long table


def test_worked_example_w_gold_and_judges():
    """Prompt p1: x>y>z, x>z>y, x>y>z. Rank sums x 3, y 7, z 8 (mean 6): S = 9 + 1 + 4 = 14, W = 12 S /
    (m^2 (n^3 - n)) = 168 / 216 = 0.7778. Borda (responses below): x 2, y (1 + 0 + 1) / 3, z (0 + 1 + 0) / 3."""
    t = pd.DataFrame({"item": ["p1"] * 3, "annotator": ["a", "b", "c"], "label": ["x>y>z", "x>z>y", "x>y>z"]})
    res = ie.ranking_agreement(t)
    assert res.per_item["w"].iloc[0] == pytest.approx(168 / 216, abs=1e-15)
    assert res.gold["response"].tolist() == ["x", "y", "z"]
    assert res.gold["score"].tolist() == pytest.approx([2, 2 / 3, 1 / 3], abs=1e-15)
    # judge b's ranking is one discordant pair (y, z) of three from the gold x > y > z
    assert res.judges.set_index("judge")["distance_to_gold"].to_dict() == pytest.approx({"a": 0, "b": 1 / 3, "c": 0})
    # one prompt: the definition gives 0 whatever the rankings (D_o = D_e), so alpha is undefined (issue 32)
    assert brute_alpha(t, "kendall_tau") == pytest.approx(0.0, abs=1e-12) and math.isnan(res.alpha)


def test_gold_by_bradley_terry_equals_bradley_terry_on_the_pairs():
    """Gold 'bradley_terry' is bradley_terry fitted to every ordered pair of every ranking (a shared place is a
    tie)."""
    table = random_table(21, ties=True, topk=False, n_items=3)
    res = ie.ranking_agreement(table, gold="bradley_terry")
    rows = []
    for r in table.itertuples(index=False):
        pl = places_of(r.label)
        idx = {e: k for k, place in enumerate(pl) for e in place}
        for i, j in itertools.combinations(sorted(idx), 2):
            lab = "A" if idx[i] < idx[j] else "B" if idx[i] > idx[j] else "tie"
            rows.append((r.item, i, j, lab))
    pairs = pd.DataFrame(rows, columns=["item", "response_a", "response_b", "label"])
    bt = ie.bradley_terry(pairs).scores.set_index(["item", "response"])["score"]
    got = res.gold.set_index(["item", "response"])["score"]
    np.testing.assert_allclose(got.loc[bt.index].to_numpy(), bt.to_numpy(), atol=1e-9)


def test_lists_and_text_parse_the_same():
    a = parse_rankings(["b > a = c > d"])
    b = parse_rankings([["b", ["a", "c"], "d"]])
    assert a.canonical.tolist() == b.canonical.tolist() == ["b>a=c>d"]
    np.testing.assert_array_equal(a.position, b.position)
    assert a.position.tolist() == [1.0, 2.5, 2.5, 4.0]  # b, then a and c sharing places 2-3, d


@pytest.mark.parametrize(
    "label, message",
    [("a >> b", "empty place"), ("a > b >", "empty place"), ("a > b = a", "names a response twice")],
)
def test_unreadable_rankings(label, message):
    t = pd.DataFrame({"item": ["p", "p"], "annotator": ["x", "y"], "label": ["a > b", label]})
    with pytest.raises(ValueError, match=message) as err:
        ie.ranking_agreement(t)
    assert "row 2" in str(err.value)


def test_table_errors():
    t = pd.DataFrame({"item": ["p", "p"], "annotator": ["x", "x"], "label": ["a > b", "b > a"]})
    with pytest.raises(ValueError, match="ranked prompt 'p' twice"):
        ie.ranking_agreement(t)
    with pytest.raises(ValueError, match="not found"):
        ie.ranking_agreement(t, item="prompt")
    with pytest.raises(ie.InvalidParameterError, match="distance must be"):
        ie.ranking_agreement(t, distance="spearman")
    with pytest.raises(ValueError, match="mix text and lists"):
        parse_rankings(["a>b", ["a", "b"]])


def test_too_many_distinct_responses_leaves_alpha_undefined_with_a_note():
    rows = [(f"p{i}", j, f"u{i}a > u{i}b") for i in range(60) for j in ("x", "y")]
    res = ie.ranking_agreement(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    assert math.isnan(res.alpha) and "more than 100" in res.notes[0]
    assert res.per_item["w"].tolist() == [1.0] * 60


def test_result_shapes():
    res = ie.ranking_agreement(random_table(2, ties=True, topk=True))
    d = res.to_dict()
    assert set(d) >= {"alpha", "per_item", "gold", "judges", "notes"}
    assert res.to_frame().columns.tolist()[:3] == ["item", "n_judges", "n_responses"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        str(res)


# --------------------------------------------------------------------------- iaa rankings


def test_cli_rankings(tmp_path, capsys):
    import io
    import json

    from iaa_engine.cli import main

    table = random_table(3, ties=True, topk=True).rename(columns={"item": "prompt", "annotator": "judge"})
    path = tmp_path / "ranks.csv"
    table.to_csv(path, index=False)
    core = ie.ranking_agreement(table, item="prompt", annotator="judge")
    assert main(["rankings", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"Krippendorff's alpha [kendall_tau]: {core.alpha:.4f}" in out
    assert main(["rankings", str(path), "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(got["w"], core.per_item["w"], rtol=1e-12)
    assert main(["rankings", str(path), "--format", "json", "--distance", "footrule", "--gold", "bradley_terry"]) == 0
    doc = json.loads(capsys.readouterr().out)["rankings"]
    assert doc["alpha"] == pytest.approx(
        ie.ranking_agreement(table, item="prompt", annotator="judge", distance="footrule").alpha
    )
    assert doc["gold_rule"] == "bradley_terry"
    bad = table.copy()
    bad.loc[0, "label"] = "r1 >> r2"
    bad.to_csv(path, index=False)
    assert main(["rankings", str(path)]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("iaa: warning: plugin")]
    assert len(err) == 1 and err[0].startswith("iaa: error: the ranking on row 1")


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.permutations(["r0", "r1", "r2", "r3"]), st.sampled_from(["kendall_tau", "footrule"]))
def test_renaming_responses_judges_and_rows_changes_nothing(seed, names, distance):
    """A bijection of the response ids, new judge names and shuffled rows leave alpha, W and the gold scores as
    they are (the gold follows the renamed responses)."""
    table = random_table(seed, ties=True, topk=True)
    rename = dict(zip(["r0", "r1", "r2", "r3"], names))
    other = table.assign(
        label=table["label"].map(lambda lab: " > ".join("=".join(rename[e] for e in pl) for pl in places_of(lab))),
        annotator="judge-" + table["annotator"],
    ).sample(frac=1.0, random_state=seed)
    a, b = ie.ranking_agreement(table, distance=distance), ie.ranking_agreement(other, distance=distance)
    assert a.alpha == pytest.approx(b.alpha, abs=1e-12, nan_ok=True)
    pd.testing.assert_frame_equal(a.per_item, b.per_item)
    ga = a.gold.assign(response=a.gold["response"].map(rename)).set_index(["item", "response"])["score"]
    gb = b.gold.set_index(["item", "response"])["score"]
    pd.testing.assert_series_equal(ga.sort_index(), gb.sort_index(), atol=1e-12)


# --------------------------------------------------------------------------- issue 32: '<' is read, not a name


def test_less_than_reads_worst_first_and_equals_the_same_ranking_written_with_greater_than():
    """``"r1 < r2"`` once became one response named "r1 < r2"; it is r2 better than r1 (worst first)."""
    worst_first = parse_rankings(["r1 < r2 = r3 < r4", " d<c <b<a "])
    best_first = parse_rankings(["r4 > r2 = r3 > r1", "a > b > c > d"])
    assert worst_first.canonical.tolist() == best_first.canonical.tolist() == ["r4>r2=r3>r1", "a>b>c>d"]
    np.testing.assert_array_equal(worst_first.position, best_first.position)
    t = pd.DataFrame({"item": "p", "annotator": ["x", "y", "z"], "label": ["r1 < r2 < r3", "r3 > r2 > r1", "r3>r1>r2"]})
    res = ie.ranking_agreement(t)
    assert sorted(res.gold["response"]) == ["r1", "r2", "r3"]
    assert res.per_item["n_responses"].tolist() == [3]


@pytest.mark.parametrize(
    "label, message",
    [
        ("a > b < c", "both '>' and '<'"),
        ("a >= b", "'>=' or '<='"),
        ("a <= b", "'>=' or '<='"),
        ("a == b", "empty place"),
    ],
)
def test_mixed_or_compound_order_signs_are_refused_with_a_plain_message(label, message):
    t = pd.DataFrame({"item": ["p", "p"], "annotator": ["x", "y"], "label": ["a > b > c", label]})
    with pytest.raises(ValueError, match=message) as err:
        ie.ranking_agreement(t)
    assert "row 2" in str(err.value)


# --------------------------------------------------------------------------- issue 32: alpha over one unit


def anxiety_as_rankings() -> pd.DataFrame:
    """irr's ``anxiety`` (20 subjects x 3 raters, see ANXIETY) as three rankings of one prompt: each rater's
    subjects from the highest rating down, equal ratings sharing a place."""
    rows = []
    for j in range(3):
        places = [" = ".join(f"s{i + 1:02d}" for i in np.flatnonzero(ANXIETY[:, j] == v)) for v in range(6, 0, -1)]
        rows.append(("anxiety", f"rater{j + 1}", " > ".join(p for p in places if p)))
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


@pytest.mark.parametrize("distance", ["kendall_tau", "footrule"])
def test_alpha_over_one_ranked_prompt_is_undefined_not_zero(distance):
    """One prompt ranked by three judges: D_e is taken over the very pairs D_o is, so D_o = D_e and alpha would be
    0 whatever the rankings (it was printed as 0.0000 above W = 0.54). It is nan with the reason."""
    res = ie.ranking_agreement(anxiety_as_rankings(), distance=distance)
    assert res.per_item["w"].round(4).tolist() == [0.5397]  # irr's kendall(anxiety, TRUE), as above
    assert res.d_o == pytest.approx(res.d_e, rel=1e-12)  # the identity that makes alpha meaningless here
    assert math.isnan(res.alpha)
    assert "only one prompt was ranked by two or more judges" in res.alpha_undefined
    text = str(res)
    assert "0.0000" not in text.splitlines()[1]
    assert f"Krippendorff's alpha [{distance}]: undefined (only one prompt" in text
    doc = res.to_dict()
    assert doc["alpha"] is None and "D_o = D_e" in doc["alpha_undefined"]


def test_alpha_is_undefined_whenever_a_single_prompt_is_pairable():
    """The general condition: not "one prompt" but one prompt with two or more rankings (the others, ranked once,
    are not pairable). Two pairable prompts give a number again."""
    one = pd.DataFrame(
        {
            "item": ["p1", "p1", "p1", "p2", "p3"],
            "annotator": ["a", "b", "c", "a", "b"],
            "label": ["x > y > z", "y > x > z", "x > z > y", "z > y > x", "y > z > x"],
        }
    )
    res = ie.ranking_agreement(one)
    assert math.isnan(res.alpha) and res.d_o == pytest.approx(res.d_e, rel=1e-12)
    assert res.notes[0].startswith("alpha is undefined: only one prompt")
    two = pd.concat([one, pd.DataFrame({"item": ["p2"], "annotator": ["c"], "label": ["z > x > y"]})])
    assert math.isfinite(ie.ranking_agreement(two).alpha)


def test_cli_rankings_prints_undefined_with_the_reason_and_json_null(tmp_path, capsys):
    from iaa_engine.cli import main

    path = tmp_path / "anxiety.csv"
    anxiety_as_rankings().rename(columns={"item": "prompt", "annotator": "judge"}).to_csv(path, index=False)
    assert main(["rankings", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Krippendorff's alpha [kendall_tau]: undefined (only one prompt" in out and "0.0000" not in out
    assert main(["rankings", str(path), "--format", "json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)["rankings"]
    assert doc["alpha"] is None and doc["alpha_undefined"].startswith("only one prompt")


def test_alpha_over_prompts_that_share_no_response_is_undefined_not_near_one():
    """Each prompt with its own response ids (fewer than MAX_RANK_RESPONSES in all): random rankings gave alpha =
    0.94, because D_e counts every response of one prompt against another prompt's unnamed (bottom) ones. Alpha is
    undefined with the reason; the same rankings with ids shared across prompts give a number near 0."""
    rng = np.random.default_rng(0)
    rows = [
        (f"p{p}", j, " > ".join(f"p{p}r{k}" for k in rng.permutation(4))) for p in range(5) for j in ("a", "b", "c")
    ]
    own = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    res = ie.ranking_agreement(own)
    assert math.isnan(res.alpha) and "name a common response" in res.alpha_undefined
    assert brute_alpha(own, "kendall_tau") > 0.9  # what the definition gives: a number that means nothing
    shared = own.assign(label=own["label"].str.replace(r"p\dr", "r", regex=True))
    assert abs(ie.ranking_agreement(shared).alpha) < 0.3
    assert ie.ranking_agreement(shared).per_item["w"].tolist() == res.per_item["w"].tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.booleans(), st.booleans())
def test_a_ranking_written_worst_first_parses_as_written_best_first(seed, ties, topk):
    """Any ranking (buckets, top-k) written with '<' in reverse order of places parses to the same positions."""
    rng = np.random.default_rng(seed)
    labels = [random_ranking(rng, [f"r{k}" for k in range(6)], ties, topk) for _ in range(4)]
    reverse = [" < ".join(reversed(lab.split(">"))) for lab in labels]
    a, b = parse_rankings(labels), parse_rankings(reverse)
    assert a.canonical.tolist() == b.canonical.tolist()
    np.testing.assert_array_equal(a.position, b.position)
    np.testing.assert_array_equal(a.element, b.element)


def test_cli_rankings_lists_the_judges_farthest_from_gold_at_most_top(tmp_path, capsys):
    """Like iaa preferences: not one line per judge of a crowd, but the --top N farthest from the gold ranking
    (with their number of rankings), and where the rest are."""
    from iaa_engine.cli import main

    rng = np.random.default_rng(5)
    rows = [
        (f"p{p}", f"judge{j:03d}", " > ".join(rng.permutation(["x", "y", "z"])))
        for j in range(300)
        for p in rng.choice(40, size=3, replace=False)
    ]
    path = tmp_path / "crowd.csv"
    table = pd.DataFrame(rows, columns=["prompt", "judge", "label"])
    table.to_csv(path, index=False)
    core = ie.ranking_agreement(table)
    assert main(["rankings", str(path), "--top", "4"]) == 0
    out = capsys.readouterr().out
    listed = [line.split(":")[0].strip() for line in out.splitlines() if "ranking(s)" in line]
    far = core.judges.sort_values(["distance_to_gold", "judge"], ascending=[False, True])
    assert listed == far["judge"].head(4).tolist()
    assert "... and 296 more judges" in out and len(out.splitlines()) < 20
    assert main(["rankings", str(path), "--top", "0"]) == 0
    assert sum("ranking(s)" in line for line in capsys.readouterr().out.splitlines()) == 300
