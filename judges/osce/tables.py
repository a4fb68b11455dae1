"""The tables a paper takes: descriptives, contrasts, reliability; as CSV, LaTeX (booktabs) and Word (.docx).

Every table is built once as rows of already formatted cells (``Table``), so the three formats print the same
text: numbers are formatted in one place (``fmt``: fixed decimals, never "-0.000", never NaN), responder and
metric names exactly as given in the data. ``write_tables`` writes ``tables/<name>.{csv,tex,docx}``.

* ``descriptives``: mean (SD) and n per responder x metric;
* ``descriptives_by_case``: the same per case;
* ``contrasts``: per metric x responder, the difference from the reference with its CI, df, p and adjusted p;
* ``reliability``: per metric, ICC(2,1), ICC(2,k) (k) and Krippendorff's alpha with the units they used.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .schema import AnalysisResult

LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": "$<$",
                  ">": "$>$"}


def fmt(value: float | None, decimals: int = 3, sign: bool = False) -> str:
    """One number as every table prints it: fixed decimals; a value that rounds to zero has no minus sign; a
    missing or non-finite value is an en dash."""
    if value is None or not math.isfinite(value):
        return "–"
    text = f"{value:+.{decimals}f}" if sign else f"{value:.{decimals}f}"
    return f"{0.0:.{decimals}f}" if float(text) == 0.0 else text


def fmt_p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


@dataclass(frozen=True)
class Table:
    name: str
    caption: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.head)
        w.writerows(self.rows)
        return buf.getvalue()

    def latex(self) -> str:
        """A complete booktabs ``tabular`` (needs ``\\usepackage{booktabs}``), inside a ``table`` float."""
        cols = "l" * min(2, len(self.head)) + "r" * max(len(self.head) - 2, 0)
        lines = [r"\begin{table}[htbp]", r"\centering", f"\\caption{{{latex_escape(self.caption)}}}",
                 f"\\label{{tab:{self.name}}}", f"\\begin{{tabular}}{{{cols}}}", r"\toprule",
                 " & ".join(latex_escape(h) for h in self.head) + r" \\", r"\midrule"]
        lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in self.rows]
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"

    def docx(self) -> bytes:
        from docx import Document

        doc = Document()
        doc.add_paragraph(self.caption)
        t = doc.add_table(rows=1 + len(self.rows), cols=len(self.head))
        t.style = "Table Grid"
        for j, h in enumerate(self.head):
            t.cell(0, j).text = h
        for i, row in enumerate(self.rows, start=1):
            for j, c in enumerate(row):
                t.cell(i, j).text = c
        buf = io.BytesIO()
        doc.save(buf)
        return _stable_zip(buf.getvalue())


def _stable_zip(data: bytes) -> bytes:
    """The .docx (a zip) with fixed member timestamps and no creation date in its core properties."""
    import re
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = re.sub(rb"<dcterms:(created|modified)[^>]*>[^<]*</dcterms:\1>", b"", body)
            member = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(member, body)
    return out.getvalue()


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


def _described(ratings: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    g = ratings.groupby(list(by), sort=False, observed=True)["score"]
    return g.agg(mean="mean", sd="std", n="size").reset_index()


def descriptives(ratings: pd.DataFrame, result: AnalysisResult, by_case: bool = False) -> Table:
    """Mean (SD) and n of the raw scores per responder x metric (x case), metrics and responders in the analysis's
    order; a cell with one score has no SD."""
    keys = ["metric", "responder"] + (["case"] if by_case else [])
    d = ratings[ratings["metric"].isin(result.metrics)].astype({"score": float})
    stats = _described(d, keys)
    order_m = {m: i for i, m in enumerate(result.metrics)}
    order_r = {r: i for i, r in enumerate(result.responders)}
    stats = stats.assign(_m=stats["metric"].map(order_m), _r=stats["responder"].map(order_r))
    stats = stats.sort_values(["_m", "_r"] + (["case"] if by_case else []), kind="stable")
    rows = tuple(tuple([str(r.metric), str(r.responder)] + ([str(r.case)] if by_case else [])
                       + [f"{fmt(r.mean, 2)} ({fmt(None if r.n < 2 else r.sd, 2)})", str(int(r.n))])
                 for r in stats.itertuples(index=False))
    head = ("Metric", "Responder") + (("Case",) if by_case else ()) + ("Mean (SD)", "n")
    name = "descriptives_by_case" if by_case else "descriptives"
    cap = "Scores by responder and metric" + (" and case" if by_case else "") + ": mean (SD) and n of the ratings"
    return Table(name, cap, head, rows)


def contrasts(result: AnalysisResult) -> Table:
    conf = round(100 * result.confidence)
    rows = tuple((c.metric, c.responder, fmt(c.estimate, 3, sign=True),
                  f"[{fmt(c.ci_low, 3, sign=True)}, {fmt(c.ci_high, 3, sign=True)}]",
                  fmt(c.df, 1) if c.df is not None else "z", fmt_p(c.p_value), fmt_p(c.p_adjusted))
                 for c in result.main)
    head = ("Metric", "Responder", "Difference", f"{conf}% CI", "df", "p", f"p ({result.adjust_main})")
    cap = (f"Difference of each responder from {result.reference} (Likert points), mixed model per metric; "
           f"p adjusted by {result.adjust_main} over all {len(result.main)} contrasts")
    return Table("contrasts", cap, head, rows)


def reliability(result: AnalysisResult) -> Table:
    rows = tuple((r.metric, str(r.n_units), str(r.n_raters), fmt(r.icc2_1), fmt(r.icc2_k),
                  fmt(r.icc_k, 2), fmt(r.alpha_ordinal), str(r.alpha_units)) for r in result.reliability)
    head = ("Metric", "Units", "Raters", "ICC(2,1)", "ICC(2,k)", "k", "Krippendorff alpha (ordinal)", "Alpha units")
    cap = ("Inter-rater reliability per metric: ICC from the two-way random-effects model on every rating; "
           "ordinal alpha over units with two or more ratings")
    return Table("reliability", cap, head, rows)


def paper_tables(result: AnalysisResult, ratings: pd.DataFrame | None) -> list[Table]:
    out = [contrasts(result)]
    if ratings is not None:
        out = [descriptives(ratings, result), descriptives(ratings, result, by_case=True), *out]
    if result.reliability:
        out.append(reliability(result))
    return out


def write_tables(tables: Sequence[Table], folder: Path) -> list[str]:
    """``folder/<name>.csv|.tex|.docx`` for every table; the file names written."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for t in tables:
        (folder / f"{t.name}.csv").write_text(t.csv(), encoding="utf-8")
        (folder / f"{t.name}.tex").write_text(t.latex(), encoding="utf-8")
        (folder / f"{t.name}.docx").write_bytes(t.docx())
        names += [f"{t.name}.csv", f"{t.name}.tex", f"{t.name}.docx"]
    return names
