"""Seeded hostile provider replies: what a broken or malicious model server sends back.

A :class:`ReplySpec` is one reply in provider-neutral terms, every field raw (any JSON
value, not only the right kind): text and reasoning pieces, tool calls (id, name, argument
pieces), usage figures, the stop reason, the model, and a :class:`Mutation` applied to the
stream as a whole (cut, reordered, duplicated, junk inserted, one field replaced).
:func:`generate` draws one from a ``random.Random``; ``hostile_sse.render`` writes it in
each provider's streaming format.

The tool names drawn are the harmless tools the harness registers (``read``, ``ls``,
``find``, ``grep``, the fold tool) or names no registered tool has, so no generated call can
write a file or run a command.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from tests.fault.hostile_values import SPLIT_CHARACTER

ABSENT: Any = object()
"""A field the reply leaves out altogether (not ``null``)."""

SAFE_CALLS: tuple[tuple[str, str], ...] = (
    ("read", '{"path": "notes.txt"}'),
    ("read", '{"path": "notes.txt", "limit": 3}'),
    ("ls", "{}"),
    ("find", '{"pattern": "*.txt"}'),
    ("grep", '{"pattern": "line"}'),
    ("pi_fold_context", '{"action": "status"}'),
)
"""Calls of the harness's tools with sound arguments."""

DEEP = "[" * 5_000 + "]" * 5_000

HOSTILE_ARGUMENTS: tuple[str, ...] = (
    "",
    "[1, 2]",
    '"text"',
    "5",
    "null",
    '{"path": ',
    '{"path": "notes.txt"} trailing',
    '{"x": NaN}',
    '{"x": Infinity, "y": -Infinity}',
    DEEP,
    '{"a":' * 300 + "1" + "}" * 300,
    '{"path": "\\ud800"}',
    '{"\\udc00": 1}',
    '{"path": "a\\u0000b"}',
    '{"path": "\\ud83d\\ude00.txt"}',
    '{"path": "notes.txt", "path": "other.txt"}',
    "not json at all",
    '{"path": "' + "x" * 50_000 + '"}',
)
"""Argument texts no tool can take as they are."""

HOSTILE_IDS: tuple[Any, ...] = (
    "",
    "x" * 10_000,
    "call_é",
    "调用_1",
    "call\x00",
    "call\ud800",
    "call 1",
    "call/../x",
    "call|fc_1",
    "\u202ecall",
    5,
    None,
    ["a"],
    {"a": 1},
    True,
)

HOSTILE_NAMES: tuple[Any, ...] = (
    "",
    "unknown_tool",
    "bash",
    "write",
    "x" * 5_000,
    "réad",
    "read\x00",
    "functions.read",
    "read ",
    5,
    None,
    ["read"],
    {"name": "read"},
)

HOSTILE_TEXT: tuple[Any, ...] = (
    "",
    "😀",
    "\ud800",
    "\udfff tail",
    SPLIT_CHARACTER,
    "\x00",
    "\u202e\u200f",
    "مرحبا",
    "line\r\n",
    5,
    None,
    [1],
    {"a": 1},
    True,
)

FIGURES: tuple[Any, ...] = (
    -5,
    1e300,
    1200.0,
    12.5,
    float("nan"),
    float("inf"),
    -float("inf"),
    "12",
    True,
    None,
    [1],
    {"a": 1},
    10**20,
    2**63,
    -0.0,
    ABSENT,
)
"""Usage figures no count can be (``1200.0`` is one, written oddly)."""

STOP_REASONS: tuple[Any, ...] = ("banana", "", 5, None, ["stop"], "length", "content_filter")
"""Stop reasons beside the natural one (each renderer adds its provider's own)."""

MODELS: tuple[Any, ...] = ("", None, 5, "x" * 1_000, "m\x00", "m\ud800", ["m"])


@dataclass(frozen=True)
class CallSpec:
    """One tool call: raw id and name, and its argument text in raw pieces."""

    call_id: Any
    name: Any
    pieces: tuple[Any, ...]


@dataclass(frozen=True)
class Mutation:
    """What happens to the stream as a whole."""

    kind: str = "none"
    """``none``, ``truncate``, ``no_end``, ``swap``, ``duplicate``, ``drop``, ``garbage``,
    ``unknown_event``, ``field`` or ``http_error``."""
    position: float = 0.5
    """Where in the stream (a share of its events or bytes)."""


@dataclass(frozen=True)
class ReplySpec:
    """One provider reply, every field raw (see the module docstring)."""

    text: tuple[Any, ...] = ()
    reasoning: tuple[Any, ...] = ()
    calls: tuple[CallSpec, ...] = ()
    usage: Any = field(default_factory=lambda: {"prompt": 120, "output": 8, "cached": 0})
    """``{"prompt", "output", "cached"}`` figures (each may be :data:`ABSENT`), or a raw
    non-object, or :data:`ABSENT` for no usage at all; sound unless given."""
    stop: Any = ABSENT
    """The stop reason; :data:`ABSENT` for the provider's natural one."""
    model: Any = "m"
    message_id: Any = "msg_h"
    """The message's id (Anthropic), its output item's (Responses), its chunks' (Chat)."""
    mutation: Mutation = field(default_factory=Mutation)


def _pieces(text: str, rng: random.Random) -> tuple[Any, ...]:
    cuts = sorted(rng.randrange(len(text) + 1) for _ in range(rng.randrange(4)))
    bounds = [0, *cuts, len(text)]
    pieces: list[Any] = [text[start:end] for start, end in itertools.pairwise(bounds)]
    if rng.random() < 0.05:
        pieces.insert(rng.randrange(len(pieces) + 1), rng.choice(HOSTILE_TEXT))
    return tuple(pieces)


def _call(rng: random.Random, number: int, previous: list[Any]) -> CallSpec:
    name, arguments = rng.choice(SAFE_CALLS)
    call_id: Any = f"call_{number}"
    roll = rng.random()
    if roll < 0.15:
        call_id = rng.choice(HOSTILE_IDS)
    elif roll < 0.22 and previous:
        call_id = rng.choice(previous)  # a duplicate within the message
    if rng.random() < 0.15:
        name = rng.choice(HOSTILE_NAMES)
    if rng.random() < 0.3:
        arguments = rng.choice(HOSTILE_ARGUMENTS)
    return CallSpec(call_id, name, _pieces(arguments, rng))


def _usage(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.06:
        return ABSENT
    if roll < 0.1:
        return rng.choice([None, 5, "usage", [1, 2]])
    prompt = rng.randrange(1, 200_000)
    usage = {"prompt": prompt, "output": rng.randrange(0, 4_000), "cached": prompt // 2}
    for key in usage:
        if rng.random() < 0.2:
            usage[key] = rng.choice(FIGURES)
    if rng.random() < 0.05:
        usage["cached"] = prompt + rng.randrange(1, 1_000)  # more cached than the prompt
    return usage


def _mutation(rng: random.Random) -> Mutation:
    kinds = (
        ("none", 0.58),
        ("truncate", 0.07),
        ("no_end", 0.05),
        ("swap", 0.06),
        ("duplicate", 0.04),
        ("drop", 0.04),
        ("garbage", 0.04),
        ("unknown_event", 0.04),
        ("field", 0.05),
        ("http_error", 0.03),
    )
    roll, total = rng.random(), 0.0
    for kind, weight in kinds:
        total += weight
        if roll < total:
            return Mutation(kind, rng.random())
    return Mutation()


def generate(rng: random.Random) -> ReplySpec:
    """One reply: mostly sound, with one or more hostile fields or a mangled stream."""
    text = (
        _pieces(rng.choice(["Looking.", "Done: notes.txt has 3 lines.", "ok"]), rng)
        if rng.random() < 0.8
        else ()
    )
    reasoning = _pieces("Thinking about it.", rng) if rng.random() < 0.2 else ()
    calls: list[CallSpec] = []
    for number in range(rng.choice([0, 0, 1, 1, 2, 3])):
        calls.append(_call(rng, number, [call.call_id for call in calls]))
    stop = rng.choice(STOP_REASONS) if rng.random() < 0.1 else ABSENT
    model = rng.choice(MODELS) if rng.random() < 0.05 else "m"
    message_id = rng.choice(HOSTILE_IDS) if rng.random() < 0.05 else "msg_h"
    usage = _usage(rng)
    return ReplySpec(text, reasoning, tuple(calls), usage, stop, model, message_id, _mutation(rng))


__all__ = [
    "ABSENT",
    "DEEP",
    "FIGURES",
    "HOSTILE_ARGUMENTS",
    "HOSTILE_IDS",
    "HOSTILE_NAMES",
    "HOSTILE_TEXT",
    "SAFE_CALLS",
    "CallSpec",
    "Mutation",
    "ReplySpec",
    "generate",
]
