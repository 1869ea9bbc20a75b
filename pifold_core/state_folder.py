"""A session's state folder as files: what is private, what is left over, what is lost.

The folder holds the log (``fold-log.jsonl``), the writer's ``lock``, the fold store
(``store/``), the evidence artifacts (``pi-fold-evidence/``) and the search index
(``search.sqlite3``, derived from the others: rebuilt, and said so, when missing or stale).
Everything in it is the user's transcript in one form or another, so it is private: folders
0700, the log and the lock 0600, store objects and evidence 0400 (read-only as well). A
writable open tightens anything wider (a session written by an older version, or under a
loose umask) and removes the temporary files that a write killed halfway left behind;
``pifold doctor`` reports the same things without changing them.

A log that is missing or holds no record while the store holds objects is not a new session:
it is a lost one, and opening it is refused rather than silently starting afresh over it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pifold_core.journal import LOG_MODE, Journal, JournalCorrupt
from pifold_core.lock import LOCK_MODE, LOCK_NAME
from pifold_core.store import (
    FOLDER_MODE,
    TEMPORARY_PREFIX,
    find_temporaries,
    loose_modes,
    remove_temporaries,
)

LOG_NAME = "fold-log.jsonl"
"""The log's name inside the state folder."""
STORE_NAME = "store"
"""The fold store's folder."""
EVIDENCE_NAME = "pi-fold-evidence"
"""The evidence artifacts' folder."""


def object_roots(state_dir: Path) -> list[Path]:
    """The two folders of content-addressed files: the fold store and the evidence."""
    return [Path(state_dir) / STORE_NAME, Path(state_dir) / EVIDENCE_NAME]


def held_objects(state_dir: Path) -> int:
    """How many stored files (not temporaries) the store and the evidence hold."""
    count = 0
    for root in object_roots(state_dir):
        for _, _, files in os.walk(root, followlinks=False):
            count += sum(1 for name in files if not name.startswith(TEMPORARY_PREFIX))
    return count


def refuse_lost_log(state_dir: Path, journal: Journal, has_records: bool) -> None:
    """Refuse to open a populated state whose log is gone or empty.

    Raises:
        JournalCorrupt: the log is missing or holds no record, yet objects are stored.
    """
    if has_records:
        return
    count = held_objects(state_dir)
    if not count:
        return
    what = "holds no record" if journal.path.exists() else "is missing"
    raise JournalCorrupt(
        f"{journal.path} {what}, but {state_dir} holds {count} stored object(s) of a session: "
        "refusing to start a new session over them. Restore the log, or move the folder "
        f"aside to start afresh (pifold doctor {state_dir} lists what is there)"
    )


def _private_files(state_dir: Path) -> list[tuple[Path, int]]:
    """The folder itself and its two private files, with the mode each must have."""
    folder = Path(state_dir)
    wanted = [(folder / LOG_NAME, LOG_MODE), (folder / LOCK_NAME, LOCK_MODE)]
    try:
        owned = folder.lstat().st_uid == os.getuid()
    except FileNotFoundError:
        owned = False
    # A folder someone else owns (``--state /tmp``, say) is not ours to change.
    return [(folder, FOLDER_MODE), *wanted] if owned else wanted


def loose_state_modes(state_dir: Path) -> list[tuple[Path, int, int]]:
    """Every path of the state wider (or other) than its mode: ``(path, now, wanted)``."""
    found: list[tuple[Path, int, int]] = []
    for path, wanted in _private_files(state_dir):
        try:
            status = path.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(status.st_mode):
            continue  # never follow a link out of the state folder
        mode = stat.S_IMODE(status.st_mode)
        if mode != wanted:
            found.append((path, mode, wanted))
    for root in object_roots(state_dir):
        if root.is_dir() and not root.is_symlink():
            found.extend(loose_modes(root))
    return found


def tighten_state_modes(state_dir: Path) -> list[tuple[Path, int, int]]:
    """Set every loose mode of the state to its wanted one; returns what was changed."""
    changed = loose_state_modes(state_dir)
    for path, _, wanted in changed:
        os.chmod(path, wanted, follow_symlinks=False)
    return changed


def state_temporaries(state_dir: Path) -> list[Path]:
    """Temporary files killed writes left in the store and the evidence (nothing changed)."""
    return [path for root in object_roots(state_dir) for path in find_temporaries(root)]


def prepare_state(state_dir: Path) -> None:
    """What a writer does on taking a session over: remove leftovers, tighten modes.

    Only the holder of the session's lock may call it (a live writer's temporary file would
    otherwise vanish under it).
    """
    for root in object_roots(state_dir):
        remove_temporaries(root)
    tighten_state_modes(state_dir)


__all__ = [
    "EVIDENCE_NAME",
    "LOG_NAME",
    "STORE_NAME",
    "held_objects",
    "loose_state_modes",
    "object_roots",
    "prepare_state",
    "refuse_lost_log",
    "state_temporaries",
    "tighten_state_modes",
]
