"""Consolidation's search for owed runs (issue 23: no commit's cost grows with its age).

A fold's level decides which roots may be grouped. Computed afresh at every commit, the
levels walked every fold under every root, all of the session's folds each time; now the
commit runner keeps them for the session, each computed once, and they must stay right
across everything that makes and takes back folds (dry runs for the settled boundary,
expands, refolds).
"""

from __future__ import annotations

from pathlib import Path

from pifold_core.consolidation import FoldLevels
from pifold_core.engine import Engine
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.core.engine_checks import assert_clean_audit


def test_levels_are_computed_once_for_the_session_and_stay_right(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    drive(engine, random_session(11, segments=12), lambda engine, _request: None)
    engine.settled_boundary()  # a dry run: folds made and taken back
    forest = engine.view.forest
    consolidated = [fold for fold in forest.folds.values() if fold.kind == "consolidated"]
    assert consolidated, "the session must consolidate"
    kept = engine._commits._levels
    assert 0 < kept.computed == len(kept)
    fresh = FoldLevels()
    assert [kept.of(fold, forest) for fold in consolidated] == [
        fresh.of(fold, forest) for fold in consolidated
    ]
    assert max(fresh.of(fold, forest) for fold in consolidated) >= 2
    assert_clean_audit(engine)
    engine.close()
