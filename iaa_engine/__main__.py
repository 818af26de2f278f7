"""``python -m iaa_engine`` is the ``iaa`` command."""

from .cli import run

run()
