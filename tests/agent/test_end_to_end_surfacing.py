"""The whole agent, scripted, with ``surfacing`` on (issue 21, part 3): the request after a
commit carries one note naming the folds related to the fresh tail. It is an append: the
wire audit stays at zero unattributed rewrites, the request that first carries a note is a
prefix of the next one, and no note is ever repeated, updated or withdrawn."""

from __future__ import annotations

import datetime
from pathlib import Path

from pifold_agent.loop import Agent, AgentConfig
from pifold_agent.loop.system_prompt import ordered_tools, system_prompt
from pifold_agent.providers.base import ProviderRequest
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_agent.sessions import SessionFile
from pifold_agent.tools.read import ReadTool
from pifold_core.canonical import canonical_bytes
from pifold_core.engine import Engine
from pifold_core.search.suggestions import SUGGESTIONS_TAG
from tests.agent.test_end_to_end import MODULES, make_repository
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_reopens_identically
from tests.helpers.scripts import write_script

RECALLED = "value_0_3"
"""A name module 0 defines, which every later message of the model mentions: once module 0
is folded, the fresh tail shares it with that fold."""


def _script(path: Path) -> Path:
    lines: list[dict[str, object]] = [{"user": "Review every module in src/."}]
    for number in range(MODULES):
        call = {
            "id": f"read-{number}",
            "name": "read",
            "arguments": {"path": f"src/module_{number}.py"},
        }
        text = f"Reading module {number}, comparing it with {RECALLED}."
        lines.append({"assistant": text, "tool_calls": [call]})
    lines.append({"assistant": f"Reviewed every module against {RECALLED}."})
    return write_script(path / "script.jsonl", lines, tools="execute", chunk_chars=40)


def _first_holding(requests: list[ProviderRequest], text: str) -> int:
    return next(
        number
        for number, request in enumerate(requests)
        if any(text in canonical_bytes(message).decode("utf-8") for message in request.messages)
    )


async def test_a_commit_carries_its_suggestions_as_an_append(tmp_path: Path) -> None:
    repository = make_repository(tmp_path)
    session = SessionFile.create(repository, tmp_path / "sessions")
    counter = CharCounter()
    engine = Engine.open(session.state_directory, small_options(budget=12_000), counter)
    engine.set_surfacing(True)
    provider = ScriptedProvider(load_script(_script(tmp_path)), counter)
    tools = [ReadTool()]
    prompt = system_prompt(ordered_tools(tools), repository, datetime.date(2026, 12, 1))
    agent = Agent(engine, provider, tools, session, AgentConfig(repository, prompt))
    provider.attach(agent.queues)

    result = await agent.run(provider.opening_prompt())

    assert result.outcome == "stop" and provider.exhausted
    entries = engine.view.transcript.entries
    notes = [entry for entry in entries if entry.extra.get("pifold") == SUGGESTIONS_TAG]
    assert notes, "no commit carried a suggestion"
    assert engine.view.commit_count >= len(notes)
    assert len({note.id for note in notes}) == len(notes)
    first = notes[0]
    assert RECALLED in first.text  # the shared name, found in the fold's verified bytes
    suggested = first.extra["suggested"]
    assert isinstance(suggested, list) and suggested
    assert all(handle in engine.view.forest.folds for handle in suggested)

    # Appended with its commit, then left alone: the request that first carries the note is
    # a prefix of the next request's, and every later request still holds it unchanged.
    carrying = _first_holding(provider.requests, first.text.splitlines()[1])
    following = provider.requests[carrying + 1]
    shown = provider.requests[carrying].messages
    assert list(following.messages[: len(shown)]) == list(shown)
    assert engine.view.audit_counts.unattributed == 0
    engine.close()
    session.close()
    assert_reopens_identically(engine)
