"""Agreement broken down: within groups of items, and of each annotator with the others."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_engine.base._params import ANY, validate
from iaa_engine.base._policy import check_replacement, safe_ratio
from iaa_engine.data._model import as_annotations, factorize_values
from iaa_engine.metrics._agreement import SpaScheme
from iaa_engine.stats._sums import distinct_values, int_bincount, spa_weight_table

__all__ = ["group_agreement", "annotator_agreement"]

#: How many uncovered items an error message names.
_SHOW = 5


def _group_of_items(items: pd.Index, groups: Any) -> tuple[np.ndarray, pd.Index]:
    """Group code of every item (into the sorted group names) and the group names."""
    if isinstance(groups, pd.Series):
        mapping = groups
    elif isinstance(groups, Mapping):
        mapping = pd.Series(
            list(groups.values()), index=pd.Index(list(groups.keys()), tupleize_cols=False), dtype=object
        )
    elif callable(groups):
        values = pd.Series(items.to_numpy(), dtype=object).map(groups).to_numpy()
        mapping = None
    else:
        raise TypeError(
            "groups must be a pandas Series indexed by item name, a dict from item name to group, or a callable "
            f"applied to each item name; got {type(groups).__name__}"
        )
    if mapping is not None:
        if mapping.index.has_duplicates:
            dup = mapping.index[mapping.index.duplicated()].tolist()[0]
            raise ValueError(f"groups must give each item one group; item {dup!r} is listed more than once")
        pos = mapping.index.get_indexer(items)
        values = mapping.to_numpy()[np.maximum(pos, 0)] if len(mapping) else np.full(len(items), None, object)
        uncovered = (pos < 0) | pd.isna(values)
    else:
        uncovered = pd.isna(values)
    uncovered = np.asarray(uncovered, dtype=bool)
    if uncovered.any():
        bad = items[uncovered][:_SHOW].tolist()
        more = "" if uncovered.sum() <= _SHOW else ", ..."
        raise ValueError(
            f"groups must map every item of the data to a group; got no group (a missing key, None or NaN) for "
            f"{int(uncovered.sum())} of the {len(items)} items, e.g. {', '.join(map(repr, bad))}{more}"
        )
    values = np.asarray(values)
    if values.dtype == object:  # Python numbers from a dict or a callable: numeric group names, sorted as numbers
        values = pd.Series(values, dtype=object).infer_objects().to_numpy()
    codes, names = factorize_values(values)
    return codes, pd.Index(names, name="group", tupleize_cols=False)


@validate(groups=ANY)
def group_agreement(
    data: Any,
    groups: pd.Series | Mapping[Any, Any] | Callable[[Any], Any],
    *,
    weights: SpaScheme = "flat",
    replace_undefined_by: float = np.nan,
) -> pd.Series:
    r"""SPA agreement within each group of items (e.g. the span units of one Label Studio task).

    .. math::

        \bar P_g = \frac{\sum_{i \in g,\, n_i \ge 2} k_i \hat P_i}{\sum_{i \in g,\, n_i \ge 2} k_i},\qquad
        \hat P_i = \frac{1}{n_i(n_i - 1)} \sum_c n_{ic}(n_{ic} - 1)

    :math:`\hat P_i` is :func:`item_agreement` and :math:`k_i` the weight
    :func:`spa_item_weights` gives item i: SPA (Nørregaard & Derczynski 2022,
    eq. (7); the weights of their §5) over the items of group g. With the
    default ``weights='flat'``, :math:`\bar P_g` is the joint probability of
    agreement (Fleiss 1971, :math:`\bar P`) of the group's items; with
    ``edges`` it pools every pair of annotations of the group's items.

    The weights are those of the *whole* data: ``inv_var`` uses the whole
    data's number of categories and ``inv_var_class`` its class distribution,
    not the group's. So the groups are weighted alike and comparable, one group
    holding every item gives :func:`spa` exactly, and each item in a group of
    its own gives :func:`item_agreement`. For ``flat``, ``annotations``,
    ``annotations_m1``, ``edges`` and ``inv_var`` a group's value is also
    :func:`spa` of the group's annotations alone; for ``inv_var_class`` it
    generally is not (a group's own class distribution would give other weights).

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
        The annotations (a count table will do: only per-item counts are used).
    groups : pandas.Series, dict or callable
        The group of each item: a Series indexed by item name, a dict from item
        name to group, or a callable applied to each item name. Every item of
        ``data`` needs a group (a missing key, ``None`` or ``NaN`` is a
        ``ValueError`` naming some of the items); entries for items that are not
        in ``data`` are ignored.
    weights : {'flat', 'annotations', 'annotations_m1', 'edges', 'inv_var', 'inv_var_class'}, default 'flat'
        The item weights :math:`k_i`, see :func:`spa_item_weights`.
    replace_undefined_by : float, default nan
        Value for groups with no item of two or more annotations (their
        agreement is undefined). Filled without a warning, as in :func:`item_agreement`.

    Returns
    -------
    pandas.Series
        Named ``agreement``, indexed by group (index name ``group``), in sorted
        order of the group names (first-seen order when they cannot be sorted).
        Only groups of items in ``data`` appear.

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``groups`` is not a Series, a mapping or a callable; ``data`` is not
        :class:`Annotations`, a pandas DataFrame or a 2-D array-like of labels.
    ValueError
        An item of ``data`` has no group (missing, None or NaN), or a Series
        lists an item twice; ``data`` holds only sums over items (e.g. from
        :func:`summarize_dask`), not per-item counts.

    See Also
    --------
    spa : The same agreement over all items.
    item_agreement : The agreement of each item.

    References
    ----------
    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5),
    378-382.

    Examples
    --------
    The classroom data, items 1-5 against the rest:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> by_part = ie.group_agreement(data, lambda item: "first" if int(item.split("_")[1]) <= 5 else "rest")
    >>> by_part.round(4)  # first: (1/3 + 1/3 + 1 + 1/3 + 1) / 5
    group
    first    0.6
    rest     0.8
    Name: agreement, dtype: float64
    >>> one = ie.group_agreement(data, lambda item: "all")  # one group holding every item: spa
    >>> round(float(one["all"]), 4), round(ie.spa(data, weights="flat"), 4)
    (0.7333, 0.7333)
    """
    data = as_annotations(data)
    fill = check_replacement(replace_undefined_by)
    code, names = _group_of_items(data.items, groups)
    c = data.counts
    n = int_bincount(c.item, c.count, c.n_items)
    n_values, col = distinct_values(n)  # only the numbers of annotations that occur
    size = n_values.size
    ok = n >= 2
    # the integer tables behind spa (see ExactSums), per group: items and agreeing ordered pairs by n_i
    key = code * size + col
    cells = len(names) * size
    items_by_n = int_bincount(key, np.ones_like(n), cells).reshape(len(names), size).astype(float)
    agree = int_bincount(c.item, c.count * c.count, c.n_items) - n
    agree_by_n = int_bincount(key[ok], agree[ok], cells).reshape(len(names), size)
    m = n_values.astype(float)
    p_by_n = agree_by_n / np.where(m >= 2, m * (m - 1.0), np.inf)
    k = spa_weight_table(m, weights, data.n_categories, data.count_sums.class_distribution())
    values = safe_ratio(np.sum(k * p_by_n, axis=-1), np.sum(k * items_by_n, axis=-1), fill)
    return pd.Series(values, index=names, name="agreement")


@validate()
def annotator_agreement(data: Any, *, replace_undefined_by: float = np.nan) -> pd.DataFrame:
    r"""Each annotator's agreement with the pooled other annotators, raw and chance-corrected.

    For annotator a, every annotation of a forms a pair with each other
    annotation of the same item; the pairs are cross-tabulated by a's label c
    and the other's label k:

    .. math::

        T_a[c, k] = \sum_{i \in J_a} [x_{ai} = c]\,(n_{ik} - [k = c]),\qquad
        N_a = \sum_{c,k} T_a[c, k] = \sum_{i \in J_a} (n_i - 1)

    .. math::

        A_a = \frac{\operatorname{tr} T_a}{N_a},\qquad
        E_a = \frac{\sum_c T_a[c, \cdot]\, T_a[\cdot, c]}{N_a^2},\qquad
        \kappa_a = \frac{A_a - E_a}{1 - E_a}

    where :math:`J_a` are the items a labelled, :math:`x_{ai}` a's label and
    :math:`n_{ik}` the annotations of category k on item i. :math:`\kappa_a` is
    Cohen's kappa (Cohen 1960, *Educ. Psychol. Meas.* 20:37-46) of the pair
    table :math:`T_a`, "a" against "someone else": each side keeps its own
    label distribution, a's labels weighted by how many partners each has, and
    the others' labels on a's items. It equals
    ``sklearn.metrics.cohen_kappa_score`` on the list of pairs (a's label, the
    other's label). Categories agree only when equal, whatever the level.

    Pooling gives item i the weight :math:`n_i - 1` (a's partners on it):
    :math:`A_a = \sum_i (n_{i x_{ai}} - 1) / \sum_i (n_i - 1)`, the share of
    the other annotators who agree with a, averaged over a's items with
    weights :math:`n_i - 1`. Every ordered pair of annotations of an item is
    counted once, by the annotator of its first member, so the
    :math:`N_a`-weighted mean of :math:`A_a` over annotators is the pooled
    share of agreeing pairs,

    .. math::

        \frac{\sum_a \operatorname{tr} T_a}{\sum_a N_a}
        = \frac{\sum_i \sum_c n_{ic}(n_{ic} - 1)}{\sum_i n_i (n_i - 1)},

    which is :func:`spa` with ``weights='edges'`` (not ``annotations_m1``,
    which divides each item's pairs by :math:`n_i`). Label Studio Enterprise
    shows a per-annotator agreement column of this kind (its own scoring of a
    pair may differ).

    Parameters
    ----------
    data : Annotations or convertible (see :func:`as_annotations`)
        With annotator identities (not a count table) and the annotations
        themselves (not only summed statistics).
    replace_undefined_by : float, default nan
        ``agreement``, ``expected`` and ``kappa`` of an annotator with no pair
        (no item shared with anyone), and ``kappa`` when :math:`E_a = 1` (all of
        a's pairs are one category on both sides, 0/0). Filled without a
        warning, as in :func:`item_agreement`.

    Returns
    -------
    pandas.DataFrame
        Indexed by annotator name (index name ``annotator``), every annotator
        of the data: ``n_items`` (a's items with :math:`n_i \ge 2`),
        ``n_pairs`` (:math:`N_a`), ``agreement`` (:math:`A_a`), ``expected``
        (:math:`E_a`), ``kappa`` (:math:`\kappa_a`).

    Raises
    ------
    InvalidParameterError
        An option is not one it accepts (the message says what was expected and what came).
    TypeError
        ``data`` is not :class:`Annotations`, a pandas DataFrame or a 2-D
        array-like of labels.
    ValueError
        ``data`` has no annotators (a count table) or holds only summed
        statistics (e.g. from :func:`summarize_dask`).

    See Also
    --------
    cohen_kappa_matrix : Kappa of every pair of annotators.
    spa : The pooled agreement (``weights='edges'``).

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological Measurement
    20(1), 37-46.

    Nørregaard, J., & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv preprint.

    Examples
    --------
    In the classroom data each annotator has two partners on each of the 15
    items, 30 pairs; 24 of annotator_0's pairs agree:

    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> ie.annotator_agreement(data).round(3)  # doctest: +NORMALIZE_WHITESPACE
                 n_items  n_pairs  agreement  expected  kappa
    annotator
    annotator_0       15       30        0.8     0.327  0.703
    annotator_1       15       30        0.7     0.331  0.551
    annotator_2       15       30        0.7     0.320  0.559
    """
    data = as_annotations(data)
    data.require_annotators("annotator agreement")
    if data.label is None:
        raise ValueError("annotator agreement needs the annotations themselves, not only statistics")
    fill = check_replacement(replace_undefined_by)
    c = data.counts
    n_ann, n_cat = data.n_annotators, max(data.n_categories, 1)
    item, ann, lab = data.item, data.annotator, data.label
    # n_{i, x_ai} for every annotation: the count table's entries are sorted by (item, category)
    entry = np.searchsorted(c.item * n_cat + c.category, item * n_cat + lab)
    same = c.count[entry]
    n_i = c.n_i.astype(np.int64)[item]
    trace = int_bincount(ann, same - 1, n_ann)
    rows = int_bincount(ann * n_cat + lab, n_i - 1, n_ann * n_cat).reshape(n_ann, n_cat)
    # column sums: sum over a's items of n_ik, minus a's own labels
    who = sp.csr_matrix((np.ones(item.size, dtype=np.int64), (ann, item)), shape=(n_ann, data.n_items))
    cols = (who @ c.to_sparse()).toarray().astype(np.int64) - data.annotator_stats.counts
    n_pairs = rows.sum(axis=1)
    cross = np.sum(rows * cols, axis=1).astype(float)
    total = n_pairs.astype(float)
    agreement = safe_ratio(trace, total, fill)
    expected = safe_ratio(cross, total * total, fill)
    # (A - E) / (1 - E) = (tr N - S) / (N^2 - S) in whole numbers: the denominator is exactly 0 when E = 1 or N = 0
    kappa = safe_ratio(trace * total - cross, total * total - cross, fill)
    n_items = np.bincount(ann[n_i >= 2], minlength=n_ann)
    return pd.DataFrame(
        {
            "n_items": n_items.astype(np.int64),
            "n_pairs": n_pairs.astype(np.int64),
            "agreement": agreement,
            "expected": expected,
            "kappa": kappa,
        },
        index=pd.Index(data.annotators, name="annotator"),
    )
