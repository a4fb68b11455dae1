"""Lexical, embedding and NLI labelers on real libraries and a tiny locally built NLI model."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from synthdocqa.judges.hallucination.items import HallucinationItem
from synthdocqa.judges.hallucination.labelers import score_items
from synthdocqa.judges.hallucination.labelers.lexical import (
    bleu,
    chrf,
    exact_match,
    lcs_length,
    normalize_answer,
    rouge_l,
    token_f1,
)


def test_squad_normalisation_em_and_f1():
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert exact_match("the Answer.", "answer") == 1.0
    assert token_f1("a red big house", "the big red car") == pytest.approx(2 * (2 / 3) * (2 / 3) / (4 / 3))
    assert token_f1("", "") == 1.0 and token_f1("x", "") == 0.0


def test_rouge_l_lcs():
    assert lcs_length("w b c d e".split(), "w c e x".split()) == 3
    p, r = 3 / 5, 3 / 4
    assert rouge_l("w b c d e", "w c e x") == pytest.approx(2 * p * r / (p + r))
    # normalised: [police killed gunman] vs [gunman was killed by police]: LCS 1, P 1/3, R 1/5
    assert rouge_l("police killed the gunman", "the gunman was killed by police") == pytest.approx(0.25)


def test_chrf_and_bleu_are_sacrebleu():
    c, r = "The revenue was 4.2 million USD", "4.2 million USD"
    assert chrf(c, r) == pytest.approx(sacrebleu.sentence_chrf(c, [r]).score / 100)
    assert bleu(c, r) == pytest.approx(sacrebleu.sentence_bleu(c, [r]).score / 100) and 0 < bleu(c, r) < 1
    assert chrf(r, r) == pytest.approx(1.0)


def _items():
    return [
        HallucinationItem(item_id="1", question="Who is the CFO?", references=["Dana Whitfield"],
                          candidate="Dana Whitfield"),
        HallucinationItem(item_id="2", question="Who is the CFO?", references=["Dana Whitfield", "D. Whitfield"],
                          candidate="It is D. Whitfield."),
        HallucinationItem(item_id="3", question="What was revenue?", references=["$4.2 million"],
                          candidate="Revenue fell to 90 tonnes of steel in Oslo."),
    ]


def test_score_items_max_over_references():
    s = score_items(_items(), ["exact_match", "token_f1", "rouge_l", "chrf", "bleu"])
    assert list(s["exact_match"]) == [1.0, 0.0, 0.0]
    for name, v in s.items():
        assert v[0] >= v[2] and (v[1] > v[2] or name == "exact_match"), name
    assert s["token_f1"][1] == pytest.approx(token_f1("It is D. Whitfield.", "D. Whitfield"))
    with pytest.raises(ValueError, match="unknown labeler"):
        score_items(_items(), ["bertscore"])
    with pytest.raises(ValueError, match="needs nli_checkpoint"):
        score_items(_items(), ["nli_entailment"])


def test_embedding_cosine_with_shipped_minilm():
    s = score_items(_items(), ["embedding_cosine"])["embedding_cosine"]
    assert s[0] == pytest.approx(1.0, abs=1e-5)
    assert s[1] > 0.6 > s[2]
    from synthdocqa.judges.hallucination.labelers.embedding import load_sentence_model

    assert load_sentence_model() is load_sentence_model()  # cached per process
    assert load_sentence_model().encode(["x"]).shape == (1, 384)


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    """A randomly initialised 2-layer BERT NLI classifier and a WordPiece tokenizer, built here."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    d = tmp_path_factory.mktemp("tiny-nli")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "is", "it", "who", "cfo", "dana", "whitfield",
             "d", ".", "?", "what", "was", "revenue", "$", "4", "2", "million", "fell", "to", "90", "tonnes",
             "of", "steel", "in", "oslo"]
    (d / "vocab.txt").write_text("\n".join(words) + "\n")
    tok = BertTokenizerFast(vocab_file=str(d / "vocab.txt"), do_lower_case=True)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=3,
                     id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
                     label2id={"contradiction": 0, "entailment": 1, "neutral": 2})
    model = BertForSequenceClassification(cfg)
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return d, model, tok


def test_nli_labeler_loads_local_checkpoint_and_scores(tiny_nli):
    import torch

    from synthdocqa.judges.hallucination.labelers.nli import NliLabeler

    path, model, tok = tiny_nli
    lab = NliLabeler(path, batch_size=2)
    assert lab.entailment_index == 1
    items = _items()
    s = score_items(items, ["nli_entailment"], nli_checkpoint=path)["nli_entailment"]
    assert s.shape == (3,) and np.all((s > 0) & (s < 1))
    # item 2 has two references: the score is the max of the two entailment probabilities
    model.eval()
    with torch.inference_mode():
        enc = tok(["Who is the CFO? Dana Whitfield", "Who is the CFO? D. Whitfield"],
                  ["It is D. Whitfield.", "It is D. Whitfield."], padding=True, return_tensors="pt")
        probs = torch.softmax(model(**enc).logits, -1)[:, 1].numpy()
    assert s[1] == pytest.approx(float(probs.max()), abs=1e-5)
    with pytest.raises(ValueError, match="not a local directory"):
        NliLabeler(path / "missing")
