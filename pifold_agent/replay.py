"""Replaying a real session through the engine, one model request at a time.

Each assistant entry in a trace is the answer to one model request, so before appending it
the driver asks the engine for the projection of that request (which may commit first).
At the end every fold is peeked and checked byte for byte against the entries it covers.
What the replay did is a :class:`~pifold_agent.replay_report.ReplayReport`.
"""

from __future__ import annotations

import json
import stat
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from pifold_agent.cache_report.tally import CacheTally
from pifold_agent.importers import ImportedTrace, TraceFormatError, load_trace
from pifold_agent.replay_lifetime import CacheLifetime, resolve_lifetime
from pifold_agent.replay_progress import ReplayDriver, ReplayStateError, RunFigures, claim_state
from pifold_agent.replay_report import (
    MeasurementFigures,
    ReplayReport,
    WindowFigures,
    requests_over_budget,
)
from pifold_core.engine import LOG_NAME, Engine, EngineError, SessionLocked
from pifold_core.folds import ForestError, source_of
from pifold_core.journal import JournalCorrupt
from pifold_core.notice import NOTICE_TAG
from pifold_core.options import EngineOptions, check_budget
from pifold_core.store import StoreError

ProgressCallback = Callable[[int, int], None]


class ReplayOutputError(ValueError):
    """A file the replay was asked to write cannot be written; nothing was replayed."""


def replay_trace(
    path: Path,
    budget: int,
    state_dir: Path | None = None,
    window_out: Path | None = None,
    progress: ProgressCallback | None = None,
    options: EngineOptions | None = None,
    cache_lifetime_s: CacheLifetime = "model",
) -> ReplayReport:
    """Replay the trace at ``path`` and report.

    Each request carries the answer's own timestamp and ``cache_lifetime_s`` (by default the
    trace's model's, :func:`trace_cache_lifetime`), so a pause longer than the lifetime finds
    the cache cold and may commit, as it would live (:mod:`pifold_core.runway`).

    Raises ``TraceFormatError`` for a file that is not a session (or not a regular file),
    ``ReplayStateError`` for a ``state_dir`` that cannot take this replay and
    ``ReplayOutputError`` for a ``window_out`` that cannot be written; each is raised before
    anything is written.
    """
    check_budget(budget, "--budget")
    trace = _load(path)
    lifetime = resolve_lifetime(trace, cache_lifetime_s)
    _check_output(window_out)
    engine_options = options or EngineOptions(budget=budget)
    if state_dir is not None:
        check_state_folder(state_dir)
        return _replay(trace, path, engine_options, state_dir, window_out, progress, lifetime)
    with tempfile.TemporaryDirectory(prefix="pifold-replay-") as temporary:
        folder = Path(temporary)
        return _replay(trace, path, engine_options, folder, window_out, progress, lifetime)


def _load(path: Path) -> ImportedTrace:
    """The trace at ``path``; a FIFO, a device or a folder is refused before it is opened
    (reading a FIFO would wait forever for a writer)."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise TraceFormatError(f"{path}: cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(mode):
        raise TraceFormatError(f"{path}: not a regular file, so not a session file")
    trace = load_trace(path)
    if not any(entry.kind == "assistant" for entry in trace.entries):
        raise TraceFormatError(
            f"{path}: a {trace.format} session with no model request in it "
            f"({len(trace.entries)} entries, no assistant message): nothing to replay"
        )
    return trace


def _check_output(window_out: Path | None) -> None:
    if window_out is None:
        return
    if window_out.is_dir():
        raise ReplayOutputError(f"cannot write --window-out {window_out}: it is a folder")
    if not window_out.parent.is_dir():
        raise ReplayOutputError(
            f"cannot write --window-out {window_out}: folder {window_out.parent} does not exist"
        )


_OPENING_START = b'{"n":0,"k":"open",'
"""How every pifold log's first line begins (the opening record, as the journal writes it)."""


def check_state_folder(state_dir: Path) -> None:
    """A ``--state`` path must be a folder (or not exist yet) whose log, if any, is a pifold
    log: a file of another kind is refused, never replaced. Changes nothing."""
    if state_dir.exists() and not state_dir.is_dir():
        raise ReplayStateError(f"--state {state_dir} is a file, not a folder")
    log = state_dir / LOG_NAME
    if not log.exists():
        return
    try:
        with open(log, "rb") as handle:
            first = handle.readline()
    except OSError as error:
        raise ReplayStateError(f"cannot read {log}: {error.strerror or error}") from None
    if not first.endswith(b"\n") and _OPENING_START.startswith(first[: len(_OPENING_START)]):
        # A kill tore the log's very first write: the engine's reopen drops the torn line.
        return
    try:
        record = json.loads(first)
    except ValueError:
        record = None
    if first and (not isinstance(record, dict) or record.get("k") != "open"):
        raise ReplayStateError(
            f"{log} is not a pifold session log (its first line is not the session's "
            "opening record); it was left as it is: use another --state folder"
        )


def _replay(
    trace: ImportedTrace,
    path: Path,
    options: EngineOptions,
    state_dir: Path,
    window_out: Path | None,
    progress: ProgressCallback | None,
    lifetime: tuple[int | None, str],
) -> ReplayReport:
    recorded = any(entry.usage is not None for entry in trace.entries)
    try:
        engine = Engine.open(state_dir, options, host_measures=recorded)
    except SessionLocked as error:
        raise ReplayStateError(str(error)) from None
    except (JournalCorrupt, StoreError, ForestError, EngineError) as error:
        raise ReplayStateError(f"{state_dir} cannot be reopened: {error}") from None
    try:
        claim_state(engine, trace, path.name, options.budget, lifetime[0])
        resume_at = _resume_point(engine, trace)
        driver = ReplayDriver(engine, lifetime[0])
        counter = engine.view.projection.counter
        raw_estimate = 0
        total = len(trace.entries)
        for position, entry in enumerate(trace.entries):
            if position >= resume_at:
                if entry.kind == "assistant":
                    driver.answer(position, entry, raw_estimate)
                else:
                    engine.append(entry)
                if progress is not None:
                    progress(position + 1, total)
            raw_estimate += counter.count_message(entry.wire, entry.wire_digest)
        verified, failures = verify_folds(engine)
        if window_out is not None:
            _write_window(engine, window_out)
        report = _report(engine, trace, path, driver.figures, recorded, verified, failures)
        cold = sum(commit.cause == "cold-cache" for commit in engine.view.commit_history)
        return replace(
            report,
            cache_lifetime_s=lifetime[0],
            cache_lifetime_source=lifetime[1],
            cold_commits=cold,
        )
    finally:
        engine.close()


def _write_window(engine: Engine, window_out: Path) -> None:
    try:
        window_out.write_text(
            json.dumps(engine.view.projection.messages(), ensure_ascii=False, indent=1),
            encoding="utf-8",
        )
    except OSError as error:
        raise ReplayOutputError(
            f"cannot write --window-out {window_out}: {error.strerror or error}"
        ) from None


def _report(
    engine: Engine,
    trace: ImportedTrace,
    path: Path,
    figures: RunFigures,
    recorded: bool,
    verified: int,
    failures: list[str],
) -> ReplayReport:
    sizes = figures.sizes
    first_commit_at = figures.first_commit_at
    after = sizes[first_commit_at:] if first_commit_at is not None else []
    counts = engine.view.audit_counts
    kinds = Counter(fold.kind for fold in engine.view.forest.folds.values())
    per_commit = Counter(fold.commit for fold in engine.view.forest.folds.values())
    status = engine.status()
    torn = engine.view.torn_tail
    torn_tail = (
        None
        if torn is None
        else f"the state's log ended in a torn line (line {torn.line_number}, "
        f"{torn.byte_count} bytes), cut off on reopen; the replay resumed before it"
    )
    return ReplayReport(
        trace=str(path),
        format=trace.format,
        entries=len(engine.view.transcript),
        requests=counts.requests,
        appends=counts.appends,
        rewrites=counts.rewrites,
        unattributed=counts.unattributed,
        commits=engine.view.commit_count,
        folds={kind: kinds.get(kind, 0) for kind in ("tool", "span", "consolidated")},
        verified_folds=verified,
        failed_folds=len(failures),
        skipped_lines=trace.skipped_lines,
        window=WindowFigures(
            budget=engine.options.budget,
            peak=max(sizes, default=0),
            mean=round(sum(sizes) / len(sizes), 1) if sizes else 0.0,
            min_after_first_commit=min(after) if after else None,
            max_after_first_commit=max(after) if after else None,
            largest_inflow=figures.largest_inflow,
            peak_estimated=figures.estimated_peak,
        ),
        measurement=MeasurementFigures(
            recorded=recorded,
            bound=figures.bound,
            calibration_samples=figures.samples,
            calibration=round(engine.view.calibration, 4),
            reading=str(status.occupancy.reading),
        ),
        clipped=engine.view.clipped_total,
        pins=len(status.pins),
        marks_pending=len(status.marks),
        consolidations=kinds.get("consolidated", 0),
        overflows=figures.overflows,
        over_budget=requests_over_budget(sizes, engine.options.budget),
        commit_sizes=[
            per_commit.get(number, 0) for number in range(1, engine.view.commit_count + 1)
        ],
        torn_tail=torn_tail,
        cache=CacheTally.of(trace.entries).to_json(),
        notes=list(trace.notes),
        failures=failures,
        request_tokens=sizes,
    )


def _resume_point(engine: Engine, trace: ImportedTrace) -> int:
    """How many of the trace's entries the state already holds (0 for a new state)."""
    # The engine's own pre-commit notices are not part of the trace.
    ids = [entry.id for entry in engine.view.transcript if entry.extra.get("pifold") != NOTICE_TAG]
    held = len(ids)
    if held > len(trace.entries) or any(
        ids[index] != trace.entries[index].id for index in range(held)
    ):
        raise ReplayStateError(f"{engine.state_dir} holds another session than this trace")
    return held


def verify_folds(engine: Engine) -> tuple[int, list[str]]:
    """Peek every fold and compare it byte for byte with the entries it covers."""
    verified = 0
    failures: list[str] = []
    for fold in engine.view.forest.in_order():
        expected = source_of(engine.view.transcript.entries[fold.start : fold.end])
        try:
            result = engine.peek(fold.handle)
        except (StoreError, ValueError) as error:
            failures.append(f"{fold.handle}: {error}")
            continue
        if result.data == expected and result.complete:
            verified += 1
        else:
            failures.append(f"{fold.handle}: peeked bytes differ from the entries")
    return verified, failures


__all__ = [
    "ReplayOutputError",
    "ReplayStateError",
    "check_state_folder",
    "replay_trace",
    "verify_folds",
]
