"""Krippendorff's unitizing alpha (``ie.unitizing_alpha``).

Reference values: DKPro Agreement (dkpro/dkpro-statistics, commit f7f4f89, after release 2.3.1), its tests in
``dkpro-statistics-agreement/src/test/java/org/dkpro/statistics/agreement/unitizing/``, each test below naming the
Java test class and method it reproduces; Krippendorff (1995, p. 57; 2004, p. 254) for the worked examples. Every
value is also checked against an independent brute-force reference written here: Krippendorff's definition
evaluated segment pair by segment pair (every unit and every gap of every rater) and unit by gap, in exact
fractions (``fractions.Fraction``).
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.data._spans import span_units
from iaa_engine.stats._unitizing import unitizing_sums

# --------------------------------------------------------------------------- the brute-force reference


def delta2(g, h) -> Fraction:
    """δ² of two segments (begin, length, is_unit) on Krippendorff's definition (1995, 2004 §12.4)."""
    (b1, l1, u1), (b2, l2, u2) = g, h
    if u1 and u2 and b2 < b1 + l1 and b1 < b2 + l2:
        return Fraction(b1 - b2) ** 2 + Fraction((b1 + l1) - (b2 + l2)) ** 2
    if u1 and not u2 and b2 <= b1 and b1 + l1 <= b2 + l2:
        return Fraction(l1) ** 2
    if u2 and not u1 and b1 <= b2 and b2 + l2 <= b1 + l1:
        return Fraction(l2) ** 2
    return Fraction(0)


def segments(units, length):
    """One rater's units of one category in one document (relative positions) and the gaps between them."""
    out, pos = [], 0
    for b, ln in sorted(units):
        if b > pos:
            out.append((pos, b - pos, False))
        out.append((b, ln, True))
        pos = max(pos, b + ln)
    if length > pos:
        out.append((pos, length - pos, False))
    return out


def reference(docs, n_raters):
    """Exact (D_o, D_e) per category, pooled over the documents (a gap ends at its document's boundary).

    ``docs``: list of (length, units) with units (rater, category, begin, length), begin relative to the document.
    """
    R = n_raters
    L = sum(Fraction(length) for length, _ in docs)
    categories = sorted({u[1] for _, units in docs for u in units})
    out = {}
    for c in categories:
        observed = Fraction(0)
        unit_lengths, gaps = [], []
        for length, units in docs:
            segs = [segments([(u[2], u[3]) for u in units if u[0] == r and u[1] == c], length) for r in range(R)]
            for i, j in itertools.permutations(range(R), 2):
                observed += sum(delta2(g, h) for g in segs[i] for h in segs[j])
            unit_lengths += [Fraction(s[1]) for seg in segs for s in seg if s[2]]
            gaps += [Fraction(s[1]) for seg in segs for s in seg if not s[2]]
        n = len(unit_lengths)
        expected = Fraction(0)
        for ln in unit_lengths:
            expected += Fraction(n - 1) * ln * (ln - 1) * (2 * ln - 1) / 3
            expected += ln * ln * sum(g - ln + 1 for g in gaps if g >= ln)
        den = R * L * (R * L - 1) - sum(ln * (ln - 1) for ln in unit_lengths)
        out[c] = (observed / (R * (R - 1) * L * L), 2 * expected / (L * den))
    return out


def reference_alpha(docs, n_raters) -> float:
    per = reference(docs, n_raters)
    return float(1 - sum(o for o, _ in per.values()) / sum(e for _, e in per.values()))


def study(units):
    """DKPro's ``addUnit(offset, length, rater, category)`` rows as a span table."""
    return pd.DataFrame(
        [(r, b, b + ln, c) for b, ln, r, c in units], columns=["annotator", "start", "end", "label"]
    ).astype({"start": "int64", "end": "int64"})


def alpha_u(units, n_raters, begin, length, **options):
    return ie.unitizing_alpha(study(units), continuum=(begin, length), annotators=list(range(n_raters)), **options)


def as_docs(units, begin, length):
    return [(length, [(r, c, b - begin, ln) for b, ln, r, c in units])]


# --------------------------------------------------------------------------- Krippendorff (2004), p. 254

K2004 = [
    (225, 70, 0, "c"), (370, 30, 0, "c"), (220, 80, 1, "c"), (355, 20, 1, "c"), (400, 20, 1, "c"),
    (180, 60, 0, "k"), (300, 50, 0, "k"), (180, 60, 1, "k"), (300, 50, 1, "k"),
]  # fmt: skip


def test_krippendorff_2004_agreement():
    """Krippendorff2004Test.testAgreement: α_U = 0.8591 ± 0.0005. Krippendorff prints 0.8591 (rounded, and off in
    the fourth digit); the exact value of the definition is 0.858665..., which DKPro Agreement also returns
    (0.8586654051841702, run on this study)."""
    result = alpha_u(K2004, 2, 150, 300)
    assert result.estimate == pytest.approx(0.8591, abs=0.0005)
    assert result.estimate == pytest.approx(reference_alpha(as_docs(K2004, 150, 300), 2), rel=1e-14)
    assert result.estimate == pytest.approx(0.8586654051841702, rel=1e-14)


def test_krippendorff_2004_category_agreement():
    """Krippendorff2004Test.testCategoryAgreement (to 1e-4), and exactly against the reference."""
    table = alpha_u(K2004, 2, 150, 300).per_category.set_index("category")
    expected = {"c": (0.0144, 0.0532, 0.7286), "k": (0.0000, 0.0490, 1.0000)}
    exact = reference(as_docs(K2004, 150, 300), 2)
    for c, (d_o, d_e, a) in expected.items():
        assert table.loc[c, "d_o"] == pytest.approx(d_o, abs=1e-4)
        assert table.loc[c, "d_e"] == pytest.approx(d_e, abs=1e-4)
        assert table.loc[c, "alpha"] == pytest.approx(a, abs=1e-4)
        assert table.loc[c, "d_o"] == pytest.approx(float(exact[c][0]), rel=1e-14, abs=1e-300)
        assert table.loc[c, "d_e"] == pytest.approx(float(exact[c][1]), rel=1e-14)
    assert table.loc["c", "n_units"] == 5 and table.loc["k", "n_units"] == 4


@pytest.mark.parametrize(
    "rater0, rater1, length, total",
    [
        # Krippendorff2004Test.testDistanceMetric1: a unit (2, 2) in the other's gap from 2 and a unit (5, 6) in the
        # other's gap (4, 7): 4 + 36 = 40; the same with the gap (3, 2) and the unit (5, 6) in the gap (5, 6)
        ([(5, 6)], [(2, 2)], 11, 40),
        ([(5, 6)], [(3, 2)], 11, 40),
        # testDistanceMetric1, two overlapping units: 26, 16, 10, 8, 2, 0
        ([(5, 6)], [(4, 2)], 12, 26),
        ([(5, 6)], [(5, 2)], 12, 16),
        ([(5, 6)], [(6, 2)], 12, 10),
        ([(5, 6)], [(7, 2)], 12, 8),
        ([(5, 6)], [(6, 4)], 12, 2),
        ([(5, 6)], [(5, 6)], 12, 0),
        # Krippendorff2004Test.testDistanceMetric2: 50, 850, and a unit (400, 20) in the other's gap: 400
        ([(225, 70)], [(220, 80)], 450, 50),
        ([(370, 30)], [(355, 20)], 450, 850),
        ([], [(400, 20)], 450, 400),
        # UnitizingAgreementTest.testDistanceMetric, overlapping units: 37, 25, 29
        ([(1, 8)], [(2, 1)], 10, 37),
        ([(1, 8)], [(4, 1)], 10, 25),
        ([(1, 8)], [(6, 1)], 10, 29),
    ],
)
def test_distance_metric_through_the_observed_disagreement(rater0, rater1, length, total):
    """DKPro's measureDistance cases, as the observed disagreement of a two-rater study whose only non-zero segment
    pairs are the ones tested: D_o · R(R-1) L² / 2 is their δ² (one unordered pair)."""
    units = [(b, ln, 0, "X") for b, ln in rater0] + [(b, ln, 1, "X") for b, ln in rater1]
    result = alpha_u(units, 2, 0, length)
    assert result.d_o * 2 * length**2 / 2 == pytest.approx(total, abs=1e-9)


@pytest.mark.parametrize(
    "g, h, value",
    [
        # UnitizingAgreementTest.testDistanceMetric (segments as (offset, length, is_unit))
        ((0, 1, False), (0, 2, False), 0),
        ((1, 8, True), (0, 2, False), 0),
        ((1, 8, True), (2, 1, True), 37),
        ((1, 8, True), (3, 1, False), 0),
        ((1, 8, True), (4, 1, True), 25),
        ((1, 8, True), (5, 1, False), 0),
        ((1, 8, True), (6, 1, True), 29),
        ((1, 8, True), (7, 4, False), 0),
        ((9, 2, False), (7, 4, False), 0),
        # Krippendorff2004Test.testDistanceMetric1 and 2
        ((2, 3, False), (2, 2, True), 4),
        ((5, 6, True), (4, 7, False), 36),
        ((3, 2, False), (3, 2, True), 4),
        ((5, 6, True), (5, 6, False), 36),
        ((5, 6, True), (4, 2, True), 26),
        ((400, 50, False), (400, 20, True), 400),
    ],
)
def test_the_reference_delta_is_dkpros_distance(g, h, value):
    """The brute-force reference's δ² reproduces every measureDistance assertion of DKPro's tests."""
    assert delta2(g, h) == value


# --------------------------------------------------------------------------- Krippendorff (1995), p. 57


def k1995(stretch: float):
    """Krippendorff1995Test.createExample(stretch): four pairs of raters, categories A-D, continuum 24·stretch."""
    s = lambda x: int(x * stretch)  # noqa: E731 - Java's (int) (x * stretch)
    rows = [
        (2, 8, 0, "A"), (14, 6, 0, "A"), (4, 4, 1, "A"), (15, 2, 1, "A"),
        (0, 18, 0, "B"), (0, 2, 1, "B"), (2, 1, 1, "B"), (3, 1, 1, "B"), (4, 1, 1, "B"), (5, 1, 1, "B"),
        (6, 3, 1, "B"), (9, 1, 1, "B"),
        (2, 6, 0, "C"), (10, 2, 0, "C"), (14, 4, 0, "C"), (20, 2, 0, "C"), (0, 2, 1, "C"), (4, 4, 1, "C"),
        (10, 4, 1, "C"), (16, 2, 1, "C"), (20, 2, 1, "C"),
        (0, 2, 0, "D"), (2, 8, 0, "D"), (10, 4, 0, "D"), (14, 6, 0, "D"), (20, 4, 0, "D"), (0, 4, 1, "D"),
        (4, 4, 1, "D"), (8, 7, 1, "D"), (15, 2, 1, "D"), (17, 7, 1, "D"),
    ]  # fmt: skip
    return [(s(b), s(ln), r, c) for b, ln, r, c in rows], s(24)


def test_krippendorff_1995_agreement():
    """Krippendorff1995Test.testAgreement: D_o at stretch 1 (to 1e-5); D_e (to 0.005) and α (to 0.02) at stretch
    50000, Krippendorff's printed values, which DKPro's test notes are slightly off (a sign in his D_e); both
    checked exactly against the reference at stretch 1."""
    units, length = k1995(1)
    table = alpha_u(units, 2, 0, length).per_category.set_index("category")
    for c, d_o in {"A": 0.03125, "B": 2.26736, "C": 0.02777, "D": 0.38715}.items():
        assert table.loc[c, "d_o"] == pytest.approx(d_o, abs=1e-5)
    exact = reference(as_docs(units, 0, length), 2)
    for c in "ABCD":
        assert table.loc[c, "d_o"] == pytest.approx(float(exact[c][0]), rel=1e-14)
        assert table.loc[c, "d_e"] == pytest.approx(float(exact[c][1]), rel=1e-14)
    units, length = k1995(1200000 / 24)
    table = alpha_u(units, 2, 0, length).per_category.set_index("category")
    for c, d_e in {"A": 0.06990, "B": 1.17731, "C": 0.08642, "D": 0.41445}.items():
        assert table.loc[c, "d_e"] == pytest.approx(d_e, abs=0.005)
    for c, a in {"A": 0.553, "B": -0.926, "C": 0.679, "D": 0.066}.items():
        assert table.loc[c, "alpha"] == pytest.approx(a, abs=0.02)


@pytest.mark.parametrize(
    "stretch, d_e, tol_e, a",
    [
        (12 / 24.0, 0.05494, 0.00001, 0.494),
        (120 / 24.0, 0.08234, 0.005, 0.663),
        (1200 / 24.0, 0.08600, 0.005, 0.677),
        (12000 / 24.0, 0.08638, 0.005, 0.678),
        (120000 / 24.0, 0.08642, 0.005, 0.679),
        (1200000 / 24.0, 0.08642, 0.005, 0.679),
    ],
)
def test_krippendorff_1995_varying_lengths(stretch, d_e, tol_e, a):
    """Krippendorff1995Test.testVaryingLengths: category C at six resolutions (D_o 0.02777 to 1e-5)."""
    units, length = k1995(stretch)
    row = alpha_u(units, 2, 0, length).per_category.set_index("category").loc["C"]
    assert row["d_o"] == pytest.approx(0.02777, abs=1e-5)
    assert row["d_e"] == pytest.approx(d_e, abs=tol_e)
    assert row["alpha"] == pytest.approx(a, abs=0.02)
    if stretch <= 5:
        exact = reference(as_docs(units, 0, length), 2)["C"]
        assert row["d_e"] == pytest.approx(float(exact[1]), rel=1e-14)


def test_krippendorff_1995_digitized_agreement():
    """Krippendorff1995Test.testDigitizedAgreement: the examples digitized into 24 coded positions, with the coding
    coefficients (Cohen's kappa 0.385, Scott's pi 0.314, Krippendorff's nominal alpha 0.329, each to 0.001)."""
    pairs_a = [
        tuple(int(x) for x in p)
        for p in "00 00 10 10 11 11 11 11 10 10 00 00 00 00 10 11 11 10 10 10 00 00 00 00".split()
    ]
    pairs_b = [(1, 1)] * 10 + [(1, 0)] * 8 + [(0, 0)] * 6
    pairs_c = [
        tuple(int(x) for x in p)
        for p in "01 01 10 10 11 11 11 11 00 00 11 11 01 01 10 10 11 11 00 00 11 11 00 00".split()
    ]

    def data(pairs):
        rows = [(i, r, v) for i, p in enumerate(pairs) for r, v in enumerate(p)]
        return ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))

    assert ie.cohen_kappa(data(pairs_a)) == pytest.approx(0.385, abs=0.001)
    assert ie.scott_pi(data(pairs_a)) == pytest.approx(0.314, abs=0.001)
    assert ie.krippendorff_alpha(data(pairs_a), level="nominal") == pytest.approx(0.329, abs=0.001)
    assert ie.cohen_kappa(data(pairs_b)) == pytest.approx(0.385, abs=0.001)
    assert ie.scott_pi(data(pairs_b)) == pytest.approx(0.314, abs=0.001)
    assert ie.cohen_kappa(data(pairs_c)) == pytest.approx(0.314, abs=0.001)
    assert ie.scott_pi(data(pairs_c)) == pytest.approx(0.314, abs=0.001)


def test_krippendorff_1995_insufficient_data():
    """Krippendorff1995Test.testThatAgreementThrowsInsufficientDataException: one category only, DKPro throws; the
    library's policy returns ``replace_undefined_by`` with an UndefinedMetricWarning."""
    data = ie.Annotations.from_long(
        pd.DataFrame([(i, r, 1) for i in range(24) for r in range(2)], columns=["item", "annotator", "label"])
    )
    for fn in (ie.scott_pi, ie.cohen_kappa):
        with pytest.warns(ie.UndefinedMetricWarning):
            assert math.isnan(fn(data))


# --------------------------------------------------------------------------- UnitizingAgreementTest


def test_unitizing_agreement_example():
    """UnitizingAgreementTest.testAgreement: r0 -11111111-, r1 --1-1-1---: D_o 0.9100, D_e 0.5351, α -0.7003."""
    units = [(1, 8, 0, "A"), (2, 1, 1, "A"), (4, 1, 1, "A"), (6, 1, 1, "A")]
    result = alpha_u(units, 2, 0, 10)
    row = result.per_category.iloc[0]
    assert row["d_o"] == pytest.approx(0.9100, abs=1e-4)
    assert row["d_e"] == pytest.approx(0.5351, abs=1e-4)
    assert row["alpha"] == pytest.approx(-0.7003, abs=1e-4)
    assert result.estimate == pytest.approx(reference_alpha(as_docs(units, 0, 10), 2), rel=1e-14)


def test_single_annotation_unit():
    """UnitizingAgreementTest.testSingleAnnotationUnit: three raters, one unit of length 1: α_U is exactly 0.0
    (D_o = D_e = 1/600)."""
    result = alpha_u([(0, 1, 0, "X")], 3, 0, 20)
    assert result.estimate == 0.0
    assert result.d_o == result.d_e == pytest.approx(1 / 600, rel=1e-15)


def test_empty_annotation_set():
    """UnitizingAgreementTest.testEmptyAnnotationSet: DKPro returns NaN; here the policy's replacement and a
    warning."""
    empty = pd.DataFrame({"annotator": [], "start": [], "end": [], "label": []})
    with pytest.warns(ie.UndefinedMetricWarning, match="no unit"):
        result = ie.unitizing_alpha(empty, continuum=(0, 20), annotators=[0, 1, 2])
    assert math.isnan(result.estimate) and result.n_units == 0 and result.per_category.empty
    with pytest.warns(ie.UndefinedMetricWarning):
        assert ie.unitizing_alpha(empty, continuum=(0, 20), replace_undefined_by=0.0).estimate == 0.0


@pytest.mark.parametrize("labels", [("A", "B"), ("A", "A")])
def test_only_zero_length_units(labels):
    """UnitizingAgreementTest.testOnlyZeroLengthUnitsWithDifferingCategories and ...WithSameCategory: D_o = D_e = 0;
    DKPro returns 0.0, the library's policy calls it undefined (replace_undefined_by=0.0 gives DKPro's 0.0)."""
    units = [(0, 0, 0, labels[0]), (0, 0, 1, labels[1])]
    with pytest.warns(ie.UndefinedMetricWarning, match="expected disagreement is 0"):
        result = alpha_u(units, 2, 0, 15)
    assert math.isnan(result.estimate)
    assert result.d_o == pytest.approx(0.0, abs=1e-3) and result.d_e == pytest.approx(0.0, abs=1e-3)
    with pytest.warns(ie.UndefinedMetricWarning):
        assert alpha_u(units, 2, 0, 15, replace_undefined_by=0.0).estimate == 0.0


def test_zero_length_units_mixed_with_positive_length_units():
    """UnitizingAgreementTest.testZeroLengthUnitsMixedWithPositiveLengthUnits: D_o 0, D_e > 0, α 1.0."""
    result = alpha_u([(0, 0, 0, "A"), (2, 5, 0, "A"), (2, 5, 1, "A")], 2, 0, 15)
    assert result.d_o == pytest.approx(0.0, abs=1e-3) and result.d_e > 0
    assert result.estimate == pytest.approx(1.0, abs=1e-3)


def test_overlapping_units_of_one_rater():
    """UnitizingAnnotationStudyTest.testSortOrder's units (raters 1-3 on a continuum of 7; rater 1's overlap):
    refused by default, naming the spans; merged into their union with overlaps='merge' (touching units apart)."""
    rows = [
        (0, 1, 1),
        (3, 1, 1),
        (1, 1, 1),
        (2, 3, 3),
        (2, 5, 1),
        (2, 2, 1),
        (1, 1, 3),
        (1, 1, 2),
        (2, 4, 2),
        (3, 2, 1),
    ]
    spans = study([(b, ln, r, "X") for b, ln, r in rows])
    with pytest.raises(ValueError, match="overlap") as info:
        ie.unitizing_alpha(spans, continuum=(0, 7))
    assert "'annotator': 1" in str(info.value)
    merged = ie.unitizing_alpha(spans, continuum=(0, 7), overlaps="merge")
    # rater 1: [0,1) [1,2) touch and stay; [2,7) absorbs [2,4), [3,4), [3,5)
    union = [(0, 1, 1), (1, 1, 1), (2, 5, 1), (1, 1, 2), (2, 4, 2), (1, 1, 3), (2, 3, 3)]
    expected = ie.unitizing_alpha(study([(b, ln, r, "X") for b, ln, r in union]), continuum=(0, 7))
    assert merged.estimate == expected.estimate and merged.n_units == 7
    assert merged.estimate == pytest.approx(
        reference_alpha([(7, [(r - 1, "X", b, ln) for b, ln, r in union])], 3), rel=1e-14
    )


# --------------------------------------------------------------------------- DKPro Agreement, run on random studies

DKPRO_RUNS = [
    # (raters, begin, length, units (offset, length, rater, category), DKPro's calculateAgreement()) from
    # KrippendorffAlphaUnitizingAgreement at commit f7f4f89, run on these studies
    (4, 6, 24, [(11, 4, 0, "c0"), (19, 1, 0, "c0"), (21, 6, 0, "c0"), (27, 1, 0, "c0"), (7, 3, 0, "c1"),
                (11, 6, 0, "c1"), (19, 4, 0, "c1"), (10, 5, 1, "c0"), (18, 3, 1, "c0"), (9, 3, 1, "c1"),
                (12, 6, 1, "c1"), (20, 5, 1, "c1"), (28, 2, 1, "c1"), (6, 1, 2, "c0"), (8, 6, 2, "c0"),
                (15, 3, 2, "c0"), (18, 4, 2, "c0"), (22, 6, 2, "c0"), (11, 5, 2, "c1"), (19, 3, 2, "c1"),
                (22, 5, 2, "c1"), (9, 4, 3, "c1"), (15, 2, 3, "c1"), (17, 3, 3, "c1"), (22, 3, 3, "c1")],
     -0.20145529998006362),
    (3, 6, 23, [(11, 1, 0, "c0"), (14, 2, 0, "c0"), (20, 1, 0, "c0"), (26, 2, 0, "c0"), (8, 6, 0, "c1"),
                (17, 1, 0, "c1"), (20, 6, 0, "c1"), (7, 1, 1, "c0"), (12, 6, 1, "c0"), (18, 2, 1, "c0"),
                (25, 4, 1, "c0"), (11, 3, 1, "c1"), (18, 1, 1, "c1"), (22, 3, 1, "c1"), (27, 2, 1, "c1"),
                (11, 1, 2, "c1"), (12, 4, 2, "c1"), (16, 4, 2, "c1"), (24, 3, 2, "c1")],
     0.059096546455079),
    (4, 9, 20, [(12, 4, 0, "c0"), (20, 6, 0, "c0"), (26, 2, 0, "c0"), (13, 4, 0, "c1"), (13, 6, 1, "c0"),
                (22, 6, 1, "c0"), (10, 2, 1, "c1"), (13, 1, 1, "c1"), (15, 2, 1, "c1"), (22, 6, 1, "c1"),
                (14, 2, 2, "c0"), (18, 1, 2, "c0"), (22, 6, 2, "c0"), (12, 5, 2, "c1"), (19, 3, 2, "c1"),
                (24, 1, 2, "c1"), (25, 1, 2, "c1"), (10, 5, 3, "c0"), (19, 2, 3, "c0"), (14, 2, 3, "c1")],
     -0.12151990744166863),
]  # fmt: skip


@pytest.mark.parametrize("R, begin, length, units, dkpro", DKPRO_RUNS)
def test_dkpro_on_random_studies(R, begin, length, units, dkpro):
    """Three random studies (seeded) run through DKPro Agreement: the same value to 1e-14, and the reference's."""
    result = alpha_u(units, R, begin, length)
    assert result.estimate == pytest.approx(dkpro, rel=1e-13)
    assert result.estimate == pytest.approx(reference_alpha(as_docs(units, begin, length), R), rel=1e-13)


def test_a_zero_length_last_unit_follows_the_definition():
    """DKPro's sweep stops once both raters' last units are read, so when a rater's last unit is zero-length at the
    start of another rater's last unit, the pair (that unit, the gap after the zero-length one) is skipped: DKPro
    gives D_o = 0.104167 here (run on this study), the definition 0.125 (the unit [6, 8) of rater 0 lies in rater
    2's gap [6, 8): 2 · 2² more)."""
    units = [(8, 0, 0, "c0"), (12, 2, 0, "c0"), (7, 2, 1, "c0"), (9, 2, 1, "c0"), (10, 2, 2, "c0"), (12, 0, 2, "c0")]
    result = alpha_u(units, 3, 6, 8)
    exact = reference(as_docs(units, 6, 8), 3)["c0"]
    assert result.d_o == pytest.approx(float(exact[0]), rel=1e-14) == pytest.approx(0.125)
    assert result.d_o - 0.10416666666666667 == pytest.approx(2 * 2**2 / (3 * 2 * 8**2))  # both orders of the pair
    assert result.d_e == pytest.approx(0.09191176470588236, rel=1e-14)  # D_e as DKPro's


# --------------------------------------------------------------------------- against the reference, at random


@st.composite
def studies(draw, max_docs=3, zero=True):
    R = draw(st.integers(2, 4))
    n_docs = draw(st.integers(1, max_docs))
    cats = draw(st.integers(1, 3))
    docs = []
    for _ in range(n_docs):
        length = draw(st.integers(1, 25))
        units = []
        for r in range(R):
            for c in range(cats):
                pos = 0
                for _ in range(draw(st.integers(0, 4))):
                    pos += draw(st.integers(0, 5))
                    ln = draw(st.integers(0 if zero else 1, 6))
                    if pos + ln > length:
                        break
                    units.append((r, f"c{c}", pos, ln))
                    pos += ln
        docs.append((length, units))
    return R, docs


def table(docs, begins=None, names=None):
    rows = []
    for k, (length, units) in enumerate(docs):
        b0 = 0 if begins is None else begins[k]
        name = f"d{k}" if names is None else names[k]
        rows += [(name, r, b0 + b, b0 + b + ln, c) for r, c, b, ln in units]
    frame = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    conts = {
        (f"d{k}" if names is None else names[k]): (0 if begins is None else begins[k], ln)
        for k, (ln, _) in enumerate(docs)
    }
    return frame, conts


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(studies())
def test_pooled_and_per_document_values_equal_the_reference(case):
    R, docs = case
    frame, conts = table(docs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        result = ie.unitizing_alpha(frame, continuum=conts, annotators=list(range(R)))
    per = reference(docs, R)
    table_ = result.per_category.set_index("category")
    for c, (d_o, d_e) in per.items():
        assert table_.loc[c, "d_o"] == pytest.approx(float(d_o), rel=1e-12, abs=1e-15)
        assert table_.loc[c, "d_e"] == pytest.approx(float(d_e), rel=1e-12, abs=1e-15)
    if per and sum(e for _, e in per.values()) > 0:
        assert result.estimate == pytest.approx(reference_alpha(docs, R), rel=1e-12, abs=1e-12)
    for k, (length, units) in enumerate(docs):
        row = result.per_document.set_index("document").loc[f"d{k}"]
        one = reference([(length, units)], R)
        if one and sum(e for _, e in one.values()) > 0:
            assert row["alpha"] == pytest.approx(
                float(1 - sum(o for o, _ in one.values()) / sum(e for _, e in one.values())), rel=1e-12, abs=1e-12
            )
        assert row["n_units"] == len(units)


# --------------------------------------------------------------------------- properties


@settings(max_examples=80, deadline=None)
@given(studies(zero=False), st.randoms(use_true_random=False), st.integers(-50, 50))
def test_invariant_to_order_names_and_shift(case, rnd, shift):
    """The same value whatever the order of rows, annotators' names and documents' names, and after shifting every
    position (and the continua) by the same amount."""
    R, docs = case
    frame, conts = table(docs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        base = ie.unitizing_alpha(frame, continuum=conts, annotators=list(range(R)))
        rows = list(range(len(frame)))
        rnd.shuffle(rows)
        rename = list(range(R))
        rnd.shuffle(rename)
        other = frame.iloc[rows].assign(annotator=lambda f: [f"r{rename[a]}" for a in f["annotator"]])
        names = [f"z{len(docs) - k}" for k in range(len(docs))]
        other = other.assign(document=lambda f: [names[int(d[1:])] for d in f["document"]])
        other = other.assign(start=other["start"] + shift, end=other["end"] + shift)
        moved = {names[int(k[1:])]: (b + shift, ln) for k, (b, ln) in conts.items()}
        again = ie.unitizing_alpha(other, continuum=moved, annotators=[f"r{a}" for a in range(R)])
    assert again.estimate == pytest.approx(base.estimate, rel=1e-12, abs=1e-12) or (
        math.isnan(again.estimate) and math.isnan(base.estimate)
    )


@settings(max_examples=60, deadline=None)
@given(studies(zero=False))
def test_alpha_is_one_when_every_annotator_marks_the_same_units(case):
    R, docs = case
    same = [(length, [(r, c, b, ln) for (q, c, b, ln) in units if q == 0 for r in range(R)]) for length, units in docs]
    frame, conts = table(same)
    if frame.empty:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        result = ie.unitizing_alpha(frame, continuum=conts, annotators=list(range(R)))
    if not result.d_e > 0:  # e.g. one document of length 1 that every annotator marks whole: D_e = 0, undefined
        assert math.isnan(result.estimate)
        return
    assert result.estimate == pytest.approx(1.0, abs=1e-12)
    assert (result.per_category["d_o"] == 0).all()


@settings(max_examples=60, deadline=None)
@given(studies(max_docs=4))
def test_per_document_sums_add_up_to_the_pooled_value(case):
    """The pooled sums are the per-document sums added (observed disagreement, units, Σ l(l-1)); and a study of
    several documents equals one continuum with the documents laid end to end when no gap crosses a boundary
    (every rater ends a unit of every category at each document's end)."""
    R, docs = case
    cats = sorted({c for _, units in docs for _, c, _, _ in units})
    if not cats:
        return
    closed = [(length + 1, units + [(r, c, length, 1) for r in range(R) for c in cats]) for length, units in docs]
    frame, conts = table(closed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        units = span_units(frame, conts, list(range(R)))
        sums = unitizing_sums(
            units.document, units.annotator, units.category, units.begin, units.end, units.document_length, R, len(cats)
        )
        for name in ("observed", "units", "squares"):
            pooled = getattr(sums, f"category_{name}")
            added = np.bincount(sums.pair_category, weights=getattr(sums, f"pair_{name}"), minlength=len(cats))
            assert pooled == pytest.approx(added, rel=1e-12, abs=1e-12)
        pooled = ie.unitizing_alpha(frame, continuum=conts, annotators=list(range(R)))
        offsets = np.cumsum([0] + [ln for ln, _ in closed])
        one = [
            (
                int(offsets[-1]),
                [(r, c, b + int(offsets[k]), ln) for k, (_, us) in enumerate(closed) for r, c, b, ln in us],
            )
        ]
        frame1, conts1 = table(one)
        single = ie.unitizing_alpha(frame1.drop(columns="document"), continuum=conts1["d0"], annotators=list(range(R)))
    assert pooled.estimate == pytest.approx(single.estimate, rel=1e-12, abs=1e-12, nan_ok=True)
    assert pooled.per_category["d_e"].to_numpy() == pytest.approx(
        single.per_category["d_e"].to_numpy(), rel=1e-12, nan_ok=True
    )


# --------------------------------------------------------------------------- the span table and the continuum


def test_continuum_forms_agree():
    frame = pd.DataFrame(
        {"document": ["a", "a", "b", "b"], "annotator": ["x", "y", "x", "y"], "start": [0, 1, 2, 2],
         "end": [4, 4, 5, 6], "label": "E"}
    )  # fmt: skip
    by_map = ie.unitizing_alpha(frame, continuum={"a": (0, 10), "b": 8})
    by_frame = ie.unitizing_alpha(frame, continuum=pd.DataFrame({"document": ["b", "a"], "length": [8, 10]}))
    assert by_map.estimate == by_frame.estimate
    assert list(by_map.per_document["document"]) == ["a", "b"] and by_map.length == 18
    # a document the continuum names without spans is unmarked continuum: it changes the expected disagreement
    wider = ie.unitizing_alpha(frame, continuum={"a": (0, 10), "b": 8, "c": 30})
    assert wider.n_documents == 3 and wider.length == 48 and wider.estimate != by_map.estimate
    assert math.isnan(wider.per_document.set_index("document").loc["c", "alpha"])
    # the same (begin, length) for every document
    same = ie.unitizing_alpha(frame, continuum=(0, 10))
    assert same.length == 20


def test_continuum_from_the_spans_warns():
    frame = pd.DataFrame({"annotator": ["x", "y"], "start": [3, 4], "end": [7, 9], "label": "E"})
    with pytest.warns(UserWarning, match="no continuum given"):
        result = ie.unitizing_alpha(frame)
    assert result.per_document.loc[0, "begin"] == 3 and result.length == 6


def test_float_positions():
    """Float positions go through the same formula (positions in the continuum's resolution)."""
    frame = pd.DataFrame({"annotator": ["x", "y"], "start": [0.5, 1.0], "end": [4.0, 4.0], "label": "E"})
    result = ie.unitizing_alpha(frame, continuum=(0.0, 10.0))
    d_o = 2 * (0.5**2 + 0.0) / (2 * 1 * 100)
    assert result.d_o == pytest.approx(d_o, rel=1e-14)
    exact = reference(
        [(Fraction(10), [(0, "E", Fraction(1, 2), Fraction(7, 2)), (1, "E", Fraction(1), Fraction(3))])], 2
    )
    assert result.d_e == pytest.approx(float(exact["E"][1]), rel=1e-14)


@pytest.mark.parametrize(
    "frame, continuum, message",
    [
        (pd.DataFrame({"annotator": ["x"], "start": [0], "label": ["E"]}), (0, 5), "missing: end"),
        (pd.DataFrame({"annotator": ["x"], "start": [3], "end": [2], "label": ["E"]}), (0, 5), "before its start"),
        (pd.DataFrame({"annotator": ["x"], "start": ["a"], "end": [2], "label": ["E"]}), (0, 5), "numbers"),
        (pd.DataFrame({"annotator": ["x"], "start": [np.nan], "end": [2], "label": ["E"]}), (0, 5), "finite"),
        (pd.DataFrame({"annotator": ["x"], "start": [3], "end": [9], "label": ["E"]}), (0, 5), "outside"),
        (pd.DataFrame({"annotator": [None], "start": [0], "end": [2], "label": ["E"]}), (0, 5), "annotator is missing"),
        (pd.DataFrame({"annotator": ["x"], "start": [0], "end": [2], "label": [None]}), (0, 5), "label is missing"),
        (pd.DataFrame({"document": ["a", "b"], "annotator": ["x", "x"], "start": [0, 0], "end": [2, 2],
                       "label": ["E", "E"]}), {"a": 5}, "no \\(begin, length\\) for the document"),
        (pd.DataFrame({"annotator": ["x", "x"], "start": [0, 1], "end": [2, 3], "label": ["E", "E"]}), (0, 5),
         "overlap"),
    ],
)  # fmt: skip
def test_bad_span_tables_are_refused_with_the_rows(frame, continuum, message):
    with pytest.raises(ValueError, match=message):
        ie.unitizing_alpha(frame, continuum=continuum)


@pytest.mark.parametrize("option, bad", [("continuum", (0, -1)), ("continuum", "0 10"), ("overlaps", "drop"),
                                         ("annotators", "abc"), ("replace_undefined_by", "0")])  # fmt: skip
def test_bad_options_are_refused_first(option, bad):
    frame = pd.DataFrame({"annotator": ["x"], "start": [0], "end": [2], "label": ["E"]})
    with pytest.raises(ie.InvalidParameterError, match=f"^{option} must be"):
        ie.unitizing_alpha(frame, **{option: bad})


def test_annotators_must_list_every_rater_with_spans():
    frame = pd.DataFrame({"annotator": ["x", "y"], "start": [0, 0], "end": [2, 2], "label": ["E", "E"]})
    with pytest.raises(ValueError, match="'y'"):
        ie.unitizing_alpha(frame, continuum=(0, 5), annotators=["x"])


def test_fewer_than_two_annotators_is_undefined():
    frame = pd.DataFrame({"annotator": ["x"], "start": [0], "end": [2], "label": ["E"]})
    with pytest.warns(ie.UndefinedMetricWarning, match="fewer than two annotators"):
        assert ie.unitizing_alpha(frame, continuum=(0, 5), replace_undefined_by=-1.0).estimate == -1.0


def test_result_shape():
    result = alpha_u(K2004, 2, 150, 300)
    assert isinstance(result, ie.Result)
    frame = result.to_frame()
    assert list(frame.columns) == ["name", "value"] and "estimate" in set(frame["name"])
    data = result.to_dict()
    assert data["per_category"][0]["category"] == "c" and data["per_document"][0]["n_units"] == 9
    assert result["estimate"] == result.estimate
    assert "UnitizingAlpha(0.8587" in repr(result)


# --------------------------------------------------------------------------- positions read wrongly (issue 32 item 3)


@pytest.mark.parametrize("column", ["start", "end"])
@pytest.mark.parametrize("as_object", [False, True])
def test_boolean_positions_are_refused(column, as_object):
    spans = pd.DataFrame({"annotator": ["a", "b"], "start": [0, 0], "end": [1, 1], "label": "x"})
    spans[column] = [True, False] if column == "start" else [True, True]
    if as_object:  # True among numbers: an object column
        spans[column] = pd.Series([spans[column].iloc[0], 1], dtype=object)
    for f in (ie.unitizing_alpha, ie.unitizing_family, ie.gamma_agreement):
        with pytest.raises(ValueError, match=rf"{column} must hold numbers.*not True/False"):
            f(spans, continuum=(0, 10))


@pytest.mark.parametrize("value", [1e300, -1e101, 2e100])
def test_positions_beyond_1e100_are_refused_with_a_plain_message(value):
    spans = pd.DataFrame(
        {"annotator": ["a", "b"], "start": [value, value], "end": [value, value * 1.5 + 1e100], "label": "x"}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning on the way
        for f in (ie.unitizing_alpha, ie.unitizing_family, ie.gamma_agreement):
            with pytest.raises(ValueError, match=r"within ±1e\+100"):
                f(spans.assign(end=spans[["start", "end"]].max(axis=1)))
        with pytest.raises(ValueError, match=r"within ±1e\+100"):
            ie.unitizing_alpha(spans.iloc[:0], continuum=(0, 1e300))


def test_a_pooled_continuum_too_long_for_float64_is_refused_not_nan():
    # 2,000 documents of length 1e100: each within the bound, but the pooled continuum's cube overflows
    docs = np.repeat(np.arange(2000), 2)
    spans = pd.DataFrame(
        {
            "document": docs,
            "annotator": np.tile(["a", "b"], 2000),
            "start": np.tile([1e99, 2e99], 2000),
            "end": np.tile([5e99, 6e99], 2000),
            "label": "x",
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="too long for alpha_U"):
            ie.unitizing_alpha(spans, continuum=(0, 1e100))
    # near the bound, one document: a finite value, no warning
    r = ie.unitizing_alpha(spans[spans["document"] == 0], continuum=(0, 1e100))
    assert np.isfinite(r.estimate)
