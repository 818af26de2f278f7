"""Reading labels and ids without pyarrow (Pyodide releases without it, where the Excel add-in may run) gives the
same codes, categories, errors and coefficients as with it.

pyarrow's absence is simulated in-process: ``sys.modules["pyarrow"] = None`` makes ``import pyarrow`` raise
ImportError, which is what ``iaa_engine.data._encode`` meets on such a Pyodide (it looks pyarrow up on each call).
Each case runs twice, with and without, and the results are compared exactly.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.data import _encode

pytest.importorskip("pyarrow")  # the reference path


class NoArrow:
    """Context manager: pyarrow cannot be imported inside it."""

    names = ("pyarrow", "pyarrow.compute")

    def __enter__(self):
        self.saved = {n: sys.modules.get(n) for n in self.names}
        for n in self.names:
            sys.modules[n] = None  # type: ignore[assignment]
        return self

    def __exit__(self, *exc):
        for n, mod in self.saved.items():
            if mod is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = mod


def both(fn, *args, **kw):
    """``fn`` with and without pyarrow: (result or exception text, warnings) each."""

    def run():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = fn(*args, **kw)
            except (ValueError, TypeError) as exc:
                out = f"{type(exc).__name__}: {exc}"
        return out, sorted(f"{w.category.__name__}: {w.message}" for w in caught)

    with_arrow = run()
    with NoArrow():
        assert _encode._pa() is None
        without = run()
    assert _encode._pa() is not None
    return with_arrow, without


def same(a, b) -> None:
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    elif isinstance(a, pd.Index):
        assert isinstance(b, pd.Index) and list(a) == list(b) and all(type(x) is type(y) for x, y in zip(a, b))
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b)
    else:
        assert a == b


LABELS = [
    np.array(["pos", " neg", "pos ", None, "", "  ", "neu", "NA", "pos", "\u00a0neg\u2003"], dtype=object),
    np.array(["b", "a", "é", "Z", "a", np.nan, "ä", "B"], dtype=object),  # code point order
    np.array(["1", "2", " 3", "2", None, "10"], dtype=object),
    np.array(["x", "y"]),  # a numpy unicode array
    pd.Series(["x", None, "y", "x"], dtype="string[python]"),
    pd.Series(["1.5", "2", None, "-3e2"], dtype=object),
    np.array([1, 2, 3], dtype=object),  # numbers: not text (the typed path)
    np.array([(1, 2), "a"], dtype=object),  # mixed: not text
]


@pytest.mark.parametrize("values", LABELS, ids=range(len(LABELS)))
@pytest.mark.parametrize(
    "options",
    [
        dict(level="nominal", categories=None),
        dict(level="nominal", categories=None, na_values=["NA", "none"]),
        dict(level="nominal", categories=["pos", "neg", "neu", "NA"]),
        dict(level="ordinal", categories=["neg", "neu", "pos"]),
        dict(level="ordinal", categories=None),
        dict(level="interval", categories=None),
        dict(level="ordinal", categories=["1", "2", "3", "10"]),
    ],
    ids=["nominal", "na_values", "categories", "ordinal-text", "ordinal", "interval", "ordinal-numbers"],
)
def test_labels_encode_the_same_without_pyarrow(values, options):
    (a, wa), (b, wb) = both(_encode.encode_text_labels, values, **options)
    same(a, b)
    assert wa == wb


@pytest.mark.parametrize("values", LABELS[:6], ids=range(6))
def test_ids_encode_the_same_without_pyarrow(values):
    keep = np.array([v is not None and not (isinstance(v, float) and np.isnan(v)) for v in np.asarray(values)])
    for k in (None, keep):
        (a, _), (b, _) = both(_encode.encode_id_column, values, "item", k)
        same(a, b)


@pytest.mark.parametrize("text", [["1", " 2.5", "-3e2"], ["1", "x", "2"], ["inf"], ["1_000", "2"], []])
def test_numbers_parse_the_same_without_pyarrow(text):
    (a, _), (b, _) = both(_encode.parse_numbers, text, what="labels")
    same(a, b)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.text(alphabet=st.sampled_from(list("ab1 .-") + ["\u00a0", "\u2003", "\t", "\n", "é", "Ω"]), max_size=4),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_any_text_column_encodes_the_same_without_pyarrow(cells):
    values = np.array(cells, dtype=object)
    for level in ("nominal", "interval"):
        (a, wa), (b, wb) = both(_encode.encode_text_labels, values, level=level, categories=None)
        same(a, b)
        assert wa == wb
    (a, _), (b, _) = both(_encode.encode_id_column, values, "item", None)
    same(a, b)


SEED = [
    ["1", "1", "1", "3", "3", "2", "3", "3", "1", "2", "2", "2", "1", "3", "1"],
    ["1", "2", "1", "2", "3", "2", "3", "3", "1", "1", "2", "2", "1", "3", "1"],
    ["2", "1", "1", "3", "3", "2", "3", "3", "2", "2", "2", "2", "2", "3", None],
]


def coefficients(matrix, **kw):
    d = ie.Annotations.from_wide(matrix, **kw)
    gold = ie.gold_standard(d, rule="rat").per_item(sep="|")["gold"].astype(str).tolist()
    return (
        list(d.categories),
        ie.fleiss_kappa(d),
        ie.krippendorff_alpha(d),
        ie.cohen_kappa(d, d.annotators[0], d.annotators[1]),
        ie.spa(d),
        gold,
    )


@pytest.mark.parametrize(
    "matrix, options",
    [
        (SEED, {}),
        (SEED, {"level": "ordinal"}),
        ([[{"1": "pos", "2": "neg", "3": "neu"}.get(v) for v in row] for row in SEED], {}),
        (pd.DataFrame(SEED, index=["ann a", "ann b", "ann c"]).T, {"annotators_as": "columns"}),
    ],
    ids=["text numbers", "ordinal", "text labels", "named annotators"],
)
def test_the_coefficients_are_the_same_without_pyarrow(matrix, options):
    (a, _), (b, _) = both(coefficients, matrix, **options)
    assert not isinstance(a, str), a
    assert a == b


def test_python_and_arrow_trim_the_same_whitespace():
    """The fallback trims with ``str.strip``; Arrow with ``utf8_trim_whitespace``: the same on every code point."""
    pa = pytest.importorskip("pyarrow")
    pc = pytest.importorskip("pyarrow.compute")
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    arr = pa.array([f"a{c}" for c in chars] + [f"{c}a" for c in chars])
    trimmed = pc.utf8_trim_whitespace(arr).to_pylist()
    assert trimmed == [s.strip() for s in arr.to_pylist()]
    assert sum(len(s) == 1 for s in trimmed) > 20  # some characters are whitespace (the test can fail)
