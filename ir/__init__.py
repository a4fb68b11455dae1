"""synthdocqa IR: vocabularies, data contracts, boxes, fork RNG, planner, content, QA derivation.

Imports nothing else of the project.
"""

from .base import Model, describe_validation_error
from .blocks import (
    AnnotationBlock,
    Block,
    Checkbox,
    FigureBlock,
    FootnoteBlock,
    FormBlock,
    FormField,
    HeadingBlock,
    ListBlock,
    Series,
    Span,
    TableBlock,
    TextBlock,
    block_fact_ids,
    block_spans,
)
from .document import (
    DocumentIR,
    PageDegradation,
    PagePlan,
    PerturbationProfile,
    StageParams,
)
from .facts import Derivation, Entity, Fact
from .rendermap import RenderedPage, RenderMap, SpanBox
from .rng import Rng
from .spec import CorpusSpec, PageCountDist, demo_spec, reference_spec, spec_for_profile
from .values import (
    BooleanValue,
    DateValue,
    IdentifierValue,
    MoneyValue,
    NumberValue,
    OrganisationValue,
    PercentValue,
    PersonValue,
    TextValue,
)

__all__ = [
    "AnnotationBlock", "Block", "BooleanValue", "Checkbox", "CorpusSpec", "DateValue", "Derivation",
    "DocumentIR", "Entity", "Fact", "FigureBlock", "FootnoteBlock", "FormBlock", "FormField", "HeadingBlock",
    "IdentifierValue", "ListBlock", "Model", "MoneyValue", "NumberValue", "OrganisationValue", "PageCountDist",
    "PageDegradation", "PagePlan", "PercentValue", "PersonValue", "PerturbationProfile", "RenderMap",
    "RenderedPage", "Rng", "Series", "Span", "SpanBox", "StageParams", "TableBlock", "TextBlock",
    "TextValue", "block_fact_ids", "block_spans", "demo_spec", "describe_validation_error", "reference_spec",
    "spec_for_profile",
]
