r"""A scorecard per annotator: agreement with the others, accuracy against gold labels, the change in alpha without
them, tests of their label distribution, and flags for likely random or biased work that state their p-values."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from iaa_engine.base._choices import LEVELS
from iaa_engine.base._params import ANY, Choice, Flag, NoneOr, Real, Whole, validate
from iaa_engine.base._results import Result, nan_to_none, printable
from iaa_engine.data._model import Annotations, as_annotations
from iaa_engine.stats import _differences as diff
from iaa_engine.stats._homogeneity import (
    kappa_from_tables,
    marginal_homogeneity_tables,
    normal_cdf,
    normal_quantile,
    two_sample_chi2,
    wilson_interval,
)
from iaa_engine.stats._multiple import holm

__all__ = ["AnnotatorReport", "annotator_report", "alpha_without_each"]  # flag_legend: for the text surfaces

#: ``pairwise='auto'`` computes the pairwise marginal-homogeneity tests up to this many annotators.
PAIRWISE_LIMIT = 100
_TINY = 1e-300
#: MACE finds each annotation's (item, label) count entry through a dense table up to this many cells.
_ENTRY_TABLE_CELLS = 1 << 24


@dataclass(frozen=True, eq=False)
class AnnotatorReport(Result):
    """The scorecard of every annotator: the result of :func:`annotator_report`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per annotator (the columns are described in :func:`annotator_report`).
    pairs : pandas.DataFrame or None
        One row per pair of annotators who share an item: ``annotator_a``, ``annotator_b``, ``n_shared``,
        ``stuart_maxwell``, ``bhapkar`` (the statistics), ``df``, ``stuart_maxwell_p``, ``bhapkar_p``; ``None`` when
        the pairwise tests were not computed.
    alpha : float
        Krippendorff's alpha of all the data at ``level``.
    level : str
        The level of measurement of the alpha columns.
    gold : str
        Where the gold labels came from: ``'majority'``, ``'dawid_skene'`` or ``'known'``.
    confidence : float
        Coverage of the intervals.
    settings : dict
        The flag rules: ``random_fraction``, ``random_level``, ``typical_kappa`` (the median kappa of the annotators
        judged), ``random_kappa`` (``random_fraction`` times it), ``bias_threshold``, ``bias_p``, ``min_items`` and
        ``correction`` (``'holm'``).
    notes : list of str
        What was left out and why.
    drift : pandas.DataFrame or None
        With ``time=``: each annotator's agreement with the pooled others per time window (one row per annotator
        and window they have pairable annotations in: ``annotator``, ``window``, ``start``, ``n_pairable``,
        ``agreement``, ``lower``, ``upper``); None otherwise.

    References
    ----------
    Hovy, D., Berg-Kirkpatrick, T., Vaswani, A., & Hovy, E. (2013). Learning whom to trust with MACE. Proceedings
    of NAACL-HLT 2013, 1120-1130.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> card = ie.annotator_report(data, progress=False)
    >>> card.table[["annotator", "n_items", "agreement", "accuracy", "alpha_change"]].round(3)
         annotator  n_items  agreement  accuracy  alpha_change
    0  annotator_0       15        0.8       1.0        -0.194
    1  annotator_1       15        0.7       0.8         0.101
    2  annotator_2       15        0.7       0.8         0.099
    """

    table: pd.DataFrame
    pairs: pd.DataFrame | None
    alpha: float
    level: str
    gold: str
    confidence: float
    settings: dict
    notes: list
    drift: pd.DataFrame | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per annotator: :attr:`table`."""
        return self.table

    def flagged(self) -> list:
        """The annotators with a non-empty ``flag``."""
        return list(self.table.loc[self.table["flag"] != "", "annotator"])

    def to_dict(self) -> dict:
        """JSON-ready: the settings, one record per annotator and one per pair."""
        out: dict[str, Any] = {
            "alpha": self.alpha,
            "level": self.level,
            "gold": self.gold,
            "confidence": self.confidence,
            "settings": self.settings,
            "annotators": self.table.to_dict(orient="records"),
            "pairs": None if self.pairs is None else self.pairs.to_dict(orient="records"),
            "notes": list(self.notes),
        }
        if self.drift is not None:
            out["drift"] = self.drift.to_dict(orient="records")
        return nan_to_none(out)

    def __str__(self) -> str:
        return (
            f"Annotator scorecard (alpha {alpha_text(self.alpha)} at the {self.level} level, gold: {self.gold})\n"
            + text_table(self.table.assign(annotator=self.table["annotator"].map(printable)))  # names escaped
            + "\n"
            + flag_legend(self.settings, width=118)
        )


#: The columns of the scorecard's text table (``str()``, ``iaa annotators``): the flag, its p-values and why.
TEXT_COLUMNS = ["annotator", "n_items", "agreement", "kappa", "accuracy", "alpha_change", "chance_p", "random_p"]


def text_table(table: pd.DataFrame, extra: tuple = ()) -> str:
    """The scorecard as a text table: numbers to 3 decimals, p-values to 2 significant digits, the flag and the
    reason (``why``) left-aligned; ``extra`` columns go before the flag."""
    shown = table[TEXT_COLUMNS + list(extra) + ["flag", "flag_reason"]].rename(columns={"flag_reason": "why"})
    shown = shown.round({c: 3 for c in ("agreement", "kappa", "accuracy", "alpha_change")})

    def p_value(v: float) -> str:
        return f"{v:.2g}" if np.isfinite(v) else "-"

    formatters: dict[str, Any] = {"chance_p": p_value, "random_p": p_value}
    for col in ("flag", "why"):  # left-aligned text under a left-aligned header
        width = max([len(col)] + [len(str(v)) for v in shown[col]])
        shown = shown.rename(columns={col: col.ljust(width)})
        formatters[col.ljust(width)] = lambda v, w=width: f"{v!s:<{w}}"
    text = shown.to_string(index=False, formatters=formatters, na_rep="-")
    return "\n".join(line.rstrip() for line in text.splitlines())


def alpha_text(alpha: float) -> str:
    """The scorecard's alpha on the terminal: four decimals, or ``undefined (…)`` with the reason (never ``nan``)."""
    return f"{alpha:.4f}" if np.isfinite(alpha) else "undefined (no pairable value, or one value only)"


def flag_legend(settings: dict, width: int | None = None) -> str:
    """What the flags and their p-values mean, in one paragraph (the scorecard's text, the command line, the page),
    wrapped at ``width`` characters when given."""
    s = settings
    typical = f"{s['random_kappa']:.3f}" if np.isfinite(s["random_kappa"]) else "undefined: no judged annotator"
    text = (
        f"random: kappa with the others significantly below {s['random_fraction']:g} x the typical annotator's "
        f"({typical}; random_p, Holm-adjusted, below {s['random_level']:g}) and not above chance "
        f"(chance_p, one-sided, at least {s['random_level']:g}); biased: label distribution at least "
        f"{s['bias_threshold']:g} (TVD) from the others' on the same items, Holm-adjusted chi-square p below "
        f"{s['bias_p']:g}; annotators with fewer than {s['min_items']} pairable items are not judged."
    )
    if width is None:
        return text
    import textwrap

    return textwrap.fill(text, width=width)


# --------------------------------------------------------------------------- building blocks (array algebra)


#: Dense (rows × patterns) counting (one ``bincount``) while the table has at most this many cells per annotation
#: counted (and at most :data:`TABLE_CELLS`); beyond, the cells' keys are sorted and their runs counted. At 10⁶
#: crowd annotations (500 annotators × 5 labels × 1,251 patterns, 3·10⁶ cells, 10 % of them non-zero) the sort of
#: the 32-bit keys takes a third of the dense count's time, which is spent touching 25 MB of mostly empty cells.
_DENSE_CELLS_PER_ANNOTATION = 2

#: Largest temporary table (cells, 8 bytes each) a scorecard step builds: the dense agreement tables
#: (annotators × labels², as before) up to this size, and the blocks of the large-label paths (patterns × a block of
#: labels or annotators) at most this size: 2**24 cells, 128 MiB.
TABLE_CELLS = 1 << 24

#: ``pairwise='auto'`` computes the pairwise tests only while (pairs of annotators) × labels² is at most this many
#: cells (each test inverts a (K - 1)-square matrix per pair): 3 annotators up to 2,364 labels, 100 up to 58.
PAIRWISE_CELLS = 1 << 24


def _group_counts(rows: np.ndarray, n_rows: int, cols: np.ndarray, n_cols: int) -> Any:
    """How many annotations fall in each (row, column), as a sparse CSR matrix (rows × columns).

    Counted with one ``bincount`` when the table is small beside the annotations (then built from the non-zero
    cells, already in order), else by sorting the cells' keys (32-bit while they fit) and counting their runs: either
    way the CSR arrays come out in order, with no sort inside SciPy.
    """
    import scipy.sparse as sp

    n_cells = n_rows * n_cols
    if n_cells <= min(TABLE_CELLS, max(_DENSE_CELLS_PER_ANNOTATION * rows.size, 1 << 16)):
        key = np.multiply(rows, n_cols, dtype=np.int64)  # in place from here: no other temporary per annotation
        key += cols
        dense = np.bincount(key, minlength=n_cells)
        del key
        cells = np.flatnonzero(dense)
        counts = dense[cells]
    else:
        key = np.multiply(rows, n_cols, dtype=np.int32 if n_cells < 2**31 else np.int64, casting="unsafe")
        np.add(key, cols, out=key, casting="unsafe")
        key.sort()
        new = np.empty(key.size, dtype=bool)
        new[:1] = True
        np.not_equal(key[1:], key[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        del new
        cells = key[starts].astype(np.int64)
        counts = np.diff(starts, append=key.size)
        del key
    r, c = np.divmod(cells, n_cols)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=n_rows))])
    return sp.csr_matrix((counts.astype(float), c, indptr), shape=(n_rows, n_cols))


@dataclass(frozen=True, eq=False)
class _Patterns:
    r"""Items grouped by their label-count vector :math:`n_i` (its "pattern"), and annotations counted per
    (annotator, label, pattern).

    Every per-annotator sum over items of the scorecard, :math:`\sum_{i \ni a} f(n_i)`, depends on an item only
    through its pattern, so it is a product of the (annotators × patterns) counts with a (patterns × …) table of
    :math:`f`: one ``bincount`` over the annotations, then small matrix products. A crowd with 1-8 annotations per
    item and 5 labels has at most 1,286 patterns, however many items. The count vectors are kept sparse (patterns ×
    labels, as many non-zeros as the items' distinct labels), so thousands of labels cost no patterns × labels table.
    """

    pat: np.ndarray  # pattern of each item
    vec: Any  # (n_pat, C) sparse CSR: the count vector of each pattern
    m: np.ndarray  # (n_pat,) annotations per item of the pattern
    k_al: Any  # (A*C, n_pat) annotations by (annotator, label) and pattern
    k_a: Any  # (A, n_pat) annotations by annotator and pattern
    first: np.ndarray  # (n_pat,) an item of each pattern
    size: np.ndarray  # (n_pat,) items of each pattern

    @classmethod
    def of(cls, data: Annotations, ann: np.ndarray | None = None, n_annotators: int | None = None) -> _Patterns:
        """The patterns of ``data``; ``ann`` and ``n_annotators``: the annotations' annotator codes among more
        annotators than the data's own (a partition's codes in the whole data's annotators)."""
        import scipy.sparse as sp

        cnt = data.counts
        c = max(data.n_categories, 1)
        a_n = cast(int, data.n_annotators if n_annotators is None else n_annotators)
        ann = cast(np.ndarray, data.annotator if ann is None else ann)
        base = int(cnt.count.max()) + 1 if cnt.count.size else 1
        starts = np.flatnonzero(np.r_[True, cnt.item[1:] != cnt.item[:-1]]) if cnt.item.size else np.zeros(0, int)
        if c * np.log2(max(base, 2)) <= 62:  # exact: the count vector as a number in base (max count + 1)
            powers = np.int64(base) ** np.arange(c, dtype=np.int64)
            contrib = cnt.count.astype(np.int64) * powers[cnt.category]
            code = np.zeros(data.n_items, dtype=np.int64)
            if cnt.item.size:  # entries are sorted by item
                code[cnt.item[starts]] = np.add.reduceat(contrib, starts)
            codes, uniques = pd.factorize(code)  # hashing: patterns in order of appearance, no sort of the items
            pat: np.ndarray = np.asarray(codes, dtype=np.int64)
            first: np.ndarray = np.empty(len(uniques), dtype=np.int64)
            first[pat[::-1]] = np.arange(pat.size - 1, -1, -1)  # each pattern's first item
        else:  # many labels: each item's (label, count) list, padded to the most distinct labels on an item
            sizes = np.diff(np.r_[starts, cnt.item.size])
            k = int(sizes.max()) if sizes.size else 0
            if 2 * k < c:
                pad = np.full((data.n_items, 2 * k), -1, dtype=np.int64)
                pos = np.arange(cnt.item.size) - np.repeat(starts, sizes)
                pad[cnt.item, 2 * pos] = cnt.category  # entries are sorted by category within an item
                pad[cnt.item, 2 * pos + 1] = cnt.count
            else:
                pad = cnt.to_dense()
            _, first, pat = np.unique(pad, axis=0, return_index=True, return_inverse=True)
            del pad
        pat = pat.ravel().astype(np.int64)
        n_pat = first.size
        rep = first[pat[cnt.item]] == cnt.item  # the entries of one item per pattern
        vec = sp.csr_matrix((cnt.count[rep].astype(float), (pat[cnt.item[rep]], cnt.category[rep])), shape=(n_pat, c))
        ann_label = np.multiply(ann, c, dtype=np.int64)
        ann_label += data.label
        k_al = _group_counts(ann_label, a_n * c, pat[data.item], n_pat)
        del ann_label
        return cls.build(vec, k_al, np.bincount(pat, minlength=n_pat), pat, np.asarray(first, dtype=np.int64))

    @classmethod
    def build(
        cls, vec: Any, k_al: Any, size: np.ndarray, pat: np.ndarray | None = None, first: np.ndarray | None = None
    ) -> _Patterns:
        """The patterns from their count vectors (``vec``, patterns × labels), the (annotator, label) × pattern
        counts ``k_al`` and the items per pattern (``size``): what the Dask engine adds up over partitions of whole
        items (``pat`` and ``first``, per item, only in memory)."""
        import scipy.sparse as sp

        a_c, c = k_al.shape[0], max(vec.shape[1], 1)
        a_n = a_c // c
        rows = np.arange(a_n * c)  # k_a: k_al's rows summed over the labels (no second pass over the annotations)
        k_a = (sp.csr_matrix((np.ones(a_n * c), (rows // c, rows)), shape=(a_n, a_n * c)) @ k_al).tocsr()
        empty = np.zeros(0, dtype=np.int64)
        return cls(
            empty if pat is None else pat,
            vec,
            np.asarray(vec.sum(axis=1)).ravel(),
            k_al,
            k_a,
            empty if first is None else first,
            np.asarray(size, dtype=np.int64),
        )

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The non-zero cells of ``k_al`` as (annotator, label, pattern, count), sorted by annotator."""
        c = self.vec.shape[1]
        coo = self.k_al.tocoo()
        a, lab = np.divmod(coo.row.astype(np.int64), c)
        return a, lab, coo.col.astype(np.int64), coo.data

    def at(self, p: np.ndarray, lab: np.ndarray) -> np.ndarray:
        """``vec[p, lab]`` for arrays of (pattern, label)."""
        if p.size == 0:
            return np.zeros(0)
        return np.asarray(self.vec[p, lab]).ravel()

    def dots(self, rows: np.ndarray, a: np.ndarray, p: np.ndarray, vec: Any = None) -> np.ndarray:
        """``vec[p] · rows[a]`` for arrays of (annotator, pattern) sorted by annotator, a block of annotators at a
        time (patterns × block ≤ :data:`TABLE_CELLS`); ``vec`` defaults to the count vectors."""
        vec = self.vec if vec is None else vec
        out = np.zeros(a.size)
        n_rows = rows.shape[0]
        step = max(1, TABLE_CELLS // max(vec.shape[0], 1))
        for lo in range(0, n_rows, step):
            hi = min(lo + step, n_rows)
            i, j = np.searchsorted(a, [lo, hi])
            if i < j:
                g = np.asarray(vec @ rows[lo:hi].T)  # (n_pat, block)
                out[i:j] = g[p[i:j], a[i:j] - lo]
        return out


#: The count patterns of the data a scorecard was last computed on, for the same data's coincidences (the HTML page
#: draws them beside the scorecard): kept only while that data object lives.
_PATTERNS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _patterns(data: Annotations) -> _Patterns:
    """:meth:`_Patterns.of`, remembered for the data object (immutable) while it lives."""
    pt = _PATTERNS.get(data)
    if pt is None:
        pt = _PATTERNS[data] = _Patterns.of(data)
    return pt


def coincidences_by_pattern(data: Annotations) -> np.ndarray:
    r"""Krippendorff's coincidence matrix (dense, categories × categories) from the count patterns of
    :func:`annotator_report`: :math:`o = \sum_p N_p\, w_p\, (v_p v_p^\top - \mathrm{diag}(v_p))` over the patterns
    p with :math:`N_p` items of count vector :math:`v_p` and :math:`w_p = 1/(m_p - 1)` (0 for one annotation): the
    sum over items of :func:`coincidence_matrix` grouped by pattern (patterns × labels work, not items × labels)."""
    pt = _patterns(data)
    w = np.where(pt.m >= 2, 1.0 / np.maximum(pt.m - 1.0, 1.0), 0.0) * pt.size
    o = _dense(pt.vec.T @ (_diag(w) @ pt.vec))
    o[np.diag_indices_from(o)] -= np.asarray(pt.vec.T @ w).ravel()
    return o


def alpha_without_each(data: Any, *, level: str | None = None) -> tuple[float, np.ndarray]:
    r"""Krippendorff's alpha of all the data and, for every annotator, of the data without that annotator.

    Not a loop over annotators: the coincidence matrix without annotator a is the full one minus the items' old
    contributions plus their contributions without a's label. With :math:`n_i` item i's label counts,
    :math:`m_i = \sum_c n_{ic}`, :math:`e_l` the indicator of a's label l on item i and
    :math:`P(n) = n n^\top - \mathrm{diag}(n)`,

    .. math::

        O^{(-a)} = O + \sum_{i \ni a} \Big(\frac{[m_i \ge 3]}{m_i - 2} - \frac{[m_i \ge 2]}{m_i - 1}\Big) P(n_i)
                 - \sum_{i \ni a} \frac{[m_i \ge 3]}{m_i - 2}\,\big(n_i e_l^\top + e_l n_i^\top - 2 e_l e_l^\top\big),

    since :math:`P(n_i - e_l) = P(n_i) - n_i e_l^\top - e_l n_i^\top + 2 e_l e_l^\top`. Alpha is
    :math:`1 - D_o/D_e` (Krippendorff 2011), and both need only linear functions of :math:`O^{(-a)}`, so no
    labels × labels matrix is formed: its margins :math:`t^{(-a)}` (the row sums, :math:`P(n)\mathbf 1 =
    (m - 1) n`), and, with the distances :math:`\delta` (zero on the diagonal), :math:`\sum \delta \circ P(n) =
    n^\top \delta n` and :math:`\sum \delta \circ (n e_l^\top + e_l n^\top - 2 e_l e_l^\top) = 2 (\delta n)_l`;
    :math:`D_e` follows from :math:`t^{(-a)}`. Nominal: :math:`n^\top \delta n = m^2 - \sum_c n_c^2`,
    :math:`(\delta n)_l = m - n_l`; interval and ordinal (the interval metric on the mid-ranks of the margins
    without a): :math:`n^\top \delta n = 2(m\,n^\top x^2 - (n^\top x)^2)`, :math:`(\delta n)_l = n^\top x^2 - 2
    x_l\, n^\top x + x_l^2 m`; ratio: products with blocks of columns of :math:`\delta`. The sums over a's items
    depend on an item only through its count vector, so they are products of the annotators × count-patterns
    table with per-pattern terms (no loop over annotations); memory grows with the patterns' non-zeros and the
    annotators × labels margins, never with labels².

    Returns
    -------
    (alpha, alpha_without) : float and ndarray of shape (n_annotators,)
        NaN where alpha is undefined (no pairable value, or one value only).
    """
    data = as_annotations(data)
    return _alpha_without(data, data.level if level is None else level, _Patterns.of(data))


def _alpha_without(
    data: Annotations | None, level: str, pt: _Patterns, numeric: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """Alpha and alpha without each annotator from the patterns; ``numeric``: the categories' numbers at the
    interval and ratio levels (default: ``data.category_values(level)``)."""
    a_n, c = pt.k_a.shape[0], max(pt.vec.shape[1], 1)

    def numbers() -> np.ndarray:
        got = cast(Annotations, data).category_values(level) if numeric is None else numeric
        return np.asarray(got, dtype=float)

    m, v = pt.m, pt.vec
    n_pat = m.size
    w_old = np.where(m >= 2, 1.0 / np.maximum(m - 1.0, 1.0), 0.0)
    h = np.where(m >= 3, 1.0 / np.maximum(m - 2.0, 1.0), 0.0)
    g = h - w_old
    base_w = pt.size * w_old  # each pattern's items in the full coincidences
    ea, el, ep, ev = pt.entries()  # (annotator, label, pattern, count) of a's labels
    ka = pt.k_a.tocoo()
    ra, pa, va = ka.row.astype(np.int64), ka.col.astype(np.int64), ka.data

    # margins: full, and without each annotator
    totals = np.empty((a_n + 1, c))
    totals[0] = v.T @ (base_w * (m - 1.0))
    totals[1:] = totals[0] + _dense(pt.k_a @ (_diag((m - 1.0) * g - h) @ v))
    totals[1:] -= (pt.k_al @ (h * (m - 2.0))).reshape(a_n, c)
    n = totals.sum(axis=1)

    num = np.zeros(a_n + 1)
    if level == "ordinal":  # positions per stack (the mid-ranks of its own margins), a block of stacks at a time
        x = diff.positions_from(level, totals, None, c)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = x - (np.sum(totals * x, axis=1) / np.maximum(n, 1.0))[:, None]  # centred: accurate moments
        step = max(1, TABLE_CELLS // max(n_pat, 1))
        for lo in range(0, a_n + 1, step):
            hi = min(lo + step, a_n + 1)
            xb = x[lo:hi]
            q1, q2 = np.asarray(v @ xb.T), np.asarray(v @ (xb * xb).T)  # (n_pat, block)
            s = 2.0 * (m[:, None] * q2 - q1 * q1)
            num[lo:hi] = base_w @ s
            i, j = np.searchsorted(ra, [lo - 1, hi - 1])  # annotator a is stack a + 1
            col = ra[i:j] + 1 - lo
            num[1:] += np.bincount(ra[i:j], weights=va[i:j] * g[pa[i:j]] * s[pa[i:j], col], minlength=a_n)
            i, j = np.searchsorted(ea, [lo - 1, hi - 1])
            p, col, xl = ep[i:j], ea[i:j] + 1 - lo, xb[ea[i:j] + 1 - lo, el[i:j]]
            u = q2[p, col] - 2.0 * xl * q1[p, col] + xl * xl * m[p]
            num[1:] -= 2.0 * np.bincount(ea[i:j], weights=ev[i:j] * h[p] * u, minlength=a_n)
        exp = diff.expected_sum(level, totals, x)
    else:
        values: np.ndarray
        if level == "nominal":
            s = m * m - np.asarray(v.multiply(v).sum(axis=1)).ravel()
            u = m[ep] - pt.at(ep, el)
            values = np.arange(c, dtype=float)
        elif level == "interval":
            values = numbers()
            values = values - np.sum(totals[0] * values) / max(n[0], 1.0)  # centred: accurate moments
            q1, q2 = v @ values, v @ (values * values)
            s = 2.0 * (m * q2 - q1 * q1)
            xl = values[el]
            u = q2[ep] - 2.0 * xl * q1[ep] + xl * xl * m[ep]
        else:
            values = numbers()
            s, u = _ratio_terms(v, values, ep, el)
        num[0] = base_w @ s
        num[1:] = num[0] + np.bincount(ra, weights=va * g[pa] * s[pa], minlength=a_n)
        num[1:] -= 2.0 * np.bincount(ea, weights=ev * h[ep] * u, minlength=a_n)
        exp = diff.expected_sum(level, totals, values)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = num / n
        d_e = exp / (n * (n - 1.0))
        alphas = np.where((n > 1) & (np.abs(d_e) > 1e-12), 1.0 - d_o / d_e, np.nan)
    return float(alphas[0]), alphas[1:]


def _ratio_terms(v: Any, x: np.ndarray, p: np.ndarray, lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Ratio distances: :math:`n_p^\top \delta n_p` per pattern and :math:`(\delta n_p)_l` at each (p, l), from
    blocks of columns of :math:`\delta` (labels × block and patterns × block ≤ ``RATIO_CELLS``)."""
    n_pat, c = v.shape
    s = np.zeros(n_pat)
    u = np.zeros(p.size)
    order = np.argsort(lab, kind="stable")
    sorted_lab = lab[order]
    vc = v.tocsc()
    step = max(1, diff.RATIO_CELLS // max(c, n_pat, 1))
    for lo in range(0, c, step):
        hi = min(lo + step, c)
        r = np.asarray(v @ diff.delta("ratio", x[:, None], x[None, lo:hi]))  # (n_pat, block)
        s += np.asarray(vc[:, lo:hi].multiply(r).sum(axis=1)).ravel()
        i, j = np.searchsorted(sorted_lab, [lo, hi])
        e = order[i:j]
        u[e] = r[p[e], lab[e] - lo]
    return s, u


def _dense(x: Any) -> np.ndarray:
    """A SciPy sparse result as a dense array (dense results pass through)."""
    return x.toarray() if hasattr(x, "toarray") else np.asarray(x)


def _diag(w: np.ndarray) -> Any:
    import scipy.sparse as sp

    return sp.diags(w, format="csr")


def _soft_table(data: Annotations | None, pt: _Patterns) -> np.ndarray:
    r"""``T[a, k, l] = sum over a's items with label k of (n_il - [k = l]) / (m_i - 1)``: annotator a against the
    pooled others, each item weighing 1 (``data`` is not read: the sizes are the patterns')."""
    a_n, c = pt.k_a.shape[0], max(pt.vec.shape[1], 1)
    w = np.where(pt.m >= 2, 1.0 / np.maximum(pt.m - 1.0, 1.0), 0.0)
    t = (pt.k_al @ (w[:, None] * pt.vec.toarray())).reshape(a_n, c, c)
    idx = np.arange(c)
    t[:, idx, idx] -= (pt.k_al @ w).reshape(a_n, c)
    return t


def _soft_parts(data: Annotations | None, pt: _Patterns) -> tuple[np.ndarray, ...]:
    r"""What kappa needs of the soft tables :math:`T^{(a)}` without forming them (annotators × labels memory):
    totals n, diagonal, row and column margins, and :math:`\sum_{kl} p_{kl}\, p_{\cdot k}\, p_{l \cdot}`.

    With :math:`w_i = 1/(m_i - 1)`: the diagonal is :math:`\sum w_i (n_{il} - 1)` over a's label-l items, the row
    margins a's pairable label counts, the column margins :math:`\sum_{i \ni a} w_i n_i` minus a's own
    :math:`\sum w_i e_l`, and the bilinear term :math:`\sum w_i\, p_{\cdot k} (n_i \cdot r - r_k)/n` with
    :math:`r` the row margins, over a's labels k (the patterns times a block of annotators' margins at a time)."""
    a_n, c = pt.k_a.shape[0], max(pt.vec.shape[1], 1)
    m = pt.m
    w = np.where(m >= 2, 1.0 / np.maximum(m - 1.0, 1.0), 0.0)
    ea, el, ep, ev = pt.entries()
    key = ea * c + el
    n_al = a_n * c
    diag = np.bincount(key, weights=ev * w[ep] * (pt.at(ep, el) - 1.0), minlength=n_al).reshape(a_n, c)
    row = np.bincount(key, weights=ev * w[ep] * (m[ep] - 1.0), minlength=n_al).reshape(a_n, c)
    col = _dense(pt.k_a @ (_diag(w) @ pt.vec)) - np.bincount(key, weights=ev * w[ep], minlength=n_al).reshape(a_n, c)
    n = row.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rn, cn = row / n[:, None], col / n[:, None]
        rn, cn = np.nan_to_num(rn), np.nan_to_num(cn)
    inner = pt.dots(rn, ea, ep) - rn[ea, el]  # sum_l (n_il - [k = l]) p_{l.} on each of a's label-k entries
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = np.bincount(ea, weights=ev * w[ep] * cn[ea, el] * inner, minlength=a_n) / n
    return n, diag, row, col, cross


def _kappa_parts(
    n: np.ndarray, diag: np.ndarray, row: np.ndarray, col: np.ndarray, cross: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    r"""Cohen's kappa and the Fleiss-Cohen-Everitt standard error of each table of a stack, from its totals n,
    diagonal, margins and :math:`\sum_{ij} p_{ij} p_{\cdot i} p_{j\cdot}` (``cross``) only: the same numbers as
    ``kappa_from_tables`` (whose B term is :math:`\sum_{i \ne j} p_{ij}(p_{\cdot i} + p_{j\cdot})^2 =
    \sum_i p_{i\cdot} p_{\cdot i}^2 + 2\,\mathrm{cross} + \sum_j p_{\cdot j} p_{j\cdot}^2 - \sum_i p_{ii}
    (p_{\cdot i} + p_{i\cdot})^2`) without the labels × labels tables."""
    with np.errstate(divide="ignore", invalid="ignore"):
        nn = n[:, None]
        d, r, co = diag / nn, row / nn, col / nn
        po = d.sum(axis=1)
        pe = np.sum(r * co, axis=1)
        kappa = np.where((n > 0) & (1.0 - pe > 1e-12), (po - pe) / (1.0 - pe), np.nan)
        one = (1.0 - kappa)[:, None]
        a = np.sum(d * (1.0 - (r + co) * one) ** 2, axis=1)
        off = np.sum(r * co * co, axis=1) + 2.0 * cross + np.sum(co * r * r, axis=1) - np.sum(d * (co + r) ** 2, axis=1)
        b = (1.0 - kappa) ** 2 * off
        cc = (kappa - pe * (1.0 - kappa)) ** 2
        var = (a + b - cc) / (n * (1.0 - pe) ** 2)
        se = np.sqrt(np.maximum(var, 0.0))
    return kappa, np.where(np.isfinite(kappa), se, np.nan)


def _gold_parts(
    ann: np.ndarray, lab: np.ndarray, gold: np.ndarray, a_n: int, c: int, count: np.ndarray | None = None
) -> tuple[np.ndarray, ...]:
    """The parts of :func:`_kappa_parts` for each annotator's label × gold table, from the annotations (or from
    the distinct (annotator, label, gold) cells and their ``count``)."""
    w = np.ones(ann.size) if count is None else np.asarray(count, dtype=float)
    n = np.bincount(ann, weights=w, minlength=a_n).astype(float)
    diag = np.bincount(ann * c + lab, weights=w * (lab == gold), minlength=a_n * c).reshape(a_n, c)
    row = np.bincount(ann * c + lab, weights=w, minlength=a_n * c).reshape(a_n, c).astype(float)
    col = np.bincount(ann * c + gold, weights=w, minlength=a_n * c).reshape(a_n, c).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rn, cn = np.nan_to_num(row / n[:, None]), np.nan_to_num(col / n[:, None])
        cross = np.bincount(ann, weights=w * cn[ann, lab] * rn[ann, gold], minlength=a_n) / n
    return n, diag, row, col, cross


def _chance_moments(pt: _Patterns, row: np.ndarray, col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Mean and variance of each annotator's agreement sum :math:`S_a = \mathrm{tr}\,T^{(a)}` when their labels
    are shuffled among their pairable items (the permutation null of a labeller whose labels ignore the item).

    With :math:`o_{il} = (n_{il} - [l = l_i]) / (m_i - 1)` the others' share of label l on a's item i, a's label
    counts :math:`r` (the rows of :math:`T^{(a)}`), :math:`c_l = \sum_i o_{il}` (its columns) and n items,
    :math:`S = \sum_i o_{i, l_{\pi(i)}}` is a linear permutation statistic, whose exact moments are Hoeffding's
    (1951): :math:`E_0 = \sum_l r_l c_l / n` and

    .. math::

        \mathrm{Var}_0 = \frac{1}{n - 1} \Big(\sum_i \sum_l r_l o_{il}^2 - \frac{1}{n}\sum_l r_l c_l^2
            - \frac{1}{n} \sum_i \big(\textstyle\sum_l r_l o_{il}\big)^2 + E_0^2\Big).

    Both inner sums depend on an item through its count pattern and a's label there, so they are sums over the
    (annotator, label, pattern) counts (no loop over annotations). Returns :math:`(E_0, \mathrm{Var}_0)` per
    annotator (NaN without a pairable item).
    """
    n = row.sum(axis=1)
    m = pt.m
    w = np.where(m >= 2, 1.0 / np.maximum(m - 1.0, 1.0), 0.0)
    ea, el, ep, ev = pt.entries()
    a_n = row.shape[0]
    r_k = row[ea, el]
    v_k = pt.at(ep, el)
    dot1 = pt.dots(row, ea, ep)
    dot2 = pt.dots(row, ea, ep, vec=pt.vec.multiply(pt.vec).tocsr())
    ww = ev * w[ep] ** 2
    a1 = np.bincount(ea, weights=ww * (dot2 - 2.0 * r_k * v_k + r_k), minlength=a_n)
    s_o = np.bincount(ea, weights=ww * (dot1 - r_k) ** 2, minlength=a_n)
    with np.errstate(divide="ignore", invalid="ignore"):
        e0 = np.sum(row * col, axis=1) / n
        q = a1 - np.sum(row * col * col, axis=1) / n - s_o / n + e0 * e0
        var = np.where(n > 1, np.maximum(q, 0.0) / (n - 1.0), np.nan)
    return np.where(n > 0, e0, np.nan), var


def _p(v: float) -> str:
    return f"{v:.2g}" if np.isfinite(v) else "undefined"


def _flag_reasons(
    n_pair: np.ndarray,
    min_items: int,
    enough: np.ndarray,
    random_flag: np.ndarray,
    chance_p: np.ndarray,
    random_p: np.ndarray,
    random_level: float,
    bias_flag: np.ndarray,
    tvd: np.ndarray,
    biased_p: np.ndarray,
    bias_threshold: float,
    bias_p: float,
) -> np.ndarray:
    """Why each annotator has each flag or not, in a few words (one string per annotator)."""
    out = []
    for i in range(n_pair.size):  # one short text per annotator (not per annotation)
        if not enough[i]:
            n = int(n_pair[i])
            out.append(
                "not judged: shares no item with another annotator"
                if not n
                else f"not judged: {n} pairable item{'s' if n != 1 else ''} (fewer than {min_items})"
                if n < min_items
                else "not judged: kappa undefined (no variation to test)"
            )
            continue
        if random_flag[i]:
            r = f"random: p {_p(random_p[i])} (Holm), chance p {_p(chance_p[i])}"
        elif chance_p[i] < random_level:
            r = f"not random: above chance (p {_p(chance_p[i])})"
        else:
            r = f"not random: p {_p(random_p[i])} (Holm)"
        if bias_flag[i]:
            b = f"biased: TVD {tvd[i]:.2f}, p {_p(biased_p[i])} (Holm)"
        elif not tvd[i] >= bias_threshold:
            b = f"not biased: TVD {tvd[i]:.2f} < {bias_threshold:g}"
        else:
            b = f"not biased: p {_p(biased_p[i])} (Holm) >= {bias_p:g}"
        out.append(f"{r}; {b}")
    return np.array(out, dtype=object)


def _mace(data: Annotations, max_iter: int, tol: float, progress: bool | None) -> tuple[np.ndarray, np.ndarray, int]:
    r"""MACE's EM (Hovy et al. 2013): competence :math:`\theta_a` and spamming distribution :math:`\xi_a`.

    Annotator a labels item i with its true label T_i with probability :math:`\theta_a`, otherwise draws a label
    from :math:`\xi_a`: :math:`P(l \mid t) = \theta_a [l = t] + (1 - \theta_a)\xi_{al}`; true labels uniform.
    E-step: item posteriors; M-step: expected "knowing" counts :math:`P(T_i = l)\,\theta_a / (\theta_a +
    (1-\theta_a)\xi_{al})` give :math:`\theta_a` and the rest :math:`\xi_a`, both with crowd-kit's smoothing
    0.01 / K. Starts from majority-vote posteriors; stops when no :math:`\theta_a` moves by more than ``tol``.

    The posterior is kept on the items' (item, label) count entries only: every label nobody gave item i has the
    same log-posterior :math:`\sum_{j \in i} \log((1-\theta_{a_j})\xi_{a_j l_j})` (no "knowing" bonus), so those
    labels enter only the normalisation, counted :math:`K - d_i` times (:math:`d_i` the item's distinct labels).
    Memory: annotations and annotators × labels, not items × labels.
    """
    a_n = cast(int, data.n_annotators)
    part = _MacePart(data, cast(np.ndarray, data.annotator), a_n)
    return _mace_em(part.label_counts(), a_n, max(data.n_categories, 1), part.step, max_iter, tol, progress)


class _MacePart:
    """One (partition of whole items of the) data's side of MACE's EM: the E step on its items and its share of the
    M step's sums, with the annotators coded by ``ann`` among ``a_n`` (the Dask engine's partitions use the whole
    data's codes)."""

    def __init__(self, data: Annotations, ann: np.ndarray, a_n: int) -> None:
        c, i_n = max(data.n_categories, 1), data.n_items
        lab, item = data.label, data.item
        cnt = data.counts
        e_item = cnt.item
        n_e = e_item.size
        # each annotation's count entry: a dense (item, label) -> entry table while it is small, else the rank of its
        # key among the sorted entry keys (binary searches of 10^7 unsorted keys cost ~8 s; the table, ~0.1 s)
        keys = item.astype(np.int64) * c + lab
        if i_n * c <= _ENTRY_TABLE_CELLS:
            where = np.empty(i_n * c, dtype=np.int64)
            where[e_item.astype(np.int64) * c + cnt.category] = np.arange(n_e)
            self.entry = where[keys]
        else:
            self.entry = np.searchsorted(e_item.astype(np.int64) * c + cnt.category, keys)
        self.rest = (c - np.bincount(e_item, minlength=i_n)).astype(float)  # labels nobody gave the item
        self.starts = np.flatnonzero(np.r_[True, e_item[1:] != e_item[:-1]]) if n_e else np.zeros(0, np.int64)
        self.start = cnt.count / np.maximum(cnt.n_i[e_item], 1.0)  # majority-vote proportions, per count entry
        self.al = ann * c + lab  # every per-annotation quantity is a function of (annotator, label): gather from tables
        self.e_item, self.item, self.n_e, self.i_n, self.a_n, self.c = e_item, item, n_e, i_n, a_n, c

    def label_counts(self) -> np.ndarray:
        """Annotations per (annotator, label), flattened."""
        return np.bincount(self.al, minlength=self.a_n * self.c).astype(float)

    def step(self, theta: np.ndarray, xi: np.ndarray, first: bool) -> np.ndarray:
        """The expected "knowing" counts per (annotator, label) given the posteriors of the E step with
        ``theta`` and ``xi`` (``first``: the majority-vote proportions instead)."""
        post = self.start if first else self.posteriors(theta, xi)
        q = post[self.entry]  # P(T_i = the annotation's label)
        know_given = theta[:, None] / np.maximum(theta[:, None] + (1.0 - theta[:, None]) * xi, _TINY)
        know = q * know_given.ravel()[self.al]
        return np.bincount(self.al, weights=know, minlength=self.a_n * self.c).reshape(self.a_n, self.c)

    def posteriors(self, theta: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """The E step: each count entry's posterior probability of being its item's true label."""
        e_item, i_n, al = self.e_item, self.i_n, self.al
        spam_t = np.maximum((1.0 - theta[:, None]) * xi, _TINY)
        base_t = np.log(spam_t)
        bonus_t = np.log(theta[:, None] + spam_t) - base_t
        ll_rest = np.bincount(self.item, weights=base_t.ravel()[al], minlength=i_n)
        ll = ll_rest[e_item] + np.bincount(self.entry, weights=bonus_t.ravel()[al], minlength=self.n_e)
        top = np.zeros(i_n)
        if self.n_e:
            top[e_item[self.starts]] = np.maximum.reduceat(ll, self.starts)  # the bonus is positive: a given label
        post = np.exp(ll - top[e_item])
        z = np.bincount(e_item, weights=post, minlength=i_n) + self.rest * np.exp(ll_rest - top)
        post /= z[e_item]
        return post


def _mace_em(
    n_al: np.ndarray, a_n: int, c: int, step: Any, max_iter: int, tol: float, progress: bool | None
) -> tuple[np.ndarray, np.ndarray, int]:
    """MACE's iterations from the (annotator, label) counts ``n_al`` and ``step(theta, xi, first)``, the expected
    "knowing" counts of an E step (summed over the partitions on the Dask engine): competence, spamming
    distributions and the iterations run."""
    from iaa_engine.base._progress import Progress

    smooth = 0.01 / c
    n_a = n_al.reshape(a_n, c).sum(axis=1)

    def m_step(k_al: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        new_theta = (k_al.sum(axis=1) + smooth) / (n_a + 2.0 * smooth)
        spam = n_al.reshape(a_n, c) - k_al + smooth
        return new_theta, spam / spam.sum(axis=1, keepdims=True)

    theta = np.full(a_n, 0.5)
    xi = np.full((a_n, c), 1.0 / c)
    theta, xi = m_step(step(theta, xi, True))
    n_iter = 0
    with Progress(max_iter, "MACE EM", show=progress) as bar:
        for n_iter in range(1, max_iter + 1):
            new_theta, xi = m_step(step(theta, xi, False))
            bar.update()
            moved = float(np.max(np.abs(new_theta - theta))) if a_n else 0.0
            theta = new_theta
            if moved < tol:
                break
    return theta, xi, n_iter


def posterior_codes(p: np.ndarray, n_i: np.ndarray) -> np.ndarray:
    """Per item the category of the largest posterior (items × categories ``p``), -1 where it is tied (within
    1e-9) or the item has fewer than two annotations (``n_i``): Dawid-Skene gold codes."""
    out = np.full(p.shape[0], -1, dtype=np.int64)
    if p.size == 0:
        return out
    best = p.max(axis=1, keepdims=True)
    unique = (np.sum(p >= best - 1e-9, axis=1) == 1) & (n_i >= 2)
    out[unique] = np.argmax(p, axis=1)[unique]
    return out


def _gold_codes(data: Annotations, gold: Any, max_iter: int, progress: bool | None) -> tuple[np.ndarray, str]:
    """Per item the gold category code (-1: none, or tied). The majority needs nothing of ``_gold`` (the page's
    scorecard does not pay for importing it)."""
    out = np.full(data.n_items, -1, dtype=np.int64)
    if isinstance(gold, str) and gold == "majority":
        cnt = data.counts
        top = cnt.count == cnt.max_i[cnt.item]
        n_top = np.bincount(cnt.item[top], minlength=data.n_items)
        win = top & (n_top[cnt.item] == 1) & (cnt.n_i[cnt.item] >= 2)  # one vote is no gold for its own author
        out[cnt.item[win]] = cnt.category[win]
        return out, gold
    if isinstance(gold, str) and gold == "dawid_skene":
        from iaa_engine.analysis._gold import gold_standard
        from iaa_engine.base._policy import check_memory

        cells = float(cast(int, data.n_annotators)) * data.n_categories**2  # its confusion tables, and temporaries
        check_memory(
            8.0 * (6.0 * cells + 4.0 * data.n_items * data.n_categories),
            f"Dawid-Skene gold ({data.n_annotators} annotators x {data.n_categories}x{data.n_categories} labels)",
            "use gold='majority' or known labels",
        )
        post = cast(
            pd.DataFrame, gold_standard(data, rule="dawid_skene", max_iter=max_iter, progress=progress).posteriors
        )
        return posterior_codes(post.to_numpy(), data.counts.n_i), gold
    from iaa_engine.analysis._gold import known_codes

    k_item, k_cat, _ = known_codes(data, gold)
    out[k_item] = k_cat
    return out, "known"


# --------------------------------------------------------------------------- the public function


@validate(
    gold=ANY,
    level=NoneOr(Choice(*LEVELS)),
    random_fraction=Real(0, 1, low_open=True),
    random_level=Real(0, 1, low_open=True, high_open=True),
    bias_threshold=Real(0, 1),
    bias_p=Real(0, 1, low_open=True, high_open=True),
    min_items=Whole(1),
    competence=Flag(),
)
def annotator_report(
    data: Any,
    *,
    gold: Any = None,
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
    confidence: float = 0.95,
    random_fraction: float = 0.8,
    random_level: float = 0.05,
    bias_threshold: float = 0.15,
    bias_p: float = 0.001,
    min_items: int = 20,
    pairwise: bool | Literal["auto"] = "auto",
    competence: bool = True,
    max_iter: int = 100,
    tol: float = 1e-3,
    progress: bool | None = None,
    time: str | None = None,
    freq: str = "W",
) -> AnnotatorReport:
    r"""A scorecard per annotator: agreement with the others, accuracy against gold, alpha without them, bias tests
    and a flag for likely random or biased work.

    Every column is array algebra on the data's codes (sparse products annotators × items × categories), not a
    loop over annotations. For annotator a, on the items a labelled that someone else labelled too (``n_pairable``;
    items with one annotation have no agreement), with :math:`n_{il}` item i's label counts and :math:`m_i` its
    annotations:

    ``agreement``, ``kappa`` (with the pooled others)
        The agreement table of a against the pooled others, each item weighing one,

        .. math::

            T^{(a)}_{kl} = \sum_{i \ni a,\ a\ \mathrm{says}\ k} \frac{n_{il} - [k = l]}{m_i - 1},

        is the expected table of a against one other annotator drawn at random on each item. ``agreement`` is
        :math:`\mathrm{tr}\,T / n` (the share of a's pairs of annotations that agree: a's part of Fleiss' observed
        agreement, Fleiss 1971) with Wilson's interval; ``kappa`` is Cohen's (1960) kappa of T (a's own
        margins against the others'), with the large-sample standard error of Fleiss, Cohen & Everitt (1969) and a
        normal interval (with more than two annotators T holds expected counts, and the standard error treats it as
        a table of the n items: an approximation). With two annotators, both are their percentage agreement and
        Cohen's kappa.
    ``accuracy``, ``gold_kappa`` (against the gold labels)
        a's labels against the items' gold labels: ``gold=None`` or ``'majority'`` (majority vote, which counts a's
        own vote: on items with few annotations it flatters a), ``'dawid_skene'`` (Dawid & Skene 1979), or known
        labels (a mapping ``{item: label}``, a Series or a table with ``item`` and ``label``: accuracy on the gold
        questions). Items whose gold label is tied are left out, and with majority or Dawid-Skene gold the items
        with a single annotation too (their gold would be the annotator's own label); ``n_gold`` counts the rest.
        Accuracy with Wilson's (1927) interval; Cohen's kappa of the label × gold table with the interval above.
    ``alpha_without``, ``alpha_change``
        Krippendorff's alpha at ``level`` without a's annotations, and its change :math:`\alpha_{-a} - \alpha`
        (positive: the data agree better without a); computed for all annotators at once from the coincidence
        matrix (:func:`alpha_without_each`).
    ``chi2``, ``chi2_df``, ``chi2_p``, ``tvd``
        a's label distribution against the others' labels on the same items: Pearson's chi-square on the 2 × K
        table (a's label counts, the others' label counts on a's pairable items), and the total variation distance
        :math:`\tfrac12\sum_k |p_{ak} - q_{ak}|` between the two distributions. The two rows share items, so they are
        positively correlated when people agree; treating them as independent makes the test conservative.
    ``chance_p``
        The one-sided p-value of "a labels at random": a's pairable labels shuffled among a's pairable items (a
        labeller whose labels ignore the item, MACE's spammer among them) give the agreement sum
        :math:`S_a = \mathrm{tr}\,T^{(a)}` the exact mean :math:`E_0` (so that ``kappa`` is
        :math:`(S_a - E_0)/(n - E_0)`) and variance :math:`V_0` of a linear permutation statistic (Hoeffding 1951);
        ``chance_p`` :math:`= 1 - \Phi((S_a - E_0)/\sqrt{V_0})`, small when a agrees with the others more than any
        random labeller with a's label counts would (1 for an annotator who gives every item the same label).
    ``random_p``
        Holm's (1979) adjusted p-value, across the annotators with at least ``min_items`` pairable items, of the
        one-sided test of "a's kappa with the others is at least ``random_fraction`` (0.8) times the typical
        annotator's" (:math:`\kappa_0`, the median ``kappa`` of those annotators, in ``settings``):
        :math:`\Phi((\kappa_a - \kappa_0)/\mathrm{se}_0)` with :math:`\mathrm{se}_0 = \sqrt{V_0}/(n - E_0)`, the
        standard error at chance level (for the small kappas where the decision falls the two differ little).
    ``biased_p``
        Holm's adjusted ``chi2_p`` across the same annotators.
    ``competence``
        MACE's (Hovy et al. 2013) competence :math:`\theta_a`: the probability that a labels by knowing rather
        than by drawing from a spamming distribution :math:`\xi_a` (EM, true labels uniform, smoothing 0.01 / K as
        crowd-kit's ``MACE``). About 0 for an annotator who clicks at random, near 1 for a careful one; NaN for an
        annotator who shares no item with anyone, and for everyone with ``competence=False`` (no EM). A model-based
        point estimate without an interval, shown beside the flags but not behind them: on 20-30 items it falls
        below 0.3 for genuine annotators of accuracy 0.5-0.6 with four labels.
    ``flag``, ``flag_reason``
        ``'random'`` when a's agreement with the others is both significantly below the typical annotator's
        (``random_p < random_level``, default 0.05, family-wise over the annotators) and not significantly above
        chance (``chance_p >= random_level``): indistinguishable from a random labeller and distinguishable from a
        genuine one. ``'biased'`` when ``tvd >= bias_threshold`` (default 0.15) and ``biased_p < bias_p`` (default
        0.001, family-wise). Both only for an annotator with at least ``min_items`` (default 20) pairable items and
        a defined kappa; ``'random,biased'`` for both; empty otherwise. ``flag_reason`` says in a few words why
        each flag is given or not (e.g. ``not random: above chance (p 0.0074); not biased: TVD 0.05 < 0.15``, or
        ``not judged: 14 pairable items (fewer than 20)``).

        The error rates. Holm's adjustment bounds the probability that any annotator whose kappa is at least
        ``random_fraction`` times the typical one is flagged ``random`` by ``random_level`` (normal approximation),
        and an annotator significantly better than chance is never flagged ``random``. Why two tests: the chance
        test alone cannot say "random" (not rejecting chance is no evidence of it, and on 20 items a weak genuine
        annotator often fails to beat chance), and a test against a genuine level alone flags genuine but weak
        annotators once they have many items. Why Holm (family-wise) and not Benjamini-Hochberg (false discovery
        rate): a flag is a statement about a person, so the stated rate is that of flagging anyone wrongly; with one
        random labeller among many, both adjust its p-value alike. Measured on simulated crowds
        shaped like the bundled example (40 annotators, accuracies uniform on 0.45-0.95 with errors spread over the
        other 3 of 4 labels, 3 labels per item, seeds 0-199 each; tests/test_scorecard.py checks seeds 0-99):
        genuine annotators flagged ``random`` 0.5 % of the time at 20 items per annotator, 1.5 % at 50 and 0.01 % at
        200; a random labeller with 60 items beside them flagged 91 %, 87.5 % and 95 % of the time (MACE competence
        below 0.3, the former rule: 12.5 % of genuine annotators at about 30 items). The bias rule needs both a large
        difference (TVD, not only significance, which any tiny difference reaches with thousands of items) and
        significance (not only a large difference, which a few items give by chance); an annotator who was given
        items of a different kind than the others is compared on the same items, so item mix alone does not flag
        them. When most annotators work at random the typical kappa is near 0 and nobody is singled out.

    Per pair of annotators (``pairs``): the Stuart-Maxwell and Bhapkar tests of marginal homogeneity on their
    shared items (:attr:`AnnotatorReport.pairs`; the statistics of ``iaa_engine.stats._homogeneity``).

    Memory grows with the annotations and the annotators × labels margins, not with labels²: above
    ``TABLE_CELLS`` (2**24) cells the agreement and gold tables are not formed, and kappa and its standard error
    come from their diagonals, margins and one bilinear sum (the same numbers); alpha without each annotator never
    forms a coincidence matrix (:func:`alpha_without_each`). Only the pairwise tests need labels² per pair (see
    ``pairwise``).

    Parameters
    ----------
    data : Annotations or convertible
        Annotations with annotator identities and their labels.
    gold : {'majority', 'dawid_skene'}, mapping, pandas.Series or pandas.DataFrame, optional
        Where the gold labels come from (default: majority vote).
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, optional
        Level of the alpha columns (default: the data's level). The other columns treat labels as categories.
    confidence : float, default 0.95
        Coverage of the intervals.
    random_fraction : float, default 0.8
        A genuine annotator's kappa with the others is at least this fraction of the typical (median) annotator's
        (the hypothesis ``random_p`` tests), in (0, 1].
    random_level : float, default 0.05
        ``'random'`` when ``random_p`` is below this family-wise level and ``chance_p`` is not.
    bias_threshold : float, default 0.15
        ``'biased'`` from this total variation distance on (with ``bias_p``).
    bias_p : float, default 0.001
        ``'biased'`` below this Holm-adjusted chi-square p-value (``biased_p``; with ``bias_threshold``).
    min_items : int, default 20
        Annotators with fewer pairable items are never flagged (too little evidence).
    pairwise : bool or 'auto', default 'auto'
        Compute the pairwise marginal-homogeneity tests; ``'auto'``: up to 100 annotators and while (pairs of
        annotators who share an item) × labels² is at most 2**24 (``PAIRWISE_CELLS``; e.g. 3 annotators up to
        2,364 labels), else left out with a note; ``True``: always, or a ``NotEnoughMemoryError`` before allocating
        when their tables would not fit in the available memory.
    competence : bool, default True
        Compute MACE's competence (its EM); ``False`` leaves the column NaN (the flags do not need it).
    max_iter : int, default 100
        Largest number of EM iterations (MACE, and Dawid-Skene when ``gold='dawid_skene'``).
    tol : float, default 1e-3
        MACE stops when no competence moves by more than this (Dawid-Skene: its own criterion).
    progress : bool, optional
        Show EM progress on stderr (default: only on a terminal).
    time : str, optional
        A kept column of timestamps (``ie.read(path, keep=["created_at"])``): adds ``drift``, each annotator's
        ``agreement`` with the pooled others per time window, with Wilson's interval. An item belongs to the window
        of its first annotation, as in :func:`iaa_engine.agreement_by`, so a window's row is the annotator's
        agreement on that window's data alone.
    freq : {'D', 'W', 'M'}, default 'W'
        The windows of ``time``: days, weeks (Monday to Sunday), calendar months.

    Returns
    -------
    AnnotatorReport
        ``table`` with one row per annotator: ``annotator``, ``n_items``, ``n_pairable``, ``agreement``,
        ``agreement_lower``, ``agreement_upper``, ``kappa``, ``kappa_se``, ``kappa_lower``, ``kappa_upper``,
        ``n_gold``, ``accuracy``, ``accuracy_lower``, ``accuracy_upper``, ``gold_kappa``, ``gold_kappa_lower``,
        ``gold_kappa_upper``, ``alpha_without``, ``alpha_change``, ``chi2``, ``chi2_df``, ``chi2_p``, ``tvd``,
        ``chance_p``, ``random_p``, ``biased_p``, ``competence``, ``flag``, ``flag_reason``; ``pairs`` (see
        :class:`AnnotatorReport`).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them, or ``gold`` is neither a rule name nor known labels.
    ValueError
        The data has no annotator identities or holds only statistics, or a known label is not a category.
    NotEnoughMemoryError
        ``pairwise=True`` or ``gold='dawid_skene'`` and their labels² tables would not fit in the available memory
        (raised before allocating; a ``ValueError``).

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37-46.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378-382.

    Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of kappa and weighted kappa.
    Psychological Bulletin 72(5), 323-327.

    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. Journal of the
    American Statistical Association 22(158), 209-212.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Hovy, D., Berg-Kirkpatrick, T., Vaswani, A., & Hovy, E. (2013). Learning whom to trust with MACE. Proceedings
    of NAACL-HLT 2013, 1120-1130.

    Hoeffding, W. (1951). A combinatorial central limit theorem. Annals of Mathematical Statistics 22(4),
    558-566.

    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics
    6(2), 65-70.

    Stuart, A. (1955). A test for homogeneity of the marginal distributions in a two-way classification.
    Biometrika 42(3/4), 412-416.

    Bhapkar, V. P. (1966). A note on the equivalence of two test criteria for hypotheses in categorical data.
    Journal of the American Statistical Association 61(313), 228-235.

    Examples
    --------
    The classroom exercise: alpha (0.608) falls to 0.414 without annotator_0 and rises to about 0.71 without either
    of the others, whose agreement with the pooled others is lower:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> card = ie.annotator_report(data, progress=False)
    >>> card.table[["annotator", "agreement", "kappa", "alpha_without", "alpha_change"]].round(3)
         annotator  agreement  kappa  alpha_without  alpha_change
    0  annotator_0        0.8  0.703          0.414        -0.194
    1  annotator_1        0.7  0.551          0.709         0.101
    2  annotator_2        0.7  0.559          0.707         0.099
    >>> round(card.alpha, 4) == round(ie.krippendorff_alpha(data), 4)
    True
    """
    data = as_annotations(data)
    data.require_annotators("the annotator scorecard")
    if data.label is None:
        raise ValueError("the annotator scorecard needs the annotations themselves, not only statistics")
    if gold is not None and not isinstance(gold, (str, dict, pd.Series, pd.DataFrame)):
        raise TypeError(
            "gold must be 'majority', 'dawid_skene', a mapping item -> label, a Series or a DataFrame; got "
            f"{type(gold).__name__}"
        )
    if isinstance(gold, str) and gold not in ("majority", "dawid_skene"):
        from iaa_engine.base._policy import invalid

        raise invalid("gold", "'majority', 'dawid_skene' or known labels (a mapping, Series or DataFrame)", gold)
    level = data.level if level is None else level
    a_n, c = cast(int, data.n_annotators), max(data.n_categories, 1)
    ann, lab = cast(np.ndarray, data.annotator), data.label
    pt = _patterns(data)
    dense_tables = a_n * c * c <= TABLE_CELLS and pt.m.size * c <= TABLE_CELLS

    # accuracy and kappa against gold: the label × gold table of each annotator (or its parts)
    gold_cat, gold_name = _gold_codes(data, "majority" if gold is None else gold, max_iter, progress)
    gold_table: Any
    if dense_tables and gold_name == "majority":  # majority gold is a function of an item's counts: by pattern
        import scipy.sparse as sp

        g_pat = gold_cat[pt.first]
        keep = np.flatnonzero(g_pat >= 0)
        to_gold = sp.csr_matrix((np.ones(keep.size), (keep, g_pat[keep])), shape=(pt.m.size, c))
        gold_table = _dense(pt.k_al @ to_gold).reshape(a_n, c, c)
    elif dense_tables:
        g = gold_cat[data.item]
        has = g >= 0
        gold_table = np.bincount(((ann * c + lab) * c + g)[has], minlength=a_n * c * c).reshape(a_n, c, c).astype(float)
    else:
        g = gold_cat[data.item]
        has = g >= 0
        gold_table = _gold_parts(ann[has], lab[has], g[has], a_n, c)
    numeric = data.category_values(level) if level in ("interval", "ratio") else None
    # competence (MACE): shown beside the flags, no longer behind them
    theta = _mace(data, max_iter, tol, progress)[0] if competence else None
    drift = _drift(data, time, freq, confidence) if time is not None else None
    return scorecard(
        pt,
        cast(pd.Index, data.annotators),
        level,
        gold_table,
        gold_name,
        theta,
        lambda: pair_cells(data),
        drift,
        numeric=numeric,
        confidence=confidence,
        random_fraction=random_fraction,
        random_level=random_level,
        bias_threshold=bias_threshold,
        bias_p=bias_p,
        min_items=min_items,
        pairwise=pairwise,
    )


def scorecard(
    pt: _Patterns,
    names: pd.Index,
    level: str,
    gold_table: Any,
    gold_name: str,
    theta: np.ndarray | None,
    pair_source: Any,
    drift: pd.DataFrame | None,
    *,
    numeric: np.ndarray | None,
    confidence: float,
    random_fraction: float,
    random_level: float,
    bias_threshold: float,
    bias_p: float,
    min_items: int,
    pairwise: Any,
) -> AnnotatorReport:
    """The scorecard from what it needs of the data, which adds up over partitions of whole items: the count
    patterns ``pt``, each annotator's label × gold table (annotators × labels × labels, or :func:`_gold_parts`
    above ``TABLE_CELLS``), MACE's competence (None: not computed), ``pair_source()`` the pairs' cells
    (:func:`pair_cells`) and the drift table. :func:`annotator_report` and the Dask engine both finish here."""
    a_n, c = len(names), max(pt.vec.shape[1], 1)
    z = normal_quantile(confidence)
    notes: list[str] = []

    # agreement and kappa with the pooled others
    n_items = np.rint(np.asarray(pt.k_a.sum(axis=1)).ravel()).astype(np.int64)
    n_pair = np.asarray(pt.k_a @ (pt.m >= 2).astype(float)).ravel()  # annotations on items someone else labelled
    dense_tables = a_n * c * c <= TABLE_CELLS and pt.m.size * c <= TABLE_CELLS
    if dense_tables:
        soft = _soft_table(None, pt)
        agree_sum = np.einsum("aii->a", soft)
        kappa, kappa_se, _, _ = kappa_from_tables(soft)
    else:  # many labels: kappa and its standard error from the diagonal, margins and one bilinear sum
        soft_parts = _soft_parts(None, pt)
        agree_sum = soft_parts[1].sum(axis=1)
        kappa, kappa_se = _kappa_parts(*soft_parts)
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement = np.where(n_pair > 0, agree_sum / n_pair, np.nan)
    ag_lo, ag_hi = wilson_interval(agree_sum, n_pair, confidence)

    # accuracy and kappa against gold
    if isinstance(gold_table, np.ndarray):
        n_gold = gold_table.sum(axis=(1, 2))
        correct = np.einsum("aii->a", gold_table)
        gkappa, gkappa_se, _, _ = kappa_from_tables(gold_table)
    else:
        n_gold, correct = gold_table[0], gold_table[1].sum(axis=1)
        gkappa, gkappa_se = _kappa_parts(*gold_table)
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = np.where(n_gold > 0, correct / n_gold, np.nan)
    acc_lo, acc_hi = wilson_interval(correct, n_gold, confidence)

    # alpha without each annotator
    alpha, alpha_wo = _alpha_without(None, level, pt, numeric)

    # label distribution against the others on the same items
    pair_p = (pt.m >= 2).astype(float)
    own = (pt.k_al @ pair_p).reshape(a_n, c)
    others = _dense(pt.k_a @ (_diag(pair_p) @ pt.vec)) - own
    chi2, chi2_df, chi2_p = two_sample_chi2(own, others)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_own = own / own.sum(axis=1, keepdims=True)
        p_oth = others / others.sum(axis=1, keepdims=True)
        tvd = 0.5 * np.abs(p_own - p_oth).sum(axis=1)

    # the flags: tests of each annotator's agreement with the others (random) and label distribution (biased)
    if dense_tables:
        row_m, col_m = soft.sum(axis=2), soft.sum(axis=1)
    else:
        row_m, col_m = soft_parts[2], soft_parts[3]
    e0, var0 = _chance_moments(pt, row_m, col_m)
    sd0 = np.sqrt(var0)
    enough = (n_pair >= min_items) & np.isfinite(kappa)
    with np.errstate(divide="ignore", invalid="ignore"):
        z_chance = (agree_sum - e0) / sd0
        kappa_se0 = sd0 / (n_pair - e0)
    # one label only: the shuffles cannot change the agreement (V_0 is 0 up to rounding)
    degenerate = np.isfinite(e0) & ~(sd0 > 1e-9 * np.maximum(n_pair, 1.0))
    chance_p = np.where(degenerate, 1.0, normal_cdf(-z_chance))
    typical_pool = kappa[enough] if enough.any() else kappa[np.isfinite(kappa)]
    typical = float(np.median(typical_pool)) if typical_pool.size else float("nan")
    kappa0 = random_fraction * typical
    with np.errstate(divide="ignore", invalid="ignore"):
        below = normal_cdf((kappa - kappa0) / kappa_se0)
    below = np.where(degenerate & np.isfinite(kappa), (kappa >= kappa0).astype(float), below)
    random_p = holm(np.where(enough & np.isfinite(kappa0), below, np.nan))
    biased_p = holm(np.where(enough, chi2_p, np.nan))
    random_flag = enough & (random_p < random_level) & (chance_p >= random_level)
    bias_flag = enough & (tvd >= bias_threshold) & (biased_p < bias_p)
    flag = np.where(
        random_flag & bias_flag, "random,biased", np.where(random_flag, "random", np.where(bias_flag, "biased", ""))
    )
    reason = _flag_reasons(
        n_pair, min_items, enough, random_flag, chance_p, random_p, random_level, bias_flag, tvd, biased_p,
        bias_threshold, bias_p,
    )  # fmt: skip
    if (~enough).any():
        notes.append(
            f"{int((~enough).sum())} annotator(s) with fewer than {min_items} pairable items are never flagged"
        )

    # competence (MACE): nobody to compare with, not identified
    theta = np.full(a_n, np.nan) if theta is None else np.where(n_pair > 0, theta, np.nan)

    def ci(est: np.ndarray, se: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.clip(est - z * se, -1.0, 1.0), np.clip(est + z * se, -1.0, 1.0)

    k_lo, k_hi = ci(kappa, kappa_se)
    gk_lo, gk_hi = ci(gkappa, gkappa_se)
    table = pd.DataFrame(
        {
            "annotator": names.to_numpy(),
            "n_items": n_items,
            "n_pairable": n_pair.astype(np.int64),
            "agreement": agreement,
            "agreement_lower": ag_lo,
            "agreement_upper": ag_hi,
            "kappa": kappa,
            "kappa_se": kappa_se,
            "kappa_lower": k_lo,
            "kappa_upper": k_hi,
            "n_gold": n_gold.astype(np.int64),
            "accuracy": accuracy,
            "accuracy_lower": acc_lo,
            "accuracy_upper": acc_hi,
            "gold_kappa": gkappa,
            "gold_kappa_lower": gk_lo,
            "gold_kappa_upper": gk_hi,
            "alpha_without": alpha_wo,
            "alpha_change": alpha_wo - alpha,
            "chi2": chi2,
            "chi2_df": chi2_df,
            "chi2_p": chi2_p,
            "tvd": tvd,
            "chance_p": chance_p,
            "random_p": random_p,
            "biased_p": biased_p,
            "competence": theta,
            "flag": flag,
            "flag_reason": reason,
        }
    )
    want_pairs = pairwise is True or (pairwise == "auto" and a_n <= PAIRWISE_LIMIT)
    if pairwise == "auto" and not want_pairs:
        notes.append(f"pairwise marginal-homogeneity tests left out above {PAIRWISE_LIMIT} annotators (pairwise=True)")
    pairs = pair_tests(pair_source(), names, c, pairwise is True, notes) if want_pairs else None
    settings = {
        "random_fraction": float(random_fraction),
        "random_level": float(random_level),
        "typical_kappa": typical,
        "random_kappa": float(kappa0),
        "bias_threshold": float(bias_threshold),
        "bias_p": float(bias_p),
        "min_items": int(min_items),
        "correction": "holm",
    }
    return AnnotatorReport(table, pairs, alpha, level, gold_name, float(confidence), settings, notes, drift)


def _drift(data: Annotations, time: str, freq: str, confidence: float) -> pd.DataFrame:
    r"""Each annotator's agreement with the pooled others per time window: on annotator a's pairable annotations
    of the window's items, the mean of :math:`(n_{il} - 1)/(m_i - 1)` (l: a's label), the ``agreement`` column
    computed per window (one pass over the annotations: a look-up of each annotation's count and one bincount)."""
    sums = drift_sums(data, cast(np.ndarray, data.annotator), cast(int, data.n_annotators), time, freq)
    return drift_table(sums, cast(pd.Index, data.annotators), confidence)


def drift_sums(data: Annotations, ann: np.ndarray, a_n: int, time: str, freq: str) -> pd.DataFrame:
    """The sums behind :func:`drift_table`, one row per (annotator, window) with a pairable annotation:
    ``a`` (the annotator's code in ``ann``'s coding among ``a_n``), ``start`` (the window's start, ns since the
    epoch), ``window`` (its label), ``agree`` (the sum of the others' shares of a's labels) and ``n``. Each item's
    window is that of its first annotation, so the sums of partitions of whole items add up."""
    from iaa_engine.analysis._by import item_windows

    window, windows = item_windows(data, time, freq)
    counts, q = data.counts, max(data.n_categories, 1)
    entry = np.searchsorted(counts.item * q + counts.category, data.item * q + data.label)
    m = np.bincount(counts.item, weights=counts.count, minlength=data.n_items)[data.item]
    w = window[data.item]
    ok = (m >= 2) & (w >= 0)
    n_w = len(windows)
    cell = ann[ok] * n_w + w[ok]
    share = (counts.count[entry[ok]] - 1.0) / (m[ok] - 1.0)
    agree = np.bincount(cell, weights=share, minlength=a_n * n_w)
    n = np.bincount(cell, minlength=a_n * n_w)
    cells = np.flatnonzero(n)
    a, k = np.divmod(cells, n_w)
    return pd.DataFrame(
        {
            "a": a.astype(np.int64),
            "start": windows["start"].to_numpy().astype("datetime64[ns]").view(np.int64)[k],
            "window": windows["group"].to_numpy()[k],
            "agree": agree[cells],
            "n": n[cells].astype(np.int64),
        }
    )


def drift_table(sums: pd.DataFrame, names: pd.Index, confidence: float) -> pd.DataFrame:
    """The ``drift`` table of :attr:`AnnotatorReport.drift` from :func:`drift_sums` (of the whole data, or of
    partitions of whole items concatenated): by annotator, then window in time order, with Wilson's interval."""
    if sums.duplicated(["a", "start"]).any():  # partitions' sums of the same cell
        sums = (
            sums.groupby(["a", "start"], sort=False)
            .agg(window=("window", "first"), agree=("agree", "sum"), n=("n", "sum"))
            .reset_index()
        )
    sums = sums.sort_values(["a", "start"], kind="stable")
    agree, n = sums["agree"].to_numpy(float), sums["n"].to_numpy(np.int64)
    lower, upper = wilson_interval(agree, n.astype(float), confidence)
    return pd.DataFrame(
        {
            "annotator": names.to_numpy()[sums["a"].to_numpy(np.int64)],
            "window": sums["window"].to_numpy(dtype=object),
            "start": sums["start"].to_numpy(np.int64).view("datetime64[ns]"),
            "n_pairable": n,
            "agreement": agree / n,
            "lower": lower,
            "upper": upper,
        }
    )


def _pair_tests(data: Annotations, required: bool, notes: list) -> pd.DataFrame | None:
    """Stuart-Maxwell and Bhapkar on the shared items of every pair a < b that shares an item.

    The (pairs, K, K) tables and a (K - 1)-square inverse per pair: left out with a note above
    :data:`PAIRWISE_CELLS` cells unless ``required`` (``pairwise=True``), which is refused before allocating when
    about six such stacks of float64 would not fit in the memory available."""
    return pair_tests(pair_cells(data), cast(pd.Index, data.annotators), max(data.n_categories, 1), required, notes)


def pair_cells(data: Annotations, ann_codes: np.ndarray | None = None) -> tuple:
    """The cells of every pair's table, pair by pair a < b: ``(a, b, k, l, count)`` (a's label k, b's label l);
    ``ann_codes``: each of the data's annotators' code among more annotators (a partition's annotators in the whole
    data's), whose cells add up over partitions of whole items."""
    ps = data.pair_stats
    a, b = ps.a, ps.b
    if ann_codes is not None:
        a, b = ann_codes[a], ann_codes[b]
    keep = a < b
    return a[keep], b[keep], ps.k[keep], ps.l[keep], ps.count[keep]


def pair_tests(source: tuple, names: pd.Index, c: int, required: bool, notes: list) -> pd.DataFrame | None:
    """:func:`_pair_tests` from the cells of :func:`pair_cells` (of the whole data, or of partitions concatenated)."""
    from iaa_engine.base._policy import check_memory

    a, b, k, lab, count = source

    a_n = len(names)
    key = a * a_n + b
    uniq, row = np.unique(key, return_inverse=True)
    cells = float(uniq.size) * c * c
    if required:
        check_memory(
            6.0 * 8.0 * cells,
            f"the pairwise marginal-homogeneity tests ({uniq.size} pairs of annotators x {c}x{c} labels)",
            "use pairwise=False or 'auto'",
        )
    elif cells > PAIRWISE_CELLS:
        notes.append(
            f"pairwise marginal-homogeneity tests left out: {uniq.size} pairs x {c}x{c} labels is above "
            f"{PAIRWISE_CELLS} cells (pairwise=True computes them if memory allows)"
        )
        return None
    tables = np.bincount(
        (row.ravel() * c + k) * c + lab, weights=np.asarray(count, dtype=float), minlength=uniq.size * c * c
    ).reshape(uniq.size, c, c)
    sm, df, sm_p = marginal_homogeneity_tables(tables, "stuart_maxwell")
    bh, _, bh_p = marginal_homogeneity_tables(tables, "bhapkar")
    pa, pb = np.divmod(uniq, a_n)
    return pd.DataFrame(
        {
            "annotator_a": names.take(pa).to_numpy(),
            "annotator_b": names.take(pb).to_numpy(),
            "n_shared": tables.sum(axis=(1, 2)).astype(np.int64),
            "stuart_maxwell": sm,
            "bhapkar": bh,
            "df": df,
            "stuart_maxwell_p": sm_p,
            "bhapkar_p": bh_p,
        }
    )
