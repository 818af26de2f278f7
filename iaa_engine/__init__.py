"""iaa-engine: inter-annotator agreement on sparse annotations.

One data model (:class:`Annotations`: who labelled which item with what),
converters at its edges (:func:`read`, :meth:`Annotations.from_long`,
:meth:`Annotations.from_wide`, :meth:`Annotations.from_counts`), and metrics
written as array algebra on shared sufficient statistics.

Undefined results follow one policy everywhere (see :mod:`iaa_engine._policy`):
the value ``replace_undefined_by`` (default ``nan``) is returned and an
:class:`UndefinedMetricWarning` says why.
"""

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public name -> private module. Imported on first use (PEP 562), so that ``iaa --version`` and a command that
# needs only the core do not pay for SciPy's statistics, the HTML writer, Dask or the plugins.
_EXPORTS = {
    "ALPHA_DISTANCES": "._distance",
    "Annotations": "._data",
    "BootstrapResult": "._inference",
    "GOLD_RULES": "._gold",
    "GoldStandard": "._gold",
    "HierarchyResult": "._facets",
    "LEVELS": "._choices",
    "NALikeLabelWarning": "._encode",
    "PairwiseMatrix": "._results",
    "Report": "._report",
    "SPA_WEIGHTS": "._choices",
    "StrataResult": "._facets",
    "UndefinedMetricWarning": "._policy",
    "alpha_variance": "._inference",
    "annotator_agreement": "._groups",
    "annotator_bias": "._kappa",
    "as_annotations": "._data",
    "bcr_weights": "._gold",
    "bootstrap": "._inference",
    "brennan_prediger": "._kappa",
    "cohen_kappa": "._kappa",
    "cohen_kappa_matrix": "._kappa",
    "coincidence_matrix": "._alpha",
    "fleiss_kappa": "._kappa",
    "frequency_strata": "._facets",
    "gold_standard": "._gold",
    "group_agreement": "._groups",
    "gwet_ac1": "._kappa",
    "hierarchical_agreement": "._facets",
    "hierarchy_test": "._facets",
    "item_agreement": "._agreement",
    "item_agreement_variance": "._agreement",
    "joint_probability": "._agreement",
    "krippendorff_alpha": "._alpha",
    "krippendorff_alpha_matrix": "._alpha",
    "label_agreement": "._facets",
    "missingness_simulation": "._simulation",
    "multi_kappa": "._kappa",
    "percent_agreement": "._agreement",
    "percent_agreement_matrix": "._agreement",
    "read": "._io",
    "read_dask": "._distributed",
    "render_html_report": "._html",
    "report": "._report",
    "scott_pi": "._kappa",
    "scott_pi_matrix": "._kappa",
    "spa": "._agreement",
    "spa_item_weights": "._agreement",
    "spa_kappa": "._agreement",
    "spa_standard_error": "._inference",
    "split_hierarchy": "._facets",
    "summarize_dask": "._distributed",
    "write_html_report": "._html",
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
    from ._distance import ALPHA_DISTANCES
    from ._data import Annotations
    from ._inference import BootstrapResult
    from ._gold import GOLD_RULES
    from ._gold import GoldStandard
    from ._facets import HierarchyResult
    from ._choices import LEVELS
    from ._encode import NALikeLabelWarning
    from ._results import PairwiseMatrix
    from ._report import Report
    from ._choices import SPA_WEIGHTS
    from ._facets import StrataResult
    from ._policy import UndefinedMetricWarning
    from ._inference import alpha_variance
    from ._groups import annotator_agreement
    from ._kappa import annotator_bias
    from ._data import as_annotations
    from ._gold import bcr_weights
    from ._inference import bootstrap
    from ._kappa import brennan_prediger
    from ._kappa import cohen_kappa
    from ._kappa import cohen_kappa_matrix
    from ._alpha import coincidence_matrix
    from ._kappa import fleiss_kappa
    from ._facets import frequency_strata
    from ._gold import gold_standard
    from ._groups import group_agreement
    from ._kappa import gwet_ac1
    from ._facets import hierarchical_agreement
    from ._facets import hierarchy_test
    from ._agreement import item_agreement
    from ._agreement import item_agreement_variance
    from ._agreement import joint_probability
    from ._alpha import krippendorff_alpha
    from ._alpha import krippendorff_alpha_matrix
    from ._facets import label_agreement
    from ._simulation import missingness_simulation
    from ._kappa import multi_kappa
    from ._agreement import percent_agreement
    from ._agreement import percent_agreement_matrix
    from ._io import read
    from ._distributed import read_dask
    from ._html import render_html_report
    from ._report import report
    from ._kappa import scott_pi
    from ._kappa import scott_pi_matrix
    from ._agreement import spa
    from ._agreement import spa_item_weights
    from ._agreement import spa_kappa
    from ._inference import spa_standard_error
    from ._facets import split_hierarchy
    from ._distributed import summarize_dask
    from ._html import write_html_report

__all__ = [
    "ALPHA_DISTANCES",
    "Annotations",
    "BootstrapResult",
    "GOLD_RULES",
    "GoldStandard",
    "HierarchyResult",
    "LEVELS",
    "NALikeLabelWarning",
    "PairwiseMatrix",
    "Report",
    "SPA_WEIGHTS",
    "StrataResult",
    "UndefinedMetricWarning",
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
    "multi_kappa",
    "percent_agreement",
    "percent_agreement_matrix",
    "read",
    "read_dask",
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
    "write_html_report",
    "__version__",
]
