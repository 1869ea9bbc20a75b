"""``pifold doctor``: what is damaged in a session's state, and the repairs that are safe.

:func:`examine` only reads (the log read-only, the lock only looked at): damaged log lines
(and the entries they held, whose only copy was the log: :mod:`pifold_core.log_damage`), a
torn last line, a lost log over a populated store, missing, corrupt and foreign store objects,
evidence artifacts, temporary files that killed writes left, modes wider than the private
ones, and who holds the writer's lock.

:func:`repair` takes the writer's lock (so it refuses a session that is open) and repairs
what can be repaired without trusting anything unverified: a fold's store object that is
missing or corrupt is rebuilt from the entries in the log, and written only when the
rebuilt bytes hash to the digest the log recorded for that fold; whatever stood in its place
is moved to ``<state>/damaged/``, never deleted. A torn last line is cut (as the next
writable open would), temporaries are removed and modes tightened. Evidence holds the whole
original of a result the log keeps only a preview of, so a damaged artifact cannot be
rebuilt: it is reported and stays damaged.

The checkpoint (:mod:`pifold_core.checkpoint`) is examined on its own: the session is always
rebuilt from the whole log here (a checkpoint is never what the doctor trusts), and a
checkpoint that is torn, corrupt or does not match the log is reported; ``--repair`` moves it
to ``<state>/damaged/`` (the next writer writes a fresh one; nothing is lost, since the log
holds everything it summarised).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pifold_core import checkpoint
from pifold_core.folds import Fold
from pifold_core.journal import Journal, JournalCorrupt, TornTail
from pifold_core.lock import LockHeld, LockHolder, SessionLock, current_holder, describe_holder
from pifold_core.log_damage import lost_entries
from pifold_core.merkle import FoldPart, fold_parts
from pifold_core.opening import open_session, open_state
from pifold_core.reporting import damaged_objects
from pifold_core.session_state import SessionState
from pifold_core.state_folder import (
    LOG_NAME,
    held_objects,
    loose_state_modes,
    object_roots,
    state_temporaries,
    tighten_state_modes,
)
from pifold_core.store import FoldStore, StoreError, make_private_folder, remove_temporaries

QUARANTINE_NAME = "damaged"
"""Where a repair moves what stood in place of a rebuilt object."""

FindingKind = Literal[
    "log",
    "torn-tail",
    "lost-log",
    "entry-lost",
    "store-missing",
    "store-corrupt",
    "store-foreign",
    "store-unreferenced",
    "evidence-missing",
    "evidence-corrupt",
    "temporary",
    "mode",
    "checkpoint",
]


class DoctorError(Exception):
    """The doctor cannot run: not a state folder, or a repair of a session that is open."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing found in the state."""

    kind: FindingKind
    """What sort of problem it is."""
    subject: str
    """What it concerns: a log line, a fold handle, an evidence id or a path."""
    detail: str
    """What is wrong, in a sentence."""
    repairable: bool
    """Whether ``--repair`` can fix it."""
    damage: bool = True
    """Whether it counts as damage (an unreferenced object left by a crash does not)."""


@dataclass(frozen=True, slots=True)
class DoctorReport:
    """What :func:`examine` found."""

    state_dir: Path
    """The folder examined."""
    findings: tuple[Finding, ...]
    """Everything found, damage and notes alike."""
    holder: LockHolder | None
    """Who holds the writer's lock, or ``None`` when the session is not open."""
    entries: int = 0
    """Entries the log rebuilt (0 when it could not be read)."""
    folds: int = 0
    """Folds whose store objects were verified."""
    evidence: int = 0
    """Evidence artifacts verified."""

    @property
    def damage(self) -> tuple[Finding, ...]:
        """The findings that are damage."""
        return tuple(finding for finding in self.findings if finding.damage)

    @property
    def healthy(self) -> bool:
        """No damage found."""
        return not self.damage


@dataclass(slots=True)
class RepairReport:
    """What :func:`repair` did, and what the state looks like afterwards."""

    actions: list[str] = field(default_factory=list)
    """One line per repair made."""
    after: DoctorReport | None = None
    """A fresh examination after the repairs."""


def examine(state_dir: Path) -> DoctorReport:
    """Everything wrong with ``state_dir``, found without writing anything.

    Raises:
        DoctorError: ``state_dir`` is not a folder.
    """
    folder = _state_folder(state_dir)
    findings: list[Finding] = []
    holder = current_holder(folder)
    journal = Journal(folder / LOG_NAME, read_only=True)
    try:
        records = list(journal.read_all())
    except JournalCorrupt as error:
        findings.append(Finding("log", _line_of(error), str(error), repairable=False))
        for lost in lost_entries(journal.path, FoldStore(folder / "store", journal.path)):
            subject = f"line {lost.line_number}"
            findings.append(Finding("entry-lost", subject, lost.describe(), repairable=False))
        records = []
    else:
        if journal.torn is not None:
            findings.append(_torn_finding(journal.torn))
        elif journal.unfinished is not None and holder is None:
            # No writer holds the session, so nobody is finishing this line: it is torn.
            findings.append(_torn_finding(journal.unfinished))
        if not records and held_objects(folder):
            what = "holds no record" if journal.path.exists() else "is missing"
            findings.append(
                Finding(
                    "lost-log",
                    LOG_NAME,
                    f"the log {what} but the store holds {held_objects(folder)} object(s)",
                    repairable=False,
                )
            )
    verified = _examine_session(folder, findings) if records else (0, 0, 0)
    problem = _checkpoint_problem(folder)
    if problem is not None:
        findings.append(Finding("checkpoint", checkpoint.CHECKPOINT_NAME, problem, True))
    for path in state_temporaries(folder):
        findings.append(
            Finding("temporary", str(path), "left by a write that was killed", repairable=True)
        )
    for path, mode, wanted in loose_state_modes(folder):
        findings.append(
            Finding("mode", str(path), f"mode {mode:04o}, should be {wanted:04o}", True)
        )
    entries, folds, evidence = verified
    return DoctorReport(folder, tuple(findings), holder, entries, folds, evidence)


def _examine_session(folder: Path, findings: list[Finding]) -> tuple[int, int, int]:
    """Rebuild the session read-only and check its objects; returns what was verified."""
    try:
        # From the whole log, the checkpoint left out: every object is checked against it.
        state = open_state(folder, None, None, True, None, use_checkpoint=False)
    except (ValueError, RuntimeError, LookupError, TypeError) as error:
        # The log reads line by line but does not rebuild a consistent session.
        findings.append(Finding("log", LOG_NAME, f"does not rebuild: {error}", False))
        return 0, 0, 0
    try:
        for item in damaged_objects(state):
            kind: FindingKind
            if item.kind == "fold":
                kind = "store-missing" if item.problem == "missing" else "store-corrupt"
                findings.append(Finding(kind, item.id, item.message, repairable=True))
            else:
                kind = "evidence-missing" if item.problem == "missing" else "evidence-corrupt"
                findings.append(Finding(kind, item.id, item.message, repairable=False))
        referenced = referenced_objects(state)
        for path, digest in state.store.object_paths():
            if digest is None:
                findings.append(
                    Finding("store-foreign", str(path), "not a store object's place", False)
                )
            elif digest not in referenced:
                findings.append(
                    Finding(
                        "store-unreferenced",
                        digest,
                        "no fold in the log refers to it (a commit that never landed)",
                        repairable=False,
                        damage=False,
                    )
                )
        return (
            len(state.transcript),
            len({fold.source_digest for fold in state.forest.folds.values()}),
            len(state.evidence_ids),
        )
    finally:
        state.journal.close()


def repair(state_dir: Path) -> RepairReport:
    """Repair what can be repaired in ``state_dir`` (see the module docstring).

    Raises:
        DoctorError: not a folder, or the session is open for writing (its lock is held).
    """
    folder = _state_folder(state_dir)
    try:
        lock = SessionLock.acquire(folder)
    except LockHeld as error:
        raise DoctorError(
            f"{folder} is open for writing by {error.holder.describe()}: close it before "
            "repairing (pifold doctor without --repair only looks)"
        ) from None
    report = RepairReport()
    try:
        journal = Journal(folder / LOG_NAME)
        try:
            records = list(journal.read_all())  # a writable read cuts a torn last line
        except JournalCorrupt:
            records = []  # nothing to rebuild objects from; the damage stays reported
        if journal.torn is not None:
            report.actions.append(f"cut the torn last line of the log, {journal.torn.describe()}")
        for root in object_roots(folder):
            for path in remove_temporaries(root):
                report.actions.append(f"removed temporary {path}")
        if records:
            report.actions.extend(_rebuild_objects(folder))
        if _checkpoint_problem(folder) is not None:
            report.actions.append(_set_checkpoint_aside(folder))
        for path, mode, wanted in tighten_state_modes(folder):
            report.actions.append(f"set {path} to mode {wanted:04o} (was {mode:04o})")
    finally:
        lock.release()
    report.after = examine(folder)
    return report


def referenced_objects(state: SessionState) -> set[str]:
    """Every store object the log's folds need: their own objects and their leaves."""
    referenced: set[str] = set()
    for fold in state.forest.folds.values():
        referenced.add(fold.source_digest)
        for part in fold_parts(fold, state.forest.folds, state.transcript.entries):
            referenced.add(part.digest)
    return referenced


def _rebuild_objects(folder: Path) -> list[str]:
    """Rewrite every damaged fold object and leaf from the log's entries, verified first.

    Children before parents: a fold object is read back whole after its rewrite, which needs
    its children sound.
    """
    actions: list[str] = []
    try:
        state = open_session(folder, None, None, True, True)  # we hold the lock: nobody writes
    except (ValueError, RuntimeError):
        return actions
    quarantine = folder / QUARANTINE_NAME
    try:
        for fold in reversed(state.forest.in_order()):
            if fold.source_digest not in state.store.damaged:
                continue
            parts = fold_parts(
                fold, state.forest.folds, state.transcript.entries, state.journal.entry_spans
            )
            try:
                actions.extend(_rebuild_fold(state, fold, parts, quarantine))
            except (StoreError, OSError) as error:
                actions.append(f"could not rebuild the object of fold {fold.handle}: {error}")
    finally:
        state.journal.close()
    return actions


def _rebuild_fold(
    state: SessionState, fold: Fold, parts: list[FoldPart], quarantine: Path
) -> list[str]:
    """Rebuild one damaged fold: an older object's damaged leaves from the log's entries
    when its own file is sound, else the object itself, listing the entries' log lines.
    Raises StoreError when a part cannot be rebuilt (the log's own bytes of it are damaged).
    """
    actions, store, digest = [], state.store, fold.source_digest
    listed = store.read_listing(digest) if store.own_error(digest) is None else None
    payloads = {part.digest: part.payload for part in parts if part.payload is not None}
    for part in listed[0] if listed is not None else []:
        payload = payloads.get(part.digest)
        if part.kind != "leaf" or payload is None or store.own_error(part.digest) is None:
            continue
        moved = store.rewrite(payload, part.digest, quarantine)
        actions.append(
            f"rebuilt leaf {part.digest} of fold {fold.handle} from the log's entry, "
            f"verified against its digest{_aside(moved)}"
        )
    if store.verify(digest) is None:
        return actions  # its own file and every part are sound (again)
    moved = store.rewrite_fold(digest, parts, quarantine)
    actions.append(
        f"rebuilt the store object of fold {fold.handle} ({digest}) from the log's entries, "
        f"verified against its digest{_aside(moved)}"
    )
    return actions


def _checkpoint_problem(folder: Path) -> str | None:
    """What is wrong with the session's checkpoint, if it is damaged or doubtful."""
    found, _ = checkpoint.read(folder, folder / LOG_NAME, checkpoint.stored_counter(folder))
    return found.problem


def _set_checkpoint_aside(folder: Path) -> str:
    quarantine = folder / QUARANTINE_NAME
    make_private_folder(quarantine)
    moved = quarantine / f"{checkpoint.CHECKPOINT_NAME}.{os.getpid()}.{len(os.listdir(quarantine))}"
    os.replace(folder / checkpoint.CHECKPOINT_NAME, moved)
    return f"moved the damaged checkpoint to {moved} (the next writer writes a fresh one)"


def _aside(moved: Path | None) -> str:
    return f"; what stood there is now {moved}" if moved is not None else ""


def _state_folder(state_dir: Path) -> Path:
    folder = Path(state_dir)
    if not folder.is_dir():
        raise DoctorError(f"{folder} is not a folder (give a session's state folder)")
    if not (folder / LOG_NAME).exists() and not held_objects(folder):
        raise DoctorError(f"{folder} holds no pifold session (no {LOG_NAME}, no store)")
    return folder


def _torn_finding(torn: TornTail) -> Finding:
    return Finding(
        "torn-tail",
        f"line {torn.line_number}",
        f"the last line of the log is damaged ({torn.byte_count:,} bytes): a torn write, "
        "cut on the next writable open",
        repairable=True,
    )


def _line_of(error: JournalCorrupt) -> str:
    """``line N`` from a :class:`JournalCorrupt` message (the log when it names none)."""
    words = str(error).split()
    for index, word in enumerate(words[:-1]):
        if word == "line" and words[index + 1].isdigit():
            return f"line {words[index + 1]}"
    return LOG_NAME


__all__ = [
    "QUARANTINE_NAME",
    "DoctorError",
    "DoctorReport",
    "Finding",
    "RepairReport",
    "describe_holder",
    "examine",
    "repair",
]
