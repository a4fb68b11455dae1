"""Shared pydantic base: strict contracts, clear errors, stable JSON."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from .vocab import (
    DEVICES,
    DOMAIN_SLUGS,
    ELEMENT_TYPES,
    RECIPE_SLUGS,
    STAGE_NAMES,
    TIERS,
    Device,
    DomainSlug,
    ElementType,
    RecipeSlug,
    StageName,
    Tier,
)


class Model(BaseModel):
    """Base of every IR contract: unknown fields are errors, not silently dropped."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False, ser_json_timedelta="iso8601",
                              allow_inf_nan=False)  # every number in a contract is finite

    def to_json(self) -> str:
        """Canonical JSON text (stable key order = field order) used for files and hashes."""
        return self.model_dump_json(indent=1) + "\n"


def describe_validation_error(err: ValidationError, source: str = "") -> str:
    """One line naming the first offending field, e.g. ``spec.n_docs: must be >= 1``."""
    first = err.errors()[0]
    parts = tuple(first.get("loc", ()))
    if parts[-1:] == ("[key]",):  # a bad mapping key: name the mapping (the message names the key)
        parts = parts[:-2]
    loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".") or "<root>"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    prefix = f"{source}: " if source else ""
    msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{prefix}{loc}: {msg}{more}"


def _known(names: tuple[str, ...], what: str) -> BeforeValidator:
    """Checks a vocabulary word before its ``Literal`` does, so the error names the word and what it should
    be ("unknown tier 'fiar'") rather than listing the whole vocabulary."""
    def check(n: object) -> object:
        if n not in names:
            raise ValueError(f"unknown {what} {n!r}" + (f"; allowed: {list(names)}" if len(names) <= 8 else ""))
        return n
    return BeforeValidator(check)


# Vocabulary words as pydantic field types: the ``Literal`` for the type, the message for a person.
DomainName = Annotated[DomainSlug, _known(DOMAIN_SLUGS, "domain")]
RecipeName = Annotated[RecipeSlug, _known(RECIPE_SLUGS, "recipe")]
ElementName = Annotated[ElementType, _known(ELEMENT_TYPES, "element type")]
TierName = Annotated[Tier, _known(TIERS, "tier")]
DeviceName = Annotated[Device, _known(DEVICES, "device")]
StageNameField = Annotated[StageName, _known(STAGE_NAMES, "stage")]
