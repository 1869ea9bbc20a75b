"""``/fold-editor`` on a long session: time to open and time per keypress.

Run: ``.venv/bin/python benchmarks/bench_editor.py [--entries 20000] [--presses 300]``

A synthetic session of ``--entries`` entries (chapters of tool batches, so folds nest and
marks are pending) is driven through the real engine, then the editor is opened on it in a
headless Textual app. It prints, with CPU time beside wall time:

* **open**: from pushing the screen until it has painted its first frame with every row;
* **keypress (pilot)**: one ``down`` (every tenth a ``pagedown``) through Textual's test
  pilot, which also waits for the app to go idle, so it is an upper bound;
* **keypress (handler)**: the cursor move itself plus drawing every visible row, which is
  what a key costs the app between two frames.

Targets on the project's 2-core machine: open under 300 ms, a keypress under 16 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from textual.app import App

from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock, ToolCallBlock
from pifold_core.options import EngineOptions
from pifold_tui.screens.editor import FoldEditorScreen

SCREEN_SIZE = (150, 40)
OPENINGS = 5
"""Times the screen is opened (the first is cold: new widget types' CSS, palettes)."""


def synthetic_session(count: int) -> Iterator[Entry]:
    """Chapters of one ask, three tool batches of 1-3 KB results and an answer."""
    produced = 0
    chapter = 0
    while produced < count:
        chapter += 1
        yield Entry(f"u{chapter}", "user", produced, (TextBlock(f"Chapter {chapter}: fix it"),))
        produced += 1
        for batch in range(3):
            call = f"c{chapter}-{batch}"
            yield Entry(
                f"a{chapter}-{batch}",
                "assistant",
                produced,
                (ToolCallBlock(call, "read", {"path": f"src/module_{chapter}_{batch}.py"}),),
            )
            body = "\n".join(
                f"{line:04d}  def function_{chapter}_{line}(value): return value * {line}"
                for line in range(20 + 20 * batch)
            )
            yield Entry(
                f"r{chapter}-{batch}",
                "tool_result",
                produced + 1,
                (TextBlock(body),),
                call_id=call,
                tool_name="read",
            )
            produced += 2
        yield Entry(f"d{chapter}", "assistant", produced, (TextBlock(f"Done with {chapter}."),))
        produced += 1


SCENARIOS: dict[str, int] = {"raw": 10_000_000, "folded": 100_000}
"""Budget per scenario: ``raw`` never commits (one row per entry, 20,000 rows), ``folded``
commits as a live session would (nested folds; every fold is then opened in the tree, so
the map holds every entry and every fold as rows)."""


def build_engine(count: int, state: Path, budget: int) -> Engine:
    engine = Engine.open(state, EngineOptions(budget=budget))
    for entry in synthetic_session(count):
        if entry.kind == "assistant":
            engine.prepare_request()
        engine.append(entry)
    engine.prepare_request()
    return engine


class Host(App[None]):
    pass


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(
    engine: Engine, presses: int, open_all: bool
) -> dict[str, tuple[list[float], list[float]]]:
    results: dict[str, tuple[list[float], list[float]]] = {}
    overrides = {handle: True for handle in engine.view.forest.folds} if open_all else {}
    app = Host()
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        open_walls: list[float] = []
        open_cpus: list[float] = []
        for attempt in range(OPENINGS):
            wall, cpu = time.perf_counter(), time.process_time()
            screen = FoldEditorScreen(engine, read_only=True)
            await app.push_screen(screen)
            if overrides:
                # Every fold opened in the tree: the map then lists every entry and fold.
                screen.window_map.overrides.update(overrides)
                screen.window_map.reload()
            await pilot.pause()
            open_walls.append(time.perf_counter() - wall)
            open_cpus.append(time.process_time() - cpu)
            if attempt < OPENINGS - 1:
                app.pop_screen()
                await pilot.pause()
        results["open"] = (open_walls, open_cpus)
        window_map = screen.window_map
        walls: list[float] = []
        cpus: list[float] = []
        for number in range(presses):
            key = "pagedown" if number % 10 == 9 else "down"
            wall, cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        results["keypress (pilot)"] = (walls, cpus)
        walls, cpus = [], []
        for _ in range(presses):
            wall, cpu = time.perf_counter(), time.process_time()
            window_map.action_cursor(1)
            for y in range(window_map.size.height):
                window_map.render_line(y)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        results["keypress (handler)"] = (walls, cpus)
        results["rows"] = ([float(len(window_map.rows))], [0.0])
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--presses", type=int, default=300)
    parser.add_argument("--scenario", choices=[*SCENARIOS, "both"], default="both")
    arguments = parser.parse_args()
    console = Console(width=150)
    names = list(SCENARIOS) if arguments.scenario == "both" else [arguments.scenario]
    table = Table(title=f"/fold-editor on {arguments.entries:,} entries (ms)")
    for column in (
        "scenario",
        "rows",
        "measure",
        "samples",
        "median wall",
        "p99 wall",
        "median CPU",
        "p99 CPU",
    ):
        table.add_column(column, justify="left" if column in ("scenario", "measure") else "right")
    for name in names:
        with tempfile.TemporaryDirectory(prefix="pifold-bench-editor-") as folder:
            started = time.perf_counter()
            engine = build_engine(arguments.entries, Path(folder) / "state", SCENARIOS[name])
            console.print(
                f"{name}: {len(engine.view.transcript):,} entries, "
                f"{len(engine.view.forest):,} folds, "
                f"{len(engine.view.marks):,} pending marks, built in "
                f"{time.perf_counter() - started:.1f} s"
            )
            results = asyncio.run(measure(engine, arguments.presses, name == "folded"))
            engine.close()
        rows = f"{int(results.pop('rows')[0][0]):,}"
        for measure_name, (walls, cpus) in results.items():
            table.add_row(
                name,
                rows,
                measure_name,
                str(len(walls)),
                f"{1000 * statistics.median(walls):.2f}",
                f"{1000 * percentile(walls, 0.99):.2f}",
                f"{1000 * statistics.median(cpus):.2f}",
                f"{1000 * percentile(cpus, 0.99):.2f}",
            )
    console.print(table)
    console.print(
        f"open: {OPENINGS} openings (the first is cold); targets: open < 300 ms, keypress < 16 ms"
    )


if __name__ == "__main__":
    main()
