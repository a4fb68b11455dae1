"""People and organisation names from the project's own word lists, drawn through a fork ``Rng``.

No Faker global state: a name is a pure function of the stream it is drawn from. The lists mix
origins so corpora are not monocultural; surnames and given names are common, real-world names, and
organisation names combine neutral invented stems with the domain's own words.
"""

from __future__ import annotations

import re

from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import PageSize

from .countries import City, Country, countries, countries_of_currency, table
from .countries import currency as currency_conventions

GIVEN_NAMES: tuple[str, ...] = (
    "Aisha", "Alejandro", "Amara", "Anders", "Ana", "Arjun", "Beatrice", "Bilal", "Camille", "Carlos", "Chen",
    "Chiara", "Daniel", "Dana", "Elena", "Emeka", "Emma", "Farah", "Fatima", "Felix", "Grace", "Hana",
    "Hannah", "Hugo", "Ibrahim", "Ingrid", "Isabel", "James", "Javier", "Jonas", "Julia", "Kenji", "Khalid",
    "Lars", "Laura", "Leila", "Liam", "Lucia", "Maria", "Mateo", "Mei", "Mohammed", "Nadia", "Naomi",
    "Nikolai", "Noah", "Olivia", "Omar", "Paula", "Priya", "Rafael", "Rahul", "Rosa", "Samuel", "Sara",
    "Sofia", "Sven", "Tariq", "Thomas", "Valentina", "Victor", "Wei", "Yusuf", "Zara", "Zoe", "Adrian",
    "Bianca", "Conor", "Diego", "Eva", "Gabriel", "Helena", "Ines", "Jakob", "Katarina", "Lena", "Marco",
    "Nora", "Oscar", "Pedro", "Rita", "Simon", "Tessa", "Ursula", "Vera", "William", "Yara",
)

SURNAMES: tuple[str, ...] = (
    "Abbott", "Adeyemi", "Alvarez", "Andersson", "Bauer", "Bennett", "Bianchi", "Brennan", "Castillo", "Chen",
    "Costa", "Dubois", "Eriksen", "Fernandes", "Fischer", "Gallagher", "Garcia", "Haddad", "Hansen",
    "Hashimoto", "Hughes", "Ivanova", "Jensen", "Kapoor", "Keller", "Kowalski", "Laurent", "Lindqvist",
    "Lopez", "Mbeki", "Meyer", "Moreau", "Murphy", "Nakamura", "Nielsen", "Novak", "Okafor", "Olsen",
    "Osei", "Patel", "Petrov", "Quinn", "Rahman", "Reyes", "Rossi", "Santos", "Schmidt", "Silva", "Singh",
    "Sorensen", "Suzuki", "Tanaka", "Thompson", "Van Dijk", "Varga", "Wagner", "Walsh", "Weber", "Whitfield",
    "Williams", "Yilmaz", "Zhang", "Ahmed", "Barros", "Coleman", "Dimitrov", "Engel", "Fraser", "Gupta",
    "Holm", "Iqbal", "Juarez", "Kim", "Lund", "Mendes", "Nowak", "O'Neill", "Park", "Ramos", "Sato", "Torres",
)

ORG_STEMS: tuple[str, ...] = (
    "Alder", "Anvil", "Apex", "Arden", "Ashford", "Aurora", "Beacon", "Birchwood", "Bluewater", "Brightline",
    "Cairn", "Castleton", "Cedar", "Clearwater", "Coastal", "Copperfield", "Crestview", "Crown", "Delta",
    "Eastbridge", "Elmstead", "Evergreen", "Fairhaven", "Falcon", "Fieldstone", "Granite", "Greenfield",
    "Halcyon", "Harbour", "Heritage", "Highgate", "Horizon", "Ironbridge", "Keystone", "Kingsbury", "Lakeshore",
    "Larchmont", "Lumen", "Maple", "Meridian", "Millbrook", "Northwind", "Oakridge", "Orion", "Pinnacle",
    "Quarry", "Redwood", "Ridgeline", "Riverside", "Sterling", "Stonegate", "Summit", "Thornbury", "Trident",
    "Vantage", "Westbrook", "Whitmore", "Willow", "Wrenfield", "Zenith",
)

COUNTRIES: dict[str, Country] = countries()
"""How each country writes addresses and phone numbers (``catalogue/countries.yaml``), by name."""


def person_name(rng: Rng) -> str:
    return f"{rng.choice(GIVEN_NAMES)} {rng.choice(SURNAMES)}"


def unused_person_name(rng: Rng, taken: set[str], tries: int = 60) -> str:
    """A person's name that is not in ``taken`` (the names a document already has): drawn again up to
    ``tries`` times, then numbered ("Ana Silva 2"), which 7,000 names against a few dozen never need."""
    name = person_name(rng)
    for _ in range(tries):
        if name not in taken:
            return name
        name = person_name(rng)
    k = 2
    while f"{name} {k}" in taken:
        k += 1
    return f"{name} {k}"


def currency_legal_forms(code: str) -> tuple[str, ...]:
    """The legal forms of an organisation of which only the currency is known."""
    return currency_conventions(code).legal_forms


def org_name(rng: Rng, domain_words: tuple[str, ...], currency: str, country: str | None = None) -> str:
    """``Halcyon Logistics GmbH``-style names: invented stem + domain word (+ the country's legal form)."""
    stem = rng.choice(ORG_STEMS)
    word = rng.choice(domain_words)
    if word in ("City of", "Council", "Borough", "Township"):
        return f"{word} {stem}" if word == "City of" else f"{stem} {word}"
    c = COUNTRIES.get(country or "")
    forms = c.legal_forms if c is not None else currency_legal_forms(currency)
    return f"{stem} {word} {rng.choice(forms)}" if rng.bernoulli(0.6) else f"{stem} {word}"


def email_for(name: str, org: str) -> str:
    """``dana.whitfield@halcyon.example`` (reserved ``.example`` domain: never a real mailbox)."""
    local = ".".join(p.lower().replace("'", "") for p in name.split())
    host = "".join(c for c in org.split()[0].lower() if c.isalnum()) or "org"
    return f"{local}@{host}.example"


def paper_of(country: str) -> PageSize:
    """The paper an organisation in ``country`` prints on (A4 where the table does not know the country)."""
    c = COUNTRIES.get(country)
    return c.paper if c is not None else "A4"


def country_for(rng: Rng, currency: str) -> str:
    """The country an organisation paying in ``currency`` sits in."""
    return rng.choice(countries_of_currency(currency))


def phone_number(rng: Rng, currency: str, country: str | None = None, city: str | None = None) -> str:
    """A number in the city's area code. US and UK numbers come from the ranges reserved for drama and
    documentation (555-01xx; Ofcom's 0xx 496 0xxx and 020 7946 0xxx)."""
    c = COUNTRIES.get(country or "")
    if c is None:  # the currency decides (documents made before countries)
        c = COUNTRIES[countries_of_currency(currency)[0]]
    ct = c.city(city or "") or c.cities[0]
    body = "".join(str(rng.integers(0, 10)) if ch == "#" else ch for ch in c.phone.replace("{area}", "\x00"))
    return f"{c.dial} {body.replace(chr(0), ct.area)}"


def _pattern_parts(pattern: str) -> list[str]:
    """A postcode pattern as parts: ``{d}`` (the district), ``#``, ``@`` or a literal character."""
    head, _, tail = pattern.partition("{d}")
    return [*head, "{d}", *tail]


def _fill_pattern(rng: Rng, pattern: str, district: str, letters: str) -> str:
    out = []
    for part in _pattern_parts(pattern):
        if part == "{d}":
            out.append(district)
        elif part == "#":
            out.append(str(rng.integers(0, 10)))
        elif part == "@":
            out.append(letters[rng.integers(0, len(letters))])
        else:
            out.append(part)
    return "".join(out)


def postcode_pattern(country: Country, city: City) -> re.Pattern[str]:
    """What a postcode of ``city`` looks like (for checks: postcode and city belong together)."""
    parts = {"#": "[0-9]", "@": f"[{country.letters}]", "{d}": "(?:" + "|".join(map(re.escape, city.districts)) + ")"}
    return re.compile("^" + "".join(parts.get(p, re.escape(p)) for p in _pattern_parts(country.postcode)) + "$")


def address(rng: Rng, country: str | None = None) -> dict[str, str]:
    """A postal address that holds together: street, city, postcode and country of one place.

    Keys: ``street``, ``city``, ``postcode``, ``country``, ``region`` (a US state), ``locality`` (the line under
    the street, as the country writes it), ``address`` (the street line, as letterheads print it) and ``full``
    (one line). No street is named after a city."""
    c = COUNTRIES[country or table().default_country]
    ct = rng.choice(c.cities)
    n = rng.integers(1, 240)
    street = f"{n} {rng.choice(c.streets)}" if c.number_first else f"{rng.choice(c.streets)} {n}"
    postcode = _fill_pattern(rng, c.postcode, rng.choice(ct.districts), c.letters)
    locality = c.locality.format(city=ct.name, postcode=postcode, region=ct.region)
    out = {"street": street, "city": ct.name, "postcode": postcode, "country": c.name, "locality": locality,
           "address": street, "full": f"{street}, {locality}, {c.name}"}
    if ct.region:
        out["region"] = ct.region
    return out


def address_problems(attributes: dict[str, str]) -> list[str]:
    """Why an organisation's address does not hold together (empty: it does)."""
    c = COUNTRIES.get(attributes.get("country", ""))
    if c is None:
        return [f"unknown country {attributes.get('country')!r}"]
    ct = c.city(attributes.get("city", ""))
    if ct is None:
        return [f"city {attributes.get('city')!r} is not in {c.name}"]
    out = []
    if not postcode_pattern(c, ct).match(attributes.get("postcode", "")):
        out.append(f"postcode {attributes.get('postcode')!r} does not belong to {ct.name}")
    if attributes.get("locality") != c.locality.format(city=ct.name, postcode=attributes.get("postcode", ""),
                                                       region=ct.region):
        out.append(f"locality {attributes.get('locality')!r} disagrees with city and postcode")
    phone = attributes.get("phone")
    if phone and not phone.startswith(f"{c.dial} {ct.area.split()[0]}"):
        out.append(f"phone {phone!r} is not a {ct.name} number")
    return out
