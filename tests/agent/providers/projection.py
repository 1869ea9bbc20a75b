"""A real engine projection for the provider tests: a session driven through
:class:`pifold_core.engine.Engine` in a temporary folder until a commit has folded part of it,
so the projection holds placeholders and notes beside raw messages of every kind."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pifold_agent.providers.base import ProviderRequest, ToolSpec
from pifold_core.canonical import JsonValue
from pifold_core.engine import Engine
from pifold_core.entries import Entry, ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock, Usage
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, assert_lossless

SYSTEM = "You are a coding agent working in /repo. Today is 2026-12-01."

TOOLS = (
    ToolSpec(
        "read",
        "Read a file.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    ToolSpec(
        "bash",
        "Run a shell command.",
        {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    ),
)

ODD_CALL_ID = "call|with/odd chars"
"""A call id no provider accepts as it is (normalised on the way out)."""


@dataclass(frozen=True)
class BuiltProjection:
    """The engine and the request built from its projection."""

    engine: Engine
    request: ProviderRequest
    messages: list[dict[str, JsonValue]]


def _special_turn(session: SessionBuilder) -> None:
    """Thinking (signed and unsigned), an image, an error result and an odd call id."""
    session.user("Here is the screenshot of the failure.")
    user = session.entries[-1]
    session.entries[-1] = Entry(
        user.id,
        "user",
        user.timestamp_ms,
        (*user.content, ImageBlock("image/png", "iVBORw0KGgo=")),
    )
    entry_id, timestamp = f"{session.prefix}x1", session.entries[-1].timestamp_ms + 1
    call = ToolCallBlock(ODD_CALL_ID, "bash", {"timeout": 30, "command": "pytest -q"})
    session.entries.append(
        Entry(
            entry_id,
            "assistant",
            timestamp,
            (
                ThinkingBlock("The screenshot shows an ImportError.", "sig-abc123"),
                ThinkingBlock("unsigned musing"),
                TextBlock(""),
                TextBlock("Running the tests."),
                call,
            ),
            usage=Usage(input_tokens=10, output_tokens=5),
        )
    )
    session.result(call, "ImportError: cannot import name 'App'", is_error=True)


def build_projection(folder: Path, chapters: int = 5) -> BuiltProjection:
    """Drive a session until at least one commit, then end on tool results (a tail that is
    not a plain user message)."""
    session = SessionBuilder()
    for number in range(chapters):
        session.chapter(
            f"Chapter {number}: fix src/x{number}.py", [[1500, 800], [1200]], seed=number
        )
    _special_turn(session)
    session.batch([300, 200], text="Checking two files.", seed=99)
    engine = Engine.open(folder / "state", small_options(), CharCounter())
    drive(engine, session.entries)
    request = engine.prepare_request()
    assert engine.view.commit_count >= 1, "the session must have committed a fold"
    assert_clean_audit(engine)
    assert_lossless(engine)
    settled = engine.settled_boundary()
    provider_request = ProviderRequest(
        system=SYSTEM,
        messages=request.messages,
        tools=TOOLS,
        settled_messages=settled,
        session_id="session-7f3a",
        max_output_tokens=4096,
    )
    return BuiltProjection(engine, provider_request, request.messages)
