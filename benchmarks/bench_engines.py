"""The engines from the file to the printed report: in memory, DuckDB (and Dask), at 10⁶ and 10⁷ annotations.

One Parquet file of the user-shaped sparse crowd table (``_sparse_crowd.py``: text ids, 500 annotators with
Zipf-like activity, 5 labels, 1-8 annotations per item, rows shuffled) per size; each engine runs the whole command
``iaa report FILE [--engine ...]`` in its own process (started from ``_rss_launch.py``, so the peak RSS is that
process's own), three times, and the medians are compared with the in-memory run's as ratios: wall time, CPU time
(user + system, less sensitive to other load on a shared machine) and peak memory. Every engine's JSON report must
equal the in-memory one (count-based values to 1e-12).

Targets (issue 35): at 10⁷, DuckDB's peak memory ≤ 0.5× and its time ≤ 2× the in-memory run's; with
``--memory-limit 1GB`` DuckDB finishes a dataset whose in-memory run needs more than 4 GB (``--limit-run``: 3·10⁷).

    python benchmarks/bench_engines.py [--sizes 1e6,1e7] [--engines memory,duckdb] [--repeat 3] [--limit-run]
                                       [--data DIR] [--json OUT] [--quick]

Dask: ``--engines memory,duckdb,dask`` runs ``iaa report FILE --engine dask --workers 2`` through the same hook
(:data:`ENGINES`); its flags may change as the Dask engine grows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _benchlib as bl

bl.use_working_tree()

#: engine name -> the flags of ``iaa report`` that select it (the hook for further engines)
ENGINES: dict[str, list[str]] = {
    "memory": [],
    "duckdb": ["--engine", "duckdb"],
    "duckdb-500MB": ["--engine", "duckdb", "--memory-limit", "500MB"],
    "duckdb-1GB": ["--engine", "duckdb", "--memory-limit", "1GB"],
    "dask": ["--engine", "dask", "--workers", "2"],
}


def _run(cmd: list[str], out: Path) -> dict:
    """Run ``cmd`` under the RSS launcher (its printed report discarded): wall time, CPU time and peak RSS."""
    stats = out.with_suffix(".stats.json")
    launch = [sys.executable, str(bl.BENCH_DIR / "_rss_launch.py"), str(stats), "--", *cmd]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(bl.ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(launch, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    result = json.loads(stats.read_text())
    result["stderr"] = proc.stderr[-2000:]
    return result


def _report(cmd: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(bl.ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([*cmd, "--json"], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def _compare(a, b, path=""):
    """Differences between two JSON reports (numbers to 1e-12), as a list of paths."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in set(a) & set(b) for d in _compare(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        return [d for x, y, i in zip(a, b, range(len(a))) for d in _compare(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if abs(a - b) <= 1e-12 else [path]
    return [] if a == b else [path]


def _dataset(folder: Path, n: int) -> Path:
    import _sparse_crowd

    path = folder / f"crowd-{n}.parquet"
    if not path.exists():
        t0 = time.perf_counter()
        _sparse_crowd.write(str(path), n)
        bl.say(f"  wrote {path.name} in {time.perf_counter() - t0:.1f} s ({path.stat().st_size / bl.MB:.0f} MB)")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1e6,1e7", help="annotations, comma-separated (3e7 as an option)")
    ap.add_argument("--engines", default="memory,duckdb,duckdb-500MB", help="of: " + ", ".join(ENGINES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit-run", action="store_true", help="DuckDB with --memory-limit 1GB at 3·10⁷ (and memory)")
    ap.add_argument("--data", help="keep the generated Parquet files here (default: a temporary directory)")
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="10⁵ annotations, one repeat")
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    if args.quick:
        sizes, args.repeat = [100_000], 1
    engines = [e.strip() for e in args.engines.split(",")]
    folder = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="iaa-engines-"))
    folder.mkdir(parents=True, exist_ok=True)
    machine = bl.machine_info()
    bl.say(f"engines benchmark: {engines} at {sizes} annotations, medians of {args.repeat}; load {bl.loadavg()}")
    results: dict = {"machine": machine, "runs": []}
    iaa = [sys.executable, "-m", "iaa_engine", "report"]
    for n in sizes:
        path = _dataset(folder, n)
        base = None
        for engine in engines:
            cmd = [*iaa, str(path), *ENGINES[engine]]
            runs = [_run(cmd, folder / f"{engine}-{n}-{k}.out") for k in range(args.repeat)]
            failed = [r for r in runs if r["returncode"] != 0]
            if failed:
                bl.say(f"  {engine:7s} {n:>11,}: FAILED ({failed[0]['stderr'].strip().splitlines()[-1:]})")
                continue
            row = {
                "engine": engine,
                "annotations": n,
                "seconds": statistics.median(r["seconds"] for r in runs),
                "cpu_seconds": statistics.median(r.get("cpu_seconds", float("nan")) for r in runs),
                "peak_rss_bytes": statistics.median(r["peak_rss_bytes"] for r in runs),
                "load": bl.loadavg(),
            }
            if engine == "memory":
                base = row
            elif base is not None:
                diffs = _compare(_report([*iaa, str(path), *ENGINES[engine]]), _report([*iaa, str(path)]))
                diffs = [d for d in diffs if not d.startswith((".estimates", ".notes", ".kappa_weights"))]
                row["equal_to_memory"] = not diffs
                row["differences"] = diffs[:5]
            if base is not None:
                row["time_ratio"] = row["seconds"] / base["seconds"]
                row["cpu_ratio"] = row["cpu_seconds"] / base["cpu_seconds"]
                row["memory_ratio"] = row["peak_rss_bytes"] / base["peak_rss_bytes"]
            results["runs"].append(row)
            bl.say(
                f"  {engine:7s} {n:>11,}: {row['seconds']:7.2f} s (cpu {row['cpu_seconds']:6.2f} s), peak "
                f"{bl.fmt_bytes(row['peak_rss_bytes'])}"
                + (
                    f"  = {row['time_ratio']:.2f}× time, {row['cpu_ratio']:.2f}× cpu, {row['memory_ratio']:.2f}× memory"
                    if engine != "memory" and base is not None
                    else ""
                )
                + ("" if row.get("equal_to_memory", True) else f"  DIFFERS: {row['differences']}")
            )
    if args.limit_run:
        n = 30_000_000
        path = _dataset(folder, n)
        for engine, extra in (("duckdb", ["--memory-limit", "1GB"]), ("memory", [])):
            r = _run([*iaa, str(path), *ENGINES[engine], *extra], folder / f"limit-{engine}.out")
            results["runs"].append({"engine": engine, "annotations": n, "limit": extra, **r})
            bl.say(
                f"  {engine:7s} {n:>11,} {' '.join(extra)}: exit {r['returncode']}, {r['seconds']:.1f} s, "
                f"peak {bl.fmt_bytes(r['peak_rss_bytes'])}"
            )
    if args.json:
        bl.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
