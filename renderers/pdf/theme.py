"""Resolved drawing style of a layout: font face names, sizes and colours used by every block drawer."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..layout.layouts import Layout
from .ctx import mix
from .fonts import FALLBACK_FAMILY, HANDWRITING_FAMILY, SIGNATURE_FAMILY, covers, ensure_family, face_name


@dataclass(frozen=True)
class Theme:
    layout: Layout
    body: str
    bold: str
    italic: str
    head: str
    head_regular: str
    hand: str
    sign: str
    size: float
    leading: float
    primary: str
    accent: str
    light: str
    text: str
    muted: str
    rule: str
    table_style: str

    @property
    def line_h(self) -> float:
        return self.size * self.leading

    def for_text(self, text: str) -> Theme:
        """This theme, or one drawing with the fallback family if a font of it lacks a glyph of ``text``."""
        faces = (self.body, self.bold, self.italic, self.head, self.head_regular, self.hand, self.sign)
        if all(covers(f, text) for f in faces):
            return self
        ensure_family(FALLBACK_FAMILY)
        fb = FALLBACK_FAMILY
        return replace(self, body=face_name(fb), bold=face_name(fb, "bold"), italic=face_name(fb, "italic"),
                       head=face_name(fb, "bold"), head_regular=face_name(fb), hand=face_name(fb, "italic"),
                       sign=face_name(fb, "italic"))

    def series_colours(self) -> list[str]:
        return [self.primary, self.accent, mix(self.primary, "#ffffff", 0.45), mix(self.accent, "#000000", 0.35),
                "#7f8c8d", mix(self.primary, self.accent, 0.5), "#c0392b", "#16a085"]


def theme_for(layout: Layout) -> Theme:
    st = layout.style
    for fam in (st.body_font, st.heading_font, HANDWRITING_FAMILY, SIGNATURE_FAMILY):
        ensure_family(fam)
    return Theme(
        layout=layout, body=face_name(st.body_font), bold=face_name(st.body_font, "bold"),
        italic=face_name(st.body_font, "italic"), head=face_name(st.heading_font, "bold"),
        head_regular=face_name(st.heading_font), hand=face_name(HANDWRITING_FAMILY),
        sign=face_name(SIGNATURE_FAMILY), size=st.body_size, leading=st.leading, primary=st.primary,
        accent=st.accent, light=st.light, text=st.text, muted=mix(st.text, "#ffffff", 0.42),
        rule=mix(st.text, "#ffffff", 0.7), table_style=st.table_style,
    )
