"""What every provider adapter speaks: the request it is given and the events it streams.

The loop never sees an SDK object. It hands a provider a :class:`ProviderRequest` (the
engine's projection, exactly as :meth:`pifold_core.engine.Engine.prepare_request` returned
it, plus the system prompt and the tool definitions) and reads :class:`StreamEvent` values
until a :class:`StreamDone`. An adapter never raises for a request, model or network
failure: it ends the stream with a :class:`StreamDone` whose ``stop_reason`` is ``"error"``
and whose ``error`` classifies the failure, so the loop can recover, retry or stop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal, Protocol, TypeAlias

from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, Usage

StopReason = Literal["stop", "length", "tool_use", "error", "aborted"]
"""Why the assistant message ended (Pi's ``stopReason``, in Python spelling)."""


class ErrorClass(Enum):
    """How the loop must react to a failed request."""

    CONTEXT_TOO_LONG = "context_too_long"
    """The provider refused the prompt's size: overflow recovery, then the same request."""
    TRANSIENT = "transient"
    """Rate limit, overload, a 5xx or a dropped connection: retry with backoff."""
    FATAL = "fatal"
    """Anything else (bad key, bad request): the run ends with the message."""


@dataclass(frozen=True, slots=True)
class ProviderError:
    """A classified failure, carried by the final event of a failed stream."""

    kind: ErrorClass
    """What the loop does about it."""
    message: str
    """The provider's own words, for the user."""
    status: int | None = None
    """The HTTP status, when there was one."""
    retry_after_s: float | None = None
    """The provider's ``retry-after`` hint, when it sent one."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool as offered to the model (provider-neutral JSON schema)."""

    name: str
    description: str
    parameters: dict[str, JsonValue]
    """A JSON schema object for the arguments."""
    anthropic_type: str | None = None
    """A native tool type Anthropic declares this tool as instead (``memory_20250818``);
    other providers get the function tool above."""


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    """Everything one model call sends."""

    system: str
    """The system prompt. Stable for a session: it carries the date, never a time."""
    messages: Sequence[dict[str, JsonValue]]
    """The engine's projection, wire messages in order (``Request.messages``)."""
    tools: Sequence[ToolSpec]
    """The tools, in a fixed order so the prefix stays byte-stable."""
    settled_messages: int | None = None
    """How many leading messages the next commit will not rewrite (Anthropic places a cache
    breakpoint after them); ``None`` when the host does not know."""
    session_id: str | None = None
    """A stable id for the session (OpenAI's ``prompt_cache_key``)."""
    max_output_tokens: int | None = None
    """The output reservation, when the model descriptor states one."""
    cache_baseline: str | None = None
    """The provider's id for the session's previous reply: an adapter that asks the
    provider's cache diagnostics compares this request with it
    (:mod:`pifold_agent.providers.cache_requests`); ``None`` on a first request."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of assistant text."""

    index: int
    """Position of the block in the assistant message."""
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A piece of readable reasoning."""

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a tool call's arguments as the provider streams them (partial JSON)."""

    index: int
    call_id: str
    name: str
    partial_json: str


@dataclass(frozen=True, slots=True)
class UsageUpdate:
    """The provider's usage, mapped without double counting (``input`` excludes cache reads
    and writes)."""

    usage: Usage


@dataclass(frozen=True, slots=True)
class ReplyWarning:
    """Something in the provider's reply was set aside or repaired at the door (an
    implausible usage figure, a malformed id, arguments that are not JSON): the reply goes
    on, and the user is told (:mod:`pifold_agent.providers.reply_door`)."""

    message: str


@dataclass(frozen=True, slots=True)
class StreamDone:
    """The last event of every stream: the whole assistant message, or the failure."""

    content: tuple[Block, ...]
    """The assistant's blocks, complete (tool call arguments parsed)."""
    stop_reason: StopReason
    usage: Usage | None = None
    model: str | None = None
    error: ProviderError | None = None
    """Set exactly when ``stop_reason`` is ``"error"``."""
    extra: dict[str, JsonValue] = field(default_factory=dict)
    """Provider data to keep with the entry (never sent back unless the adapter needs it)."""


StreamEvent: TypeAlias = (
    TextDelta | ThinkingDelta | ToolCallDelta | UsageUpdate | ReplyWarning | StreamDone
)


class Provider(Protocol):
    """A model behind an API. Implementations: Anthropic Messages, OpenAI Responses, OpenAI
    Chat Completions (any compatible server), and the scripted provider."""

    @property
    def name(self) -> str:
        """``anthropic``, ``openai``, ``openai-chat`` or ``scripted``."""
        ...

    @property
    def model(self) -> str:
        """The model id requests are sent to."""
        ...

    def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        """Send one request and yield its events; the last is always a :class:`StreamDone`.
        Cancelling the consuming task aborts the HTTP request."""
        ...
