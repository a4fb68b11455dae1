"""Wording lint of running text: the agreement and article slips a reader of the paragraphs notices.

Read from the IR's running text (paragraphs, list items, footnotes; not tables, headings or chrome), with
``inflect`` deciding number and articles (``generation.content.wording``):

- ``agreement``: a verb that does not agree with its subject: a plural phrase of the document's domain (a
  topic such as "recalls", the item kind's plural, a measure) or a plural noun after "the"/"these"/"those"
  followed by "is", "was", "has" or another singular verb ("readers should note that recalls is measured",
  "the figures was"); a singular one of the domain followed by "are", "were", "have"; "these"/"those" before a
  singular verb. A domain phrase counts as the subject only after a sentence start, a clause's conjunction or
  a determiner (``SUBJECT_OPENERS``): "the review of recalls is", "35 shipments was reached" are not slips;
- ``article``: "a" before a vowel sound or "an" before a consonant sound ("a incident", "an report"), for
  lower-case words (names and acronyms keep whatever article their owners give them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from synthdocqa.generation.content.wording import article, is_plural, lower_common, plural
from synthdocqa.generation.domains import get_domain
from synthdocqa.ir.document import DocumentIR

SINGULAR_VERBS = ("is", "was", "has", "does", "remains", "needs", "shows", "reflects", "affects")
PLURAL_VERBS = ("are", "were", "have", "do")
PREPOSITIONS = frozenset({"of", "on", "in", "for", "with", "to", "by", "from", "about", "between", "across",
                          "around", "against", "under", "over", "into", "at", "than", "as", "per", "within"})
"""A phrase after one of these is its object, not the verb's subject ("the review of recalls is")."""
SUBJECT_OPENERS = frozenset({"", "that", "although", "though", "whether", "and", "but", "while", "because", "since",
                             "when", "if", "where", "so", "the", "these", "those", "all", "both"})
"""What a domain phrase that is a verb's subject follows: the start of a sentence, a conjunction opening a clause,
a determiner ("noted that recalls was", "although promotions remains"); after anything else it is an object or a
modifier's tail ("work on recalls is", "like-for-like sales has", "35 shipments was")."""
_WORD = r"[A-Za-z][\w'-]*"
_DETERMINED = re.compile(rf"\b(?P<det>[Tt]he|[Tt]hese|[Tt]hose)\s+(?P<noun>[a-z][a-z-]*s)\s+(?P<verb>{'|'.join(SINGULAR_VERBS)})\b")
_THESE = re.compile(rf"\b(?P<det>[Tt]hese|[Tt]hose)\s+(?P<noun>{_WORD})\s+(?P<verb>{'|'.join(SINGULAR_VERBS)})\b")
_ARTICLE = re.compile(r"(?:(?<=^)|(?<=[\s(\"']))(?P<art>a|an|A|An)\s+(?P<word>[a-z][a-z-]*)\b")


def running_text(doc: DocumentIR) -> Iterator[tuple[int, str, str]]:
    """(page, block id, text) of each paragraph, list item and footnote of the document."""
    for p, b in doc.blocks():
        if b.type in ("text_block", "footnote"):
            yield p, b.id, "".join(s.text for s in b.spans)
        elif b.type == "list":
            for item in b.items:
                yield p, b.id, "".join(s.text for s in item)


def _before(text: str, start: int) -> str:
    """The word just before ``start`` (lower case; "" at the start of the text or a sentence)."""
    head = text[:start].rstrip()
    if not head or head[-1] in ".;:!?":
        return ""
    return head.split()[-1].lower().strip("(,\"'")


def domain_phrases(doc: DocumentIR) -> set[str]:
    """The domain's phrases that stand as subjects in its prose: topics, the item kind and its plural, measures."""
    d = get_domain(doc.domain)
    return {*d.topics, d.item_kind, plural(d.item_kind), *(lower_common(m.name) for m in d.metrics)}


def agreement_slips(text: str, phrases: set[str] = frozenset()) -> list[str]:
    """The agreement slips of ``text``: each as the words that disagree ("recalls is")."""
    out: list[str] = []
    for phrase in sorted(phrases, key=len, reverse=True):
        verbs = PLURAL_VERBS if not is_plural(phrase) else SINGULAR_VERBS
        for m in re.finditer(rf"(?<![\w-]){re.escape(phrase)}\s+({'|'.join(verbs)})\b", text, re.IGNORECASE):
            before = _before(text, m.start())
            if before not in SUBJECT_OPENERS or any(m.group(0) in o for o in out):
                continue
            if verbs is PLURAL_VERBS and before in ("these", "those", "and", "both", "all"):
                continue  # "patch compliance and recalls are"
            out.append(m.group(0))
    for m in _DETERMINED.finditer(text):
        if is_plural(m.group("noun")) and _before(text, m.start()) not in PREPOSITIONS:
            out.append(m.group(0))
    for m in _THESE.finditer(text):
        if _before(text, m.start()) not in PREPOSITIONS and m.group(0) not in out:
            out.append(m.group(0))
    return list(dict.fromkeys(out))


def article_slips(text: str) -> list[str]:
    """The article slips of ``text``: each as the article and its word ("a incident")."""
    out = []
    for m in _ARTICLE.finditer(text):
        art, word = m.group("art").lower(), m.group("word")
        if art == "a" and text[m.start():m.start() + 1] == "A" and _before(text, m.start()):
            continue  # "Appendix A in": a label letter, not the article
        if article(word).split(" ", 1)[0] != art:
            out.append(m.group(0))
    return out


def wording_lint_problems(doc_id: str, doc: DocumentIR) -> list:
    """The agreement and article slips of the document's running text (lint kind ``grammar``)."""
    from .lint import LintProblem

    phrases = domain_phrases(doc)
    out = []
    for page, bid, text in running_text(doc):
        out += [LintProblem(doc_id=doc_id, page_no=page, kind="grammar", check="agreement",
                            detail=f"{bid}: {slip!r} does not agree") for slip in agreement_slips(text, phrases)]
        out += [LintProblem(doc_id=doc_id, page_no=page, kind="grammar", check="article",
                            detail=f"{bid}: {slip!r} takes the other article") for slip in article_slips(text)]
    return out


__all__ = ["agreement_slips", "article_slips", "domain_phrases", "running_text", "wording_lint_problems"]
