"""Layout choice per page before CLIP retrieval: a seeded pick among compatible layouts of the style family.

Page ``p`` draws from ``Rng(doc.seed, doc.seed_path).fork("page", p).fork("layout")``, so the choice
of one page never depends on another page or on the library's size beyond its own candidates.
"""

from __future__ import annotations

from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.rng import Rng

from .layouts import LayoutLibrary, default_library, is_compatible

MAX_DRAWS = 256


def page_layout_rng(doc: DocumentIR, page_no: int) -> Rng:
    return Rng(doc.seed, doc.seed_path).fork("page", page_no).fork("layout")


def assign_layouts(doc: DocumentIR, library: LayoutLibrary | None = None) -> list[str]:
    """One layout id per IR page: ``PagePlan.layout_id`` where set, else a seeded compatible pick."""
    lib = library or default_library()
    family = doc.style_family
    candidates = lib.family_indices(family)
    out: list[str] = []
    for page in doc.pages:
        if page.layout_id:
            out.append(page.layout_id)
            continue
        rng = page_layout_rng(doc, page.page_no)
        chosen = None
        for _ in range(MAX_DRAWS):
            lay = lib.get(candidates[rng.integers(0, len(candidates))])
            if is_compatible(lay, page.blocks):
                chosen = lay.id
                break
        if chosen is None:  # fall back to the first single-column layout of the family (accepts anything)
            chosen = next(lib.get(i).id for i in candidates if lib.get(i).arrangement == "single")
        out.append(chosen)
    return out


def with_layouts(doc: DocumentIR, library: LayoutLibrary | None = None) -> DocumentIR:
    """A copy of the IR with every ``PagePlan.layout_id`` filled (the IR is complete before rendering)."""
    ids = assign_layouts(doc, library)
    pages = [p.model_copy(update={"layout_id": lid}) for p, lid in zip(doc.pages, ids, strict=True)]
    return doc.model_copy(update={"pages": pages})
