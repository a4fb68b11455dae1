"""Content generation for the planner: names, value formats, fact book and block builders.

Every builder takes a ``DocContext`` and a fork ``Rng`` and returns an IR block whose fact spans draw
exactly the facts' texts. Nothing here touches global random state.
"""

from .book import DocContext, FactBook, fs, lit
from .formats import DocFormat, choose_format

__all__ = ["DocContext", "DocFormat", "FactBook", "choose_format", "fs", "lit"]
