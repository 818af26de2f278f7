"""Memory and time at many labels, many distinct values and many annotators, from the file to the printed report.

Issue "Real data reaches the math intact", done-when: a memory-and-time table for 10**4 / 10**5 distinct labels,
10**5 / 10**6 distinct interval values, 10**3 / 10**4 annotators × 10**2 / 10**3 labels, each with peak RSS and
time, ours beside krippendorff's where it can run; target: every row under 4 GiB on this 2-core, 24 GiB machine,
and nominal and interval alpha on 10**6 distinct values within 3x of reading the file.

Every variant is its own process (interpreter start included), wall clock and peak RSS from ``wait4``:

* floor: benchmarks/_e2e_floor.py (import numpy + pyarrow, read the CSV, sorted codes of the three columns, the
  items × labels and annotators × labels counts): what reading the file costs any tool;
* ours: ``iaa report FILE`` with default flags (``--level interval`` for the interval rows);
* krippendorff: benchmarks/_e2e_peers.py (pandas read, its annotators × items matrix, ``krippendorff.alpha``),
  only where its own tables fit: it allocates an items × values × values array (values: the distinct labels), so
  it is skipped when that exceeds 4 GiB and reported as such.

    python benchmarks/bench_memory.py [--cases NAME,...] [--repeat 1] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import _benchlib as bl
import numpy as np

bl.use_working_tree()

from bench_e2e import timed  # noqa: E402

HERE = Path(__file__).resolve().parent
GIB = 2**30
#: krippendorff's own tables (items × distinct values counts, annotators × items matrix) above this are not run.
PEER_BYTES = 4 * GIB


def _write(path: Path, item: np.ndarray, annotator: np.ndarray, label: list[str] | np.ndarray) -> None:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    table = pa.table(
        {"item": [f"doc{i:07d}" for i in item], "annotator": [f"w{a:05d}" for a in annotator], "label": label}
    )
    pcsv.write_csv(table, str(path))


def make_case(name: str, path: Path, scale: float) -> dict[str, Any]:
    """Write the case's CSV; returns what the case is (level, distinct values, items, annotators)."""
    rng = np.random.default_rng(7)
    kind, a, b = name.split("-")
    if kind in ("labels", "values"):
        distinct = int(float(a) * scale)
        items = distinct if kind == "labels" else distinct // 2
        item = np.repeat(np.arange(items), 2)
        annotator = np.tile([0, 1], items)
        if kind == "labels":  # each of the distinct labels twice, on random items
            label = np.array([f"L{v:07d}" for v in rng.permutation(np.tile(np.arange(distinct), 2))])
        else:  # distinct continuous ratings
            label = np.char.mod("%.9f", rng.permutation(rng.normal(size=item.size)))
        _write(path, item, annotator, label)
        return {
            "level": "interval" if kind == "values" else "nominal",
            "items": items,
            "annotators": 2,
            "distinct": int(np.unique(label).size),
            "rows": int(item.size),
        }
    n_ann, n_lab = int(float(a) * scale), int(float(b))
    rows = int(1_000_000 * scale)
    items = rows // 5
    item = rng.integers(0, items, rows)
    annotator = rng.integers(0, n_ann, rows)
    key = np.unique(item * n_ann + annotator)  # one label per (item, annotator)
    item, annotator = key // n_ann, key % n_ann
    label = np.array([f"c{v:04d}" for v in rng.integers(0, n_lab, item.size)])
    _write(path, item, annotator, label)
    return {
        "level": "nominal",
        "items": int(np.unique(item).size),
        "annotators": n_ann,
        "distinct": n_lab,
        "rows": int(item.size),
    }


CASES = [
    "labels-1e4-x",
    "labels-1e5-x",
    "values-1e5-x",
    "values-1e6-x",
    "annotators-1e3-1e2",
    "annotators-1e3-1e3",
    "annotators-1e4-1e2",
    "annotators-1e4-1e3",
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--data-dir", default=str(bl.OUT_DIR / "memory"))
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="a tenth of every size")
    args = ap.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    iaa = shutil.which("iaa", path=str(Path(python).parent)) or "iaa"
    machine = bl.machine_info()
    bench = bl.Bench()
    t_wall = time.perf_counter()
    rows = []
    for name in [c for c in args.cases.split(",") if c]:
        path = data_dir / f"{name}{'-quick' if args.quick else ''}.csv"
        meta = make_case(name, path, scale)
        level = meta["level"]
        commands = {
            "floor": [python, str(HERE / "_e2e_floor.py"), str(path)],
            "ours": [iaa, "report", str(path)] + (["--level", level] if level != "nominal" else []),
        }
        if level == "interval":
            commands["ours nominal"] = [iaa, "report", str(path)]  # the same distinct values as text labels
        # krippendorff builds items × V × V floats (its diagonal step) beside the annotators × items matrix
        peer_bytes = 8.0 * meta["items"] * (meta["distinct"] ** 2 + meta["annotators"])
        peer = "krippendorff" if level == "nominal" else "krippendorff-interval"
        if peer_bytes <= PEER_BYTES:
            commands["krippendorff"] = [python, str(HERE / "_e2e_peers.py"), peer, str(path)]
        res: dict[str, Any] = {}
        for key, cmd in commands.items():
            r = timed(cmd, bl.ROOT, args.repeat)
            res[key] = r
            label = f"{name:<20} {key}"
            bench.steps[f"{name}-{key}"] = {
                "key": f"{name}-{key}",
                "label": label,
                "group": name,
                "seconds": r["seconds"],
                "repeat": args.repeat,
                "peak_rss_extra_bytes": r["peak_rss_bytes"],
                "value": None,
            }
            bl.say(f"  {label:<36} {bl.fmt_s(r['seconds']):>10}   peak RSS {bl.fmt_bytes(r['peak_rss_bytes'])}")
        if "krippendorff" not in res:
            bl.say(
                f"  {name:<20} krippendorff: not run (its items × values × values table would need "
                f"{peer_bytes / GIB:,.0f} GiB)"
            )
        ours, floor = res["ours"], res["floor"]
        bench.compare(
            f"{name}: iaa report peak RSS (GiB)",
            ours=("iaa report", ours["peak_rss_bytes"] / GIB),
            reference=("4 GiB", 4.0),
            kind="baseline",
            ratio_def="ours/reference",
            target=("<=", 1.0),
        )
        tight = name.startswith("values-1e6")  # the 10**6 distinct values of the target
        for key in [k for k in ("ours", "ours nominal") if k in res]:
            bench.compare(
                f"{name}: {key} / reading the file (time)",
                ours=(key, res[key]["seconds"]),
                reference=("floor", floor["seconds"]),
                kind="baseline",
                ratio_def="ours/reference",
                target=("<=", 3.0) if tight and not args.quick else None,
            )
        if "krippendorff" in res:
            bench.compare(
                f"{name}: krippendorff from the file / iaa report",
                ours=("iaa report", ours["seconds"]),
                reference=("krippendorff", res["krippendorff"]["seconds"]),
                kind="peer",
                ratio_def="reference/ours",
            )
        rows.append({"case": name, **meta, **res})
    bl.say("")
    bl.print_comparisons(bench.comparisons)
    wall = time.perf_counter() - t_wall
    bl.say(f"\n  wall time {wall:.0f} s")
    if args.json:
        bl.write_json(
            args.json,
            {
                "benchmark": "memory",
                "script": "benchmarks/bench_memory.py",
                "title": "Many labels, many distinct values, many annotators: peak memory and time from the file",
                "command": " ".join([Path(sys.executable).name, *sys.argv]),
                "params": {"cases": args.cases, "repeat": args.repeat, "quick": args.quick},
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
