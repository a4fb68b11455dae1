"""Write a layout library to disk: layouts.jsonl + layouts.parquet (one row per layout) + thumbs/<id>.png.

Every file is written atomically (``ir.files``); the same (seed, count, thumb size) gives the
same bytes. ``library.json`` records the parameters and the sha256 of the row files, and lets
``load_library(dir)`` rebuild the in-memory ``LayoutLibrary`` (layouts are pure functions of the id).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from synthdocqa.ir.files import atomic_write_bytes

from .layouts import LayoutLibrary, layout_for, layout_row
from .thumbs import draw_thumbnail, encode_png

LIBRARY_FORMAT = 1


def build_library(seed: int, count: int, out_dir: str | Path, thumb_size: int = 64) -> dict[str, object]:
    """Build ``count`` layouts of ``seed`` into ``out_dir``; returns the manifest written to library.json."""
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    if not 16 <= thumb_size <= 512:
        raise ValueError(f"thumb_size must be in [16, 512], got {thumb_size}")
    out = Path(out_dir)
    thumbs = out / "thumbs"
    thumbs.mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(count):
        lay = layout_for(seed, i)
        row = layout_row(lay)
        row["thumb"] = f"thumbs/{lay.id}.png"
        rows.append(row)
        atomic_write_bytes(thumbs / f"{lay.id}.png", encode_png(draw_thumbnail(lay, thumb_size)), fsync=False)
    jsonl = "".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in rows).encode()
    atomic_write_bytes(out / "layouts.jsonl", jsonl)
    parquet = _parquet_bytes(rows)
    atomic_write_bytes(out / "layouts.parquet", parquet)
    manifest = {
        "format": LIBRARY_FORMAT, "seed": seed, "count": count, "thumb_size": thumb_size,
        "sha256": {"layouts.jsonl": hashlib.sha256(jsonl).hexdigest(),
                   "layouts.parquet": hashlib.sha256(parquet).hexdigest()},
    }
    atomic_write_bytes(out / "library.json", (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return manifest


def _parquet_bytes(rows: list[dict[str, object]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", write_statistics=False)
    return sink.getvalue().to_pybytes()


def load_library(lib_dir: str | Path) -> LayoutLibrary:
    """The LayoutLibrary described by ``lib_dir/library.json``."""
    path = Path(lib_dir) / "library.json"
    try:
        manifest = json.loads(path.read_text())
        return LayoutLibrary(seed=int(manifest["seed"]), count=int(manifest["count"]))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no layout library here (run `synthdocqa layouts build`)") from None
    except (KeyError, ValueError, TypeError) as err:
        raise ValueError(f"{path}: malformed library manifest ({err})") from err
