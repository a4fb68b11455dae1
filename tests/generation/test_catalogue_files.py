"""The catalogue's data files (prose.yaml, countries.yaml): they load, a planted error fails at load naming the
file and the key, and the country table gives what the generators spelled before it existed."""

from __future__ import annotations

import copy
from decimal import Decimal

import pytest
import yaml

from synthdocqa.generation import catalogue
from synthdocqa.generation.catalogue import CatalogueError
from synthdocqa.generation.content import countries, prose_text, registers
from synthdocqa.generation.content.countries import CountriesFile, country, draw_id
from synthdocqa.generation.content.genre import governance, records, trade
from synthdocqa.ir.facts import Entity
from synthdocqa.ir.rng import Rng


def _fresh(name: str) -> dict:
    return copy.deepcopy(catalogue.raw(name))


def _error(name: str, data: object, model: type) -> str:
    with pytest.raises(CatalogueError) as err:
        catalogue.validate(name, data, model)
    return str(err.value)


def test_the_files_load():
    text = catalogue.validate("prose.yaml", _fresh("prose.yaml"), prose_text.ProseText)
    assert text == prose_text.TEXT and len(registers.REPORT_REGISTER.openers) == 18
    assert registers.RESEARCH_EXHIBIT_BOUND < set(registers.RESEARCH_REMARKS)
    table = catalogue.validate("countries.yaml", _fresh("countries.yaml"), CountriesFile)
    assert list(table.countries) == ["United States", "United Kingdom", "Germany", "France", "Netherlands", "Spain",
                                     "Italy", "Ireland"]


# ---------------------------------------------------------------- prose.yaml

def _plant_prose(where: str, value: object) -> dict:
    data = _fresh("prose.yaml")
    *path, last = where.split(".")
    node = data
    for key in path:
        node = node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


@pytest.mark.parametrize(("where", "value", "expected"), [
    ("report.lead_inss", ["Overall, "], "catalogue/prose.yaml: report.lead_inss: Extra inputs are not permitted"),
    ("exhibits.total_comment", [5], "catalogue/prose.yaml: exhibits.total_comment[0]: Input should be a valid string"),
    ("minutes.remarks", [], "catalogue/prose.yaml: minutes.remarks: Tuple should have at least 1 item"),
])
def test_a_misspelt_key_or_a_wrong_type_in_prose_fails_naming_file_and_key(where, value, expected):
    assert _error("prose.yaml", _plant_prose(where, value), prose_text.ProseText).startswith(expected)


def test_a_template_with_a_placeholder_no_caller_fills_fails_at_load():
    data = _fresh("prose.yaml")
    data["report"]["openers"][2] = "Management continued to prioritise {topic} for {issure}."
    said = _error("prose.yaml", data, prose_text.ProseText)
    assert said.startswith("catalogue/prose.yaml: report.openers[2]: template "), said
    assert "uses {issure}" in said
    # a placeholder of another group: {letter} is filled for appendix pointers, not for openers
    data = _fresh("prose.yaml")
    data["research"]["sections"]["Results"][0] = "See Appendix {letter}."
    assert _error("prose.yaml", data, prose_text.ProseText).startswith(
        "catalogue/prose.yaml: research.sections.Results[0]: template 'See Appendix {letter}.' uses "
        "{letter}")
    data = _fresh("prose.yaml")
    data["exhibits"]["reference_sentences"][0] = "{Ref} sets out {what:>10}."  # a format spec is not a word
    assert "exhibits.reference_sentences[0]: template" in _error("prose.yaml", data, prose_text.ProseText)


def test_a_qa_sentence_must_print_each_of_its_facts_once():
    data = _fresh("prose.yaml")
    data["qa_text"]["contact"] = "Questions about {this_noun} should be addressed to {name}, {role}, on {phone}."
    said = _error("prose.yaml", data, prose_text.ProseText)
    assert said.startswith("catalogue/prose.yaml: qa_text.contact: template"), said
    assert "must print {email} exactly once" in said


def test_an_exhibit_bound_remark_must_be_one_of_the_remarks():
    data = _fresh("prose.yaml")
    data["research"]["exhibit_bound"][0] = "A remark that is no longer among the remarks."
    assert "exhibit_bound lists 'A remark that is no longer" in _error("prose.yaml", data, prose_text.ProseText)


# ---------------------------------------------------------------- countries.yaml

def _plant_country(name: str, **change: object) -> dict:
    data = _fresh("countries.yaml")
    row = data["countries"][name]
    for key, value in change.items():
        if value is None:
            del row[key]
        else:
            row[key] = value
    return data


@pytest.mark.parametrize(("change", "expected"), [
    ({"tax_id": None}, "countries.Germany.tax_id: Field required"),  # a country without a VAT format
    ({"vat_rte": "19.0"}, "countries.Germany.vat_rte: Extra inputs are not permitted"),
    ({"iso2": yaml.safe_load("NO")}, "countries.Germany.iso2: Input should be a valid string"),  # NO is false
    ({"vat_rate": 19.0}, "countries.Germany.vat_rate: write a rate as a quoted string"),
    ({"vat_rate": None}, "countries.Germany: vat_rate: a country with VAT numbers needs its VAT rate"),
    ({"paper": "Legal"}, "countries.Germany.paper: Input should be 'Letter' or 'A4'"),
    ({"tax_id": {"scheme": "vat", "pattern": "DE{x:9}"}},
     "countries.Germany.tax_id.pattern: pattern 'DE{x:9}' uses {x:9}"),
    ({"iban": {"length": 27, "bban": "{bank=n:10000-40000}{d:16}{check:rib}"}},
     "countries.Germany.iban.bban: pattern '{bank=n:10000-40000}{d:16}{check:rib}': {check:rib} "
     "needs draws named branch, account"),
    ({"law": {"name": "Germany", "courts": "the courts of {town}"}},
     "countries.Germany.law.courts: template 'the courts of {town}' uses {town}"),
])
def test_a_planted_error_in_the_country_table_fails_naming_file_and_key(change, expected):
    said = _error("countries.yaml", _plant_country("Germany", **change), CountriesFile)
    assert said.startswith(f"catalogue/countries.yaml: {expected}"), said


def test_an_unknown_country_names_the_table():
    with pytest.raises(KeyError, match=r"no country 'Canada' in catalogue/countries.yaml \(it has United States, "):
        country("Canada")


# ---------------------------------------------------------------- what the generators used before

def test_the_table_gives_the_conventions_the_generators_spelled_before():
    de, us, uk, ie = country("Germany"), country("United States"), country("United Kingdom"), country("Ireland")
    assert (de.iso2, de.currency, de.eu, de.paper, de.legal_forms) == ("DE", "EUR", True, "A4", ("GmbH", "AG"))
    assert str(de.vat_rate) == "19.0" and de.vat_rate == Decimal("19.0")
    assert (de.iban.length, (de.banks[0].name, de.banks[0].bic4)) == (22, ("Rheinische Handelsbank AG", "RHHB"))
    assert (de.audit.firm, de.audit.framework, de.audit.standards, de.audit.style) == (
        "{a} & Partner GmbH", "IFRS as adopted by the European Union", "International Standards on Auditing", "isa")
    assert (us.paper, us.tax_id.scheme, us.vat_rate, us.iban, us.dial, us.audit.style) == (
        "Letter", "ein", None, None, "+1", "us")
    assert us.city("Chicago").sales_tax == Decimal("10.25") and trade.US_SALES_TAX["New York"] == Decimal("8.875")
    assert (uk.iso2, str(uk.vat_rate), uk.letters, uk.legal_forms, uk.audit.style, ie.audit.style) == (
        "GB", "20.0", "ABDEFGHJLNPQRSTUWXYZ", ("Ltd", "plc", "LLP"), "uk", "uk")
    assert uk.audit.standards == "International Standards on Auditing (UK)"
    assert (str(country("Ireland").vat_rate), str(country("Italy").vat_rate), country("Netherlands").iban.length) == (
        "23.0", "22.0", 18)
    assert countries.countries_of_currency("EUR") == ("Germany", "France", "Netherlands", "Spain", "Italy", "Ireland")
    assert countries.currencies() == ("USD", "EUR", "GBP") and countries.currency("USD").symbol == "$"


@pytest.mark.parametrize(("name", "tax", "vendor", "applicant"), [
    ("United States", ("67-7976354", "ein"), "29-4578360", ("EIN", "12-3456789", "ein")),
    ("United Kingdom", ("GB 679 7635 43", "vat"), "03457836", ("Registered charity no.", "1231605", "charity_number")),
    ("France", ("FR67976354337", "vat"), "454 457 836", ("SIREN", "652 316 052", "siren")),
    ("Netherlands", ("NL679763543B02", "vat"), "29834275", ("KvK no.", "65231605", "kvk")),
    ("Spain", ("ESB79763543", "vat"), "B24578360", ("CIF", "G65231605", "cif")),
    ("Ireland", ("IE6797635G", "vat"), "245451", ("Charity no.", "CHY 22608", "charity_number")),
])
def test_identifiers_are_drawn_as_before(name, tax, vendor, applicant):
    """The numbers the generators drew from the same streams before the table (pinned from that code)."""
    assert trade.tax_number(Rng(7).fork("tax"), name) == tax
    assert records._company_number(Rng(7).fork("vendor"), name) == vendor
    assert trade.registration_number(Rng(7).fork("applicant"), name, "12-3456789") == applicant


def test_accounts_contracts_and_law_are_as_before():
    assert trade.iban("FR", trade.bban(Rng(7).fork("bban"), "FR", "BLIT")) == "FR7631067960848079042344192"
    assert trade.bban(Rng(7).fork("bban"), "ES", "BMES") == "79608480107904234412"
    assert draw_id(country("United Kingdom").iban.bban, Rng(7).fork("bban"), bank4="ALBC") == "ALBC79608480790423"

    class Ctx:
        def remember(self, key, make):
            return make()

    def org(**attributes):
        return Entity(id="e001", kind="organisation", name="X", attributes=attributes)

    assert [governance.company_number(Ctx(), Rng(7).fork("contract"), org(country=c, city=city)) for c, city in
            (("Italy", "Milan"), ("France", "Lyon"), ("United States", "Boston"))] == [
        "REA MI-951770", "RCS Lyon 961 183 187", "EIN 94-2162396"]
    assert [governance.governing_law(org(**a)) for a in (
        {"country": "United Kingdom", "city": "Glasgow"}, {"country": "United Kingdom", "city": "Leeds"},
        {"country": "Germany", "city": "Munich"}, {"country": "United States", "city": "Boston", "region": "MA"},
        {"country": "United States"}, {"country": "Ireland", "city": "Cork"})] == [
        ("Scotland", "the Scottish courts"), ("England and Wales", "the courts of England and Wales"),
        ("the Federal Republic of Germany", "the courts of Munich"),
        ("the Commonwealth of Massachusetts", "the state and federal courts in Boston"),
        ("the State of New York", "the courts of New York"), ("Ireland", "the courts of Ireland")]
