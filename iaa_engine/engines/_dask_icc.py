r"""The six intraclass correlations of Shrout & Fleiss (1979) on a Dask cluster (issue 35).

Every mean square of the ICC is a sum over items once the grand mean (and, for the two-way forms, the raters'
means) are known, and items are whole in a partition after the shuffle by item. So two passes over the partitions
compute them, with no items × ratings table anywhere:

1. per partition: how many items have n ratings (the one-way forms keep the items with the most common k), the sum
   of the ratings of those items per n and per position within the item (the table's columns in memory), and, over
   the items rated by every annotator (the two-way forms' complete cases), the sum per annotator;
2. with the grand means :math:`\bar x` and the column means :math:`\bar x_{\cdot j}` sent to every partition:
   :math:`\sum_i (\bar x_{i\cdot} - \bar x)^2`, :math:`\sum_{ij} (x_{ij} - \bar x_{i\cdot})^2` and
   :math:`\sum_{ij} (x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2` of its items.

The client adds them up, :math:`SS_C = n \sum_j (\bar x_{\cdot j} - \bar x)^2`, and finishes with the in-memory code
(:func:`iaa_engine.metrics._icc.icc_of_mean_squares`): the same centred (two-pass) sums of squares as in memory,
added in another order, so equal to about 1e-15.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.engines._commands import _by_item, _coded, _gather

__all__ = ["icc_forms_dask"]


def _ratings(coded: Any) -> Any:
    """The partition's ratings as numbers, items' rows together (stable: the data's order within an item, as the
    in-memory one-way table takes them), each rating's position within its item and the items' numbers of ratings."""
    data, ann = coded
    values = data.category_values("interval")[data.label]
    order = np.argsort(data.item, kind="stable")
    item, vals, ann = data.item[order], values[order], ann[order]
    n_i = np.bincount(data.item, minlength=data.n_items)
    starts = np.r_[0, np.cumsum(n_i)[:-1]]
    pos = np.arange(item.size) - starts[item]
    return item, vals, ann, pos, n_i


def _first_pass(coded: Any, m: int) -> Any:
    if coded is None:
        return None
    item, vals, ann, pos, n_i = _ratings(coded)
    top = int(n_i.max()) + 1 if n_i.size else 1
    per_n = np.bincount(n_i, minlength=top)
    # one-way: sums by (n of the item, position within it)
    one = np.zeros((top, top))
    np.add.at(one, (n_i[item], pos), vals)
    complete = n_i[item] == m  # rated by every annotator (one rating each)
    col = np.bincount(ann[complete], weights=vals[complete], minlength=m)
    return per_n, one, int(np.sum(n_i == m)), col


def _second_pass(coded: Any, m: int, k: int, grand1: float, cols1: np.ndarray, grand2: float, cols2: np.ndarray):
    out = np.zeros(6)  # one-way SS_rows/k, SS_within, SS_error; two-way the same
    if coded is None:
        return out
    item, vals, ann, pos, n_i = _ratings(coded)
    for slot, (sel, col_of, grand, width) in enumerate(
        (
            (n_i[item] == k, lambda s: cols1[pos[s]], grand1, k),
            (n_i[item] == m, lambda s: cols2[ann[s]], grand2, m),
        )
    ):
        if width < 1 or not sel.any():
            continue
        it, v = item[sel], vals[sel]
        rows = (np.bincount(it, weights=v, minlength=n_i.size) / max(width, 1))[np.unique(it)]
        row_of = np.bincount(it, weights=v, minlength=n_i.size)[it] / width
        out[3 * slot] = float(np.sum((rows - grand) ** 2))
        out[3 * slot + 1] = float(np.sum((v - row_of) ** 2))
        out[3 * slot + 2] = float(np.sum((v - row_of - col_of(sel) + grand) ** 2))
    return out


def icc_forms_dask(
    frame: Any,
    forms: Sequence[str],
    *,
    annotators: pd.Index,
    categories: pd.Index,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "interval",
    duplicates: str = "error",
    confidence: float = 0.95,
    client: Any,
) -> dict:
    """:func:`iaa_engine.metrics._icc.icc_forms` of a Dask DataFrame: the mean squares summed over partitions of
    whole items in two passes (see the module), finished by the in-memory code. ``annotators`` and ``categories``
    are the data's global ones (``summarize_dask``'s)."""
    import dask

    from iaa_engine.metrics._icc import _ALIASES, icc_of_mean_squares

    cols = {"item": item, "annotator": annotator, "label": label}
    m = len(annotators)
    coded = client.compute(
        [
            dask.delayed(_coded)(p, cols, level, categories, duplicates, annotators)
            for p in _by_item(frame[[item, annotator, label]], item).to_delayed()
        ]
    )
    try:
        first = [r for r in _gather(client, [client.submit(_first_pass, c, m) for c in coded]) if r is not None]
        top = max((r[0].size for r in first), default=1)
        per_n = np.zeros(top, dtype=np.int64)
        one = np.zeros((top, top))
        for r in first:
            per_n[: r[0].size] += r[0]
            one[: r[1].shape[0], : r[1].shape[1]] += r[1]
        rated = per_n.copy()
        rated[0] = 0  # items without a rating do not count
        k = int(rated.argmax()) if rated.any() else 0
        n1 = int(per_n[k]) if k else 0
        n2 = sum(r[2] for r in first)
        col2 = np.sum([r[3] for r in first], axis=0) if first else np.zeros(m)
        cols1 = one[k, :k] / n1 if n1 else np.zeros(max(k, 1))
        grand1 = float(one[k, :k].sum() / (n1 * k)) if n1 else 0.0
        cols2 = col2 / n2 if n2 else np.zeros(m)
        grand2 = float(col2.sum() / (n2 * m)) if n2 else 0.0
        sums = np.sum(
            _gather(client, [client.submit(_second_pass, c, m, k, grand1, cols1, grand2, cols2) for c in coded]),
            axis=0,
        )
    finally:
        client.cancel(coded)
    n_rated = int(per_n[1:].sum())
    tables = {
        True: (n1, k, sums[0:3], cols1, grand1),
        False: (n2, m, sums[3:6], cols2, grand2),
    }
    out = {}
    for form in forms:
        form = _ALIASES.get(form, form)
        n, width, (ss_r, ss_w, ss_e), col_means, grand = tables[form.startswith("ICC(1")]
        ms = None
        if n >= 2 and width >= 2:
            ms = {
                "msr": width * float(ss_r) / (n - 1),
                "msc": n * float(np.sum((col_means - grand) ** 2)) / (width - 1),
                "mse": float(ss_e) / ((n - 1) * (width - 1)),
                "msw": float(ss_w) / (n * (width - 1)),
            }
        out[form] = icc_of_mean_squares(form, ms, n, width, n_rated - n, m, confidence)
    return out


def with_icc_dask(
    report: Any,
    frame: Any,
    data: Any,
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "interval",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    client: Any,
) -> Any:
    """``report`` (of the statistics ``data`` of ``frame``, at the interval or ratio level) with the ICC forms the
    in-memory report has, computed on the cluster, and their notes (as :func:`iaa_engine.report` words them)."""
    import dataclasses

    from iaa_engine.reporting._report import ICC_NOT_COMPUTED, _icc_forms

    if report.level not in ("interval", "ratio"):
        return report
    del categories  # the data's own (global) categories code every partition
    notes = [n.replace(", the weighted coefficients and the ICC need", " and the weighted coefficients need") for n in
             report.notes if not n.startswith(ICC_NOT_COMPUTED)]  # fmt: skip
    reasons = dict(report.reasons)

    def compute(_: Any, forms: Sequence[str]) -> dict:
        return icc_forms_dask(
            frame,
            forms,
            annotators=pd.Index(data.annotators),
            categories=pd.Index(data.categories),
            item=item,
            annotator=annotator,
            label=label,
            level=report.level,
            duplicates=duplicates,
            client=client,
        )

    icc = _icc_forms(data, data.annotators is not None, notes, reasons, compute)
    return dataclasses.replace(report, estimates={**report.estimates, **icc}, notes=notes, reasons=reasons)
