"""Annotations: rotated stamps with a date, handwritten notes, signatures and highlights.

Each owns at least one fact (the stamp's date, the note's amount/date/person, the signer's name, the
reviewer's date on a highlight), so annotation reading is grounded like every other element. A stamp's word is one
its genre carries (``standing.stamp_words``: a PAID stamp on an invoice, never on minutes). A note approving a
payment approves it up to its writer's authority limit (``issuer_books.authority_limit``: the issuer's delegation,
the same in every document).
"""

from __future__ import annotations

from synthdocqa.ir.blocks import AnnotationBlock, Span
from synthdocqa.ir.rng import Rng

from .book import DocContext, fs, lit
from .formats import stamp_date
from .issuer_books import authority_limit
from .standing import stamp_words

STAMP_COLORS = ("#b00020", "#1d3f8f", "#0b6e2f", "#7a1fa2")
INK_COLORS = ("#1a3c8c", "#1b1b6b", "#202020", "#8c1a1a")
HIGHLIGHT_COLORS = ("#ffe066", "#b2f2bb", "#ffc9de")


def stamp(ctx: DocContext, rng: Rng) -> AnnotationBlock:
    bid = ctx.book.block_id()
    word = rng.choice(stamp_words(ctx.recipe.slug))  # the genre's stamps (catalogue/standing.yaml)
    d = ctx.remember(("stamp", ctx.page, word), lambda: ctx.day(rng.integers(-20, 25)))
    f = ctx.book.date(f"Date on the {word.lower()} stamp on page {ctx.page}", d, text=stamp_date(d), group=bid, attribute="stamp_date")
    return AnnotationBlock(id=bid, kind="stamp", spans=[lit(f"{word} "), fs(f)],
                           rotation=round(rng.uniform(-18, 18), 1), color=rng.choice(STAMP_COLORS))


def handwritten_note(ctx: DocContext, rng: Rng) -> AnnotationBlock:
    bid = ctx.book.block_id()
    book = ctx.book
    person = ctx.person(rng)
    first = person.name.split()[0]
    kind = rng.choice(("pay", "follow_up", "call", "checked"))
    if kind == "call":
        person = ctx.remember(("note_person", ctx.page), lambda: person)
        first = person.name.split()[0]
    if kind == "pay":  # approved up to the writer's limit under the issuer's delegation of authority
        person = ctx.remember(("note_approver", ctx.page), lambda: person)
        first = person.name.split()[0]
        amt, q = authority_limit(ctx, person)
        f = book.money(f"Amount approved in the handwritten note on page {ctx.page}", amt, decimals=0, group=bid,
                       attribute="note_amount", query=q)
        spans = [lit(rng.choice(("OK to pay up to ", "Approved up to ", "Cap at "))), fs(f), lit(f" - {first}")]
    elif kind == "follow_up":
        d = ctx.remember(("note_follow_up", ctx.page), lambda: ctx.day(rng.integers(5, 45)))
        f = book.date(f"Follow-up date in the handwritten note on page {ctx.page}", d, group=bid, attribute="follow_up_date")
        spans = [lit(rng.choice(("Follow up by ", "Chase again on ", "Revisit on "))), fs(f)]
    elif kind == "call":
        f = book.person(f"Person named in the handwritten note on page {ctx.page}", person, group=bid, attribute="contact")
        spans = [lit(rng.choice(("Call ", "Check with ", "Ask "))), fs(f),
                 lit(rng.choice((" re: figures", " before sign-off", " about the variance")))]
    else:
        d = ctx.remember(("note_checked", ctx.page), lambda: ctx.day(rng.integers(-10, 10)))
        f = book.date(f"Date the figures were checked (handwritten note on page {ctx.page})", d, group=bid, attribute="checked_date")
        spans = [lit(rng.choice(("Checked against ledger ", "Figures agreed ", "Reconciled "))), fs(f)]
    return AnnotationBlock(id=bid, kind="handwritten_note", spans=spans, rotation=round(rng.uniform(-6, 6), 1),
                           color=rng.choice(INK_COLORS))


def signature(ctx: DocContext, rng: Rng) -> AnnotationBlock:
    bid = ctx.book.block_id()
    signer = ctx.person(rng)
    f = ctx.book.person(f"Signatory ({signer.role})", signer, group=bid, attribute="signatory")
    return AnnotationBlock(id=bid, kind="signature", spans=[fs(f)], rotation=round(rng.uniform(-4, 4), 1),
                           color=rng.choice(INK_COLORS))


def highlight(ctx: DocContext, rng: Rng, target_block_id: str) -> AnnotationBlock:
    bid = ctx.book.block_id()
    reviewer = ctx.person(rng)
    d = ctx.remember(("review", ctx.page, reviewer.id), lambda: ctx.day(rng.integers(-15, 15)))
    f = ctx.book.date(f"Review date noted by {reviewer.name} on the highlight on page {ctx.page}", d, group=bid,
                      attribute="review_date")
    spans: list[Span] = [lit(rng.choice(("Reviewed ", "Verified ", "Query raised "))), fs(f),
                         lit(f" ({''.join(p[0] for p in reviewer.name.split())})")]
    return AnnotationBlock(id=bid, kind="highlight", spans=spans, color=rng.choice(HIGHLIGHT_COLORS),
                           target_block_id=target_block_id)


def annotation(ctx: DocContext, rng: Rng, targets: list[str], signed: bool = True) -> AnnotationBlock:
    """One annotation; highlights only when the page has a block to highlight; a signature only where the
    caller says the page is one a person signs (a report is not signed under a chart on page 8)."""
    kinds = ["stamp", "handwritten_note", "signature"] + (["highlight"] if targets else [])
    weights = [0.35, 0.3, 0.25 if signed else 0.0] + ([0.2] if targets else [])
    kind = rng.choice(kinds, p=weights)
    if kind == "stamp":
        return stamp(ctx, rng)
    if kind == "handwritten_note":
        return handwritten_note(ctx, rng)
    if kind == "signature":
        return signature(ctx, rng)
    return highlight(ctx, rng, rng.choice(targets))
