"""Entry point of corpus generation shared by the CLI (``synthdocqa generate``) and the flows."""

from __future__ import annotations

import os
from collections.abc import Iterable

from ir.spec import CorpusSpec


def run_generate(spec: CorpusSpec, out: str | os.PathLike[str], workers: int = 1, only: Iterable[int] | None = None,
                 force: bool = False, runner: str = "process", dask_address: str | None = None, progress=None):
    """Generate a corpus; returns the manifest stats (dict) or, with ``only``, the written records."""
    from flows.corpus_ops import generate_corpus

    result = generate_corpus(spec, out, workers=workers, only=only, force=force, progress=progress)
    return result if isinstance(result, list) else result.stats
