"""synthdocqa: seeded synthetic enterprise-document QA corpora and judge flows.

One import package over the repository's top-level folders: ``synthdocqa.ir`` is ``ir/``,
``synthdocqa.flows`` is ``flows/`` and so on (setuptools' ``package_dir`` mapping in ``setup.py``; see
docs/architecture.md, "One import package"). This module imports nothing, so ``import synthdocqa.ir``
stays as light as ``ir`` itself.
"""

SUBPACKAGES: tuple[str, ...] = ("ir", "generation", "renderers", "degradations", "judges", "corpus", "flows")
"""The repository's top-level folders installed as ``synthdocqa.<name>`` (setup.py reads this tuple)."""
