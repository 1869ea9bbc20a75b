"""SWE-agent trajectories (``*.traj``).

``history`` is the final message list the agent kept, in OpenAI chat form; ``trajectory``
repeats the whole query at every step and is not needed. SWE-agent records neither
per-message timestamps nor per-call usage, so timestamps are synthesised.
"""

from __future__ import annotations

from typing import Any

from pifold_agent.importers.builder import TraceBuilder
from pifold_agent.importers.openai_chat import ChatImporter
from pifold_agent.importers.trace import ImportedTrace
from pifold_core.canonical import JsonValue


def is_swe_agent(document: Any) -> bool:
    """A SWE-agent trajectory: an object with a ``history`` list of chat messages."""
    if not isinstance(document, dict) or not isinstance(document.get("history"), list):
        return False
    history = document["history"]
    has_chat = any(
        isinstance(item, dict) and "role" in item and "content" in item for item in history
    )
    return has_chat and ("trajectory" in document or "info" in document)


def import_swe_agent(document: dict[str, Any]) -> ImportedTrace:
    """Turn a SWE-agent trajectory into entries."""
    builder = TraceBuilder("swe-agent")
    chat = ChatImporter(builder)
    for message in document["history"]:
        if not isinstance(message, dict):
            builder.note("a history item that is not an object was skipped")
            continue
        extra: dict[str, JsonValue] = {
            key: message[key] for key in ("agent", "message_type") if key in message
        }
        call_ids = message.get("tool_call_ids")
        if isinstance(call_ids, list) and len(call_ids) > 1:
            builder.note(f"a tool message answers {len(call_ids)} calls; it is tied to the first")
        chat.add(message, extra=extra)
    return builder.finish(0)
