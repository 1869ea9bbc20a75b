"""The engine at scale (issue 12): a long synthetic session through the real engine API.

Run: ``.venv/bin/python benchmarks/bench_scale.py [--entries 10000 50000] [--budget 100000]``

For each size a fresh process drives a deterministic session (seed 12): a user ask every 60
entries, then tool calls whose results are 2-20 KB of code-like text, each followed by a
short note; ``prepare_request`` before every assistant message, as a host does. A second
fresh process reopens the state folder. Printed, each time in CPU and wall seconds (the
machine is shared: CPU time is what the engine itself spent):

* commit requests: median, p99, max, and the median of the first and the last five; and the
  per-commit curve (issue 23): the costliest commit in each tenth of the session, and the
  costliest tenth's against the first's, measured in the same run (flat is about 1×); and
  what full (generation-2) passes of Python's cycle collector took inside commits, timed
  with ``gc.callbacks`` (:mod:`pifold_core.settled_objects`);
* ordinary requests: median of the first and the last 500;
* the state folder's size against the raw record bytes appended, and its file count;
* peak resident memory (``ru_maxrss``) of the driving process against the raw record bytes
  (issue 23's goal: at most 2x), beside the same run's baseline, a process with the engine
  imported and its tokenizer loaded and nothing driven (and what driving adds above it,
  against the raw bytes too); of each reopening process; and
  the entries the driven engine holds whole at the end against those no root fold holds
  (the bound: folded entries are released as their commit lands);
* checkpoints written while driving (:mod:`pifold_core.checkpoint`) and the median request
  that wrote one;
* reopen time from the checkpoint the close wrote (and what the open reports it replayed and
  checked again: nothing after a clean close, issue 23), from the checkpoint the last due
  commit wrote (as after a kill just before the close: the records past it replayed), and
  rebuilt from the whole log with the checkpoint set aside, each with its peak memory and
  whether the reopened projection is the live one, digest for digest.

The checkpoint interval is justified by figures from this session in
:mod:`pifold_core.checkpoint`'s docstring (a whole-log replay costs 0.33 ms of CPU a record,
a checkpoint write about 35 µs an entry).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from pifold_core.audit import request_digest
from pifold_core.checkpoint import CHECKPOINT_NAME
from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock, ToolCallBlock, Usage
from pifold_core.options import EngineOptions
from pifold_core.state_folder import LOG_NAME
from pifold_core.tokens import shared_encoding

SEED = 12
WORDS = [
    "value",
    "result",
    "parser",
    "token",
    "buffer",
    "index",
    "module",
    "config",
    "handler",
    "request",
    "response",
    "error",
    "cache",
    "session",
    "window",
    "commit",
    "fold",
    "entry",
    "record",
    "digest",
    "stream",
    "client",
    "server",
    "retry",
]


def synthetic_session(count: int, seed: int = SEED) -> Iterator[Entry]:
    """``count`` entries: asks, tool calls with 2-20 KB results, and notes."""
    rng = random.Random(seed)
    produced = 0
    index = 0
    while produced < count:
        index += 1
        timestamp = 1_700_000_000_000 + index * 10_000
        if index % 20 == 1:
            yield Entry(f"u{index}", "user", timestamp, (TextBlock(f"Task {index}: fix it."),))
            produced += 1
        call = f"call-{index}"
        path = f"src/module_{rng.randrange(400)}.py"
        yield Entry(
            f"a{index}",
            "assistant",
            timestamp + 1,
            (TextBlock(f"Reading {path}."), ToolCallBlock(call, "read", {"path": path})),
            usage=Usage(input_tokens=100, output_tokens=40),
        )
        size = rng.randrange(2_000, 20_000)
        lines: list[str] = []
        length = 0
        while length < size:
            line = (
                f"{len(lines):04d} def {rng.choice(WORDS)}_{rng.randrange(10_000)}("
                + ", ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6)))
                + f"): return {rng.randrange(1_000_000)}"
            )
            lines.append(line)
            length += len(line) + 1
        yield Entry(
            f"r{index}",
            "tool_result",
            timestamp + 2,
            (TextBlock("\n".join(lines)),),
            call_id=call,
            tool_name="read",
        )
        yield Entry(f"n{index}", "assistant", timestamp + 3, (TextBlock(f"Noted {path}."),))
        produced += 3


def _clocks() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


class FullCollections:
    """CPU seconds spent in the cycle collector's full passes so far (a ``gc`` callback)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] == 2:
            if phase == "start":
                self._started = time.process_time()
            else:
                self.seconds += time.process_time() - self._started


def drive(state: Path, count: int, budget: int) -> dict[str, Any]:
    """Drive the session into ``state``; per-request CPU and wall seconds, and sizes."""
    collections = FullCollections()
    gc.callbacks.append(collections)
    engine = Engine.open(state, EngineOptions(budget=budget))
    # The CPU seconds of full collections inside each commit's measured stretch.
    commit_collections: list[float] = []
    collected = 0.0
    requests: list[tuple[float, float]] = []
    commits: list[tuple[float, float]] = []
    checkpoints: list[tuple[float, float]] = []
    # How many entries the transcript held at each commit: the per-commit curve's x axis.
    commit_at: list[int] = []
    raw_bytes = 0
    cpu, wall = _clocks()
    for entry in synthetic_session(count):
        if entry.kind == "assistant":
            covered = engine.view.checkpoint_records
            request = engine.prepare_request()
            now_cpu, now_wall = _clocks()
            (commits if request.commit is not None else requests).append(
                (now_cpu - cpu, now_wall - wall)
            )
            if request.commit is not None:
                commit_at.append(len(engine.view.transcript))
                commit_collections.append(collections.seconds - collected)
            collected = collections.seconds
            if engine.view.checkpoint_records != covered:
                checkpoints.append((now_cpu - cpu, now_wall - wall))
            cpu, wall = now_cpu, now_wall
        kept = engine.append(entry)
        raw_bytes += len(kept.record_bytes)
    final = request_digest(engine.view.projection.digests())
    # The memory bound, counted: entries held whole against those no root fold holds.
    held = engine.view.transcript.entries.held_whole()
    unfolded = sum(
        1
        for i in range(len(engine.view.transcript))
        if engine.view.forest.root_containing(i) is None
    )
    # The checkpoint the last due commit wrote: what a kill just now would reopen from.
    if (state / CHECKPOINT_NAME).exists():
        shutil.copyfile(state / CHECKPOINT_NAME, state.parent / KILLED_CHECKPOINT)
    engine.close()
    files = [Path(folder) / name for folder, _, names in os.walk(state) for name in names]
    return {
        "entries": count,
        "requests": requests,
        "commits": commits,
        "commit_at": commit_at,
        "commit_collections": commit_collections,
        "checkpoints": checkpoints,
        "folds": len(engine.view.forest),
        "raw_bytes": raw_bytes,
        "state_bytes": sum(path.stat().st_size for path in files),
        # Where the bytes are: the log, the store, the checkpoint (what a size target weighs).
        "state_parts": {
            top: sum(p.stat().st_size for p in files if p.relative_to(state).parts[0] == top)
            for top in (LOG_NAME, "store", CHECKPOINT_NAME)
        },
        "files": len(files),
        "peak_rss_mb": _peak_rss_mb(),
        "held_whole": [held, unfolded],
        "projection": final,
    }


KILLED_CHECKPOINT = "checkpoint.killed"
"""Beside the state: the checkpoint the driven session had before its close wrote one."""


def reopen(state: Path, mode: str) -> dict[str, Any]:
    """Open ``state`` read-only from the checkpoint its close wrote (``checkpoint``), from
    the one it had before the close (``kill``: as if killed just before it, the records
    past it replayed), or from the whole log (``rebuild``), the close's checkpoint moved
    aside for the time of the open."""
    aside = state.parent / "checkpoint.aside"
    if mode != "checkpoint":
        (state / CHECKPOINT_NAME).rename(aside)
        if mode == "kill" and (state.parent / KILLED_CHECKPOINT).exists():
            shutil.copyfile(state.parent / KILLED_CHECKPOINT, state / CHECKPOINT_NAME)
    try:
        cpu, wall = _clocks()
        engine = Engine.open(state, read_only=True)
        end_cpu, end_wall = _clocks()
    finally:
        if mode != "checkpoint":
            aside.replace(state / CHECKPOINT_NAME)
    result = {
        "checkpoint": engine.view.checkpoint_records,
        "problem": engine.view.checkpoint_problem,
        # What the open says it replayed and checked again (issue 23: nothing after a close).
        "replayed": [engine.view.reopen.replayed_records, engine.view.reopen.checked_folds],
        "reopen": (end_cpu - cpu, end_wall - wall),
        "peak_rss_mb": _peak_rss_mb(),
        "projection": request_digest(engine.view.projection.digests()),
        "tokens": engine.view.projection.tokens,
    }
    engine.close()
    return result


def baseline() -> dict[str, Any]:
    """The same-run baseline of the memory figures: a process with the engine imported and
    its tokenizer loaded, nothing driven."""
    shared_encoding()
    return {"peak_rss_mb": _peak_rss_mb()}


def _child(mode: str, state: Path, count: int, budget: int) -> dict[str, Any]:
    command = [sys.executable, __file__, f"--{mode}", str(state), str(count), str(budget)]
    if mode in ("checkpoint", "kill", "rebuild"):
        command[2] = "--reopen"
        command.append(mode)
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(output.splitlines()[-1])
    return result


def _pair(values: Sequence[Sequence[float]], pick: Any) -> str:
    if not values:
        return "-"
    cpu = pick([value[0] for value in values]) * 1000
    wall = pick([value[1] for value in values]) * 1000
    return f"{cpu:,.1f} / {wall:,.1f}"


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


CURVE_BUCKETS = 10
"""The per-commit curve: the session cut into this many equal stretches of entries."""


def commit_curve(commits: Sequence[Sequence[float]], at: Sequence[int], count: int) -> list[float]:
    """The costliest commit's CPU ms in each tenth of the session (0 where none fell)."""
    worst = [0.0] * CURVE_BUCKETS
    for (cpu, _), entries in zip(commits, at, strict=True):
        bucket = min(CURVE_BUCKETS - 1, (entries * CURVE_BUCKETS) // max(count, 1))
        worst[bucket] = max(worst[bucket], cpu * 1000)
    return worst


def _collections(seconds: Sequence[float]) -> str:
    """How many commits held a full collection, and the CPU ms those took, summed and most."""
    spent = [value * 1000 for value in seconds if value > 0]
    return f"{len(spent)} / {sum(spent):,.0f}, {max(spent, default=0):,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument("--drive", nargs=3, metavar=("STATE", "N", "BUDGET"))
    parser.add_argument("--reopen", nargs="+", metavar="STATE N BUDGET MODE")
    parser.add_argument("--baseline", action="store_true")
    arguments = parser.parse_args()
    if arguments.drive:
        state, count, budget = arguments.drive
        print(json.dumps(drive(Path(state), int(count), int(budget))))
        return
    if arguments.reopen:
        print(json.dumps(reopen(Path(arguments.reopen[0]), arguments.reopen[-1])))
        return
    if arguments.baseline:
        print(json.dumps(baseline()))
        return
    table = Table(title=f"The engine at scale (budget {arguments.budget:,}; ms as CPU / wall)")
    rows = (
        "commits",
        "commit median",
        "commit p99",
        "commit max",
        "commit max per tenth (CPU)",
        "commit max, costliest tenth / first (CPU)",
        "commit first 5 / last 5 (CPU)",
        "full collections in commits: count / CPU ms, max",
        "request first 500",
        "request last 500",
        "state / raw bytes",
        "log / store / checkpoint MB",
        "files",
        "peak RSS driving MB (/ raw bytes)",
        "peak RSS, engine loaded, nothing driven MB",
        "peak RSS driving above that MB (/ raw bytes)",
        "entries held whole / outside folds",
        "checkpoints written",
        "request writing one (median)",
        "reopen, checkpoint ms",
        "records replayed / folds checked",
        "peak RSS, checkpoint MB",
        "reopen after a kill ms",
        "records replayed / folds checked, after a kill",
        "reopen, whole log ms",
        "peak RSS, whole log MB",
        "reopened identical (all three)",
    )
    table.add_column("")
    columns: list[list[str]] = []
    for count in arguments.entries:
        with tempfile.TemporaryDirectory(prefix="pifold-scale-") as scratch:
            state = Path(scratch) / "state"
            driven = _child("drive", state, count, arguments.budget)
            reopened = _child("checkpoint", state, count, arguments.budget)
            killed = _child("kill", state, count, arguments.budget)
            rebuilt = _child("rebuild", state, count, arguments.budget)
            bare = json.loads(
                subprocess.run(
                    [sys.executable, __file__, "--baseline"],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.splitlines()[-1]
            )
        commits, requests = driven["commits"], driven["requests"]
        identical = (
            reopened["projection"]
            == killed["projection"]
            == rebuilt["projection"]
            == driven["projection"]
        )
        first = statistics.median(value[0] for value in commits[:5]) * 1000 if commits else 0
        last = statistics.median(value[0] for value in commits[-5:]) * 1000 if commits else 0
        curve = commit_curve(commits, driven["commit_at"], count)
        added = driven["peak_rss_mb"] - bare["peak_rss_mb"]
        columns.append(
            [
                f"{len(commits)}",
                _pair(commits, statistics.median),
                _pair(commits, _p99),
                _pair(commits, max),
                " ".join(f"{value:,.0f}" for value in curve),
                f"{max(curve) / curve[0]:.2f}×" if curve[0] else "-",
                f"{first:,.0f} / {last:,.0f}",
                _collections(driven["commit_collections"]),
                _pair(requests[:500], statistics.median),
                _pair(requests[-500:], statistics.median),
                f"{driven['state_bytes'] / 1e6:,.0f} / {driven['raw_bytes'] / 1e6:,.0f} MB = "
                f"{driven['state_bytes'] / driven['raw_bytes']:.2f}×",
                " / ".join(f"{size / 1e6:,.1f}" for size in driven["state_parts"].values()),
                f"{driven['files']:,}",
                f"{driven['peak_rss_mb']:,.0f} = "
                f"{driven['peak_rss_mb'] * 2**20 / driven['raw_bytes']:.2f}×",
                f"{bare['peak_rss_mb']:,.0f}",
                f"{added:,.0f} = {added * 2**20 / driven['raw_bytes']:.2f}×",
                " / ".join(f"{number:,}" for number in driven["held_whole"]),
                f"{len(driven['checkpoints'])}",
                _pair(driven["checkpoints"], statistics.median),
                _pair([reopened["reopen"]], statistics.median),
                " / ".join(f"{number:,}" for number in reopened["replayed"]),
                f"{reopened['peak_rss_mb']:,.0f}",
                _pair([killed["reopen"]], statistics.median),
                " / ".join(f"{number:,}" for number in killed["replayed"]),
                _pair([rebuilt["reopen"]], statistics.median),
                f"{rebuilt['peak_rss_mb']:,.0f}",
                "yes"
                if identical
                and reopened["checkpoint"] > killed["checkpoint"]
                and not rebuilt["checkpoint"]
                else "NO",
            ]
        )
        table.add_column(f"{count:,} entries", justify="right")
    for number, label in enumerate(rows):
        table.add_row(label, *(column[number] for column in columns))
    Console().print(table)


if __name__ == "__main__":
    main()
