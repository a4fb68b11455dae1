"""synthdocqa flows: Prefect flows, tasks, deployments and the CLI (the only package importing prefect)."""

import os

# Quiet, patient Prefect defaults for this project's processes; the user's environment wins.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
