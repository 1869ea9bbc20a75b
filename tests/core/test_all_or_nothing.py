"""Every engine operation is all or nothing (issue 9, defects 4, 5 and 9).

A log write that fails inside ``append`` or ``prepare_request`` leaves the engine exactly as
it was (nothing applied, no counter moved) and the retry succeeds; a late tool result whose
call is already folded is refused, so the live engine never writes a state its own restore
refuses.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from pifold_core.engine import Engine, EngineError
from pifold_core.entries import Entry, TextBlock
from pifold_core.journal import Journal
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    chapters,
    durable_state,
    unchanged,
)


class _FailNext:
    """Makes the next log append of ``kind`` fail as a full disk would, once."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
        self.kind = kind
        self.armed = True
        real = Journal.append

        def append(journal: Journal, kind: str, body: dict[str, Any], durable: bool = False) -> int:
            if self.armed and kind == self.kind:
                self.armed = False
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(journal, kind, body, durable)

        monkeypatch.setattr(Journal, "append", append)


def _session() -> SessionBuilder:
    session = SessionBuilder()
    chapters(session, 4)
    session.user("what next?")
    session.assistant("Waiting.")
    return session


def _options() -> Any:
    return small_options(budget=200_000, min_fold_chars=2_000)


def test_a_failed_entry_write_applies_nothing_and_the_retry_matches_a_clean_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _session()
    clean = Engine.open(tmp_path / "clean", _options(), CharCounter())
    drive(clean, session.entries)
    engine = Engine.open(tmp_path / "faulty", _options(), CharCounter())
    failing = _FailNext(monkeypatch, "entry")
    appends_laying_marks = 0
    for entry in session.entries:
        if entry.kind == "assistant":
            engine.prepare_request()
        failing.armed = True
        with unchanged(engine), pytest.raises(OSError, match="No space left"):
            engine.append(entry)
        marks_before = engine._state.mark_count
        engine.append(entry)  # the retry succeeds
        appends_laying_marks += engine._state.mark_count > marks_before
    assert appends_laying_marks >= 3  # a failure while logging marks was tried too
    live, reference = durable_state(engine), durable_state(clean)
    for key, value in reference.items():
        assert live[key] == value, f"{key} differs from a run without failures"
    reopened = assert_reopens_identically(engine)
    # After the reopen a new mark continues the numbering, never reusing a pending id.
    assert reopened._state.mark_count == engine._state.mark_count == len(engine.view.marks)
    engine.close()
    clean.close()


def test_a_failed_request_write_is_not_counted_live_or_after_a_reopen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = Engine.open(tmp_path / "state", _options(), CharCounter())
    drive(engine, _session().entries)
    counted = engine.view.audit_counts.requests
    failing = _FailNext(monkeypatch, "request")
    with unchanged(engine), pytest.raises(OSError, match="No space left"):
        engine.prepare_request()
    assert not failing.armed
    request = engine.prepare_request()
    assert request.record.number == counted + 1
    assert engine.view.audit_counts.requests == counted + 1
    reopened = assert_reopens_identically(engine)
    assert reopened.view.audit_counts == engine.view.audit_counts
    engine.close()


def _late_session() -> tuple[SessionBuilder, Entry]:
    """A call whose result never came before the model moved on, then more chapters."""
    session = SessionBuilder()
    session.user("Start: look at the build")
    call = session.assistant("Running the slow build.", [("bash", {"cmd": "make all"})])
    session.assistant("The build is still running; moving on.")
    session.batch([2_500, 1_500], text="Reading the sources meanwhile.", seed=9)
    session.assistant("Read them.")
    chapters(session, 4, first=1)
    session.user("what next?")
    session.assistant("Waiting.")
    late = Entry(
        "late-result",
        "tool_result",
        session.entries[-1].timestamp_ms + 1,
        (TextBlock("make: done at last\n" * 50),),
        call_id=call.tool_calls[0].id,
        tool_name="bash",
    )
    return session, late


def test_a_late_result_of_a_folded_call_is_refused_live_and_the_session_reopens(
    tmp_path: Path,
) -> None:
    session, late = _late_session()
    engine = Engine.open(tmp_path / "state", _options(), CharCounter())
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    call_site = engine.view.transcript.call_site[str(late.call_id)]
    (holder,) = engine.view.forest.root_overlapping(call_site, call_site + 1)
    refusal = f"fold {holder.handle} already holds"
    with unchanged(engine), pytest.raises(EngineError, match=refusal):
        engine.append(late)
    assert_reopens_identically(engine)
    engine.close()


def test_a_late_result_of_a_call_not_yet_folded_is_kept_whole_through_a_commit(
    tmp_path: Path,
) -> None:
    session, late = _late_session()
    engine = Engine.open(tmp_path / "state", _options(), CharCounter())
    drive(engine, session.entries)
    call_site = engine.view.transcript.call_site[str(late.call_id)]
    assert any(m.start <= call_site < m.end for m in engine.view.marks.values())
    engine.append(late)  # the call is raw: the result joins the transcript
    engine.commit_now()  # a mark laid before the result must not separate the two
    engine.prepare_request()
    index = engine.view.transcript.index_of[late.id]
    for fold in engine.view.forest.folds.values():
        assert (fold.start <= call_site < fold.end) == (fold.start <= index < fold.end)
    assert_clean_audit(engine)
    assert_reopens_identically(engine)
    engine.close()
