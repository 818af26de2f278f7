"""Spans where not everyone saw every document: ``participants=``, the crowd warning, INCEpTION's pooling and who
fragments (issue 33).

References: the exact-fraction definition of α_U in ``tests/test_unitizing.py`` (Krippendorff 1995; 2004 §12.4),
evaluated here per document among its participants; the pooled value with participants in the coincidence form
(each document's ordered pairs of participants weighted 1/(R_d - 1) and N = Σ R_d L_d positions, as alpha's
coincidence matrix weighs a unit's pairable values and as Krippendorff 2019 §12.6 pools u-α), written out below in
exact fractions; and DKPro Agreement's ``KrippendorffAlphaUnitizingAgreement`` (dkpro/dkpro-statistics, commit
f7f4f89, after release 2.3.1; compiled with javac and run on the studies below, documents laid end to end as
INCEpTION lays them) for ``pooling='inception'``.
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from tests.test_unitizing import delta2, segments

# --------------------------------------------------------------------------- the exact reference with participants


def reference_participants(docs):
    """Exact pooled (D_o, D_e) per category: ``docs`` is a list of (length, participants, units) with units
    (rater, category, begin, length); only participants' segments count; each document's ordered pairs weigh
    1/(R_d - 1); documents with fewer than two participants are left out."""
    docs = [d for d in docs if len(d[1]) >= 2]
    L = sum(Fraction(length) for length, _, _ in docs)
    N = sum(Fraction(len(who)) * length for length, who, _ in docs)
    categories = sorted({u[1] for _, _, units in docs for u in units})
    out = {}
    for c in categories:
        observed = Fraction(0)
        unit_lengths, gaps = [], []
        for length, who, units in docs:
            segs = {r: segments([(u[2], u[3]) for u in units if u[0] == r and u[1] == c], length) for r in who}
            pairs = sum(delta2(g, h) for i, j in itertools.permutations(who, 2) for g in segs[i] for h in segs[j])
            observed += Fraction(pairs) / (len(who) - 1)
            unit_lengths += [Fraction(s[1]) for seg in segs.values() for s in seg if s[2]]
            gaps += [Fraction(s[1]) for seg in segs.values() for s in seg if not s[2]]
        n = len(unit_lengths)
        expected = Fraction(0)
        for ln in unit_lengths:
            expected += Fraction(n - 1) * ln * (ln - 1) * (2 * ln - 1) / 3
            expected += ln * ln * sum(g - ln + 1 for g in gaps if g >= ln)
        den = N * (N - 1) - sum(ln * (ln - 1) for ln in unit_lengths)
        out[c] = (observed / (N * L), 2 * expected / (L * den))
    return out


def reference_alpha(docs) -> float:
    per = reference_participants(docs)
    return float(1 - sum(o for o, _ in per.values()) / sum(e for _, e in per.values()))


@st.composite
def crowd_studies(draw, max_docs=4, workers=6, equal=False):
    """Documents with a few of ``workers`` participants each (one may mark nothing), units apart per rater and
    category."""
    n_docs = draw(st.integers(1, max_docs))
    size = draw(st.integers(2, 4)) if equal else None
    docs = []
    for _ in range(n_docs):
        length = draw(st.integers(6, 30))
        k = size if equal else draw(st.integers(1, 4))
        who = sorted(draw(st.lists(st.integers(0, workers - 1), min_size=k, max_size=k, unique=True)))
        units = []
        for r in who:
            for c in "AB":
                pos = 0
                for _ in range(draw(st.integers(0, 2))):
                    b = draw(st.integers(pos, length))
                    e = draw(st.integers(b + 1, length + 1))
                    if e > length:
                        break
                    units.append((r, c, b, e - b))
                    pos = e
        docs.append((length, who, units))
    assume_units = sum(len(u) for _, _, u in docs)
    if assume_units == 0:
        docs[0] = (docs[0][0], docs[0][1], [(docs[0][1][0], "A", 0, 2)])
    return docs


def tables(docs):
    """(spans, participants, continuum) of a crowd study; workers and documents named as text."""
    rows = [(f"d{k}", f"w{r:02d}", b, b + ln, c) for k, (_, _, units) in enumerate(docs) for r, c, b, ln in units]
    spans = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    part = pd.DataFrame(
        [(f"d{k}", f"w{r:02d}") for k, (_, who, _) in enumerate(docs) for r in who], columns=["document", "annotator"]
    )
    continuum = {f"d{k}": (0, length) for k, (length, _, _) in enumerate(docs)}
    return spans, part, continuum


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# --------------------------------------------------------------------------- participants


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowd_studies())
def test_per_document_alpha_with_participants_is_the_document_alone(docs):
    """A document's α_U with participants equals α_U of that document's spans alone, with its participants as
    every annotator (a participant without a span included): α_U depends on their number, not their names."""
    spans, part, continuum = tables(docs)
    result = quiet(ie.unitizing_alpha, spans, continuum=continuum, participants=part)
    for k, (length, who, _) in enumerate(docs):
        row = result.per_document.set_index("document").loc[f"d{k}"]
        assert row["n_annotators"] == len(who)
        alone = spans[spans["document"] == f"d{k}"].drop(columns="document")
        if len(who) < 2 or alone.empty:
            assert np.isnan(row["alpha"])
            continue
        single = quiet(ie.unitizing_alpha, alone, continuum=(0, length), annotators=[f"w{r:02d}" for r in who])
        assert row["alpha"] == pytest.approx(single.estimate, rel=1e-12, abs=1e-12, nan_ok=True)


def test_a_participant_without_a_span_marks_nothing():
    """Three participants, one of them without any span: the same α_U as the document with that annotator listed
    (and not the two-annotator value)."""
    spans = pd.DataFrame(
        [("d1", "a", 2, 8, "X"), ("d1", "b", 3, 8, "X"), ("d2", "a", 0, 4, "X"), ("d2", "c", 0, 5, "X")],
        columns=["document", "annotator", "start", "end", "label"],
    )
    part = {"d1": ["a", "b", "z"], "d2": ["a", "c"]}
    result = ie.unitizing_alpha(spans, continuum=(0, 20), participants=part)
    d1 = ie.unitizing_alpha(
        spans[spans.document == "d1"].drop(columns="document"), continuum=(0, 20), annotators=["a", "b", "z"]
    )
    two = ie.unitizing_alpha(spans[spans.document == "d1"].drop(columns="document"), continuum=(0, 20))
    per = result.per_document.set_index("document")["alpha"]
    assert per["d1"] == pytest.approx(d1.estimate, rel=1e-13)
    assert per["d1"] != pytest.approx(two.estimate)
    docs = [
        (20, ["a", "b", "z"], [("a", "X", 2, 6), ("b", "X", 3, 5)]),
        (20, ["a", "c"], [("a", "X", 0, 4), ("c", "X", 0, 5)]),
    ]
    assert result.estimate == pytest.approx(reference_alpha(docs), rel=1e-12)
    assert result.n_participants == 5


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowd_studies(equal=True))
def test_pooled_with_equal_participant_counts_is_the_slot_recoded_value(docs):
    """With k participants in every document the pooled value (and every category's) equals α_U of the spans
    recoded into k slots per document (the i-th participant of each document becomes annotator i)."""
    spans, part, continuum = tables(docs)
    result = quiet(ie.unitizing_alpha, spans, continuum=continuum, participants=part)
    slot = {(f"d{k}", f"w{r:02d}"): i for k, (_, who, _) in enumerate(docs) for i, r in enumerate(who)}
    recoded = spans.assign(annotator=[slot[d, a] for d, a in zip(spans.document, spans.annotator)])
    k = len(docs[0][1])
    slots = quiet(ie.unitizing_alpha, recoded, continuum=continuum, annotators=list(range(k)))
    assert result.estimate == pytest.approx(slots.estimate, rel=1e-12, abs=1e-12, nan_ok=True)
    pd.testing.assert_series_equal(result.per_category["alpha"], slots.per_category["alpha"], rtol=1e-12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowd_studies())
def test_pooled_with_participants_equals_the_exact_coincidence_form(docs):
    """Unequal participant counts: the pooled value equals the coincidence form in exact fractions."""
    spans, part, continuum = tables(docs)
    result = quiet(ie.unitizing_alpha, spans, continuum=continuum, participants=part)
    if not any(len(who) >= 2 for _, who, _ in docs):
        assert np.isnan(result.estimate)
        return
    expected = reference_participants(docs)
    if sum(e for _, e in expected.values()) == 0:
        return
    assert result.estimate == pytest.approx(reference_alpha(docs), rel=1e-10, abs=1e-12)
    for c, (o, e) in expected.items():
        row = result.per_category.set_index("category").loc[c]
        assert row["d_o"] == pytest.approx(float(o), rel=1e-10, abs=1e-15)
        assert row["d_e"] == pytest.approx(float(e), rel=1e-10, abs=1e-15)


def test_participants_as_a_mapping_or_a_table_agree():
    spans = pd.DataFrame(
        [
            ("1", "a", 0, 3, "X"),
            ("1", "b", 1, 3, "X"),
            ("2", "b", 2, 6, "X"),
            ("2", "c", 2, 5, "X"),
            ("2", "d", 0, 1, "X"),
        ],
        columns=["document", "annotator", "start", "end", "label"],
    )
    mapping = {"1": ("a", "b", "e"), "2": {"b", "c", "d"}}
    table = pd.DataFrame([(d, a) for d, who in mapping.items() for a in sorted(who)], columns=["document", "annotator"])
    one = ie.unitizing_alpha(spans, continuum=(0, 10), participants=mapping)
    two = ie.unitizing_alpha(spans, continuum=(0, 10), participants=table)
    assert one.estimate == two.estimate
    assert one.n_annotators == 5


def test_an_annotator_with_spans_who_is_not_a_participant_is_refused():
    spans = pd.DataFrame(
        [("d1", "a", 0, 3, "X"), ("d1", "b", 1, 3, "X"), ("d2", "c", 2, 6, "X")],
        columns=["document", "annotator", "start", "end", "label"],
    )
    with pytest.raises(ValueError, match=r"participants does not list 1 annotator.*'c' in 'd2'"):
        ie.unitizing_alpha(spans, continuum=(0, 10), participants={"d1": ["a", "b"], "d2": ["a"]})


@pytest.mark.parametrize(
    "participants, message",
    [
        (pd.DataFrame({"doc": ["d1"], "annotator": ["a"]}), "needs the columns document, annotator"),
        (pd.DataFrame({"document": ["d1", None], "annotator": ["a", "b"]}), "document is missing"),
        ({"d1": "ab"}, "participants must be"),
        ("d1", "participants must be"),
    ],
)
def test_bad_participants_are_refused(participants, message):
    spans = pd.DataFrame([("d1", "a", 0, 3, "X")], columns=["document", "annotator", "start", "end", "label"])
    with pytest.raises(ValueError, match=message):
        ie.unitizing_alpha(spans, continuum=(0, 10), participants=participants)


def test_participants_and_annotators_together_are_refused():
    spans = pd.DataFrame([("d1", "a", 0, 3, "X")], columns=["document", "annotator", "start", "end", "label"])
    with pytest.raises(ValueError, match="either annotators= .* or participants="):
        ie.unitizing_alpha(spans, continuum=(0, 10), participants={"d1": ["a"]}, annotators=["a"])


def test_a_document_only_the_participants_name_needs_a_continuum():
    spans = pd.DataFrame(
        [("d1", "a", 0, 3, "X"), ("d1", "b", 0, 3, "X")], columns=["document", "annotator", "start", "end", "label"]
    )
    part = {"d1": ["a", "b"], "d2": ["a", "b"]}
    with pytest.raises(ValueError, match="'d2': their length is unknown"):
        quiet(ie.unitizing_alpha, spans, participants=part)
    result = ie.unitizing_alpha(spans, continuum=(0, 10), participants=part)
    assert list(result.per_document["document"]) == ["d1", "d2"]
    both = ie.unitizing_alpha(spans.assign(document="x"), continuum={"x": (0, 10), "y": (0, 10)})
    assert result.estimate == pytest.approx(both.estimate, rel=1e-13)


def test_without_participants_nothing_changes():
    """Participants naming every annotator in every document give exactly the value without them."""
    rng = np.random.default_rng(3)
    rows = []
    for d in range(5):
        for a in "abc":
            pos = 0
            for _ in range(3):
                b = pos + int(rng.integers(0, 5))
                e = b + int(rng.integers(1, 6))
                if e > 40:
                    break
                rows.append((f"d{d}", a, b, e, "XY"[int(rng.integers(0, 2))]))
                pos = e
    spans = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    plain = ie.unitizing_alpha(spans, continuum=(0, 40))
    full = ie.unitizing_alpha(spans, continuum=(0, 40), participants={f"d{d}": list("abc") for d in range(5)})
    assert full.estimate == plain.estimate
    assert full.estimate_inception == plain.estimate_inception


# --------------------------------------------------------------------------- pooling='inception': DKPro Agreement

# (raters, document lengths, units (document, rater, category, begin, length), DKPro's calculateAgreement()):
# random studies (numpy seeds 11-14) whose documents were laid end to end (document k at the sum of the lengths
# before it) in one UnitizingAnnotationStudy(raters, 0, total length) of DKPro Agreement (dkpro/dkpro-statistics,
# commit f7f4f89), its KrippendorffAlphaUnitizingAgreement compiled with javac 17 and run on them.
DKPRO_CONCATENATED = [
    (
        2,
        [50, 37],
        [
            (0, 0, "B", 5, 2),
            (0, 1, "A", 9, 9),
            (0, 1, "A", 28, 4),
            (0, 1, "A", 37, 6),
            (0, 1, "B", 4, 8),
            (0, 1, "B", 17, 5),
            (0, 1, "B", 32, 5),
            (0, 1, "B", 38, 2),
            (1, 0, "A", 11, 4),
            (1, 0, "A", 23, 3),
            (1, 0, "B", 11, 2),
            (1, 1, "A", 11, 9),
            (1, 1, "A", 22, 2),
            (1, 1, "A", 24, 2),
        ],
        0.03397917364032055,
    ),
    (
        3,
        [58, 57, 17],
        [
            (0, 0, "A", 2, 2),
            (0, 0, "A", 6, 5),
            (0, 0, "A", 13, 6),
            (0, 1, "A", 6, 7),
            (0, 1, "A", 16, 3),
            (0, 1, "A", 24, 7),
            (0, 1, "A", 42, 6),
            (0, 1, "A", 50, 7),
            (0, 1, "B", 10, 3),
            (0, 1, "B", 13, 3),
            (0, 2, "A", 4, 9),
            (0, 2, "B", 9, 8),
            (0, 2, "B", 18, 7),
            (0, 2, "B", 25, 6),
            (0, 2, "B", 32, 1),
            (0, 2, "B", 38, 6),
            (0, 2, "B", 46, 6),
            (1, 0, "A", 7, 5),
            (1, 0, "A", 20, 5),
            (1, 0, "B", 3, 6),
            (1, 0, "B", 20, 8),
            (1, 0, "B", 33, 8),
            (1, 0, "B", 49, 4),
            (1, 1, "A", 6, 9),
            (1, 1, "A", 20, 9),
            (1, 1, "A", 36, 6),
            (1, 1, "B", 9, 9),
            (1, 1, "B", 22, 4),
            (1, 1, "B", 36, 2),
            (1, 2, "B", 2, 2),
            (1, 2, "B", 4, 7),
            (1, 2, "B", 14, 7),
            (1, 2, "B", 21, 2),
            (1, 2, "B", 31, 3),
            (1, 2, "B", 41, 7),
            (2, 0, "B", 6, 4),
            (2, 0, "B", 11, 5),
            (2, 1, "A", 9, 2),
            (2, 2, "B", 2, 4),
        ],
        -0.013487685533193128,
    ),
    (
        4,
        [51, 53, 18, 51, 57],
        [
            (0, 0, "A", 3, 2),
            (0, 0, "B", 7, 8),
            (0, 0, "B", 25, 8),
            (0, 0, "B", 36, 9),
            (0, 0, "B", 45, 4),
            (0, 1, "A", 6, 8),
            (0, 1, "B", 5, 3),
            (0, 1, "B", 17, 4),
            (0, 2, "A", 11, 9),
            (0, 2, "B", 1, 1),
            (0, 2, "B", 8, 9),
            (0, 2, "B", 23, 1),
            (0, 3, "A", 3, 2),
            (0, 3, "A", 16, 6),
            (0, 3, "B", 5, 9),
            (0, 3, "B", 21, 3),
            (0, 3, "B", 32, 3),
            (1, 0, "A", 10, 7),
            (1, 0, "A", 21, 9),
            (1, 0, "A", 36, 3),
            (1, 0, "B", 5, 7),
            (1, 1, "A", 11, 7),
            (1, 2, "A", 9, 8),
            (1, 2, "A", 20, 2),
            (1, 2, "B", 3, 1),
            (1, 3, "A", 9, 6),
            (1, 3, "A", 21, 3),
            (1, 3, "A", 28, 1),
            (1, 3, "A", 38, 1),
            (1, 3, "A", 45, 4),
            (1, 3, "B", 8, 9),
            (1, 3, "B", 25, 4),
            (1, 3, "B", 37, 1),
            (1, 3, "B", 41, 7),
            (2, 0, "A", 5, 4),
            (2, 0, "B", 4, 5),
            (2, 1, "A", 6, 8),
            (2, 1, "B", 6, 1),
            (2, 1, "B", 10, 6),
            (2, 2, "A", 9, 7),
            (2, 2, "B", 4, 9),
            (2, 3, "A", 5, 8),
            (2, 3, "B", 3, 9),
            (3, 0, "A", 11, 6),
            (3, 0, "A", 22, 1),
            (3, 0, "B", 11, 4),
            (3, 1, "A", 0, 2),
            (3, 1, "A", 11, 2),
            (3, 1, "B", 5, 6),
            (3, 1, "B", 16, 3),
            (3, 1, "B", 19, 2),
            (3, 3, "A", 0, 9),
            (3, 3, "A", 18, 6),
            (3, 3, "A", 25, 4),
            (3, 3, "A", 36, 8),
            (3, 3, "A", 44, 3),
            (4, 0, "A", 7, 7),
            (4, 0, "A", 17, 6),
            (4, 0, "A", 33, 2),
            (4, 0, "B", 10, 4),
            (4, 0, "B", 21, 9),
            (4, 0, "B", 35, 6),
            (4, 1, "A", 1, 7),
            (4, 1, "A", 11, 4),
            (4, 1, "A", 16, 8),
            (4, 1, "A", 32, 1),
            (4, 1, "A", 42, 4),
            (4, 1, "B", 8, 8),
            (4, 1, "B", 23, 5),
            (4, 1, "B", 37, 1),
            (4, 1, "B", 48, 8),
            (4, 2, "A", 9, 7),
            (4, 2, "A", 19, 5),
            (4, 2, "A", 31, 1),
            (4, 2, "A", 33, 6),
            (4, 2, "B", 6, 2),
            (4, 3, "B", 5, 6),
            (4, 3, "B", 16, 3),
            (4, 3, "B", 23, 2),
        ],
        0.17037106810484615,
    ),
    (
        2,
        [44, 31, 18, 46, 30],
        [
            (0, 0, "A", 10, 4),
            (0, 0, "A", 21, 1),
            (0, 0, "A", 31, 7),
            (0, 0, "B", 8, 9),
            (0, 0, "B", 17, 7),
            (0, 1, "A", 6, 8),
            (0, 1, "A", 21, 8),
            (0, 1, "A", 32, 3),
            (1, 0, "A", 8, 1),
            (1, 0, "B", 1, 8),
            (1, 0, "B", 20, 8),
            (1, 1, "A", 11, 3),
            (1, 1, "A", 18, 5),
            (2, 0, "A", 2, 2),
            (2, 0, "B", 3, 2),
            (2, 1, "A", 8, 4),
            (3, 0, "A", 0, 4),
            (3, 0, "B", 9, 4),
            (3, 0, "B", 24, 8),
            (3, 0, "B", 37, 9),
            (3, 1, "B", 10, 5),
            (4, 0, "B", 11, 9),
            (4, 0, "B", 21, 1),
            (4, 1, "A", 5, 4),
            (4, 1, "B", 0, 7),
            (4, 1, "B", 10, 2),
            (4, 1, "B", 16, 3),
        ],
        -0.17030849238917223,
    ),
]


def concatenated_study(R, lengths, units):
    spans = pd.DataFrame(
        [(f"doc{d}", r, b, b + ln, c) for d, r, c, b, ln in units],
        columns=["document", "annotator", "start", "end", "label"],
    )
    return spans, {f"doc{d}": (0, length) for d, length in enumerate(lengths)}


@pytest.mark.parametrize("R, lengths, units, dkpro", DKPRO_CONCATENATED)
def test_inception_pooling_is_dkpros_value_on_documents_laid_end_to_end(R, lengths, units, dkpro):
    spans, continuum = concatenated_study(R, lengths, units)
    result = quiet(ie.unitizing_alpha, spans, continuum=continuum, annotators=list(range(R)), pooling="inception")
    assert result.estimate == pytest.approx(dkpro, rel=1e-13, abs=1e-15)
    assert result.estimate_inception == result.estimate
    assert result.pooling == "inception"
    # the default pools by document (a gap ends at its document's end): another value, given beside it
    default = quiet(ie.unitizing_alpha, spans, continuum=continuum, annotators=list(range(R)))
    assert default.pooling == "documents"
    assert default.estimate_inception == result.estimate
    assert default.estimate == default.estimate_documents == result.estimate_documents
    assert abs(default.estimate - dkpro) > 0.01
    # the same participants in every document: the same concatenated study
    part = {f"doc{d}": list(range(R)) for d in range(len(lengths))}
    with_part = quiet(ie.unitizing_alpha, spans, continuum=continuum, participants=part, pooling="inception")
    assert with_part.estimate == pytest.approx(dkpro, rel=1e-13, abs=1e-15)


def test_the_repr_names_the_pooling_and_the_other_value_when_they_differ():
    """Issue 33 item 3: the other pooling's value beside the headline. ``iaa spans`` showed it; the Python repr did not
    (a notebook user saw -0.0755 without INCEpTION's 0.0946, or which pooling it was)."""
    R, lengths, units, dkpro = DKPRO_CONCATENATED[1]
    spans, continuum = concatenated_study(R, lengths, units)
    default = quiet(ie.unitizing_alpha, spans, continuum=continuum, annotators=list(range(R)))
    assert repr(default).endswith(f"documents; pooled by document (INCEpTION's {dkpro:.4f}))")
    inception = quiet(ie.unitizing_alpha, spans, continuum=continuum, annotators=list(range(R)), pooling="inception")
    assert repr(inception).endswith(
        f"; pooled as INCEpTION (documents concatenated) (by document {default.estimate_documents:.4f}))"
    )
    one = ie.unitizing_alpha(spans[spans["document"] == "doc0"].drop(columns="document"), continuum=(0, lengths[0]))
    assert "pooled" not in repr(one)


def test_inception_pooling_refuses_documents_with_different_participants():
    R, lengths, units, _ = DKPRO_CONCATENATED[1]
    spans, continuum = concatenated_study(R, lengths, units)
    part = {f"doc{d}": list(range(R)) for d in range(len(lengths))}
    part["doc0"] = part["doc0"] + [99]
    with pytest.raises(ValueError, match="pooling='inception' .* pooling='documents'"):
        ie.unitizing_alpha(spans, continuum=continuum, participants=part, pooling="inception")
    result = ie.unitizing_alpha(spans, continuum=continuum, participants=part)
    assert np.isnan(result.estimate_inception) and not np.isnan(result.estimate)


def test_one_document_has_one_pooling():
    spans = pd.DataFrame([("a", 0, 4, "X"), ("b", 1, 4, "X")], columns=["annotator", "start", "end", "label"])
    result = ie.unitizing_alpha(spans, continuum=(0, 10), pooling="inception")
    assert result.estimate == result.estimate_documents == result.estimate_inception


# --------------------------------------------------------------------------- no silent crowd


def crowd(n_docs=30, workers=20, per_doc=5, seed=0):
    """Each document seen by ``per_doc`` of ``workers``, each marking one shared region with some jitter."""
    rng = np.random.default_rng(seed)
    rows, part = [], []
    for d in range(n_docs):
        for w in rng.choice(workers, per_doc, replace=False):
            part.append((f"d{d:03d}", f"w{w:02d}"))
            b = 10 + int(rng.integers(-2, 3))
            rows.append((f"d{d:03d}", f"w{w:02d}", b, b + 20 + int(rng.integers(-2, 3)), "X"))
    spans = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    return spans, pd.DataFrame(part, columns=["document", "annotator"])


def test_a_crowd_without_participants_warns_once_and_keeps_the_number():
    spans, part = crowd()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plain = ie.unitizing_alpha(spans, continuum=(0, 50))
    absent = [w for w in caught if issubclass(w.category, ie.AbsentAnnotatorsWarning)]
    assert len(absent) == 1
    assert "20 of 20 annotators have no span in most of the 30 documents" in str(absent[0].message)
    assert "participants=" in str(absent[0].message) and "--participants" in str(absent[0].message)
    assert absent[0].filename == __file__  # points at the caller
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        given = ie.unitizing_alpha(spans, continuum=(0, 50), participants=part)
    # the warning does not change the number; participants do
    assert plain.estimate < 0.2 < given.estimate


def test_complete_designs_do_not_warn():
    rng = np.random.default_rng(5)
    rows = [
        (f"d{d}", a, b, b + int(rng.integers(3, 9)), "X")
        for d in range(20)
        for a in "abc"
        for b in [int(rng.integers(0, 10))]
    ]
    spans = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    example = pd.read_csv(ie.__file__.replace("__init__.py", "examples/spans.csv"), dtype=str)
    texts = pd.read_csv(ie.__file__.replace("__init__.py", "examples/spans_texts.csv"), dtype={"document": str})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ie.unitizing_alpha(spans, continuum=(0, 20))
        ie.unitizing_alpha(example.astype({"start": int, "end": int}), continuum=texts)
        # entities in a few documents only: documents nobody marked do not make anyone look absent
        ie.unitizing_alpha(
            spans[spans.document.isin(["d1", "d2", "d3", "d4"])], continuum={f"d{d}": 20 for d in range(20)}
        )


# --------------------------------------------------------------------------- who fragments, who misses


def test_per_annotator_names_the_fragmenter_and_equals_leaving_them_out():
    spans, part = crowd(n_docs=12, workers=8, per_doc=4, seed=2)
    # w03 cuts its region into eight pieces wherever it took part
    mine = spans[spans.annotator == "w03"]
    pieces = pd.DataFrame(
        [
            (d, "w03", b + 2 * k + k, b + 2 * k + k + 2, "X")
            for d, b in zip(mine.document, mine.start)
            for k in range(8)
        ],
        columns=spans.columns,
    )
    spans = pd.concat([spans[spans.annotator != "w03"], pieces], ignore_index=True)
    result = ie.unitizing_alpha(spans, continuum=(0, 50), participants=part, per_annotator=True)
    table = result.per_annotator.set_index("annotator")
    assert table["alpha_without"].idxmax() == "w03"
    assert table.loc["w03", "alpha_without"] > result.estimate
    assert table.loc["w03", "units_per_document"] == 8.0
    assert table.loc["w03", "others_units_per_document"] == 1.0
    assert table.loc["w03", "mean_length"] == 2.0 and table.loc["w03", "others_mean_length"] > 15
    for name in ("w03", "w05"):
        rest = spans[spans.annotator != name]
        left = ie.unitizing_alpha(rest, continuum=(0, 50), participants=part[part.annotator != name])
        assert table.loc[name, "alpha_without"] == pytest.approx(left.estimate, rel=1e-12)
        assert table.loc[name, "n_documents"] == int((part.annotator == name).sum())
    assert result.to_dict()["per_annotator"][0]["annotator"] == "w00"


def test_per_annotator_without_participants_leaves_the_annotator_out_of_every_document():
    R, lengths, units, _ = DKPRO_CONCATENATED[2]
    spans, continuum = concatenated_study(R, lengths, units)
    for pooling in ("documents", "inception"):
        result = quiet(
            ie.unitizing_alpha,
            spans,
            continuum=continuum,
            annotators=list(range(R)),
            pooling=pooling,
            per_annotator=True,
        )
        for a in range(R):
            rest = quiet(
                ie.unitizing_alpha,
                spans[spans.annotator != a],
                continuum=continuum,
                annotators=[r for r in range(R) if r != a],
                pooling=pooling,
            )
            assert result.per_annotator["alpha_without"][a] == pytest.approx(rest.estimate, rel=1e-12)
    assert ie.unitizing_alpha(spans, continuum=continuum).per_annotator is None


# --------------------------------------------------------------------------- the 2016 family with participants


def nonoverlapping(docs):
    """One partition per annotator (the family's requirement): keep label A only."""
    return [(length, who, [u for u in units if u[1] == "A"]) for length, who, units in docs]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowd_studies())
def test_family_per_document_with_participants_is_the_document_alone(docs):
    spans, part, continuum = tables(nonoverlapping(docs))
    result = quiet(ie.unitizing_family, spans, continuum=continuum, participants=part)
    table = result.per_document.set_index("document")
    total = 0.0
    for k, (length, who, _) in enumerate(docs):
        alone = spans[spans["document"] == f"d{k}"].drop(columns="document")
        if len(who) < 2 or alone.empty:
            continue
        total += len(who) * length
        single = quiet(ie.unitizing_family, alone, continuum=(0, length), annotators=[f"w{r:02d}" for r in who])
        for column, value in (("u_alpha", single.estimate), ("binary_alpha", single.binary)):
            assert table.loc[f"d{k}", column] == pytest.approx(value, rel=1e-9, abs=1e-12, nan_ok=True)
    # the pooled matrix adds up to Σ m_d L_d over the documents with two participants or more
    if result.n_units:
        assert result.coincidence.to_numpy().sum() == pytest.approx(
            sum(len(w) * ln for ln, w, _ in docs if len(w) >= 2), rel=1e-12
        )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowd_studies(equal=True))
def test_family_pooled_with_equal_participant_counts_is_the_slot_recoded_value(docs):
    docs = nonoverlapping(docs)
    spans, part, continuum = tables(docs)
    result = quiet(ie.unitizing_family, spans, continuum=continuum, participants=part)
    slot = {(f"d{k}", f"w{r:02d}"): i for k, (_, who, _) in enumerate(docs) for i, r in enumerate(who)}
    recoded = spans.assign(annotator=[slot[d, a] for d, a in zip(spans.document, spans.annotator)])
    slots = quiet(ie.unitizing_family, recoded, continuum=continuum, annotators=list(range(len(docs[0][1]))))
    assert result.estimate == pytest.approx(slots.estimate, rel=1e-12, abs=1e-12, nan_ok=True)
    assert result.binary == pytest.approx(slots.binary, rel=1e-12, abs=1e-12, nan_ok=True)
    np.testing.assert_allclose(result.coincidence.to_numpy(), slots.coincidence.to_numpy(), rtol=1e-12)


# --------------------------------------------------------------------------- gamma with participants


def test_gamma_with_equal_participant_counts_is_the_slot_recoded_value():
    spans, part = crowd(n_docs=6, workers=10, per_doc=3, seed=4)
    result = ie.gamma_agreement(spans, participants=part, n_samples=8)
    order = part.assign(slot=part.groupby("document").cumcount())
    slot = dict(zip(zip(order.document, order.annotator), order.slot))
    recoded = spans.assign(annotator=[slot[d, a] for d, a in zip(spans.document, spans.annotator)])
    slots = quiet(ie.gamma_agreement, recoded, annotators=[0, 1, 2], n_samples=8)
    assert result.observed_disorder == pytest.approx(slots.observed_disorder, rel=1e-12)
    assert result.expected_disorder == pytest.approx(slots.expected_disorder, rel=1e-12)
    assert result.estimate == pytest.approx(slots.estimate, rel=1e-12)


def test_gamma_alignments_of_a_document_count_its_participants():
    """Two documents with 2 and 4 participants (one of them without a unit): the observed disorder is the two
    documents' disorders, each computed alone among its participants, weighted by their n̄_d = N_d / n_d."""
    spans = pd.DataFrame(
        [("d1", "a", 0, 10, "X"), ("d1", "b", 1, 10, "X"), ("d1", "b", 30, 40, "X"),
         ("d2", "a", 5, 9, "X"), ("d2", "c", 5, 8, "Y"), ("d2", "d", 20, 30, "X")],
        columns=["document", "annotator", "start", "end", "label"],
    )  # fmt: skip
    part = {"d1": ["a", "b"], "d2": ["a", "c", "d", "z"]}
    result = ie.gamma_agreement(spans, participants=part, n_samples=5)
    alone = {
        d: ie.gamma_agreement(spans[spans.document == d].drop(columns="document"), annotators=who, n_samples=5)
        for d, who in part.items()
    }
    n_bar = {"d1": 3 / 2, "d2": 3 / 4}
    expected = sum(alone[d].observed_disorder * n_bar[d] for d in part) / sum(n_bar.values())
    assert result.observed_disorder == pytest.approx(expected, rel=1e-12)
    # and not the disorder of four annotators everywhere
    everyone = quiet(ie.gamma_agreement, spans, annotators=["a", "b", "c", "d", "z"], n_samples=5)
    assert everyone.observed_disorder != pytest.approx(result.observed_disorder)


def test_gamma_sampler_draws_only_the_participants():
    from iaa_engine.metrics import _gamma as G

    stats = {"count": (3.0, 1.0), "gap": (2.0, 1.0), "duration": (5.0, 1.0), "weights": np.array([1.0])}
    doc_n = np.array([2, 5, 1, 3])
    sample, group, annotator, *_ = G._sample(stats, 50, 4, 5, np.random.default_rng(0), doc_n)
    document = group % 4
    limit = np.where(doc_n >= 2, doc_n, 0)
    assert (annotator < limit[document]).all()
    assert set(np.unique(document)) == {0, 1, 3}


def test_gamma_on_a_crowd_runs_with_participants():
    """12 documents, 20 workers, 5 per document (issue 33): with participants the alignment is among each
    document's five (a result, not a refusal)."""
    spans, part = crowd(n_docs=12, workers=20, per_doc=5, seed=7)
    result = ie.gamma_agreement(spans, participants=part, n_samples=5)
    assert np.isfinite(result.estimate) and result.n_units == 60
    assert set(result.alignment.groupby("unitary_alignment")["size"].max()) <= {1, 2, 3, 4, 5}


def test_gamma_unequal_participant_counts_with_pruned_candidates():
    """Documents of 2, 3 and 5 participants with several entities each (many candidates pruned): the observed
    disorder is the documents' own, weighted by n̄_d = N_d / n_d."""
    rng = np.random.default_rng(11)
    rows, part = [], {}
    for d, k in enumerate((2, 3, 5)):
        who = [f"w{w}" for w in rng.choice(9, k, replace=False)]
        part[f"d{d}"] = who
        for e in range(6):
            b = 40 * e + int(rng.integers(0, 6))
            for w in who:
                if rng.random() < 0.85:
                    s = b + int(rng.integers(-3, 4))
                    rows.append((f"d{d}", w, s, s + 10 + int(rng.integers(0, 8)), "XY"[int(rng.random() < 0.2)]))
    spans = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    result = ie.gamma_agreement(spans, participants=part, n_samples=4)
    total, n_bar = 0.0, 0.0
    for d, who in part.items():
        one = spans[spans.document == d].drop(columns="document")
        alone = ie.gamma_agreement(one, annotators=who, n_samples=4)
        total += alone.observed_disorder * len(one) / len(who)
        n_bar += len(one) / len(who)
    assert result.observed_disorder == pytest.approx(total / n_bar, rel=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowd_studies(max_docs=5))
def test_alpha_without_each_annotator_equals_leaving_them_out(docs):
    """The leave-one-out sums (no recomputation per annotator) equal α_U recomputed without the annotator, on
    crowds with 1-4 participants per document (two-participant documents lose their pair)."""
    spans, part, continuum = tables(docs)
    result = quiet(ie.unitizing_alpha, spans, continuum=continuum, participants=part, per_annotator=True)
    for row in result.per_annotator.itertuples(index=False):
        rest = part[part.annotator != row.annotator]
        if rest.empty:
            continue
        left = quiet(
            ie.unitizing_alpha,
            spans[spans.annotator != row.annotator],
            continuum=continuum,
            participants=rest,
        )
        assert row.alpha_without == pytest.approx(left.estimate, rel=1e-9, abs=1e-12, nan_ok=True)


def test_gamma_refusing_a_crowd_without_participants_names_the_cause():
    spans, part = crowd(n_docs=6, workers=12, per_doc=3, seed=9)
    more = spans.assign(start=spans.start + 25, end=spans.end + 25)
    spans = pd.concat([spans, more], ignore_index=True)
    from iaa_engine.stats._gamma import TooManyAlignmentsError

    with pytest.raises(TooManyAlignmentsError, match="participants=.*--participants FILE"):
        quiet(ie.gamma_agreement, spans, n_samples=3, max_alignments=500)
    ie.gamma_agreement(spans, participants=part, n_samples=3, max_alignments=500)


def test_participants_with_ids_of_another_type_say_so():
    spans = pd.DataFrame(
        [("7", "a", 0, 3, "X"), ("7", "b", 0, 3, "X")], columns=["document", "annotator", "start", "end", "label"]
    )
    with pytest.raises(ValueError, match="names none of the span table's documents.*'7' is not 7"):
        ie.unitizing_alpha(spans, continuum=(0, 10), participants={7: ["a", "b"]})


def test_one_document_without_a_document_column():
    spans = pd.DataFrame([("a", 0, 3, "X"), ("b", 1, 3, "X")], columns=["annotator", "start", "end", "label"])
    with_z = ie.unitizing_alpha(spans, continuum=(0, 10), participants=pd.DataFrame({"annotator": ["a", "b", "z"]}))
    listed = ie.unitizing_alpha(spans, continuum=(0, 10), annotators=["a", "b", "z"])
    assert with_z.estimate == pytest.approx(listed.estimate, rel=1e-13)
