"""Krippendorff, Mathet, Bouvry and Widlöcher's (2016) unitizing family: uα, |uα, cuα and (k)uα with coverage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import Items, NoneOr, validate
from iaa_engine.base._policy import undefined
from iaa_engine.base._results import ScalarResult, nan_to_none
from iaa_engine.data._spans import span_units
from iaa_engine.stats._unitizing_family import (
    document_coefficients,
    family_coefficients,
    family_sums,
    partition_clashes,
    pooled_matrix,
)

__all__ = ["UnitizingFamily", "unitizing_family", "NO_UNIT"]

#: The value of the stretches no annotator unit covers (the gaps), ∅ in Krippendorff et al. (2016).
NO_UNIT = "∅"
_METRIC = "Krippendorff's unitizing alpha uα (2016)"
_SHOW = 5
_TABLES = ("coincidence", "expected", "per_value", "per_document", "document_coincidences")


@dataclass(frozen=True, eq=False, repr=False)
class UnitizingFamily(ScalarResult):
    """The 2016 unitizing family of a span table: uα, ``|uα``, cuα, (k)uα with coverage, and their matrices.

    Returned by :func:`unitizing_family`. The headline (``estimate``) is uα over every document (the documents'
    coincidences added up).

    Attributes
    ----------
    metric : str
        ``'unitizing_family'``.
    estimate : float
        uα: boundaries and values at once (``replace_undefined_by`` where undefined).
    binary : float
        ``|uα``: units against gaps, every value taken as one (nan where undefined).
    coding : float
        cuα: the values of the units where units of two annotators intersect (nan where undefined).
    coding_coverage : float
        The share of the pooled coincidences cuα rests on: l*.. / l.. (the valued-with-valued intersections).
    d_o, d_e : float
        uα's observed and expected disagreement, as shares of l.. (uα = 1 - d_o / d_e).
    n_units : int
        Units of positive length (spans after merging, if ``overlaps='merge'``).
    n_annotators, n_documents, n_categories : int
        Annotators (m), documents and values other than ∅.
    length : float
        The length L of the whole continuum (the sum of the documents' lengths); l.. = m L.
    coincidence : pandas.DataFrame
        The pooled observed coincidences l_ck (lengths of intersections), ∅ first; rows and columns are values.
    expected : pandas.DataFrame
        The expected coincidences e_ck of uα.
    per_value : pandas.DataFrame
        One row per value k ≠ ∅: ``value``, ``length`` (l_k.), ``coded_length`` (l*_k.), ``coverage``
        (l*_k. / l_k.), ``alpha`` ((k)uα; nan where undefined).
    per_document : pandas.DataFrame
        One row per document: ``document``, ``begin``, ``length``, ``n_units``, ``u_alpha``, ``binary_alpha``,
        ``coding_alpha``, ``coding_coverage``, each on the document's own coincidences, and ``n_annotators`` (m_d).
    document_coincidences : pandas.DataFrame
        Each document's non-zero coincidences, long: ``document``, ``value``, ``other``, ``length``; summed over the
        documents they give ``coincidence``.

    References
    ----------
    Krippendorff, K., Mathet, Y., Bouvry, S., & Widlöcher, A. (2016). On the reliability of unitizing textual
    continua: Further developments. Quality & Quantity 50(6), 2347-2364.

    Krippendorff, K. (2019). Content Analysis: An Introduction to Its Methodology (4th ed.), §12.6. Sage.

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"annotator": ["ann", "bob"], "start": [2, 3], "end": [6, 6], "label": ["PER", "PER"]})
    >>> result = ie.unitizing_family(spans, continuum=(0, 10))
    >>> round(result.estimate, 4), round(result.binary, 4)
    (0.8011, 0.8011)
    >>> result.coincidence
            ∅  PER
    ∅    12.0  1.0
    PER   1.0  6.0
    """

    metric: str
    estimate: float
    binary: float
    coding: float
    coding_coverage: float
    d_o: float
    d_e: float
    n_units: int
    n_annotators: int
    n_documents: int
    n_categories: int
    length: float
    coincidence: pd.DataFrame
    expected: pd.DataFrame
    per_value: pd.DataFrame
    per_document: pd.DataFrame
    document_coincidences: pd.DataFrame

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the scalars; the matrices as {row: {column: value}}; the tables as lists of records."""
        out = {k: nan_to_none(getattr(self, k)) for k in self.keys() if k not in _TABLES}
        for name in ("coincidence", "expected"):
            frame = getattr(self, name)
            out[name] = {str(r): {str(c): nan_to_none(frame.loc[r, c]) for c in frame.columns} for r in frame.index}
        for name in ("per_value", "per_document", "document_coincidences"):
            table = getattr(self, name)
            out[name] = [{k: nan_to_none(v) for k, v in row.items()} for row in table.to_dict("records")]
        return out

    def __repr__(self) -> str:
        return (
            f"UnitizingFamily(uα {self.estimate:.4f}, |uα {self.binary:.4f}, cuα {self.coding:.4f} "
            f"(coverage {self.coding_coverage:.3f}); {self.n_units} units, {self.n_annotators} annotators, "
            f"{self.n_categories} values, {self.n_documents} documents)"
        )


def _refuse_overlaps(units: Any, clash: np.ndarray) -> None:
    """An annotator's units of different labels that overlap: the 2016 family needs one partition per annotator."""
    rows = np.flatnonzero(clash)
    shown = [
        {
            "document": units.documents[units.document[i]],
            "annotator": units.annotators[units.annotator[i]],
            "start": float(units.begin[i] + units.document_begin[units.document[i]]),
            "end": float(units.end[i] + units.document_begin[units.document[i]]),
            "label": units.categories[units.category[i]],
        }
        for i in rows[:_SHOW]
    ]
    more = rows.size - len(shown)
    raise ValueError(
        "the 2016 unitizing family needs each annotator's units apart whatever their labels (each annotator "
        "partitions the continuum into units and gaps); these units overlap an earlier unit of the same annotator: "
        + "; ".join(map(str, shown))
        + (f" (and {more} more)" if more > 0 else "")
        + ". ie.unitizing_alpha (Krippendorff 1995/2004) accepts overlapping units of different labels"
    )


def _positive_units(units: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The units of positive length as (document, rater code, category, begin, end) arrays, and the number of rater
    codes; refuses an annotator's overlapping units (:func:`_refuse_overlaps`). Shared by :func:`unitizing_family`
    and the Dask engine's partitions."""
    codes, n_codes = units.rater_codes()
    positive = units.end > units.begin
    doc, rater = units.document[positive], codes[positive]
    cat, begin, end = units.category[positive], units.begin[positive], units.end[positive]
    clash = partition_clashes(doc, rater, begin, end)
    if clash.any():
        picked = np.flatnonzero(positive)[clash]
        mask = np.zeros(units.begin.size, bool)
        mask[picked] = True
        _refuse_overlaps(units, mask)
    return doc, rater, cat, begin, end, n_codes


def _family_estimate(pooled: dict, n_units: int, R: int, used: bool, L: float, replace_undefined_by: float) -> float:
    """The pooled uα, or ``replace_undefined_by`` (with the policy's warning and its reason) where it is
    undefined: no unit, fewer than two annotators, no document with two participants, no continuum, or 0/0.
    Shared by :func:`unitizing_family` and the Dask engine's finishing."""
    if n_units == 0:
        return undefined(_METRIC, "the study holds no unit (of positive length)", replace_undefined_by)
    if R < 2:
        return undefined(_METRIC, "fewer than two annotators", replace_undefined_by)
    if not used:
        return undefined(_METRIC, "no document has two participants or more", replace_undefined_by)
    if not L > 0:
        return undefined(_METRIC, "the continuum has length 0", replace_undefined_by)
    if not np.isfinite(pooled["u"]):
        return undefined(_METRIC, "the expected disagreement is 0, so the coefficient is 0/0", replace_undefined_by)
    return float(pooled["u"])


def _per_document(units: Any, sums: Any, doc: np.ndarray, D: int, Rd: np.ndarray) -> pd.DataFrame:
    """The ``per_document`` table: each document's uα, binary, coding α and coverage from its own sums (NaN for a
    document with fewer than two raters or no length), with its units and raters. Shared by
    :func:`unitizing_family` and the Dask engine's partitions."""
    by_doc = document_coefficients(sums, D)
    degenerate = (Rd < 2) | (units.document_length <= 0)
    for key in by_doc:
        by_doc[key][degenerate] = np.nan
    return pd.DataFrame(
        {
            "document": units.documents,
            "begin": units.document_begin,
            "length": units.document_length,
            "n_units": np.bincount(doc, minlength=D).astype(np.int64),
            "u_alpha": by_doc["u"],
            "binary_alpha": by_doc["binary"],
            "coding_alpha": by_doc["coded"],
            "coding_coverage": by_doc["coverage"],
            "n_annotators": Rd.astype(np.int64),
        }
    )


@validate(annotators=NoneOr(Items(what="a sequence of annotator names")))
def unitizing_family(
    spans: Any,
    *,
    continuum: Any = None,
    annotators: Any = None,
    participants: Any = None,
    overlaps: str = "raise",
    replace_undefined_by: float = np.nan,
) -> UnitizingFamily:
    r"""Krippendorff, Mathet, Bouvry and Widlöcher's (2016) unitizing family: uα, ``|uα``, cuα and (k)uα.

    Each of the m annotators partitions every document into segments: its units (spans with a value) and the gaps
    between them (the value ∅). The observed coincidence of values c and k is the length of the intersections of
    c-segments of one annotator with k-segments of another (Krippendorff et al. 2016, eq. 1; Krippendorff 2019,
    §12.6):

    .. math::

        l_{ck} = \frac{1}{m-1}\sum_i\sum_{j\ne i}\sum_g\sum_h |s_{icg} \cap s_{jkh}|,\qquad
        e_{ck} = l_{..}\,\frac{l_{c.}\,l_{.k} - [c = k]\,S_c}{l_{..}^2 - \sum_v S_v}

    with S_c = Σ l_g² over the units valued c (a unit is not paired with itself) and S_∅ = l_∅. (a gap counts as
    that many single-length pieces). Then, nominal throughout,

    * uα = 1 - (l.. - Σ_c l_cc) / (l.. - Σ_c e_cc): where the units are and what they are;
    * ``|uα``: the same on the matrix with every value merged into one ("a unit") against ∅: 1 - l_{∅V} / e_{∅V};
      the reliability of telling relevant from irrelevant matter;
    * cuα: the same on the coincidences between units only (l*_ck for c, k ≠ ∅), with the self-pairing sums
      S*_c = Σ_i Σ_{j≠i} Σ_g x_ijg² / (m - 1) over the lengths x_ijg of unit g of annotator i covered by units of
      annotator j; it rests on ``coding_coverage`` = l*.. / l.. of the coincidences;
    * (k)uα = 1 - (e*_k. / l*_k.) (l*_k. - l*_kk) / (e*_k. - e*_kk): value k against the other values among the
      intersecting units, with coverage l*_k. / l_k. (the share of k's length that meets another annotator's unit).

    Several documents: their coincidences and self-pairing sums add up (a segment ends at its document's
    boundary), so the pooled values do not depend on the order of the documents; ``per_document`` gives each
    document's uα, ``|uα`` and cuα on its own coincidences, and ``document_coincidences`` each document's matrix.

    This is not α_U of :func:`unitizing_alpha` (Krippendorff 1995, 2004): α_U compares units by the squared
    differences of their boundaries per category, the 2016 family by lengths of intersection over all values at
    once; for two annotators and one label both are 1 when the annotators agree exactly and they differ
    otherwise. The 2016 family requires each annotator's units apart whatever their labels (one partition per
    annotator); ``unitizing_alpha`` allows units of different labels to overlap.

    Edge cases: zero-length units cover nothing and are left out (``n_units`` counts units of positive length);
    a study without units, with one annotator or of length 0, or any coefficient whose expected disagreement is
    0 (e.g. one value only: cuα and (k)uα), is undefined (the headline follows the library's policy:
    ``replace_undefined_by`` and an :class:`~iaa_engine.UndefinedMetricWarning`; the others are nan).

    Parameters
    ----------
    spans : DataFrame, dict of columns or list of rows
        One row per span: ``annotator``, ``start``, ``end`` (exclusive), ``label``, and optionally ``document``.
    continuum : (begin, length), length, mapping or DataFrame, optional
        Each document's continuum, as for :func:`unitizing_alpha`. None: each document from its first start to
        its last end, with a warning.
    annotators : sequence, optional
        Every annotator of the study, when some marked nothing (they count in m; their continuum is one gap).
    participants : DataFrame or mapping, optional
        Who took part in which document (columns ``document`` and ``annotator``, or a mapping document ->
        annotators), as for :func:`unitizing_alpha`: document d's matrix counts its m_d participants only (one
        without a span is one gap), each ordered pair weighed 1/(m_d - 1), so the matrix adds up to m_d L_d and the
        documents' matrices add up to the pooled one (Krippendorff 2019, §12.6, with m_d for m). Documents with
        fewer than two participants are left out.
    overlaps : {'raise', 'merge'}
        A rater's overlapping units of one label: refused, or merged into their union. Overlapping units of
        different labels are always refused (the family needs one partition per annotator).
    replace_undefined_by : float
        Returned (with a warning) where uα is undefined.

    Returns
    -------
    UnitizingFamily
        ``estimate`` (uα), ``binary`` (``|uα``), ``coding`` (cuα) and ``coding_coverage``, the ``coincidence`` and
        ``expected`` matrices, the ``per_value``, ``per_document`` and ``document_coincidences`` tables.

    Raises
    ------
    InvalidParameterError
        For an option of the wrong kind (``continuum``, ``overlaps``, ``annotators``, ``replace_undefined_by``).
    ValueError
        For a span table that is not one (as :func:`unitizing_alpha` says), and for units of one annotator and
        document that overlap.

    References
    ----------
    Krippendorff, K., Mathet, Y., Bouvry, S., & Widlöcher, A. (2016). On the reliability of unitizing textual
    continua: Further developments. Quality & Quantity 50(6), 2347-2364.

    Krippendorff, K. (2019). Content Analysis: An Introduction to Its Methodology (4th ed.), §12.6. Sage.

    Examples
    --------
    Three annotators, two labels, a text of 60 characters:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame(
    ...     [("Alex", 2, 5, "1"), ("Paul", 2, 5, "1"), ("Paul", 10, 20, "2"), ("Susan", 2, 5, "2"),
    ...      ("Susan", 15, 20, "2")], columns=["annotator", "start", "end", "label"])
    >>> result = ie.unitizing_family(spans, continuum=(0, 60))
    >>> round(result.estimate, 4), round(result.binary, 4), round(result.coding, 4)
    (0.3983, 0.5238, 0.3013)
    >>> result.per_value.round(4)
      value  length  coded_length  coverage   alpha
    0     1     6.0           6.0    1.0000  0.3125
    1     2    18.0           8.0    0.4444  0.2930
    """
    units = span_units(spans, continuum, annotators, overlaps, participants)
    R = len(units.annotators)
    C = len(units.categories)
    D = len(units.documents)
    Rd = units.raters()
    use = Rd >= 2  # a document with fewer than two participants holds no pair: left out, as alpha does
    doc, rater, cat, begin, end, n_codes = _positive_units(units)
    counted = use[doc]
    sums = family_sums(
        doc[counted],
        rater[counted],
        cat[counted],
        begin[counted],
        end[counted],
        units.document_length,
        n_codes,
        document_raters=np.where(use, Rd, 0),
    )
    V = C + 1
    matrix, self_sums, coded_self = pooled_matrix(sums, V)
    pooled = family_coefficients(matrix, self_sums, coded_self)
    names = pd.Index([NO_UNIT, *units.categories], dtype=object)
    coincidence = pd.DataFrame(matrix, index=names, columns=names)
    expected = pd.DataFrame(pooled["expected"], index=names, columns=names)
    lengths = matrix.sum(axis=1)
    per_value = pd.DataFrame(
        {
            "value": units.categories,
            "length": lengths[1:],
            "coded_length": pooled["k_length"],
            "coverage": pooled["k_coverage"],
            "alpha": pooled["k_alpha"],
        }
    )
    per_document = _per_document(units, sums, doc, D, Rd)
    document_coincidences = pd.DataFrame(
        {
            "document": units.documents[sums.entry_document] if D else pd.Index([]),
            "value": names[sums.entry_row],
            "other": names[sums.entry_col],
            "length": sums.entry_length,
        }
    )
    L = float(units.document_length[use].sum()) if use.any() else float(units.document_length.sum())
    n_units = int(begin.size)
    estimate = _family_estimate(pooled, n_units, R, bool(use.any()), L, replace_undefined_by)
    defined = bool(use.any()) and L > 0 and n_units > 0
    return UnitizingFamily(
        metric="unitizing_family",
        estimate=estimate,
        binary=float(pooled["binary"]) if defined else float("nan"),
        coding=float(pooled["coded"]) if defined else float("nan"),
        coding_coverage=float(pooled["coverage"]) if defined else float("nan"),
        d_o=float(pooled["d_o"]) if defined else float("nan"),
        d_e=float(pooled["d_e"]) if defined else float("nan"),
        n_units=n_units,
        n_annotators=R,
        n_documents=D,
        n_categories=C,
        length=L,
        coincidence=coincidence,
        expected=expected,
        per_value=per_value,
        per_document=per_document,
        document_coincidences=document_coincidences,
    )
