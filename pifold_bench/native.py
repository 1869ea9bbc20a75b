"""The compaction summaries a trace recorded, which set the ``native`` arm's summary length.

The arm itself, Pi's compaction re-enacted request by request, lives in
:mod:`pifold_agent.pricing.compaction` (the app's demo runs it too, and may not import the
bench).

The importers skip native compactions (pifold is fed the full history instead), so
:func:`recorded_summaries` reads them from the file itself: a Pi ``compaction`` entry's
``summary``; a Claude Code user record marked ``isCompactSummary``; a Codex ``compacted``
record's ``message`` (newer Codex encrypts the summary and leaves this empty, which gives no
length); and a Gemini CLI history that starts after a compression, whose summary is a user
message opening with ``<state_snapshot>`` (that one the importer keeps as an entry).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pifold_agent.importers.jsonl import read_json_lines
from pifold_core.entries import Entry

GEMINI_SNAPSHOT_OPENING = "<state_snapshot>"
"""How Gemini CLI's compression summary opens."""


def recorded_summaries(path: Path, entries: Sequence[Entry]) -> list[str]:
    """The text of every readable compaction summary in the trace, in file order."""
    summaries: list[str] = []
    text = path.read_text(encoding="utf-8", errors="replace")
    # A whole-file JSON document yields no record of these types, so every format can go
    # through the line reader.
    for record in read_json_lines(text).records:
        summary = _summary_of(record.value)
        if summary:
            summaries.append(summary)
    summaries.extend(
        entry.text
        for entry in entries
        if entry.kind in ("user", "note")
        and entry.text.lstrip().startswith(GEMINI_SNAPSHOT_OPENING)
    )
    return summaries


def _summary_of(value: dict[str, Any]) -> str | None:
    record_type = value.get("type")
    if record_type == "compaction":
        summary = value.get("summary")
        return summary if isinstance(summary, str) else None
    if record_type == "user" and value.get("isCompactSummary"):
        message = value.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        return _text_of(content)
    if record_type == "compacted":
        payload = value.get("payload")
        message = payload.get("message") if isinstance(payload, dict) else None
        return message if isinstance(message, str) else None
    return None


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        return "\n".join(parts)
    return None


__all__ = ["GEMINI_SNAPSHOT_OPENING", "recorded_summaries"]
