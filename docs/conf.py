"""Sphinx configuration of the iaa-engine documentation (built with -W in the test suite: tests/test_docs.py)."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

project = "iaa-engine"
author = "iaa-engine developers"
copyright = "2026, iaa-engine developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "spa-missingness.md", "quality.md"]
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
autosummary_generate = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
html_theme = "alabaster"
html_static_path = ["_static"]
html_theme_options = {"description": "Inter-annotator agreement on sparse annotations", "fixed_sidebar": True}
os.environ.setdefault("IAA_DOCS", "1")

# ---------------------------------------------------------------------------- the API reference, from __all__
# Every public name of ``iaa_engine.__all__`` gets a page; the groups only order them. A name added to the package
# appears here by itself (under "More" until it is given a group).
GROUPS = {
    "Reading data": [
        "read",
        "Annotations",
        "as_annotations",
        "read_dask",
        "summarize_dask",
        "read_duckdb",
        "LEVELS",
        "NALikeLabelWarning",
    ],
    "Agreement": [
        "report",
        "Report",
        "METRICS",
        "MetricSpec",
        "spa",
        "SPA_WEIGHTS",
        "spa_item_weights",
        "spa_kappa",
        "item_agreement",
        "item_agreement_variance",
        "joint_probability",
        "percent_agreement",
        "percent_agreement_matrix",
        "group_agreement",
        "annotator_agreement",
    ],
    "Kappa family": [
        "cohen_kappa",
        "cohen_kappa_matrix",
        "scott_pi",
        "scott_pi_matrix",
        "fleiss_kappa",
        "multi_kappa",
        "annotator_bias",
        "gwet_ac1",
        "brennan_prediger",
        "percent_agreement_weighted",
        "AGREEMENT_WEIGHTS",
        "fleiss_kappa_by_category",
        "bangdiwala_b",
    ],
    "Intraclass correlation": ["icc", "ICC_FORMS", "ICC_NAMES"],
    "Krippendorff's alpha": [
        "krippendorff_alpha",
        "krippendorff_alpha_matrix",
        "coincidence_matrix",
        "ALPHA_DISTANCES",
    ],
    "Gold labels": ["gold_standard", "GoldStandard", "GOLD_RULES", "bcr_weights", "gold_accuracy", "GoldAccuracy"],
    "Annotator scorecard": ["annotator_report", "annotator_report_dask", "AnnotatorReport"],
    "Agreement by group and over time": ["agreement_by", "AgreementBy"],
    "Comparing two data sets; test-retest": ["compare", "Comparison", "retest", "Retest"],
    "Planning a study": ["plan", "plan_simulation", "StudyPlan"],
    "Models beside humans": ["model_agreement", "ModelAgreement"],
    "Can a model replace the annotators? (judges)": [
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
    ],
    "What to adjudicate": ["disagreements", "Disagreements"],
    "Uncertainty": [
        "estimate",
        "Estimate",
        "ANALYTIC_METRICS",
        "bootstrap",
        "BootstrapResult",
        "alpha_variance",
        "AlphaVariance",
        "spa_standard_error",
        "missingness_simulation",
        "benchmark_reading",
        "BenchmarkReading",
        "BENCHMARK_SCALES",
    ],
    "Facets": [
        "hierarchical_agreement",
        "hierarchy_test",
        "HierarchyTest",
        "HierarchyResult",
        "split_hierarchy",
        "frequency_strata",
        "label_agreement",
        "StrataResult",
    ],
    "Regions (spans, boxes, polygons, key points, masks)": ["match_regions", "RegionMatch", "REGION_KINDS"],
    "Judgments: preferences, rankings, relations": [
        "preference_agreement",
        "PreferenceAgreement",
        "bradley_terry",
        "BradleyTerry",
        "preference_model_agreement",
        "ranking_agreement",
        "RankingAgreement",
        "kendall_w",
        "KendallW",
        "relation_agreement",
        "RelationAgreement",
    ],
    "Spans: unitizing alpha": ["unitizing_alpha", "UnitizingAlpha", "unitizing_family", "UnitizingFamily"],
    "Presentation and policy": [
        "write_html_report",
        "render_html_report",
        "Result",
        "PairwiseMatrix",
        "UndefinedMetricWarning",
        "InvalidParameterError",
    ],
}


def _write_api_index() -> None:
    import iaa_engine

    public = [n for n in iaa_engine.__all__ if n != "__version__"]
    grouped = {g: [n for n in names if n in public] for g, names in GROUPS.items()}
    rest = sorted(set(public) - {n for names in grouped.values() for n in names})
    if rest:
        grouped["More"] = rest
    lines = [
        "API reference",
        "=============",
        "",
        ".. currentmodule:: iaa_engine",
        "",
        "Everything below is imported as ``import iaa_engine as ie``.",
        "",
    ]
    for group, names in grouped.items():
        lines += [group, "-" * len(group), "", ".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in names] + [""]
    target = Path(__file__).parent / "api" / "index.rst"
    text = "\n".join(lines)
    if not target.exists() or target.read_text() != text:
        target.write_text(text)


_write_api_index()


# ---------------------------------------------------------------------------- the constants' descriptions
# A constant re-exported by ``iaa_engine/__init__.py`` (LEVELS, SPA_WEIGHTS, METRICS, ...) is documented under
# ``iaa_engine.<NAME>``, where autodoc finds no comment and would show the docstring of its type ("Built-in immutable
# sequence."). Its description is the ``#:`` comment above its assignment in the module that defines it: found here
# with Sphinx's own source analyser and put in place of the type's docstring.
_CONSTANT_DOCS: dict[str, list[str]] | None = None


def _constant_docs() -> dict[str, list[str]]:
    global _CONSTANT_DOCS
    if _CONSTANT_DOCS is None:
        from sphinx.pycode import ModuleAnalyzer

        import iaa_engine

        wanted = {n: getattr(iaa_engine, n) for n in iaa_engine.__all__ if n.isupper()}  # imports their modules
        _CONSTANT_DOCS = {}
        for mod_name, module in sorted(sys.modules.items()):
            if not mod_name.startswith("iaa_engine.") or not any(
                getattr(module, n, None) is v for n, v in wanted.items()
            ):
                continue
            for (scope, name), lines in ModuleAnalyzer.for_module(mod_name).find_attr_docs().items():
                if scope == "" and name in wanted and getattr(module, name, None) is wanted[name]:
                    _CONSTANT_DOCS.setdefault(name, [line for line in lines if line.strip()])
    return _CONSTANT_DOCS


def _describe_constant(app, what, name, obj, options, lines) -> None:
    short = name.rpartition(".")[2]
    if what == "data" and name == f"iaa_engine.{short}" and short in _constant_docs():
        lines[:] = [*_constant_docs()[short], ""]


def setup(app):
    app.connect("autodoc-process-docstring", _describe_constant)
