"""Progress bars (``progress=`` of bootstrap, gold_standard, missingness_simulation): tqdm on stderr.

``progress=True`` draws the bar on stderr, ``False`` draws nothing, ``None`` draws it only when stderr is a
terminal (under pytest it is not). tqdm is imported only when a bar is drawn.
"""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.base._progress import Progress


@pytest.fixture(scope="module")
def data() -> ie.Annotations:
    rng = np.random.default_rng(0)
    n_items, per_item = 40, 3
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(n_items), per_item),
            "annotator": np.concatenate([rng.permutation(6)[:per_item] for _ in range(n_items)]),
            "label": rng.integers(0, 3, size=n_items * per_item),
        }
    )
    return ie.Annotations.from_long(frame)


def test_bootstrap_draws_the_bar_on_stderr(data, capsys):
    ie.bootstrap(data, n_boot=50, seed=1, progress=True)
    out, err = capsys.readouterr()
    assert out == ""
    assert "bootstrap" in err and "100%" in err and err.endswith("\n")


@pytest.mark.parametrize("progress", [False, None])
def test_bootstrap_is_silent_without_progress_or_terminal(data, capsys, progress):
    ie.bootstrap(data, n_boot=50, seed=1, progress=progress)
    assert capsys.readouterr() == ("", "")


def test_gold_standard_and_simulation_draw_on_stderr(data, capsys):
    ie.gold_standard(data, rule="dawid_skene", progress=True)
    err = capsys.readouterr().err
    assert "Dawid-Skene EM" in err
    ie.missingness_simulation(data, fractions=(0.2, 0.4), n_rep=3, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "missingness simulation" in err and "6/6" in err
    ie.gold_standard(data, rule="dawid_skene", progress=False)
    ie.missingness_simulation(data, fractions=(0.2, 0.4), n_rep=3, progress=False)
    assert capsys.readouterr() == ("", "")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_default_shows_the_bar_only_on_a_terminal():
    terminal, pipe = _Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        with Progress(4, "work", stream=stream) as bar:
            for _ in range(4):
                bar.update()
        assert bar.done == 4
    assert "work" in terminal.getvalue() and "4/4" in terminal.getvalue()
    assert pipe.getvalue() == ""
    forced = io.StringIO()
    with Progress(4, "work", show=True, stream=forced) as bar:
        bar.update(2)  # finishing early (EM converged) is fine
    assert "2/4" in forced.getvalue()
    quiet = _Terminal()
    with Progress(4, "work", show=False, stream=quiet) as bar:
        bar.update(4)
    assert quiet.getvalue() == ""


def test_tqdm_is_imported_only_to_draw():
    code = (
        "import sys, iaa_engine as ie\n"
        "from iaa_engine.base._progress import Progress\n"
        "with Progress(3, 'x', show=False) as bar:\n"
        "    bar.update(3)\n"
        "assert 'tqdm' not in sys.modules, 'imported without drawing'\n"
        "with Progress(3, 'x', show=True) as bar:\n"
        "    bar.update(3)\n"
        "assert 'tqdm' in sys.modules\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "3/3" in run.stderr


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_terminal_without_a_size_still_gets_the_bar():
    """A fresh pseudo-terminal reports 0 columns (as under `script` or some CI runners): the bar is still drawn."""
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as stream:
            assert stream.isatty() and os.get_terminal_size(slave).columns == 0
            with Progress(5, "sized", stream=stream) as bar:
                bar.update(5)
        text = b""
        while select.select([master], [], [], 0.5)[0]:
            text += os.read(master, 10_000)
        text = text.decode()
    finally:
        os.close(master)
        os.close(slave)
    assert "sized" in text and "5/5" in text
