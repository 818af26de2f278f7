"""Shared helpers of the benchmark scripts (timing, memory probes, machine info, JSON output).

Not a benchmark itself: ``run_all.py`` only runs files named ``bench_*.py``.
Standard library + numpy only, so every benchmark can import it.
"""

from __future__ import annotations

import datetime as _dt
import gc
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"  # git-ignored: logs, JSON and profiles of individual runs

MB = 1024.0 * 1024.0
GB = 1024.0 * MB


def use_working_tree() -> None:
    """Import ``iaa_engine`` from this checkout (not from some other installed copy)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def say(*args: Any) -> None:
    """print + flush, so progress shows up in logs while a long step runs."""
    print(*args, flush=True)


# --------------------------------------------------------------------------- memory probes


def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_bytes() -> int | None:
    """Current resident set size (Linux), or None."""
    kb = _status_kb("VmRSS")
    return None if kb is None else kb * 1024


def hwm_bytes() -> int | None:
    """Peak resident set size since start or since the last :func:`reset_peak_rss` (Linux), or None."""
    kb = _status_kb("VmHWM")
    return None if kb is None else kb * 1024


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter (VmHWM) of this process; False if unsupported.

    Writing ``5`` to ``/proc/self/clear_refs`` (Linux >= 4.0) resets VmHWM to
    the current RSS, which gives per-step peaks at zero run-time cost.
    """
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def ru_maxrss_bytes() -> int:
    """Peak RSS of the whole process run (``getrusage``; kB on Linux, bytes on macOS)."""
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r if sys.platform == "darwin" else r * 1024)


def mem_available_bytes() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def mem_total_bytes() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def fmt_bytes(n: float | None) -> str:
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "n/a"
    if abs(n) >= GB:
        return f"{n / GB:.2f} GB"
    return f"{n / MB:.0f} MB"


def fmt_s(s: float | None) -> str:
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return "n/a"
    if s < 0.01:
        return f"{s * 1000:.2f} ms"
    return f"{s:.3f} s"


# --------------------------------------------------------------------------- timed steps


class Bench:
    """Runs named steps with ``time.perf_counter``, recording the best time and the step's peak RSS.

    ``setup`` (untimed) runs before every repetition and its result is passed
    to ``fn``; the RSS peak is measured from just after ``setup`` (so it is the
    extra memory the step needed above what already existed).
    """

    def __init__(self, repeat: int = 1) -> None:
        self.repeat = max(int(repeat), 1)
        self.steps: dict[str, dict[str, Any]] = {}
        self.comparisons: list[dict[str, Any]] = []
        self.can_reset_peak = reset_peak_rss()

    def step(
        self,
        key: str,
        label: str,
        fn: Callable[..., Any],
        *,
        setup: Callable[[], Any] | None = None,
        repeat: int | None = None,
        value: Callable[[Any], Any] | None = None,
        group: str = "",
        indent: int = 2,
    ) -> Any:
        reps = self.repeat if repeat is None else max(int(repeat), 1)
        best = math.inf
        peak = None
        out = None
        for _ in range(reps):
            arg = setup() if setup is not None else None
            out = None
            gc.collect()
            base = rss_bytes()
            reset_peak_rss()
            t0 = time.perf_counter()
            out = fn(arg) if setup is not None else fn()
            dt = time.perf_counter() - t0
            best = min(best, dt)
            hwm = hwm_bytes()
            if self.can_reset_peak and base is not None and hwm is not None:
                peak = max(peak or 0, hwm - base)
            del arg
        val = value(out) if value is not None else (out if isinstance(out, (float, int)) else None)
        rec = {
            "key": key,
            "label": label,
            "group": group,
            "seconds": best,
            "repeat": reps,
            "peak_rss_extra_bytes": peak,
            "value": val,
        }
        self.steps[key] = rec
        line = f"{' ' * indent}{label:<66} {fmt_s(best):>11}"
        if peak is not None:
            line += f"   peak RSS +{fmt_bytes(peak)}"
        if val is not None and isinstance(val, float):
            line += f"   value {val:.12g}"
        say(line)
        return out

    def seconds(self, *keys: str) -> float:
        return float(sum(self.steps[k]["seconds"] for k in keys))

    def compare(
        self,
        name: str,
        *,
        ours: tuple[str, float],
        reference: tuple[str, float],
        kind: str,
        ratio_def: str,
        target: tuple[str, float] | None = None,
        values: tuple[float, float] | None = None,
        tolerance: float | None = None,
        note: str = "",
    ) -> dict[str, Any]:
        """Record one ratio. ``ratio_def`` is 'reference/ours' (a speed-up) or 'ours/reference' (a cost)."""
        (o_label, o_s), (r_label, r_s) = ours, reference
        ratio = r_s / o_s if ratio_def == "reference/ours" else o_s / r_s
        speed = "info"
        if target is not None:
            op, bound = target
            speed = "pass" if (ratio >= bound if op == ">=" else ratio <= bound) else "miss"
        vals = None
        status = speed
        if values is not None:
            a, b = float(values[0]), float(values[1])
            diff = abs(a - b)
            agree = bool(diff <= (tolerance if tolerance is not None else 1e-9))
            vals = {"ours": a, "reference": b, "abs_diff": diff, "tolerance": tolerance, "agree": agree}
            if not agree:
                status = "miss"
        rec = {
            "name": name,
            "ours": {"label": o_label, "seconds": o_s},
            "reference": {"label": r_label, "seconds": r_s, "kind": kind},
            "ratio_def": ratio_def,
            "ratio": ratio,
            "target": None if target is None else {"op": target[0], "value": target[1]},
            "speed_status": speed,
            "values": vals,
            "status": status,
            "note": note,
        }
        self.comparisons.append(rec)
        return rec


def tracemalloc_peak(fn: Callable[..., Any], setup: Callable[[], Any] | None = None) -> int:
    """Peak bytes allocated (as seen by tracemalloc; numpy reports its buffers) while ``fn`` runs."""
    arg = setup() if setup is not None else None
    gc.collect()
    tracemalloc.start()
    try:
        out = fn(arg) if setup is not None else fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del out, arg
    return int(peak)


def print_comparisons(comparisons: list[dict[str, Any]]) -> None:
    hdr = f"  {'comparison':<70} {'ours':>10} {'reference':>11} {'ratio':>9} {'target':>8}  status"
    say(hdr)
    say("  " + "-" * (len(hdr) - 2))
    for c in comparisons:
        t = c["target"]
        tgt = "-" if t is None else f"{t['op']} {t['value']:g}"
        r = c["ratio"]
        ratio = f"{r:.2f}x"
        name = c["name"]
        if len(name) > 70:  # long names get their own line
            say(f"  {name}")
            name = ""

        def shown(side: dict) -> str:  # a quantity labelled "(GB)" is a memory, not seconds
            return f"{side['seconds']:.3f} GB" if str(side["label"]).endswith("(GB)") else fmt_s(side["seconds"])

        say(
            f"  {name:<70} {shown(c['ours']):>10} {shown(c['reference']):>11} "
            f"{ratio:>9} {tgt:>8}  {c['status'].upper()}"
        )
        if c["values"] is not None:
            v = c["values"]
            say(
                f"  {'':<70} values: ours {v['ours']:.15g}, reference {v['reference']:.15g}, "
                f"|diff| {v['abs_diff']:.2e} ({'agree' if v['agree'] else 'DISAGREE'})"
            )


# --------------------------------------------------------------------------- machine and versions


def versions(*dists: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for d in dists:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = None
    return out


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git(*args: str) -> str | None:
    """Read-only git queries (``--no-optional-locks``: never rewrites the index)."""
    try:
        r = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(ROOT), *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def loadavg() -> list[float] | None:
    """1, 5 and 15 minute load averages: other work on the machine skews timings."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def machine_info() -> dict[str, Any]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores_logical": os.cpu_count(),
        "cores_usable": usable,
        "ram_total_bytes": mem_total_bytes(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "load_average": loadavg(),
        "git_commit": commit,
        "git_worktree_modified": None if dirty is None else bool(dirty),
        "versions": versions("numpy", "pandas", "scipy", "krippendorff", "statsmodels", "iaa-engine"),
    }


# --------------------------------------------------------------------------- JSON


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if hasattr(v, "item") and callable(v.item) and getattr(v, "shape", None) == ():
        v = v.item()  # numpy scalar
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def write_json(path: str | os.PathLike, obj: dict[str, Any]) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(_jsonable(obj), indent=2, allow_nan=False) + "\n")


def crowd_main(
    name: str,
    doc: str | None,
    warm_up: Any,
    run_size: Any,
    argv: list[str] | None = None,
) -> int:
    """The command line shared by the sparse-crowd benchmarks: write the crowd CSV of each size, call
    ``run_size(n, path, bench, repeat)`` for it, print every comparison and optionally write JSON.

    ``warm_up()`` runs once first (imports and caches outside the timings)."""
    import argparse
    import tempfile
    import time
    from pathlib import Path

    import _sparse_crowd

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000000", help="annotations, comma-separated")
    ap.add_argument("--repeat", type=int, default=3, help="round-robin runs of every variant (median reported)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", metavar="OUT", default=None)
    ap.add_argument("--quick", action="store_true", help="10**5 annotations, one run")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = "100000", 1
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    repeat = max(1, args.repeat)
    machine = machine_info()
    bench = Bench(repeat=repeat)
    t_wall = time.perf_counter()
    say("=" * 110)
    say(
        f"{name}: sparse crowd CSV (500 annotators, 5 labels, 1-8 per item); sizes "
        f"{', '.join(f'{n:_}' for n in sizes)}; median of {repeat} round-robin runs"
    )
    say(f"machine: {machine['cores_usable']} cores, Python {machine['python']}; load {machine['load_average']}")
    say("=" * 110)
    warm_up()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"crowd_{n}.csv"
            _sparse_crowd.write(str(path), n, seed=args.seed)
            rows.append(run_size(n, path, bench, repeat))
    say("\nall comparisons:")
    print_comparisons(bench.comparisons)
    wall = time.perf_counter() - t_wall
    say(f"\n  wall time {wall:.0f} s; peak RSS {fmt_bytes(ru_maxrss_bytes())}; load {loadavg()}")
    if args.json:
        write_json(
            args.json,
            {
                "benchmark": name,
                "machine": machine,
                "sizes": rows,
                "steps": bench.steps,
                "comparisons": bench.comparisons,
                "wall_seconds": wall,
            },
        )
    return 0
