"""Every command on every engine, from the file to the printed output: in memory, DuckDB and Dask (a local 2-worker
cluster), at 10⁶, 10⁷ and 3·10⁷ annotations (issue 35).

One Parquet file per size of the user-shaped sparse crowd table (``_sparse_crowd.py``: text ids, 500 annotators with
Zipf-like activity, 5 labels, 1-8 annotations per item, rows shuffled, row groups of 2²⁰ rows as pyarrow writes
them), with a group column ``batch`` (one of 8 per item) and a timestamp ``created_at`` (the item's, over 90 days)
for ``--by`` and ``--time``; ``spans`` reads a span table of the same number of rows (``bench_unitizing.crowd``:
5 of 50 workers per document, about 10 spans each). Each (command, engine) runs as its own process (started from
``_rss_launch.py``) ``--repeat`` times; the medians are compared with the in-memory run's as ratios: wall time, CPU
time (user + system of the whole process tree: less sensitive to others' load on a shared machine) and peak memory
(the sum of the high-water marks of every process of the tree: a local Dask cluster's workers count). A command an
engine does not run yet (the CLI refuses the combination) is "not available". The load average is printed with
every row.

Targets: at 10⁷, DuckDB's peak memory ≤ 0.5× and its time ≤ 2× the in-memory run's; with ``--memory-limit 1GB``
DuckDB finishes a dataset whose in-memory run needs more than 4 GB (``--limit-run``: 4·10⁷, 4.9 GB in memory;
3·10⁷ needs 3.9 GB); Dask at 3·10⁷ on a
local 2-worker cluster finishes every command within 3× the in-memory time.

    python benchmarks/bench_engines.py [--sizes 1e6,1e7,3e7] [--engines memory,duckdb,dask]
                                       [--commands report,report-ci,...] [--repeat 3] [--limit-run]
                                       [--check] [--data DIR] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _benchlib as bl

bl.use_working_tree()

#: engine name -> the flags that select it (the same for every command)
ENGINES: dict[str, list[str]] = {
    "memory": [],
    "duckdb": ["--engine", "duckdb"],
    "duckdb-500MB": ["--engine", "duckdb", "--memory-limit", "500MB"],
    "duckdb-1GB": ["--engine", "duckdb", "--memory-limit", "1GB"],
    "dask": ["--engine", "dask", "--workers", "2"],
}

#: command name -> (the ``iaa`` subcommand and its flags, with ``{out}`` a scratch path; the dataset it reads)
COMMANDS: dict[str, tuple[list[str], str]] = {
    "report": (["report"], "crowd"),
    "report-ci": (["report", "--ci"], "crowd"),
    "report-by": (["report", "--by", "batch"], "crowd"),
    "report-time": (["report", "--time", "created_at"], "crowd"),
    "report-strata": (["report", "--strata", "3"], "crowd"),
    "report-html": (["report", "--html", "{out}.html"], "crowd"),
    "gold": (["gold", "-o", "{out}.csv"], "crowd"),
    "annotators": (["annotators"], "crowd"),
    "disagreements": (["disagreements"], "crowd"),
    "spans": (["spans", "--continuum", "0,1000"], "spans"),
}

#: stderr of a combination the CLI refuses (the engine does not run that command or flag yet)
NOT_AVAILABLE = re.compile(r"cannot run with --engine|invalid choice|unrecognized arguments|needs --engine")


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(bl.ROOT), os.environ.get("PYTHONPATH", "")]))


def _run(cmd: list[str], out: Path) -> dict:
    """Run ``cmd`` under the RSS launcher (its printed output discarded): wall time, CPU time and peak RSS."""
    stats = out.with_suffix(".stats.json")
    launch = [sys.executable, str(bl.BENCH_DIR / "_rss_launch.py"), str(stats), "--", *cmd]
    proc = subprocess.run(launch, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    result = json.loads(stats.read_text())
    result["stderr"] = proc.stderr[-2000:]
    return result


def _report(cmd: list[str]) -> dict:
    proc = subprocess.run([*cmd, "--json"], env=_env(), capture_output=True, text=True, check=True)
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


def _crowd(folder: Path, n: int) -> Path:
    """The crowd table with a group column and a timestamp per item (the columns ``--by`` and ``--time`` read)."""
    import _sparse_crowd
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / f"crowd-bt-{n}.parquet"
    if not path.exists():
        t0 = time.perf_counter()
        frame = _sparse_crowd.generate(n)
        number = frame["item"].str.slice(3).astype(np.int64).to_numpy()
        rng = np.random.default_rng(1)
        n_items = int(number.max()) + 1
        frame["batch"] = np.char.add("b", (rng.integers(0, 8, n_items)[number]).astype(str))
        seconds = rng.integers(0, 90 * 86400, n_items)[number]
        frame["created_at"] = np.datetime64("2025-01-01T00:00:00", "s") + seconds.astype("timedelta64[s]")
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
        bl.say(f"  wrote {path.name} in {time.perf_counter() - t0:.1f} s ({path.stat().st_size / bl.MB:.0f} MB)")
    return path


def _spans(folder: Path, n: int) -> Path:
    """A span table of about ``n`` spans: ``bench_unitizing.crowd`` with ``n / 50`` documents."""
    path = folder / f"spans-{n}.parquet"
    if not path.exists():
        from bench_unitizing import crowd

        t0 = time.perf_counter()
        frame, _ = crowd(n_docs=max(1, n // 50), workers=50, per_doc=5, spans=n)
        frame.to_parquet(path, index=False)
        bl.say(f"  wrote {path.name} in {time.perf_counter() - t0:.1f} s ({len(frame):,} spans)")
    return path


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r.get(key, float("nan")) for r in runs)


def _say_row(row: dict) -> None:
    head = f"  {row['command']:14s} {row['engine']:12s} {row['annotations']:>11,}:"
    if row.get("status") != "ok":
        bl.say(f"{head} {row['status']}  (load {row['load']})")
        return
    ratios = ""
    if "time_ratio" in row and row["engine"] != "memory":
        ratios = f"  = {row['time_ratio']:.2f}× time, {row['cpu_ratio']:.2f}× cpu, {row['memory_ratio']:.2f}× memory"
    bl.say(
        f"{head} {row['seconds']:7.2f} s (cpu {row['cpu_seconds']:6.2f} s), peak "
        f"{bl.fmt_bytes(row['peak_rss_bytes'])} ({row['processes']} proc){ratios}  (load {row['load']})"
        + ("" if row.get("equal_to_memory", True) else f"  DIFFERS: {row['differences']}")
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1e6,1e7", help="annotations, comma-separated (3e7 as an option)")
    ap.add_argument("--engines", default="memory,duckdb,dask", help="of: " + ", ".join(ENGINES))
    ap.add_argument("--commands", default=",".join(COMMANDS), help="of: " + ", ".join(COMMANDS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--limit-run",
        action="store_true",
        help="DuckDB with --memory-limit 1GB at 4·10⁷ (and memory, which needs about 4.9 GB there; 3.9 GB at 3·10⁷)",
    )
    ap.add_argument("--check", action="store_true", help="compare each engine's report --json with memory's")
    ap.add_argument("--data", help="keep the generated Parquet files here (default: a temporary directory)")
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="10⁵ annotations, one repeat")
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    if args.quick:
        sizes, args.repeat = [100_000], 1
    engines = [e.strip() for e in args.engines.split(",")]
    commands = [c.strip() for c in args.commands.split(",")]
    for name, table in (("engine", ENGINES), ("command", COMMANDS)):
        bad = [x for x in (engines if name == "engine" else commands) if x not in table]
        if bad:
            ap.error(f"unknown {name}(s) {bad}; choose from {list(table)}")
    folder = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="iaa-engines-"))
    folder.mkdir(parents=True, exist_ok=True)
    bl.say(
        f"engines benchmark: {commands} × {engines} at {sizes} annotations, medians of {args.repeat}; "
        f"load {bl.loadavg()}"
    )
    results: dict = {"machine": bl.machine_info(), "runs": []}
    iaa = [sys.executable, "-m", "iaa_engine"]
    for n in sizes:
        for command in commands:
            flags, kind = COMMANDS[command]
            path = _crowd(folder, n) if kind == "crowd" else _spans(folder, n)
            base = None
            for engine in engines:
                scratch = folder / f"{command}-{engine}-{n}"
                cmd = [*iaa, flags[0], str(path), *[f.format(out=scratch) for f in flags[1:]], *ENGINES[engine]]
                row = {"command": command, "engine": engine, "annotations": n, "argv": cmd[2:]}
                runs = []
                for k in range(args.repeat):
                    r = _run(cmd, folder / f"{command}-{engine}-{n}-{k}.out")
                    runs.append(r)
                    if r["returncode"] != 0:
                        break
                row["load"] = bl.loadavg()
                failed = [r for r in runs if r["returncode"] != 0]
                if failed:
                    last = (failed[0]["stderr"].strip().splitlines() or [""])[-1]
                    row["status"] = "not available" if NOT_AVAILABLE.search(last) else f"FAILED: {last[:160]}"
                    row["stderr"] = last
                    results["runs"].append(row)
                    _say_row(row)
                    continue
                row.update(
                    status="ok",
                    seconds=_median(runs, "seconds"),
                    cpu_seconds=_median(runs, "tree_cpu_seconds"),
                    peak_rss_bytes=_median(runs, "tree_peak_rss_bytes"),
                    client_peak_rss_bytes=_median(runs, "peak_rss_bytes"),
                    processes=max(r.get("tree_processes", 1) for r in runs),
                    all_seconds=[r["seconds"] for r in runs],
                )
                if engine == "memory":
                    base = row
                elif args.check and base is not None and flags[0] == "report":
                    memory_cmd = [*iaa, flags[0], str(path), *flags[1:]]
                    diffs = _compare(_report(cmd), _report(memory_cmd))
                    diffs = [d for d in diffs if not d.startswith((".estimates", ".notes", ".kappa_weights"))]
                    row["equal_to_memory"] = not diffs
                    row["differences"] = diffs[:5]
                if base is not None:
                    row["time_ratio"] = row["seconds"] / base["seconds"]
                    row["cpu_ratio"] = row["cpu_seconds"] / base["cpu_seconds"]
                    row["memory_ratio"] = row["peak_rss_bytes"] / base["peak_rss_bytes"]
                results["runs"].append(row)
                _say_row(row)
    if args.limit_run:
        n = 40_000_000
        path = _crowd(folder, n)
        for engine, extra in (("duckdb", ["--memory-limit", "1GB"]), ("memory", [])):
            r = _run([*iaa, "report", str(path), *ENGINES[engine], *extra], folder / f"limit-{engine}.out")
            results["runs"].append({"command": "report", "engine": engine, "annotations": n, "limit": extra, **r})
            bl.say(
                f"  report {engine:7s} {n:>11,} {' '.join(extra)}: exit {r['returncode']}, {r['seconds']:.1f} s, "
                f"peak {bl.fmt_bytes(r['tree_peak_rss_bytes'])}  (load {bl.loadavg()})"
            )
    if args.json:
        bl.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
