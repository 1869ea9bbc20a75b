"""The whole agent, scripted, in a real git repository: tools run for real, the engine folds
inside one long agentic turn, the model peeks a fold and gets the exact bytes back.

Everything a live session touches is real here: the session file, the engine beside it, the
loop, the read / bash / write tools and the fold tool. Only the model is a script.
"""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path

from pifold_agent.loop import Agent, AgentConfig, AgentEvent
from pifold_agent.loop.events import CommitDone, MessageEnd, ToolExecutionEnd, TurnStart
from pifold_agent.loop.messages import in_context
from pifold_agent.loop.system_prompt import ordered_tools, system_prompt
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_agent.sessions import SessionFile
from pifold_agent.tools.bash import BashTool
from pifold_agent.tools.read import ReadTool
from pifold_agent.tools.write import WriteTool
from pifold_core.engine import Engine
from pifold_core.folds import source_of
from tests.core.builders import CharCounter, filler, small_options
from tests.core.engine_checks import assert_reopens_identically
from tests.helpers.scripts import write_script

MODULES = 12
"""Source files the model reads one by one in its long turn."""

PEEK_BYTES = 12_000
"""The slice the model peeks: the result stays under the evidence threshold, so the model
sees it whole rather than as a preview."""


def make_repository(root: Path) -> Path:
    repository = root / "repo"
    (repository / "src").mkdir(parents=True)
    for number in range(MODULES):
        body = filler(3_600, seed=number, stem=f"value_{number}")
        text = f"# module {number}: FIRST-LINE-{number:02d}\n" + "\n".join(
            f"value_{number}_{line} = {line!r}  # {part}"
            for line, part in enumerate(body.splitlines())
        )
        (repository / "src" / f"module_{number}.py").write_text(text + "\n")
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=test"]
    subprocess.run([*git, "init", "-q"], cwd=repository, check=True)
    subprocess.run([*git, "add", "."], cwd=repository, check=True)
    subprocess.run([*git, "commit", "-qm", "modules"], cwd=repository, check=True)
    return repository


def review_script(path: Path) -> Path:
    lines: list[dict[str, object]] = [
        {"user": "Review every module in src/ and tell me what each one defines."},
        {
            "assistant": "I'll start with the repository state.",
            "tool_calls": [
                {"id": "git-1", "name": "bash", "arguments": {"command": "git status --short"}},
                {"id": "ls-1", "name": "bash", "arguments": {"command": "ls src | sort"}},
            ],
        },
    ]
    for number in range(MODULES):
        call = {
            "id": f"read-{number}",
            "name": "read",
            "arguments": {"path": f"src/module_{number}.py"},
        }
        lines.append({"assistant": f"Reading module {number}.", "tool_calls": [call]})
    notes = {"path": "NOTES.md", "content": "Every module defines value_N_* constants.\n"}
    lines.append(
        {
            "assistant": "Writing my notes down.",
            "tool_calls": [{"id": "write-1", "name": "write", "arguments": notes}],
        }
    )
    lines.append({"assistant": "Every module defines numbered value_N_* constants."})
    lines.append({"user": "What exactly was the first line of the oldest folded material?"})
    peek = {"action": "peek", "id": "${fold:1}", "bytes": PEEK_BYTES}
    lines.append(
        {
            "assistant": "Let me look at the exact bytes.",
            "tool_calls": [{"id": "peek-1", "name": "pi_fold_context", "arguments": peek}],
        }
    )
    lines.append({"assistant": "It was the first module's header."})
    return write_script(path / "script.jsonl", lines, tools="execute", chunk_chars=40)


async def test_a_scripted_session_folds_inside_a_long_turn_and_peeks_exact_bytes(
    tmp_path: Path,
) -> None:
    repository = make_repository(tmp_path)
    session = SessionFile.create(repository, tmp_path / "sessions")
    # The chars/4 counter for engine and provider alike: the provider's usage is the engine's
    # own tokenizer's count, and the reopen check rebuilds with the same counter.
    counter = CharCounter()
    engine = Engine.open(session.state_directory, small_options(budget=12_000), counter)
    provider = ScriptedProvider(load_script(review_script(tmp_path)), counter)
    tools = [ReadTool(), BashTool(), WriteTool()]
    prompt = system_prompt(ordered_tools(tools), repository, datetime.date(2026, 12, 1))
    agent = Agent(engine, provider, tools, session, AgentConfig(repository, prompt))
    provider.attach(agent.queues)
    events: list[AgentEvent] = []
    agent.subscribe(events.append)

    result = await agent.run(provider.opening_prompt())

    assert result.outcome == "stop" and result.final_text == "It was the first module's header."
    assert provider.exhausted

    # Tools ran for real in the repository.
    assert (repository / "NOTES.md").read_text() == "Every module defines value_N_* constants.\n"
    ends = [event for event in events if isinstance(event, ToolExecutionEnd)]
    assert len(ends) == MODULES + 4 and not any(event.is_error for event in ends)
    results = {entry.call_id: entry for entry in engine.view.transcript.entries if entry.call_id}
    assert "module_0.py" in results["ls-1"].text and "module_11.py" in results["ls-1"].text

    # The threshold commit landed between two batches of the first, long turn: after several
    # turns of that run and before the second user message.
    order = [
        event
        for event in events
        if isinstance(event, CommitDone | TurnStart)
        or (isinstance(event, MessageEnd) and event.entry.kind == "user")
    ]
    commits = [event for event in order if isinstance(event, CommitDone)]
    assert commits and commits[0].cause == "threshold" and commits[0].folds >= 1
    before_commit = order[: order.index(commits[0])]
    users_before = [event for event in before_commit if isinstance(event, MessageEnd)]
    assert len(users_before) == 1
    assert sum(isinstance(event, TurnStart) for event in before_commit) >= 5

    # Every request sent exactly the engine's projection of its moment; the last one is the
    # engine's projection now, less the final reply appended after it.
    assert list(provider.requests[-1].messages) == engine.view.projection.messages()[:-1]
    assert len(provider.requests) == engine.view.audit_counts.requests
    assert engine.view.audit_counts.unattributed == 0

    # The model peeked a fold by the handle it read in its context and got the exact bytes.
    peek = results["peek-1"]
    assert not peek.is_error and "(verified)" in peek.text.splitlines()[0]
    handle = peek.text.split()[1]
    fold = engine._verbs.fold(handle)
    exact = source_of(engine.view.transcript.entries[fold.start : fold.end]).decode("utf-8")
    body = peek.text.split("\n", 1)[1].rsplit("\n", 2)[0]
    assert body.encode("utf-8") == exact.encode("utf-8")[:PEEK_BYTES]
    assert f"bytes 0 to {PEEK_BYTES:,} of {len(exact.encode('utf-8')):,}" in peek.text
    assert "FIRST-LINE-" in exact

    # The session file holds every in-context message the engine holds, in order, and a
    # reopened engine rebuilds the same state with every fold verified.
    recorded = [
        entry.id for entry in SessionFile.open(session.path).messages() if in_context(entry)
    ]
    assert recorded == [
        entry.id for entry in engine.view.transcript.entries if entry.extra.get("pifold") is None
    ]
    engine.close()
    session.close()
    assert_reopens_identically(engine)
