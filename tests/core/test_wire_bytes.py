"""The bytes on the wire are the bytes (issue 9, defect 2; DESIGN §13 "wire-exact audit").

A host serialises each message of a request with ``json.dumps(message, ensure_ascii=False,
separators=(",", ":"))``. Those bytes must be the same whether or not the engine was
restarted in between, and the audit must digest exactly them, so a reordering is a rewrite.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pifold_core.audit import request_digest
from pifold_core.canonical import canonical_bytes, digest_of, sha256_hex, wire_bytes
from pifold_core.engine import Engine
from pifold_core.entries import Entry, ToolCallBlock
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, assert_reopens_identically, reopen


def _sent(message: dict[str, Any]) -> bytes:
    """What a host sends for one message."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _provider_ordered_session(reverse: bool = False) -> SessionBuilder:
    """Chapters whose tool calls carry multi-key arguments in a provider's (unsorted) order."""
    session = SessionBuilder()
    for number in range(4):
        session.user(f"Chapter {number}: edit src/x{number}.py")
        arguments: dict[str, Any] = {
            "path": f"src/x{number}.py",
            "command": "str_replace",
            "old_str": "a = 1",
            "new_str": "a = 2",
            "options": {"zeta": True, "alpha": [3, {"y": 1, "b": 2}]},
        }
        if reverse:
            arguments = dict(reversed(arguments.items()))
        call = session.assistant("Editing.", [("edit", arguments)])
        session.result(call.tool_calls[0], "edited\n" * 400)
        session.assistant("Done.")
    return session


def test_a_restart_sends_the_same_bytes_and_the_audit_calls_it_an_append(
    tmp_path: Path,
) -> None:
    session = _provider_ordered_session()
    options = small_options(budget=200_000)
    live = Engine.open(tmp_path / "live", options, CharCounter())
    restarted = Engine.open(tmp_path / "restarted", options, CharCounter())
    drive(live, session.entries)
    drive(restarted, session.entries)
    restarted = reopen(restarted)
    more = SessionBuilder(prefix="m")
    more.user("and now?")
    for engine in (live, restarted):
        drive(engine, more.entries)
    unrestarted_request = live.prepare_request()
    next_request = restarted.prepare_request()
    assert [_sent(m) for m in next_request.messages] == [
        _sent(m) for m in unrestarted_request.messages
    ]
    # The provider's argument order came back from the log, not a sorted copy.
    calls = [
        block
        for message in next_request.messages
        for block in message["content"]
        if block.get("type") == "tool_call"
    ]
    assert calls and list(calls[0]["arguments"]) == [
        "path",
        "command",
        "old_str",
        "new_str",
        "options",
    ]
    assert list(calls[0]["arguments"]["options"]["alpha"][1]) == ["y", "b"]
    assert next_request.record.classification == "append"
    assert next_request.digests == [
        hashlib.sha256(_sent(m)).hexdigest() for m in next_request.messages
    ]
    assert_clean_audit(restarted)
    assert_reopens_identically(restarted)
    live.close()
    restarted.close()


def test_the_audit_digest_tells_key_orders_apart_while_folds_do_not(tmp_path: Path) -> None:
    first = Entry("a1", "assistant", 0, (ToolCallBlock("c1", "edit", {"b": 1, "a": 2}),))
    second = Entry("a1", "assistant", 0, (ToolCallBlock("c1", "edit", {"a": 2, "b": 1}),))
    # What is sent differs, so the audit sees a different message...
    assert first.wire_digest != second.wire_digest
    assert first.wire_digest == sha256_hex(_sent(first.wire))
    # ...while the record (what folds are made of) is canonical and identical.
    assert first.record_bytes == second.record_bytes and first.digest == second.digest
    # So the same session folded with either order gets the same handles and sources.
    handles = []
    for name, reverse in (("sorted", False), ("reversed", True)):
        engine = Engine.open(
            tmp_path / name, small_options(budget=200_000, min_fold_chars=500), CharCounter()
        )
        drive(engine, _provider_ordered_session(reverse).entries)
        engine.commit_now()
        assert engine.view.forest.folds
        handles.append(
            sorted((f.handle, f.source_digest) for f in engine.view.forest.folds.values())
        )
        engine.close()
    assert handles[0] == handles[1]


def test_a_reordered_message_is_a_rewrite_the_audit_cannot_attribute(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=200_000), CharCounter())
    session = _provider_ordered_session()
    drive(engine, session.entries)
    engine.prepare_request()
    # A serialiser that sorted the keys would send other bytes for the same messages.
    sorted_digests = [sha256_hex(canonical_bytes(m)) for m in engine.view.projection.messages()]
    record = engine._state.audit.classify(sorted_digests, engine.view.projection.tokens)
    assert record.classification == "unattributed"
    assert record.first_divergence is not None
    engine.close()


def test_wire_bytes_are_json_dumps_in_the_given_order() -> None:
    value = {"z": "é 😀", "a": [1, 2.5, None, True], "m": {"y": 0, "b": -0.0}}
    assert wire_bytes(value) == _sent(value)
    assert wire_bytes(value) != canonical_bytes(value)


def test_a_log_written_before_the_wire_form_still_reopens(tmp_path: Path) -> None:
    """Request records without a ``wire`` field digested canonical bytes: still checked."""
    engine = Engine.open(tmp_path / "state", small_options(budget=200_000), CharCounter())
    canonical_prefixes: dict[int, str] = {}

    def remember(engine: Engine, request: Any) -> None:
        canonical_prefixes[request.record.number] = request_digest(
            [digest_of(message) for message in request.messages]
        )

    drive(engine, _provider_ordered_session().entries, remember)
    engine.close()
    log = engine.state_dir / "fold-log.jsonl"
    old_lines = []
    for line in log.read_bytes().splitlines():
        value = json.loads(line)
        if value["k"] == "request":
            del value["b"]["wire"]
            value["b"]["prefix"] = canonical_prefixes[value["b"]["n"]]
        # The old writer sorted every key, tool-call arguments included.
        value["c"] = sha256_hex(canonical_bytes([value["n"], value["k"], value["b"]]))[:16]
        old_lines.append(canonical_bytes(value))
    log.write_bytes(b"\n".join(old_lines) + b"\n")
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    assert reopened.view.audit_counts.requests == len(canonical_prefixes)
    assert reopened.view.audit_counts.unattributed == 0
    reopened.close()
