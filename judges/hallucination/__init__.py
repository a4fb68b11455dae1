"""Hallucination-criterion labeling: items, answer synthesis, labelers, agreement analysis, report.

Two criteria: reference faithfulness (anything unsupported by the reference is a hallucination)
and factual correctness (only false or contradicting specific claims are).
"""

from .items import CRITERIA, ERROR_TYPES, HallucinationItem, ItemsError, load_items, save_items
from .synthesize import DEFAULT_MIX, gold_labels, synthesize_for_document, synthesize_from_corpus

__all__ = [
    "CRITERIA", "DEFAULT_MIX", "ERROR_TYPES", "HallucinationItem", "ItemsError", "gold_labels", "load_items",
    "save_items", "synthesize_for_document", "synthesize_from_corpus",
]
