"""The metric registry is the one list of the report's scalar metrics: the report, its text, JSON and HTML forms,
the bootstrap and the Excel report all follow it."""

from __future__ import annotations

import html
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.inference._inference import COUNT_METRICS
from iaa_engine.metrics._registry import count_metric_values, metric_spec


def crowd(seed=0, items=80, annotators=6, labels=4):
    rng = np.random.default_rng(seed)
    rows = [
        (f"i{i}", f"a{a}", f"L{rng.integers(labels)}")
        for i in range(items)
        for a in range(annotators)
        if rng.random() < 0.5
    ]
    return ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-15)


@pytest.mark.parametrize("spec", ie.METRICS, ids=lambda s: s.name)
def test_each_entry_computes_its_public_function(spec):
    data = crowd()
    assert spec.compute(data, weights="edges", level="nominal") == spec.function(
        data, **({"weights": "edges"} if "weights" in spec.options else {})
    )
    if spec.from_sums is not None:  # the bootstrap's finaliser gives the point estimate on the data itself
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
            point = spec.compute(data, weights="annotations_m1")
        assert same(float(spec.from_sums(data.count_sums, "nominal", None, "annotations_m1")), point)


def test_the_report_follows_the_registry():
    data = crowd(1)
    rep = ie.report(data)
    assert list(rep.values) == [s.name for s in ie.METRICS]
    text = str(rep)
    for spec in ie.METRICS:
        assert spec.label in text
        assert same(rep.values[spec.name], spec.compute(data, weights=rep.spa_weights))
    assert set(rep.to_dict()) >= {s.name for s in ie.METRICS}
    page = ie.render_html_report(data, report=rep)
    for spec in ie.METRICS:
        assert html.escape(spec.label) in page, spec.label


def test_the_bootstrap_covers_every_count_based_entry():
    data = crowd(2)
    assert set(COUNT_METRICS) == {s.name for s in ie.METRICS if s.from_sums is not None} | {
        f"spa[{w}]" for w in ie.SPA_WEIGHTS
    }
    table = ie.bootstrap(data, n_boot=20, seed=0).table
    assert set(table.index) == {s.name for s in ie.METRICS} | {f"spa[{w}]" for w in ie.SPA_WEIGHTS}
    vals = count_metric_values(data.count_sums, "nominal", None, "annotations_m1")
    for w in ie.SPA_WEIGHTS:
        assert float(vals[f"spa[{w}]"]) == pytest.approx(ie.spa(data, weights=w), abs=1e-15)


def test_undefined_reasons_are_recorded_by_metric_name():
    same_label = ie.Annotations.from_long(
        pd.DataFrame(
            [("i1", "a", "x"), ("i1", "b", "x"), ("i2", "a", "x"), ("i2", "b", "x")],
            columns=["item", "annotator", "label"],
        )
    )
    rep = ie.report(same_label)
    assert rep.reasons["fleiss_kappa"].startswith("Fleiss' kappa is undefined")
    assert "expected agreement is 1" in rep.reasons["fleiss_kappa"]
    assert "joint_probability" not in rep.reasons
    counts = ie.report(ie.Annotations.from_counts([[2, 1], [0, 3]]))
    assert counts.reasons["multi_kappa"] == "count-table input has no annotator identities"


def test_unknown_names_are_refused_with_the_known_ones():
    with pytest.raises(KeyError, match="no metric 'fleiss' in the registry; known: .*'fleiss_kappa'"):
        metric_spec("fleiss")
