"""QA pairs and atomic assertions derived from the facts that filled the page.

Nothing is annotated after the fact: every question is built from IR facts, every answer is the fact's
typed value (or an exact derivation over facts), and every assertion carries the evidence boxes the
renderer recorded for those facts. A fact that was not drawn has no evidence and is never asked about.

QA types and their variants live in ``registry`` (name, weight, difficulty, sources, generator, answer
rule), their generators in one module per family (``lookup``, ``arithmetic``, ``compare``, ``lists``,
``multi_hop``, ``unanswerable``); ``semantic`` says which arithmetic a fact allows, ``naming`` and
``phrasing`` how questions are worded, ``mix`` measures the mix of a set of questions.
"""

from .derive import derive_qa
from .evidence import build_evidence, drawn_render_map
from .recompute import check_answer, recompute_assertion
from .registry import QA_TYPE, REGISTRY, VARIANTS, QATypeEntry, QAVariant

__all__ = ["QA_TYPE", "REGISTRY", "VARIANTS", "QATypeEntry", "QAVariant", "build_evidence", "check_answer",
           "derive_qa", "drawn_render_map", "recompute_assertion"]
