"""Reading a Chat Completions stream, chunk by chunk, every field through the door.

Each chunk may carry the model, the usage (asked for with ``stream_options.include_usage``)
and one choice whose delta holds reasoning (under the field the server uses), text, a refusal
or pieces of tool calls keyed by their index. The first choice is read; its finish reason
ends the reply. A stream that ends with no finish reason was cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pifold_agent.providers.base import StopReason, StreamEvent
from pifold_agent.providers.errors import classify_status
from pifold_agent.providers.reply_door import members, shown
from pifold_agent.providers.reply_usage import openai_usage
from pifold_agent.providers.stream_reader import StreamReader
from pifold_core.canonical import JsonValue

FINISH_REASONS: Final[dict[str, StopReason]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "error",
}

REASONING_FIELDS: Final = ("reasoning_content", "reasoning", "reasoning_text")
"""Where compatible servers put streamed reasoning (DeepSeek and vLLM, Ollama and
OpenRouter, others)."""

USAGE_NAMES: Final = ("prompt_tokens", "completion_tokens", "prompt_tokens_details")
"""The Chat Completions keys for the prompt total, the output and the cache details."""


class ChatReader(StreamReader):
    """One Chat Completions reply being read."""

    def __init__(self, model: str) -> None:
        super().__init__(model)
        self.finish: str | None = None
        """The finish reason the server gave; ``None`` until it gives one."""

    def read(self, event: JsonValue) -> None:
        """Take one chunk (plain JSON)."""
        chunk = members(event)
        self.model = self.door.model(chunk.get("model"), self.model)
        if chunk.get("usage") is not None:
            self.measured(openai_usage(self.door, chunk["usage"], USAGE_NAMES))
        choices = chunk.get("choices")
        if choices is not None and not isinstance(choices, list):
            self.door.warn(f"a chunk's choices were {shown(choices)}, not a list: ignored")
        elif choices:
            self._choice(members(choices[0]))

    def end(self) -> list[StreamEvent]:
        """The last events once the stream is over."""
        if self.finish is None:
            return self.cut()
        stop_reason = FINISH_REASONS.get(self.finish)
        if stop_reason is None:
            stop_reason = "tool_use" if self.assembler.tool_calls else "stop"
            self.door.warn(
                f"the finish reason {shown(self.finish)} is unknown: read as {stop_reason}"
            )
        if stop_reason == "stop" and self.assembler.tool_calls:
            # Some servers finish a tool-calling turn with "stop".
            stop_reason = "tool_use"
        if stop_reason == "error":
            failure = classify_status(None, f"the server stopped the answer ({self.finish})")
            return self.done("error", failure)
        return self.done(stop_reason)

    def _choice(self, choice: Mapping[str, Any]) -> None:
        delta = members(choice.get("delta"))
        for name in REASONING_FIELDS:
            piece = delta.get(name)
            if isinstance(piece, str) and piece:
                self.emit(self.assembler.thinking("reasoning", piece))
                break
        self.emit(self.assembler.text("text", delta.get("content")))
        self.emit(self.assembler.text("text", delta.get("refusal")))
        calls = delta.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            self.door.warn(f"a chunk's tool_calls were {shown(calls)}, not a list: ignored")
        for call in calls if isinstance(calls, list) else ():
            self._call(members(call))
        finish = choice.get("finish_reason")
        if finish is not None:
            if isinstance(finish, str):
                self.finish = self.door.repaired(finish, "the finish reason")
            else:
                self.door.warn(f"the finish reason {shown(finish)} is not text: read as stop")
                self.finish = "stop"

    def _call(self, call: Mapping[str, Any]) -> None:
        # A missing index is one call at a time (some servers send none).
        index = self.door.index(call.get("index"), "a tool call's index")
        key = ("call", index)
        function = members(call.get("function"))
        self.assembler.open_tool_call(key, call.get("id"), function.get("name"))
        arguments = function.get("arguments")
        if arguments:
            self.emit(self.assembler.arguments(key, arguments))


__all__ = ["FINISH_REASONS", "REASONING_FIELDS", "USAGE_NAMES", "ChatReader"]
