"""Reading an Anthropic Messages stream, event by event, every field through the door.

The events (``message_start``, ``content_block_start``/``delta``/``stop``, ``message_delta``,
``message_stop``) are read as plain JSON. A block index that is not a small whole number, a
piece for a block of another kind, an unknown stop reason and an implausible usage figure are
each set aside with a warning; events after ``message_stop`` are ignored. A stream that ends
without ``message_stop`` was cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from pifold_agent.cache_report.reports import anthropic_report
from pifold_agent.providers.base import StopReason, StreamEvent
from pifold_agent.providers.errors import classify_status
from pifold_agent.providers.reply_door import kind_of, members, shown
from pifold_agent.providers.reply_usage import ANTHROPIC_START, anthropic_usage
from pifold_agent.providers.stream_reader import StreamReader
from pifold_core.canonical import JsonValue

STOP_REASONS: Final[dict[str, StopReason]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_use",
    "refusal": "error",
}

REDACTED_PREFIX: Final = "redacted_thinking:"
"""A redacted thinking block is kept as a thinking block whose signature is this prefix plus
the opaque data, so it is replayed as ``redacted_thinking``."""


class AnthropicReader(StreamReader):
    """One Anthropic reply being read."""

    def __init__(self, model: str, compared: bool | None = None) -> None:
        super().__init__(model)
        self.compared = compared
        """Whether the request asked for cache diagnostics against an earlier reply (``None``:
        it asked for none, so no report is kept)."""
        self.stop_reason: StopReason | None = None
        """The stop reason the provider gave, mapped; ``None`` until it gives one."""
        self.finished = False
        """Whether ``message_stop`` arrived."""

    def read(self, event: JsonValue) -> None:
        """Take one event (plain JSON)."""
        fields = members(event)
        kind = kind_of(fields)
        if self.finished:
            self.door.warn(f"an event ({shown(kind)}) came after the message ended: ignored")
            return
        if kind == "message_start":
            message = members(fields.get("message"))
            self.model = self.door.model(message.get("model"), self.model)
            self.measured(anthropic_usage(self.door, message.get("usage"), ANTHROPIC_START))
            self.keep_reply_id(message.get("id"))
            self._diagnostics(message)
        elif kind == "content_block_start":
            self._block_start(fields)
        elif kind == "content_block_delta":
            self._block_delta(fields)
        elif kind == "message_delta":
            delta = members(fields.get("delta"))
            if delta.get("stop_reason") is not None:
                self.stop_reason = self._stop_reason(delta["stop_reason"])
            reported = fields.get("usage")
            if reported is not None:
                self.measured(anthropic_usage(self.door, reported, self.usage or ANTHROPIC_START))
            if "diagnostics" in fields:
                # A comparison still running at message_start may be settled by the end.
                self._diagnostics(fields)
        elif kind == "message_stop":
            self.finished = True

    def end(self) -> list[StreamEvent]:
        """The last events once the stream is over."""
        if not self.finished:
            return self.cut()
        if self.stop_reason == "error":
            refusal = classify_status(None, "the model refused to answer (stop_reason refusal)")
            return self.done("error", refusal)
        return self.done(self.stop_reason or "stop")

    def _diagnostics(self, holder: Mapping[str, JsonValue]) -> None:
        """The provider's cache report, when the request asked for one."""
        if self.compared is not None:
            present = "diagnostics" in holder
            self.keep_cache_report(
                anthropic_report(holder.get("diagnostics"), present, self.compared)
            )

    def _block_start(self, fields: Mapping[str, JsonValue]) -> None:
        index = self.door.index(fields.get("index"), "a content block's index")
        if index is None:
            return
        block = members(fields.get("content_block"))
        kind = kind_of(block)
        if kind == "tool_use":
            self.assembler.open_tool_call(index, block.get("id"), block.get("name"))
        elif kind == "thinking":
            self.assembler.open_thinking(index)
        elif kind == "redacted_thinking":
            data = self.door.text(block.get("data"), "a redacted thinking block's data")
            if data is not None:
                self.assembler.sign(index, REDACTED_PREFIX + data, "")

    def _block_delta(self, fields: Mapping[str, JsonValue]) -> None:
        index = self.door.index(fields.get("index"), "a content block's index")
        if index is None:
            return
        delta = members(fields.get("delta"))
        kind = kind_of(delta)
        if kind == "text_delta":
            self.emit(self.assembler.text(index, delta.get("text")))
        elif kind == "thinking_delta":
            self.emit(self.assembler.thinking(index, delta.get("thinking")))
        elif kind == "signature_delta":
            self.assembler.sign(index, delta.get("signature"))
        elif kind == "input_json_delta":
            self.emit(self.assembler.arguments(index, delta.get("partial_json")))

    def _stop_reason(self, value: JsonValue) -> StopReason:
        if isinstance(value, str) and value in STOP_REASONS:
            return STOP_REASONS[value]
        stop: StopReason = "tool_use" if self.assembler.tool_calls else "stop"
        self.door.warn(
            f"the stop reason {shown(value)} is not one Anthropic documents: read as {stop}"
        )
        return stop


__all__ = ["REDACTED_PREFIX", "STOP_REASONS", "AnthropicReader"]
