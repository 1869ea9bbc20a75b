"""An unknown model behind ``--base-url`` gets the window its server states, and the run
says where its budget came from; a server that states none is named, never assumed silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pifold_agent.providers.local_window import answer_reservation, budget_origin
from pifold_agent.providers.models import ModelDescriptor
from pifold_agent.providers.server_window import ServerWindow, read_server_window
from tests.agent.headless_cases import assert_session_consistent, headless, newest, options_in
from tests.agent.providers.local_server import Reply, serve
from tests.agent.providers.scripted_sse import Turn, chat_turn

LLAMA_CPP_PROPS = {
    "default_generation_settings": {"n_ctx": 32768, "n_predict": -1},
    "total_slots": 1,
}
"""llama.cpp's ``/props`` as its server answers (the fields read, and some beside them)."""


@pytest.mark.parametrize(
    ("path", "page", "window"),
    [
        ("/props", LLAMA_CPP_PROPS, ServerWindow(32768, "llama.cpp /props n_ctx")),
        (
            "/v1/models",
            {"object": "list", "data": [{"id": "qwen", "object": "model", "max_model_len": 16384}]},
            ServerWindow(16384, "vLLM /v1/models max_model_len"),
        ),
        (
            "/api/v0/models/qwen",
            {
                "id": "qwen",
                "state": "loaded",
                "max_context_length": 131072,
                "loaded_context_length": 8192,
            },
            ServerWindow(8192, "LM Studio /api/v0/models context length"),
        ),
        (
            "/api/ps",
            {"models": [{"name": "qwen", "model": "qwen", "context_length": 4096}]},
            ServerWindow(4096, "Ollama /api/ps context_length"),
        ),
    ],
)
def test_each_server_kind_states_its_window(path: str, page: Any, window: ServerWindow) -> None:
    with serve() as server:
        server.pages[path] = page
        assert read_server_window(f"{server.base_url}/v1", "qwen") == window


@pytest.mark.parametrize(
    "page",
    [
        {"default_generation_settings": {"n_ctx": "big"}},
        {"default_generation_settings": {"n_ctx": 1e300}},
        {"default_generation_settings": {"n_ctx": True}},
        {"default_generation_settings": {"n_ctx": -5}},
        {"default_generation_settings": {"n_ctx": 12.5}},
        ["not", "an", "object"],
    ],
)
def test_an_implausible_window_is_no_window(page: Any) -> None:
    with serve() as server:
        server.pages["/props"] = page
        assert read_server_window(f"{server.base_url}/v1", "qwen") is None


def test_a_server_that_states_nothing_and_a_stopped_one_give_none() -> None:
    with serve() as server:
        assert read_server_window(f"{server.base_url}/v1", "qwen") is None
        assert server.gets == ["/v1/models", "/props", "/api/v0/models/qwen", "/api/ps"]
    assert read_server_window(f"{server.base_url}/v1", "qwen") is None  # gone now


def answer(text: str) -> Reply:
    return Reply(body=chat_turn(Turn(text), 120, "qwen"))


def test_a_run_on_a_llama_cpp_server_takes_its_window_and_says_so(tmp_path: Path) -> None:
    with serve([answer("hello")]) as server:
        server.pages["/props"] = LLAMA_CPP_PROPS
        outcome = headless(
            options_in(tmp_path, base_url=f"{server.base_url}/v1", model="qwen", as_json=True)
        )
    assert outcome.code == 0, outcome.err
    budget = 32768 - answer_reservation(32768)
    origin = (
        f"budget {budget:,} tokens: 32,768 from the server (llama.cpp /props n_ctx), "
        "less 8,192 for the answer"
    )
    assert f"warning: {origin}\n" in outcome.err
    first = json.loads(outcome.out.splitlines()[0])
    assert first == {"type": "budget", "origin": origin}
    assert_session_consistent(newest(tmp_path).path)


def test_a_server_stating_no_window_is_said_and_budget_is_given_by_flag(tmp_path: Path) -> None:
    with serve([answer("hello"), answer("again")]) as server:
        base = f"{server.base_url}/v1"
        silent = headless(options_in(tmp_path, base_url=base))
        given = headless(options_in(tmp_path / "second", base_url=base, budget=20_000))
    assert silent.code == 0 and given.code == 0
    assert f"the server at {base} states no window" in silent.err
    assert "the budget is 100,000 tokens, the default; give --budget" in silent.err
    assert "warning: budget 20,000 tokens, from --budget\n" in given.err
    assert_session_consistent(newest(tmp_path).path)
    assert_session_consistent(newest(tmp_path / "second").path)


def test_a_budget_the_settings_decided_names_the_window_beside_it() -> None:
    server = ModelDescriptor("qwen", "openai-chat", 32768, 8192, window_source="the server (x)")
    assert budget_origin("http://h/v1", server, 12_000, given=False) == (
        "budget 12,000 tokens, from the settings file or this session's log "
        "(the server (x) states a window of 32,768)"
    )
