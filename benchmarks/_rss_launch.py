"""Run a command and write its wall time, CPU time and peak RSS (from wait4) to a file: a small launcher between the
benchmark and the measured process.

Linux gives a new process the peak RSS of the process it was forked from (the copied address space counts until
exec), so a benchmark holding gigabytes of generated data would lend that peak to every command it starts. Started
from this small interpreter instead, a command's peak RSS is its own (plus at most this launcher's few MB).

    python benchmarks/_rss_launch.py OUT.json -- CMD [ARG...]
"""

import json
import os
import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    out, sep, cmd = argv[0], argv[1], argv[2:]
    if sep != "--" or not cmd:
        raise SystemExit(__doc__)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    with open(out, "w") as fh:
        json.dump(
            {
                "seconds": wall,
                "peak_rss_bytes": usage.ru_maxrss * 1024,
                "cpu_seconds": usage.ru_utime + usage.ru_stime,  # user + system: less sensitive to others' load
                "returncode": os.waitstatus_to_exitcode(status),
            },
            fh,
        )
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
