"""Loading CLIP weights: shipped default, local files of any open_clip config, clear errors, no random fallback."""

from __future__ import annotations

import json

import numpy as np
import open_clip
import pytest
import torch
from PIL import Image

from synthdocqa.ir.files import sha256_file
from synthdocqa.renderers.layout import clip_model
from synthdocqa.renderers.layout.clip_model import (
    ClipLoadError,
    build_model,
    load_clip,
    random_clip,
    save_weights,
)

MICRO = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "head_width": 16, "patch_size": 16},
    "text_cfg": {"context_length": 16, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
}


@pytest.fixture(scope="module")
def micro_name(tmp_path_factory):
    """A user's own open_clip architecture, registered the way open_clip documents it."""
    d = tmp_path_factory.mktemp("cfg")
    (d / "test-clip-micro.json").write_text(json.dumps(MICRO))
    open_clip.add_model_config(d / "test-clip-micro.json")
    return "test-clip-micro"


def _params(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_local_torch_checkpoint_of_another_config_loads_exactly(micro_name, tmp_path):
    model = build_model(micro_name, generator=torch.Generator().manual_seed(5))
    ckpt = tmp_path / "micro.pt"
    torch.save(model.state_dict(), ckpt)
    clip = load_clip(micro_name, str(ckpt))
    loaded = _params(clip.model)
    for k, v in _params(model).items():
        assert torch.equal(loaded[k], v), k
    assert clip.weights_sha256 == sha256_file(ckpt) and clip.image_size == 32
    img = Image.new("RGB", (40, 52), (255, 255, 255))
    e_img, e_txt = clip.embed_images([img, img]), clip.embed_texts(["a two-column page", "a form"])
    assert e_img.shape == (2, 32) and e_txt.shape == (2, 32)
    assert np.allclose(np.linalg.norm(e_txt, axis=1), 1, atol=1e-5)
    assert not np.allclose(e_txt[0], e_txt[1])


def test_fp16_safetensors_round_trip_and_open_clip_agrees(micro_name, tmp_path):
    model = build_model(micro_name, generator=torch.Generator().manual_seed(6))
    path = tmp_path / "w.safetensors"
    sha = save_weights(model, path, fp16=True)
    assert sha == sha256_file(path)
    clip = load_clip(micro_name, str(path))
    ref = open_clip.create_model(micro_name, pretrained=str(path))  # open_clip's own path to the same file
    tok = open_clip.get_tokenizer(micro_name)(["page with a table"])
    with torch.no_grad():
        a = clip.model.encode_text(tok)
        b = ref.encode_text(tok)
    assert torch.allclose(a, b, atol=1e-6)
    # fp16 rounding only: close to the fp32 model it came from
    with torch.no_grad():
        assert torch.allclose(model.encode_text(tok), a, atol=5e-2)


@pytest.mark.parametrize("content", [b"", b"not a checkpoint at all" * 10, b"PK\x03\x04 truncated zip"])
def test_corrupt_weight_files_raise_clear_errors(micro_name, tmp_path, content):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(content)
    with pytest.raises(ClipLoadError, match="corrupt or does not match"):
        load_clip(micro_name, str(bad))


def test_truncated_safetensors_and_wrong_architecture_are_errors(micro_name, tmp_path):
    good = tmp_path / "w.safetensors"
    save_weights(build_model(micro_name, generator=torch.Generator().manual_seed(1)), good)
    trunc = tmp_path / "t.safetensors"
    trunc.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(ClipLoadError, match="corrupt"):
        load_clip(micro_name, str(trunc))
    with pytest.raises(ClipLoadError, match="does not match"):
        load_clip("layout-clip-tiny", str(good))  # weights of another architecture


def test_missing_file_unknown_tag_and_no_weights_never_give_a_random_model(micro_name, tmp_path):
    with pytest.raises(ClipLoadError, match="not found"):
        load_clip(micro_name, str(tmp_path / "nope.safetensors"))
    with pytest.raises(ClipLoadError, match="neither a file nor a known tag"):
        load_clip("ViT-B-32", "no-such-tag")
    with pytest.raises(ClipLoadError, match="needs weights"):
        load_clip(micro_name, None)
    with pytest.raises(ClipLoadError, match="unknown open_clip model"):
        load_clip("no-such-arch", str(tmp_path / "x.pt"))


def test_known_tag_not_in_local_cache_is_an_offline_error(tmp_path):
    tag = open_clip.list_pretrained_tags_by_model("ViT-B-32")[0]
    with pytest.raises(ClipLoadError, match="not in the local cache"):
        load_clip("ViT-B-32", tag, cache_dir=str(tmp_path))


def test_shipped_weights_missing_or_corrupt(monkeypatch, tmp_path):
    monkeypatch.setattr(clip_model, "SHIPPED_WEIGHTS", tmp_path / "gone.safetensors")
    with pytest.raises(ClipLoadError, match="weights missing"):
        load_clip(runtime="torch")
    w = tmp_path / "w.safetensors"
    sha = save_weights(build_model(generator=torch.Generator().manual_seed(2)), w)
    man = tmp_path / "m.json"
    man.write_text(json.dumps({"weights_sha256": sha}))
    monkeypatch.setattr(clip_model, "SHIPPED_WEIGHTS", w)
    monkeypatch.setattr(clip_model, "SHIPPED_MANIFEST", man)
    assert load_clip(runtime="torch").weights_sha256 == sha
    data = bytearray(w.read_bytes())
    data[-10] ^= 0xFF  # one flipped bit in a weight still parses: the manifest hash catches it
    w.write_bytes(bytes(data))
    with pytest.raises(ClipLoadError, match="corrupt"):
        load_clip(runtime="torch")


def test_shipped_layout_clip_loads():
    clip = load_clip(runtime="torch")
    assert clip.model_name == "layout-clip-tiny"
    assert clip.weights_path.endswith("layout_clip_tiny.safetensors")
    assert clip_model.SHIPPED_WEIGHTS.stat().st_size <= 25 * 1024 * 1024


def test_random_init_is_seeded_and_leaves_global_rng_alone():
    state = torch.random.get_rng_state()
    a, b, c = random_clip(seed=3), random_clip(seed=3), random_clip(seed=4)
    assert torch.equal(state, torch.random.get_rng_state())
    pa, pb, pc = _params(a.model), _params(b.model), _params(c.model)
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert not torch.equal(pa["token_embedding.weight"], pc["token_embedding.weight"])
