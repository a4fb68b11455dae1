"""Cross-modal retrieval evaluation on held-out layouts: query text -> layout thumbnail.

For every held-out layout two queries are made: its library descriptor and a paraphrase (different words,
clause order). The gallery is the held-out thumbnails only. Reported: Recall@1/5/10 of the exact layout
and structural precision@5 (share of the top 5 whose (arrangement, columns) equals the query's), with
the same score rounding and id tie-break as retrieval itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from synthdocqa.ir.rng import Rng

from .clip_model import LoadedClip
from .layout_queries import is_held_out, paraphrase, structure_key
from .layouts import Layout, describe
from .retrieval import round_scores

QUERY_KINDS = ("descriptor", "paraphrase")


@dataclass(frozen=True)
class Queries:
    texts: list[str]
    target: np.ndarray  # gallery row of the layout each query describes
    kind: list[str]


def held_out_layouts(layouts: Sequence[Layout]) -> list[Layout]:
    return [lay for lay in layouts if is_held_out(lay.id)]


def make_queries(gallery: Sequence[Layout], seed: int = 0) -> Queries:
    texts, target, kind = [], [], []
    for i, lay in enumerate(gallery):
        texts.append(describe(lay))
        target.append(i)
        kind.append("descriptor")
        texts.append(paraphrase(lay, Rng(seed).fork("eval_query", lay.id).gen, keep=1.0))
        target.append(i)
        kind.append("paraphrase")
    return Queries(texts, np.asarray(target), kind)


def rank_rows(scores: np.ndarray, gallery_ids: Sequence[str], top: int) -> np.ndarray:
    """(Q, top) gallery rows by rounded score desc, id asc."""
    s = round_scores(scores)
    id_rank = np.argsort(np.argsort(np.asarray(gallery_ids)))
    out = np.empty((s.shape[0], top), dtype=np.int64)
    for q in range(s.shape[0]):
        out[q] = np.lexsort((id_rank, -s[q]))[:top]
    return out


def metrics(scores: np.ndarray, queries: Queries, gallery: Sequence[Layout]) -> dict[str, dict[str, float]]:
    """Per query kind (and "all"): R@1, R@5, R@10, structural P@5."""
    top = rank_rows(scores, [g.id for g in gallery], 10)
    keys = [structure_key(g) for g in gallery]
    hit_rank = np.array([(np.flatnonzero(top[q] == queries.target[q])[:1].tolist() or [99])[0]
                         for q in range(len(queries.texts))])
    sp5 = np.array([np.mean([keys[j] == keys[queries.target[q]] for j in top[q, :5]])
                    for q in range(len(queries.texts))])
    out: dict[str, dict[str, float]] = {}
    kinds = np.asarray(queries.kind)
    for kind in (*QUERY_KINDS, "all"):
        m = np.ones(len(kinds), bool) if kind == "all" else kinds == kind
        if not m.any():
            continue
        out[kind] = {"R@1": float(np.mean(hit_rank[m] < 1)), "R@5": float(np.mean(hit_rank[m] < 5)),
                     "R@10": float(np.mean(hit_rank[m] < 10)), "SP@5": float(np.mean(sp5[m])), "n": int(m.sum())}
    return out


def clip_scorer(clip: LoadedClip, gallery_images: Sequence[Image.Image]) -> Callable[[list[str]], np.ndarray]:
    img = clip.embed_images(list(gallery_images))

    def score(texts: list[str]) -> np.ndarray:
        return clip.embed_texts(texts) @ img.T

    return score


def tfidf_scorer(gallery: Sequence[Layout]) -> Callable[[list[str]], np.ndarray]:
    """Non-CLIP baseline: TF-IDF (word 1-2 grams) of the query against the layouts' descriptors."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    docs = vec.fit_transform([describe(g) for g in gallery])

    def score(texts: list[str]) -> np.ndarray:
        return (vec.transform(texts) @ docs.T).toarray()

    return score
