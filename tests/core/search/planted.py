"""A folded session with one planted value: what the search tests look for."""

from __future__ import annotations

from pathlib import Path

from pifold_core.engine import Engine
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import chapters

SECRET = "ZEPHYR-4471-KESTREL"


def planted_engine(path: Path) -> tuple[Engine, SessionBuilder]:
    """Chapters with a planted value in an early tool result, all folded by one commit."""
    session = SessionBuilder()
    session.user("Find the deploy key in config/deploy.toml")
    call = session.assistant("Reading it.", [("read", {"path": "config/deploy.toml"})])
    session.result(call.tool_calls[0], "x = 1\n" * 200 + f"deploy_key = {SECRET}\n" + "y\n" * 200)
    session.assistant("Found it.")
    chapters(session, 4, first=1)
    session.user("what next?")
    session.assistant("Waiting.")
    engine = Engine.open(path / "state", small_options(budget=200_000), CharCounter())
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    return engine, session


def fold_more(engine: Engine, session: SessionBuilder, first: int, ask: str) -> None:
    """Three more chapters from chapter ``first``, an ``ask`` and a short answer, driven into
    ``engine`` and committed: a later commit's upkeep over a session already indexed."""
    chapters(session, 3, first=first)
    session.user(ask)
    session.assistant("Waiting.")
    drive(engine, session.entries[len(engine.view.transcript) :])
    engine.commit_now()
