"""Tool calls a model wrote as text, run as the calls they are.

A small local model served without its chat template's tool parser answers a tool request
with text: a fenced JSON object (```` ```json {"name": "read", "arguments": {...}} ```
````), the ``<tool_call>…</tool_call>`` tags its template would have parsed, or an XML-like
``<tools><function name="read" arguments="{'path': 'main.py'}"/></tools>`` (what
Qwen2.5-Coder-1.5B wrote, arguments as a Python literal, when llama.cpp served it). The
agent then took that text for the final answer and ended the run. When a Chat Completions
reply carries no structured call and its whole text is **one** such call to a tool the
request offered, the reply becomes that call: the session records the call (its text kept
beside it, under ``provider_data.textWrittenCall``), and a warning says so. Text that reads
like a call to a tool that was not offered stays text, with a warning that no tool ran.

Only what is unambiguous is taken: the whole text (thinking aside) must be the call, with a
``name`` string and an ``arguments`` (or ``parameters``) object, or a JSON string of one.
Anything around it, two calls, or a name with no ``arguments`` key stays text.
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

WRAPPERS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\A```[A-Za-z_]*[ \t]*\n(?P<body>.*)\n[ \t]*```\Z", re.DOTALL),
    re.compile(
        r"\A<(?P<tag>tool_call|tools|function_call)>\s*(?P<body>.*?)\s*</(?P=tag)>\Z", re.DOTALL
    ),
)
"""The wrappers a call written as text comes in; a bare JSON object is taken too."""

FUNCTION_ELEMENT = re.compile(
    r"""\A<function\s+name="(?P<name>[^"<>]+)"\s*"""
    r"""(?:arguments="(?P<attribute>[^"]*)"\s*/>|>(?P<body>.*)</function>)\Z""",
    re.DOTALL,
)
"""One ``<function name="read" arguments="{...}"/>`` element (or the arguments as its
body): what Qwen2.5-Coder-1.5B wrote inside ``<tools>`` when its server left calls unparsed."""

LONGEST_TEXT = 256 * 1024
"""A reply longer than this is not read as a call (no tool call is that long)."""


@dataclass(frozen=True, slots=True)
class WrittenCall:
    """A call found in a reply's text."""

    name: str
    arguments: dict[str, JsonValue]


def written_call(text: str) -> WrittenCall | None:
    """The one call ``text`` consists of, or ``None`` when it is anything else."""
    stripped = text.strip()
    if not stripped or len(stripped) > LONGEST_TEXT:
        return None
    body = stripped
    for wrapper in WRAPPERS:
        match = wrapper.match(stripped)
        if match is not None:
            body = match.group("body").strip()
            break
    name: object
    element = FUNCTION_ELEMENT.match(body)
    if element is not None:
        name = html.unescape(element.group("name"))
        arguments: object = html.unescape(element.group("attribute") or element.group("body") or "")
    elif body.startswith("{"):
        try:
            value = json.loads(body)
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
    extra: dict[str, JsonValue] = {**done.extra, "textWrittenCall": text}
    warning = ReplyWarning(
        f"the model wrote its {call.name} call as text; it runs as that call "
        "(--no-text-calls leaves such text as the answer)"
    )
    return replace(done, content=(*thinking, block), stop_reason="tool_use", extra=extra), warning


__all__ = ["LONGEST_TEXT", "WRAPPERS", "WrittenCall", "run_written_call", "written_call"]
