"""A reopen from a checkpoint names the store objects gone or changed since it was written at
once, and leaves the others to be verified on their first read (issue 23: reading every
object file was most of such a reopen)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pifold_core import checkpoint
from pifold_core.engine import Engine
from pifold_core.folds import Fold
from pifold_core.store import StoreObjectCorrupt
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.core.engine_checks import assert_lossless


def _closed_session(folder: Path) -> tuple[Engine, list[Fold]]:
    """A folded session closed cleanly (so a checkpoint covers it), and its folds, the
    smallest first (no fold among the first two holds the other)."""
    engine = Engine.open(folder, small_options(budget=6_000), CharCounter())
    drive(engine, random_session(11, 8))
    engine.prepare_request()
    engine.close()
    folds = sorted(engine.view.forest.folds.values(), key=lambda fold: fold.end - fold.start)
    assert len(folds) >= 2
    return engine, folds


def _garble(engine: Engine, fold: Fold) -> int:
    """Overwrite ``fold``'s object file with other bytes; the time its inode changed."""
    path = engine._state.store.path_of(fold.source_digest)
    os.chmod(path, 0o600)
    path.write_bytes(b"pifold-object format=4 hash=sha256 bytes=3 listing=0\nxyz")
    return os.stat(path).st_ctime_ns


def test_an_object_gone_or_changed_since_the_checkpoint_is_named_at_once(tmp_path: Path) -> None:
    engine, folds = _closed_session(tmp_path / "state")
    gone, changed = folds[0], folds[1]
    engine._state.store.path_of(gone.source_digest).unlink()
    _garble(engine, changed)  # after the checkpoint was written: its inode says so
    reopened = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    assert reopened.view.reopen.checkpoint_records > 0
    damaged = {item.digest: item.problem for item in reopened.status().damaged}
    assert damaged[gone.source_digest] == "missing"
    assert damaged[changed.source_digest] == "corrupt"
    reopened.close()


def test_an_object_whose_file_did_not_change_is_verified_on_its_first_read(
    tmp_path: Path,
) -> None:
    engine, folds = _closed_session(tmp_path / "state")
    stale, sound = folds[0], folds[1]
    changed_at = _garble(engine, stale)
    # The checkpoint written after that change: only a read can tell the object is damaged.
    written = changed_at + 1
    os.utime(engine.state_dir / checkpoint.CHECKPOINT_NAME, ns=(written, written))
    reopened = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    assert reopened.view.reopen.checkpoint_records > 0
    assert reopened.status().damaged == ()  # not read at the open
    assert reopened.peek(sound.handle).total_bytes == sound.source_bytes  # read, verified
    with pytest.raises(StoreObjectCorrupt, match=stale.source_digest):
        reopened.peek(stale.handle)  # the first read verifies it, loudly
    assert [item.digest for item in reopened.status().damaged] == [stale.source_digest]
    reopened.close()


def test_a_reopen_from_a_checkpoint_with_no_object_changed_reads_every_fold_back(
    tmp_path: Path,
) -> None:
    engine, _ = _closed_session(tmp_path / "state")
    reopened = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    assert reopened.status().damaged == ()
    assert_lossless(reopened)  # every fold read back whole and verified
    reopened.close()
