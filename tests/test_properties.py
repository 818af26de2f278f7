"""Property tests (hypothesis) that hold for every metric of :mod:`iaa_engine`.

* A registry classifies every public name of ``iaa_engine.__all__``: scalar
  metrics, pairwise scalar metrics, annotator × annotator matrix metrics,
  per-item, per-group (of items) and per-annotator metrics, the category ×
  category coincidence matrix, the aggregate :func:`report`, and the names
  that are not metrics. A new public metric fails
  :func:`test_every_public_name_is_classified` until it is registered, and
  then automatically enters every invariance and bounds test below.
* Invariance: item order, annotator names and order, the row order of a long
  table, and relabelling of the categories (a bijection for nominal metrics;
  for Krippendorff's alpha an increasing map or a reversal at the ordinal
  level, an affine map at the interval level, a scaling at the ratio level).
* Bounds: agreement probabilities in [0, 1]; kappas and alphas at most 1;
  the annotator bias non-negative.
* The identities of ``shared/notes/spec.md`` ("Identities that tie the metrics
  together") and seed 003 §13.4, each checked against a brute-force
  computation written out in the test.

The data are small random annotator × item matrices with missing cells.
Annotators 0 and 1 always disagree on the first item, so that every scalar
coefficient (and the pairwise ones for that pair) is defined; pytest turns
any :class:`UndefinedMetricWarning` into an error.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine import Annotations

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOL = 1e-12  # reordering sums only
TOL_MAP = 1e-9  # the label map itself rounds (a·x + b in floating point)


# =========================================================================== registry


@dataclass(frozen=True)
class Metric:
    """One registered metric.

    name : id used in the tests (a public name, plus ``[option]`` when one function is registered per option)
    public : the name in ``iaa_engine.__all__``
    fn : called with an :class:`Annotations` (pairwise scalars also get two annotator names)
    bound : 'probability' (in [0, 1]), 'coefficient' (at most 1), 'nonnegative', or None
    relabel : which category maps leave it unchanged: 'nominal' (any bijection), or
        'ordinal' / 'interval' / 'ratio' for Krippendorff's alpha at that level, or for alpha with a distance
        between labels (a bijection of whole labels changes the distances, so none of the above):
        'elements' (set distances: any bijection of the elements inside the sets) and
        'characters' (Levenshtein: any bijection of the characters inside the strings)
    """

    name: str
    public: str
    fn: Callable[..., Any]
    bound: str | None
    relabel: str = "nominal"


def _alpha(level):
    return lambda d: ie.krippendorff_alpha(d, level=level)


def _alpha_matrix(level):
    return lambda d: ie.krippendorff_alpha_matrix(d, level=level)


def _with_categories(d: Annotations, labels: list) -> Annotations:
    """The same annotations with category k renamed ``labels[k]``."""
    cats = pd.Index(np.array(labels + [None], dtype=object)[:-1])  # an object Index, never a MultiIndex
    return Annotations(d.item, d.annotator, d.label, items=d.items, annotators=d.annotators, categories=cats)


def _bit_sets(d: Annotations) -> Annotations:
    """Numeric labels read as set-valued labels: v -> the set of the bits of int(v) (distinct values, distinct sets,
    overlapping in many ways); data whose labels are not numbers is returned as is."""
    if not pd.api.types.is_numeric_dtype(d.categories.dtype):
        return d
    return _with_categories(d, [frozenset(k for k in range(8) if int(v) >> k & 1) for v in d.categories])


def _binary_strings(d: Annotations) -> Annotations:
    """Numeric labels read as free text: v -> int(v) in binary ("101"); other data is returned as is."""
    if not pd.api.types.is_numeric_dtype(d.categories.dtype):
        return d
    return _with_categories(d, [format(int(v), "b") for v in d.categories])


#: Alpha with a distance between labels, on the test data's numbers read as sets (jaccard, masi) or strings.
DISTANCE_RELABEL = {"jaccard": "elements", "masi": "elements", "levenshtein": "characters"}


def _alpha_distance(fn, name):
    view = _binary_strings if name == "levenshtein" else _bit_sets
    return lambda d: fn(view(d), distance=name)


SCALAR_METRICS: list[Metric] = [
    *(Metric(f"spa[{w}]", "spa", (lambda w: lambda d: ie.spa(d, weights=w))(w), "probability") for w in ie.SPA_WEIGHTS),
    *(
        Metric(f"spa_kappa[{w}]", "spa_kappa", (lambda w: lambda d: ie.spa_kappa(d, weights=w))(w), "coefficient")
        for w in ie.SPA_WEIGHTS
    ),
    Metric("joint_probability", "joint_probability", ie.joint_probability, "probability"),
    Metric("percent_agreement", "percent_agreement", ie.percent_agreement, "probability"),
    Metric("fleiss_kappa", "fleiss_kappa", ie.fleiss_kappa, "coefficient"),
    Metric("multi_kappa", "multi_kappa", ie.multi_kappa, "coefficient"),
    Metric("annotator_bias", "annotator_bias", ie.annotator_bias, "nonnegative"),
    Metric("gwet_ac1", "gwet_ac1", ie.gwet_ac1, "coefficient"),
    Metric("brennan_prediger", "brennan_prediger", ie.brennan_prediger, "coefficient"),
    Metric("percent_agreement_weighted", "percent_agreement_weighted", ie.percent_agreement_weighted, "probability"),
    # weighted (Gwet's families on the categories' values): invariant to the maps their family allows
    *(
        Metric(
            f"{fn.__name__}[{w}]", fn.__name__, (lambda fn, w: lambda d: fn(d, weights=w))(fn, w), bound, relabel=rel
        )
        for fn, w, bound, rel in [
            (ie.fleiss_kappa, "quadratic", "coefficient", "interval"),
            (ie.gwet_ac1, "linear", "coefficient", "interval"),
            (ie.brennan_prediger, "radical", "coefficient", "interval"),
            (ie.multi_kappa, "bipolar", "coefficient", "interval"),
            (ie.percent_agreement_weighted, "linear", "probability", "interval"),
        ]
    ),
    *(
        Metric(f"krippendorff_alpha[{lv}]", "krippendorff_alpha", _alpha(lv), "coefficient", relabel=lv)
        for lv in ie.LEVELS
    ),
    *(
        Metric(
            f"krippendorff_alpha[{dist}]",
            "krippendorff_alpha",
            _alpha_distance(ie.krippendorff_alpha, dist),
            "coefficient",
            relabel=DISTANCE_RELABEL[dist],
        )
        for dist in ie.ALPHA_DISTANCES
    ),
]

PAIR_SCALAR_METRICS: list[Metric] = [
    Metric("cohen_kappa", "cohen_kappa", ie.cohen_kappa, "coefficient"),
    Metric("scott_pi", "scott_pi", ie.scott_pi, "coefficient"),
    Metric("bangdiwala_b", "bangdiwala_b", ie.bangdiwala_b, "probability"),
    Metric(
        "cohen_kappa[quadratic]",
        "cohen_kappa",
        lambda d, a, b: ie.cohen_kappa(d, a, b, weights="quadratic"),
        "coefficient",
        relabel="interval",
    ),
    Metric(
        "scott_pi[linear]",
        "scott_pi",
        lambda d, a, b: ie.scott_pi(d, a, b, weights="linear"),
        "coefficient",
        relabel="interval",
    ),
]

MATRIX_METRICS: list[Metric] = [
    Metric("cohen_kappa_matrix", "cohen_kappa_matrix", ie.cohen_kappa_matrix, "coefficient"),
    Metric("scott_pi_matrix", "scott_pi_matrix", ie.scott_pi_matrix, "coefficient"),
    Metric(
        "cohen_kappa_matrix[linear]",
        "cohen_kappa_matrix",
        lambda d: ie.cohen_kappa_matrix(d, weights="linear"),
        "coefficient",
        relabel="interval",
    ),
    Metric("percent_agreement_matrix", "percent_agreement_matrix", ie.percent_agreement_matrix, "probability"),
    *(
        Metric(
            f"krippendorff_alpha_matrix[{lv}]",
            "krippendorff_alpha_matrix",
            _alpha_matrix(lv),
            "coefficient",
            relabel=lv,
        )
        for lv in ie.LEVELS
    ),
    *(
        Metric(
            f"krippendorff_alpha_matrix[{dist}]",
            "krippendorff_alpha_matrix",
            _alpha_distance(ie.krippendorff_alpha_matrix, dist),
            "coefficient",
            relabel=DISTANCE_RELABEL[dist],
        )
        for dist in ie.ALPHA_DISTANCES
    ),
]

#: Metrics with one value per item (a Series indexed by item name).
ITEM_METRICS: list[Metric] = [
    Metric("item_agreement", "item_agreement", ie.item_agreement, "probability"),
    *(
        Metric(
            f"spa_item_weights[{w}]",
            "spa_item_weights",
            (lambda w: lambda d: ie.spa_item_weights(d, weights=w))(w),
            "nonnegative",
        )
        for w in ie.SPA_WEIGHTS
    ),
]


def _group_mod3(item: Any) -> int:
    """The groups of the group metrics: item ``i<k>`` (the names of the test data) belongs to group k mod 3."""
    return int(str(item)[1:]) % 3


#: Metrics with one value per group of items (a Series indexed by group; the groups follow the item names).
GROUP_METRICS: list[Metric] = [
    *(
        Metric(
            f"group_agreement[{w}]",
            "group_agreement",
            (lambda w: lambda d: ie.group_agreement(d, _group_mod3, weights=w))(w),
            "probability",
        )
        for w in ie.SPA_WEIGHTS
    ),
]

#: Metrics with one value per annotator (a Series indexed by annotator name: renaming annotators relabels it),
#: one entry per column of a per-annotator table.
ANNOTATOR_METRICS: list[Metric] = [
    *(
        Metric(
            f"annotator_agreement[{col}]",
            "annotator_agreement",
            (lambda col: lambda d: ie.annotator_agreement(d)[col])(col),
            bound,
        )
        for col, bound in [
            ("agreement", "probability"),
            ("expected", "probability"),
            ("kappa", "coefficient"),
            ("n_pairs", "nonnegative"),
            ("n_items", "nonnegative"),
        ]
    ),
]

#: category × category statistics
CATEGORY_MATRIX_METRICS: list[Metric] = [
    Metric("coincidence_matrix", "coincidence_matrix", ie.coincidence_matrix, "nonnegative"),
]

#: computes the registered metrics in one call
AGGREGATES = {"report"}

#: public names that are not metrics of annotation data
NOT_METRICS = {
    "ALPHA_DISTANCES",
    "Annotations",
    "LEVELS",
    "METRICS",
    "MetricSpec",
    "Result",
    "AlphaVariance",
    "HierarchyTest",
    "PairwiseMatrix",
    "Report",
    "SPA_WEIGHTS",
    "UndefinedMetricWarning",
    "InvalidParameterError",
    "NALikeLabelWarning",
    "AbsentAnnotatorsWarning",  # a warning class: tests/test_unitizing_participants.py
    "as_annotations",
    "read",
    "__version__",
    "item_agreement_variance",  # a model formula of (n, p), not a function of annotations
    # gold-standard aggregation (labels, not agreement): properties in tests/test_gold.py
    "GOLD_RULES",
    "GoldStandard",
    # what to adjudicate and the benchmark reading: tests/test_disagreements.py, tests/test_benchmark_scale.py
    "Disagreements",
    "disagreements",
    "BenchmarkReading",
    "benchmark_reading",
    "BENCHMARK_SCALES",
    "bcr_weights",
    "gold_standard",
    # regions matched into units (a converter, with its matching quality): properties in tests/test_regions.py
    "match_regions",
    "RegionMatch",
    "REGION_KINDS",
    # unitizing alpha reads a span table, not Annotations: its invariances in tests/test_unitizing.py
    "unitizing_alpha",
    "UnitizingAlpha",
    # the 2016 family and gamma read span tables too: tests/test_unitizing_family.py, tests/test_gamma.py
    "unitizing_family",
    "UnitizingFamily",
    "gamma_agreement",
    "GammaAgreement",
    # pairwise span F1 reads a span table: bratiaa's values and set-based properties in tests/test_span_f1.py
    "span_f1",
    "SpanF1",
    # questions about a study (two data sets, groups, windows, repeats, planning): tests/test_compare.py,
    # tests/test_agreement_by.py, tests/test_retest.py, tests/test_plan.py
    "compare",
    "Comparison",
    "agreement_by",
    "AgreementBy",
    "retest",
    "Retest",
    "plan",
    "plan_simulation",
    "StudyPlan",
    "GoldAccuracy",
    "gold_accuracy",
    # a scorecard per annotator (tables of per-annotator results): tests/test_scorecard.py
    "AnnotatorReport",
    "annotator_report",
    # models beside humans (a second set compared with the first): tests/test_models.py
    "ModelAgreement",
    "model_agreement",
    # inference on the metrics: tests/test_inference.py, tests/test_weighted.py
    "Estimate",
    "estimate",
    "ANALYTIC_METRICS",
    # one value per category (its index is relabelled with the categories): tests/test_weighted.py
    "fleiss_kappa_by_category",
    # numeric ratings only (no category relabelling): tests/test_icc.py
    "icc",
    "ICC_FORMS",
    "ICC_NAMES",
    "AGREEMENT_WEIGHTS",
    "BootstrapResult",
    "bootstrap",
    "alpha_variance",
    "spa_standard_error",
    # facet analyses built on the metrics: tests/test_facets.py
    "HierarchyResult",
    "StrataResult",
    "frequency_strata",
    "hierarchical_agreement",
    "hierarchy_test",
    "label_agreement",
    "split_hierarchy",
    # judgments read from long tables of preferences, rankings and relations (not Annotations): their invariants
    # (the swap of a pair, brute-force alpha with rank distances) in tests/test_preferences.py, test_rankings.py,
    # test_relations.py
    "preference_agreement",
    "PreferenceAgreement",
    "preference_model_agreement",
    "bradley_terry",
    "BradleyTerry",
    "ranking_agreement",
    "RankingAgreement",
    "kendall_w",
    "KendallW",
    "relation_agreement",
    "RelationAgreement",
    # models judged beside humans (issue 34): tests/test_alt_test.py (the authors' code and properties),
    # test_judge_accuracy.py, test_human_likeness.py, test_judge_consistency.py, test_length_controlled.py
    "alt_test",
    "AltTest",
    "judge_accuracy",
    "JudgeAccuracy",
    "human_likeness",
    "HumanLikeness",
    "judge_consistency",
    "JudgeConsistency",
    "length_controlled_winrate",
    "LengthControlledWinrate",
    # a Monte-Carlo study of the estimators: tests/test_simulation.py
    "missingness_simulation",
    # presentation of the report: tests/test_html_report.py
    "render_html_report",
    "write_html_report",
    # converters for cluster-sized data: tests/test_distributed.py
    "read_dask",
    "summarize_dask",
    # the scorecard on a Dask cluster: equal to the in-memory one in tests/test_dask_annotators.py
    "annotator_report_dask",
    # α_U and span F1 per document on a cluster, equal to the in-memory path: tests/test_dask_spans.py
    "unitizing_alpha_dask",
    "span_f1_dask",
    "unitizing_family_dask",
    # the HTML page of the Dask engine: equal to the in-memory page in tests/test_dask_html.py
    "write_html_report_dask",
    # every command on the cluster equals the in-memory one: tests/test_distributed_commands.py
    "agreement_by_dask",
    "frequency_strata_dask",
    "gold_dask",
    "disagreements_dask",
    # report --hierarchy on a cluster, equal to the in-memory one: tests/test_dask_hierarchy.py
    "hierarchical_agreement_dask",
    # the out-of-core engine: equal to the in-memory path (with a hypothesis property) in tests/test_duckdb.py
    "read_duckdb",
}

ALL_METRICS = (
    SCALAR_METRICS
    + PAIR_SCALAR_METRICS
    + MATRIX_METRICS
    + ITEM_METRICS
    + GROUP_METRICS
    + ANNOTATOR_METRICS
    + CATEGORY_MATRIX_METRICS
)


def _ids(metrics):
    return [m.name for m in metrics]


def test_every_public_name_is_classified():
    """Every name in iaa_engine.__all__ is in exactly one registry, and registered metrics are the public functions."""
    metric_names = {m.public for m in ALL_METRICS}
    groups = [metric_names, AGGREGATES, NOT_METRICS]
    for g1, g2 in itertools.combinations(groups, 2):
        assert not (g1 & g2), g1 & g2
    classified = set().union(*groups)
    public = set(ie.__all__)
    assert public - classified == set(), f"unclassified public names: {sorted(public - classified)}"
    assert classified - public == set(), f"registered names that are not public: {sorted(classified - public)}"
    for m in ALL_METRICS:
        assert callable(getattr(ie, m.public))
    # one scalar entry per SPA scheme and per level of alpha
    assert {m.name for m in SCALAR_METRICS} >= {f"spa[{w}]" for w in ie.SPA_WEIGHTS}
    assert {m.name for m in MATRIX_METRICS} >= {f"krippendorff_alpha_matrix[{lv}]" for lv in ie.LEVELS}
    # and one per named distance of alpha, overall and per pair
    assert set(DISTANCE_RELABEL) == set(ie.ALPHA_DISTANCES)
    assert {m.name for m in SCALAR_METRICS} >= {f"krippendorff_alpha[{d}]" for d in ie.ALPHA_DISTANCES}
    assert {m.name for m in MATRIX_METRICS} >= {f"krippendorff_alpha_matrix[{d}]" for d in ie.ALPHA_DISTANCES}


# =========================================================================== data


@dataclass
class Raw:
    """Annotators × items codes (-1 = missing), numeric values per code, and names."""

    codes: np.ndarray
    values: np.ndarray  # distinct, non-negative (valid at every level)
    annotators: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)

    def __post_init__(self):
        a, i = self.codes.shape
        self.annotators = self.annotators or [f"a{k}" for k in range(a)]
        self.items = self.items or [f"i{k}" for k in range(i)]

    @property
    def n_categories(self) -> int:
        return len(self.values)

    def frame(self, labels: Any = None) -> pd.DataFrame:
        """Wide DataFrame (annotators as rows) of ``labels[code]`` (default: the numeric values); None = missing."""
        labels = self.values if labels is None else labels
        cells = np.empty(self.codes.shape, dtype=object)
        for idx, c in np.ndenumerate(self.codes):
            cells[idx] = None if c < 0 else labels[c]
        return pd.DataFrame(cells, index=self.annotators, columns=self.items)

    def data(self, labels: Any = None, **kw) -> Annotations:
        return Annotations.from_wide(self.frame(labels), annotators_as="rows", **kw)


@st.composite
def raw_data(
    draw, *, min_annotators=2, max_annotators=6, max_items=10, max_categories=4, complete=False, anchor=True
) -> Raw:
    n_ann = draw(st.integers(min_annotators, max_annotators))
    n_items = draw(st.integers(2, max_items))
    n_cat = draw(st.integers(2, max_categories))
    codes = np.array(draw(st.lists(st.integers(0, n_cat - 1), min_size=n_ann * n_items, max_size=n_ann * n_items)))
    codes = codes.reshape(n_ann, n_items)
    if not complete:
        missing = np.array(draw(st.lists(st.booleans(), min_size=n_ann * n_items, max_size=n_ann * n_items)))
        codes[missing.reshape(n_ann, n_items)] = -1
    if anchor:  # annotators 0 and 1 disagree on item 0: every coefficient is defined
        codes[0, 0], codes[1, 0] = 0, 1
    values = np.array(
        sorted(draw(st.lists(st.integers(0, 60), min_size=n_cat, max_size=n_cat, unique=True))), dtype=float
    )
    if draw(st.booleans()):  # values need not be listed in increasing code order
        values = values[::-1].copy()
    return Raw(codes, values)


@st.composite
def two_per_item(draw) -> Raw:
    """Every item carries exactly two annotations, from a random pair of annotators."""
    n_ann = draw(st.integers(2, 6))
    n_items = draw(st.integers(2, 10))
    n_cat = draw(st.integers(2, 4))
    codes = np.full((n_ann, n_items), -1)
    for j in range(n_items):
        pair = draw(st.lists(st.integers(0, n_ann - 1), min_size=2, max_size=2, unique=True))
        for a in pair:
            codes[a, j] = draw(st.integers(0, n_cat - 1))
    codes[:, 0] = -1
    codes[0, 0], codes[1, 0] = 0, 1
    return Raw(codes, np.arange(n_cat, dtype=float))


# =========================================================================== helpers


def same(x: float, y: float, tol: float = TOL) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= tol


def assert_same_array(x: np.ndarray, y: np.ndarray, tol: float = TOL, what: str = "") -> None:
    x, y = np.asarray(x, float), np.asarray(y, float)
    assert x.shape == y.shape, what
    assert (np.isnan(x) == np.isnan(y)).all(), f"{what}: nan pattern differs\n{x}\n{y}"
    ok = ~np.isnan(x)
    assert np.all(np.abs(x[ok] - y[ok]) <= tol), f"{what}:\n{x}\n{y}"


def pair_names(data: Annotations) -> tuple[Any, Any]:
    return data.annotators[0], data.annotators[1]


def evaluate(metric: Metric, data: Annotations, pair=None):
    """The metric's value in a comparable form: float, {(a, b): value} with n_shared, or an item-indexed Series."""
    if metric in PAIR_SCALAR_METRICS:
        return metric.fn(data, *pair)
    return metric.fn(data)


def matrix_by_name(pm: ie.PairwiseMatrix, names: list) -> tuple[np.ndarray, np.ndarray]:
    """Values and n_shared with rows/columns in the order of ``names``."""
    pos = [pm.annotators.index(n) for n in names]
    ix = np.ix_(pos, pos)
    return pm.values[ix], pm.n_shared[ix]


def assert_same_metric(
    metric: Metric,
    before,
    after,
    *,
    rename: dict | None = None,
    tol: float = TOL,
    category_perm: np.ndarray | None = None,
) -> None:
    """``after`` equals ``before`` up to annotator renaming (matrices permute, per-annotator results are relabelled)
    and category permutation."""
    if isinstance(before, ie.PairwiseMatrix):
        rename = rename or {n: n for n in before.annotators}
        assert sorted(map(str, after.annotators)) == sorted(map(str, rename.values()))
        v0, s0 = before.values, before.n_shared
        v1, s1 = matrix_by_name(after, [rename[n] for n in before.annotators])
        assert_same_array(v1, v0, tol, metric.name)
        assert (s1 == s0).all(), metric.name
    elif isinstance(before, pd.Series):
        if metric in ANNOTATOR_METRICS and rename is not None:
            before = before.rename(index=rename)
        assert set(after.index) == set(before.index), metric.name
        assert_same_array(after.loc[before.index].to_numpy(float), before.to_numpy(float), tol, metric.name)
    elif isinstance(before, np.ndarray):  # category × category
        if category_perm is not None:  # after's category k is before's category category_perm[k]
            before = before[np.ix_(category_perm, category_perm)]
        assert_same_array(after, before, tol, metric.name)
    else:
        assert same(float(after), float(before), tol), f"{metric.name}: {before!r} -> {after!r}"


# =========================================================================== invariance


@SETTINGS
@given(raw=raw_data(), seed=st.integers(0, 2**32 - 1))
def test_item_order_does_not_matter(raw, seed):
    """Shuffling the item columns leaves every metric unchanged (per-item results follow their item)."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(raw.codes.shape[1])
    shuffled = Raw(raw.codes[:, perm], raw.values, raw.annotators, [raw.items[j] for j in perm])
    d0, d1 = raw.data(), shuffled.data()
    for m in ALL_METRICS:
        pair = pair_names(d0)
        assert_same_metric(m, evaluate(m, d0, pair), evaluate(m, d1, pair))


@SETTINGS
@given(raw=raw_data(), seed=st.integers(0, 2**32 - 1))
def test_annotator_names_and_order_do_not_matter(raw, seed):
    """Renaming annotators by a bijection and shuffling them: scalars unchanged, matrices and per-annotator results
    permute and are relabelled accordingly."""
    rng = np.random.default_rng(seed)
    n_ann = raw.codes.shape[0]
    perm = rng.permutation(n_ann)
    new_names = [f"coder-{k}" for k in rng.permutation(n_ann)]  # sorted order differs from the old one
    rename = dict(zip(raw.annotators, new_names))
    shuffled = Raw(raw.codes[perm], raw.values, [new_names[p] for p in perm], raw.items)
    d0, d1 = raw.data(), shuffled.data()
    for m in ALL_METRICS:
        p0 = pair_names(d0)
        p1 = (rename[p0[0]], rename[p0[1]])
        assert_same_metric(m, evaluate(m, d0, p0), evaluate(m, d1, p1), rename=rename)
    # the two pairwise scalars are symmetric in the pair
    for m in PAIR_SCALAR_METRICS:
        assert same(m.fn(d0, *pair_names(d0)), m.fn(d0, *pair_names(d0)[::-1]))


@SETTINGS
@given(raw=raw_data(), seed=st.integers(0, 2**32 - 1))
def test_long_table_row_order_does_not_matter(raw, seed):
    """The same annotations as a long table in any row order give the same results as the wide matrix."""
    d0 = raw.data()
    long = d0.to_long()
    rng = np.random.default_rng(seed)
    d1 = Annotations.from_long(long.iloc[rng.permutation(len(long))].reset_index(drop=True))
    for m in ALL_METRICS:
        pair = pair_names(d0)
        before = evaluate(m, d0, pair)
        after = evaluate(m, d1, pair)
        if isinstance(before, ie.PairwiseMatrix):
            # annotators who labelled nothing exist only in the wide matrix
            keep = [n for n in before.annotators if n in set(after.annotators)]
            pos = [before.annotators.index(n) for n in keep]
            before = ie.PairwiseMatrix(
                before.metric, keep, before.values[np.ix_(pos, pos)], before.n_shared[np.ix_(pos, pos)]
            )
        if m in ANNOTATOR_METRICS:  # the rows of annotators who labelled nothing, likewise
            before = before[before.index.isin(after.index)]
        assert_same_metric(m, before, after)


LETTERS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=4)


@SETTINGS
@given(raw=raw_data(), names=st.lists(LETTERS, min_size=4, max_size=4, unique=True), seed=st.integers(0, 2**32 - 1))
def test_nominal_metrics_ignore_category_names(raw, names, seed):
    """Relabelling categories by a bijection (numbers -> shuffled strings) leaves every nominal metric unchanged."""
    rng = np.random.default_rng(seed)
    labels = np.array([names[k] for k in rng.permutation(4)[: raw.n_categories]], dtype=object)
    d0, d1 = raw.data(), raw.data(labels)
    # category k of d1 (sorted strings) is d0's category perm[k] (sorted numbers); only used codes are categories
    used = np.unique(raw.codes[raw.codes >= 0])
    pos0 = d0.categories.get_indexer(list(raw.values[used]))
    pos1 = d1.categories.get_indexer(list(labels[used]))
    assert (pos0 >= 0).all() and (pos1 >= 0).all()
    perm = np.empty(len(used), dtype=int)
    perm[pos1] = pos0
    for m in ALL_METRICS:
        if m.relabel != "nominal":
            continue
        pair = pair_names(d0)
        assert_same_metric(m, evaluate(m, d0, pair), evaluate(m, d1, pair), category_perm=perm)


def _level_metrics(level: str) -> list[Metric]:
    return [m for m in SCALAR_METRICS + MATRIX_METRICS if m.relabel == level]


@SETTINGS
@given(
    raw=raw_data(),
    new=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=4, max_size=4, unique=True),
    reverse=st.booleans(),
)
def test_ordinal_alpha_depends_only_on_the_order(raw, new, reverse):
    """Ordinal alpha is unchanged by any strictly increasing map of the values, and by reversing the order."""
    new = sorted(new)
    assume(all(b - a > 1e-6 for a, b in itertools.pairwise(new)))
    rank = np.argsort(np.argsort(raw.values))  # rank of each code's value
    mapped = np.array([new[r] for r in rank])
    d0 = raw.data(level="ordinal")
    d1 = raw.data(mapped, level="ordinal")
    # the same order spelled as strings with explicit categories (reversed or not)
    names = np.array([f"c{k}" for k in range(raw.n_categories)], dtype=object)
    order = [names[c] for c in np.argsort(raw.values)]
    d2 = raw.data(names, level="ordinal", categories=order[::-1] if reverse else order)
    for m in _level_metrics("ordinal"):
        before = m.fn(d0)
        assert_same_metric(m, before, m.fn(d1))
        assert_same_metric(m, before, m.fn(d2))


@SETTINGS
@given(raw=raw_data(), a=st.floats(0.01, 100), b=st.floats(-1e3, 1e3))
def test_interval_alpha_is_affine_invariant(raw, a, b):
    """Interval alpha is unchanged by x -> a·x + b with a > 0."""
    d0 = raw.data(level="interval")
    d1 = raw.data(a * raw.values + b, level="interval")
    for m in _level_metrics("interval"):
        assert_same_metric(m, m.fn(d0), m.fn(d1), tol=TOL_MAP)


@SETTINGS
@given(raw=raw_data(), a=st.floats(0.01, 100))
def test_ratio_alpha_is_scale_invariant(raw, a):
    """Ratio alpha is unchanged by x -> a·x with a > 0."""
    d0 = raw.data(level="ratio")
    d1 = raw.data(a * raw.values, level="ratio")
    for m in _level_metrics("ratio"):
        assert_same_metric(m, m.fn(d0), m.fn(d1), tol=TOL_MAP)


def _relabel_metrics(relabel: str) -> list[Metric]:
    return [m for m in SCALAR_METRICS + MATRIX_METRICS if m.relabel == relabel]


@SETTINGS
@given(raw=raw_data(), names=st.lists(LETTERS, min_size=8, max_size=8, unique=True))
def test_set_distance_alpha_ignores_element_names(raw, names):
    """Alpha with a set distance (Jaccard, MASI) is unchanged by renaming the elements inside the sets (a bijection):
    the distances depend only on the sizes of intersections and unions."""
    d0 = _bit_sets(raw.data())
    d1 = _with_categories(d0, [frozenset(names[k] for k in s) for s in d0.categories])
    # the same sets spelled as tuples of strings (order and repetition inside a label do not matter)
    d2 = _with_categories(d0, [tuple(sorted(names[k] for k in s)) * 2 for s in d0.categories])
    metrics = _relabel_metrics("elements")
    assert metrics
    for m in metrics:
        before = m.fn(d0)
        assert_same_metric(m, before, m.fn(d1))
        assert_same_metric(m, before, m.fn(d2))


@SETTINGS
@given(
    raw=raw_data(),
    chars=st.lists(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=2, max_size=2, unique=True),
)
def test_levenshtein_alpha_ignores_character_names(raw, chars):
    """Alpha with the Levenshtein distance is unchanged by renaming the characters of the strings (a bijection)."""
    d0 = _binary_strings(raw.data())
    table = str.maketrans("01", "".join(chars))
    d1 = _with_categories(d0, [s.translate(table) for s in d0.categories])
    metrics = _relabel_metrics("characters")
    assert metrics
    for m in metrics:
        assert_same_metric(m, m.fn(d0), m.fn(d1))


@SETTINGS
@given(raw=raw_data(), seed=st.integers(0, 2**32 - 1))
def test_report_is_invariant_too(raw, seed):
    """The aggregate report: its values and SPA table do not depend on item or annotator order."""
    rng = np.random.default_rng(seed)
    perm_i = rng.permutation(raw.codes.shape[1])
    perm_a = rng.permutation(raw.codes.shape[0])
    shuffled = Raw(
        raw.codes[perm_a][:, perm_i], raw.values, [raw.annotators[k] for k in perm_a], [raw.items[j] for j in perm_i]
    )
    r0, r1 = ie.report(raw.data()), ie.report(shuffled.data())
    for key in r0.values:
        assert same(r0.values[key], r1.values[key]), key
    for key in r0.spa:
        assert same(r0.spa[key], r1.spa[key]), key


# =========================================================================== bounds


def _check_bound(metric: Metric, value) -> None:
    if isinstance(value, ie.PairwiseMatrix):
        v = value.values[~np.isnan(value.values)]
    elif isinstance(value, pd.Series):
        v = value.dropna().to_numpy(float)
    else:
        v = np.atleast_1d(np.asarray(value, float))
        assert not np.isnan(v).any(), f"{metric.name} is undefined on anchored data"
    if metric.bound == "probability":
        assert np.all((v >= 0.0) & (v <= 1.0)), f"{metric.name}: {v}"
    elif metric.bound == "coefficient":
        assert np.all(v <= 1.0), f"{metric.name}: {v}"
    elif metric.bound == "nonnegative":
        assert np.all(v >= 0.0), f"{metric.name}: {v}"


#: Three annotators who all say category 1 on one item in three (P(1|c) = 1/3 for every c): no bias, B = 0.
#: An earlier annotator_bias (A_e^pi - A_e^kappa) returned -1.11e-16 here.
_UNBIASED_TRIO = Raw(np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0]]), np.array([0.0, 1.0]))


@SETTINGS
@given(raw=raw_data())
def test_bounds(raw):
    """Probabilities in [0, 1], kappas and alphas <= 1, weights >= 0, bias >= 0 (all registered metrics)."""
    data = raw.data()
    for m in ALL_METRICS:
        if m.public == "coincidence_matrix":
            continue  # exact counts: checked with a rounding tolerance below
        value = evaluate(m, data, pair_names(data))
        if m.public == "annotator_bias":
            assert value >= 0.0, value  # exactly: B is a sum of variances
            continue
        _check_bound(m, value)


@SETTINGS
@given(raw=raw_data())
@example(raw=_UNBIASED_TRIO)
def test_annotator_bias_is_nonnegative(raw):
    """B = (1/(c-1)) Σ_k Var_c P(k|c) is a sum of variances: never negative (seed 003 §13.4)."""
    assert ie.annotator_bias(raw.data()) >= 0.0


@SETTINGS
@given(raw=raw_data())
def test_coincidence_matrix_is_a_symmetric_count_of_pairable_values(raw):
    """o_ck >= 0 (up to rounding), symmetric, and sums to the number of annotations on items with n_i >= 2."""
    data = raw.data()
    o = ie.coincidence_matrix(data)
    assert np.all(o >= -1e-12), o
    assert_same_array(o, o.T, 1e-12, "coincidences")
    per_item = (raw.codes >= 0).sum(axis=0)
    assert abs(o.sum() - per_item[per_item >= 2].sum()) <= 1e-9


@SETTINGS
@given(raw=raw_data())
def test_spa_item_weights_vanish_on_unpairable_items(raw):
    """Every SPA scheme gives weight 0 exactly to the items with fewer than two annotations."""
    data = raw.data()
    n_i = pd.Series(data.counts.n_i, index=data.items)
    for w in ie.SPA_WEIGHTS:
        k = ie.spa_item_weights(data, weights=w)
        assert (k[n_i < 2] == 0).all(), w
        assert (k[n_i >= 2] > 0).all(), w


# =========================================================================== identities


def brute_item_pairs(raw: Raw) -> list[tuple[int, int]]:
    """Per item (with >= 2 annotations): (agreeing unordered pairs, all unordered pairs)."""
    out = []
    for j in range(raw.codes.shape[1]):
        labels = [c for c in raw.codes[:, j] if c >= 0]
        if len(labels) < 2:
            continue
        pairs = list(itertools.combinations(labels, 2))
        out.append((sum(x == y for x, y in pairs), len(pairs)))
    return out


@SETTINGS
@given(raw=raw_data(complete=True))
def test_spa_flat_on_dense_data_is_fleiss_p_bar(raw):
    """Dense data: SPA(flat) = Fleiss' P-bar (mean share of agreeing pairs per item, brute force)
    = joint_probability."""
    data = raw.data()
    p_bar = np.mean([agree / total for agree, total in brute_item_pairs(raw)])
    assert same(ie.spa(data, weights="flat"), p_bar)
    assert same(ie.joint_probability(data), p_bar)
    assert same(ie.item_agreement(data).mean(), p_bar)


@SETTINGS
@given(raw=raw_data())
def test_spa_annotations_is_one_minus_nominal_observed_disagreement(raw):
    """SPA(weights n_i) = 1 - D_o, D_o = off-diagonal coincidences / all coincidences (seed 000 eq. 6)."""
    data = raw.data()
    o = ie.coincidence_matrix(data)
    d_o = (o.sum() - np.trace(o)) / o.sum()
    assert same(ie.spa(data, weights="annotations"), 1.0 - d_o)


@SETTINGS
@given(raw=raw_data())
def test_spa_edges_is_pooled_pairwise_agreement(raw):
    """SPA(weights n_i(n_i-1)/2) = agreeing pairs / all pairs of annotations of the same item, pooled (brute force)."""
    pairs = brute_item_pairs(raw)
    pooled = sum(a for a, _ in pairs) / sum(t for _, t in pairs)
    assert same(ie.spa(raw.data(), weights="edges"), pooled)


@SETTINGS
@given(raw=raw_data())
def test_spa_inv_var_equals_edges(raw):
    """With >= 2 categories the uniform-p inverse-variance weights are proportional to the edges: same SPA."""
    data = raw.data()
    assert data.n_categories >= 2
    assert same(ie.spa(data, weights="inv_var"), ie.spa(data, weights="edges"))
    w_iv = ie.spa_item_weights(data, weights="inv_var").to_numpy()
    w_e = ie.spa_item_weights(data, weights="edges").to_numpy()
    ok = w_e > 0
    ratio = w_iv[ok] / w_e[ok]
    assert np.all(np.abs(ratio / ratio[0] - 1.0) <= 1e-12)


def brute_bias(raw: Raw) -> float:
    """B = (1/(c-1)) Σ_k Var_c P(k|c), population variance over annotators who labelled something (seed 003)."""
    dists = []
    for row in raw.codes:
        labels = row[row >= 0]
        if labels.size:
            dists.append([np.mean(labels == k) for k in range(raw.n_categories)])
    p = np.array(dists)
    return float(np.sum(np.var(p, axis=0, ddof=0)) / (len(p) - 1))


@SETTINGS
@given(raw=raw_data(complete=True))
def test_bias_is_the_gap_between_fleiss_and_multi_kappa_expectations(raw):
    """Complete data: B = A_e^pi - A_e^kappa, each A_e recovered from kappa = (A_o - A_e)/(1 - A_e), A_o = P-bar."""
    data = raw.data()
    a_o = ie.joint_probability(data)
    assume(a_o < 1.0 - 1e-9)
    k_pi, k_kappa = ie.fleiss_kappa(data), ie.multi_kappa(data)
    ae_pi = (a_o - k_pi) / (1.0 - k_pi)
    ae_kappa = (a_o - k_kappa) / (1.0 - k_kappa)
    bias = ie.annotator_bias(data)
    assert abs(bias - (ae_pi - ae_kappa)) <= 1e-9
    assert abs(bias - brute_bias(raw)) <= 1e-12
    # A_e^pi of Fleiss on complete data: squared mean of the annotators' distributions (brute force)
    dist = np.array([[np.mean(row == k) for k in range(raw.n_categories)] for row in raw.codes])
    assert abs(ae_pi - np.sum(dist.mean(axis=0) ** 2)) <= 1e-9
    # A_e^kappa: mean over annotator pairs of sum_k P(k|c_m) P(k|c_n) (seed 003 §13.4)
    pairs = list(itertools.combinations(range(len(dist)), 2))
    ae_k = np.mean([dist[m] @ dist[n] for m, n in pairs])
    assert abs(ae_kappa - ae_k) <= 1e-9


@SETTINGS
@given(raw=raw_data())
def test_bias_is_the_variance_formula_on_sparse_data(raw):
    """B = (1/(c-1)) Σ_k Var_c(P(k|c)) with each annotator's distribution over the items they labelled."""
    assert abs(ie.annotator_bias(raw.data()) - brute_bias(raw)) <= 1e-12


def test_bias_seed_003_six_coder_example():
    """Seed 003 §13.4: A_e^pi = 0.545 and A_e^kappa = 0.544 for six coders (three like Alice, three like Bill)."""
    # Alice says yes on 60 of 100 items, Bill on 70 (seed 003 §13.2), so P(yes|Alice) = 0.6, P(yes|Bill) = 0.7
    alice = np.array([1] * 60 + [0] * 40)
    bill = np.array([1] * 70 + [0] * 30)
    raw = Raw(np.vstack([alice, bill, alice, bill, alice, bill]), np.array([0.0, 1.0]))
    assert abs(ie.annotator_bias(raw.data()) - (0.545 - 0.544)) <= 1e-12


@SETTINGS
@given(raw=raw_data(max_annotators=2, min_annotators=2, complete=True))
def test_two_coder_reductions(raw):
    """Two annotators, complete data: Fleiss' kappa = Scott's pi and multi-coder kappa = Cohen's kappa."""
    data = raw.data()
    a, b = pair_names(data)
    assert same(ie.fleiss_kappa(data), ie.scott_pi(data, a, b))
    assert same(ie.multi_kappa(data), ie.cohen_kappa(data, a, b))
    assert same(ie.percent_agreement(data), ie.joint_probability(data))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # ~12 pairs per example
@given(raw=raw_data())
def test_pairwise_values_are_the_two_annotator_metrics_on_shared_items(raw):
    """For each pair: matrix entry = scalar = the two-annotator metric on the shared items only (Scott = Fleiss)."""
    data = raw.data()
    names = list(data.annotators)
    cohen, scott = ie.cohen_kappa_matrix(data), ie.scott_pi_matrix(data)
    pct = ie.percent_agreement_matrix(data)
    alphas = {lv: ie.krippendorff_alpha_matrix(data, level=lv) for lv in ie.LEVELS}
    for x, y in itertools.permutations(range(len(names)), 2):
        shared = (raw.codes[x] >= 0) & (raw.codes[y] >= 0)
        for pm in (cohen, scott, pct, *alphas.values()):
            assert pm.n_shared[x, y] == shared.sum()
        if not shared.any():
            for pm in (cohen, scott, pct, *alphas.values()):
                assert np.isnan(pm.values[x, y])
            continue
        sub = Raw(raw.codes[[x, y]][:, shared], raw.values, [names[x], names[y]])
        sd = sub.data()
        assert same(pct.values[x, y], np.mean(sub.codes[0] == sub.codes[1]))
        if len(np.unique(sub.codes)) < 2:
            continue  # expected agreement 1: every chance-corrected entry is undefined
        assert same(scott.values[x, y], ie.fleiss_kappa(sd))
        assert same(scott.values[x, y], ie.scott_pi(data, names[x], names[y]))
        for lv, pm in alphas.items():
            assert same(pm.values[x, y], ie.krippendorff_alpha(sd, level=lv)), lv
        # Cohen: defined unless both annotators used a single, common category (then all labels are equal)
        assert same(cohen.values[x, y], ie.cohen_kappa(data, names[x], names[y]))
        assert same(cohen.values[x, y], ie.multi_kappa(sd))


@SETTINGS
@given(raw=two_per_item())
def test_percent_agreement_is_joint_probability_with_two_annotations_per_item(raw):
    """Every item has exactly two annotations: unanimous share = P-bar."""
    data = raw.data()
    assert (data.counts.n_i == 2).all()
    assert same(ie.percent_agreement(data), ie.joint_probability(data))
