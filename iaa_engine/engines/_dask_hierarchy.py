"""Hierarchical agreement (``iaa report --hierarchy``) on a Dask cluster, from sums over partitions of whole items.

Every number of :func:`iaa_engine.hierarchical_agreement` is count-based: the nominal alphas of the parent, child
and full labels read only their views' integer sums (:class:`~iaa_engine.stats._sums.ExactSums`), and the
conditional child agreement per parent only additive per-parent sums (``_conditional_sums`` in
``analysis/_facets.py``). Each partition of whole items (:func:`~iaa_engine.engines._commands._by_item`) computes
them on its own annotations coded with the data's global categories; the client adds them up and finishes with the
in-memory code, so the result agrees with the in-memory one (to rounding, about 1e-15; counts exactly).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, validate
from iaa_engine.data._model import Annotations
from iaa_engine.engines._commands import _annotations, _by_item, _categories
from iaa_engine.engines._distributed import gather

__all__ = ["hierarchical_agreement_dask"]

_VIEWS = ("parent", "child", "full")


def _hierarchy_part(data: Annotations | None, sep: str) -> Any:
    """One partition's sums: per view its integer sums, annotations and items; the conditional sums."""
    from iaa_engine.analysis._facets import _components, _conditional_sums, _path, split_hierarchy
    from iaa_engine.stats._sums import ExactSums

    if data is None:
        return None
    views = split_hierarchy(data, sep=sep)
    sums = {k: (ExactSums.from_counts(v.counts), v.n_annotations) for k, v in views.items()}
    _, cat_parent, _, cat_child = _components([_path(c, sep) for c in data.categories])
    has_child = cat_child[data.label] >= 0
    cond = _conditional_sums(
        data.item[has_child],
        cat_parent[data.label[has_child]],
        cat_child[data.label[has_child]],
        views["parent"].n_categories,
    )
    return sums, data.n_items, cond


@validate(client=ANY)
def hierarchical_agreement_dask(
    frame: Any,
    *,
    sep: str = "/",
    client: Any,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    progress: bool | None = None,
) -> Any:
    """:func:`iaa_engine.hierarchical_agreement` of a Dask DataFrame, from sums over partitions of whole items.

    The annotations are shuffled by item once; each partition adds up, for the parent, child and full labels
    (:func:`iaa_engine.split_hierarchy`), the integer sums of its items' annotations
    (:class:`~iaa_engine.stats._sums.ExactSums`), and per parent the sums of the conditional child agreement. The
    client adds them and finishes with the in-memory code: the alphas, γ and the conditional table agree with
    :func:`iaa_engine.hierarchical_agreement` on the same annotations to rounding, the counts exactly.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per annotation (long layout); an item's rows may be in several partitions.
    sep : str, default "/"
        The separator of the labels' paths, as in :func:`iaa_engine.hierarchical_agreement`.
    client : distributed.Client
        The cluster that computes (e.g. from :func:`distributed.Client` or ``LocalCluster``).
    item, annotator, label, level, categories, duplicates
        As in :meth:`iaa_engine.Annotations.from_long`.
    progress : bool, optional
        Show Dask's progress bar on standard error (default: when standard error is a terminal).

    Returns
    -------
    HierarchyResult
        As :func:`iaa_engine.hierarchical_agreement`.

    Raises
    ------
    InvalidParameterError, ValueError
        A column is missing, an option is invalid, or the data holds duplicate annotations (as in
        :func:`iaa_engine.agreement_by_dask`).

    References
    ----------
    Mathematical Foundations of Inter-Annotator Agreement Analysis: Comprehensive Framework for Hierarchical Label
    Assessment. Technical report, 5 September 2025, §5.

    Rocklin, M. (2015). Dask: Parallel computation with blocked algorithms and task scheduling. Proceedings of the
    14th Python in Science Conference (SciPy 2015), 130–136.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from distributed import Client
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t3", "t3"], "annotator": ["ann", "bob"] * 3,
    ...                    "label": ["Animal/Dog", "Animal/Cat", "Plant/Tree", "Plant/Tree", "Animal/Dog",
    ...                              "Animal/Dog"]})
    >>> frame = dd.from_pandas(df, npartitions=2)
    >>> with Client(processes=False, dashboard_address=None) as client:
    ...     result = ie.hierarchical_agreement_dask(frame, client=client, progress=False)
    >>> round(result.alpha_parent, 4)
    1.0
    """
    import dask

    from iaa_engine.analysis._facets import (
        HierarchyResult,
        _components,
        _conditional_finish,
        _path,
        _quiet_alpha,
    )
    from iaa_engine.base._policy import EPS
    from iaa_engine.engines._distributed import _is_tty, show_progress
    from iaa_engine.stats._sums import ExactSums

    cols = {"item": item, "annotator": annotator, "label": label}
    frame = frame[[item, annotator, label]]
    cats = _categories(frame, label, level, categories)
    tasks = [
        dask.delayed(_hierarchy_part)(dask.delayed(_annotations)(p, cols, level, cats, duplicates), sep)
        for p in _by_item(frame, item).to_delayed()
    ]
    futures = client.compute(tasks)
    if progress or (progress is None and _is_tty()):
        show_progress(futures)
    parts = [p for p in gather(client, futures) if p is not None]
    paths = [_path(c, sep) for c in cats]
    parents, _, children, _ = _components(paths)
    names = {"parent": parents, "child": children, "full": [sep.join(map(str, p)) for p in paths]}
    n_items = sum(n for _, n, _ in parts)
    notes: list[str] = []
    alphas = {}
    for view, what in zip(_VIEWS, ("parent-level alpha", "child-level alpha", "full-label alpha")):
        if parts:
            total = ExactSums.combine([s[view][0] for s, _, _ in parts])
            data = Annotations.from_stats(
                items=n_items,
                categories=names[view],
                level="nominal",
                count_sums=total.finish(),
                n_annotations=sum(s[view][1] for s, _, _ in parts),
            )
        else:
            data = Annotations(
                np.zeros(0, np.int64),
                None,
                np.zeros(0, np.int64),
                items=pd.RangeIndex(0),
                annotators=None,
                categories=pd.Index(names[view]),
                level="nominal",
            )
        alphas[view] = _quiet_alpha(data, notes, what)
    a1, a2, af = alphas["parent"], alphas["child"], alphas["full"]
    den = max(a1, a2) if np.isfinite(a1) and np.isfinite(a2) else np.nan
    if np.isfinite(den) and den > EPS and np.isfinite(af):
        gamma = af / den
    else:
        gamma = np.nan
        notes.append("gamma is undefined: max(parent alpha, child alpha) is not positive")
    n_parents = len(parents)
    conds = [c for _, _, c in parts]
    if conds:
        sums = (
            np.sum([c[0] for c in conds], axis=0),
            np.sum([c[1] for c in conds], axis=0),
            np.sum([c[2] for c in conds], axis=0).astype(np.int64),
            np.sum([c[3] for c in conds], axis=0).astype(np.int64),
            np.concatenate([c[4] for c in conds]).astype(np.int64),
            np.concatenate([c[5] for c in conds]).astype(np.int64),
            np.concatenate([c[6] for c in conds]).astype(float),
        )
    else:
        empty = np.zeros(0, np.int64)
        sums = (
            np.zeros(n_parents),
            np.zeros(n_parents),
            np.zeros(n_parents, np.int64),
            np.zeros(n_parents, np.int64),
            empty,
            empty,
            np.zeros(0),
        )
    alpha, n_items_p, n_annotations = _conditional_finish(*sums)
    conditional = pd.DataFrame(
        {"parent": pd.Index(parents), "alpha": alpha, "n_items": n_items_p, "n_annotations": n_annotations}
    ).set_index("parent")
    return HierarchyResult(a1, a2, af, gamma, conditional, notes)
