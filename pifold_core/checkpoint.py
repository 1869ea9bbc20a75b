"""A verified checkpoint of the engine's derived state, so a long session reopens fast (issue 12).

Reopening replays the whole log (:mod:`pifold_core.restore`): at 50,000 entries that took
27.6 s of CPU. A checkpoint, ``<state>/checkpoint.json``, keeps what that replay rebuilds
(:mod:`pifold_core.checkpoint_state`) as of a record of the log, and names that record
exactly: how many records it covers, how many bytes of the log they fill, and the SHA-256 of
those bytes. A reopen loads it, hashes the log's first bytes against it, and replays only the
records after them. The file is one header line and a body::

    {"pifold-checkpoint": 3, "records": N, "logBytes": B, "logDigest": <sha256 of log[:B]>,
     "counter": <token encoding>, "wire": 1, "bodyBytes": L, "bodyDigest": <sha256 of body>}
    <body: the state, JSON, compressed>

The body is compressed because the state is mostly the folds' briefs, text that zlib
shrinks about fivefold: uncompressed, the checkpoint alone was 0.20x the raw bytes of a
50,000-entry session, which put the state folder over its 1.3x target. Format 3 stores a
raw DEFLATE stream built from pieces compressed once each (:mod:`pifold_core.checkpoint_body`),
so a write re-encodes only what changed since the last; format 2 (one zlib stream) and
format 1 (uncompressed) still read. The digest covers the stored (compressed) bytes, so
damage is found before anything is decompressed.

**Never trusted unverified, never a refusal.** A checkpoint that is missing, torn, corrupt
(its body does not hash to its header), from another log or session, ahead of a truncated
log, or behind an edited one (the log's first ``B`` bytes hash to something else) is not
used: the session is rebuilt from the whole log, exactly as without one, and what was wrong
is kept in :attr:`CheckpointRead.problem` (``engine.view.checkpoint_problem``; ``pifold doctor``
names it). A checkpoint counted with another token encoding is simply not applicable (not
damage). The log stays the truth: a checkpoint only saves replaying it.

**When one is written** (:func:`due`): by a writable engine after a commit once at least
:data:`CHECKPOINT_MIN_RECORDS` records were logged since the last one, and on a clean close
whenever anything was logged since the last one (issue 23), so a session closed cleanly
reopens replaying nothing (``engine.view.reopen`` says so), and one killed replays about
2,000 records past its checkpoint whatever its length. Until issue 23 a write re-encoded
state that grows with the session, so the interval grew with the log (5 % of its records
as well): at 50,000 entries a kill left 4,346 records to replay, and that reopen took
2.2 s of CPU against 1.3 s for the checkpoint alone. Now a write encodes only what changed
(:mod:`pifold_core.checkpoint_body`, 0.1-0.2 s at 50,000 entries on a loaded machine) and
replaying costs about 0.2 ms a record past a checkpoint, so the interval is fixed. Below
2,000 records a checkpoint buys less than it costs, except at a close, where nothing else
is waiting. The write is atomic (temporary file, fsync,
rename, fsync of the folder: :func:`~pifold_core.atomic_files.write_file_atomically`), so a
kill leaves the old checkpoint or the new one, never half of one; a failed write (a full
disk) leaves the old one and changes nothing else.
"""

from __future__ import annotations

import gc
import hashlib
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pifold_core.atomic_files import TEMPORARY_PREFIX, write_file_atomically
from pifold_core.canonical import WIRE_FORMAT_VERSION, CanonicalError, parse_json, wire_bytes
from pifold_core.checkpoint_body import CheckpointBody, inflate
from pifold_core.log_digest import LogDigest

if TYPE_CHECKING:
    from pifold_core.session_state import SessionState

CHECKPOINT_NAME = "checkpoint.json"
"""The checkpoint's file in the state folder."""
CHECKPOINT_FORMAT = 3
"""Layout of the checkpoint file (header and state): 3 joins pieces compressed once each
(raw DEFLATE), 2 compressed the body as one zlib stream, 1 did not compress it."""
READABLE_FORMATS = (1, 2, 3)
"""Checkpoint layouts a reopen reads."""
CHECKPOINT_MODE = 0o600
"""Private to the user, like the log it summarises."""
CHECKPOINT_MIN_RECORDS = 2_000
"""Records logged since the last checkpoint before a commit writes another: below this,
replaying them costs less than writing one, and a reopen after a kill replays about this
many (see the module docstring)."""
_READ_CHUNK = 1 << 22


@dataclass(frozen=True, slots=True)
class CheckpointRead:
    """What reading a session's checkpoint found."""

    state: dict[str, Any] | None
    """The verified state, or ``None`` when there is none to use."""
    records: int = 0
    """Records of the log it covers (the sequence number of the first one to replay)."""
    log_bytes: int = 0
    """Bytes of the log those records fill (where the replay starts)."""
    problem: str | None = None
    """Why a checkpoint that exists was not used because it is damaged or doubtful."""
    written_ns: int = 0
    """When the checkpoint file was written (its mtime, ns): a store object whose file
    changed since is checked at once on reopen
    (:func:`pifold_core.fold_verify.check_object_files`)."""


def due(records_now: int, records_then: int, closing: bool = False) -> bool:
    """Whether enough was logged since the checkpoint of ``records_then`` for a new one:
    after a commit :data:`CHECKPOINT_MIN_RECORDS`, whatever the log's length (what a reopen
    after a kill replays stays bounded); on a clean close any record at all (issue 23: the
    next open is the one waiting, and it should replay nothing)."""
    fresh = records_now - records_then
    if closing:
        return fresh > 0
    return fresh >= CHECKPOINT_MIN_RECORDS


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector held off while a session is put back or checkpointed
    (issue 23).

    An open builds hundreds of thousands of long-lived objects (a checkpoint's JSON, the
    entries' facts, the folds) and no garbage cycle: each time the allocations pass the
    collector's threshold it walks every object of the session again for nothing, which
    was 0.85 of a 2.1 s CPU reopen at 50,000 entries; a checkpoint write allocates enough
    to set it off too. Whatever they leave unreachable is collected at the next pass.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def write_if_due(
    state: SessionState, body: CheckpointBody | None = None, closing: bool = False
) -> None:
    """Write ``state``'s checkpoint when one is :func:`due` (after a commit, on close); one
    that cannot be written is skipped: the log stays the truth, the next try may work.
    ``body`` builds the body, reusing what it built last time (a fresh one when ``None``)."""
    if state.read_only or state.folding_stopped is not None:
        return
    if not due(state.journal.next_sequence, state.checkpoint_records, closing):
        return
    try:
        with collector_paused():
            state.checkpoint_written(write(state, body))
    except OSError:
        return


def write(state: SessionState, body: CheckpointBody | None = None) -> int:
    """Write ``state``'s checkpoint as of its log's end; returns the records it covers
    (``body``: as :func:`write_if_due`).

    Raises:
        OSError: it could not be written (the previous checkpoint, if any, stays).
    """
    state.journal.sync()
    records = state.journal.next_sequence
    log_bytes = state.journal.path.stat().st_size
    built = (body if body is not None else CheckpointBody()).build(state)
    header = {
        "pifold-checkpoint": CHECKPOINT_FORMAT,
        "records": records,
        "logBytes": log_bytes,
        "logDigest": state.log_digest.through(log_bytes),
        "counter": state.projection.counter.name,
        "wire": WIRE_FORMAT_VERSION,
        "bodyBytes": len(built),
        "bodyDigest": hashlib.sha256(built).hexdigest(),
    }
    data = wire_bytes(header) + b"\n" + built
    write_file_atomically(state.state_dir / CHECKPOINT_NAME, data, CHECKPOINT_MODE)
    return records


def _decompress(layout: int, body: bytes) -> bytes:
    """The state's text from a body stored in checkpoint format ``layout``."""
    if layout == 3:
        return inflate(body)
    return zlib.decompress(body) if layout == 2 else body


def read(state_dir: Path, log_path: Path, counter_name: str) -> tuple[CheckpointRead, Any]:
    """Read and verify the checkpoint of ``state_dir`` against its log.

    Returns the verdict, and the SHA-256 object of the log's covered bytes (to go on
    hashing from; ``None`` when the checkpoint is not used). Never raises for a bad
    checkpoint: the verdict says what was wrong.
    """
    path = state_dir / CHECKPOINT_NAME
    try:
        with open(path, "rb") as handle:
            written_ns = os.fstat(handle.fileno()).st_mtime_ns
            data = handle.read()
    except FileNotFoundError:
        return CheckpointRead(None), None
    except OSError as error:
        return CheckpointRead(None, problem=f"{path} cannot be read: {error}"), None
    header, body, problem = _split(path, data)
    if header is None:
        return CheckpointRead(None, problem=problem), None
    if header["counter"] != counter_name or header["wire"] != WIRE_FORMAT_VERSION:
        return CheckpointRead(None), None  # counted another way: not applicable, not damage
    log_bytes, digest = header["logBytes"], header["logDigest"]
    hashed, problem = _hash_log(log_path, log_bytes, digest)
    if problem is not None:
        return CheckpointRead(None, problem=f"{path} does not match the log: {problem}"), None
    try:
        state = parse_json(_decompress(header["pifold-checkpoint"], body))
    except zlib.error:
        return CheckpointRead(None, problem=f"{path}: its state does not decompress"), None
    except (ValueError, CanonicalError):
        return CheckpointRead(None, problem=f"{path}: its state is not JSON"), None
    if not isinstance(state, dict):
        return CheckpointRead(None, problem=f"{path}: its state is not an object"), None
    return CheckpointRead(state, header["records"], log_bytes, written_ns=written_ns), hashed


def remove_temporaries(state_dir: Path) -> list[Path]:
    """Delete what a killed checkpoint write left (its temporary file); only the writer
    holding the session's lock may call it (a live writer's would vanish under it)."""
    removed = sorted(Path(state_dir).glob(f"{TEMPORARY_PREFIX}{CHECKPOINT_NAME}.*"))
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def stored_counter(state_dir: Path) -> str:
    """The token encoding ``state_dir``'s checkpoint says it counted with (``""`` when it
    cannot be read): what lets the doctor check a checkpoint whatever counted it."""
    try:
        with open(state_dir / CHECKPOINT_NAME, "rb") as handle:
            header = parse_json(handle.readline())
    except (OSError, ValueError, CanonicalError):
        return ""
    counter = header.get("counter") if isinstance(header, dict) else None
    return counter if isinstance(counter, str) else ""


def _split(path: Path, data: bytes) -> tuple[dict[str, Any] | None, bytes, str | None]:
    """The verified header and body of a checkpoint file, or what is wrong with it."""
    line, newline, body = data.partition(b"\n")
    try:
        header = parse_json(line) if newline else None
    except (ValueError, CanonicalError):
        header = None
    fields = {"records", "logBytes", "bodyBytes"}
    if (
        not isinstance(header, dict)
        or header.get("pifold-checkpoint") not in READABLE_FORMATS
        or not all(isinstance(header.get(name), int) and header[name] >= 0 for name in fields)
        or not all(isinstance(header.get(name), str) for name in ("logDigest", "bodyDigest"))
    ):
        return None, b"", f"{path} is damaged: its header is unreadable"
    if len(body) != header["bodyBytes"]:
        return (
            None,
            b"",
            (
                f"{path} is damaged: its body holds {len(body):,} bytes, its header says "
                f"{header['bodyBytes']:,} (torn or cut short)"
            ),
        )
    if hashlib.sha256(body).hexdigest() != header["bodyDigest"]:
        return None, b"", f"{path} is damaged: its body does not hash to its header's digest"
    return header, body, None


def _hash_log(log_path: Path, log_bytes: int, expected: str) -> tuple[Any, str | None]:
    """The SHA-256 of the log's first ``log_bytes`` bytes, if it is ``expected``."""
    hashed = hashlib.sha256()
    try:
        with open(log_path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < log_bytes:
                return None, f"the log is shorter than the {log_bytes:,} bytes it covers"
            remaining = log_bytes
            while remaining:
                chunk = handle.read(min(_READ_CHUNK, remaining))
                if not chunk:
                    return None, "the log ended while it was read"
                hashed.update(chunk)
                remaining -= len(chunk)
    except OSError as error:
        return None, f"the log cannot be read: {error}"
    if hashed.hexdigest() != expected:
        return None, (
            f"the log's first {log_bytes:,} bytes are not the ones it was written from "
            "(another session's checkpoint, or the log was edited)"
        )
    return hashed, None


__all__ = [
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_MIN_RECORDS",
    "CHECKPOINT_MODE",
    "CHECKPOINT_NAME",
    "CheckpointRead",
    "LogDigest",
    "collector_paused",
    "due",
    "read",
    "remove_temporaries",
    "stored_counter",
    "write",
    "write_if_due",
]
