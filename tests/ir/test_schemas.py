"""The shipped JSON Schemas equal a fresh export (refresh with ``python -m synthdocqa.ir.schemas``)."""

import json

from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.schemas import DEFAULT_DIR, SCHEMA_MODELS, export_schemas, schema_files
from synthdocqa.ir.spec import demo_spec


def test_shipped_schemas_equal_a_fresh_export():
    fresh = schema_files()
    assert sorted(fresh) == sorted(f"{n}.schema.json" for n in SCHEMA_MODELS)
    for name, text in fresh.items():
        shipped = DEFAULT_DIR / name
        assert shipped.is_file(), f"{shipped} missing: run python -m synthdocqa.ir.schemas"
        assert shipped.read_text("utf-8") == text, f"{name} is stale: run python -m synthdocqa.ir.schemas"


def test_export_is_atomic_and_deterministic(tmp_path):
    paths = export_schemas(tmp_path)
    assert {p.name for p in paths} == set(schema_files())
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    again = export_schemas(tmp_path)
    assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in again]


def test_schema_describes_a_planned_document():
    schema = json.loads(schema_files()["DocumentIR.schema.json"])
    doc = json.loads(plan_document(demo_spec(seed=1), 0).to_json())
    assert set(schema["required"]) <= set(doc) and set(doc) <= set(schema["properties"])
    assert "doc_id" in schema["properties"] and schema["$id"].endswith("DocumentIR.schema.json")


def test_planned_document_validates_against_its_schema():
    from jsonschema import Draft202012Validator

    schema = json.loads(schema_files()["DocumentIR.schema.json"])
    Draft202012Validator.check_schema(schema)
    doc = json.loads(plan_document(demo_spec(seed=2), 1).to_json())
    errors = list(Draft202012Validator(schema).iter_errors(doc))
    assert errors == []
    doc["pages"][0]["blocks"][0]["type"] = "poem"
    assert list(Draft202012Validator(schema).iter_errors(doc))
