"""CLIP's byte-pair tokenizer without torch: the same token ids as open_clip's ``SimpleTokenizer``.

A port of OpenAI CLIP's tokenizer (MIT License, Copyright (c) 2021 OpenAI) as open_clip 3.3 runs it for a
model config without an ``hf_tokenizer_name`` (the shipped layout-CLIP): text cleaned by ftfy and HTML
unescaping, whitespace folded, lower-cased, split by CLIP's pattern, byte-pair merged with the shipped
vocabulary (``layout_clip/bpe_simple_vocab_16e6.txt.gz``, the file open_clip ships), framed by the
start and end tokens and truncated to the context length with the end token kept last. It returns int64
numpy arrays, so generation embeds queries on ONNX Runtime with no torch installed; a test compares the ids
with open_clip's on the held-out retrieval queries and on odd text.
"""

from __future__ import annotations

import functools
import gzip
import html
from collections.abc import Sequence
from pathlib import Path

import ftfy
import numpy as np
import regex

BPE_VOCAB = Path(__file__).resolve().with_name("layout_clip") / "bpe_simple_vocab_16e6.txt.gz"
_MERGES = 49152 - 256 - 2
"""The merges CLIP uses: lines 1..48894 of the vocabulary file (its first line is a header)."""
SPECIAL_TOKENS = ("<start_of_text>", "<end_of_text>")


@functools.cache
def _bytes_to_unicode() -> dict[int, str]:
    """Reversible byte -> printable character table (no whitespace or control characters)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2**8):
        if b not in bs:
            bs.append(b)
            cs.append(2**8 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs], strict=True))


def _pairs(word: tuple[str, ...]) -> set[tuple[str, str]]:
    return set(zip(word, word[1:], strict=False))


def _clean(text: str) -> str:
    """open_clip's ``clean='lower'``: ftfy, HTML unescaped twice, whitespace folded, lower case."""
    text = html.unescape(html.unescape(ftfy.fix_text(text))).strip()
    return " ".join(text.split()).strip().lower()


class ClipTokenizer:
    """Text -> (N, context_length) int64 token ids, as open_clip's ``SimpleTokenizer`` gives them."""

    def __init__(self, context_length: int, bpe_path: str | Path = BPE_VOCAB) -> None:
        if context_length < 2:
            raise ValueError(f"context_length must be >= 2, got {context_length}")
        with gzip.open(bpe_path) as f:
            lines = f.read().decode("utf-8").split("\n")
        merges = [tuple(m.split()) for m in lines[1 : _MERGES + 1]]
        byte_chars = list(_bytes_to_unicode().values())
        vocab = byte_chars + [c + "</w>" for c in byte_chars] + ["".join(m) for m in merges] + list(SPECIAL_TOKENS)
        self.encoder: dict[str, int] = {tok: i for i, tok in enumerate(vocab)}
        self.bpe_ranks: dict[tuple[str, ...], int] = {m: i for i, m in enumerate(merges)}
        self.byte_encoder = _bytes_to_unicode()
        self.sot_token_id, self.eot_token_id = (self.encoder[t] for t in SPECIAL_TOKENS)
        self.context_length = context_length
        self.vocab_size = len(self.encoder)
        self._cache: dict[str, str] = {t: t for t in SPECIAL_TOKENS}
        self._pattern = regex.compile("|".join(SPECIAL_TOKENS) +
                                      r"""|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+""",
                                      regex.IGNORECASE)

    def _bpe(self, token: str) -> str:
        cached = self._cache.get(token)
        if cached is not None:
            return cached
        word: tuple[str, ...] = tuple(token[:-1]) + (token[-1] + "</w>",)
        pairs = _pairs(word)
        if not pairs:
            return token + "</w>"
        while True:
            bigram = min(pairs, key=lambda p: self.bpe_ranks.get(p, float("inf")))
            if bigram not in self.bpe_ranks:
                break
            first, second = bigram
            merged: list[str] = []
            i = 0
            while i < len(word):
                try:
                    j = word.index(first, i)
                except ValueError:
                    merged.extend(word[i:])
                    break
                merged.extend(word[i:j])
                i = j
                if word[i] == first and i < len(word) - 1 and word[i + 1] == second:
                    merged.append(first + second)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            word = tuple(merged)
            if len(word) == 1:
                break
            pairs = _pairs(word)
        out = " ".join(word)
        self._cache[token] = out
        return out

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without the start and end tokens."""
        ids: list[int] = []
        for token in self._pattern.findall(_clean(text)):
            token = "".join(self.byte_encoder[b] for b in token.encode("utf-8"))
            ids.extend(self.encoder[t] for t in self._bpe(token).split(" "))
        return ids

    def __call__(self, texts: str | Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            texts = [texts]
        out = np.zeros((len(texts), self.context_length), dtype=np.int64)
        for i, text in enumerate(texts):
            ids = [self.sot_token_id, *self.encode(text), self.eot_token_id]
            if len(ids) > self.context_length:
                ids = ids[: self.context_length]
                ids[-1] = self.eot_token_id
            out[i, : len(ids)] = ids
        return out
