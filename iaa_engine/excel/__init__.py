"""Excel worksheet functions for iaa-engine (xlwings): =SPA(range), =FLEISS(range), =COHEN(range, 1, 2), ...

The functions are written once, here, and serve classic xlwings on Windows (``excel_addin/iaa_functions.py``:
``UDF_MODULES`` + "Import Functions"), xlwings Lite (``excel_addin/lite/main.py``, which imports them from the
installed package) and xlwings Server. It is a thin surface: it turns an Excel range into
:class:`iaa_engine.Annotations` (``iaa_engine/excel/_range.py``), calls the core, and shapes the result for a cell or
a spilled range. It computes no statistics itself. One decorator, ``worksheet`` (``_worksheet.py``), registers every
function (the help text of each argument, ranges read raw, every failure an Excel error value); the functions that
are one coefficient of the core's metric registry are declared from it by ``coefficient`` (``_functions.py``). This
``__init__`` only re-exports the functions of its modules: no module of the package imports the package itself.

It imports only ``xlwings``'s decorators (``xw.func``, ``xw.arg``), the BSD-licensed part of xlwings.

Conventions shared by every function (see ``excel_addin/README.md``):

* ``data``: a rating range. ``layout`` says how to read it: ``"auto"`` (default) decides from the shape of the
  filled range (after its headers): more rows than columns is one item per row (as ``"columns"``), more columns
  than rows is one annotator per row (as ``"rows"``, the classroom layout); a square range, or one that looks like
  a count table, is ``#VALUE!`` with the reason instead of a guess. ``"rows"`` (one row per annotator, one column
  per item), ``"columns"`` (one column per annotator) or ``"counts"`` (an items × categories table of how many
  annotators chose each category) say it explicitly and are never second-guessed.
* The range is trimmed to its used part first: trailing rows and columns that are entirely blank are dropped (a
  whole-column reference such as ``A:C`` costs what its filled rows cost); leading blank lines stay, so items and
  annotators keep their positions.
* ``headers``: FALSE (default) -- every cell is data; TRUE -- the range includes its headers: the first row
  and the first column hold names (annotators and items; for ``"counts"``: categories and items);
  ``"annotators"`` -- only the annotator names (first column for ``rows``, first row for ``columns``);
  ``"items"`` -- only the item names. With ``"auto"`` and one header line, the orientation is the one whose body
  (the range without that line) has the shape that orientation stands for.
* ``weights`` (the weighted coefficients): a family of agreement weights between categories, by name
  (:data:`iaa_engine.AGREEMENT_WEIGHTS`); numeric labels use their values; text labels have no order to weigh by
  and give ``#VALUE!`` (never their alphabetical positions): code ordered categories as numbers.
* Blank cells are missing annotations. Labels are numbers when every label cell is a number or text that spells
  a number plainly (``'1`` is the number 1; the numeric cells 1 and 1.0 are one label); when every label cell is
  text and one of them is not a plain number (``yes``, or ``01``: a number written with a leading zero is a code),
  the labels are the texts as written, as the core reads a text column (``01`` and ``1`` are two categories at the
  nominal level); numbers beside such text are ``#VALUE!`` (see ``_range.labels``). The data range is read raw and
  each runtime's cell encoding is handled in ``_range.raw``.
* Results: a number, or a spilled range. An undefined coefficient (expected agreement 1, no item with two
  annotations, an empty range) is ``#DIV/0!``. Input that cannot be read, an unknown option name, or a range
  whose orientation ``"auto"`` cannot tell (square, or a count table) is ``#VALUE!``; an annotator that is not
  in the data is ``#N/A``; an error cell in the data is passed on.
  The reason is logged (the xlwings Lite output pane or the xlwings log shows it), never a traceback in a cell.
"""

from __future__ import annotations

from iaa_engine.excel._compare import IAA_COMPARE  # the difference of a coefficient, two ranges
from iaa_engine.excel._functions import (
    ANNOTATOR_BIAS,
    ANNOTATORS,
    BCR_WEIGHTS,
    COHEN,
    COHEN_WEIGHTED,
    CONFUSED_PAIRS,
    DISAGREEMENTS,
    FLEISS,
    FLEISS_WEIGHTED,
    GOLD,
    GOLD_ACCURACY,
    GWET_AC1,
    GWET_WEIGHTED,
    IAA_BENCHMARK,
    IAA_ESTIMATE,
    IAA_REPORT,
    INTRACLASS,
    ITEM_AGREEMENT,
    KALPHA,
    KAPPA_MATRIX,
    MULTIKAPPA,
    PERCENT_AGREEMENT,
    SCOTTPI,
    SPA,
)
from iaa_engine.excel._judges import ALT_TEST, JUDGE_ACCURACY  # can a model replace the humans?
from iaa_engine.excel._plan import IAA_SAMPLE_SIZE, IAA_SAMPLE_SIZE_SIM  # planning a study: ie.plan
from iaa_engine.excel._rankings import KENDALL_W, KENDALL_W_TEST  # Kendall's W of rankings
from iaa_engine.excel._spans import UALPHA  # unitizing alpha of a spans table

#: The worksheet functions, in the order :func:`~iaa_engine.excel._worksheet.worksheet` registered them
#: (``_worksheet.FUNCTIONS``, which tests/test_excel_addin.py checks is this list): what
#: ``from iaa_engine.excel import *`` brings into ``excel_addin/iaa_functions.py`` and xlwings Lite's ``main.py``,
#: where xlwings finds and registers them.
__all__ = [
    "SPA",
    "FLEISS",
    "COHEN",
    "SCOTTPI",
    "KALPHA",
    "MULTIKAPPA",
    "ANNOTATOR_BIAS",
    "PERCENT_AGREEMENT",
    "GWET_AC1",
    "COHEN_WEIGHTED",
    "FLEISS_WEIGHTED",
    "GWET_WEIGHTED",
    "KAPPA_MATRIX",
    "ITEM_AGREEMENT",
    "GOLD",
    "BCR_WEIGHTS",
    "IAA_REPORT",
    "INTRACLASS",
    "IAA_ESTIMATE",
    "ANNOTATORS",
    "DISAGREEMENTS",
    "CONFUSED_PAIRS",
    "GOLD_ACCURACY",
    "IAA_BENCHMARK",
    "IAA_COMPARE",
    "ALT_TEST",
    "JUDGE_ACCURACY",
    "IAA_SAMPLE_SIZE",
    "IAA_SAMPLE_SIZE_SIM",
    "KENDALL_W",
    "KENDALL_W_TEST",
    "UALPHA",
]
