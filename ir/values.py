"""Typed fact values. Numbers are Decimals so totals add up exactly and serialise losslessly."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from .base import Model

Scale = Literal["", "thousand", "million", "billion"]
SCALE_FACTOR: dict[str, int] = {"": 1, "thousand": 10**3, "million": 10**6, "billion": 10**9}


class MoneyValue(Model):
    kind: Literal["money"] = "money"
    amount: Decimal
    currency: str = Field(min_length=3, max_length=3, description="ISO 4217 code")
    scale: Scale = ""

    def absolute(self) -> Decimal:
        return self.amount * SCALE_FACTOR[self.scale]


class NumberValue(Model):
    kind: Literal["number"] = "number"
    value: Decimal
    unit: str = ""
    scale: Scale = ""

    def absolute(self) -> Decimal:
        return self.value * SCALE_FACTOR[self.scale]


class PercentValue(Model):
    kind: Literal["percent"] = "percent"
    value: Decimal = Field(description="in percent points: 12.5 means 12.5%")


class DateValue(Model):
    kind: Literal["date"] = "date"
    value: dt.date


class PersonValue(Model):
    kind: Literal["person"] = "person"
    name: str = Field(min_length=1)
    entity_id: str | None = None


class OrganisationValue(Model):
    kind: Literal["organisation"] = "organisation"
    name: str = Field(min_length=1)
    entity_id: str | None = None


class IdentifierValue(Model):
    kind: Literal["identifier"] = "identifier"
    value: str = Field(min_length=1)
    scheme: str = ""


class TextValue(Model):
    kind: Literal["text"] = "text"
    value: str = Field(min_length=1)


class BooleanValue(Model):
    """Checkbox states and yes/no form answers."""

    kind: Literal["boolean"] = "boolean"
    value: bool


FactValue = Annotated[
    MoneyValue
    | NumberValue
    | PercentValue
    | DateValue
    | PersonValue
    | OrganisationValue
    | IdentifierValue
    | TextValue
    | BooleanValue,
    Field(discriminator="kind"),
]

VALUE_KINDS = ("money", "number", "percent", "date", "person", "organisation", "identifier", "text", "boolean")
