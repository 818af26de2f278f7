"""The names of the connector's own objects on a Label Studio server (the bottom layer: no imports).

Everything the connector writes is recognisable by one of these names, and only these objects are ever updated
or deleted: annotations completed by the user :data:`PLUGIN_EMAIL` (earlier versions' gold), predictions of
:data:`GOLD_VERSION` and :data:`SCORE_VERSION`, and the task data fields below.
"""

from __future__ import annotations

__all__ = [
    "PLUGIN_EMAIL",
    "PLUGIN_FIRST",
    "PLUGIN_LAST",
    "GOLD_VERSION",
    "SCORE_VERSION",
    "DIGITS",
    "AGREEMENT_FIELD",
    "GOLD_FIELD",
    "REVIEW_FIELD",
    "NEEDS_REVIEW",
    "CONFUSED",
    "ALPHA_U_FIELD",
]

#: The plugin's own user: earlier versions wrote the gold as annotations completed by this user (now the gold is
#: a prediction only; those annotations are removed, but one that a person saved in the editor is hers).
PLUGIN_EMAIL = "iaa-engine-bot@localhost"
#: its display name in Label Studio ("iaa-engine gold": short enough for the "Annotated by" column)
PLUGIN_FIRST, PLUGIN_LAST = "iaa-engine", "gold"
#: model version of the gold predictions (never counted toward a task's overlap)
GOLD_VERSION = "iaa-engine-gold"
#: model version of the agreement predictions (their score is the task's agreement)
SCORE_VERSION = "iaa-engine-agreement"
#: decimals of the agreement written to task data and prediction scores
DIGITS = 3
#: task data field holding the task's agreement (``<field>_<control>`` per control when there are several)
AGREEMENT_FIELD = "iaa_agreement"
#: task data field: the state of the task's gold prediction (``final``, ``provisional``, ``adjudicated``, ``none``)
GOLD_FIELD = "iaa_gold"
#: task data field: ``yes`` when a tie left (part of) the task's gold undecided
REVIEW_FIELD = "iaa_needs_adjudication"
#: task data field: ``yes`` when some item of the task has annotations that do not all agree (else ``no``)
NEEDS_REVIEW = "iaa_needs_review"
#: task data field: the task's most confused label pair, ``"a / b"`` (per control ``name: a / b`` when several)
CONFUSED = "iaa_confused"
#: task data field: a span tag's Krippendorff's unitizing alpha on the task among its own annotators (tasks with two
#: or more; ``<field>_<control>`` per span control when there are several)
ALPHA_U_FIELD = "iaa_alpha_u"
