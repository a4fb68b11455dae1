"""synthdocqa flows: Prefect flows, tasks, deployments and the CLI (the only package importing prefect)."""

import os
import sys

# Quiet, patient Prefect defaults for this project's processes; the user's environment wins.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")

# pymupdf 2 imports its pymupdf_layout and pymupdf4llm add-ons when they are installed (it depends on them):
# an ONNX layout model loaded on every `import pymupdf` (0.25 s of CPU in each process, an onnxruntime file
# in the temporary folder) for layout analysis and Markdown export this project never asks for.
sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[assignment]
sys.modules.setdefault("pymupdf4llm", None)  # type: ignore[assignment]
