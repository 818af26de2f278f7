r"""A coefficient read on a benchmark scale with its uncertainty: Gwet's probabilistic benchmarking."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, Choice, NoneOr, Real, validate
from iaa_engine.base._policy import undefined
from iaa_engine.base._results import Estimate, Result, nan_to_none

__all__ = ["BENCHMARK_SCALES", "BenchmarkReading", "benchmark_reading"]

#: The benchmark scales :func:`benchmark_reading` knows: per scale, its bands from the top, ``(lower, upper, name)``.
#: Landis & Koch (1977), Fleiss (1981) and Altman (1991) as R irrCAC 1.0 ships them (``landis.koch``, ``fleiss``,
#: ``altman``; the lowest band of each starts at -1); Krippendorff (2004, p. 241): rely on alpha >= 0.800, draw
#: only tentative conclusions from 0.667 <= alpha < 0.800.
BENCHMARK_SCALES: dict[str, tuple[tuple[float, float, str], ...]] = {
    "landis_koch": (
        (0.8, 1.0, "Almost Perfect"),
        (0.6, 0.8, "Substantial"),
        (0.4, 0.6, "Moderate"),
        (0.2, 0.4, "Fair"),
        (0.0, 0.2, "Slight"),
        (-1.0, 0.0, "Poor"),
    ),
    "fleiss": (
        (0.75, 1.0, "Excellent"),
        (0.4, 0.75, "Intermediate to Good"),
        (-1.0, 0.4, "Poor"),
    ),
    "altman": (
        (0.8, 1.0, "Very Good"),
        (0.6, 0.8, "Good"),
        (0.4, 0.6, "Moderate"),
        (0.2, 0.4, "Fair"),
        (-1.0, 0.2, "Poor"),
    ),
    "krippendorff": (
        (0.8, 1.0, "Reliable"),
        (0.667, 0.8, "Tentative conclusions only"),
        (-1.0, 0.667, "Unreliable"),
    ),
}

_TITLES = {"landis_koch": "Landis-Koch", "fleiss": "Fleiss", "altman": "Altman", "krippendorff": "Krippendorff"}


@dataclass(frozen=True, eq=False)
class BenchmarkReading(Result):
    """A coefficient read on a benchmark scale with its standard error: the result of :func:`benchmark_reading`.

    Attributes
    ----------
    metric : str
        The coefficient's name (``''`` when a bare number was read).
    estimate, se : float
        The coefficient and its standard error.
    scale : str
        The scale (a key of :data:`BENCHMARK_SCALES`).
    threshold : float
        The cumulative probability a band must reach to be the reading.
    bands : pandas.DataFrame
        One row per band, from the top: ``lower``, ``upper``, ``band``, ``probability`` (that the true coefficient
        lies in the band) and ``cumulative`` (that it lies in this band or a better one); NaN when undefined.
    reading : str or None
        The first band, from the top, whose cumulative probability reaches ``threshold`` (None when undefined).
    probability : float
        Its cumulative probability.
    point_band : str or None
        The band the point estimate falls in (the naive reading, shown beside the probabilistic one).

    References
    ----------
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.), chapter 6. Advanced Analytics.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> r = ie.benchmark_reading(0.67, se=0.15, scale="altman")
    >>> r.reading, round(r.probability, 5), r.point_band
    ('Moderate', 0.96356, 'Good')
    >>> print(r)
    0.6700 (SE 0.1500): Moderate or better with probability 0.964 on the Altman scale (point estimate in Good)
    """

    metric: str
    estimate: float
    se: float
    scale: str
    threshold: float
    bands: pd.DataFrame
    reading: str | None
    probability: float
    point_band: str | None

    def to_frame(self) -> pd.DataFrame:
        """One row per band: :attr:`bands`."""
        return self.bands

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the reading, its probability and every band with its probability."""
        b = self.bands
        return nan_to_none(
            {
                "metric": self.metric,
                "estimate": self.estimate,
                "se": self.se,
                "scale": self.scale,
                "threshold": self.threshold,
                "reading": self.reading,
                "probability": self.probability,
                "point_band": self.point_band,
                "bands": [
                    {
                        "lower": float(lo),
                        "upper": float(hi),
                        "band": name,
                        "probability": float(p),
                        "cumulative": float(c),
                    }
                    for lo, hi, name, p, c in b.itertuples(index=False, name=None)
                ],
            }
        )

    def text(self) -> str:
        """One line: the reading with its probability and the point estimate's band (never a bare word)."""
        title = _TITLES.get(self.scale, self.scale)
        if self.reading is None:
            return f"no reading on the {title} scale: the coefficient or its standard error is undefined"
        return (
            f"{self.estimate:.4f} (SE {self.se:.4f}): {self.reading} or better with probability "
            f"{self.probability:.3f} on the {title} scale (point estimate in {self.point_band})"
        )

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"BenchmarkReading({self.metric or 'value'}: {self.text()})"


def _phi(x: np.ndarray | float) -> np.ndarray:
    from scipy import special

    return np.asarray(special.ndtr(x), dtype=float)


@validate(
    value=ANY,
    se=NoneOr(Real(0)),
    scale=Choice(*BENCHMARK_SCALES),
    threshold=Real(0, 1, low_open=True),
)
def benchmark_reading(
    value: Any,
    *,
    se: float | None = None,
    scale: str = "landis_koch",
    threshold: float = 0.95,
) -> BenchmarkReading:
    r"""Read a coefficient on a benchmark scale with its uncertainty (Gwet's probabilistic benchmarking).

    A bare word ("substantial") for a noisy value overstates what is known. Gwet (2014, ch. 6) reads the
    coefficient :math:`\hat\kappa` with its standard error :math:`s`: the true coefficient is taken to be normal
    around :math:`\hat\kappa`, truncated to :math:`[-1, 1]`, and each band :math:`[a, b]` of the scale gets the
    probability

    .. math::

        P(a \le \kappa \le b) = \frac{\Phi\big((\hat\kappa - a)/s\big) - \Phi\big((\hat\kappa - b)/s\big)}
        {\Phi\big((\hat\kappa + 1)/s\big) - \Phi\big((\hat\kappa - 1)/s\big)}

    Summed from the top band down, this gives the cumulative probability that the coefficient lies in a band
    or a better one; the reading is the first band where it reaches ``threshold`` (0.95). This is R irrCAC's
    ``landis.koch.bf``, ``altman.bf`` and ``fleiss.bf`` (Gwet, irrCAC 1.0), which print the cumulative
    probabilities rounded to 5 decimals. With :math:`s = 0` the whole probability is on the point estimate's band.

    Parameters
    ----------
    value : Estimate or float
        The coefficient: an :class:`Estimate` (from :func:`estimate`, with its standard error) or a number
        (then ``se`` is needed).
    se : float, optional
        The standard error (at least 0); default the Estimate's. It may come from the bootstrap
        (:func:`bootstrap`'s ``se`` column).
    scale : {'landis_koch', 'fleiss', 'altman', 'krippendorff'}, default 'landis_koch'
        The bands (:data:`BENCHMARK_SCALES`).
    threshold : float, default 0.95
        The cumulative probability the reading must reach, in (0, 1].

    Returns
    -------
    BenchmarkReading
        The bands with their probabilities, the reading and its probability, and the point estimate's band.
        When the coefficient or its standard error is undefined (NaN), the probabilities are NaN and the reading
        is None, with an :class:`UndefinedMetricWarning`.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``value`` is neither an Estimate nor a number, or a number is given without ``se``.
    ValueError
        The coefficient is above 1.

    References
    ----------
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.), chapter 6, "Benchmarking inter-rater
    reliability coefficients". Advanced Analytics.

    Landis, J. R., & Koch, G. G. (1977). The measurement of observer agreement for categorical data. Biometrics
    33(1), 159–174.

    Fleiss, J. L. (1981). Statistical Methods for Rates and Proportions (2nd ed.). Wiley.

    Altman, D. G. (1991). Practical Statistics for Medical Research. Chapman & Hall.

    Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology (2nd ed.), p. 241. Sage.

    Examples
    --------
    R irrCAC's benchmarking vignette reads Gwet's AC1 of ``cac.raw4raters`` (0.77544, SE 0.14295): the point
    estimate is "Substantial", but only "Moderate" is reached with probability 0.95:

    >>> import iaa_engine as ie
    >>> r = ie.benchmark_reading(0.77544, se=0.14295)
    >>> r.bands.round(5)
       lower  upper            band  probability  cumulative
    0    0.8    1.0  Almost Perfect      0.39674     0.39674
    1    0.6    0.8     Substantial      0.48662     0.88336
    2    0.4    0.6        Moderate      0.11205     0.99542
    3    0.2    0.4            Fair      0.00455     0.99997
    4    0.0    0.2          Slight      0.00003     1.00000
    5   -1.0    0.0            Poor      0.00000     1.00000
    >>> r.reading, r.point_band
    ('Moderate', 'Substantial')
    """
    metric = ""
    if isinstance(value, Estimate):
        metric, est = value.metric, float(value.estimate)
        s = float(value.se) if se is None else float(se)
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        if se is None:
            raise TypeError("benchmark_reading needs se= with a bare number (or pass an Estimate)")
        est, s = float(value), float(se)
    else:
        raise TypeError(f"value must be an Estimate or a number; got {type(value).__name__}")
    if est > 1.0 + 1e-12:
        raise ValueError(f"an agreement coefficient is at most 1; got {est!r}")
    bands = BENCHMARK_SCALES[scale]
    lo = np.array([b[0] for b in bands])
    hi = np.array([b[1] for b in bands])
    names = [b[2] for b in bands]
    nan = float("nan")
    if not (math.isfinite(est) and math.isfinite(s)):
        undefined(
            f"the benchmark reading of {metric or 'the value'}", "its estimate or standard error is undefined", nan
        )
        p = np.full(lo.size, nan)
        reading, prob, point = None, nan, None
    else:
        if s > 0:
            p = (_phi((est - lo) / s) - _phi((est - hi) / s)) / float(_phi((est + 1.0) / s) - _phi((est - 1.0) / s))
        else:  # all the probability on the point estimate's band (the top band holds its upper end)
            p = ((est >= lo) & ((est < hi) | (hi == hi.max()))).astype(float)
            p[1:] *= p[:-1].cumsum() == 0  # a value on a boundary belongs to the higher band
        cum = np.cumsum(p)
        first = np.flatnonzero(cum >= threshold - 1e-12)
        k = int(first[0]) if first.size else lo.size - 1
        reading, prob = names[k], float(cum[k])
        inside = np.flatnonzero((est >= lo) & (est <= hi))
        point = names[int(inside[0])] if inside.size else names[-1]
    frame = pd.DataFrame({"lower": lo, "upper": hi, "band": names, "probability": p, "cumulative": np.cumsum(p)})
    return BenchmarkReading(metric, est, s, scale, float(threshold), frame, reading, prob, point)
