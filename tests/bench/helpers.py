"""Small synthetic sessions and a predictable token counter for the benchmark's tests."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from pifold_core.canonical import JsonValue, canonical_bytes
from pifold_core.entries import Entry, TextBlock, ToolCallBlock, Usage

START_MS = 1_700_000_000_000


class QuarterCounter:
    """One token per four bytes of canonical message, plus four: exact and predictable."""

    name = "bytes/4"

    def count_text(self, text: str) -> int:
        return len(text.encode("utf-8")) // 4

    def count_message(self, message: dict[str, JsonValue], digest: str) -> int:
        return 4 + len(canonical_bytes(message)) // 4


def filler(characters: int, seed: int) -> str:
    """Deterministic lines of plausible tool output, ``characters`` long."""
    generator = random.Random(seed)
    words = ("alpha", "beta", "gamma", "delta", "value", "file", "ok", "def", "return", "x")
    lines: list[str] = []
    length = 0
    while length < characters:
        line = f"{len(lines)}: " + " ".join(generator.choice(words) for _ in range(9))
        lines.append(line)
        length += len(line) + 1
    return "\n".join(lines)[:characters]


@dataclass
class Session:
    """Builds entries with unique ids, a clock ``step_ms`` apart and matching call ids."""

    step_ms: int = 1_000
    entries: list[Entry] = field(default_factory=list)
    clock: int = START_MS

    def _next(self) -> tuple[str, int]:
        self.clock += self.step_ms
        return f"e{len(self.entries) + 1:05d}", self.clock

    def user(self, text: str) -> Entry:
        entry_id, ts = self._next()
        entry = Entry(entry_id, "user", ts, (TextBlock(text),))
        self.entries.append(entry)
        return entry

    def assistant(self, text: str, calls: int = 0, usage: Usage | None = None) -> Entry:
        entry_id, ts = self._next()
        blocks: list[TextBlock | ToolCallBlock] = [TextBlock(text)]
        blocks += [
            ToolCallBlock(f"call-{entry_id}-{number}", "read", {"path": f"src/m{number}.py"})
            for number in range(calls)
        ]
        entry = Entry(entry_id, "assistant", ts, tuple(blocks), usage=usage, model="gpt-5.4")
        self.entries.append(entry)
        return entry

    def results(self, call_entry: Entry, characters: int, seed: int = 0) -> list[Entry]:
        made = []
        for call in call_entry.tool_calls:
            entry_id, ts = self._next()
            text = filler(characters, seed + len(self.entries))
            entry = Entry(
                entry_id, "tool_result", ts, (TextBlock(text),), call_id=call.id, tool_name="read"
            )
            self.entries.append(entry)
            made.append(entry)
        return made

    def long_turn(self, batches: int, characters: int, seed: int = 0) -> list[Entry]:
        """One ask, then ``batches`` tool calls with a result of ``characters`` each."""
        self.user("Fix the failing tests in src/ (ticket ABC-1234).")
        for number in range(batches):
            call = self.assistant(f"Step {number}: reading the next module.", calls=1)
            self.results(call, characters, seed=seed * 1000 + number)
        self.assistant("Done: all tests pass.")
        return self.entries
