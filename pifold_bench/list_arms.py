"""The arms that keep the window as a plain list of wire messages: ``none`` and ``clip-only``.

``none`` (:class:`LinearArm`) sends the whole history every time; the driver reports where
it passes the budget. ``clip-only`` (:class:`ClipOnlyArm`) clears every tool result but the
newest few once the history passes a trigger, the way API-side context editing
(``clear_tool_uses``) works. Neither keeps anything outside the window, so neither can be
peeked (:mod:`pifold_bench.arms` holds the protocol they follow and the engine arms).
"""

from __future__ import annotations

from pifold_agent.pricing.arm_request import ArmRequest
from pifold_bench.arms import message_digest
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry
from pifold_core.tokens import TokenCounter


class _ListArm:
    """Shared by the arms that keep the window as a plain list of wire messages."""

    name = ""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.messages: list[dict[str, JsonValue]] = []
        self.digests: list[str] = []
        self.tokens: list[int] = []

    def _push(self, message: dict[str, JsonValue], digest: str) -> None:
        self.messages.append(message)
        self.digests.append(digest)
        self.tokens.append(self.counter.count_message(message, digest))

    def _replace(self, index: int, message: dict[str, JsonValue]) -> None:
        digest = message_digest(message)
        self.messages[index] = message
        self.digests[index] = digest
        self.tokens[index] = self.counter.count_message(message, digest)

    def final_messages(self) -> list[dict[str, JsonValue]]:
        return list(self.messages)

    def peek(self, identifier: str) -> bytes | None:
        return None  # nothing is kept outside the window that the model could ask for

    def close(self) -> None:
        return None


class LinearArm(_ListArm):
    """``none``: the whole history, every time; the driver reports where it passes the budget."""

    name = "none"

    def append(self, entry: Entry) -> None:
        self._push(entry.wire, entry.wire_digest)

    def prepare_request(
        self,
        now_ms: int | None = None,
        cache_lifetime_s: int | None = None,
        host_head: str | None = None,
    ) -> ArmRequest:
        return ArmRequest(tuple(self.digests), tuple(self.tokens))

    @property
    def events(self) -> int:
        return 0


CLEARED_TEXT = "[tool result cleared to save context]"
"""What a cleared tool result says in its place (the call before it stays)."""


class ClipOnlyArm(_ListArm):
    """``clip-only``: once the history passes the trigger, every tool result but the newest
    ``keep`` is cleared, the way API-side context editing (``clear_tool_uses``) works.

    The trigger is measured on the uncleared history, as the API measures the prompt the
    client sends; so once passed, each new tool result pushes one more old one out, and every
    such request is a rewrite just behind the tail.
    """

    name = "clip-only"

    def __init__(self, counter: TokenCounter, trigger_tokens: int, keep: int = 3) -> None:
        super().__init__(counter)
        self.trigger_tokens = trigger_tokens
        """Uncleared history size (estimated tokens) at which clearing starts."""
        self.keep = keep
        """Newest tool results left alone."""
        self._raw_tokens = 0
        self._results: list[int] = []
        self._cleared = 0
        self._passes = 0

    def append(self, entry: Entry) -> None:
        self._push(entry.wire, entry.wire_digest)
        self._raw_tokens += self.tokens[-1]
        if entry.kind == "tool_result":
            self._results.append(len(self.messages) - 1)

    def prepare_request(
        self,
        now_ms: int | None = None,
        cache_lifetime_s: int | None = None,
        host_head: str | None = None,
    ) -> ArmRequest:
        causes: tuple[str, ...] = ()
        if self._raw_tokens > self.trigger_tokens:
            clear_until = max(0, len(self._results) - self.keep)
            if clear_until > self._cleared:
                for index in self._results[self._cleared : clear_until]:
                    self._replace(index, _cleared_message(self.messages[index]))
                self._cleared = clear_until
                self._passes += 1
                causes = (f"clear {self._passes}",)
        return ArmRequest(tuple(self.digests), tuple(self.tokens), causes)

    @property
    def events(self) -> int:
        return self._passes


def _cleared_message(message: dict[str, JsonValue]) -> dict[str, JsonValue]:
    return {**message, "content": [{"type": "text", "text": CLEARED_TEXT}]}


__all__ = ["CLEARED_TEXT", "ClipOnlyArm", "LinearArm"]
