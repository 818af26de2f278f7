"""A number read with its uncertainty (issue 17, item 5): Gwet's probabilistic benchmarking.

References reproduced here:

* R irrCAC 1.0 (Gwet, CRAN 2019), vignette "irrCAC-benchmarking" (``vignettes/benchmarking.Rmd`` and its rendered
  ``3.benchmarking.html`` in github.com/kgwet/irrCAC; the same text on CRAN,
  https://cran.r-project.org/web/packages/irrCAC/vignettes/benchmarking.html): Gwet's AC1 of ``cac.raw4raters``
  is printed as ``0.77544`` with SE ``0.14295``, and ``landis.koch.bf``, ``altman.bf``, ``fleiss.bf`` print the
  cumulative probabilities copied below (5 decimals, as irrCAC rounds them);
* irrCAC 0.4.4 (Python, ``irrCAC.benchmark.Benchmark``; a port of the R functions), its docstring's printed
  example (coefficient 0.67, SE 0.15, Altman) and live on random values.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

NAN = np.nan
#: R irrCAC's ``cac.raw4raters``: 12 items, 4 raters, categories 1..5, missing ratings (as in tests/test_weighted.py).
RAW4 = pd.DataFrame(
    {
        "Rater1": [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        "Rater2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, NAN],
        "Rater3": [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
        "Rater4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    }
)

#: Printed in the R irrCAC 1.0 benchmarking vignette (CumProb column).
VIGNETTE = {
    "landis_koch": (
        ["Almost Perfect", "Substantial", "Moderate", "Fair", "Slight", "Poor"],
        [0.39674, 0.88336, 0.99542, 0.99997, 1.0, 1.0],
        "Moderate",
    ),
    "altman": (
        ["Very Good", "Good", "Moderate", "Fair", "Poor"],
        [0.39674, 0.88336, 0.99542, 0.99997, 1.0],
        "Moderate",
    ),
    "fleiss": (
        ["Excellent", "Intermediate to Good", "Poor"],
        [0.54414, 0.99542, 1.0],
        "Intermediate to Good",
    ),
}


@pytest.fixture(scope="module")
def ac1() -> ie.Estimate:
    data = ie.Annotations.from_wide(RAW4, annotators_as="columns")
    return ie.estimate(data, "gwet_ac1")


def test_our_ac1_of_cac_raw4raters_is_the_vignettes(ac1):
    assert (round(ac1.estimate, 5), round(ac1.se, 5)) == (0.77544, 0.14295)


@pytest.mark.parametrize("scale", sorted(VIGNETTE))
def test_reproduces_r_irrcac_vignette(ac1, scale):
    """From the printed (rounded) AC1 and SE, every printed CumProb to the digit and the reading of the text."""
    names, cum, reading = VIGNETTE[scale]
    r = ie.benchmark_reading(0.77544, se=0.14295, scale=scale)
    assert r.bands["band"].tolist() == names
    assert [round(float(c), 5) for c in r.bands["cumulative"]] == cum
    assert r.reading == reading
    # from our own full-precision estimate, the same reading and the same probabilities to rounding
    ours = ie.benchmark_reading(ac1, scale=scale)
    assert ours.metric == "gwet_ac1" and ours.reading == reading
    np.testing.assert_allclose(ours.bands["cumulative"], cum, atol=2e-5)


def test_irrcac_python_docstring_example():
    """irrCAC 0.4.4 ``Benchmark(coeff=0.67, se=0.15).altman()``: CumProb 0.18168, 0.67511, 0.96356, 0.99912, 1.0."""
    r = ie.benchmark_reading(0.67, se=0.15, scale="altman")
    assert [round(float(c), 5) for c in r.bands["cumulative"]] == [0.18168, 0.67511, 0.96356, 0.99912, 1.0]
    assert r.reading == "Moderate" and r.point_band == "Good"
    assert round(r.probability, 5) == 0.96356


def test_equals_irrcac_python_on_random_values():
    bench = pytest.importorskip("irrCAC.benchmark")
    rng = np.random.default_rng(17)
    methods = {"landis_koch": "landis_koch", "altman": "altman", "fleiss": "fleiss"}
    for coeff, se in zip(rng.uniform(-0.5, 1.0, 40), rng.uniform(0.005, 0.4, 40)):
        ref = bench.Benchmark(coeff=float(coeff), se=float(se))
        for ours, theirs in methods.items():
            got = ie.benchmark_reading(float(coeff), se=float(se), scale=ours)
            assert np.round(got.bands["cumulative"].to_numpy(), 5).tolist() == pytest.approx(
                getattr(ref, theirs)()["CumProb"], abs=1.1e-5
            )


def test_krippendorff_scale_hand_worked():
    """alpha 0.75, SE 0.05; truncation Z = Phi((0.75 + 1)/0.05) - Phi((0.75 - 1)/0.05) = 1 - Phi(-5):

    P(0.8 <= alpha <= 1) = (Phi(-1) - Phi(-5)) / Z,  P(0.667 <= alpha < 0.8) = (Phi(1.66) - Phi(-1)) / Z
    """

    def phi(x: float) -> float:
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    z = phi(35.0) - phi(-5.0)
    top = (phi(-1.0) - phi(-5.0)) / z
    mid = (phi(1.66) - phi(-1.0)) / z
    r = ie.benchmark_reading(0.75, se=0.05, scale="krippendorff")
    assert r.bands["band"].tolist() == ["Reliable", "Tentative conclusions only", "Unreliable"]
    np.testing.assert_allclose(r.bands["probability"][:2], [top, mid], rtol=1e-12)
    assert top + mid == pytest.approx(0.95154, abs=1e-5)  # reaches 0.95 in the middle band
    assert r.reading == "Tentative conclusions only" and r.point_band == "Tentative conclusions only"
    # 0.72 (SE 0.05): P(alpha >= 0.667) = Phi(1.06) / Z = 0.855 < 0.95, so only the lowest band is reached
    assert ie.benchmark_reading(0.72, se=0.05, scale="krippendorff").reading == "Unreliable"
    assert ie.benchmark_reading(0.72, se=0.05, scale="krippendorff").probability == pytest.approx(1.0, abs=1e-15)
    assert ie.benchmark_reading(0.95, se=0.02, scale="krippendorff").reading == "Reliable"


def test_zero_and_undefined_standard_errors():
    r = ie.benchmark_reading(0.61, se=0.0)
    assert r.bands["probability"].tolist() == [0, 1, 0, 0, 0, 0] and r.reading == "Substantial"
    r = ie.benchmark_reading(0.8, se=0.0)  # a boundary belongs to the higher band
    assert r.reading == "Almost Perfect" and r.probability == 1.0
    with pytest.warns(ie.UndefinedMetricWarning, match="benchmark reading"):
        r = ie.benchmark_reading(ie.Estimate("kappa", 0.5, NAN, NAN, NAN, NAN, 0.95, 10))
    assert r.reading is None and r.bands["probability"].isna().all() and "undefined" in r.text()
    assert r.to_dict()["probability"] is None


def test_boundaries_of_what_it_accepts():
    with pytest.raises(ie.InvalidParameterError, match="^scale must be"):
        ie.benchmark_reading(0.5, se=0.1, scale="cicchetti")
    with pytest.raises(ie.InvalidParameterError, match="^se must be"):
        ie.benchmark_reading(0.5, se=-0.1)
    with pytest.raises(ie.InvalidParameterError, match="^se must be"):
        ie.benchmark_reading(0.5, se=float("nan"))
    with pytest.raises(ie.InvalidParameterError, match="^threshold must be"):
        ie.benchmark_reading(0.5, se=0.1, threshold=0)
    with pytest.raises(TypeError, match="se="):
        ie.benchmark_reading(0.5)
    with pytest.raises(TypeError, match="Estimate or a number"):
        ie.benchmark_reading("0.5", se=0.1)
    with pytest.raises(ValueError, match="at most 1"):
        ie.benchmark_reading(1.2, se=0.1)


def test_threshold_moves_the_reading():
    assert ie.benchmark_reading(0.77544, se=0.14295, threshold=0.85).reading == "Substantial"
    assert ie.benchmark_reading(0.77544, se=0.14295, threshold=0.999).reading == "Fair"


# --------------------------------------------------------------------------- in the report, the HTML page, the CLI


@pytest.fixture(scope="module")
def classroom():
    from importlib.resources import files

    return ie.read(files("iaa_engine") / "examples" / "classroom.csv")


def test_report_reads_every_coefficient_with_a_standard_error(classroom):
    rep = ie.report(classroom, benchmark="landis_koch")
    assert set(rep.readings) == set(rep.estimates) >= {"fleiss_kappa", "gwet_ac1", "krippendorff_alpha[nominal]"}
    for name, reading in rep.readings.items():
        ref = ie.benchmark_reading(rep.estimates[name])
        assert reading.reading == ref.reading and reading.probability == ref.probability
    assert rep.readings["fleiss_kappa"].estimate == pytest.approx(ie.fleiss_kappa(classroom), abs=1e-15)
    text = str(rep)
    assert "Benchmark reading (landis_koch scale" in text
    line = next(x for x in text.splitlines() if x.strip().startswith("fleiss_kappa") and "or better" in x)
    r = rep.readings["fleiss_kappa"]
    assert f"{r.reading} or better (P = {r.probability:.3f}); point estimate in {r.point_band}" in line
    d = rep.to_dict()["readings"]["gwet_ac1"]
    assert d["scale"] == "landis_koch" and len(d["bands"]) == 6 and d["reading"] == rep.readings["gwet_ac1"].reading
    assert "readings" not in ie.report(classroom).to_dict()  # nothing read unless asked


def test_html_shows_the_reading_with_its_probability(classroom):
    rep = ie.report(classroom, benchmark="altman")
    page = ie.render_html_report(classroom, report=rep)
    r = rep.readings["fleiss_kappa"]
    assert "<th>benchmark reading</th>" in page
    assert f"<strong>{r.reading}</strong> or better, probability {r.probability:.3f} (altman scale" in page


def test_cli_report_benchmark():
    from importlib.resources import files

    path = str(files("iaa_engine") / "examples" / "classroom.csv")
    out = subprocess.run(
        [sys.executable, "-m", "iaa_engine", "report", path, "--benchmark", "fleiss"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Benchmark reading (fleiss scale" in out.stdout and "or better (P = " in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "iaa_engine", "report", path, "--benchmark", "nope"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_undefined_estimates_get_no_reading():
    one = ie.Annotations.from_wide([["a", "a", "a"], ["a", "a", "a"]])  # one category: kappa is 0/0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = ie.report(one, benchmark="landis_koch")
    assert rep.readings == {}


def test_the_one_result_shape():
    import dataclasses
    import json

    r = ie.benchmark_reading(0.5, se=0.1, scale="fleiss")
    assert isinstance(r, ie.Result)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.reading = None
    doc = r.to_dict()
    assert json.loads(json.dumps(doc, allow_nan=False)) == doc == json.loads(r.to_json())
    assert len(r.to_frame()) == 3 and "BenchmarkReading" in repr(r) and r._repr_html_().lstrip().startswith("<")
    assert [b["band"] for b in doc["bands"]] == ["Excellent", "Intermediate to Good", "Poor"]
