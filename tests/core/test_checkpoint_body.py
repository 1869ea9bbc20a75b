"""The checkpoint body built from reused chunks (issues 12 and 23, a commit's cost).

A write re-encodes only the chunks that changed; what it stores must still be exactly the
engine's state, as one whole encoding of :func:`capture` would give it, at every point of a
session in which entries are released and folds made between writes. Small chunks make the
reuse happen in a short session; the count of reused chunks shows it did. Since issue 23 the
chunks that become final are settled after each commit, so a write encodes only what is
open, and the log is hashed as it grows.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_core import checkpoint, checkpoint_body
from pifold_core.canonical import parse_json, wire_bytes
from pifold_core.checkpoint_body import CheckpointBody, ChunkedList, inflate
from pifold_core.checkpoint_state import capture
from pifold_core.engine import Engine, Request
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.core.engine_checks import assert_clean_audit, durable_state


def _drive_checking(path: Path, seed: int, body: CheckpointBody) -> tuple[Engine, int]:
    """Drive a random session; after every request, the body ``body`` builds (reusing what
    it cached at earlier requests) must decode to the whole state. Returns the engine and
    the most chunks one build reused."""
    engine = Engine.open(path, small_options(budget=6_000), CharCounter())
    most = 0

    def check(engine: Engine, _request: object) -> None:
        nonlocal most
        built = parse_json(inflate(body.build(engine._state)))
        assert built == parse_json(wire_bytes(capture(engine._state)))
        most = max(most, body.reused)

    drive(engine, random_session(seed, segments=8), check)
    return engine, most


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 10_000))
def test_a_body_from_reused_chunks_is_the_whole_state(tmp_path: Path, seed: int) -> None:
    engine, most = _drive_checking(tmp_path / f"state-{seed}", seed, CheckpointBody(4, 2, 4, 2))
    if engine.view.forest.folds:
        assert most > 0, "a session that folds must reuse chunks"
    assert_clean_audit(engine)
    engine.close()


def test_a_reopen_from_a_body_of_reused_chunks_is_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint, "CHECKPOINT_MIN_RECORDS", 20)
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    engine._commits.checkpoint_body = CheckpointBody(4, 2, 4, 2)
    reused: list[int] = []

    def written(engine: Engine, _request: object) -> None:
        reused.append(engine._commits.checkpoint_body.reused)

    drive(engine, random_session(3, segments=10), written)
    assert engine.view.checkpoint_records > 0 and max(reused) > 0
    engine._state.journal.sync()
    reopened = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    assert reopened.view.checkpoint_problem is None
    assert reopened.view.checkpoint_records == engine.view.checkpoint_records
    live, rebuilt = durable_state(engine), durable_state(reopened)
    for key, value in live.items():
        assert rebuilt[key] == value, f"{key} differs after reopen"
    reopened.close()
    engine.close()


def test_a_body_cut_before_its_final_block_is_refused() -> None:
    whole = zlib.compressobj(1, zlib.DEFLATED, -15)
    text = b'{"entries":[]}'
    complete = whole.compress(text) + whole.flush(zlib.Z_FINISH)
    assert inflate(complete) == text
    with pytest.raises(zlib.error, match="final block"):
        inflate(complete[:-2])
    with pytest.raises(zlib.error, match="final block"):
        inflate(complete + b"\x00")


def test_chunk_sizes_must_be_positive() -> None:
    with pytest.raises(ValueError, match="chunk sizes must be positive"):
        CheckpointBody(0, 2)
    with pytest.raises(ValueError, match="chunk sizes must be positive"):
        CheckpointBody(4, 2, 4, 0)


def test_a_write_encodes_only_what_is_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every chunk that became final was settled after its commit, so no write encodes one
    itself (issue 23: the write's cost no longer grows with the interval between writes),
    and the units and the commit history are kept in chunks like the entries and folds."""
    monkeypatch.setattr(checkpoint, "CHECKPOINT_MIN_RECORDS", 20)
    monkeypatch.setattr(checkpoint_body, "SETTLE_CHUNKS", 1_000)  # tiny chunks, no backlog
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    body = engine._commits.checkpoint_body = CheckpointBody(4, 2, 4, 2)
    late: list[int] = []
    covered = 0

    def written(engine: Engine, _request: object) -> None:
        nonlocal covered
        if engine.view.checkpoint_records != covered:
            covered = engine.view.checkpoint_records
            late.append(body.late)

    drive(engine, random_session(5, segments=10), written)
    assert len(late) > 1 and late == [0] * len(late)
    assert all(body.kept(name) > 0 for name in ("entries", "folds", "units", "commitHistory"))
    engine.close()


def test_settling_keeps_at_most_its_bound_a_call() -> None:
    """A backlog (a reopened session's cache starts empty) is settled a few chunks a commit,
    never all at once; a write meanwhile encodes the rest itself."""
    members = [object() for _ in range(10 * 3)]
    encoded: list[int] = []

    def encode(start: int, end: int) -> bytes:
        encoded.append(start)
        return b",".join(b"1" for _ in range(start, end))

    chunks = ChunkedList(3)
    chunks.settle(members, lambda start, end: True, encode)
    assert chunks.kept == checkpoint_body.SETTLE_CHUNKS == 1 and encoded == [0]
    chunks.settle(members, lambda start, end: True, encode)
    assert chunks.kept == 2 and chunks.waiting == 8
    kinds = [piece for piece, _ in chunks.pieces(members, lambda start, end: True, encode)]
    assert kinds == ["kept"] * 2 + ["late"] * 8 and chunks.kept == 10


def test_the_log_is_hashed_as_it_grows(tmp_path: Path) -> None:
    """After each commit the running log digest has reached the log's end (all but the
    request record logged after the commit), so the write that follows hashes only what was
    appended since (issue 23)."""
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    behind: list[int] = []

    def check(engine: Engine, request: Request) -> None:
        if request.commit is not None:
            state = engine._state
            behind.append(state.journal.path.stat().st_size - state.log_digest.position)

    drive(engine, random_session(2, segments=6), check)
    assert len(behind) > 1 and max(behind) < 1_000
    assert engine._state.journal.path.stat().st_size > 50 * 1_000
    engine.close()
