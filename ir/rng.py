"""Fork RNG: every random stream is a pure function of (root seed, path).

A child stream is addressed by a path of names and indices, e.g.
``Rng(7).fork("doc", 17).fork("page", 3).fork("stage", "blur")``. Each path
element is hashed (blake2b, so independent of ``PYTHONHASHSEED``) into the
``spawn_key`` of a numpy ``SeedSequence``. Streams therefore do not depend on
the order in which they are created, and adding a new named child never shifts
the streams of existing ones (SynthTIGER-style derived seeds).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

PathPart = str | int

_MASK64 = (1 << 64) - 1


def stable_hash(part: PathPart) -> int:
    """64-bit hash of one path element; ``"3"`` and ``3`` hash differently."""
    if isinstance(part, bool) or not isinstance(part, (str, int)):
        raise TypeError(f"rng path parts must be str or int, got {type(part).__name__}: {part!r}")
    tag = f"i:{part}" if isinstance(part, int) else f"s:{part}"
    return int.from_bytes(hashlib.blake2b(tag.encode("utf-8"), digest_size=8).digest(), "little")


class Rng:
    """A seeded stream addressed by ``(seed, path)``; fork it, never share it."""

    __slots__ = ("seed", "path", "_key", "_gen")

    def __init__(self, seed: int, path: Sequence[PathPart] = ()) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = seed
        self.path: tuple[PathPart, ...] = tuple(path)
        self._key = tuple(stable_hash(p) for p in self.path)  # validates every part early
        self._gen: np.random.Generator | None = None

    def fork(self, *parts: PathPart) -> Rng:
        """The child stream at ``path + parts``; only the new parts are hashed (a deep fork chain would
        otherwise hash its whole path again at every level)."""
        child = object.__new__(type(self))
        child.seed = self.seed
        child.path = self.path + parts
        child._key = self._key + tuple(stable_hash(p) for p in parts)
        child._gen = None
        return child

    @property
    def seed_sequence(self) -> np.random.SeedSequence:
        return np.random.SeedSequence(entropy=self.seed, spawn_key=self._key)

    @property
    def gen(self) -> np.random.Generator:
        """The numpy Generator of this stream (created lazily, then stateful)."""
        if self._gen is None:
            self._gen = np.random.Generator(np.random.PCG64(self.seed_sequence))
        return self._gen

    def child_seed(self) -> int:
        """A 63-bit integer seed for libraries that take a plain int (derived, not drawn)."""
        return int(self.seed_sequence.generate_state(2, dtype=np.uint64)[0]) & (_MASK64 >> 1)

    # Convenience draws (all through this stream's Generator).
    def random(self) -> float:
        return float(self.gen.random())

    def uniform(self, low: float, high: float) -> float:
        return float(self.gen.uniform(low, high))

    def integers(self, low: int, high: int) -> int:
        """Integer in ``[low, high)``."""
        return int(self.gen.integers(low, high))

    def normal(self, loc: float = 0.0, scale: float = 1.0) -> float:
        return float(self.gen.normal(loc, scale))

    def bernoulli(self, p: float) -> bool:
        return bool(self.gen.random() < p)

    def choice(self, seq: Sequence[Any], p: Sequence[float] | None = None) -> Any:
        if len(seq) == 0:
            raise ValueError("choice from an empty sequence")
        if p is not None:
            w = np.asarray(p, dtype=float)
            w = w / w.sum()
            return seq[int(self.gen.choice(len(seq), p=w))]
        return seq[int(self.gen.integers(0, len(seq)))]

    def sample(self, seq: Sequence[Any], k: int) -> list[Any]:
        """``k`` distinct elements in random order."""
        if k > len(seq):
            raise ValueError(f"cannot sample {k} from {len(seq)} elements")
        idx = self.gen.permutation(len(seq))[:k]
        return [seq[int(i)] for i in idx]

    def shuffled(self, seq: Sequence[Any]) -> list[Any]:
        return [seq[int(i)] for i in self.gen.permutation(len(seq))]

    def __repr__(self) -> str:
        return f"Rng(seed={self.seed}, path={list(self.path)!r})"
