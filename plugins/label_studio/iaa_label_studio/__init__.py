"""Label Studio connector of iaa-engine (``iaa label-studio report|sync|watch``).

Layers, each module importing only those below it (import-linter contract in this plugin's ``pyproject.toml``):

==============  ===========================================================================================
cli             parses arguments, calls one of report / sync / watch, prints
watch           the webhook receiver: events -> sync
sync            the pipeline: read -> analyse -> plan -> write, and the summary
write           applies a plan: bulk actions or one request per change, resumable; the Data Manager tabs
plan            desired state vs what the server holds -> a list of changes (pure: no HTTP)
judges_report   beside plan: report --judges, each model version as a judge per tag (calls iaa_engine only)
analyse         per control tag: the core's report, task agreement, gold labels (calls iaa_engine only)
quality         scorecard, gold questions, model raters, what to adjudicate (calls iaa_engine only)
read            a project's tasks: snapshot, id ranges, changed since (through api, with the saved state)
state           the saved state of the previous read (files; no HTTP)
convert         tasks -> the core's long tables and region units (pure)
api             the only module that speaks HTTP (beside convert: neither imports the other)
names           the names of the connector's own objects (user, model versions, data fields)
==============  ===========================================================================================

The client is always passed in; nothing reads the environment at import time.
"""

__version__ = "0.1.0"
