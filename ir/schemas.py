"""JSON Schemas of the public contracts, exported to ``datasets/schemas/`` for non-Python consumers.

``python -m synthdocqa.ir.schemas [DIR]`` rewrites the shipped files; a test asserts they equal a fresh export, so
a model change without a schema refresh fails CI.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .document import DocumentIR
from .files import atomic_write_text
from .qa_models import Assertion, QAPair
from .rendermap import RenderMap
from .spec import CorpusSpec

SCHEMA_MODELS = {"CorpusSpec": CorpusSpec, "DocumentIR": DocumentIR, "RenderMap": RenderMap, "QAPair": QAPair,
                 "Assertion": Assertion}
DEFAULT_DIR = Path(__file__).resolve().parent.parent / "datasets" / "schemas"


def schema_text(name: str) -> str:
    """Canonical text of one schema (sorted keys, so the file diff shows real changes only)."""
    schema = SCHEMA_MODELS[name].model_json_schema(mode="validation")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"synthdocqa/{name}.schema.json",
              **schema}
    return json.dumps(schema, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def schema_files() -> dict[str, str]:
    return {f"{name}.schema.json": schema_text(name) for name in SCHEMA_MODELS}


def export_schemas(out_dir: Path = DEFAULT_DIR) -> list[Path]:
    written = []
    for fname, text in schema_files().items():
        atomic_write_text(out_dir / fname, text)
        written.append(out_dir / fname)
    return written


if __name__ == "__main__":
    for p in export_schemas(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DIR):
        print(p)
