"""States written by an older engine keep opening, verifying and growing (issue 23).

The folder under :mod:`tests.core.legacy_state` was written by the engine of commit
:data:`~tests.core.legacy_state.make_state.WRITTEN_BY` and is never regenerated: its fold
objects are named by the SHA-256 of each fold's whole source (the handles users' sessions
carry), its checkpoint is of that day's format. Whatever the engine writes now, it must open
that folder from the checkpoint and from the whole log alike, give back every fold byte for
byte after verifying it, find nothing damaged, and go on folding over it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pifold_core import checkpoint
from pifold_core.doctor import examine
from pifold_core.engine import Engine
from tests.core.builders import CharCounter, SessionBuilder, drive
from tests.core.engine_checks import (
    assert_lossless,
    assert_reopens_identically,
    durable_state,
)
from tests.core.legacy_state.make_state import FOLDER


def _copy(tmp_path: Path) -> Path:
    """The vendored folder, copied (a test never writes the committed one)."""
    folder = tmp_path / "state"
    shutil.copytree(FOLDER, folder)
    return folder


def test_the_old_state_opens_from_its_checkpoint_and_from_its_log_alike(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    from_checkpoint = Engine.open(folder, None, CharCounter(), read_only=True)
    assert from_checkpoint.view.checkpoint_problem is None
    assert from_checkpoint.view.checkpoint_records > 0
    assert from_checkpoint.status().damaged == ()
    assert_lossless(from_checkpoint)
    kept = durable_state(from_checkpoint)
    from_checkpoint.close()
    (folder / checkpoint.CHECKPOINT_NAME).unlink()
    from_log = Engine.open(folder, None, CharCounter(), read_only=True)
    assert from_log.view.checkpoint_records == 0
    assert durable_state(from_log) == kept
    from_log.close()


def test_the_old_state_keeps_its_handles_and_grows_over_them(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    engine = Engine.open(folder, None, CharCounter())
    old = dict(engine.view.forest.folds)
    assert any(fold.kind == "consolidated" for fold in old.values())
    # More of the same kind of session, under new ids: the engine folds and consolidates
    # it beside (and over) the folds the old engine made.
    builder = SessionBuilder(prefix="g")
    for number in range(6):
        sizes = [[400 + 150 * number, 900], [1_200], [700, 300, 1_100]]
        builder.chapter(f"Task g{number}: fix src/more_{number}.py", sizes, seed=number)
    fresh = builder.entries
    drive(engine, fresh)
    engine.prepare_request()
    new = {handle: fold for handle, fold in engine.view.forest.folds.items() if handle not in old}
    assert new, "the continued session made no fold"
    assert any(child in old for fold in new.values() for child in fold.children), (
        "no new fold consolidated over an old one"
    )
    for handle, fold in old.items():
        # Every old fold still stands under its old handle, or sits inside a new one.
        assert handle in engine.view.forest.folds
        assert engine.view.forest.folds[handle].source_digest == fold.source_digest
    assert_reopens_identically(engine)
    engine.close()
    report = examine(folder)
    assert report.healthy, report.damage
    assert report.folds == len(engine.view.forest)
