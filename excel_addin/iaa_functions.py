"""iaa-engine's Excel worksheet functions for classic xlwings (Excel on Windows with a local Python).

xlwings imports this module by name (``iaa_functions.xlsm`` next to it, or UDF Modules = ``iaa_functions``) and
registers the decorated functions it finds here: =FLEISS(range), =COHEN(range, 1, 2), =SPA(range, "inv_var"), ...
They are written once, in the package (``iaa_engine.excel``), for classic xlwings, xlwings Lite (whose
``main.py`` imports them the same way) and xlwings Server; this module only brings them into xlwings's view.
How to install and use them: ``excel_addin/README.md``.
"""

from iaa_engine.excel import *  # noqa: F403
from iaa_engine.excel import __all__  # noqa: F401
