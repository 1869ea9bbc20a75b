"""Rebuilding an engine from its log (DESIGN §8 "Restart").

Every state change the engine makes is logged before it is applied. Reopening replays the
records in order through the same code paths the live calls used (appending an entry,
landing a commit's recorded folds, views and pins), never through the policy, so the
rebuilt projection is byte for byte the one that was sent, and every logged request is
checked against it. It goes through the engine's public replay interface
(:meth:`~pifold_core.engine.Engine.apply_entry`, ``set_options``, ``after_request``,
``declare_rewrite``, ``release_pin_folds``, ``progress_key`` and the attributes they keep),
which the live verbs call after logging, so the bookkeeping is exactly the live calls'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pifold_core.audit import request_digest
from pifold_core.canonical import digest_of
from pifold_core.entries import Entry
from pifold_core.fold_verify import verify_fold_objects
from pifold_core.folds import Fold
from pifold_core.journal import fold_from_log
from pifold_core.mark_edits import with_brief
from pifold_core.marks import Mark
from pifold_core.notice import NOTICE_TAG
from pifold_core.options import EngineOptions
from pifold_core.runway import Floor
from pifold_core.status import CommitView
from pifold_core.store import StoreObjectCorrupt
from pifold_core.tokens import remember_tokens
from pifold_core.views import clipped_text, withdrawn_text

if TYPE_CHECKING:
    from pifold_core.engine import Engine


def replay_records(engine: Engine, records: list[tuple[str, dict[str, Any]]]) -> None:
    """Replay log records into ``engine`` (:func:`replay_record` each), marking it
    :attr:`~pifold_core.engine.Engine.restoring` meanwhile so appends lay no marks."""
    engine.restoring = True
    try:
        for kind, body in records:
            replay_record(engine, kind, body)
    finally:
        engine.restoring = False


def check_restored(
    engine: Engine, folds: Sequence[Fold] | None = None, evidence: set[str] | None = None
) -> None:
    """The rebuilt forest obeys every rule and every fold matches its logged source.

    Every store object and evidence artifact is then read and hash-verified. One that is
    missing or damaged does not stop the session: it is remembered (``status().damaged``
    names it) and touching it raises, while every other fold stays usable.

    After a checkpoint (:mod:`pifold_core.opening`) only what the replayed records added is
    checked: ``folds`` (its new folds) and ``evidence`` (its new artifacts); the rest was
    checked when the checkpoint's session was rebuilt or made, and is verified on every read.
    """
    if folds is not None:
        engine.forest.validate_folds(folds, engine.transcript)
        for fold in folds:
            _check_source(engine, fold)
            engine.store.verify(fold.source_digest)  # a damaged one is remembered, not raised
        for identifier in sorted(evidence or set()):
            engine.evidence.verify(identifier)
        return
    engine.forest.validate(engine.transcript)
    for fold in engine.forest.folds.values():
        _check_source(engine, fold)
    verify_fold_objects(
        engine.store, engine.forest.folds, engine.transcript.entries, engine.journal.entry_spans
    )
    for identifier in sorted(engine.evidence_ids):
        engine.evidence.verify(identifier)


def _check_source(engine: Engine, fold: Fold) -> None:
    live, _ = engine.transcript.entries.source_digest(fold.start, fold.end)  # never joined
    if live != fold.source_digest:
        raise StoreObjectCorrupt(
            f"fold {fold.handle} does not match its logged source", fold.source_digest
        )


def replay_record(engine: Engine, kind: str, body: dict[str, Any]) -> None:
    """Apply one log record to ``engine`` exactly as the live call that wrote it did."""
    if kind == "entry":
        entry = Entry.from_record(body["record"])
        remember_tokens(engine.projection.counter, entry.wire_digest, body.get("tokens"))
        engine.apply_entry(entry)
        evidence = entry.extra.get("evidence")
        if isinstance(evidence, dict) and isinstance(evidence.get("bytes"), int):
            engine.evidence.used_bytes += evidence["bytes"]
        if entry.extra.get("pifold") == NOTICE_TAG:
            engine.noticed = True
        for record in body.get("marks", []):  # the marks this append laid, in one record
            mark = Mark.from_record(record)
            engine.marks[mark.id] = mark
            engine.mark_count += 1
    elif kind == "mark":
        mark = Mark.from_record(body["mark"])
        engine.marks[mark.id] = mark
        engine.mark_count += 1
    elif kind == "brief":
        engine.marks[body["id"]] = with_brief(engine.marks[body["id"]], body["text"])
    elif kind == "reboundary":
        mark = engine.marks[body["id"]]
        engine.marks[mark.id] = Mark(mark.id, "span", body["start"], body["end"], mark.brief)
    elif kind == "unmark":
        del engine.marks[body["id"]]
    elif kind == "pin":
        engine.pinned.update(engine.transcript.index_of[i] for i in body["entries"])
    elif kind == "unpin":
        engine.pinned.difference_update(engine.transcript.index_of[i] for i in body["entries"])
        engine.release_pin_folds()
    elif kind == "ephemeral":
        engine.ephemeral[str(body["call"])] = str(body["id"])
    elif kind == "commit":
        _replay_commit(engine, body)
    elif kind == "refold":
        engine.staged_refolds.add(str(body["fold"]))
    elif kind == "options":
        engine.set_options(EngineOptions.from_record(body["options"]))
    elif kind == "usage":
        engine.meter.measure(int(body["request"]), int(body["tokens"]))
    elif kind == "calibrate":
        engine.meter.calibrate(int(body["measured"]), int(body["estimated"]))
    elif kind == "request":
        record = engine.audit.observe(engine.projection.digests(), engine.projection.tokens)
        if body["prefix"] != _logged_prefix(engine, body) or (
            body["class"] != record.classification
        ):
            raise StoreObjectCorrupt(
                f"request {body['n']} does not rebuild byte for byte", str(body["prefix"])
            )
        if "floor" in body:  # a threshold commit held back for runway at this request
            engine.floor = Floor.from_record(body["floor"])
        at = body.get("at")  # the host's clock, when it passed one (cold-cache commits)
        head = body.get("head")  # the host's prompt head digest, when it passed one
        engine.after_request(
            record.number,
            at if isinstance(at, int) else None,
            head if isinstance(head, str) else None,
        )


def _logged_prefix(engine: Engine, body: dict[str, Any]) -> str:
    """The request digest to compare with a logged request record.

    Records carry the wire format they digested. Those written before the wire form
    existed (no ``wire`` field) digested canonical bytes, so they are checked against the
    canonical digests of the same messages.
    """
    if "wire" in body:
        return request_digest(engine.audit.previous)
    return request_digest([digest_of(message) for message in engine.projection.messages()])


def _replay_commit(engine: Engine, body: dict[str, Any]) -> None:
    for handle in body["refolded"]:
        engine.forest.collapse(handle)
        engine.staged_refolds.discard(handle)
        engine.projection.show_fold(engine.forest.folds[handle])
    engine.staged_refolds.clear()  # a commit spends every staged refold (Committer.run)
    for index in body.get("pinRestored", []):
        engine.projection.clear_view(index)
    opened = body.get("pinOpened", [])
    engine.forest.expanded.update(opened)
    for handle in opened:
        parent = engine.forest.parent.get(handle)
        if parent is None or (parent not in opened and engine.forest.is_visible_open(parent)):
            engine.projection.show_fold(engine.forest.folds[handle])
    for record in body["folds"]:
        fold = Fold.from_record(fold_from_log(record))  # the placeholder derived when left out
        engine.forest.add(fold)
        engine.projection.drop_views(fold.start, fold.end)
        engine.projection.show_fold(fold)
    for mark_id in [*body["applied"], *body["dropped"]]:
        engine.marks.pop(mark_id, None)
    for call_id in body.get("spentPeeks", []):
        peeked = engine.ephemeral.pop(call_id)
        index = engine.transcript.result_sites[call_id][0]
        if index in body.get("withdrawn", []):
            engine.projection.set_view(index, "withdrawn", withdrawn_text(peeked))
    for index in body.get("clipped", []):
        engine.projection.set_view(index, "clipped", clipped_text(engine.transcript.entries[index]))
    if body.get("expanded"):
        handle = body["expanded"]
        engine.forest.expanded.add(handle)
        engine.projection.show_fold(engine.forest.folds[handle])
    settle_commit(engine, body)


def settle_commit(engine: Engine, body: dict[str, Any]) -> None:
    """The engine's bookkeeping after a commit, from its log record alone.

    The live commit and the reopen both call this with the same record, so counters, the
    pins' opened folds, the last commit's view, the rewrite declaration and the stall can
    never drift apart between a running session and a restarted one.
    """
    opened = body.get("pinOpened", [])
    engine.commit_count = int(body["n"])
    engine.clipped_total += len(body.get("clipped", []))
    # Refolds land before pins within a commit: a fold refolded and reopened stays open.
    engine.pin_opened.difference_update(body["refolded"])
    engine.pin_opened.update(opened)
    engine.last_commit = CommitView(
        number=int(body["n"]),
        cause=str(body["cause"]),
        tokens_before=int(body.get("tokensBefore", 0)),  # absent from logs before 2026-11-30
        tokens_after=int(body.get("tokensAfter", 0)),
        folds_made=len(body["folds"]),
        marks_applied=len(body["applied"]),
        clipped=len(body.get("clipped", [])),
        withdrawn=len(body.get("withdrawn", [])),
        pins_landed=len(opened),
        short_reason=body.get("shortReason"),
        request=engine.audit.counts.requests + 1,
        entries=len(engine.transcript),
        newest_timestamp_ms=engine.transcript.entries[-1].timestamp_ms
        if len(engine.transcript)
        else None,
    )
    engine.commit_history.append(engine.last_commit)
    engine.noticed = False
    changed = body.get("expanded") or any(
        body.get(key)
        for key in ("folds", "refolded", "pinOpened", "pinRestored", "withdrawn", "clipped")
    )
    if changed:
        # A commit that found nothing to change sent no rewrite: the reading stays valid.
        engine.declare_rewrite(f"commit {body['n']} ({body['cause']})")
    if body["cause"] == "threshold" and body.get("short"):
        engine.stalled_at = engine.progress_key()  # not retried until something changes
        engine.stalled_reason = body.get("shortReason")
    elif body["cause"] == "threshold":
        engine.stalled_reason = None  # a threshold commit that reached its target clears it
    if body["cause"] == "threshold":
        engine.floor = None  # it landed: no floor holds it back any more
