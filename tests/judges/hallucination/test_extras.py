"""A labeler whose extra is not installed is named with the extra, never a traceback; the default run without
the ``[embedding]`` extra uses the lexical labelers and says what it left out."""

from __future__ import annotations

import pytest

from synthdocqa.judges.hallucination import labelers
from synthdocqa.judges.hallucination.pipeline import JudgesConfig


@pytest.fixture
def without(monkeypatch):
    """``without("torch", ...)``: those modules look uninstalled to the labelers' check."""
    def block(*names: str) -> None:
        real = labelers._installed
        monkeypatch.setattr(labelers, "_installed", lambda m: m not in names and real(m))
    return block


def test_with_every_extra_the_default_labelers_are_all_there():
    assert labelers.default_labelers() == labelers.DEFAULT_LABELERS
    assert labelers.left_out_labelers() == []


def test_without_the_embedding_extra_the_default_is_lexical_and_says_so(without):
    without("sentence_transformers")
    assert labelers.default_labelers() == labelers.LEXICAL
    assert JudgesConfig().labelers == list(labelers.LEXICAL)
    why, = labelers.left_out_labelers()
    assert "embedding_cosine" in why and "pip install 'synthdocqa[embedding]'" in why


@pytest.mark.parametrize(("blocked", "labeler", "extra"), [
    ("sentence_transformers", "embedding_cosine", "embedding"),
    ("transformers", "nli_entailment", "nli"),
    ("torch", "nli_entailment", "nli"),
])
def test_asking_for_a_labeler_without_its_extra_names_the_extra(without, blocked, labeler, extra):
    without(blocked)
    with pytest.raises(ValueError, match=rf"labeler {labeler} needs {blocked}.*synthdocqa\[{extra}\]"):
        JudgesConfig(labelers=["exact_match", labeler])
    with pytest.raises(ValueError, match=rf"synthdocqa\[{extra}\]"):
        labelers.score_items([], [labeler])


def test_no_embedding_lets_a_file_that_lists_it_load_without_the_extra(without, tmp_path):
    from synthdocqa.judges.hallucination.pipeline import load_judges_config

    without("sentence_transformers")
    cfg = tmp_path / "judges.yaml"
    cfg.write_text("labelers: [exact_match, token_f1, embedding_cosine]\n")
    with pytest.raises(ValueError, match=r"synthdocqa\[embedding\]"):
        load_judges_config(cfg)
    assert load_judges_config(cfg, without=("embedding_cosine",)).labelers == ["exact_match", "token_f1"]
