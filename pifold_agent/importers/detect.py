"""Recognise a trace's format from its content (never from its file name).

Whole-document JSON formats (mini-swe-agent, SWE-agent, Gemini CLI) are tried first; anything
else is read as JSON Lines and classified by the shape of its records. A file that is empty or
matches nothing raises :class:`TraceFormatError` naming the file and the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pifold_agent.importers.claude_code import import_claude_code
from pifold_agent.importers.codex import import_codex
from pifold_agent.importers.gemini_cli import gemini_history, import_gemini_cli
from pifold_agent.importers.jsonl import JsonLines, JsonRecord, read_json_lines, repair_strings
from pifold_agent.importers.mini_swe_agent import import_mini_swe_agent, is_mini_swe_agent
from pifold_agent.importers.pi import import_pi
from pifold_agent.importers.swe_agent import import_swe_agent, is_swe_agent
from pifold_agent.importers.trace import ImportedTrace, TraceFormatError

_SAMPLE_RECORDS = 200
"""Records inspected to classify a JSON Lines file: enough to pass any preamble."""

_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)
_PI_TYPES = frozenset(
    {
        "session",
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)


def load_trace(path: Path) -> ImportedTrace:
    """Read a session file, detect its format and import it.

    Raises:
        TraceFormatError: the file cannot be read, is empty, or is not a known format.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise TraceFormatError(f"{path}: cannot be read ({error.strerror or error})") from error
    if not raw.strip():
        raise TraceFormatError(f"{path}: the file is empty")
    # Broken bytes in one record must not make the whole session unreadable.
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    document_import = _whole_document_importer(text)
    if document_import is not None:
        return _guarded(path, document_import)
    lines = read_json_lines(text)
    if not lines.records:
        raise TraceFormatError(
            f"{path}: no JSON records found ({lines.skipped_lines} unparseable lines)"
        )
    trace_format = classify_records(lines.records)
    if trace_format is None:
        raise TraceFormatError(f"{path}: not a known trace format (records of unknown shape)")
    importers: dict[str, Callable[[JsonLines], ImportedTrace]] = {
        "pi": import_pi,
        "claude-code": import_claude_code,
        "codex": import_codex,
    }
    return _guarded(path, lambda: importers[trace_format](lines))


def _guarded(path: Path, run_import: Callable[[], ImportedTrace]) -> ImportedTrace:
    """Run an importer; a record of a shape it cannot read refuses the file by name.

    Unparseable lines are skipped and counted, but a record that parses and still has the
    wrong shape (a list where a format has an object, a number where it has text) leaves no
    safe reading of the session: refused with a clear error, never a traceback.
    """
    try:
        return run_import()
    except (TypeError, AttributeError, KeyError, IndexError, ValueError) as error:
        if isinstance(error, TraceFormatError):
            raise
        raise TraceFormatError(
            f"{path}: a record has a shape the importer cannot read "
            f"({type(error).__name__}: {error})"
        ) from None


def _whole_document_importer(text: str) -> Callable[[], ImportedTrace] | None:
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        document: Any = repair_strings(json.loads(stripped))
    except (ValueError, RecursionError):  # nested past the parser's limit: not a document
        return None
    if is_mini_swe_agent(document):
        return lambda: import_mini_swe_agent(document)
    if is_swe_agent(document):
        return lambda: import_swe_agent(document)
    history = gemini_history(document)
    if history is not None:
        return lambda: import_gemini_cli(history)
    return None


def classify_records(records: list[JsonRecord]) -> str | None:
    """``pi``, ``claude-code`` or ``codex`` by which shape most sampled records have."""
    scores = {"pi": 0, "claude-code": 0, "codex": 0}
    for record in records[:_SAMPLE_RECORDS]:
        value = record.value
        record_type = value.get("type")
        if not isinstance(record_type, str):
            continue  # a list or object as the type names no format (and is unhashable)
        if record_type in _CODEX_TYPES and isinstance(value.get("payload"), dict):
            scores["codex"] += 1
        elif record_type in ("user", "assistant", "system", "progress") and (
            "uuid" in value or "sessionId" in value
        ):
            scores["claude-code"] += 1
        elif record_type in _PI_TYPES and (
            record_type != "message" or _is_pi_message(value.get("message"))
        ):
            scores["pi"] += 1
    best = max(scores, key=lambda name: scores[name])
    return best if scores[best] > 0 else None


def _is_pi_message(message: Any) -> bool:
    return isinstance(message, dict) and isinstance(message.get("role"), str)
