"""Planting values and classifying them at the end of a run."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

from pifold_agent.pricing.arm_request import ArmRequest
from pifold_agent.pricing.compaction import NativeCompactionArm
from pifold_bench.arms import EngineArm, message_digest
from pifold_bench.list_arms import ClipOnlyArm, LinearArm
from pifold_bench.recall import (
    VALUE_KINDS,
    PlantedValue,
    RecallResult,
    _new_value,
    classify,
    plant_values,
    recall_split,
)
from pifold_bench.run import run_arm
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry, ToolCallBlock
from tests.bench.conftest import COUNTER, prepared
from tests.bench.helpers import Session


def test_planting_is_deterministic_spread_and_only_touches_tool_results() -> None:
    entries = Session().long_turn(batches=30, characters=2_000)
    planted, values = plant_values(entries, 6, seed=3)
    again, same = plant_values(entries, 6, seed=3)
    _, other = plant_values(entries, 6, seed=4)
    assert [value.text for value in values] == [value.text for value in same]
    assert [entry.digest for entry in planted] == [entry.digest for entry in again]
    assert [value.text for value in values] != [value.text for value in other]
    assert {value.kind for value in values} == set(VALUE_KINDS)
    positions = [value.position for value in values]
    results = [number for number, entry in enumerate(entries) if entry.kind == "tool_result"]
    # One value per sixth of the tool results, in order.
    for stratum, position in enumerate(positions):
        assert position in results[stratum * 5 : (stratum + 1) * 5]
    changed = [
        number
        for number, (before, after) in enumerate(zip(entries, planted, strict=True))
        if before != after
    ]
    assert changed == positions
    for value in values:
        assert value.text in planted[value.position].text
        assert value.text not in entries[value.position].text
        assert planted[value.position].id == entries[value.position].id


def test_a_value_already_in_a_tool_call_argument_is_never_planted() -> None:
    entries = Session().long_turn(batches=20, characters=4_000)
    _, values = plant_values(entries, 6, seed=7)
    first = values[0].text
    # Put the value the seed draws first where only the wire shows it: in the arguments of
    # the last call, not in any entry's readable text.
    index = max(number for number, entry in enumerate(entries) if entry.tool_calls)
    call = entries[index].tool_calls[0]
    moved = ToolCallBlock(call.id, call.name, {**call.arguments, "note": first})
    entries[index] = replace(entries[index], content=(entries[index].content[0], moved))
    assert all(first not in entry.text for entry in entries)
    _, again = plant_values(entries, 6, seed=7)
    assert first not in [value.text for value in again]


def test_a_new_line_never_carries_a_value_planted_before_it() -> None:
    first_text, first_line = _new_value(random.Random(1), "number", "", [])
    # An earlier value inside the line the generator would write next (here, its last six
    # digits) would be found in two places, so the generator draws again.
    text, line = _new_value(random.Random(1), "number", "", [first_text[-6:]])
    assert text != first_text and first_text[-6:] not in line
    # And a value already in what was taken is never drawn.
    assert _new_value(random.Random(1), "number", first_line, [])[0] != first_text


def test_no_more_values_than_answered_tool_results() -> None:
    entries = Session().long_turn(batches=2, characters=500)
    _, values = plant_values(entries, 12, seed=1)
    assert len(values) == 2


def test_linear_history_keeps_every_value_visible_raw() -> None:
    entries = Session().long_turn(batches=12, characters=3_000)
    trace = prepared(entries, budget=1_000_000, planted=6)
    run = run_arm(LinearArm(COUNTER), trace)
    assert run.recall is not None
    assert run.recall.count("visible raw") == 6


def test_cleared_and_summarised_values_are_lost() -> None:
    entries = Session().long_turn(batches=20, characters=4_000)
    trace = prepared(entries, budget=8_000, planted=6, summary_tokens=200)
    clip = run_arm(ClipOnlyArm(COUNTER, trigger_tokens=4_000), trace)
    native_arm = NativeCompactionArm(COUNTER, 8_000, 200, keep_recent_tokens=2_000)
    native = run_arm(native_arm, trace)
    assert clip.recall is not None and native.recall is not None
    # Only the newest three results survive clearing; the first values sit far older.
    assert clip.recall.count("lost") >= 5
    # Native loses exactly the values planted before its last cut (summarised, and a summary
    # is never searched) and shows every value after it as the host appended it.
    assert native.recall.count("lost") >= 4
    assert native.recall.statuses == {
        value.text: "lost" if value.position < native_arm.kept_from else "visible raw"
        for value in trace.values
    }


def test_fold_loses_nothing_and_recovers_folded_values_by_peek(tmp_path: Path) -> None:
    entries = Session().long_turn(batches=24, characters=10_000)
    trace = prepared(entries, budget=30_000, planted=8)
    run = run_arm(EngineArm(tmp_path / "state", 30_000, COUNTER), trace)
    recall = run.recall
    assert recall is not None
    assert recall.count("lost") == 0
    # The folded values stay visible in briefs (the brief keeps identifiers) or one peek away.
    assert recall.count("visible made") + recall.count("recoverable") > 0


def test_a_search_for_each_recoverable_value_finds_its_entry(tmp_path: Path) -> None:
    entries = Session().long_turn(batches=40, characters=10_000)
    trace = prepared(entries, budget=12_000, planted=8)
    run = run_arm(EngineArm(tmp_path / "state", 12_000, COUNTER), trace)
    recall = run.recall
    assert recall is not None and recall.count("recoverable") > 0
    assert recall.found_by_search == recall.count("recoverable")
    linear = run_arm(LinearArm(COUNTER), trace)
    assert linear.recall is not None and linear.recall.found_by_search is None


class StubArm:
    """An arm whose window and store are given, to follow the classification by hand."""

    name = "stub"
    events = 0

    def __init__(self, window: list[str], store: dict[str, bytes]) -> None:
        self.window = window
        self.store = store
        self.peeked: list[str] = []

    def append(self, entry: Entry) -> None:
        raise NotImplementedError

    def prepare_request(
        self, now_ms: int | None = None, cache_lifetime_s: int | None = None
    ) -> ArmRequest:
        raise NotImplementedError

    def final_messages(self) -> list[dict[str, JsonValue]]:
        return [
            {"role": "user", "content": [{"type": "text", "text": text}]} for text in self.window
        ]

    def peek(self, identifier: str) -> bytes | None:
        self.peeked.append(identifier)
        return self.store.get(identifier)

    def close(self) -> None:
        return None


def planted(text: str) -> PlantedValue:
    return PlantedValue(text, "number", "e1", 0)


def test_classification_follows_peeks_from_ids_the_window_shows() -> None:
    evidence = "evidence-" + "ab" * 32
    fold_source = json.dumps([{"content": [{"text": f"see {evidence} for 111222333444"}]}])
    arm = StubArm(
        window=[
            "raw text with 555666777888",
            "folded span fold-0123456789ab: pi_fold_context "
            '{"action":"peek","id":"fold-0123456789ab"}',
        ],
        store={
            "fold-0123456789ab": fold_source.encode(),
            evidence: json.dumps({"content": [{"text": "deep 999000111222"}]}).encode(),
        },
    )
    values = [
        planted(text) for text in ("555666777888", "111222333444", "999000111222", "31415926")
    ]
    raw = {message_digest(arm.final_messages()[0])}
    result = classify(arm, values, raw)
    assert result.statuses == {
        "555666777888": "visible raw",
        "111222333444": "recoverable",
        "999000111222": "recoverable",
        "31415926": "lost",
    }
    assert result.peek_depths == {"111222333444": 1, "999000111222": 2}
    assert sorted(set(arm.peeked)) == sorted(["fold-0123456789ab", evidence])


def test_a_value_in_a_made_message_is_visible_made() -> None:
    arm = StubArm(window=["[folded span] brief keeps 424242424242"], store={})
    result = classify(arm, [planted("424242424242")], raw_digests=set())
    assert result.statuses == {"424242424242": "visible made"}


def test_the_recall_split_counts_each_way_a_value_ends_up_in_report_order() -> None:
    result = RecallResult(
        {"a": "visible raw", "b": "visible made", "c": "visible made", "d": "lost"}, {}
    )
    split = recall_split(result)
    assert list(split) == ["visible_raw", "visible_in_brief", "recoverable", "lost"]
    assert split == {"visible_raw": 1, "visible_in_brief": 2, "recoverable": 0, "lost": 1}
    assert recall_split(None) == {}
