"""Declarative validation: every public function checks every option, with one error template, before any work;
the undefined-result policy on every coefficient, with the warning at the caller's line."""

from __future__ import annotations

import inspect
import math
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.base._params import ANY, PARAMS, Constraint, InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]
CLASSROOM = ROOT / "iaa_engine" / "examples" / "classroom.csv"
TEMPLATE = r"^{name} must be .+; got .+$"

#: Callables that take no option of their own (only ``**kwargs`` passed on to a validated function, or nothing).
NO_OPTIONS = {"MetricSpec.compute": "passes its options to the metric's function, which validates them"}


def _public_callables():
    """Every public function, and every public method of a public class that takes an argument."""
    out = {}
    for name in ie.__all__:
        obj = getattr(ie, name)
        if inspect.isfunction(obj):
            out[name] = obj
        elif inspect.isclass(obj) and obj.__module__.startswith("iaa_engine"):
            for attr, raw in vars(obj).items():
                if attr.startswith("_"):
                    continue
                fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
                if inspect.isfunction(fn):
                    out[f"{name}.{attr}"] = getattr(obj, attr)
    return out


def _options(fn) -> list[inspect.Parameter]:
    params = list(inspect.signature(fn).parameters.values())
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    return [p for p in params[1:] if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]


CALLABLES = _public_callables()


def test_the_walk_sees_the_whole_api():
    names = set(CALLABLES)
    assert {"spa", "bootstrap", "report", "read", "gold_standard", "Annotations.from_long", "alpha_variance"} <= names
    assert len(names) > 60


@pytest.mark.parametrize("qualname", sorted(CALLABLES))
def test_every_option_of_every_public_callable_is_declared(qualname):
    fn = CALLABLES[qualname]
    options = _options(fn)
    if qualname in NO_OPTIONS or not options and not hasattr(fn, "__iaa_constraints__"):
        return
    declared = getattr(fn, "__iaa_constraints__", None)
    assert declared is not None, f"{qualname} takes options {[p.name for p in options]} but is not @validate'd"
    for p in options:
        assert p.name in declared, f"{qualname}: option {p.name!r} has no constraint"
        c = declared[p.name]
        if p.default is not inspect.Parameter.empty and c is not ANY:
            assert c.accepts(p.default), f"{qualname}: the default {p.name}={p.default!r} is refused by {c!r}"


@pytest.fixture(scope="module")
def classroom():
    return ie.read(CLASSROOM)


def _call_args(qualname: str, data, tmp_path):
    """Arguments that make each public callable valid apart from the one option the test breaks."""
    table = data.to_long()
    bound = {
        "read": ((str(CLASSROOM),), {}),
        "write_html_report": ((data, str(tmp_path / "r.html")), {}),
        "group_agreement": ((data, lambda item: 0), {}),
        "bcr_weights": ((data, "diff"), {}),
        "estimate": ((data, "fleiss_kappa"), {}),
        "item_agreement_variance": ((np.array([2, 3]), np.array([0.5, 0.5])), {}),
        "read_dask": (("nothing.parquet",), {}),
        "summarize_dask": ((None,), {}),
        "Annotations.from_long": ((table,), {}),
        "Annotations.from_wide": ((table.pivot(index="annotator", columns="item", values="label"),), {}),
        "Annotations.from_counts": (([[1, 2], [3, 0]],), {}),
        "Annotations.from_stats": ((None,), {"items": 2, "categories": ["a"]}),
        "Annotations.with_level": (("nominal",), {}),
        "Annotations.require_annotators": (("x",), {}),
    }
    if qualname in bound:
        return bound[qualname]
    if qualname.startswith("Annotations."):
        return (), {}
    if qualname.startswith("GoldStandard."):
        return ((data.annotators[0],) if qualname.endswith("confusion_matrix") else ()), {}
    return (data,), {}


def _target(qualname: str, data, gold):
    head, _, attr = qualname.partition(".")
    if not attr:
        return CALLABLES[qualname]
    if head == "Annotations" and not isinstance(inspect.getattr_static(ie.Annotations, attr), classmethod):
        return getattr(data, attr)
    if head == "GoldStandard":
        return getattr(gold, attr)
    return getattr(getattr(ie, head), attr)


def _cases():
    for qualname, fn in sorted(CALLABLES.items()):
        for name, c in getattr(fn, "__iaa_checked__", {}).items():
            for k, bad in enumerate(c[0].bad_examples()):
                yield pytest.param(qualname, name, bad, id=f"{qualname}-{name}-{k}")


@pytest.mark.parametrize("qualname, name, bad", list(_cases()))
def test_a_bad_option_is_refused_first_with_the_one_template(qualname, name, bad, classroom, tmp_path):
    gold = ie.gold_standard(classroom)
    args, kwargs = _call_args(qualname, classroom, tmp_path)
    target = _target(qualname, classroom, gold)
    with pytest.raises(InvalidParameterError) as info:
        target(*args, **{**kwargs, name: bad})
    message = str(info.value)
    assert message.startswith(f"{name} must be ") and "; got " in message, message
    constraint = CALLABLES[qualname].__iaa_checked__[name][0]
    assert message == f"{name} must be {constraint.description}; got {message.split('; got ', 1)[1]}"
    assert "\n" not in message
    # refused at the boundary: no frame of the function's own body (nor numpy's) is on the traceback
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert frames[-1] == "check" and "wrapper" in frames, frames
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_shared_options_mean_one_thing():
    """The same option name has one constraint across the API unless a function says otherwise on purpose."""
    own = {}
    for qualname, fn in CALLABLES.items():
        for name, c in getattr(fn, "__iaa_constraints__", {}).items():
            if name in PARAMS and c is not PARAMS[name]:
                own.setdefault(name, set()).add(qualname)
    # ``level``: the converters build data, so they need a level (no None); ``path``: ``read``'s first argument;
    # ``annotator`` of ``GoldStandard.confusion_matrix`` is an annotator's name, elsewhere a column's;
    # ``weights`` of the kappa family are agreement weights between categories (Gwet's families or an array),
    # elsewhere SPA's item weighting (the two are documented side by side; the CLI has distinct flags);
    # ``n_boot`` of the HTML report also takes 0 (no bootstrap); ``item`` and ``annotator`` of the judgments
    # functions (preferences, rankings) also take None: the column ``prompt`` else ``item``, ``judge`` else
    # ``annotator``, as their commands read them (issue 32); ``by`` of ``alt_test`` also takes a mapping
    # {item: group} (its data may be two DataFrames with no kept column; issue 34)
    allowed = {"level", "path", "annotator", "weights", "n_boot", "item", "by"}
    assert set(own) <= allowed, {k: v for k, v in own.items() if k not in allowed}


def test_constraints_refuse_their_own_bad_examples_and_accept_defaults():
    for name, c in PARAMS.items():
        assert isinstance(c, Constraint)
        for bad in c.bad_examples():
            assert not c.accepts(bad), (name, bad)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda d: ie.bootstrap(d, n_boot="5"), "n_boot must be a whole number from 2 to 100000; got '5'"),
        (lambda d: ie.missingness_simulation(d, n_rep=0), "n_rep must be a whole number from 1 to 100000; got 0"),
        (lambda d: ie.bootstrap(d, n_boot=True), "n_boot must be a whole number from 2 to 100000; got True"),
        (lambda d: ie.spa(d, weights=None), "weights must be one of 'flat', "),
        (lambda d: ie.report(d, pairwise="yes"), "pairwise must be True, False or 'auto'; got 'yes'"),
        (lambda d: ie.bootstrap(d, seed=-1), "seed must be None, a whole number of at least 0, or a numpy"),
        (lambda d: ie.fleiss_kappa(d, replace_undefined_by="0"), "replace_undefined_by must be a number or nan"),
        (lambda d: ie.gold_standard(d, tie_tolerance=math.nan), "tie_tolerance must be a number of at least 0"),
        (lambda d: ie.report(d, seed=np.float64(1.0)), "seed must be None, a whole number of at least 0"),
    ],
)
def test_the_holes_the_architecture_issue_named_are_closed(call, message, classroom):
    with pytest.raises(InvalidParameterError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        call(classroom)


def test_numpy_integers_and_generators_are_accepted(classroom):
    a = ie.bootstrap(classroom, n_boot=np.int64(20), seed=np.random.default_rng(3), annotator_metrics=False)
    assert a.n_boot == 20
    assert ie.spa(classroom, replace_undefined_by=np.float32(0)) == ie.spa(classroom)


# --- the undefined-result policy on every coefficient ------------------------------------------------------------

SINGLETONS = pd.DataFrame({"item": ["1", "2", "3"], "annotator": ["a", "b", "a"], "label": [1, 2, 1]})
CONSTANT = pd.DataFrame({"item": ["1", "1", "2", "2"], "annotator": ["a", "b", "a", "b"], "label": [1] * 4})
#: The same two shapes as span tables (unitizing_alpha): one annotator; two annotators' zero-length units only.
SPANS = {
    "singletons": pd.DataFrame({"annotator": ["a"], "start": [0], "end": [2], "label": [1]}),
    "constant": pd.DataFrame({"annotator": ["a", "b"], "start": [1, 1], "end": [1, 1], "label": [1, 1]}),
}


def _coefficients():
    for qualname, fn in sorted(CALLABLES.items()):
        # the Dask engine's (a cluster to run on): tests/test_dask_spans.py holds them to the policy
        if "." not in qualname and "replace_undefined_by" in inspect.signature(fn).parameters:
            if not qualname.endswith("_dask"):
                yield qualname


def test_every_coefficient_takes_the_policy():
    names = set(_coefficients())
    assert {"fleiss_kappa", "krippendorff_alpha", "spa", "alpha_variance", "spa_standard_error"} <= names
    for qualname in names:
        p = inspect.signature(CALLABLES[qualname]).parameters["replace_undefined_by"]
        assert p.kind is p.KEYWORD_ONLY and math.isnan(p.default), qualname


def _scalar_values(out):
    if isinstance(out, float):
        return [out]
    if isinstance(out, ie.AlphaVariance):
        return [out.alpha, out.se_delta, out.se_jackknife]
    if isinstance(out, (ie.Estimate, ie.UnitizingAlpha, ie.GammaAgreement, ie.UnitizingFamily, ie.SpanF1)):
        return [out.estimate]
    return None  # tables (matrices, per-item, per-group): entries replaced without a warning


@pytest.mark.parametrize("qualname", sorted(_coefficients()))
@pytest.mark.parametrize("shape", ["singletons", "constant"])
def test_undefined_is_the_replacement_and_the_warning_names_the_callers_line(qualname, shape):
    frame = SINGLETONS if shape == "singletons" else CONSTANT
    spans = ("unitizing_alpha", "gamma_agreement", "unitizing_family", "span_f1")
    data = SPANS[shape] if qualname in spans else ie.Annotations.from_long(frame)
    fn = CALLABLES[qualname]
    extra = {"group_agreement": (lambda item: "all",), "estimate": ("fleiss_kappa",)}
    args = (data, *extra.get(qualname, ()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, replace_undefined_by=-7.0)
    values = _scalar_values(out)
    undefined = [w for w in caught if issubclass(w.category, ie.UndefinedMetricWarning)]
    if values is None:
        frame_out = out.to_frame() if hasattr(out, "to_frame") else out
        numbers = np.asarray(pd.DataFrame(frame_out).select_dtypes("number"), dtype=float)
        assert not np.isnan(numbers).any() or qualname == "hierarchical_agreement", (qualname, frame_out)
        return
    agreeing = ("percent_agreement", "percent_agreement_weighted", "joint_probability", "spa", "spa_standard_error",
                "bangdiwala_b")  # fmt: skip
    # every pair agrees: agreement is 1 (and its model SE 0); bias (a variance of the annotators' label
    # distributions) needs no pair of annotations
    # span_f1: two annotators' identical (zero-length) spans match, F1 is 1
    if qualname == "annotator_bias" or (shape == "constant" and qualname in (*agreeing, "span_f1")):
        assert all(v != -7.0 for v in values), (qualname, values)
        return
    assert all(v == -7.0 for v in values), (qualname, values)
    assert len(undefined) >= 1, qualname
    for w in undefined:
        assert w.filename == __file__, (qualname, w.filename, w.lineno)
        assert "see replace_undefined_by" in str(w.message)
