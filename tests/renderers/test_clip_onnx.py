"""The shipped layout-CLIP on ONNX Runtime (generation's runtime, no torch) against open_clip (torch).

The export is the shipped weights' (re-exporting gives the same bytes), the tokenizer gives open_clip's ids,
the embeddings agree to float rounding, and retrieval ranks the held-out queries' layouts exactly as it
does with torch. Each check is shown to fail on a planted fault.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PIL import Image

from synthdocqa.renderers.layout import clip_onnx
from synthdocqa.renderers.layout.clip_model import SHIPPED_MANIFEST, ClipLoadError, load_clip
from synthdocqa.renderers.layout.clip_tokenizer import ClipTokenizer
from synthdocqa.renderers.layout.layout_queries import paraphrase
from synthdocqa.renderers.layout.layouts import default_library, describe
from synthdocqa.renderers.layout.retrieval_eval import rank_rows
from synthdocqa.renderers.layout.thumbs import draw_thumbnail

ODD_TEXTS = ["", "   ", "Ünïcødé  &amp; <b>html</b> 1,234.56 don't", "x " * 80, "TWO-COLUMN page; wide TABLE!!",
             "日本語のページ", "a\u200bb\tc\nd"]


@pytest.fixture(scope="module")
def both():
    return load_clip(runtime="torch"), load_clip()


@pytest.fixture(scope="module")
def sample():
    """Layouts the tests did not tune on: every 37th of the built-in library, with descriptor and paraphrase."""
    from synthdocqa.ir.rng import Rng

    lib = default_library()
    lays = [lib.get(i) for i in range(5, lib.count, 37)]
    texts = [describe(lay) for lay in lays] + [paraphrase(lay, Rng(9).fork("test", lay.id).gen, keep=1.0)
                                              for lay in lays]
    images = [Image.fromarray(draw_thumbnail(lay, 64)) for lay in lays]
    return lays, texts, images


def test_load_clip_defaults_to_onnx():
    clip = load_clip()
    assert isinstance(clip, clip_onnx.OnnxClip)
    assert clip.model_id.endswith("+onnx") and clip.weights_path.endswith("layout_clip_tiny.text.onnx")


def test_tokenizer_gives_open_clips_ids(both, sample, monkeypatch):
    torch_clip, onnx_clip = both
    texts = sample[1] + ODD_TEXTS
    assert np.array_equal(torch_clip.tokenizer(texts).numpy(), onnx_clip.tokenizer(texts))
    # planted: a tokenizer that lost its cleaning (no lower case, no ftfy) gives other ids
    from synthdocqa.renderers.layout import clip_tokenizer

    monkeypatch.setattr(clip_tokenizer, "_clean", lambda text: text)
    raw = ClipTokenizer(onnx_clip.context_length)(ODD_TEXTS)
    assert not np.array_equal(raw, torch_clip.tokenizer(ODD_TEXTS).numpy())


def test_embeddings_agree_to_float_rounding(both, sample):
    torch_clip, onnx_clip = both
    _, texts, images = sample
    for a, b in ((torch_clip.embed_texts(texts), onnx_clip.embed_texts(texts)),
                 (torch_clip.embed_images(images), onnx_clip.embed_images(images))):
        assert a.shape == b.shape and a.dtype == b.dtype == np.float32
        assert np.abs(a - b).max() < 2e-6
        assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)


def test_retrieval_ranks_the_same(both, sample):
    """Top 10 of every query over the sample's thumbnails, with retrieval's rounding and id tie-break."""
    torch_clip, onnx_clip = both
    lays, texts, images = sample
    ids = [lay.id for lay in lays]
    ranks = [rank_rows(c.embed_texts(texts) @ c.embed_images(images).T, ids, 10) for c in both]
    assert np.array_equal(ranks[0], ranks[1])
    # planted: one flipped weight in the text tower changes rankings
    broken = torch_clip.embed_texts(texts)
    broken[:, 0] += 0.05
    assert not np.array_equal(rank_rows(broken @ torch_clip.embed_images(images).T, ids, 10), ranks[0])


def test_shipped_graphs_are_the_export_of_the_shipped_weights(both, tmp_path):
    record = json.loads(clip_onnx.SHIPPED_ONNX_RECORD.read_text())
    assert record["exported_from_weights_sha256"] == json.loads(SHIPPED_MANIFEST.read_text())["weights_sha256"]
    again = clip_onnx.export_onnx(both[0], tmp_path)
    assert (again["text"]["sha256"], again["image"]["sha256"]) == (record["text"]["sha256"], record["image"]["sha256"])
    # the graphs keep float16 weights: no larger than the safetensors they come from
    assert clip_onnx.SHIPPED_TEXT_ONNX.stat().st_size < 8 * 1024 * 1024


def test_a_corrupt_or_missing_graph_is_a_load_error(tmp_path):
    for f in (clip_onnx.SHIPPED_TEXT_ONNX, clip_onnx.SHIPPED_IMAGE_ONNX, clip_onnx.SHIPPED_ONNX_RECORD):
        shutil.copy2(f, tmp_path / f.name)
    assert clip_onnx.load_onnx(tmp_path).embed_texts(["a page"]).shape == (1, 64)
    data = bytearray((tmp_path / "layout_clip_tiny.text.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "layout_clip_tiny.text.onnx").write_bytes(bytes(data))
    with pytest.raises(ClipLoadError, match="text tower .* is corrupt"):
        clip_onnx.load_onnx(tmp_path)
    shutil.copy2(clip_onnx.SHIPPED_TEXT_ONNX, tmp_path / "layout_clip_tiny.text.onnx")
    (tmp_path / "layout_clip_tiny.image.onnx").unlink()
    with pytest.raises(ClipLoadError, match="image tower is missing"):
        clip_onnx.load_onnx(tmp_path)
    (tmp_path / "layout_clip_tiny.onnx.json").write_text("{")
    with pytest.raises(ClipLoadError, match="record .* unreadable"):
        clip_onnx.load_onnx(tmp_path)
