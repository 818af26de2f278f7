"""Declarative parameter validation: one table of what every public option accepts, one error template.

Every public function of :mod:`iaa_engine` is decorated with :func:`validate`. The decorator reads the function's
signature and checks each argument the caller passed against a :class:`Constraint`: the function's own
(``@validate(rule=Choice(...))``) or, for the options that mean the same thing everywhere (``level``, ``weights``,
``n_boot``, ``seed``, ``progress``, ``replace_undefined_by``…), the shared one in :data:`PARAMS`. A parameter with
no constraint is a programming error caught when the module is imported, so a new option cannot slip through
unchecked (:data:`ANY` says "checked in the body", with the reason).

A bad argument raises :class:`InvalidParameterError` (a ``ValueError`` and a ``TypeError``) before any work, with
the message ``"<name> must be <what it accepts>; got <what came>"``.
"""

from __future__ import annotations

import functools
import inspect
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from iaa_engine.base._choices import DUPLICATE_RULES, LAYOUTS, LEVELS, SPA_WEIGHTS
from iaa_engine.base._policy import MAX_N_BOOT, InvalidParameterError, invalid

__all__ = [
    "InvalidParameterError",
    "Constraint",
    "Choice",
    "Whole",
    "Real",
    "Flag",
    "Text",
    "NoneOr",
    "AnyOf",
    "Instance",
    "Items",
    "Function",
    "Exactly",
    "SquareArray",
    "ANY",
    "PARAMS",
    "validate",
    "invalid",
]

F = TypeVar("F", bound=Callable[..., Any])


class Constraint:
    """What one option accepts: :meth:`accepts` decides, :attr:`description` completes "<name> must be …".

    :meth:`bad_examples` gives values it refuses (the test that walks the public API passes each of them).
    """

    description = "anything"

    def accepts(self, value: object) -> bool:
        return True

    def bad_examples(self) -> list[object]:
        return []

    def check(self, name: str, value: object) -> None:
        if not self.accepts(value):
            raise invalid(name, self.description, value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description!r})"


class _Any(Constraint):
    def __init__(self, why: str = "checked where it is used") -> None:
        self.why = why


#: No declarative check: the function checks the argument itself (e.g. an annotator name against the data).
ANY = _Any()


class Choice(Constraint):
    """One of a fixed set of names."""

    def __init__(self, *values: str) -> None:
        self.values = tuple(values)
        self.description = "one of " + ", ".join(repr(v) for v in self.values)

    def accepts(self, value: object) -> bool:
        return isinstance(value, str) and value in self.values

    def bad_examples(self) -> list[object]:
        return ["no-such-choice", 1, None]


def _is_whole(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


class Whole(Constraint):
    """A whole number (an ``int``, not a ``bool``, a float or a string) from ``low`` to ``high``."""

    def __init__(self, low: int, high: int | None = None) -> None:
        self.low, self.high = low, high
        self.description = (
            f"a whole number from {low} to {high}" if high is not None else f"a whole number of at least {low}"
        )

    def accepts(self, value: object) -> bool:
        return _is_whole(value) and self.low <= value and (self.high is None or value <= self.high)  # type: ignore[operator]

    def bad_examples(self) -> list[object]:
        out: list[object] = [self.low - 1, float(self.low) + 0.5, str(self.low), True]
        if self.high is not None:
            out.append(self.high + 1)
        return out


class Real(Constraint):
    """A finite real number in an interval; ``low_open`` / ``high_open`` exclude the ends."""

    def __init__(
        self, low: float = -math.inf, high: float = math.inf, *, low_open: bool = False, high_open: bool = False
    ) -> None:
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open
        if math.isinf(low) and math.isinf(high):
            self.description = "a finite number"
        elif math.isinf(high):
            self.description = f"a number {'greater than' if low_open else 'of at least'} {low:g}"
        elif math.isinf(low):
            self.description = f"a number {'less than' if high_open else 'of at most'} {high:g}"
        else:
            self.description = f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def accepts(self, value: object) -> bool:
        if not _is_real(value) or not math.isfinite(value):  # type: ignore[arg-type]
            return False
        v = float(value)  # type: ignore[arg-type]
        above = v > self.low if self.low_open else v >= self.low
        below = v < self.high if self.high_open else v <= self.high
        return above and below

    def bad_examples(self) -> list[object]:
        out: list[object] = ["0.5", math.nan, True]
        if not math.isinf(self.low):
            out.append(self.low if self.low_open else self.low - 1)
        if not math.isinf(self.high):
            out.append(self.high if self.high_open else self.high + 1)
        return out


class _Replacement(Constraint):
    description = "a number or nan"

    def accepts(self, value: object) -> bool:
        return _is_real(value)

    def bad_examples(self) -> list[object]:
        return ["0", None, True]


class Flag(Constraint):
    """``True`` or ``False``."""

    description = "True or False"

    def accepts(self, value: object) -> bool:
        return isinstance(value, (bool, np.bool_))

    def bad_examples(self) -> list[object]:
        return ["yes", 1, None]


class Text(Constraint):
    """A string (``empty=False``: a non-empty one)."""

    def __init__(self, *, empty: bool = False) -> None:
        self.empty = empty
        self.description = "a string" if empty else "a non-empty string"

    def accepts(self, value: object) -> bool:
        return isinstance(value, str) and (self.empty or value != "")

    def bad_examples(self) -> list[object]:
        return [3] if self.empty else ["", 3]


class Instance(Constraint):
    """An instance of one of ``types`` (described as ``what``)."""

    def __init__(self, types: type | tuple[type, ...], what: str) -> None:
        self.types, self.description = types, what

    def accepts(self, value: object) -> bool:
        return isinstance(value, self.types)

    def bad_examples(self) -> list[object]:
        return [object()]


class Items(Constraint):
    """A list, tuple or array (not a string) whose every element ``element`` accepts."""

    def __init__(self, element: Constraint | None = None, *, what: str | None = None, non_empty: bool = False) -> None:
        self.element, self.non_empty = element, non_empty
        self.description = what or (f"a sequence, each {element.description}" if element else "a sequence")

    def accepts(self, value: object) -> bool:
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)):
            if not _is_pandas_index_like(value):
                return False
        try:
            seq = list(value)  # type: ignore[call-overload]
        except TypeError:
            return False
        if self.non_empty and not seq:
            return False
        return self.element is None or all(self.element.accepts(v) for v in seq)

    def bad_examples(self) -> list[object]:
        out: list[object] = ["abc", 5]
        if self.element is not None:
            bad = self.element.bad_examples()
            if bad:
                out.append([bad[0]])
        return out


def _is_pandas_index_like(value: object) -> bool:
    return type(value).__module__.startswith("pandas") and hasattr(value, "__len__") and hasattr(value, "__iter__")


class NoneOr(Constraint):
    """``None`` or what ``inner`` accepts."""

    def __init__(self, inner: Constraint) -> None:
        self.inner = inner
        self.description = f"{inner.description}, or None"

    def accepts(self, value: object) -> bool:
        return value is None or self.inner.accepts(value)

    def bad_examples(self) -> list[object]:
        return [v for v in self.inner.bad_examples() if v is not None]


class AnyOf(Constraint):
    """What any of ``options`` accepts."""

    def __init__(self, *options: Constraint, what: str | None = None) -> None:
        self.options = options
        self.description = what or " or ".join(o.description for o in options)

    def accepts(self, value: object) -> bool:
        return any(o.accepts(value) for o in self.options)

    def bad_examples(self) -> list[object]:
        return [v for o in self.options for v in o.bad_examples() if not self.accepts(v)]


class Function(Constraint):
    """A callable (``what`` describes its signature)."""

    def __init__(self, what: str = "a callable") -> None:
        self.description = what

    def accepts(self, value: object) -> bool:
        return callable(value)

    def bad_examples(self) -> list[object]:
        return [3]


class Exactly(Constraint):
    """One particular value (e.g. ``-inf`` meaning "no threshold"), described as ``what``."""

    def __init__(self, value: object, what: str) -> None:
        self.value, self.description = value, what

    def accepts(self, value: object) -> bool:
        try:
            return bool(value == self.value) and type(value) is not bool
        except Exception:
            return False


class SquareArray(Constraint):
    """A square 2-D array of agreement weights: finite, in [0, 1], 1 on the diagonal (to 1e-12); its size is checked
    against the data where it is used."""

    description = "a square array of weights in [0, 1] with 1 on the diagonal"

    def accepts(self, value: object) -> bool:
        if isinstance(value, (str, bytes)) or value is None:
            return False
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return False
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or not np.isfinite(arr).all():
            return False
        tol = 1e-12
        return bool((arr >= -tol).all() and (arr <= 1 + tol).all() and (np.abs(np.diag(arr) - 1) <= tol).all())

    def bad_examples(self) -> list[object]:
        return [
            [[1.0, 0.5]],
            [[1.0, "x"], [0.0, 1.0]],
            [[1.0, np.nan], [0.0, 1.0]],
            [[1.0, -0.5], [-0.5, 1.0]],
            [[1.0, 1.5], [0.0, 1.0]],
            [[0.5, 0.0], [0.0, 1.0]],
        ]


#: Largest number of simulation replicates (``n_rep``), EM iterations (``max_iter``) and frequency strata.
MAX_N_REP = 100_000
MAX_ITER = 100_000
MAX_STRATA = 100


class _LocalWorkers(Constraint):
    """Worker processes of a local Dask cluster: from 1 to this machine's cores (more would only contend for them;
    a larger cluster runs behind a scheduler address)."""

    def __init__(self) -> None:
        self.cores = max(1, os.cpu_count() or 1)
        self.description = (
            f"a whole number from 1 to {self.cores} (this machine's cores; a larger cluster: give a scheduler address)"
        )

    def accepts(self, value: object) -> bool:
        return _is_whole(value) and 1 <= value <= self.cores  # type: ignore[operator]

    def bad_examples(self) -> list[object]:
        return [0, 1.5, "1", True, self.cores + 1]


class _Seed(Constraint):
    description = "None, a whole number of at least 0, or a numpy.random.Generator"

    def accepts(self, value: object) -> bool:
        return value is None or (_is_whole(value) and value >= 0) or isinstance(value, np.random.Generator)  # type: ignore[operator]

    def bad_examples(self) -> list[object]:
        return [-1, 1.5, "0"]


class _Progress(Constraint):
    description = "True, False or None (on a terminal only)"

    def accepts(self, value: object) -> bool:
        return value is None or isinstance(value, (bool, np.bool_))

    def bad_examples(self) -> list[object]:
        return ["yes", 1]


class _ColumnName(Constraint):
    description = "a column name (a string or a number)"

    def accepts(self, value: object) -> bool:
        return isinstance(value, (str, int, np.integer)) and not isinstance(value, (bool, np.bool_))

    def bad_examples(self) -> list[object]:
        return [None, ["item"]]


class _Path(Constraint):
    description = "a path (a string or os.PathLike)"

    def accepts(self, value: object) -> bool:
        return isinstance(value, (str, os.PathLike)) and str(value) != ""

    def bad_examples(self) -> list[object]:
        return [3, None, ""]


class _Continuum(Constraint):
    """A unitizing study's continuum: ``None`` (from the spans), ``(begin, length)``, a length, a mapping document ->
    one of those, or a DataFrame with columns ``document``, ``begin``, ``length`` (each entry checked where used)."""

    description = (
        "None, (begin, length), a mapping document -> (begin, length), or a DataFrame with columns document, "
        "begin, length"
    )

    def accepts(self, value: object) -> bool:
        if value is None or isinstance(value, Mapping) or type(value).__name__ == "DataFrame":
            return True
        if _is_real(value):
            return math.isfinite(value) and value >= 0  # type: ignore[arg-type,operator]
        return (
            isinstance(value, (tuple, list))
            and len(value) == 2
            and all(_is_real(v) and math.isfinite(v) for v in value)
            and value[1] >= 0
        )

    def bad_examples(self) -> list[object]:
        return ["0 10", (0,), (0, -1), (0, math.nan), True]


class _Participants(Constraint):
    """Who took part in which document of a span study: ``None`` (everyone in every document), a DataFrame with
    columns ``document`` and ``annotator``, or a mapping document -> annotators (the contents checked where used)."""

    description = (
        "None, a DataFrame with columns document and annotator (one row per annotator who took part in a document), "
        "or a mapping document -> annotators"
    )

    def accepts(self, value: object) -> bool:
        return value is None or isinstance(value, Mapping) or type(value).__name__ == "DataFrame"

    def bad_examples(self) -> list[object]:
        return ["doc1", [("doc1", "ann")], 3]


#: The options that mean the same thing in every public function, and what each accepts.
PARAMS: dict[str, Constraint] = {
    "level": NoneOr(Choice(*LEVELS)),
    "weights": Choice(*SPA_WEIGHTS),
    "replace_undefined_by": _Replacement(),
    "n_boot": Whole(2, MAX_N_BOOT),
    "confidence": Real(0, 1, low_open=True, high_open=True),
    "seed": _Seed(),
    "progress": _Progress(),
    "layout": Choice(*LAYOUTS),
    "duplicates": Choice(*DUPLICATE_RULES),
    "annotators_as": NoneOr(Choice("rows", "columns")),  # None: the matrix says (data._orient)
    "item": _ColumnName(),
    "annotator": _ColumnName(),
    "label": _ColumnName(),
    "categories": NoneOr(Items(what="a sequence of category names in order")),
    "na_values": Items(Text(empty=True), what="a sequence of strings"),
    "sep": Text(),
    "pairwise": AnyOf(Flag(), Choice("auto"), what="True, False or 'auto'"),
    "ci": Flag(),
    "annotator_metrics": Flag(),
    "hierarchy": NoneOr(Text()),
    "strata": NoneOr(Whole(1, MAX_STRATA)),
    "n_strata": Whole(1, MAX_STRATA),
    "names": NoneOr(Items(Text(empty=True), what="a sequence of strings")),
    "title": NoneOr(Text(empty=True)),
    "n_rep": Whole(1, MAX_N_REP),
    "max_iter": Whole(1, MAX_ITER),
    "tol": AnyOf(Real(0), Exactly(-math.inf, "-inf"), what="a number of at least 0, or -inf (run max_iter iterations)"),
    "tie_tolerance": Real(0),
    "n_workers": NoneOr(_LocalWorkers()),
    "path": _Path(),
    "continuum": _Continuum(),
    "overlaps": Choice("raise", "merge"),
    "participants": _Participants(),
    "annotator_a": ANY,
    "annotator_b": ANY,
    "keep": Items(_ColumnName(), what="a sequence of column names"),  # further columns kept beside the annotations
    "by": NoneOr(_ColumnName()),  # a kept column whose values are groups (agreement_by)
    "time": NoneOr(_ColumnName()),  # a kept column of timestamps (agreement_by, the scorecard's drift)
    "freq": Choice("D", "W", "M"),  # the windows of a time column: days, weeks (Monday-Sunday), calendar months
}


def validate(**own: Constraint) -> Callable[[F], F]:
    """Check a public function's arguments against ``own`` constraints and :data:`PARAMS` before it runs.

    ``self``/``cls``, the first parameter (the data, unless ``own`` names it) and ``**kwargs`` are the function's
    own to check: each converter says precisely what it could not read. Arguments
    equal to (``is``) their default are not checked again.

    Raises
    ------
    TypeError
        At decoration (import) time, for a parameter that neither ``own`` nor :data:`PARAMS` describes.
    """

    def decorate(func: F) -> F:
        sig = inspect.signature(func)
        names: list[str] = []
        checks: dict[str, tuple[Constraint, object]] = {}
        params = list(sig.parameters.values())
        first = 1 if params and params[0].name in ("self", "cls") else 0
        for i, p in enumerate(params):
            names.append(p.name)
            if i < first or (i == first and p.name not in own) or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            c = own.get(p.name, PARAMS.get(p.name))
            if c is None:
                raise TypeError(f"{func.__qualname__}: parameter {p.name!r} has no constraint (add one to validate)")
            if c is not ANY and not isinstance(c, _Any):
                checks[p.name] = (c, p.default)
        unknown = set(own) - set(names)
        if unknown:
            raise TypeError(f"{func.__qualname__}: validate names no such parameter(s) {sorted(unknown)!r}")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for name, value in zip(names, args):
                entry = checks.get(name)
                if entry is not None and value is not entry[1]:
                    entry[0].check(name, value)
            for name, value in kwargs.items():
                entry = checks.get(name)
                if entry is not None and value is not entry[1]:
                    entry[0].check(name, value)
            return func(*args, **kwargs)

        wrapper.__iaa_constraints__ = {n: own.get(n, PARAMS.get(n)) for n in names if n in own or n in PARAMS}  # type: ignore[attr-defined]
        wrapper.__iaa_checked__ = dict(checks)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
