"""The generation engine: from a corpus spec and a document index to a complete ``DocumentIR``, and from a
rendered document's facts and boxes to its QA pairs and assertions.

- ``generation.domains``: the 50 enterprise domains and the 26 recipes, as data.
- ``generation.planner``: ``plan_document(spec, index)``, the seeded plan of one document.
- ``generation.content``: the block builders the planner calls (tables, charts, forms, prose, ...).
- ``generation.qa``: QA and assertion derivation (a registry of QA types), evidence, recomputation.

Imports ``ir`` (the contracts) and nothing else of the project; renderers, scans and the corpus store sit
beside or above it.
"""
