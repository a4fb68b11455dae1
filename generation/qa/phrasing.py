"""Seeded choice among the phrasings of a question, on the draft's own ``phrase`` stream (so adding a
phrasing never moves the draws that pick the question's facts)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from synthdocqa.ir.rng import Rng

AN = re.compile(r"(?:^|(?<=[.?!:] ))(A) (?=[aeioAEIO]\w)|\b(a) (?=[aeioAEIO]\w)")
"""The article "a" before a vowel, never a label letter ("party A is ...", "Plan A")."""


def sentence(text: str) -> str:
    """First letter up, single spaces, "an" before a vowel ("an action")."""
    text = AN.sub(lambda m: (m.group(1) or m.group(2)) + "n ", " ".join(text.split()))
    return text[:1].upper() + text[1:]


QUESTION_MAX_WORDS = 30
"""A question a person would ask is short: longer drafts are not kept (``generation.qa.derive``)."""


def pick(rng: Rng, options: Sequence[str], key: str = "q", **slots: str) -> str:
    """One of ``options`` filled with ``slots`` (``{Where}`` is ``{where}`` with a capital); ``key`` names
    the choice when a draft makes several. Where the drawn phrasing runs past ``QUESTION_MAX_WORDS``, the
    shortest one is taken instead (a writer says a long question the concise way; the draw is the same)."""
    template = rng.fork("phrase", key).choice(list(options))
    full = dict(slots)
    full.update({k[:1].upper() + k[1:]: sentence(v) for k, v in slots.items() if k[:1].islower()})
    text = sentence(template.format(**full))
    if len(text.split()) > QUESTION_MAX_WORDS:
        text = min((sentence(t.format(**full)) for t in options), key=lambda t: len(t.split()))
    return text
