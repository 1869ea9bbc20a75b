"""Reading an OpenAI Responses stream, event by event, every field through the door.

Output items (reasoning, messages, function calls) open blocks under their item ids; deltas
fill them; ``response.completed``, ``response.incomplete``, ``response.failed`` or ``error``
end the reply, and events after that are ignored. Ids, indexes, text, usage figures and the
error's words are each checked (:mod:`pifold_agent.providers.reply_door`). A reasoning item
is kept whole as its thinking block's signature (so it can be replayed), unless it cannot be
written as JSON, in which case its text is kept and a warning says it cannot be replayed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pifold_agent.cache_report.reports import openai_report
from pifold_agent.providers.base import ProviderError, StopReason, StreamEvent
from pifold_agent.providers.errors import classify_status
from pifold_agent.providers.reply_door import (
    copied_by_level,
    kind_of,
    members,
    shown,
    without_lone_surrogates,
)
from pifold_agent.providers.reply_usage import openai_usage
from pifold_agent.providers.stream_reader import StreamReader
from pifold_core.canonical import CanonicalError, JsonValue, canonical_text

NEXT_MESSAGE_KEY: Final = "pifold_next_message_id"
"""Kept in a reasoning item's stored JSON (and taken out before it is sent): the id of the
output message that followed it, so the pair is replayed as the model produced it."""

CALL_ID_SEPARATOR: Final = "|"
"""A Responses tool call is kept as ``call_id|item_id`` (Pi's convention): the call id
answers it, the item id lets the call be replayed beside its reasoning."""

USAGE_NAMES: Final = ("input_tokens", "output_tokens", "input_tokens_details")
"""The Responses API's keys for the prompt total, the output and the cache details."""

ENDINGS: Final = frozenset({"response.completed", "response.incomplete", "response.failed"})


class ResponsesReader(StreamReader):
    """One Responses reply being read."""

    def __init__(self, model: str, compared: bool | None = None) -> None:
        super().__init__(model)
        self.compared = compared
        """Whether the request asked for cache diagnostics against an earlier response
        (``None``: it asked for none, so no report is kept)."""
        self.outcome: tuple[StopReason, ProviderError | None] | None = None
        """How the reply ended; ``None`` until the provider says."""
        # The last reasoning item, until the item that follows it is known.
        self._reasoning: tuple[str, dict[str, JsonValue]] | None = None

    def read(self, event: JsonValue) -> None:
        """Take one event (plain JSON)."""
        fields = members(event)
        kind = kind_of(fields)
        if self.outcome is not None:
            self.door.warn(f"an event ({shown(kind)}) came after the response ended: ignored")
            return
        if kind == "response.created":
            response = members(fields.get("response"))
            self.model = self.door.model(response.get("model"), self.model)
            self.keep_reply_id(response.get("id"))
        elif kind == "response.output_item.added":
            self._item_added(members(fields.get("item")))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self.emit(self.assembler.thinking(self._item(fields), fields.get("delta")))
        elif kind == "response.reasoning_summary_part.added":
            index = self.door.index(fields.get("summary_index"), "a summary part's index")
            if index is not None and index > 0:
                # Summary parts are separate paragraphs of one reasoning block.
                self.emit(self.assembler.thinking(self._item(fields), "\n\n"))
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            content = self.door.index(fields.get("content_index"), "a content index")
            self.emit(self.assembler.text((self._item(fields), content), fields.get("delta")))
        elif kind == "response.function_call_arguments.delta":
            self.emit(self.assembler.arguments(self._item(fields), fields.get("delta")))
        elif kind == "response.function_call_arguments.done":
            self.assembler.final_arguments(self._item(fields), fields.get("arguments"))
        elif kind == "response.output_item.done":
            self._item_done(members(fields.get("item")))
        elif kind in ENDINGS:
            self._ended(kind, members(fields.get("response")))
        elif kind == "error":
            message = self.door.text(fields.get("message"), "the error's message")
            code = self.door.text(fields.get("code"), "the error's code")
            failure = classify_status(None, message or "the provider reported an error", None, code)
            self.outcome = ("error", failure)

    def end(self) -> list[StreamEvent]:
        """The last events once the stream is over."""
        if self.outcome is None:
            return self.cut()
        stop_reason, failure = self.outcome
        return self.done(stop_reason, failure)

    def _item(self, fields: Mapping[str, Any]) -> str:
        return self.door.identifier(fields.get("item_id"), "an event's item id")

    def _item_added(self, item: Mapping[str, Any]) -> None:
        kind = kind_of(item)
        item_id = self.door.identifier(item.get("id"), "an output item's id")
        if kind == "reasoning":
            self.assembler.open_thinking(item_id)
        elif kind == "function_call":
            call_id = self.door.identifier(item.get("call_id"), "a function call's call_id")
            stored = f"{call_id}{CALL_ID_SEPARATOR}{item_id}" if call_id else ""
            self.assembler.open_tool_call(item_id or call_id, stored, item.get("name"))
            self._reasoning = None

    def _item_done(self, item: Mapping[str, Any]) -> None:
        kind = kind_of(item)
        item_id = self.door.identifier(item.get("id"), "an output item's id")
        if kind == "reasoning":
            record = _without_none(dict(item))
            parts = item.get("summary")
            summary = "\n\n".join(
                text
                for part in (parts if isinstance(parts, list) else [])
                if (text := self.door.text(members(part).get("text"), "a summary's text"))
            )
            text = self.assembler.thinking_text(item_id) or summary
            signature = self._signature(record)
            if signature is None:
                self.assembler.open_thinking(item_id)
                if not self.assembler.thinking_text(item_id) and text:
                    self.emit(self.assembler.thinking(item_id, text))
                return
            self.assembler.sign(item_id, signature, text)
            self._reasoning = (item_id, record)
        elif kind == "message" and self._reasoning is not None:
            key, record = self._reasoning
            paired = self._signature({**record, NEXT_MESSAGE_KEY: item_id})
            if paired is not None:
                self.assembler.resign(key, paired)
            self._reasoning = None

    def _signature(self, record: dict[str, JsonValue]) -> str | None:
        """The reasoning item as the text kept to replay it, when JSON can write it. It is
        sent back as it is kept, so it must have a UTF-8 form: lone surrogates are replaced."""
        try:
            text = canonical_text(record)
            if not _has_utf8_form(text):
                self.door.warn(
                    "a reasoning item held a lone surrogate (no UTF-8 form): replaced by U+FFFD"
                )
                text = canonical_text(without_lone_surrogates(record))
        except CanonicalError as error:
            self.door.warn(f"a reasoning item cannot be kept to send back ({error}): left out")
            return None
        return text

    def _ended(self, kind: str, response: Mapping[str, Any]) -> None:
        reported = response.get("usage")
        if reported is not None:
            self.measured(openai_usage(self.door, reported, USAGE_NAMES))
        self.model = self.door.model(response.get("model"), self.model)
        if kind == "response.incomplete":
            self.outcome = ("length", None)
        elif kind == "response.completed":
            self.outcome = ("tool_use" if self.assembler.tool_calls else "stop", None)
            self.keep_reply_id(response.get("id"))
            if self.compared is not None:
                diagnostics = response.get("prompt_cache_diagnostics")
                self.keep_cache_report(openai_report(diagnostics, self.compared))
        else:
            error = members(response.get("error"))
            message = self.door.text(error.get("message"), "the error's message")
            code = self.door.text(error.get("code"), "the error's code")
            failure = classify_status(None, message or "the response failed", None, code)
            self.outcome = ("error", failure)


def _has_utf8_form(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _without_none(value: JsonValue) -> JsonValue:
    """``value`` without the ``null`` members of its objects, at any depth (what the SDK's
    ``exclude_none`` dump gave), iteratively so no nesting can exhaust the stack."""
    return copied_by_level(value, _shallow)


def _shallow(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {key: member for key, member in value.items() if member is not None}
    if isinstance(value, list):
        return list(value)
    return value


__all__ = [
    "CALL_ID_SEPARATOR",
    "NEXT_MESSAGE_KEY",
    "USAGE_NAMES",
    "ResponsesReader",
]
