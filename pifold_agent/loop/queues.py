"""Steering and follow-up: messages the user sends while a run is going (pi-host §1.5).

A **steering** message is typed while the agent works; it lands after the tool batch in
flight (every call of the batch still runs: the batch was already sent for execution) and
before the next request. A **follow-up** waits until the agent would otherwise stop, then
starts the next turn of the same run. Each queue hands its messages out one at a time (the
default) or all at once; a script that replays several user messages in a row uses ``all``.
"""

from __future__ import annotations

from collections import deque
from typing import Literal

QueueMode = Literal["one-at-a-time", "all"]
"""How many queued messages one delivery takes."""

QUEUE_MODES: tuple[QueueMode, ...] = ("one-at-a-time", "all")


class MessageQueue:
    """Messages waiting to be delivered to the model, oldest first."""

    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        if mode not in QUEUE_MODES:
            raise ValueError(f"queue mode must be one of {QUEUE_MODES}, got {mode!r}")
        self.mode: QueueMode = mode
        """How many messages :meth:`take` hands out."""
        self._waiting: deque[str] = deque()

    def put(self, text: str) -> None:
        """Queue one message; an empty one is refused because it would say nothing."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("a queued message must be non-empty text")
        self._waiting.append(text)

    def take(self) -> list[str]:
        """The messages to deliver now: the oldest one, or all of them in ``all`` mode."""
        if not self._waiting:
            return []
        if self.mode == "all":
            taken = list(self._waiting)
            self._waiting.clear()
            return taken
        return [self._waiting.popleft()]

    def drain(self) -> list[str]:
        """Everything still queued, emptying the queue (an abort gives it back to the user)."""
        taken = list(self._waiting)
        self._waiting.clear()
        return taken

    def __len__(self) -> int:
        return len(self._waiting)


class Queues:
    """The agent's two queues."""

    def __init__(
        self,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
    ) -> None:
        self.steering = MessageQueue(steering_mode)
        """Lands after the current tool batch."""
        self.follow_up = MessageQueue(follow_up_mode)
        """Lands when the agent would otherwise stop."""

    def steer(self, text: str) -> None:
        """Queue a steering message."""
        self.steering.put(text)

    def add_follow_up(self, text: str) -> None:
        """Queue a follow-up message."""
        self.follow_up.put(text)


__all__ = ["QUEUE_MODES", "MessageQueue", "QueueMode", "Queues"]
