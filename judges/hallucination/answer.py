"""Answers from a system under test: ask an OpenAI-compatible endpoint, or read a user's answers file.

The endpoint gets each question with its document, taken from a ``DocumentSource`` (the corpus reader):
the PDF's text per page (``mode="text"``), tesseract's reading of the scans (``mode="ocr"``: the system
sees what an OCR front end would) or the page / scan images as data URLs for a vision model
(``mode="pages"`` / ``"scan"``). Replies go through the client's cache like the judges' (keyed by the
whole request), and each item keeps the prompt version it was answered with. Replies become items (no gold labels: these are what scheduled
evaluation batches judge). A failed answer (quota, retries exhausted) is returned in ``failures`` with
its reason, never turned into an empty answer.
"""

from __future__ import annotations

import base64
import csv
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Literal

from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.qa_models import QAPair
from synthdocqa.judges.llm import ChatClient, ChatRequest, PromptTemplate, escape_untrusted, load_prompt

from .items import HallucinationItem, ItemsError, json_lines
from .synthesize import _Synth

if TYPE_CHECKING:
    from .pipeline import DocumentSource

AnswerMode = Literal["text", "ocr", "pages", "scan"]
DEFAULT_ANSWER_PROMPT = "sut_answer_text_v2"
"""v2: the whole instruction in the user message, the document first so that questions on one document share
a prompt prefix (a local server reuses its evaluation)."""


def answer_request(qa: QAPair, source: DocumentSource, prompt: PromptTemplate, mode: AnswerMode = "text",
                   _text_cache: dict[str, str] | None = None, max_chars: int = 60000) -> ChatRequest:
    if mode in ("text", "ocr"):
        cache = _text_cache if _text_cache is not None else {}
        if qa.doc_id not in cache:
            text = source.document_text(qa.doc_id) if mode == "text" else source.scan_text(qa.doc_id)
            cache[qa.doc_id] = text[:max_chars]
        messages = prompt.render({"document": cache[qa.doc_id], "question": qa.question})
    else:
        parts: list[dict] = [{"type": "text", "text": "Answer the question about the document in the images "
                              "with the shortest complete answer, or 'not stated'.\n<question>"
                              f"{escape_untrusted(qa.question)}</question>"}]
        for name, data in source.page_images(qa.doc_id, mode):
            mime = "image/png" if PurePath(name).suffix.lower() == ".png" else "image/jpeg"
            parts.append({"type": "image_url",
                          "image_url": {"url": f"data:{mime};base64,{base64.b64encode(data).decode()}"}})
        messages = [{"role": "user", "content": parts}]
    return ChatRequest(key=qa.id, prompt_hash=f"{prompt.sha256}:{mode}", messages=messages)


def _item(qa: QAPair, doc: DocumentIR | None, candidate: str, generator: str, dataset: str,
          generator_prompt: str = "") -> HallucinationItem:
    evidence = _Synth(doc).evidence(qa, [], 3000) if doc is not None else ""
    return HallucinationItem(item_id=f"{qa.id}:{generator}", question=qa.question,
                             references=list(dict.fromkeys([qa.answer_text, *qa.accepted_answers])),
                             candidate=candidate, evidence=evidence, qa_id=qa.id, doc_id=qa.doc_id,
                             answerable=qa.answer.kind != "not_answerable", dataset=dataset,
                             generator_model=generator, generator_prompt=generator_prompt)


def answers_from_endpoint(client: ChatClient, docs_and_qas: Sequence[tuple[DocumentIR, Sequence[QAPair]]],
                          source: DocumentSource, *, mode: AnswerMode = "text",
                          prompt: PromptTemplate | None = None, dataset: str = "synthdocqa",
                          max_chars: int = 60000) -> tuple[list[HallucinationItem], dict[str, str]]:
    """(items, failures: qa_id -> reason)."""
    prompt = prompt or load_prompt(DEFAULT_ANSWER_PROMPT)
    cache: dict[str, str] = {}
    pairs = [(doc, qa) for doc, qas in docs_and_qas for qa in qas]
    requests = [answer_request(qa, source, prompt, mode, cache, max_chars) for _, qa in pairs]
    results = client.complete_many(requests)
    items, failures = [], {}
    for (doc, qa), r in zip(pairs, results, strict=True):
        if r.status == "ok" and r.content is not None:
            items.append(_item(qa, doc, r.content.strip(), client.config.name, dataset,
                               f"{prompt.name}@{prompt.short_hash}:{mode}"))
        else:
            failures[qa.id] = r.invalid_reason or "invalid"
    return items, failures


def answers_from_file(path: str | Path, docs_and_qas: Sequence[tuple[DocumentIR, Sequence[QAPair]]], *,
                      generator: str = "user", dataset: str = "synthdocqa") -> list[HallucinationItem]:
    """A CSV/JSONL answers file with columns ``qa_id`` and ``answer`` (optional ``model``)."""
    p = Path(path)
    if not p.is_file():
        raise ItemsError(f"{p}: " + ("is a folder, not a file" if p.is_dir() else "file not found" if not p.exists()
                                     else "is not a regular file (a pipe or a device)"))
    if p.suffix.lower() == ".csv":
        with p.open(newline="", encoding="utf-8") as fh:
            rows = [(i + 2, r) for i, r in enumerate(csv.DictReader(fh))]
    elif p.suffix.lower() in (".jsonl", ".ndjson"):
        rows = json_lines(p)
    else:
        raise ItemsError(f"{p}: answers file must be .csv or .jsonl")
    by_id = {qa.id: (doc, qa) for doc, qas in docs_and_qas for qa in qas}
    items, seen = [], set()
    for rowno, row in rows:
        qa_id, answer = row.get("qa_id"), row.get("answer")
        if not qa_id or answer is None:
            raise ItemsError(f"{p.name}: row {rowno}: needs qa_id and answer")
        if qa_id not in by_id:
            raise ItemsError(f"{p.name}: row {rowno}: unknown qa_id {qa_id!r}")
        if qa_id in seen:
            raise ItemsError(f"{p.name}: row {rowno}: duplicate qa_id {qa_id!r}")
        seen.add(qa_id)
        doc, qa = by_id[qa_id]
        items.append(_item(qa, doc, str(answer), str(row.get("model") or generator), dataset))
    if not items:
        raise ItemsError(f"{p.name}: no answers")
    return items
