"""Fault harness, memory writes: a process killed while it writes notes leaves a note folder
that reopens consistent.

Each case forks a child that writes versions of three notes over and over through the memory
store (whole rewrites of seeded sizes up to the note bound: every command of the memory tool
ends in one), and SIGKILLs it at a seeded random moment. Then the folder is read as a new
session would: every note listed must hold exactly one complete version its writer wrote
(the old one or a new one, never a torn mix), no temporary file of an interrupted write may
be listed or readable as a note, and every note file must still be private (0600).
"""

from __future__ import annotations

import os
import random
import signal
import stat
import tempfile
import time
from pathlib import Path

from pifold_agent.memory.store import MAX_NOTE_BYTES, MemoryStore, MemoryStoreError
from tests.fault.tally import FaultTally

NOTES = 3
"""Notes each child writes in turn."""

VERSIONS = 400
"""Versions of each note a child would write if it were never killed."""

QUICK_COUNT = 12
"""Cases ``benchmarks/fault_harness.py --quick`` runs (the pytest test runs as many)."""

FULL_COUNT = 300
"""Cases of the full run."""

LONGEST_WAIT_S = 0.06
"""The kill lands within this long after the child starts (it is still writing then)."""


def version_text(seed: int, note: int, version: int) -> str:
    """The text of one version: its identity first, then seeded padding (up to the bound),
    so a torn mix of two versions can never read as either."""
    rng = random.Random(f"{seed}/{note}/{version}")
    size = rng.randrange(10, MAX_NOTE_BYTES - 200)
    header = f"paths: src/module_{note}.py\n# Note {note}\nversion {version}\n"
    return header + (chr(ord("a") + version % 26) * size) + f"\nend {version}\n"


def path_of(note: int) -> str:
    return f"/memories/notes/note_{note}.md"


def write_forever(store: MemoryStore, seed: int) -> None:
    """The child's work: version after version of every note (killed somewhere in it)."""
    for version in range(1, VERSIONS):
        for note in range(NOTES):
            store.write(path_of(note), version_text(seed, note, version))


def kill_while_writing(store: MemoryStore, seed: int, wait_s: float) -> str | None:
    """Fork a writer, kill it after ``wait_s``; a problem line if it was not killed."""
    pid = os.fork()
    if pid == 0:  # the child: write until killed, never return into the caller's code
        try:
            write_forever(store, seed)
        finally:
            os._exit(0)
    time.sleep(wait_s)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if not os.WIFSIGNALED(status):
        return f"the writer finished before the kill (status {status})"
    return None


def problems_after(store: MemoryStore, seed: int) -> list[str]:
    """What is wrong with the note folder as a new session reads it."""
    found: list[str] = []
    allowed = {
        note: {version_text(seed, note, version) for version in range(VERSIONS)}
        for note in range(NOTES)
    }
    listed = {note.path: note for note in store.notes()}
    for path in listed:
        if path not in {path_of(note) for note in range(NOTES)}:
            found.append(f"{path} is listed as a note (a temporary file?)")
    for note in range(NOTES):
        shown = listed.get(path_of(note))
        if shown is None:
            found.append(f"{path_of(note)} is missing")
        elif shown.text not in allowed[note]:
            found.append(f"{path_of(note)} holds a torn text ({len(shown.text)} characters)")
    for real in store.project.rglob("*"):
        if real.is_file() and real.name.startswith("."):
            try:
                store.read(store.virtual_of(store.project, real))
            except MemoryStoreError:
                continue
            found.append(f"the temporary file {real.name} reads as a note")
        elif real.is_file() and stat.S_IMODE(real.stat().st_mode) != 0o600:
            found.append(f"{real.name} is {oct(stat.S_IMODE(real.stat().st_mode))}, not 0600")
    return found


def run(count: int, seed: int) -> FaultTally:
    """``count`` writers killed at seeded moments, each folder checked as it reopens."""
    tally = FaultTally("memory writes (SIGKILL)")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pifold-memory-") as folder:
        for number in range(count):
            case_seed = rng.randrange(1 << 30)
            root = Path(folder) / f"case-{number}"
            store = MemoryStore(root / "project", root / "user")
            for note in range(NOTES):
                store.write(path_of(note), version_text(case_seed, note, 0))
            wait_s = rng.uniform(0.0, LONGEST_WAIT_S)
            case = f"case {number} (seed {case_seed}, kill after {wait_s * 1000:.1f} ms)"
            tally.tried += 1
            problem = kill_while_writing(store, case_seed, wait_s)
            for what in [problem] if problem else problems_after(store, case_seed):
                tally.fail(case, what)
    return tally


def test_a_writer_killed_mid_note_leaves_every_note_whole() -> None:
    tally = run(QUICK_COUNT, seed=20261203)
    assert tally.tried == QUICK_COUNT
    assert tally.failures == []
