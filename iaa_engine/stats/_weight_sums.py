r"""Sums against agreement weights without the q × q matrix: closed forms over sorted values, prefix sums, moments.

Every weighted coefficient reads its weights :math:`w_{kl}` (:mod:`iaa_engine.stats._weights`) through three
operations, which :class:`Weights` provides:

* ``at(k, l)``: the weights of given pairs of categories (a pair table's observed agreement);
* ``group_sums(group, code, a)``: for every entry :math:`e` of a group,
  :math:`T_e = \sum_{e' \in g} a_{e'} w_{k_e k_{e'}}` (an item's :math:`W r_i`, an annotator's :math:`W^\top p_g`,
  a pair's :math:`W t`); ``matvec(v)`` is the one group of every category, :math:`W v`, and ``total()`` is
  :math:`\sum_{kl} w_{kl}`.

A family writes :math:`w = 1 - f / F` with :math:`f` its raw distance and :math:`F` the largest one, so
:math:`T_e = \sum a' - D_e / F` with :math:`D_e = \sum_{e'} a_{e'} f(x_e, x_{e'})`. Over a group sorted by value,
with :math:`A = \sum a'`, :math:`S = \sum a' u'`, :math:`c = S / A`:

=============  =========================================================================================
``identity``   :math:`T_e` = the :math:`a` of the group's entries in the same category
``linear``     :math:`f = |u - u'|`, :math:`u = (x - m)/R`: :math:`D_e = u_e (A_< - A_>) - (S_< - S_>)`
               (prefix sums below and above :math:`e`)
``quadratic``  :math:`f = (u - u')^2`: :math:`D_e = A (u_e - c)^2 + \sum a' (u' - c)^2` (moments)
``ordinal``    :math:`f = \binom{|p - p'| + 1}{2} = (|p - p'| + (p - p')^2) / 2` on the positions (ranks)
               :math:`p`: the two sums above; :math:`F = q(q - 1)/2`
``circular``   :math:`f = \sin^2(\pi (x - x')/(R + 1)) = (1 - \cos(\varphi - \varphi'))/2`,
               :math:`\varphi = 2\pi (x - m)/(R + 1)`:
               :math:`D_e = (A - \cos\varphi_e \sum a' \cos\varphi' - \sin\varphi_e \sum a' \sin\varphi')/2`;
               :math:`F` is the :math:`f` of the pair of values whose difference is nearest :math:`(R + 1)/2`
               (a binary search per value)
=============  =========================================================================================

``radical`` (:math:`\sqrt{|x - x'|}`), ``ratio`` (:math:`((x - x')/(x + x'))^2`) and ``bipolar`` do not split into
sums of functions of one value: their sums visit the pairs of categories present in a group, in blocks (memory
bounded by the block, time :math:`\sum_g n_g^2`), and a computation that would visit more than
:data:`MAX_PAIRS` pairs is refused with :class:`TooManyCategoriesError` (10⁵ distinct values: 10¹⁰ pairs).
``ratio`` groups with more than :data:`~iaa_engine.stats._differences.RATIO_QUADRATURE_Q` distinct values (and
non-negative weights) are the exception: :math:`D_e = \sum a' (x - x')^2/(x + x')^2` is an integral over
:math:`1/(x + x')^2 = \int_0^\infty t e^{-t(x + x')} dt` taken by the trapezoidal rule
(:func:`~iaa_engine.stats._differences.ratio_row_sums`; Trefethen & Weideman 2014), time O(n_g × nodes) with a
few hundred nodes, accurate to about 1e-15 relative. Their largest distances are known: ``radical`` :math:`\sqrt R`,
``ratio`` :math:`((M - m)/(M + m))^2`, ``bipolar`` 1 (the pair :math:`m, M`).

Up to :data:`DENSE_Q` categories (a rating scale) a family's sums go through its matrix, the fastest way there.
Above it, groups of at most :data:`SMALL` entries (an item's few labels) are summed pair by pair, as the matrix
would; the closed forms serve the larger ones. A user's own q × q array is :class:`DenseWeights` (the matrix, in
blocks of groups).

References
----------
Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.), ch. 3. Advanced Analytics.

Trefethen, L. N., & Weideman, J. A. C. (2014). The exponentially convergent trapezoidal rule. SIAM Review 56(3),
385-458.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import numpy as np

from iaa_engine.base._choices import AGREEMENT_WEIGHTS
from iaa_engine.stats._differences import ratio_row_sums, ratio_uses_quadrature
from iaa_engine.stats._weights import weight_matrix

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = [
    "Weights",
    "DenseWeights",
    "FamilyWeights",
    "TooManyCategoriesError",
    "CLOSED_FORM_FAMILIES",
    "MAX_PAIRS",
    "as_weights",
]

#: The families whose sums have a closed form (no pair of categories visited): memory and time O(q log q).
CLOSED_FORM_FAMILIES = ("identity", "linear", "quadratic", "ordinal", "circular")

#: Groups up to this many entries are summed pair by pair.
SMALL = 32

#: Pairs of entries evaluated at once (bounds the temporaries to about 32 MB each).
_BLOCK = 1 << 22

#: The most pairs of categories a family without a closed form may visit (about 10 s).
MAX_PAIRS = 10**9

#: Up to this many categories a family's sums go through its q × q matrix (at most 32 MB, and the fastest way for a
#: rating scale's few categories); above it, through the closed forms.
DENSE_Q = 2048


class TooManyCategoriesError(ValueError):
    """A family without a closed form would visit more pairs of categories than :data:`MAX_PAIRS`."""


class Weights:
    """Agreement weights over ``q`` categories, read through sums (never necessarily a q × q matrix)."""

    q: int
    key: tuple
    symmetric: bool = True

    def at(self, k: np.ndarray, l: np.ndarray) -> np.ndarray:  # noqa: E741
        """:math:`w_{kl}` for arrays of category codes (broadcast)."""
        raise NotImplementedError

    def group_sums(self, group: np.ndarray, code: np.ndarray, a: np.ndarray) -> np.ndarray:
        """:math:`T_e = \\sum_{e' \\text{ in } e\\text{'s group}} a_{e'} w_{k_e k_{e'}}` for every entry ``e``."""
        raise NotImplementedError

    def row_forms(self, table: sp.csr_matrix) -> np.ndarray:
        """:math:`r_i^\\top W r_i` for every row :math:`r_i` of a rows × q sparse table (sorted indices)."""
        row_of = np.repeat(np.arange(table.shape[0]), np.diff(table.indptr))
        t = self.group_sums(row_of, table.indices, table.data)
        return np.bincount(row_of, weights=table.data * t, minlength=table.shape[0])

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """:math:`W v` (length q)."""
        return self.group_sums(np.zeros(self.q, dtype=np.int64), np.arange(self.q), np.asarray(v, dtype=float))

    @property
    def T(self) -> Weights:  # noqa: N802 - the transpose, as numpy names it
        return self

    def symmetrised(self) -> Weights:
        """:math:`(W + W^\\top)/2`."""
        return self

    def total(self) -> float:
        """:math:`\\sum_{kl} w_{kl}` (computed once)."""
        if "_total" not in self.__dict__:
            self.__dict__["_total"] = float(self.matvec(np.ones(self.q)).sum())
        return float(self.__dict__["_total"])

    def to_dense(self) -> np.ndarray:
        """The q × q matrix (for tests and small q)."""
        k = np.arange(self.q)
        return np.asarray(self.at(k[:, None], k[None, :]), dtype=float)


class DenseWeights(Weights):
    """A q × q array of weights (a user's own, or a family's matrix)."""

    def __init__(self, w: np.ndarray) -> None:
        self.w = np.asarray(w, dtype=float)
        self.q = self.w.shape[0]
        self.symmetric = bool(np.array_equal(self.w, self.w.T))
        self.key = ("array", self.w.shape, hashlib.sha1(self.w.tobytes()).hexdigest())

    def at(self, k: np.ndarray, l: np.ndarray) -> np.ndarray:  # noqa: E741
        return self.w[k, l]

    def group_sums(self, group: np.ndarray, code: np.ndarray, a: np.ndarray) -> np.ndarray:
        group = np.asarray(group, dtype=np.int64)
        out = np.empty(group.size)
        if not group.size:
            return out
        n_groups = int(group.max()) + 1
        import scipy.sparse as sp  # imported when needed: a plain report never loads SciPy

        table = sp.csr_matrix((np.asarray(a, dtype=float), (group, code)), shape=(n_groups, self.q))
        order: np.ndarray = (
            np.arange(group.size)  # already by group (a sparse table's rows, an annotator's categories)
            if bool(np.all(group[1:] >= group[:-1]))
            else np.argsort(group, kind="stable")
        )
        sorted_groups = group[order]
        wt = np.ascontiguousarray(self.w.T)
        step = max(1, _BLOCK // max(self.q, 1))
        for start in range(0, n_groups, step):  # blocks of groups: (A_block @ W^T)[g, k] = sum_l a_gl w_kl
            lo, hi = np.searchsorted(sorted_groups, [start, start + step])
            if lo == hi:
                continue
            block = np.asarray(table[start : start + step] @ wt)
            sel = order[lo:hi]
            out[sel] = block[group[sel] - start, code[sel]]
        return out

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self.w @ np.asarray(v, dtype=float)

    def row_forms(self, table: sp.csr_matrix) -> np.ndarray:
        out = np.empty(table.shape[0])
        wt = np.ascontiguousarray(self.w.T)
        step = max(1, _BLOCK // max(self.q, 1))
        for start in range(0, table.shape[0], step):  # blocks of rows: r_i . (W r_i)
            block = table[start : start + step]
            out[start : start + step] = np.asarray(block.multiply(block @ wt).sum(axis=1)).ravel()
        return out

    @property
    def T(self) -> Weights:  # noqa: N802
        return self if self.symmetric else DenseWeights(self.w.T)

    def symmetrised(self) -> Weights:
        return self if self.symmetric else DenseWeights((self.w + self.w.T) / 2.0)

    def total(self) -> float:
        return float(self.w.sum())


class FamilyWeights(Weights):
    """One of Gwet's families on the categories' values, by closed forms where they exist (module docstring)."""

    def __init__(self, family: str, values: np.ndarray) -> None:
        if family not in AGREEMENT_WEIGHTS:
            raise ValueError(f"unknown weight family {family!r}")
        x = np.asarray(values, dtype=float)
        self.family, self.x, self.q = family, x, x.size
        self.key = ("family", family, hashlib.sha1(x.tobytes()).hexdigest())
        kind = "identity" if family == "identity" or x.size <= 1 else family
        m, big = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
        span = big - m
        if kind not in ("identity", "ordinal") and span == 0.0:
            kind = "identity"  # distinct categories with one value: only identical labels agree
        if kind == "ratio" and m < 0:
            raise ValueError(f"ratio weights need non-negative category values; got {m!r}")
        self.kind, self.m, self.big, self.span = kind, m, big, span
        self.rank = np.argsort(np.argsort(x, kind="stable"), kind="stable")  # positions when sorted
        self.u = x
        self.top = 1.0
        if kind in ("linear", "quadratic"):
            self.u = (x - m) / span
        elif kind == "ordinal":
            self.u = self.rank.astype(float)
            self.top = self.q * (self.q - 1.0) / 2.0
        elif kind == "radical":
            self.top = float(np.sqrt(span))
        elif kind == "ratio":
            self.top = ((big - m) / (big + m)) ** 2
        elif kind == "circular":
            self.u = 2.0 * np.pi * (x - m) / (span + 1.0)
            self.top = self._circular_top()
            if not self.top > 0:
                self.kind = "identity"
        elif kind == "bipolar":
            self.top = float(self._raw(np.asarray([m]), np.asarray([big]))[0])
        self._dense: DenseWeights | None = None
        if 1 < self.q <= DENSE_Q:  # a few categories: the matrix itself
            self._dense = DenseWeights(weight_matrix(family, x))

    def _circular_top(self) -> float:
        """The largest :math:`\\sin^2(\\pi d/(R + 1))` over pairs: the difference nearest :math:`(R + 1)/2`."""
        xs = np.sort(self.x)
        j = np.searchsorted(xs, xs + (self.span + 1.0) / 2.0)
        cand = np.concatenate([xs[np.minimum(j, xs.size - 1)] - xs, xs[np.maximum(j - 1, 0)] - xs])
        return float(np.max(np.sin(np.pi * cand / (self.span + 1.0)) ** 2))

    def _raw(self, xk: np.ndarray, xl: np.ndarray) -> np.ndarray:
        """The family's raw distance :math:`f` between values (positions for ``ordinal``), as the matrix has it."""
        d = xk - xl
        if self.kind == "linear":
            return np.abs(d) / self.span
        if self.kind == "quadratic":
            return (d / self.span) ** 2
        if self.kind == "ordinal":
            mm = np.abs(d) + 1.0
            return mm * (mm - 1.0) / 2.0
        if self.kind == "radical":
            return np.sqrt(np.abs(d))
        if self.kind == "ratio":
            s = xk + xl
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(s > 0, d / np.where(s > 0, s, 1.0), 0.0) ** 2
        if self.kind == "circular":
            return np.sin(np.pi * d / (self.span + 1.0)) ** 2
        if self.kind == "bipolar":
            den = (xk + xl - 2.0 * self.m) * (2.0 * self.big - xk - xl)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(d != 0, d**2 / np.where(d != 0, den, 1.0), 0.0)
        raise ValueError(f"unknown weight family {self.family!r}")  # pragma: no cover

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self._dense.matvec(v) if self._dense is not None else super().matvec(v)

    def row_forms(self, table: sp.csr_matrix) -> np.ndarray:
        return self._dense.row_forms(table) if self._dense is not None else super().row_forms(table)

    def at(self, k: np.ndarray, l: np.ndarray) -> np.ndarray:  # noqa: E741
        if self._dense is not None:
            return self._dense.at(k, l)
        k, l = np.asarray(k), np.asarray(l)  # noqa: E741
        if self.kind == "identity":
            return (k == l).astype(float)
        v = self.rank.astype(float) if self.kind == "ordinal" else self.x
        raw = self._raw(v[k], v[l])
        scale = 1.0 if self.kind in ("linear", "quadratic") else self.top
        return 1.0 - raw / scale

    def group_sums(self, group: np.ndarray, code: np.ndarray, a: np.ndarray) -> np.ndarray:
        if self._dense is not None:
            return self._dense.group_sums(group, code, a)
        group = np.asarray(group, dtype=np.int64)
        code = np.asarray(code, dtype=np.int64)
        a = np.asarray(a, dtype=float)
        n = group.size
        if self.kind == "identity":  # T_e = the a of the entries of e's group in e's category
            _, inv = np.unique(group * max(self.q, 1) + code, return_inverse=True)
            inv = inv.ravel()
            return np.bincount(inv, weights=a)[inv]
        rank = self.rank[code]
        if n < 2 or bool(np.all((group[1:] > group[:-1]) | ((group[1:] == group[:-1]) & (rank[1:] >= rank[:-1])))):
            order = np.arange(n)  # already by group, then value (a sparse table's rows, sorted numbers)
            g, c, w = group, code, a
        else:
            order = np.lexsort((rank, group))
            g, c, w = group[order], code[order], a[order]
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if n else np.zeros(0, dtype=np.int64)
        sizes = np.diff(np.r_[starts, n])
        out = np.empty(n)
        small = sizes <= SMALL
        if small.any():
            self._small_groups(starts[small], sizes[small], c, w, out)
        large = np.flatnonzero(~small)
        if large.size and self.kind not in CLOSED_FORM_FAMILIES:
            by_pairs = large[
                [not self._by_quadrature(c[s : s + z], w[s : s + z]) for s, z in zip(starts[large], sizes[large])]
            ]
            pairs = float(np.sum(sizes[by_pairs].astype(float) ** 2))
            if pairs > MAX_PAIRS:
                raise TooManyCategoriesError(
                    f"{self.family} weights have no closed form and this sum would visit {pairs:.3g} pairs of "
                    f"categories (the limit is {MAX_PAIRS:.0e}); use linear, quadratic, ordinal or circular "
                    "weights, or fewer distinct categories"
                )
        for gi in large:
            sl = slice(starts[gi], starts[gi] + sizes[gi])
            out[sl] = self._one_group(c[sl], w[sl])
        if n >= 2 and order[-1] == n - 1 and order[0] == 0 and g is group:
            return out
        result = np.empty(n)
        result[order] = out
        return result

    def _small_groups(
        self, starts: np.ndarray, sizes: np.ndarray, c: np.ndarray, w: np.ndarray, out: np.ndarray
    ) -> None:
        """Pair by pair within groups of few entries: the groups of each size as one (groups × size) block."""
        for z in np.unique(sizes):
            first = starts[sizes == z]
            step = max(1, _BLOCK // int(z * z))
            for lo in range(0, first.size, step):
                idx = first[lo : lo + step, None] + np.arange(z)  # groups × z positions
                cc = c[idx]
                out[idx] = np.einsum("gkl,gl->gk", self.at(cc[:, :, None], cc[:, None, :]), w[idx])

    def _by_quadrature(self, c: np.ndarray, a: np.ndarray) -> bool:
        """Whether a group's ``ratio`` sums go through the quadrature of
        :func:`~iaa_engine.stats._differences.ratio_row_sums` (many distinct values, non-negative weights), not the
        pairs."""
        return self.kind == "ratio" and ratio_uses_quadrature(self.x[c]) and not bool(np.any(a < 0))

    def _one_group(self, c: np.ndarray, a: np.ndarray) -> np.ndarray:
        """:math:`T_e` over one group sorted by value: a closed form, the ratio quadrature, or pairs in blocks of
        rows."""
        total = float(a.sum())
        if self._by_quadrature(c, a):
            return total - ratio_row_sums(self.x[c], a) / self.top
        if self.kind not in CLOSED_FORM_FAMILIES:
            step = max(1, _BLOCK // c.size)
            return np.concatenate([self.at(c[i : i + step, None], c[None, :]) @ a for i in range(0, c.size, step)])
        u = self.u[c]
        if self.kind == "circular":
            cos, sin = np.cos(u), np.sin(u)
            d = (total - cos * float(a @ cos) - sin * float(a @ sin)) / 2.0
        elif self.kind == "linear":
            d = _abs_sums(u, a, total)
        elif self.kind == "quadratic":
            d = _square_sums(u, a, total)
        else:  # ordinal: (|dp| + dp^2) / 2 on the positions
            d = (_abs_sums(u, a, total) + _square_sums(u, a, total)) / 2.0
        return total - d / self.top


def _abs_sums(u: np.ndarray, a: np.ndarray, total: float) -> np.ndarray:
    """:math:`\\sum_{e'} a_{e'} |u_e - u_{e'}|` for ``u`` ascending: prefix sums below and above each entry."""
    au = a * u
    below_a = np.cumsum(a) - a
    below_s = np.cumsum(au) - au
    return u * (2.0 * below_a + a - total) - (2.0 * below_s + au - float(au.sum()))


def _square_sums(u: np.ndarray, a: np.ndarray, total: float) -> np.ndarray:
    """:math:`\\sum_{e'} a_{e'} (u_e - u_{e'})^2` from moments about the weighted mean."""
    c = float(a @ u) / total if total != 0 else 0.0
    dev = u - c
    first = float(a @ dev)  # 0 up to rounding when c is the mean
    sq = dev * dev
    const = float(a @ sq)
    sq *= total
    dev *= 2.0 * first
    sq -= dev
    sq += const
    return sq


def as_weights(w: Weights | np.ndarray) -> Weights:
    """``w`` as :class:`Weights` (an array becomes :class:`DenseWeights`)."""
    return w if isinstance(w, Weights) else DenseWeights(np.asarray(w, dtype=float))
