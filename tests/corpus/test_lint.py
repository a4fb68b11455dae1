"""``synthdocqa lint``: every kind of problem is caught when planted in a corpus; the demo corpus is linted.

A planted defect is written into a copy of the tiny corpus and the copy's hashes are brought up to date,
so the lint reads it as a finished corpus; each test compares with the lint of the untouched corpus.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pymupdf
import pytest

from synthdocqa.corpus.store import MANIFEST, DocFiles, load_doc_record, load_manifest, open_corpus
from synthdocqa.corpus.views.addresses import address_problems
from synthdocqa.corpus.views.lint import (
    LINT_KINDS,
    LintProblem,
    PageText,
    identity_problems,
    lint_corpus,
    plural_hits,
    plural_unit_pattern,
    semantic_problems,
)
from synthdocqa.flows.cli import main
from synthdocqa.ir.facts import Derivation
from synthdocqa.ir.files import atomic_write_text, sha256_file
from synthdocqa.ir.qa_models import QAPair
from synthdocqa.ir.rendermap import RenderMap
from synthdocqa.ir.values import IdentifierValue, NumberValue, PercentValue

LINE = re.compile(r"^doc-\d{5}\t(?:p\d+|-)\t(" + "|".join(LINT_KINDS) + r")\t\w+: .+$")
DOC = "doc-00000"


def rehash(root) -> None:
    """Bring the documents' records and the manifest up to date with the files as they are now."""
    m = load_manifest(root)
    files = dict(m.files)
    for doc_id in m.documents:
        rec = load_doc_record(root, doc_id)
        new = {rel: sha256_file(root / rel) for rel in rec.files}
        atomic_write_text(root / DocFiles(doc_id).record, rec.model_copy(update={"files": new}).to_json())
        files.update(new)
    files = {rel: sha256_file(root / rel) for rel in files}
    atomic_write_text(root / MANIFEST, m.model_copy(update={"files": files}).to_json())


@pytest.fixture(scope="module")
def baseline(tiny_corpus):
    return lint_corpus(tiny_corpus).counts


def _planted(root, kind: str, baseline: dict[str, int], capsys) -> list[str]:
    """Lint the tampered copy through the CLI: it fails and reports more problems of ``kind``."""
    rehash(root)
    report = lint_corpus(root)
    assert report.counts[kind] > baseline[kind], (kind, report.counts, baseline)
    capsys.readouterr()
    assert main(["lint", str(root), "--quiet"]) == 3  # EXIT_FINDINGS
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(LINE.match(x) for x in lines), lines
    return [x for x in lines if x.split("\t")[2] == kind]


# ----------------------------------------------------------------- layout, planted in the PDF / render map

def _edit_pdf(root, doc_id: str, edit) -> None:
    path = root / DocFiles(doc_id).pdf
    with pymupdf.open(path) as doc:
        edit(doc)
        data = doc.tobytes(garbage=0)
    path.write_bytes(data)


def _body_word(page: pymupdf.Page):
    words = [w for w in page.get_text("words") if len(w[4]) >= 3 and w[4].isalpha()]
    return words[len(words) // 2]


def test_planted_overlap(corpus_copy, baseline, capsys):
    def edit(doc):
        page = doc[0]
        x0, y0, x1, y1, *_ = _body_word(page)
        page.insert_text((x0, y1 - 0.25 * (y1 - y0)), "OVERDRAWN", fontsize=0.8 * (y1 - y0))

    _edit_pdf(corpus_copy, DOC, edit)
    assert any("OVERDRAWN" in x for x in _planted(corpus_copy, "overlap", baseline, capsys))


def test_planted_clipped_text(corpus_copy, baseline, capsys):
    def edit(doc):
        page = doc[0]
        page.insert_text((page.rect.width - 30, page.rect.height / 2), "Overflowing caption", fontsize=10)

    _edit_pdf(corpus_copy, DOC, edit)
    assert _planted(corpus_copy, "clipped", baseline, capsys)


def test_planted_mid_token_wrap(corpus_copy, baseline, capsys):
    path = corpus_copy / DocFiles(DOC).render_map
    rmap = RenderMap.model_validate_json(path.read_text())
    k = next(i for i, s in enumerate(rmap.spans) if len(s.text) >= 4 and " " not in s.text)
    s = rmap.spans[k]
    x0, y0, x1, y1 = s.bbox
    head = s.model_copy(update={"text": s.text[:2], "bbox": (x0, y0, (x0 + x1) / 2, y1)})
    tail = s.model_copy(update={"text": s.text[2:], "bbox": (x0, y1 + 1, x1, 2 * y1 - y0 + 1)})
    spans = [*rmap.spans[:k], head, tail, *rmap.spans[k + 1:]]
    atomic_write_text(path, rmap.model_copy(update={"spans": spans}).to_json())
    assert any(repr(s.text[:2]) in x for x in _planted(corpus_copy, "mid_token_wrap", baseline, capsys))


def test_planted_half_empty_page(corpus_copy, baseline, capsys):
    rmap = open_corpus(corpus_copy, checked=False).render_map(DOC)

    def edit(doc):
        x0, top, x1, bottom = rmap.pages[0].body  # the body as drawn, in the document's frame
        first = doc[0]  # keep the top fifth of page 1's body
        first.add_redact_annot(pymupdf.Rect(0, top + 0.2 * (bottom - top), first.rect.width, bottom))
        first.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_REMOVE,
                               graphics=pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_TOUCHED)
        second = doc[1]  # page 2 no longer opens a section: its heading is gone
        _, top2, _, _ = rmap.pages[1].body
        heading = min((w for w in second.get_text("words") if w[1] >= top2 - 2), key=lambda w: w[1])
        second.add_redact_annot(pymupdf.Rect(0, heading[1] - 1, second.rect.width, heading[3] + 1))
        second.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE, graphics=pymupdf.PDF_REDACT_LINE_ART_NONE)

    _edit_pdf(corpus_copy, DOC, edit)
    assert any("\tp1\t" in x for x in _planted(corpus_copy, "half_empty", baseline, capsys))


# ----------------------------------------------------------------- semantics and identities, planted in the IR

def _edit_ir(root, doc_id: str, edit) -> None:
    from synthdocqa.ir.document import DocumentIR

    path = root / DocFiles(doc_id).ir
    doc = DocumentIR.model_validate_json(path.read_text())
    atomic_write_text(path, edit(doc).to_json())


def test_planted_sum_of_rates(corpus_copy, baseline, capsys):
    def edit(doc):
        nums = [f for f in doc.facts if f.value.kind in ("number", "money")]
        total, part = nums[0], nums[1]
        facts = [f.model_copy(update={"derivation": Derivation(op="sum", operands=[part.id])}) if f.id == total.id
                 else f.model_copy(update={"quantity": "rate"}) if f.id == part.id else f for f in doc.facts]
        return doc.model_copy(update={"facts": facts})

    _edit_ir(corpus_copy, DOC, edit)
    assert any("op_not_allowed: " in x and "sum over rate" in x
               for x in _planted(corpus_copy, "semantic", baseline, capsys))


def test_planted_two_cities_in_an_address(corpus_copy, baseline, capsys):
    def edit(doc):
        org = next(e for e in doc.entities if e.kind == "organisation")
        ents = [e.model_copy(update={"attributes": {"address": "12 Market Street, Stockholm",
                                                    "city": "Denver, CO 80202"}}) if e.id == org.id else e
                for e in doc.entities]
        return doc.model_copy(update={"entities": ents})

    _edit_ir(corpus_copy, DOC, edit)
    assert any("two_cities: " in x and "Stockholm" in x for x in _planted(corpus_copy, "identity", baseline, capsys))


# ----------------------------------------------------------------- the checks one by one

@pytest.fixture(scope="module")
def tiny_doc(tiny_corpus):
    reader = open_corpus(tiny_corpus)
    return reader.ir(DOC), reader.qa(DOC), reader.assertions(DOC)


def _checks(problems: list[LintProblem]) -> set[str]:
    return {p.check for p in problems}


def test_semantic_checks_each_catch_their_defect(tiny_doc):
    doc, qa, asr = tiny_doc
    base = _checks(semantic_problems(DOC, doc, qa, asr, []))
    nums = [f for f in doc.facts if f.value.kind in ("number", "money")]
    a, b, c = nums[:3]
    rate = PercentValue(value=Decimal("12.5"))
    planted = {
        a.id: a.model_copy(update={"derivation": Derivation(op="percent_change", operands=[b.id, c.id]),
                                   "value": PercentValue(value=Decimal("15194")), "text": "+15,194%",
                                   "quantity": "rate"}),
        b.id: b.model_copy(update={"quantity": None, "value": NumberValue(value=Decimal(5), unit="hours"),
                                   "period": "Q1 2025", "label": "Hours lost", "subject": None, "derivation": None}),
        c.id: c.model_copy(update={"quantity": None, "value": NumberValue(value=Decimal(6), unit="hours"),
                                   "period": "Q1 2025", "label": "Hours lost", "text": "6", "subject": None,
                                   "derivation": None}),
    }
    doc2 = doc.model_copy(update={"facts": [planted.get(f.id, f) for f in doc.facts]})
    found = _checks(semantic_problems(DOC, doc2, qa, asr, []))
    # change cell beyond 100 %, numbers in arithmetic without a quantity, one quantity with two values
    assert {"change_out_of_range", "missing_quantity", "conflicting_values"} <= found - base, found

    pct = [f.model_copy(update={"value": rate, "quantity": "rate", "text": "12.5%"}) for f in (a, b)]
    doc2 = doc.model_copy(update={"facts": [*[f for f in doc.facts if f.id not in (a.id, b.id)], *pct]})
    from synthdocqa.ir.qa_models import Assertion, AssertionDerivation, Evidence, NumberAnswer, Operand

    ev = [Evidence(fact_id=pct[0].id, block_id="b000", page_no=1, bbox_pdf=(0, 0, 1, 1), text=pct[0].text)]
    ops = [Operand(fact_id=f.id, value=f.value, evidence=ev) for f in pct[:2]]
    bad_diff = Assertion(id="x-a0", qa_id="x", doc_id=DOC, claim="differs by 2%",
                         value=NumberAnswer(value="2", unit="%"),
                         derivation=AssertionDerivation(op="difference", operands=ops, result="2"))
    bad_sum = bad_diff.model_copy(update={"id": "x-a1", "derivation": AssertionDerivation(
        op="sum", operands=ops, result="25")})
    found = semantic_problems(DOC, doc2, qa, [*asr, bad_diff, bad_sum], [])
    assert any(p.check == "rate_difference_unit" and "x-a0" in p.detail for p in found)
    assert any(p.check == "op_not_allowed" and "x-a1" in p.detail for p in found)

    q = QAPair(id="x", doc_id=DOC, question="How many incidents?", answer=NumberAnswer(value="1"),
               answer_text="1 incidents", qa_type="lookup", element_type="table", difficulty="easy")
    page = PageText(1, 600, 800, [((0, 0, 100, 10), "Downtime 1 hours in May"), ((0, 20, 100, 30), "Table 1 units")])
    found = semantic_problems(DOC, doc, [*qa, q], asr, [page])
    hits = [p for p in found if p.check == "one_plural_unit"]
    assert any("1 incidents" in p.detail for p in hits) and any(p.page_no == 1 and "1 hours" in p.detail
                                                                  for p in hits)
    assert not any("Table 1 units" in p.detail for p in hits)  # a numbering, not a count


def test_plural_unit_pattern():
    pattern = plural_unit_pattern(["incidents", "hours", "%", "", "percentage points", "staff"])
    assert plural_hits("1 incidents, 11 incidents, 1.5 hours, 21 hours", pattern) == ["1 incidents"]
    assert plural_hits("a change of +1 percentage points", pattern) == ["+1 percentage points"]
    assert plural_hits("1 incident and 1 hour", pattern) == []
    assert plural_hits("Figure 1 hours by month", pattern) == []


def test_address_checks():
    assert address_problems("71 Mill Lane, Hamburg\nBoston, MA 02110") == [
        ("two_cities", "Boston / Hamburg in '71 Mill Lane, Hamburg\\nBoston, MA 02110'")]
    assert address_problems("12 King Street, Denver, CO 80202\nTel. +1 (303) 555-0100") == []
    assert address_problems("4 High Street, London EC2A 4NE\nTel. +44 20 7946 0123\nUnited Kingdom") == []
    assert [c for c, _ in address_problems("Stockholm, CO 80202")] == ["region_mismatch"]
    assert [c for c, _ in address_problems("10 Lake Drive, Copenhagen\nTel. +1 (551) 555-7865")] == ["phone_mismatch"]
    assert [c for c, _ in address_problems("5 Park Lane, Dublin EC2A 4NE")] == ["postcode_mismatch"]
    assert [c for c, _ in address_problems("5 Park Lane, Toronto, Germany")] == ["country_mismatch"]


def test_structured_addresses_follow_the_contents_rules(tiny_doc):
    doc, _, _ = tiny_doc
    org = next(e for e in doc.entities if e.kind == "organisation")
    good = {"street": "204 Canal Street", "city": "Leeds", "postcode": "LS2 8SL", "country": "United Kingdom",
            "locality": "Leeds LS2 8SL", "address": "204 Canal Street", "phone": "+44 113 496 0651"}
    bad = {**good, "postcode": "80202", "locality": "Leeds 80202"}
    for attrs, n in ((good, 0), (bad, 1)):
        ents = [e.model_copy(update={"attributes": attrs}) if e.id == org.id else e for e in doc.entities]
        found = [p for p in identity_problems(DOC, doc.model_copy(update={"entities": ents}), [])
                 if p.detail.startswith(org.name)]
        assert len(found) == n and all(p.check == "address_mismatch" for p in found), found


def test_own_reference_numbers(tiny_doc):
    doc, _, _ = tiny_doc
    fact = doc.facts[0].model_copy(update={"label": "Reference number of this report", "text": "ABC-2026-22222",
                                           "value": IdentifierValue(value="ABC-2026-22222", scheme="reference")})
    same = doc.model_copy(update={"title": "Report ABC-2026-22222", "facts": [fact, *doc.facts[1:]]})
    other = same.model_copy(update={"title": "Report ABC-2026-11111"})
    page = PageText(1, 600, 800, [((40, 780, 200, 790), "Ref. ABC-2026-33333   Page 1 of 2")])
    assert not [p for p in identity_problems(DOC, same, []) if p.check == "two_own_references"]
    found = [p for p in identity_problems(DOC, other, [page]) if p.check == "two_own_references"]
    assert len(found) == 1 and all(r in found[0].detail for r in ("11111", "22222", "33333"))


# ----------------------------------------------------------------- the command on the demo corpus

@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory):
    from synthdocqa.corpus.generate import generate_corpus
    from synthdocqa.ir.spec import demo_spec

    out = tmp_path_factory.mktemp("demo") / "corpus"
    generate_corpus(demo_spec(seed=7, n_docs=3), out)
    return out


def test_lint_on_the_demo_corpus(demo_corpus, capsys):
    rc = main(["lint", str(demo_corpus), "--quiet"])
    out, err = capsys.readouterr()
    report = lint_corpus(demo_corpus)
    assert rc == (0 if report.ok else 3)
    lines = out.splitlines()
    if rc == 0:
        assert len(lines) == 1 and lines[0].startswith(f"{demo_corpus}: 3 documents")
    else:
        assert all(LINE.match(x) for x in lines), lines
        assert err.strip().splitlines()[-1].startswith(f"{demo_corpus}: 3 documents")
    assert len(lines) - (rc == 0) == len(report.problems)
    for kind in ("overlap", "clipped", "mid_token_wrap", "semantic"):  # clean on the demo (issue 14: must be 0)
        assert report.counts[kind] == 0, [p.line() for p in report.problems if p.kind == kind]
    assert report.half_empty_share <= 0.05

    assert main(["lint", str(demo_corpus), "--json"]) == rc
    data = json.loads(capsys.readouterr().out)
    assert set(data["counts"]) == set(LINT_KINDS) and data["ok"] is (rc == 0)
    assert data["documents"] == 3 and len(data["problems"]) == len(report.problems)


def test_lint_bad_input_is_exit_2(tmp_path, capsys):
    assert main(["lint", str(tmp_path / "missing")]) == 2
    assert "no such directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["lint", str(tmp_path / "empty")]) == 2
    assert main(["lint", str(tmp_path / "empty"), "--max-half-empty", "2"]) == 2


def test_a_table_of_parties_is_three_addresses_not_one_with_three_cities():
    from synthdocqa.corpus.views.addresses import address_groups

    rows = ["115 Park Avenue, San Francisco, CA 94184, United States",
            "59 Franklin Street, Seattle, WA 98134, United States",
            "Goods Inward, 56 Franklin Street, Boston, MA 02172, United States"]
    lines = [((100.0, 300.0 + 18 * i, 400.0, 310.0 + 18 * i), t) for i, t in enumerate(rows)]
    groups = address_groups(lines)
    assert groups == rows[:2]  # each party's address alone (the third names its street after a site name)
    assert [p for g in groups for p in address_problems(g)] == []
    # a street line and the city under it is still one address, and two cities in it are still caught
    stacked = [((100.0, 300.0, 300.0, 310.0), "12 Market Street"), ((100.0, 314.0, 300.0, 324.0), "Stockholm"),
               ((100.0, 328.0, 300.0, 338.0), "Denver, CO 80202")]
    assert address_groups(stacked) == ["12 Market Street\nStockholm\nDenver, CO 80202"]
    assert address_problems(address_groups(stacked)[0])[0][0] == "two_cities"


def test_a_table_of_parties_with_whole_addresses_on_one_line_is_one_address_a_row():
    """A party table's cells hold whole addresses, one a row; a Dutch street line ("Lange Voorhout 235") names no
    street word first, so only the first line's completeness can end the group (it once merged three parties
    into one address naming three cities)."""
    from synthdocqa.corpus.views.addresses import address_groups, address_problems

    rows = [((230, 400, 420, 410), "73 Merrion Square, Galway H91 X68W, Ireland"),
            ((230, 420, 460, 430), "Lange Voorhout 235, 3562 TB Utrecht, Netherlands"),
            ((230, 440, 480, 450), "Central Stores, Coolsingel 16, 2542 HG The Hague, Netherlands")]
    groups = address_groups(rows)
    assert groups == ["73 Merrion Square, Galway H91 X68W, Ireland"]
    assert all(address_problems(g) == [] for g in groups)
    assert address_problems("73 Merrion Square, Galway H91 X68W, Ireland, Utrecht")  # still caught on one line
