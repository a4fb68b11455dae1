"""The project's deployments: what ``synthdocqa serve`` serves and ``prefect.yaml`` declares.

One server can hold both: ``prefect deploy --all`` creates ``<flow>/<name>`` (run by a work pool's worker,
with prefect.yaml's pull steps) and ``synthdocqa serve`` creates ``<flow>/<name>-served`` (run by the serving
process). With one name, each would replace the other's deployment, and a run of the replaced one would start
in the wrong place (a worker without the pull steps: ``FileNotFoundError: .../None``)."""

from __future__ import annotations

from dataclasses import dataclass, field

EVALUATION_CRON = "0 3 * * *"  # nightly evaluation batch, 03:00 UTC
SERVED_SUFFIX = "-served"
"""What ``synthdocqa serve`` adds to a deployment's name, so it never replaces prefect.yaml's."""


@dataclass(frozen=True)
class DeploymentSpec:
    flow: str
    name: str
    entrypoint: str
    parameters: dict = field(default_factory=dict)
    cron: str | None = None
    description: str = ""

    @property
    def served_name(self) -> str:
        """The name ``synthdocqa serve`` gives it (``default-served``)."""
        return self.name + SERVED_SUFFIX


DEPLOYMENTS: tuple[DeploymentSpec, ...] = (
    DeploymentSpec("generate-corpus", "default", "synthdocqa.flows.generate:generate_corpus_flow",
                   description="Generate (or resume) a corpus from a seed: one task per document."),
    DeploymentSpec("build-layout-library", "default", "synthdocqa.flows.layout_flows:build_layout_library_flow",
                   description="Write the 10,000-layout library with thumbnails."),
    DeploymentSpec("train-layout-clip", "default", "synthdocqa.flows.layout_flows:train_layout_clip_flow",
                   description="Train the layout-CLIP on a built library."),
    DeploymentSpec("verify-corpus", "default", "synthdocqa.flows.corpus_flows:verify_corpus_flow",
                   description="Re-check hashes, evidence boxes and derivations of a corpus."),
    DeploymentSpec("reproduce-corpus", "default", "synthdocqa.flows.corpus_flows:reproduce_corpus_flow",
                   description="Regenerate a corpus's documents from its seed and compare bytes."),
    DeploymentSpec("evaluation-batch", "nightly", "synthdocqa.flows.evaluation:evaluation_batch_flow",
                   parameters={"profile": "demo", "seed": 0, "judges": ["hallucination"]}, cron=EVALUATION_CRON,
                   description="Nightly: reuse or regenerate the corpus, run the judge flows, write a dated report."),
    DeploymentSpec("label-hallucinations", "default", "synthdocqa.flows.hallucination_flow:label_hallucinations",
                   description="Hallucination-criterion labeling of answers (faithfulness vs factual correctness)."),
    DeploymentSpec("osce-analysis", "default", "synthdocqa.flows.osce_flow:osce_analysis",
                   description="VSP/OSCE rating analysis with stratified mixed-effects models."),
    DeploymentSpec("osce-study", "default", "synthdocqa.flows.osce_study:osce_study",
                   description="VSP study: the virtual patients answer the cases, then one blinded packet per rater."),
    DeploymentSpec("osce-collect-analyze", "default", "synthdocqa.flows.osce_study:osce_collect_analyze",
                   description="Filled rating packets back, unblinded, into the mixed-model analysis and report."),
)


def load_flow(entrypoint: str):
    """The flow an entrypoint names: ``module:function``, a module path (not a file), so the same entrypoint
    works in the checkout and from the installed wheel."""
    import importlib

    module, attr = entrypoint.split(":")
    return getattr(importlib.import_module(module), attr)


def to_deployments(only: list[str] | None = None):
    out = []
    for d in DEPLOYMENTS:
        if only and d.flow not in only:
            continue
        fl = load_flow(d.entrypoint)
        kwargs = {"name": d.served_name, "parameters": d.parameters, "description": d.description}
        if d.cron:
            kwargs["cron"] = d.cron
        out.append(fl.to_deployment(**kwargs))
    return out


def serve_all(only: list[str] | None = None, limit: int | None = None) -> None:
    """Serve the deployments against the configured Prefect API (blocks until interrupted)."""
    from prefect import serve

    serve(*to_deployments(only), limit=limit)
