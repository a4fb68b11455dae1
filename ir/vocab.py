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

DEFAULT_DEVICE: Device = "flatbed"
"""The device of a scan when none is named (a corpus made before devices existed, a bare ``degrade`` call)."""

ElementType = Literal["text", "table", "figure", "form", "annotation"]
ELEMENT_TYPES: tuple[ElementType, ...] = get_args(ElementType)
"""The kinds of page element a QA pair can rest on."""

QAElement = Literal[ElementType, "none"]
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
(``ir.arithmetic_rules`` holds the rules)."""

StageName = Literal[
    "resample", "paper", "watermark", "ink_bleed", "toner_fade", "halftone", "markup", "binding_marks", "bleed_through",
    "stains", "fold", "double_feed", "page_frame", "fold_shift", "skew", "warp", "placement", "scanner_lines",
    "roller_marks", "lighting", "glare", "moire", "blur", "noise", "colour_shift", "contrast", "dither", "fax_header",
    "line_errors", "jpeg",
]
STAGE_NAMES: tuple[StageName, ...] = get_args(StageName)
"""Degradation stages in physical order, all at the sensor's resolution (resample, first): the sheet and
what is on it (print, marks, binding, stains), its travel through the device (double feed, framing,
creases, skew, warp), what the sensor sees (lines, rollers, light, moire, blur, noise, colour
registration), the device's output (contrast, 1-bit fax, the fax's header line and transmission errors,
JPEG)."""

OCCLUDING_STAGES: tuple[StageName, ...] = ("watermark", "markup", "binding_marks")
"""Stages that draw over the page: the evidence boxes they cover are recorded (``Evidence.occluded_by``)."""
OVERDRAWING_STAGES: tuple[StageName, ...] = ("glare", "fax_header", "line_errors")
"""Stages that draw over the scan after it was moved, in the scan's own frame (a lamp's glare on a phone
photo, a fax's header line, lines lost in transmission): the evidence boxes they cover on the scan are recorded too (``Evidence.occluded_by``)."""

SPEAKS_ALONE: frozenset[str] = frozenset({"auditor_opinion", "income_statement", "statement_notes", "attendance"})
"""Genre blocks that are their section's whole text (an auditor's report, the financial statements and their
notes, the attendance of minutes): the planner writes no comment into such a section (minutes discuss their
items under the items), and the renderer starts a section that opens a page with one on a fresh PDF page, as
these are printed (an attendance stands under the minutes' title on the first page)."""

DomainSlug = Literal[
    "corporate_finance", "retail_banking", "insurance", "asset_management", "accounting_audit", "tax",
    "healthcare_admin", "pharmaceuticals", "clinical_research", "legal", "human_resources", "payroll",
    "procurement", "supply_chain", "logistics", "warehousing", "manufacturing", "quality_assurance",
    "energy_utilities", "oil_gas", "renewable_energy", "esg_sustainability", "information_technology",
    "cybersecurity", "telecommunications", "real_estate", "construction", "facilities_management", "retail",
    "ecommerce", "hospitality", "aviation", "shipping_maritime", "automotive", "agriculture", "food_beverage",
    "higher_education", "public_administration", "municipal_services", "public_transit", "nonprofit",
    "media_publishing", "marketing", "customer_service", "research_development", "mining", "water_utilities",
    "environmental_compliance", "government_procurement", "data_privacy",
]
DOMAIN_SLUGS: tuple[DomainSlug, ...] = get_args(DomainSlug)
"""The 50 enterprise domains, in the planner's cycle order (``generation.domains`` holds their content and
a test checks it defines exactly these, in this order)."""

RecipeSlug = Literal[
    "annual_report", "quarterly_report", "invoice", "purchase_order", "compliance_report", "audit_memo",
    "policy_document", "contract_summary", "field_ops_log", "forms_workflow", "executive_handout",
    "research_report", "scanned_archive", "incident_report", "budget_proposal", "project_status_report",
    "risk_assessment", "board_minutes", "expense_claim", "inspection_report", "sustainability_report",
    "vendor_assessment", "claims_summary", "training_record", "operations_dashboard", "grant_application",
]
RECIPE_SLUGS: tuple[RecipeSlug, ...] = get_args(RecipeSlug)
"""The 26 document recipes (genres); ``generation.domains`` holds what each is made of."""

ChartKind = Literal["bar", "line", "pie"]
CHART_KINDS: tuple[ChartKind, ...] = get_args(ChartKind)
"""Kinds of chart a figure block draws."""

TableKind = Literal["comparison", "share", "line_items", "register", "actions"]
TABLE_KINDS: tuple[TableKind, ...] = get_args(TableKind)
"""Kinds of table the content engine builds (``generation.content.tables`` holds one builder each)."""

AnnotationKind = Literal["stamp", "handwritten_note", "signature", "highlight"]
ANNOTATION_KINDS: tuple[AnnotationKind, ...] = get_args(AnnotationKind)
"""Kinds of overlay an annotation block draws on its page."""

ProfileName = Literal["demo", "reference"]
PROFILE_NAMES: tuple[ProfileName, ...] = get_args(ProfileName)
"""Named corpus profiles (``ir.spec.PROFILES``); a spec may also be ``custom``."""

SpecProfile = Literal["demo", "reference", "custom"]
"""What a spec says it was laid over: a named profile, or ``custom`` (a whole spec of its own)."""

ScanPlan = Literal["document", "cycle"]
SCAN_PLANS: tuple[ScanPlan, ...] = get_args(ScanPlan)
"""How the pages of a document get their scan: ``document`` (every page the document's tier and device)
or ``cycle`` (pages cycle through the tiers and devices)."""

Runner = Literal["process", "dask", "ray", "inline"]
RUNNERS: tuple[Runner, ...] = get_args(Runner)
"""Where ``generate-corpus`` builds its documents: a process pool, a Dask cluster, a Ray cluster (the
``[ray]`` extra), or the run's own process."""

PageSize = Literal["Letter", "A4"]
PAGE_SIZE_NAMES: tuple[PageSize, ...] = get_args(PageSize)
"""Paper sizes a page is printed on (``renderers.layout.layouts.PAGE_SIZES`` holds their points)."""

StyleFamily = Literal["corporate", "modern", "classic", "technical", "government"]
STYLE_FAMILIES: tuple[StyleFamily, ...] = get_args(StyleFamily)
"""Document-level style families (``DocumentIR.style_family``); pages of one document share one."""

StreamName = Literal[
    # generation (the corpus seed)
    "doc", "domain_order", "issuer", "layout", "logo", "report", "reproduce-sample",
    # layout-CLIP training and its evaluation
    "clip_train", "eval_query",
    # judges
    "hallucination-synth", "hallucination-injection", "hallucination-run", "answerer", "osce-sim", "osce-bootstrap",
    "osce-coverage",
    "packets",
    # command line and benchmarks
    "degrade", "bench", "ocr", "scan-legibility", "contact",
]
STREAM_NAMES: tuple[StreamName, ...] = get_args(StreamName)
"""Registered root streams: the first element of every literal ``Rng`` path (children fork by name
below these, so a new child never shifts its siblings)."""

ChildStreamName = Literal[
    # generation: one document's plan and its QA
    "address", "block", "brief", "calendar", "cast", "country", "device", "dynamics", "format", "gen", "higher",
    "entry", "org", "pair", "person", "phone", "phrase", "places", "q", "qa", "recipe", "structure", "style", "tier",
    "timing", "title", "world", "quarter", "revenue", "page", "page_quantiles", "section", "appendix", "grammar", "genre", "locate",
    # generation: the genre blocks
    "attestation_period", "checklist", "claims", "controls", "findings", "incident", "inspection_date", "inspector", "project",
    "risk_register", "statements", "emissions", "milestones", "report_date", "scope",
    # generation: what the issuer's world books, drawn by its key (ir.world.Booked)
    "accounts", "booked", "books", "contract", "grant", "large", "loan", "paid", "pricing", "programme", "rates",
    "registers", "score", "scoring", "segments", "targets", "vendor", "weights", "year",
    # generation: an issuer's house rules (which standing text its documents carry: catalogue/standing.yaml)
    "house_rule",
    # generation: the running text planned from the world (generation.content.discourse, page_fill._discuss)
    "periods", "said", "owed", "here",
    # renderers: layout library and page furniture
    "arrangement", "footer", "header", "init", "layout", "letterhead", "logo", "order", "slots", "texts",
    # degradations: the scan of a page, stage by stage
    "scan", "stage", "enabled", "param", "phase", "geometry", "look", "place", "blotch", "dropout", "edge", "fibre",
    "gauss", "lines", "perspective", "rollers", "salt_pepper", "smudge", "speckle", "streaks", "desk", "grain",
    "hand", "sent",
    # judges: simulation, synthesis and resampling
    "alpha", "backoff", "bootstrap", "cat", "design", "form", "injection", "item", "llm", "metric", "missing",
    "noise", "rater", "response", "split", "splits", "unbalanced",
    # judges: the blinded rating packets (per rater: responder codes, utterance and dialogue order)
    "codes", "utterances", "encounters",
    # views: the report's gallery and contact sheet
    "gallery", "contact",
]
CHILD_STREAM_NAMES: tuple[ChildStreamName, ...] = get_args(ChildStreamName)
"""Registered child streams: every literal name a stream forks below a root (``.fork("page", 3)``). A name
says what the stream decides; one concept forks one name (a test checks every literal fork is registered,
and that no registered name is unused)."""
