"""Agreement over time at scale (issue 27, item 2): ``iaa report FILE --time created_at --freq W`` over 52 weekly
windows against one plain ``iaa report FILE`` of the same file. Target: at most 2x.

The file is the end-to-end benchmarks' sparse crowd table (``_sparse_crowd.py``: text ids, 500 annotators, 5 labels,
1-8 annotations per item, rows shuffled) with two further columns: ``created_at``, an ISO 8601 timestamp per
annotation (each item starts at a random moment of the 52 weeks from Monday 2025-01-06, less 3 days, and is
annotated within 3 days of it: 52 weekly windows), and ``batch`` (20 values). Written once to
``benchmarks/out/by/``; each command runs as its own process (interpreter start, reading and encoding included),
medians of ``--repeat`` runs, the two commands alternating. The load average is printed: compare ratios of one run.

    .venv/bin/python benchmarks/bench_by.py --size 1e6            # while developing
    .venv/bin/python benchmarks/bench_by.py --size 1e7 --repeat 3  # the target's size
    .venv/bin/python benchmarks/bench_by.py --quick               # 10^5, one run each
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import OUT_DIR, ROOT, say  # noqa: E402

IAA = str(ROOT / ".venv" / "bin" / "iaa")


def write(path: Path, n: int) -> None:
    """The crowd table of ``n`` annotations with ``created_at`` and ``batch``, as CSV (pyarrow writer)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    from _sparse_crowd import generate

    df = generate(n, seed=0)
    rng = np.random.default_rng(1)
    item = df["item"].str.slice(3).astype(np.int64).to_numpy()
    start = np.datetime64("2025-01-06T00:00:00") + (rng.random(item.max() + 1) * (52 * 7 - 3) * 86400).astype(
        "timedelta64[s]"
    )
    stamp = start[item] + (rng.random(n) * 3 * 86400).astype("timedelta64[s]")
    df["created_at"] = np.datetime_as_string(stamp, unit="s")
    df["batch"] = np.char.add("b", (item % 20).astype(str))
    tmp = path.with_suffix(".tmp")
    pcsv.write_csv(
        pa.Table.from_pandas(df, preserve_index=False), tmp, write_options=pcsv.WriteOptions(quoting_style="none")
    )
    tmp.rename(path)


def run(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=float, default=1e7, help="annotations (default 1e7)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command (median; default 3)")
    ap.add_argument("--quick", action="store_true", help="10^5 annotations, one run each")
    ap.add_argument("--json", action="store_true", help="print the results as one JSON line at the end")
    args = ap.parse_args()
    n = int(1e5 if args.quick else args.size)
    repeat = 1 if args.quick else args.repeat
    out = OUT_DIR / "by"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"crowd_time_{n:.0e}.csv".replace("+0", "")
    if not path.exists():
        say(f"writing {path.name} ({n:,} annotations) ...")
        write(path, n)
    plain = [IAA, "report", str(path)]
    by_time = [*plain, "--time", "created_at", "--freq", "W"]
    windows = json.loads(subprocess.run([*by_time, "--json"], check=True, capture_output=True, text=True).stdout)
    n_windows = len({g["group"] for g in windows["by"]["groups"]})
    load = os.getloadavg()
    say(f"{n:,} annotations, {n_windows} weekly windows; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    times: dict[str, list[float]] = {"plain": [], "time": []}
    for _ in range(repeat):
        times["plain"].append(run(plain))
        times["time"].append(run(by_time))
    med = {k: float(np.median(v)) for k, v in times.items()}
    ratio = med["time"] / med["plain"]
    for key, name in (("plain", "iaa report"), ("time", "iaa report --time created_at --freq W")):
        say(f"{name:<38} {med[key]:6.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times[key])})")
    say(f"ratio {ratio:.2f}x (target <= 2x): {'pass' if ratio <= 2.0 else 'MISS'}")
    if args.json:
        print(json.dumps({"n": n, "windows": n_windows, "seconds": med, "ratio": ratio, "target": 2.0, "load": load}))


if __name__ == "__main__":
    main()
