"""A call a local model writes as text runs as that call; text that only looks like one, or
a call to a tool not offered, stays text. Through the real OpenAI SDK against 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.providers.openai_chat import OpenAIChat
from pifold_agent.providers.text_calls import WrittenCall, written_call
from pifold_core.blocks import ToolCallBlock
from tests.agent.headless_cases import (
    assert_session_consistent,
    headless,
    newest,
    options_in,
)
from tests.agent.providers.local_server import RecordedRequest, Reply, serve
from tests.agent.providers.scripted_sse import Turn, chat_turn

READ = WrittenCall("read", {"path": "main.py"})
CALL_JSON = '{"name": "read", "arguments": {"path": "main.py"}}'


@pytest.mark.parametrize(
    "text",
    [
        f"```json\n{CALL_JSON}\n```",
        f"```\n{CALL_JSON}\n```",
        f"\n  ```json\n{CALL_JSON}\n  ```  \n",
        f"<tool_call>\n{CALL_JSON}\n</tool_call>",
        f"<tools>{CALL_JSON}</tools>",
        CALL_JSON,
        '{"name": "read", "arguments": "{\\"path\\": \\"main.py\\"}"}',
        '{"name": "read", "parameters": {"path": "main.py"}}',
        # What Qwen2.5-Coder-1.5B wrote under llama.cpp: XML-like, a Python literal inside.
        "<tools>\n    <function name=\"read\" arguments=\"{'path': 'main.py'}\"/>\n</tools>",
        '<function name="read">{"path": "main.py"}</function>',
        '{{"name": "read", "arguments": {"path": "main.py"}}',  # a template's brace copied
        '<tool_call><function name="read" arguments="{&quot;path&quot;: &quot;main.py&quot;}"/>'
        "</tool_call>",
    ],
)
def test_one_call_in_its_usual_wrappers_is_read(text: str) -> None:
    assert written_call(text) == READ


@pytest.mark.parametrize(
    "text",
    [
        f"```json\n{CALL_JSON}\n```\n```json\n{CALL_JSON}\n```",  # two calls
        f"{CALL_JSON}\n{CALL_JSON}",
        '{"name": "read"}',  # no arguments
        '{"name": "read", "arguments": [1, 2]}',
        '{"name": "", "arguments": {}}',
        '{"name": "read", "arguments": "not json"}',
        "```json\n{not json}\n```",
        "[" + CALL_JSON + "]",
        "The answer is 42.",
        "",
        '<function name="read" arguments="(1, 2)"/>',  # a literal that is no object
        "<function name=\"read\" arguments=\"{'path': b'x'}\"/>",  # bytes are not JSON
        '<function name="read" arguments="__import__(\'os\')"/>',  # never evaluated
    ],
)
def test_anything_else_is_not_a_call(text: str) -> None:
    assert written_call(text) is None


def test_words_around_the_one_call_stay_as_its_text() -> None:
    # What Qwen2.5-Coder-1.5B answered to "What does main.py define? Read it first."
    text = (
        "To read the `main.py` file, you can use the `read` function. Here's how:\n\n"
        f"```json\n{CALL_JSON}\n```\n\nAfter running this command, the content is returned."
    )
    assert written_call(text) == WrittenCall(
        "read",
        {"path": "main.py"},
        "To read the `main.py` file, you can use the `read` function. Here's how:\n\n"
        "After running this command, the content is returned.",
    )
    assert written_call(f"```xml\n<tools>{CALL_JSON}</tools>\n```") == READ
    # A bare object on its own line, words before it (the model's third attempt).
    bare = f"I will call the `read` function with the path to the file:\n\n{CALL_JSON}\n"
    assert written_call(bare) == WrittenCall(
        "read", {"path": "main.py"}, "I will call the `read` function with the path to the file:"
    )
    assert written_call(f"Say {CALL_JSON} to read it.") is None  # not on a line of its own


@given(st.text(max_size=200))
def test_any_text_is_a_call_or_not_never_an_error(text: str) -> None:
    found = written_call(text)
    assert found is None or (found.name and isinstance(found.arguments, dict))


def test_openais_own_endpoint_never_reads_text_as_a_call() -> None:
    assert OpenAIChat("gpt-5.4", "k").text_calls is False
    assert OpenAIChat("gpt-5.4", "k", "https://api.openai.com/v1").text_calls is False
    assert OpenAIChat("qwen", "k", "http://127.0.0.1:8080/v1").text_calls is True
    assert OpenAIChat("qwen", "k", "http://127.0.0.1:8080/v1", text_calls=False).text_calls is False


def turn(text: str) -> Reply:
    return Reply(body=chat_turn(Turn(text), 300, "qwen"))


def tool_messages(request: RecordedRequest) -> list[dict[str, Any]]:
    return [message for message in request.body["messages"] if message["role"] == "tool"]


def test_a_fenced_call_runs_the_tool_and_the_answer_comes_from_the_file(tmp_path: Path) -> None:
    work = options_in(tmp_path).cwd
    (work / "main.py").write_text("def answer():\n    return 42\n")
    with serve([turn(f"```json\n{CALL_JSON}\n```"), turn("It defines answer().")]) as server:
        server.pages["/props"] = {"default_generation_settings": {"n_ctx": 32768}}
        outcome = headless(
            options_in(
                tmp_path,
                prompt="What does main.py define? Read it first.",
                base_url=f"{server.base_url}/v1",
                model="qwen",
                as_json=True,
            )
        )
        requests = list(server.requests)
    assert outcome.code == 0, outcome.err
    assert len(requests) == 2
    [result] = tool_messages(requests[1])
    assert "def answer():" in result["content"]
    sent_call = [m for m in requests[1].body["messages"] if m["role"] == "assistant"][-1]
    assert sent_call["tool_calls"][0]["function"] == {
        "name": "read",
        "arguments": '{"path":"main.py"}',
    }
    # The request before is a prefix of the one after: the call changed no byte sent.
    first, second = requests[0].body["messages"], requests[1].body["messages"]
    assert second[: len(first)] == first
    events = [json.loads(line) for line in outcome.out.splitlines()]
    warnings = [event for event in events if event["type"] == "reply_warning"]
    assert [event["message"] for event in warnings] == [
        "the model wrote its read call as text; it runs as that call "
        "(--no-text-calls leaves such text as the answer)"
    ]
    assert "It defines answer()." in outcome.out
    session = newest(tmp_path)
    assistant = next(entry for entry in session.messages() if entry.kind == "assistant")
    [call] = [block for block in assistant.content if isinstance(block, ToolCallBlock)]
    assert (call.name, call.arguments) == ("read", {"path": "main.py"})
    provider_data = assistant.extra["provider_data"]
    assert isinstance(provider_data, dict)
    assert provider_data["textWrittenCall"] == f"```json\n{CALL_JSON}\n```"
    assert_session_consistent(session.path)


def test_switched_off_or_naming_no_offered_tool_the_text_is_the_answer(tmp_path: Path) -> None:
    unknown = '```json\n{"name": "browse", "arguments": {"url": "x"}}\n```'
    with serve([turn(f"```json\n{CALL_JSON}\n```"), turn(unknown)]) as server:
        base = f"{server.base_url}/v1"
        off = headless(options_in(tmp_path / "off", base_url=base, text_calls=False))
        other = headless(options_in(tmp_path / "other", base_url=base, as_json=True))
        asked = len(server.requests)
    assert asked == 2  # one request each: no tool ran
    assert off.code == 0 and off.out == f"```json\n{CALL_JSON}\n```\n"
    events = [json.loads(line) for line in other.out.splitlines()]
    assert {
        "type": "reply_warning",
        "message": "the reply reads like a call to 'browse', which is not an offered tool: "
        "it stays text and no tool ran",
    } in events
    assert_session_consistent(newest(tmp_path / "off").path)
