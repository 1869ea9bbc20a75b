"""Rebuilding a session's state from its log (DESIGN §8 "Restart").

Every state change the engine makes is logged before it is applied. Reopening replays the
records in order through the same code paths the live calls used (appending an entry,
landing a commit's recorded folds, views and pins), never through the policy, so the
rebuilt projection is byte for byte the one that was sent, and every logged request is
checked against it. It goes through the session state's bookkeeping
(:meth:`~pifold_core.session_state.SessionState.apply_entry`, ``set_options``,
``after_request``, ``declare_rewrite``, ``release_pin_folds``, ``settle_commit``), which the
live verbs call after logging, so the bookkeeping is exactly the live calls'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pifold_core.audit import request_digest
from pifold_core.canonical import digest_of
from pifold_core.entries import Entry
from pifold_core.fold_digest import PARTS_DIGEST, parts_digest
from pifold_core.fold_verify import check_object_files, verify_fold_objects
from pifold_core.folds import Fold
from pifold_core.journal import fold_from_log
from pifold_core.mark_edits import with_brief
from pifold_core.marks import Mark
from pifold_core.notice import NOTICE_TAG
from pifold_core.options import EngineOptions
from pifold_core.runway import Floor
from pifold_core.session_state import SessionState
from pifold_core.store import StoreObjectCorrupt
from pifold_core.tokens import remember_counts, remember_tokens
from pifold_core.views import clipped_text, withdrawn_text


def replay_records(state: SessionState, records: list[tuple[str, dict[str, Any]]]) -> None:
    """Replay log records into ``state`` (:func:`replay_record` each), marking it
    :attr:`~pifold_core.session_state.SessionState.restoring` meanwhile so appends lay no
    marks."""
    with state.replaying():
        for kind, body in records:
            replay_record(state, kind, body)


def check_restored(
    state: SessionState,
    folds: Sequence[Fold] | None = None,
    evidence: set[str] | None = None,
    checkpoint_written_ns: int = 0,
) -> None:
    """The rebuilt forest obeys every rule and every fold matches its logged source.

    Every store object and evidence artifact is then read and hash-verified. One that is
    missing or damaged does not stop the session: it is remembered (``status().damaged``
    names it) and touching it raises, while every other fold stays usable.

    After a checkpoint (:mod:`pifold_core.opening`) only what the replayed records added is
    checked: ``folds`` (its new folds) and ``evidence`` (its new artifacts); the rest was
    checked when the checkpoint's session was rebuilt or made, and is verified on every read:
    of the older objects, only those whose files changed since the checkpoint was written
    (``checkpoint_written_ns``) or are gone are checked now
    (:func:`~pifold_core.fold_verify.check_object_files`).
    """
    if folds is not None:
        state.forest.validate_folds(folds, state.transcript)
        for fold in folds:
            _check_source(state, fold)
        made = {fold.handle for fold in folds}
        older = [f for f in state.forest.folds.values() if f.handle not in made]
        check_object_files(state.store, older, checkpoint_written_ns)
        # A damaged object is remembered, not raised; each is read once, its parts not.
        verify_fold_objects(
            state.store,
            state.forest.folds,
            state.transcript.entries,
            state.journal.entry_spans,
            folds,
        )
        for identifier in sorted(evidence or set()):
            state.evidence.verify(identifier)
        return
    state.forest.validate(state.transcript)
    for fold in state.forest.folds.values():
        _check_source(state, fold)
    verify_fold_objects(
        state.store, state.forest.folds, state.transcript.entries, state.journal.entry_spans
    )
    for identifier in sorted(state.evidence_ids):
        state.evidence.verify(identifier)


def _check_source(state: SessionState, fold: Fold) -> None:
    """The fold's digest and length follow from the transcript: for a fold named by its parts
    from the entries' digests and its children's (no entry read back), else from its whole
    source, hashed record by record."""
    entries = state.transcript.entries
    if fold.digest_version == PARTS_DIGEST:
        children = [state.forest.folds[handle] for handle in fold.children]
        live, length = parts_digest(entries, fold.start, fold.end, children)
    else:
        live, length = entries.source_digest(fold.start, fold.end)  # never joined
    if (live, length) != (fold.source_digest, fold.source_bytes):
        raise StoreObjectCorrupt(
            f"fold {fold.handle} does not match its logged source", fold.source_digest
        )


def replay_record(state: SessionState, kind: str, body: dict[str, Any]) -> None:
    """Apply one log record to ``state`` exactly as the live call that wrote it did."""
    if kind == "entry":
        entry = Entry.from_record(body["record"])
        remember_tokens(state.projection.counter, entry.wire_digest, body.get("tokens"))
        state.apply_entry(entry)
        evidence = entry.extra.get("evidence")
        if isinstance(evidence, dict) and isinstance(evidence.get("bytes"), int):
            state.evidence.account(evidence["bytes"])
        if entry.extra.get("pifold") == NOTICE_TAG:
            state.mark_noticed()
        for record in body.get("marks", []):  # the marks this append laid, in one record
            state.add_logged_mark(Mark.from_record(record))
    elif kind == "mark":
        state.add_logged_mark(Mark.from_record(body["mark"]))
    elif kind == "brief":
        state.marks[body["id"]] = with_brief(state.marks[body["id"]], body["text"])
    elif kind == "reboundary":
        mark = state.marks[body["id"]]
        state.marks[mark.id] = Mark(mark.id, "span", body["start"], body["end"], mark.brief)
    elif kind == "unmark":
        del state.marks[body["id"]]
    elif kind == "pin":
        state.pinned.update(state.transcript.index_of[i] for i in body["entries"])
    elif kind == "unpin":
        state.pinned.difference_update(state.transcript.index_of[i] for i in body["entries"])
        state.release_pin_folds()
    elif kind == "ephemeral":
        state.ephemeral[str(body["call"])] = str(body["id"])
    elif kind == "commit":
        _replay_commit(state, body)
    elif kind == "refold":
        state.staged_refolds.add(str(body["fold"]))
    elif kind == "options":
        state.set_options(EngineOptions.from_record(body["options"]))
    elif kind == "usage":
        state.meter.measure(int(body["request"]), int(body["tokens"]))
    elif kind == "prefix":  # the host's fixed prefix changed size (Engine.set_host_prefix)
        state.meter.set_prefix(int(body["tokens"]))
    elif kind == "calibrate":
        state.meter.calibrate(int(body["measured"]), int(body["estimated"]))
    elif kind == "request":
        record = state.audit.observe(state.projection.digests(), state.projection.tokens)
        if body["prefix"] != _logged_prefix(state, body) or (
            body["class"] != record.classification
        ):
            raise StoreObjectCorrupt(
                f"request {body['n']} does not rebuild byte for byte", str(body["prefix"])
            )
        if "floor" in body:  # a threshold commit held back for runway at this request
            state.set_floor(Floor.from_record(body["floor"]))
        at = body.get("at")  # the host's clock, when it passed one (cold-cache commits)
        head = body.get("head")  # the host's prompt head digest, when it passed one
        state.after_request(
            record.number,
            at if isinstance(at, int) else None,
            head if isinstance(head, str) else None,
        )


def _logged_prefix(state: SessionState, body: dict[str, Any]) -> str:
    """The request digest to compare with a logged request record.

    Records carry the wire format they digested. Those written before the wire form
    existed (no ``wire`` field) digested canonical bytes, so they are checked against the
    canonical digests of the same messages.
    """
    if "wire" in body:
        return request_digest(state.audit.previous)
    return request_digest([digest_of(message) for message in state.projection.messages()])


def _replay_commit(state: SessionState, body: dict[str, Any]) -> None:
    remember_counts(state.projection.counter, body.get("counts"))
    for handle in body["refolded"]:
        state.forest.collapse(handle)
        state.staged_refolds.discard(handle)
        state.projection.show_fold(state.forest.folds[handle])
    state.staged_refolds.clear()  # a commit spends every staged refold (Committer.run)
    for index in body.get("pinRestored", []):
        state.projection.clear_view(index)
    opened = body.get("pinOpened", [])
    state.forest.expanded.update(opened)
    for handle in opened:
        parent = state.forest.parent.get(handle)
        if parent is None or (parent not in opened and state.forest.is_visible_open(parent)):
            state.projection.show_fold(state.forest.folds[handle])
    for record in body["folds"]:
        fold = Fold.from_record(fold_from_log(record))  # the placeholder derived when left out
        state.forest.add(fold)
        state.projection.drop_views(fold.start, fold.end)
        state.projection.show_fold(fold)
    for mark_id in [*body["applied"], *body["dropped"]]:
        state.marks.pop(mark_id, None)
    for call_id in body.get("spentPeeks", []):
        peeked = state.ephemeral.pop(call_id)
        index = state.transcript.result_sites[call_id][0]
        if index in body.get("withdrawn", []):
            state.projection.set_view(index, "withdrawn", withdrawn_text(peeked))
    for index in body.get("clipped", []):
        state.projection.set_view(index, "clipped", clipped_text(state.transcript.entries[index]))
    if body.get("expanded"):
        handle = body["expanded"]
        state.forest.expanded.add(handle)
        state.projection.show_fold(state.forest.folds[handle])
    state.settle_commit(body)


__all__ = ["check_restored", "replay_record", "replay_records"]
