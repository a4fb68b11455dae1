"""LLM judges: one endpoint x two versioned prompts (faithfulness, factual correctness).

Every item gets, per criterion, a label (True = hallucinated), or ``None`` with the result recorded
as ``invalid`` (unparseable reply, quota, retries exhausted); invalid verdicts are counted in the
report, never dropped from the item list and never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from judges.llm import ChatClient, ChatRequest, ChatResult, ClientStats, PromptTemplate, load_prompt
from judges.llm.prompts import make_verdict_parser

from ..items import HallucinationItem

DEFAULT_PROMPTS: dict[str, str] = {
    "faithfulness": "hallucination_faithfulness_v1",
    "factual": "hallucination_factual_v1",
}
PARSE_VERDICT = make_verdict_parser("verdict", {"hallucinated": True, "not_hallucinated": False})


class JudgeRun(BaseModel):
    """One judge model's verdicts under each prompt, aligned with the items."""

    judge: str
    model: str
    prompts: dict[str, str] = Field(description="criterion -> prompt name@short hash")
    labels: dict[str, list[bool | None]] = Field(description="criterion -> label per item (None = invalid)")
    statuses: dict[str, list[str]] = Field(description="criterion -> 'ok' or 'invalid:<reason>' per item")
    stats: ClientStats


def prompt_fields(item: HallucinationItem) -> dict[str, str]:
    refs = item.references
    reference = refs[0] if len(refs) == 1 else refs[0] + " (also accepted: " + "; ".join(refs[1:4]) + ")"
    if not item.answerable:
        reference = "not stated (the document does not answer this question)"
    return {"question": item.question, "reference": reference, "candidate": item.candidate,
            "evidence": item.evidence or "(none)"}


def load_judge_prompts(names: Mapping[str, str] | None = None) -> dict[str, PromptTemplate]:
    return {crit: load_prompt(name) for crit, name in (names or DEFAULT_PROMPTS).items()}


def run_judge(client: ChatClient, items: Sequence[HallucinationItem],
              prompts: Mapping[str, PromptTemplate]) -> JudgeRun:
    labels: dict[str, list[bool | None]] = {}
    statuses: dict[str, list[str]] = {}
    for crit, prompt in prompts.items():
        requests = [ChatRequest(key=it.item_id, prompt_hash=prompt.sha256, messages=prompt.render(prompt_fields(it)))
                    for it in items]
        results: list[ChatResult] = client.complete_many(requests, parse=PARSE_VERDICT)
        labels[crit] = [r.verdict["verdict"] if r.status == "ok" and r.verdict else None for r in results]
        statuses[crit] = ["ok" if r.status == "ok" else f"invalid:{r.invalid_reason}" for r in results]
    return JudgeRun(judge=client.config.name, model=client.config.model,
                    prompts={c: f"{p.name}@{p.short_hash}" for c, p in prompts.items()},
                    labels=labels, statuses=statuses, stats=client.stats.model_copy())
