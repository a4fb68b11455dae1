"""Content builders: value formats, consistent tables/charts/forms, names, prose, domain data."""

import datetime as dt
import re
from decimal import Decimal

import pytest

from synthdocqa.generation.content import annotations, exhibit_text, figures, forms, prose, tables
from synthdocqa.generation.content.book import DocContext, FactBook
from synthdocqa.generation.content.formats import DocFormat, format_date, percent_text, stamp_date
from synthdocqa.generation.content.names import address, email_for, org_name, person_name
from synthdocqa.generation.domains import DOMAINS, RECIPES, get_domain, get_recipe
from synthdocqa.ir import Rng
from synthdocqa.ir.answers import numeric
from synthdocqa.ir.derivations import derivation_problems as fact_derivation_problems
from synthdocqa.ir.vocab import QUANTITIES
from tests.generation.plan_checks import derivation_problems

SIMPLE = re.compile(r"^[A-Za-z0-9 ,.&'()/:;%+\-]+$")


def make_ctx(currency="USD", date_style="long", decimals=0, domain="logistics", recipe="annual_report"):
    fmt = DocFormat(currency=currency, date_style=date_style, money_decimals=decimals)
    book = FactBook(fmt)
    issuer = book.entity("organisation", "Halcyon Logistics GmbH", role="issuer", **address(Rng(1), "Germany"))
    cps = [book.entity("organisation", n, role="supplier", **address(Rng(i + 2), "United Kingdom"))
           for i, n in enumerate(("Orion Freight", "Summit Carriers Ltd"))]
    people = [book.entity("person", n, role=r, phone="+1 212 555 0134", email=f"{n.split()[0].lower()}@x.example")
              for n, r in (("Dana Whitfield", "Head of Logistics"), ("Kenji Tanaka", "Freight Manager"))]
    return DocContext(domain=get_domain(domain), recipe=get_recipe(recipe), fmt=fmt, book=book, issuer=issuer,
                      counterparties=cps, people=people, year=2026, anchor=dt.date(2026, 3, 14))


def test_money_date_percent_formats():
    usd = DocFormat("USD", "long", 0)
    assert usd.money(Decimal("4200000")) == "$4,200,000"
    assert DocFormat("EUR", "iso", 2).money(Decimal("12450")) == "EUR 12,450.00"
    assert usd.money_compact(Decimal("4.2"), "million") == "$4.2M"
    assert DocFormat("GBP", "long", 0).money_compact(Decimal("350"), "thousand") == "GBP 350K"
    d = dt.date(2026, 3, 4)
    assert [format_date(d, s) for s in ("long", "iso", "us", "short")] == [
        "4 March 2026", "2026-03-04", "March 4, 2026", "4 Mar 2026"]
    assert stamp_date(d) == "04 MAR 2026"
    assert percent_text(Decimal("12.5")) == "12.5%" and percent_text(Decimal("7")) == "7.0%"


def test_fact_text_is_the_formatted_value():
    ctx = make_ctx(currency="EUR", decimals=2)
    f = ctx.book.money("x", Decimal("1234.5"))
    assert f.text == "EUR 1,234.50" and f.value.amount == Decimal("1234.50")
    n = ctx.book.number("y", Decimal("12.34"), "days", places=1, quantity="duration")
    assert n.text == "12.3" and n.value.value == Decimal("12.3") and n.quantity == "duration"
    assert f.quantity == "amount" and ctx.book.percent("z", Decimal(5)).quantity == "rate"
    assert ctx.book.date("d", dt.date(2026, 1, 2)).quantity == "date"


def test_one_table_builder_per_table_kind():
    from synthdocqa.ir.vocab import TABLE_KINDS

    assert sorted(tables.TABLE_BUILDERS) == sorted(TABLE_KINDS)


@pytest.mark.parametrize("kind", sorted(tables.TABLE_BUILDERS))
def test_tables_are_consistent(kind):
    for seed in range(4):
        ctx = make_ctx(decimals=seed % 2 * 2)
        t = tables.TABLE_BUILDERS[kind](ctx, Rng(seed, ["t", kind]), 7)
        assert len(t.rows) >= 3
        assert derivation_problems(_doc_like(ctx)) == []
        if t.total_row:
            total_cells = [s for s in t.rows[-1] if s.fact_ids]
            assert total_cells and all(ctx.book.facts[int(s.fact_ids[0][1:]) - 1].derivation for s in total_cells)


def _doc_like(ctx):
    class Doc:  # the checks only need facts
        def fact_index(self):
            return {f.id: f for f in ctx.book.facts}

        facts = ctx.book.facts

    return Doc()


def test_share_table_shares_match_parts_and_total_is_sum():
    ctx = make_ctx()
    t = tables.share_table(ctx, Rng(3), 6)
    facts = {f.id: f for f in ctx.book.facts}
    total = facts[t.rows[-1][1].fact_ids[0]]
    cells = [facts[r[1].fact_ids[0]] for r in t.rows[:-1]]
    assert numeric(total.value) == sum(numeric(c.value) for c in cells)
    assert total.derivation.op == "sum" and total.derivation.operands == [c.id for c in cells]
    shares = [facts[r[2].fact_ids[0]] for r in t.rows[:-1]]
    assert sum(s.value.value for s in shares) == 100  # one whole: the listed items and the others
    for r, cell, share in zip(t.rows[:-1], cells, shares, strict=True):
        # the others' share too (the remainder of the whole, within the share's tolerance of its exact share)
        assert share.derivation.op == "share" and share.derivation.operands == [cell.id, total.id]
        assert not r[0].text.startswith("Other ") or r is t.rows[-2]
    assert fact_derivation_problems(ctx.book.facts) == []


def test_a_share_of_one_whole_has_one_value_in_tables_and_pies():
    ctx = make_ctx(domain="retail")
    shown: dict[tuple[str, str], set] = {}
    for seed in range(12):
        block = tables.share_table(ctx, Rng(seed, ["s"]), 5) if seed % 2 else figures.pie(ctx, Rng(seed, ["p"]))
        for f in ctx.book.facts:
            if f.label.startswith("Share of ") and not f.label.startswith("Share of the other"):
                who = f.label[len("Share of "):].split(" in ")[0]
                shown.setdefault((who, f.attribute + f.period), set()).add(f.value.value)
        assert block.type == ("table" if seed % 2 else "figure")
    assert shown and all(len(v) == 1 for v in shown.values()), shown


def test_largest_remainder_shares_sum_to_100():
    for parts in ([Decimal(1)] * 3, [Decimal("2.5"), Decimal("7.5")], [Decimal(x) for x in ("1", "1", "1", "1", "1", "1", "1")]):
        shares = figures.largest_remainder_shares(parts)
        assert sum(shares) == Decimal(100)
    assert figures.largest_remainder_shares([Decimal(1)] * 3) == [Decimal("33.4"), Decimal("33.3"), Decimal("33.3")]


@pytest.mark.parametrize("chart", ["bar", "line"])
def test_charts_points_are_value_labels(chart):
    ctx = make_ctx(domain="corporate_finance")
    for seed in range(5):
        fig = figures.bar_or_line(ctx, Rng(seed, [chart]), chart)
        facts = {f.id: f for f in ctx.book.facts}
        for s in fig.series:
            assert len(s.points) == len(fig.categories)
            for p, v in zip(s.points, s.values, strict=True):
                f = facts[p.fact_ids[0]]
                assert p.text == f.text
                if f.value.kind == "money" and f.value.scale:
                    assert f.text.endswith({"million": "M", "thousand": "K"}[f.value.scale])
                    assert float(f.value.amount) == v


def test_form_fields_checkboxes_and_dates_ordered():
    ctx = make_ctx()
    for seed in range(6):
        form = forms.form(ctx, Rng(seed, ["form"]), 7)
        facts = {f.id: f for f in ctx.book.facts}
        labels = [fl.label for fl in form.fields]
        assert labels[:1] == ["Requested by"] and "Reference no." in labels and "Date submitted" in labels
        for cb in form.checkboxes:
            f = facts[cb.fact_ids[0]]
            assert f.value.kind == "boolean" and f.value.value == cb.checked and f.text == cb.label
        by_attr = {facts[fl.value.fact_ids[0]].attribute: facts[fl.value.fact_ids[0]] for fl in form.fields}
        if "decision_date" in by_attr:
            assert by_attr["submitted"].value.value < by_attr["decision_date"].value.value


def test_annotations_own_facts_and_highlight_needs_a_target():
    ctx = make_ctx()
    kinds = set()
    for seed in range(30):
        a = annotations.annotation(ctx, Rng(seed, ["ann"]), ["b001"])
        kinds.add(a.kind)
        assert any(s.fact_ids for s in a.spans)
        if a.kind == "highlight":
            assert a.target_block_id == "b001"
        if a.kind == "stamp":
            assert re.fullmatch(r"[A-Z]+ \d\d [A-Z]{3} \d{4}", "".join(s.text for s in a.spans))
    assert kinds == {"stamp", "handwritten_note", "signature", "highlight"}
    no_target = {annotations.annotation(ctx, Rng(s, ["ann2"]), []).kind for s in range(30)}
    assert "highlight" not in no_target


def test_prose_is_business_text_with_embedded_fact_spans():
    ctx = make_ctx(recipe="project_status_report")  # a genre whose standing text includes action lists
    seen = set()
    for seed in range(80):
        block = prose.text_element(ctx, Rng(seed, ["text"]), "1")
        seen.add(block.type)
        spans = block.spans if hasattr(block, "spans") else [s for it in block.items for s in it]
        text = "".join(s.text for s in spans)
        assert "lorem" not in text.lower() and len(text) > 30
        if block.type == "text_block" and "registered address is" in text:  # one address per organisation
            assert any(cp.attributes["full"] in text for cp in ctx.counterparties)
            seen.add("parties")
        assert any(s.fact_ids for s in spans) and any(not s.fact_ids for s in spans)
    assert {"text_block", "list", "parties"} <= seen
    op = prose.opener(ctx, Rng(1), 3)  # one framing sentence, then what the issuer's world says
    assert op.spans[0].fact_ids == [] and "{" not in op.spans[0].text and op.spans[0].text.count(".") >= 1
    facts = [ctx.book.by_id[i] for s in op.spans for i in s.fact_ids]
    assert facts and all(f.query is not None or f.derivation is not None or f.value.kind in ("person", "date")
                         for f in facts)


def test_commentary_restates_the_table_extremes_without_owning_facts():
    ctx = make_ctx(domain="retail")
    t = tables.comparison_table(ctx, Rng(5), 6)
    c = exhibit_text.commentary(ctx, Rng(6), t)
    assert c is not None and all(not s.fact_ids for s in c.spans)
    facts = {f.id: f for f in ctx.book.facts}
    col = [(r[0].text, facts[r[1].fact_ids[0]]) for r in (t.rows[:-1] if t.total_row else t.rows)]
    top = max(col, key=lambda x: x[1].value.amount if x[1].value.kind == "money" else x[1].value.value)
    assert top[0] in c.spans[0].text and top[1].text in c.spans[0].text


def test_names_are_seeded_and_emails_use_reserved_domain():
    assert person_name(Rng(1, ["p"])) == person_name(Rng(1, ["p"]))
    names = {person_name(Rng(i, ["p"])) for i in range(50)}
    assert len(names) > 40
    org = org_name(Rng(2), ("Logistics", "Freight"), "EUR")
    assert SIMPLE.match(org)
    assert email_for("Dana O'Neill", org).endswith(".example") and "'" not in email_for("Dana O'Neill", org)


def test_domain_and_recipe_data():
    assert len(DOMAINS) == 50 and len({d.slug for d in DOMAINS}) == 50
    assert len(RECIPES) >= 24
    for d in DOMAINS:
        assert len(d.items) >= 8 and len(d.metrics) >= 4 and len(d.roles) >= 5, d.slug
        assert d.style_families and set(d.style_families) <= {"corporate", "modern", "classic", "technical",
                                                               "government"}
        assert len(d.recipes) >= 10, d.slug
        for m in d.metrics:
            assert m.kind in ("money", "count", "number", "percent") and m.low < m.high, (d.slug, m)
            assert m.quantity in QUANTITIES and m.quantity != "date", (d.slug, m)
            assert (m.kind == "percent") == (m.quantity == "rate"), (d.slug, m)
            assert m.kind != "money" or m.quantity in ("amount", "ratio"), (d.slug, m)
            assert not m.total_of or d.metric(m.total_of) is not None, (d.slug, m)
        assert len(set(d.items)) == len(d.items)
    with pytest.raises(KeyError, match="unknown domain"):
        get_domain("astrology")


def test_every_prose_template_fills_for_every_domain():
    from synthdocqa.generation.content.prose import RECIPE_OPENERS, STANDING_TEXT
    from synthdocqa.generation.content.prose_text import _fill
    from synthdocqa.generation.content.registers import (
        INTERPRETATIONS,
        NEUTRAL_TABLE_COMMENTS,
        OPENERS,
        OPENERS_MORE,
        REGISTERS,
        RESEARCH_EXHIBIT_BOUND,
    )
    from synthdocqa.generation.domains import RECIPE_BY_SLUG

    assert set(RECIPE_OPENERS) <= set(RECIPE_BY_SLUG) and set(REGISTERS) <= set(RECIPE_BY_SLUG)
    registers = tuple(t for r in REGISTERS.values() for t in r.openers + r.remarks + r.reflections + r.lead_ins
                      + tuple(t for pool in (r.sections or {}).values() for t in pool))
    tails = tuple(t for r in REGISTERS.values() for t in r.tails)
    templates = OPENERS + OPENERS_MORE + INTERPRETATIONS + tuple(t for v in RECIPE_OPENERS.values() for t in v) \
        + registers
    for d in DOMAINS:
        ctx = make_ctx(domain=d.slug)
        for t in templates:
            text = _fill(t, ctx, Rng(3))
            assert "{" not in text and "}" not in text and text[0].isupper()
        for t in tails:
            text = _fill(t, ctx, Rng(3))
            assert "{" not in text and "}" not in text and text.startswith(", ")
        for t in [t for r in REGISTERS.values() for t in r.subsection_openers]:
            text = _fill(t, ctx, Rng(3), subject="site visits", Subject="Site visits")
            assert "{" not in text and "}" not in text and text[0].isupper()
        for t in NEUTRAL_TABLE_COMMENTS:
            text = _fill(t, ctx, Rng(3), top="North", low="South", top_text="9 visits", low_text="2 visits",
                         metric_lc="visits")
            assert "{" not in text and "}" not in text and text[0].isupper()
        for t in [t for pool in STANDING_TEXT.values() for t in pool]:
            text = _fill(t, ctx, Rng(3))
            assert "{" not in text and "}" not in text and text[0].isupper()
    assert RESEARCH_EXHIBIT_BOUND < set(REGISTERS["research_report"].remarks)  # none reworded away
