"""The whole agent, scripted: a value is folded away, the model searches for it, peeks the
hit and answers with the exact bytes (issue 21). Everything is an append: the wire audit
stays at zero unattributed rewrites, and the request that asked for the search is a prefix
of the one that carries its result."""

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
from tests.agent.test_end_to_end import MODULES, make_repository
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_reopens_identically
from tests.helpers.scripts import write_script

TOKEN = "amber falcon seventeen"
"""The value planted in the first module, folded away before the question comes: plain words,
which a brief does not keep (it keeps identifiers, and how a result opens and ends)."""

LINE = f"# the deploy passphrase is {TOKEN}"

ANSWER = f"The deploy passphrase is {TOKEN}."


def _script(path: Path) -> Path:
    lines: list[dict[str, object]] = [{"user": "Review every module in src/."}]
    for number in range(MODULES):
        call = {
            "id": f"read-{number}",
            "name": "read",
            "arguments": {"path": f"src/module_{number}.py"},
        }
        lines.append({"assistant": f"Reading module {number}.", "tool_calls": [call]})
    lines.append({"assistant": "Reviewed every module."})
    lines.append({"user": "What exactly is the deploy passphrase in module 0?"})
    search = {"action": "search", "query": '"deploy passphrase"'}
    lines.append(
        {
            "assistant": "It was folded away; searching for it.",
            "tool_calls": [{"id": "search-1", "name": "pi_fold_context", "arguments": search}],
        }
    )
    peek = {"action": "peek", "id": "${hit:1}", "bytes": 8_000, "ephemeral": False}
    lines.append(
        {
            "assistant": "Reading the hit's exact bytes.",
            "tool_calls": [{"id": "peek-1", "name": "pi_fold_context", "arguments": peek}],
        }
    )
    lines.append({"assistant": ANSWER})
    return write_script(path / "script.jsonl", lines, tools="execute", chunk_chars=40)


def _holds(request: ProviderRequest, text: str) -> bool:
    return any(text in canonical_bytes(message).decode("utf-8") for message in request.messages)


async def test_a_folded_value_is_searched_peeked_and_answered_exactly(tmp_path: Path) -> None:
    repository = make_repository(tmp_path)
    module = repository / "src" / "module_0.py"
    lines = module.read_text().splitlines(keepends=True)
    # In the middle: a brief keeps how a result opens and ends, never its middle.
    lines.insert(len(lines) // 2, LINE + "\n")
    module.write_text("".join(lines))
    session = SessionFile.create(repository, tmp_path / "sessions")
    counter = CharCounter()
    engine = Engine.open(session.state_directory, small_options(budget=12_000), counter)
    provider = ScriptedProvider(load_script(_script(tmp_path)), counter)
    tools = [ReadTool()]
    prompt = system_prompt(ordered_tools(tools), repository, datetime.date(2026, 12, 1))
    agent = Agent(engine, provider, tools, session, AgentConfig(repository, prompt))
    provider.attach(agent.queues)

    result = await agent.run(provider.opening_prompt())

    assert result.outcome == "stop" and result.final_text == ANSWER
    assert provider.exhausted
    results = {entry.call_id: entry for entry in engine.view.transcript.entries if entry.call_id}
    read = results["read-0"]
    searched, peeked = results["search-1"], results["peek-1"]

    # The value was folded away: the request that asked for the search did not show it.
    asked = next(
        number
        for number, request in enumerate(provider.requests)
        if _holds(request, "It was folded away; searching for it.")
    )
    asking = provider.requests[asked - 1]
    assert not _holds(asking, TOKEN)
    index = engine.view.transcript.index_of[read.id]
    assert engine.view.forest.chain_at(index)  # folded, at some depth

    # The search found it, named its innermost fold, and the peek read the exact bytes.
    assert not searched.is_error, searched.text
    assert f"· entry {read.id} · tool_result read" in searched.text
    assert TOKEN in searched.text
    assert not peeked.is_error and "(verified)" in peeked.text.splitlines()[0]
    assert LINE in peeked.text
    assert peeked.text.splitlines()[0].startswith(f"peek {read.id} (entry)")

    # Appends only: the request before the search is a prefix of the one carrying its result.
    carrying = provider.requests[asked]
    assert carrying.system == asking.system and carrying.tools == asking.tools
    assert list(carrying.messages[: len(asking.messages)]) == list(asking.messages)
    assert engine.view.audit_counts.unattributed == 0
    engine.close()
    session.close()
    assert_reopens_identically(engine)
