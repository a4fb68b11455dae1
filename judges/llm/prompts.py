"""Versioned prompt files with a content hash, untrusted-text delimiting and strict JSON verdicts.

A prompt file is ``judges/prompts/<name>.md`` (package data) with two sections::

    ---system---
    You are ...
    ---user---
    <question>{{question}}</question>
    <candidate_answer>{{candidate}}</candidate_answer>

``{{field}}`` placeholders are filled with *escaped* text (``&``, ``<``, ``>`` become entities), so an
answer containing ``</candidate_answer>`` or new instructions cannot close the tag it sits in. The
SHA-256 of the file bytes is the prompt's version identity: it is part of every cache key and report.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .client import VerdictError

PROMPT_DIR = Path(__file__).resolve().parent.parent / "prompts"
_PLACEHOLDER = re.compile(r"\{\{([a-z_][a-z0-9_]*)\}\}")
_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)


def escape_untrusted(text: str) -> str:
    """Entity-escape ``& < >`` so untrusted text cannot open or close a delimiting tag."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class PromptTemplate(BaseModel):
    name: str
    system: str
    user: str
    sha256: str
    path: str = ""

    @property
    def short_hash(self) -> str:
        return self.sha256[:12]

    @property
    def fields(self) -> list[str]:
        return sorted(set(_PLACEHOLDER.findall(self.system + self.user)))

    def render(self, values: Mapping[str, str]) -> list[dict[str, str]]:
        """Chat messages with every placeholder filled by escaped text; a missing field is an error."""
        missing = [f for f in self.fields if f not in values]
        if missing:
            raise ValueError(f"prompt {self.name}: missing fields {missing}")

        def fill(template: str) -> str:
            return _PLACEHOLDER.sub(lambda m: escape_untrusted(str(values[m.group(1)])), template)

        messages = []
        if self.system.strip():
            messages.append({"role": "system", "content": fill(self.system)})
        messages.append({"role": "user", "content": fill(self.user)})
        return messages


def parse_prompt_text(name: str, raw: bytes, path: str = "") -> PromptTemplate:
    text = raw.decode("utf-8")
    m = re.match(r"\s*---system---\s*\n(.*?)\n---user---\s*\n(.*)\Z", text, re.DOTALL)
    if m is None:
        raise ValueError(f"prompt {name}: expected '---system---' then '---user---' sections")
    return PromptTemplate(name=name, system=m.group(1).strip() + "\n", user=m.group(2).strip() + "\n",
                          sha256=hashlib.sha256(raw).hexdigest(), path=path)


def load_prompt(name_or_path: str | Path, directory: Path | None = None) -> PromptTemplate:
    """Load ``<directory>/<name>.md`` (default: the shipped prompts) or an explicit file path."""
    p = Path(name_or_path)
    if p.suffix not in (".md", ".txt"):
        base = directory or PROMPT_DIR
        candidates = [base / f"{name_or_path}.md", base / f"{name_or_path}.txt"]
        found = [c for c in candidates if c.is_file()]
        if not found:
            shipped = sorted(x.stem for x in base.glob("*.md")) if base.is_dir() else []
            raise ValueError(f"unknown prompt {name_or_path!r}; available: {shipped}")
        p = found[0]
    elif not p.is_file():
        raise ValueError(f"prompt file not found: {p}")
    return parse_prompt_text(p.stem, p.read_bytes(), str(p))


def parse_json_object(text: str) -> dict[str, Any]:
    """Strict: the whole reply is one JSON object (one surrounding ```json fence tolerated)."""
    body = text.strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        raise VerdictError(f"not JSON: {exc.msg} at char {exc.pos}") from None
    if not isinstance(obj, dict):
        raise VerdictError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


def make_verdict_parser(field: str, allowed: Mapping[str, Any]):
    """A parser accepting ``{"<field>": <one of allowed>, ...}``; maps the value through ``allowed``.

    Values are compared exactly after lower-casing strings; anything else raises VerdictError.
    """

    def parse(text: str) -> dict[str, Any]:
        obj = parse_json_object(text)
        if field not in obj:
            raise VerdictError(f"missing key {field!r}")
        raw = obj[field]
        norm = raw.strip().lower() if isinstance(raw, str) else raw
        if isinstance(norm, bool) or not isinstance(norm, (str, int)) or norm not in allowed:
            raise VerdictError(f"{field}={raw!r} not one of {sorted(map(str, allowed))}")
        out = dict(obj)
        out[field] = allowed[norm]
        return out

    return parse
