"""Fault harness, corruption: damaged store objects, evidence and log lines (issues 9, 12).

A real session (the codex trace replayed at a budget of 30,000, so it commits about twenty
times and keeps evidence artifacts) is copied once per case and one thing in the copy is
damaged: a bit flipped in, a truncation of, or the deletion of a random fold object (which
lists its entries by their lines in the log), evidence artifact or log line, a fold object
replaced by a folder, the whole log deleted or emptied, or the line of an entry a fold lists
(its only copy: a bit flipped, or a run of bytes zeroed as a failing disk does). Leaf cases
damage a leaf object (one entry's bytes, which format-2 fold objects list by digest) in a
copy converted to the layout versions before issue 12's second wave wrote, so old sessions
are held to the same promises. The promises checked:

* every case is detected on read (the open, or a peek of what is damaged), and the error or
  the status names the object or the line; no read ever returns wrong bytes;
* one damaged store object or artifact leaves every other fold usable and verified; the
  folds that need it (through their listing, or their children's) fail naming it;
* ``pifold doctor`` reports the damage by name, changing nothing;
* where the damage is repairable (a store object, a torn last line), ``doctor --repair``
  fixes it and every fold of the reopened session then verifies byte for byte; where it
  is not (evidence, a line in the middle of the log), the doctor says damage remains;
* a damaged entry line is named by its line number, and the doctor says exactly which entry
  is lost (the digest its fold lists) and every fold that cannot be read without it.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pifold_agent.replay import replay_trace
from pifold_core.checkpoint import CHECKPOINT_NAME
from pifold_core.doctor import examine, repair
from pifold_core.engine import Engine
from pifold_core.fold_digest import SOURCE_DIGEST
from pifold_core.folds import source_of
from pifold_core.journal import JournalCorrupt
from pifold_core.merkle import encode_listing, fold_parts, listing_digest, source_length
from pifold_core.store import FoldStore, StoreError, StoreObjectCorrupt, StoreObjectMissing
from tests.conftest import TRACES as BUNDLED
from tests.fault.tally import FaultTally

TRACE = BUNDLED / "codex-soulpass" / "codex-session.jsonl"
BUDGET = 30_000
"""Small enough for many commits, so the store holds dozens of objects."""

FAULTS = (
    "store-flip",
    "store-truncate",
    "store-delete",
    "store-folder",
    "leaf-flip",
    "leaf-truncate",
    "leaf-delete",
    "evidence-flip",
    "evidence-truncate",
    "evidence-delete",
    "log-flip",
    "log-truncate",
    "log-delete-line",
    "log-delete",
    "log-empty",
    "entry-flip",
    "entry-zero",
)
"""Every case is one of these; :func:`run` cycles through them so each count covers all."""


@dataclass(frozen=True)
class Baseline:
    """The undamaged session, as a reopen rebuilds it."""

    state: Path
    """The replayed state folder (never modified: each case works on a copy)."""
    sources: dict[str, bytes]
    """Every fold's exact source, by handle."""
    digests: dict[str, str]
    """Every fold's store digest, by handle."""
    evidence: tuple[str, ...]
    """Every evidence id the entries point at."""
    records: tuple[bytes, ...]
    """Every entry's record bytes, in order."""
    needs: dict[str, frozenset[str]]
    """Every store object reading a fold goes through (its own, its leaves, its children's),
    by handle."""
    leaves: tuple[str, ...]
    """Every leaf object's digest (in the legacy copy)."""
    legacy: Path
    """The same session with its fold objects in format 2 and a leaf object per folded
    entry, as versions before the log held the leaves stored it."""
    entry_lines: tuple[tuple[int, str], ...]
    """Every folded entry's line number in the log, with its record digest."""


@cache
def baseline() -> Baseline:
    """Replay the trace once per process into a temporary folder."""
    state = Path(tempfile.mkdtemp(prefix="pifold-corruption-")) / "state"
    replay_trace(TRACE, BUDGET, state_dir=state)
    # The whole-log reopen is what names every damaged object with the folds above it; the
    # checkpoint the replay's close wrote would start a reopen past them (checkpoint damage
    # has its own harness, test_checkpoint_crash).
    (state / CHECKPOINT_NAME).unlink()
    engine = Engine.open(state, read_only=True)
    try:
        folds = engine.view.forest.folds.values()
        needs: dict[str, frozenset[str]] = {}
        for fold in sorted(folds, key=lambda fold: fold.end - fold.start):  # children first
            parts = fold_parts(fold, engine.view.forest.folds, engine.view.transcript.entries)
            needed = {fold.source_digest, *(part.digest for part in parts)}
            for child in fold.children:
                needed |= needs[child]
            needs[fold.handle] = frozenset(needed)
        digests = {fold.source_digest for fold in folds}
        folded = {
            entry.id: entry.digest
            for fold in folds
            for entry in engine.view.transcript.entries[fold.start : fold.end]
        }
        log = (state / "fold-log.jsonl").read_bytes()
        spans = engine._state.journal.entry_spans
        entry_lines = tuple(
            sorted(
                (log.count(b"\n", 0, spans[i].offset) + 1, digest) for i, digest in folded.items()
            )
        )
        return Baseline(
            state=state,
            sources={
                fold.handle: source_of(engine.view.transcript.entries[fold.start : fold.end])
                for fold in folds
            },
            digests={fold.handle: fold.source_digest for fold in folds},
            evidence=tuple(sorted(engine.view.evidence_ids)),
            records=tuple(entry.record_bytes for entry in engine.view.transcript.entries),
            needs=needs,
            leaves=tuple(sorted(set().union(*needs.values()) - digests)),
            legacy=_legacy_copy(engine),
            entry_lines=entry_lines,
        )
    finally:
        engine.close()


def _legacy_copy(engine: Engine) -> Path:
    """A copy of the session in the older layout: each fold object in format 2, listing a
    leaf object per entry of its own (written here as those versions wrote them)."""
    legacy = engine.state_dir.parent / "legacy"
    shutil.copytree(engine.state_dir, legacy)
    store = FoldStore(legacy / "store")
    for fold in engine.view.forest.folds.values():
        parts = fold_parts(fold, engine.view.forest.folds, engine.view.transcript.entries)
        for part in parts:
            if part.kind == "leaf" and part.payload is not None:
                store.put(part.payload)
        listing = encode_listing(parts)
        # Format 2 for a fold named by its whole source; one named by its parts (issue 23)
        # lists leaves in format 4, as the engine does for an entry whose line it lacks.
        version = 2 if fold.digest_version == SOURCE_DIGEST else 4
        header = (
            f"pifold-object format={version} hash=sha256 bytes={source_length(parts)} "
            f"listing={listing_digest(listing)}\n"
        ).encode("ascii")
        path = store.path_of(fold.source_digest)
        _writable(path)
        path.write_bytes(header + listing)
        os.chmod(path, 0o400)
    return legacy


def _writable(path: Path) -> None:
    os.chmod(path, 0o600)


def _damage_file(path: Path, how: str, rng: random.Random) -> None:
    _writable(path)
    data = bytearray(path.read_bytes())
    if how == "flip":
        position = rng.randrange(len(data))
        data[position] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
    elif how == "truncate":
        path.write_bytes(bytes(data[: rng.randrange(len(data))]))
    elif how == "delete":
        path.unlink()
    else:
        path.unlink()
        path.mkdir()


def _verify_folds(engine: Engine, base: Baseline, skip: set[str]) -> list[str]:
    """Peek every fold not in ``skip``; what did not come back exactly."""
    wrong = []
    for handle, expected in base.sources.items():
        if handle in skip:
            continue
        result = engine.peek(handle)
        if result.data != expected or not result.complete:
            wrong.append(handle)
    return wrong


def _store_case(case: Path, how: str, rng: random.Random, base: Baseline, fail: Failer) -> None:
    _object_case(case, how, rng.choice(sorted(set(base.digests.values()))), rng, base, fail)


def _leaf_case(case: Path, how: str, rng: random.Random, base: Baseline, fail: Failer) -> None:
    """A leaf object of the older layout (``case`` is a copy of :attr:`Baseline.legacy`)."""
    if not base.leaves:
        fail("the legacy copy holds no leaf objects (fold objects are not Merkle nodes)")
        return
    _object_case(case, how, rng.choice(base.leaves), rng, base, fail)


def _entry_case(case: Path, how: str, rng: random.Random, base: Baseline, fail: Failer) -> None:
    """A folded entry's line damaged in the log, its only copy: the open fails naming the
    line, and the doctor names the entry lost and every fold that needs it."""
    number, digest = rng.choice(base.entry_lines)
    log = case / "fold-log.jsonl"
    _writable(log)
    data = bytearray(log.read_bytes())
    start = sum(len(line) + 1 for line in bytes(data).split(b"\n")[: number - 1])
    length = bytes(data).index(b"\n", start) - start
    if how == "flip":
        position = start + rng.randrange(length)
        data[position] ^= 1 << rng.randrange(8)
    else:
        first = start + rng.randrange(length)
        run = rng.randrange(1, min(64, start + length - first) + 1)
        data[first : first + run] = bytes(run)
    log.write_bytes(bytes(data))
    try:
        engine = Engine.open(case, read_only=True)
    except JournalCorrupt as error:
        if f"line {number} " not in str(error):
            fail(f"JournalCorrupt does not name line {number}: {error}")
    else:
        records = tuple(entry.record_bytes for entry in engine.view.transcript.entries)
        engine.close()
        # Only a flip the checksum cannot see (an escape's hex digit) may pass: it must
        # parse to the very same record, so the session rebuilds exactly as before.
        if records != base.records or how != "flip":
            fail(f"damage to entry line {number} went unnoticed")
        return
    report = examine(case)
    lost = [
        f.detail for f in report.damage if f.kind == "entry-lost" and f.subject == f"line {number}"
    ]
    victims = [handle for handle, needed in base.needs.items() if digest in needed]
    if len(lost) != 1 or digest not in lost[0] or "lost" not in lost[0]:
        fail(f"doctor does not name entry {digest} of line {number} as lost: {report.damage}")
    elif missing := [handle for handle in victims if handle not in lost[0]]:
        fail(f"doctor does not name the folds that need line {number}: {missing}")
    _check_doctor(case, {"log"}, {f"line {number}"}, fail)
    after = repair(case).after
    if after is None or after.healthy:
        fail("doctor --repair called a lost entry healthy (its bytes exist nowhere else)")


def _object_case(
    case: Path, how: str, digest: str, rng: random.Random, base: Baseline, fail: Failer
) -> None:
    """Damage the store object ``digest``: exactly the folds that need it fail, naming it."""
    victims = {handle for handle, needed in base.needs.items() if digest in needed}
    _damage_file(case / "store" / "sha256" / digest[:2] / digest, how, rng)
    expected_error = StoreObjectMissing if how == "delete" else StoreObjectCorrupt
    engine = Engine.open(case, read_only=True)
    try:
        named = {item.id for item in engine.status().damaged if item.digest == digest}
        if named != victims:
            fail(f"status names {sorted(named)}, not the folds of {digest}: {sorted(victims)}")
        for handle in victims:
            try:
                engine.peek(handle)
                fail(f"peek of damaged {handle} returned bytes")
            except expected_error as error:
                if digest not in str(error):
                    fail(f"the error does not name {digest}: {error}")
        wrong = _verify_folds(engine, base, skip=victims)
        if wrong:
            fail(f"undamaged folds did not verify: {wrong}")
    finally:
        engine.close()
    _check_doctor(case, {"store-missing", "store-corrupt"}, victims, fail)
    _check_repaired(case, base, fail)


def _evidence_case(case: Path, how: str, rng: random.Random, base: Baseline, fail: Failer) -> None:
    identifier = rng.choice(base.evidence)
    digest = identifier.removeprefix("evidence-")
    _damage_file(case / "pi-fold-evidence" / "sha256" / digest[:2] / f"{digest}.json", how, rng)
    expected_error = StoreObjectMissing if how == "delete" else StoreObjectCorrupt
    engine = Engine.open(case, read_only=True)
    try:
        if [item.id for item in engine.status().damaged] != [identifier]:
            fail(f"status does not name {identifier}: {engine.status().damaged}")
        try:
            engine.peek(identifier)
            fail(f"peek of damaged {identifier} returned bytes")
        except expected_error as error:
            if identifier not in str(error):
                fail(f"the error does not name {identifier}: {error}")
        wrong = _verify_folds(engine, base, skip=set())
        if wrong:
            fail(f"folds did not verify beside damaged evidence: {wrong}")
    finally:
        engine.close()
    _check_doctor(case, {"evidence-missing", "evidence-corrupt"}, {identifier}, fail)
    after = repair(case).after
    if after is None or after.healthy:
        fail("doctor --repair called damaged evidence healthy (its bytes exist nowhere else)")


def _log_case(case: Path, how: str, rng: random.Random, base: Baseline, fail: Failer) -> None:
    log = case / "fold-log.jsonl"
    _writable(log)
    data = log.read_bytes()
    lines = data.split(b"\n")[:-1]
    if how in ("delete", "empty"):
        if how == "delete":
            log.unlink()
        else:
            log.write_bytes(b"")
        for read_only in (True, False):
            try:
                Engine.open(case, read_only=read_only).close()
                fail("a lost log opened as a session")
            except JournalCorrupt as error:
                if "fold-log.jsonl" not in str(error):
                    fail(f"the refusal does not name the log: {error}")
        _check_doctor(case, {"lost-log"}, {"fold-log.jsonl"}, fail)
        return
    number = rng.randrange(1, len(lines) + 1 if how != "delete-line" else len(lines))
    start = sum(len(line) + 1 for line in lines[: number - 1])
    line = lines[number - 1]
    if how == "flip":
        damaged = bytearray(line)
        damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        log.write_bytes(data[:start] + bytes(damaged) + data[start + len(line) :])
    elif how == "truncate":
        log.write_bytes(data[: start + rng.randrange(1, len(line) + 1)])  # inside line N
    else:
        log.write_bytes(data[:start] + data[start + len(line) + 1 :])
    _expect_line_named(case, number, how, len(lines), base, fail)


def _expect_line_named(
    case: Path, number: int, how: str, count: int, base: Baseline, fail: Failer
) -> None:
    """The damage at line ``number`` is reported by that number, or changed no record."""
    subject = f"line {number}"
    # A truncation inside line N makes it the last line; a flip or deletion keeps the rest.
    last = how == "truncate" or (number == count and how == "flip")
    try:
        engine = Engine.open(case, read_only=True)
    except JournalCorrupt as error:
        if last and "holds no record" in str(error):
            return  # line 1 was the whole log: refused as a lost log, which it is
        if f"line {number} " not in str(error):
            fail(f"JournalCorrupt does not name line {number}: {error}")
        _check_doctor(case, {"log"}, {subject}, fail)
        return
    try:
        torn = engine.status().torn_tail or engine._state.journal.unfinished
        records = tuple(entry.record_bytes for entry in engine.view.transcript.entries)
    finally:
        engine.close()
    if torn is None:
        # A flip the checksum cannot see parses to the very same record (an escape's hex
        # digit in another case): the session must rebuild exactly as before.
        if records != base.records or how != "flip":
            fail(f"damage at line {number} went unnoticed")
        return
    if not last or torn.line_number != number:
        fail(f"torn tail reported at line {torn.line_number}, the damage is at line {number}")
    _check_doctor(case, {"torn-tail"}, {subject}, fail)
    _check_repaired(case, base, fail, lines_lost=True)


def _check_doctor(case: Path, kinds: set[str], subjects: set[str], fail: Failer) -> None:
    before = {path: path.stat().st_mode for path in case.rglob("*")}
    found = {(finding.kind, finding.subject) for finding in examine(case).damage}
    for subject in subjects:
        if not any(kind in kinds and named == subject for kind, named in found):
            fail(f"doctor does not report {subject} as {sorted(kinds)}: {sorted(found)}")
    if {path: path.stat().st_mode for path in case.rglob("*")} != before:
        fail("doctor changed the state while only examining")


def _check_repaired(case: Path, base: Baseline, fail: Failer, lines_lost: bool = False) -> None:
    after = repair(case).after
    if after is None or not after.healthy:
        fail(f"doctor --repair left damage: {after.damage if after else None}")
        return
    engine = Engine.open(case)
    try:
        if engine.status().damaged:
            fail(f"still damaged after repair: {engine.status().damaged}")
        present = {handle for handle in base.sources if handle in engine.view.forest.folds}
        if not lines_lost and present != set(base.sources):
            fail("folds went missing after repair")
        wrong = _verify_folds(engine, base, skip=set(base.sources) - present)
        if wrong:
            fail(f"folds did not verify after repair: {wrong}")
        if engine.view.audit_counts.unattributed:
            fail("unattributed rewrites after repair")
    finally:
        engine.close()


Failer = Callable[[str], None]

_HANDLERS = {
    "store": _store_case,
    "leaf": _leaf_case,
    "evidence": _evidence_case,
    "log": _log_case,
    "entry": _entry_case,
}


QUICK_COUNT = 12
"""Cases ``benchmarks/fault_harness.py --quick`` runs (the CI test runs about as many)."""


def run(count: int, seed: int) -> FaultTally:
    """Damage ``count`` copies of the session, cycling through :data:`FAULTS`."""
    tally = FaultTally("corruption")
    rng = random.Random(seed)
    base = baseline()
    with tempfile.TemporaryDirectory(prefix="pifold-corruption-cases-") as scratch:
        for number in range(count):
            fault = FAULTS[number % len(FAULTS)]
            target, how = fault.split("-", 1)
            case = Path(scratch) / f"case-{number}"
            shutil.copytree(base.legacy if target == "leaf" else base.state, case)
            label = f"{fault} (seed {seed}, case {number})"

            def fail(what: str, label: str = label) -> None:
                tally.fail(label, what)

            try:
                _HANDLERS[target](case, how, rng, base, fail)
            except (StoreError, JournalCorrupt, OSError, ValueError, RuntimeError) as error:
                fail(f"unexpected {type(error).__name__}: {error}")
            tally.tried += 1
            shutil.rmtree(case, ignore_errors=True)
    return tally


def test_every_corruption_is_detected_named_and_repaired_where_possible() -> None:
    tally = run(count=len(FAULTS), seed=9)
    assert tally.tried == len(FAULTS)
    assert tally.failures == []
