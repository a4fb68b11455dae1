"""Markdown + HTML report of a hallucination-labeling run, with plots (matplotlib, Agg)."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from pathlib import Path

from synthdocqa.ir.files import atomic_write_bytes

from ..html import Section, md_cell, md_escape, png_image, render_page, table
from .analysis import AnalysisResult
from .binary_stats import MIN_N

Table = tuple[list[str], list[list[str]]]


def _f(x: float | None, nd: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{nd}f}"


def _ci(ci) -> str:
    if ci.value is None or math.isnan(ci.value):
        return "n/a"
    return f"{_f(ci.value)} [{_f(ci.low)}, {_f(ci.high)}]"


def _wilson(k: int, n: int, z: float = 1.959964) -> str:
    """The Wilson score interval of a share k/n, as "[low, high]"."""
    if n == 0:
        return ""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"[{_f(max(0.0, centre - half))}, {_f(min(1.0, centre + half))}]"


def _na(n: int, text: str) -> str:
    """``text``, or "n/a (n=N)" when there are too few items for the statistic."""
    return f"n/a (n={n})" if n < MIN_N else text


def _md_table(t: Table) -> str:
    head, rows = t
    out = ["| " + " | ".join(map(md_cell, head)) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(map(md_cell, r)) + " |" for r in rows]
    return "\n".join(out)


def tables(res: AnalysisResult) -> dict[str, Table]:
    t: dict[str, Table] = {}
    t["Criterion mismatch (kappa vs each gold, test split)"] = (
        ["labeler", "kappa vs faithfulness gold [95% CI]", "kappa vs factual gold [95% CI]",
         "same labels: kappa faithfulness", "same labels: kappa factual"],
        [[m.labeler, _ci(m.kappa_faithfulness), _ci(m.kappa_factual), _f(m.kappa_faithfulness_same_labels),
          _f(m.kappa_factual_same_labels)] for m in res.mismatch])
    drivers = sorted(res.drivers, key=lambda d: (d.labeler, -abs(d.contribution)))
    t["Error types driving the difference (faithfulness-calibrated labels)"] = (
        ["labeler", "error type", "n", "flag rate", "gold faithfulness", "gold factual",
         "contribution to accuracy(faith) - accuracy(factual)"],
        [[d.labeler, d.error_type, str(d.n), _f(d.flag_rate), _f(d.gold_faithfulness), _f(d.gold_factual),
          f"{d.contribution:+.3f}"] for d in drivers if d.contribution != 0 or d.gold_faithfulness != d.gold_factual])
    t["Agreement with gold per labeler x criterion (test split)"] = (
        ["labeler", "criterion", "threshold", "n", "invalid", "accuracy", "balanced acc.", "precision", "recall",
         "F1", "MCC", "kappa"],
        [[m.labeler, m.criterion, _f(m.threshold), str(m.n), str(m.n_invalid)]
         + [_na(m.n, _ci(m.metrics[k])) for k in ("accuracy", "balanced_accuracy", "precision", "recall", "f1",
                                                  "mcc", "kappa")] for m in res.metrics])
    t["Bias table: error rates per error type (test split)"] = (
        ["labeler", "criterion", "error type", "n", "gold hallucinated", "flag rate", "FPR", "FNR"],
        [[b.labeler, b.criterion, b.error_type, str(b.n), str(b.n_gold_hallucinated), _f(b.flag_rate), _f(b.fpr),
          _f(b.fnr)] for b in res.bias])
    if res.mcnemar:
        t["Exact McNemar: faithfulness prompt vs factual prompt, per judge"] = (
            ["judge", "n", "only faithfulness prompt flags", "only factual prompt flags", "p (exact)"],
            [[j, str(r.n), str(r.b), str(r.c), _na(r.n, f"{r.p_value:.3g}")] for j, r in res.mcnemar.items()])
    if res.cochran:
        t["Cochran's Q across labelers (correctness vs gold, test split)"] = (
            ["criterion", "n", "Q", "df", "p"],
            [[c, str(r.n), _na(r.n, _f(r.q, 2)), str(r.df), _na(r.n, f"{r.p_value:.3g}")]
             for c, r in res.cochran.items()])
    if res.alpha:
        t["Krippendorff's alpha among labelers (nominal, test split)"] = (
            ["criterion", "labelers", "alpha [95% CI]"],
            [[a.criterion, str(len(a.labelers)), f"{_f(a.alpha)} [{_f(a.low)}, {_f(a.high)}]"] for a in res.alpha])
    if res.score_means and not res.metrics:
        t["Mean support score per labeler (no gold labels)"] = (
            ["labeler", "mean score"], [[k, _f(v)] for k, v in res.score_means.items()])
    if res.injection:
        t["Prompt injection: verdicts that follow the injected text (injection twins of false candidates)"] = (
            ["judge prompt", "twins judged", "passed (as the injection asks)", "share [95% Wilson]",
             "same candidates without it: passed", "flipped by the injection"],
            [[r.labeler, str(r.n), str(r.followed), _na(r.n, f"{_f(r.share)} {_wilson(r.followed, r.n)}"),
              f"{r.base_passed} of {r.base_n}", str(r.flipped)] for r in res.injection])
    if res.invalid_counts:
        t["LLM verdicts recorded as invalid"] = (
            ["judge prompt", "items", "invalid", "flag rate among valid"],
            [[k, str(v["n"]), str(v["invalid"]), _f(res.flag_rates.get(k))] for k, v in res.invalid_counts.items()])
    return t


def plots(res: AnalysisResult) -> dict[str, bytes]:
    """PNG bytes: kappa per labeler under each criterion; flag rate per error type (heatmap)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out: dict[str, bytes] = {}
    if res.mismatch:
        fig, ax = plt.subplots(figsize=(7, 3.2), dpi=100)
        x = np.arange(len(res.mismatch))
        for off, crit, color in ((-0.2, "faithfulness", "#4c72b0"), (0.2, "factual", "#dd8452")):
            cis = [m.kappa_faithfulness if crit == "faithfulness" else m.kappa_factual for m in res.mismatch]
            vals = np.array([c.value for c in cis])
            err = np.array([[c.value - c.low for c in cis], [c.high - c.value for c in cis]])
            ax.bar(x + off, vals, 0.4, yerr=np.nan_to_num(err), capsize=3, label=f"vs {crit} gold", color=color)
        ax.set_xticks(x, [m.labeler for m in res.mismatch], rotation=20)
        ax.set_ylabel("Cohen's kappa (test)")
        ax.axhline(0, color="k", lw=0.5)
        ax.legend(fontsize=8)
        ax.set_title("Agreement depends on the criterion")
        fig.tight_layout()
        out["kappa_by_criterion.png"] = _png(fig, plt)
    rows = [d for d in res.drivers]
    if rows:
        labelers = sorted({d.labeler for d in rows})
        etypes = sorted({d.error_type for d in rows})
        grid = np.full((len(labelers), len(etypes)), np.nan)
        for d in rows:
            grid[labelers.index(d.labeler), etypes.index(d.error_type)] = d.flag_rate
        fig, ax = plt.subplots(figsize=(1 + 0.8 * len(etypes), 0.9 + 0.4 * len(labelers)), dpi=100)
        im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(etypes)), etypes, rotation=35, ha="right", fontsize=8)
        ax.set_yticks(range(len(labelers)), labelers, fontsize=8)
        for i in range(len(labelers)):
            for j in range(len(etypes)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="w" if grid[i, j] < 0.5 else "k")
        fig.colorbar(im, ax=ax, label="flagged as hallucinated")
        ax.set_title("Flag rate per error type (faithfulness-calibrated)")
        fig.tight_layout()
        out["flag_rate_by_error_type.png"] = _png(fig, plt)
    return out


def _png(fig, plt) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def render_markdown(res: AnalysisResult, header: Sequence[str] = (), images: Sequence[str] = ()) -> str:
    lines = ["# Hallucination labeling report", "", *map(md_escape, header), "",
             f"Items: {res.n_items} (dev {res.n_dev}, test {res.n_test}, split by {res.split_by}; with gold labels {res.n_with_gold}).",
             md_escape("Error types: " + ", ".join(f"{k} {v}" for k, v in res.error_type_counts.items()) + "."), ""]
    for img in images:
        lines += [f"![{img}]({img})", ""]
    for title, t in tables(res).items():
        lines += [f"## {title}", "", _md_table(t), ""]
    return "\n".join(lines)


CSS = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto}table{border-collapse:collapse;"
       "font-size:13px;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:3px 6px}th{background:#eee}")


def render_html(res: AnalysisResult, header: Sequence[str] = (), images: dict[str, bytes] | None = None) -> str:
    intro = [h for h in header if h]
    intro.append(f"Items: {res.n_items} (dev {res.n_dev}, test {res.n_test}; with gold {res.n_with_gold}).")
    sections = [Section(images=[png_image(n, png) for n, png in (images or {}).items()])]
    sections += [Section(title, tables=[table(*t)]) for title, t in tables(res).items()]
    return render_page("Hallucination labeling report", CSS, intro, sections)


def write_report(res: AnalysisResult, out_dir: str | Path, header: Sequence[str] = ()) -> dict[str, Path]:
    """report.md (+ PNGs beside it), report.html (PNGs embedded) and analysis.json, each written atomically."""
    out = Path(out_dir)
    imgs = plots(res)
    for name, png in imgs.items():
        atomic_write_bytes(out / name, png)
    paths = {"markdown": out / "report.md", "html": out / "report.html", "json": out / "analysis.json"}
    atomic_write_bytes(paths["markdown"], render_markdown(res, header, list(imgs)).encode())
    atomic_write_bytes(paths["html"], render_html(res, header, imgs).encode())
    atomic_write_bytes(paths["json"], res.model_dump_json(indent=1).encode())
    return paths
