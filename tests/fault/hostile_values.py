"""Seeded hostile values for the hostile-input harness: what an attacker or a broken model sends.

Every generator takes a ``random.Random`` so a run is reproducible from its seed. The values
cover wrong types, huge and non-finite numbers, deep nesting (deeper than the interpreter's
recursion limit), lone surrogates, NUL, right-to-left marks, 4-byte characters split by a
byte slice, and traversal or absolute paths where an id belongs.
"""

from __future__ import annotations

import json
import random
from typing import Any

SPLIT_CHARACTER = "😀".encode()[:2].decode("utf-8", "surrogateescape")
"""The first two bytes of a 4-byte character, decoded the way a careless slicer does it."""

HOSTILE_STRINGS: tuple[str, ...] = (
    "",
    " ",
    "\x00",
    "e00001\x00",
    "\u202eexe.txt",
    "\u200f\u200e",
    "\ud83d",
    "\udc00x",
    "\ud83d\ude00",
    SPLIT_CHARACTER,
    "😀" * 3,
    "../../etc/passwd",
    "/etc/passwd",
    "..",
    ".",
    "C:\\Windows\\system32",
    "fold-../../x",
    "fold-" + "0" * 12,
    "fold-" + "f" * 64,
    "fold-XYZ",
    "evidence-" + "0" * 64,
    "evidence-" + "a" * 63,
    "mark-0",
    "mark-999999999",
    "mark-1 ",
    "x" * 10_000,
    "status",
    "null",
    "%s%n",
    "\n\r\t",
)

HOSTILE_NUMBERS: tuple[Any, ...] = (
    0,
    -1,
    1,
    2**63,
    -(2**63),
    10**400,
    1e308,
    -1e308,
    5e-324,
    float("inf"),
    float("-inf"),
    float("nan"),
    -0.0,
    0.5,
    3.0,
    True,
    False,
)


def nested(depth: int, leaf: Any = "x") -> Any:
    """A list nested ``depth`` deep, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def hostile_value(rng: random.Random, known_ids: list[str]) -> Any:
    """One value of any kind, hostile most of the time, sometimes a real id of the session."""
    roll = rng.random()
    if roll < 0.25 and known_ids:
        return rng.choice(known_ids)
    if roll < 0.50:
        return rng.choice(HOSTILE_STRINGS)
    if roll < 0.70:
        return rng.choice(HOSTILE_NUMBERS)
    if roll < 0.78:
        return nested(rng.choice([3, 9, 50, 1_200, 5_000]))
    if roll < 0.86:
        size = rng.choice([0, 1, 2, 101, 1_000])
        pool = known_ids or list(HOSTILE_STRINGS)
        return [rng.choice(pool) for _ in range(size)]
    if roll < 0.92:
        return {rng.choice(HOSTILE_STRINGS): rng.choice(HOSTILE_NUMBERS)}
    return rng.choice([None, [], {}, [None], {"": ""}])


def to_json_text(value: Any, rng: random.Random) -> str:
    """``value`` as JSON text the way a model might send it (``NaN`` literals included)."""
    try:
        return json.dumps(value, ensure_ascii=rng.random() < 0.5, allow_nan=True)
    except (RecursionError, ValueError):
        # Too deep for the encoder: write the nesting by hand, which a parser must survive.
        depth = rng.choice([1_200, 5_000, 50_000])
        return '{"action":"pin","ids":' + "[" * depth + '"x"' + "]" * depth + "}"


def sliced_bytes(text: str, rng: random.Random) -> bytes:
    """UTF-8 bytes of ``text`` cut at a random point (possibly inside a character)."""
    data = text.encode("utf-8", "surrogatepass")
    if not data:
        return data
    return data[: rng.randrange(len(data) + 1)]


def mutate_record(record: Any, rng: random.Random) -> Any:
    """A copy of a parsed JSON record with one randomly chosen node replaced by a hostile one."""
    copy = json.loads(json.dumps(record))
    containers: list[tuple[Any, Any]] = []
    stack = [copy]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, member in node.items():
                containers.append((node, key))
                stack.append(member)
        elif isinstance(node, list):
            for position, member in enumerate(node):
                containers.append((node, position))
                stack.append(member)
    if not containers:
        return hostile_value(rng, [])
    parent, key = rng.choice(containers)
    parent[key] = hostile_value(rng, [])
    return copy


def hostile_line(record: Any, rng: random.Random) -> bytes:
    """One JSON Lines line made from ``record``: mutated, glued, cut or made of junk."""
    roll = rng.random()
    text = to_json_text(mutate_record(record, rng), rng)
    if roll < 0.55:
        return text.encode("utf-8", "surrogatepass")
    if roll < 0.65:
        return text.encode("utf-8", "surrogatepass") * 2  # two objects glued on one line
    if roll < 0.80:
        return sliced_bytes(text, rng)
    if roll < 0.90:
        return b"[" * rng.choice([1_000, 20_000]) + b"]"  # deeper than any parser recurses
    return rng.choice([b"\x00\xff\xfe", b"//comment", b"{", b"null", b"\xef\xbb\xbf{}", b"[]"])


__all__ = [
    "HOSTILE_NUMBERS",
    "HOSTILE_STRINGS",
    "SPLIT_CHARACTER",
    "hostile_line",
    "hostile_value",
    "mutate_record",
    "nested",
    "sliced_bytes",
    "to_json_text",
]
