"""Bradley–Terry strengths by Hunter's (2004) MM algorithm, vectorised over many independent groups (prompts).

The arrays are comparisons between *elements* (a response of a prompt), each element belonging to one group; the
groups are fitted at once, every step being a few ``bincount`` calls over the comparisons of the groups that have
not converged yet (a group that has is left out of the next steps: each group stops by its own rule, as if it were
fitted alone).
"""

from __future__ import annotations

import numpy as np

__all__ = ["bt_mm"]


def bt_mm(
    a: np.ndarray,
    b: np.ndarray,
    wins_a: np.ndarray,
    total: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    *,
    max_iter: int,
    tol: float,
) -> tuple[np.ndarray, int, np.ndarray]:
    r"""Strengths :math:`p` of the elements, summing to 1 within each group: ``(p, steps, converged per group)``.

    ``a``, ``b``: element codes of each compared pair (``a != b``, both of one group); ``wins_a``: the wins of ``a``
    in the pair (a tie counted as half a win to each); ``total``: the comparisons of the pair; ``group``: the group
    of each element (``len(group)`` elements). One MM step (Hunter 2004, eq. 3; the update of crowd-kit's
    ``BradleyTerry``):

    .. math::

        p_i \leftarrow \frac{W_i}{\sum_{j} n_{ij} / (p_i + p_j)}, \qquad p \leftarrow p / \sum_{g(i)=g} p_i

    from :math:`p_i = 1/|g|`. A group stops when the L1 change of its :math:`p` in a step is below ``tol``, or after
    ``max_iter`` steps (``tol=-inf``: exactly ``max_iter`` steps). ``steps`` is the most any group took.
    """
    n = group.size
    if a.size:  # one comparison per pair: the wins and totals of repeated pairs summed
        key, inverse = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_inverse=True)
        first_is_a = a < b
        wins_lo = np.bincount(inverse, weights=np.where(first_is_a, wins_a, total - wins_a))
        total = np.bincount(inverse, weights=total)
        a, b, wins_a = key // n, key % n, wins_lo
    size = np.bincount(group, minlength=n_groups).astype(float)
    p = 1.0 / size[group]
    wins = np.bincount(a, weights=wins_a, minlength=n) + np.bincount(b, weights=total - wins_a, minlength=n)
    done = np.zeros(n_groups, dtype=bool)
    present = size > 0
    el = np.arange(n)  # the working elements (global codes) and their comparisons (local codes)
    ca, cb, ct, g = a, b, total.astype(float), group
    w_el = wins
    it = 0
    while it < max_iter and not done[present].all():
        m = el.size
        pl = p[el]
        inv = ct / (pl[ca] + pl[cb])
        den = np.bincount(ca, weights=inv, minlength=m) + np.bincount(cb, weights=inv, minlength=m)
        new = np.divide(w_el, den, out=np.zeros(m), where=den > 0)
        sums = np.bincount(g, weights=new, minlength=n_groups)
        new = np.divide(new, sums[g], out=np.full(m, np.nan), where=sums[g] > 0)
        frozen = done[g]
        new[frozen] = pl[frozen]  # a group that stopped keeps its scores
        change = np.bincount(g, weights=np.abs(np.nan_to_num(new - pl)), minlength=n_groups)
        p[el] = new
        it += 1
        now = (change < tol) & ~done & (np.bincount(g, minlength=n_groups) > 0)
        if now.any():
            done |= now
            keep = ~done[g]
            if keep.sum() < 0.75 * m:  # drop the converged groups from the working arrays
                local = np.cumsum(keep) - 1
                kc = keep[ca]
                el, g, w_el = el[keep], g[keep], w_el[keep]
                ca, cb, ct = local[ca[kc]], local[cb[kc]], ct[kc]
    return p, it, done
