"""Tool calls a model wrote as text, run as the calls they are.

A small local model served without its chat template's tool parser answers a tool request
with text: a fenced JSON object (```` ```json {"name": "read", "arguments": {...}} ```
````), the ``<tool_call>…</tool_call>`` tags its template would have parsed, or an XML-like
``<tools><function name="read" arguments="{'path': 'main.py'}"/></tools>`` (what
Qwen2.5-Coder-1.5B wrote, arguments as a Python literal, when llama.cpp served it). The
agent then took that text for the final answer and ended the run. When a Chat Completions
reply carries no structured call and its text holds **one** such call to a tool the
request offered, the reply becomes that call: the session records the call (its text kept
beside it, under ``provider_data.textWrittenCall``), and a warning says so. Text that reads
like a call to a tool that was not offered stays text, with a warning that no tool ran.

Only what is unambiguous is taken: the text must hold exactly one call (in a fence, in those
tags, or as the whole reply), with a ``name`` string and an ``arguments`` (or
``parameters``) object, or a JSON string of one. Words around it stay, as the reply's text
before the call (the 1.5B model wrote "To read the file, you can use…" around its fence).
Two calls, or a name with no ``arguments`` key, leave the reply as text.
"""

from __future__ import annotations

import ast
import hashlib
import html
import json
import re
from collections.abc import Collection
from dataclasses import dataclass, replace

from pifold_agent.providers.base import ReplyWarning, StreamDone
from pifold_core.blocks import TextBlock, ThinkingBlock, ToolCallBlock
from pifold_core.canonical import JsonValue

FENCED = re.compile(r"```[A-Za-z_]*[ \t]*\n(?P<body>.*?)\n[ \t]*```", re.DOTALL)
"""A fenced block anywhere in the text."""

TAGGED = re.compile(
    r"<(?P<tag>tool_call|tools|function_call)>\s*(?P<body>.*?)\s*</(?P=tag)>", re.DOTALL
)
"""The tags a chat template's tool parser would have read, anywhere in the text."""

FUNCTION_ELEMENT = re.compile(
    r"""<function\s+name="(?P<name>[^"<>]+)"\s*"""
    r"""(?:arguments="(?P<attribute>[^"]*)"\s*/>|>(?P<body>.*?)</function>)""",
    re.DOTALL,
)
"""One ``<function name="read" arguments="{...}"/>`` element (or the arguments as its
body): what Qwen2.5-Coder-1.5B wrote inside ``<tools>`` when its server left calls unparsed."""

BARE_OBJECT_START = re.compile(r"^[ \t]*(?P<object>\{)", re.MULTILINE)
"""Where a bare JSON object may start: the first brace of a line."""

LONGEST_TEXT = 256 * 1024
"""A reply longer than this is not read as a call (no tool call is that long)."""


@dataclass(frozen=True, slots=True)
class WrittenCall:
    """A call found in a reply's text."""

    name: str
    arguments: dict[str, JsonValue]
    remainder: str = ""
    """The reply's words around the call (``I will read it:``), kept as its text."""


def written_call(text: str) -> WrittenCall | None:
    """The one call ``text`` holds, with the words around it; ``None`` when it holds none,
    or more than one (which of them the model meant is not for the agent to guess)."""
    if not text.strip() or len(text) > LONGEST_TEXT:
        return None
    found: list[tuple[WrittenCall, int, int]] = []
    taken: list[tuple[int, int]] = []
    for pattern in (FENCED, TAGGED, FUNCTION_ELEMENT):
        for match in pattern.finditer(text):
            if any(start <= match.start() < end for start, end in taken):
                continue  # inside a block already read (a tag inside a fence)
            taken.append(match.span())
            call = _call_in(match.group(0) if pattern is FUNCTION_ELEMENT else match.group("body"))
            if call is not None:
                found.append((call, *match.span()))
    if not taken:
        found = _bare_objects(text)
    if len(found) != 1:
        return None
    call, start, end = found[0]
    remainder = (text[:start].rstrip() + "\n\n" + text[end:].lstrip()).strip()
    return WrittenCall(call.name, call.arguments, remainder)


def _bare_objects(text: str) -> list[tuple[WrittenCall, int, int]]:
    """Calls written as bare JSON objects, each starting a line (``…the path:\n\n{"name":
    "read", …}``), with where they stand in ``text``."""
    found: list[tuple[WrittenCall, int, int]] = []
    decoder = json.JSONDecoder()
    for line in BARE_OBJECT_START.finditer(text):
        start = line.start("object")
        if found and start < found[-1][2]:
            continue  # inside the object already read
        try:
            _, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            if not text.startswith("{{", start):
                continue
            try:  # a template's escaped brace the model copied: see _call_in
                _, end = decoder.raw_decode(text, start + 1)
            except (ValueError, RecursionError):
                continue
        call = _call_in(text[start:end])
        if call is not None:
            found.append((call, start, end))
    return found


def _call_in(body: str) -> WrittenCall | None:
    """The call ``body`` is: a JSON object with ``name`` and ``arguments`` (or
    ``parameters``), a ``<function>`` element, or either inside one more tag."""
    body = body.strip()
    tagged = TAGGED.fullmatch(body)
    if tagged is not None:
        body = tagged.group("body").strip()
    name: object
    element = FUNCTION_ELEMENT.fullmatch(body)
    if element is not None:
        name = html.unescape(element.group("name"))
        arguments: object = html.unescape(element.group("attribute") or element.group("body") or "")
    elif body.startswith("{"):
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            # ``{{"name": …}}`` once: a template's escaped brace the model copied (seen from
            # Qwen2.5-Coder-1.5B after a tool result); read without its extra first brace.
            if not body.startswith("{{"):
                return None
            try:
                value = json.loads(body[1:])
            except (ValueError, RecursionError):
                return None
        if not isinstance(value, dict):
            return None
        name = value.get("name")
        arguments = value.get("arguments", value.get("parameters"))
    else:
        return None
    if isinstance(arguments, str):
        arguments = _object_text(arguments)
    if not isinstance(name, str) or not name or not isinstance(arguments, dict):
        return None
    return WrittenCall(name, arguments)


def _object_text(text: str) -> dict[str, JsonValue] | None:
    """The object ``text`` writes, as JSON or as a Python literal (``{'path': 'a.py'}``,
    which small models write inside XML attributes); ``None`` for anything else."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        try:
            # Only what JSON can hold: a literal with a tuple, a set or bytes is not a call.
            value = json.loads(json.dumps(value, allow_nan=False))
        except (TypeError, ValueError):
            return None
    return value if isinstance(value, dict) else None


def run_written_call(
    done: StreamDone, offered: Collection[str]
) -> tuple[StreamDone, ReplyWarning | None]:
    """``done`` with a text-written call to an offered tool turned into that call, and the
    warning to show; ``done`` unchanged (with a hint when it reads like a call to a tool not
    offered) otherwise."""
    if done.stop_reason != "stop" or done.error is not None:
        return done, None
    if any(isinstance(block, ToolCallBlock) for block in done.content):
        return done, None
    if not all(isinstance(block, TextBlock | ThinkingBlock) for block in done.content):
        return done, None
    text = "".join(block.text for block in done.content if isinstance(block, TextBlock))
    call = written_call(text)
    if call is None:
        return done, None
    if call.name not in offered:
        hint = (
            f"the reply reads like a call to {call.name!r}, which is not an offered tool: it "
            "stays text and no tool ran"
        )
        return done, ReplyWarning(hint)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    block = ToolCallBlock(f"call_text_{digest}", call.name, call.arguments)
    thinking = tuple(block for block in done.content if isinstance(block, ThinkingBlock))
    words = (TextBlock(call.remainder),) if call.remainder else ()
    extra: dict[str, JsonValue] = {**done.extra, "textWrittenCall": text}
    warning = ReplyWarning(
        f"the model wrote its {call.name} call as text; it runs as that call "
        "(--no-text-calls leaves such text as the answer)"
    )
    content = (*thinking, *words, block)
    return replace(done, content=content, stop_reason="tool_use", extra=extra), warning


__all__ = [
    "FENCED",
    "FUNCTION_ELEMENT",
    "LONGEST_TEXT",
    "TAGGED",
    "WrittenCall",
    "run_written_call",
    "written_call",
]
