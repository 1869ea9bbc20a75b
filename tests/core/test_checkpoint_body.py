"""The checkpoint body built from reused chunks (issue 12, a commit's cost).

A write re-encodes only the chunks that changed; what it stores must still be exactly the
engine's state, as one whole encoding of :func:`capture` would give it, at every point of a
session in which entries are released and folds made between writes. Small chunks make the
reuse happen in a short session; the count of reused chunks shows it did.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_core import checkpoint
from pifold_core.canonical import parse_json, wire_bytes
from pifold_core.checkpoint_body import CheckpointBody, inflate
from pifold_core.checkpoint_state import capture
from pifold_core.engine import Engine
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
    engine, most = _drive_checking(tmp_path / f"state-{seed}", seed, CheckpointBody(4, 2))
    if engine.view.forest.folds:
        assert most > 0, "a session that folds must reuse chunks"
    assert_clean_audit(engine)
    engine.close()


def test_a_reopen_from_a_body_of_reused_chunks_is_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint, "CHECKPOINT_MIN_RECORDS", 20)
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    engine._commits.checkpoint_body = CheckpointBody(4, 2)
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


def test_every_final_chunk_is_reused_closed_units_among_them(tmp_path: Path) -> None:
    body = CheckpointBody(4, 2)
    engine, _ = _drive_checking(tmp_path / "state", 7, body)
    body.build(engine._state)
    state = engine._state
    entries, units = state.transcript.entries, state.transcript.units
    released = [
        start
        for start in range(0, len(entries) - 3, 4)
        if not any(entries.is_whole(index) for index in range(start, start + 4))
    ]
    closed = [
        start
        for start in range(0, len(units) - 3, 4)
        if all(unit.closed for unit in units[start : start + 4])
    ]
    assert closed, "a session this long closes whole chunks of units"
    # Built again with nothing new: every final chunk of the three lists comes from the cache.
    body.build(state)
    assert body.reused == len(released) + len(state.forest.folds) // 2 + len(closed)
    engine.close()
