"""A message too large for any request is refused before it is recorded (Reliability II, 8).

A user message stays in the context until a fold or a compaction covers it, and neither can
cover the message of the turn being answered: so a message that cannot fit one request on its
own, beside the system prompt and the tools every request carries, would make every later
request too long, and the session could never be continued. The loop refuses such a message
before anything is written (the session file, the engine's log and the queues are left as
they were) with its size, the room there is and what to do instead. The check sits in the
agent (:meth:`pifold_agent.loop.agent.Agent.check_message`), which every host's prompt,
steering message, follow-up and note goes through.

The size is the context window's own estimate (:meth:`ContextWindow.estimate_text`): the
engine's tokenizer scaled by its calibration against the provider's counts when folding,
Pi's characters / 4 under native compaction; the room is the window's request budget less
the estimate of the system prompt and tool definitions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pifold_agent.loop.system_prompt import tool_definitions
from pifold_agent.loop.window import ContextWindow
from pifold_agent.providers.base import ToolSpec
from pifold_core.tokens import MESSAGE_OVERHEAD_TOKENS

ADVICE = (
    "save it to a file in the working directory and ask the agent to read the part that "
    "matters (read takes an offset and a limit; grep finds lines)"
)
"""What to do with a text too large to send."""


class MessageTooLarge(ValueError):
    """A message that cannot fit one request on its own; nothing was recorded."""

    def __init__(self, tokens: int, budget: int, head_tokens: int) -> None:
        room = max(0, budget - head_tokens)
        if room == 0:
            reason = (
                f"the budget of {budget:,} tokens is used up by the system prompt and tools "
                f"(about {head_tokens:,} tokens), so no message fits; raise the budget"
            )
        else:
            reason = (
                f"this message is about {tokens:,} tokens, more than one request can carry: "
                f"the budget is {budget:,} tokens, of which the system prompt and tools take "
                f"about {head_tokens:,}, leaving {room:,}; {ADVICE}"
            )
        super().__init__(f"message refused, nothing was recorded: {reason}")
        self.tokens = tokens
        """The message's estimated size."""
        self.budget = budget
        """Tokens one request may carry."""
        self.room = room
        """The most one message may take."""


def head_tokens(window: ContextWindow, system: str, specs: Sequence[ToolSpec]) -> int:
    """What the system prompt and the tool definitions cost every request, estimated."""
    definitions = json.dumps(tool_definitions(specs), ensure_ascii=False, separators=(",", ":"))
    return window.estimate_text(system) + window.estimate_text(definitions)


def check_message_size(
    window: ContextWindow, head: int, text: str, budget: int | None = None
) -> None:
    """Refuse ``text`` when it cannot fit one request beside the head, at ``budget`` (the
    window's own when ``None``: a host checks against the budget a run is about to set).

    Raises:
        MessageTooLarge: it cannot; the message says how large it is, the room and what to
            do instead.
    """
    budget = window.request_budget() if budget is None else budget
    tokens = window.estimate_text(text) + MESSAGE_OVERHEAD_TOKENS  # its framing
    if tokens > budget - head:
        raise MessageTooLarge(tokens, budget, head)


__all__ = ["ADVICE", "MessageTooLarge", "check_message_size", "head_tokens"]
