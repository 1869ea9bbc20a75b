"""The commit preview: a dry run whose figures are the real commit's, and that changes nothing."""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_agent.bundled_traces import traces_folder
from pifold_agent.importers import load_trace
from pifold_core.commit import CommitOutcome
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions
from pifold_core.preview import CommitPreview, PreviewError, first_difference
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_lossless,
    assert_reopens_identically,
    folded_engine,
    full_state,
    pending_engine,
    reopen,
)

TRACES = traces_folder()
CODEX = TRACES / "codex-soulpass" / "codex-session.jsonl"


def files_of(state_dir: Path) -> dict[str, tuple[int, int]]:
    """Every file under the state folder with its size and modification time."""
    return {
        str(path.relative_to(state_dir)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(state_dir.rglob("*"))
        if path.is_file()
    }


def preview_unchanged(engine: Engine, cause: str) -> CommitPreview:
    """Preview ``cause`` and check that no state and no file changed."""
    state, files = full_state(engine), files_of(engine.state_dir)
    preview = engine.preview_commit(cause)
    after = full_state(engine)
    for key, value in state.items():
        assert after[key] == value, f"{key} changed"
    assert files_of(engine.state_dir) == files
    return preview


def check_matches(
    preview: CommitPreview, outcome: CommitOutcome, before: list[str], after: list[str]
) -> None:
    """The preview's figures are the ones the commit produced (``before`` and ``after``: the
    projection's digests around the commit)."""
    assert preview.cause == outcome.cause
    assert preview.target == outcome.target
    assert preview.tokens_before == outcome.tokens_before
    assert preview.tokens_after == outcome.tokens_after
    assert [mark.id for mark in preview.landing] == outcome.applied_marks
    assert [mark.id for mark in preview.held] == outcome.held_marks
    assert dict(preview.dropped) == outcome.dropped_marks
    assert [fold.handle for fold in preview.folds] == [b.fold.handle for b in outcome.built]
    assert list(preview.refolded) == outcome.refolded
    assert preview.clipped == len(outcome.clipped)
    assert preview.withdrawn == len(outcome.withdrawn)
    assert preview.short_reason == outcome.short_reason
    assert preview.first_changed == first_difference(before, after)
    assert preview.messages_after == len(after)
    assert preview.refused is not outcome.changed


def commit_and_check(engine: Engine, preview: CommitPreview) -> CommitOutcome:
    before = engine.view.projection.digests()
    outcome = engine.commit_now()
    check_matches(preview, outcome, before, engine.view.projection.digests())
    first = preview.first_changed
    assert first is not None
    assert engine.view.projection.digests()[:first] == before[:first]
    tail = engine.view.projection.items[first:]
    assert preview.uncached_tokens == sum(item.tokens for item in tail)
    return outcome


def test_command_preview_changes_nothing_then_equals_the_commit(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    preview = preview_unchanged(engine, "command")
    assert preview.landing and preview.folds and preview.freed_tokens > 0
    assert preview.refusal is None
    # Stalest first: spans land in transcript order, each after the tool marks inside it.
    starts = [engine.view.transcript.index_of[mark.start_id] for mark in preview.landing]
    spans = [
        start for start, mark in zip(starts, preview.landing, strict=True) if mark.kind == "span"
    ]
    assert len(spans) > 1 and spans == sorted(spans)
    # A second preview gives the same figures: the first left nothing behind.
    assert engine.preview_commit("command") == preview
    commit_and_check(engine, preview)
    engine.prepare_request()
    assert_lossless(engine)
    assert_reopens_identically(engine)


def test_preview_of_an_empty_commit_is_a_refusal(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    engine.view.marks.clear()  # nothing pending: the folded engine's commit took every mark
    preview = preview_unchanged(engine, "command")
    assert preview.refused and preview.refusal is not None
    assert "nothing staged" in preview.refusal
    assert preview.first_changed is None and preview.uncached_tokens == 0
    assert preview.freed_tokens == 0
    assert engine.settled_boundary() == len(engine.view.projection.items)


def test_preview_when_folding_stopped_says_why(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    engine._state.stop_folding("commit could not be saved: disk full")
    preview = preview_unchanged(engine, "command")
    assert preview.refusal == "folding stopped: commit could not be saved: disk full"
    assert not preview.landing and not preview.folds
    assert_clean_audit(engine)


@pytest.mark.parametrize("cause", ["expand fold-1", "", 3, None])
def test_unknown_cause_is_refused_by_name(tmp_path: Path, cause: object) -> None:
    engine, _ = pending_engine(tmp_path)
    state = full_state(engine)
    with pytest.raises(PreviewError, match="cannot preview a commit with cause"):
        engine.preview_commit(cause)  # type: ignore[arg-type]
    assert full_state(engine) == state


def test_threshold_preview_stops_at_the_band(tmp_path: Path) -> None:
    # A budget whose band target sits above the marks' total: the band stops early.
    engine, _ = pending_engine(tmp_path, count=6)
    tokens = engine.view.projection.tokens
    engine.apply_options(
        small_options(budget=int(tokens / 0.6), min_fold_chars=2_000, min_target=0.5)
    )
    command = engine.preview_commit("command")
    band = preview_unchanged(engine, "threshold")
    assert band.target is not None and band.tokens_after <= band.target
    assert band.waiting, "the band should leave later marks pending"
    assert len(band.landing) < len(command.landing)
    landed = [mark.id for mark in band.landing]
    assert landed == [mark.id for mark in command.landing][: len(landed)]
    # The settled boundary is where the band commit's bytes first change.
    assert engine.settled_boundary() == band.first_changed


def test_previews_equal_every_commit_of_a_replayed_trace(tmp_path: Path) -> None:
    """Drive a real trace; before each request that commits, the threshold preview made just
    before it matches the commit, and the settled boundary's prefix survives it."""
    trace = load_trace(CODEX)
    engine = Engine.open(tmp_path / "state", EngineOptions(budget=60_000), host_measures=False)
    checked = 0
    for entry in trace.entries:
        if entry.kind == "assistant":
            due = engine.expected_tokens() >= engine.options.max_tokens
            preview = engine.preview_commit("threshold") if due else None
            boundary = engine.settled_boundary() if due else None
            before = engine.view.projection.digests()
            request = engine.prepare_request()
            if request.commit is not None:
                assert preview is not None and boundary is not None
                check_matches(preview, request.commit, before, request.digests)
                assert request.digests[:boundary] == before[:boundary]
                first = preview.first_changed
                assert first is not None
                assert preview.uncached_tokens == sum(
                    item.tokens for item in engine.view.projection.items[first:]
                )
                checked += 1
        engine.append(entry)
    assert checked >= 3
    # And the final /fold preview equals the command commit.
    preview = preview_unchanged(engine, "command")
    if not preview.refused:
        commit_and_check(engine, preview)
    engine.prepare_request()
    assert_clean_audit(engine)
    assert_lossless(engine)
    engine.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), budget=st.integers(4_000, 20_000))
def test_preview_equals_commit_on_random_sessions(seed: int, budget: int) -> None:
    with TemporaryDirectory() as folder:
        engine = Engine.open(Path(folder) / "s", small_options(budget=budget), CharCounter())
        entries = random_session(seed)
        drive(engine, entries[: len(entries) // 2])
        preview = preview_unchanged(engine, "command")
        before = engine.view.projection.digests()
        outcome = engine.commit_now()
        check_matches(preview, outcome, before, engine.view.projection.digests())
        drive(engine, entries[len(entries) // 2 :])
        assert_clean_audit(engine)
        engine.close()


def test_commit_history_lists_every_commit_and_survives_reopen(tmp_path: Path) -> None:
    """``/fold-status`` shows the history; it must be the same after a restart."""
    engine, _ = folded_engine(tmp_path, count=6)
    engine.view.marks.clear()
    first = engine.status().commit_history
    assert [view.number for view in first] == [1]
    request = engine.view.audit_counts.requests
    engine.commit_now("command")  # an empty commit is still a commit in the history
    engine.prepare_request()
    history = engine.status().commit_history
    assert [view.number for view in history] == [1, 2]
    assert history[-1] == engine.status().last_commit
    assert history[-1].request == request + 1
    assert history[-1].entries == len(engine.view.transcript)
    assert history[-1].newest_timestamp_ms == engine.view.transcript.entries[-1].timestamp_ms
    assert history[0].folds_made > 0 and history[0].tokens_after < history[0].tokens_before
    reopened = reopen(engine)
    assert reopened.status().commit_history == history
    reopened.close()


def test_settled_boundary_is_kept_until_something_that_moves_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = pending_engine(tmp_path, count=6)
    first = engine.settled_boundary()
    calls: list[str] = []
    real = engine._commits.preview  # the dry run behind preview_commit and the boundary

    def counting(cause: str = "command") -> object:
        calls.append(cause)
        return real(cause)

    monkeypatch.setattr(engine._commits, "preview", counting)
    assert engine.settled_boundary() == first
    assert calls == []  # answered from what it kept
    pending = sorted(engine.view.marks.values(), key=lambda mark: mark.start)
    assert pending, "the session should have pending marks"
    engine.unmark(pending[0].id)  # the stalest mark decided where the commit starts
    fresh = real("threshold").first_changed
    expected = len(engine.view.projection.items) if fresh is None else fresh
    assert engine.settled_boundary() == expected
    assert calls == ["threshold"]
