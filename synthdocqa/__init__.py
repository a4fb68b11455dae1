"""synthdocqa: seeded synthetic enterprise-document QA corpora and judge flows.

One import package over the repository's top-level folders: ``synthdocqa.ir`` is ``ir/``,
``synthdocqa.flows`` is ``flows/`` and so on (setuptools' ``package_dir`` mapping in ``setup.py``; see
docs/architecture.md, "One import package"). This module imports nothing of the project, so
``import synthdocqa.ir`` stays as light as ``ir`` itself.
"""

import os as _os

SUBPACKAGES: tuple[str, ...] = ("ir", "generation", "renderers", "degradations", "judges", "corpus", "flows")
"""The repository's top-level folders installed as ``synthdocqa.<name>`` (setup.py reads this tuple)."""

# A checkout on sys.path without an install (``PYTHONPATH=<checkout>``, e.g. a benchmark's baseline tree):
# its folders sit beside this one, so they are this package's too. In an installed wheel the subpackages are
# inside this folder and there is no setup.py beside it, so nothing changes.
_checkout = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_checkout, "setup.py")) and \
        all(_os.path.isfile(_os.path.join(_checkout, name, "__init__.py")) for name in SUBPACKAGES):
    __path__.append(_checkout)
