"""The analysis report: Markdown + self-contained HTML (forest plot and stratum heatmaps as PNG).

Everything is rendered into a temporary sibling folder (``ir.files.atomic_dir``) that replaces
``out_dir`` only when all files are written, so a failure never leaves a partial report behind. Figures use matplotlib's
object API on the Agg canvas (no pyplot global state) and PNGs carry no timestamp/software
metadata, so the same analysis gives the same bytes.

Hangul (Korean responder, case or stratum names): the figures are drawn inside a ``matplotlib.rc_context``
whose font list falls back from DejaVu Sans to NanumGothic, and a page showing Hangul embeds a subset of
NanumGothic holding only its characters (``fonts``); pages without Hangul are byte for byte as before.
"""

from __future__ import annotations

import functools
import io
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from synthdocqa.ir.files import atomic_dir

from ..html import Section, md_cell, md_escape, png_image, render_page, table
from .contrasts import ADJUST_NAMES
from .fonts import HTML_FAMILY, html_font_face, plot_font_family
from .schema import AnalysisResult, FitDiagnostics
from .tables import fmt, paper_tables, write_tables

PNG_META = {"Software": None}
CSS = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse;font-size:12px}"
       "td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}")
HANGUL_BODY_CSS = f'body{{font-family:sans-serif,"{HTML_FAMILY}"}}'
"""Added after CSS (with the embedded font's @font-face) only when the page shows Hangul."""

_F = TypeVar("_F", bound=Callable[..., object])


def _hangul_capable(fn: _F) -> _F:
    """Draw ``fn``'s figure with DejaVu Sans falling back to NanumGothic (``fonts.plot_font_family``): Latin
    text renders as before, Hangul (responder, stratum names) gets glyphs. rcParams only inside the call."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context({"font.family": plot_font_family()}):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata=PNG_META)
    return buf.getvalue()


@_hangul_capable
def forest_plot(result: AnalysisResult) -> bytes:
    """Difference from the reference with CI per metric x responder; filled = significant."""
    rows = result.main
    n = len(rows)
    fig = Figure(figsize=(7.5, max(2.5, 0.24 * n + 1.2)))
    ax = fig.add_subplot(1, 1, 1)
    y = np.arange(n)[::-1]
    colors = {r: c for r, c in zip(result.responders[1:], ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"] * 4, strict=False)}
    for yi, c in zip(y, rows, strict=True):
        col = colors.get(c.responder, "#333333")
        ax.plot([c.ci_low, c.ci_high], [yi, yi], color=col, lw=1.4)
        ax.plot([c.estimate], [yi], "o", color=col, mfc=col if c.significant else "white", ms=5)
    ax.axvline(0.0, color="#777777", lw=0.8, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels([f"{c.metric} / {c.responder}" for c in rows], fontsize=7)
    ax.set_xlabel(f"difference from {result.reference} (Likert points, {int(result.confidence * 100)}% CI)")
    ax.set_title("Responder minus reference (filled: significant after " + result.adjust_main.upper() + ")", fontsize=9)
    fig.tight_layout()
    return _png(fig)


@_hangul_capable
def stratum_heatmap(result: AnalysisResult, stratifier: str) -> bytes | None:
    """One panel per sentence-level metric: responders x strata, colour = difference, * = significant."""
    rows = [c for c in result.strata if c.stratifier == stratifier]
    if not rows:
        return None
    df = pd.DataFrame([c.model_dump() for c in rows])
    metrics = list(dict.fromkeys(df["metric"]))
    vmax = float(np.nanmax(np.abs(df["estimate"]))) or 1.0
    strata = sorted(df["stratum"].unique())
    # constrained layout makes room for the longest responder and stratum names ("HyperCLOVA X",
    # "history_of_present_illness") and the colour bar instead of clipping them at the figure's edge
    fig = Figure(figsize=(max(6.0, 0.55 * len(strata) + 2.5), 1.9 * len(metrics) + 1.2), layout="constrained")
    im = None
    for k, metric in enumerate(metrics):
        ax = fig.add_subplot(len(metrics), 1, k + 1)
        sub = df[df["metric"] == metric]
        est = sub.pivot(index="responder", columns="stratum", values="estimate").reindex(columns=strata)
        sig = sub.pivot(index="responder", columns="stratum", values="significant").reindex(columns=strata)
        im = ax.imshow(est.to_numpy(dtype=float), cmap="RdBu", vmin=-vmax, vmax=vmax, aspect="auto")
        for i in range(est.shape[0]):
            for j in range(est.shape[1]):
                v = est.iat[i, j]
                if np.isfinite(v):
                    s = sig.iat[i, j]
                    star = "*" if s is not None and not pd.isna(s) and bool(s) else ""
                    ax.text(j, i, f"{fmt(v, 2, sign=True)}{star}", ha="center", va="center", fontsize=6)
        ax.set_yticks(range(est.shape[0]))
        ax.set_yticklabels(est.index, fontsize=7)
        ax.set_xticks(range(len(strata)))
        ax.set_xticklabels(strata if k == len(metrics) - 1 else [""] * len(strata), rotation=35, ha="right", fontsize=7)
        ax.set_title(f"{metric}", fontsize=8)
    if im is not None:
        fig.colorbar(im, ax=fig.axes, shrink=0.6, label="difference (Likert points)")
    fig.suptitle(f"Difference from {result.reference} by {stratifier} (* {result.adjust_strata.upper()}-adjusted)", fontsize=9)
    return _png(fig)


def _fmt_p(p: float | None) -> str:
    if p is None or not np.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _fmt_df(df: float | None) -> str:
    return "z" if df is None else ("n/a" if not np.isfinite(df) else f"{df:.1f}")


def _main_table(result: AnalysisResult) -> tuple[list[str], list[list[str]]]:
    with_df = any(c.df is not None for c in result.main)
    head = ["metric", "responder", "difference", f"{int(result.confidence * 100)}% CI", *(["df"] if with_df else []),
            "p", f"p adj ({result.adjust_main})", "significant"]
    body = [
        [c.metric, c.responder, f"{fmt(c.estimate, 3, sign=True)}", f"[{fmt(c.ci_low, 3, sign=True)}, {fmt(c.ci_high, 3, sign=True)}]",
         *([_fmt_df(c.df)] if with_df else []), _fmt_p(c.p_value),
         _fmt_p(c.p_adjusted), "yes" if c.significant else "no"]
        for c in result.main
    ]
    return head, body


def _emm_table(result: AnalysisResult) -> tuple[list[str], list[list[str]]]:
    head = ["metric", "responder", "EMM", "SE", "df", f"{int(result.confidence * 100)}% CI", "scores"]
    body = [[e.metric, e.responder, fmt(e.estimate, 3), f"{e.se:.3f}", _fmt_df(e.df),
             f"[{fmt(e.ci_low, 3)}, {fmt(e.ci_high, 3)}]", str(e.n_obs)] for e in result.emms]
    return head, body


def _coef_name(name: str, result: AnalysisResult) -> str:
    """A fixed effect as a reader names it: R's ``respHyperCLOVA X`` is "HyperCLOVA X (vs human)", ``strat...``
    the stratum, ``:`` an interaction."""
    def part(p: str) -> str:
        if p.startswith("resp") and p[4:] in result.responders:
            return f"{p[4:]} (vs {result.reference})"
        if p.startswith("strat") and len(p) > 5:
            return f"stratum {p[5:]}"
        return p

    return " x ".join(part(p) for p in name.split(":"))


def _coef_table(result: AnalysisResult) -> tuple[list[str], list[list[str]]]:
    head = ["metric", "fixed effect", "estimate", "SE", "df", "t", "p"]
    body = [[f.metric, _coef_name(c.name, result), fmt(c.estimate, 4, sign=True), f"{c.se:.4f}", _fmt_df(c.df),
             fmt(c.t, 2), _fmt_p(c.p_value)]
            for f in result.fits if f.stratifier is None for c in f.coefficients]
    return head, body


def _diag_table(result: AnalysisResult) -> tuple[list[str], list[list[str]]]:
    head = ["metric", "model", "optimizer kept", "log-lik", "optimum confirmed", "singular / boundary",
            "variances", "attempts", "warnings", "seconds"]
    body = []
    for f in result.fits:
        d = f.diagnostics
        ll = "n/a" if d.loglik is None else f"{d.loglik:.4f} ({d.criterion or ''})"
        var = ", ".join(f"{k} {v:.4f}" for k, v in d.variance_components.items())
        if d.residual_variance is not None:
            var += f", residual {d.residual_variance:.4f}"
        body.append([
            f.metric, f"x {f.stratifier}" if f.stratifier else "main", d.method, ll,
            _confirmed(d), ", ".join(d.boundary) or ("yes" if d.singular else "-"), var,
            "; ".join(d.attempts), "; ".join(d.warnings) or "-", f"{d.seconds:.2f}",
        ])
    return head, body


def _confirmed(d: FitDiagnostics) -> str:
    """"optimum confirmed": the runs' spread is shown only when every run agreed; a disagreement is said as one."""
    if not d.converged:
        return "NO"
    if any(w.startswith("optimizers disagree") for w in d.warnings):
        return "yes, by 2 runs (not all: see warnings)"
    return "yes" + ("" if d.criterion_spread is None else f" (all runs within {d.criterion_spread:.1e})")


def _rel_table(result: AnalysisResult) -> tuple[list[str], list[list[str]]]:
    head = ["metric", "units", "raters", "ICC(2,1)", "ICC(2,k)", "k", "ICC from", "alpha units used",
            "Krippendorff alpha (ordinal)"]

    def num(v: float | None) -> str:
        return "n/a" if v is None else fmt(v, 3)

    body = [[r.metric, str(r.n_units), str(r.n_raters), num(r.icc2_1), num(r.icc2_k),
             "n/a" if r.icc_k is None else f"{r.icc_k:.2f}", r.icc_method or "-", str(r.alpha_units),
             num(r.alpha_ordinal)]
            for r in result.reliability]
    return head, body


def _ordinal_table(result: AnalysisResult) -> tuple[list[str], list[list[str]]]:
    lmm = {(c.metric, c.responder): c for c in result.main}
    head = ["metric", "responder", "linear: difference", f"linear: p adj ({result.adjust_main})",
            "ordinal: latent log-odds", "ordinal: 95% CI", f"ordinal: p adj ({result.adjust_main})", "same conclusion"]
    body = []
    for c in result.ordinal:
        m = lmm.get((c.metric, c.responder))
        same = "-" if m is None else ("yes" if (bool(m.significant) == bool(c.significant)) and
                                      (not c.significant or np.sign(m.estimate) == np.sign(c.estimate)) else "NO")
        body.append([c.metric, c.responder, "-" if m is None else f"{fmt(m.estimate, 3, sign=True)}",
                     "-" if m is None else _fmt_p(m.p_adjusted), f"{fmt(c.estimate, 3, sign=True)}",
                     f"[{fmt(c.ci_low, 3, sign=True)}, {fmt(c.ci_high, 3, sign=True)}]", _fmt_p(c.p_adjusted), same])
    return head, body


def _md(head: list[str], body: list[list[str]]) -> str:
    esc = [[md_cell(c) for c in row] for row in body]
    lines = ["| " + " | ".join(map(md_cell, head)) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in esc]
    return "\n".join(lines)


def _method_text(result: AnalysisResult) -> list[str]:
    out = [
        f"Model per metric: `{result.model_formula}`.",
        f"Reference responder: **{result.reference}** (treatment coding); differences are in Likert points.",
        "Stratification: responder x stratum interaction terms in one fit per stratifier (history category, "
        "linguistic form), sharing the rater and item variances; sentence-level metrics only.",
        f"Multiplicity: main table {ADJUST_NAMES[result.adjust_main]} over all {len(result.main)} contrasts; "
        f"stratum heatmaps {ADJUST_NAMES[result.adjust_strata]} within each metric x stratifier.",
    ]
    if result.backend == "lmm":
        out.append("Fitting: the profiled REML criterion is minimised by several optimizer runs (L-BFGS-B from two "
                   "starts, Powell); the best is kept and 'optimum confirmed' says whether a second run reached it. "
                   "Denominator df: Satterthwaite, as lmerTest.")
    elif result.backend == "statsmodels":
        out.append("Fitting (cross-check backend): every statsmodels optimizer (lbfgs, bfgs, powell, nm) is run and "
                   "the highest REML log-likelihood kept; failures fall back to OLS with cluster-robust SEs.")
    return out


def _shown_texts(title: str, intro: Sequence[str], sections: Sequence[Section]) -> Iterator[str]:
    """Every text the HTML page shows (headings, paragraphs, items, table cells)."""
    yield title
    yield from intro
    for s in sections:
        yield s.title or ""
        yield from s.paras
        yield from s.items
        for t in s.tables:
            yield from t["head"]
            for row in t["rows"]:
                yield from row


def page_css(title: str, intro: Sequence[str], sections: Sequence[Section]) -> str:
    """The page's CSS: with the embedded Hangul font when the page shows Hangul, else the plain CSS (unchanged)."""
    face = html_font_face(_shown_texts(title, intro, sections))
    return (CSS + face + HANGUL_BODY_CSS) if face else CSS


def _units_table(result: AnalysisResult) -> tuple[list[str], list[list[str]]]:
    """Per metric: what its contrasts' df rest on, and the test that chose the answer effect (sentence level)."""
    head = ["metric", "level", "the df rest on", "answer effect tested"]
    body = [[f.metric, f.level, f.unit_of_inference or "-", f.response_effect_test or "-"]
            for f in result.fits if f.stratifier is None]
    return head, body


def _boot_table(result: AnalysisResult) -> tuple[list[str], list[list[str]]]:
    head = ["metric", "responder", "difference", "reported CI", "bootstrap-t CI", "draws", "reported CI too narrow"]
    body = [[b.metric, b.responder, f"{fmt(b.estimate, 3, sign=True)}", f"[{fmt(b.ci_low, 3, sign=True)}, {fmt(b.ci_high, 3, sign=True)}]",
             f"[{fmt(b.boot_ci_low, 3, sign=True)}, {fmt(b.boot_ci_high, 3, sign=True)}]", str(b.draws), "YES (>10% narrower)" if b.wider else "no"]
            for f in result.fits for b in f.bootstrap]
    return head, body


def _gaps_table(gaps: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    head = ["metric", "responder", "raters: difference [CI]", "judge: difference [CI]", "same direction",
            "Spearman rho (metric)", "same order (metric)"]
    body = [[r.metric, r.responder, f"{fmt(r.raters_gap, 3, sign=True)} [{fmt(r.raters_ci_low, 3, sign=True)}, {fmt(r.raters_ci_high, 3, sign=True)}]",
             f"{fmt(r.judge_gap, 3, sign=True)} [{fmt(r.judge_ci_low, 3, sign=True)}, {fmt(r.judge_ci_high, 3, sign=True)}]", "yes" if r.same_direction else "NO",
             "n/a" if pd.isna(r.spearman_rho) else fmt(r.spearman_rho, 2), "yes" if r.same_order else "no"]
            for r in gaps.itertuples(index=False)]
    return head, body


def render_report(result: AnalysisResult, out_dir: str | os.PathLike[str], rubric: pd.DataFrame | None = None,
                  judge_gaps: pd.DataFrame | None = None, ratings: pd.DataFrame | None = None) -> Path:
    """Write report.md, report.html, analysis.json and the PNGs to ``out_dir`` (all or nothing); with the judge's
    ``rubric`` agreement and ``judge_gaps`` (``rubric.judge_gaps``) a section on the LLM judge."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a folder")
    with atomic_dir(out) as tmp:
        figures: dict[str, bytes] = {"forest.png": forest_plot(result)} if result.main else {}
        strat_names = list(dict.fromkeys(c.stratifier for c in result.strata if c.stratifier))
        for s in strat_names:
            png = stratum_heatmap(result, s)
            if png is not None:
                figures[f"heatmap_{s}.png"] = png
        for name, data in figures.items():
            (tmp / name).write_bytes(data)
        write_tables(paper_tables(result, ratings), tmp / "tables")
        (tmp / "analysis.json").write_text(json.dumps(result.model_dump(mode="json"), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        if rubric is not None:
            rubric.to_csv(tmp / "rubric_agreement.csv", index=False, lineterminator="\n")
        gaps_tab = None
        gaps_note = ""
        if judge_gaps is not None:
            judge_gaps.to_csv(tmp / "judge_gaps.csv", index=False, lineterminator="\n")
            gaps_tab = _gaps_table(judge_gaps) if len(judge_gaps) else None
            why = judge_gaps.attrs.get("exclusions") or []
            gaps_note = ("The judge's scores left out of the gaps: " + "; ".join(why) + ".") if why else ""
        uh, ub = _units_table(result)
        bh, bb = _boot_table(result)

        mh, mb = _main_table(result)
        dh, db = _diag_table(result)
        rh, rb = _rel_table(result)
        eh, eb = _emm_table(result)
        ch, cb = _coef_table(result)
        strata_tables = []
        for s in strat_names:
            rows = [c for c in result.strata if c.stratifier == s]
            body = [[c.metric, c.responder, str(c.stratum), f"{fmt(c.estimate, 3, sign=True)}", f"[{fmt(c.ci_low, 3, sign=True)}, {fmt(c.ci_high, 3, sign=True)}]",
                     _fmt_df(c.df), _fmt_p(c.p_adjusted), "yes" if c.significant else "no"] for c in rows]
            strata_tables.append((s, ["metric", "responder", s, "difference", "CI", "df",
                                      f"p adj ({result.adjust_strata})", "significant"], body))
        rubric_tab = None
        if rubric is not None and len(rubric):
            rubric_tab = (list(map(str, rubric.columns)), [[fmt(v, 3) if isinstance(v, float) else str(v) for v in r] for r in rubric.itertuples(index=False)])
        ordinal_tab = _ordinal_table(result) if result.ordinal else None

        md = ["# OSCE/VSP scoring analysis\n", md_escape(f"{result.n_scores} scores; responders: "
                                                     f"{', '.join(result.responders)}; metrics: "
                                                     f"{', '.join(result.metrics)}.") + "\n", "## Method\n"]
        md += [f"- {md_escape(t)}" for t in _method_text(result)]
        if result.exclusions:
            md += ["", "## Exclusions\n", "Left out of the analysis (no number is reported for them):\n"]
            md += [f"- {md_escape(x)}" for x in result.exclusions]
        md += ["", "## Unit of inference\n", _md(uh, ub), ""]
        md += ["## Difference from the reference\n", _md(mh, mb), ""]
        if "forest.png" in figures:
            md += ["![forest plot](forest.png)", ""]
        if bb:
            md += ["## Parametric bootstrap check of the CIs\n", _md(bh, bb), ""]
        if eb:
            md += ["## Estimated marginal means\n", _md(eh, eb), ""]
        for s, head, body in strata_tables:
            md += [f"## By {s}\n", f"![heatmap](heatmap_{s}.png)\n", _md(head, body), ""]
        if ordinal_tab:
            md += ["## Ordinal sensitivity model\n", f"`{result.ordinal_model}`\n", _md(*ordinal_tab), ""]
        md += ["## Reliability\n", _md(rh, rb), ""]
        if cb:
            md += ["## Fixed effects (main models)\n", _md(ch, cb), ""]
        md += ["## Fit diagnostics\n", _md(dh, db), ""]
        if rubric_tab:
            md += ["## LLM rubric judge vs human raters\n", _md(*rubric_tab), ""]
        if judge_gaps is not None:
            md += ["## Responder gaps: LLM judge vs human raters (same model)\n"]
            md += [_md(*gaps_tab) if gaps_tab else "No metric of the judge's could be analysed.", ""]
            md += [gaps_note, ""] if gaps_note else []
        (tmp / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")

        def img(name: str) -> list[dict[str, str]]:
            return [png_image(name, figures[name])] if name in figures else []

        sections = [Section("Method", items=[t.replace("**", "").replace("`", "") for t in _method_text(result)])]
        if result.exclusions:
            sections.append(Section("Exclusions", items=result.exclusions))
        sections.append(Section("Unit of inference", tables=[table(uh, ub)]))
        sections.append(Section("Difference from the reference", images=img("forest.png"), tables=[table(mh, mb)]))
        if bb:
            sections.append(Section("Parametric bootstrap check of the CIs", tables=[table(bh, bb)]))
        if eb:
            sections.append(Section("Estimated marginal means", tables=[table(eh, eb)]))
        for s, head, body in strata_tables:
            sections.append(Section(f"By {s}", images=img(f"heatmap_{s}.png"), tables=[table(head, body)]))
        if ordinal_tab:
            sections.append(Section("Ordinal sensitivity model", paras=[result.ordinal_model or ""],
                                    tables=[table(*ordinal_tab)]))
        sections.append(Section("Reliability", tables=[table(rh, rb)]))
        if cb:
            sections.append(Section("Fixed effects (main models)", tables=[table(ch, cb)]))
        sections.append(Section("Fit diagnostics", tables=[table(dh, db)]))
        if rubric_tab:
            sections.append(Section("LLM rubric judge vs human raters", tables=[table(*rubric_tab)]))
        if judge_gaps is not None:
            sections.append(Section("Responder gaps: LLM judge vs human raters (same model)",
                                    paras=[gaps_note] if gaps_note else [],
                                    tables=[table(*gaps_tab)] if gaps_tab else []))
        intro = [f"{result.n_scores} scores; responders: {', '.join(result.responders)}."]
        title = "OSCE/VSP scoring analysis"
        css = page_css(title, intro, sections)
        (tmp / "report.html").write_text(render_page(title, css, intro, sections), encoding="utf-8")
    return out
