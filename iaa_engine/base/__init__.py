"""Layer 0, used by every other: validation and the undefined-result policy, option choices, result
containers shared by the layers above, progress bars. Imports nothing from iaa_engine.

:class:`Progress` is the one progress bar of the project (tqdm on stderr, only on a terminal unless asked), also used
by the plugins."""

from iaa_engine.base._progress import Progress

__all__ = ["Progress"]
