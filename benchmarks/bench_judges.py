"""Can the models replace the annotators, at scale: ``ie.alt_test`` and ``iaa judges`` on 10⁶ human annotations and
3 models, from the files.

Data (seeded): 250,000 items, each labelled by 4 of 2,000 crowd workers (a sparse design: a worker sees about 500
items), 5 categories, workers right 70% of the time; 3 models label every item (right 75%, 70% and 60% of the
time). Written as two CSV files (long tables) in a temporary directory.

Timed (best of ``--repeat``):

* ``read``: both files read with ``ie.read``;
* ``alt_test accuracy`` / ``alt_test neg_rmse``: ``ie.alt_test`` on the data in memory (leave-one-human-out over the
  10⁶ annotations, 2,000 t-tests per model, Benjamini–Yekutieli);
* ``alt_test similarity``: a callable score (its table over the category pairs, then every pair of annotations
  of an item);
* ``iaa judges``: the command from the two files to the printed table (alt test, model agreement, human-likeness).

Run: ``python benchmarks/bench_judges.py [--items 250000] [--repeat 1]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import say, use_working_tree  # noqa: E402

use_working_tree()
import iaa_engine as ie  # noqa: E402
from iaa_engine.cli import main  # noqa: E402


def make(items: int, per_item: int = 4, workers: int = 2000, n_cat: int = 5, seed: int = 0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cat, items)
    item = np.repeat(np.arange(items), per_item)
    # per_item distinct workers per item: one from each of per_item blocks of the pool
    block = workers // per_item
    worker = (np.arange(item.size) % per_item) * block + rng.integers(0, block, item.size)
    label = np.where(rng.random(item.size) < 0.7, truth[item], rng.integers(0, n_cat, item.size))
    humans = pd.DataFrame({"item": item, "annotator": worker, "label": label})
    models = []
    for name, acc in (("model-a", 0.75), ("model-b", 0.7), ("model-c", 0.6)):
        lab = np.where(rng.random(items) < acc, truth, rng.integers(0, n_cat, items))
        models.append(pd.DataFrame({"item": np.arange(items), "annotator": name, "label": lab}))
    return humans, pd.concat(models, ignore_index=True)


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def run() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=250_000, help="items (4 human annotations each; default 250,000)")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    humans, models = make(args.items)
    say(f"{len(humans):,} human annotations ({args.items:,} items, 2,000 workers), {len(models):,} model annotations")
    with tempfile.TemporaryDirectory() as tmp:
        hp, mp = Path(tmp) / "humans.csv", Path(tmp) / "models.csv"
        humans.to_csv(hp, index=False)
        models.to_csv(mp, index=False)
        t, (h, m) = best(lambda: (ie.read(hp), ie.read(mp)), args.repeat)
        say(f"read                  {t:7.2f} s")
        for scoring in ("accuracy", "neg_rmse"):
            t, res = best(lambda s=scoring: ie.alt_test(h, m, epsilon=0.1, scoring=s), args.repeat)
            say(f"alt_test {scoring:<12} {t:7.2f} s")
        say(res.models.to_string(index=False))

        def similarity(a, b):
            return 1.0 - np.abs(np.asarray(a, float) - np.asarray(b, float)) / 4.0

        t, _ = best(lambda: ie.alt_test(h, m, epsilon=0.1, scoring=similarity), args.repeat)
        say(f"alt_test similarity   {t:7.2f} s")
        sink = io.StringIO()

        def command() -> int:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
                return main(["judges", str(hp), str(mp), "--epsilon", "0.1"])

        t, status = best(command, args.repeat)
        say(f"iaa judges (file to table) {t:7.2f} s (exit {status})")


if __name__ == "__main__":
    run()
