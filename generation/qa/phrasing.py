"""Seeded choice among the phrasings of a question, on the draft's own ``phrase`` stream (so adding a
phrasing never moves the draws that pick the question's facts).

A place slot (``where``, ``wa``, ``wb``, ``wc``) given as ``""`` means the question names no place: what it
asks about is unambiguous in the whole document (``QAContext.place``), and a person asks "What was the
revenue of the Nordics region in 2024?", not "In Table 4, ...". The phrasing then loses its place phrase
("In {where}, ", " in {where}", " ({where})", "{Where}: "); a phrasing that cannot lose it is not drawn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from synthdocqa.ir.rng import Rng

from ..content.wording import verb

AN = re.compile(r"(?:^|(?<=[.?!:] ))(A) (?=[aeioAEIO]\w)|\b(a) (?=[aeioAEIO]\w)")
"""The article "a" before a vowel, never a label letter ("party A is ...", "Plan A")."""


PARTICIPLE_OF = re.compile(r"\b(\w+ed|sold|spent|paid|held|made|drawn|won|lost|built|given|taken) of (?=[A-Z])")
"""A measure named by a participle takes its item with "for": "funds raised for Disaster relief", "records
processed for CCTV", not "funds raised of Disaster relief"."""


def sentence(text: str) -> str:
    """First letter up, single spaces, "an" before a vowel ("an action"), "for" after a participle measure."""
    text = AN.sub(lambda m: (m.group(1) or m.group(2)) + "n ", " ".join(text.split()))
    text = PARTICIPLE_OF.sub(r"\1 for ", text)
    return text[:1].upper() + text[1:]


QUESTION_MAX_WORDS = 25
"""A question a person would ask is short: longer drafts are not kept (``generation.qa.derive``)."""

PLACE_SLOTS = ("where", "wa", "wb", "wc")
"""Slots that name where a value is read (a table, a chart, a list)."""


def _unplaced(template: str, slot: str) -> str:
    """``template`` without its phrase naming ``slot`` (still holding it when no known phrase does)."""
    cap = slot[:1].upper() + slot[1:]
    s, c = "{" + slot + "}", "{" + cap + "}"
    t = template
    for pat in (rf"^{re.escape(c)}: ", rf"^{re.escape(c)} (?:lists|gives|shows) ",
                rf"^(?:In|According to|Reading|Comparing|On|From) {re.escape(s)}(?: and \{{w[ab]\}})?[,:] ",
                rf"^Restrict {re.escape(s)} to ",
                rf",? (?:(?:plotted|shown|reported|recorded|given|listed|stated|labelled) )?"
                rf"(?:in|according to|on|from|of) {re.escape(s)}(?=[?.,:; ]|$)", rf" \({re.escape(s)}\)"):
        t = re.sub(pat, "", t)
    return t


def place_free(options: Sequence[str], slots: dict[str, str]) -> list[str]:
    """The phrasings of ``options`` without the place phrases of the empty place slots (those that keep one
    left out)."""
    empty = [s for s in PLACE_SLOTS if s in slots and slots[s] == ""]
    if not empty:
        return list(options)
    out = []
    for t in options:
        for s in empty:
            t = _unplaced(t, s)
        if not any("{" + s + "}" in t or "{" + s[:1].upper() + s[1:] + "}" in t for s in empty):
            out.append(t[:1].upper() + t[1:])
    return list(dict.fromkeys(out))


AGREEING_SLOTS = ("d", "m", "da")
"""Slots holding the noun phrase a phrasing's "is the ..." is about (a description, a measure, the first of two
descriptions compared)."""


def agreeing(template: str, slot: str, phrase: str) -> str:
    """``template`` with its "is the {slot}" ("does", "has") agreeing with ``phrase`` ("Is the on-time
    responses ..." -> "Are the on-time responses ...", "does the emissions" -> "do the emissions", by
    ``wording.verb``)."""
    def fix(m: re.Match) -> str:
        v = verb(phrase, m.group(1).lower())
        return (v[:1].upper() + v[1:] if m.group(1)[0].isupper() else v) + m.group(2)
    return re.sub(r"\b([Ii]s|[Ww]as|[Dd]oes|[Hh]as)( the (?:total |average |largest |smallest |highest |lowest )?"
                  r"\{" + slot + r"\})", fix, template)


def pick(rng: Rng, options: Sequence[str], key: str = "q", **slots: str) -> str:
    """One of ``options`` filled with ``slots`` (``{Where}`` is ``{where}`` with a capital); ``key`` names
    the choice when a draft makes several. An empty place slot drops the place phrase (``place_free``; where
    no phrasing can drop it, the place is "the document"). Where the drawn phrasing runs past
    ``QUESTION_MAX_WORDS``, the shortest one is taken instead (a writer says a long question the concise
    way; the draw is the same)."""
    free = place_free(options, slots)
    if not free:
        free = list(options)
        slots = {k: (v if v or k not in PLACE_SLOTS else "the document") for k, v in slots.items()}
    template = rng.fork("phrase", key).choice(free)
    for slot in AGREEING_SLOTS:  # "What are the access requests of Payroll in Q1?", not "What is the ..."
        if slots.get(slot):
            free = [agreeing(t, slot, slots[slot]) for t in free]
            template = agreeing(template, slot, slots[slot])
    full = dict(slots)
    full.update({k[:1].upper() + k[1:]: sentence(v) for k, v in slots.items() if k[:1].islower()})
    text = sentence(template.format(**full))
    if len(text.split()) > QUESTION_MAX_WORDS:
        text = min((sentence(t.format(**full)) for t in free), key=lambda t: len(t.split()))
    return text
