"""Replaying a real session through the engine, one model request at a time.

Each assistant entry in a trace is the answer to one model request, so before appending it
the driver asks the engine for the projection of that request (which may commit first).
At the end every fold is peeked and checked byte for byte against the entries it covers.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pifold_agent.importers import ImportedTrace, load_trace
from pifold_core.engine import Engine
from pifold_core.folds import source_of
from pifold_core.options import EngineOptions
from pifold_core.store import StoreError


@dataclass(frozen=True)
class WindowFigures:
    """Request sizes in estimated tokens."""

    budget: int
    peak: int
    mean: float
    min_after_first_commit: int | None
    max_after_first_commit: int | None
    largest_inflow: int
    """Largest growth between two consecutive requests with no commit between them."""


@dataclass(frozen=True)
class ReplayReport:
    """What a replay did; ``to_json`` gives the documented ``--json`` object."""

    trace: str
    format: str
    entries: int
    requests: int
    appends: int
    rewrites: int
    unattributed: int
    commits: int
    folds: dict[str, int]
    verified_folds: int
    failed_folds: int
    skipped_lines: int
    window: WindowFigures
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    request_tokens: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("request_tokens")
        return data


ProgressCallback = Callable[[int, int], None]


def replay_trace(
    path: Path,
    budget: int,
    state_dir: Path | None = None,
    window_out: Path | None = None,
    progress: ProgressCallback | None = None,
    options: EngineOptions | None = None,
) -> ReplayReport:
    """Replay the trace at ``path`` and report; raises ``TraceFormatError`` for bad files."""
    trace = load_trace(path)
    engine_options = options or EngineOptions(budget=budget)
    if state_dir is not None:
        return _replay(trace, path, engine_options, state_dir, window_out, progress)
    with tempfile.TemporaryDirectory(prefix="pifold-replay-") as temporary:
        return _replay(trace, path, engine_options, Path(temporary), window_out, progress)


def _replay(
    trace: ImportedTrace,
    path: Path,
    options: EngineOptions,
    state_dir: Path,
    window_out: Path | None,
    progress: ProgressCallback | None,
) -> ReplayReport:
    engine = Engine.open(state_dir, options)
    try:
        resume_at = _resume_point(engine, trace)
        # A request logged just before an interruption already answered the next assistant.
        request_pending = engine.audit.counts.requests > sum(
            1 for entry in engine.transcript if entry.kind == "assistant"
        )
        sizes: list[int] = []
        first_commit_at: int | None = None
        largest_inflow = 0
        total = len(trace.entries)
        for position, entry in enumerate(trace.entries):
            if position < resume_at:
                continue
            if entry.kind == "assistant" and request_pending:
                request_pending = False
            elif entry.kind == "assistant":
                request = engine.prepare_request()
                if request.commit is not None and first_commit_at is None:
                    first_commit_at = len(sizes)
                if sizes and request.commit is None:
                    largest_inflow = max(largest_inflow, request.tokens - sizes[-1])
                sizes.append(request.tokens)
            engine.append(entry)
            if progress is not None:
                progress(position + 1, total)
        verified, failures = verify_folds(engine)
        if window_out is not None:
            window_out.write_text(
                json.dumps(engine.projection.messages(), ensure_ascii=False, indent=1),
                encoding="utf-8",
            )
        after = sizes[first_commit_at:] if first_commit_at is not None else []
        counts = engine.audit.counts
        kinds = Counter(fold.kind for fold in engine.forest.folds.values())
        return ReplayReport(
            trace=str(path),
            format=trace.format,
            entries=len(engine.transcript),
            requests=counts.requests,
            appends=counts.appends,
            rewrites=counts.rewrites,
            unattributed=counts.unattributed,
            commits=engine.commit_count,
            folds={kind: kinds.get(kind, 0) for kind in ("tool", "span", "consolidated")},
            verified_folds=verified,
            failed_folds=len(failures),
            skipped_lines=trace.skipped_lines,
            window=WindowFigures(
                budget=options.budget,
                peak=max(sizes, default=0),
                mean=round(sum(sizes) / len(sizes), 1) if sizes else 0.0,
                min_after_first_commit=min(after) if after else None,
                max_after_first_commit=max(after) if after else None,
                largest_inflow=largest_inflow,
            ),
            notes=list(trace.notes),
            failures=failures,
            request_tokens=sizes,
        )
    finally:
        engine.close()


class ReplayStateError(ValueError):
    """A ``--state`` folder holds a session that is not this trace."""


def _resume_point(engine: Engine, trace: ImportedTrace) -> int:
    """How many of the trace's entries the state already holds (0 for a new state)."""
    held = len(engine.transcript)
    if held > len(trace.entries) or any(
        engine.transcript[index].id != trace.entries[index].id for index in range(held)
    ):
        raise ReplayStateError(f"{engine.state_dir} holds another session than this trace")
    return held


def verify_folds(engine: Engine) -> tuple[int, list[str]]:
    """Peek every fold and compare it byte for byte with the entries it covers."""
    verified = 0
    failures: list[str] = []
    for fold in engine.forest.in_order():
        expected = source_of(engine.transcript.entries[fold.start : fold.end])
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
