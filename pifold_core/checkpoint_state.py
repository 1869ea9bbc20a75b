"""What a checkpoint keeps of an engine, and how it is put back (issue 12).

:func:`capture` turns the engine's derived state, everything :mod:`pifold_core.restore`
rebuilds from the log, into one JSON object; :func:`restore` puts it into a freshly
constructed engine. The two are exact inverses: a session reopened from a checkpoint plus
the records after it equals the session rebuilt from the whole log (the tests compare every
field :func:`tests.core.engine_checks.durable_state` reads, and more).

Entries a fold holds are kept as :class:`~pifold_core.entry_list.EntryFacts` only (their
bytes are their lines in the session log, read back on demand and verified); every other
entry, the window's, is kept whole. So a checkpoint holds about 1.2 KB an entry,
mostly the folds' briefs (12.5 MB for the 10,000-entry synthetic session, whose log is
59 MB), and the memory of a reopened session follows the window, not the history.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, cast

from pifold_core.audit import AuditCounts, RequestRecord
from pifold_core.canonical import JsonValue, wire_digest_of
from pifold_core.entries import Entry, EntryKind
from pifold_core.entry_list import EntryFacts
from pifold_core.folds import Fold
from pifold_core.host_notes import HostNote
from pifold_core.journal import LogSpan, fold_from_log, fold_log_record
from pifold_core.marks import Mark
from pifold_core.measure import Measurement, SentRequest
from pifold_core.projection import Item
from pifold_core.runway import Floor
from pifold_core.status import CommitView
from pifold_core.transcript import Unit
from pifold_core.views import ViewKind

if TYPE_CHECKING:
    from pifold_core.engine import Engine


class CheckpointStateError(ValueError):
    """A checkpoint's state does not hold together; the message says where."""


def capture(engine: Engine) -> dict[str, JsonValue]:
    """The engine's derived state as one JSON object (see the module docstring)."""
    spans = engine.journal.entry_spans
    return {
        "entries": [entry_state(engine, index, spans) for index in range(len(engine.transcript))],
        "folds": [fold_state(fold) for fold in engine.forest.folds.values()],
        **capture_rest(engine),
    }


def fold_state(fold: Fold) -> JsonValue:
    """One fold as a checkpoint keeps it: as a commit logs it (a placeholder its fields
    derive is left out, half a fold's record, and derived back on load)."""
    return fold_log_record(fold.to_record())


def capture_rest(engine: Engine) -> dict[str, JsonValue]:
    """The state but for its two growing lists, ``entries`` and ``folds`` (what
    :mod:`pifold_core.checkpoint_body` encodes chunk by chunk)."""
    transcript, forest, projection = engine.transcript, engine.forest, engine.projection
    meter, audit = engine.meter, engine.audit
    measured, estimated = meter.growth_evidence()
    return {
        "options": engine.options.to_record(),
        "units": [
            [
                unit.start,
                unit.end,
                unit.chapter,
                sorted(unit.pending_calls),
                unit.sealed,
                unit.closed,
            ]
            for unit in transcript.units
        ],
        "closedThrough": transcript.closed_through,
        "expanded": sorted(forest.expanded),
        "items": [
            [item.start, item.end, item.message, item.digest, item.tokens, item.fold]
            for item in projection.items
        ],
        "views": [[index, kind, text] for index, (kind, text) in sorted(projection.views.items())],
        "marks": [mark.to_record() for mark in engine.marks.values()],
        "markCount": engine.mark_count,
        "stagedRefolds": sorted(engine.staged_refolds),
        "pinOpened": sorted(engine.pin_opened),
        "pinned": sorted(engine.pinned),
        "ephemeral": [[call, peeked] for call, peeked in engine.ephemeral.items()],
        "meter": {
            "last": _dataclass_state(meter.last),
            "sent": [_dataclass_state(sent) for sent in meter.sent.values()],
            "growth": [measured, estimated],
        },
        "audit": {
            "previous": list(audit.previous),
            "counts": _dataclass_state(audit.counts),
            "pending": list(audit.pending_causes),
            "last": _dataclass_state(audit.last),
        },
        "layer": cast(list[JsonValue], engine.layer.run_state()),
        "commitCount": engine.commit_count,
        "commitHistory": [_dataclass_state(view) for view in engine.commit_history],
        "clippedTotal": engine.clipped_total,
        "epoch": engine.epoch,
        "sentThrough": engine.sent_through,
        "stalledReason": engine.stalled_reason,
        "stalledAt": list(engine.stalled_at) if engine.stalled_at is not None else None,
        "noticed": engine.noticed,
        "lastRequestMs": engine.last_request_ms,
        "lastHostHead": engine.last_host_head,
        "floor": engine.floor.to_record() if engine.floor is not None else None,
        "hostNotes": [[note.sequence, note.body] for note in engine.host_notes],
        "evidenceIds": sorted(engine.evidence_ids),
        "evidenceBytes": engine.evidence.used_bytes,
    }


def entry_state(engine: Engine, index: int, spans: dict[str, LogSpan]) -> JsonValue:
    """Entry ``index`` as a checkpoint keeps it: its facts when a fold holds it and its log
    line is known, else its whole record and line (``spans``: the log's lines by id)."""
    entries = engine.transcript.entries
    if not entries.is_whole(index):
        facts = entries.facts_of(index)
        return {"facts": _facts_state(facts)}
    entry = entries[index]
    span = spans.get(entry.id)
    where = [span.offset, span.length] if span is not None else None
    if engine.forest.root_containing(index) is not None:
        facts = EntryFacts.of(entry, (span.offset, span.length) if span is not None else None)
        if facts.releasable:
            return {"facts": _facts_state(facts)}
    return {"record": entry.to_record(), "span": cast(JsonValue, where)}


def _facts_state(facts: EntryFacts) -> list[JsonValue]:
    return [
        facts.id,
        facts.kind,
        facts.timestamp_ms,
        facts.call_id,
        facts.tool_name,
        list(facts.call_ids),
        facts.size_chars,
        facts.digest,
        facts.wire_digest,
        facts.record_length,
        list(facts.span) if facts.span is not None else None,
    ]


def _dataclass_state(value: object) -> JsonValue:
    if value is None:
        return None
    state = dataclasses.asdict(value)  # type: ignore[call-overload]
    return {key: list(item) if isinstance(item, tuple) else item for key, item in state.items()}


def restore(engine: Engine, state: dict[str, Any]) -> None:
    """Put ``state`` (from :func:`capture`) into ``engine``, freshly constructed with the
    state's options and an empty log position.

    Raises:
        CheckpointStateError: a field is missing or does not hold together (the caller
            then rebuilds from the log instead).
    """
    try:
        _restore(engine, state)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise CheckpointStateError(f"the checkpoint's state is malformed: {error!r}") from None


def _restore(engine: Engine, state: dict[str, Any]) -> None:
    entries: list[Entry | EntryFacts] = []
    spans = engine.journal.entry_spans
    for item in state["entries"]:
        if "facts" in item:
            facts = _facts_from(item["facts"])
            entries.append(facts)
            if facts.span is not None:
                spans[facts.id] = LogSpan(*facts.span)
        else:
            entry = Entry.from_record(item["record"])
            entries.append(entry)
            if item["span"] is not None:
                spans[entry.id] = LogSpan(int(item["span"][0]), int(item["span"][1]))
    units = [
        Unit(int(start), int(end), int(chapter), set(pending), bool(sealed), bool(closed))
        for start, end, chapter, pending, sealed, closed in state["units"]
    ]
    transcript = engine.transcript
    transcript.restore(entries, units, int(state["closedThrough"]))
    for record in state["folds"]:
        engine.forest.add(Fold.from_record(fold_from_log(record)))
    engine.forest.expanded.update(str(handle) for handle in state["expanded"])
    items: list[Item] = []
    for start, end, message, digest, tokens, fold in state["items"]:
        if wire_digest_of(message) != digest:
            raise ValueError(f"projected message at entry {start} does not match its digest")
        items.append(Item(int(start), int(end), message, str(digest), int(tokens), fold))
    views = {int(index): (cast(ViewKind, kind), str(text)) for index, kind, text in state["views"]}
    engine.projection.load(items, views)
    for record in state["marks"]:
        mark = Mark.from_record(record)
        engine.marks[mark.id] = mark
    engine.mark_count = int(state["markCount"])
    engine.staged_refolds.update(str(handle) for handle in state["stagedRefolds"])
    engine.pin_opened.update(str(handle) for handle in state["pinOpened"])
    engine.pinned.update(int(index) for index in state["pinned"])
    engine.ephemeral.update((str(call), str(peeked)) for call, peeked in state["ephemeral"])
    _restore_meter(engine, state["meter"])
    _restore_audit(engine, state["audit"])
    engine.layer.restore_run_state(list(state["layer"]))
    engine.commit_count = int(state["commitCount"])
    engine.commit_history = [CommitView(**view) for view in state["commitHistory"]]
    engine.last_commit = engine.commit_history[-1] if engine.commit_history else None
    engine.clipped_total = int(state["clippedTotal"])
    engine.epoch = int(state["epoch"])
    engine.sent_through = int(state["sentThrough"])
    engine.stalled_reason = state["stalledReason"]
    stalled = state["stalledAt"]
    engine.stalled_at = (int(stalled[0]), int(stalled[1])) if stalled is not None else None
    engine.noticed = bool(state["noticed"])
    engine.last_request_ms = state["lastRequestMs"]
    head = state.get("lastHostHead")  # absent from checkpoints written before it existed
    engine.last_host_head = head if isinstance(head, str) else None
    floor = state.get("floor")  # the floor a held-back threshold commit named (status)
    engine.floor = Floor.from_record(floor) if floor is not None else None
    engine.host_notes = [HostNote(int(sequence), body) for sequence, body in state["hostNotes"]]
    engine.evidence_ids = {str(identifier) for identifier in state["evidenceIds"]}
    engine.evidence.used_bytes = int(state["evidenceBytes"])
    engine.refresh_blacklisted_results()


def _facts_from(value: list[Any]) -> EntryFacts:
    identifier, kind, timestamp, call_id, tool, call_ids, size, digest, wire, length, span = value
    return EntryFacts(
        id=str(identifier),
        kind=cast(EntryKind, kind),
        timestamp_ms=int(timestamp),
        call_id=call_id,
        tool_name=tool,
        call_ids=tuple(str(call) for call in call_ids),
        size_chars=int(size),
        digest=str(digest),
        wire_digest=str(wire),
        record_length=int(length),
        span=(int(span[0]), int(span[1])) if span is not None else None,
    )


def _restore_meter(engine: Engine, state: dict[str, Any]) -> None:
    meter = engine.meter
    meter.last = Measurement(**state["last"]) if state["last"] is not None else None
    meter.sent = {int(sent["number"]): SentRequest(**sent) for sent in state["sent"]}
    measured, estimated = state["growth"]
    meter.restore_growth_evidence(float(measured), float(estimated))


def _restore_audit(engine: Engine, state: dict[str, Any]) -> None:
    audit = engine.audit
    audit.previous = [str(digest) for digest in state["previous"]]
    audit.counts = AuditCounts(**state["counts"])
    audit.pending_causes = [str(cause) for cause in state["pending"]]
    last = state["last"]
    if last is not None:
        last = RequestRecord(**{**last, "causes": tuple(last["causes"])})
    audit.last = last


__all__ = [
    "CheckpointStateError",
    "capture",
    "capture_rest",
    "entry_state",
    "fold_state",
    "restore",
]
