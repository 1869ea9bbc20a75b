"""The approval question: the UI's side of :mod:`pifold_agent.loop.approval`.

:class:`ModalApprover` is the loop's :class:`~pifold_agent.loop.approval.Approver`. Each
question carries an ``asyncio.Future`` that the :class:`ApprovalScreen` resolves with the
user's answer; the loop awaits that future, so the loop never imports this module or any
other part of the UI. An abort cancels the loop's wait, which cancels the future, and the
screen closes itself unanswered.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static

if TYPE_CHECKING:
    # The loop loads after the app's first frame; the question needs it only when asked.
    from pifold_agent.loop.approval import ApprovalDecision, ApprovalRequest

ARGUMENT_PREVIEW_CHARS = 1_200
"""How much of a call's arguments the question shows (a write's content can be long)."""


def argument_preview(request: ApprovalRequest) -> str:
    """The call's arguments as the question shows them: a command or path plainly, the rest
    as JSON, cut to :data:`ARGUMENT_PREVIEW_CHARS`."""
    shown = {key: value for key, value in request.arguments.items()}
    text = json.dumps(shown, ensure_ascii=False, indent=2)
    if len(text) > ARGUMENT_PREVIEW_CHARS:
        text = text[:ARGUMENT_PREVIEW_CHARS] + f"\n… ({len(text):,} characters in all)"
    return text


class ApprovalScreen(ModalScreen["ApprovalDecision"]):
    """Asks whether one call may run: y (once), a (for this session), n or Escape (deny)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('allow_once')", "Allow once"),
        Binding("a", "answer('allow_session')", "Allow for this session"),
        Binding("n", "answer('deny')", "Deny"),
        Binding("escape", "answer('deny')", "Deny", show=False),
    ]
    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > Vertical {
        width: 90; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    ApprovalScreen #approval-title { text-style: bold; }
    ApprovalScreen #approval-arguments { color: $text-muted; margin: 1 0; }
    """

    def __init__(self, request: ApprovalRequest, answer: asyncio.Future[ApprovalDecision]) -> None:
        super().__init__()
        self.request = request
        """The call asked about."""
        self.answer = answer
        """Resolved with the user's decision; the loop awaits it."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Allow {self.request.tool}?", id="approval-title")
            yield Label(self.request.summary, id="approval-summary", markup=False)
            yield Static(argument_preview(self.request), id="approval-arguments", markup=False)
            yield Label("y allow once · a allow for this session · n deny", id="approval-keys")
        yield Footer()

    def on_mount(self) -> None:
        # The run was aborted while asking: the question is withdrawn, nothing to answer.
        self.answer.add_done_callback(self._withdrawn)

    def _withdrawn(self, future: asyncio.Future[ApprovalDecision]) -> None:
        if future.cancelled() and self.is_attached and self.app.screen is self:
            self.dismiss(None)

    def action_answer(self, decision: str) -> None:
        """Resolve the question with ``decision`` and close."""
        from pifold_agent.loop.approval import ApprovalDecision

        chosen = ApprovalDecision(decision)
        if not self.answer.done():
            self.answer.set_result(chosen)
        self.dismiss(chosen)


class ModalApprover:
    """Asks each question with an :class:`ApprovalScreen` pushed by ``push``."""

    def __init__(self, push: Callable[[ApprovalScreen], object]) -> None:
        self.push = push
        """Shows a question (the app's ``push_screen``)."""
        self.asked: list[ApprovalRequest] = []
        """Every question asked, in order (the app's record; tests read it)."""

    async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        answer: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        self.asked.append(request)
        self.push(ApprovalScreen(request, answer))
        return await answer


__all__ = ["ARGUMENT_PREVIEW_CHARS", "ApprovalScreen", "ModalApprover", "argument_preview"]
