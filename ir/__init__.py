"""synthdocqa IR: the contracts. Vocabularies, data models, boxes, ids, files, the fork RNG, answer forms.

Imports nothing else of the project. The engine that fills these models (planner, content, domains, QA
derivation) is the ``generation`` package.
"""

from __future__ import annotations

import importlib

_EXPORTS: dict[str, str] = {
    "AnnotationBlock": "blocks",
    "Block": "blocks",
    "block_fact_ids": "blocks",
    "block_spans": "blocks",
    "BooleanValue": "values",
    "Checkbox": "blocks",
    "CorpusSpec": "spec",
    "DateValue": "values",
    "demo_spec": "spec",
    "Derivation": "facts",
    "describe_validation_error": "base",
    "DocumentIR": "document",
    "Entity": "facts",
    "Fact": "facts",
    "FigureBlock": "blocks",
    "FootnoteBlock": "blocks",
    "FormBlock": "blocks",
    "FormField": "blocks",
    "HeadingBlock": "blocks",
    "IdentifierValue": "values",
    "ListBlock": "blocks",
    "Model": "base",
    "MoneyValue": "values",
    "NumberValue": "values",
    "OrganisationValue": "values",
    "PageCountDist": "spec",
    "PageDegradation": "perturbation",
    "PagePlan": "document",
    "PercentValue": "values",
    "PersonValue": "values",
    "PerturbationProfile": "perturbation",
    "reference_spec": "spec",
    "RenderedPage": "rendermap",
    "RenderMap": "rendermap",
    "Rng": "rng",
    "Series": "blocks",
    "Span": "blocks",
    "SpanBox": "rendermap",
    "spec_for_profile": "spec",
    "StageParams": "perturbation",
    "TableBlock": "blocks",
    "TextBlock": "blocks",
    "TextValue": "values",
}
"""Where each public name lives: imported on first use (PEP 562), so ``import ir.vocab`` or a one-page
scan does not build the schema of every contract."""

__all__ = [
    "AnnotationBlock", "Block", "BooleanValue", "Checkbox", "CorpusSpec", "DateValue", "Derivation",
    "DocumentIR", "Entity", "Fact", "FigureBlock", "FootnoteBlock", "FormBlock", "FormField", "HeadingBlock",
    "IdentifierValue", "ListBlock", "Model", "MoneyValue", "NumberValue", "OrganisationValue", "PageCountDist",
    "PageDegradation", "PagePlan", "PercentValue", "PersonValue", "PerturbationProfile", "RenderMap",
    "RenderedPage", "Rng", "Series", "Span", "SpanBox", "StageParams", "TableBlock", "TextBlock",
    "TextValue", "block_fact_ids", "block_spans", "demo_spec", "describe_validation_error", "reference_spec",
    "spec_for_profile",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ir' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
