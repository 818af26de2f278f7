"""The HTML agreement report of a Dask DataFrame: the page of :func:`iaa_engine.write_html_report`, its per-item
parts summed over partitions of whole items (issue 35).

What the page reads of the items, and how each is computed on the cluster:

- the summary, the metrics table and picture a (the Cohen's kappa heatmap): the report of the statistics-only
  :class:`~iaa_engine.data._model.Annotations` of :func:`~iaa_engine.engines._distributed.summarize_dask`;
- pictures b and c (the distribution of item agreement; agreement by annotations per item): the tally of distinct
  (annotations per item, item agreement) pairs of :func:`~iaa_engine.reporting._html.item_tally`, counted per
  partition of whole items and added up (a histogram's bins, the per-n count, mean, quartiles and range all follow
  from it exactly; the tally has as many rows as distinct pairs, not items);
- picture d (the coincidence matrix): the sum of the partitions' coincidence matrices (each item's coincidences
  are its own);
- the items to adjudicate and the confused label pairs: :func:`~iaa_engine.engines._commands.disagreements_dask`
  (each partition's top items, merged);
- the annotator scorecard and its drift: :func:`~iaa_engine.engines._dask_annotators.annotator_report_dask` (per-
  partition count patterns, pair cells and drift sums), without MACE's competence as in memory;
- agreement by group or over time, frequency strata, intervals: as the given report holds them.

Then :func:`~iaa_engine.reporting._html.render_page` draws the page with the same code as in memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.analysis._scorecard import AnnotatorReport
from iaa_engine.base._params import ANY, Choice, Instance, NoneOr, validate
from iaa_engine.data._model import LEVELS, Annotations
from iaa_engine.engines._commands import _annotations, _by_item, _run, split_by_item
from iaa_engine.reporting._html import N_BOOT
from iaa_engine.reporting._report import Report

__all__ = ["write_html_report_dask"]


def _items_part(part: pd.DataFrame, cols: dict, level: str, cats: pd.Index, dup: str, coincidences: bool) -> Any:
    """One partition of whole items: its tally of (annotations per item, item agreement), its items with fewer than
    two annotations, and its coincidence matrix (when drawn)."""
    from iaa_engine.metrics._agreement import item_agreement
    from iaa_engine.metrics._alpha import coincidence_matrix
    from iaa_engine.reporting._html import item_tally

    data = _annotations(part, cols, level, cats, dup)
    if data is None:
        return None
    p = item_agreement(data).to_numpy(dtype=float)
    n = np.asarray(data.counts.n_i, dtype=float)
    ok = n >= 2
    o = coincidence_matrix(data) if coincidences and ok.any() else None
    return item_tally(n[ok], p[ok]), int(np.sum(~ok)), o


def item_summary_dask(
    frame: Any,
    *,
    item: str,
    annotator: str,
    label: str,
    level: str,
    categories: pd.Index,
    duplicates: str,
    client: Any,
    progress: bool | None = None,
) -> Any:
    """:class:`~iaa_engine.reporting._html.ItemSummary` of a Dask DataFrame: per-partition tallies and
    coincidences of whole items, added up on the client."""
    import dask

    from iaa_engine.reporting._html import COINCIDENCES_MAX_CATEGORIES, ItemSummary, item_tally

    cols = {"item": item, "annotator": annotator, "label": label}
    want_o = len(categories) <= COINCIDENCES_MAX_CATEGORIES
    tasks = [
        dask.delayed(_items_part)(p, cols, level, categories, duplicates, want_o)
        for p in _by_item(frame[[item, annotator, label]], item).to_delayed()
    ]
    parts = [r for r in _run(client, tasks, progress) if r is not None]
    tallies = [r[0] for r in parts]
    n, p, count = (np.concatenate([t[k] for t in tallies]) for k in range(3)) if tallies else ([], [], None)
    merged = item_tally(n, p, count)
    mats = [r[2] for r in parts if r[2] is not None]
    o = None
    if want_o and mats:
        o = mats[0].copy()
        for m in mats[1:]:
            o += m
    return ItemSummary(*merged, sum(r[1] for r in parts), o)


@validate(
    client=ANY,
    level=Choice(*LEVELS),
    report=NoneOr(Instance(Report, "an iaa_engine.Report (from iaa_engine.report)")),
    n_boot=N_BOOT,
    data=NoneOr(Instance(Annotations, "iaa_engine.Annotations (from summarize_dask or read_dask)")),
    scorecard=NoneOr(Instance(AnnotatorReport, "an iaa_engine.AnnotatorReport (from the Dask scorecard)")),
)
def write_html_report_dask(
    frame: Any,
    path: str | PathLike,
    *,
    client: Any,
    report: Any = None,
    data: Any = None,
    scorecard: Any = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    title: str | None = None,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    progress: bool | None = None,
) -> Path:
    """Write the HTML agreement report of a Dask DataFrame: the page of :func:`iaa_engine.write_html_report`.

    Every part of the page that reads the items is a sum over partitions of whole items (each item's annotations
    are shuffled into one partition): the distribution of item agreement and the agreement by annotations per item
    come from a tally of distinct (annotations per item, item agreement) pairs, :math:`T(n, P) = \\#\\{i : n_i = n,
    P_i = P\\}`, added over partitions (a histogram bin, a count, a mean :math:`\\sum P\\,T / \\sum T`, quartiles
    and range per n all follow from it exactly, as :func:`numpy.quantile` computes them); Krippendorff's coincidence
    matrix :math:`o_{ck} = \\sum_i (n_{ic} n_{ik} - [c = k] n_{ic}) / (n_i - 1)` is a sum over items, so over
    partitions; the items to adjudicate are each partition's top items merged
    (:func:`~iaa_engine.engines._commands.disagreements_dask`). Only these sums and the listed items reach the client.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per annotation (columns ``item``, ``annotator``, ``label``); an item's rows may be in several
        partitions.
    path : str or path-like
        The HTML file to write (UTF-8); an existing file is replaced.
    client : distributed.Client
        The cluster to compute on.
    report : Report, optional
        The report to draw (e.g. ``iaa_engine.report(data)`` of the statistics of :func:`summarize_dask`, with its
        groups from :func:`~iaa_engine.engines._commands.agreement_by_dask`); default: the report of ``data``.
    data : Annotations, optional
        The statistics of ``frame`` (:func:`summarize_dask`); default: summarised here.
    scorecard : AnnotatorReport, optional
        The annotator scorecard to show; default: computed here by :func:`annotator_report_dask` (its drift over the
        report's time windows when ``frame`` has the time column), as the in-memory page computes it.
    n_boot : int, default 1000
        Bootstrap replicates of the intervals drawn in picture e (0: none), as :func:`iaa_engine.write_html_report`;
        computed in your process from the statistics' count patterns and unit sums, so the intervals equal the
        in-memory page's for the same seed. A given ``report`` keeps its own intervals (or none).
    seed : int, optional, default 0
        Seed of the bootstrap: the same seed gives the same page.
    title : str, optional
        Page title (default "Inter-annotator agreement report").
    item, annotator, label, level, categories, duplicates
        As in :meth:`Annotations.from_long`.
    progress : bool, optional
        Show Dask's progress bar (default: on a terminal).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``frame`` is not a Dask DataFrame.
    ValueError
        A named column is missing; the labels do not fit ``level``; an annotator labelled an item twice with
        ``duplicates='error'``; or the cluster failed (the worker's error in one line).
    OSError
        The file cannot be written.

    See Also
    --------
    iaa_engine.write_html_report : The same page in memory.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication,
    University of Pennsylvania.

    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Hyndman, R. J., & Fan, Y. (1996). Sample quantiles in statistical packages. The American Statistician 50(4),
    361–365 (definition 7, the linear quantile of NumPy and pandas).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from distributed import Client
    >>> import iaa_engine as ie
    >>> df = pd.DataFrame({"item": ["t1", "t1", "t2", "t2", "t3", "t3"], "annotator": ["ann", "bob"] * 3,
    ...                    "label": ["pos", "pos", "neg", "pos", "neg", "neg"]})
    >>> with tempfile.TemporaryDirectory() as tmp, Client(processes=False, dashboard_address=None) as client:
    ...     out = ie.write_html_report_dask(dd.from_pandas(df, npartitions=2), pathlib.Path(tmp) / "r.html",
    ...                                     client=client, progress=False)
    ...     text = out.read_text(encoding="utf-8")
    >>> text.count("<svg"), "Distribution of item agreement" in text
    (6, True)
    """
    from iaa_engine.engines._commands import disagreements_dask
    from iaa_engine.engines._distributed import _need_dask, summarize_dask
    from iaa_engine.reporting._html import (
        ADJUDICATE_ITEMS,
        ADJUDICATE_PAIRS,
        HTML_DAWID_SKENE_MAX,
        PAIR_ITEMS_SHOWN,
        render_page,
    )
    from iaa_engine.reporting._report import report as _report

    _, dd, _ = _need_dask()
    if not isinstance(frame, dd.DataFrame):
        raise TypeError(f"expected a dask DataFrame; got {type(frame).__name__}")
    long: dict[str, Any] = {"item": item, "annotator": annotator, "label": label}
    missing = [c for c in long.values() if c not in frame.columns]
    if missing:
        raise ValueError(f"column(s) {missing!r} not found; the data has columns {list(frame.columns)!r}")
    if data is None:
        data = summarize_dask(
            frame[[item, annotator, label]],
            **long,
            level=level,
            categories=categories,
            duplicates=duplicates,
            scheduler=client,
            progress=progress,
        )
    frame = split_by_item(frame, item, client)  # one shuffle by item, kept on the workers, for every part below
    rep = report
    if rep is None:  # the report of the statistics, with the ICC forms summed on the cluster (interval, ratio)
        from iaa_engine.engines._dask_icc import with_icc_dask

        rep = with_icc_dask(_report(data), frame, data, **long, duplicates=duplicates, client=client)
    cats = pd.Index(data.categories)
    items = item_summary_dask(
        frame,
        **long,
        level=data.level,
        categories=cats,
        duplicates=duplicates,
        client=client,
        progress=progress,
    )
    dis = disagreements_dask(
        frame,
        top=max(ADJUDICATE_ITEMS, ADJUDICATE_PAIRS),
        items_per_pair=PAIR_ITEMS_SHOWN,
        dawid_skene="auto" if data.n_annotations <= HTML_DAWID_SKENE_MAX else False,
        **long,
        level=data.level,
        categories=list(cats),
        duplicates=duplicates,
        client=client,
        progress=progress,
    )
    if scorecard is None and data.annotators is not None and (data.n_annotators or 0) >= 2:
        scorecard = dask_scorecard(
            frame, rep, **long, level=data.level, categories=list(cats), duplicates=duplicates, client=client,
            progress=progress,
        )  # fmt: skip
    boot = rep.intervals
    if report is None and n_boot:  # as the in-memory page: its own bootstrap when it computes its own report
        from iaa_engine.inference._inference import bootstrap
        from iaa_engine.reporting._html import CONFIDENCE

        boot = bootstrap(data, n_boot=n_boot, seed=seed, confidence=CONFIDENCE, progress=progress)
    page = render_page(data, rep, boot, items, dis, scorecard, title)
    out = Path(path)
    out.write_text(page, encoding="utf-8")
    return out


def dask_scorecard(
    frame: Any,
    report: Any,
    *,
    client: Any,
    item: str,
    annotator: str,
    label: str,
    level: str,
    categories: Sequence[Any] | None,
    duplicates: str,
    progress: bool | None = None,
) -> Any:
    """The page's annotator scorecard on the cluster (:func:`annotator_report_dask` without MACE's competence, as
    the in-memory page; with the report's time windows for the drift when ``frame`` has the time column)."""
    from iaa_engine.engines._dask_annotators import annotator_report_dask

    by = report.by
    timed = by is not None and by.kind == "time" and by.column in frame.columns
    drift = {"time": by.column, "freq": by.freq} if timed else {}
    return annotator_report_dask(
        frame,
        competence=False,
        item=item,
        annotator=annotator,
        label=label,
        level=cast(Any, level),
        categories=categories,
        duplicates=duplicates,
        client=client,
        progress=progress,
        **drift,
    )
