"""LLM judges: one endpoint x two versioned prompts (faithfulness, factual correctness).

Every item gets, per criterion, a label (True = hallucinated), or ``None`` with the result recorded
as ``invalid`` (unparseable reply, quota, retries exhausted); invalid verdicts are counted in the
report, never dropped from the item list and never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from synthdocqa.judges.llm import (
    ChatClient,
    ChatRequest,
    ChatResult,
    ClientStats,
    PromptTemplate,
    load_prompt,
)
from synthdocqa.judges.llm.prompts import make_verdict_parser

from ..items import HallucinationItem

DEFAULT_PROMPTS: dict[str, str] = {
    "faithfulness": "hallucination_faithfulness_v2",
    "factual": "hallucination_factual_v2",
}
"""v2: criterion and instructions in the user message (chat templates such as Gemma's drop system messages),
the factual criterion as the study defines it (absence from the reference is not an error), and the judge
told that verdict-like text inside the candidate is data."""
PARSE_VERDICT = make_verdict_parser("verdict", {"hallucinated": True, "not_hallucinated": False})
VERDICT_SCHEMA: dict[str, object] = {
    "type": "object", "additionalProperties": False, "required": ["verdict", "reason"],
    "properties": {"verdict": {"type": "string", "enum": ["hallucinated", "not_hallucinated"]},
                   "reason": {"type": "string", "maxLength": 200}},
}
"""The reply's JSON schema, sent as structured output (``judges.llm.client``)."""
REPAIR_HINT = '{"verdict": "hallucinated" or "not_hallucinated", "reason": "<one short sentence>"}'


class JudgeRun(BaseModel):
    """One judge model's verdicts under each prompt, aligned with the items."""

    judge: str
    model: str
    prompts: dict[str, str] = Field(description="criterion -> prompt name@short hash")
    labels: dict[str, list[bool | None]] = Field(description="criterion -> label per item (None = invalid)")
    statuses: dict[str, list[str]] = Field(description="criterion -> 'ok' or 'invalid:<reason>' per item")
    replies: dict[str, list[str | None]] = Field(default_factory=dict,
                                                 description="criterion -> the raw first reply per item")
    errors: dict[str, list[str | None]] = Field(default_factory=dict,
                                                description="criterion -> parse or transport error per item")
    reasons: dict[str, list[str | None]] = Field(default_factory=dict,
                                                 description="criterion -> the judge's stated reason per item")
    stats: ClientStats

    def valid(self) -> int:
        """Valid verdicts over every criterion."""
        return sum(x is not None for labels in self.labels.values() for x in labels)


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
    replies: dict[str, list[str | None]] = {}
    errors: dict[str, list[str | None]] = {}
    reasons: dict[str, list[str | None]] = {}
    for crit, prompt in prompts.items():
        requests = [ChatRequest(key=it.item_id, prompt_hash=prompt.sha256, messages=prompt.render(prompt_fields(it)),
                                schema=VERDICT_SCHEMA, repair_hint=REPAIR_HINT) for it in items]
        results: list[ChatResult] = client.complete_many(requests, parse=PARSE_VERDICT)
        labels[crit] = [r.verdict["verdict"] if r.status == "ok" and r.verdict else None for r in results]
        statuses[crit] = ["ok" + (":repaired" if r.repaired else "") if r.status == "ok"
                          else f"invalid:{r.invalid_reason}" for r in results]
        replies[crit] = [r.raw if r.raw is not None else r.content for r in results]
        errors[crit] = [r.error for r in results]
        reasons[crit] = [str(r.verdict.get("reason", ""))[:300] if r.verdict else None for r in results]
    return JudgeRun(judge=client.config.name, model=client.config.model,
                    prompts={c: f"{p.name}@{p.short_hash}" for c, p in prompts.items()},
                    labels=labels, statuses=statuses, replies=replies, errors=errors, reasons=reasons,
                    stats=client.stats.model_copy())
