"""Seeded simulator of a fully crossed VSP/OSCE rating study with planted effects.

Latent model per metric m, responder p, rater r, item i (scripted question or case):

    y* = baseline + effect[p, m] + form_interaction[p, form(i)] + category_effect[cat(i)]
         + form_effect[form(i)] + severity[r, m] + item[i, m] + response[i, p, m] + noise

and the observed score is ``clip(round(y*), scale_min, scale_max)`` (Likert discretisation).
Rounding and clipping shrink differences near the ends of the scale, so the *planted contrast*
that an analysis should recover is defined on the expected Likert scale, not the latent one:
for each responder, the mean over the design's raters and items of E[score] (analytic: a sum of
normal tail probabilities over the thresholds, given rater and item effects; response effect and
noise integrated out), minus the same for the reference. The design's raters and items are fixed
(they cancel in the contrasts); what varies is the response and noise, which the model's CI covers.

Default size: 5 responders x 17 raters x 88 scripted questions (30 + 29 + 29 over 3 cases) =
7,480 scores per sentence-level metric; each encounter-level metric has 5 x 17 x 3 = 255.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, model_validator
from scipy.stats import norm

from synthdocqa.ir.rng import Rng

from .schema import RATING_COLUMNS, MetricSpec, Taxonomy

_TOPICS = {
    "chief_complaint": ("what brings you in today", "I've had this pain in my chest for two days."),
    "history_of_present_illness": ("how the pain started", "It started suddenly while I was climbing stairs."),
    "past_medical_history": ("any illnesses you had before", "I have high blood pressure, diagnosed five years ago."),
    "medications": ("the medicines you take", "Just ramipril, five milligrams every morning."),
    "allergies": ("allergies to medicines", "Penicillin gives me a rash."),
    "family_history": ("illnesses in your family", "My father had a heart attack at fifty-five."),
    "social_history": ("smoking and alcohol", "I smoke about ten cigarettes a day, and drink on weekends."),
    "sexual_history": ("your sexual health", "I'm married, no concerns there."),
    "review_of_systems": ("other symptoms like fever or cough", "No fever, maybe a little short of breath."),
    "ideas_concerns_expectations": ("what worries you most", "I'm scared it's my heart, like my dad."),
    "other": ("anything else you'd like to tell me", "No, I think that's everything."),
}
_FORMS = {
    "open": "Can you tell me about {t}?",
    "focused": "What exactly about {t} should I know?",
    "closed": "Is there anything about {t}, yes or no?",
}


class SimulationConfig(BaseModel):
    """Design and planted effects (latent scale); defaults reproduce the reference study's size."""

    model_config = ConfigDict(frozen=True)

    taxonomy: Taxonomy = Field(default_factory=Taxonomy)
    responders: tuple[str, ...] = ("human", "llm_a", "llm_b", "llm_c", "llm_d")
    utterances_per_case: tuple[int, ...] = (30, 29, 29)
    n_raters: int = Field(default=17, ge=2)
    metrics: tuple[str, ...] | None = Field(default=None, description="subset of taxonomy metrics; None = all")
    baseline: float = 3.6
    responder_effects: dict[str, dict[str, float]] | None = Field(
        default=None, description="responder -> metric -> latent effect vs reference; None = built-in pattern"
    )
    form_interaction: dict[str, float] = Field(
        default_factory=lambda: {"open": -0.25, "focused": 0.0, "closed": 0.1},
        description="latent effect added for every non-reference responder on questions of that form",
    )
    category_spread: float = Field(default=0.3, description="category effects spread evenly in [-s, s]")
    form_effects: dict[str, float] = Field(default_factory=lambda: {"open": -0.2, "focused": 0.0, "closed": 0.2})
    rater_sd: float = Field(default=0.4, ge=0)
    item_sd: float = Field(default=0.35, ge=0)
    response_sd: float = Field(default=0.3, ge=0, description="item x responder effect: the dialogue's (encounter level) or the answer's (sentence level) own quality; 0 = none")
    residual_sd: float = Field(default=0.7, gt=0)

    @model_validator(mode="after")
    def _check(self) -> SimulationConfig:
        ref = self.taxonomy.reference_responder
        if ref not in self.responders:
            raise ValueError(f"responders must include the reference {ref!r}")
        if len(set(self.responders)) != len(self.responders) or len(self.responders) < 2:
            raise ValueError("responders must be >= 2 distinct names")
        if not self.utterances_per_case or min(self.utterances_per_case) < 1:
            raise ValueError("utterances_per_case must list >= 1 utterance per case")
        known = set(self.taxonomy.metric_names)
        for m in self.metrics or ():
            if m not in known:
                raise ValueError(f"metrics: unknown metric {m!r}")
        return self

    @property
    def metric_specs(self) -> tuple[MetricSpec, ...]:
        names = self.metrics or self.taxonomy.metric_names
        return tuple(self.taxonomy.metric(n) for n in names)

    def effect(self, responder: str, metric: str) -> float:
        """Latent planted effect of ``responder`` vs the reference on ``metric``."""
        if responder == self.taxonomy.reference_responder:
            return 0.0
        if self.responder_effects is not None:
            return float(self.responder_effects.get(responder, {}).get(metric, 0.0))
        others = [r for r in self.responders if r != self.taxonomy.reference_responder]
        base = (0.0, -0.25, -0.5, -0.8, -0.15, -0.35)[others.index(responder) % 6]
        shift = (1.0, 0.7, 1.3)[self.taxonomy.metric_names.index(metric) % 3]
        return base * shift

    def n_scores(self) -> int:
        per = 0
        n_items = sum(self.utterances_per_case)
        for m in self.metric_specs:
            per += n_items if m.level == "sentence" else len(self.utterances_per_case)
        return per * self.n_raters * len(self.responders)


class SimulatedStudy(BaseModel):
    """Ratings + dialogues + planted contrasts (``truth``) of one simulated study."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ratings: pd.DataFrame
    dialogues: pd.DataFrame
    truth: pd.DataFrame = Field(description="metric, responder, stratifier, stratum, planted_latent, planted")


def _expected_likert(mu: np.ndarray, sd: float, lo: int, hi: int) -> np.ndarray:
    """E[clip(round(y), lo, hi)] for y ~ N(mu, sd^2)."""
    out = np.full(mu.shape, float(lo))
    for k in range(hi - lo):
        out += norm.sf((lo + 0.5 + k - mu) / sd)
    return out


def simulate_study(config: SimulationConfig, rng: Rng) -> SimulatedStudy:
    """Draw one study from ``config``; the same (config, rng seed/path) gives the same tables."""
    tax = config.taxonomy
    ref = tax.reference_responder
    cats = list(tax.history_categories)
    forms = list(tax.linguistic_forms)
    cases = [f"case{c + 1}" for c in range(len(config.utterances_per_case))]
    raters = [f"r{j + 1:02d}" for j in range(config.n_raters)]
    resp = list(config.responders)
    n_items = sum(config.utterances_per_case)

    # Item (scripted question) attributes: balanced over categories and forms, then shuffled.
    design = rng.fork("design")
    cat_of = np.array([cats[i % len(cats)] for i in range(n_items)], dtype=object)[design.fork("cat").gen.permutation(n_items)]
    form_of = np.array([forms[i % len(forms)] for i in range(n_items)], dtype=object)[design.fork("form").gen.permutation(n_items)]
    case_of = np.repeat(cases, config.utterances_per_case)
    turn_of = np.concatenate([np.arange(n) for n in config.utterances_per_case])
    utt_of = np.array([f"q{t + 1:03d}" for t in turn_of], dtype=object)
    cat_eff = dict(zip(cats, np.linspace(-config.category_spread, config.category_spread, len(cats)), strict=True))
    item_fixed = np.array([cat_eff[c] + config.form_effects.get(f, 0.0) for c, f in zip(cat_of, form_of, strict=True)])
    inter = np.array([[0.0 if p == ref else config.form_interaction.get(f, 0.0) for p in resp] for f in form_of])

    frames: list[pd.DataFrame] = []
    truth_rows: list[dict[str, object]] = []
    noise_sd = float(np.hypot(config.response_sd, config.residual_sd))
    for spec in config.metric_specs:
        g = rng.fork("metric", spec.name)
        eff = np.array([config.effect(p, spec.name) for p in resp])
        severity = g.fork("rater").gen.normal(0.0, config.rater_sd, len(raters))
        sentence = spec.level == "sentence"
        n_it = n_items if sentence else len(cases)
        item = g.fork("item").gen.normal(0.0, config.item_sd, n_it)
        response = g.fork("response").gen.normal(0.0, config.response_sd, (n_it, len(resp)))
        fixed_i = item_fixed if sentence else np.zeros(n_it)
        inter_i = inter if sentence else np.zeros((n_it, len(resp)))
        # mean[r, i, p] on the latent scale (without response effect and noise)
        mean = (
            config.baseline + eff[None, None, :] + inter_i[None, :, :] + fixed_i[None, :, None]
            + severity[:, None, None] + item[None, :, None]
        )
        latent = mean + response[None, :, :] + g.fork("noise").gen.normal(0.0, config.residual_sd, mean.shape)
        score = np.clip(np.rint(latent), spec.scale_min, spec.scale_max).astype(int)

        r_idx, i_idx, p_idx = np.meshgrid(np.arange(len(raters)), np.arange(n_it), np.arange(len(resp)), indexing="ij")
        r_idx, i_idx, p_idx = r_idx.ravel(), i_idx.ravel(), p_idx.ravel()
        resp_arr = np.asarray(resp, dtype=object)[p_idx]
        if sentence:
            case_col = case_of[i_idx]
            frame = pd.DataFrame({
                "case": case_col,
                "encounter": [f"{c}-{p}" for c, p in zip(case_col, resp_arr, strict=True)],
                "responder": resp_arr,
                "utterance_id": utt_of[i_idx],
                "turn": turn_of[i_idx],
                "history_category": cat_of[i_idx],
                "linguistic_form": form_of[i_idx],
            })
        else:
            case_col = np.asarray(cases, dtype=object)[i_idx]
            frame = pd.DataFrame({
                "case": case_col,
                "encounter": [f"{c}-{p}" for c, p in zip(case_col, resp_arr, strict=True)],
                "responder": resp_arr,
                "utterance_id": None,
                "turn": pd.array([pd.NA] * len(i_idx), dtype="Int64"),
                "history_category": None,
                "linguistic_form": None,
            })
        frame["rater"] = np.asarray(raters, dtype=object)[r_idx]
        frame["level"] = spec.level
        frame["metric"] = spec.name
        frame["score"] = score.ravel()
        frames.append(frame)

        expected = _expected_likert(mean, noise_sd, spec.scale_min, spec.scale_max)  # [r, i, p]
        ref_j = resp.index(ref)
        diff = expected - expected[:, :, [ref_j]]
        strata: list[tuple[str | None, str | None, np.ndarray]] = [(None, None, np.ones(n_it, dtype=bool))]
        if sentence:
            strata += [("history_category", c, cat_of == c) for c in cats]
            strata += [("linguistic_form", f, form_of == f) for f in forms]
        for j, p in enumerate(resp):
            if p == ref:
                continue
            for stratifier, stratum, mask in strata:
                if not mask.any():
                    continue
                lat = eff[j] + (float(inter_i[mask, j].mean()) if sentence else 0.0)
                truth_rows.append({
                    "metric": spec.name, "responder": p, "stratifier": stratifier, "stratum": stratum,
                    "planted_latent": float(lat), "planted": float(diff[:, mask, j].mean()),
                })

    ratings = pd.concat(frames, ignore_index=True)[list(RATING_COLUMNS)]
    return SimulatedStudy(
        ratings=ratings,
        dialogues=_dialogues(resp, case_of, utt_of, turn_of, cat_of, form_of),
        truth=pd.DataFrame(truth_rows),
    )


def make_unbalanced(ratings: pd.DataFrame, rng: Rng, missing: float = 0.05, rater: str | None = None,
                    case: str | None = None) -> pd.DataFrame:
    """The unbalanced design of real studies: one rater scores only one case (default: the last rater,
    the first case) and a ``missing`` share of the remaining scores is dropped at random."""
    rater = rater or sorted(ratings["rater"].unique())[-1]
    case = case or sorted(ratings["case"].unique())[0]
    kept = ratings[~((ratings["rater"] == rater) & (ratings["case"] != case))]
    drop = rng.fork("missing").gen.random(len(kept)) < missing
    return kept[~drop].reset_index(drop=True)


def _dialogues(resp, case_of, utt_of, turn_of, cat_of, form_of) -> pd.DataFrame:  # noqa: ANN001
    rows = []
    for p in resp:
        for c, u, t, cat, form in zip(case_of, utt_of, turn_of, cat_of, form_of, strict=True):
            topic, answer = _TOPICS.get(cat, ("that", "I'm not sure."))
            rows.append({
                "case": c, "encounter": f"{c}-{p}", "responder": p, "turn": int(t), "utterance_id": u,
                "history_category": cat, "linguistic_form": form,
                "question": _FORMS.get(form, "{t}?").format(t=topic), "response": answer,
            })
    return pd.DataFrame(rows)
