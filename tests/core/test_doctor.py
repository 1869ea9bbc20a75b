"""``pifold doctor``: reports every kind of damage, repairs only what it can verify."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pifold_cli.app import app
from pifold_core.doctor import QUARANTINE_NAME, DoctorError, examine, repair
from pifold_core.engine import Engine
from tests.core.builders import CharCounter, drive, filler
from tests.core.engine_checks import assert_lossless, folded_engine

RUNNER = CliRunner()


def _session(path: Path) -> Engine:
    """A closed, folded session with one evidence artifact."""
    engine, session = folded_engine(path)
    call = session.assistant("", [("bash", {"cmd": "cat big.log"})])
    session.result(call.tool_calls[0], filler(40_000, 3, stem="log"))
    session.assistant("It is long.")
    drive(engine, session.entries[-3:])
    engine.close()
    return engine


def _snapshot(folder: Path) -> dict[Path, tuple[int, bytes | None]]:
    return {
        path: (path.stat().st_mode, None if path.is_dir() else path.read_bytes())
        for path in [folder, *folder.rglob("*")]
    }


def _doctor(*arguments: str) -> tuple[int, str]:
    result = RUNNER.invoke(app, ["doctor", *arguments])
    return result.exit_code, result.output


def _kinds(state: Path) -> list[tuple[str, str]]:
    return [(finding.kind, finding.subject) for finding in examine(state).damage]


def test_a_healthy_session_exits_zero_and_examining_changes_nothing(tmp_path: Path) -> None:
    engine = _session(tmp_path)
    before = _snapshot(engine.state_dir)
    code, output = _doctor(str(engine.state_dir))
    assert code == 0, output
    assert "healthy" in output and "not open" in output
    assert _snapshot(engine.state_dir) == before
    report = examine(engine.state_dir)
    assert report.folds == len({fold.source_digest for fold in engine.view.forest.folds.values()})
    assert report.evidence == 1 and report.entries == len(engine.view.transcript)


@pytest.mark.parametrize("damage", ["deleted", "flipped", "folder"])
def test_a_damaged_store_object_is_rebuilt_from_the_log_verified(
    tmp_path: Path, damage: str
) -> None:
    engine = _session(tmp_path)
    fold = next(iter(engine.view.forest.folds.values()))
    path = engine._state.store.path_of(fold.source_digest)
    original = path.read_bytes()
    path.unlink()
    if damage == "flipped":
        path.write_bytes(original[:-1] + bytes([original[-1] ^ 0x01]))
        os.chmod(path, 0o400)
    elif damage == "folder":
        path.mkdir(mode=0o700)
    kind = "store-missing" if damage == "deleted" else "store-corrupt"
    # The folds above it list it by digest (Merkle objects): they cannot be read either.
    unreadable = [fold.handle]
    while (parent := engine.view.forest.parent.get(unreadable[-1])) is not None:
        unreadable.append(parent)
    assert sorted(_kinds(engine.state_dir)) == sorted((kind, handle) for handle in unreadable)
    code, output = _doctor(str(engine.state_dir))
    assert code == 1 and fold.handle in output and "--repair" in output
    code, output = _doctor(str(engine.state_dir), "--repair")
    assert code == 0, output
    assert f"rebuilt the store object of fold {fold.handle}" in output
    assert path.read_bytes() == original
    quarantine = engine.state_dir / QUARANTINE_NAME
    quarantined = list(quarantine.iterdir()) if quarantine.exists() else []
    assert len(quarantined) == (0 if damage == "deleted" else 1)  # moved aside, not deleted
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    assert reopened.status().damaged == ()
    assert_lossless(reopened)
    reopened.close()


def test_damaged_evidence_is_reported_and_never_rebuilt(tmp_path: Path) -> None:
    engine = _session(tmp_path)
    (identifier,) = engine.view.evidence_ids
    path = engine._state.evidence.path_of(identifier.removeprefix("evidence-"))
    path.unlink()
    code, output = _doctor(str(engine.state_dir), "--repair")
    assert code == 1 and f"evidence-missing {identifier}" in output
    assert not path.exists()


def test_torn_tail_is_reported_then_cut_by_repair(tmp_path: Path) -> None:
    engine = _session(tmp_path)
    log = engine._state.journal.path
    whole = log.read_bytes()
    lines = whole.count(b"\n")
    log.write_bytes(whole + b'{"n":12345,"k":"entry","b":{}}\n')  # complete, bad checksum
    assert _kinds(engine.state_dir) == [("torn-tail", f"line {lines + 1}")]
    assert log.read_bytes() != whole  # examining cut nothing
    code, output = _doctor(str(engine.state_dir), "--repair")
    assert code == 0 and f"line {lines + 1}" in output
    assert log.read_bytes() == whole


def test_a_damaged_middle_line_is_named_and_left_alone(tmp_path: Path) -> None:
    engine = _session(tmp_path)
    log = engine._state.journal.path
    lines = log.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b'"n":3', b'"n":33')
    log.write_bytes(b"\n".join(lines))
    damaged = log.read_bytes()
    code, output = _doctor(str(engine.state_dir), "--repair")
    assert code == 1 and "log line 4" in output
    assert log.read_bytes() == damaged


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_a_lost_log_is_reported(tmp_path: Path, how: str) -> None:
    engine = _session(tmp_path)
    if how == "deleted":
        engine._state.journal.path.unlink()
    else:
        engine._state.journal.path.write_bytes(b"")
    # The checkpoint the close wrote covers a log that is gone: named too.
    assert _kinds(engine.state_dir) == [
        ("lost-log", "fold-log.jsonl"),
        ("checkpoint", "checkpoint.json"),
    ]
    code, _ = _doctor(str(engine.state_dir))
    assert code == 1


def test_leftovers_foreign_files_and_modes(tmp_path: Path) -> None:
    engine = _session(tmp_path)
    state = engine.state_dir
    fold = next(iter(engine.view.forest.folds.values()))
    folder = engine._state.store.path_of(fold.source_digest).parent
    (folder / ".half.tmp").write_bytes(b"x")
    (folder / "README").write_text("not an object")
    os.chmod(engine._state.journal.path, 0o644)
    kinds = {kind for kind, _ in _kinds(state)}
    assert kinds == {"temporary", "store-foreign", "mode"}
    code, output = _doctor(str(state), "--repair")
    assert code == 1, output  # the foreign file is not ours to delete
    assert _kinds(state) == [("store-foreign", str(folder / "README"))]
    assert (folder / "README").exists() and not (folder / ".half.tmp").exists()


def test_an_unreferenced_object_is_a_note_not_damage(tmp_path: Path) -> None:
    engine = _session(tmp_path)
    digest = engine._state.store.put(b"a commit that never reached the log")
    report = examine(engine.state_dir)
    assert report.healthy
    assert [(f.kind, f.subject) for f in report.findings] == [("store-unreferenced", digest)]


def test_repair_is_refused_while_the_session_is_open(tmp_path: Path) -> None:
    engine = _session(tmp_path)
    writer = Engine.open(engine.state_dir, None, CharCounter())
    os.chmod(engine._state.journal.path, 0o644)
    with pytest.raises(DoctorError, match=f"open for writing by pid {os.getpid()}"):
        repair(engine.state_dir)
    result = RUNNER.invoke(app, ["doctor", str(engine.state_dir), "--repair"])
    assert result.exit_code == 1 and "close it before repairing" in result.output
    code, output = _doctor(str(engine.state_dir), "--json")  # looking is fine beside it
    report = json.loads(output)
    assert code == 1 and report["lockHolder"]["pid"] == os.getpid()
    assert [finding["kind"] for finding in report["findings"]] == ["mode"]
    writer.close()


def test_bad_usage_exits_two(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    (tmp_path / "empty").mkdir()
    for target in (tmp_path / "missing", tmp_path / "file", tmp_path / "empty"):
        code, output = _doctor(str(target))
        assert code == 2 and "error:" in output and "Traceback" not in output
    assert _doctor()[0] == 2


def test_a_log_cut_inside_a_line_is_torn_when_no_writer_holds_it(tmp_path: Path) -> None:
    engine = _session(tmp_path)
    log = engine._state.journal.path
    whole = log.read_bytes()
    lines = whole.split(b"\n")[:-1]
    cut = len(whole) - len(lines[-1]) // 2 - 1
    log.write_bytes(whole[:cut])
    # The checkpoint the close wrote covers the whole line: it is ahead of the cut log.
    assert _kinds(engine.state_dir) == [
        ("torn-tail", f"line {len(lines)}"),
        ("checkpoint", "checkpoint.json"),
    ]
    writer = Engine.open(engine.state_dir, None, CharCounter())
    torn = writer.status().torn_tail
    assert torn is not None and torn.line_number == len(lines)  # cut, and status says so
    assert not [f for f in examine(engine.state_dir).findings if f.kind == "torn-tail"]
    writer.close()
