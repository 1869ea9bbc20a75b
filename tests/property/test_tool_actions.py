"""Random sessions interleaved with random ``pi_fold_context`` actions (issue 3).

Each model request may be followed by a few tool actions, valid (drawn from the session's
real folds, marks and entries) or invalid (wrong ids, paths, bad slices, oversized briefs,
unknown actions). After every step: the forest is valid, every fold round-trips byte for
byte, no call is split from its result, an action that does not move bytes left the
projection untouched, an error changed nothing, and every rewrite is attributed.
"""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_core.engine import Engine
from pifold_core.tool.runner import run_tool
from tests.core.builders import CharCounter, random_session, small_options
from tests.core.engine_checks import full_state
from tests.property.test_engine_invariants import check_invariants

SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

BAD_IDS = ["", "fold-000000000000", "fold-xyz", "../etc/passwd", "mark-999", "a/b", "entry?"]


def _valid_action(engine: Engine, data: st.DataObject) -> dict[str, Any]:
    folds = sorted(engine.view.forest.folds)
    marks = sorted(engine.view.marks)
    entries = [entry.id for entry in engine.view.transcript.entries]
    choices = ["status", "status-tree", "peek-entry", "pin-entry", "search"]
    visible = [handle for handle in folds if engine.view.forest.is_visible(handle)]
    expanded = sorted(engine.view.forest.expanded)
    if folds:
        choices += ["peek-fold", "pin-fold"]
    if visible:
        choices += ["expand", "expand"]
    if expanded:
        choices.append("refold")
    if marks:
        choices += ["brief", "unmark", "reboundary"]
    if engine.view.pinned:
        choices.append("unpin")
    choice = data.draw(st.sampled_from(choices))
    if choice == "status":
        return {"action": "status"}
    if choice == "status-tree":
        return {"action": "status", "detail": "tree", "page_size": data.draw(st.integers(1, 5))}
    if choice == "search":
        words = st.sampled_from(["alpha", "value", '"gamma delta"', "src", "Task", "zzz"])
        query: dict[str, Any] = {"action": "search", "query": data.draw(words)}
        if data.draw(st.booleans()):
            query["tool"] = data.draw(st.sampled_from(["read", "bash", "none"]))
        if data.draw(st.booleans()):
            query["limit"] = data.draw(st.integers(1, 50))
        return query
    if choice == "peek-entry":
        return {"action": "peek", "id": data.draw(st.sampled_from(entries))}
    if choice == "peek-fold":
        return {
            "action": "peek",
            "id": data.draw(st.sampled_from(folds)),
            "bytes": data.draw(st.integers(1, 4_000)),
        }
    if choice == "expand":
        return {"action": "expand", "id": data.draw(st.sampled_from(visible))}
    if choice == "refold":
        return {"action": "refold", "id": data.draw(st.sampled_from(expanded))}
    if choice == "pin-entry":
        return {"action": "pin", "ids": [data.draw(st.sampled_from(entries))]}
    if choice == "pin-fold":
        return {"action": "pin", "ids": [data.draw(st.sampled_from(folds))]}
    if choice == "unpin":
        index = data.draw(st.sampled_from(sorted(engine.view.pinned)))
        return {"action": "unpin", "ids": [engine.view.transcript.entries[index].id]}
    mark = data.draw(st.sampled_from(marks))
    if choice == "brief":
        return {"action": "brief", "id": mark, "text": data.draw(st.text(min_size=1, max_size=80))}
    if choice == "unmark":
        return {"action": "unmark", "id": mark}
    # Mostly unit-aligned cuts over closed units (which may still overlap a fold), sometimes
    # any two entries (which may split a call from its result).
    closed = [
        unit
        for unit in engine.view.transcript.units
        if unit.end <= engine.view.transcript.fresh_start
    ]
    if closed and data.draw(st.booleans()):
        first = data.draw(st.integers(0, len(closed) - 1))
        last = data.draw(st.integers(first, len(closed) - 1))
        start = entries[closed[first].start]
        end = entries[closed[last].end - 1]
    else:
        start = data.draw(st.sampled_from(entries))
        end = data.draw(st.sampled_from(entries))
    return {"action": "reboundary", "id": mark, "start": start, "end": end}


def _invalid_action(data: st.DataObject) -> object:
    bad_id = data.draw(st.sampled_from(BAD_IDS))
    return data.draw(
        st.sampled_from(
            [
                {"action": "explode"},
                {"action": "peek", "id": bad_id},
                {"action": "peek", "id": bad_id, "offset": -1},
                {"action": "expand", "id": bad_id},
                {"action": "refold", "id": bad_id},
                {"action": "brief", "id": "mark-1", "text": "x" * 2_001},
                {"action": "brief", "id": "mark-1", "text": "   "},
                {"action": "pin", "ids": []},
                {"action": "pin", "ids": [bad_id]},
                {"action": "unmark", "id": bad_id},
                {"action": "reboundary", "id": bad_id, "start": bad_id, "end": bad_id},
                {"action": "status", "page": 0},
                {"action": "search", "query": data.draw(st.text(max_size=6))},
                {"action": "search", "query": "(x+)*", "regex": True},
                {"action": "search", "query": "ok", "offset": -3},
                "not an object",
                None,
            ]
        )
    )


def _act(engine: Engine, data: st.DataObject) -> bool:
    """Run one random action; returns whether it may have moved bytes (an expand)."""
    valid = data.draw(st.booleans())
    arguments = _valid_action(engine, data) if valid else _invalid_action(data)
    before = full_state(engine)
    result = run_tool(engine, arguments)
    if result.is_error:
        assert result.text.startswith("error")
        after = full_state(engine)
        assert after["log"] == before["log"], "an error wrote to the log"
        assert after == before, arguments
        return False
    if not result.moved_bytes:
        # Marks, pins, briefs, staged refolds and reads never move a byte now.
        assert engine.view.projection.digests() == before["digests"], arguments
    return result.moved_bytes


@SETTINGS
@given(st.integers(0, 10**6), st.data())
def test_random_tool_actions_keep_every_invariant(seed: int, data: st.DataObject) -> None:
    entries = random_session(seed=seed, segments=6, max_batches=4, max_results=2, max_size=3_000)
    options = small_options(budget=6_000, min_fold_chars=1_000, consolidate_after=3)
    with TemporaryDirectory() as folder:
        engine = Engine.open(Path(folder) / "state", options, CharCounter())
        moved = False
        for entry in entries:
            if entry.kind == "assistant":
                request = engine.prepare_request()
                if request.commit is None and not moved:
                    assert request.record.classification == "append"
                moved = False
                check_invariants(engine)
                for _ in range(data.draw(st.integers(0, 3))):
                    moved = _act(engine, data) or moved
                    check_invariants(engine)
            engine.append(entry)
        engine.prepare_request()
        check_invariants(engine)
        digests = engine.view.projection.digests()
        marks, pins = dict(engine.view.marks), set(engine.view.pinned)
        engine.close()

        reopened = Engine.open(Path(folder) / "state", None, CharCounter())
        assert reopened.view.projection.digests() == digests
        assert reopened.view.marks == marks
        assert reopened.view.pinned == pins
        reopened.close()
