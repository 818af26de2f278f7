"""The sufficient statistics of every count-based coefficient as SQL: written once, run by DuckDB and PostgreSQL.

Every coefficient that :meth:`Annotations.from_stats` serves reduces to GROUP BY counts over the annotations
(one row per item, annotator and label, coded as integers). The statements below compute them in plain SQL
(``GROUP BY``, equi-joins on the item, ``%`` and ``CASE``: no dialect's extensions), so the same
text runs next to the data in DuckDB, PostgreSQL, or any warehouse with temporary tables; Python only decides
what each *distinct* label and annotator means (the reading rules of the in-memory reader) and finishes the sums
(:func:`iaa_engine.engines._duckdb.finish_statistics`).

The steps:

1. :data:`DISTINCT_VALUES`: the distinct (annotator, label) pairs of the source. Python reads each distinct label
   with the in-memory rules (blank is missing, ``na_values``, numbers where the level needs them) and each
   distinct annotator id (surrounding whitespace trimmed, sorted), and uploads two small tables
   ``iaa_labels(value, code)`` and ``iaa_annotators(value, code)``.
2. :data:`ANNOTATIONS` (or :data:`ANNOTATIONS_DEDUPLICATED` for ``duplicates='first'``/``'last'``): the coded
   annotations ``iaa_annotations(item, v)`` with ``v = a·C + l`` (annotator ``a = v - v % C``, label
   ``l = v % C``); a row whose label is missing has no code and drops out of the join.
3. :data:`LABEL_COUNTS`, :data:`ITEM_COUNTS`: ``n_ic`` per item and category, with the item's number of
   annotations ``n_i``.
4. :data:`BY_SIZE`, :data:`COINCIDENCES`, :data:`ANNOTATOR_COUNTS`, :data:`PAIRS`: the results, each small: sums by
   the number of annotations of an item (``n``) and category, ``sum n_ic n_ik`` by ``n`` and category pair, counts
   per annotator and category, and the counts of every pair of annotators' labels on shared items (each unordered
   pair once, ``a < b``).

Placeholders (``str.format``): ``{source}`` a relation (a table name or a parenthesised query), ``{item}``,
``{annotator}``, ``{label}`` quoted column names, ``{item_key}`` the item expression (text ids trimmed, blank
as NULL), ``{n_categories}``, ``{n_codes}`` (A·C), ``{order}`` the table order whose first row the duplicates rule
keeps. Every integer result is cast to BIGINT (PostgreSQL's ``SUM`` of BIGINT is NUMERIC).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from iaa_engine.data._errors import InputError
from iaa_engine.data._model import Annotations, _encode_ids, _plain, encode_labels, is_missing_mask
from iaa_engine.stats._sums import ExactSums
from iaa_engine.stats._tables import AnnotatorStats, PairStats

__all__ = [
    "ANNOTATIONS",
    "ANNOTATIONS_DEDUPLICATED",
    "ANNOTATOR_COUNTS",
    "BY_SIZE",
    "COINCIDENCES",
    "DISTINCT_VALUES",
    "DUPLICATES",
    "Engine",
    "ITEM_COUNTS",
    "LABEL_COUNTS",
    "MISSING_ITEMS",
    "PAIRS",
    "TABLES",
    "quote",
    "summarize_sql",
]

#: The temporary tables the steps create (dropped after a run).
TABLES = ("iaa_annotations", "iaa_label_counts", "iaa_item_counts")

DISTINCT_VALUES = """
SELECT DISTINCT s.{annotator} AS annotator, s.{label} AS label
FROM {source} AS s
"""

ANNOTATIONS = """
CREATE TEMPORARY TABLE iaa_annotations AS
SELECT {item_key} AS item, m.code * {n_categories} + x.code AS v
FROM {source} AS s
JOIN iaa_labels AS x ON s.{label} = x.value
JOIN iaa_annotators AS m ON s.{annotator} = m.value
"""

ANNOTATIONS_DEDUPLICATED = """
CREATE TEMPORARY TABLE iaa_annotations AS
SELECT item, v FROM (
  SELECT {item_key} AS item, m.code * {n_categories} + x.code AS v,
         ROW_NUMBER() OVER (PARTITION BY {item_key}, m.code ORDER BY {order}) AS rank_in_pair
  FROM {source} AS s
  JOIN iaa_labels AS x ON s.{label} = x.value
  JOIN iaa_annotators AS m ON s.{annotator} = m.value
) AS t
WHERE rank_in_pair = 1
"""

MISSING_ITEMS = """
SELECT COUNT(*) AS n FROM iaa_annotations WHERE item IS NULL
"""

LABEL_COUNTS = """
CREATE TEMPORARY TABLE iaa_label_counts AS
SELECT item, v % {n_categories} AS l, COUNT(*) AS m FROM iaa_annotations GROUP BY item, v % {n_categories}
"""

ITEM_COUNTS = """
CREATE TEMPORARY TABLE iaa_item_counts AS
SELECT c.item AS item, c.l AS l, c.m AS m, t.n AS n
FROM iaa_label_counts AS c
JOIN (SELECT item, CAST(SUM(m) AS BIGINT) AS n FROM iaa_label_counts GROUP BY item) AS t ON c.item = t.item
"""

BY_SIZE = """
SELECT n, l, CAST(SUM(m) AS BIGINT) AS annotations, CAST(SUM(CASE WHEN m = n THEN 1 ELSE 0 END) AS BIGINT) AS unanimous
FROM iaa_item_counts
GROUP BY n, l
"""

COINCIDENCES = """
SELECT x.n AS n, x.l AS c, y.l AS k, CAST(SUM(x.m * y.m) AS BIGINT) AS products
FROM iaa_item_counts AS x
JOIN iaa_item_counts AS y ON x.item = y.item
WHERE x.n >= 2
GROUP BY x.n, x.l, y.l
"""

ANNOTATOR_COUNTS = """
SELECT v, COUNT(*) AS count FROM iaa_annotations GROUP BY v
"""

PAIRS = """
SELECT CAST(x.v AS BIGINT) * {n_codes} + y.v AS pair, COUNT(*) AS count
FROM iaa_annotations AS x
JOIN iaa_annotations AS y ON x.item = y.item AND x.v - x.v % {n_categories} < y.v - y.v % {n_categories}
GROUP BY CAST(x.v AS BIGINT) * {n_codes} + y.v
"""

DUPLICATES = """
SELECT item, a, COUNT(*) OVER () AS pairs FROM (
  SELECT item, v - v % {n_categories} AS a FROM iaa_annotations
  GROUP BY item, v - v % {n_categories}
  HAVING COUNT(*) > 1
) AS t
ORDER BY item, a
LIMIT 1
"""


def quote(name: str) -> str:
    """An SQL identifier in double quotes (inner quotes doubled): any column name, spaces and case kept."""
    return '"' + str(name).replace('"', '""') + '"'


# --------------------------------------------------------------------------- the driver: SQL counts, Python finishes

#: Characters that surround a text id without being part of it: what Arrow's ``utf8_trim_whitespace`` (the in-memory
#: reader) removes, i.e. Python's ``str.isspace`` (Unicode Zs and the bidirectional classes WS, B, S).
WHITESPACE = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())


def text_literal(text: str) -> str:
    """An SQL string literal (inner quotes doubled)."""
    return "'" + text.replace("'", "''") + "'"


def item_key(column: str, is_text: bool, dialect: str = "standard") -> str:
    """The item expression: a text id trimmed as the in-memory reader trims it, a blank one NULL; typed ids as typed.

    ``dialect='duckdb'`` trims only the ids that start or end with whitespace (a regular expression finds them):
    the same values, several times faster than ``TRIM`` of every id with a set of 29 characters.
    """
    if not is_text:
        return f"s.{column}"
    trimmed = f"NULLIF(TRIM(BOTH {text_literal(WHITESPACE)} FROM s.{column}), '')"
    if dialect != "duckdb":
        return trimmed
    chars = "[" + "".join(f"\\x{{{ord(ch):x}}}" for ch in WHITESPACE) + "]"
    return f"CASE WHEN regexp_matches(s.{column}, '^{chars}|{chars}$') THEN {trimmed} ELSE NULLIF(s.{column}, '') END"


@dataclass
class Engine:
    """What :func:`summarize_sql` needs from a database: run a statement, fetch a result as columns (numpy or Arrow
    arrays keyed by the result's column names), and upload a small two-column table ``(value, code)``; ``locate``
    names where a row matching an SQL condition on the source is (for messages), or returns ``None``; ``release``
    frees the database's memory once every result is fetched."""

    execute: Callable[[str], None]
    fetch: Callable[[str], dict[str, Any]]
    upload: Callable[[str, Any, np.ndarray], None]
    locate: Callable[[str], str | None] = lambda condition: None
    release: Callable[[], None] = lambda: None


def summarize_sql(
    engine: Engine,
    *,
    source: str,
    item: str,
    annotator: str,
    label: str,
    item_is_text: bool,
    level: str,
    categories: Sequence[Any] | None,
    duplicates: str,
    na_values: Sequence[str] = (),
    order: str | None = None,
    dialect: str = "standard",
    progress: Callable[[str], None] | None = None,
) -> Annotations:
    """Statistics-only :class:`Annotations` of the annotations in ``source``, counted by the SQL of this module.

    ``source`` is a relation of the database (a table, or a parenthesised query or table function); ``item``,
    ``annotator``, ``label`` its column names (unquoted). ``order`` is the SQL order of the rows (needed for
    ``duplicates='first'``/``'last'``); ``dialect`` 'duckdb' lets :func:`item_key` use DuckDB's regular
    expressions. The result equals :meth:`Annotations.from_long` on the same rows for every
    metric that reads the statistics (exactly: the sums are integers until :meth:`ExactSums.finish`).
    """
    step = progress or (lambda name: None)
    q = {"source": source, "item": quote(item), "annotator": quote(annotator), "label": quote(label)}
    step("distinct labels and annotators")
    distinct = engine.fetch(DISTINCT_VALUES.format(**q))
    keep, label_codes, cats = encode_labels(
        _values(distinct["label"]), level, categories, na_values, where=lambda j: "in the data"
    )
    if label_codes.size == 0:
        raise ValueError("the data holds no annotations (every label is missing or the table is empty)")
    raw_labels = _values(distinct["label"])
    label_values, first = _unique_rows(raw_labels, keep)
    raw_annotators = _take(_values(distinct["annotator"]), np.flatnonzero(keep))
    missing = is_missing_mask(_as_numpy(raw_annotators))
    if missing.any():
        where = engine.locate(f"s.{q['annotator']} IS NULL OR TRIM(CAST(s.{q['annotator']} AS VARCHAR)) = ''")
        raise ValueError(
            f"the annotator column has a blank or missing value{_at(where)}; every annotation needs an annotator"
        )
    ann_values, _ = _unique_values(raw_annotators)
    ann_codes, annotators = _encode_ids(ann_values, "annotator")
    n_ann, n_cat = len(annotators), max(len(cats), 1)
    code_type = np.int32 if n_ann * n_cat < 2**31 else np.int64  # v = a·C + l in 4 bytes a row while it fits
    engine.upload("iaa_labels", label_values, np.asarray(label_codes)[first].astype(code_type))
    engine.upload("iaa_annotators", ann_values, np.asarray(ann_codes).astype(code_type))
    Annotations(np.zeros(0), np.zeros(0), np.zeros(0), items=[], annotators=annotators, categories=cats, level=level)
    fmt = dict(q, item_key=item_key(q["item"], item_is_text, dialect), n_categories=n_cat, n_codes=n_ann * n_cat)
    step("coding the annotations")
    if duplicates == "error":
        engine.execute(ANNOTATIONS.format(**fmt))
    else:
        direction = "ASC" if duplicates == "first" else "DESC"
        by = ", ".join(f"{part.strip()} {direction}" for part in str(order).split(","))
        engine.execute(ANNOTATIONS_DEDUPLICATED.format(**fmt, order=by))
    if int(engine.fetch(MISSING_ITEMS)["n"][0]):
        where = engine.locate(f"({fmt['item_key']}) IS NULL")
        raise ValueError(f"the item column has a blank or missing value{_at(where)}; every annotation needs an item")
    step("counts per item")
    engine.execute(LABEL_COUNTS.format(**fmt))
    engine.execute(ITEM_COUNTS)
    engine.execute("DROP TABLE iaa_label_counts")
    by_size = engine.fetch(BY_SIZE)
    step("coincidences")
    coinc = engine.fetch(COINCIDENCES)
    engine.execute("DROP TABLE iaa_item_counts")  # memory for the largest step
    step("annotator counts")
    per_ann = engine.fetch(ANNOTATOR_COUNTS)
    step("annotator pairs")
    pairs = engine.fetch(PAIRS.format(**fmt))
    dup = engine.fetch(DUPLICATES.format(**fmt)) if _has_duplicates(by_size, pairs) else None
    engine.release()  # the database's memory back before the tables are built here
    sums, n_items, n_annotations = exact_sums(by_size, coinc, n_cat)
    ann_stats = AnnotatorStats(
        np.bincount(_ints(per_ann["v"]), weights=_ints(per_ann["count"]), minlength=n_ann * n_cat)
        .astype(np.int64)
        .reshape(n_ann, n_cat)
    )
    pair_stats = pair_table(_ints(pairs["pair"]), _ints(pairs["count"]), n_ann, n_cat, ann_stats.n_a)
    if dup is not None:
        assert dup is not None  # an annotator twice on one item: their two annotations formed no pair
        name = annotators[int(_ints(dup["a"])[0]) // n_cat]
        head = (
            f"{int(_ints(dup['pairs'])[0])} (item, annotator) pair(s) are labelled more than once, e.g. annotator "
            f"{_plain(name)!r} on item {_plain(_as_numpy(_values(dup['item']))[0])!r}. Each annotator may label an "
            "item once; "
        )
        raise InputError(
            head + "pass duplicates='first' or duplicates='last' to keep one of them",
            cli=head + "pass --duplicates first or --duplicates last to keep one of them",
        )
    return Annotations.from_stats(
        items=n_items,
        categories=cats,
        level=level,
        annotators=annotators,
        annotator_stats=ann_stats,
        pair_stats=pair_stats,
        count_sums=sums.finish(),
        n_annotations=n_annotations,
    )


def _has_duplicates(by_size: dict[str, Any], pairs: dict[str, Any]) -> bool:
    """Whether some annotator labelled an item twice: each item of n annotations has n(n-1)/2 pairs of distinct
    annotators exactly when its n annotators are distinct, and two annotations by one annotator form no pair."""
    n = _ints(by_size["n"])
    expected = int(np.sum(_ints(by_size["annotations"]) * (n - 1))) // 2  # sum over items of n(n-1)/2
    return int(_ints(pairs["count"]).sum()) != expected


def exact_sums(by_size: dict[str, Any], coinc: dict[str, Any], n_cat: int) -> tuple[ExactSums, int, int]:
    """:class:`ExactSums` (and the numbers of items and annotations) from the :data:`BY_SIZE` and
    :data:`COINCIDENCES` rows: the same integers as :meth:`ExactSums.from_counts` on the per-item counts."""
    n, lab = _ints(by_size["n"]), _ints(by_size["l"])
    n_values, row = np.unique(n, return_inverse=True)
    size = n_values.size
    counts_by_n = np.zeros((size, n_cat), dtype=np.int64)
    np.add.at(counts_by_n, (row, lab), _ints(by_size["annotations"]))
    unanimous = np.zeros(size, dtype=np.int64)
    np.add.at(unanimous, row, _ints(by_size["unanimous"]))
    unanimous[n_values < 2] = 0
    items_by_n = counts_by_n.sum(axis=1) // np.maximum(n_values, 1)  # each item of size n adds n annotations
    cn, c, k = _ints(coinc["n"]), _ints(coinc["c"]), _ints(coinc["k"])
    val = _ints(coinc["products"]).copy()
    diag = c == k  # sum n_ic n_ik - [c = k] n_ic: the diagonal loses the item's own annotations
    val[diag] -= counts_by_n[np.searchsorted(n_values, cn[diag]), c[diag]]
    agree = np.zeros(size, dtype=np.int64)
    np.add.at(agree, np.searchsorted(n_values, cn[diag]), val[diag])
    nz = val != 0
    order = np.lexsort((c[nz] * n_cat + k[nz], cn[nz]))
    sums = ExactSums(
        n_values=n_values.astype(np.int64),
        items_by_n=items_by_n.astype(np.int64),
        agree_by_n=agree,
        unanimous_by_n=unanimous,
        counts_by_n=counts_by_n,
        coinc_n=cn[nz][order],
        coinc_key=(c[nz] * n_cat + k[nz])[order],
        coinc_val=val[nz][order],
        n_categories=n_cat,
    )
    return sums, int(items_by_n.sum()), int(counts_by_n.sum())


def pair_table(pair: np.ndarray, count: np.ndarray, n_ann: int, n_cat: int, per_annotator: np.ndarray) -> PairStats:
    """:class:`PairStats` (both orders of every pair, entries sorted as :meth:`PairStats.from_cells` sorts them)
    from the :data:`PAIRS` rows, each unordered pair of annotators once."""
    ac = n_ann * n_cat
    row, col = np.divmod(pair, ac)
    keys = np.concatenate([pair, col * ac + row])  # both orders; no key twice (a < b in one order, a > b in the other)
    del row, col
    order = np.argsort(keys)
    keys = keys[order]
    counts = np.concatenate([count, count])[order].astype(np.int64)
    del order
    row, col = np.divmod(keys, ac)
    del keys
    a, k = np.divmod(row, n_cat)
    del row
    b, l = np.divmod(col, n_cat)  # noqa: E741 - the label of annotator b, as in PairStats
    # every entry pairs two distinct annotators (a < b in SQL): PairStats directly, without a filtering copy
    return PairStats(a, k, b, l, counts, int(n_ann), int(n_cat), np.asarray(per_annotator))


def _at(where: str | None) -> str:
    return f" ({where})" if where else ""


def _values(column: Any) -> Any:
    """A fetched column as an Arrow array (one chunk) or a numpy array."""
    if hasattr(column, "combine_chunks"):
        return column.combine_chunks()
    return column


def _as_numpy(values: Any) -> np.ndarray:
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        return (
            np.asarray(values.to_pylist(), dtype=object) if _is_text(values) else values.to_numpy(zero_copy_only=False)
        )
    return np.asarray(values)


def _is_text(values: Any) -> bool:
    import pyarrow as pa

    t = values.type
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _ints(values: Any) -> np.ndarray:
    return np.asarray(_as_numpy(_values(values)), dtype=np.int64)


def _unique_rows(values: Any, keep: np.ndarray) -> tuple[Any, np.ndarray]:
    """The distinct kept values (the fetched rows repeat a label once per annotator) and the position of each among
    the kept rows."""
    idx = np.flatnonzero(keep)
    _, first = np.unique(pd.factorize(_as_numpy(values)[idx], use_na_sentinel=False)[0], return_index=True)
    return _take(values, idx[first]), first


def _unique_values(values: Any) -> tuple[Any, np.ndarray]:
    codes = pd.factorize(_as_numpy(values), use_na_sentinel=False)[0]
    _, first = np.unique(codes, return_index=True)
    return _take(values, first), first


def _take(values: Any, idx: np.ndarray) -> Any:
    if hasattr(values, "take") and not isinstance(values, np.ndarray):
        import pyarrow as pa

        return values.take(pa.array(idx, type=pa.int64()))
    return np.asarray(values)[idx]
