"""A read started early (iaa_engine/data/_files.py: ``prefetch``): the command line reads the file and
dictionary-encodes its id and label columns in a thread while the core is imported. What comes out must be exactly
what a read without it gives, on every kind of column the reader meets, and a file changed in between is read again.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_engine.data import _files
from iaa_engine.data._io import _read, read_table

pytest.importorskip("pyarrow")


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.item, b.item)
    np.testing.assert_array_equal(a.annotator, b.annotator)
    np.testing.assert_array_equal(a.label, b.label)
    assert list(a.items) == list(b.items) and a.items.dtype == b.items.dtype
    assert list(a.annotators) == list(b.annotators)
    assert list(a.categories) == list(b.categories) and a.categories.dtype == b.categories.dtype


def _both(path, **options):
    """The reading without and with a read started early (as the command line starts it)."""
    plain = _read(path, **options)
    _files.prefetch(path, ids=("item", "annotator"), labels=("label",))
    early = _read(path, **options)
    assert not _files._CODES and not _files._PENDING  # every early code taken or dropped
    return plain, early


def _outcome(path, **options):
    try:
        data, how = _read(path, **options)
    except ValueError as exc:
        return "error", str(exc)
    return "ok", (data, how)


ID = st.sampled_from(["d1", "d2", " d1", "d10", "d2 ", "", "01", "1"])
WHO = st.sampled_from(["a", "b", "c", " a", ""])
LABEL = st.sampled_from(["pos", "neg", " pos", "", "  ", "NA", "1", "2", "3.5"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(ID, WHO, LABEL), min_size=1, max_size=25), na=st.booleans(), level=st.booleans())
def test_the_early_read_gives_what_the_plain_read_gives(tmp_path, rows, na, level):
    """Blank and whitespace ids and labels, ids seen only on unlabelled rows, NA-like labels, numbers: the same
    data, or the same error message, with and without the early read."""
    path = tmp_path / "t.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(path, index=False)
    options = {"na_values": ["NA"] if na else (), "level": "interval" if level else "nominal", "duplicates": "last"}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = _outcome(path, **options)
        _files.prefetch(path, ids=("item", "annotator"), labels=("label",))
        early = _outcome(path, **options)
    assert not _files._CODES and not _files._PENDING
    assert plain[0] == early[0]
    if plain[0] == "error":
        assert plain[1] == early[1]
    else:
        _same(plain[1][0], early[1][0])
        assert plain[1][1] == early[1][1]


def test_the_early_codes_are_used(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    pd.DataFrame({"item": ["x", "y", "x"], "annotator": ["a", "a", "b"], "label": ["p", "q", "p"]}).to_csv(
        path, index=False
    )
    taken = []
    original = _files.take_codes

    def spy(column):
        got = original(column)
        taken.append(got is not None)
        return got

    import iaa_engine.data._encode as enc

    monkeypatch.setattr(enc, "take_codes", spy)
    plain, early = _both(path)
    assert taken == [False, False, False, True, True, True]  # labels, items, annotators; then from the thread
    _same(plain[0], early[0])


def test_a_file_changed_after_the_early_read_is_read_again(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("item,annotator,label\nx,a,p\nx,b,p\n")
    _files.prefetch(path, ids=("item", "annotator"), labels=("label",))
    path.write_text("item,annotator,label\nx,a,p\nx,b,q\ny,a,p\n")
    data, _ = _read(path)
    assert data.n_annotations == 3 and list(data.categories) == ["p", "q"]
    assert not _files._CODES and not _files._PENDING


def test_another_file_is_not_answered_by_the_early_read(tmp_path):
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    one.write_text("item,annotator,label\nx,a,p\nx,b,p\n")
    two.write_text("item,annotator,label\ny,a,q\ny,b,q\nz,a,q\n")
    _files.prefetch(one, ids=("item", "annotator"), labels=("label",))
    names, columns = read_table(two)
    assert names == ["item", "annotator", "label"] and len(columns[0]) == 3
    assert not _files._CODES and not _files._PENDING


def test_the_early_read_raises_the_error_the_read_raises(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("item,annotator,label\nx,a,p\nx,b\n")
    with pytest.raises(ValueError) as plain:
        read_table(path)
    _files.prefetch(path, ids=("item", "annotator"), labels=("label",))
    with pytest.raises(ValueError) as early:
        read_table(path)
    assert str(early.value) == str(plain.value) and "line 3" in str(plain.value)


def test_a_wide_matrix_and_parquet(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_text("annotator,i1,i2,i3,i4\nann1,a,b,a,\nann2,a,a,b,b\n")
    plain, early = _both(wide)
    _same(plain[0], early[0])
    assert plain[1] == early[1]
    table = pd.DataFrame({"item": ["x", "y", "x", "y"], "annotator": ["a", "a", "b", "b"], "label": [1, 2, 1, 1]})
    parquet = tmp_path / "t.parquet"
    table.to_parquet(parquet)  # typed labels: left to the usual path
    plain, early = _both(parquet)
    _same(plain[0], early[0])


def test_reading_files_imports_neither_pandas_nor_the_core():
    """The thread of an early read imports nothing, so the module it runs must not need what the main thread is
    importing meanwhile (pandas, the rest of the core)."""
    code = (
        "import sys; import iaa_engine.data._files; "
        "print(sorted(m for m in sys.modules if m.startswith(('pandas', 'scipy', 'iaa_engine.data'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert out.stdout.strip() == "['iaa_engine.data', 'iaa_engine.data._files']", out.stdout + out.stderr


@settings(max_examples=80, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 5)), min_size=1, max_size=40),
    wide=st.booleans(),
)
def test_the_duplicate_check_on_32_and_64_bit_keys(pairs, wide):
    """The (item, annotator) keys are sorted as 32-bit integers while items × annotators fit, else as 64-bit
    (``wide``: a huge annotator count forces it); both find exactly the pairs labelled twice."""
    from iaa_engine.data._model import _duplicate_keep

    item = np.array([p[0] for p in pairs], dtype=np.int64)
    ann = np.array([p[1] for p in pairs], dtype=np.int64)
    n_ann = 2**33 if wide else 6
    kept = _duplicate_keep(item, ann, n_ann, "first", pd.RangeIndex(21), pd.RangeIndex(6))
    want = ~pd.Series(pairs).duplicated(keep="first").to_numpy()
    if want.all():
        assert kept is None
    else:
        np.testing.assert_array_equal(kept, want)
