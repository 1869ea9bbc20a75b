"""The agent's events: what a UI, the JSON stream and the tests observe of a run.

Names follow Pi's event vocabulary in Python spelling. Every event is a frozen dataclass with
a ``type`` tag and :func:`event_json` turns any of them into one JSON object (what
``pifold -p --json`` prints, one per line). Entries are carried whole, as their records.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar, TypeAlias

from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry

RunOutcome = str
"""``stop`` (the model finished), ``error`` or ``aborted``."""


@dataclass(frozen=True, slots=True)
class RunStart:
    """A run began (a prompt, or a follow-up that continued it)."""

    type: ClassVar[str] = "run_start"
    prompt: str | None
    """The prompt that started it; ``None`` when the run resumes queued messages only."""


@dataclass(frozen=True, slots=True)
class RunEnd:
    """A run ended; nothing more happens until the next prompt."""

    type: ClassVar[str] = "run_end"
    outcome: RunOutcome
    """``stop``, ``error`` or ``aborted``."""
    final_text: str
    """The text of the last complete assistant message ('' when there was none)."""
    error: str | None = None
    """What went wrong, for ``error``."""


@dataclass(frozen=True, slots=True)
class TurnStart:
    """One request and the tool batch it causes begin."""

    type: ClassVar[str] = "turn_start"
    turn: int
    """1-based turn number within the run."""


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """The turn's assistant message and its tool results are all recorded."""

    type: ClassVar[str] = "turn_end"
    turn: int
    tool_results: int
    """How many tool results the turn produced."""


@dataclass(frozen=True, slots=True)
class MessageStart:
    """A message begins: a user message, or an assistant message starting to stream."""

    type: ClassVar[str] = "message_start"
    role: str
    """``user``, ``assistant`` or ``tool_result``."""


@dataclass(frozen=True, slots=True)
class MessageUpdate:
    """A streamed piece of the assistant message."""

    type: ClassVar[str] = "message_update"
    kind: str
    """``text``, ``thinking`` or ``tool_call``."""
    index: int
    """Position of the block in the message."""
    delta: str
    """The new text (partial JSON for a tool call)."""


@dataclass(frozen=True, slots=True)
class MessageEnd:
    """A message is complete and recorded (an aborted one only in the session file)."""

    type: ClassVar[str] = "message_end"
    entry: Entry
    """The message as recorded."""
    stop_reason: str | None = None
    """For an assistant message: ``stop``, ``tool_use``, ``length``, ``error``, ``aborted``."""


@dataclass(frozen=True, slots=True)
class ToolExecutionStart:
    """A tool call begins to run."""

    type: ClassVar[str] = "tool_execution_start"
    call_id: str
    name: str
    arguments: JsonValue


@dataclass(frozen=True, slots=True)
class ToolExecutionUpdate:
    """Partial output of a running tool (never sent to the model)."""

    type: ClassVar[str] = "tool_execution_update"
    call_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolExecutionEnd:
    """A tool call's result is final (emitted in the assistant's order)."""

    type: ClassVar[str] = "tool_execution_end"
    call_id: str
    name: str
    is_error: bool


@dataclass(frozen=True, slots=True)
class RetryWait:
    """A transient provider failure: the loop waits, then sends the same request again."""

    type: ClassVar[str] = "retry_wait"
    attempt: int
    """1-based retry number."""
    delay_s: float
    """How long the loop waits before it."""
    error: str
    """The provider's words."""


@dataclass(frozen=True, slots=True)
class ServerWaiting:
    """A request has had nothing back yet: the server is still reading the prompt (a local
    server on a CPU reads thousands of tokens before its first one; 459 s was measured for
    9,000 on two cores). Repeated while the wait lasts."""

    type: ClassVar[str] = "server_waiting"
    seconds: int
    """Whole seconds since the request was sent."""


@dataclass(frozen=True, slots=True)
class CommitDone:
    """The engine committed before a request (its threshold, or overflow recovery)."""

    type: ClassVar[str] = "commit"
    number: int
    """The commit's number in the session."""
    cause: str
    tokens_before: int
    """The request before, the engine's own estimate (the fixed prefix included)."""
    tokens_after: int
    """The request after, the engine's own estimate (the fixed prefix included)."""
    folds: int
    """Folds the commit built (some of them may sit inside another it built)."""
    consolidated: int = 0
    """Of those, the ones a consolidated fold built by the same commit took in."""
    shown: int = 0
    """Folds the window shows after the commit: the fold bar's ``N Folds``."""
    prefix: int = 0
    """Of :attr:`tokens_before` and :attr:`tokens_after`, the host's fixed prefix (system
    prompt and tools), estimated: no commit can take it out."""


@dataclass(frozen=True, slots=True)
class OverflowRecovered:
    """The provider refused the request as too long; the engine folded at once."""

    type: ClassVar[str] = "overflow_recovery"
    attempt: int
    expected_tokens: int
    """Occupancy expected for the retried request."""
    fits: bool
    """Whether that is within the budget (otherwise the run ends)."""


@dataclass(frozen=True, slots=True)
class CompactionDone:
    """Native compaction (``--no-fold``) summarised the history before a request."""

    type: ClassVar[str] = "compaction"
    reason: str
    """``threshold`` (Pi's trigger), ``overflow`` (the provider refused the request) or
    ``manual`` (the app's ``/compact``)."""
    tokens_before: int
    """The context's estimated tokens before."""
    tokens_after: int
    """The estimate after: the summary and the kept messages."""
    first_kept_entry_id: str
    """The first message kept verbatim."""


@dataclass(frozen=True, slots=True)
class ReplyWarningEvent:
    """Something in the provider's reply was set aside or repaired at the door (an
    implausible usage figure recorded as unknown, a malformed id replaced, arguments that are
    not JSON); the run goes on (``pifold_agent/providers/reply_door.py``)."""

    type: ClassVar[str] = "reply_warning"
    message: str


@dataclass(frozen=True, slots=True)
class MemoryEvent:
    """A memory note was written by the ``memory`` tool, or came back into the window
    (:mod:`pifold_agent.memory.resurfacing`)."""

    type: ClassVar[str] = "memory"
    action: str
    """``written`` (created, edited, renamed or deleted) or ``resurfaced``."""
    path: str
    """The note's path under ``/memories``."""
    version: str | None = None
    """SHA-256 of the note's text, when known."""
    about: tuple[str, ...] = ()
    """For ``resurfaced``: the repository paths touched that the note is about."""


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """A failure the run reports before it ends (fatal provider error, retries exhausted)."""

    type: ClassVar[str] = "error"
    message: str


AgentEvent: TypeAlias = (
    RunStart
    | RunEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | RetryWait
    | ServerWaiting
    | CommitDone
    | CompactionDone
    | OverflowRecovered
    | ReplyWarningEvent
    | MemoryEvent
    | ErrorEvent
)


def event_json(event: AgentEvent) -> dict[str, JsonValue]:
    """One JSON object for ``event``: its ``type`` and its fields (entries as records)."""
    body: dict[str, JsonValue] = {"type": event.type}
    for item in fields(event):
        value = getattr(event, item.name)
        body[item.name] = value.to_record() if isinstance(value, Entry) else value
    return body


__all__ = [
    "AgentEvent",
    "CommitDone",
    "CompactionDone",
    "ErrorEvent",
    "MemoryEvent",
    "MessageEnd",
    "MessageStart",
    "MessageUpdate",
    "OverflowRecovered",
    "ReplyWarningEvent",
    "RetryWait",
    "RunEnd",
    "RunOutcome",
    "RunStart",
    "ServerWaiting",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "TurnEnd",
    "TurnStart",
    "event_json",
]
