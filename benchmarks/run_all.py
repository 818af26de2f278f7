#!/usr/bin/env python
"""Run every ``benchmarks/bench_*.py`` and write the results table to ``benchmarks/RESULTS.md``.

Each benchmark runs in its own subprocess (so peak-memory figures are per
benchmark) with ``--json OUT``; its console output is streamed here and saved
to ``benchmarks/out/<name>.log``. The JSON files are then rendered as one
Markdown report: machine info, a summary of every comparison (ours vs each
peer library or baseline, as ratios, with the target and pass/miss), and a
section per benchmark with all timed steps and memory figures.

Usage::

    python benchmarks/run_all.py            # full sizes (what `make bench` runs) -> benchmarks/RESULTS.md
    python benchmarks/run_all.py --quick    # each benchmark's own small sizes -> benchmarks/out/RESULTS.quick.md
    python benchmarks/run_all.py --only core -- --repeat 3   # arguments after -- go to every benchmark
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402

RESULTS = bl.BENCH_DIR / "RESULTS.md"


def discover(only: list[str]) -> list[Path]:
    scripts = sorted(bl.BENCH_DIR.glob("bench_*.py"))
    if only:
        scripts = [s for s in scripts if any(o in s.stem for o in only)]
    return scripts


def run_one(python: str, script: Path, quick: bool, extra: list[str], timeout: float | None) -> dict[str, Any]:
    tag = ".quick" if quick else ""
    json_path = bl.OUT_DIR / f"{script.stem}{tag}.json"
    log_path = bl.OUT_DIR / f"{script.stem}{tag}.log"
    bl.OUT_DIR.mkdir(parents=True, exist_ok=True)
    json_path.unlink(missing_ok=True)  # never report a stale result
    cmd = [python, str(script), "--json", str(json_path)] + (["--quick"] if quick else []) + extra
    shown = " ".join(
        [
            Path(python).name if python == sys.executable else python,
            str(script.relative_to(bl.ROOT)),
            "--json",
            str(json_path.relative_to(bl.ROOT)),
        ]
        + (["--quick"] if quick else [])
        + extra
    )
    bl.say(f"\n### {script.name}: {shown}")
    t0 = time.perf_counter()
    rc: int | str
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            cmd, cwd=bl.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        )
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                log.write(line)
                log.flush()
                if timeout and time.perf_counter() - t0 > timeout:
                    proc.kill()
                    break
            rc = proc.wait()
        except KeyboardInterrupt:
            proc.kill()
            raise
    elapsed = time.perf_counter() - t0
    if timeout and elapsed > timeout:
        rc = f"killed after {timeout:.0f} s (--timeout)"
    result: dict[str, Any] = {
        "script": script.name,
        "command": shown,
        "returncode": rc,
        "elapsed": elapsed,
        "log": str(log_path.relative_to(bl.ROOT)),
        "data": None,
    }
    if rc == 0 and json_path.exists():
        result["data"] = json.loads(json_path.read_text())
    else:
        tail = log_path.read_text().splitlines()[-15:]
        result["error_tail"] = tail
        bl.say(f"!!! {script.name} failed (return code {rc}); see {log_path}")
    return result


def load_previous(script: Path, quick: bool) -> dict[str, Any]:
    tag = ".quick" if quick else ""
    json_path = bl.OUT_DIR / f"{script.stem}{tag}.json"
    log_path = bl.OUT_DIR / f"{script.stem}{tag}.log"
    data = json.loads(json_path.read_text()) if json_path.exists() else None
    cmd = data.get("command", "") if data else ""
    return {
        "script": script.name,
        "command": cmd,
        "returncode": 0 if data else "no JSON from a previous run",
        "elapsed": (data or {}).get("wall_seconds", 0.0),
        "log": str(log_path.relative_to(bl.ROOT)),
        "data": data,
        "error_tail": [],
    }


# --------------------------------------------------------------------------- Markdown


def _s(sec: float | None) -> str:
    return bl.fmt_s(sec)


def _ratio_cell(c: dict[str, Any]) -> str:
    r = c["ratio"]
    return "n/a" if r is None else f"{r:.2f}×"


def _target_cell(c: dict[str, Any]) -> str:
    t = c.get("target")
    return "–" if not t else f"{t['op'].replace('>=', '≥').replace('<=', '≤')} {t['value']:g}"


def _status_cell(c: dict[str, Any]) -> str:
    return {"pass": "**pass**", "miss": "**MISS**", "info": "info"}.get(c["status"], c["status"])


def _values_cell(c: dict[str, Any]) -> str:
    v = c.get("values")
    if not v:
        return "–"
    mark = "same" if v["agree"] else "**DIFFERENT**"
    return f"{v['ours']:.12g} vs {v['reference']:.12g} (\\|Δ\\| {v['abs_diff']:.1e}, {mark})"


def _ratio_def(c: dict[str, Any]) -> str:
    return "peer ÷ ours (speed-up)" if c["ratio_def"] == "reference/ours" else "ours ÷ reference (cost)"


def render(results: list[dict[str, Any]], machine: dict[str, Any], argv: list[str], quick: bool) -> str:
    v = machine["versions"]
    commit = machine.get("git_commit") or "unknown"
    if machine.get("git_worktree_modified"):
        commit += " (working tree has uncommitted changes)"
    lines = [
        "# Benchmark results",
        "",
        f"Generated {machine['date_utc']} by `{' '.join(['python', 'benchmarks/run_all.py', *argv])}`"
        + (" — **quick sizes, not the issue's targets**" if quick else "")
        + ".",
        "Every benchmark runs our code and the peer libraries side by side in one process and reports ratios;",
        "speed targets are measured here only, never asserted in tests. Regenerate with `make bench`.",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        f"| CPU | {machine['cpu']} |",
        f"| cores | {machine['cores_logical']} logical, {machine['cores_usable']} usable |",
        f"| RAM | {bl.fmt_bytes(machine['ram_total_bytes'])} |",
        f"| load average (1/5/15 min) at start | {machine.get('load_average')} |",
        f"| OS | {machine['platform']} |",
        f"| Python | {machine['python']} ({machine['python_implementation']}) |",
        f"| numpy / pandas / scipy | {v['numpy']} / {v['pandas']} / {v['scipy']} |",
        f"| krippendorff / statsmodels | {v['krippendorff']} / {v['statsmodels']} |",
        f"| iaa-engine | {v['iaa-engine']}, commit {commit} |",
        "",
        "## Summary",
        "",
        "Ratios: for a peer library, *peer time ÷ our time* (higher is better); for a baseline of our own "
        "(e.g. the count table), *our time ÷ baseline time* (lower is better).",
        "",
        "| benchmark | comparison | ours | reference | ratio | target | result |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        d = r["data"]
        if d is None:
            lines.append(f"| {r['script']} | **failed** (return code {r['returncode']}, log `{r['log']}`) | | | | | |")
            continue
        for c in d["comparisons"]:
            lines.append(
                f"| {d['benchmark']} | {c['name']} | {_s(c['ours']['seconds'])} | "
                f"{_s(c['reference']['seconds'])} | {_ratio_cell(c)} | {_target_cell(c)} | "
                f"{_status_cell(c)} |"
            )
    for r in results:
        lines += ["", f"## {r['script']}", ""]
        d = r["data"]
        if d is None:
            lines += [
                f"Failed: return code {r['returncode']} after {r['elapsed']:.0f} s. Last lines of `{r['log']}`:",
                "",
                "```",
                *r.get("error_tail", []),
                "```",
            ]
            continue
        lines += [
            f"{d.get('title', '')}",
            "",
            f"Command: `{r['command']}` (wall time {r['elapsed']:.0f} s, log `{r['log']}`)",
            "",
        ]
        p = d.get("params", {})
        if p:
            lines += [
                "Parameters: "
                + ", ".join(
                    f"{k} = {p[k]:_}"
                    if isinstance(p[k], int) and not isinstance(p[k], bool) and k != "seed"
                    else f"{k} = {p[k]:.4g}"
                    if isinstance(p[k], float)
                    else f"{k} = {p[k]}"
                    for k in p
                ),
                "",
            ]
        if "observed_agreement" in d:
            lines += [f"Observed pairwise agreement of the generated data: {d['observed_agreement']:.4f}", ""]
        lines += [
            "| comparison | ours | reference | ratio | target | result | values (ours vs reference) |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in d["comparisons"]:
            note = f" — {c['note']}" if c.get("note") else ""
            lines.append(
                f"| {c['name']}{note} | {c['ours']['label']}: {_s(c['ours']['seconds'])} | "
                f"{c['reference']['label']}: {_s(c['reference']['seconds'])} | {_ratio_cell(c)} "
                f"({_ratio_def(c)}) | {_target_cell(c)} | {_status_cell(c)} | {_values_cell(c)} |"
            )
        if d.get("machine", {}).get("load_average") is not None:
            lines += [
                f"Load average at the start / end of this benchmark: {d['machine']['load_average']} / "
                f"{d.get('load_average_end')} (on {d['machine'].get('cores_usable')} cores; "
                "above ~1, other processes competed for the CPU and timings are pessimistic).",
                "",
            ]
        mem = d.get("memory", {})
        lines += ["", f"Process peak RSS (`ru_maxrss`, whole run): **{bl.fmt_bytes(mem.get('ru_maxrss_bytes'))}**.", ""]
        ki = d.get("krippendorff_input")
        if ki and ki.get("mode") not in (None, "skip"):
            lines += [
                f"krippendorff.alpha input: {ki['mode']} "
                f"({bl.fmt_bytes(ki.get('input_bytes'))}; memory available before building it "
                f"{bl.fmt_bytes(ki.get('mem_available_bytes'))}).",
                "",
            ]
        lines += [
            "All timed steps (best of the repetitions; *peak RSS* is the step's peak resident memory above "
            "the RSS before it, a lower bound when freed memory is reused; *tracemalloc* is the peak "
            "allocation in a separate untimed pass):",
            "",
            "| step | time | peak RSS | tracemalloc | value |",
            "|---|---|---|---|---|",
        ]
        for st in d["steps"]:
            val = st.get("value")
            val = f"{val:.12g}" if isinstance(val, float) else ("" if val is None else str(val))
            tm = st.get("tracemalloc_peak_bytes")
            label = st["label"].replace("|", "\\|")
            if st.get("group"):
                label = f"{st['group']}: {label.strip()}"
            lines.append(
                f"| {label} | {_s(st['seconds'])} | {bl.fmt_bytes(st.get('peak_rss_extra_bytes'))} | "
                f"{bl.fmt_bytes(tm) if tm is not None else ''} | {val} |"
            )
        if d.get("report_values"):
            rv = d["report_values"]
            lines += ["", "Report values: " + ", ".join(f"{k} {x:.6f}" for k, x in rv.items() if x is not None)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    own, extra = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="run every benchmark with its own --quick (small) sizes; "
        "writes benchmarks/out/RESULTS.quick.md "
        "unless --output is given, so the full results are not overwritten",
    )
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only benchmarks whose file name contains NAME (repeatable)",
    )
    ap.add_argument("--output", default=None, help="Markdown file to write (default benchmarks/RESULTS.md)")
    ap.add_argument("--timeout", type=float, default=None, help="kill a benchmark after this many seconds")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the benchmarks (default: this one)")
    ap.add_argument(
        "--render-only",
        action="store_true",
        help="run nothing: rebuild the Markdown from the JSON files of the last run in benchmarks/out/",
    )
    args = ap.parse_args(own)
    out = Path(args.output) if args.output else (bl.OUT_DIR / "RESULTS.quick.md" if args.quick else RESULTS)

    scripts = discover(args.only)
    if not scripts:
        bl.say("no benchmarks matched")
        return 1
    machine = bl.machine_info()
    if args.render_only:
        results = [load_previous(s, args.quick) for s in scripts]
        if results and results[0]["data"]:
            machine = results[0]["data"].get("machine", machine)  # the machine and date of that run
        argv = [a for a in argv if a != "--render-only"]
    else:
        bl.say(
            f"running {len(scripts)} benchmark(s): {', '.join(s.name for s in scripts)}"
            + (" (quick sizes)" if args.quick else "")
        )
        results = [run_one(args.python, s, args.quick, extra, args.timeout) for s in scripts]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(results, machine, argv, args.quick))
    bl.say(f"\nwrote {out}")
    failed = [r["script"] for r in results if r["data"] is None]
    missed = [
        f"{r['data']['benchmark']}: {c['name']}"
        for r in results
        if r["data"]
        for c in r["data"]["comparisons"]
        if c["status"] == "miss"
    ]
    if failed:
        bl.say(f"failed: {', '.join(failed)}")
    if missed:
        bl.say("targets missed: " + "; ".join(missed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
