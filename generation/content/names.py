"""People and organisation names from the project's own word lists, drawn through a fork ``Rng``.

No Faker global state: a name is a pure function of the stream it is drawn from. The lists mix
origins so corpora are not monocultural; surnames and given names are common, real-world names, and
organisation names combine neutral invented stems with the domain's own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import PageSize

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

LEGAL_FORMS: dict[str, tuple[str, ...]] = {
    "USD": ("Inc.", "LLC", "Corp."), "EUR": ("GmbH", "S.A.", "B.V.", "AG"), "GBP": ("Ltd", "plc", "LLP"),
}
COUNTRY_LEGAL_FORMS: dict[str, tuple[str, ...]] = {
    "United States": ("Inc.", "LLC", "Corp."), "United Kingdom": ("Ltd", "plc", "LLP"), "Germany": ("GmbH", "AG"),
    "France": ("S.A.", "SAS"), "Netherlands": ("B.V.", "N.V."), "Spain": ("S.A.", "S.L."),
    "Italy": ("S.p.A.", "S.r.l."), "Ireland": ("Ltd", "DAC"),
}


@dataclass(frozen=True)
class City:
    """A city with the postcode districts that belong to it and its telephone area code."""

    name: str
    districts: tuple[str, ...]
    area: str
    region: str = ""


@dataclass(frozen=True)
class Country:
    """How addresses are written in one country: streets, cities, the postcode's shape and the order."""

    name: str
    dial: str
    streets: tuple[str, ...]
    cities: tuple[City, ...]
    number_first: bool
    postcode: str
    """Pattern of a postcode from a district: ``{d}`` the district, ``#`` a digit, ``@`` a letter."""
    locality: str
    """``{city}``, ``{postcode}``, ``{region}``: the line under the street."""
    phone: str = "{area} ### ####"
    """Pattern of a telephone number after the country code (``#`` a digit)."""
    letters: str = "ABCDEFGHJKLMNPRSTUVWXYZ"

    def city(self, name: str) -> City | None:
        return next((c for c in self.cities if c.name == name), None)


COUNTRIES: dict[str, Country] = {c.name: c for c in (
    Country("United States", "+1", ("Market Street", "Main Street", "Park Avenue", "Elm Street", "Oak Avenue",
                                    "Franklin Street", "Lake Drive", "Commerce Way", "Maple Avenue", "Pine Street"),
            (City("Boston", ("021",), "617", "MA"), City("Chicago", ("606",), "312", "IL"),
             City("Denver", ("802",), "303", "CO"), City("Seattle", ("981",), "206", "WA"),
             City("Austin", ("787",), "512", "TX"), City("Atlanta", ("303",), "404", "GA"),
             City("New York", ("100",), "212", "NY"), City("San Francisco", ("941",), "415", "CA"),
             City("Minneapolis", ("554",), "612", "MN"), City("Philadelphia", ("191",), "215", "PA")),
            True, "{d}##", "{city}, {region} {postcode}", phone="{area} 555 01##"),
    Country("United Kingdom", "+44", ("High Street", "Station Road", "King Street", "Victoria Street", "Church Road",
                                      "Mill Lane", "Bridge Street", "Queensway", "Canal Street", "Park Row"),
            (City("London", ("EC1A", "EC2M", "EC4N", "SE1", "W1D", "WC2N", "E14", "N1"), "20 7946 0"),
             City("Manchester", ("M1", "M2", "M3", "M4"), "161 496 0"),
             City("Leeds", ("LS1", "LS2", "LS11"), "113 496 0"), City("Birmingham", ("B1", "B2", "B3"), "121 496 0"),
             City("Bristol", ("BS1", "BS2"), "117 496 0"), City("Glasgow", ("G1", "G2"), "141 496 0"),
             City("Edinburgh", ("EH1", "EH2", "EH3"), "131 496 0"), City("Cardiff", ("CF10",), "29 2018 0")),
            True, "{d} #@@", "{city} {postcode}", phone="{area}###", letters="ABDEFGHJLNPQRSTUWXYZ"),
    Country("Germany", "+49", ("Hauptstrasse", "Bahnhofstrasse", "Friedrichstrasse", "Schillerstrasse",
                               "Goethestrasse", "Lindenallee", "Kaiserstrasse", "Gartenstrasse", "Marktstrasse"),
            (City("Berlin", ("101", "107", "109", "121"), "30"), City("Hamburg", ("200", "201", "221"), "40"),
             City("Munich", ("803", "806", "809", "813"), "89"), City("Frankfurt am Main", ("603", "604", "605"), "69"),
             City("Cologne", ("506", "507", "509"), "221"), City("Stuttgart", ("701", "704", "705"), "711"),
             City("Leipzig", ("041", "043"), "341")),
            False, "{d}##", "{postcode} {city}"),
    Country("France", "+33", ("rue de la Paix", "avenue Victor Hugo", "boulevard Haussmann", "rue du Commerce",
                              "place de la Republique", "rue Nationale", "quai des Chartrons", "rue de la Liberte"),
            (City("Paris", ("7500", "7501"), "1 42"), City("Lyon", ("6900",), "4 72"),
             City("Marseille", ("1300", "1301"), "4 91"), City("Toulouse", ("3100", "3120", "3140"), "5 61"),
             City("Lille", ("5900", "5980"), "3 20"), City("Bordeaux", ("3300", "3320", "3380"), "5 56"),
             City("Nantes", ("4400", "4410", "4420"), "2 40")),
            True, "{d}#", "{postcode} {city}", phone="{area} ## ## ##"),
    Country("Netherlands", "+31", ("Keizersgracht", "Herengracht", "Stationsplein", "Coolsingel", "Damrak",
                                   "Lange Voorhout", "Oudegracht", "Stratumseind", "Vijzelstraat"),
            (City("Amsterdam", ("101", "102", "105", "107"), "20"), City("Rotterdam", ("301", "302", "304"), "10"),
             City("Utrecht", ("351", "352", "356"), "30"), City("The Hague", ("251", "252", "254"), "70"),
             City("Eindhoven", ("561", "562", "564"), "40")),
            False, "{d}# @@", "{postcode} {city}", letters="ABCEGHJKLMNPRTVWXZ"),
    Country("Spain", "+34", ("Calle de Alcala", "Paseo de la Castellana", "Gran Via", "Calle Mayor",
                             "Avenida Diagonal", "Calle Colon", "Calle de Serrano"),
            (City("Madrid", ("280",), "91"), City("Barcelona", ("080",), "93"), City("Valencia", ("460",), "96"),
             City("Seville", ("410",), "95"), City("Bilbao", ("480",), "94")),
            False, "{d}##", "{postcode} {city}", phone="{area} ### ## ##"),
    Country("Italy", "+39", ("Via Roma", "Corso Italia", "Via Garibaldi", "Via Dante", "Corso Vittorio Emanuele",
                             "Via Mazzini", "Via Verdi"),
            (City("Milan", ("2012", "2013", "2014"), "02"), City("Rome", ("0012", "0013", "0018"), "06"),
             City("Turin", ("1012", "1013", "1014"), "011"), City("Bologna", ("4012", "4013"), "051"),
             City("Florence", ("5012", "5013"), "055")),
            False, "{d}#", "{postcode} {city}", phone="{area} #### ####"),
    Country("Ireland", "+353", ("Baggot Street", "Grafton Street", "Merrion Square", "Patrick Street", "Shop Street",
                                "Harcourt Street", "Dame Street"),
            (City("Dublin", ("D01", "D02", "D04", "D08"), "1"), City("Cork", ("T12", "T23"), "21"),
             City("Galway", ("H91",), "91"), City("Limerick", ("V94",), "61")),
            True, "{d} @##@", "{city} {postcode}", letters="ACDEFHKNPRTVWXY"),
)}
COUNTRIES_OF_CURRENCY: dict[str, tuple[str, ...]] = {
    "USD": ("United States",), "GBP": ("United Kingdom",),
    "EUR": ("Germany", "France", "Netherlands", "Spain", "Italy", "Ireland"),
}


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


def org_name(rng: Rng, domain_words: tuple[str, ...], currency: str, country: str | None = None) -> str:
    """``Halcyon Logistics GmbH``-style names: invented stem + domain word (+ the country's legal form)."""
    stem = rng.choice(ORG_STEMS)
    word = rng.choice(domain_words)
    if word in ("City of", "Council", "Borough", "Township"):
        return f"{word} {stem}" if word == "City of" else f"{stem} {word}"
    forms = COUNTRY_LEGAL_FORMS.get(country or "") or LEGAL_FORMS.get(currency, ("Ltd", "Inc."))
    return f"{stem} {word} {rng.choice(forms)}" if rng.bernoulli(0.6) else f"{stem} {word}"


def email_for(name: str, org: str) -> str:
    """``dana.whitfield@halcyon.example`` (reserved ``.example`` domain: never a real mailbox)."""
    local = ".".join(p.lower().replace("'", "") for p in name.split())
    host = "".join(c for c in org.split()[0].lower() if c.isalnum()) or "org"
    return f"{local}@{host}.example"


LETTER_COUNTRIES = ("United States", "Canada")
"""Where offices print on US Letter; everywhere else on A4."""


def paper_of(country: str) -> PageSize:
    """The paper an organisation in ``country`` prints on."""
    return "Letter" if country in LETTER_COUNTRIES else "A4"


def country_for(rng: Rng, currency: str) -> str:
    """The country an organisation paying in ``currency`` sits in."""
    return rng.choice(COUNTRIES_OF_CURRENCY.get(currency, ("United States",)))


def phone_number(rng: Rng, currency: str, country: str | None = None, city: str | None = None) -> str:
    """A number in the city's area code. US and UK numbers come from the ranges reserved for drama and
    documentation (555-01xx; Ofcom's 0xx 496 0xxx and 020 7946 0xxx)."""
    c = COUNTRIES.get(country or "")
    if c is None:  # the currency decides (documents made before countries)
        c = COUNTRIES[COUNTRIES_OF_CURRENCY.get(currency, ("United States",))[0]]
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
    c = COUNTRIES[country or "United States"]
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
