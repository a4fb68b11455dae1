"""Wording shared by the builders: plurals, articles, number words and subject-verb agreement from ``inflect`` (a
maintained library of English inflection), and names inside sentences keeping their case.

Only what ``inflect`` gets wrong on the catalogue's own phrases is a rule here (``plural``'s domain phrases):
"action no." (a column head) is "action numbers", "decision requested" is "decisions requested".
"""

from __future__ import annotations

from functools import lru_cache

import inflect

_ENGINE = inflect.engine()

BE = {"is": "are", "was": "were", "has": "have", "does": "do"}
"""The singular verbs whose plural is irregular; any other present-tense verb loses its ``-s`` (``inflect``)."""


PREPOSITIONS = frozenset({"of", "in", "on", "under", "to", "for", "at", "per", "by"})
"""The prepositions after a phrase's head ("lines of business", "policies in force", "spend to date")."""
PLURAL_HEADS = frozenset({"minutes", "data", "people", "staff"})
"""Heads plural without an ``-s`` plural ``inflect`` can undo ("these minutes are", "the data are")."""
PARTICIPLES = frozenset({"sold", "spent", "paid", "held", "made", "taken", "given", "won", "lost", "built", "run",
                         "drawn", "found", "done", "seen", "shown", "kept", "sent", "brought", "bought"})
"""Irregular past participles that follow a noun ("units sold"); regular ones end in ``-ed``."""
SINGULAR_HEADS = frozenset({"news", "series", "species", "means", "lens", "gas", "bias"})
"""Heads in ``-s`` that take a singular verb (``inflect`` would strip their ``-s``)."""


def lower_common(text: str) -> str:
    """A heading-cased common phrase inside a sentence: ``Operating costs`` -> ``operating costs``, while
    acronyms and mixed-case words keep their case (``OEE``, ``R&D spend``, ``IT Operations`` -> ``IT
    operations``). Never use it on proper names (items, people, organisations): they keep their case."""
    out = []
    for word in text.split(" "):
        tail = word[1:]
        out.append(word[:1].lower() + tail if word[:1].isupper() and tail == tail.lower() else word)
    return " ".join(out)


@lru_cache(maxsize=4096)
def is_plural(phrase: str) -> bool:
    """Whether a noun phrase is plural ("recalls", "international transfers", "these minutes"), by its head
    word (the last, or the one before "of": "lines of business"); "patch compliance", "logistics" are not."""
    words = phrase.strip().split()
    if not words:
        return False
    cut = next((i for i, w in enumerate(words) if i and w.lower() in PREPOSITIONS), len(words))
    head = words[cut - 1].lower()  # "lines of business", "policies in force": the word before the preposition
    if cut >= 2 and (head.endswith("ed") or head in PARTICIPLES):
        head = words[cut - 2].lower()  # "funds raised", "units sold": the noun before its participle
    if head in PLURAL_HEADS:
        return True
    if head in SINGULAR_HEADS or head.endswith(("ss", "us", "is", "ics")):  # "analysis", "logistics" (a field)
        return False
    return bool(head.endswith("s") and _ENGINE.singular_noun(head))


@lru_cache(maxsize=4096)
def plural(word: str) -> str:
    """``lane`` -> ``lanes``, ``category`` -> ``categories``, ``processing activity`` -> ``processing activities``,
    ``line of business`` -> ``lines of business`` (inflect); an already plural phrase is kept ("recalls"); the
    catalogue's domain phrases inflect gets wrong: ``action no.`` -> ``action numbers``, ``decision requested`` ->
    ``decisions requested``."""
    if word.endswith(" no."):  # "action no." -> "action numbers"
        return word[:-len("no.")] + "numbers"
    if " " in word and word.endswith("ed") and not word.endswith("eed") and len(word.rsplit(" ", 1)[1]) > 5:
        head, tail = word.rsplit(" ", 1)  # "decision requested" -> "decisions requested"
        return f"{plural(head)} {tail}"
    if is_plural(word):
        return word
    words = word.split(" ")
    if not any(i and w.lower() in PREPOSITIONS for i, w in enumerate(words)):  # the last word is the head:
        return " ".join([*words[:-1], _plural_word(words[-1])])  # "dock-to-stock times", not "docks-to-stock time"
    return _ENGINE.plural_noun(word)  # "lines of business", "values for money", "costs to date"


def _plural_word(word: str) -> str:
    if word.isupper():  # an acronym: "ARPUs", "OEEs"
        return word + "s"
    if word[:1].isupper() and word[1:2].islower():  # inflect keeps a capitalised word as a name ("Deliverys")
        out = _ENGINE.plural_noun(word[0].lower() + word[1:])
        return out[0].upper() + out[1:]
    return _ENGINE.plural_noun(word)


def verb(subject: str, singular: str) -> str:
    """The verb agreeing with ``subject``: ``verb("recalls", "is")`` -> ``are``, ``verb("patch compliance",
    "remains")`` -> ``remains``, ``verb("recalls", "remains")`` -> ``remain``."""
    if not is_plural(subject):
        return singular
    return BE.get(singular) or _ENGINE.plural_verb(singular)


def for_count(n: int | float, word: str) -> str:
    """``word`` (a noun or a singular verb) agreeing with a count: ``for_count(1, "is")`` -> ``is``,
    ``for_count(3, "was")`` -> ``were``, ``for_count(2, "line")`` -> ``lines``."""
    if n == 1:
        return word
    return BE.get(word) or plural(word)


def article(phrase: str) -> str:
    """The indefinite article ``phrase`` takes, with it: ``an audit area``, ``a control area``, ``an hour``."""
    return _ENGINE.a(phrase)


def number_words(n: int) -> str:
    """``21`` -> ``twenty-one`` (small counts inside running text)."""
    return _ENGINE.number_to_words(n)


__all__ = ["BE", "article", "for_count", "is_plural", "lower_common", "number_words", "plural", "verb"]
