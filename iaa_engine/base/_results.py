"""Result containers shared by the metrics."""

from __future__ import annotations

import datetime
import decimal
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

__all__ = ["Result", "ScalarResult", "PairwiseMatrix", "Estimate", "nan_to_none", "printable"]


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(value: Any) -> str:
    """``str(value)`` safe for a terminal: control characters (escape sequences, bidi overrides) shown escaped."""
    text = str(value)
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class _Clean(list):
    """A list already made JSON-safe (by :func:`nan_to_none` on an array): never walked again."""


def _json_scalar(value: Any) -> Any:
    """A JSON-safe form of one value that is not a container."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return f if np.isfinite(f) else None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (pd.Timestamp, datetime.datetime, datetime.date, datetime.time)):
        return None if pd.isna(value) else value.isoformat()
    if isinstance(value, (np.datetime64, np.timedelta64, pd.Timedelta)):
        return None if pd.isna(value) else str(pd.Timestamp(value) if isinstance(value, np.datetime64) else value)
    if isinstance(value, decimal.Decimal):
        return str(value) if value.is_finite() else None
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="backslashreplace")
    if isinstance(value, (set, frozenset)):
        return sorted((nan_to_none(v) for v in value), key=repr)
    if value is pd.NA or value is pd.NaT:
        return None
    return str(value)


def nan_to_none(value: Any) -> Any:
    """JSON-safe copy: non-finite floats become ``None``, numpy scalars Python ones, timestamps ISO text,
    decimals and bytes text, sets sorted lists; any other object its ``str``.

    Arrays are converted vectorised (a 1000 × 1000 matrix costs milliseconds, not a walk over a million values).
    """
    if type(value) is _Clean:
        return value
    if isinstance(value, dict):
        return {str(_json_scalar(k)) if not isinstance(k, str) else k: nan_to_none(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            obj = value.astype(object)
            obj[~np.isfinite(value)] = None
            return _Clean(obj.tolist())
        if value.dtype.kind in "iub":
            return _Clean(value.tolist())
        return _Clean(nan_to_none(value.tolist()))
    if isinstance(value, (pd.Index, pd.Series)):
        return nan_to_none(np.asarray(value.to_numpy(dtype=object)).tolist())
    if isinstance(value, (list, tuple)):
        return [nan_to_none(v) for v in value]
    return _json_scalar(value)


class Result:
    """The shape every public result of iaa_engine shares.

    Results are frozen dataclasses (a computed result is never changed afterwards) with

    * ``to_dict()``: plain, JSON-ready Python data (undefined values are ``None``);
    * ``to_json(**kwargs)``: that, as JSON text;
    * ``to_frame()``: a pandas DataFrame (by default one row per scalar of ``to_dict()``);
    * a readable ``repr`` and ``_repr_html_`` for notebooks.

    Results that are one number with its uncertainty (:func:`iaa_engine.alpha_variance`,
    :func:`iaa_engine.hierarchy_test`) also read like the mapping they used to be: ``result["p_value"]``.

    ``to_dict`` follows JSON's data model (RFC 8259: numbers, strings, lists, objects and ``null``, no NaN), and
    ``to_frame`` returns a pandas DataFrame (McKinney 2010), by default in long form, one row per value
    (Wickham 2014).

    References
    ----------
    Bray, T. (Ed.) (2017). The JavaScript Object Notation (JSON) Data Interchange Format. RFC 8259, Internet
    Engineering Task Force.

    McKinney, W. (2010). Data structures for statistical computing in Python. Proceedings of the 9th Python in
    Science Conference, 56-61.

    Wickham, H. (2014). Tidy data. Journal of Statistical Software 59(10).

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> result = ie.alpha_variance(data)
    >>> isinstance(result, ie.Result)
    True
    >>> result.to_frame().round(4).head(3)
        name   value
    0  alpha  0.6083
    1    d_o  0.2667
    2    d_e  0.6808
    >>> result.to_json()[:24]
    '{"alpha": 0.608308605341'
    """

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self, **kwargs: Any) -> str:
        """JSON text of :meth:`to_dict` (keyword arguments go to :func:`json.dumps`)."""
        import json

        return json.dumps(self.to_dict(), **kwargs)

    def to_frame(self) -> pd.DataFrame:
        """One row per scalar entry of :meth:`to_dict`: columns ``name`` and ``value``."""
        rows = [(k, v) for k, v in self.to_dict().items() if v is None or isinstance(v, (bool, int, float, str))]
        return pd.DataFrame(rows, columns=["name", "value"])

    def __repr__(self) -> str:
        return f"{type(self).__name__}\n{self.to_frame().to_string(index=False)}"

    def _repr_html_(self) -> str:
        return f"<p><b>{type(self).__name__}</b></p>" + self.to_frame()._repr_html_()


class ScalarResult(Result):
    """A result that is one estimate with its uncertainty; fields are read as attributes or as ``result[name]``."""

    __dataclass_fields__: ClassVar[dict[str, Any]]  # every subclass is a dataclass

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return nan_to_none(asdict(self))

    def __getitem__(self, key: str) -> Any:
        if key not in self.__dataclass_fields__:
            raise KeyError(f"{type(self).__name__} has no entry {key!r}; it has {list(self.__dataclass_fields__)}")
        return getattr(self, key)

    def keys(self) -> list[str]:
        return list(self.__dataclass_fields__)

    def __iter__(self):
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.__dataclass_fields__)


@dataclass(frozen=True, eq=False)
class PairwiseMatrix(Result):
    """An annotator × annotator matrix of a pairwise coefficient.

    Returned by :func:`percent_agreement_matrix`, :func:`cohen_kappa_matrix`,
    :func:`scott_pi_matrix` and :func:`krippendorff_alpha_matrix`: entry (a, b)
    is the coefficient of annotators a and b on the items both annotated, the
    pairwise agreement matrix of the *Mathematical Foundations of
    Inter-Annotator Agreement Analysis* technical report (2025), §3.2, eqs.
    (9)-(10), and Datasaur's labeller-vs-labeller matrix, for any of these
    coefficients.

    Attributes
    ----------
    metric : str
        Name of the coefficient (e.g. ``'krippendorff_alpha[nominal]'``).
    annotators : list
        Annotator names, in the order of the rows and columns.
    values : ndarray of float, shape (A, A)
        The coefficient for each pair, computed on the items both annotated
        (symmetric). The diagonal is 1 for every annotator with at least one
        annotation. Undefined entries (no shared item, or a chance-corrected
        coefficient that is 0/0 on the shared items) hold the
        ``replace_undefined_by`` value (``nan`` by default), without a warning.
    n_shared : ndarray of int, shape (A, A)
        Items annotated by both; the diagonal holds each annotator's item count.

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report (5 September 2025), §3.2.

    Datasaur (n.d.). Krippendorff's Alpha Calculation. Datasaur documentation, "Inter-annotator agreement".

    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37-46.

    Scott, W. A. (1955). Reliability of content analysis: the case of nominal scale coding. Public Opinion
    Quarterly 19(3), 321-325.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Examples
    --------
    ann and bob share three items and agree on two; cy shares one item with each:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> rows = [("t1", "ann", "pos"), ("t1", "bob", "pos"), ("t2", "ann", "neg"), ("t2", "bob", "pos"),
    ...         ("t3", "ann", "neg"), ("t3", "bob", "neg"), ("t3", "cy", "neg")]
    >>> data = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    >>> m = ie.krippendorff_alpha_matrix(data)
    >>> m.metric, m.annotators
    ('krippendorff_alpha[nominal]', ['ann', 'bob', 'cy'])
    >>> m.n_shared[0], m.values[0].round(4)
    (array([3, 3, 1]), array([1.    , 0.4444,    nan]))
    >>> m.to_dict()["matrix"][0]  # JSON-ready: undefined entries are None (null)
    [1.0, 0.4444444444444444, None]
    """

    metric: str
    annotators: list
    values: np.ndarray
    n_shared: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """The values as a labelled DataFrame."""
        return pd.DataFrame(self.values, index=self.annotators, columns=self.annotators)

    def to_dict(self) -> dict:
        """JSON-ready: ``{"annotators": [...], "matrix": [[...]], "n_shared": [[...]]}`` with null for undefined."""
        return {
            "annotators": nan_to_none(pd.Index(self.annotators)),
            "matrix": nan_to_none(self.values),
            "n_shared": nan_to_none(self.n_shared),
        }

    def __repr__(self) -> str:
        return f"PairwiseMatrix({self.metric!r}, {len(self.annotators)} annotators)\n{self.to_frame().round(4)}"


@dataclass(frozen=True, eq=False, repr=False)
class Estimate(ScalarResult):
    r"""One coefficient with its standard error, confidence interval and p-value: the shape of every analytic
    inference (:func:`iaa_engine.estimate`, :func:`iaa_engine.icc`).

    Attributes
    ----------
    metric : str
        The coefficient, with its options in brackets (``'fleiss_kappa[quadratic]'``, ``'ICC(2,1)'``).
    estimate : float
        The coefficient on the data.
    se : float
        Its standard error (nan where the method gives none, e.g. the ICC's F-based interval).
    lower, upper : float
        The confidence interval.
    p_value : float
        The test of "the coefficient is 0" (the ICC: its F test).
    confidence : float
        The interval's coverage.
    n_items : int
        Items the inference rests on.
    method : str
        How the standard error, interval and p-value are computed.
    details : dict
        What the method computed on the way (agreement parts, F statistic and degrees of freedom, ...).

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    British Journal of Mathematical and Statistical Psychology 61(1), 29–48.

    Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater reliability.
    Psychological Bulletin 86(2), 420–428.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> e = ie.estimate(data, "fleiss_kappa")
    >>> round(e.estimate, 4) == round(ie.fleiss_kappa(data), 4), e.lower < e.estimate < e.upper
    (True, True)
    """

    metric: str
    estimate: float
    se: float
    lower: float
    upper: float
    p_value: float
    confidence: float
    n_items: int
    method: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        se = "" if not np.isfinite(self.se) else f", SE {self.se:.4f}"
        return (
            f"Estimate({self.metric}: {self.estimate:.4f}{se}, {self.confidence:.0%} CI "
            f"[{self.lower:.4f}, {self.upper:.4f}], p = {self.p_value:.3g}, n = {self.n_items})"
        )
