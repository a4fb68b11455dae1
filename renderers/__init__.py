"""Layout library, PDF rendering with a box for every fact, rasterization and the text-layer check."""

from .layouts import DEFAULT_LIBRARY_SEED, Layout, LayoutLibrary, default_library, layout_for
from .pdf_render import RenderResult, render_document
from .raster import TextLayerProblem, rasterize, verify_text_layer

__all__ = ["DEFAULT_LIBRARY_SEED", "Layout", "LayoutLibrary", "RenderResult", "TextLayerProblem", "default_library",
           "layout_for", "rasterize", "render_document", "verify_text_layer"]
