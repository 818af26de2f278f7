"""The names of every choice an option offers, in one light module (the command line imports it without numpy)."""

from __future__ import annotations

__all__ = ["AGREEMENT_WEIGHTS", "DUPLICATE_RULES", "LAYOUTS", "LEVELS", "SPA_WEIGHTS"]

#: Levels of measurement (Krippendorff 2011).
LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: SPA's item weightings (Nørregaard & Derczynski, SPA paper section 4).
SPA_WEIGHTS = ("flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class")
#: Gwet's named families of agreement weights between categories (``identity`` is the unweighted coefficient).
AGREEMENT_WEIGHTS = ("identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")
#: File layouts the reader understands.
LAYOUTS = ("auto", "long", "wide", "counts")
#: What to do when one annotator labelled one item more than once.
DUPLICATE_RULES = ("error", "first", "last")
