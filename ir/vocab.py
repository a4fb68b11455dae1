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

Quantity = Literal["amount", "count", "rate", "ratio", "index", "duration", "date"]
QUANTITIES: tuple[Quantity, ...] = get_args(Quantity)
"""Semantic type of a numeric fact, decided in the IR: which arithmetic means something on it
(``ir.semantics`` holds the rules)."""

StageName = Literal[
    "resample", "paper", "watermark", "ink_bleed", "toner_fade", "halftone", "markup", "binding_marks", "bleed_through",
    "stains", "fold", "double_feed", "page_frame", "fold_shift", "skew", "warp", "scanner_lines",
    "roller_marks", "lighting", "moire", "blur", "noise", "colour_shift", "contrast", "dither", "jpeg",
]
STAGE_NAMES: tuple[StageName, ...] = get_args(StageName)
"""Degradation stages in physical order, all at the sensor's resolution (resample, first): the sheet and
what is on it (print, marks, binding, stains), its travel through the device (double feed, framing,
creases, skew, warp), what the sensor sees (lines, rollers, light, moire, blur, noise, colour
registration), the device's output (contrast, 1-bit fax, JPEG)."""

OCCLUDING_STAGES: tuple[StageName, ...] = ("watermark", "markup", "binding_marks")
"""Stages that draw over the page: the evidence boxes they cover are recorded (``Evidence.occluded_by``)."""

StyleFamily = Literal["corporate", "modern", "classic", "technical", "government"]
STYLE_FAMILIES: tuple[StyleFamily, ...] = get_args(StyleFamily)
"""Document-level style families (``DocumentIR.style_family``); pages of one document share one."""

StreamName = Literal[
    # generation (the corpus seed)
    "doc", "domain_order", "layout", "logo", "report", "reproduce-sample",
    # layout-CLIP training and its evaluation
    "clip_train", "eval_query",
    # judges
    "hallucination-synth", "hallucination-injection", "hallucination-run", "answerer", "osce-sim",
    # command line and benchmarks
    "degrade", "bench", "ocr", "contact",
]
STREAM_NAMES: tuple[StreamName, ...] = get_args(StreamName)
"""Registered root streams: the first element of every literal ``Rng`` path (children fork by name
below these, so a new child never shifts its siblings)."""
