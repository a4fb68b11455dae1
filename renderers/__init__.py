"""Layout library, PDF rendering with a box for every fact, rasterization and the text-layer check.

The names below load their module on first use (PEP 562): importing one submodule, such as
``renderers.layout.layouts`` for its constants, does not pull in reportlab and pymupdf, so commands that do not
render start quickly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "DEFAULT_LIBRARY_SEED": "layout.layouts", "Layout": "layout.layouts", "LayoutLibrary": "layout.layouts",
    "default_library": "layout.layouts", "layout_for": "layout.layouts",
    "RenderResult": "pdf.render", "render_document": "pdf.render",
    "TextLayerProblem": "raster", "rasterize": "raster", "verify_text_layer": "raster",
}

__all__ = ["DEFAULT_LIBRARY_SEED", "Layout", "LayoutLibrary", "RenderResult", "TextLayerProblem", "default_library",
           "layout_for", "rasterize", "render_document", "verify_text_layer"]

if TYPE_CHECKING:
    from .layout.layouts import DEFAULT_LIBRARY_SEED, Layout, LayoutLibrary, default_library, layout_for
    from .pdf.render import RenderResult, render_document
    from .raster import TextLayerProblem, rasterize, verify_text_layer


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        try:  # a submodule, e.g. ``from renderers import raster``
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise  # the submodule exists; something it imports is missing: say that, not "no attribute"
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
