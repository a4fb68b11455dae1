"""``python -m synthdocqa ...`` is the ``synthdocqa`` command."""

from synthdocqa.flows.cli import run

run()
