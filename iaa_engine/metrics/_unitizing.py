"""Krippendorff's unitizing alpha (α_U): agreement on where units are and what they are, from a table of spans."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import Choice, Flag, Items, NoneOr, validate
from iaa_engine.base._policy import undefined
from iaa_engine.base._results import ScalarResult, nan_to_none
from iaa_engine.data._spans import SpanUnits, span_units
from iaa_engine.stats._unitizing import concatenated_expected, leave_one_out_sums, unitizing_sums

__all__ = ["UnitizingAlpha", "unitizing_alpha"]

_METRIC = "Krippendorff's unitizing alpha"
_POOLINGS = ("documents", "inception")


@dataclass(frozen=True, eq=False, repr=False)
class UnitizingAlpha(ScalarResult):
    """Krippendorff's unitizing alpha of a span table: the pooled value, per category and per document.

    Returned by :func:`unitizing_alpha`. The headline (``estimate``) is α_U over every category and every document,
    pooled by document (a gap ends at its document's end) or, with ``pooling='inception'``, with the documents
    concatenated as INCEpTION and DKPro Agreement lay them; both values are given (``estimate_documents``,
    ``estimate_inception``).

    Attributes
    ----------
    metric : str
        ``'unitizing_alpha'``.
    estimate : float
        α_U = 1 - D_o / D_e pooled over categories and documents (``replace_undefined_by`` where undefined).
    d_o, d_e : float
        The observed and expected disagreement, each the mean over categories of the per-category values
        (as Krippendorff and DKPro Agreement define the pooled α_U: a ratio of means, not a mean of alphas).
    n_units : int
        Units (spans after merging, if ``overlaps='merge'``).
    n_annotators, n_documents, n_categories : int
        Annotators (R in the formulas), documents and categories (labels).
    length : float
        The length L of the whole continuum (the sum of the lengths of the documents with two participants or more).
    per_category : pandas.DataFrame
        One row per category: ``category``, ``n_units``, ``d_o``, ``d_e``, ``alpha`` (nan where D_e = 0), pooled as
        the headline is.
    per_document : pandas.DataFrame
        One row per document: ``document``, ``begin``, ``length``, ``n_units``, ``d_o``, ``d_e``, ``alpha``,
        ``n_annotators``: α_U of the document on its own continuum among its R_d annotators (its participants, or
        every annotator), pooled over the categories it holds; nan where undefined.
    pooling : str
        How the headline pools documents: ``'documents'`` (each document its own stretch of the continuum, a gap
        ends at its document's end; the default) or ``'inception'`` (documents concatenated as INCEpTION and DKPro
        Agreement lay them, in the order of ``per_document``).
    estimate_documents, estimate_inception : float
        The pooled α_U under each pooling (one of them is ``estimate``); ``estimate_inception`` is nan with
        participants (DKPro's concatenated study has one set of raters for every document) or a single document
        (where both are the same, ``estimate_documents`` is given).
    n_participants : int
        Document-participant pairs when ``participants`` was given, else 0.
    per_annotator : pandas.DataFrame or None
        With ``per_annotator=True``, one row per annotator: ``annotator``, ``n_documents`` (documents taken part
        in), ``n_units``, ``units_per_document`` and ``others_units_per_document`` (units per document taken part
        in, of the annotator and of everyone else), ``mean_length`` and ``others_mean_length`` (mean unit length),
        and ``alpha_without`` (the headline α_U with the annotator left out of every document): who fragments
        (many short units), who misses (few units), whose removal raises α_U.

    References
    ----------
    Krippendorff, K. (1995). On the reliability of unitizing continuous data. Sociological Methodology 25, 47-76.

    Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology (2nd ed.), §12.4. Sage.

    Meyer, C. M., Mieskes, M., Stab, C., & Gurevych, I. (2014). DKPro Agreement: An open-source Java library for
    measuring inter-rater agreement. COLING 2014 System Demonstrations, 105-109.

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"annotator": ["ann", "bob"], "start": [2, 3], "end": [6, 6], "label": ["PER", "PER"]})
    >>> result = ie.unitizing_alpha(spans, continuum=(0, 10))
    >>> round(result.estimate, 4), int(result.per_category.loc[0, "n_units"])
    (0.8426, 2)
    >>> result.to_frame().head(2)
           name            value
    0    metric  unitizing_alpha
    1  estimate         0.842609
    """

    metric: str
    estimate: float
    d_o: float
    d_e: float
    n_units: int
    n_annotators: int
    n_documents: int
    n_categories: int
    length: float
    per_category: pd.DataFrame
    per_document: pd.DataFrame
    pooling: str = "documents"
    estimate_documents: float = float("nan")
    estimate_inception: float = float("nan")
    n_participants: int = 0
    per_annotator: pd.DataFrame | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the scalars, and the two tables as lists of records (undefined values are null)."""
        tables = ("per_category", "per_document", "per_annotator")
        out = {k: nan_to_none(getattr(self, k)) for k in self.keys() if k not in tables}
        for name in tables:
            table = getattr(self, name)
            if table is None:
                out[name] = None
                continue
            out[name] = [{k: nan_to_none(v) for k, v in row.items()} for row in table.to_dict("records")]
        return out

    def __repr__(self) -> str:
        """One line; over several documents it names the pooling, and the other pooling's value when the two differ
        in the printed digits (as ``iaa spans`` does)."""
        pooled = ""
        if self.n_documents > 1:
            by_doc = self.pooling == "documents"
            other = self.estimate_inception if by_doc else self.estimate_documents
            name = "INCEpTION's" if by_doc else "by document"
            pooled = "; pooled by document" if by_doc else "; pooled as INCEpTION (documents concatenated)"
            if np.isfinite(other) and np.isfinite(self.estimate) and f"{other:.4f}" != f"{self.estimate:.4f}":
                pooled += f" ({name} {other:.4f})"
        return (
            f"UnitizingAlpha({self.estimate:.4f}; D_o {self.d_o:.6g}, D_e {self.d_e:.6g}; {self.n_units} units, "
            f"{self.n_annotators} annotators, {self.n_categories} categories, {self.n_documents} documents{pooled})"
        )


def _disagreements(
    observed: np.ndarray, expected: np.ndarray, squares: np.ndarray, R: float, L: np.ndarray | float
) -> tuple[np.ndarray, np.ndarray]:
    """D_o and D_e from the sums; each one division of two exactly computed numbers (nan where the denominator is
    not positive), so that equal disagreements of integer data compare equal."""
    L = np.asarray(L, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        den_o = R * (R - 1.0) * L * L
        den_e = L * (R * L * (R * L - 1.0) - squares)
    if np.isinf(den_e).any() or np.isinf(np.asarray(expected, float)).any():
        raise ValueError(
            f"the continuum is too long for alpha_U in float64 (length {np.max(L):g} with {R} annotators: its "
            "disagreements grow as the cube of the length and overflow); positions count the continuum's smallest "
            "step, so give them in a coarser one (e.g. characters, not nanoseconds)"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = np.where(den_o > 0, observed / np.where(den_o > 0, den_o, 1.0), np.nan)
        d_e = np.where(den_e > 0, 2.0 * expected / np.where(den_e > 0, den_e, 1.0), np.nan)
    return d_o, d_e


def _alpha(d_o: np.ndarray, d_e: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(d_e > 0, 1.0 - d_o / np.where(d_e > 0, d_e, 1.0), np.nan)


@validate(
    annotators=NoneOr(Items(what="a sequence of annotator names")),
    pooling=Choice(*_POOLINGS),
    per_annotator=Flag(),
)
def unitizing_alpha(
    spans: Any,
    *,
    continuum: Any = None,
    annotators: Any = None,
    participants: Any = None,
    pooling: str = "documents",
    per_annotator: bool = False,
    overlaps: str = "raise",
    replace_undefined_by: float = np.nan,
) -> UnitizingAlpha:
    r"""Krippendorff's unitizing alpha (α_U) of a table of spans, per category and pooled, as published.

    Each annotator (rater) marks units (spans with a label) on a continuum; the gaps between one rater's units of
    a category are segments too. For category c, R raters and a continuum of length L (Krippendorff 1995; 2004,
    §12.4; DKPro Agreement's ``KrippendorffAlphaUnitizingAgreement``):

    .. math::

        D_o(c) = \frac{\sum_i \sum_{j \ne i} \sum_g \sum_h \delta^2_c(g, h)}{R(R-1)L^2},\qquad
        D_e(c) = \frac{2}{L}\,
          \frac{\sum_u \big[(N_c-1)\tfrac{l_u(l_u-1)(2l_u-1)}{3}
                + l_u^2 \sum_{\text{gaps } G \ge l_u} (G - l_u + 1)\big]}
               {RL(RL-1) - \sum_u l_u(l_u-1)}

    over the segments g of rater i and h of rater j, the N_c units u of c (length l_u) and the gaps G of every
    rater; δ² is (b_g - b_h)² + (e_g - e_h)² for two units that overlap (b_g < e_h and b_h < e_g), l_g² for a
    unit g inside a gap h (and l_h² mirrored), 0 otherwise. Then α_U(c) = 1 - D_o(c)/D_e(c), and the pooled

    .. math::

        \alpha_U = 1 - \frac{\tfrac1C\sum_c D_o(c)}{\tfrac1C\sum_c D_e(c)}

    (a ratio of means over the C categories, not a mean of the categories' alphas).

    Several documents (``pooling='documents'``, the default) form one continuum of length L = Σ L_d in which a gap
    ends at its document's boundary (a unit cannot cross one), so the pooled value does not depend on the order of
    the documents and the per-document sums add up to it. ``pooling='inception'`` lays the documents end to end as
    INCEpTION and DKPro Agreement do (one study of length Σ L_d, each document at the sum of the lengths before it,
    in the order of ``per_document``): a rater's last gap of a document runs on into the next document's first gap,
    which changes D_e and makes the value depend on the order; it equals DKPro's ``KrippendorffAlphaUnitizingAgreement``
    of that concatenated study. ``per_document`` gives each document's α_U on its own continuum.

    Without ``participants`` every annotator is taken to have unitized every document: a rater without a span in a
    document says it holds no unit; list raters who marked nothing at all in ``annotators``. In a crowd (each
    document seen by a few) give ``participants``: document d's α_U is then among its R_d participants, and the
    pooled value is the coincidence form, N = Σ_d R_d L_d positions and each document's ordered pairs weighed
    1/(R_d - 1) (as alpha pools units with different numbers of values; Krippendorff 2019, §12.6, for u-α):

    .. math::

        D_o(c) = \frac{\sum_d O_d(c) / (R_d - 1)}{N L},\qquad
        D_e(c) = \frac{2 E(c)}{L\,(N(N-1) - \sum_u l_u(l_u-1))}

    with O_d(c) the document's Σ δ² over its ordered pairs of participants and E(c) the sum above over every
    participant's units and gaps; for R_d = R these are the published R(R-1)L² and RL(RL-1). Documents with fewer
    than two participants are left out. Without participants, annotators without a span in most documents are
    reported by an :class:`~iaa_engine.AbsentAnnotatorsWarning` (the value is unchanged).

    Positions are counted in the continuum's resolution (characters, tokens, frames, milliseconds): the terms
    l(l-1) and G - l + 1 count discrete positions, so α_U of times in seconds differs from the same times in
    milliseconds; give float positions in a unit in which one step is the smallest distinguishable stretch.

    Edge cases, as DKPro Agreement 2.3 treats them unless said otherwise:

    * zero-length units count (N_c, and δ² with a unit of another rater they lie strictly inside) but weigh
      nothing; a study whose units all have length 0 has D_o = D_e = 0: undefined (DKPro returns 0.0);
    * a single unit of length 1 gives D_o = D_e exactly, so α_U = 0 (DKPro: 0.0);
    * an empty study (no span), fewer than two annotators or a continuum of length 0: undefined (DKPro: NaN for
      the first two, an ArithmeticException for the third);
    * a rater's overlapping units of one label are refused, naming them (``overlaps='raise'``, as DKPro requires
      them apart), or merged into their union (``overlaps='merge'``); touching units stay two units;
    * DKPro's sweep skips one pair when a rater's last unit of a category is zero-length at the start of another
      rater's last unit; this function follows the definition there (the other unit lies in the gap after the
      zero-length one).

    Undefined results follow the library's policy: ``replace_undefined_by`` and an
    :class:`~iaa_engine.UndefinedMetricWarning`; undefined entries of the two tables are nan, without a warning.

    Parameters
    ----------
    spans : DataFrame, dict of columns or list of rows
        One row per span: ``annotator``, ``start``, ``end`` (exclusive), ``label``, and optionally ``document``.
    continuum : (begin, length), length, mapping or DataFrame, optional
        Each document's continuum. ``(begin, length)`` (or a length, begin 0) applies to every document (one
        document: the study's continuum); a mapping gives one per document (``{"doc1": (0, 120), "doc2": 80}``);
        a DataFrame has columns ``document``, ``begin`` (optional, 0) and ``length`` (for instance the texts'
        lengths). Documents it names without spans are part of the continuum (no rater marked anything there).
        None: each document from its first start to its last end, with a warning.
    annotators : sequence, optional
        Every annotator of the study, when some marked nothing (they count in R).
    participants : DataFrame or mapping, optional
        Who took part in which document: a DataFrame with columns ``document`` and ``annotator`` (one row per
        annotator who saw a document, one who marked nothing included), or a mapping document -> annotators. An
        annotator with spans in a document must be its participant (else a ValueError names them). Not together
        with ``annotators``.
    pooling : {'documents', 'inception'}
        How the headline pools documents (see above); both values are on the result.
    per_annotator : bool
        Also the ``per_annotator`` table (α_U without each annotator, from the pooled sums with everyone by
        leave-one-out sums; with ``pooling='inception'`` one computation of the concatenated study per annotator).
    overlaps : {'raise', 'merge'}
        What to do with a rater's overlapping units of one label in one document.
    replace_undefined_by : float
        Returned (with a warning) where α_U is undefined.

    Returns
    -------
    UnitizingAlpha
        ``estimate`` (pooled α_U), ``d_o``, ``d_e``, ``per_category`` and ``per_document`` tables, counts.

    Raises
    ------
    InvalidParameterError
        For an option of the wrong kind (``continuum``, ``overlaps``, ``annotators``, ``replace_undefined_by``).
    ValueError
        For a span table that is not one: a missing column, a position that is not a finite number, an end
        before its start, a span outside its document's continuum, a missing annotator or label, overlapping
        units of one rater and label (with ``overlaps='raise'``), a document without a continuum.

    References
    ----------
    Krippendorff, K. (1995). On the reliability of unitizing continuous data. Sociological Methodology 25, 47-76.

    Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology (2nd ed.), §12.4, 251-256.
    Sage.

    Meyer, C. M., Mieskes, M., Stab, C., & Gurevych, I. (2014). DKPro Agreement: An open-source Java library for
    measuring inter-rater agreement. COLING 2014 System Demonstrations, 105-109.

    Examples
    --------
    Krippendorff's (2004, p. 254) example: two observers, categories c and k, a continuum from 150 of length 300
    (he prints α_U = 0.8591; the exact value is 0.85867):

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame(
    ...     [("i", 225, 295, "c"), ("i", 370, 400, "c"), ("j", 220, 300, "c"), ("j", 355, 375, "c"),
    ...      ("j", 400, 420, "c"), ("i", 180, 240, "k"), ("i", 300, 350, "k"), ("j", 180, 240, "k"),
    ...      ("j", 300, 350, "k")], columns=["annotator", "start", "end", "label"])
    >>> result = ie.unitizing_alpha(spans, continuum=(150, 300))
    >>> round(result.estimate, 5)
    0.85867
    >>> result.per_category.round(4)
      category  n_units     d_o     d_e   alpha
    0        c        5  0.0144  0.0532  0.7286
    1        k        4  0.0000  0.0490  1.0000
    """
    units = span_units(spans, continuum, annotators, overlaps, participants)
    if pooling == "inception" and not units.same_raters():
        raise ValueError(
            "pooling='inception' lays the documents end to end as one study of the same raters (as INCEpTION and "
            "DKPro Agreement do), which cannot say that documents had different participants; use "
            "pooling='documents' (the default) with participants"
        )
    parts = _compute(units, pooling, involving=per_annotator and pooling == "documents")
    n_units = int(units.begin.size)
    R = len(units.annotators)
    estimate = _headline(parts["estimate"], n_units, R, parts["used"], parts["length"], replace_undefined_by)
    table = None
    if per_annotator:
        table = _per_annotator(units, pooling, parts["sums"] if pooling == "documents" else None)
    return UnitizingAlpha(
        metric="unitizing_alpha",
        estimate=estimate,
        d_o=parts["d_o"],
        d_e=parts["d_e"],
        n_units=n_units,
        n_annotators=R,
        n_documents=len(units.documents),
        n_categories=len(units.categories),
        length=parts["length"],
        per_category=parts["per_category"],
        per_document=parts["per_document"],
        pooling=pooling,
        estimate_documents=parts["documents"],
        estimate_inception=parts["inception"],
        n_participants=0 if units.participant_document is None else int(units.participant_document.size),
        per_annotator=table,
    )


def _headline(value: float, n_units: int, R: int, used: bool, length: float, replace_undefined_by: float) -> float:
    """The pooled α_U, or ``replace_undefined_by`` with the reason it is undefined (shared with the Dask engine)."""
    if n_units == 0:
        return undefined(_METRIC, "the study holds no unit", replace_undefined_by)
    if R < 2:
        return undefined(_METRIC, "fewer than two annotators", replace_undefined_by)
    if not used:
        return undefined(_METRIC, "no document has two participants or more", replace_undefined_by)
    if not length > 0:
        return undefined(_METRIC, "the continuum has length 0", replace_undefined_by)
    if not value == value:
        return undefined(
            _METRIC,
            "the expected disagreement is 0 (e.g. every unit has length 0), so the coefficient is 0/0",
            replace_undefined_by,
        )
    return value


def _ratio(cat_o: np.ndarray, cat_e: np.ndarray) -> float:
    """1 - Σ D_o / Σ D_e (the ratio of sums equals the ratio of means; one division keeps D_o == D_e exact for
    integer data); nan where undefined."""
    total_e = float(np.sum(cat_e)) if cat_e.size else float("nan")
    if not total_e > 0:
        return float("nan")
    return float(1.0 - float(np.sum(cat_o)) / total_e)


def _compute(units: SpanUnits, pooling: str, tables: bool = True, involving: bool = False) -> dict[str, Any]:
    """The pooled values (both poolings), the per-category table of the chosen one and the per-document table.

    Documents with fewer than two raters (participants) hold no pair of annotators and are left out of the pooled
    sums, as alpha leaves out units with fewer than two values. With R_d raters in document d, the pooled
    disagreements are the coincidence form: N = Σ_d R_d L_d positions, D_o(c) = Σ_d O_d(c) / (R_d - 1) / (N L) and
    D_e(c) = 2 E(c) / (L (N (N - 1) - Σ l(l - 1))), E(c) over every participant's units and gaps; for equal R_d = R
    these are the published R(R - 1)L² and RL(RL - 1) (computed in that form then, to the last digit).
    """
    R = len(units.annotators)
    C = len(units.categories)
    D = len(units.documents)
    Rd = units.raters()
    Ld = units.document_length
    use = Rd >= 2
    codes, n_codes = units.rater_codes()
    keep = use[units.document]
    sums = unitizing_sums(
        units.document[keep],
        codes[keep],
        units.category[keep],
        units.begin[keep],
        units.end[keep],
        Ld,
        n_codes,
        C,
        document_raters=np.where(use, Rd, 0),
        involving=involving,
    )
    L = float(Ld[use].sum()) if use.any() else float(Ld.sum())
    counts = np.unique(Rd[use])
    if counts.size <= 1:
        r = float(counts[0]) if counts.size else float(R)
        cat_o, cat_e = _disagreements(sums.category_observed, sums.category_expected, sums.category_squares, r, L)
    else:
        N = float(np.sum((Rd * Ld)[use]))
        weighted = np.bincount(
            sums.pair_category, weights=sums.pair_observed / (Rd[sums.pair_document] - 1.0), minlength=C
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            cat_o = weighted / (N * L)
            den_e = L * (N * (N - 1.0) - sums.category_squares)
            cat_e = np.where(den_e > 0, 2.0 * sums.category_expected / np.where(den_e > 0, den_e, 1.0), np.nan)
    documents_estimate = _ratio(cat_o, cat_e)
    cat_units = np.bincount(units.category, minlength=C).astype(np.int64)

    inception = float("nan")
    inc_o = inc_e = None
    if units.same_raters() and use.any():
        if D > 1:
            # the observed sums are those of the documents pooling (a unit in another's gap is in a gap either way)
            offset = np.cumsum(Ld) - Ld
            expected, squares = concatenated_expected(
                codes,
                units.category,
                units.begin + offset[units.document],
                units.end + offset[units.document],
                float(Ld.sum()),
                int(Rd[0]),
                C,
            )
            inc_o, inc_e = _disagreements(sums.category_observed, expected, squares, float(Rd[0]), L)
            inception = _ratio(inc_o, inc_e)
        else:
            inception = documents_estimate
    if pooling == "inception" and inc_o is not None:
        cat_o, cat_e = inc_o, cast(np.ndarray, inc_e)
    estimate = inception if pooling == "inception" else documents_estimate
    out: dict[str, Any] = {
        "estimate": estimate,
        "documents": documents_estimate,
        "inception": inception,
        "length": L,
        "used": bool(use.any()),
        "d_o": float(np.mean(cat_o)) if C else float("nan"),
        "d_e": float(np.mean(cat_e)) if C else float("nan"),
        "sums": sums,
    }
    if not tables:
        return out
    out["per_category"] = pd.DataFrame(
        {"category": units.categories, "n_units": cat_units, "d_o": cat_o, "d_e": cat_e, "alpha": _alpha(cat_o, cat_e)}
    )
    # per document: each (document, category) pair on the document's own continuum among its R_d raters
    pair_o, pair_e = _disagreements(
        sums.pair_observed,
        sums.pair_expected,
        sums.pair_squares,
        Rd[sums.pair_document].astype(float),
        Ld[sums.pair_document],
    )
    sum_o = np.bincount(sums.pair_document, weights=np.nan_to_num(pair_o, nan=0.0), minlength=D)
    sum_e = np.bincount(sums.pair_document, weights=np.nan_to_num(pair_e, nan=0.0), minlength=D)
    n_cats = np.bincount(sums.pair_document, minlength=D)
    with np.errstate(divide="ignore", invalid="ignore"):
        doc_o = np.where(n_cats > 0, sum_o / np.maximum(n_cats, 1), np.nan)
        doc_e = np.where(n_cats > 0, sum_e / np.maximum(n_cats, 1), np.nan)
    degenerate = (Rd < 2) | (Ld <= 0)
    doc_o[degenerate] = np.nan
    doc_e[degenerate] = np.nan
    out["per_document"] = pd.DataFrame(
        {
            "document": units.documents,
            "begin": units.document_begin,
            "length": Ld,
            "n_units": np.bincount(units.document, minlength=D).astype(np.int64),
            "d_o": doc_o,
            "d_e": doc_e,
            "alpha": _alpha(doc_o, doc_e),
            "n_annotators": Rd.astype(np.int64),
        }
    )
    return out


def _per_annotator(units: SpanUnits, pooling: str, sums: Any = None) -> pd.DataFrame:
    """Each annotator's units against the others' and the headline α_U without them: from the sums with everyone
    (``sums``, computed with ``involving=True``) by :func:`leave_one_out_sums` when pooled by document; for
    INCEpTION's pooling one computation of the concatenated study per annotator (a loop over annotators, not
    over units)."""
    R = len(units.annotators)
    D = len(units.documents)
    length = units.end - units.begin
    n_units = np.bincount(units.annotator, minlength=R).astype(float)
    total_length = np.bincount(units.annotator, weights=length, minlength=R)
    n_docs: np.ndarray
    if units.participant_annotator is None:
        n_docs = np.full(R, float(D))
    else:
        n_docs = np.bincount(units.participant_annotator, minlength=R).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_doc = n_units / n_docs
        others_per_doc = (n_units.sum() - n_units) / (n_docs.sum() - n_docs)
        mean_length = total_length / n_units
        others_mean = (total_length.sum() - total_length) / (n_units.sum() - n_units)
    if sums is not None:
        without = _leave_one_out(units, sums)
    else:
        without = np.array([_compute(units.without(a), pooling, tables=False)["estimate"] for a in range(R)])
    return pd.DataFrame(
        {
            "annotator": units.annotators,
            "n_documents": n_docs.astype(np.int64),
            "n_units": n_units.astype(np.int64),
            "units_per_document": per_doc,
            "others_units_per_document": others_per_doc,
            "mean_length": mean_length,
            "others_mean_length": others_mean,
            "alpha_without": without,
        }
    )


def _leave_one_out(units: SpanUnits, sums: Any) -> np.ndarray:
    """The pooled α_U (by document) without each annotator, from the sums with everyone."""
    R = len(units.annotators)
    C = len(units.categories)
    D = len(units.documents)
    Rd = units.raters()
    use = Rd >= 2
    codes, _ = units.rater_codes()
    keep = use[units.document]
    if units.participant_document is None:
        p_doc = np.repeat(np.arange(D, dtype=np.int64), R)
        p_ann = np.tile(np.arange(R, dtype=np.int64), D)
        p_slot = p_ann
    else:
        p_doc, p_ann = units.participant_document, cast(np.ndarray, units.participant_annotator)
        p_slot = np.arange(p_doc.size) - np.searchsorted(p_doc, p_doc)
    loo = leave_one_out_sums(
        units.document[keep],
        units.annotator[keep],
        codes[keep],
        units.category[keep],
        units.begin[keep],
        units.end[keep],
        units.document_length,
        np.where(use, Rd, 0),
        p_doc,
        p_ann,
        p_slot,
        sums,
        R,
        C,
    )
    N = loo.positions[:, None]
    L = loo.length[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = loo.observed / (N * L)
        den_e = L * (N * (N - 1.0) - loo.squares)
        d_e = np.where(den_e > 0, 2.0 * loo.expected / np.where(den_e > 0, den_e, 1.0), np.nan)
        total_e = d_e.sum(axis=1)
        alpha = np.where((total_e > 0) & (loo.length > 0), 1.0 - d_o.sum(axis=1) / total_e, np.nan)
    return alpha
