"""Paragraphs planned from the issuer's world: every sentence states a fact of it.

A body paragraph is about one subject, a measure of one item over two comparable periods, and follows a
discourse plan (``MOVES``): what happened (the item's figure), against what (the earlier period, then the
other items), why (the driver the world derives the measure from, where it has one) and what follows (an
action of the domain with its owner and due date). Every figure is a fact whose value is a query of the
issuer's world (``tables.metric_fact``), or a derivation of such facts (a change, a share), so the paragraph
says what the tables of any document of the issuer say, and questions can be asked of it. The words are data
(``catalogue/discourse.yaml``), by register: a report's voice, a research report's "we", minutes' "the
committee noted".

A document discusses a subject once (``ctx.remember("discussed")``): no two paragraphs state the same figures,
so no sentence of figures is printed twice.
"""

from __future__ import annotations

import re
from string import Formatter
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field

from synthdocqa.generation.catalogue import Entry, load
from synthdocqa.generation.catalogue import template as template_type
from synthdocqa.ir.arithmetic_rules import PERCENTAGE_POINTS, unit_for_count
from synthdocqa.ir.blocks import Span, TextBlock
from synthdocqa.ir.facts import Derivation, Fact
from synthdocqa.ir.rng import Rng

from . import standing
from .book import SKELETON_MAX, DocContext, fs, lit
from .tables import (
    MAX_CHANGE,
    action_owner_and_due,
    change_mode,
    change_span,
    metric_fact,
    pct_change,
    summable,
    whole,
)
from .wording import BE, lower_common, plural, verb

WORDS = ("item", "metric_lc", "Metric", "kind", "kinds", "n", "role", "p0", "p1")


CHOICE = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")
"""A choice of words in a template: ``[reported|recorded]``."""


def expand(template: str) -> list[str]:
    """Every combination of a template's choices of words, in order: ``"a [b|c] d [e|f]"`` -> ``["a b d e",
    "a b d f", "a c d e", "a c d f"]``."""
    m = CHOICE.search(template)
    if m is None:
        return [template]
    return [s for word in m.group(1).split("|") for s in expand(template[:m.start()] + word + template[m.end():])]


def expanded(pool: object) -> object:
    """A pool's templates with their word choices expanded (``expand``); anything else as it is."""
    if not isinstance(pool, (list, tuple)):
        return pool
    return tuple(s for t in pool for s in (expand(t) if isinstance(t, str) else [t]))  # (a non-string fails later)


def _pool(*facts: str, words: tuple[str, ...] = WORDS) -> object:
    return Annotated[tuple[template_type(*words, once=facts), ...], Field(min_length=1),  # type: ignore[misc]
                     BeforeValidator(expanded)]


class RegisterText(Entry):
    """The sentences of one register, by move (see ``catalogue/discourse.yaml``)."""

    happened: _pool("v1")
    against_up: _pool("v0", "change")
    against_down: _pool("v0", "change")
    against_flat: _pool("v0")
    share: _pool("share", "total")
    top: _pool("low_value", words=(*WORDS, "low"))
    behind: _pool("top_value", words=(*WORDS, "top"))
    cause: _pool("d0", "d1", words=(*WORDS, "driver_lc"))
    follows: _pool("owner", "due", words=(*WORDS, "action_lc"))
    followed: _pool("owner", "due", words=(*WORDS, "action_lc"))
    pair: _pool("v1", "v2", words=(*WORDS, "item2"))
    gap: _pool("gap", words=(*WORDS, "item2"))
    trend: _pool("q1", "q2", "q3", "q4", words=(*WORDS, "q_first", "q_last"))
    trend_peak: _pool(words=(*WORDS, "q_first", "q_last", "q_peak"))
    ranking: _pool("va", "vb", "vc", words=(*WORDS, "a", "b", "c", "z"))
    ranking_low: _pool("vz", words=(*WORDS, "a", "b", "c", "z"))


class Plans(Entry):
    kinds: dict[Literal["movement", "pair", "trend", "ranking"], Annotated[float, Field(ge=0)]]
    moves: dict[Literal["peers", "cause", "follows"], Annotated[float, Field(ge=0, le=1)]]


class DiscourseText(Entry):
    participles: frozenset[str]
    plans: Plans
    registers: dict[str, RegisterText]


TEXT = load("discourse.yaml", DiscourseText)
KINDS = {k: TEXT.plans.kinds.get(k, 0.0) for k in ("movement", "pair", "trend", "ranking")}
"""The kinds of paragraph by weight (``catalogue/discourse.yaml``, ``plans.kinds``)."""
MOVE_P = {k: TEXT.plans.moves.get(k, 1.0) for k in ("peers", "cause", "follows")}
"""How often a movement paragraph makes each later move."""

TEXT_FACTS = "text_facts"
"""``ctx.memo`` key: False where the document's element mix has no text (``CorpusSpec.element_mix``), so its
paragraphs print the world's figures as plain words and no question is asked of them."""

MOVES = ("happened", "against", "peers", "cause", "follows")
"""A paragraph's plan, in order; a paragraph of ``n`` sentences makes the first moves that apply."""


def _register(ctx: DocContext) -> RegisterText:
    return TEXT.registers.get(ctx.recipe.slug, TEXT.registers["report"])


def _with_unit(f: Fact, metric) -> list[Span]:
    """A figure as a sentence prints it: the fact's span, then its unit where the value carries one that the
    text does not show (``780 hours``)."""
    from .prose_text import with_unit  # the one rule for units in sentences (prose_text imports this module)
    v = f.value
    if getattr(v, "unit", "") == PERCENTAGE_POINTS:
        return [fs(f), lit(" percentage points")]
    said = with_unit(f)
    unit = said[len(f.text):]
    if unit and f.text.lstrip("+-") == "1" and getattr(v, "unit", ""):  # "a change of 1 point", but "1.0 points"
        unit = " " + unit_for_count(v.unit, 1.0)
    if unit and unit.strip().lower() in metric.name.lower():  # "deviations of 3", not "of 3 deviations" twice
        return [fs(f)]
    return [fs(f)] + ([lit(unit)] if unit else [])


def participle(measure: str) -> bool:
    """Whether a measure's name ends in a participle ("exceptions found", "claims paid"): it is not said as
    "<measure> of <value>"."""
    last = measure.rsplit(" ", 1)[-1].lower()
    return " " in measure and (last.endswith("ed") or last in TEXT.participles)


def _pick(ctx: DocContext, rng: Rng, pool: tuple[str, ...], measure: str = "") -> str | None:
    """A template of the move's ``pool`` by ``DocContext.template`` (least used first, never a third time: None
    then, and the move is not made). For a ``measure`` named with a participle, the templates that say
    "<measure> of <value>" are left out where others remain."""
    if measure and participle(measure):
        pool = tuple(t for t in pool if "{metric_lc} of {" not in t) or pool
    return ctx.template(rng, pool)


NAMED_SUBJECTS = re.compile(r"\{(item2?|top|low|a|z)\} ([a-z]+)\b")
"""A slot holding an item's name, and the word after it: the verb when the name is the subject."""


def _agreeing(template: str, words: dict[str, object]) -> str:
    """``template`` with each present-tense verb after an item's name agreeing with the name (``wording.verb``):
    "Contractors lead by 292", "Gearboxes record", "Interns were ahead"; a past tense needs nothing."""
    def fix(m: re.Match) -> str:
        name, word = words.get(m.group(1)), m.group(2)
        if not isinstance(name, str) or not (word in BE or word.endswith("s")) or word.endswith("ss"):
            return m.group(0)
        return "{" + m.group(1) + "} " + verb(name, word)
    return NAMED_SUBJECTS.sub(fix, template)


def sentence(template: str | None, facts: dict[str, list[Span]], words: dict[str, object]) -> list[Span]:
    """``template`` as spans: each fact placeholder its spans, the words between them literal text (none for
    no template: ``_pick`` found every one of the move said twice)."""
    out: list[Span] = []
    if template is None:
        return out
    template = _agreeing(template, words)
    text = ""
    for literal, name, _, _ in Formatter().parse(template):
        text += literal
        if name is None:
            continue
        if name in facts:
            if text:
                out.append(lit(text))
                text = ""
            out.extend(facts[name])
        else:
            text += str(words[name])
    if text:
        out.append(lit(text))
    return out


def _subjects(ctx: DocContext) -> list[tuple[object, str]]:
    """The (measure, item) pairs of the domain a paragraph can be about, in the catalogue's order."""
    return [(m, item) for m in ctx.domain.metrics for item in ctx.domain.items]


def _period_pairs(ctx: DocContext) -> list[tuple[str, str]]:
    """The (earlier, later) periods a paragraph can compare, all complete as at the document's date: the last
    year against the one before, the last two halves and the last four quarters each against a year before
    (quarters only, in a document that reports on a quarter)."""
    cal = ctx.cal
    quarters = [(cal.year_ago(q), q) for q in reversed(cal.quarters(8))]  # the last two years' quarters
    if ctx.by_quarter:
        return quarters
    h = cal.half()
    halves = [h, cal.previous(h), cal.previous(cal.previous(h)), cal.previous(cal.previous(cal.previous(h)))]
    return [(str(cal.fy - 1), str(cal.fy)), *((cal.year_ago(x), x) for x in halves[:2]), *quarters[:4],
            (str(cal.fy - 2), str(cal.fy - 1)), *((cal.year_ago(x), x) for x in halves[2:]), *quarters[4:]]


def _driver(ctx: DocContext, metric):
    """The measure of the same domain the world derives ``metric`` from (``per`` relations), or None."""
    from synthdocqa.generation.world import relation_spec
    if ctx.world is None:
        return None
    spec = relation_spec(ctx.world.trade, metric)
    if spec is None or not spec.per:
        return None
    return next((m for m in ctx.domain.metrics if m.name == spec.per), None)


OPENING_MOVES = ("happened", "pair", "trend", "ranking")
"""The moves that open a paragraph (one of each kind): how many paragraphs are left is how often they can
still be said."""


def paragraphs_left(ctx: DocContext) -> int:
    """How many more paragraphs of figures the document can write before a skeleton would be said a third
    time (``DocContext.template``): the unused sayings of the moves that open a paragraph."""
    text, used = _register(ctx), ctx.template_uses()
    return sum(max(0, SKELETON_MAX - used.get(t, 0)) for move in OPENING_MOVES for t in getattr(text, move))


def paragraph(ctx: DocContext, rng: Rng, n_sentences: int, metric=None) -> TextBlock | None:
    """A paragraph of up to ``n_sentences`` (at least two) on a subject not yet discussed in the document (of
    ``metric`` where given and one is left), each sentence stating facts of the world. None when the domain
    has no subject left (every measure of every item discussed) or no measure with two periods to compare."""
    spans = sentences(ctx, rng, n_sentences, metric)
    if not spans:
        return None
    bid = ctx.memo.pop("discourse_bid")
    return TextBlock(id=bid, spans=spans, running=True)


def sentences(ctx: DocContext, rng: Rng, n_sentences: int, metric=None, bid: str | None = None,
              role: str | None = None) -> list[Span]:
    """The spans of a planned paragraph (``paragraph``); ``bid``: the block that will hold them (a new one by
    default, left in ``ctx.memo["discourse_bid"]``). The paragraph's kind is drawn by ``KINDS`` weights among
    those with a subject left (a measure's movement, two items side by side, an item's quarters, the items
    ranked); a movement where the drawn kind has none. Sentences already printed in the document are left out."""
    ctx.memo["discourse_role"] = role or rng.choice(ctx.domain.roles)  # one speaker a paragraph (minutes' item)
    literal = not ctx.memo.get(TEXT_FACTS, True)
    point = ctx.checkpoint() if literal else None
    own_bid = bid is None
    text = _register(ctx)
    kinds = [k for k in KINDS if k != "movement"]
    drawn = rng.choice(["movement", *kinds], p=[KINDS["movement"], *(KINDS[k] for k in kinds)])
    out: list[list[Span]] = []
    for kind in dict.fromkeys((drawn, "movement")):
        subject = SUBJECTS[kind](ctx, rng, metric)
        if subject is None:
            continue
        if bid is None:
            bid = ctx.book.block_id()
            ctx.memo["discourse_bid"] = bid
        point = ctx.checkpoint()
        out = WRITERS[kind](ctx, rng, text, subject, max(1, n_sentences), bid)
        if out:
            metric = subject[0]
            break
        ctx.rollback(point)  # a kind whose templates are all said twice writes nothing (nor keeps its facts)
    for _ in range(2):  # a paragraph short of its length goes on to another item of the same measure
        if not out or len(out) >= n_sentences - 1:
            break
        subject = _movement_subject(ctx, rng, metric)
        if subject is None or subject[0] is not metric:
            break
        out += _movement(ctx, rng, text, subject, n_sentences - len(out), bid)
    spans: list[Span] = []
    for k, sent in enumerate(out):
        if k:
            spans.append(lit(" "))
        spans.extend(sent)
    if literal and point is not None:  # the same words, with no facts behind them
        said = "".join(x.text for x in spans)
        printed, uses = set(ctx.used("sentence")), dict(ctx.template_uses())
        ctx.rollback(point)  # the facts go; what was said stays said
        ctx.used("sentence").update(printed)
        ctx.template_uses().update(uses)
        if own_bid and said:
            ctx.memo["discourse_bid"] = ctx.book.block_id()
        return [lit(said)] if said else []
    return _merged(spans)


def _say(ctx: DocContext, out: list[list[Span]], make) -> bool:
    """Add the sentence ``make()`` builds to ``out`` unless it is empty or the document has printed it already:
    then forget the facts it made (``DocContext.rollback``), so no fact is left that the page does not print."""
    point = ctx.checkpoint()
    said = make()
    text = "".join(x.text for x in said) if said else ""
    printed: set[str] = ctx.used("sentence")  # never a sentence of the text printed twice
    if not said or text in printed:
        ctx.rollback(point)
        return False
    printed.add(text)
    out.append(said)
    return True


def _words(ctx: DocContext, rng: Rng, m, item: str, p0: str, p1: str) -> dict[str, object]:
    d = ctx.domain
    return dict(item=item, metric_lc=lower_common(m.name), Metric=m.name, kind=d.item_kind, kinds=plural(d.item_kind),
                n=len(d.items), role=ctx.memo.get("discourse_role") or rng.choice(d.roles), p0=p0, p1=p1)


def _fact(ctx: DocContext, m, item: str, period: str, bid: str) -> Fact:
    """The world's value of ``m`` for ``item`` over ``period`` as a fact of the paragraph ``bid``: one fact per
    value a paragraph states, however many of its sentences state it (one made by a sentence that was then
    forgotten is made again)."""
    made: dict = ctx.remember(("discourse_facts", bid), dict)
    f = made.get((m.name, item, period))
    if f is not None and ctx.book.by_id.get(f.id) is f:
        return f
    f = metric_fact(ctx, m, ctx.metric_value(m, item, period), f"{m.name} of {item} in {period}",
                    attribute=m.slug, period=period, group=bid, items=item)
    made[(m.name, item, period)] = f
    return f


def _movement_subject(ctx: DocContext, rng: Rng, metric):
    """A measure of one item over two periods not yet discussed, whose figures exist in both (moved ones first)."""
    discussed: set = ctx.remember("discussed", set)
    first = ctx.periods(rng.fork("periods"))
    pairs = [first, *(p for p in _period_pairs(ctx) if p != first)]
    for flat_ok, (p0, p1) in ((f, p) for f in (False, True) for p in pairs):
        # the document's own periods first, earlier halves and quarters once those are said; unchanged figures last
        for only in ((metric,) if metric is not None else ()) + (None,):
            pool = [(m, i) for m, i in _subjects(ctx) if (m.name, i, p1) not in discussed and only in (None, m)]
            for k in rng.shuffled(range(len(pool)))[:12]:
                m, item = pool[k]
                v1, v0 = ctx.metric_value(m, item, p1), ctx.metric_value(m, item, p0)
                wild = bool(v0) and change_mode(m) == "pct" and abs(pct_change(v0, v1)) > MAX_CHANGE
                if v1 and v0 and not wild and (v1 != v0 or flat_ok):  # one that moved says more than one that did not
                    discussed.add((m.name, item, p1))
                    return m, item, p0, p1, v0, v1
    return None


def _movement(ctx: DocContext, rng: Rng, text: RegisterText, subject, n: int, bid: str) -> list[list[Span]]:
    """What happened to the item's measure, against the earlier period, against the other items, why (the
    world's driver) and what follows (an action): the later moves each by chance, at most ``n`` sentences."""
    m, item, p0, p1, v0, v1 = subject
    words = _words(ctx, rng, m, item, p0, p1)
    out: list[list[Span]] = []
    made: list[Fact] = []

    def happened() -> list[Span]:
        made.append(_fact(ctx, m, item, p1, bid))
        return sentence(_pick(ctx, rng, text.happened, m.name), {"v1": _with_unit(made[0], m)}, words)

    if not _say(ctx, out, happened):  # the paragraph's figure: kept with its sentence, or the paragraph goes
        return []
    f1 = made[0]

    def against() -> list[Span]:
        f0 = _fact(ctx, m, item, p0, bid)
        way = "against_up" if v1 > v0 else "against_down" if v1 < v0 else "against_flat"
        facts = {"v0": _with_unit(f0, m)}
        if way != "against_flat":
            change = change_span(ctx, m, change_mode(m), f0, f1, item, p0, p1, bid, "")
            if not change.fact_ids:  # no percent change from nothing
                return []
            facts["change"] = _with_unit(ctx.book.by_id[change.fact_ids[0]], m)
        return sentence(_pick(ctx, rng, getattr(text, way)), facts, words)

    if len(out) < n:
        _say(ctx, out, against)
    if len(out) < n and rng.bernoulli(MOVE_P["peers"]):
        _say(ctx, out, lambda: _peers(ctx, rng, text, m, item, p1, f1, bid, words))
    driver = _driver(ctx, m) if len(out) < n and rng.bernoulli(MOVE_P["cause"]) else None

    def cause() -> list[Span]:
        g1, g0 = _fact(ctx, driver, item, p1, bid), _fact(ctx, driver, item, p0, bid)
        if not (_amount(g0) and _amount(g1)) or _amount(g0) == _amount(g1):  # a driver that did not move explains
            return []  # nothing ("went from 6 to 6")
        return sentence(_pick(ctx, rng, text.cause), {"d0": _with_unit(g0, driver), "d1": _with_unit(g1, driver)},
                        {**words, "driver_lc": lower_common(driver.name)})

    if driver is not None:
        _say(ctx, out, cause)
    if len(out) < n and _assigns(ctx) and rng.bernoulli(MOVE_P["follows"]):
        _say(ctx, out, lambda: _follows(ctx, rng, text, words, bid))
    return out


def _pair_subject(ctx: DocContext, rng: Rng, metric):
    """Two items of one measure in the document's period, not yet set side by side, both with a figure."""
    said: set = ctx.remember("discourse_pairs", set)
    p0, p1 = ctx.periods(rng.fork("periods"))
    metrics = [m for m in ctx.domain.metrics if metric is None or m is metric] or list(ctx.domain.metrics)
    for _ in range(8):
        m = rng.choice(metrics)
        a, b = rng.sample(ctx.domain.items, 2)
        key = (m.name, *sorted((a, b)), p1)
        if key in said:
            continue
        va, vb = ctx.metric_value(m, a, p1), ctx.metric_value(m, b, p1)
        if va and vb and va != vb:
            said.add(key)
            return (m, a, b, p0, p1) if va > vb else (m, b, a, p0, p1)
    return None


def _pair(ctx: DocContext, rng: Rng, text: RegisterText, subject, n: int, bid: str) -> list[list[Span]]:
    """Two items side by side: the larger first, the gap between them, then (by chance) what follows."""
    m, a, b, p0, p1 = subject
    words = {**_words(ctx, rng, m, a, p0, p1), "item2": b}
    out: list[list[Span]] = []
    fa, fb = _fact(ctx, m, a, p1, bid), _fact(ctx, m, b, p1, bid)
    if not _say(ctx, out, lambda: sentence(_pick(ctx, rng, text.pair, m.name), {"v1": _with_unit(fa, m),
                                                                         "v2": _with_unit(fb, m)}, words)):
        return []
    label = f"Difference in {lower_common(m.name)} between {a} and {b} in {p1}"
    if len(out) < n:
        _say(ctx, out, lambda: sentence(_pick(ctx, rng, text.gap),
                                        {"gap": _with_unit(_difference(ctx, m, fa, fb, label, bid), m)}, words))
    if len(out) < n and _assigns(ctx) and rng.bernoulli(MOVE_P["follows"]):
        _say(ctx, out, lambda: _follows(ctx, rng, text, {**words, "item": b}, bid))
    return out


def _trend_subject(ctx: DocContext, rng: Rng, metric):
    """One item's measure over the four quarters to the last complete one, not yet traced, all with figures."""
    said: set = ctx.remember("discourse_trends", set)
    quarters = ctx.cal.quarters(4)
    metrics = [m for m in ctx.domain.metrics if metric is None or m is metric] or list(ctx.domain.metrics)
    for _ in range(8):
        m, item = rng.choice(metrics), rng.choice(ctx.domain.items)
        if (m.name, item) in said:
            continue
        values = [ctx.metric_value(m, item, q) for q in quarters]
        if all(values) and len(set(values)) > 1:
            said.add((m.name, item))
            return m, item, quarters
    return None


def _trend(ctx: DocContext, rng: Rng, text: RegisterText, subject, n: int, bid: str) -> list[list[Span]]:
    """An item's four quarters, then its peak quarter."""
    m, item, quarters = subject
    words = {**_words(ctx, rng, m, item, quarters[0], quarters[-1]), "q_first": quarters[0], "q_last": quarters[-1]}
    out: list[list[Span]] = []
    facts = [_fact(ctx, m, item, q, bid) for q in quarters]
    if not _say(ctx, out, lambda: sentence(_pick(ctx, rng, text.trend, m.name),
                                           {f"q{k + 1}": _with_unit(f, m) for k, f in enumerate(facts)}, words)):
        return []
    if len(out) < n:
        k = max(range(4), key=lambda k: (_amount(facts[k]), -k))
        _say(ctx, out, lambda: sentence(_pick(ctx, rng, text.trend_peak), {}, {**words, "q_peak": quarters[k]}))
    return out


def _ranking_subject(ctx: DocContext, rng: Rng, metric):
    """A measure's items ranked in the document's period (once a document per measure and period)."""
    said: set = ctx.remember("discourse_led", set)
    if len(ctx.domain.items) < 4:
        return None
    p0, p1 = ctx.periods(rng.fork("periods"))
    metrics = [m for m in ctx.domain.metrics if metric is None or m is metric] or list(ctx.domain.metrics)
    for m in rng.shuffled(metrics):
        if (m.name, p1) in said:
            continue
        values, _, _ = whole(ctx, m, p1)
        ranked = sorted(values, key=lambda i: (-values[i], ctx.domain.items.index(i)))
        if values[ranked[2]] > values[ranked[3]] and values[ranked[-1]] < values[ranked[2]]:
            said.add((m.name, p1))  # who leads a measure in a period is said once (``_peers`` too)
            return m, ranked, p0, p1
    return None


def _ranking(ctx: DocContext, rng: Rng, text: RegisterText, subject, n: int, bid: str) -> list[list[Span]]:
    """The three largest items of a measure in the period, then the smallest."""
    m, ranked, p0, p1 = subject
    words = {**_words(ctx, rng, m, ranked[0], p0, p1), "a": ranked[0], "b": ranked[1], "c": ranked[2],
             "z": ranked[-1]}
    out: list[list[Span]] = []
    fa, fb, fc = (_fact(ctx, m, i, p1, bid) for i in ranked[:3])
    if not _say(ctx, out, lambda: sentence(_pick(ctx, rng, text.ranking), {
            "va": _with_unit(fa, m), "vb": _with_unit(fb, m), "vc": _with_unit(fc, m)}, words)):
        return []
    if len(out) < n:
        _say(ctx, out, lambda: sentence(_pick(ctx, rng, text.ranking_low),
                                        {"vz": _with_unit(_fact(ctx, m, ranked[-1], p1, bid), m)}, words))
    return out


def _difference(ctx: DocContext, m, fa: Fact, fb: Fact, label: str, bid: str) -> Fact:
    """``fa`` less ``fb`` in the measure's unit (percentage points for rates), derived from the two."""
    a, b = _amount(fa), _amount(fb)
    der = Derivation(op="difference", operands=[fa.id, fb.id])
    kw = dict(attribute=f"{m.slug}_difference", period=fa.period, group=bid, derivation=der)
    book = ctx.book
    if m.kind == "percent":
        return book.number(f"{label} in percentage points", a - b, PERCENTAGE_POINTS, 1, quantity="rate", **kw)
    if m.kind == "money":
        return book.money(label, a - b, quantity=m.quantity, **kw)
    places = max(-a.as_tuple().exponent, -b.as_tuple().exponent, 0)
    return book.number(label, a - b, m.unit, places, quantity=m.quantity, **kw)


def _amount(f: Fact):
    v = f.value
    return v.amount if v.kind == "money" else v.value


SUBJECTS = {"movement": _movement_subject, "pair": _pair_subject, "trend": _trend_subject,
            "ranking": _ranking_subject}
WRITERS = {"movement": _movement, "pair": _pair, "trend": _trend, "ranking": _ranking}


def _peers(ctx: DocContext, rng: Rng, text: RegisterText, m, item: str, p1: str, f1: Fact, bid: str,
           words: dict) -> list[Span]:
    """The item against the others: its share of the whole where the measure adds up, else the leader (or, for
    the leader, the lowest)."""
    values, total, shares = whole(ctx, m, p1)  # the shares every table of the measure and period prints
    d = ctx.domain
    if summable(m) and total > 0 and values.get(item, 0) > 0 and shares[item] > 0:  # no "its share was 0.0%"
        f_all = metric_fact(ctx, m, total, f"Total {lower_common(m.name)} of the {len(d.items)} {plural(d.item_kind)} "
                            f"in {p1}", attribute=m.slug, period=p1, group=bid, items=list(d.items))
        f_share = ctx.book.percent(f"Share of {item} in the total of {lower_common(m.name)} ({p1})",
                                   shares[item], attribute=f"{m.slug}_share", period=p1, group=bid,
                                   derivation=Derivation(op="share", operands=[f1.id, f_all.id]))
        return sentence(_pick(ctx, rng, text.share), {"share": [fs(f_share)], "total": _with_unit(f_all, m)}, words)
    ranked = sorted(values, key=lambda i: (-values[i], d.items.index(i)))
    led: set = ctx.remember("discourse_led", set)  # who led a measure in a period is said once a document
    if (m.name, p1) in led:
        return []
    led.add((m.name, p1))
    if ranked[0] == item:
        low = ranked[-1]
        f_low = _fact(ctx, m, low, p1, bid)
        return sentence(_pick(ctx, rng, text.top), {"low_value": _with_unit(f_low, m)}, {**words, "low": low})
    top = ranked[0]
    f_top = _fact(ctx, m, top, p1, bid)
    return sentence(_pick(ctx, rng, text.behind), {"top_value": _with_unit(f_top, m)}, {**words, "top": top})


def _assigns(ctx: DocContext) -> bool:
    """Whether the genre's text assigns actions to owners (``catalogue/standing.yaml``, kind ``actions``)."""
    return bool(ctx.domain.actions) and standing.allows(ctx, "actions")


def _follows(ctx: DocContext, rng: Rng, text: RegisterText, words: dict, bid: str) -> list[Span]:
    """An action of the domain with its owner and due date (one owner and date per action in the document; an
    action the text has assigned is not assigned again: empty once all are)."""
    followed: set = ctx.remember("discourse_actions", set)  # an action is assigned once in a document's text
    left = [a for a in ctx.domain.actions if a not in followed]
    if not left:
        return []
    action = rng.choice(left)
    followed.add(action)
    owner, due_d = action_owner_and_due(ctx, rng, action)
    b = ctx.book
    fo = b.person(f"Owner of the action '{action}'", owner, attribute="owner", group=bid)
    fd = b.date(f"Due date of the action '{action}'", due_d, attribute="due_date", group=bid)
    pool = text.follows if due_d >= ctx.anchor else text.followed
    return sentence(_pick(ctx, rng, pool), {"owner": [fs(fo)], "due": [fs(fd)]},
                    {**words, "action_lc": action[:1].lower() + action[1:],
                     "role": owner.role or words["role"]})


def _merged(spans: list[Span]) -> list[Span]:
    """Adjacent literal spans joined (one literal between two facts)."""
    out: list[Span] = []
    for s in spans:
        if out and not s.fact_ids and not out[-1].fact_ids:
            out[-1] = lit(out[-1].text + s.text)
        else:
            out.append(s)
    return out


__all__ = ["MOVES", "paragraph", "sentences", "sentence"]
