"""The one wrapper of every worksheet function (:func:`worksheet`), the help texts of their arguments, and the list
of the functions it registered (:data:`FUNCTIONS`, the package's ``__all__``).

A module of its own so that every module of worksheet functions (``_functions``, ``_compare``, ``_plan``,
``_rankings``, ``_spans``) imports it from below, and the package's ``__init__`` only re-exports: no module of the
package imports the package itself (tests/test_layers.py checks that the import graph has no cycle).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import iaa_engine as ie
from iaa_engine.excel._range import UNDEFINED, ExcelError, log

try:
    import xlwings as xw
except ImportError as exc:  # pragma: no cover - the excel extra is not installed
    raise ImportError("the Excel worksheet functions need xlwings: pip install 'iaa-engine[excel]'") from exc

#: The worksheet functions, as :func:`worksheet` registers them: what ``from iaa_engine.excel import *`` brings into
#: ``excel_addin/iaa_functions.py`` and xlwings Lite's ``main.py``, where xlwings finds and registers them (the
#: package's ``__all__``).
FUNCTIONS: list[str] = []


# ----------------------------------------------------------------------------- help texts (function wizard)

DOC_DATA = (
    "Rating range (blank = missing): one item per row or one annotator per row, told apart by the shape; "
    "trailing blank rows and columns are ignored. See layout and headers."
)
_DOC_AUTO = (
    '"auto" (default): more rows than columns = one item per row, more columns than rows = one annotator per row; '
    "a square range or a count table needs an explicit layout."
)
DOC_LAYOUT = (
    _DOC_AUTO + ' "rows": annotators in rows, "columns": annotators in columns, "counts": items x categories counts.'
)
DOC_LAYOUT_NO_COUNTS = _DOC_AUTO + ' "rows": annotators in rows, "columns": annotators in columns.'
DOC_HEADERS = (
    "FALSE (default): no headers. TRUE: first row and first column hold names. "
    '"annotators" or "items": only that one header line.'
)
DOC_ANN = "Annotator: its name (with headers) or its position, 1 = first. Optional when there are two."
DOC_SCHEME = 'SPA weighting: "annotations_m1" (default), "flat", "annotations", "edges", "inv_var", "inv_var_class".'
DOC_LEVEL = '"nominal" (default), "ordinal", "interval" or "ratio".'
DOC_RULE = '"majority" (default), "diff", "rat", "com", "inv" (bias-correcting rules) or "dawid_skene".'
DOC_SEP = 'Separator between tied labels (default "|").'
_DOC_FAMILIES = '"linear", "ordinal", "radical", "ratio", "circular", "bipolar"'
DOC_WEIGHTS = (
    f'Agreement weights: "quadratic" (default), "identity" (unweighted), {_DOC_FAMILIES}. '
    "Numeric labels use their values; text labels give #VALUE! (code ordered categories as numbers)."
)
DOC_WEIGHTS_EST: str = (
    f'Agreement weights: "identity" (default: unweighted), "quadratic", {_DOC_FAMILIES}. Not for an ICC.'
)
DOC_FORM = (
    '"ICC(2,1)" (default), "ICC(1,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"; McGraw & Wong '
    '("ICC(A,1)", "ICC(C,k)", ...) and psych names ("ICC2", "ICC3k", ...) work too.'
)
DOC_METRIC = (
    '"fleiss_kappa" (default), "gwet_ac1" (AC2 when weighted), "brennan_prediger", "multi_kappa" (Conger), '
    '"percent_agreement_weighted", "cohen_kappa", "scott_pi", "krippendorff_alpha" (jackknife SE), or an ICC form '
    'such as "ICC(2,1)".'
)
DOC_CONFIDENCE = "Coverage of the interval, between 0 and 1 (default 0.95, i.e. 95%)."
DOC_ANN_EST = "cohen_kappa and scott_pi only: " + DOC_ANN
DOC_TOP = "List only this many (default: all). The ranking is over all of them."
DOC_ITEMS_PER_PAIR = "List at most this many items behind each pair, the largest contributions first (default: all)."
DOC_GOLD = (
    'Gold labels: "majority" (default), "dawid_skene", or a range of known labels: one cell per item aligned '
    "with the items (blank = not known), or a two-column table of item names and labels."
)
DOC_KNOWN = (
    "Known labels (gold questions): one cell per item aligned with the items of data (blank = not known), "
    "or a two-column table of item names and labels."
)
DOC_MIN_ITEMS = "Annotators with fewer items shared with others are never flagged (default 20)."
DOC_THRESHOLD = "The accuracy an annotator needs, between 0 and 1 (default 0.8)."
DOC_SCALE = '"landis_koch" (default), "fleiss", "altman" or "krippendorff" (0.667 / 0.800).'
DOC_BENCH_THRESHOLD = "The probability the reading must reach, in (0, 1] (default 0.95)."
DOC_METRIC_BENCH = (
    DOC_METRIC.replace(', or an ICC form such as "ICC(2,1)"', "") + " Not an ICC (IAA_ESTIMATE gives its interval)."
)

#: The help text of each argument, by its name; a function's own ``docs`` (see :func:`worksheet`) win.
ARG_DOCS = {
    "data": DOC_DATA,
    "headers": DOC_HEADERS,
    "annotator_a": DOC_ANN,
    "annotator_b": DOC_ANN,
    "scheme": DOC_SCHEME,
    "level": DOC_LEVEL,
    "rule": DOC_RULE,
    "sep": DOC_SEP,
    "weights": DOC_WEIGHTS,
    "form": DOC_FORM,
    "metric": DOC_METRIC,
    "confidence": DOC_CONFIDENCE,
    "top": DOC_TOP,
    "items_per_pair": DOC_ITEMS_PER_PAIR,
    "gold": DOC_GOLD,
    "known": DOC_KNOWN,
    "min_items": DOC_MIN_ITEMS,
    "threshold": DOC_THRESHOLD,
    "scale": DOC_SCALE,
}
#: Arguments that are ranges, read raw: xlwings's per-cell cleaning is skipped (it costs seconds on a large range),
#: ``_range.raw`` reads each runtime's cell encoding. Every other argument is one cell, an error value as its text.
RANGES = ("data", "gold", "known", "data_b", "model", "judge")
#: IAA_ESTIMATE's and IAA_BENCHMARK's help for the arguments they share.
_ESTIMATE_DOCS: dict[str, Any] = {"weights": DOC_WEIGHTS_EST, "annotator_a": DOC_ANN_EST, "annotator_b": DOC_ANN_EST}


def worksheet(*, counts: bool = True, **docs: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The decorator that makes a function a worksheet function: the one wrapper of every function of the add-in.

    Every parameter gets its help text (``docs``, else :data:`ARG_DOCS`; the help of ``layout`` says whether the
    function reads count tables, as ``counts`` says), ranges (:data:`RANGES`) are read raw, the function joins
    ``FUNCTIONS``, and every failure becomes an Excel error value: an :class:`~iaa_engine.excel._range.ExcelError` its
    own value, bad input (``ValueError``, ``TypeError``, ``KeyError``) and anything unexpected ``#VALUE!``, with the
    reason logged -- never a traceback in a cell.
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
                    return fn(*args, **kwargs)
            except ExcelError as e:
                if e.value != UNDEFINED or str(e):
                    log.warning("%s: %s", fn.__name__, e)
                return e.value
            except (ValueError, TypeError, KeyError) as e:
                log.warning("%s: %s", fn.__name__, e)
                return "#VALUE!"
            except Exception as e:  # noqa: BLE001 - a worksheet function must not leak a traceback into a cell
                log.warning("%s: unexpected %s: %s", fn.__name__, type(e).__name__, e)
                return "#VALUE!"

        FUNCTIONS.append(fn.__name__)
        layout = DOC_LAYOUT if counts else DOC_LAYOUT_NO_COUNTS
        for param in inspect.signature(fn).parameters:
            doc = docs.get(param) or (layout if param == "layout" else ARG_DOCS[param])
            if param in RANGES:
                xw.arg(param, "raw", doc=doc)(call)
            else:
                xw.arg(param, err_to_str=True, doc=doc)(call)
        return xw.func(call)

    return register
