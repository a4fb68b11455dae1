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

- ``function_word_detail``: a person found by a detail that is no noun ("whose by is Arjun Holm");
- ``participle_measure``: a bare participle used as the thing measured ("is the spent in Dec 2022 lower");
- ``count_of_reporters``: a count of the rows that report a value ("How many lots report number of bids
  received?"): a person counts things, not the rows of a table;
- ``dangling_place``: a place phrase cut from a question without its verb ("What is the cost plotted?");
- ``noun_with_itself``: a row named by its key column and its own name ("the risk id with risk Cyber attack").

Issue 51 adds checks that need the question's facts in the document (``fact_problems``):

- ``signed_comparison``: a comparison worded "larger/higher/greater" over a negative value or over values of
  different sign (an inflow is not "larger" than an outflow; two outflows are compared as outflows);
- ``partial_set``: a set answered with part of itself (items "above" a threshold listed while more items of
  the same column pass it);
- ``unrelated_measures``: a difference or comparison of two different quantities of two different items
  ("how much larger is the operating profit for 2023 than the net change in cash"): their labels share no
  word but the period;
- ``standing_text``: a question sourced from standing text (a review window, the period a report covers);
- ``own_start``: a multi-hop question that resolves to its own start or whose two hops meet in one fact.

``lint`` reports each as kind ``wording``; the checks are shown failing on planted questions in
``tests/corpus/test_question_lint.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from synthdocqa.generation.qa.context import is_standing, is_total_row
from synthdocqa.generation.qa.own_start import qa_own_start_reasons
from synthdocqa.ir.answers import numeric
from synthdocqa.ir.blocks import FigureBlock, TableBlock
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.qa_models import Assertion, QAPair

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
    "function_word_detail": re.compile(r"(?i)\bwhose (?:by|for|of|on|at|to|from|with|in) is\b|"
                                       r"\bthe (?:by|for|of|on|at|to|from|with) (?:of|is)\b"),
    "participle_measure": re.compile(r"\bthe (?:spent|paid|incurred|invoiced|budgeted|claimed|committed|billed|"
                                     r"allocated)(?= (?:in|of|for|at|on|by|is|was|lower|higher)\b|[?,])"),
    "count_of_reporters": re.compile(r"\b(?:report|reports|reporting) (?:the )?number of\b|"
                                     r"\bhave a value for\b|\bfor how many \w+ (?:does|is) .*\b(?:give|stated)\b",
                                     re.IGNORECASE),
    "dangling_place": re.compile(r"\b(?:plotted|labelled)\?$"),
    "noun_with_itself": re.compile(r"\bthe (\w+) (?:id|ref\.?|no\.?|number|reference) (?:with|whose) \1\b", re.IGNORECASE),
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


# ------------------------------------------------------------------ checks on a question's facts

COMPARED = re.compile(r"\b(?:larger|greater|bigger|smaller)\b(?! outflow)|\b(?:higher|lower) amount\b", re.IGNORECASE)
"""A comparison by size: over a negative value it has no one meaning (a signed "higher change" has)."""
STOP = frozenset("the of in for and at on to by a an from with per this that total".split())
PERIOD_WORD = re.compile(r"^(?:(?:fy)?\d{2,4}(?:/\d{2,4})?|[qh][1-4]|year|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
                         r"nov|dec|\d+)$")


def _words(label: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9/]+", label.lower()) if w not in STOP and not PERIOD_WORD.match(w)}


def _cell_groups(doc: DocumentIR) -> dict[str, tuple[str, list[str]]]:
    """Each numeric fact of a table column or chart series: (the column's key, the fact ids of the column)."""
    out: dict[str, tuple[str, list[str]]] = {}
    for _, b in doc.blocks():
        cols: dict[tuple, list[str]] = {}
        if isinstance(b, TableBlock):
            body = b.rows[:-1] if b.total_row else b.rows
            for row in body:
                if is_total_row(row[0].text):
                    continue
                for j, cell in enumerate(row[1:], 1):
                    cols.setdefault((b.id, "c", j), []).extend(cell.fact_ids[:1])
        elif isinstance(b, FigureBlock):
            for k, series in enumerate(b.series):
                for p in series.points:
                    cols.setdefault((b.id, "s", k), []).extend(p.fact_ids[:1])
        for key, fids in cols.items():
            for f in fids:
                out.setdefault(f, (str(key), fids))
    return out


def partial_set(listed: int, fact_ids: list[str], text: str, facts: dict[str, Fact],
                groups: dict[str, tuple[str, list[str]]]) -> str:
    """Why a set of ``listed`` items "above" a threshold (``text`` names it) is part of its set: more facts
    of the same column pass the threshold ('' when none do, or the set is no such set)."""
    inside = [f for f in fact_ids if f in groups]
    if not inside or len({groups[f][0] for f in inside}) != 1 or len(inside) != len(fact_ids):
        return ""
    ids = set(groups[inside[0]][1])
    column = [facts[f] for f in ids if f in facts and numeric(facts[f].value) is not None  # subtotals left out
              and (facts[f].derivation is None or not ids & set(facts[f].derivation.operands))]
    thr = [f for f in column if re.search(rf"\b(?:above|over|exceeds?|greater than) {re.escape(f.text)}(?!\d)", text)]
    if not thr:
        return ""
    passing = [f for f in column if numeric(f.value) > numeric(thr[0].value)]
    if len(passing) > listed:
        return f"{listed} of the {len(passing)} items above {thr[0].text} listed"
    return ""


def fact_problems(qa: Iterable[QAPair], assertions: Iterable[Assertion], doc: DocumentIR) -> list[tuple[str, str]]:
    """``(check, detail)`` for each question of a document that fails a check on its facts (module docstring:
    ``signed_comparison``, ``partial_set``, ``unrelated_measures``, ``standing_text``, ``own_start``)."""
    facts = doc.fact_index()
    groups = _cell_groups(doc)
    asr = list(assertions)
    by_qa: dict[str, list[Assertion]] = {}
    for a in asr:
        by_qa.setdefault(a.qa_id, []).append(a)
    out = []
    for q in qa:
        mine = by_qa.get(q.id, [])
        said = f"{q.id}: \"{q.question}\""
        used = [facts[f] for f in q.fact_ids if f in facts]
        nums = [numeric(f.value) for f in used if numeric(f.value) is not None]
        if q.qa_type in ("comparison", "boolean") and len(nums) == 2 and COMPARED.search(q.question) \
                and (min(nums) < 0) and "outflow" not in q.question:
            out.append(("signed_comparison", said))
        if q.answer.kind == "list" and (why := partial_set(len(q.answer.value), q.fact_ids, q.question, facts, groups)):
            out.append(("partial_set", f"{said}: {why}"))
        for a in mine:
            if a.value.kind == "list" and (why := partial_set(len(a.value.value), a.fact_ids, a.claim, facts, groups)):
                out.append(("partial_set", f"{q.id} assertion {a.id}: {why}: {a.claim!r}"))
            ops = [facts[o.fact_id] for o in a.derivation.operands if o.fact_id in facts] if a.derivation else []
            two = ops if a.derivation is not None and a.derivation.op == "difference" else (
                [facts[f] for f in a.fact_ids if f in facts] if q.qa_type == "comparison" and len(a.fact_ids) == 2
                else [])
            if len(two) == 2 and not _words(two[0].label) & _words(two[1].label):
                out.append(("unrelated_measures", f"{said}: {two[0].label!r} against {two[1].label!r}"))
        if any(is_standing(f) for f in used):
            out.append(("standing_text", said))
        if q.qa_type == "multi_hop":
            for why in qa_own_start_reasons(q, mine, doc):
                out.append(("own_start", f"{said}: {why}"))
    return out
