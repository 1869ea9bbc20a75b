"""Every fault category of ``tests/fault`` at full size, as the README's reliability table.

Run: ``.venv/bin/python benchmarks/fault_harness.py [--quick] [--only crash] [--seed 1]``

Each ``tests/fault/test_*.py`` module that exposes ``run(count, seed) -> FaultTally`` is one
row: what was tried, what failed, the CPU time (this process and its children: the crash
category forks one child per kill) beside the wall time, and the command that reproduces the
row alone. A module that has not landed yet is named in a note and skipped. The exit status
is 1 when any category recorded a failure, and the first failures of each are printed.
"""

from __future__ import annotations

import argparse
import importlib
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY))

from rich.console import Console  # noqa: E402 (after the path: tests/ is imported below)
from rich.table import Table  # noqa: E402

from tests.fault.tally import FaultTally  # noqa: E402

FULL_COUNTS: dict[str, int] = {
    "crash": 1_000,
    "hostile_input": 100_000,
    "disk_faults": 500,
    "corruption": 300,
    "concurrency": 200,
    "security": 2_000,
}
"""Full sizes: crash and hostile input as issue 9 sets them, the others sized so the whole
table runs in about half an hour on two cores. A category not listed runs at its module's
``FULL_COUNT``, else 200."""

QUICK_COUNTS: dict[str, int] = {"crash": 20, "hostile_input": 2_000}
"""``--quick`` sizes; other categories run at their module's ``QUICK_COUNT``, else 20."""

KNOWN_CATEGORIES = (
    "crash",
    "disk_faults",
    "corruption",
    "hostile_input",
    "concurrency",
    "security",
    "search_index",
    "agent_replies",
    "agent_files",
    "agent_tool_concurrency",
    "agent_headless",
    "agent_writers",
    "app_exit",
    "memory_writes",
)
"""The categories issues 9, 18 and 21 ask for, in table order (the engine's, then the agent
layer's); any other module found runs after them."""

FAILURES_SHOWN = 5


@dataclass(frozen=True)
class Row:
    """One category's measured figures."""

    name: str
    tally: FaultTally
    cpu_seconds: float
    wall_seconds: float
    count: int
    seed: int


def categories() -> list[str]:
    """Module names under tests/fault (``test_`` dropped), issue order first."""
    found = sorted(path.stem[5:] for path in (REPOSITORY / "tests" / "fault").glob("test_*.py"))
    ordered = [name for name in KNOWN_CATEGORIES if name in found]
    return ordered + [name for name in found if name not in ordered]


def load(name: str) -> Callable[[int, int], FaultTally] | None:
    """The module's ``run``, or None when it does not exist (yet) or exposes none."""
    try:
        module = importlib.import_module(f"tests.fault.test_{name}")
    except ModuleNotFoundError:
        return None
    run = getattr(module, "run", None)
    return run if callable(run) else None


def size(name: str, quick: bool) -> int:
    module = importlib.import_module(f"tests.fault.test_{name}")
    if quick:
        return QUICK_COUNTS.get(name, int(getattr(module, "QUICK_COUNT", 20)))
    return FULL_COUNTS.get(name, int(getattr(module, "FULL_COUNT", 200)))


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children, user and system."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(name: str, run: Callable[[int, int], FaultTally], count: int, seed: int) -> Row:
    cpu, wall = cpu_seconds(), time.perf_counter()
    tally = run(count, seed)
    return Row(name, tally, cpu_seconds() - cpu, time.perf_counter() - wall, count, seed)


def command(row: Row) -> str:
    return (
        f".venv/bin/python benchmarks/fault_harness.py --only {row.name} "
        f"--count {row.count} --seed {row.seed}"
    )


def print_table(console: Console, rows: list[Row]) -> None:
    table = Table(title="pifold fault harness")
    for heading in ("category", "tried", "failures", "CPU s", "wall s", "reproduce"):
        justify = "left" if heading in ("category", "reproduce") else "right"
        table.add_column(heading, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(
            row.tally.category,
            f"{row.tally.tried:,}",
            f"{len(row.tally.failures):,}",
            f"{row.cpu_seconds:,.1f}",
            f"{row.wall_seconds:,.1f}",
            command(row),
        )
    console.print(table)
    for row in rows:
        for failure in row.tally.failures[:FAILURES_SHOWN]:
            console.print(f"[red]{row.tally.category}:[/] {failure}", soft_wrap=True)
        hidden = len(row.tally.failures) - FAILURES_SHOWN
        if hidden > 0:
            console.print(f"[red]{row.tally.category}:[/] ... and {hidden} more")


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run of every category")
    parser.add_argument("--only", action="append", help="run only this category (repeatable)")
    parser.add_argument("--count", type=int, help="cases per category (overrides the sizes)")
    parser.add_argument("--seed", type=int, default=1, help="seed for every category")
    options = parser.parse_args(arguments)
    console = Console(width=200)
    names = categories()
    unknown = [name for name in options.only or [] if name not in names]
    if unknown:
        console.print(f"[red]error:[/] no category {', '.join(unknown)}; there are {names}")
        return 2
    if options.count is not None and options.count < 1:
        console.print("[red]error:[/] --count must be at least 1")
        return 2
    rows: list[Row] = []
    for name in options.only or names:
        run = load(name)
        if run is None:
            console.print(f"note: tests/fault/test_{name}.py exposes no run(); skipped")
            continue
        count = options.count or size(name, options.quick)
        console.print(f"running {name} ({count:,} cases, seed {options.seed})")
        rows.append(measure(name, run, count, options.seed))
    missing = [name for name in KNOWN_CATEGORIES if name not in names]
    for name in missing:
        console.print(f"note: no tests/fault/test_{name}.py yet; that category was not run")
    print_table(console, rows)
    return 1 if any(row.tally.failures for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
