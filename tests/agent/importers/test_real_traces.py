"""Every bundled real trace imports into a consistent model view.

The expected numbers were checked against the files themselves (see the comments), not taken
from the importer's output.
"""

from __future__ import annotations

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.importers import ImportedTrace, load_trace
from pifold_agent.importers.builder import orphan_call_ids

EXPECTED = {
    # file name: (format, assistant entries, tool results, skipped lines)
    # pi-mono: 453 assistant messages, 14 of them aborted with empty content and zero usage.
    "large-session.jsonl": ("pi-v1", 439, 373, 0),
    # paradocs: 32 assistant messages, 6 timed out with empty content and zero usage.
    "session.jsonl": ("pi-v3", 26, 54, 0),
    # 56 distinct message.id on the active chain (two are <synthetic>); the chain after the
    # resume at line 354 is Claude Code's rewritten copy, which kept 49 of the calls.
    "general-tool-calls.jsonl": ("claude-code", 56, 48, 0),
    # 92 token_count events with info: 85 requests, 6 repeats at turn starts, 1 compaction.
    "codex-session.jsonl": ("codex", 85, 157, 0),
    "django__django-13265.traj.json": ("mini-swe-agent", 156, 155, 0),
    "trajectory.json": ("gemini-cli", 52, 46, 0),
    "marshmallow-code__marshmallow-1867.traj": ("swe-agent", 13, 13, 0),
}


def _check_consistency(trace: ImportedTrace) -> None:
    ids = [entry.id for entry in trace.entries]
    assert len(set(ids)) == len(ids)
    assert all("/" not in entry_id and "\\" not in entry_id for entry_id in ids)
    orphans = orphan_call_ids(trace)
    seen_calls: set[str] = set()
    for entry in trace.entries:
        seen_calls.update(call.id for call in entry.tool_calls)
        if entry.kind == "tool_result":
            assert entry.call_id in seen_calls or entry.call_id in orphans, entry.id
        if entry.kind == "assistant":
            assert entry.content or entry.usage is not None


def test_every_bundled_trace_imports() -> None:
    for path in bundled_traces():
        trace = load_trace(path)
        assert any(entry.kind == "assistant" for entry in trace.entries), path
        _check_consistency(trace)
        if path.name in EXPECTED:
            trace_format, assistants, results, skipped = EXPECTED[path.name]
            assert trace.format == trace_format, path
            assert sum(entry.kind == "assistant" for entry in trace.entries) == assistants
            assert sum(entry.kind == "tool_result" for entry in trace.entries) == results
            assert trace.skipped_lines == skipped


def _trace(name: str) -> ImportedTrace:
    (match,) = [path for path in bundled_traces() if path.name == name]
    return load_trace(match)


def test_pi_mono_usage_matches_the_recorded_calls() -> None:
    trace = _trace("large-session.jsonl")
    prompts = [entry.usage.prompt_tokens for entry in trace.entries if entry.usage]
    assert max(prompts) == 177_604  # traces.md §2 peak context
    assert sum(len(entry.tool_calls) for entry in trace.entries) == 391
    assert any("dropped 14 assistant turn(s)" in note for note in trace.notes)


def test_claude_code_merges_lines_and_takes_last_usage() -> None:
    trace = _trace("general-tool-calls.jsonl")
    prompts = [entry.usage.prompt_tokens for entry in trace.entries if entry.usage]
    assert max(prompts) == 86_733
    first = next(entry for entry in trace.entries if entry.kind == "assistant")
    assert first.id == "msg_01HeTiwKkNuFGzvEyUgetxP1"
    assert [type(block).__name__ for block in first.content] == [
        "ThinkingBlock",
        "TextBlock",
        "ToolCallBlock",
    ]
    assert any("not on the active conversation chain" in note for note in trace.notes)


def test_codex_usage_and_compaction() -> None:
    trace = _trace("codex-session.jsonl")
    assistants = [entry for entry in trace.entries if entry.kind == "assistant"]
    assert all(entry.usage is not None for entry in assistants)
    assert max(entry.usage.prompt_tokens for entry in assistants if entry.usage) == 234_537
    assert sum(len(entry.tool_calls) for entry in assistants) == 157
    assert sum("native Codex compaction" in note for note in trace.notes) == 1


def test_mini_swe_agent_cache_arithmetic() -> None:
    trace = _trace("django__django-13265.traj.json")
    first = next(entry for entry in trace.entries if entry.kind == "assistant")
    assert first.usage is not None
    assert (first.usage.input_tokens, first.usage.cache_read_tokens) == (1515, 320)
    prompts = [entry.usage.prompt_tokens for entry in trace.entries if entry.usage]
    assert max(prompts) == 81_983


def test_gemini_orphan_is_noted() -> None:
    trace = _trace("trajectory.json")
    assert len(orphan_call_ids(trace)) == 1
