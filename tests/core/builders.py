"""Helpers for the engine tests: a synthetic session generator, a fake token counter and a
driver that feeds entries to an :class:`Engine` one model request at a time.

A session is a list of :class:`Entry` in the order a host appends them. Every assistant
message is the answer to one model request, so :func:`drive` prepares a request right before
each assistant entry is appended (as the replay driver does).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pifold_core.canonical import JsonValue, canonical_bytes
from pifold_core.engine import Engine, Request
from pifold_core.entries import Entry, TextBlock, ToolCallBlock, Usage
from pifold_core.folds import Fold, source_of
from pifold_core.options import EngineOptions, Thresholds

TOOLS = ("read", "bash", "grep", "edit")


class CharCounter:
    """A deterministic token counter: one token per four bytes of the message, plus four.

    Exact and predictable, for tests that compare token figures.
    """

    name = "chars/4"

    def count_text(self, text: str) -> int:
        return len(text.encode("utf-8", "surrogatepass")) // 4

    def count_message(self, message: dict[str, JsonValue], digest: str) -> int:
        return 4 + len(canonical_bytes(message)) // 4


def filler(size: int, seed: int = 0, stem: str = "line") -> str:
    """``size`` characters of plausible tool output (newline-separated, deterministic)."""
    rng = random.Random(seed)
    words = ("alpha", "beta", "gamma", "delta", "value", "result", "ok", "the", "file", "def")
    parts: list[str] = []
    length = 0
    number = 0
    while length < size:
        number += 1
        line = f"{stem} {number}: " + " ".join(rng.choice(words) for _ in range(8))
        parts.append(line)
        length += len(line) + 1
    return "\n".join(parts)[:size]


@dataclass
class SessionBuilder:
    """Builds entries with unique ids, increasing timestamps and matching call ids."""

    prefix: str = "e"
    entries: list[Entry] = field(default_factory=list)
    _next: int = 0
    _next_call: int = 0

    def _id(self) -> tuple[str, int]:
        self._next += 1
        return f"{self.prefix}{self._next:05d}", 1_700_000_000_000 + self._next * 1000

    def _add(self, entry: Entry) -> Entry:
        self.entries.append(entry)
        return entry

    def user(self, text: str) -> Entry:
        entry_id, ts = self._id()
        return self._add(Entry(entry_id, "user", ts, (TextBlock(text),)))

    def note(self, text: str) -> Entry:
        entry_id, ts = self._id()
        return self._add(Entry(entry_id, "note", ts, (TextBlock(text),)))

    def assistant(
        self, text: str = "", calls: Sequence[tuple[str, dict[str, JsonValue]]] = ()
    ) -> Entry:
        """An assistant message; each call gets a fresh call id (``entry.tool_calls``)."""
        entry_id, ts = self._id()
        blocks: list[TextBlock | ToolCallBlock] = []
        if text:
            blocks.append(TextBlock(text))
        for name, arguments in calls:
            self._next_call += 1
            blocks.append(ToolCallBlock(f"call_{self.prefix}{self._next_call}", name, arguments))
        usage = Usage(input_tokens=100, output_tokens=20)
        return self._add(Entry(entry_id, "assistant", ts, tuple(blocks), usage=usage))

    def result(self, call: ToolCallBlock, text: str, is_error: bool = False) -> Entry:
        entry_id, ts = self._id()
        return self._add(
            Entry(
                entry_id,
                "tool_result",
                ts,
                (TextBlock(text),),
                call_id=call.id,
                tool_name=call.name,
                is_error=is_error,
            )
        )

    def batch(
        self,
        sizes: Sequence[int],
        text: str = "",
        tool: str = "read",
        errors: Sequence[bool] = (),
        seed: int = 0,
    ) -> list[Entry]:
        """One assistant message calling ``len(sizes)`` tools, then each result in order."""
        start = len(self.entries)
        calls = [
            (tool, {"path": f"src/pkg/module_{seed}_{n}.py", "n": n}) for n in range(len(sizes))
        ]
        call_entry = self.assistant(text, calls)
        for position, (call, size) in enumerate(zip(call_entry.tool_calls, sizes, strict=True)):
            failed = errors[position] if position < len(errors) else False
            body = filler(size, seed * 31 + position, stem=f"{call.name}{position}")
            if failed:
                body = f"Traceback: FileNotFoundError: src/missing_{seed}.py\n" + body
            self.result(call, body, failed)
        return self.entries[start:]

    def chapter(
        self, ask: str, batches: Sequence[Sequence[int]], seed: int = 0, closing: str = "Done."
    ) -> list[Entry]:
        """A user ask, tool batches with a short note each, then a closing assistant text."""
        start = len(self.entries)
        self.user(ask)
        for number, sizes in enumerate(batches):
            self.batch(sizes, text=f"Step {number}: checking.", seed=seed * 100 + number)
        self.assistant(closing)
        return self.entries[start:]

    def long_turn(self, ask: str, batches: Sequence[Sequence[int]], seed: int = 0) -> list[Entry]:
        """One user message followed by many tool batches: a single long agentic turn."""
        start = len(self.entries)
        self.user(ask)
        for number, sizes in enumerate(batches):
            self.batch(sizes, text=f"Working, step {number}.", seed=seed * 1000 + number)
        return self.entries[start:]


def random_session(
    seed: int,
    segments: int = 6,
    max_batches: int = 6,
    max_results: int = 3,
    max_size: int = 6_000,
    error_rate: float = 0.1,
) -> list[Entry]:
    """A random mix of chapters and long turns with random result sizes and some errors."""
    rng = random.Random(seed)
    builder = SessionBuilder()
    for segment in range(segments):
        batches = [
            [rng.randint(0, max_size) for _ in range(rng.randint(1, max_results))]
            for _ in range(rng.randint(1, max_batches))
        ]
        ask = f"Task {segment}: fix src/app_{segment}.py (ticket ABC-{1000 + segment})"
        if rng.random() < 0.5:
            builder.chapter(ask, batches, seed=seed * 10 + segment)
        else:
            builder.long_turn(ask, batches, seed=seed * 10 + segment)
        if rng.random() < error_rate:
            call = builder.assistant("Trying something that fails.", [("bash", {"cmd": "make"})])
            builder.result(call.tool_calls[0], "ERROR: make failed with exit 2", is_error=True)
    builder.assistant("All tasks done.")
    return builder.entries


def small_options(
    budget: int = 6_000,
    max_target: float = 0.8,
    min_target: float = 0.2,
    min_fold_chars: int = 1_000,
    consolidate_after: int = 3,
    **kwargs: Any,
) -> EngineOptions:
    """Options at a small budget so commits happen in short sessions."""
    return EngineOptions(
        budget=budget,
        thresholds=Thresholds(
            max_target=max_target,
            min_target=min_target,
            consolidate_after=consolidate_after,
            min_fold_chars=min_fold_chars,
        ),
        **kwargs,
    )


def drive(
    engine: Engine,
    entries: Iterable[Entry],
    after_request: Callable[[Engine, Request], None] | None = None,
) -> list[Request]:
    """Append ``entries``, preparing one model request before each assistant entry."""
    requests: list[Request] = []
    for entry in entries:
        if entry.kind == "assistant":
            request = engine.prepare_request()
            requests.append(request)
            if after_request is not None:
                after_request(engine, request)
        engine.append(entry)
    return requests


def expected_source(engine: Engine, fold: Fold) -> bytes:
    """What a fold's source must be: the canonical records of the entries it covers."""
    return source_of(engine.view.transcript.entries[fold.start : fold.end])


def tool_call_of(entry: Entry) -> ToolCallBlock:
    """The first tool call of an assistant entry."""
    return entry.tool_calls[0]


__all__ = [
    "TOOLS",
    "CharCounter",
    "SessionBuilder",
    "drive",
    "expected_source",
    "filler",
    "random_session",
    "small_options",
    "tool_call_of",
]
