r"""Plan a study: how many items to annotate for a kappa, ICC or alpha to be known well enough.

The published closed-form calculators (kappa by power or interval width, the ICC by power or width, alpha's minimum
sample) and a simulation planner for any count-based coefficient of the library, from a pilot data set or from
stated prevalences. Every answer is a :class:`StudyPlan`: the fractional number of items the formula gives, the
rounded-up number to annotate, what the study achieves at that number, the inputs and the source.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iaa_engine.base._params import AnyOf, Choice, Items, NoneOr, Real, Whole, validate
from iaa_engine.base._policy import invalid
from iaa_engine.base._progress import Progress
from iaa_engine.base._results import ScalarResult

__all__ = [
    "StudyPlan",
    "plan",
    "plan_simulation",
    "PLAN_COEFFICIENTS",
    "PLAN_SOURCES",
    "SIMULATION_METRICS",
    "MAX_PLANNED_ITEMS",
]

#: The coefficients :func:`plan` has closed forms for, and the methods of each.
PLAN_COEFFICIENTS: dict[str, tuple[str, ...]] = {
    "kappa": ("power", "width", "fixed_n"),
    "icc": ("power", "width", "fixed_n"),
    "alpha": ("minimum",),
    "judge": ("calibration",),
}
#: The published calculators: (coefficient, method) -> the sources that apply (the first is the default).
PLAN_SOURCES: dict[tuple[str, str], tuple[str, ...]] = {
    ("kappa", "power"): ("donner", "cantor", "flack"),
    ("kappa", "width"): ("donner", "bloch_kraemer"),
    ("kappa", "fixed_n"): ("donner",),
    ("icc", "power"): ("walter",),
    ("icc", "width"): ("bonett",),
    ("icc", "fixed_n"): ("walter",),
    ("alpha", "minimum"): ("krippendorff",),
    ("judge", "calibration"): ("lee",),
}
_CITATION = {
    "donner": "Donner & Eliasziw (1992); Donner & Rotondi (2010); R kappaSize",
    "cantor": "Cantor (1996); R irr N.cohen.kappa",
    "flack": "Flack, Afifi, Lachenbruch & Schouten (1988); R irr N2.cohen.kappa",
    "bloch_kraemer": "Bloch & Kraemer (1989)",
    "walter": "Walter, Eliasziw & Donner (1998); R ICC.Sample.Size",
    "bonett": "Bonett (2002)",
    "krippendorff": "Krippendorff (2019), after Bloch & Kraemer (1989)",
    "lee": "Lee, Zeng, Jeong, Sohn & Lee (2025); LLM-judge-reporting allocate_calibration_sample",
}
_ICC_FIXED = "Walter, Eliasziw & Donner (1998) for the power; Bonett (2002) for the width"
#: Coefficients :func:`plan_simulation` simulates (functions of the count sums, vectorised over replicates).
SIMULATION_METRICS: tuple[str, ...] = (
    "krippendorff_alpha",
    "fleiss_kappa",
    "gwet_ac1",
    "brennan_prediger",
    "spa_kappa",
    "spa",
    "joint_probability",
    "percent_agreement",
)

_PROB = Real(0, 1, low_open=True, high_open=True)
_PREVALENCE = NoneOr(
    AnyOf(
        _PROB,
        Items(_PROB, non_empty=True),
        what="a proportion in (0, 1) or a sequence of category proportions in (0, 1) summing to 1",
    )
)


@dataclass(frozen=True, eq=False, repr=False)
class StudyPlan(ScalarResult):
    r"""A planned study: the number of items and what the study achieves with it (the result of :func:`plan` and
    :func:`plan_simulation`).

    Attributes
    ----------
    coefficient : str
        ``'kappa'``, ``'icc'``, ``'alpha'`` or (simulation) the library's metric name.
    method : str
        ``'power'``, ``'width'``, ``'fixed_n'``, ``'minimum'`` or ``'simulation'``.
    source : str
        The published calculator (short citation; the full ones are in :func:`plan`).
    n : int
        Items to annotate: ``n_raw`` rounded up (for ``'fixed_n'``: the number given).
    n_raw : float
        The formula's fractional number of items (for a simulation: its estimate).
    power : float
        The power the study reaches at ``n`` (nan where the method has no test).
    width : float
        The interval width the study reaches at ``n`` (nan where the method has none).
    lower, upper : float
        The expected confidence limits at ``n`` (nan where the method has none).
    mc_se : float
        The simulation's own standard error of ``n_raw`` (0 for a closed form).
    inputs : dict
        The inputs the answer rests on (defaults filled in).
    details : dict
        What the method computed on the way (variances, non-centrality, the simulation's grid of sizes...).

    References
    ----------
    See :func:`plan` and :func:`plan_simulation`.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> p = ie.plan("icc", method="width", expected=0.85, raters=4, width=0.2)
    >>> p.n, round(p.n_raw, 3), p.source
    (20, 19.154, 'Bonett (2002)')
    """

    coefficient: str
    method: str
    source: str
    n: int
    n_raw: float
    power: float = math.nan
    width: float = math.nan
    lower: float = math.nan
    upper: float = math.nan
    mc_se: float = 0.0
    inputs: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        extra = []
        for name in ("power", "width", "lower", "upper"):
            v = getattr(self, name)
            if np.isfinite(v):
                extra.append(f"{name} {v:.4f}")
        if self.mc_se:
            extra.append(f"Monte-Carlo SE of n {self.mc_se:.2f}")
        tail = f"; {', '.join(extra)}" if extra else ""
        test = f"; {self.details['test']}" if self.details.get("test") else ""
        return (
            f"StudyPlan({self.coefficient} by {self.method}: n = {self.n} (raw {self.n_raw:.4f}){tail}{test}; "
            f"{self.source})"
        )


# ----------------------------------------------------------------------------------------------------- helpers


def _z(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def _missing(name: str, what: str, context: str) -> Exception:
    return invalid(name, f"{what} ({context})", None)


def _proportions(prevalence: Any, name: str = "prevalence") -> np.ndarray:
    """Category proportions: a number p is the binary (1 - p, p); a sequence must sum to 1 (to 1e-3, as kappaSize)."""
    if prevalence is None:
        raise _missing(name, "a proportion or a sequence of category proportions", "this calculator needs it")
    if isinstance(prevalence, (int, float, np.integer, np.floating)):
        p = float(prevalence)
        return np.array([1.0 - p, p])
    props = np.asarray(list(prevalence), dtype=float)
    if props.size < 2 or abs(props.sum() - 1.0) >= 1e-3:
        raise invalid(name, "category proportions in (0, 1) that sum to 1 (at least two)", list(prevalence))
    return props / props.sum()


def _kappa_cells(kappa: float | np.ndarray, props: np.ndarray, raters: int) -> np.ndarray:
    r"""Probabilities of the cells of Donner & Eliasziw's goodness-of-fit model (last axis: cells).

    Binary (two categories, ``props[1]`` the prevalence p): the number j of positive ratings among the m raters,
    :math:`P_j = (1-\kappa)\binom{m}{j}p^j(1-p)^{m-j} + \kappa\,[(1-p)\,1_{j=0} + p\,1_{j=m}]`.
    Several categories: each category's unanimous cell under the Dirichlet-multinomial of intraclass correlation
    :math:`\kappa`, :math:`P_c = p_c\prod_{i=1}^{m-1}\frac{p_c(1-\kappa)+i\kappa}{1+(i-1)\kappa}`, and the cell
    "not unanimous", :math:`1-\sum_c P_c` (kappaSize's ``Power3Cats`` ... for m = 2, ..., 6).
    """
    from scipy.stats import binom

    k = np.asarray(kappa, dtype=float)[..., None]
    if props.size == 2:
        p = props[1]
        j = np.arange(raters + 1)
        cells = (1.0 - k) * binom.pmf(j, raters, p)
        ends = np.zeros(raters + 1)
        ends[0], ends[-1] = 1.0 - p, p
        return cells + k * ends
    all_agree = props * np.ones_like(k)
    for i in range(1, raters):  # the raters, not annotations: m - 1 factors
        all_agree = all_agree * (props * (1.0 - k) + i * k) / (1.0 + (i - 1) * k)
    return np.concatenate([1.0 - all_agree.sum(axis=-1, keepdims=True), all_agree], axis=-1)


def _chi_distance(observed: float, reference: float, props: np.ndarray, raters: int) -> float:
    """Per-item chi-square distance: sum over cells of (P(observed) - P(reference))^2 / P(reference)."""
    a, b = _kappa_cells(observed, props, raters), _kappa_cells(reference, props, raters)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (a - b) ** 2 / b
    return float(np.sum(terms[np.isfinite(terms)]))


def _noncentrality(significance: float, power: float) -> float:
    """The non-centrality lambda of a 1-df chi-square test at level ``significance`` that has this power."""
    from scipy.optimize import brentq
    from scipy.stats import chi2, ncx2

    crit = float(chi2.ppf(1.0 - significance, 1))
    return float(brentq(lambda lam: ncx2.cdf(crit, 1, lam) - (1.0 - power), 1e-9, 1e4, xtol=1e-12, rtol=1e-14))


def _check_kappa_range(name: str, value: float | None) -> float:
    if value is None:
        raise _missing(name, "a kappa in (0, 1)", "this calculator needs it")
    if not 0.0 < value < 1.0:
        raise invalid(name, "a kappa in (0, 1) for this calculator", value)
    return float(value)


# ----------------------------------------------------------------------------------------------------- kappa


def _kappa_power_donner(null, expected, props, raters, significance, power, sides) -> dict[str, Any]:
    from scipy.stats import chi2, ncx2

    k0, k1 = _check_kappa_range("null", null), _check_kappa_range("expected", expected)
    if k0 == k1:
        raise invalid("expected", "different from null", expected)
    level = significance * (2.0 if sides == 1 else 1.0)  # the chi-square test is two-sided; one side: 2 alpha
    if level >= 1:
        raise invalid("significance", "less than 0.5 for a one-sided test", significance)
    lam = _noncentrality(level, power)
    s = _chi_distance(k1, k0, props, raters)
    n_raw = lam / s
    n = math.ceil(n_raw)
    achieved = float(ncx2.sf(chi2.ppf(1 - level, 1), 1, n * s))
    return {"n_raw": n_raw, "n": n, "power": achieved, "details": {"noncentrality": lam, "chi2_per_item": s}}


def _cantor_q(pi0: float, r1: float, r2: float) -> float:
    q1, q2 = 1.0 - r1, 1.0 - r2
    pie = r1 * r2 + q1 * q2
    pi22 = (pi0 - r1 + q2) / 2.0
    pi11 = pi0 - pi22
    pi12, pi21 = r1 - pi11, r2 - pi11
    return (1.0 - pie) ** -4 * (
        pi11 * (1.0 - pie - (r2 + r1) * (1.0 - pi0)) ** 2
        + pi22 * (1.0 - pie - (q2 + q1) * (1.0 - pi0)) ** 2
        + (1.0 - pi0) ** 2 * (pi12 * (r2 + q1) ** 2 + pi21 * (q2 + r1) ** 2)
        - (pi0 * pie - 2.0 * pie + pi0) ** 2
    )


def _kappa_power_cantor(null, expected, rate1, rate2, significance, power, sides) -> dict[str, Any]:
    from scipy.stats import norm

    if null is None or expected is None:
        raise _missing("null" if null is None else "expected", "a kappa", "Cantor's calculator needs both")
    if null == expected:
        raise invalid("expected", "different from null", expected)
    pie = rate1 * rate2 + (1 - rate1) * (1 - rate2)
    q1 = _cantor_q(expected * (1 - pie) + pie, rate1, rate2)
    q0 = _cantor_q(null * (1 - pie) + pie, rate1, rate2)
    if not (q0 > 0 and q1 > 0):
        raise invalid("expected", "a kappa the two raters' rates allow (a positive variance)", expected)
    za, zb = _z(1 - significance / sides), _z(power)
    d = abs(expected - null)
    n_raw = ((za * math.sqrt(q0) + zb * math.sqrt(q1)) / d) ** 2
    n = math.ceil(n_raw)
    achieved = float(norm.cdf((math.sqrt(n) * d - za * math.sqrt(q0)) / math.sqrt(q1)))
    return {"n_raw": n_raw, "n": n, "power": achieved, "details": {"q_null": q0, "q_expected": q1, "p_chance": pie}}


def _flack_tau(props: np.ndarray, kappa: float) -> float:
    """Flack et al.'s largest standard deviation of kappa over the tables with these marginals (a linear program)."""
    from scipy.optimize import linprog

    c = props.size
    pe = float(np.sum(props**2))
    p0 = kappa + pe * (1 - kappa)
    if not p0 > 0:
        raise invalid("prevalence", f"marginals under which kappa = {kappa:g} has a positive agreement", props.tolist())
    m = (1 - p0) ** 2 * (props[:, None] + props[None, :]) ** 2
    np.fill_diagonal(m, -(1 - p0) * 2 * props * (2 * (1 - pe) - (1 - p0) * 2 * props))
    eye = np.eye(c)
    a_eq = np.vstack([np.kron(eye, np.ones(c)), np.kron(np.ones(c), eye), np.ones(c * c), eye.ravel()])
    b_eq = np.concatenate([props, props, [1.0, p0]])
    res = linprog(-m.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        raise invalid("prevalence", f"marginals compatible with kappa = {kappa:g}", props.tolist())
    tau2 = p0 * (1 - pe) ** 2 - res.fun - (p0 * pe - 2 * pe + p0) ** 2
    if not tau2 > 0:
        raise invalid("prevalence", f"marginals under which kappa = {kappa:g} has a positive variance", props.tolist())
    return math.sqrt(tau2) / (1 - pe) ** 2


def _kappa_power_flack(null, expected, props, significance, power, sides) -> dict[str, Any]:
    from scipy.stats import norm

    if null is None or expected is None:
        raise _missing("null" if null is None else "expected", "a kappa", "Flack's calculator needs both")
    if null == expected:
        raise invalid("expected", "different from null", expected)
    t0, t1 = _flack_tau(props, null), _flack_tau(props, expected)
    za, zb = _z(1 - significance / sides), _z(power)
    d = abs(expected - null)
    n_raw = ((za * t0 + zb * t1) / d) ** 2
    n = math.ceil(n_raw)
    achieved = float(norm.cdf((math.sqrt(n) * d - za * t0) / t1))
    return {"n_raw": n_raw, "n": n, "power": achieved, "details": {"tau_null": t0, "tau_expected": t1}}


def _kappa_width_donner(expected, lower, upper, props, raters, confidence, width_given=None) -> dict[str, Any]:
    from scipy.stats import chi2

    k0 = _check_kappa_range("expected", expected)
    if lower is None:
        raise _missing("lower", "a kappa below expected", "give width=, or lower= (and upper=)")
    kl = _check_kappa_range("lower", lower)
    if not kl < k0:
        raise invalid("lower", f"less than expected ({k0:g})", lower)
    if upper is not None and not k0 < _check_kappa_range("upper", upper):
        raise invalid("upper", f"greater than expected ({k0:g})", upper)
    crit = float(chi2.ppf(confidence, 1)) if upper is not None else float(chi2.ppf(1 - 2 * (1 - confidence), 1))
    s_low = _chi_distance(k0, kl, props, raters)
    for name, limit, dist in (("lower", kl, s_low), ("upper", upper, None)):
        if limit is not None and not (dist if dist is not None else _chi_distance(k0, limit, props, raters)) > 0:
            shown = "width" if width_given else name
            raise invalid(shown, f"a limit the model can tell from expected = {k0:g} (a wider interval)",
                          width_given if width_given else limit)  # fmt: skip
    n_raw = crit / s_low
    details: dict[str, Any] = {"chi2_critical": crit, "chi2_per_item_lower": s_low}
    s_min = s_low
    if upper is not None:
        s_up = _chi_distance(k0, upper, props, raters)
        n_raw = max(n_raw, crit / s_up)
        details["chi2_per_item_upper"] = s_up
        s_min = min(s_low, s_up)
    # kappaSize's own search starts at 11 items and stops once n S exceeds the critical value by 0.001: one item
    # more than ceil(n_raw) when n_raw is within 0.001 / S below a whole number
    details["n_kappasize"] = max(11, math.ceil((crit + 0.001) / s_min))
    n = math.ceil(n_raw)
    lo = _donner_limit(k0, n, props, raters, crit, -1)
    hi = _donner_limit(k0, n, props, raters, crit, +1) if upper is not None else math.nan
    return {"n_raw": n_raw, "n": n, "lower": lo, "upper": hi, "width": hi - lo, "details": details}


def _donner_limit(k0: float, n: int, props: np.ndarray, raters: int, crit: float, side: int) -> float:
    """The kappa on ``side`` of k0 at which n items' expected chi-square reaches ``crit`` (nan if none in (-1, 1))."""
    from scipy.optimize import brentq

    def gap(k: float) -> float:
        return n * _chi_distance(k0, k, props, raters) - crit

    inner = k0  # gap(k0) = -crit < 0: the bracket starts where the chi-square is 0, however close the limit is
    far = k0
    step = 0.01
    while True:  # walk out until the chi-square passes crit or the model stops being a distribution
        nxt = far + side * step
        if not -1 < nxt < 1 or np.any(_kappa_cells(nxt, props, raters) <= 0):
            return math.nan
        if gap(nxt) >= 0:
            return float(brentq(gap, min(inner, nxt), max(inner, nxt), xtol=1e-12))
        far, inner = nxt, nxt
        step = min(step * 2, 0.1)


def _kappa_fixed_donner(null, expected, n_items, props, raters, confidence, significance) -> dict[str, Any]:
    from scipy.stats import chi2, ncx2

    k0 = _check_kappa_range("expected", expected)
    if n_items is None:
        raise _missing("n_items", "a whole number of items", "method='fixed_n' needs it")
    crit = float(chi2.ppf(1 - 2 * (1 - confidence), 1))
    out: dict[str, Any] = {
        "n_raw": float(n_items),
        "n": int(n_items),
        "lower": _donner_limit(k0, int(n_items), props, raters, crit, -1),
        "details": {"chi2_critical": crit},
    }
    if null is not None:
        k_null = _check_kappa_range("null", null)
        s = _chi_distance(k0, k_null, props, raters)
        out["power"] = float(ncx2.sf(chi2.ppf(1 - significance, 1), 1, n_items * s))
        out["details"]["chi2_per_item"] = s
    return out


def _kappa_width_bloch_kraemer(expected, props, raters, width, confidence) -> dict[str, Any]:
    if props.size != 2 or raters != 2:
        raise invalid("prevalence", "one proportion (a binary rating) with raters=2 for Bloch-Kraemer", props.tolist())
    k = expected
    if k is None or not -1 < k < 1:
        raise invalid("expected", "a kappa in (-1, 1)", k)
    p = props[1]
    v1 = (1 - k) * ((1 - k) * (1 - 2 * k) + k * (2 - k) / (2 * p * (1 - p)))
    if not v1 > 0:
        raise invalid("expected", "a kappa with a positive variance at this prevalence", k)
    z = _z(0.5 + confidence / 2)
    n_raw = 4 * z * z * v1 / width**2
    n = math.ceil(n_raw)
    w = 2 * z * math.sqrt(v1 / n)
    return {
        "n_raw": n_raw,
        "n": n,
        "width": w,
        "lower": k - w / 2,
        "upper": k + w / 2,
        "details": {"variance_times_n": v1, "z": z},
    }


# ----------------------------------------------------------------------------------------------------- ICC


def _icc_f(rho: float, k: int) -> float:
    return (1 + (k - 1) * rho) / (1 - rho)


def _icc_power_walter(null, expected, raters, significance, power, sides, n_items=None) -> dict[str, Any]:
    from scipy.stats import norm

    for name, v in (("null", null), ("expected", expected)):
        if v is None:
            raise _missing(name, "an ICC in [0, 1)", "Walter et al.'s calculator needs it")
        if not 0 <= v < 1:
            raise invalid(name, "an ICC in [0, 1)", v)
    if null == expected:
        raise invalid("expected", "different from null", expected)
    za = _z(1 - significance / sides)
    c = abs(math.log(_icc_f(expected, raters) / _icc_f(null, raters)))
    details = {"log_ratio": c, "z_alpha": za}
    if n_items is not None:
        achieved = float(norm.cdf(math.sqrt((raters - 1) * (n_items - 1) / (2 * raters)) * c - za))
        return {"n_raw": float(n_items), "n": int(n_items), "power": achieved, "details": details}
    n_raw = 1 + 2 * (za + _z(power)) ** 2 * raters / (c**2 * (raters - 1))
    n = math.ceil(n_raw)
    achieved = float(norm.cdf(math.sqrt((raters - 1) * (n - 1) / (2 * raters)) * c - za))
    return {"n_raw": n_raw, "n": n, "power": achieved, "details": details}


def _bonett_width(rho: float, k: int, n: float, z: float) -> float:
    return math.sqrt(8 * z * z * (1 - rho) ** 2 * (1 + (k - 1) * rho) ** 2 / (k * (k - 1) * (n - 1)))


def _icc_width_bonett(expected, raters, width, confidence, n_items=None) -> dict[str, Any]:
    if expected is None or not 0 <= expected < 1:
        raise invalid("expected", "an ICC in [0, 1)", expected)
    z = _z(0.5 + confidence / 2)
    if n_items is not None:
        w = _bonett_width(expected, raters, n_items, z)
        return {"n_raw": float(n_items), "n": int(n_items), "width": w, "details": {"z": z}}
    if width is None:
        raise _missing("width", "the interval's full width", "method='width' needs it")
    rho = expected
    n_raw = 8 * z * z * (1 - rho) ** 2 * (1 + (raters - 1) * rho) ** 2 / (raters * (raters - 1) * width**2) + 1
    correction = 5 * rho if raters == 2 and rho >= 0.7 else 0.0  # Bonett (2002): k = 2 and a high ICC
    n_raw += correction
    n = math.ceil(n_raw)
    return {
        "n_raw": n_raw,
        "n": n,
        "width": _bonett_width(rho, raters, n - correction, z),
        "details": {"z": z, "k2_correction": correction},
    }


# ----------------------------------------------------------------------------------------------------- alpha


def _alpha_minimum(null, prevalence, significance) -> dict[str, Any]:
    if null is None or not 0 <= null < 1:
        raise invalid("null", "the smallest acceptable alpha, in [0, 1)", null)
    if prevalence is None:
        raise _missing("prevalence", "the probability of the least frequent value", "Krippendorff's minimum needs it")
    pc = float(prevalence) if np.ndim(prevalence) == 0 else float(np.min(_proportions(prevalence)))
    if not 0 < pc <= 0.5:
        raise invalid("prevalence", "the probability of the least frequent value, in (0, 0.5]", prevalence)
    z = _z(1 - significance)
    a = null
    n_raw = 2 * z * z * ((1 + a) * (3 - a) / (4 * (1 - a) * pc * (1 - pc)) - a)
    return {"n_raw": n_raw, "n": math.ceil(n_raw), "details": {"z": z, "least_frequent": pc}}


def _judge_calibration(
    budget: int | None,
    prevalence: Any,
    q0: float | None,
    q1: float | None,
    pilot: int,
    n_test: int | None,
    confidence: float,
) -> StudyPlan:
    """Lee et al.'s split of a calibration budget (see :func:`plan`)."""
    from iaa_engine.stats._misclassification import allocate_calibration, lee_interval, rogan_gladen

    if budget is None:
        raise _missing("n_items", "the calibration budget, a whole number", "the judge's planner splits it")
    if prevalence is None or np.ndim(prevalence) != 0:
        raise invalid("prevalence", "the share the judge calls positive, one number in (0, 1)", prevalence)
    if q0 is None or q1 is None:
        raise _missing(
            "specificity" if q0 is None else "sensitivity", "a pilot estimate in [0, 1]", "the planner needs both"
        )
    if pilot > budget / 2:
        raise invalid("n_pilot", f"at most half the budget ({budget // 2})", pilot)
    if float(q0) + float(q1) <= 1:  # as judge_accuracy refuses it: its labels say nothing about the true rate
        raise invalid(
            "specificity + sensitivity",
            "above 1 (a judge no better than chance carries no information about the rate, so no calibration "
            "budget can correct it)",
            round(float(q0) + float(q1), 12),
        )
    p = float(prevalence)
    m0, m1 = allocate_calibration(int(budget), p, float(q0), float(q1), int(pilot))
    inputs: dict[str, Any] = {
        "n_items": budget, "prevalence": p, "specificity": q0, "sensitivity": q1, "n_pilot": pilot,
    }  # fmt: skip
    lo = hi = math.nan
    if n_test is not None:
        inputs.update(n_test=n_test, confidence=confidence)
        if m0 > 0 and m1 > 0:
            lo, hi = lee_interval(p, float(q0), float(q1), int(n_test), m0, m1, confidence)
    return StudyPlan(
        coefficient="judge",
        method="calibration",
        source=_CITATION["lee"].split(";")[0],
        n=int(budget),
        n_raw=float(budget),
        width=hi - lo,
        lower=lo,
        upper=hi,
        inputs=inputs,
        details={
            "source": "lee",
            "citation": _CITATION["lee"],
            "m0": m0,
            "m1": m1,
            "corrected": float(rogan_gladen(p, q0, q1)),
        },
    )


# ----------------------------------------------------------------------------------------------------- plan


#: More items than any study annotates: an answer above this is refused as unreachable (and numerically meaningless).
MAX_PLANNED_ITEMS = 1e9

_NAMES = {"kappa": "kappa", "icc": "the ICC", "alpha": "alpha"}


def _direction(coefficient: str, method: str, null: float | None, expected: float | None, sides: int) -> str:
    """Which way the planned test goes, in words ("testing for kappa below 0.85 (one-sided)"); empty without one."""
    name = _NAMES[coefficient]
    if method == "minimum" and null is not None:
        return f"testing for {name} above {null:g} (one-sided: the smallest acceptable alpha)"
    if method not in ("power", "fixed_n") or null is None or expected is None or null == expected:
        return ""
    way = "below" if expected < null else "above"
    if sides == 2:
        return f"testing {name} against {null:g}, two-sided (the planned value {expected:g} is {way} it)"
    return f"testing for {name} {way} {null:g} (one-sided; the planned value is {expected:g})"


@validate(
    method=NoneOr(Choice("power", "width", "fixed_n", "minimum", "calibration")),
    source=NoneOr(Choice(*sorted(_CITATION))),
    null=NoneOr(Real(-1, 1)),
    expected=NoneOr(Real(-1, 1)),
    prevalence=_PREVALENCE,
    second_prevalence=NoneOr(_PROB),
    raters=Whole(2, 100),
    significance=_PROB,
    power=_PROB,
    sides=NoneOr(Whole(1, 2)),
    width=NoneOr(Real(0, 2, low_open=True)),
    lower=NoneOr(Real(-1, 1)),
    upper=NoneOr(Real(-1, 1)),
    n_items=NoneOr(Whole(2)),
    specificity=NoneOr(Real(0, 1)),
    sensitivity=NoneOr(Real(0, 1)),
    n_pilot=Whole(0),
    n_test=NoneOr(Whole(1)),
)
def plan(
    coefficient: str,
    *,
    method: str | None = None,
    source: str | None = None,
    null: float | None = None,
    expected: float | None = None,
    prevalence: float | Sequence[float] | None = None,
    second_prevalence: float | None = None,
    raters: int = 2,
    significance: float = 0.05,
    power: float = 0.8,
    sides: int | None = None,
    width: float | None = None,
    lower: float | None = None,
    upper: float | None = None,
    confidence: float = 0.95,
    n_items: int | None = None,
    specificity: float | None = None,
    sensitivity: float | None = None,
    n_pilot: int = 0,
    n_test: int | None = None,
) -> StudyPlan:
    r"""How many items a reliability study needs: the published sample-size calculators for kappa, the ICC and
    Krippendorff's alpha.

    ``coefficient`` and ``method`` choose the calculator (``source`` among several for one question):

    ========  ===========  ==================  ==================================================================
    coeff.    method       source              answer
    ========  ===========  ==================  ==================================================================
    kappa     power        ``donner``          Donner & Eliasziw's goodness-of-fit test, 2 or more raters,
                                               2 or more categories (R kappaSize ``PowerBinary``, ``Power3Cats``...)
    kappa     power        ``cantor``          Cantor (1996), 2 raters, binary, each rater's own rate (irr
                                               ``N.cohen.kappa``)
    kappa     power        ``flack``           Flack et al. (1988), 2 raters, 2–10 categories, the largest
                                               variance over the tables with the marginals (irr ``N2.cohen.kappa``)
    kappa     width        ``donner``          n for an expected interval [lower, upper] (kappaSize ``CIBinary``...)
    kappa     width        ``bloch_kraemer``   n for an interval's full width, 2 raters, binary (Bloch–Kraemer)
    kappa     fixed_n      ``donner``          the expected lower limit with ``n_items`` (kappaSize ``FixedN*``),
                                               and the power against ``null`` if given
    icc       power        ``walter``          Walter, Eliasziw & Donner (1998) (``ICC.Sample.Size``)
    icc       width        ``bonett``          Bonett (2002)
    icc       fixed_n      ``walter``          the power (Walter et al.) and the width (Bonett) with ``n_items``
    alpha     minimum      ``krippendorff``    the minimum number of units for the smallest acceptable alpha
    judge     calibration  ``lee``             a calibration budget ``n_items`` split between truly negative and
                                               truly positive items (Lee et al. 2025) for :func:`judge_accuracy`
    ========  ===========  ==================  ==================================================================

    Donner & Eliasziw's model gives each item's m ratings the cell probabilities :math:`P_j(\kappa)` (binary: the
    number of positive ratings, :math:`P_j = (1-\kappa)\binom{m}{j}p^j(1-p)^{m-j} + \kappa[(1-p)1_{j=0} +
    p1_{j=m}]`; several categories: unanimity in each category under the Dirichlet-multinomial, and "not
    unanimous"), and

    .. math::

        n_{power} = \frac{\lambda_{1}(\alpha, 1-\beta)}{\sum_j (P_j(\kappa_1)-P_j(\kappa_0))^2/P_j(\kappa_0)},\qquad
        n_{width} = \frac{\chi^2_{1}}{\sum_j (P_j(\kappa)-P_j(\kappa_L))^2/P_j(\kappa_L)}

    with :math:`\lambda_1` the non-centrality of a 1-df chi-square test of level α with power 1 − β and
    :math:`\chi^2_1` its (1 − 2α) quantile for a one-sided interval (only ``lower``) or its (1 − α) quantile for a
    two-sided one (the larger n of the two limits). Cantor and Flack: :math:`n = ((z_{1-\alpha/s}\tau_0 +
    z_{1-\beta}\tau_1)/(\kappa_1-\kappa_0))^2` with τ the kappa's standard deviation per item under the null and
    the alternative (Flack: the largest over the tables with the marginals). Bloch & Kraemer: :math:`n =
    4z^2(1-\kappa)[(1-\kappa)(1-2\kappa) + \kappa(2-\kappa)/(2p(1-p))]/w^2`. Walter et al.: :math:`n = 1 +
    2k(z_{1-\alpha/s} + z_{1-\beta})^2/((k-1)\ln^2(F_1/F_0))`, :math:`F = (1+(k-1)\rho)/(1-\rho)`. Bonett:
    :math:`n = 8z^2(1-\rho)^2(1+(k-1)\rho)^2/(k(k-1)w^2) + 1`, plus 5ρ when k = 2 and ρ ≥ 0.7 (his correction).
    Krippendorff: :math:`n = 2z^2[(1+\alpha_{min})(3-\alpha_{min})/(4(1-\alpha_{min})p_c(1-p_c)) -
    \alpha_{min}]`, z of the one-sided level. Lee et al.: :math:`m_1 = m/(1 + (1/p - 1)\sqrt{\kappa})`,
    :math:`\kappa = (m_p(1-q_0) + 1)/(m_p(1-q_1) + 1)` with :math:`m_p` pilot items (without a pilot
    :math:`(1-q_0)/(1-q_1)`), rounded and kept within :math:`[m_p, m - m_p]`, :math:`m_0 = m - m_1`
    (:func:`iaa_engine.stats._misclassification.allocate_calibration`); with ``n_test`` the expected interval of
    the corrected rate at that split (Lee et al.'s, :func:`judge_accuracy`).

    Parameters
    ----------
    coefficient : {'kappa', 'icc', 'alpha', 'judge'}
        The coefficient the study will report.
    method : {'power', 'width', 'fixed_n', 'minimum', 'calibration'}, optional
        Power of a test of ``null`` against ``expected``; an interval of a width (or limits); what a fixed
        ``n_items`` achieves; alpha's minimum sample; a judge's calibration budget split. Default: ``'power'`` for
        kappa and the ICC, ``'minimum'`` for alpha and ``'calibration'`` for a judge (their only ones).
    source : str, optional
        The calculator (table above); default: the first of the coefficient's and method's.
    null : float, optional
        The value under the null hypothesis (kappa0, ρ0; for alpha the smallest acceptable alpha). Either side of
        ``expected``: ``expected`` below ``null`` plans a test for a value below it (a one-sided test's direction
        follows ``expected``). ``details['test']`` says which way in words ("testing for kappa below 0.85").
    expected : float, optional
        The anticipated value (kappa1 of a power calculation, the planning value of an interval).
    prevalence : float or sequence of float, optional
        A binary rating's prevalence of the positive category, or each category's proportion (summing to 1);
        Cantor: the first rater's rate of positives; alpha: the probability of the least frequent value.
    second_prevalence : float, optional
        Cantor only: the second rater's rate of positives (default: the first's).
    raters : int, default 2
        Ratings per item (raters, or an ICC's k).
    significance : float, default 0.05
        The test's type I error α.
    power : float, default 0.8
        The power to reach (1 − β).
    sides : {1, 2}, optional
        A one- or two-sided test; default: the source's own (Cantor and Flack 1, Walter 2; Donner's chi-square
        test is two-sided, ``sides=1`` doubles α as kappaSize's one-sided interval does).
    width : float, optional
        The interval's full width (kappa by width: the limits ``expected ± width/2``).
    lower, upper : float, optional
        Donner's interval: the lower limit to keep above (and the upper one to stay below).
    confidence : float, default 0.95
        The interval's coverage (one-sided when only ``lower`` is given).
    n_items : int, optional
        The number of items available (``method='fixed_n'``); the calibration budget m (``'judge'``).
    specificity, sensitivity : float, optional
        ``'judge'``: pilot estimates (or beliefs) of the judge's specificity :math:`q_0` and sensitivity
        :math:`q_1`; ``prevalence`` is then the share p the judge calls positive on the items to be corrected.
    n_pilot : int, default 0
        ``'judge'``: calibration items already labelled in a pilot (the estimates' weight).
    n_test : int, optional
        ``'judge'``: the items to be corrected (for the expected interval).

    Returns
    -------
    StudyPlan
        ``n`` (rounded up), ``n_raw`` (fractional), the power / width / limits reached at ``n``, the inputs and the
        source.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts, a calculator's needed input is missing, or the inputs admit no answer
        (the message names the option and what it must be), including an answer above
        :data:`MAX_PLANNED_ITEMS` items (an interval too narrow, a difference too small to plan for).

    References
    ----------
    Bloch, D. A., & Kraemer, H. C. (1989). 2 × 2 kappa coefficients: measures of agreement or association.
    Biometrics 45(1), 269–287.

    Bonett, D. G. (2002). Sample size requirements for estimating intraclass correlations with desired precision.
    Statistics in Medicine 21(9), 1331–1335.

    Cantor, A. B. (1996). Sample-size calculation for Cohen's kappa. Psychological Methods 1(2), 150–153.

    Donner, A., & Eliasziw, M. (1992). A goodness-of-fit approach to inference procedures for the kappa statistic:
    confidence interval construction, significance-testing and sample size estimation. Statistics in Medicine
    11(11), 1511–1519.

    Donner, A., & Rotondi, M. A. (2010). Sample size requirements for interval estimation of the kappa statistic
    for interobserver agreement studies with a binary outcome and multiple raters. International Journal of
    Biostatistics 6(1), Article 31.

    Flack, V. F., Afifi, A. A., Lachenbruch, P. A., & Schouten, H. J. A. (1988). Sample size determinations for
    the two rater kappa statistic. Psychometrika 53(3), 321–325.

    Krippendorff, K. (2019). Content Analysis: An Introduction to Its Methodology (4th ed.). Sage, §12.

    Rotondi, M. A. (2018). kappaSize: Sample Size Estimation Functions for Studies of Interobserver Agreement.
    R package 1.2.

    Walter, S. D., Eliasziw, M., & Donner, A. (1998). Sample size and optimal designs for reliability studies.
    Statistics in Medicine 17(1), 101–110.

    Examples
    --------
    Kappa 0.4 against 0.6, prevalence 0.3, two raters (kappaSize ``PowerBinary``'s example: 191 items):

    >>> import iaa_engine as ie
    >>> p = ie.plan("kappa", null=0.4, expected=0.6, prevalence=0.3)
    >>> p.n, round(p.n_raw, 2), round(p.power, 3)
    (191, 190.46, 0.801)

    An ICC of 0.85 with four raters known to ±0.1 (Bonett's example) and alpha's minimum sample (Krippendorff):

    >>> ie.plan("icc", method="width", expected=0.85, raters=4, width=0.2).n
    20
    >>> ie.plan("alpha", method="minimum", null=0.8, prevalence=0.25).n
    139

    A calibration budget of 200 items for an LLM judge that calls 40% positive, with a pilot of 10 suggesting
    specificity 0.7 and sensitivity 0.9 (the allocation example of Lee et al.'s LLM-judge-reporting):

    >>> p = ie.plan("judge", method="calibration", n_items=200, prevalence=0.4, specificity=0.7, sensitivity=0.9,
    ...             n_pilot=10)
    >>> p.details["m0"], p.details["m1"]
    (136, 64)
    """
    if not isinstance(coefficient, str) or coefficient not in PLAN_COEFFICIENTS:
        raise invalid("coefficient", "one of " + ", ".join(repr(c) for c in PLAN_COEFFICIENTS), coefficient)
    if method is None:  # each coefficient's first method: alpha has only 'minimum'
        method = PLAN_COEFFICIENTS[coefficient][0]
    if method not in PLAN_COEFFICIENTS[coefficient]:
        allowed = ", ".join(repr(m) for m in PLAN_COEFFICIENTS[coefficient])
        raise invalid("method", f"one of {allowed} for {coefficient!r}", method)
    sources = PLAN_SOURCES[(coefficient, method)]
    src = sources[0] if source is None else source
    if src not in sources:
        raise invalid("source", f"one of {', '.join(repr(s) for s in sources)} for {coefficient} by {method}", source)
    if coefficient == "judge":
        return _judge_calibration(n_items, prevalence, specificity, sensitivity, n_pilot, n_test, confidence)
    side = sides if sides is not None else (2 if src in ("walter", "donner") else 1)
    inputs: dict[str, Any] = {} if coefficient == "alpha" else {"raters": raters}
    if method == "power":
        inputs.update(significance=significance, power=power, sides=side)
    elif method == "minimum" or (method == "fixed_n" and null is not None):
        inputs.update(significance=significance)
    if method in ("width", "fixed_n"):
        inputs["confidence"] = confidence
    if coefficient == "kappa" and method == "width" and width is not None and src == "donner":
        if lower is not None or upper is not None:
            raise invalid("width", "None when lower= or upper= is given", width)
        if expected is None:
            raise _missing("expected", "the planning value of kappa", "width= centres the interval on it")
        lower, upper = expected - width / 2, expected + width / 2
    if src == "donner":
        props = _proportions(prevalence)
        if method == "power":
            out = _kappa_power_donner(null, expected, props, raters, significance, power, side)
        elif method == "width":
            out = _kappa_width_donner(expected, lower, upper, props, raters, confidence, width)
        else:
            out = _kappa_fixed_donner(null, expected, n_items, props, raters, confidence, significance)
        inputs["prevalence"] = props.tolist()
    elif src == "cantor":
        if raters != 2:
            raise invalid("raters", "2 for Cantor's calculator", raters)
        if prevalence is None or np.ndim(prevalence) != 0:
            raise invalid("prevalence", "the first rater's rate of positives, one number (Cantor)", prevalence)
        r1 = float(prevalence)  # type: ignore[arg-type]
        r2 = r1 if second_prevalence is None else float(second_prevalence)
        out = _kappa_power_cantor(null, expected, r1, r2, significance, power, side)
        inputs.update(prevalence=r1, second_prevalence=r2)
    elif src == "flack":
        if raters != 2:
            raise invalid("raters", "2 for Flack's calculator", raters)
        props = _proportions(prevalence)
        if props.size > 10:
            raise invalid("prevalence", "at most 10 category proportions (Flack)", list(props))
        out = _kappa_power_flack(null, expected, props, significance, power, side)
        inputs["prevalence"] = props.tolist()
    elif src == "bloch_kraemer":
        if width is None:
            raise _missing("width", "the interval's full width", "Bloch-Kraemer needs it")
        props = _proportions(prevalence)
        out = _kappa_width_bloch_kraemer(expected, props, raters, width, confidence)
        inputs["prevalence"] = props.tolist()
    elif src == "walter":
        if method == "fixed_n":
            if n_items is None:
                raise _missing("n_items", "a whole number of items", "method='fixed_n' needs it")
            out = {"n_raw": float(n_items), "n": int(n_items), "details": {}}
            if null is not None:
                out = _icc_power_walter(null, expected, raters, significance, power, side, n_items)
            if expected is not None:
                bon = _icc_width_bonett(expected, raters, None, confidence, n_items)
                out["width"] = bon["width"]
        else:
            out = _icc_power_walter(null, expected, raters, significance, power, side)
    elif src == "bonett":
        out = _icc_width_bonett(expected, raters, width, confidence)
    else:
        out = _alpha_minimum(null, prevalence, significance)
        inputs["prevalence"] = out["details"]["least_frequent"]
    if method != "fixed_n" and not float(out["n_raw"]) <= MAX_PLANNED_ITEMS:
        drives = ("width", width) if width is not None else ("lower", lower) if method == "width" else (
            ("expected", expected))  # fmt: skip
        raise invalid(
            drives[0],
            f"a value a study can reach: it needs about {float(out['n_raw']):.2g} items (more than "
            f"{MAX_PLANNED_ITEMS:.0e}); " + ("widen the interval" if method == "width" else "plan a larger difference"),
            drives[1],
        )
    inputs.update(
        {k: v for k, v in (("null", null), ("expected", expected), ("width", width), ("lower", lower),
                           ("upper", upper), ("n_items", n_items)) if v is not None}
    )  # fmt: skip
    test = _direction(coefficient, method, null, expected, side)
    if test:
        out.setdefault("details", {})["test"] = test
    return StudyPlan(
        coefficient=coefficient,
        method=method,
        source=_CITATION[src].split(";")[0] if (coefficient, method) != ("icc", "fixed_n") else _ICC_FIXED,
        n=int(out["n"]),
        n_raw=float(out["n_raw"]),
        power=float(out.get("power", math.nan)),
        width=float(out.get("width", math.nan)),
        lower=float(out.get("lower", math.nan)),
        upper=float(out.get("upper", math.nan)),
        inputs=inputs,
        details={"source": src, "citation": _CITATION[src], **out.get("details", {})},
    )


# ----------------------------------------------------------------------------------------------------- simulation


def _compositions(m: int, c: int) -> np.ndarray:
    """Every count vector of m ratings over c categories (rows), as a (K, c) integer array."""
    from itertools import combinations

    if math.comb(m + c - 1, c - 1) > 2_000_000:
        raise invalid("annotators", f"few enough for the {c} categories' count patterns to be listed", m)
    bars = np.array(list(combinations(range(m + c - 1), c - 1)), dtype=np.int64).reshape(-1, c - 1)
    edges = np.hstack([np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), m + c - 1)])
    return np.diff(edges, axis=1) - 1


def _model_population(props: np.ndarray, kappa: float, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Count patterns of m ratings and their probabilities: with probability kappa all m ratings are one category
    (drawn from ``props``), otherwise m independent draws from ``props``; the pairwise chance-corrected agreement
    (Fleiss' kappa of the population) is kappa."""
    from scipy.stats import multinomial

    pats = _compositions(m, props.size)
    q = (1.0 - kappa) * multinomial.pmf(pats, m, props)
    unanimous = pats.max(axis=1) == m
    q[unanimous] += kappa * props[np.argmax(pats[unanimous], axis=1)]
    return pats, q / q.sum()


def _subsample_population(patterns: np.ndarray, weight: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The count patterns of m ratings drawn without replacement from each pilot pattern (multivariate
    hypergeometric, exact); items with fewer than m ratings keep theirs."""
    from scipy.special import comb

    n = patterns.sum(axis=1)
    keep = n <= m
    subs = _compositions(m, patterns.shape[1])
    big = patterns[~keep]
    if big.shape[0] * subs.shape[0] * patterns.shape[1] > 50_000_000:
        raise invalid("annotators", "a number whose sub-patterns of the pilot fit in memory", m)
    prob = np.prod(comb(big[:, None, :], subs[None, :, :]), axis=2) / comb(n[~keep], m)[:, None]
    q_sub = weight[~keep] @ prob
    all_pats = np.vstack([patterns[keep], subs])
    all_q = np.concatenate([weight[keep], q_sub])
    uniq, inverse = np.unique(all_pats, axis=0, return_inverse=True)
    q = np.bincount(inverse.ravel(), weights=all_q, minlength=uniq.shape[0])
    return uniq[q > 0], q[q > 0]


class _Population:
    """Count patterns with probabilities: a study of n items is a multinomial draw of n patterns."""

    def __init__(self, patterns: np.ndarray, q: np.ndarray, metric: str, level: str, values: Any, weights: str):
        from iaa_engine.stats._sums import CountSums

        c = patterns.shape[1]
        self.c = c
        self.o_row, self.o_col = np.repeat(np.arange(c), c), np.tile(np.arange(c), c)
        self.features = CountSums.pattern_features(patterns, self.o_row, self.o_col)
        self.size = CountSums.pattern_n_values(patterns)
        self.q = q / q.sum()
        self.metric, self.level, self.values, self.weights = metric, level, values, weights

    def values_at(self, n: int, reps: int, rng: np.random.Generator, chunk: int = 512) -> np.ndarray:
        from iaa_engine.metrics._registry import count_metric_values
        from iaa_engine.stats._sums import CountSums

        out = []
        key = self.metric if self.metric != "spa" else f"spa[{self.weights}]"
        done = 0
        while done < reps:
            b = min(chunk, reps - done)
            draws = rng.multinomial(n, self.q, size=b).astype(float)
            s = CountSums.from_features(draws @ self.features, self.c, self.size, self.o_row, self.o_col)
            out.append(np.asarray(count_metric_values(s, self.level, self.values, self.weights)[key], dtype=float))
            done += b
        return np.concatenate(out)


def _spread(values: np.ndarray, confidence: float, rng: np.random.Generator, n_resample: int = 200):
    """The central ``confidence`` range of the values and its Monte-Carlo standard error (bootstrap of the
    replicates)."""
    v = values[np.isfinite(values)]
    g = (1 - confidence) / 2
    width = float(np.quantile(v, 1 - g) - np.quantile(v, g))
    idx = rng.integers(0, v.size, size=(n_resample, v.size))
    boots = np.quantile(v[idx], [g, 1 - g], axis=1)
    return width, float(np.std(boots[1] - boots[0], ddof=1)), int(values.size - v.size)


@validate(
    metric=Choice(*SIMULATION_METRICS),
    width=Real(0, 2, low_open=True),
    annotators=NoneOr(Whole(2, 50)),
    prevalence=_PREVALENCE,
    kappa=NoneOr(Real(0, 1, high_open=True)),
)
def plan_simulation(
    data: Any = None,
    *,
    metric: str = "krippendorff_alpha",
    width: float = 0.2,
    confidence: float = 0.95,
    annotators: int | None = None,
    prevalence: float | Sequence[float] | None = None,
    kappa: float | None = None,
    level: str | None = None,
    weights: str = "annotations_m1",
    n_rep: int = 1000,
    seed: Any = 0,
    progress: bool | None = None,
) -> StudyPlan:
    r"""How many items a study needs for a coefficient's interval to have a width, by simulation, for any
    count-based coefficient of the library (alpha with missing data, AC1, SPA, ...).

    The population is a distribution of items' count patterns: a pilot's (its items resampled, so its missing
    data and its numbers of annotations per item come along; ``annotators=m`` draws m of each item's
    annotations without replacement, exactly), or stated ``prevalence`` and ``kappa`` (each item's m ratings are
    with probability κ one category drawn from the prevalences, otherwise m independent draws: a population whose
    Fleiss' kappa is κ). A study of n items is a multinomial draw of n patterns; the coefficient of each of
    ``n_rep`` studies comes from the library's count sums, vectorised over the studies. The interval width at n
    is the central ``confidence`` range of those values,

    .. math::

        w(n) = \hat Q_{1-\gamma}(n) - \hat Q_{\gamma}(n),\qquad \gamma = (1 - \text{confidence})/2,

    and since :math:`w(n)\sqrt n` is nearly constant, a first size :math:`n_1 = n_0 (w(n_0)/w)^2` from a start
    :math:`n_0` is refined on the sizes :math:`n_1\cdot\{0.8, 0.9, 1, 1.1, 1.25\}`: :math:`\hat c` the mean of
    :math:`w(n_i)\sqrt{n_i}`, :math:`n_{raw} = (\hat c/w)^2`. The simulation's own error (``mc_se``) is the
    standard error of :math:`n_{raw}`, :math:`2 n_{raw}\,\mathrm{se}(\hat c)/\hat c`, with each width's standard
    error from a bootstrap of its replicates. ``width`` of the result is the width simulated afresh at ``n``.

    Parameters
    ----------
    data : Annotations or convertible, optional
        The pilot (annotations or a count table). ``None``: the model of ``prevalence`` and ``kappa``.
    metric : str, default 'krippendorff_alpha'
        One of :data:`SIMULATION_METRICS` (``'spa'`` with the SPA scheme ``weights``).
    width : float, default 0.2
        The target full width of the interval.
    confidence : float, default 0.95
        The interval's coverage.
    annotators : int, optional
        Annotations per item in the planned study (pilot: drawn from each item's; model: default 2).
    prevalence : float or sequence of float, optional
        The model's category proportions (a number: a binary rating's positive prevalence).
    kappa : float, optional
        The model's chance-corrected agreement, in [0, 1).
    level : str, optional
        Krippendorff's alpha's level of measurement (default: the data's; the model's: nominal).
    weights : str, default 'annotations_m1'
        The SPA scheme of ``'spa'`` and ``'spa_kappa'``.
    n_rep : int, default 1000
        Simulated studies per size.
    seed : int, numpy.random.Generator or None, default 0
        Seed of ``numpy.random.default_rng``.
    progress : bool, optional
        Show progress on stderr (default: only on a terminal).

    Returns
    -------
    StudyPlan
        ``n`` (items, rounded up), ``n_raw``, ``mc_se`` (the Monte-Carlo standard error of ``n_raw``), ``width``
        (simulated afresh at ``n``), ``details`` (the grid of sizes, their widths and standard errors, the
        replicates that were undefined).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts; both or neither of ``data`` and ``prevalence``; the model without
        ``kappa``.
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The pilot has no item with two annotations, or the coefficient is undefined in (nearly) every simulated
        study.

    References
    ----------
    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Morris, T. P., White, I. R., & Crowther, M. J. (2019). Using simulation studies to evaluate statistical
    methods. Statistics in Medicine 38(11), 2074–2102.

    Krippendorff, K. (2019). Content Analysis: An Introduction to Its Methodology (4th ed.). Sage.

    Examples
    --------
    Alpha known to ±0.1 from the classroom pilot (3 annotators on 15 items):

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> pilot = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> p = ie.plan_simulation(pilot, metric="krippendorff_alpha", width=0.2, n_rep=400, seed=1, progress=False)
    >>> 60 < p.n < 140, p.mc_se < 0.1 * p.n
    (True, True)
    """
    if (data is None) == (prevalence is None):
        raise invalid("prevalence", "given when data is None, and None when a pilot is given", prevalence)
    rng = np.random.default_rng(seed)
    if data is None:
        if kappa is None:
            raise _missing("kappa", "the model's kappa in [0, 1)", "stated prevalences need it")
        props = _proportions(prevalence)
        m = 2 if annotators is None else annotators
        patterns, q = _model_population(props, float(kappa), m)
        lvl = level or "nominal"
        values = None
        if lvl in ("interval", "ratio"):
            values = np.arange(props.size, dtype=float)
        inputs: dict[str, Any] = {"prevalence": props.tolist(), "kappa": kappa, "annotators": m}
    else:
        from iaa_engine.data._model import as_annotations
        from iaa_engine.inference._inference import count_patterns

        if kappa is not None:
            raise invalid("kappa", "None when a pilot is given (the pilot's own agreement is used)", kappa)
        pilot = as_annotations(data, level=level)
        lvl = pilot.level
        values = pilot.category_values(lvl) if lvl in ("interval", "ratio") else None
        patterns, mult = count_patterns(pilot)
        q = mult.astype(float)
        if annotators is not None:
            patterns, q = _subsample_population(patterns, q / q.sum(), annotators)
        if not np.any(q[patterns.sum(axis=1) >= 2] > 0):
            raise ValueError("the pilot has no item with two or more annotations: nothing to plan from")
        inputs = {"pilot_items": int(mult.sum()), "annotators": annotators}
    inputs.update(metric=metric, width=width, confidence=confidence, level=lvl, n_rep=n_rep)
    pop = _Population(patterns, q, metric, lvl, values, weights)

    def measure(n: int) -> tuple[float, float, int]:
        vals = pop.values_at(n, n_rep, rng)
        if np.count_nonzero(np.isfinite(vals)) < max(10, n_rep // 2):
            raise ValueError(f"{metric} is undefined in most simulated studies of {n} items: no plan")
        return _spread(vals, confidence, rng)

    with Progress(7, "plan simulation", show=progress) as bar:
        n0 = 100
        w0, _, _ = measure(n0)
        bar.update()
        n1 = max(10.0, n0 * (w0 / width) ** 2)
        grid = sorted({max(5, int(round(n1 * f))) for f in (0.8, 0.9, 1.0, 1.1, 1.25)})
        widths, ses, undefined = [], [], []
        for n in grid:  # five sizes, each vectorised over its n_rep studies
            w_i, se_i, u_i = measure(n)
            widths.append(w_i)
            ses.append(se_i)
            undefined.append(u_i)
            bar.update()
        roots = np.sqrt(np.asarray(grid, dtype=float))
        c_i = np.asarray(widths) * roots
        c = float(c_i.mean())
        se_c = float(np.sqrt(np.sum((np.asarray(ses) * roots) ** 2)) / len(grid))
        n_raw = (c / width) ** 2
        n = max(2, math.ceil(n_raw))
        w_at, se_at, _ = measure(n)
        bar.update()
    return StudyPlan(
        coefficient=metric,
        method="simulation",
        source="simulation (items resampled)" if data is not None else "simulation (stated prevalences)",
        n=n,
        n_raw=n_raw,
        width=w_at,
        mc_se=2 * n_raw * se_c / c,
        inputs=inputs,
        details={
            "start": n0,
            "start_width": w0,
            "grid": grid,
            "grid_widths": widths,
            "grid_width_se": ses,
            "n_undefined": undefined,
            "width_se_at_n": se_at,
            "width_times_sqrt_n": c,
        },
    )
