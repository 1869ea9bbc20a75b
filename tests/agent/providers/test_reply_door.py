"""Every field of a reply is checked at the door (issue 18): ids, tool names, text, stop reasons,
the model and the order of events, through each real SDK against the local server. Whatever
arrives, the adapter ends with a message the engine admits, and says what it set aside."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_agent.loop import Agent, AgentConfig, MemoryRecorder
from pifold_agent.providers.assembly import BlockAssembler
from pifold_agent.providers.base import ProviderRequest, ReplyWarning, StreamDone
from pifold_agent.providers.errors import STREAM_CUT_MESSAGE
from pifold_agent.providers.openai_responses import convert_input
from pifold_agent.providers.reply_door import NAMELESS_TOOL, TOOL_NAME_PATTERN, ReplyDoor
from pifold_agent.tools import builtin_tools
from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock, ToolCallBlock
from tests.agent.providers.hostile_replies import ABSENT, CallSpec, Mutation, ReplySpec
from tests.agent.providers.hostile_sse import EVENTS, render, sse
from tests.agent.providers.local_server import Reply, collect, done_of, json_reply, serve
from tests.agent.providers.sdk_adapters import PROVIDERS, adapter, sound_reply
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_reopens_identically

REQUEST = ProviderRequest(
    system="s", messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}], tools=()
)


async def play(provider: str, spec: ReplySpec) -> tuple[StreamDone, list[str]]:
    """The final event of ``spec`` played through ``provider``'s SDK, and the warnings."""
    with serve([render(provider, spec, random.Random(0))]) as server:
        events = await collect(adapter(provider, server.base_url), REQUEST)
    done = done_of(events)
    # Whatever came, the message is one the engine takes.
    Entry("e", "assistant", 0, done.content, usage=done.usage, model=done.model, extra=done.extra)
    return done, [event.message for event in events if isinstance(event, ReplyWarning)]


def calls(*specs: tuple[Any, Any]) -> tuple[CallSpec, ...]:
    return tuple(CallSpec(call_id, name, ('{"path": "a"}',)) for call_id, name in specs)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_ids_are_kept_when_sound_and_replaced_when_not(provider: str) -> None:
    done, warnings = await play(
        provider,
        ReplySpec(
            calls=calls(
                ("调用_1", "read"),
                ("x" * 10_000, "read"),
                ("call\x00", "read"),
                ("call\ud800", "read"),
                (5, "read"),
                ("", "read"),
                ("dup", "read"),
                ("dup", "read"),
            )
        ),
    )
    ids = [block.id.split("|")[0] for block in done.content if isinstance(block, ToolCallBlock)]
    assert ids[0] == "调用_1"
    assert all(identifier.startswith("id_") for identifier in ids[1:5])
    assert len(set(ids[1:5])) == 4  # different values, different ids
    assert ids[6:] == ["dup", "dup-2"] if provider != "openai" else ids[6:] == ["dup", "dup"]
    full = [block.id for block in done.content if isinstance(block, ToolCallBlock)]
    assert len(set(full)) == len(full)  # unique within the message, whatever was sent
    assert sum("was" in warning and "replaced by id_" in warning for warning in warnings) == 4


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_tool_names_every_api_takes(provider: str) -> None:
    done, warnings = await play(
        provider,
        ReplySpec(
            calls=calls(("a", "read"), ("b", ""), ("c", "x" * 5_000), ("d", "réad"), ("e", 5))
        ),
    )
    names = [block.name for block in done.content if isinstance(block, ToolCallBlock)]
    assert names[0] == "read" and names[1] == NAMELESS_TOOL and names[3] == "r_ad"
    assert names[4] == NAMELESS_TOOL
    assert all(TOOL_NAME_PATTERN.match(name) for name in names)
    assert any("came without a name" in warning for warning in warnings)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_text_that_is_not_text_is_left_out_and_surrogates_repaired(provider: str) -> None:
    done, warnings = await play(
        provider, ReplySpec(text=("a", 5, "\ud83d", "\ude00", "\x00", [1], "\ud800 b"))
    )
    assert done.content == (TextBlock("a😀\x00\ufffd b"),)
    assert any("not text: left out" in warning for warning in warnings)
    assert any("lone surrogate" in warning for warning in warnings)


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat"])
@pytest.mark.parametrize("stop", ["banana", ["stop"]])
async def test_an_unknown_stop_reason_is_read_as_the_natural_one(provider: str, stop: Any) -> None:
    done, warnings = await play(provider, ReplySpec(text=("ok",), stop=stop))
    assert done.stop_reason == "stop" and done.error is None
    assert len(warnings) == 1 and "read as stop" in warnings[0]
    done, _ = await play(provider, ReplySpec(calls=calls(("a", "read")), stop=stop))
    assert done.stop_reason == "tool_use"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_stream_without_its_end_is_cut_and_keeps_what_came(provider: str) -> None:
    # The last two events: with no usage, Chat Completions loses its finish chunk too.
    spec = ReplySpec(text=("kept",), usage=ABSENT, mutation=Mutation("no_end", 0.99))
    done, _ = await play(provider, spec)
    assert done.content == (TextBlock("kept"),)
    assert done.stop_reason == "error" and done.error is not None
    assert done.error.message == STREAM_CUT_MESSAGE or "connection" in done.error.message


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("model", [5, "x" * 1_000, "m\x00"])
async def test_an_odd_model_name_is_the_model_asked_for(provider: str, model: Any) -> None:
    done, _ = await play(provider, ReplySpec(text=("ok",), model=model))
    assert done.model == adapter(provider, "http://127.0.0.1:9").model


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_events_after_the_end_are_ignored(provider: str) -> None:
    spec = ReplySpec(text=("ok",), mutation=Mutation("duplicate", 1.0))
    done, warnings = await play(provider, spec)
    assert done.content == (TextBlock("ok"),) and done.error is None
    assert any("after the" in warning and "ended: ignored" in warning for warning in warnings)


async def test_a_piece_for_a_block_of_another_kind_is_left_out() -> None:
    body = (
        b'event: message_start\ndata: {"type":"message_start","message":{"model":"m",'
        b'"usage":{"input_tokens":5,"output_tokens":1}}}\n\n'
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        b'"content_block":{"type":"tool_use","id":"c1","name":"read","input":{}}}\n\n'
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"stray"}}\n\n'
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":"zero",'
        b'"delta":{"type":"input_json_delta","partial_json":"{}"}}\n\n'
        b'event: message_delta\ndata: {"type":"message_delta",'
        b'"delta":{"stop_reason":"tool_use"}}\n\n'
        b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    )
    with serve([Reply(body=body)]) as server:
        events = await collect(adapter("anthropic", server.base_url), REQUEST)
    done = done_of(events)
    assert done.content == (ToolCallBlock("c1", "read", {}),)
    warnings = [event.message for event in events if isinstance(event, ReplyWarning)]
    assert any("text piece came for block 0, which is tool call" in w for w in warnings)
    assert any("index was 'zero'" in warning for warning in warnings)


anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=2) | st.dictionaries(st.text(max_size=3), children, max_size=2)
    ),
    max_leaves=6,
)
keys = st.sampled_from([0, 1, 2, "a", ("call", 0), ("call", None)])


@settings(max_examples=80)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["text", "thinking", "call", "args", "sign", "final"]),
            keys,
            anything,
            anything,
        ),
        max_size=12,
    )
)
def test_whatever_pieces_arrive_the_blocks_are_admissible(
    pieces: list[tuple[str, Any, Any, Any]],
) -> None:
    assembler = BlockAssembler(ReplyDoor())
    for kind, key, first, second in pieces:
        if kind == "text":
            assembler.text(key, first)
        elif kind == "thinking":
            assembler.thinking(key, first)
        elif kind == "call":
            assembler.open_tool_call(key, first, second)
        elif kind == "args":
            assembler.arguments(key, first)
        elif kind == "sign":
            assembler.sign(key, first)
        else:
            assembler.final_arguments(key, first)
    blocks = assembler.blocks()
    entry = Entry("e", "assistant", 0, blocks)  # refuses anything the log could not hold
    assert all(TOOL_NAME_PATTERN.match(call.name) for call in entry.tool_calls)
    assert len({call.id for call in entry.tool_calls}) == len(entry.tool_calls)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "body",
    [
        {"error": {"message": "bad \ud800 request"}},
        {"error": {"message": ["not", "text"], "type": 5}},
        {"error": "x" * 20_000},
    ],
)
async def test_an_error_body_of_any_shape_ends_the_run_with_its_words(
    tmp_path: Path, provider: str, body: Any
) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=50_000), CharCounter())
    recorder = MemoryRecorder()
    with serve([json_reply(400, body)]) as server:
        agent = Agent(
            engine, adapter(provider, server.base_url), [], recorder, AgentConfig(tmp_path)
        )
        result = await agent.run("hello")
    assert result.outcome == "error" and result.error is not None
    assert "\ud800" not in result.error
    failed = recorder.entries[-1]
    assert failed.extra["stop_reason"] == "error" and failed.extra["error"] == result.error
    assert_reopens_identically(engine)
    engine.close()


async def test_a_reasoning_item_with_a_lone_surrogate_can_be_sent_back(tmp_path: Path) -> None:
    # The item is kept whole to be replayed: it must have a UTF-8 form, or every later
    # request of the session would fail to encode.
    spec = ReplySpec(reasoning=("why \ud800",), calls=calls(("c1", "ls")))
    first = render("openai", spec, random.Random(0))
    engine = Engine.open(tmp_path / "state", small_options(budget=50_000), CharCounter())
    with serve([first, sound_reply("openai", "Listed.")]) as server:
        tools = builtin_tools(["ls"])
        agent = Agent(
            engine,
            adapter("openai", server.base_url),
            tools,
            MemoryRecorder(),
            AgentConfig(tmp_path),
        )
        result = await agent.run("List.")
    assert (result.outcome, result.final_text) == ("stop", "Listed."), result.error
    replayed = server.requests[1].body["input"]
    reasoning = next(item for item in replayed if item.get("type") == "reasoning")
    assert reasoning["summary"][0]["text"] == "why \ufffd"
    assert_reopens_identically(engine)
    engine.close()


def test_a_reasoning_item_an_earlier_release_kept_escaped_is_sent_with_a_utf8_form() -> None:
    signature = (
        '{"id":"rs_1","summary":[{"text":"why \\ud800","type":"summary_text"}],"type":"reasoning"}'
    )
    message = {
        "role": "assistant",
        "content": [{"type": "thinking", "text": "why", "signature": signature}],
    }
    (item,) = convert_input([message])
    assert item["summary"][0]["text"] == "why \ufffd"
    json.dumps(item, ensure_ascii=False).encode("utf-8")  # what the SDK sends


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_key_with_no_utf8_form_anywhere_in_an_event_is_survived(provider: str) -> None:
    # Found by the harness: the SDK's own serialiser cannot write such a key.
    spec = ReplySpec(text=("ok",), mutation=Mutation("none"))
    events = [
        (name, {**data, "\udcf0\udc9f": {"\ud800": 1}} if isinstance(data, dict) else data)
        for name, data in EVENTS[provider](spec)
    ]
    body = "".join(sse(name, data) for name, data in events).encode()
    with serve([Reply(body=body)]) as server:
        done = done_of(await collect(adapter(provider, server.base_url), REQUEST))
    assert (done.stop_reason, done.content, done.error) == ("stop", (TextBlock("ok"),), None)
