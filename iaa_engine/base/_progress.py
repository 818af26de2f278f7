"""A progress bar for long computations (bootstrap, Dawid-Skene), shown only on a terminal: tqdm, imported lazily."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

__all__ = ["Progress"]


class Progress:
    """``with Progress(total, "bootstrap") as p: p.update(k)`` draws a :mod:`tqdm` bar on stderr.

    Parameters
    ----------
    total : int or None
        Steps expected (the bar may finish early, e.g. when EM converges); None when unknown (a counter).
    desc : str
    show : bool or None
        ``None`` (default) shows the bar only when the stream is a terminal;
        ``True``/``False`` force it. tqdm is imported only when the bar is shown.
    stream : text stream, optional
        Where the bar goes (default: ``sys.stderr``).
    """

    def __init__(self, total: int | None, desc: str, *, show: bool | None = None, stream: TextIO | None = None) -> None:
        self.total = max(int(total), 1) if total is not None else None
        self.desc = desc
        self.stream = stream or sys.stderr
        self.show = (hasattr(self.stream, "isatty") and self.stream.isatty()) if show is None else bool(show)
        self.done = 0
        self._bar: Any = None
        if self.show:
            from tqdm import tqdm

            # tqdm draws nothing on a terminal of size 0 × 0 (a pseudo-terminal never sized: `script`, some CI runners)
            size = {"ncols": 80, "nrows": 20} if _width(self.stream) == 0 else {}
            self._bar = tqdm(total=self.total, desc=desc, file=self.stream, mininterval=0.1, **size)

    def __enter__(self) -> Progress:
        return self

    def update(self, steps: int = 1) -> None:
        self.done += steps
        if self._bar is not None:
            self._bar.update(steps)

    def close(self) -> None:
        """End the bar (its line stays on the terminal). Called by ``with``; safe to call twice."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __exit__(self, *exc: object) -> None:
        self.close()


def _width(stream: TextIO) -> int | None:
    """The stream's terminal width (0 for a terminal without a size), None when it is not a terminal."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return None
