"""Resolved drawing style of a layout: font face names, sizes and colours used by every block drawer."""

from __future__ import annotations

from dataclasses import dataclass

from .fonts import HANDWRITING_FAMILY, SIGNATURE_FAMILY, ensure_family, face_name
from .layouts import Layout
from .pdf_ctx import mix


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
