"""The 2016 unitizing family (``ie.unitizing_family``): uα, |uα, cuα, (k)uα with coverage.

Sources. Krippendorff, Mathet, Bouvry & Widlöcher (2016, Quality & Quantity 50:2347) and Krippendorff (2019,
Content Analysis 4th ed., §12.6) define the family; no worked example of theirs with printed values was found in
the stored sources, so the values here are checked against

* a brute-force reference written below on the unit-resolution definition, in exact fractions: every continuum
  expanded to its integer positions, each annotator's value at each position (a label or ∅), the observed
  coincidences counted position by position over ordered pairs of annotators (1/(m-1) each) — that is the
  ordinary coincidence matrix of Krippendorff's alpha with positions as units, checked against
  ``ie.coincidence_matrix`` — and the expected coincidences, |uα, cuα and (k)uα from the paper's formulas, their
  self-pairing sums counted from the segments;
* ordinary nominal alpha of the positions (``ie.krippendorff_alpha``), which uα equals when every unit has
  length 1 (the paper's expected coincidences then reduce to alpha's n_c(n_k - [c=k])/(n-1));
* the peer package krippendorff-unitized-alpha 0.1.0 (PyPI; uα only), run on the studies named in the tests.

cuα's self-pairing sum: unit g of annotator i adds y_g = Σ_{j≠i} x_ijg / (m-1) to cuα's margins (x_ijg: the length
of g covered by j's units) and its self-pairs are y_g², as a unit's l_g² in uα. Two public implementations read
the paper's formula differently for more than two annotators (Σ_j x_ijg² / (m-1); quallmer's
``reliability_alpha_u`` in R: the squared length covered by any other annotator); all three agree for two
annotators (tested below on the brute force, which implements the three).
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
from iaa_engine.stats._unitizing_family import partition_clashes

GAP = None

# --------------------------------------------------------------------------- the brute-force reference


def grid(length, units, n_raters):
    """Each rater's value at each integer position of one document (None: a gap)."""
    out = [[GAP] * length for _ in range(n_raters)]
    for r, label, b, e in units:
        for p in range(b, e):
            out[r][p] = label
    return out


def brute(docs, n_raters, variant="segment"):
    """The family on the unit-resolution definition, exact. ``docs``: list of (length, [(rater, label, b, e)]).

    ``variant`` is cuα's self-pairing sum for a unit g of rater i: ``'segment'`` (this library) y_g² with
    y_g = Σ_{j≠i} x_ijg / (m-1), g's share of cuα's margins; ``'pairs'`` Σ_{j≠i} x_ijg² / (m-1) (a public Python
    implementation's reading); ``'union'`` (quallmer) the squared length of g covered by any other rater's unit.
    """
    m = n_raters
    labels = sorted({u[1] for _, units in docs for u in units})
    values = [GAP, *labels]
    obs = {(c, k): Fraction(0) for c in values for k in values}
    S = {c: Fraction(0) for c in values}
    Sx = {c: Fraction(0) for c in labels}
    for length, units in docs:
        g = grid(length, units, m)
        for p in range(length):
            for i, j in itertools.permutations(range(m), 2):
                obs[g[i][p], g[j][p]] += Fraction(1, m - 1)
        for r, label, b, e in units:
            S[label] += (e - b) ** 2
            x = [sum(g[j][p] is not GAP for p in range(b, e)) for j in range(m) if j != r]
            if variant == "segment":
                Sx[label] += Fraction(sum(x), m - 1) ** 2
            elif variant == "pairs":
                Sx[label] += Fraction(sum(v * v for v in x), m - 1)
            else:
                covered = sum(any(g[j][p] is not GAP for j in range(m) if j != r) for p in range(b, e))
                Sx[label] += covered**2
        S[GAP] += sum(g[r][p] is GAP for r in range(m) for p in range(length))
    margin = {c: sum(obs[c, k] for k in values) for c in values}
    total = sum(margin.values())
    if not labels or m < 2:  # no unit: every coefficient undefined
        return {"matrix": obs, "u": None, "binary": None, "coded": None, "coverage": None, "per_value": {}}

    def expected(marg, sums, keys):
        t = sum(marg.values())
        den = t * t - sum(sums.values())
        if not den:  # degenerate: no expected coincidences (the coefficients are undefined)
            return None
        return {(c, k): t * (marg[c] * marg[k] - (sums[c] if c == k else 0)) / den for c in keys for k in keys}

    def ratio(num, den):
        return 1 - num / den if den else None

    exp = expected(margin, S, values)
    u = binary = None
    if exp is not None:
        u = ratio(total - sum(obs[c, c] for c in values), total - sum(exp[c, c] for c in values))
        binary = ratio(sum(obs[GAP, k] for k in labels), sum(exp[GAP, k] for k in labels))
    cm = {c: sum(obs[c, k] for k in labels) for c in labels}
    ct = sum(cm.values())
    cexp = expected(cm, Sx, labels) if ct else None
    cu = None
    if cexp is not None:
        cu = ratio(ct - sum(obs[c, c] for c in labels), ct - sum(cexp[c, c] for c in labels))
    per = {}
    for k in labels:
        alpha = None
        if cm[k] and cexp is not None:
            ek = sum(cexp[k, c] for c in labels)
            den = ek - cexp[k, k]
            alpha = 1 - ek / cm[k] * (cm[k] - obs[k, k]) / den if den else None
        per[k] = (alpha, cm[k] / margin[k] if margin[k] else None)
    return {"matrix": obs, "u": u, "binary": binary, "coded": cu, "coverage": ct / total, "per_value": per}


def table(docs, with_document=True):
    """The span table of ``docs`` (documents named d0, d1, ...; raters r0, r1, ...)."""
    rows = [(f"d{n}", f"r{r}", b, e, label) for n, (_, units) in enumerate(docs) for r, label, b, e in units]
    frame = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"]).astype(
        {"start": "int64", "end": "int64"}
    )
    return frame if with_document else frame.drop(columns="document")


def run(docs, n_raters, **options):
    continuum = {f"d{n}": (0, length) for n, (length, _) in enumerate(docs)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        return ie.unitizing_family(
            table(docs), continuum=continuum, annotators=[f"r{r}" for r in range(n_raters)], **options
        )


def close(value, exact, tol=1e-12):
    if exact is None:
        return value is None or np.isnan(value)
    return value == pytest.approx(float(exact), rel=tol, abs=tol)


def check_against_brute(docs, n_raters):
    result = run(docs, n_raters)
    ref = brute(docs, n_raters)
    labels = list(result.per_value["value"])
    for c in [GAP, *labels]:
        for k in [GAP, *labels]:
            row = "∅" if c is GAP else c
            col = "∅" if k is GAP else k
            assert close(result.coincidence.loc[row, col], ref["matrix"][c, k])
    assert close(result.estimate, ref["u"])
    assert close(result.binary, ref["binary"])
    assert close(result.coding, ref["coded"])
    assert close(result.coding_coverage, ref["coverage"])
    for _, row in result.per_value.iterrows():
        alpha, coverage = ref["per_value"][row["value"]]
        assert close(row["alpha"], alpha)
        assert close(row["coverage"], coverage)
    return result, ref


# --------------------------------------------------------------------------- random partitions


@st.composite
def studies(draw, max_docs=3, max_raters=4, max_length=24):
    n_raters = draw(st.integers(2, max_raters))
    docs = []
    for _ in range(draw(st.integers(1, max_docs))):
        length = draw(st.integers(1, max_length))
        units = []
        for r in range(n_raters):
            cuts = sorted(draw(st.sets(st.integers(0, length), max_size=6)) | {0, length})
            for b, e in zip(cuts, cuts[1:]):
                label = draw(st.sampled_from([GAP, GAP, "a", "b", "c"]))
                if label is not GAP:
                    units.append((r, label, b, e))
        docs.append((length, units))
    return docs, n_raters


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------- worked values


EXAMPLE = [(60, [(0, "1", 2, 5), (1, "1", 2, 5), (1, "2", 10, 20), (2, "2", 2, 5), (2, "2", 15, 20)])]


def test_example_against_brute_force_and_peer():
    """Three annotators, two labels, a continuum of 60 (the input of a public Python implementation's README).

    uα = 0.3982981423791392 is what krippendorff-unitized-alpha 0.1.0 returns on this study (its segments built
    with the gaps filled in); |uα, cuα and (k)uα are checked against the exact brute force."""
    result, ref = check_against_brute(EXAMPLE, 3)
    assert result.estimate == pytest.approx(0.3982981423791392, rel=1e-14)
    assert ref["u"] == Fraction(result.estimate).limit_denominator(10**6)
    # by hand: units meet units on [2, 5) (Alex-Paul, Alex-Susan, Paul-Susan) and [15, 20) (Paul-Susan):
    # l*.. = 2 (3 + 3 + 3 + 5) / 2 = 14 of l.. = 180; value 1: all 6 of its length, value 2: 8 of 18
    assert ref["coverage"] == Fraction(14, 180)
    assert ref["per_value"]["1"][1] == 1 and ref["per_value"]["2"][1] == Fraction(4, 9)
    assert result.per_value["coverage"].tolist() == pytest.approx([1, 4 / 9], rel=1e-15)


# krippendorff-unitized-alpha 0.1.0's uα on two more studies (segments: the units with the gaps filled in)
PEER = [
    ([(40, [(0, "x", 0, 10), (0, "y", 20, 30), (1, "x", 2, 12), (1, "y", 18, 30), (1, "x", 35, 40)])], 2),
    ([(50, [(0, "x", 5, 15), (1, "x", 5, 15), (2, "y", 5, 15), (0, "y", 30, 45), (2, "y", 31, 44)])], 3),
]


@pytest.mark.parametrize("index", range(len(PEER)))
def test_peer_package_values(index):
    docs, n_raters = PEER[index]
    expected = PEER_VALUES[index]
    result, _ = check_against_brute(docs, n_raters)
    assert result.estimate == pytest.approx(expected, rel=1e-13)


# computed by krippendorff-unitized-alpha 0.1.0 (numpy 1.26.4) on the two studies of PEER
PEER_VALUES = [0.6140052356020942, 0.4063320209973753]


def test_readings_of_cu_alpha():
    """The three readings of cuα's self-pairing sum agree for two annotators. For more, the other two can exceed
    l*..² (the expected coincidences' denominator turns negative and cuα leaves [-1, 1]): one unit each of two of
    four annotators, values a and b, on one position gives cuα = 2 under 'pairs' and 8 under 'union'; this
    library's reading (a unit's share of the margins, squared) gives 0 (the two values disagree at chance level)."""
    docs = PEER[0][0]
    readings = {v: brute(docs, 2, variant=v)["coded"] for v in ("segment", "pairs", "union")}
    assert readings["segment"] == readings["pairs"] == readings["union"] is not None
    tiny = [(1, [(2, "a", 0, 1), (3, "b", 0, 1)])]
    assert brute(tiny, 4, variant="pairs")["coded"] == 2
    assert brute(tiny, 4, variant="union")["coded"] == 8
    assert brute(tiny, 4)["coded"] == 0
    assert run(tiny, 4).coding == 0


def test_observed_matrix_is_alphas_coincidence_matrix_of_positions():
    """The observed coincidences are the ordinary coincidence matrix of Krippendorff's alpha with every position a
    unit and ∅ a value (``ie.coincidence_matrix``)."""
    docs, n_raters = EXAMPLE, 3
    result = run(docs, n_raters)
    rows = []
    for n, (length, units) in enumerate(docs):
        g = grid(length, units, n_raters)
        rows += [(f"{n}:{p}", r, "∅" if g[r][p] is GAP else g[r][p]) for r in range(n_raters) for p in range(length)]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    matrix = ie.coincidence_matrix(data)
    order = [list(data.categories).index(v) for v in result.coincidence.index]
    np.testing.assert_allclose(matrix[np.ix_(order, order)], result.coincidence.to_numpy(), rtol=1e-14)


def test_unit_length_one_equals_nominal_alpha_of_positions():
    """With every unit of length 1 the paper's expected coincidences are alpha's: uα = nominal alpha of the
    positions."""
    units = [(0, "a", 1, 2), (0, "b", 3, 4), (1, "a", 1, 2), (1, "a", 3, 4), (1, "b", 6, 7), (2, "b", 3, 4)]
    docs = [(9, units)]
    result = run(docs, 3)
    g = grid(9, units, 3)
    rows = [(p, r, "∅" if g[r][p] is GAP else g[r][p]) for r in range(3) for p in range(9)]
    data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    assert result.estimate == pytest.approx(ie.krippendorff_alpha(data, level="nominal"), rel=1e-13)


def test_one_value_leaves_cu_alpha_undefined_not_one():
    """Found by hypothesis: with one value only, cuα's expected disagreement is 0 (the brute force says undefined),
    but computed in floating point it rounded to ~1e-16 and gave cuα = 1.0. It must be undefined (nan)."""
    docs = [(5, [(2, "a", 0, 5), (3, "a", 0, 4), (3, "a", 4, 5)])]
    check_against_brute(docs, 4)
    assert np.isnan(run(docs, 4).coding)


@given(studies())
@SETTINGS
def test_random_studies_against_brute_force(study):
    docs, n_raters = study
    check_against_brute(docs, n_raters)


@given(studies())
@SETTINGS
def test_sparse_keys_path(study):
    """Above 2^24 (document, value, value) cells the per-document sums are keyed through the value pairs that occur
    or by sorting, not by one dense bincount: forced here on small studies, the same values."""
    import iaa_engine.stats._unitizing_family as family

    docs, n_raters = study
    dense = run(docs, n_raters)
    saved = family._DENSE
    for limit in (0, 16):  # 0: every key sorted; 16: pairs of values coded compactly, then dense or sorted
        family._DENSE = limit
        try:
            sparse, _ = check_against_brute(docs, n_raters)
        finally:
            family._DENSE = saved
        pd.testing.assert_frame_equal(dense.coincidence, sparse.coincidence, rtol=1e-13)
        pd.testing.assert_frame_equal(dense.per_document, sparse.per_document, rtol=1e-13)


def test_empty_table_and_documents_without_spans():
    empty = pd.DataFrame(columns=["annotator", "start", "end", "label"])
    with pytest.warns(ie.UndefinedMetricWarning, match="no unit"):
        result = ie.unitizing_family(empty, continuum=(0, 10), annotators=["a", "b"])
    assert result.coincidence.loc["∅", "∅"] == 20 and result.n_units == 0
    spans = pd.DataFrame({"document": ["x"], "annotator": ["a"], "start": [1], "end": [4], "label": ["P"]})
    result = ie.unitizing_family(spans, continuum={"x": 10, "y": 5}, annotators=["a", "b"])
    assert result.coincidence.to_numpy().sum() == 30 and list(result.per_document["n_units"]) == [1, 0]


# --------------------------------------------------------------------------- properties


@given(studies(max_docs=4))
@SETTINGS
def test_documents_add_up(study):
    """Per-document coincidences sum to the pooled matrix; each document's values are the family of that document
    alone; pooled values are those of the documents' brute force together."""
    docs, n_raters = study
    result = run(docs, n_raters)
    summed = result.document_coincidences.groupby(["value", "other"])["length"].sum()
    for (c, k), value in summed.items():
        assert value == pytest.approx(result.coincidence.loc[c, k], rel=1e-12)
    assert result.coincidence.to_numpy().sum() == pytest.approx(n_raters * sum(ln for ln, _ in docs), rel=1e-12)
    for n, doc in enumerate(docs):
        alone = brute([doc], n_raters)
        row = result.per_document.set_index("document").loc[f"d{n}"]
        assert close(row["u_alpha"], alone["u"])
        assert close(row["binary_alpha"], alone["binary"])
        assert close(row["coding_alpha"], alone["coded"])
        # a document without units: cuα rests on none of its coincidences (coverage 0)
        assert close(row["coding_coverage"], alone["coverage"] if doc[1] else 0)


@given(studies(), st.randoms(use_true_random=False), st.integers(-1000, 1000))
@SETTINGS
def test_invariances(study, rnd, shift):
    """Order of rows, annotators (renamed) and documents, and a shift of every position, change nothing."""
    docs, n_raters = study
    base = run(docs, n_raters)
    frame = table(docs)
    rows = list(range(len(frame)))
    rnd.shuffle(rows)
    names = [f"r{r}" for r in range(n_raters)]
    renamed = dict(zip(names, rnd.sample(names, len(names))))
    doc_order = list(range(len(docs)))
    rnd.shuffle(doc_order)
    doc_names = {f"d{n}": f"d{doc_order[n]}" for n in range(len(docs))}  # documents renamed: another order
    moved = frame.iloc[rows].assign(
        annotator=lambda f: f["annotator"].map(renamed),
        document=lambda f: f["document"].map(doc_names),
        start=lambda f: f["start"] + shift,
        end=lambda f: f["end"] + shift,
    )
    continuum = {doc_names[f"d{n}"]: (shift, docs[n][0]) for n in rnd.sample(range(len(docs)), len(docs))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        other = ie.unitizing_family(moved, continuum=continuum, annotators=names)
    for name in ("estimate", "binary", "coding", "coding_coverage"):
        a, b = getattr(base, name), getattr(other, name)
        assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)
    pd.testing.assert_frame_equal(base.coincidence, other.coincidence, rtol=1e-12)
    mine = base.per_document.set_index("document")
    theirs = other.per_document.set_index("document").rename(index={v: k for k, v in doc_names.items()})
    for column in ("u_alpha", "binary_alpha", "coding_alpha", "coding_coverage"):
        pd.testing.assert_series_equal(mine[column], theirs.loc[mine.index, column], rtol=1e-12)


@given(studies(max_raters=3))
@SETTINGS
def test_all_agree(study):
    """Every annotator marks the same units: uα = |uα = 1, and cuα = 1 where there are two values at least."""
    docs, _ = study
    same = [
        (length, [(r, lab, b, e) for r in range(3) for r0, lab, b, e in units if r0 == 0]) for length, units in docs
    ]
    result = run(same, 3)
    has_units = any(units for _, units in same)
    all_units = all(
        sum(e - b for r, _, b, e in units if r == 0) == length for length, units in same
    )  # no gap anywhere: uα's and |uα's expected disagreement may vanish
    if has_units and not all_units:
        assert result.estimate == 1.0
        assert result.binary == 1.0
    if result.per_value["coded_length"].gt(0).sum() >= 2:
        assert result.coding == 1.0
        assert (result.per_value["alpha"].dropna() == 1.0).all()


# --------------------------------------------------------------------------- relation to α_U, edges, errors


def test_relation_to_unitizing_alpha():
    """Both are 1 for exact agreement; otherwise they are different coefficients (α_U weighs squared boundary
    differences per category, uα lengths of intersection over all values), e.g. on the example above."""
    same = pd.DataFrame({"annotator": ["a", "b"], "start": [3, 3], "end": [9, 9], "label": ["x", "x"]})
    assert ie.unitizing_family(same, continuum=(0, 20)).estimate == 1.0
    assert ie.unitizing_alpha(same, continuum=(0, 20)).estimate == 1.0
    spans = table(EXAMPLE, with_document=False)
    assert ie.unitizing_family(spans, continuum=(0, 60)).estimate != pytest.approx(
        ie.unitizing_alpha(spans, continuum=(0, 60)).estimate, abs=1e-3
    )


def test_overlapping_labels_refused_with_the_spans():
    spans = pd.DataFrame({"annotator": ["a", "a", "b"], "start": [0, 4, 0], "end": [6, 9, 6], "label": ["x", "y", "x"]})
    with pytest.raises(ValueError, match=r"apart whatever their labels.*'start': 4\.0, 'end': 9\.0, 'label': 'y'"):
        ie.unitizing_family(spans, continuum=(0, 10))
    # the 1995/2004 α_U takes them
    assert np.isfinite(ie.unitizing_alpha(spans, continuum=(0, 10)).estimate)


def test_same_label_overlaps_merge_or_raise():
    spans = pd.DataFrame({"annotator": ["a", "a", "b"], "start": [0, 4, 0], "end": [6, 9, 9], "label": ["x", "x", "x"]})
    with pytest.raises(ValueError, match="overlap"):
        ie.unitizing_family(spans, continuum=(0, 10))
    merged = ie.unitizing_family(spans, continuum=(0, 10), overlaps="merge")
    assert merged.estimate == 1.0 and merged.n_units == 2


def test_touching_units_and_zero_length_units():
    """Touching units of different labels are a partition; a zero-length unit covers nothing and is left out."""
    spans = pd.DataFrame(
        {
            "annotator": ["a", "a", "b", "b", "b"],
            "start": [0, 5, 0, 5, 7],
            "end": [5, 9, 5, 9, 7],
            "label": ["x", "y", "x", "y", "x"],
        }
    )
    result = ie.unitizing_family(spans, continuum=(0, 10))
    assert result.estimate == 1.0 and result.coding == 1.0 and result.n_units == 4


def test_positions_count_in_the_continuums_step():
    """A gap counts as single-length pieces (S_∅ = l_∅.) and a unit as a whole (S_c = Σ l²): uα depends on the unit
    of the positions (characters vs tenths of characters), as α_U does; float positions are taken as given."""
    docs, n_raters = PEER[0]
    coarse = run(docs, n_raters).estimate
    fine = [(10 * length, [(r, lab, 10 * b, 10 * e) for r, lab, b, e in units]) for length, units in docs]
    assert run(fine, n_raters).estimate == pytest.approx(float(brute(fine, n_raters)["u"]), rel=1e-12)
    assert run(fine, n_raters).estimate != pytest.approx(coarse, abs=1e-4)
    halves = table(docs).assign(start=lambda f: f["start"] / 2, end=lambda f: f["end"] / 2)
    result = ie.unitizing_family(halves, continuum={"d0": (0, docs[0][0] / 2)})
    assert np.isfinite(result.estimate) and result.coincidence.to_numpy().sum() == pytest.approx(n_raters * 20)


def test_partition_clashes_mask():
    doc = np.array([0, 0, 0, 1])
    rater = np.array([0, 0, 1, 0])
    begin = np.array([0.0, 2.5, 1.0, 2.5])
    end = np.array([3.0, 4.0, 2.0, 4.0])
    assert partition_clashes(doc, rater, begin, end).tolist() == [False, True, False, False]


def test_undefined_cases():
    empty = pd.DataFrame({"annotator": ["a"], "start": [2], "end": [2], "label": ["x"]})
    with pytest.warns(ie.UndefinedMetricWarning, match="no unit"):
        assert np.isnan(ie.unitizing_family(empty, continuum=(0, 10), annotators=["a", "b"]).estimate)
    one = pd.DataFrame({"annotator": ["a"], "start": [2], "end": [5], "label": ["x"]})
    with pytest.warns(ie.UndefinedMetricWarning, match="fewer than two"):
        assert ie.unitizing_family(one, continuum=(0, 10), replace_undefined_by=0.0).estimate == 0.0
    # one value only: cuα and (k)uα have no expected disagreement
    single = pd.DataFrame({"annotator": ["a", "b"], "start": [2, 3], "end": [5, 6], "label": ["x", "x"]})
    result = ie.unitizing_family(single, continuum=(0, 10))
    assert np.isfinite(result.estimate) and np.isnan(result.coding) and np.isnan(result.per_value["alpha"][0])


def test_result_shape():
    result = run(EXAMPLE, 3)
    frame = result.to_frame()
    assert frame.set_index("name").loc["estimate", "value"] == result.estimate
    data = result.to_dict()
    assert data["coincidence"]["∅"]["∅"] == result.coincidence.loc["∅", "∅"]
    assert {r["value"] for r in data["per_value"]} == {"1", "2"}
    assert '"metric": "unitizing_family"' in result.to_json()
    assert "uα 0.3983" in repr(result)
    assert result.expected.to_numpy().sum() == pytest.approx(result.coincidence.to_numpy().sum())


def test_bad_options():
    spans = table(EXAMPLE, with_document=False)
    with pytest.raises(ie.InvalidParameterError, match="overlaps"):
        ie.unitizing_family(spans, continuum=(0, 60), overlaps="drop")
    with pytest.raises(ie.InvalidParameterError, match="continuum"):
        ie.unitizing_family(spans, continuum="sixty")
    with pytest.raises(ValueError, match="outside"):
        ie.unitizing_family(spans, continuum=(0, 10))
