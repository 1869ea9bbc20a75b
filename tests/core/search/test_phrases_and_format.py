"""Phrases checked against verified text (the index keeps no positions), and an index of the
old format rebuilt, and said so."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pifold_core.engine import Engine
from pifold_core.search import INDEX_NAME, parse_query
from pifold_core.search import searcher as searcher_module
from pifold_core.search.index import SCHEMA_VERSION, BuiltTo, IndexRow
from pifold_core.search.rebuild import fingerprint_now, folded_indices, rows_for
from pifold_core.tool.render_search import render_search
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, chapters, reopen
from tests.core.search.planted import fold_more

_OLD_SCHEMA = (
    "CREATE VIRTUAL TABLE body USING fts5(text, content='', "
    "tokenize='unicode61 remove_diacritics 2')",
    "CREATE TABLE entries (rowid INTEGER PRIMARY KEY, entry_id TEXT NOT NULL, "
    "role TEXT NOT NULL, tools TEXT NOT NULL, paths TEXT NOT NULL)",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
"""Format 1, as the first search index wrote it: word positions kept (``detail=full``).
Format 2 is the same tables with ``detail=column`` (and no evidence indexed at append)."""

_OLD_LAYOUTS = {"1": "", "2": ", detail=column"}
"""What each old format adds to the word table's declaration."""


def _scattered_engine(path: Path) -> tuple[Engine, SessionBuilder]:
    """Folded results: two hold ``parser buffer`` together (once across a line break),
    three hold both words apart (and ``handler-4242`` once, the two apart once)."""
    session = SessionBuilder()
    texts = [
        "the parser buffer overflowed at handler-4242\n" + "pad\n" * 300,
        "buffer full; the parser stopped\n" + "pad\n" * 300,
        "parser: ok\nbuffer: ok\nhandler 7 of 4242\n" + "pad\n" * 300,
        "a buffer and a parser\n" + "pad\n" * 300,
        "pad\n" * 300 + "the parser\nbuffer again\n",
    ]
    for number, text in enumerate(texts):
        session.user(f"step {number}")
        call = session.assistant("Reading.", [("read", {"path": f"src/p{number}.py"})])
        session.result(call.tool_calls[0], text)
        session.assistant("Read.")
    # A phrase across two blocks: the text, then a call (its name, then its arguments).
    call = session.assistant("Now the handler", [("grep", {"pattern": "4242 mode"})])
    session.result(call.tool_calls[0], "none\n" + "pad\n" * 300)
    chapters(session, 3, first=1)
    session.user("what next?")
    session.assistant("Waiting.")
    engine = Engine.open(path / "state", small_options(budget=200_000), CharCounter())
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    return engine, session


def test_a_phrase_hit_is_exact_though_the_index_keeps_no_positions(tmp_path: Path) -> None:
    engine, _ = _scattered_engine(tmp_path)
    words = engine.search(parse_query("parser buffer"))
    assert words.total == 5 and words.checked is None  # plain words: the index alone answers
    phrase = engine.search(parse_query('"parser buffer"'))
    assert (phrase.total, phrase.checked, phrase.unchecked) == (2, 5, 0)
    assert {hit.snippet.split("buffer")[1][:9] for hit in phrase.hits} == {" overflow", " again"}
    assert engine.search(parse_query('"buffer parser"')).total == 0  # order counts
    compound = engine.search(parse_query("handler_4242"))
    assert compound.total == 1 and "handler-4242" in compound.hits[0].snippet
    assert engine.search(parse_query('"handler 4242" parser')).total == 1
    across = engine.search(parse_query('"handler grep" "pattern 4242 mode"'))
    assert (across.total, across.any_term, across.hits[0].role) == (1, False, "assistant")
    assert_clean_audit(engine)
    engine.close()


def test_past_the_page_a_phrase_is_counted_by_its_log_line(tmp_path: Path) -> None:
    engine, _ = _scattered_engine(tmp_path)
    whole = engine.search(parse_query('"parser buffer"'))
    first = engine.search(parse_query('"parser buffer"', limit=1))
    second = engine.search(parse_query('"parser buffer"', limit=1, offset=1))
    assert first.total == second.total == whole.total == 2
    assert [first.hits[0].entry, second.hits[0].entry] == [hit.entry for hit in whole.hits]
    engine.close()


def test_a_phrase_without_an_exact_hit_falls_back_to_any_term(tmp_path: Path) -> None:
    engine, _ = _scattered_engine(tmp_path)
    results = engine.search(parse_query('"buffer parser" overflowed'))
    assert results.any_term and results.total == 1
    assert "overflowed" in results.hits[0].snippet
    engine.close()


def test_the_check_stops_at_its_bound_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = _scattered_engine(tmp_path)
    monkeypatch.setattr(searcher_module, "MAX_CHECKED", 2)
    query = parse_query('"parser buffer"')
    results = engine.search(query)
    assert (results.checked, results.unchecked) == (2, 3)
    assert results.to_json()["unchecked"] == 3
    shown = render_search(query, results)
    assert "the best 2 entries holding its words were checked, 3 more were not" in shown
    engine.close()


def _write_old_format(engine: Engine, version: str = "1") -> None:
    """The session's index as format ``version`` wrote it, complete and current."""
    state = engine._state
    rows: list[IndexRow] = rows_for(state.transcript, folded_indices(state.forest), state.evidence)
    built = BuiltTo(state.commit_count, fingerprint_now(state.forest))
    path = engine.state_dir / INDEX_NAME
    path.unlink()
    connection = sqlite3.connect(path)
    for statement in _OLD_SCHEMA:
        connection.execute(statement.replace("2')", f"2'{_OLD_LAYOUTS[version]})"))
    connection.executemany(
        "INSERT INTO entries VALUES (?, ?, ?, ?, ?)",
        [(row.index, row.entry_id, row.fields.role, "", "") for row in rows],
    )
    connection.executemany(
        "INSERT INTO body (rowid, text) VALUES (?, ?)",
        [(row.index, row.fields.body) for row in rows],
    )
    connection.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [("schema", version), ("commits", str(built.commits)), ("fingerprint", built.fingerprint)],
    )
    connection.commit()
    connection.close()


def _declared_layout(engine: Engine) -> str:
    connection = sqlite3.connect(engine.state_dir / INDEX_NAME)
    try:
        return str(
            connection.execute("SELECT sql FROM sqlite_master WHERE name='body'").fetchone()[0]
        )
    finally:
        connection.close()


@pytest.mark.parametrize("version", sorted(_OLD_LAYOUTS))
def test_an_index_of_an_old_format_is_rebuilt_on_open_and_says_so(
    tmp_path: Path, version: str
) -> None:
    engine, _ = _scattered_engine(tmp_path)
    fresh = [(hit.entry, hit.snippet) for hit in engine.search(parse_query("parser")).hits]
    engine = reopen(engine)
    _write_old_format(engine, version)
    assert (version == "2") == ("detail=column" in _declared_layout(engine))
    results = engine.search(parse_query("parser"))
    assert results.rebuilt == (
        f"search index rebuilt: it was written in format {version}, and this version writes "
        f"format {SCHEMA_VERSION}"
    )
    assert [(hit.entry, hit.snippet) for hit in results.hits] == fresh
    assert "detail=none" in _declared_layout(engine)
    assert engine.search(parse_query("parser")).rebuilt is None  # once
    engine.close()


def test_a_commit_never_writes_into_an_index_of_the_old_format(tmp_path: Path) -> None:
    engine, session = _scattered_engine(tmp_path)
    _write_old_format(engine)
    engine = reopen(engine)
    fold_more(engine, session, first=7, ask="and now?")
    problem = engine._session_search().upkeep_problem
    assert problem is not None and "format 1" in problem
    assert "detail=none" not in _declared_layout(engine)  # left alone for the rebuild
    results = engine.search(parse_query("parser buffer"))
    assert results.rebuilt is not None and "format 1" in results.rebuilt
    assert results.total == 5
    engine.close()


def _merge_settings(engine: Engine) -> dict[str, int]:
    connection = sqlite3.connect(engine.state_dir / INDEX_NAME)
    try:
        held = dict(connection.execute("SELECT k, v FROM body_config").fetchall())
    finally:
        connection.close()
    return {key: held[key] for key in ("automerge", "crisismerge") if key in held}


def test_an_index_merging_16_at_a_time_is_kept_and_brought_to_64(tmp_path: Path) -> None:
    engine, session = _scattered_engine(tmp_path)
    fresh = [(hit.entry, hit.snippet) for hit in engine.search(parse_query("parser")).hits]
    engine.close()
    # As the first format-3 writer left it: automerge 16, FTS5's default crisis merge.
    connection = sqlite3.connect(engine.state_dir / INDEX_NAME)
    connection.execute("INSERT INTO body (body, rank) VALUES ('automerge', 16)")
    connection.execute("DELETE FROM body_config WHERE k = 'crisismerge'")
    connection.commit()
    connection.close()
    assert _merge_settings(engine) == {"automerge": 16}
    engine = reopen(engine)
    results = engine.search(parse_query("parser"))
    assert results.rebuilt is None  # the same rows: nothing to rebuild
    assert [(hit.entry, hit.snippet) for hit in results.hits] == fresh
    fold_more(engine, session, first=7, ask="and now?")
    assert engine._session_search().upkeep_problem is None
    assert _merge_settings(engine) == {"automerge": 64, "crisismerge": 128}
    assert engine.search(parse_query("parser buffer")).rebuilt is None
    engine.close()
