"""Native compaction planning on small transcripts, cut points computed by hand."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.compaction import (
    CompactionSettings,
    CompactionSettingsError,
    FileOperations,
    PlanningError,
    estimate_context_tokens,
    estimate_tokens,
    find_cut_point,
    find_turn_start,
    plan_compaction,
)
from pifold_core.entries import Entry, EntryKind, ImageBlock, TextBlock, ToolCallBlock, Usage


def entries_of(kinds: list[EntryKind]) -> list[Entry]:
    made: list[Entry] = []
    call_id = "none"
    for number, kind in enumerate(kinds):
        entry_id = f"e{number:03d}"
        if kind == "assistant":
            call_id = f"c{number}"
            made.append(
                Entry(
                    entry_id,
                    kind,
                    number,
                    (ToolCallBlock(call_id, "read", {"path": f"f{number}.py"}),),
                )
            )
        elif kind == "tool_result":
            made.append(
                Entry(
                    entry_id, kind, number, (TextBlock("out"),), call_id=call_id, tool_name="read"
                )
            )
        else:
            made.append(Entry(entry_id, kind, number, (TextBlock(f"ask {number}"),)))
    return made


def test_the_cut_is_the_first_entry_where_the_kept_total_reaches_the_budget() -> None:
    kinds: list[EntryKind] = ["user", "assistant", "tool_result", "assistant", "user", "assistant"]
    tokens = [100, 50, 5_000, 100, 100, 200]
    # Back from the end: 200, then 300 at index 4, a user message: cut there, no split.
    assert find_cut_point(kinds, tokens, 0, 300) == 4
    assert find_turn_start(kinds, 4, 0) is None
    plan = plan_compaction(entries_of(kinds), tokens, 0, 300)
    assert plan is not None and not plan.is_split_turn
    assert [entry.id for entry in plan.history] == ["e000", "e001", "e002", "e003"]
    assert plan.first_kept_entry_id == "e004" and plan.turn_prefix == ()


def test_a_cut_inside_a_turn_splits_it_into_history_and_turn_prefix() -> None:
    kinds: list[EntryKind] = ["user", "assistant", "tool_result", "assistant", "user", "assistant"]
    tokens = [100, 50, 5_000, 100, 100, 200]
    # 200 at index 5 already reaches 150: the cut is the assistant, inside the turn of 4.
    plan = plan_compaction(entries_of(kinds), tokens, 0, 150, previous_summary="old")
    assert plan is not None and plan.first_kept == 5 and plan.turn_start == 4
    assert [entry.id for entry in plan.history] == ["e000", "e001", "e002", "e003"]
    assert [entry.id for entry in plan.turn_prefix] == ["e004"]
    assert plan.previous_summary == "old"


def test_a_tool_result_never_opens_the_window() -> None:
    kinds: list[EntryKind] = ["user", "assistant", "tool_result", "tool_result", "assistant"]
    tokens = [10, 10, 100, 100, 10]
    # 10, 110, 210 at index 2 (a result): forward to the assistant at 4.
    assert find_cut_point(kinds, tokens, 0, 150) == 4
    plan = plan_compaction(entries_of(kinds), tokens, 0, 150, previous_summary="old")
    assert plan is not None and plan.turn_start == 0 and plan.history == ()
    # Nothing precedes the split turn: the previous summary is not carried.
    assert plan.previous_summary is None


def test_when_only_results_follow_the_cut_steps_back_to_their_call() -> None:
    kinds: list[EntryKind] = ["user", "assistant", "tool_result", "tool_result"]
    assert find_cut_point(kinds, [10, 10, 100, 100], 0, 150) == 1


def test_nothing_to_compact() -> None:
    kinds: list[EntryKind] = ["user", "assistant", "tool_result"]
    assert find_cut_point(kinds, [10, 10, 10], 0, 100) is None  # everything fits
    assert find_cut_point(kinds, [10, 10, 500], 1, 100) is None  # the cut is the boundary
    assert plan_compaction(entries_of(kinds), [10, 10, 10], 0, 100) is None


def test_the_boundary_is_the_previous_first_kept_entry() -> None:
    kinds: list[EntryKind] = [
        "user",
        "assistant",
        "tool_result",
        "assistant",
        "tool_result",
        "assistant",
    ]
    tokens = [10, 10, 10, 10, 10, 10]
    # The turn began at 0, before the boundary at 2: one call, no split.
    assert find_turn_start(kinds, 5, 2) is None
    plan = plan_compaction(entries_of(kinds), tokens, 2, 10)
    assert plan is not None and plan.start == 2 and not plan.is_split_turn
    assert [entry.id for entry in plan.history] == ["e002", "e003", "e004"]


def test_bad_planner_input_is_refused() -> None:
    with pytest.raises(PlanningError, match="2 entries but 1 token counts"):
        find_cut_point(["user", "assistant"], [1], 0, 10)
    with pytest.raises(PlanningError, match="boundary 5 is outside the 2 entries"):
        find_cut_point(["user", "assistant"], [1, 1], 5, 10)


def test_files_touched_are_collected_and_carried() -> None:
    session = [
        Entry("u", "user", 0, (TextBlock("go"),)),
        Entry(
            "a",
            "assistant",
            1,
            (
                ToolCallBlock("c1", "read", {"path": "a.py"}),
                ToolCallBlock("c2", "edit", {"path": "b.py", "oldText": "x", "newText": "y"}),
                ToolCallBlock("c3", "read", {"path": "b.py"}),
                ToolCallBlock("c4", "bash", {"command": "ls"}),
            ),
        ),
        Entry("k", "user", 2, (TextBlock("next"),)),
    ]
    previous = FileOperations(frozenset({"old.py"}), frozenset({"w.py"}))
    plan = plan_compaction(session, [100, 100, 100], 0, 100, previous_files=previous)
    assert plan is not None
    assert plan.file_operations == FileOperations(
        frozenset({"a.py", "old.py"}), frozenset({"b.py", "w.py"})
    )


@given(
    st.lists(
        st.sampled_from(["user", "assistant", "tool_result", "note"]), min_size=1, max_size=40
    ),
    st.data(),
)
def test_plans_partition_the_window_and_never_open_on_a_result(
    kinds: list[EntryKind], data: st.DataObject
) -> None:
    tokens = data.draw(st.lists(st.integers(0, 500), min_size=len(kinds), max_size=len(kinds)))
    start = data.draw(st.integers(0, len(kinds) - 1))
    keep = data.draw(st.integers(1, 2_000))
    entries = entries_of(kinds)
    plan = plan_compaction(entries, tokens, start, keep)
    if plan is None:
        return
    assert kinds[plan.first_kept] != "tool_result"
    assert start < plan.first_kept < len(kinds)
    assert [*plan.history, *plan.turn_prefix, *plan.kept] == entries[start:]
    if plan.turn_start is not None:
        assert kinds[plan.turn_start] in ("user", "note") and kinds[plan.first_kept] not in (
            "user",
            "note",
        )


def test_pi_estimates_and_trigger() -> None:
    assert estimate_tokens(Entry("t", "user", 0, (TextBlock("abcde"),))) == 2
    call = Entry("c", "assistant", 0, (ToolCallBlock("1", "read", {"path": "a"}),))
    assert estimate_tokens(call) == 4  # "read" + '{"path":"a"}' = 16 characters
    assert estimate_tokens(Entry("i", "user", 0, (ImageBlock("image/png", "x" * 99),))) == 1_200
    measured = Entry("m", "assistant", 0, (TextBlock("hi"),), usage=Usage(1_000, 50, 200, 0))
    after = Entry("n", "user", 0, (TextBlock("x" * 40),))
    assert estimate_context_tokens([after, measured, after]) == 1_250 + 10
    assert estimate_context_tokens([after, after], summary_tokens=7) == 27
    # A reply whose usage is unknown measures nothing: the one before it is used (issue 18).
    unknown = Entry("u", "assistant", 0, (TextBlock("hi"),), usage=Usage(None, 50, None, None))
    assert estimate_context_tokens([measured, after, unknown]) == 1_250 + 10 + 1
    settings = CompactionSettings()
    assert settings.threshold(200_000) == 183_616
    assert not settings.should_compact(183_616, 200_000) and settings.should_compact(
        183_617, 200_000
    )
    assert not CompactionSettings(enabled=False).should_compact(10**9, 200_000)
    assert (settings.history_summary_budget, settings.turn_prefix_summary_budget) == (13_107, 8_192)
    with pytest.raises(
        CompactionSettingsError, match="keep_recent_tokens must be a positive integer"
    ):
        CompactionSettings(keep_recent_tokens=0)
