"""mini-swe-agent trajectories (``*.traj.json``): the exact chat the agent sent.

``messages`` is the OpenAI-format conversation; each assistant message keeps the raw provider
response in ``extra.response`` (model, usage) and a float-seconds ``extra.timestamp``. The
final ``exit`` message holds the submission, which the model never saw: it is noted, not added.
"""

from __future__ import annotations

from typing import Any

from pifold_agent.importers.builder import TraceBuilder, optional_string
from pifold_agent.importers.openai_chat import ChatImporter, chat_usage
from pifold_agent.importers.trace import ImportedTrace
from pifold_core.canonical import JsonValue


def is_mini_swe_agent(document: Any) -> bool:
    """A mini-swe-agent trajectory: an object with a ``messages`` list and its format tag."""
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        return False
    trajectory_format = str(document.get("trajectory_format", ""))
    info = document.get("info")
    return trajectory_format.startswith("mini-swe-agent") or (
        isinstance(info, dict) and "mini_version" in info
    )


def import_mini_swe_agent(document: dict[str, Any]) -> ImportedTrace:
    """Turn a mini-swe-agent trajectory into entries."""
    builder = TraceBuilder("mini-swe-agent")
    chat = ChatImporter(builder)
    for message in document["messages"]:
        if not isinstance(message, dict):
            builder.note("a message that is not an object was skipped")
            continue
        extra = message.get("extra")
        extra = extra if isinstance(extra, dict) else {}
        if message.get("role") == "exit":
            info = document.get("info")
            status = info.get("exit_status") if isinstance(info, dict) else None
            builder.note(
                f"exit message skipped (exit status {status!r}, "
                f"{len(str(message.get('content', '')))} characters of submission)"
            )
            continue
        response = extra.get("response")
        response = response if isinstance(response, dict) else {}
        kept: dict[str, JsonValue] = {}
        for key in ("returncode", "exception_info", "cost"):
            if extra.get(key) is not None:
                kept[key] = extra[key]
        chat.add(
            message,
            preferred_id=response.get("id") if message.get("role") == "assistant" else None,
            timestamp=extra.get("timestamp"),
            usage=chat_usage(response.get("usage")),
            model=optional_string(response.get("model")),
            extra=kept,
        )
    return builder.finish(0)
