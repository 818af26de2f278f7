"""Result containers shared by the metrics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["PairwiseMatrix", "nan_to_none"]


def nan_to_none(value: Any) -> Any:
    """JSON-safe copy: floats that are nan or infinite become ``None``; numpy scalars become Python ones."""
    if isinstance(value, dict):
        return {k: nan_to_none(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [nan_to_none(v) for v in value]
    if isinstance(value, np.ndarray):
        return nan_to_none(value.tolist())
    if isinstance(value, (np.floating, float)):
        f = float(value)
        return f if np.isfinite(f) else None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


@dataclass(frozen=True, eq=False)
class PairwiseMatrix:
    """An annotator × annotator matrix of a pairwise coefficient.

    Attributes
    ----------
    metric : str
        Name of the coefficient.
    annotators : list
        Annotator names, in the order of the rows and columns.
    values : ndarray of float, shape (A, A)
        The coefficient for each pair, computed on the items both annotated.
        The diagonal is 1 for every annotator with at least one annotation.
        Undefined entries (no shared item, or expected agreement 1) hold the
        ``replace_undefined_by`` value (``nan`` by default).
    n_shared : ndarray of int, shape (A, A)
        Items annotated by both; the diagonal holds each annotator's item count.
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
            "annotators": nan_to_none(list(self.annotators)),
            "matrix": nan_to_none(self.values),
            "n_shared": nan_to_none(self.n_shared),
        }

    def __repr__(self) -> str:
        return f"PairwiseMatrix({self.metric!r}, {len(self.annotators)} annotators)\n{self.to_frame().round(4)}"
