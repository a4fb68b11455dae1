"""Case scripts for rubric scoring: the text a VSP must follow, which three rubrics compare against.

A case file is YAML or JSON mapping case -> script text, a table with ``case`` and ``script`` columns
(CSV/.xlsx, read like ratings), or a folder of ``<case>.md`` / ``<case>.txt`` files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import yaml

from .loaders import OsceInputError, read_table
from .schema import Dialogue, MetricSpec

NO_SCRIPT = "(no case script provided)"


def load_case_scripts(path: str | os.PathLike[str], *, encoding: str | None = None) -> dict[str, str]:
    """``{case: script text}`` from a YAML/JSON mapping, a case/script table or a folder of text files."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.suffix.lower() in (".md", ".txt") and f.is_file())
        if not files:
            raise OsceInputError(str(p), ["no <case>.md or <case>.txt files in the folder"])
        return {f.stem: f.read_text(encoding=encoding or "utf-8").strip() for f in files}
    if not p.is_file():
        raise OsceInputError(str(p), ["file not found"])
    suffix = p.suffix.lower()
    if suffix in (".yaml", ".yml", ".json"):
        try:
            text = p.read_text(encoding=encoding or "utf-8-sig")
            data = json.loads(text) if suffix == ".json" else yaml.safe_load(text)
        except (OSError, ValueError, yaml.YAMLError) as err:
            raise OsceInputError(str(p), [f"invalid case file: {str(err).splitlines()[0]}"]) from None
        if isinstance(data, dict) and isinstance(data.get("cases"), dict):
            data = data["cases"]
        if not isinstance(data, dict) or not data:
            raise OsceInputError(str(p), ["expected a mapping case -> script text"])
        bad = [str(k) for k, v in data.items() if not isinstance(v, str) or not v.strip()]
        if bad:
            raise OsceInputError(str(p), [f"empty or non-text script for case(s) {', '.join(bad)}"])
        return {str(k): v.strip() for k, v in data.items()}
    df = read_table(p, encoding=encoding)
    cols = {str(c).strip().lower(): c for c in df.columns}
    if "case" not in cols or "script" not in cols:
        raise OsceInputError(str(p), [f"a case table needs columns case and script (have: {', '.join(map(str, df.columns))})"])
    out = {}
    for i, (case, script) in enumerate(zip(df[cols["case"]], df[cols["script"]], strict=True)):
        if not isinstance(case, str) or not isinstance(script, str) or not script.strip():
            raise OsceInputError(str(p), [f"row {i + 1}: empty case or script"])
        out[case.strip()] = script.strip()
    return out


def missing_scripts(dialogues: Iterable[Dialogue], metrics: Sequence[MetricSpec],
                    scripts: dict[str, str] | None) -> str | None:
    """Why scoring cannot start (metrics that compare with a script the user did not give), or None."""
    need = [m.name for m in metrics if m.uses_case_script]
    if not need:
        return None
    cases = sorted({d.case for d in dialogues})
    absent = [c for c in cases if not (scripts or {}).get(c)]
    if not absent:
        return None
    what = "pass --case-script FILE" if not scripts else f"the case file has no script for {', '.join(absent)}"
    return (f"metrics {', '.join(need)} compare with the case script: {what} "
            f"(cases in the dialogues: {', '.join(cases)}), or leave them out with --metrics")


__all__ = ["NO_SCRIPT", "load_case_scripts", "missing_scripts"]
