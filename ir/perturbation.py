"""How a document is captured: the perturbation contracts, apart from the document models.

The scan pipeline and the ``degrade`` command need only these three models; keeping them out of
``ir.document`` (blocks, facts, values) spares a one-page call the schema build of every content model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Model, StageNameField
from .vocab import DEFAULT_DEVICE, Device, Tier


class Mark(Model):
    """A reader's mark on the sheet (the markup stage, ``degradations.marks``): what it is, what it goes on and
    the box of the text it goes on, in fractions of the page (x0, y0, x1, y1): ``ir.json`` says what each mark
    touches."""

    kind: Literal["highlight", "circle", "underline", "tick", "initials"]
    on: str = Field(description="what the marked text is: figure, total, name, approval (or line: a run of print "
                                "found on a page without a render map)")
    box: list[float] = Field(min_length=4, max_length=4)
    text: str = Field(default="", description="the text drawn in the box")
    ink: str = Field(default="", description="a highlighter's ink (yellow, green, pink); empty for the pen")


ParamValue = float | int | bool | str | list[float] | list[int] | list[Mark]


class StageParams(Model):
    """Sampled parameters of one degradation stage on one page (``enabled=False``: identity)."""

    name: StageNameField
    enabled: bool
    params: dict[str, ParamValue] = Field(default_factory=dict)


class PageDegradation(Model):
    page_no: int = Field(ge=1)
    seed_path: list[str | int] = Field(description="fork path of the page's degradation stream")
    tier: Tier | None = Field(default=None, description="this page's tier (None: the document's)")
    device: Device | None = Field(default=None, description="this page's capture device (None: the document's)")
    stages: list[StageParams] = Field(default_factory=list)


class PerturbationProfile(Model):
    """How the document was captured: the device (flatbed, photocopy, fax, phone) and the tier (severity
    within that device), fixed by the planner; ``pages`` holds every stage's sampled params once filled,
    each page from its own fork (a page may carry its own tier and device: ``CorpusSpec.scan_plan``)."""

    tier: Tier
    device: Device = DEFAULT_DEVICE
    pages: list[PageDegradation] = Field(default_factory=list)

    def page_tier(self, page: PageDegradation) -> Tier:
        return page.tier or self.tier

    def page_device(self, page: PageDegradation) -> Device:
        return page.device or self.device
