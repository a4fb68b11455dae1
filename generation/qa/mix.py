"""The mix of a set of QA pairs: how many of each type, difficulty and element, how many join two pages or
two elements, how many rest on prose, and how much of the set one question template makes up.

A template is a question with its values taken out: quoted strings, numbers, dates, page numbers and the
document's own names (entities, row and column labels, chart categories and series, captions, field
labels) become placeholders, so "In the table 'Revenue', what is the Q3 for North?" and "In the table
'Costs', what is the FY2025 for Zone B?" are one template.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from synthdocqa.ir.blocks import FigureBlock, FormBlock, ListBlock, TableBlock
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.qa_models import QAPair
from synthdocqa.ir.values import OrganisationValue, PersonValue

QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|‘[^’]*’|“[^”]*”")
MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
          "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
DATE = re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|"
                  rf"\b\d{{1,2}} (?:{MONTHS})\.? \d{{4}}\b|\b(?:{MONTHS})\.? \d{{1,2}},? \d{{4}}\b|"
                  rf"\b(?:{MONTHS}) \d{{4}}\b|\b[QH][1-4] \d{{4}}\b|\bFY ?\d{{2,4}}\b", re.IGNORECASE)
NUMBER = re.compile(r"[$€£¥₹]?[-+]?\d(?:[\d,]*\d)?(?:\.\d+)?(?: ?%| ?[KMB]\b)?")


def document_names(doc: DocumentIR) -> list[str]:
    """The names a question may quote from the document, longest first (so a longer name is taken out
    before a shorter one it contains)."""
    names: set[str] = {e.name for e in doc.entities}
    for _, b in doc.blocks():
        if isinstance(b, TableBlock):
            names |= set(b.columns) | {row[0].text.strip() for row in b.rows} | {b.caption}
        elif isinstance(b, FigureBlock):
            names |= set(b.categories) | {s.name for s in b.series} | {b.title, b.caption}
        elif isinstance(b, FormBlock):
            names |= {f.label for f in b.fields} | {c.label for c in b.checkboxes} | {b.title}
        elif isinstance(b, ListBlock):
            names.add(b.title)
    for f in doc.facts:
        names.add(f.label)
        if isinstance(f.value, PersonValue | OrganisationValue):
            names.add(f.value.name)
        if not f.text[:1].isdigit():
            names.add(f.text)
    names = {n.strip() for n in names if n and len(n.strip()) >= 3}
    return sorted(names, key=lambda n: (-len(n), n))


def question_template(question: str, names: Iterable[str] = ()) -> str:
    """The question with quoted strings, dates, numbers and the document's names replaced."""
    t = QUOTED.sub("<Q>", question)
    for n in names:
        if n.lower() in t.lower():
            t = re.sub(rf"(?<!\w){re.escape(n)}(?!\w)", "<N>", t, flags=re.IGNORECASE)
    t = DATE.sub("<D>", t)
    t = NUMBER.sub("<#>", t)
    t = re.sub(r"<N>(?:[ ,]+(?:and |or )?<N>)+", "<N>", t)
    return re.sub(r"\s+", " ", t).strip()


@dataclass
class QAMix:
    """Counts and shares of one set of QA pairs (see the module docstring for the template)."""

    n_qa: int = 0
    n_docs: int = 0
    n_pages: int = 0
    n_assertions: int = 0
    by_type_difficulty_element: Counter = field(default_factory=Counter)
    hard_by_type: Counter = field(default_factory=Counter)
    templates: Counter = field(default_factory=Counter)
    multi_hop: int = 0
    multi_page: int = 0
    prose: int = 0
    template_examples: dict[str, str] = field(default_factory=dict)

    def share(self, n: int) -> float:
        return n / self.n_qa if self.n_qa else 0.0

    @property
    def largest_opening(self) -> tuple[str, float]:
        """The commonest first three words of a template ("In the table", "What is the") and its share."""
        openings: Counter = Counter()
        for t, n in self.templates.items():
            openings[" ".join(t.split()[:3])] += n
        if not openings:
            return "", 0.0
        o, n = openings.most_common(1)[0]
        return o, self.share(n)

    @property
    def largest_template(self) -> tuple[str, float]:
        if not self.templates:
            return "", 0.0
        t, n = self.templates.most_common(1)[0]
        return t, self.share(n)

    def add(self, doc: DocumentIR | None, qa: list[QAPair], n_pages: int = 0, n_assertions: int = 0) -> None:
        names = document_names(doc) if doc is not None else []
        self.n_docs += 1
        self.n_pages += n_pages
        self.n_assertions += n_assertions
        for q in qa:
            self.n_qa += 1
            self.by_type_difficulty_element[(q.qa_type, q.difficulty, q.element_type)] += 1
            if q.difficulty == "hard":
                self.hard_by_type[q.qa_type] += 1
            self.multi_hop += q.qa_type == "multi_hop"
            self.multi_page += len(q.page_nos) >= 2
            self.prose += q.element_type == "text"
            t = question_template(q.question, names)
            self.templates[t] += 1
            self.template_examples.setdefault(t, q.question)


def qa_mix(docs: Iterable[tuple[DocumentIR | None, list[QAPair]]]) -> QAMix:
    """The mix of the QA pairs of several documents (each with its IR, for the names)."""
    mix = QAMix()
    for doc, qa in docs:
        mix.add(doc, qa)
    return mix
