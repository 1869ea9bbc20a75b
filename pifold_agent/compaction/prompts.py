"""What the summariser is asked, and what the model sees afterwards (pi-host §4.4, §1.1).

The history goes to the summariser as labelled plain text, never as a conversation, so the
model reads it instead of continuing it. Each tool result is cut to
:data:`TOOL_RESULT_CHARACTERS`, with a note of what was dropped, so the summarisation request
cannot itself overflow. The instructions ask for a fixed markdown checkpoint; with a previous
summary they ask to update it rather than start over. A split turn's prefix gets a shorter
checkpoint of its own. The wording is ours; the structure is Pi's.

After a compaction the model sees the summary as a user-role message that says the earlier
history was compacted, the summary inside ``<summary>`` tags.
"""

from __future__ import annotations

import json

from pifold_agent.compaction.planning import FileOperations
from pifold_core.entries import Entry, TextBlock, ThinkingBlock, ToolCallBlock, text_entry

TOOL_RESULT_CHARACTERS = 2_000
"""Each tool result is cut to this many characters in the serialised history."""

SUMMARISER_SYSTEM_PROMPT = (
    "You write context checkpoints for a coding agent whose conversation history is about to "
    "be shortened. You are given part of that history as a transcript. Reply with the "
    "checkpoint only, in the requested markdown layout. Do not carry on the conversation, do "
    "not answer questions asked in it, and do not add remarks of your own."
)
"""The summariser's system prompt: summarise, never continue."""

CHECKPOINT_LAYOUT = """## Goal
What the user is trying to achieve.

## Constraints & Preferences
Requirements and preferences the user stated.

## Progress
### Done
- [x] Finished work
### In Progress
- [ ] Work under way
### Blocked
Anything waiting on something else.

## Key Decisions
- **Decision**: why it was taken

## Next Steps
1. What to do next, in order

## Critical Context
Facts the work cannot continue without."""
"""The markdown skeleton of a history checkpoint."""

INITIAL_INSTRUCTIONS = f"""The transcript above is the early part of a coding session. Write a \
checkpoint that another model will pick the work up from, in exactly this layout:

{CHECKPOINT_LAYOUT}

Be brief. Keep file paths, function names, commands and error messages exactly as written. \
Write "(none)" under a heading with nothing to say."""
"""Instructions for a first checkpoint."""

UPDATE_INSTRUCTIONS = f"""The transcript above continues a coding session whose earlier \
checkpoint is given in <previous-summary>. Write the updated checkpoint in exactly this layout:

{CHECKPOINT_LAYOUT}

Keep everything the previous checkpoint records unless the new transcript makes it obsolete. \
Add the new progress, move finished items from In Progress to Done, and revise the next \
steps. Keep file paths, function names, commands and error messages exactly as written. \
Write "(none)" under a heading with nothing to say."""
"""Instructions for updating a previous checkpoint."""

TURN_PREFIX_INSTRUCTIONS = """The transcript above is the beginning of one long turn whose \
later part is kept verbatim after this summary. Write a short checkpoint of the beginning, in \
exactly this layout:

## Original Request
What the user asked for in this turn.

## Early Progress
What was done so far, with exact paths, names and errors.

## Context for Suffix
What the kept part of the turn needs in order to make sense."""
"""Instructions for a split turn's prefix."""

NO_PRIOR_HISTORY = "No prior history."
"""The history summary when nothing precedes a split turn."""

SPLIT_TURN_HEADING = "\n\n---\n\n**Turn Context (split turn):**\n\n"
"""What joins a split turn's history summary and its prefix summary."""

SUMMARY_MESSAGE_OPENING = (
    "Earlier parts of this conversation were replaced by the summary below to save context."
)
"""The sentence that opens the summary message the model sees."""


def _truncated(text: str) -> str:
    if len(text) <= TOOL_RESULT_CHARACTERS:
        return text
    dropped = len(text) - TOOL_RESULT_CHARACTERS
    return f"{text[:TOOL_RESULT_CHARACTERS]}\n[... {dropped} more characters]"


def _call_text(call: ToolCallBlock) -> str:
    if isinstance(call.arguments, dict):
        arguments = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False, separators=(',', ':'))}"
            for key, value in call.arguments.items()
        )
    else:
        arguments = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
    return f"{call.name}({arguments})"


def serialise(entries: tuple[Entry, ...] | list[Entry]) -> str:
    """The entries as labelled paragraphs: ``[User]``, ``[Assistant thinking]``,
    ``[Assistant]``, ``[Assistant tool calls]`` and ``[Tool result]``."""
    paragraphs: list[str] = []
    for entry in entries:
        if entry.kind == "tool_result":
            text = "\n".join(block.text for block in entry.content if isinstance(block, TextBlock))
            paragraphs.append(f"[Tool result]: {_truncated(text)}")
            continue
        if entry.kind in ("user", "note"):
            text = "\n".join(block.text for block in entry.content if isinstance(block, TextBlock))
            paragraphs.append(f"[User]: {text}")
            continue
        thinking = [
            block.text for block in entry.content if isinstance(block, ThinkingBlock) and block.text
        ]
        if thinking:
            paragraphs.append("[Assistant thinking]: " + "\n".join(thinking))
        text_parts = [
            block.text for block in entry.content if isinstance(block, TextBlock) and block.text
        ]
        if text_parts:
            paragraphs.append("[Assistant]: " + "\n".join(text_parts))
        if entry.tool_calls:
            paragraphs.append(
                "[Assistant tool calls]: " + "; ".join(_call_text(c) for c in entry.tool_calls)
            )
    return "\n\n".join(paragraphs)


def history_prompt(
    history: tuple[Entry, ...], previous_summary: str | None, custom_instructions: str | None
) -> str:
    """The user message of a history summarisation request."""
    parts = [f"<conversation>\n{serialise(history)}\n</conversation>"]
    if previous_summary is not None:
        parts.append(f"<previous-summary>\n{previous_summary}\n</previous-summary>")
    parts.append(UPDATE_INSTRUCTIONS if previous_summary is not None else INITIAL_INSTRUCTIONS)
    if custom_instructions:
        parts.append(f"Additional focus: {custom_instructions}")
    return "\n\n".join(parts)


def turn_prefix_prompt(turn_prefix: tuple[Entry, ...]) -> str:
    """The user message of a split turn's prefix summarisation request."""
    conversation = f"<conversation>\n{serialise(turn_prefix)}\n</conversation>"
    return f"{conversation}\n\n{TURN_PREFIX_INSTRUCTIONS}"


def join_split_turn(history_summary: str, turn_prefix_summary: str) -> str:
    """A split turn's summary: the history summary, then the turn prefix's under a heading."""
    return f"{history_summary}{SPLIT_TURN_HEADING}{turn_prefix_summary}"


def with_file_lists(summary: str, files: FileOperations) -> str:
    """The summary followed by the files read (only) and modified, sorted, one per line."""
    parts = [summary]
    if files.read:
        parts.append("<read-files>\n" + "\n".join(sorted(files.read)) + "\n</read-files>")
    if files.modified:
        parts.append(
            "<modified-files>\n" + "\n".join(sorted(files.modified)) + "\n</modified-files>"
        )
    return "\n\n".join(parts)


def summary_message_text(summary: str) -> str:
    """The text of the user-role message that stands for the compacted history."""
    return f"{SUMMARY_MESSAGE_OPENING}\n\n<summary>\n{summary}\n</summary>"


def summary_entry(entry_id: str, summary: str, timestamp_ms: int) -> Entry:
    """The summary as the entry the model sees first after a compaction (host text sent as
    a user message)."""
    return text_entry(
        entry_id,
        "note",
        summary_message_text(summary),
        timestamp_ms,
        extra={"source": "compactionSummary"},
    )


__all__ = [
    "CHECKPOINT_LAYOUT",
    "INITIAL_INSTRUCTIONS",
    "NO_PRIOR_HISTORY",
    "SPLIT_TURN_HEADING",
    "SUMMARISER_SYSTEM_PROMPT",
    "SUMMARY_MESSAGE_OPENING",
    "TOOL_RESULT_CHARACTERS",
    "TURN_PREFIX_INSTRUCTIONS",
    "UPDATE_INSTRUCTIONS",
    "history_prompt",
    "join_split_turn",
    "serialise",
    "summary_entry",
    "summary_message_text",
    "turn_prefix_prompt",
    "with_file_lists",
]
