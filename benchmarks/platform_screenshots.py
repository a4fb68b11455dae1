"""Screenshots of the practice platform's pages for docs/osce.md: docs/img/platform_*.png.

``synthdocqa osce platform serve`` in its own process on a throwaway SQLite file, the VSP and the machine-
feedback judge fake OpenAI servers with scripted replies (the answers follow the hematuria case's script, in
English and in Korean; the judge gives fixed scores and reasons), so the pictures are the same on every run
(but for the elapsed times and the admin page's random encounter ids and times). Pages in headless Debian
Chromium at a phone's 390 x 844 CSS pixels (``tests/judges/osce/platform/browser_kit.py``), each the visible
screen after the web fonts have loaded (Hangul from the platform's ``/font/hangul.woff``; no CJK system font
needed); saved as RGB, or with a 256-colour palette where RGB would pass 150 KB (over 150 KB even so: an
error). Needs Debian chromium and chromium-driver, and selenium (the test extra).

    .venv/bin/python benchmarks/platform_screenshots.py [--out docs/img]

English: sign-in, consent, cases, an encounter (an XSS payload shown as text), the end of an encounter with the
differential typed, the ended page, the machine feedback, the admin page. Korean (the case decides the
language): the Korean encounter, its end with the differential, the ended page, its machine feedback. The
pages no case decides (sign-in, consent, the case list, withdrawal) are bilingual (the English pictures are
those).
The admin page at 800 x 480 (at a phone's width its encounters table runs off the right edge).

Each picture is checked for Hangul that Chromium drew without a font that has it (empty boxes): the elements
whose text holds Hangul but whose platform fonts (DevTools ``CSS.getPlatformFontsForNode``) are only Latin
ones are printed as warnings (the pictures are kept: they show what a student without a CJK font sees).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from tests.judges.fake_openai_server import FakeOpenAIServer  # noqa: E402
from tests.judges.osce.platform.browser_kit import (  # noqa: E402
    ADMIN_TOKEN,
    ask,
    browser,
    served,
    sign_in,
    start_case,
    submit,
    write_vsp_yaml,
)

LIMIT = 150_000
PAYLOAD = '<img src=x onerror="alert(1)"><script>alert(1)</script>'
ANSWERS = {
    "What brings you in today?": "My urine has been red, like there's blood in it. My wife told me I had to come in.",
    "When did it start?": "It started three days ago, first thing in the morning.",
    "Does it hurt when you pass urine?": "It doesn't hurt at all, not when I pass water and not in my tummy or back.",
    PAYLOAD: "Sorry, I don't understand the question.",
    "Have you lost any weight?": "I've lost weight without trying, about 5 kilos in the last three months.",
    "어디가 불편해서 오셨어요?": "소변이 피가 섞인 것처럼 빨갛게 나와요. 아내가 꼭 병원에 가 보라고 해서 왔어요.",
    "언제부터 그러셨어요?": "사흘 전 아침에 처음 봤어요.",
    "소변 볼 때 아프세요?": "전혀 안 아파요. 소변 볼 때도 그렇고, 배나 허리도 안 아파요.",
    "혹시 살이 빠지셨나요?": "일부러 뺀 것도 아닌데 살이 빠졌어요. 지난 석 달 동안 5킬로쯤요.",
}
EN = ["What brings you in today?", "When did it start?", "Does it hurt when you pass urine?", PAYLOAD,
      "Have you lost any weight?"]
KO = ["어디가 불편해서 오셨어요?", "언제부터 그러셨어요?", "소변 볼 때 아프세요?", "혹시 살이 빠지셨나요?"]
JUDGE = {
    "comprehensibility": (5, "Short, plain answers a student can follow."),
    "consistency": (5, "No answer contradicts another."),
    "hallucination_freeness": (4, "Nothing beyond the script, but the reply to the garbled question adds nothing."),
    "engagement": (4, "Answers like a worried patient; offers little unprompted."),
    "accuracy": (5, "Onset, painlessness and weight loss match the case script."),
    "overall": (4, "A believable standardized patient for this history."),
}


def _vsp(req: dict) -> str:
    last = req["messages"][-1]["content"]
    return next((a for q, a in ANSWERS.items() if q in last), "I'm not sure.")


def _judge(req: dict) -> str:
    text = " ".join(m["content"] for m in req["messages"])
    score, reason = JUDGE[re.search(r"Metric: (\w+)", text).group(1)]
    return json.dumps({"reason": reason, "score": score})


HANGUL_TEXT = """
const out = [], w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (w.nextNode()) {
  const e = w.currentNode.parentElement;
  if (/[\uac00-\ud7a3]/.test(w.currentNode.data) && !e.hasAttribute("data-hangul")) {
    e.setAttribute("data-hangul", String(out.length)); out.push(e.textContent.trim().slice(0, 60));
  }
}
return out;
"""


def hangul_boxes(b) -> list[str]:  # noqa: ANN001 (a selenium driver)
    """The texts with Hangul that the page draws in no font with Hangul (only Latin fonts: boxes)."""
    texts = b.execute_script(HANGUL_TEXT)
    b.execute_cdp_cmd("DOM.enable", {})
    b.execute_cdp_cmd("CSS.enable", {})
    root = b.execute_cdp_cmd("DOM.getDocument", {})["root"]["nodeId"]
    bad = []
    for i, text in enumerate(texts):
        node = b.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": f'[data-hangul="{i}"]'})["nodeId"]
        fonts = [f["familyName"] for f in b.execute_cdp_cmd("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]]
        if all(re.match(r"(Liberation|DejaVu|Arial|Helvetica)", f) for f in fonts):
            bad.append(f"{text!r} drawn in {', '.join(fonts)}")
    b.execute_script("document.querySelectorAll('[data-hangul]').forEach(e => e.removeAttribute('data-hangul'))")
    return bad


def save(b, path: Path, *, bottom: bool = False) -> None:  # noqa: ANN001 (a selenium driver)
    """The visible screen once the fonts are in (the page's top, or its end with ``bottom``), as small a PNG as
    it allows."""
    b.execute_script("window.scrollTo(0, arguments[0] ? document.body.scrollHeight : 0)", bottom)
    b.execute_async_script("document.fonts.ready.then(() => requestAnimationFrame(() => arguments[0]()))")
    b.execute_script("document.activeElement && document.activeElement.blur()")  # no caret in the picture
    img = Image.open(io.BytesIO(b.get_screenshot_as_png())).convert("RGB")
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    if buf.tell() > LIMIT:
        buf = io.BytesIO()
        img.quantize(256, dither=Image.Dither.NONE).save(buf, "PNG", optimize=True)
    path.write_bytes(buf.getvalue())
    print(f"{path} {img.size[0]}x{img.size[1]} {buf.tell() // 1024} KB")
    for bad in hangul_boxes(b):
        print(f"  WARNING: Hangul without a Hangul font (boxes): {bad}")
    if buf.tell() > LIMIT:
        raise SystemExit(f"{path}: {buf.tell()} bytes, over {LIMIT}")


def main() -> int:
    from selenium.webdriver.common.by import By

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    def out(name: str) -> Path:
        return args.out / f"platform_{name}.png"

    with tempfile.TemporaryDirectory() as tmp_s, FakeOpenAIServer(responder=_vsp) as vsp, \
            FakeOpenAIServer(responder=_judge) as judge:
        tmp = Path(tmp_s)
        (tmp / "judge.yaml").write_text(f"{{base_url: '{judge.url}', model: fake-judge, max_retries: 0}}\n")
        vsp_yaml = write_vsp_yaml(tmp / "vsp.yaml", vsp.url)
        with served(tmp, vsp_yaml, f"sqlite+aiosqlite:///{tmp / 'p.db'}", judge_yaml=tmp / "judge.yaml") as s:
            b = browser(phone=True)
            try:
                sign_in(b, s.base, "DEMO-EN", research=True, shot=lambda name: save(b, out(name)))
                save(b, out("cases"))

                def encounter(language: str, questions: list[str], differential: str, prefix: str) -> None:
                    """One hematuria encounter in ``language``: its turns, its end with the differential typed,
                    the ended page (shots ``<prefix>encounter``, ``<prefix>end``, ``<prefix>ended``)."""
                    start_case(b, "hematuria", language)
                    for q in questions:
                        ask(b, q)
                    save(b, out(f"{prefix}encounter"))
                    b.find_element(By.NAME, "differential").send_keys(differential)
                    save(b, out(f"{prefix}end"), bottom=True)
                    submit(b, "//form[contains(@action,'/end')]//button")
                    save(b, out(f"{prefix}ended"))

                encounter("en", EN, "Bladder cancer; kidney cancer; prostate", "")
                b.find_element(By.PARTIAL_LINK_TEXT, "Machine feedback").click()
                save(b, out("feedback"))
                b.get(s.base + "/cases")
                encounter("ko", KO, "방광암, 신장암, 전립선 비대증", "ko_")
                b.find_element(By.PARTIAL_LINK_TEXT, "자동 피드백").click()
                save(b, out("ko_feedback"))
            finally:
                b.quit()
            admin = browser(viewport=(800, 480))  # a desk's page: its tables are wider than a phone
            try:
                admin.get(s.base + "/admin")
                admin.find_element(By.NAME, "token").send_keys(ADMIN_TOKEN)
                submit(admin, "//button[@type='submit']")
                save(admin, out("admin"))
            finally:
                admin.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
