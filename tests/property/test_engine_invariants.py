"""Engine invariants over random sessions (hypothesis).

Random sessions mix chapters and single long turns, random result sizes and occasional
errors, at budgets small enough that commits happen. Random verbs (expand, refold, commit
now) are interleaved. After every request the test checks the invariants of DESIGN §3-§5.
"""

from __future__ import annotations

import random
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_core.engine import Engine, Request
from pifold_core.entries import Entry
from pifold_core.options import EngineOptions
from pifold_core.projection import Projection
from tests.core.builders import CharCounter, expected_source, random_session, small_options

Scenario = tuple[int, dict[str, Any], dict[str, Any]]
"""A seed, keyword arguments of ``random_session`` and of ``small_options``."""

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check_invariants(engine: Engine) -> None:
    transcript, forest = engine.view.transcript, engine.view.forest
    # The forest obeys every rule.
    forest.validate(transcript)
    # Every fold round-trips byte for byte, at any depth.
    for fold in forest.folds.values():
        assert engine.peek(fold.handle).data == expected_source(engine, fold), fold.handle
        # No fold separates a call from its result.
        if fold.kind == "tool":
            call_sites = {
                transcript.call_site.get(str(e.call_id))
                for e in transcript.entries[fold.start : fold.end]
            }
            assert len(call_sites) == 1
            site = call_sites.pop()
            assert site is None or site < fold.start
        else:
            assert transcript.split_call(fold.start, fold.end) is None
    # In the window every tool result follows the call it answers.
    calls_seen: set[str] = set()
    for item in engine.view.projection.items:
        message = item.message
        if message["role"] == "assistant":
            for block in message["content"]:
                if block.get("type") == "tool_call":
                    calls_seen.add(block["id"])
        elif message["role"] == "tool":
            call_id = str(message["call_id"])
            assert call_id in calls_seen or call_id not in transcript.call_site
    # Items tile the transcript.
    position = 0
    for item in engine.view.projection.items:
        assert item.start == position
        position = item.end
    assert position == len(transcript)
    # A projection rendered from scratch equals the incremental one.
    fresh = Projection(transcript, forest, CharCounter())
    fresh.views = dict(engine.view.projection.views)  # clipped and withdrawn results, by index
    fresh.rebuild()
    assert fresh.digests() == engine.view.projection.digests()
    assert fresh.tokens == engine.view.projection.tokens
    # Every rewrite so far was attributed.
    assert engine.view.audit_counts.unattributed == 0


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    session = {
        "seed": draw(st.integers(0, 10**6)),
        "segments": draw(st.integers(2, 7)),
        "max_batches": draw(st.integers(1, 6)),
        "max_results": draw(st.integers(1, 3)),
        "max_size": draw(st.sampled_from([600, 2_000, 5_000])),
        "error_rate": draw(st.sampled_from([0.0, 0.2, 0.5])),
    }
    options = {
        "budget": draw(st.sampled_from([2_500, 4_000, 8_000])),
        "max_target": draw(st.sampled_from([0.6, 0.8])),
        "min_target": draw(st.sampled_from([0.2, 0.4])),
        "min_fold_chars": draw(st.sampled_from([300, 1_000, 3_000])),
        "consolidate_after": draw(st.sampled_from([2, 3, 10])),
    }
    return draw(st.integers(0, 2**16)), session, options


@SETTINGS
@given(scenarios(), st.data())
def test_engine_invariants_hold_after_every_request(
    scenario: Scenario, data: st.DataObject
) -> None:
    _, session_args, option_args = scenario
    entries = random_session(**session_args)
    options = small_options(**option_args)
    with TemporaryDirectory() as folder:
        engine = Engine.open(Path(folder) / "state", options, CharCounter())
        verb_since_request = False
        previous: Request | None = None
        for entry in entries:
            if entry.kind == "assistant":
                request = engine.prepare_request()
                if request.commit is None and not verb_since_request:
                    # Between commits every request is a pure append.
                    assert request.record.classification == "append"
                    if previous is not None:
                        assert request.digests[: len(previous.digests)] == previous.digests
                if request.commit is not None:
                    assert request.commit.tokens_before >= options.max_tokens
                check_invariants(engine)
                previous, verb_since_request = request, False
                verb_since_request = _random_verb(engine, data)
            before = engine.view.projection.digests()
            kept = engine.append(entry)
            # Laying marks never moves a byte: an append only adds the new message.
            assert engine.view.projection.digests() == [*before, kept.wire_digest]
        engine.prepare_request()
        check_invariants(engine)
        engine.close()

        reopened = Engine.open(Path(folder) / "state", None, CharCounter())
        assert reopened.view.torn_tail is None
        assert reopened.view.projection.digests() == engine.view.projection.digests()
        assert reopened.view.audit_counts == engine.view.audit_counts
        assert reopened.view.marks == engine.view.marks
        assert reopened.view.staged_refolds == engine.view.staged_refolds
        assert reopened.view.forest.expanded == engine.view.forest.expanded
        reopened.close()


def _random_verb(engine: Engine, data: st.DataObject) -> bool:
    """Maybe run one verb; return whether it could rewrite bytes already sent."""
    choice = data.draw(st.sampled_from(["none", "none", "none", "expand", "refold", "commit"]))
    if choice == "expand":
        visible = sorted(h for h in engine.view.forest.folds if engine.view.forest.is_visible(h))
        if visible:
            handle = data.draw(st.sampled_from(visible))
            engine.expand(handle)
            assert engine.view.forest.is_visible_open(handle)
            return True
    elif choice == "refold":
        candidates = sorted(engine.view.forest.expanded - engine.view.staged_refolds)
        if candidates:
            before = engine.view.projection.digests()
            engine.refold(data.draw(st.sampled_from(candidates)))
            assert engine.view.projection.digests() == before  # staged, nothing moves
    elif choice == "commit":
        engine.commit_now()
        return True
    return False


def _run(
    engine_dir: Path,
    entries: list[Entry],
    options: EngineOptions,
    verb_seed: int,
    cut: int | None,
) -> tuple[list[list[str]], Engine]:
    """Drive a session with seeded verbs; when ``cut`` is set, close and reopen there."""
    rng = random.Random(verb_seed)
    engine = Engine.open(engine_dir, options, CharCounter())
    digests: list[list[str]] = []
    for position, entry in enumerate(entries):
        if position == cut:
            engine.close()
            engine = Engine.open(engine_dir, None, CharCounter())
        if entry.kind == "assistant":
            digests.append(engine.prepare_request().digests)
            roll = rng.random()
            if roll < 0.15:
                visible = sorted(
                    h for h in engine.view.forest.folds if engine.view.forest.is_visible(h)
                )
                if visible:
                    engine.expand(rng.choice(visible))
            elif roll < 0.3:
                candidates = sorted(engine.view.forest.expanded - engine.view.staged_refolds)
                if candidates:
                    engine.refold(rng.choice(candidates))
            elif roll < 0.35:
                engine.commit_now()
        engine.append(entry)
    digests.append(engine.prepare_request().digests)
    return digests, engine


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(), st.integers(0, 10**6), st.floats(0.1, 0.9))
def test_reopening_mid_session_changes_nothing(
    scenario: Scenario, verb_seed: int, share: float
) -> None:
    _, session_args, option_args = scenario
    entries = random_session(**session_args)
    options = small_options(**option_args)
    cut = max(1, int(len(entries) * share))
    with TemporaryDirectory() as folder:
        whole, whole_engine = _run(Path(folder) / "whole", entries, options, verb_seed, None)
        split, split_engine = _run(Path(folder) / "split", entries, options, verb_seed, cut)
        assert split == whole
        assert split_engine.view.audit_counts == whole_engine.view.audit_counts
        assert split_engine.view.commit_count == whole_engine.view.commit_count
        assert split_engine.view.forest.folds == whole_engine.view.forest.folds
        whole_engine.close()
        split_engine.close()
