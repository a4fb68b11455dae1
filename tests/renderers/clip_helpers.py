"""A micro open_clip architecture for fast retrieval tests (real open_clip code, tiny widths)."""

from __future__ import annotations

import json
from pathlib import Path

import open_clip
import torch

from synthdocqa.renderers.layout.clip_model import build_model, load_clip, save_weights

MICRO_NAME = "test-clip-micro"
MICRO = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "head_width": 16, "patch_size": 16},
    "text_cfg": {"context_length": 32, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
}


def register_micro(directory: Path) -> str:
    path = directory / f"{MICRO_NAME}.json"
    path.write_text(json.dumps(MICRO))
    open_clip.add_model_config(path)
    return MICRO_NAME


def micro_clip(directory: Path, seed: int):
    """A LoadedClip of the micro architecture, loaded from a weights file written here."""
    register_micro(directory)
    weights = directory / f"micro-{seed}.safetensors"
    if not weights.exists():
        save_weights(build_model(MICRO_NAME, generator=torch.Generator().manual_seed(seed)), weights, fp16=False)
    return load_clip(MICRO_NAME, str(weights))
