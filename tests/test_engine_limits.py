"""The DuckDB engine's default memory limit (issue 35: at 10⁷ annotations the DEFAULT run peaks at no more than half
the in-memory run's memory; measured by benchmarks/bench_engines.py, never timed here)."""

from __future__ import annotations

import pandas as pd
import pytest

import iaa_engine as ie

pytest.importorskip("duckdb")

import iaa_engine.engines._duckdb as engine  # noqa: E402


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.parquet"
    pd.DataFrame({"item": ["a", "a", "b", "b"], "annotator": ["x", "y"] * 2, "label": ["1", "1", "2", "1"]}).to_parquet(
        path
    )
    return path


def test_without_a_limit_duckdb_runs_under_the_default_one(tiny, monkeypatch):
    assert engine.DEFAULT_MEMORY_LIMIT == "500MB"
    monkeypatch.setattr(engine, "DEFAULT_MEMORY_LIMIT", "1KB")  # far too small: the run fails, so the default is used
    with pytest.raises(ValueError, match="(?i)out of memory"):
        ie.read_duckdb(str(tiny), progress=False)
    data = ie.read_duckdb(str(tiny), memory_limit="64MB", progress=False)  # a limit given replaces the default
    assert data.n_annotations == 4
