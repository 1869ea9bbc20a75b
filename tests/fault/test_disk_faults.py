"""Fault harness, disk faults: ENOSPC and EIO at the Nth write, fsync or rename.

A real session (the head of the Pi trace bundled in ``pifold_agent/data``) is replayed
through the engine: entries, a request before each model turn, threshold commits, a
``/fold`` command, an option change, a peek of the tool's own. Every file operation the
engine's log, fold store and evidence store make goes through a counting stand-in for
their ``os`` module; case N makes the Nth one fail once (sometimes after writing half its
bytes). The promises checked (DESIGN §8, §12, issue 9):

* the operation is refused loudly: it raises the ``OSError``, or, for a policy commit,
  folding stops (``folding_stopped``), as DESIGN says; a fault is never swallowed;
* a refused operation applied nothing, and retrying it succeeds;
* at the fault and at the end the session reopens consistent: the reopened state equals
  the live one, every fold verifies byte for byte, the audit has no unattributed rewrite;
  nothing half-written is read as valid;
* when folding did not stop, the session ends exactly as the run without a fault did.
"""

from __future__ import annotations

import errno
import os
import random
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pifold_core.journal
import pifold_core.store
from pifold_agent.bundled_traces import demo_trace
from pifold_agent.importers import load_trace
from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock, ToolCallBlock
from pifold_core.tool import run_tool
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_reopens_identically, durable_state
from tests.fault.tally import FaultTally

TRACE = demo_trace()
SESSION_ENTRIES = 200
"""Entries of the trace replayed: several commits, an evidence artifact, many appends."""
FAULTS = (errno.ENOSPC, errno.EIO)


class InjectedFault(OSError):
    """The fault a case injected (an ``OSError``, so the engine treats it as a real one)."""


@dataclass
class FaultPlan:
    """Counts file operations by kind and fails the one a case names."""

    fail_at: int | None = None
    """1-based number of the operation to fail, or ``None`` to only count."""
    error: int = errno.ENOSPC
    """The errno raised."""
    partial: bool = False
    """A failing write first writes half its bytes (a short write on a full disk)."""
    count: int = 0
    """Operations seen so far."""
    kinds: list[str] = field(default_factory=list)
    """The kind of every operation, in order (``log write``, ``store rename``, ...)."""
    fired: bool = False
    """The fault has been raised."""

    def event(self, kind: str) -> bool:
        """Count one operation; whether it is the one to fail."""
        self.count += 1
        self.kinds.append(kind)
        if self.count == self.fail_at:
            self.fired = True
            return True
        return False

    def fault(self, kind: str) -> InjectedFault:
        return InjectedFault(self.error, f"{os.strerror(self.error)} (injected at {kind})")


class _CountedFile:
    """A file object whose writes are counted (and may fail) by a plan."""

    def __init__(self, inner: Any, plan: FaultPlan, area: str) -> None:
        self._inner, self._plan, self._area = inner, plan, area

    def write(self, data: Any) -> int:
        kind = f"{self._area} write"
        if self._plan.event(kind):
            if self._plan.partial and len(data) > 1:
                self._inner.write(bytes(data[: len(data) // 2]))
            raise self._plan.fault(kind)
        return int(self._inner.write(data))

    def __enter__(self) -> _CountedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _CountedOs:
    """Stands in for ``os`` inside one engine module: fdopen, fsync and replace are counted."""

    def __init__(self, plan: FaultPlan, area: str) -> None:
        self._plan, self._area = plan, area

    def fdopen(self, *arguments: Any, **keywords: Any) -> _CountedFile:
        return _CountedFile(os.fdopen(*arguments, **keywords), self._plan, self._area)

    def fsync(self, descriptor: int) -> None:
        kind = f"{self._area} fsync"
        if self._plan.event(kind):
            raise self._plan.fault(kind)
        # Counted, not performed: the harness tries what a failure leaves behind, and real
        # fsyncs would only make it slow (durability is the crash harness's business).

    def replace(self, source: Any, target: Any) -> None:
        kind = f"{self._area} rename"
        if self._plan.event(kind):
            raise self._plan.fault(kind)
        os.replace(source, target)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


@contextmanager
def injected(plan: FaultPlan) -> Iterator[None]:
    """Route the log's and the stores' file operations through ``plan``."""
    modules = ((pifold_core.journal, "log"), (pifold_core.store, "store"))
    try:
        for module, area in modules:
            setattr(module, "os", _CountedOs(plan, area))  # noqa: B010 (a module global)
        yield
    finally:
        for module, _ in modules:
            setattr(module, "os", os)  # noqa: B010


Step = tuple[str, Callable[[Engine], object]]


def _session_steps() -> list[Step]:
    """What a host does, in order: appends, requests, a tool peek, /fold, an option change."""
    entries = load_trace(TRACE).entries[:SESSION_ENTRIES]
    steps: list[Step] = []
    users = 0
    for entry in entries:
        if entry.kind == "user":
            users += 1
            if users == 3:
                steps.extend(_peek_batch())
            if users == 5:
                steps.append(("commit_now", lambda engine: engine.commit_now()))
                steps.append(("apply_options", _halve_fold_threshold))
        if entry.kind == "assistant":
            steps.append(("prepare_request", lambda engine: engine.prepare_request()))
        steps.append((f"append {entry.id}", _appending(entry)))
    steps.append(("prepare_request", lambda engine: engine.prepare_request()))
    return steps


def _appending(entry: Entry) -> Callable[[Engine], object]:
    def append(engine: Engine) -> object:
        return engine.append(entry)

    return append


def _peek_batch() -> list[Step]:
    """The model calls pi_fold_context peek on the first entry; the host appends the result."""
    call = ToolCallBlock("call-peek", "pi_fold_context", {"action": "peek", "id": "x"})
    outcome: dict[str, str] = {}

    def call_entry(engine: Engine) -> object:
        first = engine.view.transcript.entries[0].id
        block = replace(call, arguments={"action": "peek", "id": first})
        return engine.append(Entry("peek-call", "assistant", 0, (block,)))

    def tool(engine: Engine) -> object:
        arguments = {"action": "peek", "id": engine.view.transcript.entries[0].id}
        result = run_tool(engine, arguments, call.id)
        if result.is_error:
            raise OSError(errno.EIO, result.text)  # a refused peek here is the fault's echo
        outcome["text"] = result.text
        return result

    def result_entry(engine: Engine) -> object:
        text = outcome["text"]
        return engine.append(
            Entry("peek-result", "tool_result", 0, (TextBlock(text),), call.id, call.name)
        )

    return [
        ("prepare_request", lambda engine: engine.prepare_request()),
        ("append peek-call", call_entry),
        ("run_tool peek", tool),
        ("append peek-result", result_entry),
    ]


def _halve_fold_threshold(engine: Engine) -> object:
    engine.apply_options(replace(engine.options, tool_fold_threshold=0.25))
    return None


def _options() -> Any:
    return small_options(budget=12_000, min_fold_chars=1_500)


@dataclass
class _Run:
    """One replay of the steps, with or without a fault."""

    engine: Engine
    plan: FaultPlan
    problems: list[str] = field(default_factory=list)


def _replay(folder: Path, steps: list[Step], plan: FaultPlan) -> _Run:
    with injected(plan):
        problems: list[str] = []
        try:
            engine = Engine.open(folder, _options(), CharCounter())
        except OSError as error:
            if not plan.fired:
                raise
            try:  # a new session whose first record failed: opening again must work
                engine = Engine.open(folder, _options(), CharCounter())
            except Exception as retry_error:
                raise AssertionError(f"open after {error!r} failed: {retry_error!r}") from None
        run = _Run(engine, plan, problems)
        for name, step in steps:
            _one_step(run, name, step)
    return run


def _one_step(run: _Run, name: str, step: Callable[[Engine], object]) -> None:
    engine, plan = run.engine, run.plan
    fired_before, stopped_before = plan.fired, engine.view.folding_stopped
    before = durable_state(engine) if not plan.fired and plan.fail_at is not None else None
    try:
        step(engine)
    except OSError as error:
        if not plan.fired or fired_before:
            run.problems.append(f"{name}: unexpected {error!r}")
            return
        _check_refused(run, name, before)
        try:
            step(engine)  # the fault was one-off: the retry must succeed
        except Exception as retry_error:
            run.problems.append(f"{name}: retry failed: {retry_error!r}")
        return
    if plan.fired and not fired_before:
        if engine.view.folding_stopped is None or stopped_before is not None:
            run.problems.append(f"{name}: the fault at {plan.kinds[-1]} was swallowed")
        else:
            _check_consistent(run, f"{name} (folding stopped)")


def _check_refused(run: _Run, name: str, before: dict[str, Any] | None) -> None:
    after = durable_state(run.engine)
    if before is not None:
        committed = after["commit_count"] != before["commit_count"]
        # A policy commit that was saved before the request's own record failed stays: it is
        # logged. The request itself must not be counted.
        keys = ["audit"] if committed and name == "prepare_request" else list(before)
        changed = [key for key in keys if after[key] != before[key]]
        if changed:
            run.problems.append(f"{name}: refused but changed {', '.join(changed)}")
    _check_consistent(run, f"{name} (refused)")


def _check_consistent(run: _Run, where: str) -> None:
    try:
        assert_reopens_identically(run.engine)
    except Exception as error:
        run.problems.append(f"{where}: does not reopen consistent: {type(error).__name__}: {error}")


def _reference(root: Path, steps: list[Step]) -> tuple[dict[str, Any], list[str]]:
    """The run without a fault: its final state and the kind of every file operation."""
    run = _replay(root / "reference", steps, FaultPlan())
    if run.problems or run.engine.view.commit_count < 2 or not run.engine.view.evidence_ids:
        raise AssertionError(f"the reference run is not a useful session: {run.problems}")
    state = durable_state(run.engine)
    run.engine.close()
    return state, run.plan.kinds


def _pick_cases(kinds: list[str], count: int, rng: random.Random) -> list[int]:
    """Operation numbers to fail: every kind gets its share, spread over the session."""
    by_kind: dict[str, list[int]] = {}
    for number, kind in enumerate(kinds, start=1):
        by_kind.setdefault(kind, []).append(number)
    names = sorted(by_kind)
    return [rng.choice(by_kind[names[case % len(names)]]) for case in range(count)]


def run(count: int, seed: int) -> FaultTally:
    """``count`` injected faults over the replayed session; every broken promise is tallied."""
    tally = FaultTally("disk faults")
    rng = random.Random(seed)
    steps = _session_steps()
    with tempfile.TemporaryDirectory(prefix="pifold-disk-") as scratch:
        root = Path(scratch)
        reference, kinds = _reference(root, steps)
        for case, fail_at in enumerate(_pick_cases(kinds, count, rng)):
            plan = FaultPlan(fail_at, rng.choice(FAULTS), partial=rng.random() < 0.5)
            label = f"case {case} (seed {seed}): {kinds[fail_at - 1]} #{fail_at}"
            tally.tried += 1
            faulty = _replay(root / f"case-{case}", steps, plan)
            problems = list(faulty.problems)
            if not plan.fired:
                problems.append("the fault never fired")
            try:
                assert_reopens_identically(faulty.engine)
            except Exception as error:
                problems.append(f"end: does not reopen consistent: {error}")
            if faulty.engine.view.folding_stopped is None:
                final = durable_state(faulty.engine)
                problems.extend(
                    f"end: {key} differs from the run without a fault"
                    for key, value in reference.items()
                    if final[key] != value
                )
            faulty.engine.close()
            for problem in problems:
                tally.fail(label, problem)
    return tally


def test_disk_faults_are_refused_loudly_and_leave_a_consistent_session() -> None:
    tally = run(40, seed=5)
    assert tally.tried == 40
    assert not tally.failures, "\n".join(tally.failures[:20])
