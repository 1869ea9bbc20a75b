"""The conversation on a long session: time to append one message and repaint.

Run: ``.venv/bin/python benchmarks/bench_conversation.py [--messages 1000] [--samples 100]``

A synthetic session of ``--messages`` recorded messages (asks, Markdown answers with tool
calls, their results) is the conversation's source; the conversation mounts its newest
:data:`~pifold_tui.app.conversation.conversation.MOUNTED_LIMIT` rows in a headless Textual
app (``run_test``), and then each sample appends one more message the way the loop delivers
it, the session growing as it goes. It prints, with CPU time beside wall time, median and
p99 of:

* **append + repaint (frame)**: a user message's ``MessageEnd`` posted as an
  ``AgentEventPosted``, as the bridge posts it, until the app has drawn it and gone quiet:
  the wall time runs to the first frame that shows it (the screen's layout-refresh signal),
  the CPU time covers all the work it caused, the follow-up layout Textual runs when a new
  widget's size settles included (measured until no frame for :data:`QUIET_S`; the idle app
  spends about 0.1 ms of CPU in that wait);
* **streaming delta + repaint (frame)**: one more paragraph of a streaming answer, the
  same way (``MessageUpdate`` into the streaming text block);
* **user message / answer (handler)**: the conversation's own handlers awaited directly,
  without the repaint (an answer is streamed in three pieces and recorded);
* **append + repaint (pilot)**: as the frame row, but waiting with Textual's
  ``pilot.pause()``, which also walks every widget and polls for idle: an upper bound;
* **bare Textual**: the floor on this machine, a one-line ``Static`` appended to a plain
  ``VerticalScroll`` of as many rows as the conversation mounts (and the first removed),
  measured as the frame row;
* **ratio to bare**: each frame row's CPU median over the bare list's.

The samples are taken in ``--rounds`` alternations of the conversation and the bare list, so
that on a shared machine both see the same load.

Target on the project's 2-core machine: under 16 ms (one frame at 60 Hz).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from pifold_agent.loop import MemoryRecorder
from pifold_agent.loop.events import MessageEnd, MessageStart, MessageUpdate
from pifold_core.entries import Entry, TextBlock, ToolCallBlock
from pifold_tui.app.conversation import MOUNTED_LIMIT, Conversation
from pifold_tui.app.conversation.markdown_text import StreamingText
from pifold_tui.app.messages import AgentEventPosted

SCREEN_SIZE = (120, 40)
ANSWER = "The fix is in `parse_header`: the **length** check ran before the decode.\n\n"


def synthetic_session(count: int) -> list[Entry]:
    """Chapters of an ask, an answer calling ``read``, its result, and a closing answer."""
    entries: list[Entry] = []
    chapter = 0
    while len(entries) < count:
        chapter += 1
        call = f"c{chapter}"
        entries += [
            Entry(f"u{chapter}", "user", chapter, (TextBlock(f"Chapter {chapter}: fix it"),)),
            Entry(
                f"a{chapter}",
                "assistant",
                chapter,
                (
                    TextBlock(f"Reading **module {chapter}** first."),
                    ToolCallBlock(call, "read", {"path": f"src/module_{chapter}.py"}),
                ),
            ),
            Entry(
                f"r{chapter}",
                "tool_result",
                chapter,
                (TextBlock("\n".join(f"line {n}" for n in range(30))),),
                call,
                "read",
            ),
            Entry(f"d{chapter}", "assistant", chapter, (TextBlock(ANSWER + "- done\n- tested"),)),
        ]
    return entries[:count]


class ConversationBench(App[None]):
    def __init__(self, recorder: MemoryRecorder, limit: int) -> None:
        super().__init__()
        self.recorder = recorder
        self.limit = limit

    def compose(self) -> ComposeResult:
        yield Conversation(self.recorder, limit=self.limit)


Sample = tuple[float, float]
"""Wall and CPU seconds of one append."""

QUIET_S = 0.05
"""How long the screen must go without a frame for an append's work to count as done."""

POLL_S = 0.01
"""How often the wait looks at the frames (the frame times come from the signal itself)."""

GIVE_UP_S = 2.0
"""A guard against a hang (an append that never draws), not a speed check."""


class FrameWatch:
    """Frames of one screen, seen through its public layout-refresh signal."""

    def __init__(self, app: App[None]) -> None:
        self.last_frame = 0.0
        """``perf_counter`` time of the latest frame (each layout refresh ends drawn)."""
        self.shown: Callable[[], bool] | None = None
        """What the frame being waited for must show, while an append is timed."""
        self.first_frame: float | None = None
        """When the first frame showing it was drawn."""
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, self.seen)

    def seen(self, _screen: object) -> None:
        if self.shown is not None and self.first_frame is None and self.shown():
            self.first_frame = time.perf_counter()
        self.last_frame = time.perf_counter()

    async def timed(self, action: Callable[[], object], shown: Callable[[], bool]) -> Sample:
        """Run ``action``; wall time to the first frame drawn once ``shown()`` holds (what
        was appended is on the screen), CPU time until the screen is quiet."""
        wall, cpu = time.perf_counter(), time.process_time()
        self.shown, self.first_frame = shown, None
        action()
        while True:
            await asyncio.sleep(POLL_S)
            now = time.perf_counter()
            if self.first_frame is not None and now - self.last_frame >= QUIET_S:
                break
            if now - wall > GIVE_UP_S:
                raise RuntimeError("the app drew no frame showing the append")
        cpu_spent = time.process_time() - cpu
        first_frame, self.shown = self.first_frame, None
        return first_frame - wall, cpu_spent


async def timed(action: Callable[[], Coroutine[Any, Any, None]]) -> Sample:
    wall, cpu = time.perf_counter(), time.process_time()
    await action()
    return time.perf_counter() - wall, time.process_time() - cpu


async def measure(messages: int, samples: int, limit: int) -> dict[str, list[Sample]]:
    recorder = MemoryRecorder(synthetic_session(messages))
    app = ConversationBench(recorder, limit)
    results: dict[str, list[Sample]] = {
        "frame": [],
        "delta": [],
        "user": [],
        "answer": [],
        "pilot": [],
    }
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        conversation = app.query_one(Conversation)
        watch = FrameWatch(app)

        def post(event: MessageEnd | MessageUpdate) -> Callable[[], object]:
            return lambda: conversation.post_message(AgentEventPosted(event))

        for number in range(samples):
            framed = Entry(f"bench-f{number}", "user", 0, (TextBlock(f"Then {number}"),))
            recorder.record(framed)

            def framed_shown(entry: Entry = framed) -> bool:
                return entry.id in conversation.shown

            results["frame"].append(await watch.timed(post(MessageEnd(framed)), framed_shown))

            streaming = await conversation.start_assistant()
            await streaming.add_delta("text", 0, ANSWER)
            await pilot.pause()
            text = streaming.parts[0]
            assert isinstance(text, StreamingText)

            def delta_shown(text: StreamingText = text) -> bool:
                return text.markdown == ANSWER * 2

            delta = post(MessageUpdate("text", 0, ANSWER))
            results["delta"].append(await watch.timed(delta, delta_shown))
            streamed = Entry(f"bench-s{number}", "assistant", 0, (TextBlock(ANSWER),))
            recorder.record(streamed)
            await conversation.show_event(MessageEnd(streamed, "stop"))
            await pilot.pause()

            user = Entry(f"bench-u{number}", "user", 0, (TextBlock(f"Next step {number}"),))
            recorder.record(user)

            async def handle(user: Entry = user) -> None:
                await conversation.show_event(MessageEnd(user))

            results["user"].append(await timed(handle))
            await pilot.pause()

            answer = Entry(f"bench-a{number}", "assistant", 0, (TextBlock(ANSWER * 3),))

            async def stream(answer: Entry = answer) -> None:
                await conversation.show_event(MessageStart("assistant"))
                for _ in range(3):
                    await conversation.show_event(MessageUpdate("text", 0, ANSWER))
                recorder.record(answer)
                await conversation.show_event(MessageEnd(answer, "stop"))

            results["answer"].append(await timed(stream))
            await pilot.pause()

            posted = Entry(f"bench-p{number}", "user", 0, (TextBlock(f"And then {number}"),))
            recorder.record(posted)

            async def post_and_paint(posted: Entry = posted) -> None:
                conversation.post_message(AgentEventPosted(MessageEnd(posted)))
                await pilot.pause()

            results["pilot"].append(await timed(post_and_paint))
        assert len(conversation.rows()) <= conversation.limit
    return results


class BareScroll(App[None]):
    """The baseline: a plain ``VerticalScroll`` of one-line ``Static`` widgets."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        yield VerticalScroll(*(Static(f"line {number}") for number in range(self.count)))


async def measure_baseline(count: int, samples: int) -> list[Sample]:
    """Mount one ``Static`` at the end of ``count`` and drop the first, until drawn."""
    app = BareScroll(count)
    results: list[Sample] = []
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        scroll = app.query_one(VerticalScroll)
        watch = FrameWatch(app)
        for number in range(samples):
            appended = Static(f"appended {number}")

            def append(appended: Static = appended) -> None:
                scroll.mount(appended)
                scroll.children[0].remove()
                scroll.scroll_end(animate=False)

            def appended_shown(appended: Static = appended) -> bool:
                return appended.is_mounted

            results.append(await watch.timed(append, appended_shown))
            await pilot.pause()
    return results


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


NAMES = {
    "frame": "append + repaint (frame)",
    "delta": "streaming delta + repaint (frame)",
    "user": "user message (handler)",
    "answer": "answer, 3 pieces (handler)",
    "pilot": "append + repaint (pilot)",
    "baseline": "bare Textual, same rows (frame)",
}
"""The table's rows, in order."""


def table(results: dict[str, list[Sample]], messages: int, limit: int) -> Table:
    grid = Table(title=f"append to {messages:,} messages, {limit} rows mounted (ms)")
    grid.add_column("case")
    for heading in ("wall p50", "wall p99", "cpu p50", "cpu p99", "cpu p50 / bare"):
        grid.add_column(heading, justify="right")
    bare = statistics.median(cpu for _, cpu in results["baseline"])
    for key, label in NAMES.items():
        walls = [wall * 1000 for wall, _ in results[key]]
        cpus = [cpu * 1000 for _, cpu in results[key]]
        framed = key in ("frame", "delta", "pilot")
        grid.add_row(
            label,
            f"{statistics.median(walls):.1f}",
            f"{percentile(walls, 0.99):.1f}",
            f"{statistics.median(cpus):.1f}",
            f"{percentile(cpus, 0.99):.1f}",
            f"{statistics.median(cpus) / (bare * 1000):.2f}x" if framed else "",
        )
    return grid


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=1_000)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--limit", type=int, default=MOUNTED_LIMIT, help="rows kept mounted")
    parser.add_argument(
        "--rounds", type=int, default=5, help="alternations of the app and the bare list"
    )
    options = parser.parse_args(argv)
    if min(options.messages, options.samples, options.limit, options.rounds) < 1:
        parser.error("--messages, --samples, --limit and --rounds must be at least 1")
    results: dict[str, list[Sample]] = {key: [] for key in NAMES}
    # In rounds, the conversation then the bare list: on a shared machine the load changes
    # from minute to minute, and each round's two halves see about the same.
    rounds = min(options.rounds, options.samples)
    for round_number in range(rounds):
        share = options.samples // rounds + (round_number < options.samples % rounds)
        for key, samples in asyncio.run(measure(options.messages, share, options.limit)).items():
            results[key] += samples
        results["baseline"] += asyncio.run(measure_baseline(options.limit, share))
    Console(width=120).print(table(results, options.messages, options.limit))
    print("target: under 16 ms CPU, and at most 1.2x the bare list")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
