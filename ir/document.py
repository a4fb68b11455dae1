"""The Document Generation IR: everything about a document is fixed here before rendering."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field, model_validator

from .base import DomainName, Model, RecipeName
from .blocks import Block, block_fact_ids
from .facts import Entity, Fact
from .perturbation import PageDegradation, ParamValue, PerturbationProfile, StageParams
from .vocab import PageSize, StyleFamily
from .world import IssuerWorld

__all__ = [
    "IR_SCHEMA_VERSION", "DocumentIR", "PageDegradation", "PagePlan", "ParamValue", "PerturbationProfile",
    "StageParams",
]

IR_SCHEMA_VERSION = "1.8"
"""1.1: capture device of the scan (``PerturbationProfile.device``) and the tier and device of each page.
1.2: the document's paper size (``DocumentIR.page_size``), the same on every page.
1.3: the part of the document a page belongs to (``PagePlan.role``: cover, contents or body).
1.4: the genre block a block is (``genre_block``: ``balance_sheet``, ``resolutions`` ...); derivations
``product`` and ``percent_of``.
1.5: the issuer's world as far as the document asks it (``DocumentIR.world``) and each fact's query.
1.6: world contract 2: what the world books (``ir.world.Booked``: a statement line of a quarter, a ledger
posting, a risk's score), asked again by ``verify`` like a driver.
1.7: a paragraph of running text is marked (``TextBlock.running``): its sentences state the world's figures, and
the element mix counts drawn elements without it; whether the document is marked confidential
(``DocumentIR.confidential``): a layout's confidentiality footer is drawn only on a document so marked.
1.8: a reader's marks, each with the box of the text it goes on (``ir.perturbation.Mark``, the markup stage's
``marks``); a fax header's sender number as the issuer writes it (``number_text``)."""

class PagePlan(Model):
    page_no: int = Field(ge=1)
    role: Literal["body", "cover", "contents"] = Field(
        default="body", description="front matter (cover, contents) is set full width whatever the layout")
    blocks: list[Block] = Field(default_factory=list)
    layout_id: str | None = Field(default=None, description="chosen layout (filled by retrieval)")
    layout_query: str = Field(default="", description="text describing what the page must hold")


class DocumentIR(Model):
    schema_version: str = IR_SCHEMA_VERSION
    doc_id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    index: int = Field(ge=0)
    seed: int = Field(ge=0)
    seed_path: list[str | int]
    domain: DomainName
    recipe: RecipeName
    title: str = Field(min_length=1)
    topic_brief: str = Field(min_length=1)
    style_family: StyleFamily = Field(default="corporate", description="the document's style family: every page "
                                      "takes its layout from this family of the library")
    page_size: PageSize = Field(default="A4", description="the paper every page is printed on: the issuing "
                                "organisation's (Letter in the United States and Canada, A4 elsewhere)")
    reference: str = Field(default="", description="the document's one reference number: its title, header, "
                                                   "footer and every sentence that cites it use this one")
    as_at: dt.date | None = Field(default=None, description="the date the document stands at (its issue date): "
                                                            "every period it reports on has ended by then")
    confidential: bool = Field(default=False, description="the document is marked confidential (its pages carry "
                               "the confidentiality line where their layout's footer has one); which genres and "
                               "issuers mark documents so is the generator's catalogue (``standing.yaml``)")
    language: str = "en"
    entities: list[Entity] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    world: IssuerWorld | None = Field(default=None, description="the issuer's world as far as this document "
                                      "asks it (``ir.world``): every fact with a query is its value there")
    pages: list[PagePlan] = Field(min_length=1)
    perturbation: PerturbationProfile

    @model_validator(mode="after")
    def _references_resolve(self) -> DocumentIR:
        fact_ids = {f.id for f in self.facts}
        if len(fact_ids) != len(self.facts):
            raise ValueError("duplicate fact ids")
        entity_ids = {e.id for e in self.entities}
        block_ids: set[str] = set()
        for p_i, page in enumerate(self.pages):
            if page.page_no != p_i + 1:
                raise ValueError(f"pages[{p_i}].page_no is {page.page_no}, expected {p_i + 1}")
            for b in page.blocks:
                if b.id in block_ids:
                    raise ValueError(f"duplicate block id {b.id}")
                block_ids.add(b.id)
                for fid in block_fact_ids(b):
                    if fid not in fact_ids:
                        raise ValueError(f"block {b.id} references unknown fact {fid}")
        for f in self.facts:
            if f.subject is not None and f.subject not in entity_ids:
                raise ValueError(f"fact {f.id} references unknown entity {f.subject}")
            if f.derivation is not None:
                for op in f.derivation.operands:
                    if op not in fact_ids:
                        raise ValueError(f"fact {f.id} derivation references unknown fact {op}")
            if f.query is not None and self.world is None:
                raise ValueError(f"fact {f.id} queries a world the document does not hold")
        return self

    def fact(self, fact_id: str) -> Fact:
        for f in self.facts:
            if f.id == fact_id:
                return f
        raise KeyError(fact_id)

    def fact_index(self) -> dict[str, Fact]:
        return {f.id: f for f in self.facts}

    def blocks(self) -> list[tuple[int, Block]]:
        return [(p.page_no, b) for p in self.pages for b in p.blocks]
