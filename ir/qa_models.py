"""QA pairs and atomic assertions with page+box provenance (the label side of the corpus)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .base import Model
from .boxes import Box, Quad
from .values import FactValue
from .vocab import Difficulty, QAElement, QAType


class Evidence(Model):
    """Where an operand was drawn: docling-style provenance plus the box on the scan."""

    fact_id: str
    block_id: str
    page_no: int = Field(ge=1)
    bbox_pdf: Box
    text: str
    bbox_page_px: Box | None = Field(default=None, description="box on the clean page image (dpi/72)")
    scan_quad: Quad | None = Field(default=None, description="quad on the scan image after geometric stages")
    scan_bbox: Box | None = None
    occluded_by: list[str] = Field(default_factory=list, description="scan stages whose marks (punch holes, "
                                   "staples, handwriting, highlighter, watermark) cover part of the box on the scan, "
                                   "and the geometric stages that moved part of it out of the scan's frame")
    scan_cer: float | None = Field(default=None, ge=0.0, le=1.0, description="character error rate of Tesseract's "
                                   "reading of the span cut out of the scan file (None: the scan was not read)")
    scan_digits: bool | None = Field(default=None, description="every digit of the span read exactly, in order, in "
                                     "one of Tesseract's readings of it (``corpus.ocr.read_crops``; true for a span "
                                     "without digits; None: the scan was not read)")


class StringAnswer(Model):
    kind: Literal["string"] = "string"
    value: str


class NumberAnswer(Model):
    kind: Literal["number"] = "number"
    value: str = Field(description="decimal as string, exact")
    unit: str = ""
    currency: str = ""


class DateAnswer(Model):
    kind: Literal["date"] = "date"
    value: str = Field(description="ISO date")


class BooleanAnswer(Model):
    kind: Literal["boolean"] = "boolean"
    value: bool


class ListAnswer(Model):
    kind: Literal["list"] = "list"
    value: list[str]


class NotAnswerable(Model):
    kind: Literal["not_answerable"] = "not_answerable"
    value: Literal["not stated"] = "not stated"


TypedAnswer = Annotated[
    StringAnswer | NumberAnswer | DateAnswer | BooleanAnswer | ListAnswer | NotAnswerable,
    Field(discriminator="kind"),
]


class Operand(Model):
    fact_id: str
    value: FactValue
    evidence: list[Evidence] = Field(min_length=1)


class AssertionDerivation(Model):
    op: str = Field(description="sum, mean, max, min, count, difference, percent_change, days_between, ...")
    operands: list[Operand] = Field(min_length=1)
    result: str = Field(description="the exact derived value (decimal or ISO date) as string")


class Assertion(Model):
    id: str
    qa_id: str
    doc_id: str
    claim: str = Field(min_length=1, description="atomic natural-language claim")
    value: TypedAnswer
    fact_ids: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    derivation: AssertionDerivation | None = None


class QAPair(Model):
    id: str
    doc_id: str
    question: str = Field(min_length=1)
    answer: TypedAnswer
    answer_text: str = Field(description="canonical surface form")
    accepted_answers: list[str] = Field(default_factory=list)
    qa_type: QAType
    element_type: QAElement
    difficulty: Difficulty
    page_nos: list[int] = Field(default_factory=list)
    fact_ids: list[str] = Field(default_factory=list)
    assertion_ids: list[str] = Field(default_factory=list)
    answerable_from_scan: bool | None = Field(default=None, description="every evidence span of the pair reads on "
                                              "the scan file with a CER of at most 0.5 and its digits exactly "
                                              "(Tesseract; the rule ``corpus.ocr.ANSWERABLE_RULE``); true when it has "
                                              "no evidence to read; None: the scans were not read (no Tesseract "
                                              "where it was generated)")
