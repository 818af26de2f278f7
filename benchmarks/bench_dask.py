"""The report on a Dask LocalCluster vs in memory: 50 million annotations as partitioned Parquet.

Generates 10 M items × 5 annotations (500 annotators, 5 labels), shuffles the rows so that every item is spread
over the Parquet files, and writes 50 files. Then, in one run:

* the Dask engine (`iaa_engine.read_dask` + `report(pairwise=True)`) on a local cluster of 2 worker processes with a
  per-worker memory limit well below the data's in-memory size: wall time and each worker's peak RSS;
* the in-memory path (`pandas.read_parquet` + `Annotations.from_long` + `report(pairwise=True)`) in a fresh
  subprocess: wall time and peak RSS;
* that both give the same values (to 1e-12).

    python benchmarks/bench_dask.py [--annotations 50000000] [--memory-limit 1GiB] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _benchlib as bl
import numpy as np

bl.use_working_tree()

IN_MEMORY = r"""
import json, sys, time
import pandas as pd
import iaa_engine as ie
t0 = time.perf_counter()
frame = pd.read_parquet(sys.argv[1])
t1 = time.perf_counter()
rep = ie.report(ie.Annotations.from_long(frame), pairwise=True)
t2 = time.perf_counter()
hwm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"read_seconds": t1 - t0, "report_seconds": t2 - t1, "seconds": t2 - t0,
                  "rows": len(frame), "in_memory_bytes": int(frame.memory_usage(deep=True).sum()),
                  "peak_rss_bytes": hwm,
                  "report": rep.to_dict()}))
"""


def _vm_hwm() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _steps(dask_seconds: float, worker_peaks: dict, mem: dict) -> list[dict]:
    """Timed steps in the shape run_all.py renders (the worker peaks are each worker's own VmHWM)."""
    steps = [
        {
            "key": "dask",
            "label": "dask engine: read_dask + report(pairwise=True)",
            "group": "",
            "repeat": 1,
            "seconds": dask_seconds,
            "peak_rss_extra_bytes": max(worker_peaks.values()),
            "value": None,
        }
    ]
    steps.append(
        {
            "key": "memory",
            "label": "in memory: read_parquet + from_long + report(pairwise=True)",
            "group": "",
            "repeat": 1,
            "seconds": mem["seconds"],
            "peak_rss_extra_bytes": mem["peak_rss_bytes"],
            "value": None,
        }
    )
    return steps


def write_dataset(path: Path, n_annotations: int, per_item: int, n_ann: int, n_lab: int, files: int, seed: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_items = n_annotations // per_item
    truth = rng.integers(0, n_lab, size=n_items)
    item = np.repeat(np.arange(n_items, dtype=np.int64), per_item)
    # per_item distinct annotators per item: a random offset and stride-free consecutive block modulo n_ann
    start = rng.integers(0, n_ann, size=n_items)
    ann = ((start[:, None] + np.arange(per_item)[None, :]) % n_ann).astype(np.int64).ravel()
    label = np.where(
        rng.random(item.size) < 0.83, np.repeat(truth, per_item), rng.integers(0, n_lab, size=item.size)
    ).astype(np.int64)
    order = rng.permutation(item.size)  # spread every item over the files
    path.mkdir(parents=True, exist_ok=True)
    for k, chunk in enumerate(np.array_split(order, files)):
        table = pa.table({"item": item[chunk], "annotator": ann[chunk], "label": label[chunk]})
        pq.write_table(table, path / f"part-{k:04d}.parquet")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--annotations", type=int, default=50_000_000)
    ap.add_argument("--per-item", type=int, default=5)
    ap.add_argument("--annotators", type=int, default=500)
    ap.add_argument("--labels", type=int, default=5)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="640MiB")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--keep", help="keep the dataset in this directory")
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="2 million annotations")
    args = ap.parse_args(argv)
    if args.quick:
        args.annotations, args.files = 2_000_000, 8
    import distributed

    import iaa_engine as ie

    t_wall = time.perf_counter()
    machine = bl.machine_info()
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="iaa-dask-"))
    data = tmp / "annotations"
    try:
        bl.say(
            f"dask benchmark: {args.annotations:_} annotations, {args.files} Parquet files, "
            f"{args.workers} workers × {args.memory_limit}"
        )
        t0 = time.perf_counter()
        if not data.exists():
            write_dataset(data, args.annotations, args.per_item, args.annotators, args.labels, args.files, args.seed)
        bl.say(
            f"  dataset written in {time.perf_counter() - t0:.1f} s "
            f"({sum(f.stat().st_size for f in data.glob('*.parquet')) / bl.MB:.0f} MB on disk)"
        )

        cluster = distributed.LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=None,
            silence_logs=40,
        )
        client = distributed.Client(cluster)
        try:
            t0 = time.perf_counter()
            summary = ie.read_dask(str(data), scheduler=client, progress=False)
            t1 = time.perf_counter()
            rep = ie.report(summary, pairwise=True)
            t2 = time.perf_counter()
            # VmHWM belongs to the process image (ru_maxrss would carry the parent's peak over fork/exec)
            worker_peaks = client.run(_vm_hwm)
            limit = next(iter(client.scheduler_info()["workers"].values()))["memory_limit"]
        finally:
            client.close()
            cluster.close()
        dask_seconds = t2 - t0
        bl.say(f"  dask engine: summarise {t1 - t0:.1f} s + metrics {t2 - t1:.2f} s = {dask_seconds:.1f} s")
        for addr, peak in worker_peaks.items():
            bl.say(f"    worker {addr}: peak RSS {bl.fmt_bytes(peak)} (limit {bl.fmt_bytes(limit)})")

        out = subprocess.run(
            [sys.executable, "-c", IN_MEMORY, str(data)], capture_output=True, text=True, cwd=str(bl.ROOT)
        )
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        mem = json.loads(out.stdout)
        bl.say(
            f"  in memory: read {mem['read_seconds']:.1f} s + report {mem['report_seconds']:.1f} s = "
            f"{mem['seconds']:.1f} s, peak RSS {bl.fmt_bytes(mem['peak_rss_bytes'])}; the long table takes "
            f"{bl.fmt_bytes(mem['in_memory_bytes'])} in memory"
        )
        ours, ref = rep.to_dict(), mem["report"]
        worst = 0.0
        for key in ("fleiss_kappa", "krippendorff_alpha", "multi_kappa", "bias", "spa_kappa", "percent_agreement"):
            worst = max(worst, abs(ours[key] - ref[key]))
        for key in ("cohen_kappa", "krippendorff_alpha_matrix"):
            a = np.array(ours[key]["matrix"], float)
            b = np.array(ref[key]["matrix"], float)
            worst = max(worst, float(np.nanmax(np.abs(a - b))))
        bl.say(f"  largest difference dask vs in memory over the scalar metrics and matrices: {worst:.2e}")
        bench = bl.Bench()
        bench.compare(
            "dask engine / in memory (wall time, same data, same run)  [info]",
            ours=("dask", dask_seconds),
            reference=("in memory", mem["seconds"]),
            kind="baseline",
            ratio_def="ours/reference",
            values=(ours["fleiss_kappa"], ref["fleiss_kappa"]),
            tolerance=1e-12,
        )
        max_peak = max(worker_peaks.values())
        bl.say(
            f"\n  largest worker peak {bl.fmt_bytes(max_peak)} vs the data's in-memory size "
            f"{bl.fmt_bytes(mem['in_memory_bytes'])} and the in-memory path's peak "
            f"{bl.fmt_bytes(mem['peak_rss_bytes'])}"
        )
        bl.print_comparisons(bench.comparisons)
        wall = time.perf_counter() - t_wall
        if args.json:
            bl.write_json(
                args.json,
                {
                    "benchmark": "dask",
                    "script": "benchmarks/bench_dask.py",
                    "title": "Report on a Dask LocalCluster (memory-limited workers) vs in memory, partitioned Parquet",
                    "command": " ".join([Path(sys.executable).name, *sys.argv]),
                    "params": {
                        "annotations": args.annotations,
                        "files": args.files,
                        "workers": args.workers,
                        "memory_limit": args.memory_limit,
                        "annotators": args.annotators,
                        "labels": args.labels,
                        "quick": args.quick,
                    },
                    "dask": {
                        "seconds": dask_seconds,
                        "summarise_seconds": t1 - t0,
                        "worker_peak_rss_bytes": worker_peaks,
                        "worker_memory_limit_bytes": limit,
                    },
                    "in_memory": {k: v for k, v in mem.items() if k != "report"},
                    "max_abs_difference": worst,
                    "steps": _steps(dask_seconds, worker_peaks, mem),
                    "comparisons": bench.comparisons,
                    "machine": machine,
                    "wall_seconds": wall,
                },
            )
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
