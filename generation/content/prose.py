"""Business prose from templates filled with the domain's vocabulary and the document's facts.

Three kinds of text:
- section openers and connective paragraphs (no facts): plain literal spans;
- commentary that restates facts owned by a table/chart on the same page (``exhibit_text``): literal spans,
  so QA provenance points at the owning cell or point (and the element mix stays as specified);
- QA-bearing text blocks (contacts, deadlines, references, action lists, footnotes) that own their
  facts: fact spans embedded in sentences.

The ways of writing (a report's, minutes', a research report's) are ``registers``; the words of
``catalogue/prose.yaml`` and the helpers that fill them are ``prose_text``.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from synthdocqa.ir.blocks import FootnoteBlock, HeadingBlock, ListBlock, Span, TextBlock
from synthdocqa.ir.facts import Derivation
from synthdocqa.ir.rng import Rng

from . import discourse, standing
from .book import YEAR_RECIPES, DocContext, fs, lit
from .calendar import period_end, period_months
from .issuer_books import budget_envelope, fx_rate
from .prose_text import TEXT, _fill, _fresh
from .registers import _item, audited, register, remarks
from .tables import action_owner_and_due, change_mode, change_span, metric_fact, whole
from .wording import lower_common, plural, verb

TERMS_RECIPES = {"purchase_order"}
"""Genres whose general text may state payment terms against an invoice (an invoice states its own in its
payment-terms block; a contract in its clauses)."""

RECIPE_OPENERS = TEXT.recipe_openers

APPENDIX_POINTERS = TEXT.appendix.pointers
APPENDIX_INTROS = TEXT.appendix.intros
STANDING_TEXT = TEXT.standing_text
QA_TEXT = TEXT.qa_text


def _spans(sentence: str, facts: dict[str, Span], **words: object) -> list[Span]:
    """``sentence`` (a ``QaText`` template) as spans: each fact placeholder its fact's span, the words between
    them literal text (the catalogue checked that every fact is printed once)."""
    return discourse.sentence(sentence, {name: [span] for name, span in facts.items()}, words)


_NUMBERED = re.compile(r"^\d+(\.\d+)*\.?\s+")
"""A section number before a heading's words ("5 Results", "6.1 Value for money")."""


def heading(ctx: DocContext, text: str, level: int = 1) -> HeadingBlock:
    ctx.memo["heading"] = _NUMBERED.sub("", text)  # the section of the text that follows (``Register.sections``)
    return HeadingBlock(id=ctx.book.block_id(), level=level, spans=[lit(text)])


def opener(ctx: DocContext, rng: Rng, n_sentences: int = 2) -> TextBlock | None:
    """A section's opening paragraph: one sentence that says what the section is about (the genre's own opening
    once a document, or the register's), then what the world says (``discourse.sentences``): the rest of the
    paragraph states figures, not more framing. An abstract or a conclusion states the document's finding with
    its figures (``FINDINGS``). None once the document's text is spent (``TEXT_SPENT``)."""
    reg = register(ctx)
    own_section = (reg.sections or {}).get(ctx.memo.get("heading", ""))
    pool = own_section or reg.openers
    single = tuple(t for t in pool if ". " not in t)  # one framing sentence, not two: the figures say the rest
    pool = single or pool
    fresh = [t for t in pool if not ctx.template_uses().get(t)]
    picks = _fresh(ctx, rng, pool, 1) if fresh else []  # once every framing sentence is said, the figures alone
    said: set[str] = ctx.remember("own_openers", set)  # a genre's own opening is said once a document
    own = [t for t in RECIPE_OPENERS.get(ctx.recipe.slug, ()) if t not in said]
    if own and not own_section and rng.bernoulli(0.5):
        picks = [rng.choice(own)]
        said.add(picks[0])
    item = _item(ctx, rng) if reg.one_item else {}
    first = _fill(picks[0], ctx, rng, **item) if picks else ""
    bid = ctx.book.block_id()
    heading = ctx.memo.get("heading", "")
    if ctx.recipe.slug in FINDINGS and heading in FINDINGS[ctx.recipe.slug] and ctx.memo.get(discourse.TEXT_FACTS, True):
        found = finding(ctx, bid, FINDINGS[ctx.recipe.slug][heading], heading.lower())
        if found:
            return TextBlock(id=bid, spans=[*([lit(first + " ")] if first else []), *found], running=True)
    facts = discourse.sentences(ctx, rng, max(2, n_sentences - 1), None, bid, item.get("role"))
    if not first and not facts:  # nothing left to frame or to state: the register's general remarks
        said = remarks(ctx, rng, n_sentences, reg.reflections)
        if not said:  # every one said twice: the section opens on its figures
            ctx.memo[TEXT_SPENT] = True
            return None
        return TextBlock(id=bid, spans=[lit(" ".join(said))], running=True)
    return TextBlock(id=bid, spans=[*([lit(first + (" " if facts else ""))] if first else []), *facts], running=True)


FINDINGS: dict[str, dict[str, str]] = {"research_report": {"Abstract": "share", "Conclusion": "change"}}
"""Sections whose opening states a finding with its figures (what the tables later show in detail): an
abstract the largest part of the whole, a conclusion the change over the year."""


def _finding_metric(ctx: DocContext):
    """The measure a document's findings are stated in (made once): the first of its domain's additive
    measures whose whole is not zero in the last two full years."""
    def pick():
        fy = str(ctx.cal.fy)
        for m in ctx.domain.metrics:
            if change_mode(m) == "pct" and whole(ctx, m, fy)[2] and whole(ctx, m, str(ctx.cal.fy - 1))[1] > 0:
                return m
        return None
    return ctx.remember(("finding_metric", ctx.domain.item_kind), pick)


def finding(ctx: DocContext, bid: str, kind: str, where: str) -> list[Span]:
    """A finding stated with its figures, facts of the paragraph ``bid`` (the tables of the same measure and
    year print the same numbers: ``tables.whole``). ``share``: the largest part of the whole and its share;
    ``change``: the whole over the last two full years and the change. Said once in ``where`` (the abstract,
    the conclusion); empty after that, or when no measure of the domain has a whole to state."""
    metric = _finding_metric(ctx)
    said: set[str] = ctx.remember("findings_said", set)
    if metric is None or where in said:
        return []
    said.add(where)
    d, y0, y1 = ctx.domain, str(ctx.cal.fy - 1), str(ctx.cal.fy)
    n, kinds, metric_lc = len(d.items), plural(d.item_kind), lower_common(metric.name)
    values, total, shares = whole(ctx, metric, y1)
    book = ctx.book
    if kind == "share":
        top = sorted(values, key=lambda i: (-values[i], d.items.index(i)))[0]
        f_top = metric_fact(ctx, metric, values[top], f"{metric.name} of {top} in {y1} stated in the {where}",
                            attribute=metric.slug, period=y1, group=bid, items=top)
        f_all = metric_fact(ctx, metric, total, f"Total {metric_lc} of the {n} {kinds} in {y1} stated in the {where}",
                            attribute=metric.slug, period=y1, group=bid, items=list(d.items))
        f_share = book.percent(f"Share of {top} in the total of {metric_lc} in {y1} stated in the {where}",
                               shares[top], attribute=f"{metric.slug}_share", period=y1, group=bid,
                               derivation=Derivation(op="share", operands=[f_top.id, f_all.id]))
        return _spans(QA_TEXT.finding_share, {"share": fs(f_share), "top_value": fs(f_top), "total": fs(f_all)},
                      top=top, metric_lc=metric_lc, n=n, item_kinds=kinds, year=y1)
    before = whole(ctx, metric, y0)[1]
    f0 = metric_fact(ctx, metric, before, f"Total {metric_lc} of the {n} {kinds} in {y0} stated in the {where}",
                     attribute=metric.slug, period=y0, group=bid, items=list(d.items))
    f1 = metric_fact(ctx, metric, total, f"Total {metric_lc} of the {n} {kinds} in {y1} stated in the {where}",
                     attribute=metric.slug, period=y1, group=bid, items=list(d.items))
    way = QA_TEXT.moved
    moved = way.up if total > before else way.down if total < before else way.flat
    change = change_span(ctx, metric, "pct", f0, f1, f"the {n} {kinds}", y0, y1, bid, f" stated in the {where}")
    return _spans(QA_TEXT.finding_change, {"before": fs(f0), "after": fs(f1), "change": change},
                  metric_lc=metric_lc, moved=moved, n=n, item_kinds=kinds, year0=y0, year1=y1)


def subsection_opener(ctx: DocContext, rng: Rng, subject: str) -> TextBlock | None:
    """The first paragraph of a subsection: what it is about (its heading's subject); None once every opener
    of the register is said twice (the subsection then opens on its figures)."""
    lc = lower_common(subject)  # "ESG data quality" keeps its capitals
    template = ctx.template(rng, register(ctx).subsection_openers)
    if template is None:
        return None
    return TextBlock(id=ctx.book.block_id(), spans=[lit(_fill(template, ctx, rng, subject=lc, Subject=subject))],
                     running=True)


TEXT_SPENT = "text_spent"
"""``DocContext.memo`` key set once the document's running text is spent: every subject discussed and every
remark said twice (``SKELETON_MAX``). The planner then fills pages with exhibits, not with more words."""


def reflection(ctx: DocContext, rng: Rng, n_sentences: int, metric=None) -> TextBlock | None:
    """A paragraph planned from the issuer's world (``discourse.paragraph``; on ``metric`` where one is given): a
    measure of one item against the earlier period and the other items, its driver and what is to be done, or
    two items side by side, an item's quarters, the items ranked. Where the document has discussed every
    subject, the register's general remarks (literal text); None once those are said too (``TEXT_SPENT``). A
    caller that may not print it takes a ``DocContext.checkpoint`` first and rolls back: its facts must not
    outlive it."""
    said = discourse.paragraph(ctx, rng, max(2, n_sentences), metric)
    if said is not None:
        return said
    lines = remarks(ctx, rng, n_sentences, register(ctx).reflections)
    if not lines:
        ctx.memo[TEXT_SPENT] = True
        return None
    return TextBlock(id=ctx.book.block_id(), spans=[lit(" ".join(lines))], running=True)


# ------------------------------------------------------------------ QA-bearing text

def contact_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    p = ctx.remember("contact", lambda: ctx.person(rng))
    name = b.person(f"Contact person for {ctx.recipe.this_noun}", p, group=bid, attribute="name")
    phone = b.text(f"Direct line of {p.name}", p.attributes["phone"], subject=p.id, attribute="direct_line",
                   group=bid)
    email = b.ident(f"Email address of {p.name}", p.attributes["email"], scheme="email", subject=p.id,
                    attribute="email", group=bid)
    spans = _spans(QA_TEXT.contact, {"name": fs(name), "phone": fs(phone), "email": fs(email)},
                   this_noun=ctx.recipe.this_noun, role=p.role)
    if rng.bernoulli(0.5):
        spans += _spans(" " + QA_TEXT.contact_reply, {}, days=rng.integers(2, 6))
    return TextBlock(id=bid, spans=spans)


def deadline_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    topic = rng.choice(ctx.domain.topics)

    def window():
        start = ctx.day(rng.integers(-20, 40))
        return start, ctx.day((start - ctx.anchor).days + rng.integers(7, 60)), ctx.person(rng)

    start, end, owner = ctx.remember(("window", topic), window)
    f1 = b.date(f"Opening date of the {topic} review window", start, attribute="window_open", group=bid)
    f2 = b.date(f"Closing date of the {topic} review window", end, attribute="window_close", group=bid)
    f3 = b.person(f"Approver of late submissions for the {topic} review", owner, attribute="late_approver",
                  group=bid)
    return TextBlock(id=bid, spans=_spans(QA_TEXT.deadline, {"opens": fs(f1), "closes": fs(f2), "approver": fs(f3)},
                                          topic=topic, role=owner.role))


def reference_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    ver_v, start, end = ctx.remember("doc_reference_details", lambda: (
        f"{rng.integers(1, 5)}.{rng.integers(0, 10)}", ctx.day(-rng.integers(90, 370)),
        ctx.day(-rng.integers(1, 60))))
    if "attestation" in ctx.recipe.genre_blocks:  # a compliance report covers the period its officer attests
        from .genre.assessment import attestation_period
        _, start, end = attestation_period(ctx, rng)
    elif ctx.by_quarter or ctx.recipe.slug in YEAR_RECIPES:  # a quarterly or annual report its quarter or year
        first, _ = period_months(ctx.focus)  # type: ignore[misc]
        start, end = dt.date(first // 12, first % 12 + 1, 1), period_end(ctx.focus)
    ref_v = ctx.doc_reference()
    ref = b.ident(f"Reference number of {ctx.recipe.this_noun}", ref_v, scheme="reference", group=bid)
    version = b.text(f"Version of {ctx.recipe.this_noun}", ver_v, attribute="version", group=bid)
    issued = b.date(f"Issue date of {ctx.recipe.this_noun}", ctx.anchor, attribute="issue_date", group=bid)
    said = {"ref": fs(ref), "version": fs(version), "issued": fs(issued)}
    template = QA_TEXT.reference_undated  # a genre that covers no period (minutes record a meeting) says none
    if standing.allows(ctx, "period_covered"):
        f_start = b.date(f"Start of the period covered by {ctx.recipe.this_noun}", start, attribute="period_start",
                         group=bid)
        f_end = b.date(f"End of the period covered by {ctx.recipe.this_noun}", end, attribute="period_end",
                       group=bid)
        said.update(start=fs(f_start), end=fs(f_end))
        template = QA_TEXT.reference
    spans = _spans(template, said, This_noun=ctx.recipe.this_noun.capitalize(), was=verb(ctx.recipe.noun, "was"),
                   covers=verb(ctx.recipe.noun, "covers"), issuer=ctx.issuer.name)
    # the board's envelope for the last full year (none without a money flow), in the genres that spend one
    envelope = budget_envelope(ctx) if standing.allows(ctx, "envelope") else None
    if envelope is not None:
        val = b.money(f"Approved budget envelope stated in the {ctx.recipe.noun}", envelope[0],
                      decimals=0, attribute="budget_envelope", group=bid, query=envelope[1])
        spans += _spans(" " + QA_TEXT.envelope, {"envelope": fs(val)})
    return TextBlock(id=bid, spans=spans)


def terms_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    """Payment terms: invoice date < due date, and the day count derived from both."""
    bid = ctx.book.block_id()
    b = ctx.book
    net, issued_d, ref_v, cp = ctx.remember("terms", lambda: (
        rng.choice((14, 30, 30, 45, 60)),
        ctx.anchor if ctx.recipe.slug == "invoice" else ctx.day(-rng.integers(0, 31)),  # an invoice is dated
        ctx.serial("PMT", 5), ctx.counterparty(rng)))                                 # the day it is issued
    issued = b.date("Invoice date stated in the payment terms", issued_d, attribute="invoice_date", group=bid)
    due = b.date("Payment due date", ctx.day((issued_d - ctx.anchor).days + net), attribute="due_date", group=bid)
    days = b.number("Payment term in days", Decimal(net), "days", attribute="payment_term", group=bid,
                    quantity="duration", derivation=Derivation(op="days_between", operands=[issued.id, due.id]))
    ref = b.ident("Payment reference to quote", ref_v, scheme="reference", group=bid)
    return TextBlock(id=bid, spans=_spans(QA_TEXT.terms, {"due": fs(due), "days": fs(days), "issued": fs(issued),
                                                          "ref": fs(ref)}, issuer=ctx.issuer.name, counterparty=cp.name))


def unlisted_actions(ctx: DocContext) -> list[str]:
    """The domain's actions no list or action log of the document has named yet."""
    taken = ctx.used("listed_actions") | ctx.used("actions")
    return [a for a in ctx.domain.actions if a not in taken]


def action_list(ctx: DocContext, rng: Rng, max_items: int = 5) -> ListBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    n = rng.integers(3, min(5, len(ctx.domain.actions)) + 1)
    fresh = unlisted_actions(ctx)  # a document lists an action once (a second list of the same actions is a repeat)
    acts = rng.sample(fresh if len(fresh) >= 2 else list(ctx.domain.actions), max(2, min(n, max_items, len(fresh) or n)))
    ctx.used("listed_actions").update(acts)
    items = []
    title = rng.choice(QA_TEXT.action_titles)
    repeat = ctx.number(f"list:{title}")
    if repeat > 1:  # titles stay unique in a document, so item labels (and list questions) name one list
        title = f"{title}, part {repeat}"
    for i, act in enumerate(acts):
        fa = b.text(f"Item {i + 1} of the list '{title}' on page {ctx.page}", act, attribute="action", group=bid)
        owner, due_d = action_owner_and_due(ctx, rng, act)
        fo = b.person(f"Owner of the action '{act}'", owner, attribute="owner", group=bid)
        due = b.date(f"Due date of the action '{act}'", due_d, attribute="due_date", group=bid)
        items.append(_spans(QA_TEXT.action_item, {"action": fs(fa), "owner": fs(fo), "due": fs(due)}))
    return ListBlock(id=bid, ordered=rng.bernoulli(0.5), title=title, items=items)


def footnote(ctx: DocContext, rng: Rng, marker: str) -> FootnoteBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    if ctx.fmt.currency == "USD" or rng.bernoulli(0.5) or not standing.allows(ctx, "currency_note"):
        cut = ctx.remember("cutoff", lambda: ctx.day(-rng.integers(1, 20)))
        d = b.date("Cut-off date of the figures", cut, attribute="cutoff", group=bid)
        template = QA_TEXT.footnote_cutoff_audited if audited(ctx) else QA_TEXT.footnote_cutoff
        spans = _spans(template, {"cutoff": fs(d)})
    else:
        fx, q_fx = fx_rate(ctx, ctx.fmt.currency)
        rate = b.number(f"Exchange rate used ({ctx.fmt.currency} per USD)", fx, "", places=4,
                        attribute="fx_rate", group=bid, quantity="ratio", query=q_fx)
        spans = _spans(QA_TEXT.footnote_fx, {"rate": fs(rate)}, currency=ctx.fmt.currency)
    return FootnoteBlock(id=bid, marker=marker, spans=spans)


def parties_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    """A counterparty and its registered address (the one address that organisation has in the document;
    the issuer's own address is on the letterhead). One address per paragraph, so no two cities run
    together in one block of text."""
    bid = ctx.book.block_id()
    b = ctx.book
    cp = ctx.remember(("parties", ctx.page), lambda: ctx.counterparty(rng))
    name = b.org(f"{cp.role.capitalize()} named with its address on page {ctx.page}", cp, attribute="name",
                 group=bid)
    where = b.text(f"Registered address of {cp.name}", cp.attributes["full"], subject=cp.id,
                   attribute="registered_address", group=bid)
    agree = {"is": verb(ctx.recipe.noun, "is"), "concerns": verb(ctx.recipe.noun, "concerns")}
    return TextBlock(id=bid, spans=_spans(QA_TEXT.parties, {"name": fs(name), "address": fs(where)}, **agree,
                                          This_noun=ctx.recipe.this_noun.capitalize(), issuer=ctx.issuer.name,
                                          role=cp.role))


def _of_postings(templates: tuple[str, ...], ctx: DocContext) -> tuple[str, ...]:
    """The templates that fit the appendix: "postings" only where it holds a register of them (a ledger-keeping
    genre's; a report's appendix holds its data tables)."""
    if ctx.recipe.keeps_register:
        return templates
    return tuple(t for t in templates if "postings" not in t)


def appendix_pointer(ctx: DocContext, rng: Rng, letter: str) -> TextBlock:
    """The sentence of the introduction that says where the appendix is."""
    return TextBlock(id=ctx.book.block_id(), spans=[lit(_fill(rng.choice(_of_postings(APPENDIX_POINTERS, ctx)), ctx,
                                                                rng, letter=letter))])


def appendix_intro(ctx: DocContext, rng: Rng) -> TextBlock:
    """What the appendix holds and where it comes from."""
    return TextBlock(id=ctx.book.block_id(), spans=[lit(_fill(rng.choice(_of_postings(APPENDIX_INTROS, ctx)), ctx,
                                                                rng))])


def standing_text(ctx: DocContext, rng: Rng, kind: str) -> TextBlock:
    """A paragraph of ``kind``'s standing text the document has not printed yet (``STANDING_TEXT``); the pointer
    to the notes only where the genre has notes (a quarterly's financial summary has none); a standing note
    numbered after the genre's own (``Note 3 Basis of preparation. ...``)."""
    notes = any("statement_notes" in sec.blocks for sec in ctx.recipe.grammar)
    pool = tuple(t for t in STANDING_TEXT[kind] if notes or "the notes" not in t.lower())
    picks = _fresh(ctx, rng, pool, 1)
    said = " ".join(_fill(t, ctx, rng) for t in picks)
    if kind == "statement_notes":  # a note of its own, numbered on from the notes the genre wrote (1 and 2)
        numbers = ctx.remember(("standing_note_numbers",), lambda: iter(range(3, 10_000)))
        said = f"Note {next(numbers)} {said}"
    return TextBlock(id=ctx.book.block_id(), spans=[lit(said)])


ONCE_A_DOCUMENT = frozenset({"contact", "reference", "terms", "deadline"})
"""Paragraphs a document states once (who to ask, its own reference and period, its payment terms, its one review
window: a second would print the same window and approver again)."""


def text_element(ctx: DocContext, rng: Rng, marker: str, room: float = 560.0):
    """One QA-bearing text block that fits in ``room`` points (an action list gets as many items as fit)."""
    kinds = ["contact", "deadline", "reference", "actions", "footnote", "terms", "parties"]
    weights = [0.25, 0.2, 0.2, 0.2, 0.0 if ctx.recipe.genre_class == "transactional" else 0.15,  # a claim or an
               0.35 if ctx.recipe.slug in TERMS_RECIPES else 0.0, 0.12]  # invoice has no "figures are unaudited" note
    said: set[str] = ctx.remember("once_said", set)  # a document states its contact, reference and terms once
    unwritten = register(ctx).unwritten | {k for k, rule in (("deadline", "review_window"), ("actions", "actions"))
                                            if not standing.allows(ctx, rule)}  # standing text of other genres
    weights = [0.0 if k in said or k in unwritten or k == "actions" and len(unlisted_actions(ctx)) < 2 else w
               for k, w in zip(kinds, weights, strict=True)]
    kind = rng.choice(kinds, p=weights)
    if kind in ONCE_A_DOCUMENT:
        said.add(kind)
    if kind == "parties" and not all("full" in o.attributes for o in ctx.counterparties):
        kind = "contact"  # organisations without addresses (hand-made contexts)
    if kind == "parties":
        return parties_paragraph(ctx, rng)
    if kind == "terms":
        return terms_paragraph(ctx, rng)
    if kind == "contact":
        return contact_paragraph(ctx, rng)
    if kind == "deadline":
        return deadline_paragraph(ctx, rng)
    if kind == "reference":
        return reference_paragraph(ctx, rng)
    if kind == "actions":
        return action_list(ctx, rng, int((room - 26) // 28))
    return footnote(ctx, rng, marker)
