"""CorpusSpec: what a corpus is made of. With the code version it determines every byte."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from .base import DeviceName, DomainName, ElementName, Model, RecipeName, TierName
from .vocab import (
    TIERS,
    ProfileName,
    ScanPlan,
    SpecProfile,
)

MAX_PAGES_PER_DOC = 400
"""Longest document a spec may ask for (the reference profile's longest is 120 pages)."""
MAX_DOCS = 100_000
"""Most documents in one corpus (its ids have five digits)."""
DPI_RANGE = (36, 600)
"""Raster resolutions a corpus may ask for (dots per inch, inclusive)."""
MAX_CORPUS_PAGES = 1_000_000
"""Most planned pages in one corpus (``n_docs * pages.mean``): 230 reference corpora, days of CPU."""


class PageCountDist(Model):
    """Pages per document: a clipped log-normal around ``mean`` (``sigma=0`` gives a fixed count). The
    planner draws the count first, then a recipe whose own page range holds it (``generation.domains.Recipe.pages``),
    so the corpus follows this distribution and no genre is stretched beyond its length."""

    mean: float = Field(gt=0, le=MAX_PAGES_PER_DOC)
    sigma: float = Field(default=0.35, ge=0, le=2)
    min: int = Field(default=1, ge=1, le=MAX_PAGES_PER_DOC)
    max: int = Field(default=200, ge=1, le=MAX_PAGES_PER_DOC)

    @model_validator(mode="after")
    def _ordered(self) -> PageCountDist:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must be <= max ({self.max})")
        if not (self.min <= self.mean <= self.max):
            raise ValueError(f"mean ({self.mean}) must lie in [min, max] = [{self.min}, {self.max}]")
        return self


def _check_weights(name: str, weights: dict[str, float]) -> dict[str, float]:
    if any(w < 0 for w in weights.values()):
        raise ValueError(f"{name} weights must be >= 0")
    if sum(weights.values()) <= 0:
        raise ValueError(f"{name} weights must not all be zero")
    return weights


DEFAULT_DEVICE_MIX = {"flatbed": 0.45, "photocopy": 0.25, "fax": 0.1, "phone": 0.2}
"""How an office's scans come about: mostly the flatbed/ADF, then copies, phone photos, faxes."""


class CorpusSpec(Model):
    name: str = Field(default="corpus", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    seed: int = Field(ge=0, lt=2**63)
    n_docs: int = Field(ge=1, le=MAX_DOCS)
    profile: SpecProfile = "custom"
    domains: list[DomainName] | None = Field(default=None, description="None: all 50 domains, cycled")
    recipes: list[RecipeName] | None = Field(default=None, description="None: the domain's recipes")
    docs_per_issuer: int = Field(
        default=2, ge=1, le=MAX_DOCS, description="how many documents one organisation issues: a domain's "
        "documents, in the order the domains cycle, go to its issuers this many at a time (their figures are "
        "queries of one world, so they agree); 1: every document its own issuer")
    recipe_mix: dict[RecipeName, float] | None = Field(
        default=None, description="weights of recipes among those that fit a document's length (None: equal)")
    pages: PageCountDist
    element_mix: dict[ElementName, float] = Field(description="weights of QA-bearing element types")
    blocks_per_page: float = Field(default=2.4, gt=0, le=12, description="mean QA-bearing blocks per page")
    tier_mix: dict[TierName, float] = Field(default_factory=lambda: {t: 1.0 for t in TIERS})
    device_mix: dict[DeviceName, float] = Field(default_factory=lambda: dict(DEFAULT_DEVICE_MIX),
                                         description="weights of capture devices (flatbed, photocopy, fax, phone)")
    scan_plan: ScanPlan = Field(
        default="document", description="document: every page takes its document's tier and device; cycle: "
        "pages cycle through the tiers and devices (a few short documents show every one)")
    dpi: int = Field(default=150, ge=DPI_RANGE[0], le=DPI_RANGE[1], description="raster dpi of page images")
    scan_dpi: int = Field(default=200, ge=DPI_RANGE[0], le=DPI_RANGE[1],
                          description="dpi the scans are captured at (the page is rasterised again where it "
                                      "differs from dpi); their evidence boxes are in its pixels. 200: what an "
                                      "office scanner is set to and a fax's fine resolution; the tiers' sensor "
                                      "resolutions are calibrated at it (docs/degradations.md)")
    qa_per_page: float = Field(default=3.8, gt=0, le=50, description="target QA pairs per page")

    @field_validator("domains", "recipes")
    @classmethod
    def _not_empty(cls, v: list[str] | None) -> list[str] | None:
        if v is not None and not v:
            raise ValueError("must not be empty (use null for all)")
        return v

    @field_validator("element_mix", "tier_mix", "device_mix", "recipe_mix")
    @classmethod
    def _weights(cls, v: dict[str, float] | None, info: ValidationInfo) -> dict[str, float] | None:
        return None if v is None else _check_weights(str(info.field_name), v)

    @model_validator(mode="after")
    def _size(self) -> CorpusSpec:
        planned = self.n_docs * self.pages.mean
        if planned > MAX_CORPUS_PAGES:
            raise ValueError(f"n_docs * pages.mean = {planned:,.0f} planned pages exceeds the limit of "
                             f"{MAX_CORPUS_PAGES:,}; split the corpus")
        return self


    def spec_hash(self) -> str:
        """Stable hash of the spec (for caching and the manifest)."""
        canon = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canon.encode()).hexdigest()[:16]


REFERENCE_ELEMENT_MIX = {"table": 0.40, "figure": 0.30, "form": 0.15, "annotation": 0.10, "text": 0.05}
"""The study's element mix. Its key order is the planner's element draw order (``ELEMENT_DRAW_ORDER``):
do not reorder it."""


REFERENCE_RECIPE_MIX = {
    "annual_report": 3.0, "sustainability_report": 2.0, "research_report": 2.0, "compliance_report": 2.0,
    "quarterly_report": 1.5, "risk_assessment": 1.5, "claims_summary": 1.0, "field_ops_log": 1.0,
    "scanned_archive": 1.0, "policy_document": 1.0, "training_record": 1.0, "grant_application": 1.0,
    "executive_handout": 1.0, "operations_dashboard": 1.0, "project_status_report": 1.0, "budget_proposal": 1.0,
    "inspection_report": 1.0, "vendor_assessment": 0.5, "board_minutes": 0.5, "contract_summary": 0.5,
    "incident_report": 0.5, "forms_workflow": 0.5, "audit_memo": 0.5, "expense_claim": 0.5, "invoice": 0.5,
    "purchase_order": 0.5,
}
"""How often each genre comes up in the reference corpus among the recipes that fit a document's length:
the long reporting genres carry its ~44 pages per document; short genres (invoices, purchase orders,
expense claims: 1-6 pages) only come up where a document is that short."""


def demo_spec(seed: int = 0, n_docs: int = 3) -> CorpusSpec:
    """Small corpus for the embedded default and tests: a few pages per document, the pages cycling through
    every scan tier and capture device."""
    return CorpusSpec(
        name="demo", seed=seed, n_docs=n_docs, profile="demo", scan_plan="cycle",
        pages=PageCountDist(mean=3, sigma=0.25, min=2, max=5),
        element_mix=dict(REFERENCE_ELEMENT_MIX),
    )


REFERENCE_PLANNED_PAGES = 47.5
"""Planned (IR) pages per reference document. The renderer continues a page that does not open a section on
a previous page that is mostly empty, so a document prints about 8% fewer PDF pages than it plans: 47.5
planned pages land on the study's 43.7 PDF pages per document."""


def reference_spec(seed: int = 0, n_docs: int = 100) -> CorpusSpec:
    """The reference scale: 100 docs, ~44 PDF pages each (``REFERENCE_PLANNED_PAGES`` planned), 50 domains,
    the study's element and recipe mix."""
    return CorpusSpec(
        name="reference", seed=seed, n_docs=n_docs, profile="reference",
        pages=PageCountDist(mean=REFERENCE_PLANNED_PAGES, sigma=0.35, min=12, max=120),
        element_mix=dict(REFERENCE_ELEMENT_MIX), recipe_mix=dict(REFERENCE_RECIPE_MIX),
    )


PROFILES: dict[ProfileName, Callable[..., CorpusSpec]] = {"demo": demo_spec, "reference": reference_spec}
"""The named profiles, one per ``ir.vocab.ProfileName``."""


def spec_for_profile(profile: ProfileName, seed: int, n_docs: int | None = None) -> CorpusSpec:
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    return PROFILES[profile](seed) if n_docs is None else PROFILES[profile](seed, n_docs)


def layered_spec(data: dict[str, Any], profile: str = "demo") -> CorpusSpec:
    """A spec from a possibly partial mapping: its keys are laid over the named profile's spec (the mapping's
    own ``profile`` key, else ``profile``); ``pages`` is merged key by key, every other key replaces the
    profile's value. ``"profile": "custom"`` takes the mapping as a whole spec. The result is validated as
    one (pydantic ``ValidationError`` naming the field)."""
    if not isinstance(data, dict):
        raise ValueError("a spec must be a JSON object")
    base_name = data.get("profile", profile)
    if base_name == "custom":
        return CorpusSpec.model_validate(data)
    if base_name not in PROFILES:
        raise ValueError(f"profile: unknown profile {base_name!r}; choose one of {[*PROFILES, 'custom']}")
    merged = PROFILES[base_name](0).model_dump(mode="json")
    for key, value in data.items():
        if key == "pages" and isinstance(value, dict):
            merged["pages"] = {**merged["pages"], **value}
        else:
            merged[key] = value
    return CorpusSpec.model_validate(merged)
