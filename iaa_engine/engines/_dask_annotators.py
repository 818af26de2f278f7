"""The annotator scorecard on a Dask cluster (issue 35): ``iaa annotators --engine dask``.

Every column of the scorecard is a per-annotator sum over items, so the annotations are shuffled by item and each
partition of whole items returns its sums: its count patterns (each distinct label-count vector, its items, and the
annotations per (annotator, label, pattern)), each annotator's label × gold table, the pairs' tables, the drift
sums per (annotator, time window); MACE's and Dawid-Skene's EMs run their E steps on the partitions and their M steps
on the client. The client merges the patterns and finishes with the in-memory code
(:func:`iaa_engine.analysis._scorecard.scorecard`), so the numbers are the in-memory ones to rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from iaa_engine.base._choices import LEVELS
from iaa_engine.base._params import ANY, Choice, Flag, Real, Whole, validate

__all__ = ["annotator_report_dask"]


def _coded_keep(
    part: pd.DataFrame, cols: dict, level: str, cats: pd.Index, dup: str, annotators: pd.Index, keep: Sequence[str]
) -> Any:
    """A partition of whole items as annotations (``keep``: the timestamp column), with each annotation's global
    annotator code (as :func:`iaa_engine.engines._commands._coded`, whose distributed EM reads it)."""
    from iaa_engine.engines._commands import _annotations

    data = _annotations(part, cols, level, cats, dup, keep=keep)
    if data is None:
        return None
    codes = annotators.get_indexer(cast(pd.Index, data.annotators)).astype(np.int64)
    return data, codes[cast(np.ndarray, data.annotator)]


def _known_codes(data: Any, known: Any) -> tuple[np.ndarray, np.ndarray]:
    """The known labels of this partition's items (the others are in other partitions)."""
    from iaa_engine.analysis._gold import known_codes

    k_item, k_cat, _ = known_codes(data, known)
    return k_item, k_cat


def _card_part(
    coded: Any,
    a_n: int,
    gold: Any,
    priors: Any,
    e: Any,
    pairs: bool,
    time: str | None,
    freq: str,
) -> Any:
    """One partition's sums: its count patterns, the (annotator, label, gold) cells, the pairs' cells, the drift
    sums and the number of known labels found in it."""
    from iaa_engine.analysis._scorecard import _gold_codes, _Patterns, drift_sums, pair_cells, posterior_codes

    if coded is None:
        return None
    data, ann = coded
    c = max(data.n_categories, 1)
    codes = np.zeros(len(cast(pd.Index, data.annotators)), dtype=np.int64)
    codes[cast(np.ndarray, data.annotator)] = ann  # each of the partition's annotators' global code
    pt = _Patterns.of(data, ann, a_n)
    n_found = 0
    if isinstance(gold, str) and gold == "dawid_skene":
        from iaa_engine.engines._commands import _ds_posteriors

        gold_cat = posterior_codes(_ds_posteriors(data, ann, priors, e, a_n), data.counts.n_i)
    elif isinstance(gold, str):
        gold_cat, _ = _gold_codes(data, gold, 1, False)
    else:
        k_item, k_cat = _known_codes(data, gold)
        gold_cat = np.full(data.n_items, -1, dtype=np.int64)
        gold_cat[k_item] = k_cat
        n_found = int(k_item.size)
    g = gold_cat[data.item]
    has = g >= 0
    cells, counts = np.unique(((ann * c + data.label) * c + g)[has], return_counts=True)
    drift = drift_sums(data, ann, a_n, time, freq) if time is not None else None
    return {
        "vec": pt.vec,
        "size": pt.size,
        "k_al": pt.k_al,
        "gold": (cells, counts),
        "pairs": pair_cells(data, codes) if pairs else None,
        "drift": drift,
        "n_found": n_found,
    }


def _numeric(coded: Any, level: str) -> Any:
    return None if coded is None else coded[0].category_values(level)


def _mace_part(coded: Any, a_n: int) -> Any:
    from iaa_engine.analysis._scorecard import _MacePart

    return None if coded is None else _MacePart(coded[0], coded[1], a_n)


def _mace_counts(part: Any) -> Any:
    return None if part is None else part.label_counts()


def _mace_step(part: Any, theta: np.ndarray, xi: np.ndarray, first: bool) -> Any:
    return None if part is None else part.step(theta, xi, first)


def _merge_patterns(parts: list, a_n: int, c: int) -> Any:
    """The whole data's count patterns from the partitions': the distinct count vectors (a padded row of (label,
    count) pairs each, made unique), their items added up, and each partition's (annotator, label) × pattern counts
    moved to the merged patterns' columns and added."""
    import scipy.sparse as sp

    from iaa_engine.analysis._scorecard import _Patterns

    if not parts:
        return _Patterns.build(sp.csr_matrix((0, c)), sp.csr_matrix((a_n * c, 0)), np.zeros(0, np.int64))
    vec = sp.vstack([p["vec"] for p in parts]).tocsr()
    vec.sort_indices()
    n_rows = vec.shape[0]
    nnz = np.diff(vec.indptr)
    width = int(nnz.max()) if n_rows else 0
    pad = np.full((n_rows, 2 * width), -1, dtype=np.int64)
    pos = np.arange(vec.indices.size) - np.repeat(vec.indptr[:-1], nnz)
    row = np.repeat(np.arange(n_rows), nnz)
    pad[row, 2 * pos] = vec.indices
    pad[row, 2 * pos + 1] = np.rint(vec.data).astype(np.int64)
    _, first, inverse = np.unique(pad, axis=0, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    n_pat = first.size
    move = sp.csr_matrix((np.ones(n_rows), (np.arange(n_rows), inverse)), shape=(n_rows, n_pat))
    k_al = (sp.hstack([p["k_al"] for p in parts]).tocsr() @ move).tocsr()
    size = np.bincount(inverse, weights=np.concatenate([p["size"] for p in parts]), minlength=n_pat)
    return _Patterns.build(vec[first], k_al, np.rint(size).astype(np.int64))


def _labelled_annotators(part: pd.DataFrame, annotator: str, label: str) -> np.ndarray:
    from iaa_engine.data._model import is_missing_mask

    labelled = ~is_missing_mask(part[label].to_numpy(dtype=object))
    return pd.unique(part.loc[labelled, annotator].dropna().to_numpy())


def _annotators(frame: Any, annotator: str, label: str) -> pd.Index:
    """The data's annotators in the in-memory order: those with a label (a blank label is no annotation)."""
    import dask

    from iaa_engine.engines._distributed import _sort_key

    got = dask.compute(*[dask.delayed(_labelled_annotators)(p, annotator, label) for p in frame.to_delayed()])
    values = pd.unique(np.concatenate([np.asarray(g, dtype=object) for g in got])) if got else []
    return pd.Index(sorted(list(values), key=_sort_key))


@validate(
    gold=ANY,
    level=Choice(*LEVELS),
    random_fraction=Real(0, 1, low_open=True),
    random_level=Real(0, 1, low_open=True, high_open=True),
    bias_threshold=Real(0, 1),
    bias_p=Real(0, 1, low_open=True, high_open=True),
    min_items=Whole(1),
    competence=Flag(),
    client=ANY,
)
def annotator_report_dask(
    frame: Any,
    *,
    gold: Any = None,
    time: str | None = None,
    freq: str = "W",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: Literal["nominal", "ordinal", "interval", "ratio"] = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
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
    client: Any,
    progress: bool | None = None,
) -> Any:
    r""":func:`iaa_engine.annotator_report` of a Dask DataFrame: the same scorecard, flags, pairs and drift.

    The annotations are shuffled so that each item's rows meet in one partition, and every column is a sum of
    per-partition sufficient statistics: each partition returns its count patterns (the distinct label-count
    vectors :math:`n_i`, their numbers of items, and the annotations per (annotator, label, pattern)), from which
    agreement, kappa, the chance moments, alpha without each annotator and the label-distribution tests follow
    exactly as in memory; each annotator's label × gold table, the gold label of each item computed in its
    partition (majority vote; Dawid-Skene from the parameters of the distributed EM of :func:`gold_dask`; or the
    known labels, the gold questions, sent to every partition); the pairs' label × label tables; and, with
    ``time``, the drift sums per (annotator, time window) (each item in the window of its first annotation).
    MACE's competence is an EM whose E step runs on the partitions and whose M step adds up their expected counts.
    The client merges the patterns (the same distinct vectors as in memory) and finishes with the in-memory code.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per annotation (:func:`iaa_engine.engines._commands.open_dask`), with ``time`` among its columns
        when given.
    gold : {'majority', 'dawid_skene'}, mapping, pandas.Series or pandas.DataFrame, optional
        As :func:`iaa_engine.annotator_report` (known labels are sent to every worker: keep them small).
    time : str, optional
        A column of timestamps: adds the drift table.
    freq : {'D', 'W', 'M'}, default 'W'
        The windows of ``time``.
    item, annotator, label : str
        The columns.
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, default 'nominal'
        Level of measurement the labels are read at and of the alpha columns.
    categories : sequence, optional
        The categories in order (default: the distinct labels, sorted).
    duplicates : {'error', 'first', 'last', 'keep'}, default 'error'
        An annotator labelling an item twice (as :meth:`Annotations.from_long`).
    confidence : float, default 0.95
        Coverage of the intervals.
    random_fraction : float, default 0.8
        As :func:`iaa_engine.annotator_report`.
    random_level : float, default 0.05
        As :func:`iaa_engine.annotator_report`.
    bias_threshold : float, default 0.15
        As :func:`iaa_engine.annotator_report`.
    bias_p : float, default 0.001
        As :func:`iaa_engine.annotator_report`.
    min_items : int, default 20
        As :func:`iaa_engine.annotator_report`.
    pairwise : bool or 'auto', default 'auto'
        As :func:`iaa_engine.annotator_report`.
    competence : bool, default True
        Run MACE's EM (one round trip to the workers per iteration).
    max_iter : int, default 100
        Largest number of EM iterations (MACE, and Dawid-Skene).
    tol : float, default 1e-3
        MACE's stopping rule (Dawid-Skene: its own, 1e-5, as in memory).
    client : distributed.Client
        The cluster.
    progress : bool, optional
        Dask's progress bar and the EMs' on standard error (default: on a terminal).

    Returns
    -------
    AnnotatorReport
        As :func:`iaa_engine.annotator_report`.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts.
    ValueError
        A column is missing, the data holds no annotation, a known label is not a category, or a worker failed
        (one line naming it).

    References
    ----------
    Hovy, D., Berg-Kirkpatrick, T., Vaswani, A., & Hovy, E. (2013). Learning whom to trust with MACE. Proceedings
    of NAACL-HLT 2013, 1120-1130.

    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the EM
    algorithm. Journal of the Royal Statistical Society C 28(1), 20-28.

    Examples
    --------
    >>> import iaa_engine as ie  # doctest: +SKIP
    >>> from iaa_engine.engines._commands import dask_session, open_dask  # doctest: +SKIP
    >>> with dask_session() as client:  # doctest: +SKIP
    ...     card = ie.annotator_report_dask(open_dask("annotations/", ["item", "annotator", "label"]), client=client)
    >>> card.flagged()  # doctest: +SKIP
    []
    """
    return _annotator_report_dask(**locals())[0]


def _annotator_report_dask(
    frame: Any,
    *,
    gold: Any = None,
    time: str | None = None,
    freq: str = "W",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    duplicates: str = "error",
    confidence: float = 0.95,
    random_fraction: float = 0.8,
    random_level: float = 0.05,
    bias_threshold: float = 0.15,
    bias_p: float = 0.001,
    min_items: int = 20,
    pairwise: Any = "auto",
    competence: bool = True,
    max_iter: int = 100,
    tol: float = 1e-3,
    client: Any,
    progress: bool | None = None,
) -> tuple[Any, np.ndarray, int]:
    """:func:`annotator_report_dask` and, for known gold labels, each annotator's right answers and the known labels
    found (the CLI's pass/fail verdict, :func:`iaa_engine.analysis._gold.accuracy_verdict`)."""
    import dask

    from iaa_engine.analysis._gold import _EPS
    from iaa_engine.analysis._scorecard import PAIRWISE_LIMIT, _mace_em
    from iaa_engine.engines._commands import _by_item, _categories, _dawid_skene_dask, _gather
    from iaa_engine.engines._distributed import _is_tty, show_progress

    if gold is not None and not isinstance(gold, (str, dict, pd.Series, pd.DataFrame)):
        raise TypeError(
            "gold must be 'majority', 'dawid_skene', a mapping item -> label, a Series or a DataFrame; got "
            f"{type(gold).__name__}"
        )
    if isinstance(gold, str) and gold not in ("majority", "dawid_skene"):
        from iaa_engine.base._policy import invalid

        raise invalid("gold", "'majority', 'dawid_skene' or known labels (a mapping, Series or DataFrame)", gold)
    Choice("D", "W", "M").check("freq", freq)
    gold = "majority" if gold is None else gold
    if isinstance(gold, dict):  # sent to every worker as one small table
        gold = pd.DataFrame({"item": list(gold.keys()), "label": list(gold.values())}, dtype=object)
    used = [item, annotator, label] + ([time] if time is not None else [])
    missing = [c for c in used if c not in frame.columns]
    if missing:
        raise ValueError(f"column(s) {missing!r} not found; the data has columns {list(frame.columns)!r}")
    cols = {"item": item, "annotator": annotator, "label": label}
    frame = frame[list(dict.fromkeys(used))]
    cats = _categories(frame, label, level, categories)
    names = _annotators(frame, annotator, label)
    a_n, c = len(names), max(len(cats), 1)
    keep = [time] if time is not None else []
    coded = client.compute(
        [
            dask.delayed(_coded_keep)(p, cols, level, cats, duplicates, names, keep)
            for p in _by_item(frame, item).to_delayed()
        ]
    )
    if progress or (progress is None and _is_tty()):
        show_progress(coded)
    try:
        priors = e = None
        if isinstance(gold, str) and gold == "dawid_skene":
            priors, e, _ = _dawid_skene_dask(client, coded, a_n, len(cats), max_iter, 1e-5, progress, _EPS)
        want_pairs = pairwise is True or (pairwise == "auto" and a_n <= PAIRWISE_LIMIT)
        gold_arg = gold if isinstance(gold, str) else client.scatter(gold, broadcast=True)
        parts = [
            p
            for p in _gather(
                client,
                [client.submit(_card_part, k, a_n, gold_arg, priors, e, want_pairs, time, freq) for k in coded],
            )
            if p is not None
        ]
        numeric = None
        if level in ("interval", "ratio"):  # the categories' numbers (every partition has the same categories)
            got = _gather(client, [client.submit(_numeric, k, level) for k in coded])
            numeric = next((v for v in got if v is not None), None)
        theta = None
        if competence:
            mace = [client.submit(_mace_part, k, a_n) for k in coded]
            got = _gather(client, [client.submit(_mace_counts, m) for m in mace])
            n_al = np.sum([n for n in got if n is not None], axis=0)

            def step(theta: np.ndarray, xi: np.ndarray, first: bool) -> np.ndarray:
                got = _gather(client, [client.submit(_mace_step, m, theta, xi, first, pure=False) for m in mace])
                return np.sum([g for g in got if g is not None], axis=0)

            theta = _mace_em(n_al, a_n, c, step, max_iter, tol, progress)[0]
            client.cancel(mace)
    finally:
        client.cancel(coded)
    return _combine(
        parts,
        names,
        c,
        level,
        gold if isinstance(gold, str) else "known",
        theta,
        numeric,
        time is not None,
        confidence=confidence,
        random_fraction=random_fraction,
        random_level=random_level,
        bias_threshold=bias_threshold,
        bias_p=bias_p,
        min_items=min_items,
        pairwise=pairwise,
    )


def _combine(
    parts: list,
    names: pd.Index,
    c: int,
    level: str,
    gold_name: str,
    theta: np.ndarray | None,
    numeric: np.ndarray | None,
    drift: bool,
    **options: Any,
) -> tuple[Any, np.ndarray, int]:
    """The scorecard from the partitions' sums (:func:`_card_part`), each partition's items whole: the patterns
    merged, the gold cells added, then the in-memory finish; with each annotator's right answers and the known
    labels found."""
    from iaa_engine.analysis._scorecard import TABLE_CELLS, _gold_parts, drift_table, scorecard

    a_n = len(names)
    pt = _merge_patterns(parts, a_n, c)
    cells = np.concatenate([p["gold"][0] for p in parts]) if parts else np.zeros(0, np.int64)
    counts = np.concatenate([p["gold"][1] for p in parts]) if parts else np.zeros(0, np.int64)
    gold_table: Any
    if a_n * c * c <= TABLE_CELLS and pt.m.size * c <= TABLE_CELLS:
        gold_table = np.bincount(cells, weights=counts.astype(float), minlength=a_n * c * c).reshape(a_n, c, c)
    else:
        cells, inverse = np.unique(cells, return_inverse=True)
        counts = np.bincount(np.asarray(inverse).ravel(), weights=counts.astype(float), minlength=cells.size)
        al, g = np.divmod(cells, c)
        ann, lab = np.divmod(al, c)
        gold_table = _gold_parts(ann, lab, g, a_n, c, counts)

    def pair_source() -> tuple:
        got = [p["pairs"] for p in parts if p["pairs"] is not None]
        if not got:
            return tuple(np.zeros(0, np.int64) for _ in range(5))
        return tuple(np.concatenate([g[k] for g in got]) for k in range(5))

    drift_frame = None
    if drift:
        sums = [p["drift"] for p in parts if p["drift"] is not None and len(p["drift"])]
        empty = pd.DataFrame({"a": [], "start": [], "window": [], "agree": [], "n": []}).astype(
            {"a": np.int64, "start": np.int64, "window": object, "agree": float, "n": np.int64}
        )
        drift_frame = drift_table(pd.concat(sums, ignore_index=True) if sums else empty, names, options["confidence"])
    report = scorecard(
        pt, names, level, gold_table, gold_name, theta, pair_source, drift_frame, numeric=numeric, **options
    )
    correct = np.bincount(
        (cells // (c * c))[(cells // c) % c == cells % c], weights=counts[(cells // c) % c == cells % c], minlength=a_n
    )
    return report, correct, sum(p["n_found"] for p in parts)
