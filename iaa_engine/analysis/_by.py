r"""Agreement by a column and over time: the analytic coefficients per group of annotations or per time window,
with tests between consecutive windows (or against a reference group) under Holm's correction."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from iaa_engine.base._params import ANY, Choice, Items, NoneOr, validate
from iaa_engine.base._policy import UndefinedMetricWarning, invalid
from iaa_engine.base._results import Result, nan_to_none, printable
from iaa_engine.data._model import Annotations, as_annotations, extra_codes, extra_times
from iaa_engine.metrics._weighted import KAPPA_WEIGHTS
from iaa_engine.stats._multiple import holm

__all__ = ["AgreementBy", "agreement_by", "BY_METRICS", "item_windows"]

#: The coefficients :func:`agreement_by` computes per group (each with :func:`iaa_engine.estimate`'s analytic
#: standard error); the default is the first four.
BY_METRICS = (
    "percent_agreement_weighted",
    "fleiss_kappa",
    "gwet_ac1",
    "krippendorff_alpha",
    "brennan_prediger",
    "multi_kappa",
)
DEFAULT_METRICS = BY_METRICS[:4]
#: Names shown for the coefficients (text table, HTML).
METRIC_LABELS = {
    "percent_agreement_weighted": "Percent agreement",
    "fleiss_kappa": "Fleiss' kappa",
    "gwet_ac1": "Gwet's AC1",
    "krippendorff_alpha": "Krippendorff's alpha",
    "brennan_prediger": "Brennan-Prediger",
    "multi_kappa": "Conger's kappa",
}
#: Above this many comparisons the text lists only those with an adjusted p-value below 0.05.
TEXT_TESTS = 20
FREQ_NAMES = {"D": "day", "W": "week (Monday to Sunday)", "M": "calendar month"}
_NAT = np.iinfo(np.int64).min
_DAY = 86_400 * 10**9


@dataclass(frozen=True, eq=False)
class AgreementBy(Result):
    """Agreement per group or per time window, with tests between groups: the result of :func:`agreement_by`.

    Attributes
    ----------
    column : str
        The kept column the groups come from.
    kind : {'group', 'time'}
        Groups of annotations by the column's values, or time windows of its timestamps.
    freq : str or None
        The windows (``'D'``, ``'W'``, ``'M'``) for ``kind='time'``.
    table : pandas.DataFrame
        One row per (group, metric) in group order: ``group`` (the value, or the window's label: its first day,
        ``2025-03-03``, or its month, ``2025-03``), ``start`` and ``end`` (the window, end excluded; NaT for
        groups), ``metric``, ``estimate``, ``se``, ``lower``, ``upper``, ``p_value`` (of "the coefficient is 0"),
        ``n_items``, ``n_annotations``.
    tests : pandas.DataFrame
        One row per comparison and metric: ``metric``, ``group_a``, ``group_b``, ``estimate_a``, ``estimate_b``,
        ``difference`` (b - a), ``se`` (:math:`\\sqrt{se_a^2 + se_b^2}`), ``lower`` and ``upper`` (the
        difference's normal interval), ``z``, ``p_value`` (two-sided),
        ``p_adjusted`` (Holm, within each metric's family of comparisons; equal to ``p_value`` with
        ``correction='none'``).
    test : {'consecutive', 'reference'}
        Which groups are compared.
    reference : object or None
        The reference group of ``test='reference'``.
    correction : {'holm', 'none'}
        The multiple-testing correction.
    confidence : float
        Coverage of the intervals.
    n_excluded : int
        Annotations without a group (a missing value; for time windows: items without any timestamp).
    notes : list of str
        Undefined estimates and other remarks.

    References
    ----------
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics
    6(2), 65-70.

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> table = pd.DataFrame({"item": ["a", "a", "b", "b", "c", "c", "d", "d"],
    ...                       "annotator": ["x", "y"] * 4, "label": list("ppnnpnnp"),
    ...                       "batch": ["b1"] * 4 + ["b2"] * 4})
    >>> res = ie.agreement_by(ie.Annotations.from_long(table, keep=["batch"]), by="batch",
    ...                       metrics=["percent_agreement_weighted"])
    >>> res.table[["group", "estimate", "n_items"]]
      group  estimate  n_items
    0    b1       1.0        2
    1    b2       0.0        2
    """

    column: str
    kind: str
    freq: str | None
    table: pd.DataFrame
    tests: pd.DataFrame
    test: str
    reference: Any
    correction: str
    confidence: float
    n_excluded: int
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """One row per (group, metric): :attr:`table`."""
        return self.table

    def groups(self) -> list:
        """The groups (or window labels) in order."""
        return list(pd.unique(self.table["group"]))

    def to_dict(self) -> dict:
        """JSON-ready: the settings, one record per (group, metric) and one per test."""
        return nan_to_none(
            {
                "column": self.column,
                "kind": self.kind,
                "freq": self.freq,
                "test": self.test,
                "reference": self.reference,
                "correction": self.correction,
                "confidence": self.confidence,
                "n_excluded": self.n_excluded,
                "groups": self.table.to_dict(orient="records"),
                "tests": self.tests.to_dict(orient="records"),
                "notes": list(self.notes),
            }
        )

    def __str__(self) -> str:
        def num(v: float) -> str:
            return f"{v:.4f}" if np.isfinite(v) else "undefined"

        def p(v: float) -> str:
            return f"{v:.2g}" if np.isfinite(v) else "-"

        what = (
            f"per {FREQ_NAMES.get(self.freq or '', self.freq)} of {self.column!r} (each item in the window of its "
            "first annotation)"
            if self.kind == "time"
            else f"per value of {self.column!r}"
        )
        pct = f"{self.confidence:.0%}"
        lines = [f"Agreement {printable(what)}; analytic {pct} intervals (t, n - 1 df)"]
        width = max([8] + [len(printable(g)) for g in self.table["group"]])
        for metric, rows in self.table.groupby("metric", sort=False):
            lines += [
                "",
                f"  {METRIC_LABELS.get(str(metric), metric)}",
                f"    {'group':<{width}} {'estimate':>9} {'s.e.':>8} {'lower':>8} {'upper':>8} {'items':>9} "
                f"{'annotations':>11}",
            ]
            for r in rows.itertuples(index=False):
                lines.append(
                    f"    {printable(r.group):<{width}} {num(r.estimate):>9} {num(r.se):>8} {num(r.lower):>8} "
                    f"{num(r.upper):>8} {int(r.n_items):>9,} {int(r.n_annotations):>11,}"
                )
        if len(self.tests):
            adj = " (Holm)" if self.correction == "holm" else ""
            vs = "consecutive groups" if self.test == "consecutive" else f"the reference {printable(self.reference)}"
            lines += ["", f"  Differences between {vs} (z from the two variances; p two-sided{adj})"]
            shown = self.tests
            if len(shown) > TEXT_TESTS:  # many windows: the significant differences (all of them in to_frame/JSON)
                shown = shown[shown["p_adjusted"] < 0.05]
                lines.append(
                    f"    {len(shown)} of {len(self.tests)} with an adjusted p below 0.05 (all: .tests, --json, --csv)"
                )
            for r in shown.itertuples(index=False):
                lines.append(
                    f"    {METRIC_LABELS.get(r.metric, r.metric):<21} {printable(r.group_b)} - {printable(r.group_a)}: "
                    f"{num(r.difference)} (s.e. {num(r.se)}), z {num(r.z)}, p {p(r.p_value)}, "
                    f"adjusted {p(r.p_adjusted)}"
                )
        if self.notes:
            lines += ["", "  Notes"] + [f"    - {printable(n)}" for n in self.notes]
        return "\n".join(lines)


# --------------------------------------------------------------------------- groups and windows (array algebra)


def item_windows(data: Annotations, time: str, freq: str) -> tuple[np.ndarray, pd.DataFrame]:
    """Each item's time window: ``(window, windows)`` with ``window[i]`` the code of item i's window (``-1``: no
    timestamp on any of its annotations) and ``windows`` one row per window that holds an item, in time order:
    ``group`` (its label), ``start``, ``end`` (excluded).

    An item falls in the window of its first (earliest) annotation, so all of its annotations stay together: the
    agreement of an item is one unit. Weeks run Monday to Sunday; months are calendar months; times with an offset
    count in UTC."""
    return windows_of_first(first_times(extra_times(data, time), data.item, data.n_items), freq)


def first_times(stamps: np.ndarray, item: np.ndarray, n_items: int) -> np.ndarray:
    """Each item's earliest timestamp (ns since the epoch; the int64 maximum: none) from its annotations'
    (``datetime64[ns]``, NaT where missing) and their item codes."""
    stamps = stamps.view(np.int64)
    ns = np.where(stamps == _NAT, np.iinfo(np.int64).max, stamps)
    first = np.full(n_items, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, item, ns)
    return first


def windows_of_first(first: np.ndarray, freq: str) -> tuple[np.ndarray, pd.DataFrame]:
    """:func:`item_windows` from each item's earliest timestamp (:func:`first_times`)."""
    has = first != np.iinfo(np.int64).max
    days = np.floor_divide(first[has], _DAY)  # days since 1970-01-01 (a Thursday)
    if freq == "D":
        index = days
    elif freq == "W":
        index = np.floor_divide(days + 3, 7)  # weeks since Monday 1969-12-29
    else:
        index = days.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64)  # months since 1970-01
    present, code = np.unique(index, return_inverse=True)
    window = np.full(first.size, -1, dtype=np.int64)
    window[has] = code
    if freq == "D":
        start = present.astype("datetime64[D]")
        end = start + np.timedelta64(1, "D")
    elif freq == "W":
        start = (present * 7 - 3).astype("datetime64[D]")
        end = start + np.timedelta64(7, "D")
    else:
        start = present.astype("datetime64[M]").astype("datetime64[D]")
        end = (present + 1).astype("datetime64[M]").astype("datetime64[D]")
    label = start.astype("datetime64[M]").astype(str) if freq == "M" else start.astype(str)
    windows = pd.DataFrame(
        {"group": label.astype(object), "start": start.astype("datetime64[ns]"), "end": end.astype("datetime64[ns]")}
    )
    return window, windows


def _local_codes(codes: np.ndarray, size: int, scratch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(used, local)``: the distinct codes of ``codes`` in order and each entry's position among them (a dense
    mark over ``size`` codes for large groups, a sort for small ones; ``scratch`` is an int64 work array)."""
    if codes.size * 16 < size:
        used, local = np.unique(codes, return_inverse=True)
        return used, local.astype(np.int64, copy=False)
    mark = np.zeros(size, dtype=bool)
    mark[codes] = True
    used = np.flatnonzero(mark)
    scratch[used] = np.arange(used.size)
    return used, scratch[codes]


def _bounds(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Where each group's rows start in the stable sort of ``group`` (-1 first): ``bounds[g + 1]`` to
    ``bounds[g + 2]`` for group g, from the group sizes (a count, no gather of the sorted codes)."""
    return np.concatenate(([0], np.cumsum(np.bincount(group + 1, minlength=n_groups + 1))))


def _subsets(
    data: Annotations, group: np.ndarray, n_groups: int, item_group: np.ndarray | None = None
) -> tuple[list[Annotations], np.ndarray]:
    """The annotations of each group as their own :class:`Annotations` (items and annotators renumbered, the
    data's categories kept), from one stable sort of the group codes; and each item's number of groups.

    ``item_group``: the groups partition the items (time windows), item i in group ``item_group[i]``; then the
    items are renumbered once for all groups (their rank within their group) instead of per group."""
    small = np.int16 if n_groups < 2**15 else np.int64  # a radix sort for few groups
    order = np.argsort(group.astype(small), kind="stable")
    bounds = _bounds(group, n_groups)
    if item_group is not None:
        item_order = np.argsort(item_group.astype(small), kind="stable")
        item_bounds = _bounds(item_group, n_groups)
        rank = np.empty(data.n_items, dtype=np.int64)
        rank[item_order] = np.arange(data.n_items) - item_bounds[1:][item_group[item_order]]
    ann = cast(np.ndarray, data.annotator)
    names = cast(pd.Index, data.annotators)
    item = data.item if item_group is None else rank[data.item]
    # one gather of a packed (item, annotator, label) code instead of three: the rows of a group are spread over
    # the whole table, so each gathered value is a cache miss; packing and unpacking run in order
    lb = max(1, (max(data.n_categories, 1) - 1).bit_length())  # bit fields: shifts and masks, no division
    ab = max(1, (max(len(names), 1) - 1).bit_length())
    rows = order[bounds[1] :]  # the rows with a group (no group: -1, sorted first)
    if lb + ab + max(1, (max(data.n_items, 1) - 1).bit_length()) <= 62:
        packed = item << (ab + lb)
        packed |= ann << lb
        packed |= data.label
        packed = packed[rows]
        lab_s = packed & ((1 << lb) - 1)
        ann_s = (packed >> lb) & ((1 << ab) - 1)
        item_s = packed >> (ab + lb)
        del packed
    else:
        item_s, ann_s, lab_s = item[rows], ann[rows], data.label[rows]
    start = bounds[1]
    item_scratch = np.empty(data.n_items, dtype=np.int64)
    ann_scratch = np.empty(len(names), dtype=np.int64)
    groups_per_item = np.zeros(data.n_items, dtype=np.int64)
    out = []
    for g in range(n_groups):
        lo, hi = bounds[g + 1] - start, bounds[g + 2] - start
        if item_group is not None:
            items = item_order[item_bounds[g + 1] : item_bounds[g + 2]]
            local = item_s[lo:hi]
        else:
            items, local = _local_codes(item_s[lo:hi], data.n_items, item_scratch)
        groups_per_item[items] += 1
        who, annotator = _local_codes(ann_s[lo:hi], len(names), ann_scratch)
        out.append(
            Annotations(
                local,
                annotator,
                lab_s[lo:hi],
                items=data.items[items],
                annotators=names[who],
                categories=data.categories,
                level=data.level,
            )
        )
    return out, groups_per_item


def _estimates(sub: Annotations, metrics: tuple, weights: Any, confidence: float, notes: list, group: Any) -> list:
    from iaa_engine.inference._analytic import estimate

    out = []
    for metric in metrics:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedMetricWarning)
            w = "identity" if metric == "krippendorff_alpha" else weights
            e = estimate(sub, metric, weights=w, confidence=confidence)
        for c in caught:
            if issubclass(c.category, UndefinedMetricWarning):
                notes.append(f"{group}: {str(c.message).split('; returning')[0]}")
        out.append(e)
    return out


def _two_variance_z(
    a: np.ndarray, se_a: np.ndarray, b: np.ndarray, se_b: np.ndarray, confidence: float
) -> tuple[np.ndarray, ...]:
    """Independent groups (Gwet 2014, §9.3), as :func:`iaa_engine.compare` tests independent data sets (its
    ``_test``, z against the normal): ``d = b - a``, ``se = sqrt(se_a² + se_b²)``, ``z = d / se``, the two-sided
    p-value and the interval of d."""
    from iaa_engine.analysis._compare import _test

    d = b - a
    se = np.sqrt(se_a**2 + se_b**2)
    out = np.array([_test(float(x), float(s), float("nan"), confidence) for x, s in zip(d, se)]).reshape(-1, 4)
    return d, se, out[:, 0], out[:, 1], out[:, 2], out[:, 3]


@validate(
    metrics=Items(Choice(*BY_METRICS), what=f"a non-empty sequence of {', '.join(map(repr, BY_METRICS))}",
                  non_empty=True),
    reference=ANY,
    test=NoneOr(Choice("consecutive", "reference")),
    correction=Choice("holm", "none"),
    weights=KAPPA_WEIGHTS,
)  # fmt: skip
def agreement_by(
    data: Any,
    by: str | None = None,
    *,
    time: str | None = None,
    freq: str = "W",
    metrics: Any = DEFAULT_METRICS,
    reference: Any = None,
    test: str | None = None,
    correction: str = "holm",
    confidence: float = 0.95,
    weights: str | np.ndarray = "identity",
) -> AgreementBy:
    r"""The agreement coefficients per value of a column (a batch, a document type, an annotator group) or per time
    window of a timestamp column, each with its analytic interval, and tests between groups.

    Each group's coefficient is :func:`iaa_engine.estimate` on the group's annotations alone (the data's categories
    kept, so that chance agreement that depends on the number of categories, AC1's and Brennan-Prediger's, is the
    same in every group): an estimate :math:`\hat\kappa_g` with its standard error :math:`s_g` (Gwet's
    linearisation; alpha: the delete-one-item jackknife) and t interval. Groups are compared as independent
    samples (Gwet 2014, §9.3; the test :func:`iaa_engine.compare` makes of independent data sets):

    .. math::

        z = \frac{\hat\kappa_b - \hat\kappa_a}{\sqrt{s_a^2 + s_b^2}},\qquad p = 2\,\Phi(-|z|),

    between consecutive groups (``test='consecutive'``, the default without ``reference``: each window against the
    one before) or each group against a reference group (``test='reference'``); the p-values of one coefficient's
    comparisons are adjusted by Holm's (1979) step-down method.

    ``by``: an annotation belongs to the group of its own value (groups of annotators split an item's annotations:
    each group's agreement is among its own annotators). ``time``: an *item* belongs to the window of its first
    (earliest) annotation, with all its annotations (agreement is measured per item); items without any timestamp
    and annotations without a group value are left out (``n_excluded``). The groups are formed with one sort of the
    group codes and each group's coefficients cost in proportion to its size (no recomputation on the whole data).

    Parameters
    ----------
    data : Annotations
        Annotations read with the column kept (``ie.read(path, keep=["batch"])``,
        ``Annotations.from_long(table, keep=[...])``).
    by : str, optional
        A kept column whose values are the groups (text as written: ``"007"`` and ``"None"`` are groups).
    time : str, optional
        A kept column of timestamps (ISO 8601 text or typed timestamps; see :func:`iaa_engine.data._model.extra_times`)
        whose windows are the groups. Exactly one of ``by`` and ``time``.
    freq : {'D', 'W', 'M'}, default 'W'
        The windows of ``time``: days, weeks (Monday to Sunday) or calendar months (UTC for times with an offset).
    metrics : sequence of str, default ('percent_agreement_weighted', 'fleiss_kappa', 'gwet_ac1', 'krippendorff_alpha')
        Coefficients of :data:`BY_METRICS` (percent agreement is Gwet's pairwise observed agreement).
    reference : optional
        The reference group (a value of ``by``, or a window's label such as ``'2025-03-03'``) for
        ``test='reference'``; default: the first group.
    test : {'consecutive', 'reference'}, optional
        Which groups are compared (default: ``'reference'`` when ``reference`` is given, else ``'consecutive'``).
    correction : {'holm', 'none'}, default 'holm'
        Multiple-testing correction within each coefficient's comparisons.
    confidence : float, default 0.95
        Coverage of the intervals.
    weights : str or array, default 'identity'
        Agreement weights of the kappa family (as in :func:`iaa_engine.estimate`); alpha uses the data's level.

    Returns
    -------
    AgreementBy
        ``table`` (one row per group and coefficient), ``tests`` (one row per comparison and coefficient).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came), neither or both of
        ``by`` and ``time`` are given, or ``reference`` is not a group.
    ValueError
        The column was not kept, its timestamps cannot be read, no annotation has a group, or the data holds only
        statistics or has no annotator identities.

    References
    ----------
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.), §9.3 (comparing independent coefficients).
    Advanced Analytics.

    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    British Journal of Mathematical and Statistical Psychology 61(1), 29-48.

    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics
    6(2), 65-70.

    Examples
    --------
    Two weeks of annotations; the second week agrees less:

    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> table = pd.DataFrame({
    ...     "item": ["a", "a", "b", "b", "c", "c", "d", "d", "e", "e", "f", "f"],
    ...     "annotator": ["x", "y"] * 6,
    ...     "label": list("ppnnpp" "pnnpnn"),
    ...     "created_at": ["2025-03-03"] * 6 + ["2025-03-11T09:30:00Z"] * 6})
    >>> data = ie.Annotations.from_long(table, keep=["created_at"])
    >>> res = ie.agreement_by(data, time="created_at", freq="W", metrics=["percent_agreement_weighted"])
    >>> res.table[["group", "estimate", "n_items"]]
            group  estimate  n_items
    0  2025-03-03  1.000000        3
    1  2025-03-10  0.333333        3
    >>> round(float(res.tests.loc[0, "difference"]), 4)
    -0.6667
    """
    data = as_annotations(data)
    if (by is None) == (time is None):
        raise invalid("by", "a kept column name, or None with time= a kept column of timestamps (exactly one)", by)
    data.require_annotators("agreement by group")
    if data.label is None:
        raise ValueError("agreement by group needs the annotations themselves, not only statistics")
    metrics = tuple(dict.fromkeys(metrics))
    notes: list[str] = []
    if time is not None:
        window, windows = item_windows(data, time, freq)
        group = window[data.item]
        labels = windows["group"].to_numpy()
        starts, ends = windows["start"].to_numpy(), windows["end"].to_numpy()
        kind, column = "time", str(time)
        n_no_time = int(np.count_nonzero(window < 0))
        if n_no_time:
            notes.append(f"{n_no_time} item(s) without any timestamp left out")
    else:
        window = None
        group, values = extra_codes(data, cast(str, by))
        labels = values.to_numpy()
        starts = ends = np.full(len(values), np.datetime64("NaT"), dtype="datetime64[ns]")
        kind, column = "group", str(by)
        if np.any(group < 0):
            notes.append(f"{int(np.count_nonzero(group < 0))} annotation(s) without a value of {column!r} left out")
    n_groups = len(labels)
    if n_groups == 0:
        raise ValueError(f"no annotation has a value of {column!r}")
    test = test or ("reference" if reference is not None else "consecutive")
    ref_index = 0
    if test == "reference" and reference is not None:
        hits = [j for j, g in enumerate(labels) if g == reference or str(g) == str(reference)]
        if not hits:
            shown = ", ".join(repr(g) for g in list(labels)[:8])
            raise invalid("reference", f"one of the groups ({shown}{', ...' if n_groups > 8 else ''})", reference)
        ref_index = hits[0]
    subsets, groups_per_item = _subsets(data, group, n_groups, window)
    rows = []
    for j, sub in enumerate(subsets):
        for e in _estimates(sub, metrics, weights, confidence, notes, labels[j]):
            rows.append(
                (labels[j], starts[j], ends[j], e.metric.split("[")[0], e.estimate, e.se, e.lower, e.upper,
                 e.p_value, sub.n_items, sub.n_annotations)
            )  # fmt: skip
    table = pd.DataFrame(
        rows,
        columns=["group", "start", "end", "metric", "estimate", "se", "lower", "upper", "p_value", "n_items",
                 "n_annotations"],
    )  # fmt: skip
    if kind == "group" and np.any(groups_per_item > 1):
        notes.append(
            f"{int(np.count_nonzero(groups_per_item > 1))} item(s) have annotations in several groups: the tests "
            "treat the groups as independent samples, which they are not on those items"
        )
    tests = _tests(table, metrics, n_groups, test, ref_index, correction, confidence)
    return AgreementBy(
        column=column,
        kind=kind,
        freq=freq if kind == "time" else None,
        table=table,
        tests=tests,
        test=test,
        reference=labels[ref_index] if test == "reference" else None,
        correction=correction,
        confidence=float(confidence),
        n_excluded=int(np.count_nonzero(group < 0)),
        notes=list(dict.fromkeys(notes)),
    )


def _tests(
    table: pd.DataFrame, metrics: tuple, n_groups: int, test: str, ref: int, correction: str, confidence: float
) -> pd.DataFrame:
    """The comparisons of each metric's groups (consecutive, or each against the reference), Holm-adjusted."""
    a_idx: np.ndarray
    b_idx: np.ndarray
    if test == "consecutive":
        a_idx, b_idx = np.arange(n_groups - 1), np.arange(1, n_groups)
    else:
        b_idx = np.array([j for j in range(n_groups) if j != ref], dtype=np.int64)
        a_idx = np.full(b_idx.size, ref, dtype=np.int64)
    parts = []
    for m, metric in enumerate(metrics):
        rows = table.iloc[m :: len(metrics)]  # the groups' rows of this metric, in group order
        est, se = rows["estimate"].to_numpy(float), rows["se"].to_numpy(float)
        d, s, z, p, lo, hi = _two_variance_z(est[a_idx], se[a_idx], est[b_idx], se[b_idx], confidence)
        parts.append(
            pd.DataFrame(
                {
                    "metric": metric,
                    "group_a": rows["group"].to_numpy()[a_idx],
                    "group_b": rows["group"].to_numpy()[b_idx],
                    "estimate_a": est[a_idx],
                    "estimate_b": est[b_idx],
                    "difference": d,
                    "se": s,
                    "lower": lo,
                    "upper": hi,
                    "z": z,
                    "p_value": p,
                    "p_adjusted": holm(p) if correction == "holm" else p,
                }
            )
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
