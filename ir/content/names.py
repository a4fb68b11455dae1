"""People and organisation names from the project's own word lists, drawn through a fork ``Rng``.

No Faker global state: a name is a pure function of the stream it is drawn from. The lists mix
origins so corpora are not monocultural; surnames and given names are common, real-world names, and
organisation names combine neutral invented stems with the domain's own words.
"""

from __future__ import annotations

from ..rng import Rng

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

STREETS: tuple[str, ...] = (
    "Market Street", "Station Road", "King Street", "Harbour Way", "Park Avenue", "Mill Lane", "Church Road",
    "Victoria Street", "Bridge Road", "High Street", "Queensway", "Canal Street", "Elm Grove", "Lake Drive",
)
CITIES: tuple[str, ...] = (
    "Boston", "Chicago", "Denver", "Seattle", "Austin", "London", "Manchester", "Leeds", "Dublin", "Amsterdam",
    "Rotterdam", "Hamburg", "Munich", "Lyon", "Madrid", "Milan", "Vienna", "Copenhagen", "Stockholm", "Toronto",
)


def person_name(rng: Rng) -> str:
    return f"{rng.choice(GIVEN_NAMES)} {rng.choice(SURNAMES)}"


def org_name(rng: Rng, domain_words: tuple[str, ...], currency: str) -> str:
    """``Halcyon Logistics GmbH``-style names: invented stem + domain word (+ a legal form)."""
    stem = rng.choice(ORG_STEMS)
    word = rng.choice(domain_words)
    if word in ("City of", "Council", "Borough", "Township"):
        return f"{word} {stem}" if word == "City of" else f"{stem} {word}"
    forms = LEGAL_FORMS.get(currency, ("Ltd", "Inc."))
    return f"{stem} {word} {rng.choice(forms)}" if rng.bernoulli(0.6) else f"{stem} {word}"


def email_for(name: str, org: str) -> str:
    """``dana.whitfield@halcyon.example`` (reserved ``.example`` domain: never a real mailbox)."""
    local = ".".join(p.lower().replace("'", "") for p in name.split())
    host = "".join(c for c in org.split()[0].lower() if c.isalnum()) or "org"
    return f"{local}@{host}.example"


def phone_number(rng: Rng, currency: str) -> str:
    """Fictional numbers in the 555/0000 ranges reserved for drama and documentation."""
    if currency == "USD":
        return f"+1 {rng.integers(201, 990)} 555 0{rng.integers(100, 200)}"
    if currency == "GBP":
        return f"+44 20 7946 0{rng.integers(100, 1000):03d}"
    return f"+49 30 {rng.integers(1000, 9999)} {rng.integers(100, 999)}"


def address(rng: Rng) -> str:
    return f"{rng.integers(1, 240)} {rng.choice(STREETS)}, {rng.choice(CITIES)}"
