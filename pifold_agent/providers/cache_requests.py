"""What an adapter adds to a request for the provider's cache: diagnostics and breakpoints.

Which requests carry them (see :mod:`pifold_agent.cache_report.reports` for the documented
shapes and their pages):

* **Anthropic** cache diagnostics are a Claude API feature (not Bedrock, not Vertex): asked
  when the adapter talks to ``api.anthropic.com`` (no ``--base-url``, or that host), when the
  model is a Claude model behind another URL (a gateway or proxy forwards the field to the
  Claude API; a local model in Anthropic's shape is not asked), or when the adapter is told
  to. Every such request carries ``diagnostics`` (``previous_message_id``
  ``null`` on a first request: the API keeps a fingerprint only of requests that opt in).
* **OpenAI Responses** prompt-cache diagnostics and explicit breakpoints are for GPT-5.6 and
  later (``prompt_cache_options`` in the installed SDK: "Supported for ``gpt-5.6`` and later
  models"): asked for such a model on ``api.openai.com`` or behind a ``--base-url`` that
  serves it (the model's name says it is OpenAI's), or when the adapter is told to. A
  breakpoint (``"prompt_cache_breakpoint": {"mode": "explicit"}``) may sit on an
  ``input_text``, ``input_image`` or ``input_file`` part, never on a tool definition, the
  ``instructions`` field or an assistant's output; a request writes at most four (one of
  them the implicit breakpoint OpenAI keeps on the latest message). So the system prompt is
  sent as one ``input_text`` part with a breakpoint, every tool result's output as a list of
  parts (always, so its bytes never depend on where the breakpoint sits), and one more
  breakpoint goes on the last part of the settled boundary, as the Anthropic adapter places
  ``cache_control`` (:mod:`pifold_agent.providers.anthropic_messages`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final
from urllib.parse import urlsplit

ANTHROPIC_HOST: Final = "api.anthropic.com"
OPENAI_HOST: Final = "api.openai.com"

BREAKPOINT: Final[dict[str, str]] = {"mode": "explicit"}
"""OpenAI's explicit cache breakpoint on a content part."""

BREAKABLE_PARTS: Final = frozenset({"input_text", "input_image", "input_file"})
"""The content parts OpenAI accepts a breakpoint on."""

FIRST_CACHE_CONTROL_MODEL: Final = (5, 6)
"""GPT-5.6: the first model that takes ``prompt_cache_options`` and breakpoints."""

_GPT_VERSION = re.compile(r"^gpt-(\d+)(?:\.(\d+))?(?![\d.])")


def official_endpoint(base_url: str | None, host: str) -> bool:
    """Whether requests go to the provider's own API (no ``--base-url``, or its ``host``)."""
    if base_url is None:
        return True
    try:
        return (urlsplit(base_url.strip()).hostname or "").lower() == host
    except ValueError:
        return False


def anthropic_diagnostics(base_url: str | None, model: str) -> bool:
    """Whether an Anthropic adapter asks the cache diagnostics by default: on the Claude
    API's own host, or for a Claude model behind another URL."""
    return official_endpoint(base_url, ANTHROPIC_HOST) or model.strip().lower().startswith("claude")


def openai_cache_controls(model: str) -> bool:
    """Whether an OpenAI model takes prompt-cache diagnostics and breakpoints (GPT-5.6 on:
    ``gpt-5.6``, ``gpt-5.6-mini``, ``gpt-5.10``, ``gpt-6``; not ``gpt-5``, ``gpt-5.5``,
    ``gpt-4.1``)."""
    bare = model.rsplit("/", 1)[-1].lower()
    found = _GPT_VERSION.match(bare)
    if found is None:
        return False
    version = (int(found.group(1)), int(found.group(2) or 0))
    return version >= FIRST_CACHE_CONTROL_MODEL


def breakable_parts(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The parts of one Responses input item that may carry a breakpoint, in order."""
    if item.get("type") == "function_call_output":
        parts = item.get("output")
    elif item.get("role") in ("user", "system", "developer"):
        parts = item.get("content")
    else:
        return []
    if not isinstance(parts, list):
        return []
    return [
        part for part in parts if isinstance(part, dict) and part.get("type") in BREAKABLE_PARTS
    ]


def place_openai_breakpoint(
    items: list[dict[str, Any]], ranges: Sequence[range], settled_messages: int | None
) -> dict[str, Any] | None:
    """Put a breakpoint on the last breakable part among the items of the first
    ``settled_messages`` engine messages (``ranges[i]``: the items message ``i`` became);
    returns the part, or ``None`` when there is no settled boundary or no such part."""
    if not settled_messages or settled_messages <= 0:
        return None
    end = ranges[min(settled_messages, len(ranges)) - 1].stop if ranges else 0
    for index in range(end - 1, -1, -1):
        parts = breakable_parts(items[index])
        if parts:
            parts[-1]["prompt_cache_breakpoint"] = dict(BREAKPOINT)
            return parts[-1]
    return None


__all__ = [
    "ANTHROPIC_HOST",
    "BREAKABLE_PARTS",
    "BREAKPOINT",
    "OPENAI_HOST",
    "anthropic_diagnostics",
    "breakable_parts",
    "official_endpoint",
    "openai_cache_controls",
    "place_openai_breakpoint",
]
