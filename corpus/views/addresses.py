"""Addresses as drawn on a page, read back and checked against themselves: the lint's ``identity`` check.

An address is a street line and the lines just below it (``address_groups``); it holds together when it
names one city and its region, postcode, country and phone prefix are of that city's country
(``address_problems``). The gazetteer below is the lint's own, independent of the tables the content
writes addresses from, except that it also knows every city the content uses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from synthdocqa.generation.content.names import COUNTRIES

_CITIES: dict[str, str] = {
    "Boston": "US", "Chicago": "US", "Denver": "US", "Seattle": "US", "Austin": "US", "New York": "US",
    "San Francisco": "US", "Los Angeles": "US", "Atlanta": "US", "Dallas": "US", "Houston": "US", "Miami": "US",
    "Philadelphia": "US", "Portland": "US", "Minneapolis": "US", "Phoenix": "US", "Washington": "US",
    "London": "GB", "Manchester": "GB", "Leeds": "GB", "Edinburgh": "GB", "Glasgow": "GB", "Bristol": "GB",
    "Birmingham": "GB", "Liverpool": "GB", "Cardiff": "GB", "Belfast": "GB", "Dublin": "IE", "Cork": "IE",
    "Galway": "IE", "Amsterdam": "NL", "Rotterdam": "NL", "Utrecht": "NL", "The Hague": "NL", "Eindhoven": "NL",
    "Hamburg": "DE", "Munich": "DE", "Berlin": "DE", "Frankfurt": "DE", "Cologne": "DE", "Stuttgart": "DE",
    "Lyon": "FR", "Paris": "FR", "Marseille": "FR", "Toulouse": "FR", "Lille": "FR", "Madrid": "ES",
    "Barcelona": "ES", "Valencia": "ES", "Seville": "ES", "Milan": "IT", "Rome": "IT", "Turin": "IT",
    "Vienna": "AT", "Graz": "AT", "Copenhagen": "DK", "Aarhus": "DK", "Stockholm": "SE", "Gothenburg": "SE",
    "Oslo": "NO", "Helsinki": "FI", "Zurich": "CH", "Geneva": "CH", "Brussels": "BE", "Antwerp": "BE",
    "Lisbon": "PT", "Porto": "PT", "Warsaw": "PL", "Prague": "CZ", "Toronto": "CA", "Vancouver": "CA",
    "Montreal": "CA", "Calgary": "CA", "Ottawa": "CA", "Sydney": "AU", "Melbourne": "AU", "Brisbane": "AU",
    "Perth": "AU", "Auckland": "NZ", "Wellington": "NZ", "Singapore": "SG",
}
_COUNTRY_NAMES: dict[str, str] = {
    "United States": "US", "USA": "US", "U.S.A.": "US", "United Kingdom": "GB", "UK": "GB", "England": "GB",
    "Scotland": "GB", "Wales": "GB", "Ireland": "IE", "Netherlands": "NL", "The Netherlands": "NL", "Germany": "DE",
    "Deutschland": "DE", "France": "FR", "Spain": "ES", "Italy": "IT", "Austria": "AT", "Denmark": "DK",
    "Sweden": "SE", "Norway": "NO", "Finland": "FI", "Switzerland": "CH", "Belgium": "BE", "Portugal": "PT",
    "Poland": "PL", "Czechia": "CZ", "Canada": "CA", "Australia": "AU", "New Zealand": "NZ",
}
_REGIONS: dict[str, str] = {
    **{s: "US" for s in (
        "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND "
        "OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC").split()},
    **{s: "CA" for s in "ON QC BC AB MB SK NS NB NL PE".split()},
    **{s: "AU" for s in "NSW VIC QLD SA TAS ACT NT".split()},
}
_PHONE_PREFIXES: dict[str, tuple[str, ...]] = {
    "1": ("US", "CA"), "44": ("GB",), "353": ("IE",), "31": ("NL",), "49": ("DE",), "33": ("FR",), "34": ("ES",),
    "39": ("IT",), "43": ("AT",), "45": ("DK",), "46": ("SE",), "47": ("NO",), "358": ("FI",), "41": ("CH",),
    "32": ("BE",), "351": ("PT",), "48": ("PL",), "420": ("CZ",), "61": ("AU",), "64": ("NZ",), "65": ("SG",),
}
_POSTCODES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GB", re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b")),
    ("CA", re.compile(r"\b[A-Z]\d[A-Z] \d[A-Z]\d\b")),
    ("IE", re.compile(r"\b[AC-FHKNPRTV-Y]\d{2} [0-9AC-FHKNPRTV-Y]{4}\b")),
    ("NL", re.compile(r"\b\d{4} ?[A-Z]{2}\b")),
)
for _country in COUNTRIES.values():  # every city the content writes addresses for
    for _city in _country.cities:
        _CITIES.setdefault(_city.name, _country.iso2)
_CITY_RE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _CITIES), key=len, reverse=True)) + r")\b")
_COUNTRY_RE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _COUNTRY_NAMES), key=len, reverse=True)) + r")\b")
_REGION_RE = re.compile(r",\s*([A-Z]{2,3})\b(?=\s+[\dA-Z]|\s*$)|\b(NSW|VIC|QLD|TAS|ACT)\s+\d{4}\b")
_PHONE_RE = re.compile(r"\+(\d{1,3})[\s(]")
_STREET = (r"\d+[A-Za-z]?\s+[\w' .-]*\b(Street|St\.|Road|Rd\.|Way|Avenue|Ave\.|Lane|Drive|Square|Court|Grove|"
           r"Place|Quay|Boulevard|Parade|Queensway|Terrace|Row|Walk|Crescent|Close|Hill|Gate|Wharf|Plaza|Park)\b")
_STREET_RE = re.compile(r"^\s*" + _STREET)
_STREET_ANYWHERE = re.compile(r"(?:^|,\s*)" + _STREET)
"""A street line inside a line ("Goods Inward, 56 Franklin Street, ..."): another address starts there."""


def address_problems(text: str) -> list[tuple[str, str]]:
    """(check, detail) for one address: a single city, and region, postcode, country and phone prefix of
    that city's country."""
    cities = sorted(set(_CITY_RE.findall(text)))
    if len(cities) > 1:
        return [("two_cities", f"{' / '.join(cities)} in {text!r}")]
    if not cities:
        return []
    city, country = cities[0], _CITIES[cities[0]]
    out = []
    for m in _REGION_RE.finditer(text):
        region = m.group(1) or m.group(2)
        if region in _REGIONS and _REGIONS[region] != country:
            out.append(("region_mismatch", f"{city} ({country}) with region {region} ({_REGIONS[region]})"))
    for name in _COUNTRY_RE.findall(text):
        if _COUNTRY_NAMES[name] != country:
            out.append(("country_mismatch", f"{city} ({country}) with country {name}"))
    for code, rx in _POSTCODES:
        for pc in rx.findall(text):
            if code != country:
                out.append(("postcode_mismatch", f"{city} ({country}) with a {code} postcode {pc!r}"))
    for prefix in _PHONE_RE.findall(text):
        if prefix in _PHONE_PREFIXES and country not in _PHONE_PREFIXES[prefix]:
            out.append(("phone_mismatch", f"{city} ({country}) with phone prefix +{prefix}"))
    return out


def address_groups(lines: Iterable[tuple[tuple[float, float, float, float], str]]) -> list[str]:
    """Drawn addresses among a page's text lines ((bbox, text), PDF points): a street line and the lines just
    below it that it overlaps horizontally, up to the next line that names a street (the next party's address
    in a table of parties: seller, bill to, ship to)."""
    lines = sorted(lines, key=lambda ln: (ln[0][1], ln[0][0]))
    out = []
    for i, (bbox, text) in enumerate(lines):
        if not _STREET_RE.search(text):
            continue
        group, last = [text], bbox
        if _COUNTRY_RE.search(text) and _CITY_RE.search(text):  # a whole address on one line (a table's cell):
            out.append(text)  # the line below is the next party's, whatever its street looks like ("Lange
            continue  # Voorhout 235" names no street word first)
        for nb, nt in lines[i + 1:]:
            h = max(last[3] - last[1], 1.0)
            if nb[1] > last[3] + 1.2 * h or len(group) >= 4:
                break
            if nb[0] < bbox[2] and nb[2] > bbox[0] and nb[1] >= last[1] + 0.5 * h:
                if _STREET_ANYWHERE.search(nt):  # the next address begins
                    break
                group.append(nt)
                last = nb
        out.append("\n".join(group))
    return out


__all__ = ["address_groups", "address_problems"]
