"""Bradley–Terry strengths by Hunter's (2004) MM algorithm, vectorised over many independent groups (prompts).

The arrays are comparisons between *elements* (a response of a prompt), each element belonging to one group; the
groups are fitted at once, every step being a few ``bincount`` calls over the comparisons.
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
) -> tuple[np.ndarray, int, bool]:
    r"""Strengths :math:`p` of the elements, summing to 1 within each group: ``(p, iterations, converged)``.

    ``a``, ``b``: element codes of each compared pair (``a != b``); ``wins_a``: the wins of ``a`` in the pair (a tie
    counted as half a win to each); ``total``: the comparisons of the pair; ``group``: the group of each element
    (``len(group)`` elements). One MM step (Hunter 2004, eq. 3; the update of crowd-kit's ``BradleyTerry``):

    .. math::

        p_i \leftarrow \frac{W_i}{\sum_{j} n_{ij} / (p_i + p_j)}, \qquad p \leftarrow p / \sum_{g(i)=g} p_i

    from :math:`p_i = 1/|g|`. Stops when the largest L1 change of a group's :math:`p` is below ``tol`` (after the
    step that made it), or after ``max_iter`` steps (``tol=-inf``: exactly ``max_iter`` steps).
    """
    n = group.size
    size = np.bincount(group, minlength=n_groups).astype(float)
    p = 1.0 / size[group]
    wins = np.bincount(a, weights=wins_a, minlength=n) + np.bincount(b, weights=total - wins_a, minlength=n)
    it = 0
    converged = False
    while it < max_iter:
        inv = total / (p[a] + p[b])
        den = np.bincount(a, weights=inv, minlength=n) + np.bincount(b, weights=inv, minlength=n)
        new = np.divide(wins, den, out=np.zeros(n), where=den > 0)
        sums = np.bincount(group, weights=new, minlength=n_groups)
        new = np.divide(new, sums[group], out=np.full(n, np.nan), where=sums[group] > 0)
        change = np.bincount(group, weights=np.abs(np.nan_to_num(new - p)), minlength=n_groups)
        p = new
        it += 1
        if change.size == 0 or float(change.max()) < tol:
            converged = True
            break
    return p, it, converged
