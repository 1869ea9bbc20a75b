"""Search over a session's folded history: upkeep at commit, verified snippets, rebuilds."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from pifold_core.engine import Engine
from pifold_core.search import INDEX_NAME, SearchResults, parse_query
from pifold_core.search.index import BuiltTo, SearchIndex
from pifold_core.search.rebuild import fingerprint_now, rows_for
from pifold_core.store import StoreObjectCorrupt
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, chapters, folded_engine, reopen
from tests.core.search.planted import SECRET, planted_engine


def _index_rows(engine: Engine) -> list[tuple[int, str]]:
    connection = sqlite3.connect(engine.state_dir / INDEX_NAME)
    try:
        return connection.execute("SELECT rowid, entry_id FROM entries ORDER BY rowid").fetchall()
    finally:
        connection.close()


def _summary(results: SearchResults) -> list[tuple[str | None, str, str]]:
    return [(hit.fold, hit.entry, hit.snippet) for hit in results.hits]


def test_a_folded_value_is_found_with_its_innermost_fold(tmp_path: Path) -> None:
    engine, session = planted_engine(tmp_path)
    results = engine.search(parse_query(SECRET))
    assert results.rebuilt is None  # the commit kept the index up: nothing to rebuild
    assert results.total == 1
    hit = results.hits[0]
    index = engine.view.transcript.index_of[hit.entry]
    assert session.entries[index].text.endswith("y\n" * 200)
    assert hit.fold == engine.view.forest.chain_at(index)[-1].handle
    assert (hit.role, hit.tool) == ("tool_result", "read")
    assert SECRET in hit.snippet and len(hit.snippet) <= 300
    assert engine.peek(hit.fold).data.find(SECRET.encode()) >= 0
    assert_clean_audit(engine)
    engine.close()


def test_the_index_holds_no_text_and_snippets_come_from_verified_bytes(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    connection = sqlite3.connect(engine.state_dir / INDEX_NAME)
    assert connection.execute("SELECT count(*) FROM body WHERE text IS NOT NULL").fetchone() == (0,)
    connection.close()
    hit = engine.search(parse_query(SECRET)).hits[0]
    span = engine._state.journal.entry_spans[hit.entry]
    with open(engine._state.journal.path, "r+b") as log:
        log.seek(span.offset + span.length - 40)
        log.write(b"#")  # one byte of the entry's line changes under the live engine
    digest = engine.view.transcript.entries.facts_of(
        engine.view.transcript.index_of[hit.entry]
    ).digest
    with pytest.raises(StoreObjectCorrupt, match=digest):
        engine.search(parse_query(SECRET))
    engine.close()


def test_every_folded_entry_is_indexed_once_at_each_commit(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    covered = sorted(
        {i for root in engine.view.forest.roots() for i in range(root.start, root.end)}
    )
    assert [row[0] for row in _index_rows(engine)] == covered
    assert [row[1] for row in _index_rows(engine)] == [
        engine.view.transcript.id_of(i) for i in covered
    ]
    engine.close()


def test_filters_paging_and_any_term(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    assert engine.search(parse_query(SECRET, tool="bash")).total == 0
    assert engine.search(parse_query(SECRET, tool="read")).total == 1
    assert engine.search(parse_query(SECRET, path="deploy.toml")).total == 1
    assert engine.search(parse_query(SECRET, path="other.toml")).total == 0
    everything = engine.search(parse_query("alpha", limit=50))
    assert everything.total > 3
    pages = [engine.search(parse_query("alpha", limit=2, offset=n)).hits for n in (0, 2)]
    assert [hit.entry for page in pages for hit in page] == [
        hit.entry for hit in everything.hits[:4]
    ]
    both = engine.search(parse_query(f"{SECRET} nonexistentword"))
    assert both.any_term and both.total == 1
    phrase = engine.search(parse_query(f'"deploy_key = {SECRET}"'))
    assert phrase.total == 1 and not phrase.any_term
    assert engine.search(parse_query('"KESTREL ZEPHYR"')).total == 0  # order matters in a phrase
    engine.close()


def test_regex_mode_finds_an_exact_pattern(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    results = engine.search(parse_query(r"ZEPHYR-\d{4}-[A-Z]+", regex=True))
    assert results.total == 1 and results.scanned is not None and results.unscanned == 0
    assert SECRET in results.hits[0].snippet
    engine.close()


def test_a_missing_index_is_rebuilt_and_says_so(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    fresh = _summary(engine.search(parse_query("alpha", limit=20)))
    engine = reopen(engine)
    (engine.state_dir / INDEX_NAME).unlink()
    results = engine.search(parse_query("alpha", limit=20))
    assert results.rebuilt == "search index rebuilt: it was missing"
    assert _summary(results) == fresh
    assert engine.search(parse_query("alpha")).rebuilt is None  # once
    engine.close()


def test_a_damaged_index_is_rebuilt_and_says_so(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    fresh = _summary(engine.search(parse_query(SECRET)))
    engine = reopen(engine)
    (engine.state_dir / INDEX_NAME).write_bytes(b"not a database" * 100)
    results = engine.search(parse_query(SECRET))
    assert results.rebuilt is not None and "damaged" in results.rebuilt
    assert _summary(results) == fresh
    engine.close()


def test_a_stale_index_is_rebuilt_not_patched(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 4)
    engine = Engine.open(tmp_path / "state", small_options(budget=200_000), CharCounter())
    drive(engine, session.entries)
    engine.commit_now()
    engine = reopen(engine)  # closed, the index is one file again
    index = engine.state_dir / INDEX_NAME
    shutil.copy(index, tmp_path / "old.sqlite3")
    chapters(session, 3, first=4)
    session.user("more?")
    session.assistant("Waiting.")
    drive(engine, session.entries[len(engine.view.transcript) :])
    engine.commit_now()
    assert engine.view.commit_count == 2
    fresh = _summary(engine.search(parse_query("alpha", limit=50)))
    engine = reopen(engine)
    shutil.copy(tmp_path / "old.sqlite3", index)  # an index left behind at commit 1
    results = engine.search(parse_query("alpha", limit=50))
    assert results.rebuilt == (
        "search index rebuilt: it was built to commit 1 and the session is at commit 2"
    )
    assert _summary(results) == fresh
    engine.close()


def test_a_read_only_session_rebuilds_in_memory(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    engine.close()
    (engine.state_dir / INDEX_NAME).unlink()
    viewer = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    results = viewer.search(parse_query(SECRET))
    assert results.total == 1 and results.rebuilt is not None
    assert "in memory" in results.rebuilt
    assert not (engine.state_dir / INDEX_NAME).exists()
    assert viewer.search(parse_query(SECRET)).rebuilt is None
    viewer.close()


def test_a_session_without_commits_finds_nothing(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(), CharCounter())
    results = engine.search(parse_query("anything"))
    assert (results.total, results.hits, results.rebuilt) == (0, (), None)
    assert not (engine.state_dir / INDEX_NAME).exists()
    engine.close()


def test_an_entry_indexed_twice_is_refused_whole(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    index = SearchIndex(engine.state_dir / INDEX_NAME)
    (row,) = rows_for(engine.view.transcript, [2], engine._state.evidence)
    before = index.row_count()
    with pytest.raises(sqlite3.IntegrityError):
        index.add([row], BuiltTo(engine.view.commit_count + 1, "x"), len(engine.view.transcript))
    assert index.row_count() == before
    assert index.built_to() == BuiltTo(
        engine.view.commit_count, fingerprint_now(engine.view.forest)
    )
    index.close()
    engine.close()


def test_a_result_kept_as_evidence_is_searched_whole(tmp_path: Path) -> None:
    session = SessionBuilder()
    session.user("Dump the table")
    call = session.assistant("Dumping.", [("bash", {"cmd": "dump"})])
    middle = "row\n" * 4_000 + f"checksum {SECRET} ok\n" + "row\n" * 4_000
    session.result(call.tool_calls[0], middle)
    session.assistant("Dumped.")
    chapters(session, 3, first=1)
    session.user("what next?")
    session.assistant("Waiting.")
    options = small_options(budget=200_000, evidence_threshold_bytes=4_096)
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    drive(engine, session.entries)
    kept = engine.view.transcript.entries[2]
    assert SECRET not in kept.text  # the window's preview leaves the middle out
    engine.commit_now()
    (hit,) = engine.search(parse_query(SECRET)).hits
    assert hit.entry == kept.id and SECRET in hit.snippet
    assert hit.peek_id is not None and hit.peek_id.startswith("evidence-")
    assert hit.byte_offset is not None
    peeked = engine.peek(hit.peek_id, hit.byte_offset, 200).data
    assert peeked.startswith(SECRET.encode())
    engine.close()
