"""Input validation and the one policy for undefined results.

Every public function of :mod:`iaa_engine` follows the rules in this module:

* A bad argument raises :class:`InvalidParameterError` (a :class:`ValueError`
  and a :class:`TypeError`) whose message says what was expected and what came,
  ``"<name> must be <what it accepts>; got <what came>"`` (built by
  :func:`invalid`; :func:`check_choice` for an option that takes one of a fixed
  set of names).
* A coefficient that is mathematically undefined for the data at hand (for
  example a kappa whose expected agreement is 1, so that it is 0/0, or an
  agreement computed over no pair of annotations) is *not* an error. It is
  returned as ``replace_undefined_by`` (default ``nan``) and, for scalar
  results, an :class:`UndefinedMetricWarning` says why. Entries of pairwise
  matrices follow the same replacement rule but do not warn (a sparse design
  routinely has pairs of annotators who share no item; ``n_shared`` tells which).
* Items with fewer than two annotations have no agreement. They are excluded
  from every agreement computation and counted as excluded.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Iterable

import numpy as np

__all__ = [
    "InvalidParameterError",
    "invalid",
    "UndefinedMetricWarning",
    "check_choice",
    "undefined",
    "external_stacklevel",
    "safe_ratio",
    "EPS",
    "check_memory",
    "MAX_N_BOOT",
    "check_n_boot",
]

#: The most bootstrap replicates one call computes (a percentile interval is stable long before).
MAX_N_BOOT = 100_000

#: Denominators at or below this magnitude are treated as zero.
EPS = 1e-12


class InvalidParameterError(ValueError, TypeError):
    """An argument of a public function is not one it accepts: raised before any work is done.

    Every public function checks its options (``level``, ``weights``, ``n_boot``, ``confidence``, ``seed``,
    ``replace_undefined_by``, ``distance``, ...) on entry and raises this error for a value of the wrong type or
    outside what it accepts: an unknown name, a number out of range, a string where a number belongs. It is a
    subclass of both :class:`ValueError` and :class:`TypeError`, so ``except ValueError`` catches a bad value and
    ``except TypeError`` a wrong type. The message is ``"<name> must be <what it accepts>; got <what came>"``.
    Problems only the data can reveal (an annotator that is not in it, labels a level cannot use) are plain
    ``ValueError``.

    Examples
    --------
    >>> import iaa_engine as ie
    >>> from importlib.resources import files
    >>> data = ie.read(files("iaa_engine") / "examples" / "classroom.csv")
    >>> try:
    ...     ie.bootstrap(data, n_boot=1)
    ... except ValueError as error:
    ...     print(type(error).__name__, "-", error)
    InvalidParameterError - n_boot must be a whole number from 2 to 100000; got 1
    """


def invalid(name: str, expected: str, value: object) -> InvalidParameterError:
    """The project's one error for a bad argument (raise what this returns)."""
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    if not isinstance(value, (str, int, float, bool, type(None), np.generic)) and not shown.startswith("<"):
        shown = f"{shown} ({type(value).__name__})"
    return InvalidParameterError(f"{name} must be {expected}; got {shown}")


class UndefinedMetricWarning(UserWarning):
    """A coefficient is undefined for this data and was replaced by ``replace_undefined_by``.

    Issued by a function that returns one number (or one result, such as :func:`alpha_variance`) when that number
    is mathematically undefined for the data at hand: no item has two or more annotations, or a chance-corrected
    coefficient is 0/0 because every annotation is in the same category (expected agreement 1, expected
    disagreement 0). The function then returns ``replace_undefined_by`` (default ``nan``) instead of raising, and
    the warning says which coefficient and why; it points at the caller's line. Pairwise matrices and per-item or
    per-group tables fill undefined entries without warning. Silence it with :mod:`warnings` filters, or turn it
    into an error with ``warnings.simplefilter("error", UndefinedMetricWarning)``.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> same = pd.DataFrame({"item": ["a", "a"], "annotator": ["x", "y"], "label": "u"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = ie.krippendorff_alpha(same, replace_undefined_by=1.0)
    >>> value, caught[0].category.__name__
    (1.0, 'UndefinedMetricWarning')
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    Krippendorff's alpha is undefined: every pairable value is the same, ...; returning 1.0 (see replace_undefined_by)
    """


def check_choice(name: str, value: object, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed``; raise the project's one error otherwise.

    The message template is ``"<name> must be one of 'a', 'b'; got 'x'"``.
    """
    allowed = tuple(allowed)
    if not isinstance(value, str) or value not in allowed:
        raise invalid(name, "one of " + ", ".join(repr(a) for a in allowed), value)
    return value


def check_replacement(value: object) -> float:
    """Validate ``replace_undefined_by``: a real number or nan."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise invalid("replace_undefined_by", "a number or nan", value)
    return float(value)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def external_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning raised by the calling function point at the user's line.

    Counts the frames from the function that calls this one up to the first frame outside the ``iaa_engine``
    package, however deep inside the library the warning arises (a fixed number would point inside it).
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def undefined(metric: str, reason: str, replace_undefined_by: float) -> float:
    """Return the replacement for an undefined scalar and warn once about it (at the caller's line)."""
    value = check_replacement(replace_undefined_by)
    warnings.warn(
        f"{metric} is undefined: {reason}; returning {value!r} (see replace_undefined_by)",
        UndefinedMetricWarning,
        stacklevel=external_stacklevel(),
    )
    return value


def safe_ratio(num: np.ndarray, den: np.ndarray, fill: float) -> np.ndarray:
    """Elementwise ``num / den`` with ``fill`` where ``|den| <= EPS``."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, fill, dtype=float)
    ok = np.abs(den) > EPS
    np.divide(num, den, out=out, where=ok)
    return out


def chance_corrected(
    observed: float, expected: float, metric: str, replace_undefined_by: float, *, n_pairs: float = 1
) -> float:
    """``(observed - expected) / (1 - expected)`` under the undefined-result policy."""
    if n_pairs <= 0 or not math.isfinite(observed):
        return undefined(metric, "no item has two or more annotations", replace_undefined_by)
    if 1.0 - expected <= EPS:
        return undefined(
            metric,
            "expected agreement is 1 (every annotation is in the same category), so the coefficient is 0/0",
            replace_undefined_by,
        )
    return float((observed - expected) / (1.0 - expected))


class NotEnoughMemoryError(ValueError):
    """The computation would need more memory than the machine has; raised before allocating, with a way out."""


def available_memory() -> int:
    """Bytes this process can still allocate: MemAvailable, capped by an address-space limit if one is set."""
    avail = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if avail is None:
        import os

        try:
            avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            avail = 1 << 62
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            avail = min(avail, soft)
    except (ImportError, ValueError, OSError):
        pass
    return int(avail)


def check_memory(need_bytes: float, what: str, way_out: str) -> None:
    """Refuse, before allocating, a step that needs more memory than is available (one line: estimate, way out)."""
    avail = available_memory()
    if need_bytes > avail:
        raise NotEnoughMemoryError(
            f"{what} would need about {_gib(need_bytes)} of memory and {_gib(avail)} is available; {way_out}"
        )


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def check_n_boot(n_boot: object) -> int:
    """``n_boot``: a whole number from 2 to :data:`MAX_N_BOOT`."""
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or not 2 <= n_boot <= MAX_N_BOOT:
        raise invalid("n_boot", f"a whole number from 2 to {MAX_N_BOOT}", n_boot)
    return int(n_boot)
