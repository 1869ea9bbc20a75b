"""The summarisation prompts, the summary message, and the calls made through a Provider."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from pifold_agent.compaction import (
    CompactionError,
    CompactionSettings,
    FileOperations,
    plan_compaction,
    serialise,
    summarise,
    summary_entry,
)
from pifold_agent.compaction.prompts import (
    INITIAL_INSTRUCTIONS,
    NO_PRIOR_HISTORY,
    SUMMARISER_SYSTEM_PROMPT,
    TURN_PREFIX_INSTRUCTIONS,
    UPDATE_INSTRUCTIONS,
    history_prompt,
    turn_prefix_prompt,
)
from pifold_agent.providers.base import (
    ErrorClass,
    ProviderError,
    ProviderRequest,
    StreamDone,
    StreamEvent,
    TextDelta,
)
from pifold_core.entries import Entry, TextBlock, ThinkingBlock, ToolCallBlock, Usage


class AnsweringProvider:
    """A provider that answers each request with the next scripted text and records it."""

    def __init__(self, answers: list[str | ProviderError]) -> None:
        self.answers = answers
        self.requests: list[ProviderRequest] = []

    @property
    def name(self) -> str:
        return "scripted"

    @property
    def model(self) -> str:
        return "summary-model"

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, ProviderError):
            yield StreamDone((), "error", error=answer)
            return
        yield TextDelta(0, answer)
        yield StreamDone((TextBlock(answer),), "stop", Usage(100, 10))


def turn() -> list[Entry]:
    long_output = "r" * 2_500
    return [
        Entry("u1", "user", 1, (TextBlock("Fix the failing test"),)),
        Entry(
            "a1",
            "assistant",
            2,
            (
                ThinkingBlock("which test?"),
                TextBlock("Looking."),
                ToolCallBlock("c1", "read", {"path": "tests/test_x.py", "limit": 5}),
                ToolCallBlock("c2", "bash", {"command": "pytest -q"}),
            ),
        ),
        Entry(
            "r1",
            "tool_result",
            3,
            (TextBlock("def test_x(): ..."),),
            call_id="c1",
            tool_name="read",
        ),
        Entry("r2", "tool_result", 4, (TextBlock(long_output),), call_id="c2", tool_name="bash"),
        Entry("u2", "user", 5, (TextBlock("Now the docs"),)),
        Entry(
            "a2",
            "assistant",
            6,
            (ToolCallBlock("c3", "edit", {"path": "README.md", "oldText": "a", "newText": "b"}),),
        ),
        Entry("r3", "tool_result", 7, (TextBlock("ok"),), call_id="c3", tool_name="edit"),
        Entry("a3", "assistant", 8, (TextBlock("Done."),)),
    ]


def test_the_history_is_serialised_as_labelled_paragraphs() -> None:
    text = serialise(turn()[:4])
    assert text == (
        "[User]: Fix the failing test\n\n"
        "[Assistant thinking]: which test?\n\n"
        "[Assistant]: Looking.\n\n"
        '[Assistant tool calls]: read(path="tests/test_x.py", limit=5); '
        'bash(command="pytest -q")\n\n'
        "[Tool result]: def test_x(): ...\n\n"
        f"[Tool result]: {'r' * 2_000}\n[... 500 more characters]"
    )


def test_the_prompts_carry_the_conversation_previous_summary_and_instructions() -> None:
    history = tuple(turn()[:2])
    first = history_prompt(history, None, None)
    assert first.startswith("<conversation>\n[User]: Fix the failing test")
    assert first.endswith(INITIAL_INSTRUCTIONS) and "<previous-summary>" not in first
    for heading in (
        "## Goal",
        "## Constraints & Preferences",
        "### Done",
        "## Next Steps",
        "## Critical Context",
    ):
        assert heading in first
    update = history_prompt(history, "## Goal\nold goal", "the docs")
    assert "</conversation>\n\n<previous-summary>\n## Goal\nold goal\n</previous-summary>" in update
    assert UPDATE_INSTRUCTIONS in update and update.endswith("Additional focus: the docs")
    prefix = turn_prefix_prompt(history)
    assert prefix.endswith(TURN_PREFIX_INSTRUCTIONS)
    for heading in ("## Original Request", "## Early Progress", "## Context for Suffix"):
        assert heading in prefix


def test_the_summary_reaches_the_model_as_a_user_message() -> None:
    entry = summary_entry("k0000001", "## Goal\nship it", 42)
    assert entry.kind == "note" and entry.id == "k0000001" and entry.timestamp_ms == 42
    assert entry.wire == {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "Earlier parts of this conversation were replaced by the summary below "
                "to save context.\n\n<summary>\n## Goal\nship it\n</summary>",
            }
        ],
    }


async def test_a_split_turn_makes_two_standalone_requests_and_joins_them() -> None:
    entries = turn()
    tokens = [100, 100, 100, 100, 100, 100, 100, 100]
    plan = plan_compaction(entries, tokens, 0, 150, previous_summary="## Goal\nearlier")
    assert plan is not None and plan.turn_start == 4 and plan.first_kept_entry_id == "a3"
    provider = AnsweringProvider(["HISTORY", "PREFIX"])
    result = await summarise(provider, plan, CompactionSettings())
    history_request, prefix_request = provider.requests
    for request in provider.requests:
        assert request.system == SUMMARISER_SYSTEM_PROMPT and list(request.tools) == []
        assert request.session_id is None and len(request.messages) == 1
    assert history_request.max_output_tokens == 13_107 and prefix_request.max_output_tokens == 8_192
    history_text = history_request.messages[0]["content"]
    assert isinstance(history_text, list)
    assert history_text == [
        {"type": "text", "text": history_prompt(plan.history, "## Goal\nearlier", None)}
    ]
    assert result.requests == 2 and len(result.usage) == 2
    assert result.summary == (
        "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX\n\n"
        "<read-files>\ntests/test_x.py\n</read-files>\n\n<modified-files>\nREADME.md\n</modified-files>"
    )


async def test_nothing_before_the_turn_means_no_history_request() -> None:
    entries = turn()[4:]
    plan = plan_compaction(entries, [100, 100, 100, 100], 0, 150)
    assert plan is not None and plan.history == ()
    provider = AnsweringProvider(["PREFIX"])
    result = await summarise(provider, plan, CompactionSettings(), max_model_output_tokens=4_000)
    assert [request.max_output_tokens for request in provider.requests] == [4_000]
    assert result.summary.startswith(f"{NO_PRIOR_HISTORY}\n\n---\n\n**Turn Context (split turn):**")


async def test_a_failed_summary_request_raises_with_the_providers_words() -> None:
    plan = plan_compaction(turn(), [100] * 8, 0, 350)
    assert plan is not None and not plan.is_split_turn
    provider = AnsweringProvider([ProviderError(ErrorClass.TRANSIENT, "overloaded", 529)])
    with pytest.raises(CompactionError, match="summarisation request failed: overloaded"):
        await summarise(provider, plan, CompactionSettings(), custom_instructions="focus")
    empty = AnsweringProvider(["   "])
    with pytest.raises(CompactionError, match="returned no text"):
        await summarise(empty, plan, CompactionSettings())
    assert plan.file_operations == FileOperations(frozenset({"tests/test_x.py"}), frozenset())
