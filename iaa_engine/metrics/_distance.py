"""Distances between labels for Krippendorff's alpha with partial credit.

A distance table is a dense C × C array of :math:`d(c, k) \\in [0, 1]` over the
distinct labels that enter alpha, computed once. Set distances (Jaccard, MASI)
read each label as a set; the Levenshtein distance compares strings; any
callable ``d(a, b) -> float`` is evaluated on every pair of labels and checked.

How a label becomes a set (:func:`label_set`):

* a tuple, list, set or frozenset is the set of its elements; order and
  repetition inside the label do not matter, ``()`` is the empty set;
* anything else (a string, a number, ...) is the one-element set ``{label}``,
  so that single-choice labels are compared exactly (Jaccard = MASI = nominal);
* elements are compared whole: a tuple of strings ``("A", "B")`` is the set of
  the two strings {A, B} (a multi-select Choices answer), a tuple of tuples
  ``(("Animals", "Mammals"), ("Plants",))`` is a set of two taxonomy paths. One
  taxonomy path must therefore be given as a one-path set,
  ``(("Animals", "Mammals"),)``: labels that mix tuples of strings with
  tuples of tuples are refused as ambiguous.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from iaa_engine.base._policy import check_choice

__all__ = ["ALPHA_DISTANCES", "MAX_DISTANCE_LABELS", "check_distance", "distance_name", "distance_table", "label_set"]

#: The named distances of ``krippendorff_alpha(..., distance=...)``.
ALPHA_DISTANCES = ("jaccard", "masi", "levenshtein")

#: Most distinct labels a distance table is built for (a dense C × C table; C² distance evaluations).
MAX_DISTANCE_LABELS = 3000

#: Slack for a callable's values (symmetry, zero diagonal, range), for distances computed in floating point.
_SLACK = 1e-12

#: Levenshtein: most bit-vector steps (pairs × blocks of 64 characters of the shorter × longer length) before refusing.
_LEV_WORK = 1e9

Distance = str | Callable[[Any, Any], float]


def check_distance(distance: object) -> Distance:
    """Return ``distance`` if it is one of :data:`ALPHA_DISTANCES` or a callable; raise the project's errors."""
    if isinstance(distance, str):
        return check_choice("distance", distance, ALPHA_DISTANCES)
    if callable(distance):
        return distance
    names = ", ".join(repr(a) for a in ALPHA_DISTANCES)
    raise TypeError(f"distance must be one of {names} or a callable d(a, b) -> float; got {distance!r}")


def distance_name(distance: Distance) -> str:
    """A short name for results (``'masi'``, or the callable's ``__name__``)."""
    if isinstance(distance, str):
        return distance
    return getattr(distance, "__name__", type(distance).__name__)


def _freeze(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, (set, frozenset)):
        return frozenset(_freeze(x) for x in v)
    return v


def label_set(label: Any) -> frozenset:
    """The set a label stands for: a collection is the set of its elements, anything else ``{label}``."""
    if isinstance(label, (tuple, list, set, frozenset)):
        return frozenset(_freeze(x) for x in label)
    return frozenset((label,))


def _check_set_shapes(labels: Sequence[Any]) -> None:
    """Refuse labels that mix tuples of strings with tuples of tuples (a bare taxonomy path among sets of paths)."""
    flat = nested = None
    for lab in labels:
        if isinstance(lab, (tuple, list)) and lab:
            inner = [isinstance(x, (tuple, list)) for x in lab]
            if all(inner):
                nested = nested if nested is not None else lab
            elif not any(inner):
                flat = flat if flat is not None else lab
        if flat is not None and nested is not None:
            raise ValueError(
                f"the labels mix tuples of values, e.g. {flat!r}, with tuples of tuples, e.g. {nested!r}: a tuple of "
                "strings is read as a set of strings, a tuple of tuples as a set of paths, so this mix is ambiguous. "
                f"If {flat!r} is one taxonomy path, give it as a one-path set ({tuple(flat)!r},)"
            )


def _set_table(labels: Sequence[Any], kind: str) -> np.ndarray:
    """Jaccard or MASI distances from the label × element incidence matrix (one sparse product)."""
    _check_set_shapes(labels)
    sets = [label_set(lab) for lab in labels]
    index: dict[Any, int] = {}
    cols = [index.setdefault(e, len(index)) for s in sets for e in s]
    sizes = np.array([len(s) for s in sets], dtype=np.int64)
    rows = np.repeat(np.arange(len(sets)), sizes)
    import scipy.sparse as sp  # imported when needed: a plain report never loads SciPy

    b = sp.csr_matrix(
        (np.ones(len(cols), dtype=np.int64), (rows, np.asarray(cols, dtype=np.int64))),
        shape=(len(sets), max(len(index), 1)),
    )
    inter = (b @ b.T).toarray().astype(float)  # |A ∩ B|
    size_a, size_b = sizes[:, None].astype(float), sizes[None, :].astype(float)
    union = size_a + size_b - inter
    # two empty sets are the same label: distance 0 (the ratio is 0/0)
    sim = np.divide(inter, union, out=np.ones_like(inter), where=union > 0)
    del union
    if kind == "masi":  # Passonneau's monotonicity weight M
        m = np.where(inter > 0, 1.0 / 3.0, 0.0)
        m[inter == np.minimum(size_a, size_b)] = 2.0 / 3.0  # one contains the other
        m[(inter == size_a) & (inter == size_b)] = 1.0  # equal sets
        sim *= m
    table = 1.0 - sim
    np.fill_diagonal(table, 0.0)
    return table


def _levenshtein_table(labels: Sequence[Any]) -> np.ndarray:
    """Normalised edit distances ``lev(a, b) / max(|a|, |b|)`` (0 for two empty strings) of every pair of labels.

    The edit distances, in characters (Unicode code points), come from :func:`rapidfuzz.process.cdist` with
    ``Levenshtein.distance`` (bit-parallel, in C++, each pair once as the scorer is symmetric); the division by the
    longer length is done here.
    """
    for lab in labels:
        if not isinstance(lab, str):
            raise ValueError(
                f"distance='levenshtein' compares strings; got the label {lab!r} ({type(lab).__name__}). "
                "Use 'jaccard' or 'masi' for set-valued labels"
            )
    n = len(labels)
    lengths = np.array([len(s) for s in labels], dtype=np.int64)
    # bit-vector steps of every pair: blocks of 64 characters of the shorter string × length of the longer one
    ordered = np.sort(lengths)
    shorter_blocks = np.concatenate(([0], np.cumsum((ordered[:-1] + 63) // 64)))[:n]
    work = float(np.sum(shorter_blocks * ordered))
    if work > _LEV_WORK:
        raise ValueError(
            f"distance='levenshtein' on these {n} distinct labels needs about {work:.2g} bit-vector steps "
            f"(their lengths reach {int(lengths.max())} characters), more than the limit of {_LEV_WORK:.0e}. "
            "Compare shorter texts, or fewer distinct ones"
        )
    try:
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cdist
    except ImportError:  # a dependency everywhere but Pyodide (xlwings Lite), which does not provide it
        raise ValueError(
            "distance='levenshtein' needs the rapidfuzz package, which is not installed here (Pyodide has none); "
            "use distance='jaccard', 'masi' or a callable d(a, b)"
        ) from None

    lev = cdist(labels, labels, scorer=Levenshtein.distance, processor=None, dtype=np.int32)
    longest = np.maximum.outer(lengths, lengths)
    return np.divide(lev, longest, out=np.zeros((n, n)), where=longest > 0)


def _callable_table(labels: Sequence[Any], fn: Callable[[Any, Any], float]) -> np.ndarray:
    """Evaluate ``fn`` on every ordered pair and check it is a distance in [0, 1], zero on the diagonal, symmetric."""
    n = len(labels)
    table: np.ndarray = np.empty((n, n))
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            v = fn(a, b)
            if not isinstance(v, (int, float, np.integer, np.floating, np.bool_)):
                raise TypeError(f"the distance must return a number; d({a!r}, {b!r}) returned {v!r}")
            v = float(v)
            if not (-_SLACK <= v <= 1.0 + _SLACK):
                raise ValueError(f"the distance must lie in [0, 1]; d({a!r}, {b!r}) = {v!r}")
            if i == j and abs(v) > _SLACK:
                raise ValueError(f"the distance from a label to itself must be 0; d({a!r}, {a!r}) = {v!r}")
            table[i, j] = v
    asym = np.abs(table - table.T)
    if n and asym.max() > _SLACK:
        r, c = (int(x) for x in np.unravel_index(int(np.argmax(asym)), asym.shape))
        raise ValueError(
            f"the distance must be symmetric; d({labels[r]!r}, {labels[c]!r}) = {float(table[r, c])!r} but "
            f"d({labels[c]!r}, {labels[r]!r}) = {float(table[c, r])!r}"
        )
    table = np.clip((table + table.T) / 2.0, 0.0, 1.0)
    np.fill_diagonal(table, 0.0)
    return table


def distance_table(labels: Sequence[Any], distance: Distance) -> np.ndarray:
    """The dense ``len(labels)`` × ``len(labels)`` table ``d(labels[c], labels[k])``.

    Raises
    ------
    ValueError
        More than :data:`MAX_DISTANCE_LABELS` labels; labels the distance cannot
        compare; a callable that is not a distance in [0, 1].
    """
    distance = check_distance(distance)
    labels = list(labels)
    if len(labels) > MAX_DISTANCE_LABELS:
        raise ValueError(
            f"distance={distance_name(distance)!r} needs a table of distances between every two distinct labels; "
            f"got {len(labels)} distinct labels on items with two or more annotations, more than the limit of "
            f"{MAX_DISTANCE_LABELS}. Normalise or group the labels first"
        )
    if distance in ("jaccard", "masi"):
        return _set_table(labels, distance)
    if distance == "levenshtein":
        return _levenshtein_table(labels)
    return _callable_table(labels, cast(Callable[[Any, Any], float], distance))
