"""An installed wheel works as the checkout does: it carries the package data a corpus's bytes depend on
(the shipped layout-CLIP, the report template), loads the CLIP from inside the installed package and
computes the same code version, so a corpus made from a checkout is current for the wheel and back."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_wheel_carries_its_data_and_the_same_code_version(tmp_path):
    import shutil

    src = tmp_path / "src"  # the tracked files, so the build leaves nothing in the checkout (no build/)
    for rel in subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True,
                              text=True).stdout.split("\0"):
        if rel and (REPO / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, src / rel)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(src),
                    "-w", str(tmp_path / "dist")], check=True, capture_output=True, cwd=tmp_path)
    wheel, = (tmp_path / "dist").glob("synthdocqa-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        z.extractall(site)
        top_level, = (n for n in names if n.endswith(".dist-info/top_level.txt"))
        assert z.read(top_level).decode().split() == ["synthdocqa"]  # one import name, no generic ones
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"synthdocqa"}
    names = {n.removeprefix("synthdocqa/") for n in names}
    for rel in ("__main__.py", "renderers/layout/layout_clip/layout_clip_tiny.safetensors",
                "renderers/layout/layout_clip/layout_clip_tiny.text.onnx",
                "renderers/layout/layout_clip/layout_clip_tiny.image.onnx",
                "renderers/layout/layout_clip/layout_clip_tiny.onnx.json",
                "renderers/layout/layout_clip/bpe_simple_vocab_16e6.txt.gz",
                "renderers/layout/layout_clip/open_clip_config/layout-clip-tiny.json",
                "corpus/views/templates/report.html.j2", "generation/__init__.py",
                "generation/content/genre/statements.py", "judges/osce/cases/hematuria.yaml",
                "judges/osce/cases/questions.csv", "judges/osce/prompts/vsp_persona_ko_v1.md",
                "judges/osce/vsp.py", "judges/osce/packets.py", "flows/osce_study.py",
                "judges/osce/platform/templates/encounter.html.j2", "judges/osce/platform/migrations/env.py",
                "judges/osce/platform/migrations/versions/0001_initial.py"):
        assert rel in names, rel
    probe = ("import json, synthdocqa.corpus.assemble as a, synthdocqa.renderers.layout.clip_model as c; "
             "m = c.load_clip('layout-clip-tiny', None); "
             "print(json.dumps([a.__file__, a.source_digest(), m.weights_path]))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})
    module, digest, weights = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(module).is_relative_to(site) and Path(weights).is_relative_to(site)
    from synthdocqa.corpus.assemble import source_digest

    assert digest == source_digest()
