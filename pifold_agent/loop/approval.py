"""Asking the user before a tool changes anything: ``write``, ``edit`` and ``bash``.

Which tools ask is each tool's own declaration (``asks_approval`` in its
:class:`~pifold_agent.tools.protocol.ToolTraits`): the agent gives the gate the names of
its tools that declare it (:func:`~pifold_agent.tools.registry.guarded_names`).

The loop consults an :class:`Approver` before it starts one of those calls. The approver is
whatever the host provides (the terminal app's is a modal question carrying a future the UI
resolves); the loop never imports a UI. A denial becomes the call's error result, telling the
model the user declined, and nothing runs. "Allow for this session" is remembered by the
:class:`ApprovalGate` per tool, so the question is not asked again for that tool; a host
started with ``--yes`` gives the loop no approver at all and nothing is asked.

Questions are asked one at a time, in the assistant's order, even though the calls of one
batch start concurrently: the gate holds a first-come lock while a question is open, and a
call that was waiting behind an "allow for this session" answer runs without asking.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from pifold_agent.tools.protocol import PLAIN_TRAITS, ToolOutcome, Touches
from pifold_agent.tools.registry import GUARDED_TOOLS, TRAITS
from pifold_core.canonical import JsonValue

DECLINED_RESULT = "error: the user declined to run this call; nothing was done"
"""The result recorded for a call the user denied."""


class ApprovalDecision(Enum):
    """The user's answer to one question."""

    ALLOW_ONCE = "allow_once"
    """Run this call; ask again next time."""
    ALLOW_SESSION = "allow_session"
    """Run this call and every later call of the same tool without asking."""
    DENY = "deny"
    """Do not run it; the model is told the user declined."""


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """One call waiting for the user's permission."""

    call_id: str
    """The provider's id of the call."""
    tool: str
    """The tool's name (``write``, ``edit`` or ``bash``)."""
    arguments: dict[str, JsonValue]
    """The call's arguments, as the model sent them."""

    @property
    def summary(self) -> str:
        """One line saying what the call would do: the command, or the file it touches."""
        traits = TRAITS.get(self.tool, PLAIN_TRAITS)
        headline = self.arguments.get(traits.headline[0]) if traits.headline else None
        if traits.touches is Touches.RUNS_COMMANDS and isinstance(headline, str):
            return f"run: {headline}"
        path = self.arguments.get("path")
        if isinstance(path, str):
            return f"{self.tool}: {path}"
        return f"{self.tool}: {json.dumps(self.arguments, ensure_ascii=False)[:200]}"


class Approver(Protocol):
    """Whoever answers the questions: the terminal app's modal, a test's script."""

    async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        """The user's decision on ``request``. Cancellation means the run was aborted."""
        ...


@dataclass
class ApprovalGate:
    """The loop's side of approval: asks the approver once per guarded call, in order."""

    approver: Approver
    """Who answers."""
    allowed_tools: set[str] = field(default_factory=set)
    """Tools the user allowed for this session: asked no more."""
    guarded: frozenset[str] = GUARDED_TOOLS
    """The tools that ask at all (the agent passes its own, by their traits)."""
    _turn: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    def needs_question(self, tool: str) -> bool:
        """Whether a call of ``tool`` would be asked about now."""
        return tool in self.guarded and tool not in self.allowed_tools

    async def check(self, request: ApprovalRequest) -> ToolOutcome | None:
        """``None`` when the call may run; the declined result when the user said no."""
        if not self.needs_question(request.tool):
            return None
        async with self._turn:
            # An earlier question of this batch may have allowed the tool for the session.
            if not self.needs_question(request.tool):
                return None
            decision = await self.approver.approve(request)
        if decision is ApprovalDecision.ALLOW_SESSION:
            self.allowed_tools.add(request.tool)
        if decision is ApprovalDecision.DENY:
            return ToolOutcome(DECLINED_RESULT, is_error=True)
        return None


__all__ = [
    "DECLINED_RESULT",
    "GUARDED_TOOLS",
    "ApprovalDecision",
    "ApprovalGate",
    "ApprovalRequest",
    "Approver",
]
