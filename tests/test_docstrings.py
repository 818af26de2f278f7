"""Every public object has a complete numpydoc docstring: what it computes (the formula for a coefficient), its
Parameters, Returns, Raises, References to published sources, and an Example that runs as a doctest in this suite
(pytest runs ``--doctest-modules`` over ``iaa_engine``)."""

from __future__ import annotations

import inspect
import re

import pytest

import iaa_engine as ie

numpydoc = pytest.importorskip("numpydoc.docscrape")

#: Public names that are data, not code: documented by their ``#:`` comment in the module and in the API reference.
CONSTANTS = {
    "AGREEMENT_WEIGHTS",
    "ANALYTIC_METRICS",
    "ICC_FORMS",
    "ICC_NAMES",
    "ALPHA_DISTANCES",
    "GOLD_RULES",
    "LEVELS",
    "METRICS",
    "SPA_WEIGHTS",
    "REGION_KINDS",
    "BENCHMARK_SCALES",
    "__version__",
}
#: Exceptions and warnings: a summary that says when they are raised is their documentation.
SIGNALS = {"UndefinedMetricWarning", "InvalidParameterError", "NALikeLabelWarning", "AbsentAnnotatorsWarning"}
#: Coefficients and estimators: their docstrings show the formula (a ``.. math::`` block).
FORMULAS = {
    "spa", "spa_kappa", "spa_item_weights", "item_agreement", "item_agreement_variance", "joint_probability",
    "percent_agreement", "fleiss_kappa", "cohen_kappa", "scott_pi", "multi_kappa", "gwet_ac1", "brennan_prediger",
    "annotator_bias", "krippendorff_alpha", "coincidence_matrix", "alpha_variance", "spa_standard_error",
    "bootstrap", "bcr_weights", "label_agreement", "hierarchy_test", "frequency_strata", "estimate",
    "percent_agreement_weighted", "icc", "bangdiwala_b", "fleiss_kappa_by_category", "match_regions",
    "annotator_report", "gold_accuracy", "model_agreement",
    "disagreements", "benchmark_reading",
}  # fmt: skip

NAMES = sorted(n for n in ie.__all__ if n not in CONSTANTS)


def _doc(name: str):
    obj = getattr(ie, name)
    cls = numpydoc.ClassDoc if inspect.isclass(obj) else numpydoc.FunctionDoc
    return obj, cls(obj, config={"show_class_members": False}) if inspect.isclass(obj) else cls(obj)


def _takes_arguments(obj) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = list(inspect.signature(target).parameters)
    except (TypeError, ValueError):
        return False
    return bool([p for p in params if p not in ("self", "args", "kwargs")])


@pytest.mark.parametrize("name", NAMES)
def test_docstring_is_complete(name):
    obj, doc = _doc(name)
    raw = inspect.getdoc(obj) or ""
    assert doc["Summary"], f"{name}: no summary line"
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", raw), f"{name}: control characters in the docstring"
    assert not re.search(r"\bseed 00\d", raw, re.I), f"{name}: cites a 'seed' document a user cannot see"
    if name in SIGNALS:
        return
    examples = "\n".join(doc["Examples"])
    assert ">>>" in examples, f"{name}: no Example"
    assert doc["References"], f"{name}: no References"
    if inspect.isfunction(obj):
        assert doc["Parameters"], f"{name}: no Parameters section"
        assert doc["Returns"], f"{name}: no Returns section"
        assert doc["Raises"], f"{name}: no Raises section"
        documented = {p.name.split(":")[0].strip() for p in doc["Parameters"]}
        documented = {n.strip() for d in documented for n in d.split(",")}
        params = [p for p in inspect.signature(obj).parameters if p not in ("kwargs", "options")]
        missing = [p for p in params if p not in documented]
        assert not missing, f"{name}: parameters {missing} are not documented"
    elif _takes_arguments(obj):
        assert doc["Attributes"] or doc["Parameters"], f"{name}: no Attributes or Parameters section"
    if name in FORMULAS:
        assert ".. math::" in raw or ":math:" in raw, f"{name}: no formula"
