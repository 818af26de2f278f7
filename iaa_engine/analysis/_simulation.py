"""Random missingness: does SPA keep the complete data's agreement, and how do chance corrections behave?"""

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
    :math:`(\bar P_{spa} - \sum_c \hat p_c^2)/(1 - \sum_c \hat p_c^2)` with
    :math:`\hat p_c` the proportions of the remaining annotations. Seed 000's
    central claim (§4.2) is that SPA's expectation stays at the complete data's
    agreement; the columns ``bias`` and ``z`` (bias over its Monte-Carlo standard
    error) show whether each quantity keeps its complete-data value.

    The complete data should have a constant number of annotations per item
    (as in seed 000's Figure 3); the targets are its SPA, its
    :func:`spa_kappa`, and the same for the naive correction.

    Returns
    -------
    pandas.DataFrame
        One row per (fraction, quantity): ``complete``, ``mean``, ``bias``,
        ``mc_se``, ``z``, ``n_defined``.
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
