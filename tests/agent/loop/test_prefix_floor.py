"""The fixed prefix as the agent meets it (issue 22): the system prompt and tools counted in
the engine from the start, their floor named at start, and overflow recovery that fails at
once, naming the prefix, the budget and what to do, when no fold can bring a request under.

The overflow runs go through the real OpenAI SDK against the local server answering as
llama.cpp does when a prompt is larger than its window.
"""

from __future__ import annotations

import json
from pathlib import Path

from pifold_agent.sessions import state_directory
from pifold_core.engine import Engine
from pifold_core.journal import Journal
from tests.agent.headless_cases import (
    assert_session_consistent,
    headless,
    newest,
    options_in,
    refusal_problems,
)
from tests.agent.providers.local_server import json_reply, serve

LLAMA_CPP_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size (2048 tokens)",
        "type": "exceed_context_size_error",
    }
}
"""llama.cpp's answer to a prompt larger than its window."""


def _logged(session_path: Path, kind: str) -> list[dict[str, object]]:
    log = Journal(state_directory(session_path) / "fold-log.jsonl", read_only=True)
    return [record.body for record in log.read_all() if record.kind == kind]


def test_a_prefix_above_the_aim_is_named_at_start_and_overflow_fails_at_once(
    tmp_path: Path,
) -> None:
    with serve([json_reply(400, LLAMA_CPP_OVERFLOW)]) as server:
        options = options_in(tmp_path, base_url=f"{server.base_url}/v1", model="qwen", budget=6_000)
        outcome = headless(options)
        chats = [request for request in server.requests if request.path.endswith("/completions")]
    session = newest(tmp_path).path
    engine = Engine.open(state_directory(session), read_only=True)
    try:
        prefix = engine.view.prefix_tokens
        status = engine.status()
    finally:
        engine.close()
    floor = status.prefix_floor
    assert floor is not None and floor.prefix_tokens == prefix > 1_200  # aim 0.2 of 6,000
    assert f"warning: {floor.describe()}\n" in outcome.err  # named at start
    assert (
        refusal_problems(
            outcome,
            1,
            "the request exceeds the available context size (2048 tokens); nothing is left to fold",
            f"{prefix:,} of them the fixed prefix (system prompt and tool definitions)",
            "against a budget of 6,000",
            floor.describe(),
        )
        == []
    )
    assert len(chats) == 1  # no retry of a request no fold could shrink
    assert _logged(session, "commit") == []  # and no commit that changed nothing
    assert _logged(session, "prefix") == [{"tokens": prefix}]
    assert_session_consistent(session)


def test_the_json_run_opens_with_the_prefix_and_its_floor(tmp_path: Path) -> None:
    with serve([json_reply(400, LLAMA_CPP_OVERFLOW)]) as server:
        options = options_in(
            tmp_path, base_url=f"{server.base_url}/v1", model="qwen", budget=6_000, as_json=True
        )
        outcome = headless(options)
    assert outcome.code == 1
    lines = [json.loads(line) for line in outcome.out.splitlines()]
    prefix_line = next(line for line in lines if line["type"] == "prefix")
    assert prefix_line["tokens"] > 1_200 and prefix_line["budget"] == 6_000
    assert isinstance(prefix_line["floor"], str)
    assert prefix_line["floor"].startswith("the fixed prefix (system prompt and tool definitions)")
    assert [line["type"] for line in lines].index("prefix") < [
        line["type"] for line in lines
    ].index("run_start")
    assert_session_consistent(newest(tmp_path).path)


def test_a_prefix_under_the_aim_names_no_floor(tmp_path: Path) -> None:
    with serve([json_reply(400, LLAMA_CPP_OVERFLOW)]) as server:
        options = options_in(
            tmp_path, base_url=f"{server.base_url}/v1", model="qwen", budget=60_000, as_json=True
        )
        outcome = headless(options)
    lines = [json.loads(line) for line in outcome.out.splitlines()]
    prefix_line = next(line for line in lines if line["type"] == "prefix")
    assert prefix_line["floor"] is None and prefix_line["budget"] == 60_000
    assert "the fixed prefix" not in outcome.err.split("error:")[0]  # no warning at start
    # The server refused what the budget says fits: the window is smaller than the budget.
    assert "the model's window is smaller than the budget: lower --budget" in outcome.err
    assert_session_consistent(newest(tmp_path).path)
