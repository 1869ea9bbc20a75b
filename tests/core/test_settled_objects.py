"""What a session holds sits out the cycle collector's full passes (issue 23).

Counted, never timed: after each commit and after an open, none of the session's folds is in
a generation a collection walks (``gc.get_objects()`` lists exactly those), so a full pass
costs what was made since, not the session's length
(:mod:`pifold_core.settled_objects`). A closed engine hands its objects back and is
collected; a host that turned the collector off freezes nothing.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from pathlib import Path

from pifold_core.engine import Engine, Request
from tests.core.builders import CharCounter, drive, random_session, small_options


def _folds_walked(engine: Engine) -> int:
    """How many of the session's folds a full collection would walk now."""
    folds = {id(fold) for fold in engine.view.forest.folds.values()}
    return sum(1 for candidate in gc.get_objects() if id(candidate) in folds)


def _driven(path: Path, after_request: Callable[[Engine, Request], None] | None = None) -> Engine:
    engine = Engine.open(path / "state", small_options(budget=6_000), CharCounter())
    drive(engine, random_session(9, 12), after_request)
    assert engine.view.commit_count >= 3
    return engine


def test_after_each_commit_no_fold_is_walked_by_a_full_collection(tmp_path: Path) -> None:
    gc.unfreeze()  # from a process with nothing frozen, whatever ran before
    walked: list[int] = []
    folds: list[int] = []

    def check(engine: Engine, request: Request) -> None:
        if request.commit is not None:
            walked.append(_folds_walked(engine))
            folds.append(len(engine.view.forest))

    engine = _driven(tmp_path, check)
    assert len(walked) >= 3 and folds[-1] > 0
    assert walked == [0] * len(walked), walked
    assert gc.get_freeze_count() > 0
    engine.close()
    # Handed back on close: the folds are walked again, as any object is.
    assert gc.get_freeze_count() == 0
    assert _folds_walked(engine) == len(engine.view.forest) > 0


def test_an_open_leaves_the_session_it_put_back_out_of_full_collections(
    tmp_path: Path,
) -> None:
    _driven(tmp_path).close()
    gc.unfreeze()
    reopened = Engine.open(tmp_path / "state", None, CharCounter(), read_only=True)
    try:
        assert len(reopened.view.forest) > 0
        assert _folds_walked(reopened) == 0
    finally:
        reopened.close()


def test_a_closed_engine_is_collected_though_it_froze_its_objects(tmp_path: Path) -> None:
    engine = _driven(tmp_path)
    assert gc.get_freeze_count() > 0
    gone = weakref.ref(engine)
    engine.close()
    del engine
    gc.collect()
    assert gone() is None


def test_a_host_that_turned_the_collector_off_has_nothing_frozen(tmp_path: Path) -> None:
    gc.unfreeze()
    gc.disable()
    try:
        engine = _driven(tmp_path)
        assert gc.get_freeze_count() == 0
        assert not gc.isenabled()
        engine.close()
    finally:
        gc.enable()
