"""The shipped layout-CLIP on ONNX Runtime: what generation embeds with, no torch at run time.

Generation needs only the layout-CLIP's inference (the text tower for page queries, the image tower for the
library's thumbnails, once per machine and cached). Both towers are exported from the open_clip model the
project trains (``export_onnx``, torch needed: the ``[clip]`` extra) into package data beside the weights:
``layout_clip/layout_clip_tiny.{text,image}.onnx`` and their record ``layout_clip_tiny.onnx.json`` (the
sha256 of each graph and of the weights they were exported from). The graphs keep the weights as float16
initializers, each cast to float32 once when the session is made: the weights are float16 on disk anyway
(``save_weights``), so the values are those open_clip computes with, at half the file size.

Why ONNX Runtime: pymupdf 2 already depends on it (no new install), its CPU kernels run the 2.2 M
non-embedding parameters of the tiny model in well under a millisecond per query on one thread, and the
graph is the model itself, exported, not a second implementation of open_clip's architecture to keep in
step. One intra-op and one inter-op thread, sequential execution: results do not depend on the host's core
count, and a worker process uses one core (``corpus.assemble.one_thread_per_worker``).

Its embeddings differ from open_clip's by float rounding (~5e-7 per component on the shipped model,
``tests/renderers/test_clip_onnx.py`` bounds it), which retrieval's score rounding and id tie-break absorb
(``retrieval.round_scores``); docs/benchmarks.md says where a choice could still flip and how often it did.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from synthdocqa.ir.files import atomic_write_bytes, atomic_write_text, sha256_bytes, sha256_file

from .clip_model import (
    CLIP_MEAN,
    CLIP_STD,
    DEFAULT_MODEL,
    EMBED_THREADS,
    SHIPPED_DIR,
    SHIPPED_MANIFEST,
    ClipLoadError,
    preprocess_images,
)
from .clip_tokenizer import ClipTokenizer

SHIPPED_TEXT_ONNX = SHIPPED_DIR / "layout_clip_tiny.text.onnx"
SHIPPED_IMAGE_ONNX = SHIPPED_DIR / "layout_clip_tiny.image.onnx"
SHIPPED_ONNX_RECORD = SHIPPED_DIR / "layout_clip_tiny.onnx.json"
ONNX_OPSET = 17
RUNTIME_TAG = "onnx"
"""Part of the model id (and so of the embedding-cache key): embeddings of another runtime are not reused."""


def _session(path: Path, threads: int):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3  # errors only: no warnings about unused initializers on stderr
    try:
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    except Exception as err:  # onnxruntime raises its own Fail/InvalidProtobuf types
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ClipLoadError(f"ONNX graph {path} is corrupt or unreadable: {first[:300]}") from err


@dataclass
class OnnxClip:
    """The layout-CLIP's two towers as ONNX Runtime sessions, with the same interface as ``LoadedClip``
    (``embed_texts``, ``embed_images``, ``model_id``, ``weights_sha256``) so retrieval takes either."""

    text_path: Path
    image_path: Path
    model_name: str
    weights_sha256: str
    """sha256 over both graphs: what the embeddings are a function of (the embedding-cache key uses it)."""
    image_size: int
    context_length: int
    embed_dim: int
    mean: tuple[float, ...] = CLIP_MEAN
    std: tuple[float, ...] = CLIP_STD
    threads: int = EMBED_THREADS
    _text: object = field(default=None, repr=False)
    _image: object = field(default=None, repr=False)
    _tokenizer: ClipTokenizer | None = field(default=None, repr=False)

    @property
    def weights_path(self) -> str:
        return str(self.text_path)

    @property
    def model_id(self) -> str:
        return f"{self.model_name}@{self.weights_sha256[:16]}+{RUNTIME_TAG}"

    @property
    def tokenizer(self) -> ClipTokenizer:
        if self._tokenizer is None:
            self._tokenizer = ClipTokenizer(self.context_length)
        return self._tokenizer

    def _text_session(self):
        if self._text is None:
            self._text = _session(self.text_path, self.threads)
        return self._text

    def _image_session(self):
        if self._image is None:
            self._image = _session(self.image_path, self.threads)
        return self._image

    def embed_texts(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        """L2-normalised float32 text embeddings, one row per text."""
        sess = self._text_session() if texts else None
        out = [sess.run(None, {"tokens": self.tokenizer(list(texts[i : i + batch_size]))})[0]
               for i in range(0, len(texts), batch_size)]
        return _stack(out, self.embed_dim)

    def embed_images(self, images: Sequence[Image.Image], batch_size: int = 256) -> np.ndarray:
        """L2-normalised float32 image embeddings, one row per image."""
        sess = self._image_session() if images else None
        out = [sess.run(None, {"pixels": preprocess_images(images[i : i + batch_size], self.image_size,
                                                              self.mean, self.std)})[0]
               for i in range(0, len(images), batch_size)]
        return _stack(out, self.embed_dim)


def _stack(parts: list[np.ndarray], dim: int) -> np.ndarray:
    if not parts:
        return np.zeros((0, dim), dtype=np.float32)
    return np.ascontiguousarray(np.concatenate(parts).astype(np.float32))


def _read_record(path: Path) -> dict:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise ClipLoadError(f"the layout-CLIP's ONNX record {path} is missing or unreadable: {err}") from err


def graphs_sha256(text_path: Path, image_path: Path) -> str:
    return sha256_bytes((sha256_file(text_path) + sha256_file(image_path)).encode())


def load_onnx(model_dir: str | os.PathLike[str] = SHIPPED_DIR, stem: str = "layout_clip_tiny",
              threads: int = EMBED_THREADS) -> OnnxClip:
    """An exported layout-CLIP (``export_onnx``'s files in ``model_dir``), each graph's sha256 checked
    against its record; the sessions are made on first use."""
    root = Path(model_dir)
    record_path = root / f"{stem}.onnx.json"
    record = _read_record(record_path)
    paths = {}
    for tower in ("text", "image"):
        path = root / f"{stem}.{tower}.onnx"
        if not path.is_file():
            raise ClipLoadError(f"the layout-CLIP's ONNX {tower} tower is missing: {path} (export it with "
                                f"`python -m synthdocqa.renderers.layout.clip_onnx`, which needs the [clip] extra)")
        sha = sha256_file(path)
        want = record.get(tower, {}).get("sha256")
        if sha != want:
            raise ClipLoadError(f"the layout-CLIP's ONNX {tower} tower {path} is corrupt: sha256 {sha[:16]}... "
                                f"does not match its record's {str(want)[:16]}...")
        paths[tower] = path
    return OnnxClip(text_path=paths["text"], image_path=paths["image"], model_name=record["model"],
                    weights_sha256=graphs_sha256(paths["text"], paths["image"]),
                    image_size=int(record["image_size"]), context_length=int(record["context_length"]),
                    embed_dim=int(record["embed_dim"]), mean=tuple(record["mean"]), std=tuple(record["std"]),
                    threads=threads)


def load_shipped_onnx(threads: int = EMBED_THREADS) -> OnnxClip:
    """The shipped layout-CLIP on ONNX Runtime (``load_clip()`` returns this)."""
    return load_onnx(SHIPPED_DIR, "layout_clip_tiny", threads)


# ---------------------------------------------------------------- export (torch: the [clip] extra)

def _halve_initializers(model) -> None:
    """Store every float32 initializer whose values float16 holds exactly as float16, cast back to float32
    by a Cast node at the head of the graph: the same values, half the bytes."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    kept, casts = [], []
    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        if init.data_type == TensorProto.FLOAT and arr.size > 1024 and \
                np.array_equal(arr.astype(np.float16).astype(np.float32), arr, equal_nan=True):
            half = numpy_helper.from_array(arr.astype(np.float16), name=init.name + "__fp16")
            kept.append(half)
            casts.append(helper.make_node("Cast", [half.name], [init.name], to=TensorProto.FLOAT,
                                          name=init.name + "__cast"))
        else:
            kept.append(init)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)


def _export_tower(module, example, input_name: str, path: Path) -> bytes:
    import io

    import onnx
    import torch

    buf = io.BytesIO()
    # traced with grad mode on: under no_grad nn.MultiheadAttention takes its fused fast path, which has no
    # ONNX export (the exported graph computes the same attention from its parts)
    with torch.enable_grad():
        torch.onnx.export(module, (example,), buf, dynamo=False, input_names=[input_name], output_names=["emb"],
                          dynamic_axes={input_name: {0: "n"}, "emb": {0: "n"}}, opset_version=ONNX_OPSET)
    model = onnx.load_from_string(buf.getvalue())
    _halve_initializers(model)
    model.producer_name, model.producer_version = "synthdocqa", ""
    onnx.checker.check_model(model)
    data = model.SerializeToString()
    atomic_write_bytes(path, data)
    return data


def export_onnx(clip, out_dir: str | os.PathLike[str], stem: str = "layout_clip_tiny") -> dict:
    """Export a torch ``LoadedClip``'s text and image towers (normalised embeddings, batch size free) to
    ``out_dir/<stem>.{text,image}.onnx`` with their record ``<stem>.onnx.json``; returns the record."""
    from .clip_model import require_torch

    require_torch(also=("onnx",))
    import torch

    from .clip_model import torch_threads

    class _Text(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, tokens):
            return torch.nn.functional.normalize(self.model.encode_text(tokens).float(), dim=-1)

    class _Image(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, pixels):
            return torch.nn.functional.normalize(self.model.encode_image(pixels).float(), dim=-1)

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    context_length = int(clip.model.context_length)
    tokens = torch.from_numpy(ClipTokenizer(context_length)(["a page", "two columns and a table"]))
    pixels = torch.zeros((2, 3, clip.image_size, clip.image_size), dtype=torch.float32)
    with torch_threads(EMBED_THREADS):
        text = _export_tower(_Text(clip.model).eval(), tokens, "tokens", out / f"{stem}.text.onnx")
        image = _export_tower(_Image(clip.model).eval(), pixels, "pixels", out / f"{stem}.image.onnx")
    record = {"model": clip.model_name, "exported_from_weights_sha256": clip.weights_sha256,
              "opset": ONNX_OPSET, "torch": torch.__version__,
              "image_size": clip.image_size, "context_length": context_length, "embed_dim": int(clip.embed_dim),
              "mean": list(clip.mean), "std": list(clip.std),
              "text": {"file": f"{stem}.text.onnx", "sha256": sha256_bytes(text)},
              "image": {"file": f"{stem}.image.onnx", "sha256": sha256_bytes(image)}}
    atomic_write_text(out / f"{stem}.onnx.json", json.dumps(record, indent=1) + "\n")
    return record


def export_shipped() -> dict:
    """Export the shipped layout-CLIP's weights into the package (run after ``layouts train-clip`` replaced
    them): ``python -m synthdocqa.renderers.layout.clip_onnx``."""
    from .clip_model import load_clip

    manifest = json.loads(SHIPPED_MANIFEST.read_text("utf-8"))
    clip = load_clip(DEFAULT_MODEL, runtime="torch")
    if clip.weights_sha256 != manifest.get("weights_sha256"):
        raise ClipLoadError("the shipped weights do not match their training manifest")
    return export_onnx(clip, SHIPPED_DIR)


if __name__ == "__main__":
    rec = export_shipped()
    print(f"exported {rec['text']['file']} ({rec['text']['sha256'][:12]}) and {rec['image']['file']} "
          f"({rec['image']['sha256'][:12]}) from weights {rec['exported_from_weights_sha256'][:12]}")
