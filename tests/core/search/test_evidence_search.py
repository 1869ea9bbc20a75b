"""A result kept as evidence is searchable from the moment it is appended (issue 21): the
window shows only its preview, so what the preview leaves out must be found before any
commit hides the entry, and an index that missed it is completed, or rebuilt and said so."""

from __future__ import annotations

import shutil
from pathlib import Path

from pifold_core.engine import Engine
from pifold_core.search import INDEX_NAME, SearchResults, parse_query
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, assert_lossless, chapters, reopen
from tests.core.search.planted import SECRET, fold_more

THRESHOLD = 4_096
"""Evidence threshold of these sessions: the dump below is kept as an artifact."""


def _dump(session: SessionBuilder) -> None:
    """A tool result far over the threshold, the planted value in its middle."""
    session.user("Dump the table")
    call = session.assistant("Dumping.", [("bash", {"cmd": "dump"})])
    session.result(
        call.tool_calls[0], "row\n" * 4_000 + f"checksum {SECRET} ok\n" + "row\n" * 4_000
    )
    session.assistant("Dumped.")


def _engine(path: Path) -> Engine:
    options = small_options(budget=400_000, evidence_threshold_bytes=THRESHOLD)
    return Engine.open(path / "state", options, CharCounter())


def _found_in_evidence(engine: Engine, results: SearchResults) -> None:
    """One hit, the dump: no fold holds it, the snippet shows the value, and a peek of the
    hit's evidence id at its offset reads the value's exact bytes."""
    (hit,) = results.hits
    kept = engine.view.transcript.entries[engine.view.transcript.index_of[hit.entry]]
    assert SECRET not in kept.text  # the window's preview leaves the middle out
    assert hit.fold is None and SECRET in hit.snippet
    assert hit.peek_id is not None and hit.peek_id.startswith("evidence-")
    assert hit.byte_offset is not None
    assert engine.peek(hit.peek_id, hit.byte_offset, 200).data.startswith(SECRET.encode())


def test_evidence_no_commit_hid_is_found_before_the_first_commit(tmp_path: Path) -> None:
    session = SessionBuilder()
    _dump(session)
    engine = _engine(tmp_path)
    drive(engine, session.entries)
    assert engine.view.commit_count == 0
    results = engine.search(parse_query(SECRET))
    assert results.rebuilt is None  # indexed when it was appended
    _found_in_evidence(engine, results)
    assert_clean_audit(engine)
    engine.close()


def test_evidence_appended_after_a_commit_is_found_before_it_is_folded(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 3)
    engine = _engine(tmp_path)
    drive(engine, session.entries)
    engine.commit_now()
    _dump(session)
    drive(engine, session.entries[len(engine.view.transcript) :])
    results = engine.search(parse_query(f'"{SECRET}"'))
    assert results.rebuilt is None
    _found_in_evidence(engine, results)
    # Folded later, the entry is not indexed again (a second row would refuse the upkeep).
    fold_more(engine, session, first=3, ask="what next?")
    assert engine._session_search().upkeep_problem is None
    (hit,) = engine.search(parse_query(SECRET)).hits
    assert hit.fold is not None and hit.peek_id is not None
    assert hit.peek_id.startswith("evidence-")
    assert_clean_audit(engine)
    assert_lossless(engine)
    engine.close()


def test_an_index_that_missed_evidence_is_completed_or_rebuilt_and_said(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 3)
    engine = _engine(tmp_path)
    drive(engine, session.entries)
    engine.commit_now()
    engine = reopen(engine)  # closed, the index is one file again
    index = engine.state_dir / INDEX_NAME
    shutil.copy(index, tmp_path / "before.sqlite3")
    _dump(session)
    drive(engine, session.entries[len(engine.view.transcript) :])
    engine.close()
    # As a kill between the append's log record and its index write leaves it.
    shutil.copy(tmp_path / "before.sqlite3", index)
    viewer = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    results = viewer.search(parse_query(SECRET))
    assert results.rebuilt is not None and "in memory" in results.rebuilt
    assert "lacks 1 of the results kept as evidence since entry" in results.rebuilt
    _found_in_evidence(viewer, results)
    viewer.close()
    writer = reopen(engine)
    results = writer.search(parse_query(SECRET))
    assert results.rebuilt is None  # appended entries never change: the upkeep finishes
    _found_in_evidence(writer, results)
    assert_clean_audit(writer)
    writer.close()
