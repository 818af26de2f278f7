"""Shared test set-up."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# `make test` (the README's command, and CI's) runs the property tests derandomized: the same examples every run, so
# the command passes or fails the same way on every machine, and with no deadline (a loaded 2-core machine is not a
# slow function). Plain `pytest` keeps hypothesis's random exploration, which is how new edge cases are found.
settings.register_profile("make-test", derandomize=True, deadline=None, print_blob=True)


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
# `make test` runs `pytest -n 4 --dist loadgroup`. The files below build a costly module-scoped fixture (a real
# Label Studio server, a LibreOffice recalculation, wheels and a clean venv, a local Dask cluster, a bootstrapped
# HTML page): each such file's tests are one group, run on one worker, so the fixture is built once; every other
# test is scheduled on its own. (xdist's own `xdist_group` marks do not reach its scheduler under pytest 9.2, which
# no longer reads the node id xdist rewrites; the scheduler below groups by file instead.) The groups are started
# first, then the slow tests, so that no long group starts last while the other workers idle: xdist (3.8, its
# default --loadscope-reorder) queues the groups by their number of tests, most first, and keeps the order below for
# groups of equal size and for the single tests; each worker takes the next group when it has 2 tests left. Without
# xdist the order changes nothing a test can see.

TOGETHER = (
    "tests/test_label_studio",
    "tests/test_excel_template.py",
    "tests/test_class_workbook.py",
    "tests/test_excel_lite.py",
    "tests/test_distributed",  # test_distributed.py, test_distributed_commands.py: a cluster and datasets per file
    "tests/test_dask_",  # the Dask engine's files: each file's cluster and Parquet datasets built once
    "tests/test_html_report.py",
)


def _group(nodeid: str) -> str | None:
    module = nodeid.split("::", 1)[0]
    return module if module.startswith(TOGETHER) else None


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid) or nodeid

    return FileGroups(config, log)


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        group = _group(item.nodeid)
        if group:
            return 0 if "label_studio" in group else 1
        return 2 if item.get_closest_marker("slow") else 3

    items.sort(key=rank)  # stable: within a rank, the collection order
