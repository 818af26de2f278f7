"""=IAA_SAMPLE_SIZE(coefficient, method, expected, null, prevalence, ...): how many items a study needs, and
=IAA_SAMPLE_SIZE_SIM(range, width, ...): the same by simulation from a pilot rating range.

Both are thin surfaces over :func:`iaa_engine.plan` and :func:`iaa_engine.plan_simulation`. Each spills 7 rows × 2
columns: the items to annotate (rounded up), the formula's fractional number, the power, interval width and
limits the study reaches at that number (blank where the calculator has none), and the source.
``=INDEX(IAA_SAMPLE_SIZE(...), 1, 2)`` is the number alone.
"""

from __future__ import annotations

import math
from typing import Any

import iaa_engine as ie
from iaa_engine.analysis._plan import SIMULATION_METRICS
from iaa_engine.excel._range import ExcelError, cell, confidence_option, is_error, option, passed_on, read, whole
from iaa_engine.excel._worksheet import DOC_CONFIDENCE, DOC_DATA, DOC_SCHEME, worksheet

__all__ = ["IAA_SAMPLE_SIZE", "IAA_SAMPLE_SIZE_SIM"]

DOC_COEFFICIENT = '"kappa", "icc" or "alpha" (blank: "kappa").'
DOC_METHOD = (
    '"power" (default; alpha: "minimum"), "width" (an interval of a width, or kappa\'s limits), "fixed_n" (what '
    'n_items items reach) or "minimum" (alpha\'s minimum sample).'
)
DOC_EXPECTED = "The anticipated value: kappa or ICC under the alternative, or the planning value of an interval."
DOC_NULL = "The value under the null hypothesis (alpha: the smallest acceptable alpha, e.g. 0.8)."
DOC_PREVALENCE = (
    "A binary rating's prevalence (one cell), or each category's proportion (a range summing to 1); alpha: the "
    "probability of the least frequent value; Cantor: the first rater's rate of positives."
)
DOC_RATERS = "Ratings per item (default 2)."
DOC_WIDTH = "The interval's full width (kappa: expected +- width/2)."
DOC_POWER = "The power to reach, between 0 and 1 (default 0.8)."
DOC_SIGNIFICANCE = "The test's type I error, between 0 and 1 (default 0.05)."
DOC_N_ITEMS = 'The items available (method "fixed_n").'
DOC_SOURCE = (
    'The calculator: kappa power "donner" (default, kappaSize), "cantor", "flack"; kappa width "donner" or '
    '"bloch_kraemer"; ICC "walter" / "bonett"; alpha "krippendorff".'
)
DOC_LOWER = 'Kappa by "width": the lower limit to stay above (instead of width).'
DOC_UPPER = 'Kappa by "width": the upper limit to stay below (with lower).'
DOC_METRIC_SIM = (
    '"krippendorff_alpha" (default), "fleiss_kappa", "gwet_ac1", "brennan_prediger", "spa_kappa", "spa", '
    '"joint_probability" or "percent_agreement".'
)
DOC_WIDTH_SIM = "The target full width of the interval (default 0.2)."
DOC_ANNOTATORS = "Annotations per item in the planned study (default: the pilot's own)."
DOC_N_REP = "Simulated studies per size (default 1000)."
DOC_SEED = "Random seed (default 0): the same seed gives the same answer."


def _number(value: Any, name: str) -> float | None:
    """One number cell (blank: None)."""
    passed_on(value, name)
    c = cell(value)
    if c is None:
        return None
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c):
        raise ExcelError("#VALUE!", f"{name} must be a number; got {value!r}")
    return float(c)


def _prevalence(value: Any) -> Any:
    """One cell (a number) or a range of proportions (flattened, blanks skipped)."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        return _number(value, "prevalence")
    flat = [v for row in value for v in (row if isinstance(row, (list, tuple)) else [row])]
    numbers = [_number(v, "prevalence") for v in flat if not (cell(v) is None and not is_error(v))]
    values = [v for v in numbers if v is not None]
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _default(value: float | None, default: float) -> float:
    return default if value is None else value


def _sides(value: Any) -> int | None:
    s = whole(value, "sides")
    if s is not None and s not in (1, 2):
        raise ExcelError("#VALUE!", f"sides must be 1 or 2; got {value!r}")
    return s


def _source(p: ie.StudyPlan) -> str:
    """The calculator, and which way its test goes ("...; testing for kappa below 0.85 ...") where it has one."""
    test = p.details.get("test")
    return f"{p.source}; {test}" if test else p.source


def _table(p: ie.StudyPlan) -> list[list[Any]]:
    def shown(v: float) -> Any:
        return float(v) if math.isfinite(v) else ""  # not a quantity of this calculator: a blank cell

    return [
        [f"Items ({p.coefficient} by {p.method})", int(p.n)],
        ["Items (raw)", float(p.n_raw)],
        ["Power at n", shown(p.power)],
        ["Interval width at n", shown(p.width)],
        ["Lower limit at n", shown(p.lower)],
        ["Upper limit at n", shown(p.upper)],
        ["Source" if not p.mc_se else "Monte-Carlo SE of n", _source(p) if not p.mc_se else float(p.mc_se)],
    ]


@worksheet(
    coefficient=DOC_COEFFICIENT, method=DOC_METHOD, expected=DOC_EXPECTED, null=DOC_NULL, prevalence=DOC_PREVALENCE,
    raters=DOC_RATERS, width=DOC_WIDTH, power=DOC_POWER, significance=DOC_SIGNIFICANCE,
    confidence=DOC_CONFIDENCE, n_items=DOC_N_ITEMS, source=DOC_SOURCE, lower=DOC_LOWER, upper=DOC_UPPER,
    sides="1 or 2 (default: the calculator's own: Cantor and Flack 1, Walter and Donner 2).",
)  # fmt: skip
def IAA_SAMPLE_SIZE(
    coefficient, method=None, expected=None, null=None, prevalence=None, raters=None, width=None, power=None,
    significance=None, confidence=None, n_items=None, source=None, lower=None, upper=None, sides=None,
):  # fmt: skip
    """How many items a reliability study needs (kappa: kappaSize, Cantor, Flack, Bloch-Kraemer; ICC: Walter et
    al., Bonett; alpha: Krippendorff's minimum); spills 7 rows x 2 columns: items (rounded up), raw, power, width,
    limits, source."""
    coef = option(coefficient, "coefficient", ("kappa", "icc", "alpha"), "kappa")
    meth = option(method, "method", ("power", "width", "fixed_n", "minimum"), "minimum" if coef == "alpha" else "power")
    src = option(
        source, "source", ("donner", "cantor", "flack", "bloch_kraemer", "walter", "bonett", "krippendorff"), ""
    )
    p = ie.plan(
        coef,
        method=meth,
        source=src or None,
        expected=_number(expected, "expected"),
        null=_number(null, "null"),
        prevalence=_prevalence(prevalence),
        raters=whole(raters, "raters", 2) or 2,
        width=_number(width, "width"),
        power=_default(_number(power, "power"), 0.8),
        significance=_default(_number(significance, "significance"), 0.05),
        confidence=confidence_option(confidence),
        n_items=whole(n_items, "n_items", 2),
        lower=_number(lower, "lower"),
        upper=_number(upper, "upper"),
        sides=_sides(sides),
    )
    return _table(p)


@worksheet(
    data="The pilot: " + DOC_DATA, width=DOC_WIDTH_SIM, metric=DOC_METRIC_SIM, annotators=DOC_ANNOTATORS,
    confidence=DOC_CONFIDENCE, scheme=DOC_SCHEME, n_rep=DOC_N_REP, seed=DOC_SEED,
)  # fmt: skip
def IAA_SAMPLE_SIZE_SIM(
    data, width=None, metric=None, annotators=None, confidence=None, scheme=None, n_rep=None, seed=None, layout=None,
    headers=None,
):  # fmt: skip
    """How many items for a coefficient's interval to have a width, simulated from a pilot rating range (its items
    resampled); spills 7 rows x 2 columns: items (rounded up), raw, the width at n, the simulation's own error."""
    m = option(metric, "metric", SIMULATION_METRICS, "krippendorff_alpha")
    pilot, _, _ = read(data, layout, headers)
    w = _number(width, "width")
    p = ie.plan_simulation(
        pilot,
        metric=m,
        width=0.2 if w is None else w,
        confidence=confidence_option(confidence),
        annotators=whole(annotators, "annotators", 2),
        weights=option(scheme, "scheme", ie.SPA_WEIGHTS, "annotations_m1"),
        n_rep=whole(n_rep, "n_rep", 10) or 1000,
        seed=whole(seed, "seed", 0) or 0,  # blank: 0
        progress=False,
    )
    return _table(p)
