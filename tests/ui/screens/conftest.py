"""A real replayed session for the screen tests, replayed once per test session.

``replayed_state`` is the codex-soulpass trace (a real Codex CLI session) replayed at a
60,000-token budget: six commits, tool, span and consolidated folds, pending marks, clipped
results. It is shared, so never open it for writing: take ``session_folder`` (a private copy
per test) or ``replayed_engine`` (an engine opened on that copy, closed after the test).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pifold_agent.replay import replay_trace
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions

TRACES = Path(__file__).resolve().parents[4] / "shared" / "traces"
REPLAYED_TRACE = TRACES / "codex-soulpass" / "codex-session.jsonl"
"""The shared trace the screens are tested on."""
REPLAYED_BUDGET = 60_000
"""The serving budget it is replayed at: small enough for several commits."""


@pytest.fixture(scope="session")
def replayed_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The state folder of the replayed session (read it, never write it)."""
    state = tmp_path_factory.mktemp("replayed") / "state"
    report = replay_trace(
        REPLAYED_TRACE,
        REPLAYED_BUDGET,
        state,
        options=EngineOptions(budget=REPLAYED_BUDGET),
    )
    assert report.unattributed == 0 and report.failed_folds == 0
    assert report.commits > 0 and report.marks_pending > 0
    return state


@pytest.fixture
def session_folder(replayed_state: Path, tmp_path: Path) -> Path:
    """A private copy of the replayed session's state folder, free to change."""
    copy = tmp_path / "state"
    shutil.copytree(replayed_state, copy)
    return copy


@pytest.fixture
def replayed_engine(session_folder: Path) -> Iterator[Engine]:
    """An engine opened on a private copy of the replayed session."""
    engine = Engine.open(session_folder)
    try:
        yield engine
    finally:
        engine.close()
