"""Every arm on every shared trace, run once per test session and shared by the modules that
assert on them (``test_real_traces``, ``test_verdict``): the real traces cost one run of each
arm, however many tests read the figures."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from pifold_agent.bundled_traces import bundled_traces
from pifold_bench.calibration import ModelCheck
from pifold_bench.figures import ArmFigures, arm_figures
from pifold_bench.prepare import ARM_NAMES, BenchSettings, PreparedTrace
from pifold_bench.run import ArmRun, bench_trace, check_model
from pifold_core.tokens import TiktokenCounter

TRACES = bundled_traces()
BUDGET = 100_000
COUNTER = TiktokenCounter()

every_trace = pytest.mark.parametrize("trace", TRACES, ids=[path.parent.name for path in TRACES])


@cache
def benched_runs(trace: Path) -> tuple[PreparedTrace, dict[str, ArmRun], ModelCheck | None]:
    """Every arm over ``trace`` at :data:`BUDGET` (default settings), and the model check."""
    prepared, runs = bench_trace(trace, BenchSettings(budget=BUDGET), COUNTER)
    assert list(runs) == list(ARM_NAMES)
    return prepared, runs, check_model(prepared, COUNTER)


def benched(trace: Path) -> tuple[PreparedTrace, dict[str, ArmFigures], ModelCheck | None]:
    """:func:`benched_runs` as figures per arm."""
    prepared, runs, check = benched_runs(trace)
    figures = {name: arm_figures(run, BUDGET, len(prepared.values)) for name, run in runs.items()}
    return prepared, figures, check
