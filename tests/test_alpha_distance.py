"""Krippendorff's alpha with a distance between labels: ``krippendorff_alpha(data, distance=...)``.

Convention: the distance is the difference function itself, delta^2_ck = d(c, k) (not squared), as in NLTK's
``AnnotationTask(distance=...).alpha()`` and the ``krippendorff`` package with a callable ``level_of_measurement``.

Peers and references, each cited where used:

* NLTK (``nltk.metrics.agreement.AnnotationTask``, nltk >= 3.10.4). Its ``alpha()`` drops items with fewer than two
  labels, like Krippendorff (2011) and iaa_engine, so the values agree to 1e-12 on sparse data. Definitional
  differences, tested below: when the pairable values hold a single label NLTK returns 1.0 (iaa_engine: undefined,
  nan with a warning, or ``replace_undefined_by``); when distinct labels are all at distance 0 NLTK divides by zero;
  NLTK's ``jaccard_distance`` and ``masi_distance`` divide by zero on two empty sets (iaa_engine: distance 0).
  ``masi_distance`` uses the exact thirds of Passonneau (2006) since nltk PR #3695 (earlier releases used 0.67 and
  0.33, which the guard below detects).
* the ``krippendorff`` package (``alpha(value_counts=..., level_of_measurement=callable)``), given a distance table
  computed independently in this file.
* A brute-force alpha written out from the definition (pairable values, ordered pairs within items weighted
  1/(n_i - 1), all ordered pairs of pairable values for D_e) with exact fractions and textbook distances.
* Hand-worked examples with exact fractions (derivations in the docstrings).
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine import Annotations, UndefinedMetricWarning
from iaa_engine.metrics import _distance

nltk_agreement = pytest.importorskip("nltk.metrics.agreement")
nltk_distance = pytest.importorskip("nltk.metrics.distance")
krippendorff = pytest.importorskip("krippendorff")

TOL = 1e-12


def assert_close(ours: float, theirs: float, what: str = "") -> None:
    ours, theirs = float(ours), float(theirs)
    assert np.isfinite(ours) and np.isfinite(theirs), f"{what}: ours={ours!r}, reference={theirs!r}"
    assert abs(ours - theirs) <= TOL, f"{what}: ours={ours!r}, reference={theirs!r}, diff={ours - theirs:.3e}"


# =========================================================================== reference distances (exact)


def ref_jaccard(a: frozenset, b: frozenset) -> Fraction:
    union = len(a | b)
    return Fraction(0) if union == 0 else 1 - Fraction(len(a & b), union)


def ref_masi(a: frozenset, b: frozenset) -> Fraction:
    """Passonneau (2006): 1 - J·M, M = 1 (equal), 2/3 (subset), 1/3 (overlap), 0 (disjoint)."""
    if a == b:
        return Fraction(0)
    inter = a & b
    m = Fraction(2, 3) if (a <= b or b <= a) else Fraction(1, 3) if inter else Fraction(0)
    return 1 - Fraction(len(inter), len(a | b)) * m


def ref_edit(a: str, b: str) -> int:
    """Textbook Levenshtein (1966) dynamic programme."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def ref_levenshtein(a: str, b: str) -> Fraction:
    longest = max(len(a), len(b))
    return Fraction(0) if longest == 0 else Fraction(ref_edit(a, b), longest)


def as_set(label) -> frozenset:
    """The documented reading of a label as a set (independent of iaa_engine.metrics._distance.label_set)."""
    if isinstance(label, (tuple, list, set, frozenset)):
        return frozenset(tuple(x) if isinstance(x, list) else x for x in label)
    return frozenset([label])


REFERENCE = {
    "jaccard": lambda a, b: ref_jaccard(as_set(a), as_set(b)),
    "masi": lambda a, b: ref_masi(as_set(a), as_set(b)),
    "levenshtein": ref_levenshtein,
}


def path_distance(a: tuple, b: tuple) -> float:
    """A callable for single taxonomy paths: 1 - (shared leading steps) / (longer path length)."""
    shared = 0
    for x, y in zip(a, b):
        if x != y:
            break
        shared += 1
    return 1.0 - shared / max(len(a), len(b))


# =========================================================================== brute-force alpha


def brute_alpha(rows: list[tuple], d) -> float:
    """Krippendorff (2011) from the pairable values: rows are (annotator, item, label); d returns exact values."""
    units: dict = {}
    for _, item, label in rows:
        units.setdefault(item, []).append(label)
    pairable = [v for v in units.values() if len(v) >= 2]
    values = [x for v in pairable for x in v]
    n = len(values)
    d_o = (
        sum(
            (
                sum(Fraction(d(v[p], v[q])) for p in range(len(v)) for q in range(len(v)) if p != q) / (len(v) - 1)
                for v in pairable
            ),
            Fraction(0),
        )
        / n
    )
    d_e = sum((Fraction(d(values[p], values[q])) for p in range(n) for q in range(n) if p != q), Fraction(0)) / (
        n * (n - 1)
    )
    return float(1 - d_o / d_e)


# =========================================================================== data


def frame(rows: list[tuple]) -> pd.DataFrame:
    """A long table; labels stay Python objects (tuples, frozensets, lists)."""
    labels = np.empty(len(rows), dtype=object)
    labels[:] = [r[2] for r in rows]
    return pd.DataFrame({"annotator": [r[0] for r in rows], "item": [r[1] for r in rows], "label": labels})


def data_of(rows: list[tuple]) -> Annotations:
    return Annotations.from_long(frame(rows))


UNIVERSE = "abcde"


def set_rows(seed: int, n_annotators: int, n_items: int, missing: float, *, allow_empty: bool = False) -> list[tuple]:
    """Set-valued annotations: each item has a true set; annotator a flips each element with probability e_a.

    Sparse designs (missing > 0) also get an item with a single annotation and an empty item. Annotators a0 and a1
    label items i0 and i1 with different sets, so alpha is defined.
    """
    rng = np.random.default_rng(seed)
    err = rng.uniform(0.05, 0.45, size=n_annotators)
    rows = []
    for j in range(n_items):
        truth = {x for x in UNIVERSE if rng.random() < 0.4} or {UNIVERSE[rng.integers(len(UNIVERSE))]}
        who = [a for a in range(n_annotators) if j < 2 and a < 2 or rng.random() >= missing]
        if missing > 0 and j == n_items - 1:
            who = who[:1]  # a single annotation: not pairable
        if missing > 0 and j == n_items - 2:
            who = []  # an item nobody labelled
        for a in who:
            label = {x for x in UNIVERSE if (x in truth) != (rng.random() < err[a])}
            if not label and not allow_empty:
                label = {UNIVERSE[rng.integers(len(UNIVERSE))]}
            rows.append((f"a{a}", f"i{j}", frozenset(label)))
    # anchor: a0 and a1 disagree on i0 and i1
    rows = [r for r in rows if not (r[1] in ("i0", "i1") and r[0] in ("a0", "a1"))]
    rows += [
        ("a0", "i0", frozenset("ab")),
        ("a1", "i0", frozenset("b")),
        ("a0", "i1", frozenset("cd")),
        ("a1", "i1", frozenset("e")),
    ]
    return rows


WORDS = ["annotate", "annotation", "label", "labels", "tag", "tags", "span", "spam", "agree", "agreed"]


def text_rows(seed: int, n_annotators: int, n_items: int, missing: float) -> list[tuple]:
    """Free-text answers: a true word per item, each annotator makes random single-character edits."""
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(n_items):
        truth = WORDS[rng.integers(len(WORDS))]
        who = [a for a in range(n_annotators) if j < 2 and a < 2 or rng.random() >= missing]
        if missing > 0 and j == n_items - 1:
            who = who[:1]
        for a in who:
            s = list(truth)
            for _ in range(rng.integers(0, 3)):
                op, pos = rng.integers(3), rng.integers(len(s) + 1)
                if op == 0:
                    s.insert(pos, "xyz"[rng.integers(3)])
                elif s and op == 1:
                    del s[min(pos, len(s) - 1)]
                elif s:
                    s[min(pos, len(s) - 1)] = "xyz"[rng.integers(3)]
            rows.append((f"a{a}", f"i{j}", "".join(s) or "x"))
    rows = [r for r in rows if not (r[1] == "i0" and r[0] in ("a0", "a1"))]
    rows += [("a0", "i0", "span"), ("a1", "i0", "spam")]
    return rows


#: (seed, annotators, items, missing share): complete and sparse designs
DESIGNS = [(1, 3, 20, 0.0), (2, 6, 40, 0.0), (3, 5, 60, 0.5), (4, 12, 80, 0.7), (5, 30, 50, 0.85), (6, 2, 30, 0.3)]


def design_id(design) -> str:
    seed, a, i, m = design
    return f"s{seed}-A{a}-I{i}-m{int(m * 100)}"


def nltk_alpha(rows: list[tuple], distance) -> float:
    task = nltk_agreement.AnnotationTask(data=[(str(a), str(i), lab) for a, i, lab in rows], distance=distance)
    return task.alpha()


def nltk_levenshtein(a: str, b: str) -> float:
    return nltk_distance.edit_distance(a, b) / max(len(a), len(b), 1)


def test_nltk_masi_uses_exact_thirds():
    """Guard for the comparisons below: nltk < PR #3695 used 0.67/0.33 (docstring of masi_distance: 0.6666...)."""
    assert nltk_distance.masi_distance({1, 2}, {1, 2, 3, 4}) == 1 - 0.5 * (2 / 3)


# =========================================================================== NLTK


def test_nltk_drops_single_annotation_items_like_us():
    """NLTK's alpha ignores items with one label (labels_count < 2): adding such items changes neither value."""
    rows = [
        ("a", "1", "x"),
        ("b", "1", "y"),
        ("a", "2", "x"),
        ("b", "2", "x"),
        ("c", "2", "y"),
        ("a", "3", "y"),
        ("b", "3", "y"),
    ]
    with_singles = rows + [("c", "4", "x"), ("a", "5", "zzz")]
    base = nltk_alpha(rows, nltk_distance.binary_distance)
    assert nltk_alpha(with_singles, nltk_distance.binary_distance) == base
    assert_close(ie.krippendorff_alpha(data_of(with_singles)), base, "nominal")
    assert_close(ie.krippendorff_alpha(data_of(with_singles), distance="jaccard"), base, "jaccard on plain labels")


@pytest.mark.parametrize("design", DESIGNS, ids=design_id)
def test_nominal_alpha_matches_nltk_binary_distance(design):
    """NLTK AnnotationTask(distance=binary_distance).alpha() vs our nominal alpha, on sparse data with singles."""
    rows = set_rows(*design)
    data = data_of(rows)
    theirs = nltk_alpha(rows, nltk_distance.binary_distance)
    assert_close(ie.krippendorff_alpha(data), theirs, "level nominal")
    assert_close(ie.krippendorff_alpha(data, distance=nltk_distance.binary_distance), theirs, "binary callable")


@pytest.mark.parametrize("design", DESIGNS, ids=design_id)
@pytest.mark.parametrize("name", ["jaccard", "masi"])
def test_set_distances_match_nltk(design, name):
    """NLTK AnnotationTask(distance=jaccard_distance / masi_distance).alpha() vs ours, frozenset and tuple labels."""
    rows = set_rows(*design)
    theirs = nltk_alpha(rows, getattr(nltk_distance, f"{name}_distance"))
    assert_close(ie.krippendorff_alpha(data_of(rows), distance=name), theirs, f"{name} (frozensets)")
    as_tuples = [(a, i, tuple(sorted(lab))) for a, i, lab in rows]
    assert_close(ie.krippendorff_alpha(data_of(as_tuples), distance=name), theirs, f"{name} (tuples)")
    # NLTK's distance function as our callable (on the labels as sets)
    fn = getattr(nltk_distance, f"{name}_distance")
    assert_close(ie.krippendorff_alpha(data_of(rows), distance=fn), theirs, f"nltk {name} as callable")


@pytest.mark.parametrize("design", DESIGNS, ids=design_id)
def test_levenshtein_matches_nltk_edit_distance(design):
    """NLTK AnnotationTask(distance=edit_distance(a, b) / max(|a|, |b|)).alpha() vs distance='levenshtein'."""
    rows = text_rows(*design)
    theirs = nltk_alpha(rows, nltk_levenshtein)
    assert_close(ie.krippendorff_alpha(data_of(rows), distance="levenshtein"), theirs, "levenshtein")


def test_nltk_returns_one_where_alpha_is_undefined():
    """Definitional difference: one label among the pairable values. NLTK returns 1.0 (nltk PR #3265); we follow the
    project's policy (nan and a warning, or replace_undefined_by)."""
    rows = [("a", "1", ("x",)), ("b", "1", ("x",)), ("a", "2", ("x",)), ("b", "2", ("x",)), ("a", "3", ("y",))]
    assert nltk_alpha([(a, i, frozenset(lab)) for a, i, lab in rows], nltk_distance.masi_distance) == 1.0
    with pytest.warns(UndefinedMetricWarning, match="expected disagreement is 0"):
        assert math.isnan(ie.krippendorff_alpha(data_of(rows), distance="masi"))
    with pytest.warns(UndefinedMetricWarning):
        assert ie.krippendorff_alpha(data_of(rows), distance="masi", replace_undefined_by=1.0) == 1.0


def test_nltk_divides_by_zero_where_labels_are_at_distance_zero():
    """Two distinct labels at distance 0 (a pseudo-metric): NLTK raises ZeroDivisionError; ours is undefined."""
    rows = [("a", "1", "x"), ("b", "1", "X"), ("a", "2", "X"), ("b", "2", "X")]

    def case_blind(a, b):
        return float(a.lower() != b.lower())

    with pytest.raises(ZeroDivisionError):
        nltk_alpha(rows, case_blind)
    with pytest.warns(UndefinedMetricWarning, match="at distance 0"):
        assert math.isnan(ie.krippendorff_alpha(data_of(rows), distance=case_blind))


def test_empty_sets_are_at_distance_zero_where_nltk_divides_by_zero():
    """NLTK's jaccard/masi divide by zero on two empty sets; ours define d(∅, ∅) = 0 and d(∅, A) = 1."""
    with pytest.raises(ZeroDivisionError):
        nltk_distance.jaccard_distance(frozenset(), frozenset())
    table = _distance.distance_table([(), ("a",), frozenset()], "jaccard")
    assert table.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    assert _distance.distance_table([(), ("a",)], "masi").tolist() == [[0.0, 1.0], [1.0, 0.0]]
    rows = set_rows(11, 6, 40, 0.3, allow_empty=True)
    assert any(not lab for _, _, lab in rows)
    for name in ("jaccard", "masi"):
        assert_close(ie.krippendorff_alpha(data_of(rows), distance=name), brute_alpha(rows, REFERENCE[name]), name)


# =========================================================================== krippendorff package


@pytest.mark.parametrize("design", DESIGNS, ids=design_id)
@pytest.mark.parametrize("name", ["jaccard", "masi", "levenshtein"])
def test_matches_krippendorff_package_with_a_callable_metric(design, name):
    """krippendorff.alpha(value_counts, level_of_measurement=callable) uses the callable as delta^2 (its own metrics
    return squared differences); given our count table and an independently computed distance table it agrees."""
    rows = text_rows(*design) if name == "levenshtein" else set_rows(*design)
    data = data_of(rows)
    labels = list(data.categories)
    table = np.array([[float(REFERENCE[name](a, b)) for b in labels] for a in labels])

    def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return table[i1, i2].astype(dtype)

    theirs = krippendorff.alpha(
        value_counts=data.counts.to_dense(), value_domain=np.arange(len(labels)), level_of_measurement=metric
    )
    assert_close(ie.krippendorff_alpha(data, distance=name), theirs, name)


# =========================================================================== brute force


@pytest.mark.parametrize("design", DESIGNS[:4], ids=design_id)
@pytest.mark.parametrize("name", ["jaccard", "masi", "levenshtein", "callable"])
def test_matches_brute_force_definition(design, name):
    """Brute force from the pairable values with exact fractions: jaccard, masi, levenshtein and a callable."""
    if name == "callable":
        # single taxonomy paths (tuples) compared by a callable: shared leading steps
        rng = np.random.default_rng(design[0])
        tree = [
            ("Animals", "Mammals", "Cats"),
            ("Animals", "Mammals", "Dogs"),
            ("Animals", "Birds"),
            ("Plants", "Trees"),
            ("Plants", "Flowers", "Roses"),
            ("Animals",),
        ]
        rows = [(a, i, tree[int(rng.integers(len(tree)))]) for a, i, _ in set_rows(*design)]
        rows += [("a0", "i0", tree[0]), ("a1", "i0", tree[1])]
        rows = list({(a, i): (a, i, lab) for a, i, lab in rows}.values())  # one label per annotator and item
        ours = ie.krippendorff_alpha(data_of(rows), distance=path_distance)
        assert_close(ours, brute_alpha(rows, lambda a, b: Fraction(path_distance(a, b))), "callable")
        return
    rows = text_rows(*design) if name == "levenshtein" else set_rows(*design)
    assert_close(ie.krippendorff_alpha(data_of(rows), distance=name), brute_alpha(rows, REFERENCE[name]), name)


@pytest.mark.parametrize("name", ["jaccard", "masi", "levenshtein"])
def test_distance_tables_match_reference_distances(name):
    """Every entry of the table equals the textbook distance (exact fractions, to 1e-15)."""
    rng = np.random.default_rng(7)
    if name == "levenshtein":
        # lengths around the 64-character blocks of the bit-vector algorithm, and unicode
        labels = list(
            {
                "".join(rng.choice(list("abcé日"), size=int(rng.choice([1, 2, 5, 63, 64, 65, 128, 130]))))
                for _ in range(40)
            }
        )
        labels += ["kitten", "sitting", "flaw", "lawn"]
    else:
        labels = list({tuple(sorted(set(rng.choice(list(UNIVERSE), size=int(rng.integers(0, 5)))))) for _ in range(60)})
    table = _distance.distance_table(labels, name)
    ref = np.array([[float(REFERENCE[name](a, b)) for b in labels] for a in labels])
    assert np.abs(table - ref).max() <= 1e-15
    assert (table == table.T).all() and (np.diag(table) == 0).all()


def test_nominal_distance_reproduces_nominal_alpha():
    """The 0/1 distance reproduces alpha at the nominal level (the existing code path) on sparse numeric data."""
    from tests.test_peer_libraries import CASES, make_sparse

    def zero_one(a, b):
        return float(a != b)

    for case in CASES:
        data = make_sparse(case).annotations()
        assert_close(ie.krippendorff_alpha(data, distance=zero_one), ie.krippendorff_alpha(data), str(case))
        pm0, pm1 = ie.krippendorff_alpha_matrix(data), ie.krippendorff_alpha_matrix(data, distance=zero_one)
        assert np.array_equal(np.isnan(pm0.values), np.isnan(pm1.values))
        ok = ~np.isnan(pm0.values)
        assert np.abs(pm0.values[ok] - pm1.values[ok]).max() <= TOL
        # plain labels are one-element sets: Jaccard and MASI are the 0/1 distance too
        for name in ("jaccard", "masi"):
            assert_close(ie.krippendorff_alpha(data, distance=name), ie.krippendorff_alpha(data), f"{case} {name}")


# =========================================================================== hand-worked examples


def test_hand_worked_two_items():
    """Two annotators, two items: {pos, joy} vs {pos} and {neg} vs {neg, anger}.

    n = 4 pairable values, one each of A = {pos, joy}, B = {pos}, C = {neg}, D = {neg, anger}; o_AB = o_CD = 1.
    Jaccard: d(A, B) = d(C, D) = 1/2, every other pair 1. D_o = (2·1/2 + 2·1/2)/4 = 1/2;
    D_e = 2·(1/2 + 1/2 + 4·1)/(4·3) = 5/6; alpha = 1 - (1/2)/(5/6) = 2/5.
    MASI: d(A, B) = 1 - (1/2)(2/3) = 2/3. D_o = 2/3; D_e = 2·(2/3 + 2/3 + 4)/12 = 8/9; alpha = 1 - 3/4 = 1/4.
    """
    rows = [
        ("ann", "t1", ("pos", "joy")),
        ("bob", "t1", ("pos",)),
        ("ann", "t2", ("neg",)),
        ("bob", "t2", ("neg", "anger")),
    ]
    data = data_of(rows)
    assert_close(ie.krippendorff_alpha(data, distance="jaccard"), Fraction(2, 5), "jaccard")
    assert_close(ie.krippendorff_alpha(data, distance="masi"), Fraction(1, 4), "masi")
    assert ie.krippendorff_alpha(data) == 0.0  # exact match of the sets
    pm = ie.krippendorff_alpha_matrix(data, distance="masi")
    assert pm.metric == "krippendorff_alpha[masi]"
    assert_close(pm.values[0, 1], Fraction(1, 4), "matrix")
    assert pm.values[0, 0] == pm.values[1, 1] == 1.0


def test_hand_worked_three_annotators_with_missing_values():
    """Item 1: A, B, A (three annotators); item 2: C, D; item 3: one annotation (not pairable).

    A = {a, b}, B = {a}, C = {c}, D = {c, d}; n = 5 pairable values (n_A = 2, n_B = n_C = n_D = 1).
    Jaccard: d(A, B) = d(C, D) = 1/2, else 1. Item 1: ordered pairs (A,B) ×4 at 1/2 and (A,A) ×2 at 0, weight
    1/(3-1): 1; item 2: 2·1/2 = 1. D_o = 2/5. Σ n_c n_k d over ordered pairs: A-B 2·(2·1·1/2) = 2, A-C 4, A-D 4,
    B-C 2, B-D 2, C-D 1; total 15; D_e = 15/20 = 3/4; alpha = 1 - (2/5)/(3/4) = 7/15.
    MASI: d(A, B) = d(C, D) = 2/3. D_o = (4·2/3·1/2 + 2·2/3)/5 = 8/15; D_e = (8/3 + 4/3 + 12)/20 = 4/5;
    alpha = 1 - 2/3 = 1/3.
    """
    rows = [
        ("x", "1", ("a", "b")),
        ("y", "1", ("a",)),
        ("z", "1", ["b", "a"]),
        ("x", "2", ("c",)),
        ("y", "2", frozenset("cd")),
        ("z", "3", ("q",)),
    ]
    data = data_of(rows)
    assert_close(ie.krippendorff_alpha(data, distance="jaccard"), Fraction(7, 15), "jaccard")
    assert_close(ie.krippendorff_alpha(data, distance="masi"), Fraction(1, 3), "masi")
    # the list ["b", "a"] and the tuple ("a", "b") are different categories but the same set
    assert data.n_categories == 6


def test_hand_worked_levenshtein():
    """Item 1: "cat" vs "cut" (one substitution: 1/3); item 2: "dog" vs "dig" (1/3); a word of item 1 and a word of
    item 2 share no letter at any position: three substitutions, distance 3/3 = 1.

    D_o = (2·1/3 + 2·1/3)/4 = 1/3; D_e = 2·(1/3 + 1/3 + 4·1)/12 = 7/9; alpha = 1 - (1/3)/(7/9) = 4/7.
    """
    rows = [("a", "1", "cat"), ("b", "1", "cut"), ("a", "2", "dog"), ("b", "2", "dig")]
    assert ref_edit("cat", "dog") == ref_edit("cut", "dig") == ref_edit("cat", "dig") == ref_edit("cut", "dog") == 3
    assert_close(ie.krippendorff_alpha(data_of(rows), distance="levenshtein"), Fraction(4, 7), "levenshtein")


def test_passonneau_masi_values():
    """MASI distances by case (Passonneau 2006): equal 0, subset 1 - (1/2)(2/3), overlap 1 - (1/3)(1/3), disjoint 1;
    a plain string is the one-element set."""
    labels = [("a", "b"), ("a",), ("b", "c"), ("d",), "a"]
    t = _distance.distance_table(labels, "masi")
    assert t[0, 1] == pytest.approx(2 / 3, abs=1e-15)
    assert t[0, 2] == pytest.approx(8 / 9, abs=1e-15)
    assert t[0, 3] == 1.0 and t[1, 4] == 0.0 and t[0, 4] == t[0, 1]
    j = _distance.distance_table(labels, "jaccard")
    assert j[0, 1] == 0.5 and j[0, 2] == pytest.approx(2 / 3, abs=1e-15) and j[0, 3] == 1.0


# =========================================================================== labels as sets


def test_label_set_rules():
    """A collection is the set of its elements; anything else is {label}; nested tuples are elements (paths)."""
    ls = _distance.label_set
    assert ls("abc") == {"abc"}
    assert ls(3) == {3}
    assert ls(()) == frozenset()
    assert ls(("a", "b", "a")) == {"a", "b"}
    assert ls(["b", "a"]) == ls({"a", "b"}) == ls(frozenset("ab")) == {"a", "b"}
    assert ls((("Animals", "Mammals"), ("Plants",))) == {("Animals", "Mammals"), ("Plants",)}
    assert ls([["Animals", "Mammals"]]) == {("Animals", "Mammals")}


def test_taxonomy_paths_as_sets_of_paths():
    """Label Studio Taxonomy answers as sets of paths: a path is one element, so sharing a path is partial credit.

    {Animals/Mammals, Plants} vs {Animals/Mammals}: Jaccard 1/2. A bare path ("Animals", "Mammals") among sets of
    paths is ambiguous (a set of two strings, or one path?) and refused with a hint; wrapped it works.
    """
    both = (("Animals", "Mammals"), ("Plants",))
    one = (("Animals", "Mammals"),)
    assert _distance.distance_table([both, one], "jaccard")[0, 1] == 0.5
    with pytest.raises(ValueError, match=r"ambiguous.*\(\('Animals', 'Mammals'\),\)"):
        _distance.distance_table([both, ("Animals", "Mammals")], "masi")
    rows = [("a", "1", both), ("b", "1", ("Animals", "Mammals")), ("a", "2", (("Plants",),)), ("b", "2", both)]
    with pytest.raises(ValueError, match="ambiguous"):
        ie.krippendorff_alpha(data_of(rows), distance="jaccard")
    rows[1] = ("b", "1", one)
    assert_close(
        ie.krippendorff_alpha(data_of(rows), distance="jaccard"), brute_alpha(rows, REFERENCE["jaccard"]), "paths"
    )


def test_labels_may_mix_strings_and_sets():
    """Single choices as plain strings next to multi-select tuples or frozensets: "x" is {x}."""
    rows = [
        ("a", "1", "x"),
        ("b", "1", ("x", "y")),
        ("a", "2", frozenset("yz")),
        ("b", "2", "z"),
        ("a", "3", "x"),
        ("b", "3", "x"),
    ]
    data = data_of(rows)
    assert data.n_categories == 4
    assert_close(ie.krippendorff_alpha(data, distance="jaccard"), brute_alpha(rows, REFERENCE["jaccard"]), "mix")


def test_frozenset_categories_have_a_canonical_order():
    """Frozenset labels are sorted by size, then elements, whatever the input order (not by the subset order)."""
    rows = set_rows(3, 5, 30, 0.2)
    d0 = data_of(rows)
    d1 = data_of(rows[::-1])
    assert list(d0.categories) == list(d1.categories)
    keys = [(len(s), sorted(s)) for s in d0.categories]
    assert keys == sorted(keys)
    assert ie.krippendorff_alpha(d0, distance="masi") == pytest.approx(
        ie.krippendorff_alpha(d1, distance="masi"), abs=TOL
    )


def test_relabelling_whole_labels_changes_set_distances():
    """Why the registry's relabel class for set distances is 'elements', not 'nominal': a bijection of whole labels
    (here swapping {a} and {c}) changes which labels overlap, hence alpha, while the nominal alpha stays."""
    rows = [
        ("p", "1", ("a", "b")),
        ("q", "1", ("a",)),
        ("p", "2", ("c",)),
        ("q", "2", ("c", "d")),
        ("p", "3", ("a",)),
        ("q", "3", ("c",)),
    ]
    swap = {("a",): ("c",), ("c",): ("a",)}
    swapped = [(x, i, swap.get(lab, lab)) for x, i, lab in rows]
    assert ie.krippendorff_alpha(data_of(rows)) == pytest.approx(ie.krippendorff_alpha(data_of(swapped)), abs=TOL)
    j0 = ie.krippendorff_alpha(data_of(rows), distance="jaccard")
    j1 = ie.krippendorff_alpha(data_of(swapped), distance="jaccard")
    assert abs(j0 - j1) > 0.05


# =========================================================================== pairwise matrix


@pytest.mark.parametrize("design", [(3, 5, 60, 0.5), (8, 7, 40, 0.6)], ids=design_id)
@pytest.mark.parametrize("name", ["jaccard", "masi", "levenshtein"])
def test_matrix_entries_are_the_pair_alpha_on_shared_items(design, name):
    """Each entry = brute-force alpha with the distance on the pair's shared items (nan where undefined)."""
    rows = text_rows(*design) if name == "levenshtein" else set_rows(*design)
    data = data_of(rows)
    pm = ie.krippendorff_alpha_matrix(data, distance=name)
    assert pm.metric == f"krippendorff_alpha[{name}]"
    names = list(data.annotators)
    by = {(a, i): lab for a, i, lab in rows}
    compared = 0
    for x, y in itertools.permutations(range(len(names)), 2):
        a, b = names[x], names[y]
        shared = sorted({i for (w, i) in by if w == a} & {i for (w, i) in by if w == b})
        assert pm.n_shared[x, y] == len(shared)
        sub = [(w, i, by[(w, i)]) for i in shared for w in (a, b)]
        labels = {lab for _, _, lab in sub}
        if len(labels) < 2:
            assert np.isnan(pm.values[x, y])
            continue
        assert_close(pm.values[x, y], brute_alpha(sub, REFERENCE[name]), f"{name} [{a}, {b}]")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert_close(pm.values[x, y], ie.krippendorff_alpha(data_of(sub), distance=name), "scalar")
        compared += 1
    assert compared > 0


# =========================================================================== options and bad input


def test_distance_with_level():
    """distance goes with level='nominal' or no level; any other level is an error naming both."""
    data = data_of([("a", "1", "x"), ("b", "1", "y"), ("a", "2", "x"), ("b", "2", "x")])
    assert ie.krippendorff_alpha(data, distance="jaccard", level="nominal") == ie.krippendorff_alpha(
        data, distance="jaccard"
    )
    for level in ("ordinal", "interval", "ratio"):
        with pytest.raises(
            ValueError, match=f"level='nominal' or no level; got level='{level}' with distance='jaccard'"
        ):
            ie.krippendorff_alpha(data, distance="jaccard", level=level)
        with pytest.raises(ValueError, match="level='nominal' or no level"):
            ie.krippendorff_alpha_matrix(data, distance="masi", level=level)
    with pytest.raises(ValueError, match="level must be one of"):
        ie.krippendorff_alpha(data, distance="jaccard", level="nominel")


def test_distance_ignores_the_level_the_data_was_read_at():
    """Data read at the interval level: the distance replaces the level's difference function."""
    wide = [[1, 2, 3, 4], [1, 2, 4, 4]]
    interval = Annotations.from_wide(wide, level="interval")

    def zero_one(a, b):
        return float(a != b)

    assert_close(
        ie.krippendorff_alpha(interval, distance=zero_one),
        ie.krippendorff_alpha(interval, level="nominal"),
        "0/1 on interval data",
    )


def test_unknown_distance_names_and_types():
    data = data_of([("a", "1", "x"), ("b", "1", "y"), ("a", "2", "x"), ("b", "2", "x")])
    with pytest.raises(
        ValueError,
        match=r"^distance must be one of 'jaccard', 'masi', 'levenshtein' or a callable d\(a, b\) -> float, or None; "
        r"got 'cosine'$",
    ):
        ie.krippendorff_alpha(data, distance="cosine")
    with pytest.raises(ValueError, match="distance must be one of"):
        ie.krippendorff_alpha_matrix(data, distance="Jaccard")
    with pytest.raises(TypeError, match="distance must be one of .* or a callable"):
        ie.krippendorff_alpha(data, distance=3)
    assert ie.ALPHA_DISTANCES == ("jaccard", "masi", "levenshtein")


@pytest.mark.parametrize(
    "fn, error, message",
    [
        (lambda a, b: 0.0 if a == b else 2.0, ValueError, r"\[0, 1\]; d\('x', 'y'\) = 2.0"),
        (lambda a, b: 0.0 if a == b else -0.5, ValueError, r"\[0, 1\]; d\('x', 'y'\) = -0.5"),
        (lambda a, b: 0.0 if a == b else float("nan"), ValueError, r"\[0, 1\]; d\('x', 'y'\) = nan"),
        (lambda a, b: 0.5, ValueError, r"to itself must be 0; d\('x', 'x'\) = 0.5"),
        (
            lambda a, b: 0.0 if a == b else (0.2 if a < b else 0.3),
            ValueError,
            r"symmetric; d\('x', 'y'\) = 0.2 but d\('y', 'x'\) = 0.3",
        ),
        (lambda a, b: "far", TypeError, r"must return a number; d\('x', 'x'\) returned 'far'"),
    ],
    ids=["above-1", "negative", "nan", "diagonal", "asymmetric", "not-a-number"],
)
def test_bad_callables_name_the_offending_pair(fn, error, message):
    data = data_of([("a", "1", "x"), ("b", "1", "y"), ("a", "2", "x"), ("b", "2", "x")])
    with pytest.raises(error, match=message):
        ie.krippendorff_alpha(data, distance=fn)
    with pytest.raises(error, match=message):
        ie.krippendorff_alpha_matrix(data, distance=fn)


def test_callable_values_within_rounding_are_accepted():
    """Values off by at most 1e-12 (floating-point distances) are accepted, symmetrised and clipped to [0, 1]."""
    data = data_of([("a", "1", "x"), ("b", "1", "y"), ("a", "2", "x"), ("b", "2", "x")])

    def wobbly(a, b):
        return 1e-13 if a == b else (1.0 + 1e-13 if a < b else 1.0)

    def exact(a, b):
        return float(a != b)

    assert_close(ie.krippendorff_alpha(data, distance=wobbly), ie.krippendorff_alpha(data, distance=exact), "slack")


def test_levenshtein_needs_strings():
    with pytest.raises(ValueError, match=r"compares strings; got the label \('a',\) \(tuple\)"):
        ie.krippendorff_alpha(data_of([("a", "1", ("a", "b")), ("b", "1", ("a",))]), distance="levenshtein")
    with pytest.raises(ValueError, match="compares strings"):
        ie.krippendorff_alpha(Annotations.from_wide([[1, 2], [1, 3]], annotators_as="rows"), distance="levenshtein")


def test_too_many_distinct_labels_is_a_clear_error():
    """At most MAX_DISTANCE_LABELS (3000) distinct labels on pairable items: 3000 work (about a second), more fail."""
    assert _distance.MAX_DISTANCE_LABELS == 3000

    def rows(n_labels):  # two annotators, each item with two distinct multi-select answers
        out = []
        for k in range(n_labels):
            out.append(("a" if k % 2 == 0 else "b", f"i{k // 2}", (f"c{k}", f"c{k + 1}")))
        return out

    ok = data_of(rows(3000))
    assert np.isfinite(ie.krippendorff_alpha(ok, distance="jaccard"))
    with pytest.raises(
        ValueError, match="got 3002 distinct labels on items with two or more annotations, more than the limit of 3000"
    ):
        ie.krippendorff_alpha(data_of(rows(3002)), distance="masi")


def test_only_labels_on_pairable_items_count_towards_the_limit(monkeypatch):
    """Labels seen only on items with one annotation are not in the table (nor checked by a callable)."""
    monkeypatch.setattr(_distance, "MAX_DISTANCE_LABELS", 3)
    rows = [("a", "1", "x"), ("b", "1", "y"), ("a", "2", "x"), ("b", "2", "z")]
    rows += [("a", f"s{k}", f"single{k}") for k in range(10)]
    assert np.isfinite(ie.krippendorff_alpha(data_of(rows), distance="levenshtein"))

    def picky(a, b):
        if "single" in a or "single" in b:
            raise AssertionError("evaluated on a label of a single-annotation item")
        return float(a != b)

    assert np.isfinite(ie.krippendorff_alpha(data_of(rows), distance=picky))
    rows += [("b", "s0", "w")]
    with pytest.raises(ValueError, match="got 5 distinct labels"):
        ie.krippendorff_alpha(data_of(rows), distance="levenshtein")


def test_levenshtein_refuses_work_it_cannot_finish(monkeypatch):
    """Thousands of long texts: a clear error instead of a hang (the limit is lowered here to keep the test small)."""
    monkeypatch.setattr(_distance, "_LEV_WORK", 100)
    rows = [("a", str(k), "x" * 40 + str(k)) for k in range(5)] + [("b", str(k), "y" * 40) for k in range(5)]
    with pytest.raises(ValueError, match="bit-vector steps"):
        ie.krippendorff_alpha(data_of(rows), distance="levenshtein")


def test_undefined_cases_follow_the_policy():
    """No pairable item, or expected disagreement 0: replace_undefined_by with an UndefinedMetricWarning."""
    single = data_of([("a", "1", ("x",)), ("a", "2", ("y",))])
    with pytest.warns(UndefinedMetricWarning, match="no item has two or more annotations"):
        assert math.isnan(ie.krippendorff_alpha(single, distance="jaccard"))
    same = data_of([("a", "1", ("x", "y")), ("b", "1", ("y", "x")), ("a", "2", ["x", "y"]), ("b", "2", ("x", "y"))])
    with pytest.warns(UndefinedMetricWarning, match="expected disagreement is 0"):
        assert ie.krippendorff_alpha(same, distance="masi", replace_undefined_by=0.5) == 0.5
    pm = ie.krippendorff_alpha_matrix(same, distance="masi", replace_undefined_by=-2.0)
    assert pm.values[0, 1] == -2.0


def test_count_tables_work_for_the_scalar():
    """Data from an items × categories count table: the scalar works (categories are the column names)."""
    counts = pd.DataFrame([[2, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 2]], columns=["label", "labels", "table"])
    data = Annotations.from_counts(counts)
    rows = [(k, i, lab) for i, row in counts.iterrows() for lab, c in row.items() for k in range(c)]
    assert_close(ie.krippendorff_alpha(data, distance="levenshtein"), brute_alpha(rows, ref_levenshtein), "counts")
    with pytest.raises(ValueError, match="needs to know who gave each label"):
        ie.krippendorff_alpha_matrix(data, distance="levenshtein")


def test_summarised_data_gives_the_same_values():
    """Data holding only sums over items (``Annotations.from_stats``, as the Dask engine builds): same scalar and
    matrix, since alpha with a distance needs only the coincidences and the pair statistics."""
    data = data_of(set_rows(5, 6, 40, 0.4))
    summary = Annotations.from_stats(
        count_sums=data.count_sums,
        items=data.n_items,
        categories=data.categories,
        annotators=data.annotators,
        annotator_stats=data.annotator_stats,
        pair_stats=data.pair_stats,
        n_annotations=data.n_annotations,
    )
    assert ie.krippendorff_alpha(summary, distance="masi") == ie.krippendorff_alpha(data, distance="masi")
    m0 = ie.krippendorff_alpha_matrix(data, distance="masi").values
    m1 = ie.krippendorff_alpha_matrix(summary, distance="masi").values
    assert np.array_equal(m0, m1, equal_nan=True)


def test_levenshtein_without_rapidfuzz_says_so(monkeypatch):
    """rapidfuzz is a dependency everywhere but Pyodide (xlwings Lite): without it, a plain error, not a traceback."""
    import sys

    monkeypatch.setitem(sys.modules, "rapidfuzz.distance", None)
    data = ie.Annotations.from_long(pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["abc", "abd"]}))
    with pytest.raises(ValueError, match="needs the rapidfuzz package"):
        ie.krippendorff_alpha(data, distance="levenshtein")
