"""Layout-CLIP training is reproducible and never sees held-out layouts; the train-clip/search commands."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from synthdocqa.renderers.layout.clip_train import TrainConfig, train_clip
from synthdocqa.renderers.layout.layout_queries import content_query, is_held_out, paraphrase, training_texts
from synthdocqa.renderers.layout.layouts import layout_for
from synthdocqa.renderers.layout.library_build import build_library, load_library
from tests.renderers.clip_helpers import MICRO_NAME, micro_clip, register_micro


@pytest.fixture(scope="module")
def lib_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("lib")
    build_library(20261130, 48, d)
    return d


def test_training_is_reproducible_and_skips_held_out(lib_dir, tmp_path, monkeypatch):
    from synthdocqa.renderers.layout import clip_train

    seen: list[str] = []
    real_load = clip_train.load_thumbs

    def recording(layouts, thumb_dir, size):
        seen.extend(lay.id for lay in layouts)
        return real_load(layouts, thumb_dir, size)

    monkeypatch.setattr(clip_train, "load_thumbs", recording)
    register_micro(tmp_path)
    layouts = list(load_library(lib_dir))
    held = [lay.id for lay in layouts if is_held_out(lay.id)]
    assert held, "the 48-layout sample must contain held-out layouts"
    cfg = TrainConfig(seed=3, epochs=1, batch_size=16, threads=1, warmup_steps=1, model_name=MICRO_NAME)
    state = torch.random.get_rng_state()
    a = train_clip(layouts, lib_dir / "thumbs", tmp_path / "a", cfg, log=lambda _: None)
    b = train_clip(layouts, lib_dir / "thumbs", tmp_path / "b", cfg, log=lambda _: None)
    c = train_clip(layouts, lib_dir / "thumbs", tmp_path / "c", TrainConfig(**{**cfg.__dict__, "seed": 4}),
                   log=lambda _: None)
    assert torch.equal(state, torch.random.get_rng_state())  # no global RNG use
    assert a.weights_sha256 == b.weights_sha256 != c.weights_sha256
    assert a.n_train == len(layouts) - len(held) and a.n_held_out == len(held)
    assert seen and not set(seen) & set(held)  # no held-out thumbnail was ever loaded
    assert a.steps == (len(layouts) - len(held)) // 16
    man = json.loads((tmp_path / "a" / "test_clip_micro.training.json").read_text())
    assert man["weights_sha256"] == a.weights_sha256 and man["held_out_layouts"] == len(held)
    # training moved the weights away from the seeded init and the result loads strictly
    from synthdocqa.renderers.layout.clip_model import load_clip

    trained = load_clip(MICRO_NAME, a.weights_path)
    assert trained.weights_sha256 == a.weights_sha256


def test_held_out_split_is_stable_and_about_ten_percent():
    ids = [f"s20261130-{i:06d}" for i in range(2000)]
    share = np.mean([is_held_out(i) for i in ids])
    assert 0.07 < share < 0.13
    assert [is_held_out(i) for i in ids[:50]] == [is_held_out(i) for i in ids[:50]]


def test_training_texts_vary_and_state_the_structure():
    lay = layout_for(20261130, 7)
    gen = np.random.default_rng(0)
    texts = {training_texts(lay, gen) for _ in range(40)}
    assert len(texts) > 10
    full = paraphrase(lay, np.random.default_rng(1), keep=1.0)
    assert lay.columns == 3 and any(w in full for w in ("three-column", "3-column", "three column"))
    assert lay.style.theme in full
    q = content_query(lay, np.random.default_rng(2))
    assert q.startswith("page with ") and q.endswith(f"{lay.style.style_family} style")


def test_cli_train_clip_then_search_with_local_weights(lib_dir, tmp_path, capsys):
    from synthdocqa.flows.cli import main

    register_micro(tmp_path)
    out = tmp_path / "model"
    # train-clip uses the default architecture; keep it tiny in time with one epoch on 48 layouts
    assert main(["layouts", "train-clip", "--library", str(lib_dir), "--out", str(out), "--epochs", "1",
                 "--batch-size", "16", "--seed", "1"]) == 0
    assert "trained layout-CLIP on" in capsys.readouterr().out
    weights = out / "layout_clip_tiny.safetensors"
    assert weights.is_file()
    thumbs = tmp_path / "hits"
    rc = main(["layouts", "search", "two-column page with a wide table and a bar chart", "--k", "3",
               "--library", str(lib_dir), "--clip-model", "layout-clip-tiny", "--clip-pretrained", str(weights),
               "--thumbs-out", str(thumbs), "--cache-dir", str(tmp_path / "cache")])
    assert rc == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split()[:3] == ["rank", "score", "layout"] and len(lines) == 4
    assert [ln.split()[0] for ln in lines[1:]] == ["1", "2", "3"]
    assert len(list(thumbs.glob("*.png"))) == 3


def test_cli_search_bad_weights_is_one_line_exit_2(lib_dir, tmp_path, capsys):
    from synthdocqa.flows.cli import main

    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x00" * 100)
    rc = main(["layouts", "search", "a page", "--library", str(lib_dir), "--clip-model", "layout-clip-tiny",
               "--clip-pretrained", str(bad), "--cache-dir", str(tmp_path / "c")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "corrupt" in err[0]
    assert not (tmp_path / "c").exists()  # nothing written
    rc = main(["layouts", "train-clip", "--library", str(tmp_path / "none"), "--out", str(tmp_path / "o")])
    assert rc == 2 and "no layout library" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_micro_clip_helper_loads_from_file(tmp_path):
    clip = micro_clip(tmp_path, 9)
    assert clip.weights_path.endswith("micro-9.safetensors")


def test_page_query_uses_the_planner_text_or_the_blocks():
    from synthdocqa.generation.planner import plan_document
    from synthdocqa.ir.spec import demo_spec
    from synthdocqa.renderers.layout.layout_queries import blocks_query, page_query

    doc = plan_document(demo_spec(seed=1, n_docs=1), 0)
    page = doc.pages[0]
    assert page_query(page, doc.style_family).startswith(page.layout_query.rstrip("."))
    bare = page.model_copy(update={"layout_query": ""})
    q = page_query(bare, "classic")
    assert q.startswith("page with ") and q.endswith("classic style")
    assert blocks_query([]) == "page with text"
    if any(b.type == "table" for b in page.blocks):
        assert "table" in q
