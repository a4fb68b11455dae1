"""Lexical reference-overlap labelers: exact match, token F1 (SQuAD normalisation), ROUGE-L, chrF, BLEU.

Each returns a support score per item (higher = closer to a reference; max over references). A
continuous score becomes a hallucination label by a threshold calibrated on a dev split.
"""

from __future__ import annotations

import functools
import re
import string
from collections import Counter
from collections.abc import Sequence

import numpy as np

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """SQuAD v1.1 normalisation: lower case, drop punctuation and articles, collapse whitespace."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def exact_match(candidate: str, reference: str) -> float:
    return float(normalize_answer(candidate) == normalize_answer(reference))


def token_f1(candidate: str, reference: str) -> float:
    """SQuAD token F1 (both empty: 1; one empty: 0)."""
    c, r = normalize_answer(candidate).split(), normalize_answer(reference).split()
    if not c or not r:
        return float(c == r)
    common = Counter(c) & Counter(r)
    same = sum(common.values())
    if same == 0:
        return 0.0
    p, rec = same / len(c), same / len(r)
    return 2 * p * rec / (p + rec)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Longest common subsequence length (O(len(a) * len(b)) dynamic programme, one row kept)."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F1 over normalised tokens (beta = 1)."""
    c, r = normalize_answer(candidate).split(), normalize_answer(reference).split()
    if not c or not r:
        return float(c == r)
    lcs = lcs_length(c, r)
    if lcs == 0:
        return 0.0
    p, rec = lcs / len(c), lcs / len(r)
    return 2 * p * rec / (p + rec)


def chrf(candidate: str, reference: str) -> float:
    """sacrebleu chrF (0-100) scaled to 0-1."""
    return _metric("chrf").sentence_score(candidate, [reference]).score / 100.0


def bleu(candidate: str, reference: str) -> float:
    """sacrebleu sentence BLEU (effective order, 0-100) scaled to 0-1."""
    return _metric("bleu").sentence_score(candidate, [reference]).score / 100.0


@functools.cache
def _metric(name: str):
    from sacrebleu.metrics import BLEU, CHRF

    return CHRF() if name == "chrf" else BLEU(effective_order=True)


PAIR_METRICS = {"exact_match": exact_match, "token_f1": token_f1, "rouge_l": rouge_l, "chrf": chrf, "bleu": bleu}


def score_pairs(metric: str, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """Max over each item's references of ``metric(candidate, reference)``."""
    fn = PAIR_METRICS[metric]
    return np.array([max(fn(c, r) for r in refs) for c, refs in zip(candidates, references, strict=True)],
                    dtype=float)
