"""``blacklistAutoFoldTools``: those tools' results stay raw through every commit (DESIGN §9)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pifold_core.engine import Engine
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, assert_lossless, shown_raw


def _session() -> SessionBuilder:
    """A long turn mixing `read` batches with `bash` batches, results large enough to fold."""
    session = SessionBuilder()
    session.user("Investigate the failing build in src/app.py")
    for number in range(12):
        tool = "bash" if number % 3 == 0 else "read"
        session.batch([3_000, 2_500], text=f"step {number}", tool=tool, seed=number)
    session.user("and now?")
    session.assistant("Summary follows.")
    return session


def _blacklisted_indices(engine: Engine) -> list[int]:
    return [
        index
        for index, entry in enumerate(engine.view.transcript.entries)
        if entry.kind == "tool_result" and entry.tool_name == "bash"
    ]


def test_blacklisted_results_stay_raw_through_commits(tmp_path: Path) -> None:
    options = replace(
        # 18k: at 12k the raw bash results leave no runway (issue 12), so nothing commits.
        small_options(budget=18_000, min_fold_chars=2_000),
        blacklist=frozenset({"bash"}),
    )
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    requests = drive(engine, _session().entries)
    assert any(request.commit is not None for request in requests)
    assert engine.view.forest.folds, "the other tools' results were folded"
    indices = _blacklisted_indices(engine)
    assert indices
    for index in indices:
        assert engine.view.forest.root_containing(index) is None, index
        assert shown_raw(engine, index), index
    assert_clean_audit(engine)
    assert_lossless(engine)
    engine.close()
    reopened = Engine.open(tmp_path / "state", None, CharCounter())
    try:
        assert reopened.view.projection.digests() == engine.view.projection.digests()
        assert reopened.options.blacklist == frozenset({"bash"})
    finally:
        reopened.close()


def test_without_the_blacklist_the_same_results_fold(tmp_path: Path) -> None:
    engine = Engine.open(
        tmp_path / "state", small_options(budget=12_000, min_fold_chars=2_000), CharCounter()
    )
    drive(engine, _session().entries)
    assert any(engine.view.forest.root_containing(index) for index in _blacklisted_indices(engine))
    assert_clean_audit(engine)
    assert_lossless(engine)


def test_blacklisting_live_protects_results_from_the_next_commit(tmp_path: Path) -> None:
    engine = Engine.open(
        tmp_path / "state", small_options(budget=1_000_000, min_fold_chars=2_000), CharCounter()
    )
    drive(engine, _session().entries)
    engine.apply_options(replace(engine.options, blacklist=frozenset({"bash"})))
    engine.commit_now()
    for index in _blacklisted_indices(engine):
        assert engine.view.forest.root_containing(index) is None, index
    assert engine.prepare_request().record.classification == "attributed"
    assert_clean_audit(engine)
    assert_lossless(engine)
    engine.close()
    reopened = Engine.open(tmp_path / "state", None, CharCounter())
    try:
        assert reopened.view.projection.digests() == engine.view.projection.digests()
    finally:
        reopened.close()
