"""What the search index reads of an entry: its searchable text, tool names and paths.

One function turns an entry into the text the index tokenises *and* the text a snippet is
cut from, so a hit's snippet shows the words the index matched: the text and thinking
blocks, each tool call as its name and its arguments, and a tool result's text. Images
carry no text.

A tool result kept as evidence (too large for the window: the entry holds a preview and a
pointer) is searched by the original's whole text, read from its verified artifact
(:func:`evidence_of` names it).

The tool names an entry carries (a result's tool, an assistant's calls) and the paths its
tool calls name (string arguments whose key says ``path``, ``file`` or ``dir``) feed the
``tool`` and ``path`` filters; a result takes the paths of the call it answers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from pifold_core.blocks import TextBlock, ThinkingBlock, ToolCallBlock
from pifold_core.canonical import JsonValue, canonical_bytes
from pifold_core.entries import Entry

PATH_KEY_WORDS: tuple[str, ...] = ("path", "file", "dir")
"""An argument whose key contains one of these names a path (``file_path``, ``dir``)."""

MAX_PATHS = 32
"""Most paths kept per entry: a call naming hundreds of files is filtered by the first."""


@dataclass(frozen=True, slots=True)
class EntryFields:
    """The columns one entry contributes to the index."""

    body: str
    """The searchable text (see :func:`searchable_text`)."""
    role: str
    """The entry's kind: ``user``, ``assistant``, ``tool_result`` or ``note``."""
    tools: tuple[str, ...]
    """Tool names: a result's tool, or the names an assistant entry calls."""
    paths: tuple[str, ...]
    """Paths its tool calls name (a result: the paths of the call it answers)."""


def searchable_text(entry: Entry) -> str:
    """The text of ``entry`` the index holds and a snippet is cut from, blocks joined by
    newlines; a tool call reads ``name {arguments}`` (arguments as canonical JSON)."""
    parts: list[str] = []
    for block in entry.content:
        if isinstance(block, TextBlock | ThinkingBlock):
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock):
            arguments = block.arguments
            shown = arguments if isinstance(arguments, str) else _compact(arguments)
            parts.append(f"{block.name} {shown}")
    return "\n".join(part for part in parts if part)


def call_paths(call: ToolCallBlock) -> tuple[str, ...]:
    """The paths one tool call names, in argument order (see :data:`PATH_KEY_WORDS`)."""
    if not isinstance(call.arguments, dict):
        return ()
    found = [value for key, value in _path_arguments(call.arguments) if value]
    return tuple(dict.fromkeys(found))[:MAX_PATHS]


def evidence_of(entry: Entry) -> str | None:
    """The evidence id a kept entry points at (its whole original is that artifact)."""
    evidence = entry.extra.get("evidence")
    if isinstance(evidence, dict) and isinstance(evidence.get("id"), str):
        return str(evidence["id"])
    return None


def entry_fields(
    entry: Entry,
    answered_call: ToolCallBlock | None,
    original: Entry | None = None,
    paths_of: Callable[[ToolCallBlock], tuple[str, ...]] = call_paths,
) -> EntryFields:
    """The index columns of ``entry``; ``answered_call`` is the call a tool result answers,
    ``original`` the entry its evidence artifact holds (its text is what is searched);
    ``paths_of`` reads a call's paths (:func:`call_paths`, or a memo of it: a call's paths
    serve both its own entry and the result answering it)."""
    if entry.kind == "tool_result":
        tools: tuple[str, ...] = (str(entry.tool_name),)
        paths = paths_of(answered_call) if answered_call is not None else ()
    else:
        tools = tuple(dict.fromkeys(call.name for call in entry.tool_calls))
        paths = tuple(dict.fromkeys(path for call in entry.tool_calls for path in paths_of(call)))[
            :MAX_PATHS
        ]
    body = searchable_text(original if original is not None else entry)
    return EntryFields(body, entry.kind, tools, paths)


def _path_arguments(arguments: dict[str, JsonValue]) -> Iterator[tuple[str, str]]:
    """``(key, value)`` for each string argument (or string in a list) whose key names a path."""
    for key, value in arguments.items():
        if not _names_a_path(key):
            continue
        if isinstance(value, str):
            yield key, value
        elif isinstance(value, list):
            yield from ((key, item) for item in value if isinstance(item, str))


@lru_cache(maxsize=512)
def _names_a_path(key: str) -> bool:
    """Whether an argument named ``key`` holds a path (:data:`PATH_KEY_WORDS`); remembered,
    because a session's tools use a handful of argument names over and over."""
    lowered = key.lower()
    return any(word in lowered for word in PATH_KEY_WORDS)


def _compact(value: JsonValue) -> str:
    """Arguments as canonical JSON (sorted keys): the same text whether the entry is the
    one appended or one rebuilt from its verified canonical record for a snippet."""
    return canonical_bytes(value).decode("utf-8")


__all__ = [
    "MAX_PATHS",
    "PATH_KEY_WORDS",
    "EntryFields",
    "call_paths",
    "entry_fields",
    "evidence_of",
    "searchable_text",
]
