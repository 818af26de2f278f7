"""Mathet, Widlöcher and Métivier's gamma (γ) and γ-cat: agreement on spans through their best alignment."""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import Flag, Instance, Items, NoneOr, Real, Whole, validate
from iaa_engine.base._policy import invalid, undefined
from iaa_engine.base._results import ScalarResult, nan_to_none
from iaa_engine.data._spans import SpanUnits, span_units
from iaa_engine.stats._gamma import (
    Alignment,
    GammaDissimilarity,
    SpanArrays,
    TooManyAlignmentsError,
    best_alignment,
    pair_dissimilarity,
)

__all__ = ["GammaAgreement", "gamma_agreement", "TooManyAlignmentsError"]

_METRIC = "Gamma (Mathet et al. 2015)"
#: pyannote's segment precision, below which pygamma-agreement's sampler redraws a duration.
_PRECISION = 1e-6
#: Units of all the sampled continua solved in one integer program (they are independent blocks).
_BATCH_UNITS = 5000


@dataclass(frozen=True, eq=False, repr=False)
class GammaAgreement(ScalarResult):
    """Mathet, Widlöcher and Métivier's γ of a span table, with γ-cat and the best alignment.

    Returned by :func:`gamma_agreement`.

    Attributes
    ----------
    metric : str
        ``'gamma'``.
    estimate : float
        γ = 1 - observed_disorder / expected_disorder (1 when the observed disorder is 0).
    se : float
        Standard error of γ from the sampling of the expected disorder (delta method:
        observed_disorder / expected_disorder² × expected_se).
    observed_disorder : float
        The best alignment's disorder: the sum of its unitary alignments' disorders over the mean number of units
        per annotator.
    expected_disorder, expected_se : float
        The mean best-alignment disorder of the sampled continua, and its standard error (sample standard
        deviation / √n_samples).
    gamma_cat, gamma_cat_se : float
        γ-cat (agreement on the categories of the aligned units) and its sampling standard error (1 when its
        observed disorder is 0). Undefined (nan, with the reason in ``gamma_cat_undefined``; no warning, γ being
        the headline) when the study has a single category (there are no labels to disagree on: the value would
        only count units aligned with nothing; pygamma-agreement returns that number), when the best alignment
        aligns no two units, or when its expected disorder is 0 (pygamma-agreement returns 1 and 0 there).
    gamma_cat_undefined : str
        Why γ-cat is undefined; empty when it is defined.
    per_document : pandas.DataFrame
        With ``per_document=True``: one row per document, its γ as if it were the whole study (what
        pygamma-agreement gives on that document alone): ``document``, ``n_units``, ``observed_disorder``,
        ``expected_disorder`` (sampled with the document's own statistics), ``expected_se``, ``gamma`` and ``se``
        (nan without units). Empty otherwise.
    observed_cat_disorder, expected_cat_disorder : float
        γ-cat's observed disorder (on the best alignment) and expected one (mean over the samples).
    n_samples : int
        Sampled continua.
    n_units, n_annotators, n_documents, n_categories : int
        Units (spans), annotators, documents and categories.
    n_candidates : int
        Candidate unitary alignments of the observed continuum after pruning (what the program chose from).
    alpha, beta, delta_empty : float
        The dissimilarity's parameters.
    alignment : pandas.DataFrame
        The best alignment, one row per unit: ``document``, ``unitary_alignment`` (its number), ``annotator``,
        ``start``, ``end``, ``label``, ``disorder`` (of its unitary alignment), ``size`` (units in it).

    References
    ----------
    Mathet, Y., Widlöcher, A., & Métivier, J.-P. (2015). The unified and holistic method Gamma (γ) for
    inter-annotator agreement measure and alignment. Computational Linguistics 41(3), 437-479.

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame({"annotator": ["ann", "ann", "bob", "bob"], "start": [1, 6, 2, 7],
    ...                       "end": [5, 10, 6, 11], "label": ["a", "b", "a", "b"]})
    >>> result = ie.gamma_agreement(spans)
    >>> result.observed_disorder
    0.0625
    >>> round(result.estimate, 4), result.n_samples
    (0.8442, 30)
    >>> result.alignment[["unitary_alignment", "annotator", "start", "end", "disorder"]]
       unitary_alignment annotator  start   end  disorder
    0                  0       ann    1.0   5.0    0.0625
    1                  0       bob    2.0   6.0    0.0625
    2                  1       ann    6.0  10.0    0.0625
    3                  1       bob    7.0  11.0    0.0625
    """

    metric: str
    estimate: float
    se: float
    observed_disorder: float
    expected_disorder: float
    expected_se: float
    gamma_cat: float
    gamma_cat_se: float
    observed_cat_disorder: float
    expected_cat_disorder: float
    n_samples: int
    n_units: int
    n_annotators: int
    n_documents: int
    n_categories: int
    n_candidates: int
    alpha: float
    beta: float
    delta_empty: float
    alignment: pd.DataFrame
    gamma_cat_undefined: str = ""
    per_document: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the scalars, and the alignment as a list of records (undefined values are null)."""
        out = {k: nan_to_none(getattr(self, k)) for k in self.keys() if k not in ("alignment", "per_document")}
        for name in ("alignment", "per_document"):
            out[name] = [{k: nan_to_none(v) for k, v in row.items()} for row in getattr(self, name).to_dict("records")]
        return out

    def __repr__(self) -> str:
        return (
            f"GammaAgreement({self.estimate:.4f} ± {self.se:.2g}; disorder {self.observed_disorder:.6g} observed, "
            f"{self.expected_disorder:.6g} expected over {self.n_samples} samples; {self.n_units} units, "
            f"{self.n_annotators} annotators)"
        )


def _categorical(matrix: Any, categories: pd.Index) -> np.ndarray | None:
    """The categorical dissimilarity matrix in the order of ``categories`` (checked against the labels)."""
    if matrix is None:
        return None
    what = (
        "None (0 for equal labels, 1 otherwise) or a square DataFrame of dissimilarities in [0, 1] indexed by "
        "the labels in both directions, 0 on the diagonal and symmetric"
    )
    if not isinstance(matrix, pd.DataFrame):
        raise invalid("category_dissimilarity", what, matrix)
    if matrix.shape[0] != matrix.shape[1] or set(matrix.index) != set(matrix.columns):
        raise invalid("category_dissimilarity", what, matrix)
    try:
        whole = matrix.loc[:, list(matrix.index)].to_numpy(dtype=float)
    except (TypeError, ValueError) as error:
        raise invalid("category_dissimilarity", what, matrix) from error
    if (
        not np.isfinite(whole).all()
        or (whole < 0).any()
        or (whole > 1).any()
        or np.abs(np.diag(whole)).max(initial=0) > 0
        or not np.allclose(whole, whole.T, rtol=0, atol=1e-12)
    ):
        raise invalid("category_dissimilarity", what, matrix)
    missing = [c for c in categories if c not in matrix.index]
    if missing:
        raise ValueError(
            f"category_dissimilarity has no row or column for the label(s) {', '.join(map(repr, missing[:5]))}"
        )
    return matrix.loc[list(categories), list(categories)].to_numpy(dtype=float)


def _reference_statistics(
    units: SpanUnits, origin: np.ndarray, n: int, codes: np.ndarray | None = None, doc_n: np.ndarray | None = None
) -> dict[str, Any]:
    """pygamma-agreement's ``StatisticalContinuumSampler`` statistics (population means and standard deviations),
    pooled over documents: units per annotator and document, gaps, durations, category frequencies. With
    ``doc_n`` (participants per document, coded 0 .. doc_n - 1 in ``codes``) the unit counts are those of the
    (document, participant) cells only."""
    D = len(units.documents)
    codes = units.annotator if codes is None else codes
    counts = np.bincount(units.document * n + codes, minlength=D * n).astype(float)
    if doc_n is not None:
        counts = counts.reshape(D, n)[np.arange(n)[None, :] < np.where(doc_n >= 2, doc_n, 0)[:, None]]
    start = units.begin + origin[units.document]
    stop = units.end + origin[units.document]
    order = np.lexsort((units.category, stop, start, codes, units.document))
    run = units.document[order] * n + codes[order]
    new = np.concatenate([[True], run[1:] != run[:-1]]) if order.size else np.zeros(0, bool)
    s, e = start[order], stop[order]
    within = s[1:][~new[1:]] - e[:-1][~new[1:]]
    firsts = s[new]
    gaps = np.concatenate([[0.0], within, firsts[firsts > 0]])
    duration = units.end - units.begin
    weights = np.bincount(units.category, minlength=len(units.categories)) / max(units.begin.size, 1)
    return {
        "count": (counts.mean(), counts.std()),
        "gap": (gaps.mean(), gaps.std()),
        "duration": (duration.mean(), duration.std()),
        "weights": weights,
    }


def _sample(
    stats: dict[str, Any], n_samples: int, D: int, n: int, rng: np.random.Generator, doc_n: np.ndarray | None = None
) -> tuple:
    """Sampled continua (pygamma's statistical sampler, vectorised): every (sample, document, annotator) draws its
    number of units |int(N(μ, σ))| (the first annotator of a sample's first document at least 1), each unit a gap
    after the previous unit's end and a duration |N(μ, σ)| (redrawn below 1e-6), and a category by frequency.
    With ``doc_n`` only a document's participants (codes 0 .. doc_n - 1; none where doc_n < 2) draw units."""
    mu, sd = (float(x) for x in stats["count"])
    counts = np.abs(np.trunc(rng.normal(mu, sd, size=(n_samples, D, n)))).astype(np.int64)
    first_doc = 0
    if doc_n is not None:
        taking_part = np.arange(n)[None, :] < np.where(doc_n >= 2, doc_n, 0)[:, None]
        counts[:, ~taking_part] = 0
        first_doc = int(np.argmax(doc_n >= 2))
    counts[:, first_doc, 0] = np.maximum(counts[:, first_doc, 0], 1)
    flat = counts.ravel()
    total = int(flat.sum())
    run = np.repeat(np.arange(flat.size), flat)
    gap_mu, gap_sd = (float(x) for x in stats["gap"])
    dur_mu, dur_sd = (float(x) for x in stats["duration"])
    gap = rng.normal(gap_mu, gap_sd, size=total)
    duration = np.abs(rng.normal(dur_mu, dur_sd, size=total))
    for _ in range(100):
        short = duration < _PRECISION
        if not short.any():
            break
        duration[short] = np.abs(rng.normal(dur_mu, dur_sd, size=int(short.sum())))
    duration = np.maximum(duration, _PRECISION)
    category = rng.choice(stats["weights"].size, size=total, p=stats["weights"])
    step = gap + duration
    reach = np.cumsum(step)
    first = np.concatenate([[0], np.cumsum(flat)[:-1]])
    before = (reach - step)[first[flat > 0]]
    base = np.zeros(flat.size)
    base[flat > 0] = before
    start = gap + (reach - step) - base[run]
    sample = run // (D * n)
    document = (run // n) % D
    annotator = run % n
    return sample, sample * D + document, annotator, start, start + duration, category


def _document_statistics(
    units: SpanUnits, origin: np.ndarray, n: int, codes: np.ndarray | None = None, doc_n: np.ndarray | None = None
) -> dict[str, Any]:
    """:func:`_reference_statistics` of each document on its own (arrays over documents; a document's
    ``weights`` a row): what pygamma-agreement's sampler draws from when given that document alone. With ``doc_n``
    (participants per document, coded 0 .. doc_n - 1 in ``codes``) a document's unit counts are its participants'."""
    D, C = len(units.documents), len(units.categories)
    doc = units.document
    codes = units.annotator if codes is None else codes
    counts = np.bincount(doc * n + codes, minlength=D * n).reshape(D, n).astype(float)
    cells = np.ones((D, n), bool) if doc_n is None else np.arange(n)[None, :] < doc_n[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        count_mean = (counts * cells).sum(axis=1) / cells.sum(axis=1)
        count_sd = np.sqrt((((counts - count_mean[:, None]) ** 2) * cells).sum(axis=1) / cells.sum(axis=1))
    start = units.begin + origin[doc]
    stop = units.end + origin[doc]
    order = np.lexsort((units.category, stop, start, codes, doc))
    run = doc[order] * n + codes[order]
    new = np.concatenate([[True], run[1:] != run[:-1]]) if order.size else np.zeros(0, bool)
    s, e, d = start[order], stop[order], doc[order]
    firsts = new & (s > 0)
    # each document's gaps: a 0 (as pygamma), the gaps within an annotator's run, first starts beyond 0
    gap = np.concatenate([np.zeros(D), s[1:][~new[1:]] - e[:-1][~new[1:]], s[firsts]])
    gap_doc = np.concatenate([np.arange(D), d[1:][~new[1:]], d[firsts]])

    def moments(values: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        size = np.bincount(group, minlength=D).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.bincount(group, weights=values, minlength=D) / size
            var = np.bincount(group, weights=(values - mean[group]) ** 2, minlength=D) / size
        return mean, np.sqrt(var)

    per_doc = np.bincount(doc, minlength=D).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = np.bincount(doc * C + units.category, minlength=D * C).reshape(D, C) / per_doc[:, None]
    return {
        "count": (count_mean, count_sd),
        "gap": moments(gap, gap_doc),
        "duration": moments(units.end - units.begin, doc),
        "weights": weights,
    }


def _sample_documents(
    stats: dict[str, Any], n_samples: int, D: int, n: int, rng: np.random.Generator, doc_n: np.ndarray | None = None
) -> tuple:
    """:func:`_sample` with each document's own statistics (arrays over documents): every document of every sample
    is a continuum sampled as pygamma-agreement samples that document alone (its first annotator at least 1 unit).
    Only documents with units are passed (``D`` of them); with ``doc_n`` only a document's participants (codes
    0 .. doc_n - 1) draw units."""
    mu, sd = (np.asarray(x, float)[None, :, None] for x in stats["count"])
    counts = np.abs(np.trunc(rng.normal(mu, sd, size=(n_samples, D, n)))).astype(np.int64)
    counts[:, :, 0] = np.maximum(counts[:, :, 0], 1)
    if doc_n is not None:
        counts[:, ~(np.arange(n)[None, :] < doc_n[:, None])] = 0
    flat = counts.ravel()
    run = np.repeat(np.arange(flat.size), flat)
    document = (run // n) % D
    gap_mu, gap_sd = (np.asarray(x, float)[document] for x in stats["gap"])
    dur_mu, dur_sd = (np.asarray(x, float)[document] for x in stats["duration"])
    gap = rng.normal(gap_mu, gap_sd)
    duration = np.abs(rng.normal(dur_mu, dur_sd))
    for _ in range(100):
        short = duration < _PRECISION
        if not short.any():
            break
        duration[short] = np.abs(rng.normal(dur_mu[short], dur_sd[short]))
    duration = np.maximum(duration, _PRECISION)
    cumulative = np.cumsum(stats["weights"], axis=1)  # each document's categories by its frequencies
    cumulative[:, -1] = 1.0
    C = cumulative.shape[1]
    pick = np.searchsorted((cumulative + np.arange(D)[:, None]).ravel(), document + rng.random(run.size), "right")
    category = np.minimum(pick - document * C, C - 1)
    step = gap + duration
    reach = np.cumsum(step)
    first = np.concatenate([[0], np.cumsum(flat)[:-1]])
    base = np.zeros(flat.size)
    base[flat > 0] = (reach - step)[first[flat > 0]]
    start = gap + (reach - step) - base[run]
    sample = run // (D * n)
    return sample, sample * D + document, run % n, start, start + duration, category


def _per_document(
    units: SpanUnits,
    observed: Alignment,
    origin: np.ndarray,
    n: int,
    diss: GammaDissimilarity,
    n_samples: int,
    rng: np.random.Generator,
    max_alignments: int,
    codes: np.ndarray | None = None,
    doc_n: np.ndarray | None = None,
) -> pd.DataFrame:
    """Each document's γ as if it were the study (its own observed disorder and its own sampler's statistics),
    with the sampling's standard errors; nan for a document without units. With ``doc_n`` (participants per
    document, coded 0 .. doc_n - 1 in ``codes``) a document is its participants' study: n̄ = N_d / n_d, and its
    sampled continua hold units of its participants only."""
    D = len(units.documents)
    n_units = np.bincount(units.document, minlength=D)
    raters = np.full(D, n) if doc_n is None else doc_n
    with np.errstate(invalid="ignore", divide="ignore"):
        observed_d = np.bincount(observed.group, weights=observed.disorder, minlength=D) / (n_units / raters)
    keep = np.flatnonzero((n_units > 0) & (raters >= 2))
    stats = _document_statistics(units, origin, n, codes, doc_n)
    stats = {k: tuple(x[keep] for x in v) if isinstance(v, tuple) else v[keep] for k, v in stats.items()}
    kept_n = None if doc_n is None else doc_n[keep]
    K = keep.size
    sums = np.zeros((n_samples, K))
    counts = np.zeros((n_samples, K))
    per_batch = max(1, _BATCH_UNITS // max(int(n_units.sum()), 1))
    for first in range(0, n_samples, per_batch):
        size = min(per_batch, n_samples - first)
        if K == 0:
            break
        sample, group, annotator, begin, end, category = _sample_documents(stats, size, K, n, rng, kept_n)
        group_n = None if kept_n is None else np.tile(kept_n, size)
        try:
            al = best_alignment(SpanArrays(group, annotator, begin, end, category, n, group_n), diss, max_alignments)
        except TooManyAlignmentsError as error:
            raise TooManyAlignmentsError(f"in a sampled continuum (for the expected disorder): {error}") from None
        sums[first : first + size] = np.bincount(al.group, weights=al.disorder, minlength=size * K).reshape(size, K)
        counts[first : first + size] = np.bincount(group, minlength=size * K).reshape(size, K)
    disorder = sums / (counts / (n if kept_n is None else kept_n[None, :]))
    expected = np.full(D, np.nan)
    expected_se = np.full(D, np.nan)
    if K:
        expected[keep] = disorder.mean(axis=0)
        expected_se[keep] = disorder.std(axis=0, ddof=1) / np.sqrt(n_samples)
    gamma = np.full(D, np.nan)
    se = np.full(D, np.nan)
    ok = (n_units > 0) & (raters >= 2) & (expected > 0)
    zero = ok & (observed_d == 0)
    gamma[ok] = 1.0 - observed_d[ok] / expected[ok]
    se[ok] = observed_d[ok] / expected[ok] ** 2 * expected_se[ok]
    gamma[zero], se[zero] = 1.0, 0.0
    return pd.DataFrame(
        {
            "document": units.documents,
            "n_units": n_units.astype(np.int64),
            "observed_disorder": observed_d,
            "expected_disorder": expected,
            "expected_se": expected_se,
            "gamma": gamma,
            "se": se,
        }
    )


def _cat_disorders(
    al: Alignment,
    begin: np.ndarray,
    end: np.ndarray,
    category: np.ndarray,
    diss: GammaDissimilarity,
    owner: np.ndarray,
    n_owners: int,
) -> np.ndarray:
    """γ-cat's disorder of each owner's (sample's) part of an alignment, as pygamma-agreement 0.5.9 computes it:
    Σ w d_cat / Σ w over the pairs of aligned units, w = max(0, 1 - α d_pos) / (units in the unitary alignment
    - 1), with a pair of a unit and ∅ adding Δ∅² to the numerator and Δ∅ to the denominator; 0 without any pair
    of aligned units."""
    m = al.members
    n = m.shape[1]
    real = m >= 0
    nv = real.sum(axis=1)
    base = np.where(nv >= 2, 1.0 / np.maximum(nv - 1, 1), 0.0)
    num = np.zeros(m.shape[0])
    den = np.zeros(m.shape[0])
    paired = np.zeros(m.shape[0], bool)
    for a in range(n):
        for b in range(a + 1, n):
            both = real[:, a] & real[:, b]
            u, v = m[both, a], m[both, b]
            _, positional, categorical = pair_dissimilarity(
                diss, begin[u], end[u], category[u], begin[v], end[v], category[v]
            )
            w = base[both] * np.maximum(0.0, 1.0 - diss.alpha * positional)
            num[both] += categorical * w
            den[both] += w
            paired |= both
            one = real[:, a] ^ real[:, b]
            num[one] += diss.delta_empty**2
            den[one] += diss.delta_empty
    total_num = np.bincount(owner, weights=num, minlength=n_owners)
    total_den = np.bincount(owner, weights=den, minlength=n_owners)
    any_pair = np.bincount(owner, weights=paired, minlength=n_owners) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(any_pair & (total_num != 0), total_num / np.where(total_den > 0, total_den, 1.0), 0.0)


def _ratio(observed: float, expected: float, se_expected: float) -> tuple[float, float]:
    """(1 - O/E, its delta-method standard error); (1, 0) when O = 0; nan where E is not positive."""
    if observed == 0:
        return 1.0, 0.0
    if not expected > 0:
        return float("nan"), float("nan")
    return 1.0 - observed / expected, observed / expected**2 * se_expected


@validate(
    annotators=NoneOr(Items(what="a sequence of annotator names")),
    alpha=Real(0),
    beta=Real(0),
    delta_empty=Real(0, low_open=True),
    category_dissimilarity=NoneOr(Instance(pd.DataFrame, "a square DataFrame of label dissimilarities")),
    n_samples=Whole(2, 100_000),
    max_alignments=Whole(1),
    per_document=Flag(),
)
def gamma_agreement(
    spans: Any,
    *,
    continuum: Any = None,
    annotators: Any = None,
    participants: Any = None,
    alpha: float = 1.0,
    beta: float = 1.0,
    delta_empty: float = 1.0,
    category_dissimilarity: Any = None,
    n_samples: int = 30,
    seed: Any = 0,
    max_alignments: int = 1_000_000,
    per_document: bool = False,
    replace_undefined_by: float = np.nan,
) -> GammaAgreement:
    r"""Mathet, Widlöcher and Métivier's γ (2015) of a table of spans, with γ-cat, as pygamma-agreement defines it.

    Units of different annotators are *aligned*: a unitary alignment ă holds at most one unit of each of the n
    annotators (∅ for the others) and its disorder is the mean dissimilarity of its pairs,

    .. math::

        \delta(\breve a) = \binom{n}{2}^{-1} \sum_{i<j} d(u_i, u_j),\qquad
        d(u, v) = \alpha\,\Delta_\varnothing\Big(\frac{|b_u-b_v| + |e_u-e_v|}{l_u+l_v}\Big)^2
                  + \beta\,\Delta_\varnothing\, d_{cat}(c_u, c_v),

    with d(u, ∅) = d(∅, ∅) = Δ∅ (a unit left alone costs Δ∅). The *best alignment* partitions all units into
    unitary alignments of least total disorder (an integer program, solved exactly by HiGHS); its disorder is
    δ = Σ δ(ă) / n̄, n̄ the mean number of units per annotator. The expected disorder δ_e is the mean best-alignment
    disorder of ``n_samples`` continua sampled as pygamma-agreement's ``StatisticalContinuumSampler`` does (each
    annotator's number of units, the gaps between units, their durations: normal with the data's means and
    standard deviations; categories by their frequencies), and

    .. math::

        \gamma = 1 - \frac{\delta}{\delta_e}.

    γ-cat (Mathet 2017) measures agreement on the categories of the aligned units only, on the same best
    alignment and samples (pygamma-agreement's formula, which also counts a unit aligned with ∅).

    The sampling is random: with the default fixed ``seed`` the result is reproducible; ``se`` and
    ``expected_se`` report the sampling error (more ``n_samples`` shrink it as 1/√n_samples).

    Several documents: no unitary alignment crosses a document; the disorders add over documents (n̄ counts all
    units), and each sampled continuum samples every document with the statistics pooled over documents.
    Positions are taken from the origin 0 (as pygamma-agreement does), or from each document's begin when
    ``continuum`` is given; only the sampler's first gap depends on it. A rater's overlapping units are kept
    (γ allows them; ``overlaps='raise'`` refuses them, ``'merge'`` takes their union). Units of length 0 are
    refused (their positional dissimilarity is 0/0).

    Undefined results (no unit, fewer than two annotators, an expected disorder of 0) follow the library's
    policy: ``replace_undefined_by`` with an :class:`~iaa_engine.UndefinedMetricWarning`. An observed disorder
    of 0 gives γ = 1, as pygamma-agreement and DKPro Agreement return.

    Parameters
    ----------
    spans : DataFrame, dict of columns or list of rows
        One row per span: ``annotator``, ``start``, ``end`` (exclusive), ``label``, and optionally ``document``.
    continuum : (begin, length), length, mapping or DataFrame, optional
        Each document's continuum, as in :func:`unitizing_alpha`; here it sets the origin of positions only.
    annotators : sequence, optional
        Every annotator of the study, when some marked nothing (they count in n and in n̄).
    participants : DataFrame or mapping, optional
        Who took part in which document (columns ``document`` and ``annotator``, or a mapping document ->
        annotators), as for :func:`unitizing_alpha`. A unitary alignment of document d then holds at most one unit
        of each of its n_d participants and costs the mean of its C(n_d, 2) pairs; n̄ is Σ_d N_d / n_d (N_d units
        in d: the number of unitary alignments of a perfect agreement), which is N / n when every document has the
        same annotators; the sampler draws units for each document's participants only (its statistics over the
        (document, participant) cells). Documents with fewer than two participants are left out.
    alpha, beta : float
        Weights of the positional and the categorical dissimilarity (Mathet et al.'s defaults 1 and 1).
    delta_empty : float
        Δ∅, the cost of a unit aligned with nothing (default 1). Both dissimilarities are multiples of it (Mathet et
        al. 2015; DKPro Agreement), so it scales every disorder alike: γ does not depend on it (γ-cat does, through
        its weights). pygamma-agreement's compiled categorical term is not scaled, so with Δ∅ ≠ 1 its alignment
        can differ.
    category_dissimilarity : DataFrame, optional
        A square table of dissimilarities in [0, 1] between labels (index and columns the labels, 0 on the
        diagonal, symmetric). Default: 0 for equal labels, 1 otherwise.
    n_samples : int
        Sampled continua for the expected disorder (pygamma-agreement's default 30).
    seed : int, numpy.random.Generator or None
        The sampling's seed (default 0: reproducible; None: fresh randomness on each call). Calls with one seed
        draw the same standard normals, so the sampling errors of separate calls (e.g. one per document) are
        correlated: compare documents with ``per_document=True`` or a different seed per call.
    max_alignments : int
        Refuse, before solving, a continuum (observed or sampled) with more candidate unitary alignments than
        this (or with more than 4 × this pairs of units to examine).
    per_document : bool
        Also each document's γ with its standard error (``per_document``): the document's observed disorder
        against ``n_samples`` continua sampled with that document's own statistics (as pygamma-agreement on the
        document alone). It samples as many units again as the pooled value. A document's γ rests on few units, so
        its sampling error is larger than the pooled one: 30 samples can leave a standard error of 0.05 on one
        document; the error shrinks as 1/√n_samples (raise ``n_samples`` fourfold to halve it).
    replace_undefined_by : float
        Returned (with a warning) where γ is undefined.

    Returns
    -------
    GammaAgreement
        ``estimate`` (γ) and ``se``, the disorders, γ-cat, the counts and the best ``alignment`` table.

    Raises
    ------
    InvalidParameterError
        For an option of the wrong kind or out of range.
    ValueError
        For a span table that is not one (as :func:`unitizing_alpha` says), a unit of length 0, or a
        ``category_dissimilarity`` without a row for a label.
    TooManyAlignmentsError
        (a ``ValueError``) When the candidate alignments exceed ``max_alignments``; the message gives their number
        and the ways out (shorter documents, fewer annotators, a smaller ``delta_empty``).

    References
    ----------
    Mathet, Y., Widlöcher, A., & Métivier, J.-P. (2015). The unified and holistic method Gamma (γ) for
    inter-annotator agreement measure and alignment. Computational Linguistics 41(3), 437-479.

    Mathet, Y. (2017). The agreement measure γcat a complement to γ focused on categorization of a continuum.
    Computational Linguistics 43(3), 661-681.

    Titeux, H., & Riad, R. (2021). pygamma-agreement: Gamma γ measure for inter/intra-annotator agreement in
    Python. Journal of Open Source Software 6(62), 2989.

    Examples
    --------
    pygamma-agreement 0.5.9's values for this continuum, as DKPro Agreement re-generated them: best-alignment
    disorder 0.0625 and γ 0.884 from 30 samples of its own random stream (a standard error of about 0.02):

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> spans = pd.DataFrame(
    ...     [("Ann1", 1, 5, "a"), ("Ann1", 6, 10, "b"), ("Ann1", 11, 15, "a"),
    ...      ("Ann2", 2, 6, "a"), ("Ann2", 7, 11, "b"), ("Ann2", 12, 16, "a")],
    ...     columns=["annotator", "start", "end", "label"])
    >>> result = ie.gamma_agreement(spans, n_samples=100)
    >>> result.observed_disorder
    0.0625
    >>> round(result.estimate, 2), round(result.se, 3)
    (0.87, 0.008)
    """
    units = _span_units(spans, continuum, annotators, participants)
    crowd = units.n_participants is not None
    if crowd:  # a document with fewer than two participants holds no pair: left out (as alpha leaves it out)
        thin = cast(np.ndarray, units.n_participants)[units.document] < 2
        if thin.any():
            units = _drop_units(units, ~thin)
    n = len(units.annotators)
    D = len(units.documents)
    N = int(units.begin.size)
    zero = units.end <= units.begin
    if zero.any() and not zero.all():
        shown = "; ".join(
            f"annotator {units.annotators[a]!r}, start {b + units.document_begin[d]:g}"
            for a, b, d in zip(units.annotator[zero][:5], units.begin[zero][:5], units.document[zero][:5])
        )
        raise ValueError(
            f"gamma needs units of positive length (the positional dissimilarity of two units of "
            f"length 0 is 0/0); length 0 in: {shown}"
        )
    diss = GammaDissimilarity(
        float(alpha), float(beta), float(delta_empty), _categorical(category_dissimilarity, units.categories)
    )
    # the sampler's positions: from 0 as given (pygamma), or from each document's begin when a continuum is given
    origin = np.zeros(D) if continuum is not None else units.document_begin
    empty_alignment = pd.DataFrame(
        columns=["document", "unitary_alignment", "annotator", "start", "end", "label", "disorder", "size"]
    )

    def result(**values: Any) -> GammaAgreement:
        base: dict[str, Any] = dict(
            metric="gamma",
            estimate=np.nan,
            se=np.nan,
            observed_disorder=np.nan,
            expected_disorder=np.nan,
            expected_se=np.nan,
            gamma_cat=np.nan,
            gamma_cat_se=np.nan,
            observed_cat_disorder=np.nan,
            expected_cat_disorder=np.nan,
            n_samples=0,
            n_units=N,
            n_annotators=n,
            n_documents=D,
            n_categories=len(units.categories),
            n_candidates=0,
            alpha=float(alpha),
            beta=float(beta),
            delta_empty=float(delta_empty),
            alignment=empty_alignment,
            gamma_cat_undefined="γ itself is undefined",
        )
        base.update(values)
        return GammaAgreement(**base)

    if N == 0:
        return result(estimate=undefined(_METRIC, "the study holds no unit", replace_undefined_by))
    if n < 2:
        return result(estimate=undefined(_METRIC, "fewer than two annotators", replace_undefined_by))
    if zero.all():
        return result(
            estimate=undefined(
                _METRIC, "every unit has length 0 (the positional dissimilarity is 0/0)", replace_undefined_by
            )
        )

    codes, n_codes = units.rater_codes()  # slots 0 .. n_d - 1 of each document with participants
    doc_n = units.raters() if crowd else None
    if doc_n is not None and not (doc_n >= 2).any():
        return result(estimate=undefined(_METRIC, "no document has two participants or more", replace_undefined_by))
    arrays = SpanArrays(units.document, codes, units.begin, units.end, units.category, n_codes, doc_n)
    # a crowd given without participants: every annotator is aligned in every document (the likely cause of a refusal)
    crowd_hint = ""
    if not crowd and D > 1 and np.unique(units.document * n + units.annotator).size < D * n:
        crowd_hint = (
            "; most likely here: not every annotator saw every document, and without participants= every "
            "annotator is aligned (and sampled) in every document: give participants= (iaa spans --participants "
            "FILE), who took part in which document, and each document is aligned among its own"
        )
    try:
        observed = best_alignment(arrays, diss, max_alignments)
    except TooManyAlignmentsError as error:
        raise TooManyAlignmentsError(f"{error}{crowd_hint}") from None
    if crowd:
        n_bar = float(np.sum(np.bincount(units.document, minlength=D) / np.maximum(cast(np.ndarray, doc_n), 1)))
    else:
        n_bar = N / n
    observed_disorder = float(observed.disorder.sum() / n_bar)
    observed_cat = float(
        _cat_disorders(observed, units.begin, units.end, units.category, diss, np.zeros(observed.group.size, int), 1)[0]
    )

    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    stats = _reference_statistics(units, origin, n_codes, codes, doc_n)
    sample_disorder = np.zeros(n_samples)
    sample_cat = np.zeros(n_samples)
    per_batch = max(1, _BATCH_UNITS // max(N, 1))
    for first in range(0, n_samples, per_batch):
        size = min(per_batch, n_samples - first)
        sample, group, annotator, begin, end, category = _sample(stats, size, D, n_codes, rng, doc_n)
        group_n = None if doc_n is None else np.tile(doc_n, size)
        try:
            al = best_alignment(
                SpanArrays(group, annotator, begin, end, category, n_codes, group_n), diss, max_alignments
            )
        except TooManyAlignmentsError as error:
            raise TooManyAlignmentsError(
                f"in a sampled continuum (for the expected disorder): {error}{crowd_hint}"
            ) from None
        owner = al.group // D
        sums = np.bincount(owner, weights=al.disorder, minlength=size)
        if doc_n is None:
            units_per_sample = np.bincount(sample, minlength=size)
            sample_disorder[first : first + size] = sums / (units_per_sample / n)
        else:  # n̄ of each sample: Σ_d N_sd / n_d
            per_doc = np.bincount(group, minlength=size * D).reshape(size, D)
            sample_disorder[first : first + size] = sums / (per_doc / np.maximum(doc_n, 1)).sum(axis=1)
        sample_cat[first : first + size] = _cat_disorders(al, begin, end, category, diss, owner, size)

    expected = float(sample_disorder.mean())
    expected_se = float(sample_disorder.std(ddof=1) / np.sqrt(n_samples))
    gamma, se = _ratio(observed_disorder, expected, expected_se)
    if np.isnan(gamma):
        gamma = undefined(_METRIC, "the expected disorder of the samples is 0", replace_undefined_by)
    expected_cat = float(sample_cat.mean())
    cat, cat_se = _ratio(observed_cat, expected_cat, float(sample_cat.std(ddof=1) / np.sqrt(n_samples)))
    cat_undefined = ""
    if len(units.categories) < 2:
        cat_undefined = "a single category: γ-cat compares the labels of aligned units; one label cannot differ"
    elif not ((observed.members >= 0).sum(axis=1) >= 2).any():
        cat_undefined = "no two units are aligned: there are no labels to compare"
    elif np.isnan(cat):
        cat_undefined = "the expected categorical disorder of the samples is 0"
    if cat_undefined:
        cat = cat_se = float("nan")

    documents = (
        _per_document(units, observed, origin, n_codes, diss, n_samples, rng, max_alignments, codes, doc_n)
        if per_document
        else pd.DataFrame()
    )

    # the best alignment, one row per unit
    m = observed.members
    rows, cols = np.nonzero(m >= 0)
    unit = m[rows, cols]
    order = np.lexsort((units.begin[unit], rows))
    rows, unit = rows[order], unit[order]
    first_begin = np.full(m.shape[0], np.inf)
    np.minimum.at(first_begin, rows, units.begin[unit])
    rank = np.empty(m.shape[0], np.int64)
    rank[np.lexsort((first_begin, observed.group))] = np.arange(m.shape[0])
    doc = units.document[unit]
    alignment = pd.DataFrame(
        {
            "document": units.documents[doc],
            "unitary_alignment": rank[rows],
            "annotator": units.annotators[units.annotator[unit]],
            "start": units.begin[unit] + units.document_begin[doc],
            "end": units.end[unit] + units.document_begin[doc],
            "label": units.categories[units.category[unit]],
            "disorder": observed.disorder[rows],
            "size": (m >= 0).sum(axis=1)[rows],
        }
    )
    alignment = alignment.sort_values(["unitary_alignment", "annotator"], kind="stable").reset_index(drop=True)
    return result(
        estimate=gamma,
        se=se,
        observed_disorder=observed_disorder,
        expected_disorder=expected,
        expected_se=expected_se,
        gamma_cat=cat,
        gamma_cat_se=cat_se,
        observed_cat_disorder=observed_cat,
        expected_cat_disorder=expected_cat,
        n_samples=n_samples,
        n_candidates=observed.n_candidates,
        alignment=alignment,
        gamma_cat_undefined=cat_undefined,
        per_document=documents,
    )


def _span_units(spans: Any, continuum: Any, annotators: Any, participants: Any = None) -> SpanUnits:
    """The span table read by the one span reader; without a continuum its warning (about α_U) does not apply."""
    with warnings.catch_warnings():
        if continuum is None:
            warnings.filterwarnings("ignore", message="no continuum given", category=UserWarning)
        return span_units(spans, continuum, annotators, "keep", participants)


def _drop_units(units: SpanUnits, keep: np.ndarray) -> SpanUnits:
    """``units`` with only the units where ``keep`` (the documents and participants unchanged)."""
    from dataclasses import replace

    return replace(
        units,
        document=units.document[keep],
        annotator=units.annotator[keep],
        category=units.category[keep],
        begin=units.begin[keep],
        end=units.end[keep],
        slot=cast(np.ndarray, units.slot)[keep],
    )
