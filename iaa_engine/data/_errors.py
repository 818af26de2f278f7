"""An input error worded for the surface the user touched: Python keywords, or command-line flags."""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """A ``ValueError`` whose message names Python keywords (``duplicates='first'``), with the same message in
    command-line terms (``--duplicates first``) in :attr:`cli`, which the ``iaa`` command prints instead."""

    def __init__(self, message: str, *, cli: str | None = None) -> None:
        super().__init__(message)
        self.cli = cli if cli is not None else message
