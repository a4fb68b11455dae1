"""Small simulated studies shared by the OSCE tests (module-scoped: simulation is cheap, fits are not)."""

from __future__ import annotations

import pytest

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.osce.simulate import SimulationConfig, simulate_study

SMALL = SimulationConfig(utterances_per_case=(6, 6, 5), n_raters=5)


@pytest.fixture(scope="session")
def small_study():
    return simulate_study(SMALL, Rng(7))
