"""CLIP layout retrieval: page query text -> layout thumbnails, then hard constraints and a seeded choice.

The library's thumbnails are embedded once by the CLIP image tower (cached on disk, keyed by library id +
model id + weights sha256); a query is embedded by the text tower and scored by cosine similarity against
the normalised matrix (numpy; at 10k x 128 a matrix-vector product takes well under a millisecond, so
faiss does not pay). Scores are rounded to ``SCORE_DECIMALS`` and ties ordered by layout id *before* the
page's seeded choice, so float noise in the embedding arithmetic cannot change which layout is picked.
Hard constraints (``layouts.is_compatible``: slots for the page's blocks) and the document's style family
are applied after ranking.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from synthdocqa.ir.document import DocumentIR

from .assign import page_layout_rng
from .clip_model import LoadedClip
from .embed_cache import EmbeddingCache, cache_key, library_id
from .layout_queries import page_query
from .layouts import Layout, LayoutLibrary, is_compatible, layout_from_id

SCORE_DECIMALS = 4
DEFAULT_CHOOSE_FROM = 3
"""The seeded choice is uniform among this many best compatible layouts."""


@dataclass(frozen=True)
class Hit:
    rank: int
    layout_id: str
    score: float


def round_scores(scores: np.ndarray) -> np.ndarray:
    """Scores rounded so that ties and ~1e-6 float noise do not reorder results."""
    return np.round(scores.astype(np.float64), SCORE_DECIMALS)


def default_cache_dir() -> Path:
    env = os.environ.get("SYNTHDOCQA_CACHE")
    return Path(env) / "clip" if env else Path.home() / ".cache" / "synthdocqa" / "clip"


def _code_version() -> str:
    """Hash of the modules that decide layouts and thumbnails (key of generated, file-less libraries)."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for name in ("layouts.py", "thumbs.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


class LayoutRetriever:
    """Normalised image-embedding matrix of a layout library plus a CLIP to embed queries."""

    def __init__(self, clip: LoadedClip, ids: Sequence[str], emb: np.ndarray,
                 layouts: Callable[[str], Layout] = layout_from_id, thumb_dir: Path | None = None) -> None:
        emb = np.asarray(emb, dtype=np.float32)
        if emb.ndim != 2 or emb.shape[0] != len(ids):
            raise ValueError(f"embedding matrix shape {emb.shape} does not match {len(ids)} layout ids")
        norms = np.linalg.norm(emb, axis=1, keepdims=True)
        self.clip = clip
        self.ids: list[str] = list(ids)
        self.emb = np.ascontiguousarray(emb / np.maximum(norms, 1e-12))
        self._layout = layouts
        self._cache: dict[str, Layout] = {}
        self.thumb_dir = thumb_dir
        self._pos = {lid: i for i, lid in enumerate(self.ids)}
        self._id_order = np.argsort(np.array(self.ids))  # tie-break rank of each row by id
        self._id_rank = np.empty(len(self.ids), dtype=np.int64)
        self._id_rank[self._id_order] = np.arange(len(self.ids))
        self._families: np.ndarray | None = None

    # --- construction ------------------------------------------------------------------------------------

    @classmethod
    def from_library_dir(cls, lib_dir: str | os.PathLike[str], clip: LoadedClip,
                         cache_dir: str | os.PathLike[str] | None = None, batch_size: int = 256,
                         ) -> LayoutRetriever:
        """Embed ``lib_dir/thumbs`` (or load the cached embeddings) for ``clip``."""
        from .library_build import load_library

        lib = load_library(lib_dir)
        ids = lib.ids()
        thumb_dir = Path(lib_dir) / "thumbs"
        cache = EmbeddingCache(cache_dir if cache_dir is not None else Path(lib_dir) / "embeddings")
        key = cache_key(library_id(lib_dir), clip.model_id, clip.weights_sha256)
        emb = cache.load(key, ids)
        if emb is None:
            emb = embed_thumbnail_files(clip, [thumb_dir / f"{i}.png" for i in ids], batch_size)
            cache.save(key, ids, emb)
        return cls(clip, ids, emb, layouts=lib.by_id, thumb_dir=thumb_dir)

    @classmethod
    def from_library(cls, library: LayoutLibrary, clip: LoadedClip,
                     cache_dir: str | os.PathLike[str] | None = None, thumb_size: int = 64,
                     batch_size: int = 256) -> LayoutRetriever:
        """A file-less library: thumbnails drawn in memory, embeddings cached under ``cache_dir``."""
        from .thumbs import draw_thumbnail

        ids = library.ids()
        lib_key = f"generated:{library.seed}:{library.count}:{thumb_size}:{_code_version()}"
        cache = EmbeddingCache(cache_dir if cache_dir is not None else default_cache_dir())
        key = cache_key(lib_key, clip.model_id, clip.weights_sha256)
        emb = cache.load(key, ids)
        if emb is None:
            parts = []
            for start in range(0, len(ids), batch_size):
                ims = [Image.fromarray(draw_thumbnail(library.get(i), thumb_size))
                       for i in range(start, min(len(ids), start + batch_size))]
                parts.append(clip.embed_images(ims, batch_size))
            emb = np.concatenate(parts)
            cache.save(key, ids, emb)
        retriever = cls(clip, ids, emb, layouts=library.by_id)
        retriever._families = _cached_families(cache.root, lib_key, retriever)
        return retriever

    # --- queries -----------------------------------------------------------------------------------------

    def layout(self, lid: str) -> Layout:
        lay = self._cache.get(lid)
        if lay is None:
            lay = self._cache[lid] = self._layout(lid)
        return lay

    @property
    def families(self) -> np.ndarray:
        if self._families is None:
            self._families = np.array([self.layout(i).style.style_family for i in self.ids])
        return self._families

    def embed_query(self, text: str) -> np.ndarray:
        return self.clip.embed_texts([text])[0]

    def scores(self, query: str | np.ndarray) -> np.ndarray:
        """Rounded cosine similarity of every layout to ``query`` (text or normalised vector)."""
        q = self.embed_query(query) if isinstance(query, str) else np.asarray(query, dtype=np.float32)
        # einsum, not BLAS gemv: single-threaded and ~100x faster on a busy shared machine (0.2 vs 16 ms)
        return round_scores(np.einsum("ij,j->i", self.emb, q))

    def ranked(self, scores: np.ndarray, mask: np.ndarray | None = None, k: int | None = None) -> np.ndarray:
        """Row indices by (score desc, layout id asc); only rows where ``mask``; the first ``k`` if given."""
        rows = np.flatnonzero(mask) if mask is not None else np.arange(len(self.ids))
        if k is not None and k < len(rows):
            part = rows[np.argpartition(-scores[rows], k - 1)[:k]]
            kth = scores[part].min()
            rows = rows[scores[rows] >= kth]  # keep every tie at the boundary, ordered exactly below
        order = np.lexsort((self._id_rank[rows], -scores[rows]))
        out = rows[order]
        return out[:k] if k is not None else out

    def search(self, query: str, k: int = 5, family: str | None = None) -> list[Hit]:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        s = self.scores(query)
        mask = (self.families == family) if family else None
        return [Hit(rank=r + 1, layout_id=self.ids[i], score=float(s[i]))
                for r, i in enumerate(self.ranked(s, mask, k))]

    def thumbnail_path(self, lid: str) -> Path | None:
        if self.thumb_dir is None:
            return None
        p = self.thumb_dir / f"{lid}.png"
        return p if p.is_file() else None


def _cached_families(root: Path, lib_key: str, retriever: LayoutRetriever) -> np.ndarray:
    """Style family of every layout, cached beside the embeddings.

    Building all 10,000 generated layouts takes ~10 s; every worker process would pay it on its first page.
    """
    import hashlib
    import json

    from synthdocqa.ir.files import atomic_write_text

    path = root / f"families-{hashlib.sha256(lib_key.encode()).hexdigest()[:40]}.json"
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("key") == lib_key and data.get("ids") == retriever.ids:
            return np.array(data["families"])
    except (OSError, ValueError):
        pass
    families = retriever.families
    atomic_write_text(path, json.dumps({"key": lib_key, "ids": retriever.ids, "families": families.tolist()}))
    return families


def embed_thumbnail_files(clip: LoadedClip, paths: Sequence[Path], batch_size: int = 256) -> np.ndarray:
    parts = []
    for start in range(0, len(paths), batch_size):
        ims = []
        for p in paths[start : start + batch_size]:
            try:
                with Image.open(p) as im:
                    ims.append(im.convert("RGB"))
            except OSError as err:
                raise FileNotFoundError(f"layout thumbnail unreadable: {p} ({err})") from err
        parts.append(clip.embed_images(ims, batch_size))
    if not parts:
        return np.zeros((0, clip.embed_dim), dtype=np.float32)
    return np.concatenate(parts)


def choose_layout(retriever: LayoutRetriever, query: str, blocks, family: str, rng,
                  choose_from: int = DEFAULT_CHOOSE_FROM, shortlist: int = 64) -> str:
    """Best-ranked layouts of ``family`` that fit ``blocks``; a seeded pick among the first ``choose_from``.

    Widens from the top ``shortlist`` to the whole family, then to every family, before falling back to
    a single-column layout (which accepts any element type; overflow carries to the next page).
    """
    scores = retriever.scores(query)
    fam_mask = retriever.families == family
    for mask, k in ((fam_mask, shortlist), (fam_mask, None), (None, shortlist), (None, None)):
        fits = [i for i in retriever.ranked(scores, mask, k)
                if is_compatible(retriever.layout(retriever.ids[i]), blocks)]
        if fits:
            cands = [retriever.ids[i] for i in fits[:choose_from]]
            return cands[0] if len(cands) == 1 else rng.choice(cands)
    for i in retriever.ranked(scores, fam_mask if fam_mask.any() else None):
        if retriever.layout(retriever.ids[i]).arrangement == "single":
            return retriever.ids[i]
    return retriever.ids[int(retriever.ranked(scores, None, 1)[0])]


def assign_layouts_clip(doc: DocumentIR, retriever: LayoutRetriever,
                        choose_from: int = DEFAULT_CHOOSE_FROM) -> DocumentIR:
    """A copy of ``doc`` with every ``PagePlan.layout_id`` filled by retrieval (ids already set are kept).

    All pages stay in the document's style family (``DocumentIR.style_family``).
    """
    family = doc.style_family
    pages = []
    for page in doc.pages:
        if page.layout_id:
            pages.append(page)
            continue
        lid = choose_layout(retriever, page_query(page, family), page.blocks, family,
                            page_layout_rng(doc, page.page_no), choose_from)
        pages.append(page.model_copy(update={"layout_id": lid}))
    return doc.model_copy(update={"pages": pages})


def default_layout_chooser(cache_dir: str | os.PathLike[str] | None = None) -> Callable[[DocumentIR], DocumentIR]:
    """``doc -> doc with layouts`` by the shipped layout-CLIP over the built-in library (for ``render``)."""
    from .clip_model import load_clip
    from .layouts import default_library

    retriever = LayoutRetriever.from_library(default_library(), load_clip(), cache_dir=cache_dir)
    retriever.embed_query("")  # the text tower's session made now, once per process (a fork server's workers
    # inherit it): not on the first page of the first document

    def choose(doc: DocumentIR) -> DocumentIR:
        return assign_layouts_clip(doc, retriever)

    return choose
