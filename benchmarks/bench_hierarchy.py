"""``iaa report FILE --hierarchy`` on many hierarchical labels (issue 25, item 4), in one process run.

Data: 3 annotators per item, labels ``P<p>/C<c>`` with about rows / 10 parents and 5 children each (so the number
of distinct labels grows with the rows, as in a taxonomy with many leaves), written once as CSV (untimed). Each size
is timed as the command a user runs (a subprocess: imports, reading, every metric, the hierarchy section), and
``hierarchical_agreement`` alone on data already read. The conditional child agreement used to be one alpha per
parent (time parents × rows) with a list search per category; it is now one sort and grouped sums.

Usage::

    python benchmarks/bench_hierarchy.py [--sizes 5000,10000,20000,200000] [--root DIR] [--timeout 120]

``--root`` runs another checkout (e.g. an export of an older commit) for a before/after comparison.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _benchlib as bl
import numpy as np


def make_csv(n: int, path: Path, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    n_items = -(-n // 3)
    item = np.repeat(np.arange(n_items), 3)[:n]
    ann = np.tile(np.arange(3), n_items)[:n]
    parent = rng.integers(0, max(2, n // 10), n)
    child = rng.integers(0, 5, n)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("item,annotator,label\n")
        fh.writelines(f"i{i},a{a},P{p}/C{c}\n" for i, a, p, c in zip(item, ann, parent, child))
    return len({(p, c) for p, c in zip(parent, child)})


def _timed(cmd: list[str], env: dict, args: argparse.Namespace, own_clock: bool = False) -> str:
    """Wall time of a command (or the time it prints itself), "error" or "> timeout"."""
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return f"> {args.timeout:g} s"
    if out.returncode != 0:
        return "error"
    return f"{float(out.stdout) if own_clock else time.perf_counter() - start:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="5000,10000,20000,200000")
    ap.add_argument("--root", default=str(bl.ROOT), help="checkout whose iaa_engine is timed (default: this one)")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": args.root}
    bl.say(f"iaa_engine from {args.root}")
    bl.say(f"{'rows':>8} {'labels':>7} {'iaa report --hierarchy':>24} {'hierarchical_agreement':>24}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            path = Path(tmp) / f"h{n}.csv"
            labels = make_csv(n, path)
            cli = _timed([sys.executable, "-m", "iaa_engine", "report", str(path), "--hierarchy", "--json"], env, args)
            code = (
                "import sys, time, iaa_engine as ie; d = ie.read(sys.argv[1]); t = time.perf_counter(); "
                "ie.hierarchical_agreement(d); print(time.perf_counter() - t)"
            )
            api = _timed([sys.executable, "-c", code, str(path)], env, args, own_clock=True)
            bl.say(f"{n:>8} {labels:>7} {cli:>24} {api:>24}")


if __name__ == "__main__":
    main()
