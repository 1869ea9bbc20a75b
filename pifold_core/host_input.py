"""What a host feeds the engine: entries, the provider's token counts, and new options
(DESIGN §6, §8, §9).

:meth:`pifold_core.engine.Engine.append`, ``report_usage``, ``calibrate`` and
``apply_options`` hand their arguments to :class:`HostInput`, which checks them, logs them
and applies them to the session's state, by the engine's one rule: nothing changes in
memory before its log record is written. An append is the one exception the rule allows
for: the marks an entry lays depend on the entry applied, so it is applied first and taken
back exactly when its record cannot be written (a failed append leaves the engine as it
was, and a retry succeeds).
"""

from __future__ import annotations

from typing import Any

from pifold_core.engine_errors import EngineError
from pifold_core.entries import Entry, Usage
from pifold_core.options import EngineOptions
from pifold_core.session_state import SessionState, evidence_of
from pifold_core.tokens import token_record


class HostInput:
    """Takes entries and token counts from the host into one session's state."""

    def __init__(self, state: SessionState) -> None:
        self._state = state

    def append(self, entry: Entry) -> Entry:
        """Append one entry (see :meth:`pifold_core.engine.Engine.append`); returns it as kept.

        Raises:
            EngineError: not an entry, or a tool result whose call a fold already holds.
            TranscriptError: its id (or a tool call id) is already in the transcript.
            OSError: the log could not be written; nothing was applied.
        """
        state = self._state
        state.refuse_if_read_only("append")
        if not isinstance(entry, Entry):
            raise EngineError(f"append takes an Entry, got {type(entry).__name__}")
        state.transcript.check_append(entry)
        self._refuse_late_result(entry)
        outcome = state.evidence.ingest(entry, state.options.evidence_threshold_bytes)
        entry = outcome.entry
        evidence = evidence_of(entry)
        new_evidence = evidence if evidence not in state.evidence_ids else None
        saved = state.before_append()
        laid = state.apply_entry(entry)
        body: dict[str, Any] = {"record": entry.to_record()}
        if laid:
            body["marks"] = [mark.to_record() for mark in laid]
        # A pure function of the bytes, kept so a reopen need not tokenise the entry again.
        body["tokens"] = token_record(
            state.projection.counter, state.projection.whole_tokens(len(state.transcript) - 1)
        )
        try:
            state.journal.append("entry", body)
        except BaseException:
            state.undo_append(laid, saved, new_evidence, outcome.artifact_bytes)
            raise
        return entry

    def _refuse_late_result(self, entry: Entry) -> None:
        """A result whose call a fold already holds would split the two (restore refuses)."""
        if entry.kind != "tool_result":
            return
        state = self._state
        site = state.transcript.call_site.get(str(entry.call_id))
        holders = state.forest.root_overlapping(site, site + 1) if site is not None else []
        if holders:
            raise EngineError(
                f"tool result {entry.id} answers call {entry.call_id}, which fold "
                f"{holders[0].handle} already holds; a fold never separates a call from its "
                "result, so append a late result as a note instead"
            )

    def set_host_prefix(self, tokens: int) -> None:
        """Set the host's fixed prefix (see :meth:`pifold_core.engine.Engine.set_host_prefix`)."""
        self._state.refuse_if_read_only("set_host_prefix")
        check_token_count("host prefix tokens", tokens)
        if tokens < 0:
            raise EngineError(f"host prefix tokens must not be negative, got {tokens}")
        if tokens != self._state.meter.prefix_tokens:
            self._state.journal.append("prefix", {"tokens": tokens})
            self._state.meter.set_prefix(tokens)

    def report_usage(self, request: int, usage: Usage) -> None:
        """Bind the provider's usage for request number ``request`` (see
        :meth:`pifold_core.engine.Engine.report_usage`)."""
        self._state.refuse_if_read_only("report_usage")
        if not isinstance(usage, Usage):
            raise EngineError(f"usage must be a Usage, got {type(usage).__name__}")
        for name in ("input_tokens", "cache_read_tokens", "cache_write_tokens"):
            value = getattr(usage, name)
            if value is not None:
                check_token_count(f"usage {name}", value)
        if usage.prompt_tokens is None:
            return
        if usage.prompt_tokens <= 0:
            raise EngineError(f"usage must count at least one prompt token, got {usage!r}")
        if request not in self._state.meter.sent:
            raise EngineError(f"request {request} is not one of the recent requests sent")
        self._state.journal.append("usage", {"request": request, "tokens": usage.prompt_tokens})
        self._state.meter.measure(request, usage.prompt_tokens)

    def calibrate(self, measured_growth: int, estimated_growth: int) -> bool:
        """Learn the token ratio from growth the provider counted elsewhere (a replay)."""
        self._state.refuse_if_read_only("calibrate")
        check_token_count("measured_growth", measured_growth)
        check_token_count("estimated_growth", estimated_growth)
        if not self._state.meter.usable_sample(measured_growth, estimated_growth):
            return False
        # Logged first, like every change: a failed write leaves the live state as the log.
        self._state.journal.append(
            "calibrate", {"measured": measured_growth, "estimated": estimated_growth}
        )
        self._state.meter.calibrate(measured_growth, estimated_growth)
        return True

    def apply_options(self, options: EngineOptions) -> None:
        """Take new options in the running session (a settings change); logged for reopen."""
        state = self._state
        state.refuse_if_read_only("apply_options")
        if not isinstance(options, EngineOptions):
            raise EngineError(f"options must be EngineOptions, got {type(options).__name__}")
        if options == state.options:
            return
        state.journal.append("options", {"options": options.to_record()}, durable=True)
        state.set_options(options)


def check_token_count(name: str, value: object) -> None:
    """Token counts are whole numbers: the log replays them as ``int``, so a float would
    rebuild a different calibration on reopen."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError(f"{name} must be a whole number of tokens, got {value!r}")


__all__ = ["HostInput", "check_token_count"]
