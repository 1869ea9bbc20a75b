"""Verifying every fold object of a session once, as a reopen does (issue 12).

Reading each fold whole (:meth:`FoldStore.get`) would re-read a child's parts once for every
level above it. The reopen has something better to check against: the log's entries and
folds, from which each fold's parts follow exactly (:func:`fold_parts`), and whose sources the
reopen has already checked against the folds' digests (:mod:`pifold_core.fold_digest`). So
each fold object is checked on its own, its listing compared with the parts the log implies
(a format-4 listing was checked against its name when read). An ``entry`` part (format 3) names
an entry's line in the log: the listing must name the very line the reopen read that entry
from (:attr:`pifold_core.journal.Journal.entry_spans`), whose checksum the journal verified
and whose record the reopen hashed into the fold's source, so nothing is read twice. A
``leaf`` part (format 2) is its own object, read and hashed once. A fold whose object, leaf
or child is damaged is recorded in ``store.damaged`` with the error that names the damaged
object, exactly as a read would have recorded it; if listing and parts all verify,
reassembling gives the source the log hashes to, byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pifold_core.entries import Entry
from pifold_core.folds import Fold
from pifold_core.journal import LogSpan
from pifold_core.merkle import ListedPart, fold_parts, source_length
from pifold_core.store import FoldStore, StoreError, StoreObjectCorrupt


def verify_fold_objects(
    store: FoldStore,
    folds: Mapping[str, Fold],
    entries: Sequence[Entry],
    spans: Mapping[str, LogSpan] | None = None,
    only: Sequence[Fold] | None = None,
) -> int:
    """Check every fold's object against the log; returns how many objects were read.

    ``spans``: each entry's line in the log, by id, as the reopen read them. ``only``: check
    just these folds (those a reopen from a checkpoint replayed; a child outside them was
    checked when the checkpoint's session was, and is verified again on every read).
    """
    leaves: dict[str, StoreError | None] = {}
    outcome: dict[str, StoreError | None] = {}
    checked = folds.values() if only is None else only
    # Children before parents: a child's span is strictly inside its parent's.
    for fold in sorted(checked, key=lambda fold: (fold.end - fold.start, fold.start)):
        if fold.source_digest in outcome:
            continue  # the same source folded twice is one object
        error = _check_one(store, fold, folds, entries, spans or {}, leaves, outcome)
        outcome[fold.source_digest] = error
        if error is None:
            store.damaged.pop(fold.source_digest, None)
        else:
            store.damaged[fold.source_digest] = error
    return len(outcome) + len(leaves)


def check_object_files(store: FoldStore, folds: Iterable[Fold], changed_since_ns: int) -> None:
    """Name at once the fold objects deleted or changed since a checkpoint was written, the
    others left to be verified on their first read: what a reopen from a checkpoint does for
    the folds the checkpoint held (issue 23).

    Reading every object file (one small read and a listing to parse per fold) cost more
    than the rest of such a reopen: at 50,000 entries, 20,000 reads. Objects are write-once,
    so like git's index this trusts a file's inode times instead: the store's folders are
    listed (one ``scandir`` each) and each object ``lstat``-ed, and only an object that is
    not a plain file there, or whose inode changed at or after ``changed_since_ns`` (the
    checkpoint file's mtime: overwritten, truncated, re-moded since), is read and checked on
    its own (:meth:`~pifold_core.store.FoldStore.own_error`). One found damaged is recorded
    in ``store.damaged`` (status names it); damage the
    times cannot show is still a loud error at the object's first read, which verifies it
    whole."""
    by_folder: dict[str, list[str]] = {}  # the store's fan-out: a folder per two hex digits
    for fold in folds:
        by_folder.setdefault(fold.source_digest[:2], []).append(fold.source_digest)
    for digests in by_folder.values():
        files = _plain_files(store.path_of(digests[0]).parent)
        for digest in digests:
            changed = files.get(digest)
            if changed is not None and changed < changed_since_ns:
                continue
            error = store.own_error(digest)
            if error is not None:
                store.damaged[digest] = error


def _plain_files(folder: Path) -> dict[str, int]:
    """Each plain file of ``folder`` by name, with the time its inode last changed (ns)."""
    files: dict[str, int] = {}
    try:
        with os.scandir(folder) as listing:
            for item in listing:
                if item.is_file(follow_symlinks=False):
                    files[item.name] = item.stat(follow_symlinks=False).st_ctime_ns
    except (FileNotFoundError, NotADirectoryError):
        pass  # no folder: every object it should hold is missing (named by own_error)
    return files


def _check_one(
    store: FoldStore,
    fold: Fold,
    folds: Mapping[str, Fold],
    entries: Sequence[Entry],
    spans: Mapping[str, LogSpan],
    leaves: dict[str, StoreError | None],
    outcome: Mapping[str, StoreError | None],
) -> StoreError | None:
    try:
        listed = store.read_listing(fold.source_digest)
    except StoreError as error:
        return error
    if listed is None:
        return None  # a whole-source object (format 1): read and hashed whole just now
    listing, length = listed
    if any(part.kind == "entry" for part in listing):
        parts = fold_parts(fold, folds, entries, spans)
    else:
        parts = fold_parts(fold, folds, entries)  # format 2: leaves as objects of their own
    expected = [ListedPart(part.kind, part.digest, part.span) for part in parts]
    if listing != expected or length != source_length(parts):
        return StoreObjectCorrupt(
            f"fold store object {fold.source_digest} lists other parts than the log's fold "
            f"{fold.handle} holds",
            fold.source_digest,
        )
    for part in parts:
        if part.kind == "entry":
            continue  # the very line the reopen read and hashed (see the module docstring)
        if part.kind == "leaf" and part.digest not in leaves:
            leaves[part.digest] = store.verify(part.digest)
        found = leaves[part.digest] if part.kind == "leaf" else outcome.get(part.digest)
        if found is not None:
            return found
    return None


__all__ = ["check_object_files", "verify_fold_objects"]
