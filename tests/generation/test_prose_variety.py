"""A long document read end to end does not say the same sentence again and again, and writes its plurals."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

import pytest

from synthdocqa.generation.content import exhibit_text, prose, registers
from synthdocqa.generation.content.wording import plural
from synthdocqa.generation.domains import DOMAINS
from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.spec import PageCountDist, reference_spec


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
    assert _distinct("annual_report", 40, 5) >= 0.99  # every paragraph states figures of its own subject


def test_planted_one_subject_repeats_itself(monkeypatch):
    """Planted: every paragraph on the same subject in the same words, with no memory of what the text printed:
    the report repeats itself, so the check above can fail."""
    from synthdocqa.generation.content import discourse

    def one_subject(ctx, rng, metric):
        m, item, p0, p1 = ctx.domain.metrics[0], ctx.domain.items[0], str(ctx.cal.fy - 1), str(ctx.cal.fy)
        return m, item, p0, p1, ctx.metric_value(m, item, p0), ctx.metric_value(m, item, p1)

    def say(ctx, out, make):
        said = make()
        out.extend([said] if said else [])
        return bool(said)

    monkeypatch.setattr(discourse, "KINDS", {"movement": 1.0, "pair": 0.0, "trend": 0.0, "ranking": 0.0})
    monkeypatch.setattr(discourse, "_movement_subject", one_subject)
    monkeypatch.setattr(discourse, "_say", say)
    monkeypatch.setattr(discourse, "_pick", lambda ctx, rng, pool, measure="": pool[0])
    assert _distinct("annual_report", 40, 5) < 0.95  # against >= 0.99 unplanted


def test_minutes_open_the_meeting_once():
    said = _sentences("board_minutes", 12, 5)
    assert sum(n for s, n in said.items() if s.startswith("The chair opened the meeting")) <= 1


def test_one_day_is_singular_and_one_point_oh_days_is_not():
    from decimal import Decimal

    from synthdocqa.generation.content.prose_text import with_unit
    from synthdocqa.ir.facts import Fact
    from synthdocqa.ir.values import NumberValue

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


def _template_regex(template: str, lead_ins: tuple[str, ...]) -> re.Pattern:
    """A sentence of ``template`` (its slots any words), after one of ``lead_ins`` or none."""
    body = re.sub(r"\\\{[A-Za-z_0-9]+\\\}", ".+?", re.escape(template))
    lead = "|".join(re.escape(x) for x in lead_ins)
    return re.compile(rf"(?:(?:{lead})?(?i:{body[0]}){body[1:]})" if lead_ins else body)


def _discourse_pools(register) -> tuple[str, ...]:
    """Every sentence template of one register of ``catalogue/discourse.yaml`` (the paragraphs of figures)."""
    return tuple(t for name in type(register).model_fields for t in getattr(register, name))


def _register_share(said: Counter, own: registers.Register, recipe: str) -> tuple[float, int]:
    """Of a document's long sentences: the share its genre's register (``own``, and its paragraphs of figures in
    ``discourse.yaml``) wrote, and how many a management report's openers, remarks or paragraphs of figures
    wrote (a template's words before its first slot, 15 characters or more). The sentences every register
    shares on an exhibit ("Table 3 sets out ...", "In total, ... amounted to ...") have no voice and do not
    count."""
    from synthdocqa.generation.content import discourse

    report = registers.REPORT_REGISTER
    sections = tuple(t for pool in (own.sections or {}).values() for t in pool)
    figures = _discourse_pools(discourse.TEXT.registers[recipe])
    parts = {p for t in own.openers + own.remarks + own.reflections + sections + figures
             for p in re.split(r"(?<=[.!?])\s+", t)}
    patterns = [_template_regex(p, own.lead_ins) for p in parts]
    stems = {t.split("{")[0] for t in report.openers + report.remarks +
             _discourse_pools(discourse.TEXT.registers["report"]) if len(t.split("{")[0]) >= 15}
    exhibit = [_template_regex(t, ()) for t in exhibit_text.REFERENCE_SENTENCES + registers.NEUTRAL_TABLE_COMMENTS
               + exhibit_text.CHART_COMMENTS + exhibit_text.CATEGORY_COMMENTS + exhibit_text.TOTAL_COMMENT
               + exhibit_text.MEAN_COMMENT]
    said = Counter({s: k for s, k in said.items() if not any(p.fullmatch(s) for p in exhibit)})
    n = sum(said.values())
    written = sum(k for s, k in said.items() if any(p.fullmatch(s) for p in patterns))
    reported = sum(k for s, k in said.items() if any(stem in s for stem in stems))
    return written / n, reported


@pytest.mark.parametrize("recipe, floor", [("board_minutes", 0.8), ("research_report", 0.5)])
def test_minutes_and_research_do_not_speak_as_management(monkeypatch, recipe, floor):
    """Minutes say who presented what, what members asked and what was agreed, in the past tense; a research
    report says what was studied and found, as "we"; neither says a management report's sentences
    ("Management considers the position consistent with the plan ..."). The rest of their sentences are the
    genre blocks' and the exhibits' own (attendance, references, "Table 1 gives ...")."""
    from synthdocqa.generation.content import discourse

    own = registers.REGISTERS[recipe]
    for seed in (5, 6):
        share, reported = _register_share(_sentences(recipe, 12, seed), own, recipe)
        assert reported == 0 and share >= floor, (seed, share, reported)
    monkeypatch.setattr(registers, "REGISTERS", {})  # planted: the report's voice, as before
    monkeypatch.setattr(discourse, "_register", lambda ctx: discourse.TEXT.registers["report"])
    share, reported = _register_share(_sentences(recipe, 12, 5), own, recipe)
    assert reported > 20 and share < 0.3


def test_a_minuted_paragraph_keeps_to_one_item():
    """Each paragraph of minutes discusses one item: its topics and its speaker do not change mid-paragraph."""
    from synthdocqa.generation.domains import get_domain

    spec = reference_spec(seed=5, n_docs=1).model_copy(update={
        "recipes": ["board_minutes"], "pages": PageCountDist(mean=12, sigma=0, min=12, max=12)})
    doc = plan_document(spec, 0)
    domain = get_domain(doc.domain)
    checked = 0
    for _, b in doc.blocks():
        text = "".join(s.text for s in b.spans) if b.type == "text_block" and not b.genre_block else ""
        if not text or re.match(r"(Table|Figure|These minutes) ", text):  # an exhibit's or the parties' own text
            continue
        topics = {t for t in domain.topics if t in text}
        roles = {r for r in domain.roles if f"the {r}" in text or f"The {r}" in text}
        if len(re.split(r"(?<=[.!?])\s+", text)) >= 3:
            checked += 1
            assert len(topics) <= 2 and len(roles) <= 1, text
    assert checked >= 10


def _opening_after(recipe: str, heading: str, seed: int) -> str:
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": [recipe], "pages": PageCountDist(mean=12, sigma=0, min=12, max=12)})
    blocks = [b for _, b in plan_document(spec, 0).blocks()]
    at = next(i for i, b in enumerate(blocks)  # "3 Abstract" in a numbered document
              if b.type == "heading" and re.sub(r"^\d+ ", "", "".join(s.text for s in b.spans)) == heading)
    return next("".join(s.text for s in b.spans) for b in blocks[at + 1:] if b.type == "text_block")


def test_a_research_abstract_and_conclusion_state_what_was_found(monkeypatch):
    """The abstract, results and conclusion of a research report open with what it finds, not with its method."""
    own = registers.REGISTERS["research_report"]
    for section in ("Abstract", "Conclusion"):
        patterns = [_template_regex(t, ()) for t in own.sections[section]]
        for seed in (5, 6, 7):
            first = re.split(r"(?<=[.!?])\s+", _opening_after("research_report", section, seed))[0]
            assert any(p.fullmatch(first) for p in patterns), (section, seed, first)
    monkeypatch.setattr(registers, "REGISTERS", {"research_report": dataclasses.replace(own, sections=None)})
    first = re.split(r"(?<=[.!?])\s+", _opening_after("research_report", "Abstract", 5))[0]  # planted: no own
    assert not any(p.fullmatch(first) for p in (_template_regex(t, ()) for t in own.sections["Abstract"]))


def test_financial_statements_and_their_notes_carry_no_management_comment(monkeypatch):
    """An annual report's Financial Statements and Notes hold the statements, the notes, the sentences that
    refer to them and their standing text ("The notes on the following pages form part of ..."); never
    "Management considers the position ..." on a page of the accounts."""
    from synthdocqa.generation import planner

    def stray(seed: int) -> list[str]:
        spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
            "recipes": ["annual_report"], "pages": PageCountDist(mean=36, sigma=0, min=36, max=36)})
        standing = tuple(t.split("{")[0] for pool in prose.STANDING_TEXT.values() for t in pool)  # to a slot
        out, section = [], ""
        for _, b in plan_document(spec, 0).blocks():
            text = "".join(s.text for s in getattr(b, "spans", None) or [])
            if b.type == "heading":
                section = re.sub(r"^\d+ ", "", text)
            elif section in ("Financial Statements", "Notes to the Financial Statements") \
                    and b.type == "text_block" and not b.genre_block \
                    and not re.sub(r"^Note \d+ ", "", text).startswith(standing):
                out.append(text)
        return out

    assert stray(7474) == [] and stray(7475) == []
    with monkeypatch.context() as m:
        m.setattr(planner, "SPEAKS_ALONE", frozenset({"auditor_opinion"}))  # planted: as before
        assert len(stray(7475)) >= 3
    # and their pages are full: one page each of their own, what does not fit runs on (no page of one sentence)
    for seed in (7474, 7475):
        spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
            "recipes": ["annual_report"], "pages": PageCountDist(mean=36, sigma=0, min=36, max=36)})
        section, thin = "", []
        for p in plan_document(spec, 0).pages:
            for b in p.blocks:
                if b.type == "heading":
                    section = re.sub(r"^\d+ ", "", "".join(s.text for s in b.spans))
            used = sum(planner.block_height(b) for b in p.blocks if b.type != "annotation")
            if section in ("Financial Statements", "Notes to the Financial Statements") and used < 150:
                thin.append(p.page_no)
        assert thin == [], (seed, thin)


@pytest.mark.parametrize("recipe, pages", [("research_report", 40), ("board_minutes", 30)])
def test_a_long_document_in_its_own_register_rarely_repeats_a_sentence(recipe, pages):
    """The registers' pools are smaller than a report's: a repeated sentence takes another template, and the
    slots (topic, speaker, team) keep 40 pages of a research report and 30 of minutes as varied as a report."""
    assert _distinct(recipe, pages, 5) >= 0.85


def test_minutes_and_research_pass_no_managers_verdict_on_a_table():
    """A minute or a research report says which row was highest and lowest, not that the lowest "is under
    review" (the management report's table comment)."""
    for recipe in ("board_minutes", "research_report"):
        said = " ".join(s for seed in (5, 6, 7) for s in _sentences(recipe, 12, seed))
        assert "and is under review" not in said, recipe
        assert re.search(r"recorded the highest|was highest on|The figures range from", said), recipe
    # the report's own voice keeps it (one table comment of 17: a 12-page report draws it now and then)
    assert any("and is under review" in t for t in registers.REPORT_REGISTER.table_comments)


def test_research_reports_write_no_action_list_or_review_window(monkeypatch):
    """A research report states what was studied and found: no "Next steps" list of actions with owners and
    due dates (one stood in an Abstract), no "the review window opens on ..." paragraph. Planted: the register
    without its ``unwritten`` kinds writes them again."""
    import dataclasses

    def written(seed: int) -> list[str]:
        spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
            "recipes": ["research_report"], "pages": PageCountDist(mean=40, sigma=0, min=40, max=40)})
        out = []
        for _, b in plan_document(spec, 0).blocks():
            text = "".join(s.text for s in getattr(b, "spans", None) or [])
            if b.type == "list" and re.match(r"^(Agreed actions|Next steps|Actions arising)", b.title or ""):
                out.append(b.title)
            elif "review window" in text:
                out.append(text[:60])
        return out

    assert written(5) == [] and written(6) == [] and written(7) == []
    research = registers.REGISTERS["research_report"]
    monkeypatch.setitem(registers.REGISTERS, "research_report", dataclasses.replace(research, unwritten=frozenset()))
    assert written(5) + written(6) + written(7) == []  # standing.yaml does not give them to the genre either
    from synthdocqa.generation.content import standing

    real = standing.allows
    monkeypatch.setattr(standing, "allows", lambda ctx, k: k in ("actions", "review_window") or real(ctx, k))
    assert written(5) + written(6) + written(7)


def _skeletons(recipe: str, pages: int, seed: int) -> Counter:
    """The running text's sentences of 8 words or more as skeletons: every fact span, figure, period and name
    (a capitalised word inside a sentence) abstracted, so two sentences of one template count as one."""
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": [recipe], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages)})
    doc = plan_document(spec, 0)
    out: Counter = Counter()
    for _, b in doc.blocks():
        if b.type == "text_block" and b.running:
            text = "".join("#" if s.fact_ids else s.text for s in b.spans)
            for s in re.split(r"(?<=[.!?])\s+", text):
                if len(s.split()) >= 8:
                    s = re.sub(r"\b(?:Q[1-4]|H[12]|FY)?\s?\d[\d.,%]*", "#", s)
                    out[re.sub(r"(?<=[a-z,;:(] )[A-Z][\w&'-]*(?: [A-Z0-9][\w&'-]*)*", "N", s)] += 1
    return out


@pytest.mark.parametrize("recipe, pages", [("annual_report", 60), ("research_report", 40), ("board_minutes", 20)])
def test_no_sentence_skeleton_is_said_three_times(monkeypatch, recipe, pages):
    """A long document says each sentence skeleton at most twice (``DocContext.template``): it writes fewer
    paragraphs, and shows exhibits, before it repeats itself. Planted: with no limit, a 60-page report says
    some skeleton again and again."""
    from synthdocqa.generation.content import book

    said = _skeletons(recipe, pages, 7)
    assert sum(said.values()) > 100 and max(said.values()) <= 2, said.most_common(3)
    if recipe == "annual_report":
        monkeypatch.setattr(book, "SKELETON_MAX", 99)
        assert max(_skeletons(recipe, pages, 7).values()) > 2
