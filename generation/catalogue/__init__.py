"""The domain catalogue: domain knowledge as data files, read by one typed loader.

Entities, measures, units, plausible ranges, the relations between measures, country conventions and each
genre's standing text are YAML files in this folder (package data), not Python literals: they can be read,
diffed and extended by someone who does not read the generators. Every file is read through ``load``, which
validates it against a pydantic model and names the file and the key of the first error, so a typo in a
data file fails at load with ``catalogue/world.yaml: domains.automotive.measures[2].per: ...``, never as a
``KeyError`` deep inside a document's planning.

Files are parsed once per process (``functools.cache``); the models are frozen, so a caller cannot change
the catalogue another document reads.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Formatter
from typing import Annotated, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

HERE = Path(__file__).resolve().parent

M = TypeVar("M", bound=BaseModel)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML was built with it: the same safe loading (same resolver and constructor,
the same values), about eight times faster than the pure-Python one on the domain catalogue, which every
process reads at import."""


class CatalogueError(ValueError):
    """A data file of the catalogue that cannot be read or does not validate: the message names the file
    (relative to the catalogue) and the key of the first problem."""


class Entry(BaseModel):
    """Base of every catalogue model: unknown keys are errors (a misspelt key must not be ignored) and
    nothing can be changed once loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def slots(text: str) -> list[str]:
    """The ``{placeholder}`` names of template ``text`` in order (``ValueError`` for a stray brace)."""
    return [name for _, name, _, _ in Formatter().parse(text) if name is not None]


def template(*names: str, once: tuple[str, ...] = ()) -> object:
    """The type of a ``str.format`` template whose caller provides ``names`` (and ``once``): a template that uses
    any other placeholder (``{issure}``), a positional ``{}``, a format spec or a conversion, or that has a stray
    brace, fails at load instead of in the document that first draws it. Each of ``once`` (the facts a sentence
    prints as their own spans) must appear exactly once: a fact left out would be stated nowhere on the page."""
    allowed = frozenset(names) | frozenset(once)

    def check(text: str) -> str:
        try:
            parts = list(Formatter().parse(text))
        except ValueError as exc:
            raise ValueError(f"template {text!r}: {exc}") from None
        for _, name, spec, conversion in parts:
            if name is None:
                continue
            if name not in allowed or spec or conversion:
                shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
                raise ValueError(f"template {text!r} uses {shown}; its caller provides only "
                                 f"{', '.join('{' + n + '}' for n in sorted(allowed)) or 'no placeholders'}")
        used = [name for _, name, _, _ in parts if name is not None]
        for name in once:
            if used.count(name) != 1:
                raise ValueError(f"template {text!r} must print {{{name}}} exactly once "
                                 f"(it does {used.count(name)} times)")
        return text

    return Annotated[str, AfterValidator(check)]


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        if part == "[key]":  # pydantic's mark of a mapping key that failed: the key itself is the part before
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


@cache
def raw(name: str) -> object:
    """The parsed YAML of catalogue file ``name`` (a path relative to this folder)."""
    path = HERE / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError(f"catalogue/{name}: cannot read: {exc.strerror or exc}") from None
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise CatalogueError(f"catalogue/{name}: not YAML{at}: {getattr(exc, 'problem', exc)}") from None


def error(name: str, where: str, message: str) -> CatalogueError:
    """The error for key ``where`` of file ``name``: for the checks a model cannot make alone (a name that
    must be defined in another file of the catalogue)."""
    return CatalogueError(f"catalogue/{name}: {where}: {message}")


def validate(name: str, data: object, model: type[M]) -> M:
    """``data`` (what file ``name`` holds) as ``model``, or a ``CatalogueError`` naming file and key."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        errors = err.errors()
        # a misspelt key first: it, not the key it should have been (then "missing"), is what to fix
        first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        cause = first.get("ctx", {}).get("error") if first["type"] == "value_error" else None
        # a model's own check states its message without pydantic's "Value error, " in front
        raise error(name, _where(tuple(first.get("loc", ()))), str(cause) if cause else first["msg"]) from None


@cache
def load(name: str, model: type[M]) -> M:
    """Catalogue file ``name`` validated as ``model`` (once per process)."""
    return validate(name, raw(name), model)


__all__ = ["CatalogueError", "Entry", "HERE", "error", "load", "raw", "slots", "template", "validate"]
