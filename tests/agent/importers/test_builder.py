"""Cross-format rules: timestamps, ids, dropped turns, orphans."""

from __future__ import annotations

from pifold_agent.importers.builder import TraceBuilder, orphan_call_ids, sanitize_id, to_unix_ms
from pifold_core.entries import TextBlock, ToolCallBlock, Usage


def test_timestamps_in_every_form_become_unix_ms() -> None:
    assert to_unix_ms("2025-11-20T23:33:50.805Z") == 1763681630805
    assert to_unix_ms("2025-11-20T23:33:50.805+00:00") == 1763681630805
    assert to_unix_ms("2025-11-20T23:33:50.805") == 1763681630805  # naive read as UTC
    assert to_unix_ms(1763681630805) == 1763681630805
    assert to_unix_ms(1775809100.1269045) == 1775809100127
    assert to_unix_ms("1775809100.5") == 1775809100500
    assert to_unix_ms("not a time") is None
    assert to_unix_ms(True) is None
    assert to_unix_ms(None) is None


def test_ids_are_sanitised_never_paths() -> None:
    assert sanitize_id("a/b\\c") == "a_b_c"
    assert sanitize_id("..") is None
    assert sanitize_id("") is None
    assert sanitize_id("msg_01HeTi") == "msg_01HeTi"


def test_ids_unique_deterministic_and_missing_ones_synthesised() -> None:
    def build() -> list[str]:
        builder = TraceBuilder("pi-v1")
        builder.add("user", [TextBlock("a")], preferred_id="x/y")
        builder.add("user", [TextBlock("b")], preferred_id="x/y")
        builder.add("user", [TextBlock("c")])
        builder.add("user", [TextBlock("d")], preferred_id="e000002")
        return [entry.id for entry in builder.finish(0).entries]

    first = build()
    assert first == ["x_y", "x_y-2", "e000002", "e000002-2"]
    assert build() == first


def test_missing_timestamps_borrow_neighbours_or_are_synthesised() -> None:
    builder = TraceBuilder("pi-v1")
    builder.add("user", [TextBlock("a")])
    builder.add("user", [TextBlock("b")], timestamp=1763681630805)
    builder.add("user", [TextBlock("c")])
    assert [entry.timestamp_ms for entry in builder.finish(0).entries] == [1763681630805] * 3
    builder = TraceBuilder("gemini-cli")
    for text in "abc":
        builder.add("user", [TextBlock(text)])
    assert [entry.timestamp_ms for entry in builder.finish(0).entries] == [0, 1000, 2000]


def test_empty_assistant_turns_are_dropped_and_noted_but_not_those_with_usage() -> None:
    builder = TraceBuilder("pi-v1")
    assert not builder.add("assistant", [], preferred_id="aborted", usage=Usage())
    assert not builder.add("assistant", [])
    assert builder.add("assistant", [], usage=Usage(input_tokens=3))
    assert builder.add("assistant", [TextBlock("partial")], usage=Usage())
    trace = builder.finish(0)
    assert [entry.kind for entry in trace.entries] == ["assistant", "assistant"]
    assert any("dropped 2 assistant turn(s)" in note and "aborted" in note for note in trace.notes)


def test_orphan_results_are_kept_and_noted() -> None:
    builder = TraceBuilder("codex")
    builder.add("assistant", [ToolCallBlock("c1", "bash", {})])
    builder.add("tool_result", [TextBlock("ok")], call_id="c1", tool_name="bash")
    builder.add("tool_result", [TextBlock("?")], call_id="ghost", tool_name="bash")
    trace = builder.finish(0)
    assert [entry.kind for entry in trace.entries] == ["assistant", "tool_result", "tool_result"]
    assert orphan_call_ids(trace) == {"ghost"}
