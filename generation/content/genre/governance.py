"""Governance genre blocks: the parts of minutes (attendance, resolutions, the action log, the next meeting),
of a contract summary (parties, principal clauses, service levels, signatures), of a policy (definitions,
roles, procedure, version history, review), of an audit memo (its header, the observations) and of an
executive briefing (key messages, decisions requested).

What several blocks of one document share is drawn once and remembered (``DocContext.remember``): the
meeting (its date, who was present, the chair), the contract's parties and terms, the policy's owner and
versions, so the resolutions are voted by the members the attendance lists and the review date follows the
last version's approval. Counts, sums and products are stated as derivations: members present = the count
of the present members' names, votes for + against + abstentions = members voting, the annual fee = the
monthly instalment x the number of instalments, a liability cap = its multiple x the annual fee, an audit
memo's observations by rating = the count of the ratings in its table.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from synthdocqa.ir.arithmetic_rules import PERCENTAGE_POINTS, singular, unit_for_count
from synthdocqa.ir.blocks import (
    AnnotationBlock,
    Block,
    FormBlock,
    FormField,
    ListBlock,
    Span,
    TableBlock,
    TextBlock,
)
from synthdocqa.ir.facts import Derivation, Entity, Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery

from ...domains import Metric, get_domain
from .. import countries as conventions
from ..book import DocContext, fs, lit
from ..countries import draw_id
from ..issuer_books import level
from ..names import unused_person_name
from ..tables import MAX_CHANGE, change_mode, change_span, metric_fact, pct_change, summable, whole
from ..wording import lower_common
from . import Builder, registers

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
INK_COLORS = ("#1a3c8c", "#1b1b6b", "#202020")


# ---------------------------------------------------------------- shared helpers

def _add_months(d: dt.date, n: int) -> dt.date:
    """The same day ``n`` months later (the month's last day where it is shorter)."""
    m = d.year * 12 + d.month - 1 + n
    y, mo = divmod(m, 12)
    first_next = dt.date(y + (mo + 1) // 12, (mo + 1) % 12 + 1, 1)
    return dt.date(y, mo + 1, min(d.day, (first_next - dt.timedelta(days=1)).day))


def _new_person(ctx: DocContext, rng: Rng, role: str) -> Entity:
    """A person of the document not in its cast, with a name no entity of the document has."""
    return ctx.book.entity("person", unused_person_name(rng, {e.name for e in ctx.book.entities}, 80), role=role)


def _money_metric(ctx: DocContext) -> Metric | None:
    """The trade's first money amount, whatever lens the section is seen through (a contract's fee or a decision's
    spend is the world's, drawn by its key: it must not depend on the section that asks first)."""
    trade = get_domain(ctx.domain.slug)
    return next((m for m in trade.metrics if m.kind == "money" and m.quantity == "amount"), None)


def _nice(x: float) -> Decimal:
    """``x`` to two significant figures (``41,873`` -> ``42,000``): amounts people decide on."""
    step = 10 ** max(0, int(math.log10(max(x, 1.0))) - 1)
    return Decimal(max(1, int(round(x / step))) * step)


def _spend(ctx: DocContext, rng: Rng, lo: float, hi: float) -> Decimal:
    """A one-off amount between ``lo`` and ``hi`` of the domain's largest money metric (log-uniform)."""
    m = _money_metric(ctx)
    top = m.high if m is not None else 2_000_000.0
    return _nice(math.exp(rng.uniform(math.log(top * lo), math.log(top * hi))))


def _the_item(ctx: DocContext, item: str) -> str:
    """``the Westfield branch``, ``the Global Equity Fund`` (the kind is not said twice)."""
    kind = ctx.domain.item_kind
    return f"the {item}" if item.lower().endswith(kind.split()[-1].lower()) else f"the {item} {kind}"


def _lc_first(text: str) -> str:
    """An action as a clause: ``Update the cash forecast`` -> ``update the cash forecast`` (names keep case)."""
    head = text.split(" ")[0]
    return text if head.isupper() and len(head) > 1 else text[:1].lower() + text[1:]


def _caption(ctx: DocContext, options: list[str], numbered: bool) -> str:
    """The first of ``options`` no exhibit of the document carries, claimed; numbered like the document's
    tables where ``numbered``."""
    text = next((c for c in options if ctx.caption_free(c)), None)
    if text is None:
        text = f"{options[0]} ({ctx.serial('caption', 3).split('/')[-1]})"
    ctx.claim_caption(text)
    return f"Table {ctx.number('table')}. {text}" if numbered else text


def _count_unit(unit: str, value: int) -> str:
    return unit_for_count(unit, float(value))


# ================================================================ minutes

@dataclass
class Meeting:
    """The meeting minuted: when and where, its members present (chair first) and absent, who else attended."""

    date: dt.date
    time: str
    venue: str
    present: list[tuple[Entity, str, str]]
    """``(person, board role, position)``: board role "Chair", "Deputy Chair" or "Member"; the position is the
    member's post (unique among members)."""
    apologies: list[tuple[Entity, str]]
    attending: list[tuple[Entity, str]]
    """Non-members in attendance and in what capacity (secretary, auditor, presenter)."""
    members: Decimal
    quorum: Decimal

    @property
    def chair(self) -> Entity:
        return self.present[0][0]


EXTRA_POSTS = ("Independent Non-executive Director", "Non-executive Director", "Senior Independent Director",
               "Employee Representative", "Independent Member", "Co-opted Member", "Lay Member",
               "Staff Representative", "Shareholder Representative", "External Member")
MEETING_TIMES = ("09:00", "09:30", "10:00", "11:00", "13:30", "14:00", "15:00", "16:00")
ROOMS = ("Board Room", "Committee Room 1", "Conference Room A", "Meeting Room 3", "Council Room")


def meeting(ctx: DocContext, rng: Rng) -> Meeting:
    """The document's one meeting (drawn by whichever minutes block comes first)."""
    def make() -> Meeting:
        d = ctx.memo.get(("minutes", "date")) or ctx.day(-rng.integers(3, 22))
        cast = rng.shuffled(ctx.people)
        secretary = next((p for p in cast if "Secretary" in p.role), None)
        pool = [(p, p.role) for p in cast if p is not secretary]
        posts = [x for x in rng.shuffled(EXTRA_POSTS) if x not in {p.role for p in cast}]
        apologies_range = registers.data().committee.apologies
        n_apologies = rng.integers(apologies_range[0], apologies_range[1] + 1)
        n_present = int(registers.members_present(ctx, d, apologies_range[1])[0])
        while len(pool) < n_present + n_apologies:
            post = posts.pop(0)
            pool.append((_new_person(ctx, rng, post), post))
        present = []
        for i, (p, post) in enumerate(pool[:n_present]):
            board = "Chair" if i == 0 else "Deputy Chair" if i == 1 and n_present >= 6 else "Member"
            present.append((p, board, post))
        apologies = pool[n_present:n_present + n_apologies]
        if secretary is None:
            secretary = _new_person(ctx, rng, "Company Secretary")
        attending = [(secretary, "Secretary to the Committee")]
        extra = rng.sample(("auditor", "presenter"), rng.integers(0, 3))
        for kind in ("auditor", "presenter"):
            if kind not in extra:
                continue
            if kind == "auditor":
                firm = ctx.counterparties[-1].name if ctx.counterparties else "the external auditors"
                attending.append((_new_person(ctx, rng, "Audit Partner"), f"External Auditor, {firm}"))
            else:
                dept, topic = rng.choice(ctx.domain.departments), rng.choice(ctx.domain.topics)
                attending.append((_new_person(ctx, rng, f"Head of {dept}"),
                                  f"Head of {dept}, for the item on {topic}"))
        (members, _), (quorum, _) = registers.constitution(ctx)
        city = ctx.issuer.attributes.get("city", "")
        street = ctx.issuer.attributes.get("address", "")
        venue = ", ".join(x for x in (rng.choice(ROOMS), street, city) if x)
        return Meeting(date=d, time=rng.choice(MEETING_TIMES), venue=venue, present=present,
                       apologies=apologies, attending=attending, members=members, quorum=quorum)

    m = ctx.remember(("minutes", "meeting"), make)
    ctx.remember(("minutes", "present"), lambda: [p.id for p, _, _ in m.present])
    ctx.remember(("minutes", "date"), lambda: m.date)
    return m


def _present_label(board: str, post: str) -> str:
    if board == "Chair":
        return "Chair of the meeting"
    if board == "Deputy Chair":
        return "Deputy Chair present at the meeting"
    return f"Member present at the meeting as {post}"


def _position(board: str, post: str) -> str:
    return post if board == "Member" else f"{board} ({post})"


def build_attendance(ctx: DocContext, rng: Rng) -> list[Block]:
    """Who attended (present, apologies, in attendance), when and where, and the quorum: members present =
    the count of the present members' names."""
    m = meeting(ctx, rng)
    book = ctx.book
    blocks: list[Block] = []

    def details(bid: str) -> list[Span]:
        fd = book.date("Date of the meeting", m.date, group=bid, attribute="meeting_date")
        ft = book.text("Start time of the meeting", m.time, group=bid, attribute="meeting_time")
        fv = book.text("Venue of the meeting", m.venue, group=bid, attribute="venue")
        return [lit("Meeting held on "), fs(fd), lit(" at "), fs(ft), lit(", "), fs(fv), lit(".")]

    def quorum(bid: str, present_facts: list[Fact]) -> list[Span]:
        n = len(present_facts)
        fn = book.number("Members present at the meeting", Decimal(n), "members", quantity="count", group=bid,
                         attribute="members_present",
                         derivation=Derivation(op="count", operands=[f.id for f in present_facts]))
        (members, q_members), (quorum, q_quorum) = registers.constitution(ctx)
        fm = book.number("Voting members of the committee", members, "members", quantity="count",
                         group=bid, attribute="members", query=q_members)
        fq = book.number("Quorum of the committee", quorum, "members", quantity="count", group=bid,
                         attribute="quorum", query=q_quorum)
        return [lit("The Chair declared the meeting quorate: "), fs(fn), lit(" of "), fs(fm),
                lit(f" {_count_unit('members', int(members))} present (quorum "), fs(fq), lit(").")]

    if rng.bernoulli(0.4):  # one attendance table, then the meeting and its quorum
        bid = book.block_id()
        rows: list[list[Span]] = []
        present_facts = []
        for p, board, post in m.present:
            f = book.person(_present_label(board, post), p, group=bid, attribute="member_present")
            present_facts.append(f)
            st = book.text(f"Attendance of {p.name} at the meeting", "Present", group=bid, attribute="attendance")
            rows.append([fs(f), lit(_position(board, post)), fs(st)])
        for p, post in m.apologies:
            f = book.person(f"Member who sent apologies for the meeting, {post}", p, group=bid,
                            attribute="apologies")
            st = book.text(f"Attendance of {p.name} at the meeting", "Apologies", group=bid, attribute="attendance")
            rows.append([fs(f), lit(post), fs(st)])
        for p, capacity in m.attending:
            f = book.person(f"{capacity.split(',')[0]} in attendance at the meeting", p, group=bid,
                            attribute="in_attendance")
            st = book.text(f"Attendance of {p.name} at the meeting", "In attendance", group=bid,
                           attribute="attendance")
            rows.append([fs(f), lit(capacity), fs(st)])
        caption = _caption(ctx, ["Attendance", "Record of attendance", "Attendance at the meeting"], False)
        blocks.append(TableBlock(id=bid, caption=caption, columns=["Name", "Position", "Attendance"], rows=rows))
        bid2 = book.block_id()
        blocks.append(TextBlock(id=bid2, spans=details(bid2) + [lit(" ")] + quorum(bid2, present_facts)))
        return blocks

    bid = book.block_id()
    blocks.append(TextBlock(id=bid, spans=details(bid)))
    bid = book.block_id()
    items = []
    present_facts = []
    for p, board, post in m.present:
        f = book.person(_present_label(board, post), p, group=bid, attribute="member_present")
        present_facts.append(f)
        items.append([fs(f), lit(f", {post}" + (f" ({board})" if board != "Member" else ""))])
    blocks.append(ListBlock(id=bid, title="Present", items=items))
    bid = book.block_id()
    spans: list[Span] = [lit("Apologies: ")]
    for i, (p, post) in enumerate(m.apologies):
        f = book.person(f"Member who sent apologies for the meeting, {post}", p, group=bid, attribute="apologies")
        spans += [lit("; " if i else ""), fs(f), lit(f" ({post})")]
    spans.append(lit(". In attendance: "))
    for i, (p, capacity) in enumerate(m.attending):
        f = book.person(f"{capacity.split(',')[0]} in attendance at the meeting", p, group=bid,
                        attribute="in_attendance")
        spans += [lit("; " if i else ""), fs(f), lit(f" ({capacity})")]
    spans.append(lit(". "))
    blocks.append(TextBlock(id=bid, spans=[s for s in spans if s.text] + quorum(bid, present_facts)))
    return blocks


# ---------------------------------------------------------------- resolutions

def _resolution_wordings(ctx: DocContext, rng: Rng, n: int, year: int) -> list[tuple[str, str, str | None]]:
    """``(wording, how the amount is introduced, the kind of amount or None)`` of ``n`` distinct resolutions (the
    kinds: ``catalogue/registers.yaml``, committee.amounts)."""
    d = ctx.domain
    used = ctx.used("actions")
    free_actions = [a for a in d.actions if a not in used]
    dept, dept2 = rng.sample(d.departments, 2)
    topic, topic2 = rng.sample(d.topics, 2)
    item = rng.choice(d.items)
    options: list[tuple[str, str, str | None]] = [
        (f"To approve the {year + 1} budget of the {dept} function", ", set at ", "budget"),
        (f"To approve capital expenditure for {_the_item(ctx, item)}", ", not exceeding ", "capex"),
        (f"To adopt the revised {topic} policy", "", None),
        (f"To accept the report of the {rng.choice(d.roles)} on {topic2}", "", None),
        (f"To delegate to the {rng.choice(d.roles)} the approval of exceptions on {topic}", ", up to ",
         "delegation"),
        (f"To commission an external review of {topic2} by the {dept2} function", ", at a cost of up to ", "review"),
    ]
    if free_actions:
        act = rng.choice(free_actions)
        options.append((f"To authorise the {dept2} team to {_lc_first(act)}", "", None))
    first = [("To approve the minutes of the previous meeting as a correct record", "", None)]
    picks = first + rng.sample(options, n - 1) if rng.bernoulli(0.6) else rng.sample(options, n)
    for w, _, _ in picks:
        if w.startswith("To authorise"):
            used.add(next(a for a in d.actions if w.endswith(_lc_first(a))))
    return picks


def build_resolutions(ctx: DocContext, rng: Rng) -> list[Block]:
    """The resolutions put to the meeting (number, wording, proposer and seconder), then the votes on each:
    for + against + abstentions = members voting (the members present); carried by a simple majority."""
    m = meeting(ctx, rng)
    book = ctx.book
    voters = [p for p, _, _ in m.present]
    n = rng.integers(2, 5)
    wordings = _resolution_wordings(ctx, rng, n, m.date.year)
    bid = book.block_id()
    items = []
    numbers = []
    for i, (wording, how, kind) in enumerate(wordings):
        no = registers.resolution_number(m.date, i)
        numbers.append(no)
        fno = book.ident(f"Number of the {ORDINALS[i]} resolution put to the meeting", no, scheme="resolution",
                         group=bid, attribute="resolution_number")
        fw = book.text(f"Wording of resolution {no}", wording, group=bid, attribute="resolution")
        proposer, seconder = rng.sample(voters[1:], 2)
        fp = book.person(f"Proposer of resolution {no}", proposer, group=bid, attribute="proposer")
        fsd = book.person(f"Seconder of resolution {no}", seconder, group=bid, attribute="seconder")
        spans: list[Span] = [lit("Resolution "), fs(fno), lit(": "), fs(fw)]
        if kind is not None:
            amount, q_amount = registers.resolution_amount(ctx, m.date, i, kind)
            fa = book.money(f"Amount in resolution {no}", amount, decimals=0, group=bid, attribute="amount",
                            query=q_amount)
            spans += [lit(how), fs(fa)]
        spans += [lit(". Proposed by "), fs(fp), lit(", seconded by "), fs(fsd), lit(".")]
        items.append(spans)
    blocks: list[Block] = [ListBlock(id=bid, title="Resolutions", items=items)]
    bid = book.block_id()
    rows = []
    for i, no in enumerate(numbers):
        cast = registers.votes(ctx, m.date, i, len(voters))
        (v_for, q_for), (v_against, q_against), (v_abstain, q_abstain) = (cast[k] for k in ("for", "against",
                                                                                          "abstain"))
        ff = book.number(f"Votes for resolution {no}", v_for, "votes", quantity="count", group=bid,
                         attribute="votes_for", query=q_for)
        fa = book.number(f"Votes against resolution {no}", v_against, "votes", quantity="count", group=bid,
                         attribute="votes_against", query=q_against)
        fb = book.number(f"Abstentions on resolution {no}", v_abstain, "votes", quantity="count",
                         group=bid, attribute="abstentions", query=q_abstain)
        ft = book.number(f"Members voting on resolution {no}", Decimal(v_for + v_against + v_abstain), "members",
                         quantity="count", group=bid, attribute="members_voting",
                         derivation=Derivation(op="sum", operands=[ff.id, fa.id, fb.id]))
        fo = book.text(f"Outcome of resolution {no}", "Carried" if v_for > v_against else "Not carried", group=bid,
                       attribute="outcome")
        rows.append([lit(no), fs(ff), fs(fa), fs(fb), fs(ft), fs(fo)])
    caption = _caption(ctx, ["Voting on the resolutions", "Record of votes", "Votes cast on the resolutions"], False)
    blocks.append(TableBlock(id=bid, caption=caption,
                             columns=["Resolution", "Votes for", "Votes against", "Abstentions", "Members voting", "Outcome"],
                             rows=rows, numeric_columns=[1, 2, 3, 4]))
    return blocks


# ---------------------------------------------------------------- action log

ACTION_STATUSES = ("Open", "In progress", "Done")


def _meeting_actions(ctx: DocContext, m: Meeting) -> list[str]:
    """Actions a meeting minutes besides the domain's own: follow-ups on its topics."""
    d = ctx.domain
    out = []
    for i, topic in enumerate(d.topics):
        dept = d.departments[i % len(d.departments)]
        out += [f"Circulate a paper on {topic} before the next meeting",
                f"Report back to the committee on {topic}",
                f"Update the risk register entry for {topic}",
                f"Confirm the {dept} budget assumptions for {m.date.year + 1}"]
    return list(dict.fromkeys(out))  # once each (more topics than departments repeat a department)


def build_action_log(ctx: DocContext, rng: Rng) -> list[Block]:
    """The actions agreed at the meeting: number, action, owner (a member present), due date (after the
    meeting and the issue of the minutes) and status. Each action is one no other table lists; its owner and
    due date are the document's (prose that mentions it later says the same)."""
    m = meeting(ctx, rng)
    book = ctx.book
    owners = [p for p, _, _ in m.present]
    owner_ids = [p.id for p in owners]
    used = ctx.used("actions")

    def fits(act: str) -> bool:
        prior = ctx.memo.get(("action", act))
        return act not in used and (prior is None or (prior[0].id in owner_ids and prior[1] > ctx.anchor))

    n = rng.integers(3, 7)
    acts = [a for a in rng.shuffled(ctx.domain.actions) if fits(a)][:n]
    if len(acts) < n:
        acts += [a for a in rng.shuffled(_meeting_actions(ctx, m)) if fits(a)][:n - len(acts)]
    used.update(acts)
    bid = book.block_id()
    start = rng.integers(1, 30)
    rows = []
    for i, act in enumerate(acts):
        owner, due_d = ctx.remember(("action", act), lambda: (rng.choice(owners), ctx.day(rng.integers(10, 120))))
        status = ctx.remember(("status", act), lambda: rng.choice(ACTION_STATUSES, p=[0.5, 0.35, 0.15]))
        no = f"A{m.date.year % 100:02d}/{start + i:02d}"
        fn = book.ident(f"Action number of the action '{act}'", no, scheme="action", group=bid,
                        attribute="action_number")
        fa = book.text(f"Action minuted as {no}", act, group=bid, attribute="action")
        fo = book.person(f"Owner of the action '{act}'", owner, group=bid, attribute="owner")
        fd = book.date(f"Due date of the action '{act}'", due_d, group=bid, attribute="due_date")
        fst = book.text(f"Status of the action '{act}'", status, group=bid, attribute="status")
        rows.append([fs(fn), fs(fa), fs(fo), fs(fd), fs(fst)])
    caption = _caption(ctx, ["Action log", "Actions arising from the meeting", "Schedule of actions"], False)
    return [TableBlock(id=bid, caption=caption, columns=["Action no.", "Action", "Owner", "Due date", "Status"],
                       rows=rows)]


# ---------------------------------------------------------------- next meeting

def build_next_meeting(ctx: DocContext, rng: Rng) -> list[Block]:
    """When and where the next meeting is, then the chair's signature under the minutes."""
    m = meeting(ctx, rng)
    book = ctx.book
    bid = book.block_id()
    nd = ctx.day(rng.integers(21, 100))
    venue = m.venue if rng.bernoulli(0.7) else "by video conference"
    fd = book.date("Date of the next meeting", nd, group=bid, attribute="next_meeting_date")
    ft = book.text("Start time of the next meeting", rng.choice((m.time, m.time, *MEETING_TIMES)), group=bid,
                   attribute="next_meeting_time")
    fv = book.text("Venue of the next meeting", venue, group=bid, attribute="next_meeting_venue")
    where = [lit(" "), fs(fv)] if venue.startswith("by ") else [lit(", "), fs(fv)]
    blocks: list[Block] = [TextBlock(id=bid, spans=[lit("The next meeting will be held on "), fs(fd), lit(" at "),
                                                    fs(ft), *where, lit(".")])]
    bid = book.block_id()
    chair = book.person("Chair signing the minutes as a correct record", m.chair, group=bid, attribute="signatory")
    if rng.bernoulli(0.6):
        title = _caption(ctx, ["Signed as a correct record", "Approval of the minutes"], False)
        blocks.append(FormBlock(id=bid, title=title,
                                fields=[FormField(label="Chair", value=fs(chair), field_type="person")],
                                signature_lines=["Chair", "Date"]))
    else:
        blocks.append(AnnotationBlock(id=bid, kind="signature", spans=[fs(chair), lit("Chair, signed as a correct record")],
                                      rotation=round(rng.uniform(-4, 4), 1), color=rng.choice(INK_COLORS)))
    return blocks


# ================================================================ contract summary

SIGNATORY_TITLES = ("Managing Director", "Chief Executive Officer", "Commercial Director", "Chief Operating Officer",
                    "Director of Operations")


def governing_law(org: Entity) -> tuple[str, str]:
    """``(law, courts)`` of the country where ``org`` is registered."""
    a = org.attributes
    city = a.get("city", "")
    law = conventions.country_of(a).law
    override = law.by_city.get(city) or law.by_region.get(a.get("region", ""))
    name = override.name if override else law.name
    courts = override.courts if override and override.courts else law.courts
    if not city and law.courts_without_city:
        return name, law.courts_without_city
    return name, courts.format(city=city)


def company_number(ctx: DocContext, rng: Rng, org: Entity) -> str:
    """The organisation's registration number, shaped like its country's register (one per document)."""
    def make() -> str:
        city = org.attributes.get("city", "")
        return draw_id(conventions.country_of(org.attributes).registers.contract, rng, city=city,
                       city_code=city[:2].upper())
    return ctx.remember(("company_number", org.id), make)


@dataclass
class Contract:
    """The contract summarised: its parties (A the customer or the issuer, B the one named in the title),
    their signatories and its principal terms."""

    ref: str
    a: Entity
    a_role: str
    b: Entity
    b_role: str
    a_signatory: Entity
    a_title: str
    b_signatory: Entity
    b_title: str
    effective: dt.date
    term: int
    end: dt.date
    renewal: int
    renewal_notice: int
    monthly: Decimal
    instalments: int
    payment_days: int
    index_cap: Decimal
    multiple: Decimal | None
    liability_cap: Decimal
    convenience_days: int
    cure_days: int
    law: str
    courts: str
    confidentiality_years: int
    signed_a: dt.date
    signed_b: dt.date

    @property
    def annual(self) -> Decimal:
        return self.monthly * self.instalments


def contract(ctx: DocContext, rng: Rng) -> Contract:
    """The document's one contract (drawn by whichever contract block comes first)."""
    def make() -> Contract:
        b = ctx.counterparties[0]
        if b.role == "customer":
            a, a_role, b_role = ctx.issuer, "Supplier", "Customer"
        else:
            a, a_role, b_role = ctx.issuer, "Customer", b.role.capitalize()
        senior = [p for p in ctx.people if p.role.split()[0] in ("Chief", "Head", "Director", "General")]
        a_sig = rng.choice(senior or ctx.people)
        b_title = rng.choice(SIGNATORY_TITLES)
        b_sig = _new_person(ctx, rng, b_title)
        assert ctx.world is not None  # the terms are the issuer's contract's, drawn by its reference
        t = ctx.world.rng.fork("contract", ctx.doc_reference())
        term = t.choice((12, 24, 36, 36, 48, 60))
        back = rng.integers(1, max(2, min(term - 1, 30)))
        month = ctx.anchor.year * 12 + ctx.anchor.month - 1 - back
        effective = dt.date(month // 12, month % 12 + 1, 1)
        places = ctx.fmt.money_decimals
        monthly = _nice(float(_spend(ctx, t, 0.01, 0.2)) / 12).quantize(Decimal(1).scaleb(-places))
        annual = monthly * 12
        multiple = t.choice((Decimal("1.5"), Decimal(2), Decimal(2), Decimal(3))) if t.bernoulli(0.5) else None
        cap = annual * multiple if multiple is not None else _nice(float(annual) * t.uniform(0.8, 2.5))
        law, courts = governing_law(ctx.issuer)
        days = (ctx.anchor - effective).days

        def signed() -> dt.date:
            return effective + dt.timedelta(days=rng.integers(0, min(days, 30) + 1))
        return Contract(ref=ctx.doc_reference(), a=a, a_role=a_role, b=b, b_role=b_role, a_signatory=a_sig,
                        a_title=a_sig.role, b_signatory=b_sig, b_title=b_title, effective=effective, term=term,
                        end=_add_months(effective, term) - dt.timedelta(days=1), renewal=t.choice((12, 12, 24)),
                        renewal_notice=t.choice((60, 90, 90, 180)), monthly=monthly, instalments=12,
                        payment_days=t.choice((14, 30, 30, 45, 60)),
                        index_cap=t.choice((Decimal("2.5"), Decimal(3), Decimal("3.5"), Decimal(4), Decimal(5))),
                        multiple=multiple, liability_cap=cap, convenience_days=t.choice((30, 60, 90, 180)),
                        cure_days=t.choice((14, 21, 30)), law=law, courts=courts,
                        confidentiality_years=t.choice((2, 3, 5)), signed_a=signed(), signed_b=signed())
    return ctx.remember(("contract", "terms"), make)


def term(ctx: DocContext, c: Contract, measure: str, name: str, draw) -> tuple[Decimal, WorldQuery]:
    """A term of contract ``c`` as the issuer's world holds it (``contracts.<measure>``, item: the contract and
    the term), drawn by that key the first time a document of the issuer asks."""
    return level(ctx, f"contracts.{measure}", f"contract {c.ref}: {name.replace('_', ' ')}", draw)


def term_query(ctx: DocContext, c: Contract, measure: str, name: str, value: Decimal) -> WorldQuery:
    """The query of a term the contract's plan fixed (``contract``: drawn by its reference from the issuer's
    stream, so the value is the world's whichever document asks first)."""
    got, query = term(ctx, c, measure, name, lambda r: value)
    assert got == value, (name, got, value)
    return query


def _exhibits_numbered(ctx: DocContext) -> bool:
    """Reports number their tables like the rest of the document; minutes and transactional papers do not."""
    return ctx.recipe.slug != "board_minutes" and ctx.recipe.genre_class != "transactional"


def build_contract_parties(ctx: DocContext, rng: Rng) -> list[Block]:
    """The two parties side by side (name, registered address, company number, authorised signatory and
    title), then the contract's reference and effective date."""
    c = contract(ctx, rng)
    book = ctx.book
    bid = book.block_id()
    cols: list[list[Span]] = []
    for org, role, sig, title in ((c.a, c.a_role, c.a_signatory, c.a_title),
                                  (c.b, c.b_role, c.b_signatory, c.b_title)):
        fo = book.org(f"{role} under contract {c.ref}", org, group=bid, attribute="party")
        fa = book.text(f"Registered address of {org.name}", org.attributes.get("full", org.name), subject=org.id,
                       group=bid, attribute="registered_address")
        fn = book.ident(f"Company number of {org.name}", company_number(ctx, rng, org), scheme="company_number",
                        subject=org.id, group=bid, attribute="company_number")
        fp = book.person(f"Authorised signatory of {org.name} for contract {c.ref}", sig, group=bid,
                         attribute="signatory")
        ft = book.text(f"Title of {sig.name}", title, subject=sig.id, group=bid, attribute="signatory_title")
        cols.append([fs(fo), fs(fa), fs(fn), fs(fp), fs(ft)])
    names = ("Name", "Registered address", "Company number", "Authorised signatory", "Signatory's title")
    rows = [[lit(n), cols[0][i], cols[1][i]] for i, n in enumerate(names)]
    caption = _caption(ctx, ["Parties to the agreement", "Contracting parties", "The parties"],
                       _exhibits_numbered(ctx))
    blocks: list[Block] = [TableBlock(id=bid, caption=caption,
                                      columns=["Particulars", f"Party A ({c.a_role})", f"Party B ({c.b_role})"],
                                      rows=rows)]
    bid = book.block_id()
    fr = book.ident("Reference of the contract summarised", c.ref, scheme="reference", group=bid,
                    attribute="contract_reference")
    fe = book.date(f"Effective date of contract {c.ref}", c.effective, group=bid, attribute="effective_date")
    blocks.append(TextBlock(id=bid, spans=[lit("Contract reference "), fs(fr), lit(", effective from "), fs(fe),
                                           lit(f", between {c.a.name} (Party A) and {c.b.name} (Party B).")]))
    return blocks


def build_contract_clauses(ctx: DocContext, rng: Rng) -> list[Block]:
    """The principal clauses, numbered: term and renewal, fees and payment (annual fee = instalment x
    instalments), liability (a cap, or a multiple of the annual fee and the amount it comes to), termination,
    governing law and confidentiality."""
    c = contract(ctx, rng)
    book = ctx.book
    bid = book.block_id()
    r = c.ref

    def num(label: str, value, unit: str, attribute: str, quantity: str = "duration", places: int = 0) -> Fact:
        measure = {"months": "months", "days": "days", "years": "years"}.get(unit, "count")
        return book.number(label, Decimal(value), unit, places, quantity=quantity, group=bid, attribute=attribute,
                           query=term_query(ctx, c, measure, attribute, Decimal(value)))

    term = num(f"Initial term of contract {r}", c.term, "months", "initial_term")
    start = book.date(f"Start date of the initial term of contract {r}", c.effective, group=bid,
                      attribute="term_start")
    end = book.date(f"End date of the initial term of contract {r}", c.end, group=bid, attribute="term_end")
    renewal = num(f"Renewal period of contract {r}", c.renewal, "months", "renewal_period")
    notice = num(f"Notice period for non-renewal of contract {r}", c.renewal_notice, "days", "renewal_notice")
    monthly = book.money(f"Monthly instalment of the annual fee under contract {r}", c.monthly, group=bid,
                         attribute="monthly_fee", query=term_query(ctx, c, "money", "monthly_fee", c.monthly))
    ctx.memo[("contract", "monthly_fee_fact")] = monthly.id
    count = num(f"Number of monthly instalments of the annual fee under contract {r}", c.instalments,
                "instalments", "instalments", quantity="count")
    annual = book.money(f"Annual fee under contract {r}", c.annual, group=bid, attribute="annual_fee",
                        derivation=Derivation(op="product", operands=[monthly.id, count.id]))
    pay = num(f"Payment term of invoices under contract {r}", c.payment_days, "days", "payment_term")
    index = book.percent(f"Cap on the annual indexation of fees under contract {r}", c.index_cap, group=bid,
                         attribute="indexation_cap", query=term_query(ctx, c, "percent", "indexation_cap", c.index_cap))
    items: list[list[Span]] = [
        [lit("Term and renewal. The initial term is "), fs(term), lit(" months, from "), fs(start), lit(" to "),
         fs(end), lit("; the contract then renews for successive periods of "), fs(renewal),
         lit(" months unless either party gives at least "), fs(notice), lit(" days' notice of non-renewal.")],
        [lit("Fees and payment. The annual fee is "), fs(annual), lit(", payable in "), fs(count),
         lit(" monthly instalments of "), fs(monthly), lit(" within "), fs(pay),
         lit(" days of invoice. Annual indexation of the fees is capped at "), fs(index), lit(".")],
    ]
    carve_out = (", except for death or personal injury caused by negligence, fraud and breach of "
                 "confidentiality.")
    if c.multiple is not None:
        mult = book.number(f"Liability cap of contract {r} as a multiple of the annual fee", c.multiple, "times",
                           0 if c.multiple == c.multiple.to_integral_value() else 1, quantity="ratio", group=bid,
                           attribute="liability_multiple",
                           query=term_query(ctx, c, "multiple", "liability_multiple", c.multiple))
        cap = book.money(f"Liability cap under contract {r}", c.liability_cap, group=bid, attribute="liability_cap",
                         derivation=Derivation(op="product", operands=[mult.id, annual.id]))
        items.append([lit("Liability. Each party's aggregate liability is capped at "), fs(mult),
                      lit(" times the annual fee, that is "), fs(cap), lit(carve_out)])
    else:
        cap = book.money(f"Liability cap under contract {r}", c.liability_cap, group=bid, attribute="liability_cap",
                         query=term_query(ctx, c, "money", "liability_cap", c.liability_cap))
        items.append([lit("Liability. Each party's aggregate liability in any contract year is capped at "),
                      fs(cap), lit(carve_out)])
    conv = num(f"Notice period for termination of contract {r} for convenience", c.convenience_days, "days",
               "termination_notice")
    cure = num(f"Cure period for a material breach of contract {r}", c.cure_days, "days", "cure_period")
    items.append([lit("Termination. Either party may terminate for convenience on "), fs(conv),
                  lit(" days' written notice, or for cause if a material breach is not remedied within "), fs(cure),
                  lit(" days of notice.")])
    law = book.text(f"Governing law of contract {r}", c.law, group=bid, attribute="governing_law")
    courts = book.text(f"Courts with jurisdiction over contract {r}", c.courts, group=bid, attribute="jurisdiction")
    items.append([lit("Governing law and jurisdiction. The contract is governed by the law of "), fs(law),
                  lit(", and "), fs(courts), lit(" have exclusive jurisdiction.")])
    conf = num(f"Duration of the confidentiality obligations after termination of contract {r}",
               c.confidentiality_years, "years", "confidentiality_period")
    items.append([lit("Confidentiality. Each party keeps the other's confidential information secret during the "
                      "term and for "), fs(conf), lit(" years after termination or expiry.")])
    return [ListBlock(id=bid, ordered=True, title="Principal terms", items=items)]


SERVICE_LEVELS: dict[str, tuple[tuple[str, str, tuple, tuple[str, ...]], ...]] = {
    # (service level, target kind "percent"/unit, targets, measured over)
    "it": (("Service availability", "percent", ("99.5", "99.8", "99.9"), ("Calendar month",)),
           ("Priority 1 incident response (minutes)", "minutes", (15, 30), ("Each incident",)),
           ("Priority 1 incident resolution (hours)", "hours", (2, 4, 6), ("Each incident",)),
           ("Priority 2 incident response (hours)", "hours", (1, 2), ("Each incident",)),
           ("Priority 2 incident resolution (hours)", "hours", (8, 12, 24), ("Each incident",)),
           ("Service desk first-contact resolution", "percent", ("70", "75", "80"), ("Calendar month",
                                                                                    "Calendar quarter")),
           ("Monthly service report issued (working days after month end)", "working days", (5, 10),
            ("Calendar month",))),
    "property": (("Emergency call-out attendance (hours)", "hours", (2, 4), ("Each call-out",)),
                 ("Urgent repairs completed (hours)", "hours", (24, 48), ("Each request",)),
                 ("Planned maintenance completed on schedule", "percent", ("95", "97", "98"),
                  ("Calendar month", "Calendar quarter")),
                 ("Help desk availability", "percent", ("99.0", "99.5"), ("Calendar month",)),
                 ("Routine requests completed (working days)", "working days", (5, 10), ("Each request",))),
    "ops": (("On-time delivery", "percent", ("97", "98", "99"), ("Calendar month",)),
            ("Order accuracy", "percent", ("99.0", "99.5"), ("Calendar month",)),
            ("Damage claims acknowledged (hours)", "hours", (24, 48), ("Each claim",)),
            ("Proof of delivery available (hours)", "hours", (24, 48), ("Each delivery",)),
            ("Customer enquiries answered (hours)", "hours", (4, 8), ("Each enquiry",))),
    "energy": (("Supply availability", "percent", ("99.5", "99.8"), ("Calendar month",)),
               ("Fault response on site (hours)", "hours", (2, 4), ("Each fault",)),
               ("Meter readings received on time", "percent", ("97", "98"), ("Calendar month",)),
               ("Planned outage notice (days)", "days", (5, 10), ("Each planned outage",)),
               ("Billing queries resolved (working days)", "working days", (5, 10), ("Each query",))),
}
SLA_POOL_OF_TAG = {"property": "property", "ops": "ops", "commerce": "ops", "industrial": "ops", "energy": "energy"}


def build_service_levels(ctx: DocContext, rng: Rng) -> list[Block]:
    """The service levels: target (a percentage or a time), what it is measured over and the service credit
    (a percentage of the monthly fee); then the cap on credits and the amount it comes to (the monthly fee
    at the cap's rate)."""
    c = contract(ctx, rng)
    book = ctx.book
    pool = SERVICE_LEVELS[next((SLA_POOL_OF_TAG[t] for t in ctx.domain.tags if t in SLA_POOL_OF_TAG), "it")]
    k = rng.integers(4, min(6, len(pool)) + 1)
    chosen = sorted(rng.sample(range(len(pool)), k))
    bid = book.block_id()
    rows = []
    for i in chosen:
        name, kind, targets, over = pool[i]
        what = lower_common(name.split(" (")[0])
        target, q_t = term(ctx, c, "target", f"{what} target", lambda r, targets=targets: Decimal(r.choice(targets)))
        if kind == "percent":
            ft = book.percent(f"Target for {what} under contract {c.ref}", target, group=bid,
                              attribute="sla_target", query=q_t)
        else:
            ft = book.number(f"Target for {what} under contract {c.ref}", target, kind,
                             quantity="duration", group=bid, attribute="sla_target", query=q_t)
        fo = book.text(f"Measurement period of the {what} service level", rng.choice(over), group=bid,
                       attribute="measured_over")
        credit, q_c = term(ctx, c, "percent", f"{what} service credit", lambda r: Decimal(r.integers(4, 21)) / 2)
        fc = book.percent(f"Service credit for missing the {what} target", credit,
                          group=bid, attribute="service_credit", query=q_c)
        rows.append([lit(name), fs(ft), fs(fo), fs(fc)])
    caption = _caption(ctx, ["Service levels and service credits", "Service level schedule", "Service levels"],
                       _exhibits_numbered(ctx))
    blocks: list[Block] = [TableBlock(id=bid, caption=caption, columns=["Service level", "Target", "Measured over",
                                                                        "Service credit (% of monthly fee)"],
                                      rows=rows, numeric_columns=[1, 3])]
    bid = book.block_id()
    source = ctx.memo.get(("contract", "monthly_fee_fact"))
    fee = book.money(f"Monthly fee on which service credits under contract {c.ref} are calculated", c.monthly,
                     group=bid,
                     attribute="monthly_fee",
                     derivation=Derivation(op="quote", operands=[source]) if source in book.by_id else None)
    rate, q_rate = term(ctx, c, "percent", "service credit cap", lambda r: Decimal(r.choice((10, 12, 15, 20, 25))))
    fr = book.percent(f"Cap on service credits in any month under contract {c.ref}", rate, group=bid,
                      attribute="service_credit_cap", query=q_rate)
    places = Decimal(1).scaleb(-ctx.fmt.money_decimals)
    fa = book.money(f"Largest service credit in any month under contract {c.ref}",
                    (c.monthly * rate / 100).quantize(places, rounding=ROUND_HALF_EVEN), group=bid,
                    attribute="service_credit_cap_amount",
                    derivation=Derivation(op="percent_of", operands=[fee.id, fr.id]))
    blocks.append(TextBlock(id=bid, spans=[lit("Service credits are calculated on the monthly fee of "), fs(fee),
                                           lit(" and are capped at "), fs(fr), lit(" of it, "), fs(fa),
                                           lit(", in any month.")]))
    return blocks


PRICE_COMPONENTS = (("Core services", "Fixed fee, monthly in arrears"),
                    ("Account management", "Fixed fee, monthly in arrears"),
                    ("Periodic reporting and reviews", "Fixed fee, quarterly in arrears"),
                    ("Support and maintenance", "Fixed fee, monthly in advance"),
                    ("Licences and subscriptions", "Annual, in advance"),
                    ("Training and onboarding", "Fixed fee, first year spread monthly"))
"""What a service contract's annual fee is made of, with how each part is charged."""


def build_pricing_schedule(ctx: DocContext, rng: Rng) -> list[Block]:
    """The pricing schedule: the annual fee broken into its charged components (each a whole share of it),
    their total (the sum of the components, which is the annual fee of the principal terms), then the rate
    for work outside the schedule."""
    c = contract(ctx, rng)
    book = ctx.book
    bid = book.block_id()
    assert ctx.world is not None  # the schedule is the contract's: drawn by its reference, as its terms are
    pr = ctx.world.rng.fork("contract", c.ref, "pricing")
    k = pr.integers(3, 5)
    parts = [PRICE_COMPONENTS[i] for i in sorted(pr.sample(range(len(PRICE_COMPONENTS)), k))]
    step = Decimal(100) if c.annual >= 10_000 else Decimal(10)
    units = int(c.annual // step)
    weights = [Decimal(pr.integers(10, 50)) for _ in parts]
    shares = [int(units * w / sum(weights)) for w in weights]
    shares[0] += units - sum(shares)  # whole steps that add up to the fee (the first part takes the rest)
    amounts = [step * n for n in shares]
    amounts[0] += c.annual - sum(amounts)  # and what is below a step
    rows, facts = [], []
    for (name, basis), amount in zip(parts, amounts, strict=True):
        what = lower_common(name)
        fa = book.money(f"Annual charge of {what} under contract {c.ref}", amount, group=bid,
                        attribute="annual_charge", query=term_query(ctx, c, "money", f"annual charge of {what}", amount))
        fb = book.text(f"Charging basis of {what} under contract {c.ref}", basis, group=bid, attribute="basis")
        facts.append(fa)
        rows.append([lit(name), fs(fb), fs(fa)])
    total = book.money(f"Total of the pricing schedule of contract {c.ref}", c.annual, group=bid,
                       attribute="schedule_total", derivation=Derivation(op="sum", operands=[f.id for f in facts]))
    rows.append([lit("Total annual fee"), lit(""), fs(total)])
    caption = _caption(ctx, ["Pricing schedule", "Schedule of charges", "Charges under the contract"],
                       _exhibits_numbered(ctx))
    cur = ctx.fmt.currency
    table = TableBlock(id=bid, caption=caption, columns=["Component", "Charging basis", f"Annual charge ({cur})"],
                       rows=rows, total_row=True, numeric_columns=[2])
    nid = book.block_id()
    rate, q_rate = term(ctx, c, "money", "hourly rate", lambda r: Decimal(r.choice((95, 120, 150, 180, 220, 260))))
    fr = book.money(f"Hourly rate for work outside the pricing schedule of contract {c.ref}", rate, decimals=0,
                    group=nid, attribute="hourly_rate", query=q_rate)
    note = TextBlock(id=nid, spans=[lit("The components add up to the annual fee stated in the principal terms. Work "
                                        "outside the schedule is charged at "), fs(fr),
                                    lit(" an hour, against a written change request approved by both parties.")])
    return [table, note]


def build_signature_block(ctx: DocContext, rng: Rng) -> list[Block]:
    """The execution block: each party's signatory, title and date signed (on or after the effective date,
    on or before the summary's date), over the signature lines."""
    c = contract(ctx, rng)
    book = ctx.book
    title = _caption(ctx, ["Signed for and on behalf of the parties", "Execution of the agreement"], False)
    bid = book.block_id()
    fields = []
    for org, role, sig, sig_title, signed in ((c.a, c.a_role, c.a_signatory, c.a_title, c.signed_a),
                                              (c.b, c.b_role, c.b_signatory, c.b_title, c.signed_b)):
        fp = book.person(f"Signatory of contract {c.ref} for {org.name}", sig, group=bid, attribute="signatory")
        ft = book.text(f"Title under which {sig.name} signed contract {c.ref}", sig_title, subject=sig.id, group=bid,
                       attribute="signatory_title")
        fd = book.date(f"Date contract {c.ref} was signed for {org.name}", signed, group=bid, attribute="date_signed")
        fields += [FormField(label=f"{role}: signed by", value=fs(fp), field_type="person"),
                   FormField(label=f"{role}: title", value=fs(ft)),
                   FormField(label=f"{role}: date", value=fs(fd), field_type="date")]
    return [FormBlock(id=bid, title=title, fields=fields,
                      signature_lines=[f"For and on behalf of {c.a.name}", f"For and on behalf of {c.b.name}"])]


# ================================================================ policy

@dataclass
class Policy:
    """The policy: its topic, the roles it assigns (owner first, approver second, each with its holder) and
    its versions, oldest first (the last is the one in force)."""

    topic: str
    roles: list[tuple[str, Entity]]
    versions: list[tuple[str, dt.date, Entity]]
    interval: int

    @property
    def owner(self) -> tuple[str, Entity]:
        return self.roles[0]

    @property
    def approver(self) -> tuple[str, Entity]:
        return self.roles[1]

    @property
    def approved(self) -> dt.date:
        return self.versions[-1][1]


def _version_chain(rng: Rng, last: str, n: int) -> list[str]:
    """``n`` (or fewer, at least three) versions ascending to ``last`` (``0.2``, ``1.0``, ``1.1``, ``2.0``)."""
    major, minor = (int(x) for x in last.split("."))
    chain = [(major, minor)]
    while len(chain) < n:
        if minor > 0 and (major > 0 or minor > 1):
            minor = rng.integers(1 if major == 0 else 0, minor)
        elif major > 0:
            major, minor = major - 1, rng.integers(2, 5) if major == 1 else rng.integers(0, 4)
        else:
            break
        chain.append((major, minor))
    return [f"{a}.{b}" for a, b in reversed(chain)]


def role_holder(ctx: DocContext, rng: Rng, role: str) -> Entity:
    """The person who holds ``role`` in the document: the cast's, else a new person (one per role)."""
    return ctx.remember(("role_holder", role), lambda: next((p for p in ctx.people if p.role == role), None)
                        or _new_person(ctx, rng, role))


def policy(ctx: DocContext, rng: Rng) -> Policy:
    """The document's one policy (drawn by whichever policy block comes first). Its current version is the
    version the document states elsewhere (``prose.reference_paragraph``)."""
    def make() -> Policy:
        version, _, _ = ctx.remember("doc_reference_details", lambda: (
            f"{rng.integers(1, 5)}.{rng.integers(0, 10)}", ctx.day(-rng.integers(90, 370)),
            ctx.day(-rng.integers(1, 60))))
        roles = rng.shuffled(ctx.domain.roles)[:rng.integers(4, min(6, len(ctx.domain.roles)) + 1)]
        if len(roles) < 6 and "Head of Internal Audit" not in roles and rng.bernoulli(0.5):
            roles.append("Head of Internal Audit")
        held = [(r, role_holder(ctx, rng, r)) for r in roles]
        names = _version_chain(rng, version, rng.integers(3, 6))
        d = ctx.day(-rng.integers(0, 60))
        dates = [d]
        for prev, cur in zip(reversed(names[:-1]), reversed(names[1:]), strict=True):
            minor_step = prev.split(".")[0] == cur.split(".")[0]
            d = d - dt.timedelta(days=rng.integers(45, 200) if minor_step else rng.integers(200, 500))
            dates.append(d)
        dates.reverse()
        authors = [held[0][1] if rng.bernoulli(0.6) else rng.choice(held)[1] for _ in names]
        topic = rng.choice(ctx.domain.topics)
        return Policy(topic=topic, roles=held, versions=list(zip(names, dates, authors, strict=True)),
                      interval=int(registers.policy_term(ctx, topic, "review")[0]))
    return ctx.remember(("policy", "policy"), make)


def _definitions(ctx: DocContext, p: Policy) -> list[tuple[str, str]]:
    d = ctx.domain
    org, city = ctx.issuer.name, ctx.issuer.attributes.get("city", "the head office")
    dept = d.departments[0]
    owner_role, approver_role = p.owner[0], p.approver[0]
    items = d.items
    return [
        ("Policy owner", f"the {owner_role}, who is accountable for this policy and for approving exceptions to it"),
        (d.item_kind.capitalize(), f"each {d.item_kind} of {org}, including {items[0]} and {items[1]}"),
        ("Staff", f"the employees, contractors and agents of {org}, wherever they work"),
        ("Exception", "a documented and approved departure from a requirement of this policy"),
        ("Breach", "a failure, actual or suspected, to comply with this policy or its procedure"),
        ("Retention period", f"the time for which records on {p.topic} are kept before they are destroyed"),
        ("Approval threshold", f"the amount above which a decision on {p.topic} needs the approval of the "
                               f"{approver_role}"),
        ("Working day", f"a day other than a Saturday, Sunday or public holiday in {city}"),
        ("Third party", f"any organisation other than {org}, including its suppliers, customers and partners"),
        ("Control", f"a check or procedure that reduces the risk arising from {p.topic}"),
        ("Record", "any document or data, in any format, that evidences a decision or a transaction"),
        ("Responsible manager", f"the head of the {dept} function or a manager to whom that role is delegated"),
        ("Incident", f"an event that breaches, or could breach, the controls over {p.topic}"),
        ("Data owner", f"the manager accountable for the records on {p.topic} that a {dept} team holds"),
    ]


def build_definitions(ctx: DocContext, rng: Rng) -> list[Block]:
    """5-8 defined terms of the policy, alphabetically: "Term" means its definition (both text facts)."""
    p = policy(ctx, rng)
    book = ctx.book
    chosen = sorted(rng.sample(_definitions(ctx, p), rng.integers(5, 9)))
    bid = book.block_id()
    items = []
    for term, meaning in chosen:
        ft = book.text(f"Term the policy defines as {meaning}", term, group=bid, attribute="defined_term")
        fd = book.text(f"Definition of '{term}' in the policy", meaning, group=bid, attribute="definition")
        items.append([lit('"'), fs(ft), lit('" means '), fs(fd), lit(".")])
    return [ListBlock(id=bid, title="In this policy:", items=items)]


RESPONSIBILITIES = (
    "Approves the policy and receives the annual report on compliance with it",
    "Applies the procedure to {topic} in the {dept} function and keeps the records",
    "Reviews requests for exceptions and escalates breaches to the policy owner",
    "Monitors compliance with the policy and reports on it every quarter",
    "Trains new staff on {topic} and keeps the training records",
    "Maintains the register of decisions on {topic}",
)
AUDIT_RESPONSIBILITY = "Tests compliance with the policy as part of the internal audit plan"
OWNER_RESPONSIBILITY = "Owns the policy, keeps it up to date and approves exceptions to it"


def build_roles(ctx: DocContext, rng: Rng) -> list[Block]:
    """Role | Responsibility | Named holder for the roles the policy assigns (owner first, approver second)."""
    p = policy(ctx, rng)
    book = ctx.book
    bid = book.block_id()
    depts = rng.shuffled(ctx.domain.departments)
    duties = [OWNER_RESPONSIBILITY, RESPONSIBILITIES[0],
              *rng.sample(RESPONSIBILITIES[1:], len(RESPONSIBILITIES) - 1)]
    rows = []
    for i, (role, holder) in enumerate(p.roles):
        duty = AUDIT_RESPONSIBILITY if role == "Head of Internal Audit" else duties[i]
        fr = book.text(f"Responsibility of the {role} under the policy", duty.format(topic=p.topic,
                                                                                       dept=depts[i % len(depts)]),
                       group=bid, attribute="responsibility")
        fh = book.person(f"Holder of the role of {role}", holder, group=bid, attribute="role_holder")
        rows.append([lit(role), fs(fr), fs(fh)])
    caption = _caption(ctx, ["Roles and responsibilities under the policy", "Responsibilities by role",
                             "Who is responsible"], _exhibits_numbered(ctx))
    return [TableBlock(id=bid, caption=caption, columns=["Role", "Responsibility", "Named holder"], rows=rows)]


def build_procedure_steps(ctx: DocContext, rng: Rng) -> list[Block]:
    """The procedure, 5-8 numbered steps in their natural order, each with the deadline (working days),
    threshold or role it turns on."""
    p = policy(ctx, rng)
    book = ctx.book
    bid = book.block_id()
    roles = [r for r, _ in p.roles]
    dept = rng.choice(ctx.domain.departments)

    def days(label: str, attribute: str, term: str, unit: str = "working days") -> list[Span]:
        """The number (the policy's ``term``, ``registers.policy_term``) and its unit ("1 working day", "3 working
        days")."""
        value, query = registers.policy_term(ctx, p.topic, term)
        f = book.number(label, value, unit, quantity="duration", group=bid, attribute=attribute, query=query)
        return [fs(f), lit(f" {unit_for_count(unit, float(f.value.value))}")]

    def role(label: str, which: int) -> Fact:
        return book.text(label, roles[which % len(roles)], group=bid, attribute="role")

    threshold, q_threshold = registers.policy_term(ctx, p.topic, "threshold")
    steps = [
        lambda: [lit("The requester submits the request to the "), fs(role("Role that receives requests under the "
                                                                            "procedure", 2)),
                 lit(" on the standard form, with the supporting documents.")],
        lambda: [lit("The reviewer checks the request against this policy within "),
                 *days("Deadline for reviewing a request under the procedure", "review_deadline", "reviewing"),
                 lit(" of receipt.")],
        lambda: [lit("Requests above "),
                 fs(book.money("Approval threshold under the procedure", threshold, decimals=0, group=bid,
                               attribute="approval_threshold", query=q_threshold)),
                 lit(" also need the approval of the "),
                 fs(role("Role that approves requests above the approval threshold", 1)), lit(".")],
        lambda: [lit(f"Approved requests are entered in the {dept} register within "),
                 *days("Deadline for recording an approved request", "recording_deadline", "recording"), lit(".")],
        lambda: [lit("The requester is told of the decision, with reasons if it is refused, within "),
                 *days("Deadline for telling the requester of the decision", "notice_deadline", "notice"),
                 lit(" of the review.")],
        lambda: [lit("Requests for exceptions are referred to the "),
                 fs(role("Role that decides on exceptions to the policy", 0)), lit(", who decides within "),
                 *days("Deadline for a decision on an exception", "exception_deadline", "exception"), lit(".")],
        lambda: [lit("Suspected breaches are reported to the policy owner within "),
                 *days("Deadline for reporting a suspected breach", "breach_deadline", "breach", "hours"),
                 lit(" of discovery.")],
        lambda: [lit("Records of each request are kept for "),
                 *days("Retention period of the records of a request", "retention_period", "retention", "years"),
                 lit(" after the decision.")],
        lambda: [lit(f"The {dept} team reports on compliance with the procedure to the "),
                 fs(role("Role that receives the quarterly compliance report", 3)), lit(" every quarter.")],
    ]
    k = rng.integers(5, 9)
    chosen = [0, 1, 2] + sorted(rng.sample(range(3, len(steps)), k - 3))
    return [ListBlock(id=bid, ordered=True, title="Procedure", items=[steps[i]() for i in chosen])]


CHANGE_SUMMARIES = (
    "Approval thresholds for {topic} revised",
    "Roles updated after the {dept} reorganisation",
    "Annual review; no material changes",
    "Exception procedure clarified",
    "Retention periods aligned with legal advice",
    "Definitions added and wording simplified",
    "Breach reporting deadline shortened",
    "Reporting to the {role} made quarterly",
)


def build_version_history(ctx: DocContext, rng: Rng) -> list[Block]:
    """Version | Date | Author | Summary of changes, oldest first: versions and dates ascending, the last the
    version in force."""
    p = policy(ctx, rng)
    book = ctx.book
    bid = book.block_id()
    summaries = rng.sample(CHANGE_SUMMARIES, len(p.versions))
    majors = [f"Full review of the requirements on {p.topic}", "Restructured after the annual review",
              f"Rewritten to cover {rng.choice(ctx.domain.topics)}"]
    rows = []
    for i, (version, d, author) in enumerate(p.versions):
        if version.startswith("0."):
            summary = "Draft for consultation" if i == 0 else "Revised draft after consultation"
        elif i == 0:
            summary = "First issue" if version == "1.0" else summaries[0].format(
                topic=p.topic, dept=rng.choice(ctx.domain.departments), role=p.approver[0])
        elif version.endswith(".0") and not p.versions[i - 1][0].startswith("0."):
            summary = majors.pop(0) if majors else f"Periodic review of version {p.versions[i - 1][0]}"
        elif version == "1.0":
            summary = "Approved for first issue"
        else:
            summary = summaries[i].format(topic=p.topic, dept=rng.choice(ctx.domain.departments),
                                          role=p.approver[0])
        label = "Current version of the policy" if i == len(p.versions) - 1 else \
            f"Version of the {ORDINALS[i]} issue of the policy"
        fv = book.text(label, version, group=bid, attribute="version")
        fd = book.date(f"Issue date of version {version} of the policy", d, group=bid, attribute="version_date")
        fa = book.person(f"Author of version {version} of the policy", author, group=bid, attribute="author")
        fsm = book.text(f"Summary of the changes in version {version} of the policy", summary, group=bid,
                        attribute="change_summary")
        rows.append([fs(fv), fs(fd), fs(fa), fs(fsm)])
    caption = _caption(ctx, ["Version history", "Document control", "Revision history"], _exhibits_numbered(ctx))
    return [TableBlock(id=bid, caption=caption, columns=["Version", "Date", "Author", "Summary of changes"],
                       rows=rows)]


def build_review_date(ctx: DocContext, rng: Rng) -> list[Block]:
    """Who approved the policy and when (the last version's date), when it will be reviewed (that date plus
    the review interval) and who owns it."""
    p = policy(ctx, rng)
    book = ctx.book
    bid = book.block_id()
    (a_role, approver), (o_role, owner) = p.approver, p.owner
    fa = book.person("Approver of the policy", approver, group=bid, attribute="approver")
    fd = book.date("Approval date of the policy", p.approved, group=bid, attribute="approval_date")
    fr = book.date("Date by which the policy will be reviewed", _add_months(p.approved, p.interval), group=bid,
                   attribute="review_date")
    interval, q_interval = registers.policy_term(ctx, p.topic, "review")
    fi = book.number("Review interval of the policy", interval, "months", quantity="duration", group=bid,
                     attribute="review_interval", query=q_interval)
    fo = book.person("Owner of the policy", owner, group=bid, attribute="policy_owner")
    return [TextBlock(id=bid, spans=[
        lit("This policy was approved by "), fs(fa), lit(f", {a_role}, on "), fs(fd),
        lit(" and will be reviewed by "), fs(fr), lit(", "), fs(fi),
        lit(" months after its approval. The policy owner is "), fs(fo),
        lit(f" ({o_role}), to whom questions and requests for exceptions should be addressed.")])]


# ================================================================ audit memo

def internal_auditor(ctx: DocContext, rng: Rng) -> Entity:
    """The internal auditor of the document: the cast's, else a new Head of Internal Audit."""
    return ctx.remember(("internal_auditor",), lambda: next((p for p in ctx.people if "Internal Audit" in p.role),
                                                             None) or role_holder(ctx, rng, "Head of Internal Audit"))


def audit_topic(ctx: DocContext, rng: Rng) -> str:
    return ctx.remember(("audit", "topic"), lambda: rng.choice(ctx.domain.topics))


def build_memo_header(ctx: DocContext, rng: Rng) -> list[Block]:
    """The memo's header: to, from (internal audit), copy, date, subject, reference and the audit period (the
    period the memo covers, as the document states it elsewhere)."""
    book = ctx.book
    noun = ctx.recipe.this_noun
    auditor = internal_auditor(ctx, rng)
    others = [p for p in ctx.people if p.id != auditor.id]
    to = ctx.remember(("memo", "to"), lambda: rng.choice(others))
    _, start, end = ctx.remember("doc_reference_details", lambda: (
        f"{rng.integers(1, 5)}.{rng.integers(0, 10)}", ctx.day(-rng.integers(90, 370)),
        ctx.day(-rng.integers(1, 60))))
    title = _caption(ctx, ["Memorandum", "Internal Audit Memorandum"], False)
    bid = book.block_id()
    fields = [FormField(label="To", field_type="person",
                        value=fs(book.person(f"Addressee of {noun}", to, group=bid, attribute="addressee"))),
              FormField(label="From (Internal Audit)", field_type="person",
                        value=fs(book.person(f"Author of {noun}", auditor, group=bid, attribute="author")))]
    copy = [p for p in others if p.id != to.id]
    if copy and rng.bernoulli(0.6):
        cc = rng.choice(copy)
        fields.append(FormField(label="Copy to", field_type="person",
                                value=fs(book.person(f"Person copied on {noun}", cc, group=bid,
                                                     attribute="copy_to"))))
    fields += [
        FormField(label="Date", field_type="date",
                  value=fs(book.date(f"Issue date of {noun}", ctx.anchor, group=bid, attribute="issue_date"))),
        FormField(label="Subject", value=fs(book.text(f"Subject of {noun}",
                                                      f"Internal audit of {audit_topic(ctx, rng)}", group=bid,
                                                      attribute="subject"))),
        FormField(label="Reference", field_type="identifier",
                  value=fs(book.ident(f"Reference number of {noun}", ctx.doc_reference(), scheme="reference",
                                      group=bid))),
        FormField(label="Audit period from", field_type="date",
                  value=fs(book.date(f"Start of the period covered by {noun}", start, group=bid,
                                     attribute="period_start"))),
        FormField(label="Audit period to", field_type="date",
                  value=fs(book.date(f"End of the period covered by {noun}", end, group=bid,
                                     attribute="period_end"))),
    ]
    return [FormBlock(id=bid, title=title, fields=fields)]


OBSERVATIONS = (
    "{Dept} reconciliations not reviewed on time",
    "User access to {dept} systems not recertified",
    "Approval limits for {topic} not enforced",
    "No documented procedure for {topic}",
    "Segregation of duties gap in {dept}",
    "Exceptions on {topic} not followed up",
    "Supporting evidence missing for {item} sample",
    "Policy on {topic} overdue for review",
    "Management reporting on {topic} incomplete",
    "Third-party contracts of {dept} not on file",
    "'{check}' not evidenced for sampled items",
)
RATINGS = ("High", "Medium", "Low")
AGREED_WITHIN = {"High": (14, 60), "Medium": (30, 120), "Low": (60, 180)}
"""Days after the memo within which management agrees to act, by rating."""


def build_audit_observations(ctx: DocContext, rng: Rng) -> list[Block]:
    """Ref | Observation | Rating | Owner | Agreed date (after the memo), most severe first; then the counts
    by rating (each the count of that rating in the table) and their total (the sum of the three)."""
    book = ctx.book
    d = ctx.domain
    noun = ctx.recipe.this_noun
    n = rng.integers(3, 7)
    ratings = sorted((rng.choice(RATINGS, p=[0.25, 0.45, 0.3]) for _ in range(n)), key=RATINGS.index)
    texts = [t.format(Dept=dept, dept=dept, topic=rng.choice(d.topics), item=rng.choice(d.items),
                      check=rng.choice(d.checks))
             for t, dept in zip(rng.sample(OBSERVATIONS, n), rng.shuffled(d.departments * 2), strict=False)]
    bid = book.block_id()
    rows = []
    by_rating: dict[str, list[Fact]] = {r: [] for r in RATINGS}
    for i, (text, rating) in enumerate(zip(texts, ratings, strict=True)):
        ref = f"OBS-{i + 1}"
        fr = book.ident(f"Reference of the {ORDINALS[i]} observation of {noun}", ref, scheme="observation", group=bid,
                        attribute="observation_ref")
        fo = book.text(f"Observation {ref}", text, group=bid, attribute="observation")
        fg = book.text(f"Rating of observation {ref}", rating, group=bid, attribute="rating")
        by_rating[rating].append(fg)
        fw = book.person(f"Owner of observation {ref}", ctx.person(rng), group=bid, attribute="owner")
        lo, hi = AGREED_WITHIN[rating]
        fd = book.date(f"Agreed implementation date for observation {ref}", ctx.day(rng.integers(lo, hi)), group=bid,
                       attribute="agreed_date")
        rows.append([fs(fr), fs(fo), fs(fg), fs(fw), fs(fd)])
    caption = _caption(ctx, ["Summary of audit observations", "Observations and agreed actions",
                             "Audit observations"], _exhibits_numbered(ctx))
    blocks: list[Block] = [TableBlock(id=bid, caption=caption,
                                      columns=["Ref", "Observation", "Rating", "Owner", "Agreed date"], rows=rows)]
    bid = book.block_id()
    counts = []
    for r in RATINGS:
        facts = by_rating[r]
        counts.append(book.number(f"Number of observations rated {r.lower()} in {noun}", Decimal(len(facts)),
                                  "observations", quantity="count", group=bid, attribute=f"{r.lower()}_observations",
                                  derivation=Derivation(op="count", operands=[f.id for f in facts])))
    total = book.number(f"Number of observations raised in {noun}", Decimal(n), "observations", quantity="count",
                        group=bid, attribute="observations",
                        derivation=Derivation(op="sum", operands=[c.id for c in counts]))
    h, m, low = counts
    blocks.append(TextBlock(id=bid, spans=[fs(total), lit(" observations were raised: "), fs(h), lit(" rated high, "),
                                           fs(m), lit(" medium and "), fs(low), lit(" low.")]))
    return blocks


# ================================================================ executive briefing

def _unit_after(f: Fact, name: str = "") -> str:
    """What a sentence writes after a number: its unit (agreeing in number), nothing after money or percent,
    nor a unit the metric's ``name`` already says ("178 complaints", never "Complaints ... 178 complaints")."""
    v = f.value
    if v.kind != "number" or not v.unit:
        return ""
    if v.unit == PERCENTAGE_POINTS:
        return " percentage points"
    words = {w.lower() for w in name.split()}
    if v.unit.lower() in words or singular(v.unit).lower() in words:
        return ""
    return f" {unit_for_count(v.unit, float(v.value)) if f.quantity == 'count' else v.unit}"


def _message(ctx: DocContext, rng: Rng, bid: str, metric: Metric, item: str | None, p1: str, p2: str
             ) -> list[Span] | None:
    """One key message: ``metric`` for ``p2`` (the whole's total, or one item's value), the change stated the
    way the document's tables state it (``tables.change_mode``) and the earlier value; None when the change is
    not one to state (from zero, or implausibly large)."""
    if item is None:
        a, b = whole(ctx, metric, p1)[1], whole(ctx, metric, p2)[1]
    else:
        a, b = ctx.metric_value(metric, item, p1), ctx.metric_value(metric, item, p2)
    mode = change_mode(metric)
    if a == 0 or (mode == "pct" and abs(pct_change(a, b)) > MAX_CHANGE):
        return None
    lc = lower_common(metric.name)
    if item is None:
        every = list(ctx.domain.items)
        fa = metric_fact(ctx, metric, a, f"Total {lc} in {p1}", attribute=metric.slug, period=p1, group=bid,
                         items=every)
        fb = metric_fact(ctx, metric, b, f"Total {lc} in {p2}", attribute=metric.slug, period=p2, group=bid,
                         items=every)
        change = change_span(ctx, metric, mode, fa, fb, "the total", p1, p2, bid, "")
        who = ""
    else:
        fa = metric_fact(ctx, metric, a, f"{metric.name} of {item} in {p1}", attribute=metric.slug, period=p1,
                         group=bid, items=item)
        fb = metric_fact(ctx, metric, b, f"{metric.name} of {item} in {p2}", attribute=metric.slug, period=p2,
                         group=bid, items=item)
        change = change_span(ctx, metric, mode, fa, fb, item, p1, p2, bid, "")
        who = f" for {item}"
    fc = ctx.book.by_id[change.fact_ids[0]]
    at = metric.behaviour in ("stock", "cumulative")
    when2, when1 = (f"at the end of {p2}", f"at the end of {p1}") if at else (f"in {p2}", f"in {p1}")
    if item is None and not at and metric.quantity in ("amount", "duration", "count"):
        head = [lit(f"{metric.name} for {p2} {'reached' if b > a else 'came to'} ")]
    else:
        head = [lit(f"{metric.name}{who} {when2} {'stood at' if at else 'was'} ")]
    name = metric.name
    spans = head + [fs(fb), lit(_unit_after(fb, name))]
    if numeric_value(fc) > 0:
        spans += [lit(", up "), change, lit(_unit_after(fc, name) + " on "), fs(fa),
                  lit(f"{_unit_after(fa, name)} {when1}.")]
    else:
        spans += [lit(", compared with "), fs(fa), lit(f"{_unit_after(fa, name)} {when1} ("), change,
                  lit(_unit_after(fc, name) + ").")]
    return [s for s in spans if s.text]


def numeric_value(f: Fact) -> Decimal:
    v = f.value
    return v.amount if v.kind == "money" else v.value


def build_key_messages(ctx: DocContext, rng: Rng) -> list[Block]:
    """3-5 key messages, each one metric for the latest period with its change on the earlier one (values
    from the document's trajectories, so they agree with its tables; the change is a percent change, or a
    difference in percentage points or in the unit, of the two values printed in the message)."""
    d = ctx.domain
    p1, p2 = ctx.periods(rng)
    bid = ctx.book.block_id()
    candidates: list[tuple[Metric, str | None]] = []
    metrics = rng.shuffled(d.metrics)
    for m in metrics:
        candidates.append((m, None) if summable(m) else (m, rng.choice(d.items)))
    for m in metrics:  # an item's own figure, where the totals are not enough
        candidates += [(m, item) for item in rng.sample(d.items, 2) if (m, item) not in candidates]
    want = rng.integers(3, 6)
    items: list[list[Span]] = []
    for m, item in candidates:
        if len(items) >= want:
            break
        spans = _message(ctx, rng, bid, m, item, p1, p2)  # None (and no fact made) when there is no change to state
        if spans is not None:
            items.append(spans)
    return [ListBlock(id=bid, title="Key messages", items=items)]


def build_decisions_requested(ctx: DocContext, rng: Rng) -> list[Block]:
    """2-4 decisions asked of the leadership team, in order: what is asked, the amount where it is a spend,
    the date the decision is needed by (after the briefing) and its sponsor."""
    d = ctx.domain
    book = ctx.book
    used = ctx.used("actions")
    topic, topic2 = rng.sample(d.topics, 2)
    dept = rng.choice(d.departments)
    item = rng.choice(d.items)
    year = ctx.year + 1
    asks: list[tuple[str, tuple[float, float] | None]] = [  # the spend asked: a range of the trade's money
        (f"Approve capital expenditure for {_the_item(ctx, item)}", (0.02, 0.2)),
        (f"Approve the {year} budget of the {dept} function", (0.05, 0.4)),
        (f"Endorse the revised targets for {topic}", None),
        (f"Release contingency funding for the {topic2} programme", (0.01, 0.08)),
        (f"Confirm the risk appetite for {topic2}", None),
        (f"Agree the {dept} headcount plan for {year}", None),
    ]
    free = [a for a in d.actions if a not in used]
    if free:
        act = rng.choice(free)
        asks.append((f"Approve the business case to {_lc_first(act)}", (0.01, 0.1)))
    chosen = rng.sample(asks, rng.integers(2, 5))
    for ask, _ in chosen:
        if ask.startswith("Approve the business case to "):
            used.add(next(a for a in d.actions if ask.endswith(_lc_first(a))))
    bid = book.block_id()
    sponsors = rng.shuffled(ctx.people)
    due = sorted(rng.integers(7, 75) for _ in chosen)
    items = []
    for i, ((ask, amount), days) in enumerate(zip(chosen, due, strict=True)):
        what = _lc_first(ask)
        fq = book.text(f"Decision {i + 1} requested of the leadership team", ask, group=bid,
                       attribute="decision_requested")
        spans: list[Span] = [fs(fq)]
        if amount is not None:  # what the issuer's world holds for the ask, drawn by it
            asked, q_asked = level(ctx, "governance.decision_amount", ask,
                                   lambda r, lo=amount[0], hi=amount[1]: _spend(ctx, r, lo, hi))
            fa = book.money(f"Amount requested for the decision to {what}", asked, decimals=0, group=bid,
                            attribute="amount_requested", query=q_asked)
            spans += [lit(": "), fs(fa)]
        fd = book.date(f"Date by which the decision to {what} is needed", ctx.day(days), group=bid,
                       attribute="decision_by")
        sponsor = sponsors[i % len(sponsors)]
        fs_ = book.person(f"Sponsor of the decision to {what}", sponsor, group=bid, attribute="sponsor")
        spans += [lit(". Decision needed by "), fs(fd), lit("; sponsor: "), fs(fs_), lit(f", {sponsor.role}.")]
        items.append(spans)
    return [ListBlock(id=bid, ordered=True, title="Decisions requested", items=items)]


BLOCKS: dict[str, Builder] = {
    "attendance": build_attendance,
    "resolutions": build_resolutions,
    "action_log": build_action_log,
    "next_meeting": build_next_meeting,
    "contract_parties": build_contract_parties,
    "contract_clauses": build_contract_clauses,
    "service_levels": build_service_levels,
    "pricing_schedule": build_pricing_schedule,
    "signature_block": build_signature_block,
    "definitions": build_definitions,
    "roles": build_roles,
    "procedure_steps": build_procedure_steps,
    "version_history": build_version_history,
    "review_date": build_review_date,
    "memo_header": build_memo_header,
    "audit_observations": build_audit_observations,
    "key_messages": build_key_messages,
    "decisions_requested": build_decisions_requested,
}
