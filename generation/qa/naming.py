"""How a question names things: a table or chart ("Table 11", "the bar chart on page 4"), a fact (its label
without where it was drawn) and a measure ("bids received in Q3 2026")."""

from __future__ import annotations

import re

from synthdocqa.ir.blocks import AnnotationBlock, Block, FigureBlock, FormBlock, ListBlock, TableBlock
from synthdocqa.ir.facts import Fact

LOCATION = re.compile(r"\s+shown in (?:Figure|Table|the chart)\b[^,;]*$|\s*\((?:Table|Figure) \d+\)|"
                      r"\s+in the register \(Table \d+\)|\s+on page \d+|\s+in Table \d+$|\s+\((?:handwritten note|stamp|signature|"
                      r"highlight)[^)]*\)")
UNIT = re.compile(r"\s*\([^)]*\)\s*$")
NUMBERED = re.compile(r"^((?:Table|Figure|Chart|Exhibit) \d+[A-Za-z]?)[.:]\s*(.*)$")
ANNOTATION_NAMES = {"stamp": "stamp", "handwritten_note": "handwritten note", "signature": "signature",
                    "highlight": "highlighted passage"}


def strip_location(label: str) -> str:
    """A fact label without where it is drawn ("... shown in Figure 3", "(Table 6)", "on page 4")."""
    return LOCATION.sub("", label).strip()


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
NTH = re.compile(r"^(Item|Action|Entry|Line) (\d+)\b")


def describe(f: Fact) -> str:
    """What a fact is, for a question: its label without its location ("Item 2 of ..." -> "second item of"),
    an action named by what it does ("the action 'Renew the contract'" -> "the action to renew the
    contract") and a list by its title ("the list 'Next steps'" -> "the next steps list")."""
    lab = strip_location(f.label)
    m = NTH.match(lab)
    if m and 1 <= int(m.group(2)) <= len(ORDINALS):
        lab = f"{ORDINALS[int(m.group(2)) - 1]} {m.group(1).lower()}{lab[m.end():]}"
    return counted(f, unquoted(lab))


ACTION = re.compile(r"\bthe action '([A-Z][a-z]+)( [^']+)'")
LIST = re.compile(r"\bthe list '([^']+)'")


def unquoted(phrase: str) -> str:
    """A label's quoted action or list named as a reader names it: an action whose name opens with a verb
    ("Renew the contract": not "Renewal ...", "Training ...") as "the action to renew the contract", a list as
    "the next steps list"."""
    def action(m: re.Match) -> str:
        verb = m.group(1)
        if verb.endswith(("ing", "ion", "al", "ment", "s")):
            return m.group(0)
        return f"the action to {verb.lower()}{m.group(2)}"
    phrase = ACTION.sub(action, phrase)
    return LIST.sub(lambda m: f"the {lc_first(m.group(1))} list", phrase)


def counted(f: Fact, phrase: str) -> str:
    """A count named by its plural noun reads as "the number of ...": "the number of votes for resolution
    2024/24", not "the votes for resolution 2024/24" (which a sentence then gives a singular verb)."""
    words = phrase.split()
    if f.quantity != "count" or not words or phrase.lower().startswith(("number of", "total number")):
        return phrase
    first = words[0].lower()
    if first.endswith("s") and not first.endswith(("ss", "us", "is")):
        return f"number of {lc_first(phrase)}"
    return phrase


def measure_of(f: Fact, item: str, header: str = "") -> str:
    """What a number measures, without the item it is about: the label with "of <item>" taken out
    ("Bids received of Lot 2 in Q3 2026" -> "bids received in Q3 2026"), else the header without its unit."""
    return counted(f, _measure(f, item, header))


def _measure(f: Fact, item: str, header: str) -> str:
    lab = strip_location(f.label)
    for joint in (f" of {item}", f" for {item}", f" of the {item}"):
        k = lab.find(joint)
        if k > 0:
            rest = lab[k + len(joint):]
            return lc_first(f"{lab[:k]}{rest}".strip())
    if lab.startswith(f"Share of {item} in "):
        return "share of " + lab[len(f"Share of {item} in "):]
    name = UNIT.sub("", header).strip()
    name = PARTICIPLE_FIELDS.get(name.lower(), name)  # a column headed "Spent" holds the amount spent
    if BARE_PERIOD.match(name):  # a column headed "2024" or "Year 1" holds an amount in that period
        return f"{_quantity_noun(f, item)} {_in_period(name)}"
    if f.period and f.period not in name:
        name = f"{name} in {f.period}" if name else f.period
    return lc_first(name)


BARE_PERIOD = re.compile(r"^(?:(?:FY)?\d{4}(?:/\d{2,4})?|[Yy]ear \d+|[QH]\d \d{4}|\d{1,2} [A-Z][a-z]{2,8} \d{4}|"
                         r"[A-Z][a-z]{2,8} \d{4})$")
"""A column header that names only a period: "2024", "FY2025", "Year 1", "Q4 2024", "31 Dec 2024"."""


def _in_period(name: str) -> str:
    return f"{'at' if name[:1].isdigit() and ' ' in name else 'in'} {lc_first(name)}"


def column_measure(f: Fact, header: str) -> str:
    """What a column measures, from its header: "Amount" -> "amount", "Year 2 (USD)" -> "amount in year 2"."""
    name = UNIT.sub("", header).strip()
    if BARE_PERIOD.match(name):
        return f"{'amount' if f.value.kind == 'money' else 'value'} {_in_period(name)}"
    return counted(f, lc_first(PARTICIPLE_FIELDS.get(name.lower(), name)))


def _quantity_noun(f: Fact, item: str) -> str:
    """What a number in a period column is: the noun its label puts after the row's name ("Scope 1
    emissions in 2023" -> "emissions"), else "amount" for money and "value" for anything else."""
    lab = strip_location(f.label)
    if lab.lower().startswith(item.lower()):
        rest = lab[len(item):].strip()
        m = re.match(r"^([a-z][a-z ]*?) (?:in|for|at|over|during)\b", rest)
        if m and len(m.group(1).split()) <= 3:
            return m.group(1)
    return "amount" if f.value.kind == "money" else "value"


AGENT_NOUNS = {"prepared": "preparer", "approved": "approver", "reviewed": "reviewer", "checked": "checker",
               "authorised": "authoriser", "authorized": "authorizer", "submitted": "submitter",
               "requested": "requester", "inspected": "inspector", "signed": "signatory", "filed": "filer",
               "owned": "owner", "raised": "person who raised it", "recorded": "recorder", "issued": "issuer",
               "reported": "reporter", "completed": "person who completed it"}
PARTICIPLE_FIELDS = {"detected": "time detected", "resolved": "time resolved", "issued": "issue date",
                     "passed": "result", "expires": "expiry date", "filed on": "filing date", "signed": "date signed",
                     "paid": "amount paid", "incurred": "amount incurred", "invoiced": "amount invoiced",
                     "budgeted": "amount budgeted", "claimed": "amount claimed", "received": "amount received",
                     "spent": "amount spent", "committed": "amount committed", "forecast": "amount forecast",
                     "approved": "amount approved", "allocated": "amount allocated", "outstanding": "amount outstanding",
                     "actual": "actual amount", "planned": "planned amount", "billed": "amount billed"}
"""A field headed by a bare participle names the event's time or outcome ("Detected" -> "time detected"), or
the amount it counts ("Paid" -> "amount paid": "the paid from the incurred" is no phrase)."""
"""A field labelled "Prepared by" names its person: "the preparer", not "the prepared by"."""


def field_name(header: str) -> str:
    """A column header or field label as a noun phrase in a sentence ("Due date" -> "due date",
    "Amount (EUR)" -> "amount", "due_date" -> "due date", "Prepared by" -> "preparer", "Customer: title" ->
    "customer's title")."""
    name = lc_first(UNIT.sub("", header).replace("_", " ").strip())
    m = re.match(r"^(?:(.+?) )?(\w+ed) by$", name, re.IGNORECASE)
    if m and m.group(2).lower() in AGENT_NOUNS:
        who = AGENT_NOUNS[m.group(2).lower()]
        name = f"{m.group(1)} {who}" if m.group(1) else who
    name = PARTICIPLE_FIELDS.get(name.lower(), name)
    if ": " in name:  # "Customer: title" -> "customer's title"
        whose, what = name.split(": ", 1)
        name = f"{lc_first(whose)}'s {field_name(what)}"
    return name


def lc_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _numbered(text: str) -> tuple[str, str] | None:
    m = NUMBERED.match(text.strip())
    return (m.group(1), m.group(2).rstrip(".")) if m else None


def block_ref(block: Block, page: int) -> str:
    """How a question points at a block: by its number when the caption has one, else by title and page."""
    if isinstance(block, TableBlock):
        num = _numbered(block.caption)
        if num:
            return num[0]
        cap = block.caption.strip().rstrip(".")
        return named_as(block, cap) if cap else f"the table on page {page}"
    if isinstance(block, FigureBlock):
        for text in (block.title, block.caption):
            num = _numbered(text)
            if num:
                return num[0]
        if block.title:
            return named_as(block, block.title.strip().rstrip('.'))
        return f"the {block.chart} chart on page {page}"
    if isinstance(block, FormBlock):
        named = form_name(block)
        return f"the {named}" if named else f"the form on page {page}"
    if isinstance(block, ListBlock):
        return named_as(block, block.title) if block.title else f"the list on page {page}"
    if isinstance(block, AnnotationBlock):
        return f"the {ANNOTATION_NAMES[block.kind]} on page {page}"
    return f"the text on page {page}"


CONTENT_REF_MAX_WORDS = 9
"""Longest block title a question names a block by (a longer one is cut at its first comma or bracket)."""


def content_ref(block: Block, short: bool = False) -> str:
    """How a question names a block by what it holds, not where it is: a table or chart by its title, a form
    or list by its title ("" when the block has none: then only its locator names it). ``short``: the title
    up to its first comma, bracket, "for the" or "at" ("Units shipped by product" for "Units shipped by
    product, H1 2024 and H1 2025"), which names the block where no other block's short title is the same."""
    title = block_title(block) if isinstance(block, TableBlock | FigureBlock) else getattr(block, "title", "")
    title = (title or "").strip().rstrip(".")
    if short or len(title.split()) > CONTENT_REF_MAX_WORDS:
        title = re.split(r",(?=[^,]*\d)|\(|:| for the | at (?=\d)", title)[0].strip()
    if not title or len(title.split()) > CONTENT_REF_MAX_WORDS:
        return ""
    return named_as(block, title)


def named_as(block: Block, title: str) -> str:
    """A block named by its title as a reader says it, without quotes: "the findings by severity table",
    "the table on energy consumption by site, 2022" (a title with a comma or a figure goes after "on"),
    "the next steps list"."""
    kind = {TableBlock: "table", FigureBlock: "chart", ListBlock: "list"}.get(type(block))
    if isinstance(block, FormBlock):
        return f"the {form_name(block)}"
    if kind is None:
        return ""
    t = re.sub(r": (.+)$", r" (\1)", lc_first(title))  # "sales by store: Q4 2022 ..." -> "sales by store (Q4 2022 ...)"
    if kind == "list" or not re.search(r"[,\d(]", t) and len(t.split()) <= 5:
        return f"the {t} {kind}"
    return f"the {kind} on {t}"


FORM_NAMES = {"signature_block": "signature block", "next_meeting": "signature block of the minutes",
              "claimant": "claimant details", "applicant_details": "applicant details"}
"""Genre forms whose printed title is no noun a question can use ("Signed for and on behalf of the parties",
"Claimant"): what a reader calls them."""


def form_name(block: FormBlock) -> str:
    """A form as a question names it: what a reader calls a genre form, else its title."""
    return FORM_NAMES.get(block.genre_block or "", block.title or "")


def block_title(block: Block) -> str:
    """The subject of a table or chart as its caption states it ("Remediation plan"), or ''."""
    text = getattr(block, "caption", "") if isinstance(block, TableBlock) else getattr(block, "title", "")
    num = _numbered(text or "")
    return (num[1] if num else (text or "")).strip().rstrip(".")
