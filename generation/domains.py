"""The 50 enterprise domains and the document recipes, as data.

A domain carries the vocabulary a document of that field is written in: row labels for its tables
(``items``), the metrics it reports (with value kind, unit and a plausible range), job roles, departments,
discussion topics, action items and checkbox statements. A recipe is a kind of document (annual report,
invoice, audit memo, ...): its title pattern, section headings and the domain tags it suits. Recipes
with no tags suit every domain. Everything here is plain data so it can be listed, diffed and extended
without touching the generators; the module is long because it is those two tables (about 600 lines of
domains, 140 of recipes), and they stay in one file with the small classes that hold them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Literal

from synthdocqa.ir.vocab import (
    CHART_KINDS,
    DOMAIN_SLUGS,
    ELEMENT_TYPES,
    RECIPE_SLUGS,
    STYLE_FAMILIES,
    TABLE_KINDS,
    ChartKind,
    DomainSlug,
    ElementType,
    Quantity,
    RecipeSlug,
    StyleFamily,
    TableKind,
)

MetricKind = str  # "money" | "count" | "number" | "percent"
Behaviour = Literal["flow", "stock", "cumulative", "level"]
"""How a metric moves over time: a ``flow`` accrues over a period (a quarter holds about a quarter of a
year), a ``stock`` is a level at the period's end, a ``cumulative`` value never goes down (cost to date,
progress) and a ``level`` (rates, ratios, scores) is an average over the period."""

_QUANTITY_OF_KIND: dict[str, Quantity] = {"money": "amount", "count": "count", "percent": "rate"}
_DURATION_UNITS = frozenset({"hours", "days", "minutes"})
_SEMANTICS: dict[str, tuple[Quantity | None, Behaviour | None]] = {
    # per-unit money and averages: never summed, a change is a difference in the unit
    "ARPU": ("ratio", "level"), "Average daily rate": ("ratio", "level"), "Average order value": ("ratio", "level"),
    "Average length of stay": ("ratio", "level"), "Average transit time": ("ratio", "level"),
    "Average handle time": ("ratio", "level"), "Days of supply": ("ratio", "level"),
    "Dock-to-stock time": ("ratio", "level"), "Evaluation days": ("ratio", "level"), "Grade": ("ratio", "level"),
    "Yield": ("ratio", "level"), "Award score": ("index", "level"), "Energy intensity": ("ratio", "level"),
    "Sick days per employee": ("ratio", "level"),
    # levels at a date rather than amounts accrued over a period
    "Headcount": (None, "stock"), "Deposits": (None, "stock"), "Policies in force": (None, "stock"),
    "Assets under management": (None, "stock"), "Holdings": (None, "stock"), "Open filings": (None, "stock"),
    "Open matters": (None, "stock"), "Exposure": (None, "stock"), "Open positions": (None, "stock"),
    "Inventory value": (None, "stock"), "Subscribers": (None, "stock"), "Valuation": (None, "stock"),
    "Lettable area": (None, "stock"), "Contract value": (None, "stock"), "Budget": (None, "stock"),
    "Enrolled students": (None, "stock"), "Harvested area": (None, "stock"),
    "Critical vulnerabilities": (None, "stock"), "Open cases": (None, "stock"),
    # running totals: never go down
    "Cost to date": (None, "cumulative"), "Spend to date": (None, "cumulative"), "Progress": (None, "cumulative"),
}
_TOTAL_OF = {"Cost to date": "Contract value", "Spend to date": "Budget"}
"""A running total that heads for another metric of the same item (cost to date -> contract value)."""


@dataclass(frozen=True)
class Metric:
    """A reported quantity: ``kind`` decides the value type, ``unit`` the unit of numbers, ``quantity`` the
    arithmetic that means something on it (``ir.arithmetic_rules``) and ``behaviour`` how it moves over time."""

    name: str
    kind: MetricKind
    low: float
    high: float
    unit: str = ""
    quantity: Quantity = "amount"
    behaviour: Behaviour = "flow"
    total_of: str = ""

    @cached_property
    def slug(self) -> str:
        return "_".join("".join(c for c in w if c.isalnum()) for w in self.name.lower().split())

    @property
    def small_count(self) -> bool:
        """A count that is often in single digits: its change is stated in units, never in percent."""
        return self.quantity == "count" and self.high <= 200


def metric_semantics(name: str, kind: str, unit: str) -> tuple[Quantity, Behaviour]:
    """Semantic type and behaviour over time of a metric (kind and unit decide, named exceptions first)."""
    quantity, behaviour = _SEMANTICS.get(name, (None, None))
    if quantity is None:
        quantity = _QUANTITY_OF_KIND.get(kind) or ("duration" if unit in _DURATION_UNITS else "amount")
    if behaviour is None:
        behaviour = "level" if quantity in ("rate", "ratio", "index") else "flow"
    return quantity, behaviour


@dataclass(frozen=True)
class Domain:
    slug: DomainSlug
    title: str
    description: str
    tags: tuple[str, ...]
    item_kind: str
    items: tuple[str, ...]
    metrics: tuple[Metric, ...]
    roles: tuple[str, ...]
    departments: tuple[str, ...]
    topics: tuple[str, ...]
    actions: tuple[str, ...]
    checks: tuple[str, ...]
    currency: str
    id_prefix: str
    org_words: tuple[str, ...]
    style_families: tuple[StyleFamily, ...]
    entity_kinds: tuple[str, ...] = ("person", "organisation")

    def __post_init__(self) -> None:
        for name, words, vocab in (("slug", [self.slug], DOMAIN_SLUGS), ("style_families", self.style_families,
                                                                          STYLE_FAMILIES)):
            unknown = [w for w in words if w not in vocab]
            if unknown:
                raise ValueError(f"domain {self.slug!r}: {name}: unknown {unknown}; allowed: {list(vocab)}")

    @property
    def recipes(self) -> tuple[RecipeSlug, ...]:
        return tuple(r.slug for r in RECIPES if not r.tags or set(r.tags) & set(self.tags))

    def metric(self, slug: str) -> Metric | None:
        return next((m for m in self.metrics if m.slug == slug or m.name == slug), None)


@dataclass(frozen=True)
class Section:
    """One section of a genre's grammar: its heading, the genre blocks it holds (built at its start, in this
    order: ``generation.content.genre``) and whether every document of the genre has it."""

    title: str
    blocks: tuple[str, ...] = ()
    required: bool = True
    prose: bool = False
    """a section of text (a letter, a background, an outlook): written, with no general tables or charts"""
    lens: str = ""
    """what the section's general content reports on when it is not the issuer's trade (``LENSES``; "" for
    the recipe's own lens, or the trade)"""


def T(title: str, *blocks: str, lens: str = "") -> Section:
    """A required section of text (opening with ``blocks``, if any: a scope's table of controls)."""
    return Section(title, tuple(blocks), prose=True, lens=lens)


def S(title: str, *blocks: str, lens: str = "") -> Section:
    """A required section holding ``blocks``."""
    return Section(title, tuple(blocks), lens=lens)


def O(title: str, *blocks: str, prose: bool = False) -> Section:  # noqa: E743 - the grammar's "optional"
    """An optional section (a document of the genre leaves it out now and then)."""
    return Section(title, tuple(blocks), required=False, prose=prose)


@dataclass(frozen=True)
class Recipe:
    """A kind of document. Besides its title and sections it says what fits it: its length in pages
    (``pages``: min, typical, max), how its blocks lean (``elements``: multipliers of the spec's element mix),
    which charts it may hold and which table kinds it uses (weights; empty: the planner's defaults)."""

    slug: RecipeSlug
    title: str
    noun: str
    description: str
    title_pattern: str
    grammar: tuple[Section, ...]
    tags: tuple[str, ...] = ()
    pages: tuple[int, int, int] = (4, 12, 40)
    elements: dict[ElementType, float] = field(default_factory=dict)
    charts: tuple[ChartKind, ...] = CHART_KINDS
    tables: dict[TableKind, float] = field(default_factory=dict)
    lens: str = ""
    """what the recipe's sections report on by default (``LENSES``; "": the issuer's trade)"""

    @property
    def sections(self) -> tuple[str, ...]:
        """The section headings of the grammar, in order (title patterns: ``{Item_kind} Performance``)."""
        return tuple(sec.title for sec in self.grammar)

    @property
    def genre_blocks(self) -> frozenset[str]:
        """Every genre block kind the grammar holds (lint allows no other)."""
        return frozenset(b for sec in self.grammar for b in sec.blocks)

    @property
    def generic_elements(self) -> frozenset[ElementType]:
        """The general element kinds the genre's sections are filled with besides their genre blocks: a
        form only where the genre files forms (a form pack, a claim, a training record), never in a report."""
        return frozenset(e for e in ELEMENT_TYPES if self.element_weight(e) > 0)

    @property
    def genre_class(self) -> GenreClass:
        """Narrative genres are read as text with exhibits, transactional ones as tables and forms."""
        if self.slug in NARRATIVE_RECIPES:
            return "narrative"
        return "transactional" if self.slug in TRANSACTIONAL_RECIPES else "report"

    @property
    def keeps_register(self) -> bool:
        """Whether the genre keeps a ledger: its appendix is the register of postings (a report's holds its data
        tables, and its text speaks of no postings)."""
        return self.tables.get("register", 0) > 0

    @property
    def plural_noun(self) -> bool:
        """Whether the document's noun takes a plural verb ("these minutes are issued")."""
        return self.noun.endswith("minutes")

    @property
    def this_noun(self) -> str:
        """The document referring to itself: "this policy", "these minutes"."""
        return f"{'these' if self.plural_noun else 'this'} {self.noun}"

    @property
    def prose_share(self) -> tuple[float, float]:
        """The range of the share of a rendered page's content area that paragraphs cover (lint checks
        each document of the recipe against it)."""
        return PROSE_SHARE[self.genre_class]

    @property
    def front_matter(self) -> bool:
        """Whether a long document of the recipe opens with a cover and a table of contents and numbers its
        sections (a report does; an invoice, a log, an archive file or a form pack does not)."""
        return self.genre_class != "transactional" and self.pages[1] >= 12 and self.slug not in NO_FRONT_MATTER

    @property
    def appendix(self) -> str:
        """The title of the appendix a long document of the recipe ends with ("" for none): reports with a
        contents page carry their long schedules there, minutes and briefings do not."""
        return APPENDIX_TITLE if self.front_matter and self.slug not in NO_APPENDIX else ""

    def __post_init__(self) -> None:
        # a dataclass does not check its Literal fields: a misspelt recipe fails at import, naming the field
        lenses = [lens for lens in (self.lens, *(sec.lens for sec in self.grammar)) if lens]
        for name, words, vocab in (("slug", [self.slug], RECIPE_SLUGS), ("elements", self.elements, ELEMENT_TYPES),
                                   ("charts", self.charts, CHART_KINDS), ("tables", self.tables, TABLE_KINDS),
                                   ("lens", lenses, LENSES)):
            unknown = [w for w in words if w not in vocab]
            if unknown:
                raise ValueError(f"recipe {self.slug!r}: {name}: unknown {unknown}; allowed: {list(vocab)}")

    def lens_of(self, section: Section) -> str:
        """The lens a section of this recipe is seen through ("" for the issuer's trade)."""
        return section.lens or self.lens

    def fits(self, n_pages: int) -> bool:
        return self.pages[0] <= n_pages <= self.pages[2]

    def element_weight(self, element: ElementType) -> float:
        if element == "figure" and not self.charts:
            return 0.0
        return self.elements.get(element, 1.0)


GenreClass = Literal["narrative", "report", "transactional"]
NARRATIVE_RECIPES = frozenset({"research_report", "annual_report", "sustainability_report", "policy_document",
                               "audit_memo", "board_minutes"})
TRANSACTIONAL_RECIPES = frozenset({"invoice", "purchase_order", "expense_claim", "forms_workflow", "field_ops_log",
                                   "training_record"})
NO_FRONT_MATTER = frozenset({"scanned_archive", "operations_dashboard"})
PROSE_SHARE: dict[GenreClass, tuple[float, float]] = {
    "narrative": (0.5, 0.95), "report": (0.1, 0.8), "transactional": (0.0, 0.5)}
"""Share of the content area that paragraphs cover, by genre class: narrative genres are mostly prose."""
NO_APPENDIX = frozenset({"board_minutes", "executive_handout"})
APPENDIX_TITLE = "Supporting schedules"
APPENDIX_MIN_PAGES = 16
"""A document of a recipe with an appendix this long ends with one (two pages from 40 pages on)."""
FRONT_MATTER_MIN_PAGES = 8
"""A document of a front-matter recipe this long has a cover page and a table of contents."""


def _split(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in text.split("|") if s.strip())


def _metrics(text: str) -> tuple[Metric, ...]:
    out = []
    for part in _split(text):
        bits = part.split(":")
        name, kind, low, high = bits[0], bits[1], float(bits[2]), float(bits[3])
        unit = bits[4] if len(bits) > 4 else ""
        quantity, behaviour = metric_semantics(name, kind, unit)
        out.append(Metric(name=name, kind=kind, low=low, high=high, unit=unit, quantity=quantity,
                          behaviour=behaviour, total_of=_TOTAL_OF.get(name, "")))
    return tuple(out)


_STYLES = {
    "finance": ("corporate", "classic", "modern"),
    "health": ("modern", "corporate", "technical"),
    "legal": ("classic", "corporate"),
    "people": ("modern", "corporate"),
    "ops": ("technical", "corporate", "modern"),
    "industrial": ("technical", "corporate"),
    "energy": ("technical", "corporate", "government"),
    "tech": ("modern", "technical"),
    "property": ("classic", "corporate", "modern"),
    "commerce": ("modern", "corporate"),
    "public": ("government", "classic"),
    "research": ("technical", "classic", "modern"),
}


def _d(slug: DomainSlug, title: str, description: str, tags: str, item_kind: str, items: str, metrics: str,
       roles: str, departments: str, topics: str, actions: str, checks: str, currency: str, id_prefix: str,
       org_words: str, entity_kinds: str = "person|organisation") -> Domain:
    tag_t = _split(tags)
    styles: list[str] = []
    for t in tag_t:
        for s in _STYLES[t]:
            if s not in styles:
                styles.append(s)
    return Domain(slug=slug, title=title, description=description, tags=tag_t, item_kind=item_kind,
                  items=_split(items), metrics=_metrics(metrics), roles=_split(roles),
                  departments=_split(departments), topics=_split(topics), actions=_split(actions),
                  checks=_split(checks), currency=currency, id_prefix=id_prefix, org_words=_split(org_words),
                  style_families=tuple(styles), entity_kinds=_split(entity_kinds))


DOMAINS: tuple[Domain, ...] = (
    _d("corporate_finance", "Corporate Finance", "Group treasury, planning and financial reporting", "finance",
       "region", "North America|Western Europe|Central Europe|Asia Pacific|Latin America|Middle East|Nordics|"
       "UK and Ireland|Southern Africa|Oceania",
       "Revenue:money:200000:9000000|Operating costs:money:100000:5000000|Capital expenditure:money:50000:"
       "2000000|Headcount:count:20:900:employees",
       "Chief Financial Officer|Group Controller|Treasury Manager|Head of Financial Planning|Head of Tax",
       "Treasury|Financial Planning|Group Accounting|Tax|Investor Relations",
       "liquidity|working capital|cost discipline|capital allocation|currency exposure|refinancing",
       "Refinance the revolving credit facility|Close the intercompany reconciliation|Update the cash forecast|"
       "Review hedging limits|Finalise the transfer pricing file",
       "Budget approved|Variance explained|Supporting schedules attached|Cost centre verified",
       "USD", "FIN", "Capital|Holdings|Group|Partners|Financial"),
    _d("retail_banking", "Retail Banking", "Branch network, deposits and consumer lending", "finance",
       "branch", "Downtown|Riverside|Harbour Point|Westfield|Old Town|Airport Road|University Park|Lakeside|"
       "Hillcrest|Market Square",
       "Deposits:money:1000000:40000000|New loans:money:200000:8000000|Accounts opened:count:40:2500:"
       "accounts|Default rate:percent:0.4:4.5",
       "Branch Manager|Regional Director|Chief Risk Officer|Head of Lending|Compliance Officer",
       "Retail Lending|Branch Operations|Credit Risk|Customer Service|Compliance",
       "deposit growth|credit quality|branch productivity|customer onboarding|fraud prevention",
       "Refresh the credit scoring model|Complete the KYC file review|Retrain tellers on fraud alerts|"
       "Consolidate the Westfield branch|Update the complaints register",
       "Identity verified|Credit check completed|Terms accepted|Direct debit mandate signed",
       "USD", "RB", "Savings|Bank|Trust|Credit Union|Financial"),
    _d("insurance", "Insurance", "Underwriting, claims handling and reinsurance", "finance",
       "line of business", "Motor|Household|Commercial Property|Marine Cargo|Professional Liability|Travel|"
       "Health Supplementary|Cyber|Agriculture|Engineering",
       "Gross written premium:money:500000:20000000|Claims paid:money:200000:9000000|Policies in force:count:"
       "500:60000:policies|Loss ratio:percent:35:85",
       "Chief Underwriting Officer|Claims Director|Actuarial Manager|Reinsurance Manager|Head of Distribution",
       "Underwriting|Claims|Actuarial|Reinsurance|Distribution",
       "loss ratios|reserve adequacy|catastrophe exposure|pricing discipline|claims leakage",
       "Reprice the commercial property book|Close aged claims over 180 days|Renew the quota share treaty|"
       "Review the flood accumulation model|Audit the broker commissions",
       "Claim form complete|Police report attached|Photos received|Excess paid",
       "EUR", "POL", "Assurance|Insurance|Mutual|Underwriters|Re"),
    _d("asset_management", "Asset Management", "Fund management, portfolio reporting and client mandates",
       "finance", "fund", "Global Equity Fund|Euro Bond Fund|Emerging Markets Fund|Balanced Income Fund|"
       "Infrastructure Fund|Money Market Fund|Sustainable Leaders Fund|Small Cap Fund|Real Return Fund",
       "Assets under management:money:5000000:90000000|Net inflows:money:100000:6000000|Return:percent:"
       "1:14|Holdings:count:25:400:positions",
       "Chief Investment Officer|Portfolio Manager|Head of Client Reporting|Risk Analyst|Fund Accountant",
       "Portfolio Management|Client Reporting|Investment Risk|Fund Administration|Distribution",
       "performance attribution|liquidity risk|fee pressure|mandate compliance|stewardship",
       "Rebalance the balanced income fund|Publish the quarterly factsheets|Review counterparty limits|"
       "Vote the annual general meeting proxies|Reconcile custodian positions",
       "Investment guidelines met|Benchmark confirmed|Fees reconciled|Client notified",
       "EUR", "AM", "Asset Management|Investors|Capital|Advisors|Wealth"),
    _d("accounting_audit", "Accounting and Audit", "External audit engagements and accounting close", "finance",
       "audit area", "Revenue recognition|Inventory|Payroll|Fixed assets|Accounts payable|Cash and treasury|"
       "Provisions|Leases|Intercompany|Related parties",
       "Sample size:count:10:120:items|Exceptions found:count:0:14:exceptions|Adjustments:money:1000:"
       "450000|Hours spent:number:8:320:hours",
       "Audit Partner|Audit Manager|Senior Auditor|Financial Controller|Head of Internal Audit",
       "Audit|Financial Reporting|Internal Audit|Accounts Payable|General Ledger",
       "control deficiencies|materiality|management override|cut-off testing|estimates",
       "Obtain the bank confirmations|Resolve the inventory count difference|Document the lease judgement|"
       "Agree the payroll reconciliation|Update the management letter",
       "Evidence on file|Reviewer sign-off|Management response received|Follow-up scheduled",
       "GBP", "AUD", "Audit|Accountants|Advisory|Assurance|Partners"),
    _d("tax", "Tax", "Corporate tax filings, VAT and transfer pricing", "finance|legal",
       "jurisdiction", "United States|Germany|France|Netherlands|Ireland|Singapore|Japan|Canada|Brazil|Spain",
       "Taxable income:money:100000:8000000|Tax paid:money:20000:2000000|Effective tax rate:percent:9:32|"
       "Open filings:count:1:30:filings",
       "Head of Tax|Tax Manager|Transfer Pricing Lead|VAT Specialist|Tax Counsel",
       "Direct Tax|Indirect Tax|Transfer Pricing|Tax Reporting|Legal",
       "filing deadlines|uncertain tax positions|transfer pricing documentation|VAT recovery|audits",
       "File the German VAT return|Respond to the information request|Update the master file|"
       "Reconcile deferred tax balances|Book the provision true-up",
       "Return filed|Payment confirmed|Local file updated|Advisor consulted",
       "EUR", "TAX", "Tax Advisors|Fiscal Services|Group|Partners|Consulting"),
    _d("healthcare_admin", "Healthcare Administration", "Hospital operations, admissions and billing", "health",
       "department", "Emergency|Cardiology|Orthopaedics|Radiology|Oncology|Paediatrics|Maternity|Surgery|"
       "Outpatients|Neurology",
       "Admissions:count:120:6000:patients|Average length of stay:number:1.5:9.5:days|Billing:money:"
       "100000:6000000|Bed occupancy:percent:55:98",
       "Chief Medical Officer|Director of Nursing|Hospital Administrator|Billing Manager|Patient Safety Lead",
       "Patient Services|Nursing|Revenue Cycle|Clinical Governance|Facilities",
       "waiting times|bed capacity|staffing levels|claim denials|patient safety",
       "Reduce emergency waiting times|Audit discharge summaries|Renegotiate the imaging contract|"
       "Recruit night-shift nurses|Close coding backlog",
       "Consent form signed|Insurance verified|Allergies recorded|Discharge plan agreed",
       "USD", "HC", "Health|Medical Center|Care|Clinic|Hospital"),
    _d("pharmaceuticals", "Pharmaceuticals", "Manufacturing, regulatory affairs and product supply",
       "health|industrial", "product", "Amlotrex 20 mg|Cardivan 5 mg|Neurozine 50 mg|Pulmocort inhaler|"
       "Dermavil cream|Gastroxen 40 mg|Immunoval vial|Ostrafen 70 mg|Viramed syrup",
       "Units shipped:count:10000:900000:units|Net sales:money:500000:25000000|Batch yield:percent:88:"
       "99.5|Deviations:count:0:25:deviations",
       "Head of Regulatory Affairs|Qualified Person|Supply Chain Director|Quality Manager|Medical Director",
       "Regulatory Affairs|Quality Assurance|Manufacturing|Pharmacovigilance|Supply Chain",
       "batch release|stability studies|serialisation|supply continuity|inspection readiness",
       "Submit the variation dossier|Close the CAPA on line 3|Qualify the second API supplier|"
       "Update the stability protocol|Complete the mock recall",
       "Batch record reviewed|Certificate of analysis attached|Deviation closed|Label approved",
       "EUR", "PH", "Pharma|Therapeutics|Laboratories|Biosciences|Life Sciences"),
    _d("clinical_research", "Clinical Research", "Trial operations, site management and enrolment",
       "health|research", "site", "Boston General|Lyon University Hospital|Madrid Clinic|Toronto Research "
       "Centre|Melbourne Medical|Munich Klinikum|Osaka Institute|Warsaw Hospital|Chicago Memorial",
       "Patients enrolled:count:5:400:patients|Screen failures:count:0:90:patients|Site payments:money:"
       "10000:900000|Retention:percent:70:99",
       "Principal Investigator|Clinical Trial Manager|Study Coordinator|Medical Monitor|Data Manager",
       "Clinical Operations|Data Management|Biostatistics|Medical Affairs|Site Management",
       "enrolment pace|protocol deviations|data queries|site activation|patient retention",
       "Activate the remaining sites|Resolve the open data queries|Retrain coordinators on the protocol|"
       "Update the monitoring plan|Reconcile investigator payments",
       "Informed consent on file|Eligibility confirmed|Randomisation complete|Visit window met",
       "USD", "CT", "Clinical|Research|Trials|Biopharma|CRO"),
    _d("legal", "Legal", "Litigation, contracts and corporate legal affairs", "legal",
       "matter", "Supplier dispute|Employment claim|Patent opposition|Lease renegotiation|Data protection "
       "inquiry|Merger filing|Trademark renewal|Customer arbitration|Regulatory investigation",
       "Legal fees:money:5000:900000|Exposure:money:10000:5000000|Hours billed:number:5:900:hours|"
       "Open matters:count:1:60:matters",
       "General Counsel|Senior Associate|Paralegal|Compliance Counsel|Company Secretary",
       "Litigation|Commercial Contracts|Corporate Affairs|Intellectual Property|Privacy",
       "litigation risk|contract backlog|outside counsel spend|privilege|regulatory change",
       "File the statement of defence|Renew the trademark portfolio|Review the supplier indemnities|"
       "Update the data processing register|Schedule the board resolution",
       "Conflict check cleared|Engagement letter signed|Privilege reviewed|Board informed",
       "USD", "LGL", "Legal|Law Group|Attorneys|Counsel|Chambers"),
    _d("human_resources", "Human Resources", "Workforce planning, recruiting and employee relations",
       "people", "department", "Sales|Engineering|Operations|Finance|Customer Support|Marketing|Legal|"
       "Logistics|Research|Facilities",
       "Headcount:count:5:1200:employees|Open positions:count:0:80:positions|Attrition:percent:2:22|"
       "Training spend:money:2000:400000",
       "Chief People Officer|HR Business Partner|Talent Acquisition Lead|Compensation Manager|"
       "Learning Manager",
       "Talent Acquisition|Compensation and Benefits|Learning and Development|Employee Relations|HR Operations",
       "retention|hiring pipeline|engagement|pay equity|succession planning",
       "Launch the engagement survey|Close the senior engineer requisitions|Review the bonus pool|"
       "Update the hybrid work policy|Complete the pay equity audit",
       "Offer accepted|References checked|Right to work verified|Contract signed",
       "USD", "HR", "People|Talent|Staffing|Workforce|Solutions"),
    _d("payroll", "Payroll", "Salary processing, deductions and statutory filings", "people|finance",
       "pay group", "Monthly salaried|Hourly production|Sales commission|Executives|Interns|Contractors|"
       "Part-time retail|Overseas assignees",
       "Gross pay:money:50000:4000000|Employees paid:count:10:3000:employees|Overtime hours:number:0:9000:"
       "hours|Error rate:percent:0.1:3",
       "Payroll Manager|Payroll Specialist|HR Director|Benefits Administrator|Financial Controller",
       "Payroll|Benefits|HR Operations|Finance|Tax",
       "accuracy|statutory deadlines|overtime control|benefit deductions|year-end filings",
       "Submit the monthly tax filing|Correct the overtime miscalculation|Update the pension rates|"
       "Reconcile the payroll ledger|Distribute year-end statements",
       "Timesheets approved|Bank file released|Tax filing submitted|Payslips distributed",
       "GBP", "PAY", "Payroll Services|People|HR|Solutions|Group"),
    _d("procurement", "Procurement", "Sourcing, supplier contracts and purchase orders", "ops|commerce",
       "category", "Office supplies|IT hardware|Professional services|Facilities maintenance|Travel|"
       "Packaging|Raw materials|Logistics services|Marketing services|Software licences",
       "Spend:money:10000:5000000|Savings:money:1000:600000|Purchase orders:count:5:1800:orders|"
       "Contract coverage:percent:40:98",
       "Chief Procurement Officer|Category Manager|Buyer|Contract Manager|Supplier Quality Engineer",
       "Procurement|Strategic Sourcing|Accounts Payable|Contract Management|Supplier Quality",
       "supplier consolidation|maverick spend|payment terms|supplier risk|tender compliance",
       "Run the packaging tender|Consolidate the travel agencies|Renegotiate payment terms|"
       "Onboard the new IT reseller|Review single-source suppliers",
       "Three quotes obtained|Budget holder approved|Supplier onboarded|Contract on file",
       "USD", "PO", "Supplies|Trading|Industries|Sourcing|Partners"),
    _d("supply_chain", "Supply Chain Planning", "Demand planning, inventory and supplier performance",
       "ops|industrial", "product family", "Beverages|Snacks|Home care|Personal care|Spare parts|Batteries|"
       "Small appliances|Textiles|Stationery|Garden tools",
       "Forecast units:count:1000:500000:units|Inventory value:money:50000:6000000|Forecast accuracy:"
       "percent:60:97|Days of supply:number:5:90:days",
       "Supply Chain Director|Demand Planner|Inventory Analyst|S&OP Manager|Supplier Manager",
       "Demand Planning|Inventory Management|Supply Planning|S&OP|Supplier Management",
       "forecast accuracy|stock-outs|excess inventory|lead times|supplier reliability",
       "Reset safety stock for spare parts|Review slow movers|Align the promotion calendar|"
       "Qualify a second battery supplier|Publish the consensus forecast",
       "Forecast signed off|Capacity confirmed|Supplier notified|Stock transfer approved",
       "EUR", "SCP", "Supply|Distribution|Goods|Brands|Consumer"),
    _d("logistics", "Logistics", "Freight, transport management and delivery performance", "ops",
       "lane", "Rotterdam to Duisburg|Chicago to Dallas|Shanghai to Los Angeles|Madrid to Lyon|"
       "Warsaw to Prague|Atlanta to Miami|Hamburg to Milan|Felixstowe to Leeds|Singapore to Sydney",
       "Shipments:count:20:9000:shipments|Freight cost:money:10000:3000000|On-time delivery:percent:"
       "78:99|Average transit time:number:1:35:days",
       "Head of Logistics|Transport Planner|Freight Manager|Customs Specialist|Fleet Manager",
       "Transport|Customs|Fleet|Customer Logistics|Network Planning",
       "on-time delivery|fuel surcharges|carrier capacity|customs delays|damage claims",
       "Renew the ocean freight contract|Audit carrier invoices|Reduce empty miles|"
       "Digitise proof of delivery|Review the customs broker",
       "Customs cleared|Delivery confirmed|Seal intact|Carrier invoice matched",
       "EUR", "SHP", "Logistics|Freight|Transport|Carriers|Express"),
    _d("warehousing", "Warehousing", "Distribution centres, picking and inventory control", "ops",
       "site", "Northgate DC|Eastport DC|Midlands Hub|Valley Park DC|Harbour Warehouse|Central Cross-dock|"
       "Southfield DC|Airport Hub",
       "Orders picked:count:1000:400000:orders|Pick accuracy:percent:96:99.9|Labour cost:money:20000:"
       "2000000|Dock-to-stock time:number:2:48:hours",
       "Warehouse Manager|Shift Supervisor|Inventory Controller|Health and Safety Lead|Operations Director",
       "Warehouse Operations|Inventory Control|Health and Safety|Transport|Engineering",
       "pick accuracy|labour productivity|cycle counts|safety incidents|peak readiness",
       "Re-slot the fast movers|Complete cycle counts for zone C|Service the forklift fleet|"
       "Hire peak season temps|Fix the dock door sensors",
       "Cycle count complete|Safety walk done|Damaged stock quarantined|Returns processed",
       "GBP", "WH", "Distribution|Warehousing|Storage|Fulfilment|Logistics"),
    _d("manufacturing", "Manufacturing", "Plant operations, output and equipment effectiveness",
       "industrial", "production line", "Line 1 Assembly|Line 2 Assembly|Press Shop|Paint Shop|Machining "
       "Cell A|Machining Cell B|Packaging Line|Moulding|Welding Bay|Final Inspection",
       "Units produced:count:2000:300000:units|Scrap cost:money:1000:400000|OEE:percent:55:92|"
       "Downtime:number:2:300:hours",
       "Plant Manager|Production Supervisor|Maintenance Manager|Process Engineer|Lean Coordinator",
       "Production|Maintenance|Process Engineering|Quality|Planning",
       "equipment effectiveness|changeover time|scrap reduction|preventive maintenance|throughput",
       "Replace the press shop hydraulics|Run the SMED workshop|Recalibrate the paint robots|"
       "Review scrap codes|Schedule the annual shutdown",
       "Lockout applied|First article approved|Maintenance logged|Shift handover complete",
       "USD", "MFG", "Manufacturing|Industries|Works|Components|Engineering"),
    _d("quality_assurance", "Quality Assurance", "Inspections, non-conformances and corrective actions",
       "industrial|health", "product line", "Valves|Pumps|Sensors|Control panels|Cable harnesses|Housings|"
       "Gearboxes|Filters|Connectors",
       "Inspections:count:20:3000:inspections|Non-conformances:count:0:80:findings|First pass yield:"
       "percent:85:99.5|Cost of poor quality:money:2000:700000",
       "Quality Director|Quality Engineer|Supplier Quality Manager|Metrology Technician|Auditor",
       "Quality Assurance|Quality Control|Supplier Quality|Metrology|Customer Quality",
       "non-conformances|corrective actions|supplier defects|customer complaints|audit findings",
       "Close the open 8D reports|Requalify the gearbox supplier|Calibrate the CMM|Update the control plan|"
       "Audit the sensor line",
       "Root cause identified|Containment in place|Corrective action verified|Customer informed",
       "EUR", "QA", "Precision|Quality|Systems|Technologies|Components"),
    _d("energy_utilities", "Energy Utilities", "Electricity generation, grid operations and retail supply",
       "energy", "plant", "Northside Gas Turbine|Riverbend Hydro|Coastal Wind Farm|Hillview Solar Park|"
       "Eastgate Substation|Westmoor Peaker|Valley Battery Storage|Lakeside CHP",
       "Generation:number:1000:900000:MWh|Availability:percent:80:99.5|Maintenance cost:money:10000:"
       "3000000|Outages:count:0:40:outages",
       "Plant Manager|Grid Operations Manager|Asset Manager|Energy Trader|HSE Manager",
       "Generation|Grid Operations|Asset Management|Trading|HSE",
       "availability|grid stability|maintenance backlog|fuel costs|decarbonisation",
       "Complete the turbine overhaul|Renew the grid connection agreement|Inspect the hydro penstock|"
       "Hedge winter gas volumes|Upgrade the SCADA firewall",
       "Permit to work issued|Isolation verified|Grid operator notified|Test results recorded",
       "EUR", "EN", "Energy|Power|Utilities|Grid|Generation"),
    _d("oil_gas", "Oil and Gas", "Upstream production, drilling and field operations", "energy|industrial",
       "well", "Well A-12|Well A-17|Well B-03|Well B-09|Well C-21|Well D-05|Well D-14|Well E-02|Well F-11",
       "Production:number:500:90000:barrels|Lifting cost:money:10000:2000000|Uptime:percent:75:99|"
       "Flaring:number:10:4000:tonnes",
       "Field Superintendent|Drilling Engineer|Production Engineer|HSE Advisor|Reservoir Engineer",
       "Production Operations|Drilling|Reservoir Engineering|HSE|Maintenance",
       "well integrity|production decline|flaring reduction|rig utilisation|safety performance",
       "Workover Well B-09|Replace the export pump seals|Survey the pipeline corrosion|"
       "Update the emergency response plan|Review chemical injection rates",
       "Gas test passed|Permit signed|Barrier verified|Toolbox talk held",
       "USD", "OG", "Petroleum|Energy|Resources|Exploration|Oil"),
    _d("renewable_energy", "Renewable Energy", "Wind and solar asset operations and development", "energy",
       "site", "Ridgeway Wind|Sunfield Solar|Marsh Lane Solar|Highmoor Wind|Coastline Offshore|Oakridge Solar|"
       "Windy Gap|Meadow Battery",
       "Energy produced:number:500:400000:MWh|Capacity factor:percent:12:52|Revenue:money:50000:9000000|"
       "Turbine faults:count:0:120:faults",
       "Asset Manager|Site Manager|Development Director|Grid Connection Manager|O&M Supervisor",
       "Asset Management|Development|Operations and Maintenance|Grid|Commercial",
       "capacity factor|curtailment|inverter reliability|permitting|power purchase agreements",
       "Repower the Windy Gap turbines|Clean the Sunfield panels|Sign the corporate PPA|"
       "Submit the planning application|Replace failed inverters",
       "Landowner consent obtained|Grid offer accepted|Inspection complete|Warranty claim filed",
       "EUR", "RE", "Renewables|Wind|Solar|Green Energy|Power"),
    _d("esg_sustainability", "ESG and Sustainability", "Emissions accounting, ESG disclosures and targets",
       "energy|finance|commerce", "site", "Head Office|Plant North|Plant South|Distribution Centre|Data Centre|"
       "Research Campus|Retail Estate|Fleet",
       "Scope 1 emissions:number:10:90000:tCO2e|Scope 2 emissions:number:10:60000:tCO2e|Renewable "
       "share:percent:5:100|Water use:number:100:900000:m3",
       "Chief Sustainability Officer|ESG Reporting Lead|Energy Manager|Environmental Engineer|Investor "
       "Relations Manager",
       "Sustainability|ESG Reporting|Energy Management|Environment|Investor Relations",
       "decarbonisation|renewable sourcing|water stewardship|supplier emissions|disclosure readiness",
       "Sign the green electricity contract|Collect supplier emission data|Install sub-metering|"
       "Assure the scope 3 inventory|Publish the climate transition plan",
       "Data assured|Boundary confirmed|Methodology documented|Target approved",
       "EUR", "ESG", "Group|Industries|Holdings|Enterprises|International"),
    _d("information_technology", "Information Technology", "IT service management, infrastructure and "
       "projects", "tech", "service", "Email and collaboration|ERP|Service desk|Network|Data warehouse|"
       "Identity management|CRM|Cloud hosting|Endpoint management|Backup",
       "Tickets resolved:count:50:20000:tickets|Availability:percent:97:99.99|Run cost:money:5000:"
       "3000000|Incidents:count:0:120:incidents",
       "Chief Information Officer|IT Service Manager|Infrastructure Lead|Enterprise Architect|Project Manager",
       "IT Operations|Service Desk|Infrastructure|Architecture|PMO",
       "service availability|cloud migration|technical debt|licence costs|change success",
       "Migrate the data warehouse to the cloud|Renew the network support contract|Patch the ERP servers|"
       "Retire the legacy CRM|Review licence entitlements",
       "Change approved|Backup verified|Rollback plan documented|User acceptance signed",
       "USD", "IT", "Technologies|Systems|Digital|Solutions|Software"),
    _d("cybersecurity", "Cybersecurity", "Security operations, vulnerabilities and risk", "tech",
       "control area", "Identity and access|Endpoint protection|Email security|Network segmentation|"
       "Vulnerability management|Security awareness|Backup and recovery|Third-party risk|Cloud security",
       "Alerts triaged:count:100:90000:alerts|Critical vulnerabilities:count:0:140:findings|Security "
       "spend:money:10000:4000000|Patch compliance:percent:70:99.5",
       "Chief Information Security Officer|SOC Manager|Security Architect|GRC Analyst|Incident Responder",
       "Security Operations|Governance Risk and Compliance|Security Architecture|Identity|Incident Response",
       "patch compliance|phishing resilience|privileged access|incident response|third-party exposure",
       "Enforce multi-factor authentication|Run the ransomware tabletop|Remediate critical findings|"
       "Review privileged accounts|Test backup restores",
       "Risk accepted by owner|Exception expiry set|Evidence uploaded|Control tested",
       "USD", "SEC", "Security|Cyber|Defense|Secure Systems|Labs"),
    _d("telecommunications", "Telecommunications", "Network roll-out, subscribers and service quality",
       "tech|ops", "region", "Metro North|Metro South|Coastal|Highlands|Central Valley|Lakes District|"
       "Eastern Plains|Western Corridor",
       "Subscribers:count:1000:900000:subscribers|ARPU:money:8:90|Churn:percent:0.5:4|Network "
       "availability:percent:98:99.99",
       "Network Director|Regional Operations Manager|Customer Experience Lead|Radio Planning Engineer|"
       "Wholesale Manager",
       "Network Operations|Radio Planning|Customer Experience|Wholesale|Field Services",
       "5G roll-out|churn|network availability|tower leases|fibre build",
       "Complete the fibre build in Metro North|Renegotiate tower leases|Swap legacy radios|"
       "Reduce repeat truck rolls|Launch the retention offer",
       "Site acquired|Power connected|Acceptance test passed|Customer notified",
       "USD", "TEL", "Telecom|Networks|Communications|Mobile|Connect"),
    _d("real_estate", "Real Estate", "Property portfolio, leasing and valuations", "property|finance",
       "property", "Harbour Tower|Elm Street Offices|Riverside Retail Park|Kingsway House|Parkview "
       "Apartments|North Logistics Park|Station Plaza|Maple Court",
       "Rental income:money:50000:6000000|Occupancy:percent:70:99|Valuation:money:1000000:90000000|"
       "Lettable area:number:1000:90000:sq m",
       "Asset Manager|Leasing Director|Property Manager|Valuation Surveyor|Head of Real Estate",
       "Asset Management|Leasing|Property Management|Valuations|Development",
       "occupancy|rent reviews|lease expiries|capital works|valuation yields",
       "Renew the anchor tenant lease|Refurbish the Kingsway House lobby|Commission the annual valuation|"
       "Collect rent arrears|Upgrade the lifts at Station Plaza",
       "Lease signed|Deposit received|Inventory agreed|Insurance certificate received",
       "GBP", "RE", "Properties|Estates|Real Estate|Land|Developments"),
    _d("construction", "Construction", "Project delivery, site progress and subcontractors", "industrial|property",
       "work package", "Groundworks|Foundations|Structural frame|Roofing|Mechanical services|Electrical "
       "services|Facade|Fit-out|External works|Commissioning",
       "Contract value:money:50000:9000000|Cost to date:money:10000:7000000|Progress:percent:5:100|"
       "Labour hours:number:100:90000:hours",
       "Project Director|Site Manager|Quantity Surveyor|Health and Safety Manager|Design Manager",
       "Project Delivery|Commercial|Health and Safety|Design|Procurement",
       "programme delays|cost overruns|variations|site safety|subcontractor performance",
       "Agree the facade variation|Recover two weeks on the frame|Close out snagging on level 3|"
       "Submit the monthly valuation|Audit scaffold inspections",
       "Method statement approved|Permit issued|Inspection passed|Variation instructed",
       "GBP", "CON", "Construction|Builders|Contractors|Civil Engineering|Developments"),
    _d("facilities_management", "Facilities Management", "Building maintenance, services and space",
       "property|ops", "building", "Head Office|Research Centre|Data Centre|Regional Office North|"
       "Regional Office South|Training Centre|Warehouse Annex|Conference Centre",
       "Work orders:count:20:6000:orders|Maintenance cost:money:5000:2000000|Energy use:number:1000:"
       "900000:kWh|SLA compliance:percent:80:99.5",
       "Facilities Director|Maintenance Supervisor|Space Planner|Energy Manager|Soft Services Manager",
       "Facilities|Maintenance|Workplace Services|Energy|Security",
       "planned maintenance|space utilisation|energy efficiency|contractor performance|compliance checks",
       "Replace the chiller at the data centre|Re-tender cleaning services|Run the fire drill|"
       "Install occupancy sensors|Renew the lift maintenance contract",
       "Fire alarm tested|Legionella check done|Contractor inducted|Work order closed",
       "USD", "FM", "Facilities|Property Services|Building Services|Maintenance|Services"),
    _d("retail", "Retail", "Store operations, merchandising and sales", "commerce",
       "store", "Flagship Central|Mall East|High Street West|Outlet North|Airport Store|Station Store|"
       "Riverside Mall|City Market",
       "Sales:money:50000:9000000|Footfall:count:1000:900000:visitors|Conversion:percent:8:45|"
       "Shrinkage:money:500:300000",
       "Store Manager|Regional Manager|Merchandising Director|Loss Prevention Manager|Head of Retail",
       "Store Operations|Merchandising|Loss Prevention|Visual Merchandising|Customer Service",
       "like-for-like sales|footfall|inventory shrinkage|staffing|promotions",
       "Reset the spring planograms|Install new security tags|Review Sunday staffing|"
       "Clear end-of-season stock|Launch the loyalty promotion",
       "Till reconciled|Stock count complete|Display approved|Incident logged",
       "USD", "RT", "Stores|Retail|Brands|Outlets|Trading"),
    _d("ecommerce", "E-commerce", "Online sales, fulfilment and digital marketing", "commerce|tech",
       "channel", "Web shop|Mobile app|Marketplace A|Marketplace B|Social commerce|Email campaigns|"
       "Affiliates|Paid search",
       "Orders:count:500:400000:orders|Gross merchandise value:money:10000:9000000|Return rate:percent:"
       "2:35|Average order value:money:15:400",
       "Head of E-commerce|Digital Marketing Manager|Fulfilment Manager|Product Owner|Customer Insights Lead",
       "Digital|Fulfilment|Marketing|Customer Insights|Platform",
       "conversion|returns|delivery promise|customer acquisition cost|site performance",
       "Speed up checkout|Renegotiate the returns courier|Launch the app redesign|"
       "Reduce paid search spend|Fix product data gaps",
       "Payment authorised|Address verified|Parcel dispatched|Refund issued",
       "EUR", "EC", "Online|Digital|Commerce|Direct|Shop"),
    _d("hospitality", "Hospitality", "Hotel operations, occupancy and guest services", "commerce",
       "hotel", "Grand Central Hotel|Seaside Resort|Airport Inn|City Suites|Mountain Lodge|Harbour Hotel|"
       "Old Town Boutique|Conference Hotel",
       "Room revenue:money:20000:6000000|Occupancy:percent:45:96|Average daily rate:money:60:450|"
       "Guest complaints:count:0:120:complaints",
       "General Manager|Revenue Manager|Front Office Manager|Executive Housekeeper|Food and Beverage Director",
       "Front Office|Revenue Management|Housekeeping|Food and Beverage|Sales and Events",
       "occupancy|average daily rate|guest satisfaction|labour scheduling|renovations",
       "Refurbish the fourth floor rooms|Renegotiate OTA commissions|Train staff on late check-out|"
       "Launch the winter package|Replace laundry equipment",
       "Deposit received|Room inspected|Guest ID checked|Minibar checked",
       "EUR", "HT", "Hotels|Resorts|Hospitality|Inns|Collection"),
    _d("aviation", "Aviation", "Airline operations, maintenance and fleet", "ops|industrial",
       "route", "LHR-JFK|CDG-DXB|FRA-SIN|AMS-BCN|MAD-MEX|ZRH-ORD|DUB-BOS|CPH-OSL|MUC-ATH",
       "Passengers:count:1000:400000:passengers|Load factor:percent:60:96|Fuel cost:money:100000:"
       "9000000|Delay minutes:number:100:90000:minutes",
       "Director of Operations|Chief Pilot|Maintenance Controller|Network Planner|Safety Manager",
       "Flight Operations|Maintenance|Network Planning|Safety|Ground Operations",
       "on-time performance|fuel efficiency|maintenance checks|crew rostering|safety reports",
       "Complete the C-check on the A320|Renegotiate ground handling|Review crew fatigue reports|"
       "Adjust the winter schedule|Update the de-icing procedure",
       "Airworthiness release signed|Fuel uplift recorded|Crew briefed|Defect deferred",
       "EUR", "AV", "Airways|Aviation|Air|Aero|Airlines"),
    _d("shipping_maritime", "Shipping and Maritime", "Vessel operations, chartering and port calls",
       "ops|industrial", "vessel", "MV Northern Star|MV Atlantic Dawn|MV Baltic Trader|MV Pacific Crest|"
       "MV Cape Horizon|MV Nordic Swan|MV Coral Bay|MV Iron Duke",
       "Cargo carried:number:1000:900000:tonnes|Charter revenue:money:100000:9000000|Fuel "
       "consumption:number:100:40000:tonnes|Off-hire days:number:0:40:days",
       "Fleet Manager|Chartering Manager|Marine Superintendent|Port Captain|Crewing Manager",
       "Chartering|Technical Management|Crewing|Operations|HSEQ",
       "fleet utilisation|bunker costs|port congestion|emissions regulation|crew welfare",
       "Dry-dock MV Baltic Trader|Fix the next voyage charter|Install ballast water treatment|"
       "Renew P&I cover|Review bunker hedges",
       "Port clearance received|Cargo secured|Crew list filed|Bunker note signed",
       "USD", "VSL", "Shipping|Maritime|Lines|Navigation|Tankers"),
    _d("automotive", "Automotive", "Vehicle programmes, dealer network and after-sales", "industrial|commerce",
       "model", "Compact Hatch|Family SUV|Electric Crossover|Pickup Truck|Premium Sedan|City EV|Van|"
       "Sports Coupe",
       "Units sold:count:100:200000:vehicles|Revenue:money:500000:90000000|Warranty claims:count:0:"
       "9000:claims|Dealer margin:percent:2:12",
       "Programme Director|Dealer Network Manager|After-sales Director|Purchasing Manager|Launch Manager",
       "Sales|After-sales|Purchasing|Product Planning|Quality",
       "launch readiness|warranty costs|dealer stock|battery supply|recalls",
       "Ship the software update to dealers|Close the brake recall|Secure battery cell supply|"
       "Train dealers on the EV launch|Reduce dealer stock of vans",
       "Pre-delivery inspection done|Finance approved|Registration filed|Customer handover complete",
       "EUR", "VEH", "Motors|Automotive|Mobility|Cars|Vehicles"),
    _d("agriculture", "Agriculture", "Farm operations, crop yields and cooperatives", "industrial|commerce",
       "crop", "Wheat|Barley|Maize|Oilseed rape|Sugar beet|Potatoes|Soybeans|Sunflower|Oats",
       "Yield:number:1:12:t/ha|Harvested area:number:10:9000:ha|Revenue:money:10000:4000000|Input "
       "costs:money:5000:2000000",
       "Farm Manager|Agronomist|Cooperative Chair|Operations Manager|Grain Trader",
       "Agronomy|Operations|Grain Marketing|Machinery|Sustainability",
       "yields|fertiliser prices|weather risk|soil health|grain marketing",
       "Book the harvest contractors|Soil-test the north fields|Forward-sell 30% of the wheat|"
       "Service the combine|Apply for the environmental scheme",
       "Field records updated|Spray log complete|Moisture tested|Delivery note signed",
       "EUR", "AG", "Farms|Agri|Growers|Cooperative|Harvest"),
    _d("food_beverage", "Food and Beverage", "Food production, brands and food safety", "industrial|commerce",
       "product", "Orange juice 1L|Sparkling water 500ml|Granola 750g|Greek yoghurt 4-pack|Dark chocolate "
       "100g|Pasta sauce 400g|Oat drink 1L|Frozen pizza|Coffee beans 1kg",
       "Volume sold:count:1000:900000:units|Net revenue:money:20000:8000000|Gross margin:percent:15:"
       "55|Complaints:count:0:300:complaints",
       "Brand Manager|Food Safety Manager|Plant Manager|Category Director|R&D Technologist",
       "Brand Marketing|Food Safety|Production|Category Management|R&D",
       "food safety|input costs|shelf space|product innovation|promotions",
       "Reformulate the granola to cut sugar|Complete the allergen audit|Negotiate the cocoa contract|"
       "Launch the oat drink promotion|Update the HACCP plan",
       "Allergen check done|Temperature logged|Label verified|Metal detector tested",
       "EUR", "FB", "Foods|Beverages|Brands|Kitchens|Dairy"),
    _d("higher_education", "Higher Education", "University administration, enrolment and research funding",
       "public|research", "faculty", "Engineering|Medicine|Law|Business|Arts and Humanities|Natural "
       "Sciences|Social Sciences|Education|Computer Science",
       "Enrolled students:count:100:12000:students|Research income:money:50000:9000000|Graduation "
       "rate:percent:60:97|Teaching hours:number:500:90000:hours",
       "Vice-Chancellor|Registrar|Dean|Head of Research Office|Finance Director",
       "Registry|Research Office|Student Services|Finance|Estates",
       "enrolment|research funding|student satisfaction|staff workload|accreditation",
       "Submit the accreditation self-assessment|Review the admissions criteria|Refurbish the library|"
       "Apply for the research infrastructure grant|Update the timetable system",
       "Transcript received|Fees paid|Visa checked|Enrolment confirmed",
       "GBP", "UNI", "University|College|Institute|Academy|School"),
    _d("public_administration", "Public Administration", "Government department programmes and budgets",
       "public", "programme", "Housing support|Road maintenance|Digital services|Public health|"
       "Small business grants|Adult education|Community safety|Environmental protection|Tourism",
       "Budget:money:100000:90000000|Spend to date:money:50000:80000000|Beneficiaries:count:100:"
       "90000:people|Delivery:percent:20:100",
       "Permanent Secretary|Programme Director|Finance Director|Policy Adviser|Head of Digital",
       "Policy|Finance|Programme Delivery|Digital|Communications",
       "value for money|service delivery|public consultation|budget pressure|transparency",
       "Publish the consultation response|Re-profile the capital budget|Launch the digital service beta|"
       "Answer the parliamentary question|Commission the programme evaluation",
       "Ministerial approval|Equality impact assessed|Consultation closed|Published online",
       "GBP", "GOV", "Department|Agency|Office|Authority|Commission"),
    _d("municipal_services", "Municipal Services", "City services, permits and local infrastructure", "public",
       "ward", "Ward 1 Old Town|Ward 2 Riverside|Ward 3 Northfield|Ward 4 Eastbrook|Ward 5 Hillside|"
       "Ward 6 Docklands|Ward 7 Parkway|Ward 8 Westgate",
       "Service requests:count:50:9000:requests|Permits issued:count:5:2000:permits|Budget:money:"
       "50000:9000000|Resolved on time:percent:55:98",
       "City Manager|Public Works Director|Permits Officer|Budget Officer|Community Liaison",
       "Public Works|Planning and Permits|Finance|Parks|Community Services",
       "pothole repairs|permit backlog|waste collection|parks maintenance|resident feedback",
       "Repave the Docklands main road|Clear the permit backlog|Tender waste collection|"
       "Plant trees in Northfield|Hold the Ward 5 town hall",
       "Site visit done|Fee received|Neighbours notified|Permit issued",
       "USD", "CITY", "City of|Council|Municipal|Borough|Township"),
    _d("public_transit", "Public Transit", "Bus and rail operations, ridership and fleet", "public|ops",
       "line", "Red Line|Blue Line|Green Line|Route 12|Route 27|Route 40|Airport Express|Night Bus N5|"
       "Orbital Route 9",
       "Ridership:count:5000:900000:passengers|Fare revenue:money:10000:6000000|Punctuality:percent:"
       "70:99|Vehicle kilometres:number:1000:900000:km",
       "Operations Director|Fleet Engineer|Timetable Planner|Customer Information Manager|Safety Manager",
       "Operations|Fleet Engineering|Planning|Customer Information|Safety",
       "punctuality|ridership recovery|fleet electrification|fare evasion|accessibility",
       "Order twenty electric buses|Retime Route 27|Upgrade station lifts|Launch contactless fares|"
       "Review driver rosters",
       "Vehicle inspected|Driver briefed|Timetable published|Incident reported",
       "EUR", "PT", "Transit|Transport Authority|Metro|Rail|Bus"),
    _d("nonprofit", "Nonprofit and Grants", "Charitable programmes, donors and grant reporting",
       "public|research", "programme", "Clean water|Literacy|Maternal health|Food security|Youth mentoring|"
       "Disaster relief|Microfinance|Reforestation",
       "Funds raised:money:5000:5000000|Programme spend:money:5000:4000000|Beneficiaries:count:50:"
       "90000:people|Admin cost ratio:percent:4:20",
       "Executive Director|Programme Manager|Grants Officer|Fundraising Director|Finance Manager",
       "Programmes|Fundraising|Grants|Finance|Monitoring and Evaluation",
       "donor retention|programme outcomes|restricted funds|field security|impact measurement",
       "Submit the donor report|Renew the foundation grant|Run the gala dinner|Audit field expenses|"
       "Publish the impact report",
       "Gift aid declared|Receipt issued|Restriction recorded|Donor thanked",
       "USD", "NGO", "Foundation|Trust|Aid|Alliance|Fund"),
    _d("media_publishing", "Media and Publishing", "Editorial output, subscriptions and advertising",
       "commerce|tech", "title", "Morning Herald|City Weekly|Business Review|Travel Monthly|Science Today|"
       "Home and Garden|Sports Daily|Tech Insider",
       "Subscribers:count:1000:900000:subscribers|Advertising revenue:money:10000:9000000|Page "
       "views:count:10000:9000000:views|Churn:percent:1:9",
       "Editor-in-Chief|Publisher|Head of Advertising|Audience Director|Managing Editor",
       "Editorial|Advertising|Audience|Production|Subscriptions",
       "subscriber growth|advertising yield|print costs|digital engagement|rights management",
       "Launch the weekend newsletter|Renegotiate paper supply|Relaunch the app|Review paywall metering|"
       "Hire a data journalist",
       "Rights cleared|Copy approved|Ad booked|Proofs signed",
       "GBP", "MED", "Media|Publishing|Press|Group|News"),
    _d("marketing", "Marketing", "Campaigns, brand tracking and marketing spend", "commerce",
       "campaign", "Spring launch|Summer sale|Back to school|Black Friday|Holiday gifting|Brand awareness|"
       "Loyalty relaunch|Product webinar series",
       "Media spend:money:5000:3000000|Leads:count:50:90000:leads|Conversion rate:percent:0.5:12|"
       "Impressions:count:10000:9000000:impressions",
       "Chief Marketing Officer|Campaign Manager|Brand Manager|Marketing Analyst|Head of Content",
       "Brand|Performance Marketing|Content|Marketing Analytics|Events",
       "return on ad spend|brand awareness|lead quality|content calendar|attribution",
       "Brief the agency on the holiday campaign|Shift budget to paid social|Refresh the brand guidelines|"
       "Fix attribution tagging|Plan the customer conference",
       "Creative approved|Legal review done|Budget released|Tracking tested",
       "USD", "MKT", "Marketing|Creative|Brands|Media|Agency"),
    _d("customer_service", "Customer Service", "Contact centre performance and complaint handling", "commerce|ops",
       "queue", "Billing|Technical support|Orders|Returns|Complaints|Premium customers|Chat|Social media",
       "Contacts handled:count:500:400000:contacts|First contact resolution:percent:55:92|Average "
       "handle time:number:2:25:minutes|Service cost:money:5000:3000000",
       "Head of Customer Service|Contact Centre Manager|Team Leader|Quality Coach|Workforce Planner",
       "Contact Centre|Complaints|Quality|Workforce Management|Digital Service",
       "first contact resolution|wait times|complaint root causes|agent attrition|self-service",
       "Launch the billing chatbot|Recruit twelve agents|Review the complaint taxonomy|"
       "Update the knowledge base|Reduce transfers between queues",
       "Customer identified|Issue resolved|Follow-up booked|Survey sent",
       "USD", "CS", "Services|Support|Care|Solutions|Contact"),
    _d("research_development", "Research and Development", "R&D portfolio, projects and patents",
       "research|tech|industrial", "project", "Project Atlas|Project Borealis|Project Cobalt|Project Delta|"
       "Project Ember|Project Falcon|Project Granite|Project Helix",
       "R&D spend:money:10000:9000000|Patents filed:count:0:60:patents|Milestones met:percent:40:100|"
       "Researcher hours:number:100:90000:hours",
       "Chief Technology Officer|R&D Director|Principal Scientist|Project Lead|IP Counsel",
       "Research|Product Development|Intellectual Property|Laboratories|Portfolio Office",
       "pipeline value|stage gates|patent strategy|lab capacity|partnerships",
       "Pass the stage gate for Project Cobalt|File the provisional patent|Extend the university partnership|"
       "Upgrade the test lab|Close Project Delta",
       "Stage gate passed|Invention disclosed|Budget confirmed|Safety review done",
       "USD", "RND", "Labs|Research|Innovations|Technologies|Sciences"),
    _d("mining", "Mining", "Mine production, processing and safety", "energy|industrial",
       "pit", "North Pit|South Pit|East Extension|Underground Level 4|Underground Level 6|Stockpile A|"
       "Processing Plant|Tailings Facility",
       "Ore mined:number:1000:900000:tonnes|Grade:number:0.2:9:g/t|Operating cost:money:50000:9000000|"
       "Recovery:percent:70:96",
       "Mine Manager|Chief Geologist|Processing Manager|Safety Superintendent|Environmental Officer",
       "Mining|Geology|Processing|Safety|Environment",
       "ore grade|haulage costs|tailings management|safety performance|water management",
       "Extend the east ramp|Re-assay the level 6 samples|Inspect the tailings dam|"
       "Replace haul truck tyres|Update the closure plan",
       "Pre-start check done|Blast area cleared|Samples bagged|Dust monitored",
       "USD", "MN", "Mining|Minerals|Resources|Metals|Gold"),
    _d("water_utilities", "Water Utilities", "Water supply, treatment and network leakage", "energy|public",
       "zone", "Zone A Central|Zone B North|Zone C Hills|Zone D Coastal|Zone E Industrial|Zone F Rural|"
       "Zone G South|Zone H Airport",
       "Water supplied:number:1000:900000:m3|Leakage:percent:5:30|Capital works:money:50000:9000000|"
       "Bursts repaired:count:0:400:repairs",
       "Operations Director|Network Manager|Treatment Works Manager|Water Quality Scientist|Asset Planner",
       "Network Operations|Treatment|Water Quality|Asset Planning|Customer Services",
       "leakage|water quality|mains renewal|drought resilience|metering",
       "Renew the Zone C trunk main|Install smart meters|Survey leakage hotspots|"
       "Upgrade the filtration beds|Publish the drought plan",
       "Sample taken|Valve closed|Customers notified|Pressure restored",
       "GBP", "WTR", "Water|Utilities|Supply|Services|Authority"),
    _d("environmental_compliance", "Environmental Compliance", "Permits, monitoring and environmental incidents",
       "energy|industrial|public", "facility", "Chemical Plant|Waste Transfer Station|Landfill Site|"
       "Wastewater Works|Foundry|Paper Mill|Incinerator|Quarry",
       "Emissions:number:1:9000:tonnes|Monitoring samples:count:5:2000:samples|Permit fees:money:1000:"
       "400000|Compliance rate:percent:80:100",
       "Environmental Manager|Permit Coordinator|Compliance Inspector|Site Engineer|Sustainability Lead",
       "Environment|Permitting|Compliance|Engineering|Sustainability",
       "permit conditions|discharge limits|incident reporting|waste tracking|noise complaints",
       "Renew the discharge permit|Install continuous stack monitoring|Investigate the odour complaint|"
       "Update the waste register|Train staff on spill response",
       "Sample within limit|Incident reported|Regulator notified|Corrective action logged",
       "EUR", "ENV", "Environmental|Industries|Processing|Works|Services"),
    _d("government_procurement", "Government Procurement", "Public tenders, framework contracts and "
       "awards", "public|legal", "lot", "Lot 1 IT services|Lot 2 Facilities|Lot 3 Consultancy|Lot 4 Vehicles|"
       "Lot 5 Medical supplies|Lot 6 Construction|Lot 7 Translation|Lot 8 Training",
       "Contract value:money:50000:90000000|Bids received:count:1:40:bids|Award score:number:40:98:points|"
       "Evaluation days:number:5:120:days",
       "Head of Commercial|Tender Officer|Evaluation Panel Chair|Contract Manager|Legal Adviser",
       "Commercial|Tendering|Legal|Contract Management|Finance",
       "competition|value for money|framework compliance|challenge risk|SME participation",
       "Publish the contract award notice|Hold the standstill period|Debrief unsuccessful bidders|"
       "Extend the facilities framework|Audit call-off compliance",
       "Conflict of interest declared|Evaluation moderated|Award approved|Notice published",
       "EUR", "TND", "Agency|Authority|Ministry|Office|Commission"),
    _d("data_privacy", "Data Privacy", "Personal data processing, requests and breaches", "legal|tech",
       "processing activity", "Payroll processing|Customer CRM|Marketing emails|CCTV|Recruitment|"
       "Website analytics|Supplier due diligence|Health benefits",
       "Access requests:count:0:900:requests|Breaches reported:count:0:20:breaches|Records "
       "processed:count:1000:9000000:records|On-time responses:percent:70:100",
       "Data Protection Officer|Privacy Counsel|Information Security Manager|Records Manager|Compliance Analyst",
       "Privacy Office|Legal|Information Security|Records Management|Compliance",
       "data subject requests|retention schedules|international transfers|breach response|consent",
       "Complete the transfer impact assessment|Purge expired CCTV footage|Update the privacy notice|"
       "Train staff on breach reporting|Review processor contracts",
       "Lawful basis recorded|DPIA completed|Processor contract signed|Retention period set",
       "EUR", "DP", "Data|Privacy|Compliance|Systems|Group"),
)

# ---------------------------------------------------------------- lenses

@dataclass(frozen=True)
class Lens:
    """What a section reports on when it is not the issuer's trade. A sustainability report's Resources
    report energy, water and waste by site and its People headcount and turnover by department, whatever
    the issuer sells: seen through a lens (``view``), the domain keeps its name, people, departments,
    checks and currency and takes the lens's row labels, metrics, topics and actions, so the section's
    general tables, charts and paragraphs speak of the section's subject. ``items`` empty: the domain's
    departments are the rows. Issuers of energy or industry (``HEAVY_TAGS``) run plants, not offices:
    they get ``heavy_items`` and ``heavy_metrics`` where the lens has them. The ranges are narrow (within
    10x: drawn uniformly, ``dynamics.level_range``) so that no site uses a hundred times the water of another
    while its energy is the smallest."""

    slug: str
    item_kind: str
    items: tuple[str, ...]
    metrics: tuple[Metric, ...]
    topics: tuple[str, ...]
    actions: tuple[str, ...]
    heavy_items: tuple[str, ...] = ()
    heavy_metrics: tuple[Metric, ...] = ()


HEAVY_TAGS = ("energy", "industrial")
"""Domain tags of issuers whose sites are plants and whose footprint is an industry's."""

_OFFICES = "Head Office|City Office|Regional Hub|Data Centre|Archive Store"
_PLANTS = "Head Office|Plant North|Plant South|Distribution Centre|Research Campus"
_CLIMATE = ("Energy consumption:number:300:3000:MWh|Energy intensity:number:80:300:kWh per m2|"
            "Business travel:number:20000:200000:km|Fleet fuel use:number:2000:20000:litres")
_CLIMATE_HEAVY = ("Energy consumption:number:20000:200000:MWh|Energy intensity:number:200:900:kWh per m2|"
                  "Business travel:number:50000:500000:km|Fleet fuel use:number:20000:200000:litres")
_RESOURCES = ("Water withdrawal:number:2000:20000:m3|Waste generated:number:20:200:tonnes|Recycling rate:percent:30:90|"
              "Hazardous waste:number:0.2:8:tonnes|Paper use:number:1:10:tonnes")
_RESOURCES_HEAVY = ("Water withdrawal:number:50000:500000:m3|Waste generated:number:1000:10000:tonnes|"
                    "Recycling rate:percent:30:90|Hazardous waste:number:20:400:tonnes|Paper use:number:2:20:tonnes")
_CLIMATE_ACTIONS = ("Install sub-metering at the head office|Sign the green electricity contract|"
                    "Switch the pool cars to electric vehicles|Collect supplier emission data|"
                    "Publish the climate transition plan")
_RESOURCE_ACTIONS = ("Fit water-saving fixtures in the washrooms|Audit the waste contractor|"
                     "Replace single-use plastics in the canteens|Set printers to double-sided by default|"
                     "Start food waste collection")

LENSES: dict[str, Lens] = {lens.slug: lens for lens in (
    Lens("sustainability", "site", _split(_OFFICES), _metrics(f"{_CLIMATE}|{_RESOURCES}"),
         _split("materiality|stakeholder engagement|ESG data quality|decarbonisation|responsible sourcing"),
         _split(f"{_CLIMATE_ACTIONS}|{_RESOURCE_ACTIONS}"), heavy_items=_split(_PLANTS),
         heavy_metrics=_metrics(f"{_CLIMATE_HEAVY}|{_RESOURCES_HEAVY}")),
    Lens("climate", "site", _split(_OFFICES), _metrics(_CLIMATE),
         _split("energy efficiency|renewable sourcing|business travel|supplier emissions|decarbonisation"),
         _split(_CLIMATE_ACTIONS), heavy_items=_split(_PLANTS), heavy_metrics=_metrics(_CLIMATE_HEAVY)),
    Lens("resources", "site", _split(_OFFICES), _metrics(_RESOURCES),
         _split("water stewardship|waste reduction|recycling|packaging|paper use"),
         _split(_RESOURCE_ACTIONS), heavy_items=_split(_PLANTS), heavy_metrics=_metrics(_RESOURCES_HEAVY)),
    Lens("people", "department", (),
         _metrics("Headcount:count:20:200:employees|Women in workforce:percent:25:65|Voluntary turnover:percent:4:18|"
                  "Training hours:number:500:5000:hours|Lost-time injuries:count:0:6:injuries|"
                  "New hires:count:2:40:hires|Sick days per employee:number:3:10:days"),
         _split("employee wellbeing|diversity and inclusion|training and development|workplace safety|"
                "staff retention"),
         _split("Run the engagement survey|Publish the gender pay gap report|Train mental health first aiders|"
                "Review the parental leave policy|Complete the line manager training"),
         heavy_metrics=_metrics("Headcount:count:100:1000:employees|Women in workforce:percent:12:40|"
                                "Voluntary turnover:percent:3:15|Training hours:number:2000:20000:hours|"
                                "Lost-time injuries:count:0:20:injuries|New hires:count:10:150:hires|"
                                "Sick days per employee:number:4:12:days")),
    Lens("compliance", "department", (),
         _metrics("Policy attestation rate:percent:80:100|Mandatory training completion:percent:70:100|"
                  "Breaches reported:count:0:12:breaches|Gifts and hospitality declarations:count:5:60:declarations|"
                  "Conflict of interest declarations:count:2:40:declarations|"
                  "Data subject requests:count:0:80:requests|Policy exceptions approved:count:0:15:exceptions"),
         _split("policy attestation|mandatory training|breach reporting|conflicts of interest|regulatory change"),
         _split("Chase the outstanding policy attestations|Refresh the mandatory training module|"
                "Review the breach log with each department|Update the gifts and hospitality register|"
                "Map the new rules to the control set")),
    Lens("governance", "concern category",
         _split("Fraud and theft|Harassment and bullying|Conflicts of interest|Health and safety|Data privacy|"
                "Bribery and corruption"),
         _metrics("Speak-up reports:count:0:30:reports|Open cases:count:0:12:cases"),
         _split("ethics and compliance|speak-up reporting|board oversight|data protection|anti-bribery controls"),
         _split("Refresh the code of conduct|Collect the annual conflict of interest declarations|"
                "Test the speak-up hotline|Review the committee terms of reference|Deliver the anti-bribery training")),
)}
"""The lenses recipes name (``Recipe.lens``, ``Section.lens``), by slug."""


def view(domain: Domain, lens: str) -> Domain:
    """``domain`` seen through the lens named ``lens`` ("": the domain itself)."""
    if not lens:
        return domain
    return _view(domain, LENSES[lens])


@cache
def _view(domain: Domain, lens: Lens) -> Domain:
    heavy = any(t in domain.tags for t in HEAVY_TAGS)
    items = (lens.heavy_items if heavy and lens.heavy_items else lens.items) or domain.departments
    metrics = lens.heavy_metrics if heavy and lens.heavy_metrics else lens.metrics
    return replace(domain, item_kind=lens.item_kind, items=items, metrics=metrics, topics=lens.topics,
                   actions=lens.actions)


QUARTER_TABLES: dict[TableKind, float] = {"comparison": 0.65, "share": 0.35}
"""Table kinds of a quarterly report: the quarter's results, no tracker of actions among them."""
REPORT_TABLES: dict[TableKind, float] = {"comparison": 0.5, "share": 0.25, "actions": 0.25}
"""Table kinds of narrative reports: no invoice-style line items, no ledger of postings."""
DEFAULT_TABLES: dict[TableKind, float] = {"comparison": 0.4, "share": 0.2, "line_items": 0.12, "register": 0.1, "actions": 0.18}
NO_CHARTS: tuple[str, ...] = ()
NO_FORMS = 0.0
NARRATIVE_REPORT: dict[ElementType, float] = {"form": NO_FORMS, "text": 1.5}
"""Element leanings of the long narrative reports: text with exhibits, never a form."""
REPORT: dict[ElementType, float] = {"form": NO_FORMS}
TRANSACTION = {"table": 1.6, "form": NO_FORMS, "annotation": 1.4, "text": 1.6}

# Each recipe's grammar: its sections in their usual order (``O``: optional), and the genre blocks each holds
# (``generation.content.genre`` builds them; the docs' recipe table lists them). General content (commentary,
# comparisons, actions, charts) fills a section after its genre blocks, from the element kinds the recipe
# allows (``elements``: a weight of 0 rules a kind out) and its table kinds (``tables``).
RECIPES: tuple[Recipe, ...] = (
    Recipe("annual_report", "Annual report", "annual report", "Yearly results, operations review and outlook",
           "{org} Annual Report {year}",
           (S("Letter from the Chief Executive", "letter_signoff"), S("Year in Review", "highlights"),
            S("Financial Performance"), S("Operations Review"), O("{Item_kind} Performance"),
            S("Risk Management", "risk_register"), S("Governance", lens="governance"), T("Outlook"),
            S("Independent Auditor's Report", "auditor_opinion"),
            S("Financial Statements", "income_statement", "balance_sheet", "cash_flow"),
            S("Notes to the Financial Statements", "statement_notes")),
           pages=(20, 48, 80), elements=NARRATIVE_REPORT, tables=REPORT_TABLES),
    Recipe("quarterly_report", "Quarterly report", "quarterly report", "Quarter results against plan",
           "{org} Quarterly Report Q{quarter} {quarter_year}",
           (S("Highlights", "highlights"), S("Results by {item_kind}"),
            S("Financial Summary", "income_statement", "balance_sheet", "cash_flow"), S("Key Metrics"),
            T("Outlook")),
           pages=(4, 20, 45), elements=REPORT, tables=QUARTER_TABLES),
    Recipe("invoice", "Invoice", "invoice", "Itemised invoice with terms and remittance details",
           "Invoice {ident} - {org}",
           (S("Invoice Details", "invoice_header", "trade_parties"), S("Line Items", "invoice_lines"),
            S("Payment Terms", "payment_terms"), S("Remittance Advice", "bank_details")),
           ("finance", "commerce", "ops", "industrial", "property", "tech", "energy"),
           pages=(1, 2, 3), elements=TRANSACTION, charts=NO_CHARTS, tables={"line_items": 1.0}),
    Recipe("purchase_order", "Purchase order", "purchase order", "Order lines, delivery and approval",
           "Purchase Order {ident}",
           (S("Order Details", "order_header", "trade_parties"), S("Order Lines", "order_lines"),
            S("Delivery Schedule", "delivery_schedule"), S("Approvals", "approval_chain")),
           ("ops", "industrial", "commerce", "public", "property", "health"),
           pages=(1, 2, 3), elements=TRANSACTION, charts=NO_CHARTS, tables={"line_items": 0.85, "actions": 0.15}),
    Recipe("compliance_report", "Compliance report", "compliance report", "Control testing and findings",
           "{domain} Compliance Report {year}",
           (T("Executive Summary"), T("Scope and Approach", "test_scope"), S("Control Testing Results", "control_tests"),
            S("Findings", "findings_by_severity"), S("Remediation Plan", "action_plan"), S("Attestation", "attestation")),
           pages=(6, 30, 70), elements={"form": NO_FORMS, "text": 1.2}, charts=("bar", "pie"),
           tables={"comparison": 0.45, "share": 0.15, "actions": 0.4}, lens="compliance"),
    Recipe("audit_memo", "Audit memo", "memo", "Internal audit memo with findings and responses",
           "Internal Audit Memo: {topic_title}",
           (S("Purpose", "memo_header"), T("Background"), S("Observations", "audit_observations"),
            T("Management Response"), S("Next Steps", "action_plan")),
           pages=(1, 4, 10), elements={"figure": 0.4, "text": 1.6, "annotation": 1.2, "form": NO_FORMS},
           charts=("bar",), tables={"actions": 0.55, "comparison": 0.45}),
    Recipe("policy_document", "Policy document", "policy", "Corporate policy with roles and procedures",
           "{topic_title} Policy",
           (T("Purpose and Scope"), S("Definitions", "definitions"), S("Roles and Responsibilities", "roles"),
            S("Procedure", "procedure_steps"), O("Exceptions", prose=True),
            S("Review and Approval", "version_history", "review_date")),
           pages=(3, 14, 40), elements={"figure": 0.3, "text": 2.0, "form": NO_FORMS}, charts=("bar",),
           tables={"actions": 0.6, "comparison": 0.4}),
    Recipe("contract_summary", "Contract summary", "contract summary", "Key commercial terms of a contract",
           "Contract Summary: {counterparty}",
           (S("Parties", "contract_parties"), S("Key Terms", "contract_clauses"), S("Pricing Schedule", "pricing_schedule"),
            S("Service Levels", "service_levels"), O("Obligations", prose=True), S("Signatures", "signature_block")),
           ("legal", "property", "ops", "tech", "public", "finance", "commerce", "energy"),
           pages=(2, 8, 25), elements={"figure": 0.3, "text": 1.5, "form": NO_FORMS}, charts=("bar", "pie"),
           tables={"line_items": 0.6, "comparison": 0.4}),
    Recipe("field_ops_log", "Field operations log", "field log", "Daily field activity and readings",
           "Field Operations Log - {item} - {month_year}",
           (S("Daily Log", "daily_log"), S("Readings"), S("Work Performed"), O("Safety Observations"),
            S("Handover Notes", "handover")),
           ("energy", "industrial", "ops", "property", "public"),
           pages=(3, 24, 80), elements={"figure": 0.6, "form": 1.3, "annotation": 1.4}, charts=("line", "bar"),
           tables={"register": 0.35, "comparison": 0.35, "actions": 0.3}),
    Recipe("forms_workflow", "Forms workflow", "form pack", "A pack of request, review and approval forms",
           "{domain} Request and Approval Forms",
           (S("Request Form"), S("Review Checklist", "review_checklist"), S("Approval", "approval_chain"),
            S("Filing Record", "filing_record")),
           pages=(2, 8, 30), elements={"form": 3.0, "table": 0.6, "annotation": 1.5}, charts=NO_CHARTS,
           tables={"actions": 0.4, "line_items": 0.3, "register": 0.3}),
    Recipe("executive_handout", "Executive deck handout", "briefing", "Printed handout of a leadership deck",
           "{org}: {topic_title} Briefing",
           (S("Key Messages", "key_messages"), S("Performance Snapshot", "kpi_tiles"), S("{Item_kind} Deep Dive"),
            S("Risks and Mitigations"), S("Decisions Requested", "decisions_requested")),
           pages=(3, 14, 40), elements={"figure": 1.5, "form": NO_FORMS}, tables=REPORT_TABLES),
    Recipe("research_report", "Research report", "research report", "Analysis with method, data and results",
           "{topic_title}: An Analysis of {item_kind_title} Data",
           (T("Abstract"), T("Introduction"), S("Method", "study_design"), S("Data"), S("Results"),
            S("Discussion"), T("Conclusion"), S("References", "references")),
           pages=(12, 40, 120), elements={**NARRATIVE_REPORT, "figure": 1.0},
           tables={"comparison": 0.65, "share": 0.35}),
    Recipe("scanned_archive", "Scanned archive", "archive file", "Older correspondence and records scanned "
           "for retention", "Archive File {ident}",
           (S("Cover Letter", "cover_letter"), S("Correspondence"), S("Records"), S("Receipts"),
            S("Retention Note", "retention_note")),
           pages=(4, 30, 120), elements={"figure": 0.5, "annotation": 1.4, "form": 1.3}, charts=("bar",),
           tables={"register": 0.4, "line_items": 0.3, "actions": 0.3}),
    Recipe("incident_report", "Incident report", "incident report", "Incident timeline, impact and actions",
           "Incident Report {ident}",
           (S("Summary", "incident_summary"), S("Timeline", "incident_timeline"),
            S("Impact Assessment", "incident_impact"), S("Root Cause", "root_cause"), S("Corrective Actions", "action_plan")),
           ("tech", "health", "industrial", "energy", "ops", "public"),
           pages=(2, 8, 25), elements={"text": 1.3, "form": NO_FORMS}, charts=("line", "bar"),
           tables={"actions": 0.6, "comparison": 0.4}),
    Recipe("budget_proposal", "Budget proposal", "budget proposal", "Budget request with justification",
           "{dept} Budget Proposal FY{year_next}",
           (S("Summary of Request"), S("Baseline"), S("Proposed Budget by {item_kind}", "budget_vs_baseline"),
            T("Justification"), S("Approval", "approval_chain")),
           pages=(3, 12, 40), elements=REPORT, charts=("bar", "pie"),
           tables={"line_items": 0.45, "comparison": 0.35, "share": 0.2}),
    Recipe("project_status_report", "Project status report", "status report", "Progress, milestones and risks",
           "{topic_title} Programme Status Report",
           (S("Status Summary", "rag_status"), S("Milestones", "milestones"), S("Budget Tracking", "budget_tracking"),
            S("Risks and Issues"), S("Next Period")),
           pages=(3, 12, 40), elements=REPORT, charts=("bar", "line"),
           tables={"actions": 0.4, "comparison": 0.4, "share": 0.2}),
    Recipe("risk_assessment", "Risk assessment", "risk assessment", "Risk register with ratings and owners",
           "{domain} Risk Assessment {year}",
           (S("Context"), S("Risk Register", "risk_register"), S("Heat Map", "heat_map"), S("Mitigation Actions", "action_plan"),
            S("Sign-off", "sign_off")),
           pages=(4, 20, 60), elements={"figure": 0.7, "form": NO_FORMS}, charts=("bar",),
           tables={"actions": 0.5, "comparison": 0.3, "share": 0.2}),
    Recipe("board_minutes", "Board minutes", "minutes", "Minutes of a board or committee meeting",
           "Minutes of the {dept} Committee Meeting",
           (S("Attendance", "attendance"), O("Matters Arising", prose=True), S("Reports Received"),
            S("Resolutions", "resolutions"), S("Actions", "action_log"), S("Next Meeting", "next_meeting")),
           pages=(2, 8, 30), elements={"figure": 0.3, "text": 1.8, "annotation": 1.3, "form": NO_FORMS},
           charts=("bar",), tables={"actions": 0.6, "comparison": 0.4}),
    Recipe("expense_claim", "Expense claim", "expense claim", "Claim forms with receipts and approvals",
           "Expense Claim {ident}",
           (S("Claimant Details", "claimant"), S("Expense Lines", "expense_lines"), S("Approval", "approval_chain")),
           ("finance", "people", "commerce", "research"),
           pages=(1, 3, 6), elements={"table": 1.3, "form": 1.5, "annotation": 1.5, "text": 1.2}, charts=NO_CHARTS,
           tables={"line_items": 1.0}),
    Recipe("inspection_report", "Inspection report", "inspection report", "Site inspection findings",
           "Inspection Report: {item}",
           (S("Inspection Details", "inspection_details"), S("Checklist Results", "inspection_checklist"),
            S("Findings", "findings_by_severity"), O("Photographs and Notes"), S("Sign-off", "sign_off")),
           ("industrial", "property", "energy", "public", "health"),
           pages=(3, 12, 40), elements={"form": 1.5, "annotation": 1.4, "figure": 0.5}, charts=("bar",),
           tables={"actions": 0.5, "comparison": 0.5}),
    Recipe("sustainability_report", "Sustainability report", "sustainability report", "ESG metrics and targets",
           "{org} Sustainability Report {year}",
           (T("Our Approach"), S("Climate", "emissions_by_scope", lens="climate"), S("Resources", lens="resources"),
            S("People", lens="people"), S("Governance", lens="governance"), S("Data Tables", "esg_targets")),
           ("energy", "industrial", "commerce", "finance"),
           pages=(20, 50, 110), elements=NARRATIVE_REPORT, tables=REPORT_TABLES, lens="sustainability"),
    Recipe("vendor_assessment", "Vendor assessment", "vendor assessment", "Supplier due diligence and scoring",
           "Vendor Assessment: {counterparty}",
           (S("Vendor Profile", "vendor_profile"), S("Scoring", "weighted_scoring"), S("Financial Health"),
            S("Compliance Checks", "review_checklist"), T("Recommendation")),
           ("ops", "tech", "commerce", "industrial", "public"),
           pages=(3, 10, 30), elements=REPORT, charts=("bar", "pie"),
           tables={"comparison": 0.5, "share": 0.2, "actions": 0.3}),
    Recipe("claims_summary", "Claims summary", "claims summary", "Summary of claims by status and value",
           "Claims Summary {quarter_label}",
           (S("Overview"), S("Claims by {item_kind}"), S("Large Claims", "large_claims"),
            S("Reserves", "reserve_movement"), O("Notes")),
           ("finance", "health"),
           pages=(3, 18, 50), elements=REPORT, tables={"comparison": 0.4, "share": 0.3, "register": 0.3}),
    Recipe("training_record", "Training record", "training record", "Training completion and certification",
           "{dept} Training Record {year}",
           (S("Programme Overview"), S("Completion by {item_kind}"), S("Certifications", "certifications"),
            S("Attendance Forms")),
           ("people", "health", "industrial", "public"),
           pages=(3, 14, 45), elements={"form": 1.5}, charts=("bar", "pie"),
           tables={"comparison": 0.5, "share": 0.2, "actions": 0.3}),
    Recipe("operations_dashboard", "Operations dashboard", "dashboard", "Printed KPI dashboard pack",
           "{domain} Operations Dashboard {month_year}",
           (S("KPI Summary", "kpi_tiles"), S("Trends"), S("{Item_kind} Breakdown"), S("Exceptions"),
            T("Commentary")),
           ("ops", "tech", "commerce", "energy", "industrial"),
           pages=(3, 14, 40), elements={"figure": 1.6, "form": NO_FORMS, "text": 0.6}, tables=REPORT_TABLES),
    Recipe("grant_application", "Grant application", "grant application", "Funding application with budget",
           "Grant Application: {topic_title}",
           (S("Applicant", "applicant_details"), T("Project Description"), S("Budget", "grant_budget"),
            T("Outcomes"), S("Declarations", "declarations")),
           ("research", "public", "health"),
           pages=(3, 16, 45), elements={"form": 1.3}, charts=("bar", "pie"),
           tables={"line_items": 0.35, "comparison": 0.35, "share": 0.15, "actions": 0.15}),
)

DOMAIN_BY_SLUG: dict[str, Domain] = {d.slug: d for d in DOMAINS}
RECIPE_BY_SLUG: dict[str, Recipe] = {r.slug: r for r in RECIPES}


def get_domain(slug: str) -> Domain:
    try:
        return DOMAIN_BY_SLUG[slug]
    except KeyError:
        raise KeyError(f"unknown domain {slug!r}") from None


def get_recipe(slug: str) -> Recipe:
    try:
        return RECIPE_BY_SLUG[slug]
    except KeyError:
        raise KeyError(f"unknown recipe {slug!r}") from None


__all__ = ["grammar_table", "APPENDIX_MIN_PAGES", "APPENDIX_TITLE", "DEFAULT_TABLES", "FRONT_MATTER_MIN_PAGES", "GenreClass", "PROSE_SHARE", "DOMAINS", "DOMAIN_BY_SLUG", "Behaviour", "Domain", "Metric", "RECIPES", "RECIPE_BY_SLUG",
           "Recipe", "S", "O", "T", "Section", "get_domain", "get_recipe", "metric_semantics", "HEAVY_TAGS", "LENSES", "Lens", "view"]


def grammar_table() -> str:
    """The recipes' grammars as a markdown table (docs/genres.md holds it; a test keeps the two equal)."""
    lines = ["| recipe | sections in order (optional in brackets; text: a section of text, no general exhibits; "
             "lens: what its general content reports on, `generation.domains.LENSES`) | "
             "genre blocks (required in their section) |",
             "|---|---|---|"]
    for r in RECIPES:
        secs = ", ".join((sec.title if sec.required else f"[{sec.title}]") + (" (text)" if sec.prose else "")
                         + (f" (lens: {sec.lens})" if sec.lens else "") for sec in r.grammar)
        if r.lens:
            secs += f"; other sections: lens {r.lens}"
        blocks = "; ".join(f"{sec.title}: {', '.join(f'`{b}`' for b in sec.blocks)}" for sec in r.grammar
                           if sec.blocks)
        lines.append(f"| {r.slug} | {secs} | {blocks} |")
    return "\n".join(lines) + "\n"
