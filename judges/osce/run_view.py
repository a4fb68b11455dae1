"""The dialogues of a VSP run as one HTML page a researcher reads: per case, its title, persona and chief
complaint, then one row per scripted question with every responder's answer side by side (a stated failure in
its place, the script check's flags under the answer). Hangul shows through the report's embedded font subset,
so a Korean run reads the same on a machine without a CJK font."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from synthdocqa.judges.html import Section, render_page, table

from .case_bank import Case
from .report import page_css
from .vsp import TurnRecord


def _cell(r: TurnRecord | None) -> str:
    if r is None:
        return "(not asked)"
    text = r.response if r.status == "ok" else f"[failed: {r.failure}]"
    return text + "".join(f" [flag: {f}]" for f in r.flags)


def render_run_html(records: Sequence[TurnRecord], cases: Mapping[str, Case], language: str) -> str:
    """The page (a string): intro with the counts, then one section per case."""
    responders = list(dict.fromkeys(r.responder for r in records))
    by = {(r.case, r.utterance_id, r.responder): r for r in records}
    sections = []
    for cid in sorted({r.case for r in records}):
        case = cases[cid]
        p = case.persona
        questions = sorted({(r.turn, r.utterance_id, r.question, r.history_category, r.linguistic_form)
                            for r in records if r.case == cid})
        rows = [[str(turn), f"{q} ({cat}, {form})", *(_cell(by.get((cid, uid, name))) for name in responders)]
                for turn, uid, q, cat, form in questions]
        sections.append(Section(
            f"{case.title(language)} ({cid}, version {case.version})",
            paras=[f"{p.name(language)}, {p.age}, {p.occupation(language)}: {case.chief_complaint(language)}",
                   case.disclaimer(language)],
            tables=[table(["#", "question", *responders], rows)]))
    failed = sum(r.status == "failed" for r in records)
    flagged = sum(bool(r.flags) for r in records)
    prompts = sorted({f"{r.prompt_name} ({r.prompt_sha256[:12]})" for r in records})
    intro = [f"{len(records)} turns ({language}); responders: {', '.join(responders)}; {failed} failed, {flagged} "
             f"flagged by the script check (a screening aid, not a judge); persona prompt {', '.join(prompts)}."]
    title = "VSP run: dialogues"
    return render_page(title, page_css(title, intro, sections), intro, sections)


__all__ = ["render_run_html"]
