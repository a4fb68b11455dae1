"""The project's own lint of a finished corpus: what a reviewer would reject in its documents.

``verify`` proves the chain is exact (every box, derivation and answer); the lint asks whether the
content is believable. Eleven kinds of problem, found from the corpus files alone (IR, render map, QA,
assertions and the PDF's text layer):

- ``overlap``, ``clipped``, ``mid_token_wrap``, ``half_empty``: the renderer's own layout checks
  (``renderers.layout.layout_checks.check_layout``: text over text outside designed overlays, text beyond the
  page, a word or number broken over two lines, a page less than half used that does not end the
  document or a section);
- ``semantic``: arithmetic that means nothing on its quantity (``ir.arithmetic_rules.quantity_allows`` on the quantity
  ``generation.qa.fact_arithmetic.quantity_of`` decides: a sum of percentages, a percent change of a rate), a difference
  of rates not in percentage points, numeric facts some arithmetic rests on without ``Fact.quantity``,
  one quantity of the document drawn with two values, "1 <plural unit>" in drawn text or QA, change
  cells beyond +/-100 %;
- ``identity``: an organisation's address in the IR that breaks the content's rules
  (``generation.content.names.address_problems``), an address drawn on a page whose city, region, postcode,
  country or phone prefix disagree or that names two cities (``corpus.views.addresses``), and a document
  citing two different reference numbers of its own kind (title, "this <document>" facts, page chrome);
- ``document``: what a reader of the whole document rejects (``corpus.views.doc_lint``: paper sizes, font
  families of the paragraphs, table-of-contents pages, repeated tables and captions, empty sections,
  exhibits no paragraph refers to, prose share outside the recipe's range);
- ``genre``: the document against its recipe's grammar (``corpus.views.genre_lint``: required sections and
  their genre blocks present and in place, no block kind the genre does not hold, no standing text the genre
  does not carry: ``generation/catalogue/standing.yaml``);
- ``wording``: questions a person would not write (``corpus.views.question_lint``: a period or a preposition
  used as the thing measured, "an" before a label letter, broken plurals, a form title or an "X by" label
  used as a noun, a list question answered with bare numbers);
- ``grammar``: agreement and article slips in the running text (``corpus.views.wording_lint``: "recalls is
  measured", "the figures was", "a incident", "an report");
- ``coherence``: whether the organisation's figures can all be true at once (``corpus.views.coherence``:
  implied ratios in the catalogue's ranges, measures only where they exist, one quantity one value in a
  document and across its issuer's documents, no period after the document's date, no standing text the
  document contradicts).

Half-empty pages fail the lint only above a share of the pages (``HALF_EMPTY_MAX_SHARE``, the issue's
5 %); every other problem fails it.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, get_args

from synthdocqa.generation.content.names import address_problems as entity_address_problems
from synthdocqa.generation.qa.fact_arithmetic import quantity_of
from synthdocqa.ir.arithmetic_rules import difference_unit, quantity_allows, unit_for_count
from synthdocqa.ir.base import Model
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.qa_models import Assertion, QAPair
from synthdocqa.ir.rendermap import RenderMap

from ..store import CorpusReader, open_corpus
from .addresses import address_groups, address_problems
from .coherence import coherence_problems, issuer_problems
from .doc_lint import document_problems
from .genre_lint import genre_problems
from .question_lint import fact_problems, wording_problems
from .wording_lint import wording_lint_problems

LintKind = Literal["overlap", "clipped", "mid_token_wrap", "half_empty", "semantic", "identity", "document", "genre",
                   "wording", "grammar", "coherence"]
LINT_KINDS: tuple[LintKind, ...] = get_args(LintKind)

HALF_EMPTY_MAX_SHARE = 0.05
"""Half-empty pages fail the lint only when they are more than this share of all pages (issue 14)."""
MAX_CHANGE_PERCENT = Decimal(100)
"""A drawn change cell beyond +/- this many percent is implausible for the project's metrics."""


class LintProblem(Model):
    doc_id: str
    page_no: int | None = None
    kind: LintKind
    check: str
    """The finer check that found it (``op_not_allowed``, ``two_cities``, ...)."""
    detail: str

    def line(self) -> str:
        """One line: doc, page, kind, detail."""
        page = f"p{self.page_no}" if self.page_no is not None else "-"
        return f"{self.doc_id}\t{page}\t{self.kind}\t{self.check}: {self.detail}"


class LintReport(Model):
    corpus: str
    documents: int
    pages: int
    counts: dict[str, int]
    half_empty_share: float
    max_half_empty_share: float
    problems: list[LintProblem]

    @property
    def failing(self) -> list[LintProblem]:
        """The problems that fail the lint (half-empty pages only above their allowed share)."""
        half_ok = self.half_empty_share <= self.max_half_empty_share
        return [p for p in self.problems if not (half_ok and p.kind == "half_empty")]

    @property
    def ok(self) -> bool:
        return not self.failing

    def summary(self) -> str:
        counts = ", ".join(f"{self.counts.get(k, 0)} {k}" for k in LINT_KINDS)
        return (f"{self.corpus}: {self.documents} documents, {self.pages} pages: {counts}; half-empty pages "
                f"{100 * self.half_empty_share:.1f}% (allowed {100 * self.max_half_empty_share:g}%)")


# ================================================================= the drawn text (pymupdf)

_PUNCT = ".,;:!?()[]{}\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u2026"

Line = tuple[tuple[float, float, float, float], str]
"""A horizontal text line as drawn: (bbox in PDF points, text)."""


@dataclass
class PageText:
    page_no: int
    width: float
    height: float
    lines: list[Line]


def read_pages(pdf: bytes) -> list[PageText]:
    """The horizontal text lines of every page (rotated text, such as stamps, is left out)."""
    import pymupdf

    out = []
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        for i, page in enumerate(doc, start=1):
            lines: list[Line] = []
            for b in page.get_text("dict")["blocks"]:
                for ln in b.get("lines", []):
                    if abs(ln["dir"][1]) < 1e-3 and ln["dir"][0] > 0:
                        lines.append((tuple(ln["bbox"]), "".join(s["text"] for s in ln["spans"])))
            out.append(PageText(i, page.rect.width, page.rect.height, lines))
    return out


# ================================================================= layout

def layout_problems(doc_id: str, pdf: bytes, doc: DocumentIR, rmap: RenderMap) -> list[LintProblem]:
    """The renderer's layout checks (``renderers.layout.layout_checks``), as lint problems."""
    from synthdocqa.renderers.layout.layout_checks import check_layout

    out = []
    for p in check_layout(pdf, rmap, doc):
        where = f" at {[round(v) for v in p.bbox]}" if p.bbox is not None else ""
        out.append(LintProblem(doc_id=doc_id, page_no=p.page_no, kind=p.kind, check=p.kind,
                               detail=f"{p.message}{where}"))
    return out


# ================================================================= semantics

_NUMERIC = ("number", "money", "percent")
_TABLE_REF = re.compile(r"\s*\((?:Table|Figure|Chart) \d+\)")
_RESIDUAL = re.compile(r"\b(?:other|others|remaining|rest)\b", re.IGNORECASE)
"""A residual row ("Other branches") depends on which rows a table lists: it may differ between tables."""


def _unit_of(f: Fact) -> str:
    v = f.value
    if v.kind == "percent":
        return "%"
    return v.unit if v.kind == "number" else ""


def _number(f: Fact) -> Decimal | None:
    v = f.value
    return v.value if v.kind in ("number", "percent") else v.amount if v.kind == "money" else None


def _op_problem(doc_id: str, where: str, op: str, operands: list[Fact]) -> LintProblem | None:
    """A derivation whose operands' quantity does not allow ``op`` (``count`` counts rows of anything)."""
    if op == "count":
        return None
    for f in operands:
        if f.value.kind not in (*_NUMERIC, "date"):
            continue
        q = quantity_of(f)
        if not quantity_allows(q, op):
            return LintProblem(doc_id=doc_id, kind="semantic", check="op_not_allowed",
                               detail=f"{where}: {op} over {q} fact {f.id} {f.label!r} ({f.text})")
    return None


_PLURAL_UNITS = ("hours", "days", "weeks", "months", "years", "minutes", "items", "units", "points",
                 "percentage points", "incidents", "employees", "tickets", "cases")
_NUMBERING_WORDS = {"table", "figure", "chart", "section", "page", "item", "step", "phase", "q", "zone", "note",
                    "no", "part", "annex", "appendix", "form", "level", "tier", "wave", "round", "stage"}


def plural_unit_pattern(units: Iterable[str]) -> re.Pattern[str] | None:
    """``1 incidents``: a one followed by a unit in the plural (``ir.arithmetic_rules.unit_for_count``)."""
    plurals = sorted({u for u in units if u and unit_for_count(u, 1) != u}, key=len, reverse=True)
    if not plurals:
        return None
    alt = "|".join(re.escape(u) for u in plurals)
    return re.compile(rf"(?<![\w.,/-])[+-]?1\s+(?:{alt})\b", re.IGNORECASE)


def plural_hits(text: str, pattern: re.Pattern[str]) -> list[str]:
    """Matches of ``pattern`` that are not a numbering ("Table 1 incidents by month")."""
    out = []
    for m in pattern.finditer(text):
        before = text[:m.start()].split()
        if before and before[-1].strip(_PUNCT + "#").casefold() in _NUMBERING_WORDS:
            continue
        out.append(m.group(0))
    return out


def semantic_problems(doc_id: str, doc: DocumentIR, qa: list[QAPair], asr: list[Assertion],
                      pages: list[PageText]) -> list[LintProblem]:
    facts = doc.fact_index()
    out: list[LintProblem] = []

    def sem(check: str, detail: str, page_no: int | None = None) -> None:
        out.append(LintProblem(doc_id=doc_id, page_no=page_no, kind="semantic", check=check, detail=detail))

    used: set[str] = set()  # numeric facts some arithmetic rests on
    for f in doc.facts:  # derived facts drawn on the page (totals, shares, change cells)
        if f.derivation is None:
            continue
        ops = [facts[o] for o in f.derivation.operands if o in facts]
        used.update(o.id for o in ops)
        if (p := _op_problem(doc_id, f"fact {f.id} {f.label!r}", f.derivation.op, ops)) is not None:
            out.append(p)
        value = _number(f)
        if f.derivation.op == "percent_change" and value is not None and abs(value) > MAX_CHANGE_PERCENT:
            sem("change_out_of_range", f"fact {f.id} {f.label!r} is {f.text} (beyond +/-{MAX_CHANGE_PERCENT}%)")
    for a in asr:
        if a.derivation is None:
            continue
        ops = [facts[o.fact_id] for o in a.derivation.operands if o.fact_id in facts]
        used.update(o.id for o in ops)
        if (p := _op_problem(doc_id, f"assertion {a.id}", a.derivation.op, ops)) is not None:
            out.append(p)
        if a.derivation.op == "difference" and a.value.kind == "number" and ops and quantity_of(ops[0]) == "rate":
            want = difference_unit("rate", _unit_of(ops[0]))
            if a.value.unit != want:
                sem("rate_difference_unit", f"assertion {a.id}: a difference of rates in {a.value.unit!r}, "
                                            f"not {want!r}: {a.claim!r}")
    unset = sorted(fid for fid in used if facts[fid].value.kind in _NUMERIC and facts[fid].quantity is None)
    if unset:
        more = f", ... ({len(unset)} in all)" if len(unset) > 5 else ""
        sem("missing_quantity", f"numeric facts used in arithmetic without Fact.quantity: "
                                f"{', '.join(unset[:5])}{more}")
    values: dict[tuple, dict[str, str]] = {}
    for f in doc.facts:  # the same quantity of the document drawn with two values
        if not f.period or f.value.kind not in _NUMERIC or _RESIDUAL.search(f.label):
            continue
        key: tuple = (_TABLE_REF.sub("", f.label), f.period, f.subject)
        if f.derivation is not None:  # a total is the same quantity only over the same rows
            key += (f.derivation.op, frozenset(_TABLE_REF.sub("", facts[o].label) for o in f.derivation.operands
                                               if o in facts))
        values.setdefault(key, {}).setdefault(f.text, f.id)
    for (label, period, *_), texts in values.items():
        if len(texts) > 1:
            sem("conflicting_values", f"{label!r} ({period}) drawn as "
                                      f"{' and '.join(f'{t} ({fid})' for t, fid in texts.items())}")
    units = set(_PLURAL_UNITS) | {_unit_of(f) for f in doc.facts} | {
        a.value.unit for a in asr if a.value.kind == "number"}
    pattern = plural_unit_pattern(units)
    if pattern is not None:
        for page in pages:
            for _, text in page.lines:
                for hit in plural_hits(text, pattern):
                    sem("one_plural_unit", f"{hit!r} in {text.strip()!r}", page.page_no)
        for q in qa:
            for text in (q.question, q.answer_text):
                for hit in plural_hits(text, pattern):
                    sem("one_plural_unit", f"{q.id}: {hit!r} in {text!r}")
    return out


# ================================================================= identities

_REF_RE = re.compile(r"\b([A-Z]{2,5})-(\d{4})-(\d{4,6})\b")
_SELF_REF_RE = re.compile(r"\bthis\b", re.IGNORECASE)


def identity_problems(doc_id: str, doc: DocumentIR, pages: list[PageText]) -> list[LintProblem]:
    out = []
    for e in doc.entities:  # the IR's addresses: the content's own rules when the address is structured
        if e.kind != "organisation" or not e.attributes:
            continue
        if "country" in e.attributes:
            found = [("address_mismatch", why) for why in entity_address_problems(e.attributes)]
        else:
            parts = [e.attributes[k] for k in ("address", "street", "city", "postcode", "region", "phone")
                     if e.attributes.get(k)]
            found = address_problems("\n".join(parts))
        out += [LintProblem(doc_id=doc_id, kind="identity", check=check, detail=f"{e.name}: {detail}")
                for check, detail in found]
    seen: set[tuple[str, str]] = set()
    for page in pages:
        for text in address_groups(page.lines):
            for check, detail in address_problems(text):
                if (check, detail) not in seen:
                    seen.add((check, detail))
                    out.append(LintProblem(doc_id=doc_id, page_no=page.page_no, kind="identity", check=check,
                                           detail=detail))
    # the document's own reference: in its title, in facts about "this <document>", in the page chrome
    own: dict[str, set[str]] = {}
    for m in _REF_RE.finditer(doc.title):
        own.setdefault(m.group(1), set()).add(m.group(0))
    for f in doc.facts:
        if f.value.kind == "identifier" and getattr(f.value, "scheme", "") == "reference" \
                and _SELF_REF_RE.search(f.label):
            for m in _REF_RE.finditer(f.text):
                own.setdefault(m.group(1), set()).add(m.group(0))
    for page in pages:
        for bbox, text in page.lines:
            if bbox[1] < 0.12 * page.height or bbox[3] > 0.88 * page.height:
                for m in re.finditer(r"\bRef(?:erence)?\.?:?\s+" + _REF_RE.pattern, text):
                    own.setdefault(m.group(1), set()).add(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
    for _, refs in sorted(own.items()):
        if len(refs) > 1:
            out.append(LintProblem(doc_id=doc_id, kind="identity", check="two_own_references",
                                   detail=f"the document cites itself as {' and '.join(sorted(refs))}"))
    return out


# ================================================================= documents and the corpus

def lint_document(reader: CorpusReader, doc_id: str) -> tuple[list[LintProblem], int]:
    """The problems of one document and its page count."""
    doc = reader.ir(doc_id)
    rmap = reader.render_map(doc_id)
    pdf = reader.pdf(doc_id)
    pages = read_pages(pdf)
    problems = layout_problems(doc_id, pdf, doc, rmap)
    qa = reader.qa(doc_id)
    problems += semantic_problems(doc_id, doc, qa, reader.assertions(doc_id), pages)
    problems += identity_problems(doc_id, doc, pages)
    problems += document_problems(doc_id, doc, rmap, pdf)
    problems += genre_problems(doc_id, doc)
    problems += [LintProblem(doc_id=doc_id, kind="wording", check=check, detail=detail)
                 for check, detail in wording_problems(qa) + fact_problems(qa, reader.assertions(doc_id), doc)]
    problems += wording_lint_problems(doc_id, doc)
    texts = [(p.page_no, "\n".join(t for _, t in p.lines)) for p in pages]
    problems += [LintProblem(doc_id=doc_id, page_no=page_no, kind="coherence", check=check, detail=detail)
                 for check, detail, page_no in coherence_problems(doc, texts)]
    return problems, len(pages)


def lint_corpus(corpus_dir: str | os.PathLike[str], progress: Callable[[int, int], None] | None = None,
                max_half_empty_share: float = HALF_EMPTY_MAX_SHARE) -> LintReport:
    """Lint every document of a finished corpus (read hash-checked through ``open_corpus``)."""
    reader = open_corpus(corpus_dir)
    problems: list[LintProblem] = []
    n_pages = 0
    ids = reader.doc_ids
    for i, doc_id in enumerate(ids, start=1):
        found, n = lint_document(reader, doc_id)
        problems += found
        n_pages += n
        if progress:
            progress(i, len(ids))
    problems += [LintProblem(doc_id=doc_id, kind="coherence", check=check, detail=detail)  # an issuer's documents
                 for doc_id, check, detail in issuer_problems((d, reader.ir(d)) for d in ids)]
    counts = Counter(p.kind for p in problems)
    return LintReport(corpus=reader.label, documents=len(ids), pages=n_pages,
                      counts={k: counts.get(k, 0) for k in LINT_KINDS},
                      half_empty_share=round(counts.get("half_empty", 0) / max(1, n_pages), 4),
                      max_half_empty_share=max_half_empty_share, problems=problems)
