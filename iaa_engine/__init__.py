"""iaa-engine: inter-annotator agreement on sparse annotations.

One data model (:class:`Annotations`: who labelled which item with what),
converters at its edges (:func:`read`, :meth:`Annotations.from_long`,
:meth:`Annotations.from_wide`, :meth:`Annotations.from_counts`), and metrics
written as array algebra on shared sufficient statistics.

Undefined results follow one policy everywhere (see :mod:`iaa_engine._policy`):
the value ``replace_undefined_by`` (default ``nan``) is returned and an
:class:`UndefinedMetricWarning` says why.
"""

from ._agreement import (
    SPA_WEIGHTS,
    item_agreement,
    item_agreement_variance,
    joint_probability,
    percent_agreement,
    percent_agreement_matrix,
    spa,
    spa_item_weights,
    spa_kappa,
)
from ._alpha import coincidence_matrix, krippendorff_alpha, krippendorff_alpha_matrix
from ._data import LEVELS, Annotations, as_annotations
from ._encode import NALikeLabelWarning
from ._io import read
from ._distance import ALPHA_DISTANCES
from ._distributed import read_dask, summarize_dask
from ._facets import (
    HierarchyResult,
    StrataResult,
    frequency_strata,
    hierarchical_agreement,
    hierarchy_test,
    label_agreement,
    split_hierarchy,
)
from ._gold import GOLD_RULES, GoldStandard, bcr_weights, gold_standard
from ._groups import annotator_agreement, group_agreement
from ._html import render_html_report, write_html_report
from ._inference import BootstrapResult, alpha_variance, bootstrap, spa_standard_error
from ._kappa import (
    annotator_bias,
    brennan_prediger,
    cohen_kappa,
    cohen_kappa_matrix,
    fleiss_kappa,
    gwet_ac1,
    multi_kappa,
    scott_pi,
    scott_pi_matrix,
)
from ._policy import UndefinedMetricWarning
from ._report import Report, report
from ._results import PairwiseMatrix
from ._simulation import missingness_simulation

__version__ = "0.1.0"

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
