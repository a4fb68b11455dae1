"""Questions a person would not write: wording defects found by reading generated questions (issue 29).

Each check is a pattern over a question (and, where the defect is in what it asks for, its answer) that
names a class of defect a reader met in real corpora, not a style preference:

- ``period_as_noun``: a column header that is only a period used as the thing measured ("which has the
  larger 2022?", "the highest year 1"): a person asks for the amount in 2022;
- ``function_word_field``: a column header that is a preposition or verb used as a noun ("the difference
  in for", "on abstain"): a person says "votes for", "abstentions";
- ``letter_article``: "an" put before a label letter ("party An is ..." for "party A is ...");
- ``broken_plural``: a plural made by appending "s" to an abbreviation or participle ("action no.s",
  "decision requesteds");
- ``colon_field``: a form field label with its colon used as a noun phrase ("the customer: title");
- ``title_as_noun``: a block's title that is not a noun used as one ("the Signed for and on behalf of the
  parties", "the Claimant whose claimant is ..."), or an "X by" label or a bare participle used as a noun
  ("is the prepared by", "what is the detected?");
- ``empty_measure``: a measure left out of its phrase ("the change in for Scope 3");
- ``number_items``: a question for the items of a list or the entries of a table answered with bare
  numbers ("Which items are listed ...? 48, $144,000.00, 2"), or for rows named only by a number
  ("the difference between 1 and 2").

``lint`` reports each as kind ``wording``; the checks are shown failing on planted questions in
``tests/corpus/test_question_lint.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from synthdocqa.ir.qa_models import QAPair

PERIOD = r"(?:(?:FY)?\d{4}(?:/\d{2})?|[Yy]ear \d{1,2}\b|[QH]\d \d{4}|\d{1,2} [A-Z][a-z]{2} \d{4})"

CHECKS: dict[str, re.Pattern[str]] = {
    "period_as_noun": re.compile(
        r"\b(?:the|highest|lowest|larger|smaller|greater|higher|lower|what|with|average|mean|total|"
        r"combined) " + PERIOD + r"(?=[?,.]| (?:in|above|below|do|does|of|than|for|according|shown|"
        r"greater|over|exceeds|across|per|rounded|to two)\b)"),
    "function_word_field": re.compile(r"\b(?:in|on|the) (?:for|against|abstain)\b(?! (?:resolution|the|a|an|each)\b)|"
                                      r"\b(?:highest|lowest|larger|smaller|higher|lower) (?:for|against|abstain)"
                                      r"(?= shown| in\b| reported|\?)"),
    "letter_article": re.compile(r"\b[Aa]n (?:[A-Z]\b|(?:is|are|was|has|have)\b)"),
    "broken_plural": re.compile(r"\bno\.s\b|\b\w+[^e\W]eds\b|\b\w+\.s\b"),
    "colon_field": re.compile(r"\b(?:the|whose|what is the) [a-z]+: (?:title|date|name|signed by|address|position)\b"),
    "title_as_noun": re.compile(r"\b[Tt]he (?:Signed|Execution of)\b|\b[Tt]he (\w+) (?:whose|where) (?:the )?\1\b|"
                                r"\b(?:the|whose|their) [a-z]+ed by(?=[?,.]| is\b| of\b| has\b)|"
                                r"\bthe [a-z]{2,}[^e\W]ed(?=[?,])", re.IGNORECASE),
    "empty_measure": re.compile(r"\b(?:change|difference|rise|fall|increase|decrease) in for\b"),
    "number_items": re.compile(r"\bbetween \d{1,2} and \d{1,2} (?:according|in|on)\b"),
}

ITEMS_QUESTION = re.compile(r"\bitems?\b(?! (?:numbers?|no\.))")
NUMBERISH = re.compile(r"^[\s$€£¥(+-]*[\d.,]+\s*(?:%|[A-Za-z]{0,4})?\)?$")


def question_defects(question: str, answer_text: str = "", answer_kind: str = "") -> list[tuple[str, str]]:
    """The wording defects of one question: ``(check, the words that show it)``."""
    out = []
    for check, pat in CHECKS.items():
        m = pat.search(question)
        if m:
            out.append((check, m.group(0)))
    if answer_kind == "list" and ITEMS_QUESTION.search(question):
        items = [s.strip() for s in re.split(r";|, (?=[$€£¥\d])", answer_text) if s.strip()]
        if items and all(NUMBERISH.match(s) for s in items):
            out.append(("number_items", answer_text[:60]))
    return out


def wording_problems(qa: Iterable[QAPair]) -> list[tuple[str, str]]:
    """``(check, detail)`` for every defective question of a document (the detail names the question)."""
    out = []
    for q in qa:
        for check, words in question_defects(q.question, q.answer_text, q.answer.kind):
            out.append((check, f"{q.id}: '{words}' in \"{q.question}\""))
    return out
