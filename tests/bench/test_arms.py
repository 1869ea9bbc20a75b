"""Each arm on small synthetic sessions: what it sends, what it declares, what it bills."""

from __future__ import annotations

import json
from pathlib import Path

from pifold_agent.pricing.arm_request import ArmRequest
from pifold_agent.pricing.compaction import (
    DEFAULT_SUMMARY_TOKENS,
    INSTRUCTION_TOKENS,
    KEEP_RECENT_TOKENS,
    NO_PRIOR_HISTORY_TOKENS,
    SPLIT_TURN_JOIN_TOKENS,
    TURN_PREFIX_INSTRUCTION_TOKENS,
    NativeCompactionArm,
    serialise,
    turn_prefix_summary_tokens,
)
from pifold_bench.arms import EngineArm
from pifold_bench.figures import arm_figures
from pifold_bench.list_arms import CLEARED_TEXT, ClipOnlyArm, LinearArm
from pifold_bench.native import recorded_summaries
from pifold_bench.prepare import BenchSettings, prepare_entries
from pifold_bench.run import run_arm
from pifold_core.entries import Entry, TextBlock
from tests.bench.conftest import BOOK, COUNTER, prepared
from tests.bench.helpers import Session


def tokens_of(entry: Entry) -> int:
    return COUNTER.count_message(entry.wire, entry.wire_digest)


def test_none_sends_the_whole_history_and_reports_where_it_passes_the_budget() -> None:
    entries = Session().long_turn(batches=10, characters=4_000)
    trace = prepared(entries, budget=5_000)
    run = run_arm(LinearArm(COUNTER), trace)
    assert set(run.classes) == {"append"}
    assert run.windows == sorted(run.windows)
    history = 0
    expected = []
    for entry in entries:
        if entry.kind == "assistant":
            expected.append(history)
        history += tokens_of(entry)
    assert run.windows == expected


def test_clip_only_clears_all_but_the_newest_three_results_once_triggered() -> None:
    entries = Session().long_turn(batches=10, characters=4_000)
    trace = prepared(entries, budget=5_000)
    arm = ClipOnlyArm(COUNTER, trigger_tokens=4_000)
    run = run_arm(arm, trace)
    results = [message for message in arm.final_messages() if message["role"] == "tool"]
    cleared = [
        message
        for message in results
        if message["content"] == [{"type": "text", "text": CLEARED_TEXT}]
    ]
    assert len(results) == 10 and len(cleared) == 7
    assert results[-3:] == [entry.wire for entry in entries if entry.kind == "tool_result"][-3:]
    assert "unattributed" not in run.classes
    assert run.classes.count("attributed") == arm.events > 0


def test_clip_only_does_nothing_below_its_trigger() -> None:
    entries = Session().long_turn(batches=4, characters=400)
    arm = ClipOnlyArm(COUNTER, trigger_tokens=1_000_000)
    run = run_arm(arm, prepared(entries, budget=1_000_000))
    assert arm.events == 0 and set(run.classes) == {"append"}


def test_native_compacts_over_the_budget_keeping_the_newest_tokens() -> None:
    entries = Session().long_turn(batches=24, characters=4_000)
    budget = 8_000
    trace = prepared(entries, budget=budget, summary_tokens=300)
    arm = NativeCompactionArm(COUNTER, budget, summary_tokens=300, keep_recent_tokens=2_500)
    run = run_arm(arm, trace)
    assert arm.compactions >= 2
    assert len(run.side_bills) == arm.compactions
    assert all(size <= budget for size in run.windows)
    kept = entries[arm.kept_from :]
    assert kept[0].kind != "tool_result"  # a result never loses its call
    # The walk back stopped once 2,500 tokens were counted, then moved forward past the
    # tool result it stopped on so that the result stays with its call.
    skipped = entries[arm.kept_from - 1]
    assert skipped.kind == "tool_result"
    assert sum(tokens_of(entry) for entry in [skipped, *kept]) >= 2_500
    assert arm.final_messages()[0] == arm.summary
    assert "unattributed" not in run.classes
    assert run.classes.count("attributed") == arm.compactions


def requests_of(arm: NativeCompactionArm, entries: list[Entry]) -> list[ArmRequest]:
    """Drive ``arm`` as the benchmark does: a request before each assistant entry."""
    requests: list[ArmRequest] = []
    for entry in entries:
        if entry.kind == "assistant":
            requests.append(arm.prepare_request())
        arm.append(entry)
    return requests


def two_turns() -> list[Entry]:
    """A short first turn, then a long second one that the first compaction cuts inside."""
    session = Session()
    session.user("List the modules.")
    call = session.assistant("Listing.", calls=1)
    session.results(call, 6_000)
    session.assistant("Here they are.")
    return session.long_turn(batches=8, characters=4_000, seed=1)


def test_native_splits_a_turn_into_two_summarisation_calls_billed_whole() -> None:
    entries = two_turns()
    second_turn = 4
    assert entries[second_turn].kind == "user"
    arm = NativeCompactionArm(COUNTER, 8_000, summary_tokens=300, keep_recent_tokens=2_500)
    compacting = next(request for request in requests_of(arm, entries) if request.side_calls)
    cut = arm.kept_from
    assert entries[cut].kind == "assistant" and cut > second_turn
    assert arm.split_turns == 1
    history, prefix = compacting.side_calls
    # The history up to the turn's start, with the full instructions, answered by a summary
    # of the recorded length; the turn's prefix up to the cut, with the shorter skeleton,
    # answered within its smaller budget (5/8 of the history summary here).
    assert history.prompt_tokens == INSTRUCTION_TOKENS + COUNTER.count_text(
        serialise(entries[:second_turn])
    )
    assert history.output_tokens == 300
    assert prefix.prompt_tokens == TURN_PREFIX_INSTRUCTION_TOKENS + COUNTER.count_text(
        serialise(entries[second_turn:cut])
    )
    assert prefix.output_tokens == turn_prefix_summary_tokens(300) == 188
    # The window opens with both summaries joined.
    assert compacting.digests[0] != entries[0].wire_digest
    assert compacting.tokens[0] == 300 + SPLIT_TURN_JOIN_TOKENS + 188
    assert compacting.causes == ("compaction 1",)
    # Both calls are billed whole and uncached (no calibration: billed as estimated).
    run = run_arm(
        NativeCompactionArm(COUNTER, 8_000, summary_tokens=300, keep_recent_tokens=2_500),
        prepared(entries, budget=8_000, summary_tokens=300),
    )
    first_two = run.side_bills[:2]
    assert [(bill.fresh_input, bill.cache_read, bill.cache_write) for bill in first_two] == [
        (history.prompt_tokens, 0, 0),
        (prefix.prompt_tokens, 0, 0),
    ]
    assert [bill.output for bill in first_two] == [300, 188]


def test_native_makes_no_history_call_when_nothing_precedes_the_split_turn() -> None:
    entries = Session().long_turn(batches=8, characters=4_000)
    arm = NativeCompactionArm(COUNTER, 8_000, summary_tokens=300, keep_recent_tokens=2_500)
    compacting = next(request for request in requests_of(arm, entries) if request.side_calls)
    (prefix,) = compacting.side_calls
    assert prefix.label == "compaction 1 turn prefix"
    assert prefix.prompt_tokens == TURN_PREFIX_INSTRUCTION_TOKENS + COUNTER.count_text(
        serialise(entries[: arm.kept_from])
    )
    assert compacting.tokens[0] == NO_PRIOR_HISTORY_TOKENS + SPLIT_TURN_JOIN_TOKENS + 188


def test_a_turn_is_split_only_when_it_began_after_the_previous_cut() -> None:
    entries = two_turns()
    arm = NativeCompactionArm(COUNTER, 1_000_000)
    for entry in entries:
        arm.append(entry)
    assert arm.turn_start(4) is None  # a cut on a user message splits nothing
    assert arm.turn_start(6) == 4
    assert arm.turn_start(1) == 0
    arm.kept_from = 5  # a previous cut inside the second turn
    assert arm.turn_start(9) is None  # one call, from the previous cut up to this one


def test_the_previous_summary_is_part_of_the_next_summarisation_prompt() -> None:
    session = Session()
    session.long_turn(batches=8, characters=4_000)
    entries = session.long_turn(batches=8, characters=4_000, seed=2)
    arm = NativeCompactionArm(COUNTER, 8_000, summary_tokens=300, keep_recent_tokens=2_500)
    previous_summary = 0
    previous_cut = 0
    history_calls = 0
    for entry in entries:
        if entry.kind == "assistant":
            request = arm.prepare_request()
            for call in request.side_calls:
                if "turn prefix" in call.label:
                    continue
                history_calls += 1
                cut = arm.kept_from
                # The history ends where the split turn began, or at the cut.
                starts = [
                    number for number in range(previous_cut, cut) if entries[number].kind == "user"
                ]
                end = starts[-1] if starts and entries[cut].kind != "user" else cut
                # The first compaction cut inside the first turn (no history call); every
                # history call after it carries the summary the window opened with until
                # now, whole, beside the newly summarised messages.
                assert previous_summary > 0
                assert call.prompt_tokens == (
                    INSTRUCTION_TOKENS
                    + COUNTER.count_text(serialise(entries[previous_cut:end]))
                    + previous_summary
                )
            if request.side_calls:
                previous_summary = arm.current_summary_tokens
                previous_cut = arm.kept_from
        arm.append(entry)
    assert arm.compactions >= 2 and history_calls >= 1


def test_serialise_cuts_tool_results_to_two_thousand_characters() -> None:
    session = Session()
    call = session.assistant("look", calls=1)
    result = session.results(call, 9_000)[0]
    text = serialise([call, result])
    assert "[Assistant tool calls]: read(" in text
    assert "[... 7000 more characters]" in text
    assert result.text[:2000] in text and result.text[2000:2100] not in text


def test_fold_immediate_rewrites_at_every_mark_and_fold_batches_them(tmp_path: Path) -> None:
    entries = Session().long_turn(batches=24, characters=10_000)
    trace = prepared(entries, budget=30_000)
    fold = run_arm(EngineArm(tmp_path / "fold", 30_000, COUNTER), trace)
    immediate_arm = EngineArm(tmp_path / "immediate", 30_000, COUNTER, immediate=True)
    immediate = run_arm(immediate_arm, trace)
    assert "unattributed" not in fold.classes + immediate.classes
    assert 0 < fold.classes.count("attributed") < immediate.classes.count("attributed")
    assert max(fold.windows) <= 30_000
    # Batched commits re-bill less than one rewrite per mark.
    fresh = [
        sum(bill.fresh_input + bill.cache_write for bill in run.bills) for run in (fold, immediate)
    ]
    assert fresh[0] < fresh[1]


def test_recorded_summaries_are_read_from_every_format(tmp_path: Path) -> None:
    lines = [
        {"type": "compaction", "summary": "pi summary", "firstKeptEntryId": "x"},
        {"type": "user", "isCompactSummary": True, "message": {"content": "claude summary"}},
        {
            "type": "user",
            "isCompactSummary": True,
            "message": {"content": [{"type": "text", "text": "claude blocks"}]},
        },
        {"type": "compacted", "payload": {"message": "codex summary"}},
        {"type": "compacted", "payload": {"message": "", "replacement_history": []}},
        {"type": "message", "message": {"role": "user", "content": "not a summary"}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    snapshot = Entry("g1", "user", 1, (TextBlock("<state_snapshot>\n<goal>x</goal>"),))
    ordinary = Entry("g2", "user", 2, (TextBlock("hello <state_snapshot>"),))
    assert recorded_summaries(path, [snapshot, ordinary]) == [
        "pi summary",
        "claude summary",
        "claude blocks",
        "codex summary",
        snapshot.text,
    ]


def test_the_native_summary_length_comes_from_the_recorded_summaries(tmp_path: Path) -> None:
    session = Session()
    session.user("<state_snapshot>" + " word" * 400)
    entries = session.long_turn(batches=2, characters=500)
    empty = tmp_path / "trace.json"
    empty.write_text("[]", encoding="utf-8")
    summaries = recorded_summaries(empty, entries)
    settings = BenchSettings(budget=10_000)
    from_trace = prepare_entries(entries, empty, "gemini-cli", settings, COUNTER, BOOK, summaries)
    assert from_trace.summary_tokens == COUNTER.count_text(entries[0].text)
    assert "recorded" in from_trace.summary_source
    assert prepared(entries, budget=10_000).summary_tokens == DEFAULT_SUMMARY_TOKENS
    assert prepared(entries, budget=10_000, summary_tokens=999).summary_tokens == 999


def newest_result_session(result_characters: int) -> list[Entry]:
    """Ten small steps, then one call whose single result is ``result_characters`` long."""
    session = Session()
    session.long_turn(batches=10, characters=8_000)
    call = session.assistant("Reading the generated file.", calls=1)
    session.results(call, result_characters)
    session.assistant("Done.")
    return session.entries


def test_native_keeps_a_newest_result_over_the_kept_budget_with_its_call() -> None:
    entries = newest_result_session(84_000)
    huge = entries[-2]
    assert huge.kind == "tool_result" and tokens_of(huge) > KEEP_RECENT_TOKENS
    budget = 40_000
    arm = NativeCompactionArm(COUNTER, budget, summary_tokens=300)
    run = run_arm(arm, prepared(entries, budget=budget, summary_tokens=300))
    # The walk back stops on the result itself and nothing after it may start a window, so
    # the cut steps back to the call that produced it, not past the end of the history.
    assert arm.compactions == 1
    assert entries[arm.kept_from] is entries[-3]
    assert entries[arm.kept_from].tool_calls[0].id == huge.call_id
    kept = sum(tokens_of(entry) for entry in entries[arm.kept_from : -1])
    assert kept > KEEP_RECENT_TOKENS
    assert run.windows[-1] == arm.current_summary_tokens + kept <= budget
    assert arm_figures(run, budget, 0).over_budget == 0


def test_native_counts_a_request_no_cut_brings_under_the_budget_as_over_budget() -> None:
    entries = newest_result_session(140_000)
    budget = 30_000
    arm = NativeCompactionArm(COUNTER, budget, summary_tokens=300)
    run = run_arm(arm, prepared(entries, budget=budget, summary_tokens=300))
    # The compaction still runs (everything before the call is summarised), but the call and
    # its result alone are over the budget: the request is billed and counted, not hidden.
    assert arm.compactions == 1
    assert entries[arm.kept_from] is entries[-3]
    assert run.windows[-1] > budget
    figures = arm_figures(run, budget, 0)
    assert figures.over_budget == 1 and figures.first_over_budget == len(run.windows)
    # Nothing is left to cut at the next check, so no second summarisation is billed.
    assert len(run.side_bills) == 1
