"""Wording from ``inflect`` (``generation.content.wording``): plurals, articles, number words and agreement on
the catalogue's own phrases, and the prose templates' agreeing words (a plural topic takes a plural verb)."""

from __future__ import annotations

import dataclasses

import pytest

from synthdocqa.generation.content import prose_text, registers
from synthdocqa.generation.content.wording import article, is_plural, number_words, plural, verb
from synthdocqa.generation.domains import DOMAINS, RECIPES


def _domains():
    return list(DOMAINS.values()) if isinstance(DOMAINS, dict) else list(DOMAINS)


@pytest.mark.parametrize(("word", "expected"), [
    ("lane", "lanes"), ("category", "categories"), ("processing activity", "processing activities"),
    ("line of business", "lines of business"), ("action no.", "action numbers"),
    ("decision requested", "decisions requested"), ("value for money", "values for money"),
    ("audit area", "audit areas"), ("branch", "branches"), ("recalls", "recalls"),
])
def test_plural(word, expected):
    assert plural(word) == expected


def test_every_item_kind_takes_its_plural():
    """The rows of every domain pluralise as English does (the hand rules gave the same on every item kind)."""
    for d in _domains():
        p = plural(d.item_kind)
        assert p != d.item_kind and is_plural(p) and not is_plural(d.item_kind), d.item_kind


@pytest.mark.parametrize(("phrase", "plural_"), [
    ("recalls", True), ("international transfers", True), ("like-for-like sales", True), ("minutes", True),
    ("lines of business", True), ("patch compliance", False), ("logistics", False), ("analysis", False),
    ("status", False), ("business continuity", False), ("claims handling", False), ("news", False),
])
def test_is_plural(phrase, plural_):
    assert is_plural(phrase) is plural_


def test_verbs_agree():
    assert [verb("recalls", v) for v in ("is", "was", "has", "remains", "records")] == \
        ["are", "were", "have", "remain", "record"]
    assert [verb("patch compliance", v) for v in ("is", "was", "remains")] == ["is", "was", "remains"]
    assert [r.slug for r in RECIPES if r.plural_noun] == ["board_minutes"]  # "these minutes are"


def test_articles_and_number_words():
    assert article("audit area") == "an audit area"
    assert article("control area") == "a control area"
    assert article("hour") == "an hour" and article("user") == "a user"
    assert number_words(21) == "twenty-one"


class _Ctx:
    """The least of a document context ``prose_text._fill`` reads."""

    def __init__(self, domain, recipe):
        from types import SimpleNamespace

        self.domain = domain
        self.recipe = recipe
        self.issuer = SimpleNamespace(name="Acme Ltd")
        self.focus = "FY2024"
        self.fmt = SimpleNamespace(currency="EUR")
        import datetime as dt

        self.anchor = dt.date(2024, 5, 1)


class _Rng:
    def __init__(self, topics):
        self.topics = topics

    def sample(self, seq, k):
        return list(self.topics[:k])

    def choice(self, seq):
        return seq[0]


def test_filled_templates_agree_with_a_plural_topic():
    """Every report, minutes and research template filled with a plural topic ("recalls") says "recalls are",
    never "recalls is"; with a singular one "patch compliance is" (planted: the old fill gives the slip)."""
    from synthdocqa.corpus.views.wording_lint import agreement_slips, article_slips
    from synthdocqa.generation.domains import get_domain, get_recipe

    d = get_domain("automotive")
    d_plural = dataclasses.replace(d, topics=("recalls", "international transfers"), item_kind="audit area")
    pools = [*registers.OPENERS, *registers.OPENERS_MORE, *registers.INTERPRETATIONS, *registers.INTERPRETATIONS_MORE,
             *registers.MINUTES_OPENERS, *registers.MINUTES_REMARKS, *registers.MINUTES_DISCUSSION, *registers.RESEARCH_OPENERS,
             *registers.RESEARCH_REMARKS, *registers.RESEARCH_DISCUSSION]
    ctx = _Ctx(d_plural, get_recipe("quarterly_report"))
    said = [prose_text._fill(t, ctx, _Rng(["recalls", "international transfers"])) for t in pools]
    said += [prose_text._fill(t, ctx, _Rng(["recalls", "international transfers"]), subject="recalls", Subject="Recalls")
             for t in registers.SUBSECTION_OPENERS]
    phrases = {"recalls", "international transfers", "audit area", "audit areas"}
    assert [s for s in said if agreement_slips(s, phrases) or article_slips(s)] == []
    assert any("recalls are measured" in s for s in said) and any("Recalls were reviewed" in s for s in said)
    assert any("an audit area" in s for s in said)
    # planted: the verbs filled as for a singular topic
    slipped = [prose_text._fill(t, ctx, _Rng(["recalls", "international transfers"]), topic_is="is", topic_was="was",
                           topic_remains="remains") for t in registers.INTERPRETATIONS + registers.INTERPRETATIONS_MORE]
    assert {"recalls is"} <= {x for s in slipped for x in agreement_slips(s, phrases)}


@pytest.mark.parametrize(("word", "expected"), [
    ("ARPU", "ARPUs"), ("Delivery", "Deliveries"), ("Dock-to-stock time", "Dock-to-stock times"),
    ("Assets under management", "Assets under management"), ("Spend to date", "Spends to date"),
    ("Cargo carried", "Cargoes carried"), ("Passengers", "Passengers"),
])
def test_plural_of_measure_names(word, expected):
    """Where inflect alone errs on the catalogue's measure names (an acronym, a capitalised word, a hyphenated
    compound, a plural head before a preposition), ``plural`` keeps English."""
    assert plural(word) == expected


@pytest.mark.parametrize(("phrase", "plural_"), [
    ("funds raised of Disaster relief in Q3 2024", True), ("units sold", True), ("hours worked", True),
    ("revenue earned", False), ("energy produced", False), ("patch compliance", False)])
def test_a_participle_after_its_noun_leaves_the_noun_the_head(phrase, plural_):
    """"funds raised are", "revenue earned is": the noun before a participle decides the verb."""
    assert is_plural(phrase) is plural_


def test_questions_agree_with_their_subject():
    """The question phrasings agree with a plural measure or description, and a participle measure takes
    its item with "for" (each wording slip of the sample of questions, planted)."""
    from synthdocqa.generation.qa.compare import unit_once
    from synthdocqa.generation.qa.phrasing import agreeing, sentence

    assert agreeing("Is the {d} {v}? What is the {d}?", "d", "open cases of Fraud") == \
        "Are the {d} {v}? What are the {d}?"
    assert agreeing("What was the total {m} in 2024?", "m", "speak-up reports") == "What were the total {m} in 2024?"
    assert agreeing("Is the {d} {v}?", "d", "patch compliance of Site A") == "Is the {d} {v}?"
    assert agreeing("By how much does the {m} of {a} exceed?", "m", "emissions") == "By how much do the {m} of {a} exceed?"
    assert agreeing("What is the largest {m}?", "m", "open cases") == "What are the largest {m}?"
    assert sentence("what is the energy produced of Sunfield Solar in Q1 2024?") == \
        "What is the energy produced for Sunfield Solar in Q1 2024?"
    assert sentence("what is the revenue of Sunfield Solar?") == "What is the revenue of Sunfield Solar?"
    assert unit_once("change in conversion rate in percentage points", "0.16 percentage points") == \
        "change in conversion rate"
    assert unit_once("change in conversion rate in percentage points", "yes") == \
        "change in conversion rate in percentage points"


def test_a_bridge_through_a_shared_role_names_the_role_once():
    """"the risk with the owner of the action X as owner" becomes "the owner of the action X is also the owner
    of one risk"; a row keyed by "Risk ID" is a risk."""
    from synthdocqa.generation.qa.context import row_noun
    from synthdocqa.generation.qa.multi_hop import shared_role

    assert shared_role("owner of the action to hire temps", "owner") == "the action to hire temps"
    assert shared_role("owner of the action to hire temps", "approver") == ""
    assert [row_noun(h) for h in ("Risk ID", "Action no.", "Reference", "Lot")] == ["risk", "action", "entry", "lot"]
