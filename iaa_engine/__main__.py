"""``python -m iaa_engine`` is the ``iaa`` command."""

import sys

from .cli import main

sys.exit(main())
