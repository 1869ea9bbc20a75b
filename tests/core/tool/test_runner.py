"""``run_tool`` end to end on a real engine: every action, every refusal (DESIGN §7, §12)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pifold_core.canonical import sha256_hex
from pifold_core.engine import Engine
from pifold_core.store import StoreObjectCorrupt, StoreObjectMissing
from pifold_core.tool import run_tool
from pifold_core.tool.runner import ToolResult
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, assert_lossless, chapters, full_state


def _chapters(session: SessionBuilder, count: int, first: int = 0) -> None:
    for number in range(first, first + count):
        session.chapter(
            f"Chapter {number}: look at src/x{number}.py", [[1500, 800], [1200]], seed=number
        )


def _pending(path: Path) -> Engine:
    """Four chapters with eight pending marks and no folds; the pin cap is 2,000 tokens."""
    session = SessionBuilder()
    _chapters(session, 4)
    session.user("what next?")
    session.assistant("Waiting.")
    engine = Engine.open(
        path / "pending", small_options(budget=10_000, min_fold_chars=2_000), CharCounter()
    )
    drive(engine, session.entries)
    assert len(engine.view.marks) == 8 and not engine.view.forest.folds
    return engine


def _folded(path: Path) -> Engine:
    """The same chapters folded by a commit (9 folds, 3 deep), then three more with marks."""
    session = SessionBuilder()
    _chapters(session, 4)
    session.user("what next?")
    session.assistant("Waiting.")
    engine = Engine.open(
        path / "folded", small_options(budget=200_000, min_fold_chars=2_000), CharCounter()
    )
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    later = SessionBuilder(prefix="f")
    _chapters(later, 3, first=10)
    later.user("more?")
    later.assistant("On it.")
    drive(engine, later.entries)
    assert len(engine.fold_rows()) == 9 and engine.view.marks
    return engine


def _ok(engine: Engine, arguments: object, call_id: str | None = None) -> ToolResult:
    result = run_tool(engine, arguments, call_id)
    assert not result.is_error, result.text
    assert not result.text.startswith("error:")
    # Whatever the action did, nothing was rewritten unattributed and every fold is whole.
    assert_clean_audit(engine)
    assert_lossless(engine)
    return result


def _root(engine: Engine) -> str:
    return engine.fold_rows()[0].handle


# -- happy paths -------------------------------------------------------------------------------


def test_status_summary_and_tree_move_nothing(tmp_path: Path) -> None:
    engine = _folded(tmp_path)
    before = full_state(engine)
    summary = _ok(engine, {"action": "status"})
    assert (summary.action, summary.moved_bytes) == ("status", False)
    assert "folds: 2 visible (1 consolidated, 1 span), 9 in all" in summary.text
    assert "marks: 6 pending" in summary.text and "mark-9 tool f00003..f00004" in summary.text
    assert "commits: 1; last #1 (command)" in summary.text
    assert _ok(engine, '{"action": "status"}').text == summary.text  # deterministic
    tree = _ok(engine, {"action": "status", "detail": "tree"}).text
    assert "fold tree: 9 folds in transcript order, page 1 of 1" in tree
    assert full_state(engine) == before


def test_status_tree_pages_through_every_fold(tmp_path: Path) -> None:
    engine = _folded(tmp_path)
    rows = engine.fold_rows()
    seen: list[str] = []
    for page in (1, 2, 3):
        text = _ok(
            engine, {"action": "status", "detail": "tree", "page": page, "page_size": 4}
        ).text
        assert f"page {page} of 3" in text
        assert ('"page":' + str(page + 1)) in text if page < 3 else "next page" not in text
        seen.extend(re.findall(r"^\s*(fold-[0-9a-f]+) ", text, re.MULTILINE))
    assert seen == [row.handle for row in rows]
    nested = [row for row in rows if row.depth == 2]
    assert nested and all(row.parent is not None and row.state == "hidden" for row in nested)
    assert (
        f"    {nested[0].handle} tool [hidden]"
        in _ok(engine, {"action": "status", "detail": "tree", "page_size": 200}).text
    )
    before = full_state(engine)
    refused = run_tool(engine, {"action": "status", "detail": "tree", "page": 4, "page_size": 4})
    assert refused.is_error and "argument 'page' is 4, past the last page (3)" in refused.text
    assert full_state(engine) == before


def test_peek_a_fold_slices_exactly_and_notes_the_ephemeral_copy(tmp_path: Path) -> None:
    engine = _folded(tmp_path)
    nested = engine.fold_rows()[2]  # a tool fold two levels down, inside collapsed folds
    source = engine._verbs.verified_source(engine._verbs.fold(nested.handle))
    digests = engine.view.projection.digests()
    pieces: list[str] = []
    offset: int | None = 0
    calls = 0
    while offset is not None:
        calls += 1
        arguments = {"action": "peek", "id": nested.handle, "offset": offset, "bytes": 1000}
        lines = _ok(engine, arguments, call_id=f"call_peek_{calls}").text.splitlines()
        assert lines[0].startswith(f"peek {nested.handle} (fold): bytes {offset:,} to ")
        assert lines[0].endswith(f"sha256 {sha256_hex(source)} (verified)")
        pieces.append(lines[1])  # canonical JSON has no raw newline: the body is one line
        following = re.search(r'"offset":(\d+)', lines[2])
        offset = int(following[1]) if lines[2].startswith("incomplete:") and following else None
    assert "".join(pieces).encode() == source
    assert engine.view.projection.digests() == digests  # peek never moves a byte
    assert engine._state.ephemeral == {f"call_peek_{n}": nested.handle for n in range(1, calls + 1)}
    assert engine._verbs.fold(nested.handle).handle not in engine.view.forest.expanded


def test_an_ephemeral_peek_result_is_withdrawn_by_the_next_commit(tmp_path: Path) -> None:
    engine = _folded(tmp_path)
    handle = _root(engine)
    turn = SessionBuilder(prefix="g")
    asked = turn.assistant("Peeking.", [("pi_fold_context", {"action": "peek", "id": handle})])
    engine.prepare_request()
    engine.append(asked)
    call = asked.tool_calls[0]
    result = _ok(engine, dict(call.arguments), call_id=call.id)
    copy = engine.append(turn.result(call, result.text))
    engine.prepare_request()
    engine.append(turn.assistant("Read it."))
    engine.prepare_request()
    index = engine.view.transcript.index_of[copy.id]
    assert index in engine.commit_now().withdrawn
    shown = engine.view.projection.items[engine.view.projection.item_index_at(index)].message
    assert shown["call_id"] == call.id  # the call keeps its result, now one line
    assert f"ephemeral copy of {handle} withdrawn" in str(shown["content"])


def test_peek_kept_or_without_a_call_id_is_not_withdrawn(tmp_path: Path) -> None:
    engine = _folded(tmp_path)
    kept = _ok(engine, {"action": "peek", "id": "e00003", "ephemeral": False}, call_id="c1")
    assert kept.text.endswith("kept: this copy stays in the window")
    no_call = _ok(engine, {"action": "peek", "id": "e00003"})
    assert no_call.text.endswith("kept: this copy stays in the window")
    assert engine._state.ephemeral == {}
    record = engine.view.transcript.entries[engine.view.transcript.index_of["e00003"]].record_bytes
    assert kept.text.splitlines()[1] == record.decode()


def test_peek_an_evidence_artifact(tmp_path: Path) -> None:
    session = SessionBuilder()
    session.user("read the big log")
    call = session.assistant("Reading.", [("read", {"path": "logs/big.log"})])
    original = session.result(call.tool_calls[0], "line of the big log\n" * 400)
    session.assistant("It is long.")
    options = small_options(budget=200_000, evidence_threshold_bytes=2_048)
    engine = Engine.open(tmp_path / "evidence", options, CharCounter())
    drive(engine, session.entries)
    kept = engine.view.transcript.entries[engine.view.transcript.index_of[original.id]]
    found = re.search(r"evidence-[0-9a-f]{64}", kept.text)
    assert found is not None
    text = _ok(engine, {"action": "peek", "id": found[0]}, call_id="c9").text
    assert text.splitlines()[0].startswith(f"peek {found[0]} (evidence): bytes 0 to ")
    assert text.split("\n", 1)[1].rsplit("\n", 1)[0] == original.record_bytes.decode()
    artifact = engine._state.evidence.path_of(found[0].removeprefix("evidence-"))
    artifact.chmod(0o644)
    artifact.unlink()
    with pytest.raises(StoreObjectMissing):  # a lost artifact is loud, never a quiet result
        run_tool(engine, {"action": "peek", "id": found[0]})


def test_brief_reboundary_and_unmark_are_free(tmp_path: Path) -> None:
    engine = _pending(tmp_path)
    digests = engine.view.projection.digests()
    brief = _ok(
        engine, {"action": "brief", "id": "mark-2", "text": "Read src/x0.py twice; no KeyError."}
    )
    assert "brief of mark-2 set (34 characters)" in brief.text and not brief.moved_bytes
    assert engine.view.marks["mark-2"].brief == "Read src/x0.py twice; no KeyError."
    assert "brief: Read src/x0.py twice" in _ok(engine, {"action": "status"}).text
    recut = _ok(
        engine, {"action": "reboundary", "id": "mark-2", "start": "e00001", "end": "e00013"}
    )
    assert "mark-2 now covers e00001..e00013 (13 entries, a span mark)" in recut.text
    assert (engine.view.marks["mark-2"].start, engine.view.marks["mark-2"].end) == (0, 13)
    gone = _ok(engine, {"action": "unmark", "id": "mark-3"})
    assert "mark-3 withdrawn (tool mark over 2 entries)" in gone.text
    assert "mark-3" not in engine.view.marks
    assert engine.view.projection.digests() == digests


def test_pin_and_unpin_raw_entries(tmp_path: Path) -> None:
    engine = _pending(tmp_path)
    digests = engine.view.projection.digests()
    pinned = _ok(engine, {"action": "pin", "ids": ["e00002", "e00003"]})
    assert "pinned, held raw now (nothing moved): e00002, e00003" in pinned.text
    assert "of 2,000 tokens allowed" in pinned.text
    assert "pinned entries: 2 (e00002, e00003)" in _ok(engine, {"action": "status"}).text
    released = _ok(engine, {"action": "unpin", "ids": ["e00003"]})
    assert "released (they may fold again; nothing moved): e00003" in released.text
    assert engine.view.pinned == {1}
    assert engine.view.projection.digests() == digests


def test_expand_rides_a_commit_that_lands_pending_marks_then_refold_is_staged(
    tmp_path: Path,
) -> None:
    engine = _folded(tmp_path)
    root = _root(engine)
    pending = sorted(engine.view.marks)
    result = _ok(engine, {"action": "expand", "id": root})
    assert (result.action, result.moved_bytes) == ("expand", True)
    assert f"expanded {root} in place, one level" in result.text
    assert f"as commit #2 (expand {root})" in result.text
    assert "pending marks landed in the same rewrite: mark-" in result.text
    assert root in engine.view.forest.expanded and not set(pending) & set(engine.view.marks)
    request = engine.prepare_request()
    assert request.record.classification == "attributed"
    assert request.record.causes == (f"commit 2 (expand {root})",)
    staged = _ok(engine, {"action": "refold", "id": root})
    assert (
        staged.text
        == f"{root} is staged to refold: it collapses at the next commit. Nothing moved now."
    )
    assert not staged.moved_bytes and root in engine.view.staged_refolds
    assert (
        f"{root} consolidated [expanded, refold staged]"
        in _ok(engine, {"action": "status", "detail": "tree"}).text
    )
    engine.commit_now()
    assert root not in engine.view.forest.expanded


def test_pin_inside_a_fold_is_staged_for_the_next_commit(tmp_path: Path) -> None:
    engine = _folded(tmp_path)
    digests = engine.view.projection.digests()
    result = _ok(engine, {"action": "pin", "ids": ["e00003"]})
    assert "staged: restored raw at the next commit: e00003" in result.text
    assert engine.view.projection.digests() == digests
    assert (
        "staged pins (shown raw at the next commit): e00003"
        in _ok(engine, {"action": "status"}).text
    )
    engine.commit_now()
    index = engine.view.transcript.index_of["e00003"]
    assert engine.view.forest.shows_raw(index)


# -- refusals ----------------------------------------------------------------------------------

Case = Callable[[Engine], object]

PENDING_REFUSALS: dict[str, tuple[Case, str]] = {
    "unknown action": (lambda e: {"action": "compact"}, "unknown action 'compact'; valid actions"),
    "not an object": (lambda e: "[1, 2]", "must be a JSON object"),
    "extra argument": (
        lambda e: {"action": "unmark", "id": "mark-1", "force": True},
        "'force' is not accepted",
    ),
    "unknown mark": (lambda e: {"action": "unmark", "id": "mark-99"}, "no pending mark mark-99"),
    "malformed mark": (
        lambda e: {"action": "brief", "id": "m1", "text": "Some text"},
        "mark id (mark-<n>)",
    ),
    "unknown entry": (lambda e: {"action": "peek", "id": "e99999"}, "no fold, entry or evidence"),
    "unknown fold": (
        lambda e: {"action": "expand", "id": "fold-000000000000"},
        "no fold fold-000000000000",
    ),
    "malformed fold": (lambda e: {"action": "refold", "id": "e00001"}, "must be a fold id"),
    "path id": (lambda e: {"action": "peek", "id": "../fold-log.jsonl"}, "an id is never a path"),
    "path in pins": (lambda e: {"action": "pin", "ids": ["store/sha256"]}, "an id is never a path"),
    "slice past end": (
        lambda e: {"action": "peek", "id": "e00001", "offset": 10_000},
        "offset 10000 is outside e00001",
    ),
    "bool offset": (lambda e: {"action": "peek", "id": "e00001", "offset": True}, "got a boolean"),
    "brief too long": (
        lambda e: {"action": "brief", "id": "mark-1", "text": "word " * 401},
        "the limit is 2000",
    ),
    "brief empty": (
        lambda e: {"action": "brief", "id": "mark-1", "text": "  \n "},
        "brief is empty",
    ),
    "pin over cap": (
        lambda e: {"action": "pin", "ids": [entry.id for entry in e.view.transcript.entries]},
        "over the pin cap of 2,000 (minTarget × budget)",
    ),
    "unpin unpinned": (lambda e: {"action": "unpin", "ids": ["e00001"]}, "not pinned: e00001"),
    "reboundary splits start": (
        lambda e: {"action": "reboundary", "id": "mark-2", "start": "e00003", "end": "e00006"},
        "would split call",
    ),
    "reboundary splits end": (
        lambda e: {"action": "reboundary", "id": "mark-2", "start": "e00001", "end": "e00003"},
        "would split a call from its result",
    ),
    "reboundary backwards": (
        lambda e: {"action": "reboundary", "id": "mark-2", "start": "e00006", "end": "e00001"},
        "comes before start",
    ),
    "reboundary fresh tail": (
        lambda e: {"action": "reboundary", "id": "mark-2", "start": "e00001", "end": "e00030"},
        "fresh tail",
    ),
}

FOLDED_REFUSALS: dict[str, tuple[Case, str]] = {
    "reboundary overlaps a fold": (
        lambda e: {"action": "reboundary", "id": "mark-10", "start": "e00014", "end": "f00006"},
        "overlap fold",
    ),
    "expand inside a collapsed fold": (
        lambda e: {"action": "expand", "id": e.fold_rows()[1].handle},
        "expand that first",
    ),
    "refold a collapsed fold": (lambda e: {"action": "refold", "id": _root(e)}, "is not expanded"),
    "peek slice past end": (
        lambda e: {"action": "peek", "id": _root(e), "offset": 1_000_000},
        "is outside fold-",
    ),
    "tree page past end": (
        lambda e: {"action": "status", "detail": "tree", "page": 2},
        "past the last page (1)",
    ),
}


def _assert_refused(engine: Engine, case: Case, fragment: str) -> None:
    arguments = case(engine)
    before = full_state(engine)
    result = run_tool(engine, arguments, call_id="call_refused")
    assert result.is_error and not result.moved_bytes
    assert result.text.startswith("error: ") and result.text.endswith("Nothing was changed.")
    assert fragment in result.text, result.text
    assert full_state(engine) == before


@pytest.mark.parametrize("name", sorted(PENDING_REFUSALS))
def test_refusals_change_nothing_on_pending_marks(tmp_path: Path, name: str) -> None:
    _assert_refused(_pending(tmp_path), *PENDING_REFUSALS[name])


@pytest.mark.parametrize("name", sorted(FOLDED_REFUSALS))
def test_refusals_change_nothing_on_folds(tmp_path: Path, name: str) -> None:
    _assert_refused(_folded(tmp_path), *FOLDED_REFUSALS[name])


def test_refused_action_is_reported_by_name(tmp_path: Path) -> None:
    engine = _pending(tmp_path)
    assert run_tool(engine, {"action": "expand", "id": "fold-000000000000"}).action == "expand"
    assert run_tool(engine, {"action": "peek", "id": "x/y"}).action == "peek"
    assert run_tool(engine, {"action": "nope"}).action is None


# -- a damaged store is loud -------------------------------------------------------------------


def _object_path(engine: Engine) -> Path:
    return engine._state.store.path_of(engine._verbs.fold(_root(engine)).source_digest)


def test_corrupt_store_object_propagates(tmp_path: Path) -> None:
    engine = _folded(tmp_path)
    path = _object_path(engine)
    path.chmod(0o644)
    path.write_bytes(path.read_bytes()[:-1] + b"!")
    with pytest.raises(StoreObjectCorrupt):
        run_tool(engine, {"action": "peek", "id": _root(engine)})
    with pytest.raises(StoreObjectCorrupt):
        run_tool(engine, {"action": "expand", "id": _root(engine)})


def test_missing_store_object_propagates(tmp_path: Path) -> None:
    engine = _folded(tmp_path)
    _object_path(engine).unlink()
    with pytest.raises(StoreObjectMissing):
        run_tool(engine, {"action": "peek", "id": _root(engine)}, call_id="c1")
    assert engine._state.ephemeral == {}


def test_search_finds_a_folded_value_and_points_at_a_narrow_peek(tmp_path: Path) -> None:
    session = SessionBuilder()
    session.user("Read the settings")
    call = session.assistant("Reading.", [("read", {"path": "conf/app.ini"})])
    session.result(call.tool_calls[0], "pad\n" * 300 + "token = QX7-ORBIT-993\n" + "pad\n" * 300)
    session.assistant("Read it.")
    chapters(session, 3, first=1)
    session.user("what next?")
    session.assistant("Waiting.")
    engine = Engine.open(tmp_path / "state", small_options(budget=200_000), CharCounter())
    drive(engine, session.entries)
    engine.commit_now()
    digests = engine.view.projection.digests()
    result = run_tool(engine, {"action": "search", "query": "QX7-ORBIT-993"}, "call-s")
    assert not result.is_error and not result.moved_bytes, result.text
    assert engine.view.projection.digests() == digests  # a search rewrites nothing
    assert result.text.startswith("search 'QX7-ORBIT-993': 1 hit, showing 1 to 1")
    fold = engine.view.forest.chain_at(2)[-1].handle
    assert f"1. fold {fold} · entry {session.entries[2].id} · tool_result read" in result.text
    peek_line = next(line for line in result.text.splitlines() if "peek: " in line)
    peek_call = json.loads(peek_line.split("pi_fold_context ", 1)[1])
    peeked = run_tool(engine, {**peek_call, "ephemeral": False}, "call-p")
    assert "token = QX7-ORBIT-993" in peeked.text
    refused = run_tool(engine, {"action": "search", "query": '"open'}, "call-e")
    assert refused.is_error and "unbalanced quote" in refused.text
    engine.close()
