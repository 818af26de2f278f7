"""Run a command and write its wall time, CPU time and peak RSS (from wait4) to a file: a small launcher between the
benchmark and the measured process.

Linux gives a new process the peak RSS of the process it was forked from (the copied address space counts until
exec), so a benchmark holding gigabytes of generated data would lend that peak to every command it starts. Started
from this small interpreter instead, a command's peak RSS is its own (plus at most this launcher's few MB).

A command that starts processes of its own (a local Dask cluster: a scheduler in the client, a nanny and a worker
process per worker) has its memory spread over them, and wait4's peak is the largest single process's. While the
command runs, this launcher reads every process of its tree from /proc every 50 ms and keeps each one's high-water
mark (VmHWM, the kernel's own peak of that process); ``tree_peak_rss_bytes`` is their sum, an upper bound of the
tree's simultaneous peak (equal to it when the processes peak together), and ``tree_cpu_seconds`` the CPU time of
the whole tree (wait4 counts only the descendants that were waited for; /proc's readings, taken every 50 ms, the
others up to their last reading).

    python benchmarks/_rss_launch.py OUT.json -- CMD [ARG...]
"""

import json
import os
import subprocess
import sys
import threading
import time


def _children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (a process started from another thread, as Dask's nannies are,
    is listed under that thread only)."""
    out: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(p) for p in fh.read().split())
        except OSError:
            continue
    return out


def _status(pid: int) -> tuple[int, float] | None:
    """A process's VmHWM (bytes) and CPU seconds (user + system), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            hwm = next((int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:")), 0)
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return hwm, (int(fields[11]) + int(fields[12])) / tick
    except (OSError, StopIteration, IndexError, ValueError):
        return None


def _watch(root: int, peaks: dict, cpu: dict, done: threading.Event) -> None:
    while not done.is_set():
        todo, seen = [root], set()
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            got = _status(pid)
            if got is not None:
                peaks[pid] = max(peaks.get(pid, 0), got[0])
                cpu[pid] = max(cpu.get(pid, 0.0), got[1])
            todo.extend(_children(pid))
        done.wait(0.05)


def main(argv: list[str]) -> int:
    out, sep, cmd = argv[0], argv[1], argv[2:]
    if sep != "--" or not cmd:
        raise SystemExit(__doc__)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    peaks: dict = {}
    cpu: dict = {}
    done = threading.Event()
    watcher = threading.Thread(target=_watch, args=(proc.pid, peaks, cpu, done), daemon=True)
    watcher.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    done.set()
    watcher.join()
    own_peak = usage.ru_maxrss * 1024
    own_cpu = usage.ru_utime + usage.ru_stime
    others = {p: v for p, v in peaks.items() if p != proc.pid}
    with open(out, "w") as fh:
        json.dump(
            {
                "seconds": wall,
                "peak_rss_bytes": own_peak,
                "cpu_seconds": own_cpu,  # user + system: less sensitive to others' load
                "tree_peak_rss_bytes": own_peak + sum(others.values()),
                # wait4 adds the descendants its process waited for; /proc's last readings add those it did not
                "tree_cpu_seconds": max(own_cpu, sum(cpu.values())),
                "tree_processes": 1 + len(others),
                "returncode": os.waitstatus_to_exitcode(status),
            },
            fh,
        )
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
