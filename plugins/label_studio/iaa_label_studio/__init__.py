"""Label Studio connector of iaa-engine (``iaa label-studio report|sync|watch``).

Thin: :mod:`iaa_label_studio.convert` turns tasks into the core's data model,
:mod:`iaa_label_studio.project` computes everything with :mod:`iaa_engine`, and
:mod:`iaa_label_studio.sync` writes gold labels and agreement back. The client is
always passed in; nothing reads the environment at import time.
"""

__version__ = "0.1.0"
