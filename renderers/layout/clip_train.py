"""Contrastive training of the layout-CLIP on (thumbnail, descriptor/paraphrase) pairs, reproducibly on CPU.

Everything random comes from the fork RNG: parameter init and data order from a ``torch.Generator``
seeded by ``Rng(seed).fork("clip_train", ...)``, text choice from numpy Generators of named forks. The
thread count is fixed and deterministic algorithms are on while training (both restored afterwards).
Held-out layouts (``layout_queries.is_held_out``) are never seen.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from synthdocqa.ir.rng import Rng

from .clip_model import (
    CLIP_MEAN,
    CLIP_STD,
    DEFAULT_MODEL,
    build_model,
    preprocess_images,
    save_weights,
    torch_threads,
)
from .layout_queries import is_held_out, training_texts
from .layouts import Layout


@dataclass(frozen=True)
class TrainConfig:
    seed: int = 0
    epochs: int = 5
    batch_size: int = 128
    lr: float = 1.5e-3
    weight_decay: float = 0.1
    warmup_steps: int = 25
    threads: int = 1
    grad_clip: float = 1.0
    model_name: str = DEFAULT_MODEL


@dataclass
class TrainResult:
    weights_path: str
    weights_sha256: str
    n_train: int
    n_held_out: int
    steps: int
    seconds: float
    final_loss: float
    config: dict


def load_thumbs(layouts: list[Layout], thumb_dir: Path, size: int) -> np.ndarray:
    """Preprocessed float16 image tensor (N, 3, size, size) for the layouts' thumbnail files."""
    out = np.empty((len(layouts), 3, size, size), dtype=np.float16)
    for i in range(0, len(layouts), 512):
        ims = []
        for lay in layouts[i : i + 512]:
            p = thumb_dir / f"{lay.id}.png"
            try:
                with Image.open(p) as im:
                    ims.append(im.convert("RGB"))
            except OSError as err:
                raise FileNotFoundError(f"thumbnail of {lay.id} unreadable: {p} ({err})") from err
        out[i : i + len(ims)] = preprocess_images(ims, size, CLIP_MEAN, CLIP_STD)
    return out


def train_clip(layouts: list[Layout], thumb_dir: str | Path, out_dir: str | Path, cfg: TrainConfig,
               log: Callable[[str], None] = print) -> TrainResult:
    """Train on the non-held-out ``layouts``; write ``<model>.safetensors`` + ``<model>.training.json`` (how it was trained) to out_dir."""
    train = [lay for lay in layouts if not is_held_out(lay.id)]
    if len(train) < 2:
        raise ValueError(f"need at least 2 training layouts, got {len(train)}")
    root = Rng(cfg.seed).fork("clip_train")
    gen = torch.Generator().manual_seed(root.fork("init").child_seed())
    order_gen = torch.Generator().manual_seed(root.fork("order").child_seed())
    model = build_model(cfg.model_name, generator=gen)
    size = int(model.visual.image_size[0] if isinstance(model.visual.image_size, tuple) else model.visual.image_size)
    images = torch.from_numpy(load_thumbs(train, Path(thumb_dir), size))
    import open_clip

    tokenizer = open_clip.get_tokenizer(cfg.model_name)
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or "embedding" in name or name == "logit_scale" else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.98), eps=1e-6)
    bs = min(cfg.batch_size, len(train))
    steps_per_epoch = max(1, len(train) // bs)
    total = steps_per_epoch * cfg.epochs

    def lr_at(step: int) -> float:
        if step < cfg.warmup_steps:
            return cfg.lr * (step + 1) / cfg.warmup_steps
        t = (step - cfg.warmup_steps) / max(1, total - cfg.warmup_steps)
        return cfg.lr * 0.5 * (1 + math.cos(math.pi * t))

    was_det = torch.are_deterministic_algorithms_enabled()
    t0 = time.perf_counter()
    step = 0
    loss_val = float("nan")
    model.train()
    torch.use_deterministic_algorithms(True)
    try:
        with torch_threads(cfg.threads):
            for epoch in range(cfg.epochs):
                perm = torch.randperm(len(train), generator=order_gen)
                text_gen = root.fork("texts", epoch).gen
                texts = [training_texts(lay, text_gen) for lay in train]
                for b in range(steps_per_epoch):
                    idx = perm[b * bs : (b + 1) * bs]
                    x = images[idx].float()
                    tok = tokenizer([texts[int(i)] for i in idx])
                    for g in opt.param_groups:
                        g["lr"] = lr_at(step)
                    img_f, txt_f, scale = model(x, tok)[:3]
                    logits = scale * img_f @ txt_f.T
                    labels = torch.arange(len(idx))
                    loss = (torch.nn.functional.cross_entropy(logits, labels)
                            + torch.nn.functional.cross_entropy(logits.T, labels)) / 2
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
                    opt.step()
                    with torch.no_grad():
                        model.logit_scale.clamp_(0, math.log(100))
                    loss_val = float(loss.detach())
                    step += 1
                    if step % 10 == 0 or step == total or step <= 3:
                        log(f"step {step}/{total} epoch {epoch + 1} loss {loss_val:.4f} "
                            f"scale {float(model.logit_scale.detach().exp()):.1f} {time.perf_counter() - t0:.0f}s")
    finally:
        torch.use_deterministic_algorithms(was_det)
        model.eval()
    seconds = time.perf_counter() - t0
    out = Path(out_dir)
    stem = cfg.model_name.replace("-", "_")
    weights = out / f"{stem}.safetensors"
    sha = save_weights(model, weights, fp16=True)
    cfg_dict = {k: getattr(cfg, k) for k in cfg.__dataclass_fields__}
    manifest = {"model": cfg.model_name, "weights": weights.name, "weights_sha256": sha,
                "train_layouts": len(train), "held_out_layouts": len(layouts) - len(train), "steps": step,
                "train_seconds": round(seconds, 1), "final_loss": round(loss_val, 4), "config": cfg_dict,
                "library_first_id": layouts[0].id, "library_count": len(layouts)}
    from synthdocqa.ir.files import atomic_write_bytes

    atomic_write_bytes(out / f"{stem}.training.json", (json.dumps(manifest, indent=1) + "\n").encode())
    return TrainResult(weights_path=str(weights), weights_sha256=sha, n_train=len(train),
                       n_held_out=len(layouts) - len(train), steps=step, seconds=seconds, final_loss=loss_val,
                       config=cfg_dict)
