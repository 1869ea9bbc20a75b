"""A replay's progress, kept as host notes in the engine's log.

The driver decides things the engine cannot: whether a request would overflow and must be
retried, what the recorded usage of an answer means (bound to our request, a calibration
sample, or nothing), and the window figures of the report. Kept in memory, all of it is lost
when the process is killed, and a resumed replay then goes another way (defect 6 of issue 9).
So every decision is written to the log as a note *before* it is acted on, with the engine's
counters at that moment. A resumed step finds its notes and compares the counters with the
engine's, which tells exactly which of its actions were logged before the kill; the figures
are summed from the notes, so a resumed or re-run replay reports the whole run.

One model request, for the assistant entry at trace position ``p``, is a step::

    note request(p)   -> prepare_request                 [commit] request
    note overflow(p)  -> recover_from_overflow, retry    commit [commit] request   (if over)
    note answer(p)    -> report_usage or calibrate       [usage | calibrate]
                      -> append the assistant entry      entry [marks]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pifold_agent.importers import ImportedTrace
from pifold_core.canonical import JsonValue, canonical_bytes, sha256_hex
from pifold_core.engine import Engine, HostNote
from pifold_core.entries import Entry
from pifold_core.measure import Meter

NOTE_KEY = "replay"
"""Every note this driver writes has this key, naming the note's kind."""

IDENTITY_ENTRIES = 16
"""Entries whose digests identify a trace: enough to tell sessions apart, and a trace that
grew since (the same session, continued) keeps its identity."""

COMPACTION_DROP = 0.7
"""A recorded prompt under this share of the one before means the original host compacted:
its requests no longer match the raw history, so its counts can only calibrate."""


class ReplayStateError(ValueError):
    """A ``--state`` folder that cannot take this replay; the message says why."""


def whole(value: JsonValue) -> int:
    """A count read back from a note (notes are written by this module: always ``int``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ReplayStateError(f"a replay note holds {value!r} where a count belongs")
    return value


def trace_identity(trace: ImportedTrace) -> str:
    """A digest of the trace's format and first entries."""
    digests: list[JsonValue] = [entry.digest for entry in trace.entries[:IDENTITY_ENTRIES]]
    return sha256_hex(canonical_bytes([trace.format, digests]))


def replay_notes(engine: Engine) -> list[HostNote]:
    """This driver's notes in the engine's log, oldest first."""
    return [note for note in engine.view.host_notes if isinstance(note.body.get(NOTE_KEY), str)]


def claim_state(
    engine: Engine,
    trace: ImportedTrace,
    trace_name: str,
    budget: int,
    cache_lifetime_s: int | None = None,
) -> None:
    """Record which session a new state holds, or check that an existing one holds this one.

    The budget and the cache lifetime decide the commits, so a resumed replay must keep
    both. Raises ``ReplayStateError`` naming the session the folder holds, or the budget or
    lifetime it was replayed at, and changes nothing.
    """
    notes = [note.body for note in replay_notes(engine) if note.body[NOTE_KEY] == "start"]
    identity = trace_identity(trace)
    if not notes:
        if len(engine.view.transcript):
            raise ReplayStateError(
                f"{engine.state_dir} holds a session that pifold replay did not start "
                "(no record of its trace); use another --state folder"
            )
        note: dict[str, JsonValue] = {NOTE_KEY: "start", "trace": trace_name}
        note.update(identity=identity, lifetime=cache_lifetime_s)
        engine.note(note)
        return
    start = notes[0]
    if start["identity"] != identity:
        raise ReplayStateError(
            f"{engine.state_dir} holds the replay of another session ({start['trace']}), "
            f"not {trace_name}; use another --state folder"
        )
    if engine.options.budget != budget:
        raise ReplayStateError(
            f"{engine.state_dir} was replayed at --budget {engine.options.budget}; resume it "
            f"with that budget (asked for {budget}) or use another --state folder"
        )
    # A start note written before lifetimes were passed has none: it was replayed without.
    logged = start.get("lifetime")
    if logged != cache_lifetime_s:
        raise ReplayStateError(
            f"{engine.state_dir} was replayed with a cache lifetime of {_seconds(logged)}; "
            f"resume it with that --cache-lifetime (asked for {_seconds(cache_lifetime_s)}) "
            "or use another --state folder"
        )


def _seconds(lifetime: JsonValue) -> str:
    return "none (0)" if lifetime is None else f"{lifetime} s"


@dataclass
class RunFigures:
    """The report's per-request figures, summed from the answer notes."""

    sizes: list[int] = field(default_factory=list)
    """Expected occupancy of every request, in order."""
    estimated_peak: int = 0
    first_commit_at: int | None = None
    """Index in ``sizes`` of the first request a commit preceded."""
    largest_inflow: int = 0
    overflows: int = 0
    bound: int = 0
    samples: int = 0
    commits_seen: int = 0
    previous: tuple[int, int] | None = None
    """The last recorded prompt count and the raw estimate it measured."""
    diverged: bool = False
    """The original host compacted: its counts no longer measure the raw history."""

    def add(self, answer: dict[str, JsonValue]) -> None:
        """Take one answer note into the figures."""
        expected, tokens, commits = (
            whole(answer["expected"]),
            whole(answer["tokens"]),
            whole(answer["commits"]),
        )
        committed = commits > self.commits_seen
        if committed and self.first_commit_at is None:
            self.first_commit_at = len(self.sizes)
        if self.sizes and not committed:
            self.largest_inflow = max(self.largest_inflow, expected - self.sizes[-1])
        self.sizes.append(expected)
        self.estimated_peak = max(self.estimated_peak, tokens)
        self.overflows += bool(answer["overflowed"])
        self.bound += answer["usage"] == "bind"
        self.samples += answer["usage"] == "calibrate"
        self.commits_seen = commits
        previous = answer["previous"]
        self.previous = (
            (whole(previous[0]), whole(previous[1])) if isinstance(previous, list) else None
        )
        self.diverged = bool(answer["diverged"])


class ReplayDriver:
    """Runs the steps of one replay against an engine, resuming from the notes it finds."""

    def __init__(self, engine: Engine, cache_lifetime_s: int | None = None) -> None:
        self.engine = engine
        self.cache_lifetime_s = cache_lifetime_s
        """The priced family's cache lifetime, passed with each request beside the trace's
        own clock (the answer's timestamp) so cold-cache commits happen as they would live."""
        self.figures = RunFigures()
        for note in replay_notes(engine):
            if note.body[NOTE_KEY] == "answer":
                self.figures.add(note.body)

    def _counters(self) -> dict[str, JsonValue]:
        return {
            "requests": self.engine.view.audit_counts.requests,
            "commits": self.engine.view.commit_count,
        }

    def _pending(self, position: int) -> dict[str, HostNote]:
        """The notes already written for the step at ``position`` (a resumed step)."""
        # Only the newest notes can belong to the step not finished yet: looking at a few
        # keeps every step's work independent of the session's length.
        return {
            str(note.body[NOTE_KEY]): note
            for note in self.engine.view.host_notes[-3:]
            if isinstance(note.body.get(NOTE_KEY), str) and note.body.get("position") == position
        }

    def answer(self, position: int, entry: Entry, raw_estimate: int) -> None:
        """One model request and its answer ``entry``; ``raw_estimate`` is the estimated size
        of the raw history before it (what the original agent sent)."""
        engine = self.engine
        pending = self._pending(position)
        asked = pending.get("request") or engine.note(
            {NOTE_KEY: "request", "position": position, **self._counters()}
        )
        if engine.view.audit_counts.requests == asked.body["requests"]:
            engine.prepare_request(entry.timestamp_ms, self.cache_lifetime_s)
        overflow, answer = pending.get("overflow"), pending.get("answer")
        if overflow is None and answer is None and engine.expected_tokens() > engine.options.budget:
            # A live provider would refuse this request as too long: recover as a host would,
            # by folding at once and retrying the same request.
            overflow = engine.note({NOTE_KEY: "overflow", "position": position, **self._counters()})
        if overflow is not None and engine.view.audit_counts.requests == overflow.body["requests"]:
            if engine.view.commit_count == overflow.body["commits"]:
                engine.recover_from_overflow()
            engine.prepare_request()
        if answer is None:
            answer = engine.note(self._decide(position, entry, raw_estimate, overflow is not None))
            self.figures.add(answer.body)
        # The usage record, if any, comes right after the answer note: nothing logged after
        # the note means the kill came before it.
        if answer.body["usage"] != "none" and engine.view.log_length == answer.sequence + 1:
            self._use(answer.body, entry)
        engine.append(entry)

    def _decide(
        self, position: int, entry: Entry, raw_estimate: int, overflowed: bool
    ) -> dict[str, JsonValue]:
        """What the answer's recorded usage means, decided before anything acts on it.

        A recorded count measures the request the original agent sent: the raw history.
        While our projection is still exactly that (no rewrite, no evidence preview in place
        of a large result, no compaction by the original host), the count is bound to our
        request. Afterwards only the growth between two recorded counts is used, against
        the estimated growth of the same entries, to calibrate.
        """
        engine, figures = self.engine, self.figures
        tokens = engine.view.projection.tokens
        usage, measured, estimated = "none", 0, 0
        previous, diverged = figures.previous, figures.diverged
        # 0 is "no reading" here: no usage, or one whose prompt is unknown.
        prompt = (entry.usage.prompt_tokens if entry.usage is not None else None) or 0
        if prompt > 0:
            if previous is not None and prompt < COMPACTION_DROP * previous[0]:
                diverged = True
            if not diverged and engine.view.epoch == 0 and tokens == raw_estimate:
                usage = "bind"
            elif previous is not None and Meter.usable_sample(
                prompt - previous[0], raw_estimate - previous[1]
            ):
                usage = "calibrate"
                measured, estimated = prompt - previous[0], raw_estimate - previous[1]
            previous = (prompt, raw_estimate)
        return {
            NOTE_KEY: "answer",
            "position": position,
            "request": engine.view.audit_counts.requests,
            "tokens": tokens,
            "expected": engine.expected_tokens(),
            "commits": engine.view.commit_count,
            "overflowed": overflowed,
            "usage": usage,
            "measured": measured,
            "estimated": estimated,
            "previous": list(previous) if previous is not None else None,
            "diverged": diverged,
        }

    def _use(self, answer: dict[str, JsonValue], entry: Entry) -> None:
        if answer["usage"] == "bind" and entry.usage is not None:
            self.engine.report_usage(whole(answer["request"]), entry.usage)
        elif answer["usage"] == "calibrate":
            self.engine.calibrate(whole(answer["measured"]), whole(answer["estimated"]))
