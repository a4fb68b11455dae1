"""Block types of the content schedule. Text lives in spans; a span that carries facts gets a box."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .base import Model
from .vocab import AnnotationKind, ChartKind, ElementType


class Span(Model):
    """A run of literal text; ``fact_ids`` non-empty means the renderer records its box."""

    text: str
    fact_ids: list[str] = Field(default_factory=list)


class _Block(Model):
    id: str = Field(pattern=r"^b\d{3,}$")
    genre_block: str = Field(default="", pattern=r"^[a-z_]*$", description=(
        "the part of its genre this block is (``income_statement``, ``attendance``, ``resolutions``; see the "
        "recipe grammars), empty for the genre's general content (commentary, comparisons, actions)"))


class HeadingBlock(_Block):
    type: Literal["heading"] = "heading"
    level: int = Field(default=1, ge=1, le=3)
    spans: list[Span] = Field(min_length=1)


class TextBlock(_Block):
    type: Literal["text_block"] = "text_block"
    spans: list[Span] = Field(min_length=1)
    running: bool = Field(default=False, description=(
        "a paragraph of the document's running text (a section's opening, the discussion of an exhibit, a "
        "paragraph of the issuer's figures), not a drawn text element (a contact, a deadline, a reference): the "
        "element mix counts drawn elements only"))


class ListBlock(_Block):
    type: Literal["list"] = "list"
    ordered: bool = False
    title: str = ""
    items: list[list[Span]] = Field(min_length=1)


class TableBlock(_Block):
    type: Literal["table"] = "table"
    caption: str = ""
    columns: list[str] = Field(min_length=1)
    rows: list[list[Span]] = Field(min_length=1)
    total_row: bool = Field(default=False, description="last row holds column totals")
    numeric_columns: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _rectangular(self) -> TableBlock:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"rows[{i}] has {len(row)} cells, expected {len(self.columns)}")
        return self


class Series(Model):
    name: str
    points: list[Span] = Field(min_length=1, description="one labelled value per category")
    values: list[float] = Field(min_length=1, description="numeric values for plotting (same order)")

    @model_validator(mode="after")
    def _same_length(self) -> Series:
        if len(self.points) != len(self.values):
            raise ValueError("points and values must have the same length")
        return self


class FigureBlock(_Block):
    type: Literal["figure"] = "figure"
    chart: ChartKind
    title: str = ""
    categories: list[str] = Field(min_length=1)
    series: list[Series] = Field(min_length=1)
    unit_label: str = ""
    caption: str = ""


class FormField(Model):
    label: str
    value: Span
    field_type: Literal["text", "date", "money", "number", "identifier", "person"] = "text"


class Checkbox(Model):
    label: str
    checked: bool
    fact_ids: list[str] = Field(default_factory=list)


class FormBlock(_Block):
    type: Literal["form"] = "form"
    title: str = ""
    fields: list[FormField] = Field(default_factory=list)
    checkboxes: list[Checkbox] = Field(default_factory=list)
    signature_lines: list[str] = Field(default_factory=list, description="labels under signature lines")


class AnnotationBlock(_Block):
    type: Literal["annotation"] = "annotation"
    kind: AnnotationKind
    spans: list[Span] = Field(min_length=1)
    rotation: float = Field(default=0.0, ge=-45, le=45, description="degrees, counter-clockwise")
    color: str = Field(default="#b00020", pattern=r"^#[0-9a-fA-F]{6}$")
    target_block_id: str | None = Field(default=None, description="for highlights: the block highlighted")


class FootnoteBlock(_Block):
    type: Literal["footnote"] = "footnote"
    marker: str = "1"
    spans: list[Span] = Field(min_length=1)


Block = Annotated[
    HeadingBlock | TextBlock | ListBlock | TableBlock | FigureBlock | FormBlock | AnnotationBlock | FootnoteBlock,
    Field(discriminator="type"),
]

BLOCK_TYPES = ("heading", "text_block", "list", "table", "figure", "form", "annotation", "footnote")

ELEMENT_OF_BLOCK: dict[str, ElementType] = {
    # the QA-bearing element family of each block type (headings, lists and footnotes count as text)
    "heading": "text",
    "text_block": "text",
    "list": "text",
    "footnote": "text",
    "table": "table",
    "figure": "figure",
    "form": "form",
    "annotation": "annotation",
}


def block_spans(block: Block) -> list[Span]:
    """Every span of a block in drawing order (cells row-major, series point by point)."""
    match block.type:
        case "heading" | "text_block" | "annotation" | "footnote":
            return list(block.spans)
        case "list":
            return [s for item in block.items for s in item]
        case "table":
            return [s for row in block.rows for s in row]
        case "figure":
            return [p for series in block.series for p in series.points]
        case "form":
            return [f.value for f in block.fields]
    raise ValueError(f"unknown block type {block.type}")


def fact_spans(block: Block) -> list[Span]:
    """The spans that carry facts, in drawing order; a form's checkboxes count as their label text."""
    spans = [s for s in block_spans(block) if s.fact_ids]
    if block.type == "form":
        spans += [Span(text=cb.label, fact_ids=cb.fact_ids) for cb in block.checkboxes if cb.fact_ids]
    return spans


def block_fact_ids(block: Block) -> list[str]:
    ids = [fid for s in block_spans(block) for fid in s.fact_ids]
    if block.type == "form":
        ids += [fid for cb in block.checkboxes for fid in cb.fact_ids]
    return ids
