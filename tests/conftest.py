"""Shared test set-up."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _label_studio_state_in_a_temporary_directory(tmp_path_factory):
    """The Label Studio connector keeps each run's read under ~/.cache by default; the tests (and the commands they
    start, which inherit the environment) keep it in a temporary directory instead."""
    old = os.environ.get("IAA_LS_STATE_DIR")
    os.environ["IAA_LS_STATE_DIR"] = str(tmp_path_factory.mktemp("iaa-ls-state"))
    yield
    if old is None:
        os.environ.pop("IAA_LS_STATE_DIR", None)
    else:
        os.environ["IAA_LS_STATE_DIR"] = old
