"""A list split between two slots: an item none of whose lines fit the first slot starts the next one with its
own number (a reference list continued on a new page once lost the number of its first item there)."""

from __future__ import annotations

from synthdocqa.ir.blocks import ListBlock, Span
from synthdocqa.renderers.layout.layouts import layout_for
from synthdocqa.renderers.pdf.blocks import list_flow
from synthdocqa.renderers.pdf.theme import theme_for


def _split(n_fit_lines: float):
    theme = theme_for(layout_for(3, 7))
    items = [[Span(text=f"Author {i}. A study of item {i}. Journal of Examples, {i}(1), 1-9.")] for i in range(8)]
    flow = list_flow(ListBlock(id="b0001", ordered=True, items=items), theme)
    first, rest = flow.take(400.0, theme.line_h * n_fit_lines, False)
    return first, rest


def test_an_item_moved_whole_to_the_next_slot_keeps_its_number():
    for n in (2.0, 3.0, 4.2, 5.5):  # room for a few items' lines, whatever the wrapping
        first, rest = _split(n)
        assert first is not None and rest is not None
        head = rest.items[0]
        if not head.continued:  # the item did not start in the first slot: it is whole, marker and all
            number = len(_split(n)[1].items)
            assert head.marker == f"{8 - number + 1}.", (n, head.marker)
        else:  # it started there: the rest carries on under its marker, drawn once
            assert head.marker == ""
    assert any(not _split(n)[1].items[0].continued for n in (2.0, 3.0, 4.2, 5.5))
