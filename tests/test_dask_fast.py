"""Shortcuts of the Dask commands (issue 35): each gives what the general path gives.

`_window_keys` (`report --time` on Dask) finds each item's window from the item codes and timestamps alone when
no duplicate can be dropped (``duplicates="error"``): the same keys as building the partition's annotations
(``duplicates="first"`` on data without duplicates takes that general path)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from iaa_engine.engines._commands import _window_keys


def _part(stamps) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = len(stamps)
    items = [f"i{k // 3}" for k in range(n)]
    labels = rng.choice(np.array(["a", "b", None], dtype=object), size=n, p=[0.45, 0.45, 0.1])
    labels[9:12] = None  # item i3 has no label: no annotation
    return pd.DataFrame({"item": items, "annotator": [f"r{k % 3}" for k in range(n)], "label": labels,
                         "t": stamps})  # fmt: skip


_N = 30
_NAIVE = pd.Series(pd.date_range("2024-02-26", periods=_N, freq="17h"))
_NAIVE[[3, 4, 5, 14]] = pd.NaT  # item i1 without any timestamp; i4 loses one
_TEXT = _NAIVE.dt.strftime("%Y-%m-%dT%H:%M:%S+02:00").where(_NAIVE.notna(), None).astype(object)


@pytest.mark.parametrize("freq", ["D", "W", "M"])
@pytest.mark.parametrize(
    "stamps", [_NAIVE, _NAIVE.dt.tz_localize("Europe/Paris"), _TEXT], ids=["naive", "time-zone", "iso-text"]
)
def test_window_keys_shortcut_equals_the_annotations_path(stamps, freq):
    part = _part(stamps)
    cols = {"item": "item", "annotator": "annotator", "label": "label"}
    cats = pd.Index(["a", "b"])
    fast = _window_keys(part, cols, "nominal", cats, "error", "t", freq)["_window"].to_numpy()
    slow = _window_keys(part, cols, "nominal", cats, "first", "t", freq)["_window"].to_numpy()
    np.testing.assert_array_equal(fast, slow)
    assert (fast[9:12] == -2).all() and (fast[part["label"].isna().to_numpy()] == -2).all()
    assert set(fast[3:6][part["label"].iloc[3:6].notna().to_numpy()]) <= {-1}  # i1: no timestamp
    assert (fast >= 0).any()


def test_window_keys_shortcut_builds_no_annotations(monkeypatch):
    """The shortcut codes the items and parses the timestamps only (the annotations are built once, per window)."""
    import iaa_engine.engines._commands as commands

    def refuse(*args, **kwargs):
        raise AssertionError("the annotations were built")

    monkeypatch.setattr(commands, "_annotations", refuse)
    part = _part(_NAIVE)
    keys = _window_keys(part, {"item": "item", "annotator": "annotator", "label": "label"}, "nominal",
                        pd.Index(["a", "b"]), "error", "t", "W")["_window"]  # fmt: skip
    assert len(keys) == len(part) and (keys >= 0).any()
