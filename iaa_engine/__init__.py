"""iaa-engine: inter-annotator agreement on sparse annotations.

One data model (:class:`Annotations`: who labelled which item with what),
converters at its edges (:func:`read`, :meth:`Annotations.from_long`,
:meth:`Annotations.from_wide`, :meth:`Annotations.from_counts`), and metrics
written as array algebra on shared sufficient statistics.

Undefined results follow one policy everywhere (see :mod:`iaa_engine.base._policy`):
the value ``replace_undefined_by`` (default ``nan``) is returned and an
:class:`UndefinedMetricWarning` says why. A bad argument raises :class:`InvalidParameterError` (a ``ValueError``
and a ``TypeError``) before any work, with one message template: ``"<name> must be <what it accepts>; got <what>"``.
"""

from typing import TYPE_CHECKING, Any

from iaa_engine.base._version import __version__

# Public name -> private module. Imported on first use (PEP 562), so that ``iaa --version`` and a command that
# needs only the core do not pay for SciPy's statistics, the HTML writer, Dask or the plugins.
_EXPORTS = {
    "ALPHA_DISTANCES": ".metrics._distance",
    "AlphaVariance": ".inference._inference",
    "HierarchyTest": ".analysis._facets",
    "Result": ".base._results",
    "Annotations": ".data._model",
    "BootstrapResult": ".inference._inference",
    "GOLD_RULES": ".analysis._gold",
    "GoldStandard": ".analysis._gold",
    "GoldAccuracy": ".analysis._gold",
    "gold_accuracy": ".analysis._gold",
    "AnnotatorReport": ".analysis._scorecard",
    "agreement_by": ".analysis._by",
    "AgreementBy": ".analysis._by",
    "annotator_report": ".analysis._scorecard",
    "HierarchyResult": ".analysis._facets",
    "LEVELS": ".base._choices",
    "METRICS": ".metrics._registry",
    "MetricSpec": ".metrics._registry",
    "NALikeLabelWarning": ".data._encode",
    "AbsentAnnotatorsWarning": ".data._spans",
    "PairwiseMatrix": ".base._results",
    "Report": ".reporting._report",
    "SPA_WEIGHTS": ".base._choices",
    "StrataResult": ".analysis._facets",
    "UndefinedMetricWarning": ".base._policy",
    "InvalidParameterError": ".base._policy",
    "alpha_variance": ".inference._inference",
    "annotator_agreement": ".metrics._groups",
    "annotator_bias": ".metrics._kappa",
    "as_annotations": ".data._model",
    "bcr_weights": ".analysis._gold",
    "bootstrap": ".inference._inference",
    "brennan_prediger": ".metrics._kappa",
    "cohen_kappa": ".metrics._kappa",
    "cohen_kappa_matrix": ".metrics._kappa",
    "coincidence_matrix": ".metrics._alpha",
    "fleiss_kappa": ".metrics._kappa",
    "frequency_strata": ".analysis._facets",
    "gold_standard": ".analysis._gold",
    "group_agreement": ".metrics._groups",
    "gwet_ac1": ".metrics._kappa",
    "hierarchical_agreement": ".analysis._facets",
    "hierarchy_test": ".analysis._facets",
    "item_agreement": ".metrics._agreement",
    "item_agreement_variance": ".metrics._agreement",
    "joint_probability": ".metrics._agreement",
    "krippendorff_alpha": ".metrics._alpha",
    "krippendorff_alpha_matrix": ".metrics._alpha",
    "label_agreement": ".analysis._facets",
    "missingness_simulation": ".analysis._simulation",
    "plan": ".analysis._plan",
    "plan_simulation": ".analysis._plan",
    "StudyPlan": ".analysis._plan",
    "multi_kappa": ".metrics._kappa",
    "percent_agreement": ".metrics._agreement",
    "percent_agreement_matrix": ".metrics._agreement",
    "percent_agreement_weighted": ".metrics._kappa",
    "bangdiwala_b": ".metrics._kappa",
    "fleiss_kappa_by_category": ".metrics._kappa",
    "estimate": ".inference._analytic",
    "compare": ".analysis._compare",
    "Comparison": ".analysis._compare",
    "retest": ".analysis._retest",
    "Retest": ".analysis._retest",
    "ANALYTIC_METRICS": ".inference._analytic",
    "Estimate": ".base._results",
    "icc": ".metrics._icc",
    "model_agreement": ".analysis._models",
    "ModelAgreement": ".analysis._models",
    "alt_test": ".analysis._judges",
    "AltTest": ".analysis._judges",
    "judge_consistency": ".analysis._judge_bias",
    "JudgeConsistency": ".analysis._judge_bias",
    "length_controlled_winrate": ".analysis._judge_bias",
    "LengthControlledWinrate": ".analysis._judge_bias",
    "human_likeness": ".analysis._judges",
    "HumanLikeness": ".analysis._judges",
    "judge_accuracy": ".analysis._judge_accuracy",
    "JudgeAccuracy": ".analysis._judge_accuracy",
    "ICC_FORMS": ".metrics._icc",
    "ICC_NAMES": ".metrics._icc",
    "AGREEMENT_WEIGHTS": ".base._choices",
    "read": ".data._io",
    "match_regions": ".data._regions",
    "unitizing_alpha": ".metrics._unitizing",
    "gamma_agreement": ".metrics._gamma",
    "span_f1": ".metrics._span_f1",
    "SpanF1": ".metrics._span_f1",
    "GammaAgreement": ".metrics._gamma",
    "UnitizingAlpha": ".metrics._unitizing",
    "unitizing_family": ".metrics._unitizing_family",
    "UnitizingFamily": ".metrics._unitizing_family",
    "RegionMatch": ".data._regions",
    "REGION_KINDS": ".data._regions",
    "read_dask": ".engines._distributed",
    "annotator_report_dask": ".engines._dask_annotators",
    "read_duckdb": ".engines._duckdb",
    "render_html_report": ".reporting._html",
    "report": ".reporting._report",
    "scott_pi": ".metrics._kappa",
    "scott_pi_matrix": ".metrics._kappa",
    "spa": ".metrics._agreement",
    "spa_item_weights": ".metrics._agreement",
    "spa_kappa": ".metrics._agreement",
    "spa_standard_error": ".inference._inference",
    "split_hierarchy": ".analysis._facets",
    "summarize_dask": ".engines._distributed",
    "unitizing_alpha_dask": ".engines._dask_spans",
    "span_f1_dask": ".engines._dask_spans",
    "agreement_by_dask": ".engines._commands",
    "frequency_strata_dask": ".engines._commands",
    "hierarchical_agreement_dask": ".engines._dask_hierarchy",
    "gold_dask": ".engines._commands",
    "disagreements_dask": ".engines._commands",
    "unitizing_family_dask": ".engines._dask_spans",
    "write_html_report": ".reporting._html",
    "write_html_report_dask": ".engines._dask_html",
    "disagreements": ".analysis._disagreements",
    "Disagreements": ".analysis._disagreements",
    "benchmark_reading": ".inference._benchmark",
    "BenchmarkReading": ".inference._benchmark",
    "BENCHMARK_SCALES": ".inference._benchmark",
    "BradleyTerry": ".analysis._bradley_terry",
    "bradley_terry": ".analysis._bradley_terry",
    "PreferenceAgreement": ".analysis._preferences",
    "preference_agreement": ".analysis._preferences",
    "preference_model_agreement": ".analysis._preferences",
    "RelationAgreement": ".analysis._relations",
    "relation_agreement": ".analysis._relations",
    "KendallW": ".metrics._rankings",
    "kendall_w": ".metrics._rankings",
    "RankingAgreement": ".metrics._rankings",
    "ranking_agreement": ".metrics._rankings",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'iaa_engine' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from iaa_engine.analysis._bradley_terry import BradleyTerry, bradley_terry
    from iaa_engine.analysis._by import AgreementBy, agreement_by
    from iaa_engine.analysis._compare import Comparison, compare
    from iaa_engine.analysis._disagreements import Disagreements, disagreements
    from iaa_engine.analysis._facets import (
        HierarchyResult,
        HierarchyTest,
        StrataResult,
        frequency_strata,
        hierarchical_agreement,
        hierarchy_test,
        label_agreement,
        split_hierarchy,
    )
    from iaa_engine.analysis._gold import (
        GOLD_RULES,
        GoldAccuracy,
        GoldStandard,
        bcr_weights,
        gold_accuracy,
        gold_standard,
    )
    from iaa_engine.analysis._judge_accuracy import JudgeAccuracy, judge_accuracy
    from iaa_engine.analysis._judge_bias import (
        JudgeConsistency,
        LengthControlledWinrate,
        judge_consistency,
        length_controlled_winrate,
    )
    from iaa_engine.analysis._judges import AltTest, HumanLikeness, alt_test, human_likeness
    from iaa_engine.analysis._models import ModelAgreement, model_agreement
    from iaa_engine.analysis._plan import StudyPlan, plan, plan_simulation
    from iaa_engine.analysis._preferences import (
        PreferenceAgreement,
        preference_agreement,
        preference_model_agreement,
    )
    from iaa_engine.analysis._relations import RelationAgreement, relation_agreement
    from iaa_engine.analysis._retest import Retest, retest
    from iaa_engine.analysis._scorecard import AnnotatorReport, annotator_report
    from iaa_engine.analysis._simulation import missingness_simulation
    from iaa_engine.base._choices import AGREEMENT_WEIGHTS, LEVELS, SPA_WEIGHTS
    from iaa_engine.base._policy import InvalidParameterError, UndefinedMetricWarning
    from iaa_engine.base._results import Estimate, PairwiseMatrix, Result
    from iaa_engine.data._encode import NALikeLabelWarning
    from iaa_engine.data._io import read
    from iaa_engine.data._model import Annotations, as_annotations
    from iaa_engine.data._regions import REGION_KINDS, RegionMatch, match_regions
    from iaa_engine.data._spans import AbsentAnnotatorsWarning
    from iaa_engine.engines._commands import agreement_by_dask, disagreements_dask, frequency_strata_dask, gold_dask
    from iaa_engine.engines._dask_annotators import annotator_report_dask
    from iaa_engine.engines._dask_hierarchy import hierarchical_agreement_dask
    from iaa_engine.engines._dask_html import write_html_report_dask
    from iaa_engine.engines._dask_spans import span_f1_dask, unitizing_alpha_dask, unitizing_family_dask
    from iaa_engine.engines._distributed import read_dask, summarize_dask
    from iaa_engine.engines._duckdb import read_duckdb
    from iaa_engine.inference._analytic import ANALYTIC_METRICS, estimate
    from iaa_engine.inference._benchmark import BENCHMARK_SCALES, BenchmarkReading, benchmark_reading
    from iaa_engine.inference._inference import (
        AlphaVariance,
        BootstrapResult,
        alpha_variance,
        bootstrap,
        spa_standard_error,
    )
    from iaa_engine.metrics._agreement import (
        item_agreement,
        item_agreement_variance,
        joint_probability,
        percent_agreement,
        percent_agreement_matrix,
        spa,
        spa_item_weights,
        spa_kappa,
    )
    from iaa_engine.metrics._alpha import coincidence_matrix, krippendorff_alpha, krippendorff_alpha_matrix
    from iaa_engine.metrics._distance import ALPHA_DISTANCES
    from iaa_engine.metrics._gamma import GammaAgreement, gamma_agreement
    from iaa_engine.metrics._groups import annotator_agreement, group_agreement
    from iaa_engine.metrics._icc import ICC_FORMS, ICC_NAMES, icc
    from iaa_engine.metrics._kappa import (
        annotator_bias,
        bangdiwala_b,
        brennan_prediger,
        cohen_kappa,
        cohen_kappa_matrix,
        fleiss_kappa,
        fleiss_kappa_by_category,
        gwet_ac1,
        multi_kappa,
        percent_agreement_weighted,
        scott_pi,
        scott_pi_matrix,
    )
    from iaa_engine.metrics._rankings import KendallW, RankingAgreement, kendall_w, ranking_agreement
    from iaa_engine.metrics._registry import METRICS, MetricSpec
    from iaa_engine.metrics._span_f1 import SpanF1, span_f1
    from iaa_engine.metrics._unitizing import UnitizingAlpha, unitizing_alpha
    from iaa_engine.metrics._unitizing_family import UnitizingFamily, unitizing_family
    from iaa_engine.reporting._html import render_html_report, write_html_report
    from iaa_engine.reporting._report import Report, report

__all__ = [
    "BradleyTerry",
    "bradley_terry",
    "PreferenceAgreement",
    "preference_agreement",
    "preference_model_agreement",
    "RelationAgreement",
    "relation_agreement",
    "KendallW",
    "kendall_w",
    "RankingAgreement",
    "ranking_agreement",
    "match_regions",
    "unitizing_alpha",
    "unitizing_family",
    "UnitizingFamily",
    "gamma_agreement",
    "GammaAgreement",
    "span_f1",
    "SpanF1",
    "UnitizingAlpha",
    "RegionMatch",
    "REGION_KINDS",
    "AGREEMENT_WEIGHTS",
    "ICC_FORMS",
    "ICC_NAMES",
    "icc",
    "Estimate",
    "estimate",
    "compare",
    "Comparison",
    "retest",
    "Retest",
    "ANALYTIC_METRICS",
    "percent_agreement_weighted",
    "bangdiwala_b",
    "fleiss_kappa_by_category",
    "ALPHA_DISTANCES",
    "AlphaVariance",
    "Annotations",
    "BootstrapResult",
    "GOLD_RULES",
    "GoldStandard",
    "GoldAccuracy",
    "gold_accuracy",
    "AnnotatorReport",
    "annotator_report",
    "agreement_by",
    "AgreementBy",
    "ModelAgreement",
    "model_agreement",
    "AltTest",
    "alt_test",
    "JudgeConsistency",
    "judge_consistency",
    "LengthControlledWinrate",
    "length_controlled_winrate",
    "HumanLikeness",
    "human_likeness",
    "JudgeAccuracy",
    "judge_accuracy",
    "HierarchyResult",
    "HierarchyTest",
    "LEVELS",
    "METRICS",
    "MetricSpec",
    "NALikeLabelWarning",
    "AbsentAnnotatorsWarning",
    "PairwiseMatrix",
    "Report",
    "Result",
    "SPA_WEIGHTS",
    "StrataResult",
    "UndefinedMetricWarning",
    "InvalidParameterError",
    "alpha_variance",
    "annotator_agreement",
    "annotator_bias",
    "as_annotations",
    "bcr_weights",
    "bootstrap",
    "brennan_prediger",
    "coincidence_matrix",
    "cohen_kappa",
    "cohen_kappa_matrix",
    "fleiss_kappa",
    "frequency_strata",
    "gold_standard",
    "group_agreement",
    "gwet_ac1",
    "hierarchical_agreement",
    "hierarchy_test",
    "item_agreement",
    "item_agreement_variance",
    "joint_probability",
    "krippendorff_alpha",
    "krippendorff_alpha_matrix",
    "label_agreement",
    "missingness_simulation",
    "plan",
    "plan_simulation",
    "StudyPlan",
    "multi_kappa",
    "percent_agreement",
    "percent_agreement_matrix",
    "read",
    "read_dask",
    "annotator_report_dask",
    "read_duckdb",
    "render_html_report",
    "report",
    "scott_pi",
    "scott_pi_matrix",
    "spa",
    "spa_item_weights",
    "spa_kappa",
    "spa_standard_error",
    "split_hierarchy",
    "summarize_dask",
    "unitizing_alpha_dask",
    "span_f1_dask",
    "agreement_by_dask",
    "frequency_strata_dask",
    "hierarchical_agreement_dask",
    "gold_dask",
    "disagreements_dask",
    "unitizing_family_dask",
    "write_html_report",
    "write_html_report_dask",
    "disagreements",
    "Disagreements",
    "benchmark_reading",
    "BenchmarkReading",
    "BENCHMARK_SCALES",
    "__version__",
]
