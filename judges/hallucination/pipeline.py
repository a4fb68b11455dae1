"""One labeling run: items -> labelers (+ LLM judges) -> analysis -> report files.

``judges.yaml`` (all keys optional)::

    judges:                      # any number of OpenAI-compatible judge endpoints
      - name: qwen7b
        base_url: http://127.0.0.1:8000/v1
        model: Qwen/Qwen2.5-7B-Instruct
        api_key_env: OPENAI_API_KEY        # or api_key_secret_block: <Prefect Secret block name>
        max_concurrency: 4
        rate_limit_rps: 5
    prompts: {faithfulness: hallucination_faithfulness_v2, factual: hallucination_factual_v2}
    labelers: [exact_match, token_f1, rouge_l, chrf, bleu, embedding_cosine]   # + nli_entailment
    nli_checkpoint: /models/nli-deberta    # local HF directory, needed for nli_entailment
    answerer: {base_url: ..., model: ...}  # system under test (with --corpus)
    answer_mode: text                      # text (PDF text layer) | ocr (tesseract on the scans) | pages | scan
    n_boot: 1000
    cache: llm_cache.sqlite                # relative to the output directory

Without judges the run is the embedded default: lexical and embedding labelers only (embedding where the
`[embedding]` extra is installed; the run says when it left it out). A commented example
with a local llama.cpp server, vLLM and a hosted API is ``examples/judges.yaml``.

The judges never open a corpus folder: the caller passes a :class:`DocumentSource` (``flows`` pass the
corpus reader, ``corpus.store.CorpusReader``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal, Protocol

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.files import atomic_write_text
from synthdocqa.ir.qa_models import QAPair
from synthdocqa.ir.rng import Rng
from synthdocqa.judges.llm import ChatClient, ClientStats, EndpointConfig, ResponseCache

from .analysis import AnalysisResult, analyse
from .answer import AnswerMode
from .items import HallucinationItem, save_items
from .labelers import default_labelers, left_out_labelers, missing_extra, score_items
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

    def scan_text(self, doc_id: str) -> str:
        """OCR of the document's scans, page by page (``[page N]`` markers)."""
        ...

    def page_images(self, doc_id: str, which: Literal["pages", "scan"]) -> list[tuple[str, bytes]]:
        """(file name, bytes) of each clean page image (``pages``) or scan (``scan``), in page order."""
        ...


class JudgesConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    judges: list[EndpointConfig] = Field(default_factory=list)
    prompts: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_PROMPTS))
    labelers: list[str] = Field(default_factory=lambda: list(default_labelers()))
    nli_checkpoint: str | None = None
    embedding_model: str | None = None
    answerer: EndpointConfig | None = None
    answer_mode: AnswerMode = "text"
    answer_max_chars: int = Field(default=60000, ge=200, description="document text given to the answerer, "
                                  "cut to this many characters (small local models have small contexts)")
    injection: bool = Field(default=True, description="add a prompt-injection twin of every false synthesised "
                                                       "candidate (the report's injection figure)")
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
        for name in v:
            if why := missing_extra(name):
                raise ValueError(why)
        return v


def load_judges_config(path: str | Path | None, without: Sequence[str] = ()) -> JudgesConfig:
    """The judges file at ``path`` (None: the embedded default), with the labelers in ``without`` taken out
    before it is checked (``--no-embedding``: a file that lists embedding_cosine then loads without the
    ``[embedding]`` extra)."""
    if path is None:
        cfg = JudgesConfig()
        cfg.labelers = [x for x in cfg.labelers if x not in without]
        return cfg
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
    if without and isinstance(raw.get("labelers"), list):
        raw["labelers"] = [x for x in raw["labelers"] if x not in without]
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


class JudgeFailed(ValueError):
    """A judge gave no valid verdict at all (every call failed, or no reply could be read): there is nothing
    to report about it, so the run stops in one line instead of printing statistics of nothing."""


def check_judge(run: JudgeRun, n_items: int) -> None:
    """Raise :class:`JudgeFailed` when ``run`` has no valid verdict under any prompt."""
    if n_items == 0 or run.valid() > 0:
        return
    reasons: dict[str, int] = {}
    first_error = ""
    for crit, statuses in run.statuses.items():
        for i, st in enumerate(statuses):
            reason = st.split(":", 1)[1] if ":" in st else st
            reasons[reason] = reasons.get(reason, 0) + 1
            first_error = first_error or (run.errors.get(crit, [None] * (i + 1))[i] or "")
    counts = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
    hint = {"auth": "check the API key source", "quota": "the account's quota is spent",
            "retries_exhausted": "the endpoint did not answer", "http_error": "the endpoint refused the requests",
            "unparseable": "no reply was a valid verdict, even after a repair request"}
    main = max(reasons, key=lambda k: reasons[k])
    raise JudgeFailed(f"judge {run.judge}: 0 valid verdicts of {sum(reasons.values())} ({counts}): {hint[main]}"
                      + (f"; first error: {first_error}" if first_error else ""))


def run_labeling(
    items: Sequence[HallucinationItem],
    config: JudgesConfig,
    out_dir: str | Path,
    *,
    seed: int = 0,
    api_keys: Mapping[str, str] | None = None,
    header: Sequence[str] = (),
    progress: Callable[[str, int, ClientStats], None] | None = None,
) -> tuple[RunSummary, AnalysisResult]:
    """Score, judge, analyse and write ``items.jsonl``, ``labels.jsonl``, ``report.{md,html}``, ``analysis.json``.

    ``api_keys`` maps judge name -> key (the flow resolves Prefect Secret blocks into it); otherwise
    each judge's ``api_key_env`` is read. Keys are never written. ``progress(judge, total requests, stats)``
    is told after every verdict. A judge with no valid verdict stops the run (:class:`JudgeFailed`) before
    any report file is written.
    """
    out = Path(out_dir)
    rng = Rng(seed).fork("hallucination-run")
    if not items:
        raise ValueError("no items to label")
    if not config.labelers and not config.judges:
        raise ValueError("nothing to label with: the labelers list is empty and no judges are configured")
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
            total = len(items) * len(prompts)
            for jc in config.judges:
                tell = None if progress is None else (lambda st, name=jc.name: progress(name, total, st))
                with ChatClient(jc, api_key=keys[jc.name], cache=cache, rng=rng.fork("llm", jc.name),
                                progress=tell) as c:
                    run = run_judge(c, items, prompts)
                check_judge(run, len(items))
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
                col = f"{jn}/{crit}-prompt"
                row[f"label:{col}"] = run.labels[crit][i]
                row[f"status:{col}"] = run.statuses[crit][i]
                row[f"reason:{col}"] = run.reasons.get(crit, [None] * len(items))[i]
                row[f"reply:{col}"] = run.replies.get(crit, [None] * len(items))[i]
                row[f"error:{col}"] = run.errors.get(crit, [None] * len(items))[i]
        rows.append(row)
    labels_path = out / "labels.jsonl"
    atomic_write_text(labels_path, "".join(json.dumps(r) + "\n" for r in rows))
    header = [*header, "Prompts: " + ", ".join(f"{c}={p.name}@{p.short_hash}" for c, p in prompts.items())
              if prompts else f"No LLM judges configured (labelers: {', '.join(config.labelers)})."]
    header += [f"Left out of the default labelers: {why}." for why in left_out_labelers()
               if why.split()[1] not in config.labelers]
    for jn, run in runs.items():
        s = run.stats
        fallback = f", response formats rejected: {', '.join(s.format_fallbacks)}" if s.format_fallbacks else ""
        header.append(f"Judge {jn} ({run.model}): {s.items} verdict requests, {s.ok} valid "
                      f"({s.repaired} after a repair request), invalid {s.invalid or 0}; {s.http_calls} HTTP calls, "
                      f"{s.cache_hits} cache hits, {s.retries} retries{fallback}; tokens "
                      f"{s.prompt_tokens}+{s.completion_tokens}, cost {s.cost:.4f}.")
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
    max_items: int = 0,
    cache_path: str | Path | None = None,
    progress: Callable[[str, int, ClientStats], None] | None = None,
) -> tuple[list[HallucinationItem], str]:
    """The items to label and a one-line description of where they came from.

    ``--items``: imported; ``--corpus`` (the ``source``) + ``answers``: a user's answers file; ``--corpus`` +
    an ``answerer`` endpoint in the config: the system under test answers; ``--corpus`` alone: synthesised.
    ``max_items`` (0: all) caps the items, and the questions put to the system under test, before any work;
    ``cache_path`` caches the answerer's replies like the judges'.
    """
    from .items import load_items
    from .synthesize import synthesize

    if (source is None) == (items_path is None):
        raise ValueError("give exactly one of --corpus or --items")
    if items_path is not None:
        if answers is not None:
            raise ValueError("--answers needs --corpus (answers are keyed by the corpus' QA ids)")
        items = load_items(items_path)
        return _capped(items, max_items), f"imported from {items_path}"
    corpus = source.label
    try:
        docs = source.documents_and_qa()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{corpus}: a QA or document file is not UTF-8 text ({exc.reason} at byte {exc.start})"
                         ) from None
    if answers is not None:
        from .answer import answers_from_file

        return _capped(answers_from_file(answers, docs), max_items), f"answers file {answers} over corpus {corpus}"
    if config.answerer is not None:
        from contextlib import nullcontext

        from .answer import answers_from_endpoint

        cfg = config.answerer
        if max_items:
            docs = _first_questions(docs, max_items)
        n_questions = sum(len(qas) for _, qas in docs)
        tell = None if progress is None else (lambda st: progress(f"answerer {cfg.name}", n_questions, st))
        with (ResponseCache(cache_path) if cache_path is not None else nullcontext()) as cache, \
                ChatClient(cfg, api_key=cfg.resolve_api_key(answerer_key), rng=Rng(seed).fork("answerer"),
                           cache=cache, progress=tell) as c:
            items, failures = answers_from_endpoint(c, docs, source, mode=config.answer_mode,
                                                    max_chars=config.answer_max_chars)
        if not items:
            raise ValueError(f"answerer {cfg.name}: no answers ({len(failures)} failures: "
                             f"{sorted(set(failures.values()))})")
        return items, f"answers of {cfg.name} ({config.answer_mode}) over corpus {corpus}; {len(failures)} failed"
    items = synthesize(docs, Rng(seed).fork("hallucination-synth"), per_qa=per_qa, mix=mix)
    what = f"synthesised from corpus {corpus} (seed {seed}, {per_qa} per QA pair"
    if config.injection:
        from .synthesize import synthesize_injections

        twins = {t.item_id.removesuffix("+injection"): t
                 for t in synthesize_injections(items, Rng(seed).fork("hallucination-injection"))}
        items = [x for it in items for x in ([it, twins[it.item_id]] if it.item_id in twins else [it])]
        what += f", {len(twins)} prompt-injection twins"
    return _capped(items, max_items), what + ")"


def _capped(items: list[HallucinationItem], max_items: int) -> list[HallucinationItem]:
    return items[:max_items] if max_items else items


def _first_questions(docs: list[tuple[DocumentIR, list[QAPair]]], n: int) -> list[tuple[DocumentIR, list[QAPair]]]:
    """The first ``n`` QA pairs in document order (the questions a capped run puts to the system under test)."""
    out = []
    for doc, qas in docs:
        if n <= 0:
            break
        out.append((doc, list(qas[:n])))
        n -= len(out[-1][1])
    return out
