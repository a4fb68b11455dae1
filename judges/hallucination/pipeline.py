"""One labeling run: items -> labelers (+ LLM judges) -> analysis -> report files.

``judges.yaml`` (all keys optional)::

    judges:                      # any number of OpenAI-compatible judge endpoints
      - name: qwen7b
        base_url: http://127.0.0.1:8000/v1
        model: Qwen/Qwen2.5-7B-Instruct
        api_key_env: OPENAI_API_KEY        # or api_key_secret_block: <Prefect Secret block name>
        max_concurrency: 4
        rate_limit_rps: 5
    prompts: {faithfulness: hallucination_faithfulness_v1, factual: hallucination_factual_v1}
    labelers: [exact_match, token_f1, rouge_l, chrf, bleu, embedding_cosine]   # + nli_entailment
    nli_checkpoint: /models/nli-deberta    # local HF directory, needed for nli_entailment
    answerer: {base_url: ..., model: ...}  # system under test (with --corpus)
    answer_mode: text                      # text | pages | scan
    n_boot: 1000
    cache: llm_cache.sqlite                # relative to the output directory

Without judges the run is the embedded default: lexical and embedding labelers only. A commented example
with a local llama.cpp server, vLLM and a hosted API is ``examples/judges.yaml``.

The judges never open a corpus folder: the caller passes a :class:`DocumentSource` (``flows`` pass the
corpus reader, ``corpus.store.CorpusReader``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, Protocol

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ir.document import DocumentIR
from ir.files import atomic_write_text
from ir.qa_models import QAPair
from ir.rng import Rng
from judges.llm import ChatClient, ClientStats, EndpointConfig, ResponseCache

from .analysis import AnalysisResult, analyse
from .answer import AnswerMode
from .items import HallucinationItem, save_items
from .labelers import DEFAULT_LABELERS, score_items
from .labelers.llm_judge import DEFAULT_PROMPTS, JudgeRun, load_judge_prompts, run_judge
from .report import write_report


class DocumentSource(Protocol):
    """Documents with their QA pairs, as the judges read them. Methods raise ``ValueError`` naming what
    is missing or malformed."""

    label: str
    """How the source is named in reports (e.g. the corpus folder as given)."""

    def documents_and_qa(self) -> list[tuple[DocumentIR, list[QAPair]]]:
        """Each document's IR with its QA pairs, documents in id order."""
        ...

    def document_text(self, doc_id: str) -> str:
        """The document's PDF text layer, page by page (``[page N]`` markers)."""
        ...

    def page_images(self, doc_id: str, which: Literal["pages", "scan"]) -> list[tuple[str, bytes]]:
        """(file name, bytes) of each clean page image (``pages``) or scan (``scan``), in page order."""
        ...


class JudgesConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    judges: list[EndpointConfig] = Field(default_factory=list)
    prompts: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_PROMPTS))
    labelers: list[str] = Field(default_factory=lambda: list(DEFAULT_LABELERS))
    nli_checkpoint: str | None = None
    embedding_model: str | None = None
    answerer: EndpointConfig | None = None
    answer_mode: AnswerMode = "text"
    n_boot: int = Field(default=1000, ge=0)
    alpha_boot: int = Field(default=200, ge=0)
    cache: str = "llm_cache.sqlite"

    @field_validator("labelers")
    @classmethod
    def _known_labelers(cls, v: list[str]) -> list[str]:
        from .labelers import EMBEDDING, LEXICAL, NLI

        unknown = [x for x in v if x not in (*LEXICAL, EMBEDDING, NLI)]
        if unknown:
            raise ValueError(f"unknown labelers {unknown}; known: {[*LEXICAL, EMBEDDING, NLI]}")
        return v


def load_judges_config(path: str | Path | None) -> JudgesConfig:
    if path is None:
        return JudgesConfig()
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{p}: judges file not found")
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{p}: not YAML ({str(exc).splitlines()[0]})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{p}: expected a mapping of settings (judges, labelers, ...), got {type(raw).__name__}")
    try:
        cfg = JudgesConfig.model_validate(raw)
    except ValidationError as err:
        e = err.errors()[0]
        raise ValueError(f"{p}: {'.'.join(map(str, e['loc']))}: {e['msg']}") from None
    names = [j.name for j in cfg.judges]
    if len(set(names)) != len(names):
        raise ValueError(f"{p}: judges: duplicate judge names {names}")
    if set(cfg.prompts) != {"faithfulness", "factual"}:
        raise ValueError(f"{p}: prompts: need exactly the keys faithfulness and factual")
    return cfg


class RunSummary(BaseModel):
    out_dir: str
    n_items: int
    labelers: list[str]
    judges: dict[str, ClientStats] = Field(default_factory=dict)
    prompts: dict[str, str] = Field(default_factory=dict)
    files: dict[str, str]


def run_labeling(
    items: Sequence[HallucinationItem],
    config: JudgesConfig,
    out_dir: str | Path,
    *,
    seed: int = 0,
    api_keys: Mapping[str, str] | None = None,
    header: Sequence[str] = (),
) -> tuple[RunSummary, AnalysisResult]:
    """Score, judge, analyse and write ``items.jsonl``, ``labels.jsonl``, ``report.{md,html}``, ``analysis.json``.

    ``api_keys`` maps judge name -> key (the flow resolves Prefect Secret blocks into it); otherwise
    each judge's ``api_key_env`` is read. Keys are never written.
    """
    out = Path(out_dir)
    rng = Rng(seed).fork("hallucination-run")
    keys = {jc.name: jc.resolve_api_key((api_keys or {}).get(jc.name)) for jc in config.judges}  # fail early
    scores = score_items(items, config.labelers, embedding_model=config.embedding_model,
                         nli_checkpoint=config.nli_checkpoint)
    out.mkdir(parents=True, exist_ok=True)
    judge_labels: dict[str, list[bool | None]] = {}
    judge_pairs: dict[str, tuple[str, str]] = {}
    runs: dict[str, JudgeRun] = {}
    prompts = load_judge_prompts(config.prompts) if config.judges else {}
    if config.judges:
        with ResponseCache(out / config.cache) as cache:
            for jc in config.judges:
                with ChatClient(jc, api_key=keys[jc.name], cache=cache, rng=rng.fork("llm", jc.name)) as c:
                    run = run_judge(c, items, prompts)
                runs[jc.name] = run
                for crit, labels in run.labels.items():
                    judge_labels[f"{jc.name}/{crit}-prompt"] = labels
                judge_pairs[jc.name] = (f"{jc.name}/faithfulness-prompt", f"{jc.name}/factual-prompt")
    result = analyse(items, scores, judge_labels, rng=rng, n_boot=config.n_boot, alpha_boot=config.alpha_boot,
                     judge_pairs=judge_pairs)
    save_items(items, out / "items.jsonl")
    rows = []
    for i, it in enumerate(items):
        row: dict[str, object] = {"item_id": it.item_id}
        row.update({f"score:{k}": float(v[i]) for k, v in scores.items()})
        for jn, run in runs.items():
            for crit in run.labels:
                row[f"label:{jn}/{crit}-prompt"] = run.labels[crit][i]
                row[f"status:{jn}/{crit}-prompt"] = run.statuses[crit][i]
        rows.append(row)
    labels_path = out / "labels.jsonl"
    atomic_write_text(labels_path, "".join(json.dumps(r) + "\n" for r in rows))
    header = [*header, "Prompts: " + ", ".join(f"{c}={p.name}@{p.short_hash}" for c, p in prompts.items())
              if prompts else "No LLM judges configured (embedded default: lexical and embedding labelers)."]
    for jn, run in runs.items():
        s = run.stats
        header.append(f"Judge {jn} ({run.model}): {s.items} verdict requests, {s.http_calls} HTTP calls, "
                      f"{s.cache_hits} cache hits, {s.retries} retries, invalid {s.invalid}, "
                      f"tokens {s.prompt_tokens}+{s.completion_tokens}, cost {s.cost:.4f}.")
    files = write_report(result, out, header)
    files.update(items=out / "items.jsonl", labels=labels_path)
    summary = RunSummary(out_dir=str(out), n_items=len(items), labelers=list(scores),
                         judges={k: r.stats for k, r in runs.items()},
                         prompts={c: f"{p.name}@{p.short_hash}" for c, p in prompts.items()},
                         files={k: str(v) for k, v in files.items()})
    return summary, result



def prepare_items(
    config: JudgesConfig,
    *,
    source: DocumentSource | None = None,
    items_path: str | Path | None = None,
    answers: str | Path | None = None,
    seed: int = 0,
    per_qa: int = 1,
    mix: Mapping[str, float] | None = None,
    answerer_key: str | None = None,
) -> tuple[list[HallucinationItem], str]:
    """The items to label and a one-line description of where they came from.

    ``--items``: imported; ``--corpus`` (the ``source``) + ``answers``: a user's answers file; ``--corpus`` +
    an ``answerer`` endpoint in the config: the system under test answers; ``--corpus`` alone: synthesised.
    """
    from .items import load_items
    from .synthesize import synthesize

    if (source is None) == (items_path is None):
        raise ValueError("give exactly one of --corpus or --items")
    if items_path is not None:
        if answers is not None:
            raise ValueError("--answers needs --corpus (answers are keyed by the corpus' QA ids)")
        items = load_items(items_path)
        return items, f"imported from {items_path}"
    corpus = source.label
    try:
        docs = source.documents_and_qa()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{corpus}: a QA or document file is not UTF-8 text ({exc.reason} at byte {exc.start})"
                         ) from None
    if answers is not None:
        from .answer import answers_from_file

        return answers_from_file(answers, docs), f"answers file {answers} over corpus {corpus}"
    if config.answerer is not None:
        from .answer import answers_from_endpoint

        cfg = config.answerer
        with ChatClient(cfg, api_key=cfg.resolve_api_key(answerer_key), rng=Rng(seed).fork("answerer")) as c:
            items, failures = answers_from_endpoint(c, docs, source, mode=config.answer_mode)
        if not items:
            raise ValueError(f"answerer {cfg.name}: no answers ({len(failures)} failures: "
                             f"{sorted(set(failures.values()))})")
        return items, f"answers of {cfg.name} ({config.answer_mode}) over corpus {corpus}; {len(failures)} failed"
    items = synthesize(docs, Rng(seed).fork("hallucination-synth"), per_qa=per_qa, mix=mix)
    return items, f"synthesised from corpus {corpus} (seed {seed}, {per_qa} per QA pair)"
