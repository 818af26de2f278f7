"""From the file to the printed report: what a user runs, beside the whole-process floor and the peers.

Data (benchmarks/_sparse_crowd.py): a sparse long table with text ids (``doc0001234``, ``w0042``), 500 annotators
with Zipf-like activity, 5 labels, 1-8 annotations per item, rows shuffled; 10**5, 10**6 and 10**7 annotations,
as CSV and as Parquet. Every variant runs as its own process (interpreter start included), timed by wall clock,
with its peak RSS from ``wait4``; the median of ``--repeat`` runs (interleaved across the variants) is reported and
every ratio comes from this run:

* floor: benchmarks/_e2e_floor.py (import numpy + pyarrow, read, sorted codes of the three columns, the items ×
  labels and annotators × labels counts);
* ``iaa report FILE`` (the table), ``--json``, ``--ci`` (1,000 replicates), ``--html OUT``;
* peers started from the same file (benchmarks/_e2e_peers.py): krippendorff (its annotators × items matrix, then
  nominal alpha), irrCAC (its items × raters frame, then Fleiss), statsmodels (a count table, then Fleiss).

Targets at 10**7 (issue "From file to report at the speed of reading the file"): the table within 1.5x of the
floor in time and in peak memory, ``--json`` within 1.15x of the table, ``--ci`` within 2x, ``--html`` within 1.3x.

    python benchmarks/bench_e2e.py [--sizes 100000,1000000,10000000] [--formats csv,parquet] [--repeat 3]
                                   [--peers krippendorff,irrcac,statsmodels] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import _benchlib as bl

bl.use_working_tree()

import _sparse_crowd  # noqa: E402

HERE = Path(__file__).resolve().parent
#: Peers that build a dense matrix (annotators × items) are run only up to this many annotations.
PEER_LIMIT = {"krippendorff": 10_000_000, "irrcac": 1_000_000, "statsmodels": 10_000_000}


def timed(cmd: list[str], cwd: Path, repeat: int) -> dict[str, Any]:
    """Median wall time and peak RSS of ``repeat`` runs, each started through benchmarks/_rss_launch.py (so the
    peak is the command's own, not this process's)."""
    import json
    import tempfile

    runs = []
    for _ in range(repeat):
        with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
            proc = subprocess.run(
                [sys.executable, str(HERE / "_rss_launch.py"), tmp.name, "--", *cmd],
                cwd=cwd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            if proc.returncode:
                raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-500:]}")
            got = json.loads(Path(tmp.name).read_text())
        runs.append((got["seconds"], got["peak_rss_bytes"]))
    return {
        "seconds": statistics.median(r[0] for r in runs),
        "peak_rss_bytes": max(r[1] for r in runs),
        "runs": [r[0] for r in runs],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000,10000000")
    ap.add_argument("--formats", default="csv,parquet")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peers", default="krippendorff,irrcac,statsmodels")
    ap.add_argument("--variants", default="table,json,ci,html")
    ap.add_argument("--data-dir", default=str(bl.OUT_DIR / "e2e"))
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="10**4 and 10**5 annotations, one repeat")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = "10000,100000", 1
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    formats = [f for f in args.formats.split(",") if f]
    peers = [p for p in args.peers.split(",") if p]
    variants = [v for v in args.variants.split(",") if v]
    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    iaa = shutil.which("iaa", path=str(Path(python).parent)) or "iaa"
    machine = bl.machine_info()
    bench = bl.Bench()
    t_wall = time.perf_counter()
    bl.say(
        f"end-to-end benchmark: sizes {sizes}, formats {formats}, median of {args.repeat}; "
        f"load {machine.get('loadavg')}"
    )
    rows = []
    for n in sizes:
        for fmt in formats:
            path = data_dir / f"crowd_{n}.{fmt}"
            if not path.exists():
                _sparse_crowd.write(str(path), n)
            html = data_dir / f"report_{n}_{fmt}.html"
            commands = {
                "floor": [python, str(HERE / "_e2e_floor.py"), str(path)],
                "table": [iaa, "report", str(path)],
                "json": [iaa, "report", str(path), "--json"],
                "ci": [iaa, "report", str(path), "--ci"],
                "html": [iaa, "report", str(path), "--html", str(html)],
            }
            for p in peers:
                if n <= PEER_LIMIT.get(p, 0):
                    commands[p] = [python, str(HERE / "_e2e_peers.py"), p, str(path)]
            commands = {k: c for k, c in commands.items() if k not in ("json", "ci", "html") or k in variants}
            # round-robin: run i of every variant before run i + 1 of any, so that a slow spell of a shared machine
            # falls on all of them alike; a peer at 10**7 runs once
            runs: dict[str, list[dict[str, Any]]] = {k: [] for k in commands}
            for i in range(args.repeat):
                for key, cmd in commands.items():
                    if i == 0 or not (key in peers and n >= 10_000_000):
                        runs[key].append(timed(cmd, bl.ROOT, 1))
            res: dict[str, dict[str, Any]] = {}
            for key, got in runs.items():
                repeat = len(got)
                r = {
                    "seconds": statistics.median(g["seconds"] for g in got),
                    "peak_rss_bytes": max(g["peak_rss_bytes"] for g in got),
                    "runs": [g["seconds"] for g in got],
                }
                res[key] = r
                label = f"{n:>10,} {fmt:<7} {key}"
                bench.steps[f"{n}-{fmt}-{key}"] = {
                    "key": f"{n}-{fmt}-{key}",
                    "label": label,
                    "group": f"{n} {fmt}",
                    "seconds": r["seconds"],
                    "repeat": repeat,
                    "peak_rss_extra_bytes": r["peak_rss_bytes"],
                    "value": None,
                }
                bl.say(f"  {label:<40} {bl.fmt_s(r['seconds']):>10}   peak RSS {bl.fmt_bytes(r['peak_rss_bytes'])}")
            floor, table = res["floor"], res["table"]
            big = n >= 10_000_000
            bench.compare(
                f"{n:,} {fmt}: iaa report / floor (time)",
                ours=("iaa report", table["seconds"]),
                reference=("floor", floor["seconds"]),
                kind="baseline",
                ratio_def="ours/reference",
                target=("<=", 1.5) if big else None,
            )
            mem = table["peak_rss_bytes"] / floor["peak_rss_bytes"]
            bench.compare(
                f"{n:,} {fmt}: iaa report / floor (peak memory)",
                ours=("iaa report peak RSS (GB)", table["peak_rss_bytes"] / 1e9),
                reference=("floor peak RSS (GB)", floor["peak_rss_bytes"] / 1e9),
                kind="baseline",
                ratio_def="ours/reference",
                target=("<=", 1.5) if big else None,
            )
            for key, bound in (("json", 1.15), ("ci", 2.0), ("html", 1.3)):
                if key in res:
                    bench.compare(
                        f"{n:,} {fmt}: --{key} / table",
                        ours=(f"--{key}", res[key]["seconds"]),
                        reference=("table", table["seconds"]),
                        kind="baseline",
                        ratio_def="ours/reference",
                        target=("<=", bound) if big else None,
                    )
            for p in peers:
                if p in res:
                    bench.compare(
                        f"{n:,} {fmt}: {p} from the file / iaa report",
                        ours=("iaa report", table["seconds"]),
                        reference=(p, res[p]["seconds"]),
                        kind="peer",
                        ratio_def="reference/ours",
                    )
            rows.append({"n": n, "format": fmt, **{k: v for k, v in res.items()}, "memory_ratio": mem})
    bl.say("")
    bl.print_comparisons(bench.comparisons)
    wall = time.perf_counter() - t_wall
    bl.say(f"\n  wall time {wall:.0f} s")
    if args.json:
        bl.write_json(
            args.json,
            {
                "benchmark": "e2e",
                "script": "benchmarks/bench_e2e.py",
                "title": "From the file to the printed report, beside the floor and the peers",
                "command": " ".join([Path(sys.executable).name, *sys.argv]),
                "params": {
                    "sizes": sizes,
                    "formats": formats,
                    "repeat": args.repeat,
                    "peers": peers,
                    "quick": args.quick,
                },
                "steps": list(bench.steps.values()),
                "comparisons": bench.comparisons,
                "rows": rows,
                "machine": machine,
                "wall_seconds": wall,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
