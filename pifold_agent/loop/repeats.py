"""A call that repeats one whose result is still in view: say so once, right after it.

Small models (measured with Qwen2.5-Coder-1.5B on llama.cpp) often answer a ``read`` result
by calling ``read`` again with the same arguments, and again, until the turn runs out: the
result is in their context, they just do not take it as the answer. After such a repeat this
follower appends one short host note naming the call and pointing at the result already
shown, so the next step is an answer rather than another copy.

It speaks only when the repeat cannot be a real need: the tool names the files it reads (a
``footprint``; ``bash`` may touch anything, so a repeated command is never second-guessed),
nothing was written since the earlier call (a call that writes, or a command, forgets every
earlier call),
the two results are the same bytes, and the earlier result is still raw in the window (a
folded or clipped one is fair to fetch again). The note is an append like every host note:
no byte already sent changes. What it remembers lives in this process: a resumed session
starts with nothing remembered, which only means the first repeat after a resume is quiet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pifold_agent.loop.followers import FinishedBatch
from pifold_agent.loop.window import shows_raw
from pifold_agent.tools.protocol import Footprint
from pifold_core.canonical import JsonValue, canonical_text
from pifold_core.entries import Entry, ToolCallBlock

NOTE_KEY = "repeatedCall"
"""The ``extra`` key a repeat's note carries: the earlier result's entry id."""


@dataclass(slots=True)
class RepeatedCalls:
    """Notes after calls that repeat an earlier call whose same result is still shown."""

    _seen: dict[str, tuple[str, str]] = field(default_factory=dict)
    """By call key: the earlier result's entry id and its text."""

    def after_batch(self, batch: FinishedBatch) -> Sequence[Entry]:
        notes: list[Entry] = []
        for call, result in zip(batch.calls, batch.results, strict=False):
            if result.is_error or not self._names_what_it_reads(batch, call):
                continue
            if self._writes(batch, call):
                self._seen.clear()  # the files changed: an earlier result may be stale now
                continue
            key = call_key(call)
            earlier = self._seen.get(key)
            if earlier is not None and earlier[1] == result.text:
                earlier_id = earlier[0]
                if shows_raw(batch.window, earlier_id):
                    extra: dict[str, JsonValue] = {NOTE_KEY: earlier_id}
                    notes.append(batch.factory.note(repeat_text(call), extra))
                    continue  # the earlier copy stays the one to point at
            self._seen[key] = (result.id, result.text)
        return notes

    @staticmethod
    def _names_what_it_reads(batch: FinishedBatch, call: ToolCallBlock) -> bool:
        footprint = touched(batch, call)
        return footprint is not None and not footprint.everything

    @staticmethod
    def _writes(batch: FinishedBatch, call: ToolCallBlock) -> bool:
        footprint = touched(batch, call)
        # A command may change any file: every earlier result may be stale after one.
        return footprint is not None and (footprint.everything or bool(footprint.writes))


def touched(batch: FinishedBatch, call: ToolCallBlock) -> Footprint | None:
    """What ``call`` says it touches; ``None`` for a tool that names no files (the memory
    tool, the fold tool), and everything for one whose footprint fails."""
    footprint = getattr(batch.tools.get(call.name), "footprint", None)
    if footprint is None:
        return None
    try:
        found = footprint(dict(call.arguments), batch.cwd)
    except Exception:  # a footprint that fails names nothing certain: assume the worst
        return Footprint(everything=True)
    return found if isinstance(found, Footprint) else Footprint(everything=True)


def call_key(call: ToolCallBlock) -> str:
    """A call's name and arguments as one canonical string (key order does not matter)."""
    return f"{call.name} {canonical_text(dict(call.arguments))}"


def repeat_text(call: ToolCallBlock) -> str:
    """The note after a repeat: what was repeated, and what to do instead."""
    return (
        f"[pifold] You already have this: the {call.name} call above repeats an earlier one "
        "with the same arguments, and its result is unchanged. Do not call it again; answer "
        "the user's question from that result now."
    )


__all__ = ["NOTE_KEY", "RepeatedCalls", "call_key", "repeat_text"]
