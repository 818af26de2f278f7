"""Random missingness: does SPA keep the complete data's agreement, and how do chance corrections behave?

After Nørregaard & Derczynski (2022), *Sparse Probability of Agreement*, §4.2 and §4.4.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import Items, Real, validate
from iaa_engine.base._progress import Progress
from iaa_engine.data._model import Annotations, as_annotations

__all__ = ["missingness_simulation"]


def _values(data: Annotations, weights: str) -> dict[str, float]:
    s = data.count_sums
    with np.errstate(all="ignore"):
        spa = float(s.spa(weights))
        naive_pe = float(np.sum(s.class_distribution() ** 2))  # Fleiss-style: sum of squared proportions
        return {
            "spa": spa,
            "spa_kappa": float(s.spa_kappa(weights)),
            "naive_kappa": (spa - naive_pe) / (1.0 - naive_pe),
        }


@validate(fractions=Items(Real(0, 1, high_open=True), what="a non-empty sequence of numbers in [0, 1)", non_empty=True))
def missingness_simulation(
    data: Any,
    *,
    fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.75),
    n_rep: int = 200,
    weights: str = "annotations_m1",
    seed: int | None = 0,
    progress: bool | None = None,
) -> pd.DataFrame:
    r"""Remove annotations at random and compare SPA and two chance corrections with the complete data's values.

    For each fraction f, ``n_rep`` times: drop each annotation independently
    with probability f, then compute SPA (``weights``), :func:`spa_kappa` (the
    unbiased expected agreement) and the naive Fleiss-style correction

    .. math::

        \kappa_{\mathrm{naive}} = \frac{\bar P_{spa} - \sum_c \hat p_c^2}{1 - \sum_c \hat p_c^2}

    with :math:`\hat p_c` the proportions of the remaining annotations.
    Nørregaard & Derczynski's (2022, §4.2) central claim is that SPA's
    expectation stays at the complete data's agreement when annotations are
    missing at random; their §4.4 explains why a naive chance correction is a
    biased (ratio) estimator. For each quantity,

    .. math::

        \mathrm{bias} = \bar v - v_{\mathrm{complete}},\qquad
        \mathrm{mc\_se} = s_v / \sqrt{R},\qquad
        z = \mathrm{bias} / \mathrm{mc\_se}

    over the R replicates in which it is defined (:math:`\bar v` and
    :math:`s_v` their mean and standard deviation), so ``z`` shows whether the
    quantity keeps its complete-data value beyond Monte-Carlo error.

    The complete data should have a constant number of annotations per item
    (as in Nørregaard & Derczynski's Figure 3); the targets are its SPA, its
    :func:`spa_kappa`, and the same for the naive correction (on complete data
    with a constant number of annotations per item, Fleiss' kappa).

    Parameters
    ----------
    data : Annotations or convertible
        The complete annotations (not a count table or statistics only).
    fractions : sequence of float, default (0.2, 0.4, 0.6, 0.75)
        Probabilities of removing each annotation, each in [0, 1).
    n_rep : int, default 200
        Replicates per fraction (at least 1).
    weights : str, default 'annotations_m1'
        SPA weighting scheme (one of :data:`SPA_WEIGHTS`) for SPA and :func:`spa_kappa`.
    seed : int, optional, default 0
        Seed of ``numpy.random.default_rng``; the same seed gives the same table (``None``: a fresh one).
    progress : bool, optional
        Show progress on stderr (default: only on a terminal).

    Returns
    -------
    pandas.DataFrame
        One row per (fraction, quantity): ``fraction``, ``quantity`` (``spa``,
        ``spa_kappa``, ``naive_kappa``), ``complete``, ``mean``, ``bias``,
        ``mc_se``, ``z``, ``n_defined`` (replicates in which it was defined).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not annotations nor convertible to them.
    ValueError
        The data holds only a count table or sufficient statistics: the simulation needs the annotations themselves.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378–382.

    Examples
    --------
    The classroom data (3 annotators on each of 15 items): its complete SPA is
    0.7333 and its naive correction Fleiss' kappa, 0.5994.

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> sim = ie.missingness_simulation(data, fractions=[0.3], n_rep=50, seed=0, progress=False)
    >>> sim.round(3)
       fraction     quantity  complete   mean   bias  mc_se      z  n_defined
    0       0.3          spa     0.733  0.748  0.015  0.011  1.403         50
    1       0.3    spa_kappa     0.608  0.629  0.020  0.016  1.288         50
    2       0.3  naive_kappa     0.599  0.619  0.019  0.016  1.182         50
    """
    data = as_annotations(data)
    if data.label is None:
        raise ValueError("the simulation needs the annotations themselves, not only statistics")
    rng = np.random.default_rng(seed)
    complete = _values(data, weights)
    rows = []
    with Progress(len(fractions) * n_rep, "missingness simulation", show=progress) as bar:
        for f in fractions:
            reps = []
            for _ in range(n_rep):  # replicates, not annotations: each one is vectorised
                keep = rng.random(data.n_annotations) >= f
                sub = Annotations(
                    data.item[keep],
                    None if data.annotator is None else data.annotator[keep],
                    data.label[keep],
                    items=data.items,
                    annotators=data.annotators,
                    categories=data.categories,
                    level="nominal",
                )
                reps.append(_values(sub, weights))
                bar.update()
            frame = pd.DataFrame(reps)
            for name in ("spa", "spa_kappa", "naive_kappa"):
                v = frame[name].to_numpy()
                v = v[np.isfinite(v)]
                mean = float(v.mean())
                se = float(v.std(ddof=1) / np.sqrt(v.size))
                bias = mean - complete[name]
                rows.append(
                    {
                        "fraction": f,
                        "quantity": name,
                        "complete": complete[name],
                        "mean": mean,
                        "bias": bias,
                        "mc_se": se,
                        "z": bias / se if se > 0 else np.nan,
                        "n_defined": v.size,
                    }
                )
    return pd.DataFrame(rows)
