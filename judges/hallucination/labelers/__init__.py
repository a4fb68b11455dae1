"""Hallucination labelers: lexical overlap, embedding cosine, NLI entailment (scores) and LLM judges (labels).

Score labelers return a *support* score per item (higher = closer to the reference); the analysis
calibrates a threshold below which an item is labelled hallucinated.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..items import HallucinationItem
from .lexical import PAIR_METRICS, normalize_answer, score_pairs

LEXICAL: tuple[str, ...] = tuple(PAIR_METRICS)
EMBEDDING = "embedding_cosine"
NLI = "nli_entailment"
DEFAULT_LABELERS: tuple[str, ...] = (*LEXICAL, EMBEDDING)


def score_items(items: Sequence[HallucinationItem], names: Sequence[str] = DEFAULT_LABELERS, *,
                embedding_model: str | None = None, nli_checkpoint: str | Path | None = None
                ) -> dict[str, np.ndarray]:
    """Support scores of each named labeler, aligned with ``items``."""
    cands = [it.candidate for it in items]
    refs = [it.references for it in items]
    out: dict[str, np.ndarray] = {}
    for name in names:
        if name in PAIR_METRICS:
            out[name] = score_pairs(name, cands, refs)
        elif name == EMBEDDING:
            from .embedding import embedding_scores

            out[name] = embedding_scores(cands, refs, model_path=embedding_model)
        elif name == NLI:
            if nli_checkpoint is None:
                raise ValueError("labeler nli_entailment needs nli_checkpoint (a local HF NLI model directory)")
            from .nli import NliLabeler

            out[name] = NliLabeler(nli_checkpoint).scores([it.question for it in items], cands, refs)
        else:
            raise ValueError(f"unknown labeler {name!r}; known: {[*LEXICAL, EMBEDDING, NLI]}")
    return out


__all__ = ["DEFAULT_LABELERS", "EMBEDDING", "LEXICAL", "NLI", "normalize_answer", "score_items"]
