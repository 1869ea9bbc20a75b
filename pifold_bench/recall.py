"""Recall: plant unique values in a trace, and find out afterwards where each one went.

Before the arms run, unique values are written into tool results spread across the trace:
continuation keys, error strings and numbers, the kinds of identifier an agent acts on
later. The positions and values come from a seeded generator, so a run is repeatable, and
every arm gets the same planted trace. Each value goes at a random line of its result, not
only at the edges a preview or brief would keep.

After the run each value is classified against the arm's final window:

* **visible**: it appears in the window's text, either in a message sent as the host
  appended it (*raw*) or in a message the arm made (a brief, a placeholder, a preview);
* **recoverable**: it is not visible, but peeking an id the window shows (a fold handle, an
  evidence id, an entry id), possibly followed by peeking an id found in what came back,
  returns verified bytes that hold it;
* **lost**: neither.

For an engine arm, each recoverable value is also searched for (issue 21): a search for the
value as a phrase (its planted key) *finds* it when one of the top three hits is the entry
it was planted in, so the hit names its fold. Reported as "found by search".
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from pifold_bench.arms import Arm, EngineArm, message_digest
from pifold_core.canonical import JsonValue, canonical_bytes, parse_json
from pifold_core.entries import Entry, TextBlock
from pifold_core.search import parse_query

ValueKind = Literal["continuation key", "error string", "number"]
RecallStatus = Literal["visible raw", "visible made", "recoverable", "lost"]

VALUE_KINDS: tuple[ValueKind, ...] = ("continuation key", "error string", "number")

MAXIMUM_PEEK_DEPTH = 3
"""Peeks followed from an id in the window (a fold, then evidence inside it, ...)."""

SEARCH_TOP = 3
"""A search finds a value when its entry is among this many best hits."""

_PEEK_ID = re.compile(r'"action"\s*:\s*"peek"\s*,\s*"id"\s*:\s*"([^"\s]+)"')
_BARE_ID = re.compile(r"\b(?:fold-[0-9a-f]{12,64}|evidence-[0-9a-f]{64})\b")


@dataclass(frozen=True, slots=True)
class PlantedValue:
    """One value written into the trace."""

    text: str
    """The exact string searched for."""
    kind: ValueKind
    """What it imitates."""
    entry_id: str
    """The tool result it was written into."""
    position: int
    """That entry's index in the trace."""


@dataclass(frozen=True)
class RecallResult:
    """Where each planted value ended up in one arm."""

    statuses: dict[str, RecallStatus]
    """Status by value text."""
    peek_depths: dict[str, int] = field(default_factory=dict)
    """For recoverable values: how many peeks it took."""
    found_by_search: int | None = None
    """Recoverable values a search for them finds in the top three (``None``: the arm has
    no search, only the engine arms do)."""

    def count(self, status: RecallStatus) -> int:
        return sum(1 for value in self.statuses.values() if value == status)

    @property
    def lost_values(self) -> list[str]:
        return [text for text, status in self.statuses.items() if status == "lost"]


def plant_values(
    entries: Sequence[Entry], count: int, seed: int
) -> tuple[list[Entry], list[PlantedValue]]:
    """A copy of ``entries`` with ``count`` values planted, and the values."""
    generator = random.Random(seed)
    answered = _answered_results(entries)
    if not answered or count < 1:
        return list(entries), []
    count = min(count, len(answered))
    # A value must be found only where it was planted, so it is checked against everything a
    # window or a peek can show of the trace (every field of every message as sent, tool
    # call arguments included, not only the readable text) and against the lines planted
    # before it.
    taken = "\n".join(canonical_bytes(entry.wire).decode("utf-8", "replace") for entry in entries)
    planted_entries = list(entries)
    values: list[PlantedValue] = []
    for stratum in range(count):
        # One value per equal slice of the results, at a random place within the slice.
        low = stratum * len(answered) // count
        high = max(low + 1, (stratum + 1) * len(answered) // count)
        position = answered[generator.randrange(low, high)]
        kind = VALUE_KINDS[stratum % len(VALUE_KINDS)]
        text, line = _new_value(generator, kind, taken, [value.text for value in values])
        taken += "\n" + line
        planted_entries[position] = _with_line(planted_entries[position], line, generator)
        values.append(PlantedValue(text, kind, entries[position].id, position))
    return planted_entries, values


def _answered_results(entries: Sequence[Entry]) -> list[int]:
    """Tool results with text that some later request carries."""
    last_assistant = max(
        (index for index, entry in enumerate(entries) if entry.kind == "assistant"), default=-1
    )
    return [
        index
        for index, entry in enumerate(entries[:last_assistant])
        if entry.kind == "tool_result"
        and any(isinstance(block, TextBlock) for block in entry.content)
    ]


def _new_value(
    generator: random.Random, kind: ValueKind, taken: str, earlier: Sequence[str]
) -> tuple[str, str]:
    """A value of ``kind`` and the line that carries it: the value appears nowhere in
    ``taken``, and no ``earlier`` value appears in the line."""
    while True:
        if kind == "continuation key":
            text = "ck_" + "".join(generator.choice("0123456789abcdef") for _ in range(20))
            line = f"next_page_token: {text}"
        elif kind == "error string":
            text = f"E_PLANTED_{generator.randrange(10**7, 10**8)}: checksum mismatch in shard "
            text += str(generator.randrange(1000, 10_000))
            line = f"error: {text}"
        else:
            text = str(generator.randrange(10**11, 10**12))
            line = f"rows affected: {text}"
        if text not in taken and not any(value in line for value in earlier):
            return text, line


def _with_line(entry: Entry, line: str, generator: random.Random) -> Entry:
    index = next(
        number for number, block in enumerate(entry.content) if isinstance(block, TextBlock)
    )
    block = entry.content[index]
    assert isinstance(block, TextBlock)
    lines = block.text.split("\n")
    lines.insert(generator.randrange(len(lines) + 1), line)
    content = list(entry.content)
    content[index] = TextBlock("\n".join(lines))
    return replace(entry, content=tuple(content))


def classify(arm: Arm, values: Sequence[PlantedValue], raw_digests: set[str]) -> RecallResult:
    """Where each value is at the end of ``arm``'s run.

    ``raw_digests`` are the wire digests of the trace's entries: a window message with one
    of them is the entry as appended, anything else the arm made.
    """
    raw_text: list[str] = []
    made_text: list[str] = []
    for message in arm.final_messages():
        text = "\n".join(_strings(message))
        (raw_text if message_digest(message) in raw_digests else made_text).append(text)
    raw = "\n".join(raw_text)
    made = "\n".join(made_text)
    statuses: dict[str, RecallStatus] = {}
    depths: dict[str, int] = {}
    pending: list[PlantedValue] = []
    for value in values:
        if value.text in raw:
            statuses[value.text] = "visible raw"
        elif value.text in made:
            statuses[value.text] = "visible made"
        else:
            pending.append(value)
    if pending:
        peeked = _peek_closure(arm, raw + "\n" + made)
        for value in pending:
            depth = next((peeks for text, peeks in peeked if value.text in text), None)
            if depth is None:
                statuses[value.text] = "lost"
            else:
                statuses[value.text] = "recoverable"
                depths[value.text] = depth
    return RecallResult(statuses, depths, found_by_search(arm, values, statuses))


def found_by_search(
    arm: Arm, values: Sequence[PlantedValue], statuses: dict[str, RecallStatus]
) -> int | None:
    """How many recoverable values a search for the value finds in its entry, top three."""
    if not isinstance(arm, EngineArm):
        return None
    found = 0
    for value in values:
        if statuses[value.text] != "recoverable":
            continue
        results = arm.engine.search(parse_query(f'"{value.text}"', limit=SEARCH_TOP))
        found += any(hit.entry == value.entry_id for hit in results.hits)
    return found


def _peek_closure(arm: Arm, window_text: str) -> list[tuple[str, int]]:
    """The text of everything reachable by peeks from the window, with the peeks it took."""
    seen: set[str] = set()
    frontier = _ids_in(window_text)
    found: list[tuple[str, int]] = []
    for depth in range(1, MAXIMUM_PEEK_DEPTH + 1):
        following: set[str] = set()
        for identifier in sorted(frontier - seen):
            seen.add(identifier)
            data = arm.peek(identifier)
            if data is None:
                continue
            text = _readable(data)
            found.append((text, depth))
            following |= _ids_in(text)
        frontier = following
        if not frontier:
            break
    return found


def _ids_in(text: str) -> set[str]:
    return set(_PEEK_ID.findall(text)) | set(_BARE_ID.findall(text))


def _readable(data: bytes) -> str:
    """Peeked bytes as searchable text: the strings inside JSON, or the bytes decoded."""
    try:
        return "\n".join(_strings(parse_json(data)))
    except ValueError:
        return data.decode("utf-8", "replace")


def _strings(value: JsonValue) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


RECALL_SPLIT: tuple[tuple[RecallStatus, str], ...] = (
    ("visible raw", "visible_raw"),
    ("visible made", "visible_in_brief"),
    ("recoverable", "recoverable"),
    ("lost", "lost"),
)
"""The four ways a planted value can end up, in report order, with their names in the JSON.
*Visible in a brief* is a value shown in a message the arm made: a fold's brief or
placeholder, an evidence preview, or (for ``native``) its summary."""


def recall_split(result: RecallResult | None) -> dict[str, int]:
    """How many planted values ended up each way (``{}`` when recall was not asked for)."""
    if result is None:
        return {}
    return {name: result.count(status) for status, name in RECALL_SPLIT}
