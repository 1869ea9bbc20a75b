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
from pifold_core.entries import Entry, Usage
from pifold_core.folds import source_of
from pifold_core.notice import NOTICE_TAG
from pifold_core.options import EngineOptions
from pifold_core.store import StoreError


@dataclass(frozen=True)
class WindowFigures:
    """Request sizes: expected occupancy (provider count plus calibrated estimate)."""

    budget: int
    peak: int
    mean: float
    min_after_first_commit: int | None
    max_after_first_commit: int | None
    largest_inflow: int
    """Largest growth between two consecutive requests with no commit between them."""
    peak_estimated: int
    """Largest request by the engine's own token estimate, uncalibrated."""


@dataclass(frozen=True)
class MeasurementFigures:
    """How the replay used the usage the trace recorded (DESIGN §6)."""

    recorded: bool
    """The trace recorded provider usage."""
    bound: int
    """Usage reports bound to our own request: the projection was still the raw history."""
    calibration_samples: int
    """Later reports used only to calibrate (our projection differed from what was sent)."""
    calibration: float
    """Measured tokens per estimated token at the end."""
    reading: str
    """The final reading: measured, stale_after_commit, estimated or not_measured."""


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
    measurement: MeasurementFigures
    clipped: int
    """Tool results clipped by the commits (a later fold may hold them since)."""
    pins: int
    """Pinned entries at the end."""
    marks_pending: int
    """Marks laid but not applied at the end."""
    consolidations: int
    """Consolidated folds made."""
    commit_sizes: list[int]
    """Folds landed by each commit, in order."""
    overflows: int
    """Requests a provider would have refused as too long, recovered by an overflow commit."""
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    request_tokens: list[int] = field(default_factory=list)

    @property
    def append_share(self) -> float:
        """Share of requests that were pure appends."""
        return self.appends / self.requests if self.requests else 1.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("request_tokens")
        return data


ProgressCallback = Callable[[int, int], None]

COMPACTION_DROP = 0.7
"""A recorded prompt under this share of the one before means the original host compacted:
its requests no longer match the raw history, so its counts can only calibrate."""


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


class _UsageFeed:
    """Feeds the trace's recorded usage to the engine, as a live host would report it.

    A recorded count measures the request the original agent sent: the raw history. While
    our projection is still exactly that (no rewrite, no evidence preview in place of a
    large result, no compaction by the original host), the count is bound to our request.
    Afterwards the two differ, so only the growth between two recorded counts is used,
    against the estimated growth of the same appended entries, to calibrate. The last bound
    count keeps what the engine cannot see (the host's system prompt and tool definitions)
    in the occupancy.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.raw_estimate = 0
        """Estimated tokens of the raw history so far (what the original agent sent)."""
        self.previous: tuple[int, int] | None = None
        """The last recorded prompt count and the raw estimate it measured."""
        self.diverged = False
        self.bound = 0
        self.samples = 0

    def appended(self, original: Entry) -> None:
        counter = self.engine.projection.counter
        self.raw_estimate += counter.count_message(original.wire, original.wire_digest)

    def recorded(
        self, request_number: int, request_tokens: int, request_raw_estimate: int, usage: Usage
    ) -> None:
        prompt = usage.prompt_tokens
        if prompt <= 0:
            return
        if self.previous is not None and prompt < COMPACTION_DROP * self.previous[0]:
            self.diverged = True
        same_request = self.engine.epoch == 0 and request_tokens == request_raw_estimate
        if not self.diverged and same_request:
            self.engine.report_usage(request_number, usage)
            self.bound += 1
        elif self.previous is not None and self.engine.calibrate(
            prompt - self.previous[0], request_raw_estimate - self.previous[1]
        ):
            self.samples += 1
        self.previous = (prompt, request_raw_estimate)


def _replay(
    trace: ImportedTrace,
    path: Path,
    options: EngineOptions,
    state_dir: Path,
    window_out: Path | None,
    progress: ProgressCallback | None,
) -> ReplayReport:
    recorded = any(entry.usage is not None for entry in trace.entries)
    engine = Engine.open(state_dir, options, host_measures=recorded)
    try:
        resume_at = _resume_point(engine, trace)
        # A request logged just before an interruption already answered the next assistant:
        # nothing was appended after it. (Counting requests against assistants would not do:
        # an overflow sends the same request twice.)
        request_pending = engine.audit.counts.requests > 0 and engine.sent_through == len(
            engine.transcript
        )
        feed = _UsageFeed(engine)
        sizes: list[int] = []
        estimated_peak = 0
        first_commit_at: int | None = None
        largest_inflow = 0
        total = len(trace.entries)
        request_number, request_tokens, request_raw = 0, 0, 0
        overflows = 0
        for position, entry in enumerate(trace.entries):
            if position < resume_at:
                feed.appended(entry)
                continue
            if entry.kind == "assistant" and request_pending:
                request_pending = False
                request_number, request_tokens, request_raw = 0, 0, feed.raw_estimate
            elif entry.kind == "assistant":
                request = engine.prepare_request()
                if request.expected_tokens > engine.options.budget:
                    # A live provider would refuse this request as too long: recover as a
                    # host would, by folding at once and retrying the same request.
                    overflows += 1
                    engine.recover_from_overflow()
                    request = engine.prepare_request()
                request_number, request_raw = request.record.number, feed.raw_estimate
                request_tokens = request.tokens
                if request.commit is not None and first_commit_at is None:
                    first_commit_at = len(sizes)
                if sizes and request.commit is None:
                    largest_inflow = max(largest_inflow, request.expected_tokens - sizes[-1])
                sizes.append(request.expected_tokens)
                estimated_peak = max(estimated_peak, request.tokens)
            engine.append(entry)
            feed.appended(entry)
            if entry.kind == "assistant" and entry.usage is not None and request_number:
                feed.recorded(request_number, request_tokens, request_raw, entry.usage)
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
        per_commit = Counter(fold.commit for fold in engine.forest.folds.values())
        status = engine.status()
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
                budget=engine.options.budget,
                peak=max(sizes, default=0),
                mean=round(sum(sizes) / len(sizes), 1) if sizes else 0.0,
                min_after_first_commit=min(after) if after else None,
                max_after_first_commit=max(after) if after else None,
                largest_inflow=largest_inflow,
                peak_estimated=estimated_peak,
            ),
            measurement=MeasurementFigures(
                recorded=recorded,
                bound=feed.bound,
                calibration_samples=feed.samples,
                calibration=round(engine.meter.calibration, 4),
                reading=str(status.occupancy.reading),
            ),
            clipped=engine.clipped_total,
            pins=len(status.pins),
            marks_pending=len(status.marks),
            consolidations=kinds.get("consolidated", 0),
            overflows=overflows,
            commit_sizes=[
                per_commit.get(number, 0) for number in range(1, engine.commit_count + 1)
            ],
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
    # The engine's own pre-commit notices are not part of the trace.
    ids = [entry.id for entry in engine.transcript if entry.extra.get("pifold") != NOTICE_TAG]
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
