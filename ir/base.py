"""Shared pydantic base: strict contracts, clear errors, stable JSON."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError


class Model(BaseModel):
    """Base of every IR contract: unknown fields are errors, not silently dropped."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False, ser_json_timedelta="iso8601")

    def to_json(self) -> str:
        """Canonical JSON text (stable key order = field order) used for files and hashes."""
        return self.model_dump_json(indent=1) + "\n"


def describe_validation_error(err: ValidationError, source: str = "") -> str:
    """One line naming the first offending field, e.g. ``spec.n_docs: must be >= 1``."""
    first = err.errors()[0]
    loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.get("loc", ())).lstrip(".") or "<root>"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    prefix = f"{source}: " if source else ""
    msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{prefix}{loc}: {msg}{more}"
