"""One classifier from SDK exceptions, HTTP statuses and error bodies to :class:`ProviderError`.

The loop reacts to three classes only (``base.ErrorClass``): a prompt the provider refused
for its size goes to the engine's overflow recovery, a transient failure is retried with
backoff, anything else ends the run. The size refusal is recognised by the phrases the
providers actually use (``pi-host.md`` §4.2) whatever the status, plus a bare 413, because
several servers answer an oversized prompt with a plain 400.

The adapters build their SDK clients with ``max_retries=0`` so that retrying stays with the
loop, and they call :func:`classify_exception` instead of letting an error escape.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping
from typing import Any

import anthropic
import httpx2
import openai

from pifold_agent.providers.base import ErrorClass, ProviderError
from pifold_agent.providers.connection import connection_failure

OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"prompt is too long",  # Anthropic
        r"input is too long for requested model",  # Bedrock
        r"exceeds the context window",  # OpenAI Responses
        r"context_length_exceeded",  # OpenAI error code
        r"maximum context length",  # OpenAI Chat, OpenRouter, vLLM
        r"input token count.*exceeds the maximum",  # Gemini
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"exceeds the limit of \d+",  # Copilot
        r"exceeds the available context size",  # llama.cpp server
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"model_context_window_exceeded",  # z.ai
        r"context length exceeded",  # generic
        r"too many tokens",  # generic
        r"token limit exceeded",  # generic
    )
)
"""How providers say the prompt does not fit (``pi-host.md`` §4.2)."""

TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
"""Statuses worth retrying: timeouts, conflicts, rate limits, server faults, overload."""

TRANSIENT_ERROR_TYPES = frozenset(
    {
        "overloaded_error",
        "rate_limit_error",
        "api_error",
        "timeout_error",
        "rate_limit_exceeded",
        "server_error",
        "server_is_overloaded",
        "slow_down",
    }
)
"""Error ``type`` or ``code`` values in a body that mark a transient failure, for errors
that arrive inside a 200 stream (Anthropic's ``error`` event, OpenAI's ``response.failed``)."""

STREAM_CUT_MESSAGE = "the stream ended before the message was complete"


def is_context_overflow(message: str) -> bool:
    """Whether an error message is a provider's way of saying the prompt is too long."""
    return any(pattern.search(message) for pattern in OVERFLOW_PATTERNS)


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms``, or ``retry-after`` (seconds or an HTTP date)."""
    if not headers:
        return None
    lowered = {name.lower(): value for name, value in headers.items()}
    milliseconds = lowered.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def classify_status(
    status: int | None,
    message: str,
    headers: Mapping[str, str] | None = None,
    error_type: str | None = None,
) -> ProviderError:
    """Classify a failure from its HTTP status, its words and the body's error type or code.

    ``status`` is ``None`` (or 200) for an error reported inside a stream.
    """
    retry_after = parse_retry_after(headers)
    http_status = status if status is not None and status >= 400 else None
    if is_context_overflow(message) or (error_type and is_context_overflow(error_type)):
        return ProviderError(ErrorClass.CONTEXT_TOO_LONG, message, http_status, retry_after)
    if http_status == 413:
        return ProviderError(ErrorClass.CONTEXT_TOO_LONG, message, http_status, retry_after)
    if http_status in TRANSIENT_STATUSES or (http_status is not None and http_status >= 500):
        return ProviderError(ErrorClass.TRANSIENT, message, http_status, retry_after)
    if http_status is None and error_type in TRANSIENT_ERROR_TYPES:
        return ProviderError(ErrorClass.TRANSIENT, message, None, retry_after)
    return ProviderError(ErrorClass.FATAL, message, http_status, retry_after)


def classify_exception(error: BaseException) -> ProviderError:
    """Classify whatever an SDK call or its stream raised (never a cancellation)."""
    if isinstance(error, anthropic.APIStatusError | openai.APIStatusError):
        headers = dict(error.response.headers.items())
        status = error.response.status_code
        message = _message_of(error).strip() or _wordless_status(status, str(error.request.url))
        return classify_status(status, message, headers, _error_type(error.body))
    if isinstance(error, anthropic.APIConnectionError | openai.APIConnectionError):
        # Timeouts are connection errors in both SDKs; the cause is a few links down.
        return connection_failure(error, _message_of(error))
    if isinstance(error, anthropic.APIError | openai.APIError):
        # An error event inside a stream: no status of its own, only a body.
        return classify_status(None, _message_of(error), None, _error_type(error.body))
    if isinstance(error, httpx2.TransportError | ConnectionError | TimeoutError):
        # The Anthropic SDK lets a connection dropped mid-stream through unwrapped.
        return ProviderError(ErrorClass.TRANSIENT, f"connection failed: {error}")
    return ProviderError(ErrorClass.FATAL, f"{type(error).__name__}: {error}")


def _wordless_status(status: int, url: str) -> str:
    """What to say for an error status whose body has no words (a proxy's or a wrong
    path's bare 404)."""
    hint = (
        " (is --base-url right? OpenAI-compatible servers usually serve under /v1)"
        if status == 404
        else ""
    )
    return f"HTTP {status} from {url} with no message{hint}"


def stream_cut() -> ProviderError:
    """The error for a stream that closed without its final event."""
    return ProviderError(ErrorClass.TRANSIENT, STREAM_CUT_MESSAGE)


def body_error(body: Any) -> tuple[str, str | None]:
    """The message and the type (or code) of an error body in either provider's shape."""
    inner = body.get("error") if isinstance(body, Mapping) else None
    source = inner if isinstance(inner, Mapping) else body
    if not isinstance(source, Mapping):
        return (str(body), None)
    message = source.get("message")
    return (
        message if isinstance(message, str) and message else str(dict(source)),
        _error_type(body),
    )


def _message_of(error: anthropic.APIError | openai.APIError) -> str:
    message, _ = body_error(error.body)
    # The SDK's own text carries the status; the body's message is the provider's words.
    return message if error.body is not None else str(error)


def _error_type(body: object) -> str | None:
    inner = body.get("error") if isinstance(body, Mapping) else None
    source = inner if isinstance(inner, Mapping) else body
    if not isinstance(source, Mapping):
        return None
    for key in ("code", "type"):
        value = source.get(key)
        if isinstance(value, str) and value and value != "error":
            return value
    return None
