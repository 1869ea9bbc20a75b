"""A real replayed session for the screen tests, replayed once per test session.

``replayed_state`` is the codex-soulpass trace (a real Codex CLI session) replayed at a
60,000-token budget: six commits, tool, span and consolidated folds, pending marks, clipped
results. It is shared, so never open it for writing: take ``session_folder`` (a private copy
per test), ``replayed_engine`` (an engine opened on that copy, closed after the test) or
``read_only_engine`` (the shared folder opened read-only). ``looked_only`` and
``check_clean`` check that a screen changed nothing and that the audit stayed clean.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.widgets import Static

from pifold_agent.bundled_traces import bundled_trace
from pifold_agent.replay import replay_trace
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions
from tests.core.engine_checks import full_state

REPLAYED_TRACE = bundled_trace("codex-soulpass")
"""The bundled trace the screens are tested on."""
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
        # The screens are drawn over the session as replayed without a cache lifetime (the
        # snapshots' commits); cold-cache commits are tested in tests/agent and tests/core.
        cache_lifetime_s=None,
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


@pytest.fixture
def read_only_engine(replayed_state: Path) -> Iterator[Engine]:
    """The shared replayed session opened read-only: it writes nothing, so no copy."""
    engine = Engine.open(replayed_state, read_only=True)
    try:
        yield engine
    finally:
        engine.close()


def shown_text(static: Static, width: int = 160) -> str:
    """The plain text a ``Static`` shows (its Rich or string content), for assertions."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    content = static.content
    console.print(content if not isinstance(content, str) else Text(content))
    return console.export_text()


def report_value(text: str, label: str) -> str:
    """The first figure of the report line that starts with ``label``."""
    line = next(line for line in text.splitlines() if line.strip().startswith(label))
    return line.strip().removeprefix(label).split()[0]


def looked_only(engine: Engine) -> dict[str, object]:
    """What no screen may change by being looked at: the whole state, the log's bytes,
    and every file of the state folder (with its size and modification time)."""
    state: dict[str, object] = dict(full_state(engine))
    folder = engine.state_dir
    state["files"] = {
        str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
    return state


def check_clean(engine: Engine, before: dict[str, object] | None = None) -> None:
    """The wire audit has no unattributed rewrite; with ``before``, nothing changed at all."""
    assert engine.view.audit_counts.unattributed == 0
    if before is not None:
        after = looked_only(engine)
        for key, value in before.items():
            assert after[key] == value, f"{key} changed"
