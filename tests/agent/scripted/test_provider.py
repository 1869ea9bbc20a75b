"""The scripted provider: chunked streams, estimated usage, recorded tools, user messages
delivered through the queues where the script had them, and strict script parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_agent.loop import MemoryRecorder, Queues
from pifold_agent.providers.base import ProviderRequest, StreamDone, TextDelta, ToolSpec
from pifold_agent.scripted.provider import (
    CONTINUE_PROMPT,
    RecordedTool,
    ScriptedProvider,
    ScriptError,
    load_script,
    script_from_entries,
)
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import canonical_bytes, sha256_hex
from pifold_core.entries import Entry, TextBlock, ToolCallBlock, text_entry
from tests.agent.loop.helpers import assert_session_consistent, make_agent, open_engine
from tests.core.builders import CharCounter


def write(path: Path, header: dict[str, object], *lines: object) -> Path:
    target = path / "script.jsonl"
    rows = [json.dumps(header), *(json.dumps(line) for line in lines)]
    target.write_text("\n".join(rows) + "\n")
    return target


async def collect(provider: ScriptedProvider, request: ProviderRequest) -> list[object]:
    return [event async for event in provider.stream(request)]


async def test_text_streams_in_chunks_and_usage_is_the_tokenizers_count(tmp_path: Path) -> None:
    text = "The parser lives in src/parse.py and handles 3 cases."
    path = write(
        tmp_path, {"script": "pifold", "version": 1, "chunk_chars": 10}, {"assistant": text}
    )
    provider = ScriptedProvider(load_script(path), CharCounter())
    message = {"role": "user", "content": [{"type": "text", "text": "where is the parser?"}]}
    tools = [ToolSpec("read", "read a file", {"type": "object"})]
    request = ProviderRequest("system text", [message], tools)
    events = await collect(provider, request)

    deltas = [event for event in events if isinstance(event, TextDelta)]
    assert [len(delta.text) for delta in deltas] == [10, 10, 10, 10, 10, 3]
    assert "".join(delta.text for delta in deltas) == text
    done = events[-1]
    assert isinstance(done, StreamDone) and done.stop_reason == "stop"
    counter = CharCounter()
    spec = canonical_bytes([["read", "read a file", tools[0].parameters]]).decode()
    expected = (
        counter.count_text("system text")
        + counter.count_text(spec)
        + counter.count_message(message, sha256_hex(canonical_bytes(message)))
    )
    assert done.usage is not None and done.usage.input_tokens == expected
    assert done.usage.output_tokens == counter.count_text(text)


async def test_a_trace_plays_with_recorded_results_and_its_users_land_where_they_were(
    tmp_path: Path,
) -> None:
    call = ToolCallBlock("t1", "bash", {"command": "make test"})

    entries = [
        text_entry("u1", "user", "run the tests"),
        Entry("a1", "assistant", 0, (TextBlock("Running."), call)),
        Entry("r1", "tool_result", 0, (TextBlock("2 failed"),), call_id="t1", tool_name="bash"),
        text_entry("u2", "user", "only the parser ones matter"),  # typed mid-turn
        text_entry("a2", "assistant", "The parser tests pass."),
        text_entry("a3", "assistant", "And the lexer ones too."),  # no user between
        text_entry("u3", "user", "thanks"),
        text_entry("a4", "assistant", "You're welcome."),
    ]
    provider = ScriptedProvider(script_from_entries(entries), CharCounter())
    engine = open_engine(tmp_path)
    agent, recorder, _ = make_agent(engine, provider, provider.recorded_tools())
    provider.attach(agent.queues)
    result = await agent.run(provider.opening_prompt())

    assert result.final_text == "You're welcome." and provider.exhausted
    texts = [(entry.kind, entry.text) for entry in engine.view.transcript.entries]
    assert texts == [
        ("user", "run the tests"),
        ("assistant", "Running."),
        ("tool_result", "2 failed"),
        ("user", "only the parser ones matter"),
        ("assistant", "The parser tests pass."),
        ("user", CONTINUE_PROMPT),
        ("assistant", "And the lexer ones too."),
        ("user", "thanks"),
        ("assistant", "You're welcome."),
    ]
    # Every request carried exactly the engine's projection of the moment.
    assert len(provider.requests) == engine.view.audit_counts.requests == 4
    assert_session_consistent(engine, recorder)


async def test_a_recorded_tool_without_a_recording_is_an_error_result() -> None:
    provider = ScriptedProvider(
        script_from_entries([text_entry("u", "user", "go"), text_entry("a", "assistant", "done")]),
        CharCounter(),
    )
    assert provider.recorded_tools() == []

    tool = RecordedTool("bash", {})
    outcome = await tool.run({}, ToolContext("c9", Path.cwd(), lambda text: None))
    assert outcome.is_error and "no result" in outcome.text


def test_queues_take_the_scripts_runs_of_user_messages_whole() -> None:
    provider = ScriptedProvider(
        script_from_entries(
            [
                text_entry("u1", "user", "first"),
                text_entry("u2", "user", "second"),
                text_entry("a", "assistant", "both read"),
            ]
        ),
        CharCounter(),
    )
    queues = Queues()
    assert provider.opening_prompt() == "first"
    provider.attach(queues)
    assert queues.steering.mode == "all" and queues.steering.take() == ["second"]


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ("not json", ":2: not JSON"),
        ('["a list"]', ":2: each line must be a JSON object"),
        ('{"user": ""}', ":2: 'user' must be non-empty text"),
        ('{"assistant": "x", "tool_calls": [{"id": 1}]}', ":2: each tool call needs"),
        ('{"error": "sometimes"}', ":2: 'error' must be one of"),
        ('{"mystery": 1}', ":2: expected user, assistant, tool_result, summary or error"),
    ],
)
def test_a_malformed_script_line_is_named(tmp_path: Path, line: str, complaint: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"script": "pifold", "version": 1}) + "\n" + line + "\n")
    with pytest.raises(ScriptError, match=complaint.replace("[", r"\[")):
        load_script(path)


def test_a_script_without_a_reply_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, {"script": "pifold", "version": 1}, {"user": "hello"})
    with pytest.raises(ScriptError, match="no assistant line"):
        load_script(path)
    unused = MemoryRecorder()
    assert unused.recorded() == []


async def test_a_hit_reference_reads_the_latest_search_result_or_fails_by_name(
    tmp_path: Path,
) -> None:
    peek = {"action": "peek", "id": "${hit:2}"}
    call = {"id": "p1", "name": "pi_fold_context", "arguments": peek}
    header = {"script": "pifold", "version": 1}
    reply = {"assistant": "Peeking.", "tool_calls": [call]}
    found = (
        "search 'x': 2 hits, showing 1 to 2\n"
        "1. fold fold-0123456789ab · entry e00007 · tool_result read\n   x\n"
        "2. clipped, outside every fold · entry e00031 · tool_result bash\n   x"
    )
    message = {"role": "tool", "content": [{"type": "text", "text": found}]}
    provider = ScriptedProvider(load_script(write(tmp_path, header, reply)), CharCounter())
    done = (await collect(provider, ProviderRequest("s", [message], [])))[-1]
    assert isinstance(done, StreamDone) and done.error is None
    (called,) = [block for block in done.content if isinstance(block, ToolCallBlock)]
    assert called.arguments == {"action": "peek", "id": "e00031"}
    provider = ScriptedProvider(load_script(write(tmp_path, header, reply)), CharCounter())
    done = (await collect(provider, ProviderRequest("s", [], [])))[-1]
    assert isinstance(done, StreamDone) and done.error is not None
    assert "search hit 2" in str(done.error)
