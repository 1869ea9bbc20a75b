"""``/fold-editor`` on a long session: time to open and time per keypress.

Run: ``.venv/bin/python benchmarks/bench_editor.py [--entries 20000] [--presses 300]``

A synthetic session of ``--entries`` entries (chapters of tool batches, so folds nest and
marks are pending) is driven through the real engine, then the editor is opened on it in a
headless Textual app. It prints wall time, the process's CPU time (every thread) and the UI
thread's own CPU time (what holds keys back):

* **open**: from pushing the screen until the app goes idle (Pilot waits until the process's
  CPU rests, up to a second), so the process's CPU also holds the first cursor rest's peek,
  verified in its worker thread while the screen is already usable; the UI thread's CPU is
  the screen's own. The full (generation 2) collections during the openings are counted with
  ``gc.callbacks``;
* **keypress (pilot)**: one ``down`` (every tenth a ``pagedown``) through Textual's test
  pilot, which also waits for the app to go idle, so it is an upper bound;
* **keypress (handler)**: the cursor move itself plus drawing every visible row, which is
  what a key costs the app between two frames;
* **keypress, idle** and **keypress, readable form loading** (the folded session only): a
  key event sent to the app as a terminal sends it (``down`` and ``up`` in turn), timed until
  the app has handled it and drawn the next frame; the second while the pane's worker reads,
  verifies and indents the whole of the largest fold (2,000 entries; the readable form, the
  one read that still covers a whole source since the exact form reads only its slice),
  started again whenever it ends, counting only keys handled wholly while it ran. The idle
  run, in the same process just before, is its baseline;
* **peek, first slice** and **peek, whole** (the folded session only): what the pane's
  worker spends on the largest fold when the cursor rests on it (``Engine.peek_range`` of
  the slice shown) against reading and verifying its whole source (``Engine.peek``, what it
  read before issue 23), called directly, in the same run; and the readable form's read as
  the worker makes it (the whole source in chunks, indented a record at a time, giving the
  UI thread turns: its wall time is longer than its CPU by design).

Targets on the project's 2-core machine: open under 300 ms, a keypress under 16 ms (p99),
while a large peek loads too.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerState

from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock, ToolCallBlock
from pifold_core.options import EngineOptions
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.editor import screen as editor_screen
from pifold_tui.screens.editor.source_reading import SLICE_BYTES, read_slice

SCREEN_SIZE = (150, 40)
OPENINGS = 5
"""Times the screen is opened (the first is cold: new widget types' CSS, palettes)."""
PEEK_REPEATS = 20
"""Times each peek of the largest fold is timed."""


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


@dataclass
class Samples:
    """One measure's samples, in seconds."""

    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    """The process's CPU time (every thread)."""
    thread_cpus: list[float] = field(default_factory=list)
    """The UI thread's own CPU time."""


class Clock:
    """Wall, process CPU and this thread's CPU from one point, added to :class:`Samples`."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()
        self.thread_cpu = time.thread_time()

    def stop(self, samples: Samples) -> None:
        samples.walls.append(time.perf_counter() - self.wall)
        samples.cpus.append(time.process_time() - self.cpu)
        samples.thread_cpus.append(time.thread_time() - self.thread_cpu)


class FullCollections:
    """Generation-2 collections and the CPU they took, counted with ``gc.callbacks``."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.process_time()
        else:
            self.count += 1
            self.seconds += time.process_time() - self._started


async def send_key(pilot: Pilot[None], key: str) -> None:
    """Send ``key`` as the terminal would and return once the app has handled it and drawn
    the next frame (no wait for the process to go idle: a worker may be busy)."""
    driver = pilot.app._driver
    assert driver is not None
    event = events.Key(key, None)
    event.set_sender(pilot.app)
    driver.send_message(event)
    await pilot.pause(0)


async def keys_while_loading(
    pilot: Pilot[None], screen: FoldEditorScreen, handle: str, presses: int
) -> tuple[Samples, Samples]:
    """Keypresses with nothing loading, then while the pane reads and verifies ``handle``."""
    idle, loading = Samples(), Samples()
    for number in range(presses):
        clock = Clock()
        await send_key(pilot, "down" if number % 2 == 0 else "up")
        clock.stop(idle)
    await pilot.pause(0.3)  # the cursor's own rest loads and ends before the loaded run
    # The cursor's rests start no load of their own in this run (their delay is set past
    # it), so exactly one large peek loads at a time, and none is cancelled.
    resting, editor_screen.SOURCE_DELAY = editor_screen.SOURCE_DELAY, 3600.0
    try:
        await load_and_press(pilot, screen, handle, presses, loading)
    finally:
        editor_screen.SOURCE_DELAY = resting
    return idle, loading


async def load_and_press(
    pilot: Pilot[None], screen: FoldEditorScreen, handle: str, presses: int, loading: Samples
) -> None:
    """Read ``handle``'s readable form again and again, pressing keys while each load runs."""
    window_map, pane = screen.window_map, screen.source_pane
    pane.toggle_form()  # the readable form: the whole source is read, verified and indented
    if pane.reading is not None:
        await pane.reading.wait()
    while len(loading.walls) < presses:
        pane.show(handle)
        worker = pane.reading
        assert worker is not None
        while worker.state is WorkerState.RUNNING and len(loading.walls) < presses:
            key = "down" if window_map.cursor % 2 == 0 else "up"
            clock = Clock()
            await send_key(pilot, key)
            if worker.state is WorkerState.RUNNING:
                clock.stop(loading)  # the whole keypress ran while the peek did
        await worker.wait()


def peek_costs(engine: Engine, handle: str, spanned: str) -> dict[str, Samples]:
    """The worker's read when the cursor rests on ``handle`` (its first slice), against
    reading and verifying the whole source, alternating in the same run."""
    bounded, whole, readable = Samples(), Samples(), Samples()
    for _ in range(PEEK_REPEATS):
        clock = Clock()
        engine.peek_range(handle, 0, SLICE_BYTES)
        clock.stop(bounded)
        clock = Clock()
        engine.peek(handle)
        clock.stop(whole)
        clock = Clock()
        read_slice(engine, handle, 0, True)  # as the pane's worker reads it, giving way
        clock.stop(readable)
    return {
        f"peek of {spanned}, first slice": bounded,
        f"peek of {spanned}, whole": whole,
        f"readable form of {spanned}, first slice": readable,
    }


async def measure(engine: Engine, presses: int, open_all: bool) -> dict[str, Samples]:
    results: dict[str, Samples] = {}
    overrides = {handle: True for handle in engine.view.forest.folds} if open_all else {}
    app = Host()
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        opening = Samples()
        collections = FullCollections()
        gc.callbacks.append(collections)
        for attempt in range(OPENINGS):
            clock = Clock()
            screen = FoldEditorScreen(engine, read_only=True)
            await app.push_screen(screen)
            if overrides:
                # Every fold opened in the tree: the map then lists every entry and fold.
                screen.window_map.overrides.update(overrides)
                screen.window_map.reload()
            await pilot.pause()
            clock.stop(opening)
            if attempt < OPENINGS - 1:
                app.pop_screen()
                await pilot.pause()
        gc.callbacks.remove(collections)
        results["open"] = opening
        window_map = screen.window_map
        pressed = Samples()
        for number in range(presses):
            key = "pagedown" if number % 10 == 9 else "down"
            clock = Clock()
            await pilot.press(key)
            clock.stop(pressed)
        results["keypress (pilot)"] = pressed
        handled = Samples()
        for _ in range(presses):
            clock = Clock()
            window_map.action_cursor(1)
            for y in range(window_map.size.height):
                window_map.render_line(y)
            clock.stop(handled)
        results["keypress (handler)"] = handled
        if open_all:
            largest = max(engine.view.forest.folds.values(), key=lambda fold: fold.end - fold.start)
            idle, loading = await keys_while_loading(pilot, screen, largest.handle, presses)
            spanned = f"{largest.end - largest.start:,}"
            results["keypress, idle"] = idle
            results[f"keypress, readable form of {spanned} loading"] = loading
            results.update(peek_costs(engine, largest.handle, spanned))
        results["rows"] = Samples([float(len(window_map.rows))])
        results["full collections"] = Samples([float(collections.count)], [collections.seconds])
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--presses", type=int, default=300)
    parser.add_argument("--scenario", choices=[*SCENARIOS, "both"], default="both")
    arguments = parser.parse_args()
    console = Console(width=170)
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
        "median UI CPU",
        "p99 UI CPU",
    ):
        table.add_column(column, justify="left" if column in ("scenario", "measure") else "right")
    notes: list[str] = []
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
        rows = f"{int(results.pop('rows').walls[0]):,}"
        collections = results.pop("full collections")
        notes.append(
            f"{name}: {int(collections.walls[0])} full collections during the "
            f"{OPENINGS} openings, {1000 * collections.cpus[0]:.0f} ms CPU together"
        )
        for measure_name, samples in results.items():
            table.add_row(
                name,
                rows,
                measure_name,
                str(len(samples.walls)),
                *(
                    f"{1000 * figure:.2f}"
                    for values in (samples.walls, samples.cpus, samples.thread_cpus)
                    for figure in (statistics.median(values), percentile(values, 0.99))
                ),
            )
        loading = [key for key in results if key.startswith("keypress, readable")]
        if loading:
            idle, busy = results["keypress, idle"], results[loading[0]]
            notes.append(
                f"{name}: a keypress while the readable form loads against idle, p99: wall "
                f"{percentile(busy.walls, 0.99) / percentile(idle.walls, 0.99):.2f}x, UI CPU "
                f"{percentile(busy.thread_cpus, 0.99) / percentile(idle.thread_cpus, 0.99):.2f}x"
            )
    console.print(table)
    for note in notes:
        console.print(note)
    console.print(
        f"open: {OPENINGS} openings (the first is cold); targets: open < 300 ms, keypress < 16 ms"
    )


if __name__ == "__main__":
    main()
