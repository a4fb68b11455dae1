"""``build-layout-library`` and ``train-layout-clip`` flows."""

from __future__ import annotations

import os

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE


@task(name="build-library", cache_policy=NO_CACHE)
def build_library_task(seed: int, count: int, out: str) -> dict:
    from synthdocqa.renderers.layout.library_build import build_library

    return build_library(seed, count, out)


@flow(name="build-layout-library")
def build_layout_library_flow(seed: int = 20261130, count: int = 10000, out: str = "out/layouts") -> dict:
    """Write the procedural layout library (rows + wireframe thumbnails); same seed, same bytes."""
    if count < 1:
        raise ValueError("count must be >= 1")
    out = os.path.abspath(out)  # the log names the folder wherever it is read
    info = build_library_task(seed, count, out)
    get_run_logger().info(f"layout library of {count} layouts written to {out}")
    return info


@task(name="train-clip", cache_policy=NO_CACHE)
def train_clip_task(library: str, out: str, seed: int, epochs: int | None) -> dict:
    from dataclasses import asdict
    from pathlib import Path

    from synthdocqa.renderers.layout.clip_model import require_torch

    require_torch()  # a ClipLoadError naming the [clip] extra, before anything else is loaded
    from synthdocqa.renderers.layout.clip_train import TrainConfig, train_clip
    from synthdocqa.renderers.layout.library_build import load_library

    lib = load_library(library)
    cfg = TrainConfig(seed=seed, **({"epochs": epochs} if epochs else {}))
    res = train_clip(list(lib), Path(library) / "thumbs", out, cfg, log=get_run_logger().info)
    return asdict(res)


@flow(name="train-layout-clip")
def train_layout_clip_flow(library: str, out: str, seed: int = 0, epochs: int | None = None) -> dict:
    """Train the small layout-CLIP contrastively on a built library (CPU, seeded)."""
    res = train_clip_task(os.path.abspath(library), os.path.abspath(out), seed, epochs)
    create_markdown_artifact(key="train-layout-clip", markdown=(
        f"# layout-CLIP\n\nweights `{res['weights_path']}` (sha256 `{res['weights_sha256'][:16]}`), "
        f"{res['n_train']} training layouts, {res['steps']} steps in {res['seconds']:.0f} s, "
        f"final loss {res['final_loss']:.3f}"))
    return res
