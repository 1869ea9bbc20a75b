"""What a checkpoint keeps of a session's state, and how it is put back (issue 12).

:func:`capture` turns the derived part of a
:class:`~pifold_core.session_state.SessionState`, everything :mod:`pifold_core.restore`
rebuilds from the log, into one JSON object; :func:`restore` puts it into a freshly
constructed one. The two are exact inverses: a session reopened from a checkpoint plus
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
from pifold_core.entries import Entry
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
    from pifold_core.session_state import SessionState


class CheckpointStateError(ValueError):
    """A checkpoint's state does not hold together; the message says where."""


def capture(state: SessionState) -> dict[str, JsonValue]:
    """The session's derived state as one JSON object (see the module docstring)."""
    spans = state.journal.entry_spans
    return {
        "entries": [entry_state(state, index, spans) for index in range(len(state.transcript))],
        "folds": [fold_state(fold) for fold in state.forest.folds.values()],
        "units": [unit_state(unit) for unit in state.transcript.units],
        "commitHistory": [commit_view_state(view) for view in state.commit_history],
        **capture_rest(state),
    }


def fold_state(fold: Fold) -> JsonValue:
    """One fold as a checkpoint keeps it: as a commit logs it (a placeholder its fields
    derive is left out, half a fold's record, and derived back on load)."""
    return fold_log_record(fold.to_record())


def unit_state(unit: Unit) -> JsonValue:
    """One unit of the transcript as a checkpoint keeps it."""
    return [
        unit.start,
        unit.end,
        unit.chapter,
        sorted(unit.pending_calls),
        unit.sealed,
        unit.closed,
    ]


_COMMIT_FIELDS = tuple(field.name for field in dataclasses.fields(CommitView))


def commit_view_state(view: CommitView) -> JsonValue:
    """One commit of the session's history as a checkpoint keeps it, field by field: its
    fields are plain values, so it is read flat (:func:`dataclasses.asdict` deep-copies, a
    third of a checkpoint write at 50,000 entries, with 800 commits in the history)."""
    return {name: getattr(view, name) for name in _COMMIT_FIELDS}


def capture_rest(state: SessionState) -> dict[str, JsonValue]:
    """The state but for its four growing lists, ``entries``, ``folds``, ``units`` and
    ``commitHistory`` (what :mod:`pifold_core.checkpoint_body` encodes chunk by chunk)."""
    transcript, forest, projection = state.transcript, state.forest, state.projection
    meter, audit = state.meter, state.audit
    measured, estimated = meter.growth_evidence()
    return {
        "options": state.options.to_record(),
        "closedThrough": transcript.closed_through,
        "expanded": sorted(forest.expanded),
        "items": [
            [item.start, item.end, item.message, item.digest, item.tokens, item.fold]
            for item in projection.items
        ],
        "views": [[index, kind, text] for index, (kind, text) in sorted(projection.views.items())],
        "marks": [mark.to_record() for mark in state.marks.values()],
        "markCount": state.mark_count,
        "stagedRefolds": sorted(state.staged_refolds),
        "pinOpened": sorted(state.pin_opened),
        "pinned": sorted(state.pinned),
        "ephemeral": [[call, peeked] for call, peeked in state.ephemeral.items()],
        "meter": {
            "last": _dataclass_state(meter.last),
            "sent": [_dataclass_state(sent) for sent in meter.sent.values()],
            "growth": [measured, estimated],
            "prefix": meter.prefix_tokens,
        },
        "audit": {
            "previous": list(audit.previous),
            "counts": _dataclass_state(audit.counts),
            "pending": list(audit.pending_causes),
            "last": _dataclass_state(audit.last),
        },
        "layer": cast(list[JsonValue], state.layer.run_state()),
        "commitCount": state.commit_count,
        "clippedTotal": state.clipped_total,
        "epoch": state.epoch,
        "sentThrough": state.sent_through,
        "stalledReason": state.stalled_reason,
        "stalledAt": list(state.stalled_at) if state.stalled_at is not None else None,
        "noticed": state.noticed,
        "lastRequestMs": state.last_request_ms,
        "lastHostHead": state.last_host_head,
        "floor": state.floor.to_record() if state.floor is not None else None,
        "hostNotes": [[note.sequence, note.body] for note in state.host_notes],
        "evidenceIds": sorted(state.evidence_ids),
        "evidenceBytes": state.evidence.used_bytes,
    }


def entry_state(state: SessionState, index: int, spans: dict[str, LogSpan]) -> JsonValue:
    """Entry ``index`` as a checkpoint keeps it: its facts when a fold holds it and its log
    line is known, else its whole record and line (``spans``: the log's lines by id)."""
    entries = state.transcript.entries
    if not entries.is_whole(index):
        facts = entries.facts_of(index)
        return {"facts": _facts_state(facts)}
    entry = entries[index]
    span = spans.get(entry.id)
    where = [span.offset, span.length] if span is not None else None
    if state.forest.root_containing(index) is not None:
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


def restore(session: SessionState, state: dict[str, Any]) -> None:
    """Put ``state`` (from :func:`capture`) into ``session``, freshly constructed with the
    state's options and an empty log position.

    Raises:
        CheckpointStateError: a field is missing or does not hold together (the caller
            then rebuilds from the log instead).
    """
    try:
        _restore(session, state)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise CheckpointStateError(f"the checkpoint's state is malformed: {error!r}") from None


def _restore(session: SessionState, state: dict[str, Any]) -> None:
    entries: list[Entry | EntryFacts] = []
    spans = session.journal.entry_spans
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
    session.transcript.restore(entries, units, int(state["closedThrough"]))
    for record in state["folds"]:
        session.forest.add(Fold.from_record(fold_from_log(record)))
    session.forest.expanded.update(str(handle) for handle in state["expanded"])
    items: list[Item] = []
    for start, end, message, digest, tokens, fold in state["items"]:
        if wire_digest_of(message) != digest:
            raise ValueError(f"projected message at entry {start} does not match its digest")
        items.append(Item(int(start), int(end), message, str(digest), int(tokens), fold))
    views = {int(index): (cast(ViewKind, kind), str(text)) for index, kind, text in state["views"]}
    session.projection.load(items, views)
    for record in state["marks"]:
        mark = Mark.from_record(record)
        session.marks[mark.id] = mark
    session.staged_refolds.update(str(handle) for handle in state["stagedRefolds"])
    session.pin_opened.update(str(handle) for handle in state["pinOpened"])
    session.pinned.update(int(index) for index in state["pinned"])
    session.ephemeral.update((str(call), str(peeked)) for call, peeked in state["ephemeral"])
    _restore_meter(session, state["meter"])
    _restore_audit(session, state["audit"])
    session.layer.restore_run_state(list(state["layer"]))
    stalled = state["stalledAt"]
    head = state.get("lastHostHead")  # absent from checkpoints written before it existed
    floor = state.get("floor")  # the floor a held-back threshold commit named (status)
    session.restore_bookkeeping(
        mark_count=int(state["markCount"]),
        commit_count=int(state["commitCount"]),
        commit_history=[CommitView(**view) for view in state["commitHistory"]],
        clipped_total=int(state["clippedTotal"]),
        epoch=int(state["epoch"]),
        sent_through=int(state["sentThrough"]),
        stalled_reason=state["stalledReason"],
        stalled_at=(int(stalled[0]), int(stalled[1])) if stalled is not None else None,
        noticed=bool(state["noticed"]),
        last_request_ms=state["lastRequestMs"],
        last_host_head=head if isinstance(head, str) else None,
        floor=Floor.from_record(floor) if floor is not None else None,
        host_notes=[HostNote(int(sequence), body) for sequence, body in state["hostNotes"]],
        evidence_ids={str(identifier) for identifier in state["evidenceIds"]},
    )
    session.evidence.account(int(state["evidenceBytes"]))


def _facts_from(value: list[Any]) -> EntryFacts:
    # The body hashed to its header, so it is the engine's own writing: fields are taken
    # as written (no conversion per field: 50,000 of these at 50,000 entries).
    identifier, kind, timestamp, call_id, tool, call_ids, size, digest, wire, length, span = value
    return EntryFacts(
        identifier,
        kind,
        timestamp,
        call_id,
        tool,
        tuple(call_ids),
        size,
        digest,
        wire,
        length,
        (span[0], span[1]) if span is not None else None,
    )


def _restore_meter(session: SessionState, state: dict[str, Any]) -> None:
    last = Measurement(**state["last"]) if state["last"] is not None else None
    sent = {int(sent["number"]): SentRequest(**sent) for sent in state["sent"]}
    measured, estimated = state["growth"]
    session.meter.restore_state(last, sent, float(measured), float(estimated))
    session.meter.set_prefix(int(state.get("prefix", 0)))  # absent from older checkpoints


def _restore_audit(session: SessionState, state: dict[str, Any]) -> None:
    last = state["last"]
    if last is not None:
        last = RequestRecord(**{**last, "causes": tuple(last["causes"])})
    session.audit.restore_state(
        [str(digest) for digest in state["previous"]],
        AuditCounts(**state["counts"]),
        [str(cause) for cause in state["pending"]],
        last,
    )


__all__ = [
    "CheckpointStateError",
    "capture",
    "capture_rest",
    "commit_view_state",
    "entry_state",
    "fold_state",
    "restore",
    "unit_state",
]
