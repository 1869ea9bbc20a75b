"""The verified checkpoint (issue 12): a reopen from it equals a rebuild from the whole log,
and a checkpoint that is damaged or doubtful is never used, only reported."""

from __future__ import annotations

import hashlib
import shutil
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_core import checkpoint
from pifold_core.canonical import canonical_bytes, parse_json, sha256_hex, wire_bytes
from pifold_core.checkpoint_body import inflate
from pifold_core.engine import Engine
from pifold_core.opening import open_state
from pifold_core.store import StoreObjectCorrupt
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.core.engine_checks import assert_lossless, assert_reopens_identically, durable_state

CHECKPOINT = checkpoint.CHECKPOINT_NAME


def _driven(folder: Path, seed: int, segments: int, share: float) -> Engine:
    """A session driven into ``folder``, a checkpoint written after ``share`` of it, more
    driven after that (so a reopen replays a tail), and the engine left open."""
    entries = random_session(seed, segments)
    engine = Engine.open(folder, small_options(budget=6_000), CharCounter())
    cut = int(len(entries) * share)
    drive(engine, entries[:cut])
    engine._state.checkpoint_written(checkpoint.write(engine._state))
    drive(engine, entries[cut:])
    engine.prepare_request()
    engine._state.journal.sync()
    return engine


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = _driven(tmp_path_factory.mktemp("checkpoint") / "state", 7, 14, 0.6)
    yield engine
    engine.close()


def _rebuilt(folder: Path) -> Engine:
    """The session rebuilt from the whole log, the checkpoint ignored."""
    return Engine(open_state(folder, None, CharCounter(), True, None, use_checkpoint=False))


def _copy(engine: Engine, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(engine.state_dir, copy, ignore=shutil.ignore_patterns("lock"))
    return copy


def _assert_same(left: Engine, right: Engine) -> None:
    first, second = durable_state(left), durable_state(right)
    for key, value in first.items():
        assert second[key] == value, f"{key} differs"
    assert left.view.host_notes == right.view.host_notes
    assert left._state.layer.run_state() == right._state.layer.run_state()
    assert left.view.commit_history == right.view.commit_history
    assert left.view.transcript.units == right.view.transcript.units
    assert left._state.journal.next_sequence == right._state.journal.next_sequence
    assert left.view.floor == right.view.floor


def test_a_reopen_from_the_checkpoint_replays_only_the_tail_and_equals_the_live_session(
    session: Engine,
) -> None:
    reopened = assert_reopens_identically(session)
    assert reopened.view.checkpoint_problem is None
    assert 0 < reopened.view.checkpoint_records < session._state.journal.next_sequence
    _assert_same(session, reopened)
    rebuilt = _rebuilt(session.state_dir)
    assert rebuilt.view.checkpoint_records == 0
    _assert_same(rebuilt, reopened)


def test_folded_entries_stay_on_disk_after_a_checkpoint_reopen_and_read_back_exactly(
    session: Engine,
) -> None:
    reopened = Engine.open(session.state_dir, None, CharCounter(), read_only=True)
    entries = reopened.view.transcript.entries
    released = [index for index in range(len(entries)) if not entries.is_whole(index)]
    assert released, "the checkpoint kept every entry whole"
    assert all(reopened.view.forest.root_containing(index) is not None for index in released)
    assert_lossless(reopened)  # every fold peeks its exact source, read back from the log
    live = session.view.transcript.entries
    assert [entries[i].record_bytes for i in released] == [live[i].record_bytes for i in released]
    reopened.close()


def test_a_session_reopened_from_its_checkpoint_goes_on_and_reopens_identically(
    tmp_path: Path,
) -> None:
    entries = random_session(11, 12)
    first, second = len(entries) // 3, 2 * len(entries) // 3
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    drive(engine, entries[:first])
    engine._state.checkpoint_written(checkpoint.write(engine._state))
    engine.close()
    resumed = Engine.open(tmp_path / "state", None, CharCounter())
    assert resumed.view.checkpoint_records > 0
    drive(resumed, entries[first:second])
    resumed._state.checkpoint_written(
        checkpoint.write(resumed._state)
    )  # hashes on from the verified bytes
    drive(resumed, entries[second:])
    reopened = assert_reopens_identically(resumed)
    assert reopened.view.checkpoint_records == resumed.view.checkpoint_records
    _assert_same(_rebuilt(tmp_path / "state"), reopened)
    resumed.close()


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x20
    path.chmod(0o600)
    path.write_bytes(bytes(data))


def _damage_body(folder: Path) -> None:
    path = folder / CHECKPOINT
    _flip(path, len(path.read_bytes()) - 10)


def _damage_header(folder: Path) -> None:
    _flip(folder / CHECKPOINT, 3)


def _truncate(folder: Path) -> None:
    path = folder / CHECKPOINT
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _edit_the_log(folder: Path) -> None:
    """Rewrite the first request line of the log with a different (valid) class count: a
    sound log, checksums and all, that is not the one the checkpoint was made from."""
    log = folder / "fold-log.jsonl"
    lines = log.read_bytes().split(b"\n")
    for number, line in enumerate(lines):
        record = parse_json(line)
        assert isinstance(record, dict)
        if record["k"] == "request":
            body = dict(record["b"])
            body = {key: body[key] for key in reversed(list(body))}
            check = sha256_hex(canonical_bytes([record["n"], "request", body]))[:16]
            lines[number] = wire_bytes({"n": record["n"], "k": "request", "b": body, "c": check})
            break
    log.write_bytes(b"\n".join(lines))


DAMAGE = {
    "a flipped byte in the state": (_damage_body, "does not hash"),
    "a flipped byte in the header": (_damage_header, "header"),
    "a truncated checkpoint": (_truncate, "torn or cut short"),
    "an edited log": (_edit_the_log, "not the ones it was written from"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_or_doubtful_checkpoint_is_named_and_the_log_rebuilds_the_session(
    session: Engine, tmp_path: Path, case: str
) -> None:
    folder = _copy(session, tmp_path)
    damage, named = DAMAGE[case]
    damage(folder)
    reopened = Engine.open(folder, None, CharCounter(), read_only=True)
    assert reopened.view.checkpoint_records == 0
    assert (
        reopened.view.checkpoint_problem is not None and named in reopened.view.checkpoint_problem
    )
    assert CHECKPOINT in reopened.view.checkpoint_problem
    _assert_same(_rebuilt(folder), reopened)
    assert reopened.status().damaged == ()  # the store and evidence are untouched


def test_a_checkpoint_from_another_session_is_refused(session: Engine, tmp_path: Path) -> None:
    other = _driven(tmp_path / "other", 8, 6, 1.0)
    other.close()
    folder = _copy(session, tmp_path)
    (folder / CHECKPOINT).chmod(0o600)
    shutil.copyfile(tmp_path / "other" / CHECKPOINT, folder / CHECKPOINT)
    reopened = Engine.open(folder, None, CharCounter(), read_only=True)
    assert reopened.view.checkpoint_records == 0
    assert reopened.view.checkpoint_problem is not None
    _assert_same(session, reopened)


def test_a_log_cut_short_of_the_checkpoint_rebuilds_from_what_it_holds(
    session: Engine, tmp_path: Path
) -> None:
    folder = _copy(session, tmp_path)
    log = folder / "fold-log.jsonl"
    lines = log.read_bytes().split(b"\n")
    keep = session.view.checkpoint_records // 2
    log.write_bytes(b"\n".join(lines[:keep]) + b"\n")
    reopened = Engine.open(folder, None, CharCounter(), read_only=True)
    assert reopened.view.checkpoint_records == 0
    assert (
        reopened.view.checkpoint_problem is not None
        and "shorter" in reopened.view.checkpoint_problem
    )
    assert reopened._state.journal.next_sequence == keep
    _assert_same(_rebuilt(folder), reopened)


def test_a_checkpoint_counted_with_another_tokenizer_is_not_applicable_and_not_damage(
    session: Engine,
) -> None:
    class OtherCounter(CharCounter):
        name = "other/4"

    reopened = Engine.open(session.state_dir, None, OtherCounter(), read_only=True)
    assert reopened.view.checkpoint_records == 0 and reopened.view.checkpoint_problem is None
    assert reopened.view.projection.digests() == session.view.projection.digests()


def test_a_checkpoint_that_cannot_be_written_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _driven(tmp_path / "state", 9, 8, 0.5)
    engine.close()
    engine = Engine.open(tmp_path / "state", None, CharCounter())
    before = (tmp_path / "state" / CHECKPOINT).read_bytes()

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(checkpoint, "write_file_atomically", full_disk)
    monkeypatch.setattr(checkpoint, "CHECKPOINT_MIN_RECORDS", 1)
    covered = engine.view.checkpoint_records
    engine.commit_now()  # a commit tries a checkpoint; the failure stays out of its way
    assert engine.view.checkpoint_records == covered
    assert (tmp_path / "state" / CHECKPOINT).read_bytes() == before
    assert engine.view.folding_stopped is None
    assert_reopens_identically(engine)
    engine.close()


def test_checkpoints_are_due_by_records_whatever_the_logs_length() -> None:
    least = checkpoint.CHECKPOINT_MIN_RECORDS
    assert not checkpoint.due(least - 1, 0)
    assert checkpoint.due(least, 0)
    big = least * 80
    # 2,000 new of a long log are due too (issue 23): what a kill leaves to replay stays
    # bounded (it was 5 % of the log, 4,346 records at 50,000 entries).
    assert checkpoint.due(big, big - least)
    assert not checkpoint.due(big, big - least + 1)
    # On a clean close any new record is enough (issue 23): the reopen replays nothing.
    assert checkpoint.due(big, big - 1, closing=True)
    assert not checkpoint.due(big, big, closing=True)


def test_the_engine_writes_its_own_checkpoint_once_one_is_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint, "CHECKPOINT_MIN_RECORDS", 50)
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    drive(engine, random_session(3, 8))
    assert engine.view.commit_count > 0
    assert engine.view.checkpoint_records > 0  # written after a commit
    assert (tmp_path / "state" / CHECKPOINT).stat().st_mode & 0o777 == checkpoint.CHECKPOINT_MODE
    engine.close()
    reopened = Engine.open(tmp_path / "state", None, CharCounter(), read_only=True)
    assert reopened.view.checkpoint_records == engine.view.checkpoint_records


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 10_000), share=st.floats(0.05, 1.0))
def test_any_checkpoint_point_reopens_to_the_whole_log_rebuild(
    tmp_path_factory: pytest.TempPathFactory, seed: int, share: float
) -> None:
    folder = tmp_path_factory.mktemp("any") / "state"
    engine = _driven(folder, seed, 5, share)
    reopened = assert_reopens_identically(engine)
    assert reopened.view.checkpoint_records > 0
    _assert_same(_rebuilt(folder), reopened)
    engine.close()


def test_a_released_entry_whose_log_line_was_damaged_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    # A checkpoint of the whole log but the last request: the reopen reads no entry back.
    session = _driven(tmp_path / "state", 4, 6, 1.0)
    folder = _copy(session, tmp_path)
    reopened = Engine.open(folder, None, CharCounter(), read_only=True)
    assert (
        reopened.view.checkpoint_records >= session._state.journal.next_sequence - 1
    )  # one request
    entries = reopened.view.transcript.entries
    released = [i for i in range(len(entries)) if not entries.is_whole(i)]
    log = folder / "fold-log.jsonl"
    data = bytearray(log.read_bytes())
    for index in released:  # every released entry's line changes under the open session
        span = entries.facts_of(index).span
        assert span is not None
        data[span[0] + span[1] // 2] ^= 0x01
    log.write_bytes(bytes(data))
    live = session.view.transcript.entries
    refused = 0
    for index in released:
        facts = entries.facts_of(index)
        try:
            entry = entries[index]
        except StoreObjectCorrupt as error:
            assert facts.id in str(error) and error.digest == facts.digest
            refused += 1
        else:  # one read back before the damage, still held: the exact bytes
            assert entry.record_bytes == live[index].record_bytes
    assert released and refused == len(released)
    reopened.close()
    session.close()


def _as_format_1(folder: Path, layout: int = 1) -> None:
    """Rewrite the checkpoint as an older version wrote it: the same state, uncompressed
    (format 1) or as one zlib stream (format 2)."""
    path = folder / CHECKPOINT
    line, _, stored = path.read_bytes().partition(b"\n")
    header = parse_json(line)
    assert isinstance(header, dict) and header["pifold-checkpoint"] == 3
    body = inflate(stored)
    if layout == 2:
        body = zlib.compress(body, 1)
    header.update(
        {
            "pifold-checkpoint": layout,
            "bodyBytes": len(body),
            "bodyDigest": hashlib.sha256(body).hexdigest(),
        }
    )
    path.chmod(0o600)
    path.write_bytes(wire_bytes(header) + b"\n" + body)


def test_the_state_is_stored_compressed_and_an_uncompressed_one_still_reads(
    session: Engine, tmp_path: Path
) -> None:
    copy = _copy(session, tmp_path)
    _header, _, stored = (copy / CHECKPOINT).read_bytes().partition(b"\n")
    state = parse_json(inflate(stored))
    assert isinstance(state, dict) and len(stored) < len(wire_bytes(state)) / 2
    _as_format_1(copy)
    reopened = Engine.open(copy, None, CharCounter(), read_only=True)
    assert reopened.view.checkpoint_problem is None and reopened.view.checkpoint_records > 0
    _assert_same(session, reopened)
    reopened.close()


def test_a_format_2_checkpoint_one_zlib_stream_still_reads(session: Engine, tmp_path: Path) -> None:
    copy = _copy(session, tmp_path)
    _as_format_1(copy, layout=2)
    reopened = Engine.open(copy, None, CharCounter(), read_only=True)
    assert reopened.view.checkpoint_problem is None and reopened.view.checkpoint_records > 0
    _assert_same(session, reopened)
    reopened.close()


def test_a_body_that_hashes_but_does_not_decompress_is_named_and_rebuilt(
    session: Engine, tmp_path: Path
) -> None:
    copy = _copy(session, tmp_path)
    path = copy / CHECKPOINT
    line, _, _ = path.read_bytes().partition(b"\n")
    header = parse_json(line)
    assert isinstance(header, dict)
    body = b"not zlib at all"
    header.update({"bodyBytes": len(body), "bodyDigest": hashlib.sha256(body).hexdigest()})
    path.chmod(0o600)
    path.write_bytes(wire_bytes(header) + b"\n" + body)
    reopened = Engine.open(copy, None, CharCounter(), read_only=True)
    assert reopened.view.checkpoint_problem is not None
    assert "does not decompress" in reopened.view.checkpoint_problem
    assert reopened.view.checkpoint_records == 0
    _assert_same(session, reopened)
    reopened.close()
