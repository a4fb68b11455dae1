"""Entities and facts: the ground truth that fills pages and from which QA is derived."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .base import Model
from .values import FactValue
from .vocab import Quantity
from .world import WorldQuery

EntityKind = Literal["person", "organisation", "product", "location", "project", "asset", "account"]


class Entity(Model):
    """A person/org/... reused coherently across the pages of one document."""

    id: str = Field(pattern=r"^e\d{3,}$")
    kind: EntityKind
    name: str = Field(min_length=1)
    role: str = ""
    attributes: dict[str, str] = Field(default_factory=dict)


DerivationOp = Literal["sum", "mean", "difference", "percent_change", "ratio", "share", "count", "max", "min",
                       "days_between", "product", "percent_of", "quote"]
"""``product``: a x b (quantity x unit price = amount, likelihood x impact = rating); ``percent_of``: a x b / 100
(tax at a stated rate); both rounded half-even to the places the derived fact shows. ``quote``: the same value
as its one operand, printed again elsewhere (a highlight quoting the income statement, the amount due quoting
the invoice total)."""


class Derivation(Model):
    """How a derived fact follows from others (e.g. a table total = sum of its cells)."""

    op: DerivationOp
    operands: list[str] = Field(description="fact ids (none only for a count of nothing: \"no critical findings\")")

    @model_validator(mode="after")
    def _operands(self) -> Derivation:
        if not self.operands and self.op != "count":
            raise ValueError(f"a {self.op} of no facts")
        return self


class Fact(Model):
    """One atomic, typed piece of content, with the exact string that will be drawn."""

    id: str = Field(pattern=r"^f\d{4,}$")
    label: str = Field(min_length=1, description="what the value is, e.g. 'Q3 revenue'")
    subject: str | None = Field(default=None, description="entity id the fact is about")
    attribute: str = Field(default="", description="machine name of the attribute, e.g. 'revenue'")
    period: str = ""
    value: FactValue
    quantity: Quantity | None = Field(
        default=None, description="semantic type of a numeric fact (ir.arithmetic_rules: which arithmetic applies)")
    text: str = Field(min_length=1, description="the exact surface string drawn on the page")
    derivation: Derivation | None = None
    group: str = Field(default="", description="groups facts of one table/chart/form for aggregates")
    query: WorldQuery | None = Field(default=None, description="the question to the issuer's world this value "
                                                               "answers (``ir.world``): verify asks it again")
