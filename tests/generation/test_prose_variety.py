"""A long document read end to end does not say the same sentence again and again, and writes its plurals."""

from __future__ import annotations

import re
from collections import Counter

from generation.content import prose
from generation.content.wording import plural
from generation.domains import DOMAINS
from generation.planner import plan_document
from ir.spec import PageCountDist, reference_spec


def _sentences(recipe: str, pages: int, seed: int, domain: str | None = None) -> Counter:
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": [recipe], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages),
        "domains": [domain] if domain else None})
    doc = plan_document(spec, 0)
    out: Counter = Counter()
    for _, b in doc.blocks():
        if b.type == "text_block":
            text = "".join(s.text for s in b.spans)
            out.update(s for s in re.split(r"(?<=[.!?])\s+", text) if len(s) > 30)
    return out


def _distinct(recipe: str, pages: int, seed: int) -> float:
    said = _sentences(recipe, pages, seed)
    return len(said) / sum(said.values())


def test_a_long_report_rarely_repeats_a_sentence_and_never_writes_propertys(monkeypatch):
    assert _distinct("annual_report", 40, 5) >= 0.85
    said = " ".join(_sentences("annual_report", 40, 5, "real_estate"))  # properties, not "propertys"
    wrong = {d.item_kind + "s" for d in DOMAINS if plural(d.item_kind) != d.item_kind + "s"}  # "propertys"
    assert not [w for w in wrong if re.search(rf"\b{w}\b", said)]
    # planted: the old pool of 24 remarks, no lead-ins or tails, nothing remembered
    monkeypatch.setattr(prose, "INTERPRETATIONS_MORE", ())
    monkeypatch.setattr(prose, "remarks", lambda ctx, rng, n: [
        prose._fill(t, ctx, rng) for t in prose._fresh(ctx, rng, prose.INTERPRETATIONS, n)])
    assert _distinct("annual_report", 40, 5) < 0.85


def test_minutes_open_the_meeting_once():
    said = _sentences("board_minutes", 12, 5)
    assert sum(n for s, n in said.items() if s.startswith("The chair opened the meeting")) <= 1


def test_one_day_is_singular_and_one_point_oh_days_is_not():
    from decimal import Decimal

    from generation.content.prose import with_unit
    from ir.facts import Fact
    from ir.values import NumberValue

    def fact(text, value):
        return Fact(id="f0001", label="Average transit time of Madrid to Lyon", text=text, quantity="duration",
                    value=NumberValue(value=Decimal(value), unit="days"))

    assert with_unit(fact("1", "1")) == "1 day"
    assert with_unit(fact("1.0", "1")) == "1.0 days"
    assert with_unit(fact("2", "2")) == "2 days"


def test_minutes_take_a_plural_verb():
    said = " ".join(s for seed in range(12) for s in _sentences("board_minutes", 12, seed))  # several sets
    assert "These minutes are issued by" in said and "These minutes (reference" in said
    assert not re.search(r"(^|\. )These minutes (is|was|records)\b", said)  # the minutes as the subject
    assert not re.search(r"These minutes \(reference [^)]*\) was\b", said)
