"""Small wording rules shared by the builders: names inside sentences keep their case."""

from __future__ import annotations


def lower_common(text: str) -> str:
    """A heading-cased common phrase inside a sentence: ``Operating costs`` -> ``operating costs``, while
    acronyms and mixed-case words keep their case (``OEE``, ``R&D spend``, ``IT Operations`` -> ``IT
    operations``). Never use it on proper names (items, people, organisations): they keep their case."""
    out = []
    for word in text.split(" "):
        tail = word[1:]
        out.append(word[:1].lower() + tail if word[:1].isupper() and tail == tail.lower() else word)
    return " ".join(out)


def plural(word: str) -> str:
    """``lane`` -> ``lanes``, ``category`` -> ``categories``, ``processing activity`` -> ``processing activities``,
    ``line of business`` -> ``lines of business``."""
    if " of " in word:
        head, tail = word.split(" of ", 1)
        return f"{plural(head)} of {tail}"
    if word.endswith(" no."):  # "action no." -> "action numbers"
        return word[:-len("no.")] + "numbers"
    if " " in word and word.endswith("ed") and not word.endswith("eed") and len(word.rsplit(" ", 1)[1]) > 5:  # "decision requested" -> "decisions requested"
        head, tail = word.rsplit(" ", 1)
        return f"{plural(head)} {tail}"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


__all__ = ["lower_common", "plural"]
