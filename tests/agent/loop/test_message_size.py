"""A message no request can carry is refused before it is recorded (Reliability II, 8).

An oversized paste used to be recorded, and from then on every request (and every
``--continue``) failed "still N tokens after making room". The agent now refuses it before
anything is written: the prompt of a run, a steering message, a follow-up and a note, under
folding and under native compaction; the session stays usable, and a message that fits to
the token is still taken.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.compaction import CompactionSettings
from pifold_agent.loop import Agent, AgentConfig
from pifold_agent.loop.message_size import MessageTooLarge, head_tokens
from pifold_agent.native_window import NativeWindow
from pifold_agent.sessions import SessionFile
from pifold_core.tokens import MESSAGE_OVERHEAD_TOKENS
from tests.agent.headless_cases import (
    answer_script,
    continue_problems,
    headless,
    newest,
    options_in,
    refusal_problems,
)
from tests.agent.loop.helpers import (
    ProgrammedProvider,
    assert_session_consistent,
    make_agent,
    open_engine,
    reply,
)

BUDGET = 6_000


def room_of(agent: Agent) -> int:
    """The most tokens one message may take beside the agent's head."""
    return agent.window.request_budget() - head_tokens(agent.window, agent.system, agent.specs)


def text_of_tokens(tokens: int) -> str:
    """A text the chars/4 counter counts as ``tokens`` in a message (framing included)."""
    return "abcd" * (tokens - MESSAGE_OVERHEAD_TOKENS)


async def test_an_oversized_prompt_records_nothing_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    engine = open_engine(tmp_path, budget=BUDGET)
    provider = ProgrammedProvider([reply("fine")])
    agent, recorder, events = make_agent(engine, provider)
    with pytest.raises(MessageTooLarge) as refused:
        await agent.run(text_of_tokens(room_of(agent) + 1))
    text = str(refused.value)
    assert f"{room_of(agent) + 1:,} tokens" in text and f"budget is {BUDGET:,}" in text
    assert "save it to a file" in text and "nothing was recorded" in text
    assert recorder.entries == [] and len(engine.view.transcript) == 0
    assert provider.requests == [] and events == [] and not agent.running
    result = await agent.run("a short one")
    assert result.final_text == "fine"
    assert_session_consistent(engine, recorder)


async def test_a_message_that_fits_to_the_token_is_taken(tmp_path: Path) -> None:
    engine = open_engine(tmp_path, budget=BUDGET)
    provider = ProgrammedProvider([reply("taken")])
    agent, recorder, _ = make_agent(engine, provider)
    result = await agent.run(text_of_tokens(room_of(agent)))
    assert result.final_text == "taken" and [entry.kind for entry in recorder.entries] == [
        "user",
        "assistant",
    ]
    engine.close()


async def test_steering_follow_ups_and_notes_are_checked_too(tmp_path: Path) -> None:
    engine = open_engine(tmp_path, budget=BUDGET)
    agent, recorder, _ = make_agent(engine, ProgrammedProvider([]))
    oversized = text_of_tokens(room_of(agent) + 50)
    for queue in (agent.steer, agent.follow_up, agent.note):
        with pytest.raises(MessageTooLarge):
            queue(oversized)
    assert len(agent.queues.steering) == len(agent.queues.follow_up) == 0
    assert recorder.entries == []
    engine.close()


async def test_native_compaction_refuses_what_it_could_never_compact_away(
    tmp_path: Path,
) -> None:
    session = SessionFile.create(tmp_path, tmp_path / "sessions")
    provider = ProgrammedProvider([reply("fine")])
    settings = CompactionSettings(reserve_tokens=1_000, keep_recent_tokens=1_500)
    window = NativeWindow(session, provider, context_window=5_000, settings=settings)  # type: ignore[arg-type]
    agent = Agent(window, provider, [], session, AgentConfig(tmp_path, "test system"))  # type: ignore[arg-type]
    room = room_of(agent)
    assert room == 4_000 - head_tokens(window, agent.system, agent.specs)
    with pytest.raises(MessageTooLarge):
        await agent.run("x" * 4 * room)
    assert session.messages() == [] and not session.path.exists()
    assert (await agent.run("short")).final_text == "fine"
    session.close()


def test_headless_refuses_an_oversized_paste_and_continue_still_works(tmp_path: Path) -> None:
    first = headless(options_in(tmp_path, script=answer_script(tmp_path)))
    assert first.code == 0
    before = newest(tmp_path).path.read_bytes()
    paste = ("build line with some words in it\n" * 30_000).encode()  # about 200k tokens
    outcome = headless(
        options_in(tmp_path, continue_session=True, script=answer_script(tmp_path)), paste
    )
    assert refusal_problems(outcome, 2, "message refused", "budget is", "save it to a file") == []
    assert newest(tmp_path).path.read_bytes() == before
    assert continue_problems(tmp_path) == []
