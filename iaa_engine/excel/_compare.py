"""=IAA_COMPARE(range_a, range_b, [metric], [weights], ...): did agreement change between two rating ranges?

Both ranges are read as every rating range is (``layout``, ``headers`` apply to both). Items are matched by name
when the ranges have headers, by position otherwise (row k of one range is row k of the other, as Gwet's pairedCAC
matches them); when the two share items the test is paired on them, otherwise independent
(:func:`iaa_engine.compare`). The result spills 10 rows × 2 columns: the difference B − A, both coefficients, the
standard error, the interval, the statistic, the p-value, the items and the test.
"""

from __future__ import annotations

from typing import Any

import iaa_engine as ie
from iaa_engine.excel._range import PAIR_METRICS, ExcelError, cell, confidence_option, option, passed_on, read, scalar
from iaa_engine.excel._worksheet import DOC_CONFIDENCE, DOC_DATA, DOC_WEIGHTS_EST, worksheet

__all__ = ["IAA_COMPARE"]

DOC_A = "First rating range (A, the reference). " + DOC_DATA
DOC_B = "Second rating range (B): the result is B - A. Read as the first (same layout and headers)."
DOC_METRIC_COMPARE = (
    '"fleiss_kappa" (default), "gwet_ac1" (AC2 when weighted), "brennan_prediger", "multi_kappa" (Conger), '
    '"percent_agreement_weighted", "krippendorff_alpha", or "cohen_kappa" / "scott_pi" (two annotators per range).'
)
DOC_PAIRED = (
    '"auto" (default): paired on the items both ranges share (t test), independent when they share none (z test); '
    '"yes" or TRUE, "no" or FALSE to decide.'
)


def _paired(value: Any) -> Any:
    passed_on(value, "paired")
    c = cell(value)
    if isinstance(c, bool):
        return c
    return {"auto": "auto", "yes": True, "no": False}[option(value, "paired", ("auto", "yes", "no"), "auto")]


@worksheet(
    data=DOC_A, data_b=DOC_B, metric=DOC_METRIC_COMPARE, weights=DOC_WEIGHTS_EST, paired=DOC_PAIRED,
    confidence=DOC_CONFIDENCE,
)  # fmt: skip
def IAA_COMPARE(data, data_b=None, metric=None, weights=None, paired=None, confidence=None, layout=None, headers=None):
    """The difference (B - A) of one agreement coefficient between two rating ranges, with its standard error,
    interval and test (paired on shared items: Gwet 2016); spills 10 rows x 2 columns."""
    m = option(metric, "metric", tuple(ie.ANALYTIC_METRICS), "fleiss_kappa")
    w = option(weights, "weights", ie.AGREEMENT_WEIGHTS, "identity")
    p = _paired(paired)
    conf = confidence_option(confidence)
    if data_b is None:
        raise ExcelError("#VALUE!", "give the second rating range (data_b): IAA_COMPARE(range_a, range_b, ...)")
    counts = m not in PAIR_METRICS and m != "multi_kappa"
    a, _, _ = read(data, layout, headers, allow_counts=counts)
    b, _, _ = read(data_b, layout, headers, allow_counts=counts)
    if m in PAIR_METRICS:
        for what, d in (("the first range", a), ("the second range", b)):
            if d.n_annotators != 2:
                raise ExcelError("#VALUE!", f"{m} compares two annotators; {what} has {d.n_annotators}")
    c = ie.compare(a, b, metric=m, weights=w, paired=p, confidence=conf)
    pct = f"{conf * 100:g}%"
    stat = f"t ({c.df:g} df)" if c.df == c.df else "z"
    test = f"paired on {c.n_items} shared items" if c.paired else "independent"
    return [
        [f"Difference B - A ({c.metric})", scalar(c.estimate)],
        ["A", scalar(c.estimate_a)],
        ["B", scalar(c.estimate_b)],
        ["Standard error", scalar(c.se)],
        [f"Lower {pct}", scalar(c.lower)],
        [f"Upper {pct}", scalar(c.upper)],
        [stat, scalar(c.statistic)],
        ["p-value", scalar(c.p_value)],
        ["Items", int(c.n_items)],
        ["Test", test],
    ]
