"""The project's vocabularies, defined once: ``Literal`` types with their tuples from ``get_args``.

Everyone imports from here (``ir`` is the bottom floor): tiers, capture devices, element types, QA
types, difficulties, degradation stages, layout style families and the names of the random streams.
A test checks that no other module spells these tuples out again.
"""

from __future__ import annotations

from typing import Literal, get_args

Tier = Literal["pristine", "good", "fair", "degraded", "poor"]
TIERS: tuple[Tier, ...] = get_args(Tier)
"""Scan severity, least to most degraded."""

Device = Literal["flatbed", "photocopy", "fax", "phone"]
DEVICES: tuple[Device, ...] = get_args(Device)
"""Capture devices a scan can come from."""

ElementType = Literal["text", "table", "figure", "form", "annotation"]
ELEMENT_TYPES: tuple[ElementType, ...] = get_args(ElementType)
"""The kinds of page element a QA pair can rest on."""

QAElement = Literal["text", "table", "figure", "form", "annotation", "none"]
QA_ELEMENTS: tuple[QAElement, ...] = get_args(QAElement)
"""Element of a QA pair: an element type, or ``none`` for questions with no evidence (unanswerable)."""

QAType = Literal[
    "lookup", "table_aggregate", "comparison", "difference", "percent_change", "chart_reading",
    "annotation_reading", "date_arithmetic", "multi_hop", "boolean", "list", "unanswerable",
]
QA_TYPES: tuple[QAType, ...] = get_args(QAType)

Difficulty = Literal["easy", "medium", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = get_args(Difficulty)

StageName = Literal[
    "paper", "ink_bleed", "toner_fade", "halftone", "bleed_through", "stains", "fold", "skew", "warp",
    "lighting", "blur", "noise", "resample", "contrast", "jpeg",
]
STAGE_NAMES: tuple[StageName, ...] = get_args(StageName)
"""Degradation stages in physical order (paper first, the scanner's encoder last)."""

StyleFamily = Literal["corporate", "modern", "classic", "technical", "government"]
STYLE_FAMILIES: tuple[StyleFamily, ...] = get_args(StyleFamily)

StreamName = Literal[
    # generation: planner, content, layouts, scan
    "doc", "page", "block", "domain_order", "recipe", "tier", "style", "style_family", "title", "structure",
    "pages", "slots", "layout", "scan", "stage", "qa", "report",
    # corpus operations
    "reproduce-sample",
    # models and evaluation
    "clip_train", "eval_query", "splits", "split", "hallucination-synth", "hallucination-run", "bootstrap",
    "answerer", "llm", "backoff", "osce-sim",
]
STREAM_NAMES: tuple[StreamName, ...] = get_args(StreamName)
"""Registered names of the top-level random streams (the first element of an ``Rng`` path)."""
