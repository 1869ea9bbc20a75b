"""Issue 18, defect 9: tool-call arguments nested 5,000 deep, or holding ``NaN``, no longer end
the run. The call is recorded with its text, answered with an error naming what was wrong,
the run goes on, and the session reopens."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.loop import Agent, AgentConfig, MemoryRecorder
from pifold_agent.providers.arguments import nesting_depth, read_arguments
from pifold_agent.tools import builtin_tools
from pifold_core.admission import MAX_DEPTH
from pifold_core.engine import Engine
from tests.agent.providers.hostile_replies import DEEP, CallSpec, ReplySpec
from tests.agent.providers.hostile_sse import render
from tests.agent.providers.local_server import serve
from tests.agent.providers.sdk_adapters import PROVIDERS, adapter, sound_reply
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_reopens_identically


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param(DEEP, "they nest 5,000 levels deep, more than the 64 allowed", id="deep"),
        pytest.param('{"x": NaN}', "they hold NaN, which JSON does not allow", id="nan"),
        pytest.param('{"x": [1, -Infinity]}', "they hold -Infinity", id="infinity"),
        pytest.param('{"path": "\\ud800"}', "lone surrogate U+D800", id="lone-surrogate"),
        pytest.param('{"path": ', "not valid JSON (Expecting value at character 9)", id="cut"),
        pytest.param("[" * 70 + "]" * 70, "they nest 70 levels deep", id="past-64"),
    ],
)
def test_arguments_no_reader_takes_stay_text_and_say_why(text: str, problem: str) -> None:
    value, found = read_arguments(text)
    assert value == text and found is not None and problem in found


def test_sound_arguments_are_parsed() -> None:
    assert read_arguments("") == ({}, None)
    assert read_arguments('{"path": "a.py", "n": [1, 2.5]}') == (
        {"path": "a.py", "n": [1, 2.5]},
        None,
    )
    # A split surrogate pair in an escape is one character.
    assert read_arguments('{"p": "\\ud83d\\ude00"}') == ({"p": "😀"}, None)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=20,
)


def depth(value: Any) -> int:
    if isinstance(value, list | dict):
        members = value.values() if isinstance(value, dict) else value
        return 1 + max((depth(member) for member in members), default=0)
    return 0


@given(json_values)
def test_what_json_writes_reads_back_and_its_depth_is_measured(value: Any) -> None:
    text = json.dumps(value)
    assert nesting_depth(text) == depth(value) <= MAX_DEPTH
    parsed, problem = read_arguments(text)
    assert problem is None and parsed == value


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_deep_and_nan_arguments_get_an_error_result_and_the_run_goes_on(
    tmp_path: Path, provider: str
) -> None:
    (tmp_path / "notes.txt").write_text("the notes\n", encoding="utf-8")
    calls = (
        CallSpec("call_deep", "read", (DEEP[:2_500], DEEP[2_500:])),
        CallSpec("call_nan", "read", ('{"path": "notes.txt", "offset": NaN}',)),
        CallSpec("call_inf", "read", ('{"limit": Infinity}',)),
        CallSpec("call_good", "read", ('{"path": "notes.txt"}',)),
    )
    first = render(provider, ReplySpec(text=("Reading.",), calls=calls), random.Random(0))
    engine = Engine.open(tmp_path / "state", small_options(budget=50_000), CharCounter())
    recorder = MemoryRecorder()
    with serve([first, sound_reply(provider, "Read it.")]) as server:
        tools = builtin_tools(["read"])
        agent = Agent(
            engine, adapter(provider, server.base_url), tools, recorder, AgentConfig(tmp_path)
        )
        result = await agent.run("Read the notes.")
    assert (result.outcome, result.final_text) == ("stop", "Read it.")
    entries = engine.view.transcript.entries
    call = entries[1]
    assert [type(block.arguments) for block in call.tool_calls] == [str, str, str, dict]
    results = {
        entry.call_id.split("|")[0]: entry for entry in entries if entry.kind == "tool_result"
    }
    assert results["call_deep"].is_error and "nest 5,000 levels deep" in results["call_deep"].text
    assert results["call_nan"].is_error and "NaN" in results["call_nan"].text
    assert results["call_inf"].is_error and "Infinity" in results["call_inf"].text
    assert not results["call_good"].is_error and "the notes" in results["call_good"].text
    assert_reopens_identically(engine)
    engine.close()
