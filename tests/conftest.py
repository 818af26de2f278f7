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


# --------------------------------------------------------------------------- parallel workers (pytest-xdist)
# `make test` runs `pytest -n 4 --dist loadgroup`. A test that uses a module-scoped fixture of its own file (a real
# Label Studio server, a LibreOffice recalculation, a browser, a local Dask cluster) joins that file's group, so the
# fixture is built once, on one worker; every other test is scheduled on its own. Groups are started first, the
# Label Studio files (the longest) before the rest, then slow tests, so that no long group starts last and leaves the
# other workers idle. Without xdist the marks and the order change nothing that a test can see.


def _own_module_scoped_fixture(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    module_id = item.nodeid.split("::", 1)[0]
    for defs in info.name2fixturedefs.values():
        for d in defs:
            if d.scope in ("module", "package") and d.baseid.split("::", 1)[0] == module_id:
                return True
    return False


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        module = item.nodeid.split("::", 1)[0]
        if _own_module_scoped_fixture(item):
            item.add_marker(pytest.mark.xdist_group(module))
            return 0 if "label_studio" in module else 1
        return 2 if item.get_closest_marker("slow") else 3

    items.sort(key=rank)  # stable: within a rank, the collection order
