"""Hypothesis profiles: CI replays a fixed set of examples (a landing never depends on a lucky draw);
local runs keep exploring new random inputs and remember failures in .hypothesis/."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
