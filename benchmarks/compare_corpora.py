"""Two corpora of the same spec made by two versions of the code: every file's sha256 from the manifests.

    .venv/bin/python benchmarks/compare_corpora.py BEFORE AFTER [BEFORE2 AFTER2 ...]

Files that record the code version (each ``doc.json`` and the manifest itself) differ by that field alone
when the code changed: they are compared with ``code_version`` taken out. Exit 1 if anything else differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

VERSIONED = ("doc.json",)


def _without_version(path: Path) -> dict:
    data = json.loads(path.read_text("utf-8"))
    data.pop("code_version", None)
    return data


def compare(before: Path, after: Path) -> list[str]:
    mb, ma = (json.loads((p / "corpus.json").read_text("utf-8")) for p in (before, after))
    problems = []
    if mb["spec_hash"] != ma["spec_hash"]:
        problems.append(f"spec differs: {mb['spec_hash']} vs {ma['spec_hash']}")
    fb, fa = mb["files"], ma["files"]
    for name in sorted(set(fb) | set(fa)):
        if fb.get(name) == fa.get(name):
            continue
        if name.endswith(VERSIONED) and name in fb and name in fa and \
                _without_version(before / name) == _without_version(after / name):
            continue
        problems.append(f"{name}: {str(fb.get(name))[:12]} vs {str(fa.get(name))[:12]}")
    if {k: v for k, v in mb.items() if k not in ("code_version", "files")} != \
            {k: v for k, v in ma.items() if k not in ("code_version", "files")}:
        problems.append("corpus.json differs beyond code_version and the versioned files' hashes")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for before, after in zip(argv[::2], argv[1::2], strict=True):
        problems = compare(Path(before), Path(after))
        n = len(json.loads((Path(after) / "corpus.json").read_text("utf-8"))["files"])
        print(f"{before} vs {after}: {n} files, {'identical' if not problems else f'{len(problems)} differ'}")
        for p in problems[:20]:
            print("   ", p)
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
