"""Layout library: pure function of (seed, index), valid geometry, deterministic build on disk."""

from __future__ import annotations

import argparse
import json

import cv2
import numpy as np
import pytest

from synthdocqa.ir.blocks import (
    FigureBlock,
    FormBlock,
    FormField,
    HeadingBlock,
    Series,
    Span,
    TableBlock,
    TextBlock,
)
from synthdocqa.renderers.layout.layouts import (
    ELEMENT_TYPES,
    STYLE_FAMILIES,
    LayoutLibrary,
    describe,
    is_compatible,
    layout_for,
    layout_from_id,
    parse_layout_id,
)
from synthdocqa.renderers.layout.library_build import build_library, load_library
from synthdocqa.renderers.layout.thumbs import draw_thumbnail, encode_png


def test_layout_is_pure_function_of_seed_and_index():
    a, b = layout_for(7, 123), layout_for(7, 123)
    assert a.model_dump() == b.model_dump()
    assert layout_for(7, 124).model_dump() != a.model_dump()
    assert layout_for(8, 123).model_dump() != a.model_dump()
    assert layout_from_id(a.id) == a
    assert parse_layout_id(a.id) == (7, 123)
    with pytest.raises(ValueError, match="malformed layout id"):
        parse_layout_id("L-12")


def test_geometry_is_valid_over_many_layouts():
    seen_arr, seen_fam, seen_cols, seen_tables = set(), set(), set(), set()
    for i in range(300):
        lay = layout_for(3, i)
        x0, y0, x1, y1 = lay.body
        assert 0 < x0 < x1 < lay.width and 0 < y0 < y1 < lay.height
        for s in lay.slots:
            sx0, sy0, sx1, sy1 = s.bbox
            assert x0 - 0.01 <= sx0 < sx1 <= x1 + 0.01 and y0 - 0.01 <= sy0 < sy1 <= y1 + 0.01, (lay.id, s)
            assert "text" in s.accepts
        # slots never overlap
        for a in lay.slots:
            for b in lay.slots:
                if a.id < b.id:
                    ix = min(a.bbox[2], b.bbox[2]) - max(a.bbox[0], b.bbox[0])
                    iy = min(a.bbox[3], b.bbox[3]) - max(a.bbox[1], b.bbox[1])
                    assert ix <= 0 or iy <= 0, (lay.id, a.id, b.id)
        seen_arr.add(lay.arrangement)
        seen_fam.add(lay.style.style_family)
        seen_cols.add(lay.columns)
        seen_tables.add(lay.style.table_style)
        assert describe(lay).endswith("tables.")
    assert seen_fam == set(STYLE_FAMILIES)
    assert seen_cols == {1, 2, 3}
    assert seen_tables == {"grid", "zebra", "minimal", "ruled"}
    assert len(seen_arr) == 7


def _wide_table() -> TableBlock:
    cols = ["Region", "Q1", "Q2", "Q3", "Q4", "Total"]
    return TableBlock(id="b002", columns=cols, rows=[[Span(text=str(i))] * 6 for i in range(3)])


def test_compatibility_respects_accepted_types_and_width():
    blocks = [HeadingBlock(id="b001", spans=[Span(text="H")]), _wide_table(),
              FormBlock(id="b003", fields=[FormField(label=f"F{i}", value=Span(text="v")) for i in range(6)])]
    lib = LayoutLibrary(seed=5, count=400)
    ok = [lay for lay in lib if is_compatible(lay, blocks)]
    bad = [lay for lay in lib if not is_compatible(lay, blocks)]
    assert ok and bad
    for lay in ok:
        assert lay.accepted_counts["form"] >= 1 and lay.accepted_counts["table"] >= 1
        assert any(s.width >= 300 and "table" in s.accepts for s in lay.slots)
    # three-column layouts take neither forms nor tables in their columns
    assert all(not is_compatible(lay, blocks) for lay in lib if lay.arrangement == "columns" and lay.columns == 3)
    fig = FigureBlock(id="b004", chart="bar", categories=["a"],
                      series=[Series(name="s", points=[Span(text="1")], values=[1.0])])
    text = TextBlock(id="b005", spans=[Span(text="x")])
    assert all(is_compatible(lay, [fig, text]) for lay in list(lib)[:50])


def test_thumbnail_png_decodes_and_shows_structure():
    lay = layout_for(1, 10)
    png = encode_png(draw_thumbnail(lay, 64))
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (64, 64, 3)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 4  # not a blank square
    assert encode_png(draw_thumbnail(lay, 64)) == png
    assert encode_png(draw_thumbnail(layout_for(1, 11), 64)) != png


def test_build_is_byte_identical_and_loadable(tmp_path):
    m1 = build_library(11, 40, tmp_path / "a", thumb_size=48)
    m2 = build_library(11, 40, tmp_path / "b", thumb_size=48)
    assert m1 == m2
    for name in ("layouts.jsonl", "layouts.parquet", "library.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    thumbs_a = sorted((tmp_path / "a" / "thumbs").iterdir())
    assert len(thumbs_a) == 40
    for p in thumbs_a:
        assert p.read_bytes() == (tmp_path / "b" / "thumbs" / p.name).read_bytes()
    rows = [json.loads(line) for line in (tmp_path / "a" / "layouts.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [layout_for(11, i).id for i in range(40)]
    assert all(r["descriptor"] == describe(layout_for(11, r["index"])) for r in rows)
    assert set(f"capacity_{t}" for t in ELEMENT_TYPES) <= set(rows[0])
    import pandas as pd

    df = pd.read_parquet(tmp_path / "a" / "layouts.parquet")
    assert list(df["id"]) == [r["id"] for r in rows]
    lib = load_library(tmp_path / "a")
    assert (lib.seed, lib.count) == (11, 40)
    with pytest.raises(FileNotFoundError, match="layouts build"):
        load_library(tmp_path / "nothing")
    m3 = build_library(12, 40, tmp_path / "c", thumb_size=48)
    assert m3["sha256"] != m1["sha256"]


def test_layouts_build_command(tmp_path, capsys):
    from synthdocqa.flows.cli import CliError
    from synthdocqa.flows.commands import layouts as cmd

    parser = argparse.ArgumentParser()
    cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["layouts", "build", "--seed", "3", "--count", "12", "--out", str(tmp_path)])
    assert args.func(args) == 0
    assert len(list((tmp_path / "thumbs").glob("*.png"))) == 12
    assert "wrote 12 layouts" in capsys.readouterr().out
    bad = parser.parse_args(["layouts", "build", "--count", "0", "--out", str(tmp_path / "x")])
    with pytest.raises(CliError, match="--count"):
        bad.func(bad)
    assert not (tmp_path / "x").exists()
