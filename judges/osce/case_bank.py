"""The case bank of the VSP study: each case's patient, the script's facts by history-taking category, what the
patient reveals only when asked, and its red lines; and the scripted student questions of each case.

A case is one YAML file (``judges/osce/cases/<case>.yaml`` ships three synthetic teaching cases, in English
and Korean); the questions are one table (CSV, TSV or .xlsx, read like the ratings: ``loaders.read_table``)
with columns ``case, utterance_id, turn, question_<lang>..., category, form``. Every problem names the file and
the key or row it is in, and nothing is half loaded: a bank with one bad file is refused whole.

The cases are teaching material written for this project, not medical advice.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .loaders import OsceInputError, read_table
from .schema import DEFAULT_HISTORY_CATEGORIES, DEFAULT_LINGUISTIC_FORMS

LANGUAGES: tuple[str, ...] = ("en", "ko")
SHIPPED_CASES = Path(__file__).resolve().parent / "cases"
"""The three synthetic cases shipped with the package (hematuria, fever in pregnancy, chronic cough) and their
scripted questions (``questions.csv``)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Text(_Strict):
    """One text in every language of the study."""

    en: str = Field(min_length=1)
    ko: str = Field(min_length=1)

    def __call__(self, language: str) -> str:
        return getattr(self, language)


class FactValue(_Strict):
    """The checkable part of a fact (a number or a yes/no) the script check compares answers against."""

    type: Literal["number", "yes_no"]
    value: float | bool
    unit: str = ""

    @model_validator(mode="after")
    def _typed(self) -> FactValue:
        if (self.type == "yes_no") != isinstance(self.value, bool):
            raise ValueError(f"a {self.type} value must be {'true/false' if self.type == 'yes_no' else 'a number'}")
        return self


class CaseFact(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    category: str
    reveal: Literal["volunteered", "on_request"]
    en: str = Field(min_length=1)
    ko: str = Field(min_length=1)
    value: FactValue | None = None

    @model_validator(mode="after")
    def _category(self) -> CaseFact:
        if self.category not in DEFAULT_HISTORY_CATEGORIES:
            raise ValueError(f"unknown category {self.category!r}; one of {', '.join(DEFAULT_HISTORY_CATEGORIES)}")
        return self

    def text(self, language: str) -> str:
        return getattr(self, language)


class Terms(_Strict):
    """Words or phrases, per language, whose appearance in an answer the script check flags."""

    en: list[str] = Field(min_length=1)
    ko: list[str] = Field(min_length=1)

    def __call__(self, language: str) -> list[str]:
        return getattr(self, language)


class RedLine(_Strict):
    """What the patient never says (the diagnosis, results it cannot know ...) and the terms that betray it.

    The terms are a screening aid for the script check (``vsp.script_check``), not a judge: a flagged answer is
    one a person should read."""

    en: str = Field(min_length=1)
    ko: str = Field(min_length=1)
    terms: Terms

    def text(self, language: str) -> str:
        return getattr(self, language)


class Persona(_Strict):
    name: Text
    age: int = Field(ge=0, le=120)
    sex: Literal["male", "female"]
    occupation: Text
    manner: Text


class Case(_Strict):
    """One standardized-patient case: who the patient is and what the script says."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    version: int = Field(ge=1)
    title: Text
    disclaimer: Text
    persona: Persona
    chief_complaint: Text
    facts: list[CaseFact] = Field(min_length=1)
    red_lines: list[RedLine] = Field(min_length=1, description="what the patient never says (the diagnosis ...)")

    @model_validator(mode="after")
    def _unique_facts(self) -> Case:
        ids = [f.id for f in self.facts]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"fact ids used twice: {', '.join(dup)}")
        return self

    def fact(self, fact_id: str) -> CaseFact:
        for f in self.facts:
            if f.id == fact_id:
                return f
        raise KeyError(fact_id)

    def facts_by_category(self) -> dict[str, list[CaseFact]]:
        out: dict[str, list[CaseFact]] = {}
        for f in self.facts:
            out.setdefault(f.category, []).append(f)
        return out


class ScriptedQuestion(_Strict):
    case: str
    utterance_id: str = Field(min_length=1)
    turn: int = Field(ge=1)
    text: Text
    category: str
    form: str
    probes: str | None = Field(default=None, description="the id of the case fact the question asks about (its "
                                                         "checkable value is what the script check compares)")
    expect: Literal["yes", "no"] | None = Field(default=None, description="the answer the script gives to a closed "
                                                                          "yes/no question")


def _where(err: ValidationError) -> str:
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first.get("loc", ())) or "<root>"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"{loc}: {str(first.get('msg', 'invalid')).removeprefix('Value error, ')}{more}"


def read_yaml(path: str | os.PathLike[str]) -> object:
    """A YAML file's data; ``OsceInputError`` naming the file when it cannot be read or parsed."""
    p = Path(path)
    try:
        return yaml.safe_load(p.read_text(encoding="utf-8-sig"))
    except OSError as err:
        raise OsceInputError(str(p), [f"cannot read: {err.strerror or err}"]) from None
    except yaml.YAMLError as err:
        raise OsceInputError(str(p), [f"invalid YAML: {str(err).splitlines()[0]}"]) from None


def load_case(path: str | os.PathLike[str]) -> Case:
    """One case from its YAML file; ``OsceInputError`` names the file and the key of the first problem."""
    p = Path(path)
    data = read_yaml(p)
    if not isinstance(data, dict):
        raise OsceInputError(str(p), ["expected a mapping (id, version, title, persona, facts, red_lines ...)"])
    try:
        case = Case.model_validate(data)
    except ValidationError as err:
        raise OsceInputError(str(p), [_where(err)]) from None
    if case.id != p.stem:
        raise OsceInputError(str(p), [f"id: {case.id!r} differs from the file name {p.stem!r}"])
    return case


def load_case_bank(path: str | os.PathLike[str] = SHIPPED_CASES) -> dict[str, Case]:
    """Every ``<case>.yaml`` of a folder (or one file), by case id; all of them or none."""
    p = Path(path)
    files = [p] if p.is_file() else sorted(p.glob("*.yaml")) + sorted(p.glob("*.yml")) if p.is_dir() else []
    if not files:
        raise OsceInputError(str(p), ["no case files (<case>.yaml) found"])
    return {c.id: c for c in (load_case(f) for f in files)}


def load_questions(path: str | os.PathLike[str], cases: dict[str, Case] | None = None, *,
                   encoding: str | None = None) -> list[ScriptedQuestion]:
    """The scripted questions of a table, in (case, turn) order; each row checked (its case known when
    ``cases`` is given, a known category and form, a unique utterance id, turns 1..n within a case), a
    problem naming the file, the row (as a spreadsheet shows it: the header is row 1) and the column. An optional
    ``probes`` column names the case fact a question asks about (a fact of that case when ``cases`` is given), an
    optional ``expect`` the script's yes/no answer to a closed question."""
    df = read_table(path, encoding=encoding)
    cols = {str(c).strip().lower(): c for c in df.columns}
    need = ["case", "utterance_id", "turn", "category", "form", *(f"question_{lang}" for lang in LANGUAGES)]
    missing = [c for c in need if c not in cols]
    if missing:
        raise OsceInputError(str(path), [f"missing column(s) {', '.join(missing)} (have: "
                                         f"{', '.join(map(str, df.columns))})"])
    problems: list[str] = []
    out: list[ScriptedQuestion] = []
    seen: set[str] = set()
    for i, row in enumerate(df.to_dict("records")):
        where = f"row {i + 2}"
        cell = {k: row[cols[k]] for k in need}
        texts = {lang: cell[f"question_{lang}"] for lang in LANGUAGES}
        if any(not isinstance(t, str) or not t.strip() for t in texts.values()):
            problems.append(f"{where}: empty question text")
            continue
        try:
            turn = int(cell["turn"])
        except (TypeError, ValueError):
            problems.append(f"{where}, turn: {cell['turn']!r} is not a whole number")
            continue
        probe = row[cols["probes"]] if "probes" in cols else None
        probe = str(probe).strip() if isinstance(probe, str) and probe.strip() else None
        expect = row[cols["expect"]] if "expect" in cols else None
        expect = str(expect).strip().lower() if isinstance(expect, str) and expect.strip() else None
        if expect not in (None, "yes", "no"):
            problems.append(f"{where}, expect: {expect!r} is not yes or no")
            continue
        q = ScriptedQuestion(case=str(cell["case"]).strip(), utterance_id=str(cell["utterance_id"]).strip(), turn=turn,
                             text=Text(**{k: v.strip() for k, v in texts.items()}),
                             category=str(cell["category"]).strip(), form=str(cell["form"]).strip(), probes=probe,
                             expect=expect)
        if cases is not None and q.case not in cases:
            problems.append(f"{where}, case: unknown case {q.case!r} (cases: {', '.join(sorted(cases))})")
        elif cases is not None and probe is not None and probe not in {f.id for f in cases[q.case].facts}:
            problems.append(f"{where}, probes: {probe!r} is not a fact of case {q.case}")
        if q.category not in DEFAULT_HISTORY_CATEGORIES:
            problems.append(f"{where}, category: unknown {q.category!r}")
        if q.form not in DEFAULT_LINGUISTIC_FORMS:
            problems.append(f"{where}, form: {q.form!r} is not one of {', '.join(DEFAULT_LINGUISTIC_FORMS)}")
        if q.utterance_id in seen:
            problems.append(f"{where}, utterance_id: {q.utterance_id!r} used twice")
        seen.add(q.utterance_id)
        out.append(q)
    by_case: dict[str, list[int]] = {}
    for q in out:
        by_case.setdefault(q.case, []).append(q.turn)
    for case, turns in sorted(by_case.items()):
        if sorted(turns) != list(range(1, len(turns) + 1)):
            problems.append(f"case {case}: turns are not 1..{len(turns)} (each once)")
    if problems:
        raise OsceInputError(str(path), problems)
    return sorted(out, key=lambda q: (q.case, q.turn))


__all__ = ["LANGUAGES", "SHIPPED_CASES", "Case", "CaseFact", "RedLine", "ScriptedQuestion", "Terms", "load_case", "load_case_bank",
           "load_questions"]
