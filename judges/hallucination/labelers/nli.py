"""NLI reference-entailment labeler over any local Hugging Face sequence-classification checkpoint.

Premise = question + reference answer, hypothesis = candidate; the score is P(entailment), max over
references. The entailment class is found from ``config.id2label`` (a label containing "entail") or
given explicitly. Nothing is downloaded: the checkpoint is a local directory.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np


class NliLabeler:
    def __init__(self, checkpoint: str | Path, *, entailment_index: int | None = None, batch_size: int = 32,
                 max_length: int = 256, device: str = "cpu") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        path = Path(checkpoint)
        if not path.is_dir():
            raise ValueError(f"NLI checkpoint {path} is not a local directory")
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(str(path), local_files_only=True)
        self.model.eval().to(device)
        self.device = device
        self.batch_size, self.max_length = batch_size, max_length
        if entailment_index is None:
            labels = {int(k): str(v).lower() for k, v in self.model.config.id2label.items()}
            hits = [k for k, v in labels.items() if "entail" in v and "not" not in v and "non" not in v]
            if len(hits) != 1:
                raise ValueError(f"cannot find the entailment class in id2label={labels}; pass entailment_index")
            entailment_index = hits[0]
        if not 0 <= entailment_index < self.model.config.num_labels:
            raise ValueError(f"entailment_index {entailment_index} out of range")
        self.entailment_index = entailment_index

    def entailment_probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        import torch

        out = []
        with torch.inference_mode():
            for i in range(0, len(premises), self.batch_size):
                enc = self.tokenizer(list(premises[i:i + self.batch_size]), list(hypotheses[i:i + self.batch_size]),
                                     padding=True, truncation=True, max_length=self.max_length,
                                     return_tensors="pt").to(self.device)
                logits = self.model(**enc).logits.float()
                out.append(torch.softmax(logits, dim=-1)[:, self.entailment_index].cpu().numpy())
        return np.concatenate(out) if out else np.zeros(0)

    def scores(self, questions: Sequence[str], candidates: Sequence[str],
               references: Sequence[Sequence[str]]) -> np.ndarray:
        premises, hyps, owner = [], [], []
        for k, (q, c, refs) in enumerate(zip(questions, candidates, references, strict=True)):
            for r in refs:
                premises.append(f"{q} {r}")
                hyps.append(c)
                owner.append(k)
        probs = self.entailment_probs(premises, hyps)
        out = np.full(len(candidates), -np.inf)
        np.maximum.at(out, np.array(owner, dtype=int), probs)
        return out
