"""A minimal progress line for long computations (bootstrap, Dawid-Skene), shown only on a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """``with Progress(total, "bootstrap") as p: p.update(k)`` draws ``bootstrap  40% 400/1000  3.1s`` on stderr.

    Parameters
    ----------
    total : int
        Steps expected (the line may finish early, e.g. when EM converges).
    desc : str
    show : bool or None
        ``None`` (default) shows the line only when the stream is a terminal;
        ``True``/``False`` force it.
    """

    def __init__(self, total: int, desc: str, *, show: bool | None = None, stream: TextIO | None = None) -> None:
        self.total = max(int(total), 1)
        self.desc = desc
        self.stream = stream or sys.stderr
        self.show = (hasattr(self.stream, "isatty") and self.stream.isatty()) if show is None else bool(show)
        self.done = 0
        self._start = time.perf_counter()
        self._last = 0.0

    def __enter__(self) -> Progress:
        return self

    def update(self, steps: int = 1) -> None:
        self.done += steps
        now = time.perf_counter()
        if self.show and (now - self._last > 0.1 or self.done >= self.total):
            self._last = now
            pct = 100 * min(self.done, self.total) / self.total
            self.stream.write(f"\r{self.desc}  {pct:3.0f}% {self.done}/{self.total}  {now - self._start:.1f}s")
            self.stream.flush()

    def __exit__(self, *exc: object) -> None:
        if self.show:
            self.stream.write("\n")
            self.stream.flush()
