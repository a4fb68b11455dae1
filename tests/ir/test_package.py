"""``ir`` loads its submodules on first use: every public name still resolves from ``ir`` to the object its
submodule defines, and a one-page scan can load the perturbation contracts alone."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from synthdocqa import ir


def test_every_public_name_resolves_to_its_submodule_object():
    assert sorted(ir.__all__) == sorted(ir._EXPORTS)
    for name in ir.__all__:
        module = importlib.import_module(f"synthdocqa.ir.{ir._EXPORTS[name]}")
        assert getattr(ir, name) is getattr(module, name), name
    assert set(ir.__all__) <= set(dir(ir))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        ir.Nope  # noqa: B018 - the attribute access is the test


def test_document_keeps_the_perturbation_names():
    from synthdocqa.ir import document, perturbation

    for name in ("PerturbationProfile", "PageDegradation", "StageParams", "ParamValue"):
        assert getattr(document, name) is getattr(perturbation, name)


def test_perturbation_contracts_load_without_the_document_models():
    code = ("import json, sys; import synthdocqa.ir.perturbation, synthdocqa.ir.vocab, synthdocqa.ir.rng; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('synthdocqa.ir.'))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True).stdout)
    assert loaded == ["synthdocqa.ir.base", "synthdocqa.ir.perturbation", "synthdocqa.ir.rng", "synthdocqa.ir.vocab"]
