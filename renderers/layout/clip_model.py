"""open_clip models for layout retrieval: the shipped layout-CLIP and any user-supplied CLIP.

Generation embeds with the shipped layout-CLIP's ONNX export on ONNX Runtime (``clip_onnx``: no torch at
run time); this module is the torch side (training, export, ``--clip-pretrained`` models, the reference the
export is checked against), which needs the ``[clip]`` extra (torch and open_clip). ``load_clip()`` chooses:
the shipped model on ONNX Runtime unless ``runtime="torch"`` or a weights file or tag is given.

The embedded default is ``layout-clip-tiny``: its open_clip architecture config
``renderers/layout/layout_clip/open_clip_config/layout-clip-tiny.json`` (open_clip names a registered config by its
file's stem), registered with ``open_clip.add_model_config``, and its weights with the record of their
training in ``renderers/layout/layout_clip/`` (package data, so an installed wheel loads them as the checkout does). Loading never falls back
to a random model: a missing, corrupt or mismatching weights file raises ``ClipLoadError``. Pretrained
tags resolve only from the local cache (the project runs offline), otherwise pass a local file.

Images are padded to a square on a grey ground (the page outline and aspect stay visible, no centre crop
cuts off headers and footers) and resized; the same preprocessing is used for training and retrieval.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

from synthdocqa.ir.files import atomic_write_bytes, sha256_bytes, sha256_file

if TYPE_CHECKING:  # torch is imported where it is used: the module loads without the [clip] extra
    import torch

CLIP_EXTRA = "pip install 'synthdocqa[clip]'"
"""What brings torch and open_clip (README: the CPU-only torch build for a machine without a GPU)."""
DEFAULT_MODEL = "layout-clip-tiny"
SHIPPED_DIR = Path(__file__).resolve().with_name("layout_clip")
CONFIG_PATH = SHIPPED_DIR / "open_clip_config" / f"{DEFAULT_MODEL}.json"
SHIPPED_WEIGHTS = SHIPPED_DIR / "layout_clip_tiny.safetensors"
SHIPPED_MANIFEST = SHIPPED_DIR / "layout_clip_tiny.training.json"
EMBED_THREADS = 1
"""Torch threads for embedding: fixed (results do not depend on the host), and 1 because on a shared
machine 2 threads made a query 50x slower (12 ms -> 600 ms) through oversubscription."""
PAD_GREY = (128, 128, 128)
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


class ClipLoadError(RuntimeError):
    """Weights could not be found, read or matched to the model: never silently a random model."""


def require_torch(also: tuple[str, ...] = ()) -> None:
    """torch and open_clip (and the modules in ``also``, e.g. ``onnx`` for the export), or a
    ``ClipLoadError`` naming the extra that brings them."""
    missing = []
    for name in ("torch", "open_clip", *also):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise ClipLoadError(f"{' and '.join(missing)} not installed: training, exporting or loading a CLIP other than "
                            f"the shipped layout-CLIP needs the [clip] extra ({CLIP_EXTRA})")


_REGISTERED = False


def register_configs() -> None:
    """Register the project's open_clip model configs (idempotent)."""
    global _REGISTERED
    if not _REGISTERED:
        require_torch()
        import open_clip

        open_clip.add_model_config(CONFIG_PATH)
        _REGISTERED = True


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run with exactly ``n`` intra-op threads, restoring the previous setting afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """open_clip warns "initialized randomly" on the root logger even when weights are loaded next."""
    import logging

    root = logging.getLogger()
    before = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(before)


def build_model(model_name: str = DEFAULT_MODEL, generator: torch.Generator | None = None) -> torch.nn.Module:
    """An open_clip model of ``model_name`` with no weights loaded.

    open_clip initialises from torch's global RNG; that happens inside ``fork_rng`` so global state is left
    as it was. With ``generator`` every parameter is then re-initialised from it (reproducible training and
    the random-init baseline).
    """
    register_configs()
    import open_clip
    import torch

    if open_clip.get_model_config(model_name) is None:
        raise ClipLoadError(f"unknown open_clip model {model_name!r}; known: {', '.join(open_clip.list_models())}")
    with torch.random.fork_rng(devices=[]), torch_threads(EMBED_THREADS), _quiet_root_logger():
        model = open_clip.create_model(model_name, pretrained=None, load_weights=False, device="cpu")
    if generator is not None:
        init_parameters(model, generator)
    model.eval()
    return model


def init_parameters(model: torch.nn.Module, generator: torch.Generator) -> None:
    """CLIP-style init drawn only from ``generator`` (in parameter-name order, so reproducible)."""
    import torch

    with torch.no_grad():
        _init_parameters(model, generator)


def _init_parameters(model: torch.nn.Module, generator: torch.Generator) -> None:
    import torch

    for name, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
        leaf = name.rsplit(".", 1)[-1]
        if name == "logit_scale":
            p.fill_(float(np.log(1 / 0.07)))
        elif name == "logit_bias":
            p.zero_()
        elif any(part.startswith("ln") for part in name.split(".")[:-1]):
            p.fill_(1.0 if leaf == "weight" else 0.0)
        elif leaf == "bias" or name.endswith("_bias"):
            p.zero_()
        elif "token_embedding" in name:
            p.copy_(torch.randn(p.shape, generator=generator) * 0.02)
        elif "positional_embedding" in name or "class_embedding" in name:
            p.copy_(torch.randn(p.shape, generator=generator) * 0.01)
        else:
            fan_in = p.shape[-1] if p.ndim == 2 else (int(np.prod(p.shape[1:])) if p.ndim > 2 else p.shape[0])
            if name in ("text_projection", "visual.proj"):
                fan_in = p.shape[0]
            p.copy_(torch.randn(p.shape, generator=generator) * fan_in ** -0.5)


def save_weights(model: torch.nn.Module, path: str | os.PathLike[str], fp16: bool = True) -> str:
    """Write the state_dict as safetensors (fp16 halves the size), atomically; return its sha256."""
    import torch
    from safetensors.torch import save

    sd = {k: (v.detach().to(torch.float16) if fp16 and v.is_floating_point() else v.detach()).contiguous()
          for k, v in model.state_dict().items()}
    data = save(sd, metadata={"format": "pt"})
    atomic_write_bytes(path, data)
    return sha256_bytes(data)


@dataclass
class LoadedClip:
    """A CLIP ready to embed: model (eval, CPU), tokenizer, preprocessing and the identity of its weights."""

    model: torch.nn.Module
    model_name: str
    weights_path: str
    weights_sha256: str
    image_size: int
    mean: tuple[float, ...] = CLIP_MEAN
    std: tuple[float, ...] = CLIP_STD
    threads: int = EMBED_THREADS
    _tokenizer: object = field(default=None, repr=False)

    @property
    def model_id(self) -> str:
        """Names architecture and weights (the embedding-cache key uses it)."""
        return f"{self.model_name}@{self.weights_sha256[:16]}"

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            import open_clip

            self._tokenizer = open_clip.get_tokenizer(self.model_name)
        return self._tokenizer

    def preprocess(self, images: Sequence[Image.Image]) -> torch.Tensor:
        import torch

        return torch.from_numpy(preprocess_images(images, self.image_size, self.mean, self.std))

    def embed_images(self, images: Sequence[Image.Image], batch_size: int = 256) -> np.ndarray:
        """L2-normalised float32 image embeddings, one row per image."""
        import torch

        out = []
        with torch_threads(self.threads), torch.no_grad():
            for i in range(0, len(images), batch_size):
                x = self.preprocess(images[i : i + batch_size])
                out.append(torch.nn.functional.normalize(self.model.encode_image(x).float(), dim=-1).numpy())
        return _stack(out, self.embed_dim)

    def embed_texts(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        """L2-normalised float32 text embeddings, one row per text."""
        import torch

        out = []
        with torch_threads(self.threads), torch.no_grad():
            for i in range(0, len(texts), batch_size):
                tok = self.tokenizer(list(texts[i : i + batch_size]))
                out.append(torch.nn.functional.normalize(self.model.encode_text(tok).float(), dim=-1).numpy())
        return _stack(out, self.embed_dim)

    @property
    def embed_dim(self) -> int:
        import torch

        proj = getattr(self.model, "text_projection", None)
        if isinstance(proj, torch.Tensor):
            return int(proj.shape[-1])
        return int(self.model.encode_text(self.tokenizer(["x"])).shape[-1])


def _stack(parts: list[np.ndarray], dim: int) -> np.ndarray:
    if not parts:
        return np.zeros((0, dim), dtype=np.float32)
    return np.ascontiguousarray(np.concatenate(parts).astype(np.float32))


def pad_to_square(img: Image.Image, fill: tuple[int, int, int] = PAD_GREY) -> Image.Image:
    img = img.convert("RGB")
    w, h = img.size
    side = max(w, h)
    canvas = Image.new("RGB", (side, side), fill)
    canvas.paste(img, ((side - w) // 2, (side - h) // 2))
    return canvas


def preprocess_images(images: Sequence[Image.Image], size: int, mean: Sequence[float] = CLIP_MEAN,
                      std: Sequence[float] = CLIP_STD) -> np.ndarray:
    """Pad to square (grey), resize to ``size`` (bicubic, deterministic), normalise: (N, 3, size, size)."""
    arr = np.stack([np.asarray(pad_to_square(im).resize((size, size), Image.BICUBIC), dtype=np.float32)
                    for im in images]) if images else np.zeros((0, size, size, 3), np.float32)
    arr = (arr / 255.0 - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2), dtype=np.float32)


def _image_size(model: torch.nn.Module) -> int:
    size = getattr(model.visual, "image_size", 224)
    return int(size[0] if isinstance(size, (tuple, list)) else size)


def _preprocess_stats(model: torch.nn.Module) -> tuple[tuple[float, ...], tuple[float, ...]]:
    cfg = getattr(model.visual, "preprocess_cfg", {}) or {}
    return tuple(cfg.get("mean", CLIP_MEAN)), tuple(cfg.get("std", CLIP_STD))


def load_weights_file(model: torch.nn.Module, path: Path) -> None:
    """Load a state_dict file strictly into ``model``; any failure is a ``ClipLoadError``."""
    from open_clip.factory import load_checkpoint

    try:
        incompatible = load_checkpoint(model, str(path), strict=True)
    except Exception as err:  # safetensors/pickle/zip errors, shape mismatches, missing keys
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ClipLoadError(f"weights file {path} is corrupt or does not match the model: {first[:300]}") from err
    if getattr(incompatible, "missing_keys", None):
        raise ClipLoadError(f"weights file {path} lacks {len(incompatible.missing_keys)} parameters of the model")


def _cached_tag_path(model_name: str, tag: str, cache_dir: str | None) -> Path:
    """The local file of a pretrained tag, from the user's cache only (no downloads)."""
    from open_clip.pretrained import get_pretrained_cfg, list_pretrained_tags_by_model

    cfg = get_pretrained_cfg(model_name, tag)
    if not cfg:
        known = ", ".join(list_pretrained_tags_by_model(model_name)) or "none"
        raise ClipLoadError(f"--clip-pretrained {tag!r} is neither a file nor a known tag of {model_name} "
                            f"(known tags: {known})")
    candidates: list[Path] = []
    hub = cfg.get("hf_hub", "")
    if hub:
        try:
            from huggingface_hub import try_to_load_from_cache

            repo_id = "/".join(hub.strip("/").split("/")[:2])
            for fname in ("open_clip_model.safetensors", "open_clip_pytorch_model.bin", "open_clip_pytorch_model.pth"):
                got = try_to_load_from_cache(repo_id, fname, cache_dir=cache_dir)
                if isinstance(got, str):
                    candidates.append(Path(got))
        except ImportError:
            pass
    url = cfg.get("url", "")
    if url:
        candidates.append(Path(cache_dir or os.path.expanduser("~/.cache/clip")) / os.path.basename(url))
    for c in candidates:
        if c.is_file():
            return c
    raise ClipLoadError(f"pretrained weights {model_name}/{tag} are not in the local cache and cannot be "
                        f"downloaded offline; pass a local weights file to --clip-pretrained")


def _read_manifest(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ClipLoadError(f"shipped layout-CLIP manifest {path} is missing or unreadable: {err}") from err


def load_clip(model_name: str = DEFAULT_MODEL, pretrained: str | os.PathLike[str] | None = None,
              cache_dir: str | None = None, threads: int = EMBED_THREADS, runtime: str = "onnx"):
    """Load a CLIP for retrieval.

    - ``load_clip()``: the shipped layout-CLIP's ONNX export on ONNX Runtime (``clip_onnx.OnnxClip``; no torch),
      what generation uses.
    - ``load_clip(runtime="torch")``: the shipped layout-CLIP's weights in open_clip (sha256 checked against its
      manifest): the reference the export is checked against.
    - ``pretrained`` a path: that state_dict file (``.safetensors``, ``.pt``, ``.bin``) into ``model_name`` (torch).
    - ``pretrained`` a tag (e.g. ``laion2b_s34b_b79k``): the tag's file from the local cache (torch).
    """
    if runtime not in ("onnx", "torch"):
        raise ValueError(f"runtime must be 'onnx' or 'torch', got {runtime!r}")
    if runtime == "onnx" and model_name == DEFAULT_MODEL and (pretrained is None or str(pretrained) == ""):
        from .clip_onnx import load_shipped_onnx

        return load_shipped_onnx(threads=threads)
    register_configs()
    import open_clip

    if open_clip.get_model_config(model_name) is None:
        raise ClipLoadError(f"unknown open_clip model {model_name!r}; known: {', '.join(open_clip.list_models())}")
    expected_sha: str | None = None
    if pretrained is None or str(pretrained) == "":
        if model_name != DEFAULT_MODEL:
            raise ClipLoadError(f"model {model_name} needs weights: pass --clip-pretrained <tag or file>")
        path = SHIPPED_WEIGHTS
        if not path.is_file():
            raise ClipLoadError(f"shipped layout-CLIP weights missing: {path} (train them with "
                                f"`synthdocqa layouts train-clip` or restore the file)")
        expected_sha = _read_manifest(SHIPPED_MANIFEST).get("weights_sha256")
    else:
        text = str(pretrained)
        looks_like_path = (os.sep in text or text.startswith(".") or
                           text.endswith((".safetensors", ".pt", ".pth", ".bin", ".ckpt")))
        if os.path.exists(text):
            path = Path(text)
            if not path.is_file():
                raise ClipLoadError(f"--clip-pretrained {text} is not a file")
        elif looks_like_path:
            raise ClipLoadError(f"weights file not found: {text}")
        else:
            path = _cached_tag_path(model_name, text, cache_dir)
    sha = sha256_file(path)
    if expected_sha is not None and sha != expected_sha:
        raise ClipLoadError(f"shipped layout-CLIP weights {path} are corrupt: sha256 {sha[:16]}... does not match "
                            f"the manifest's {str(expected_sha)[:16]}...")
    model = build_model(model_name)
    load_weights_file(model, path)
    model.eval()
    mean, std = _preprocess_stats(model)
    return LoadedClip(model=model, model_name=model_name, weights_path=str(path), weights_sha256=sha,
                      image_size=_image_size(model), mean=mean, std=std, threads=threads)


def random_clip(model_name: str = DEFAULT_MODEL, seed: int = 0) -> LoadedClip:
    """The architecture with seeded random weights (the evaluation's random-init baseline only)."""
    require_torch()
    import torch

    gen = torch.Generator().manual_seed(seed)
    model = build_model(model_name, generator=gen)
    mean, std = _preprocess_stats(model)
    return LoadedClip(model=model, model_name=model_name, weights_path="<random>",
                      weights_sha256=sha256_bytes(f"random:{model_name}:{seed}".encode()),
                      image_size=_image_size(model), mean=mean, std=std)


def wrap_model(model: torch.nn.Module, model_name: str, weights_sha256: str, weights_path: str = "<memory>"
               ) -> LoadedClip:
    """A ``LoadedClip`` around an in-memory model (e.g. right after training)."""
    mean, std = _preprocess_stats(model)
    model.eval()
    return LoadedClip(model=model, model_name=model_name, weights_path=weights_path, weights_sha256=weights_sha256,
                      image_size=_image_size(model), mean=mean, std=std)
