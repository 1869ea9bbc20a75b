"""``pifold doctor`` and the checkpoint: a damaged one is named, ``--repair`` sets it aside,
and the doctor never trusts one (it checks every object against the whole log)."""

from __future__ import annotations

from pathlib import Path

from pifold_core import checkpoint
from pifold_core.doctor import QUARANTINE_NAME, examine, repair
from pifold_core.engine import Engine
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.core.engine_checks import assert_reopens_identically


def _session(folder: Path) -> Engine:
    engine = Engine.open(folder, small_options(budget=6_000), CharCounter())
    drive(engine, random_session(5, 6))
    engine._state.checkpoint_written(checkpoint.write(engine._state))
    engine.close()
    return engine


def test_a_sound_checkpoint_is_no_finding(tmp_path: Path) -> None:
    _session(tmp_path / "state")
    report = examine(tmp_path / "state")
    assert report.healthy, report.findings
    assert not [finding for finding in report.findings if finding.kind == "checkpoint"]


def test_a_damaged_checkpoint_is_named_and_repair_sets_it_aside(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    _session(folder)
    path = folder / checkpoint.CHECKPOINT_NAME
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x01
    path.write_bytes(bytes(data))
    report = examine(folder)
    named = [finding for finding in report.findings if finding.kind == "checkpoint"]
    assert len(named) == 1 and named[0].repairable and not report.healthy
    assert "does not hash" in named[0].detail
    assert path.read_bytes() == bytes(data)  # examining changed nothing
    repaired = repair(folder)
    assert any("checkpoint" in action for action in repaired.actions)
    assert repaired.after is not None and repaired.after.healthy
    assert not path.exists()
    assert [p.read_bytes() for p in (folder / QUARANTINE_NAME).iterdir()] == [bytes(data)]
    engine = Engine.open(folder, None, CharCounter())  # no checkpoint: the log rebuilds it
    assert engine.view.checkpoint_problem is None and engine.view.checkpoint_records == 0
    assert_reopens_identically(engine)
    engine.close()


def test_the_doctor_finds_a_damaged_store_object_behind_a_sound_checkpoint(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "state"
    engine = _session(folder)
    digest = next(iter(engine.view.forest.folds.values())).source_digest
    target = folder / "store" / "sha256" / digest[:2] / digest
    target.chmod(0o600)
    target.write_bytes(target.read_bytes()[:-3])
    report = examine(folder)
    assert [f.kind for f in report.damage if digest in f.detail] != []
    assert all(finding.kind != "checkpoint" for finding in report.findings)
