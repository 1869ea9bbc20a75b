"""What every test that drives a session checks at its end, written once.

The engine-only checks (zero unattributed rewrites, lossless folds, a reopen rebuilding the
same state) are :mod:`tests.core.engine_checks`; what is added here is the agreement between
the engine and the session's own record, and the app's reopen with the app's tokenizer.
Each test folder's ``assert_session_consistent`` is a thin adapter over these.
"""

from __future__ import annotations

from collections.abc import Iterable

from pifold_agent.loop.messages import in_context
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.tokens import TiktokenCounter
from tests.core.engine_checks import assert_reopens_identically


def assert_engine_holds(engine: Engine, recorded: Iterable[Entry], may_lag: bool = False) -> None:
    """The engine's log holds exactly the session's in-context entries, in order (a first
    part of them when ``may_lag``: ``--no-fold`` runs write the session file alone, and the
    next folding run catches the log up)."""
    logged = [
        entry.id for entry in engine.view.transcript.entries if entry.extra.get("pifold") is None
    ]
    session = [entry.id for entry in recorded if in_context(entry)]
    if may_lag:
        session = session[: len(logged)]
    assert logged == session, f"the log holds {logged}, the session {session}"


def assert_app_session_consistent(engine: Engine) -> None:
    """The app's live engine: the engine checks, with a read-only reopen beside it that
    counts with the app's own tokenizer (so the token figures compare)."""
    assert_reopens_identically(engine, TiktokenCounter())


__all__ = ["assert_app_session_consistent", "assert_engine_holds"]
