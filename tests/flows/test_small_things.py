"""The small things of issue 16: render and generate pick the same layouts, evaluation folders keyed by the
whole batch, the example judges.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from flows.cli import build_parser, main

REPO = Path(__file__).resolve().parents[2]


def test_render_chooses_the_layouts_generate_chooses(tmp_path, capsys):
    from corpus.assemble import complete_ir, default_layout_chooser
    from flows.commands.render import _chooser
    from ir.spec import spec_for_profile

    args = build_parser().parse_args(["render", "--seed", "3", "--docs", "1", "--out", "x"])
    assert args.layout_chooser == "clip" and _chooser("clip") is default_layout_chooser()
    assert main(["render", "--seed", "3", "--docs", "1", "--dpi", "36", "--out", str(tmp_path)]) == 0
    rendered = json.loads((tmp_path / "docs" / "doc-00000" / "ir.json").read_text())
    generated = complete_ir(spec_for_profile("demo", 3, 1), 0)
    assert [p["layout_id"] for p in rendered["pages"]] == [p.layout_id for p in generated.pages]


def test_evaluation_folders_are_keyed_by_the_whole_batch():
    from flows.evaluation import EvaluationParams

    base = EvaluationParams(seed=1, profile="demo", judges=["hallucination"])
    key = base.batch_key("spec-a")
    assert key == EvaluationParams(seed=1, profile="demo", judges=["hallucination"], workers=8,
                                   out="elsewhere").batch_key("spec-a")
    assert key != base.batch_key("spec-b")  # another size or seed is another corpus spec
    assert key != EvaluationParams(seed=1, profile="demo", judges=["hallucination"],
                                   judges_config="judges.yaml").batch_key("spec-a")
    assert key != EvaluationParams(seed=1, profile="demo", judges=[]).batch_key("spec-a")


def test_example_judges_yaml_loads_and_names_keys_only_by_reference():
    from judges.hallucination.pipeline import load_judges_config

    path = REPO / "examples" / "judges.yaml"
    cfg = load_judges_config(path)
    urls = {j.name: j.base_url for j in cfg.judges}
    assert any(u.startswith("http://127.0.0.1:8080") for u in urls.values())  # llama.cpp
    assert any(u.startswith("http://127.0.0.1:8000") for u in urls.values())  # vLLM
    hosted = [j for j in cfg.judges if j.base_url.startswith("https://")]
    assert hosted and all(j.api_key_env for j in hosted)
    raw = yaml.safe_load(path.read_text())
    assert not any("api_key" in k and not k.startswith("api_key_") for j in raw["judges"] for k in j)
