"""The conversation on a long session: time to append one message and repaint.

Run: ``.venv/bin/python benchmarks/bench_conversation.py [--messages 1000] [--samples 200]``

A synthetic session of ``--messages`` recorded messages (asks, Markdown answers with tool
calls, their results) is the conversation's source; the conversation mounts its newest
:data:`~pifold_tui.app.conversation.conversation.MOUNTED_LIMIT` rows in a headless Textual
app (``run_test``), and then each sample appends one more message the way the loop delivers
it, the session growing as it goes. It prints, with CPU time beside wall time, median and
p99 of:

* **user message (handler)**: the ``MessageEnd`` of a user message handled: mounted,
  pruned, scrolled to the tail;
* **answer (handler)**: an assistant answer streamed in three Markdown pieces and recorded;
* **append + repaint (pilot)**: the user message posted as an ``AgentEventPosted`` and the
  app idle again with the frame drawn (Textual's pilot waits for idle, so an upper bound);
* **bare Textual, same rows (pilot)**: the floor on this machine: a one-line ``Static``
  appended to a plain ``VerticalScroll`` of as many rows (and the first removed), repainted.

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


async def timed(action: Callable[[], Coroutine[Any, Any, None]]) -> Sample:
    wall, cpu = time.perf_counter(), time.process_time()
    await action()
    return time.perf_counter() - wall, time.process_time() - cpu


async def measure(messages: int, samples: int, limit: int) -> dict[str, list[Sample]]:
    recorder = MemoryRecorder(synthetic_session(messages))
    app = ConversationBench(recorder, limit)
    results: dict[str, list[Sample]] = {"user": [], "answer": [], "pilot": []}
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        conversation = app.query_one(Conversation)
        for number in range(samples):
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
    """Mount one ``Static`` at the end of ``count`` and drop the first, then repaint."""
    app = BareScroll(count)
    results: list[Sample] = []
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        scroll = app.query_one(VerticalScroll)
        for number in range(samples):

            async def append(number: int = number) -> None:
                await scroll.mount(Static(f"appended {number}"))
                await scroll.children[0].remove()
                scroll.scroll_end(animate=False)
                await pilot.pause()

            results.append(await timed(append))
    return results


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def table(results: dict[str, list[Sample]], messages: int, limit: int) -> Table:
    names = {
        "user": "user message (handler)",
        "answer": "answer, 3 pieces (handler)",
        "pilot": "append + repaint (pilot)",
        "baseline": "bare Textual, same rows (pilot)",
    }
    grid = Table(title=f"append to {messages:,} messages, {limit} rows mounted (ms)")
    grid.add_column("case")
    for heading in ("wall p50", "wall p99", "cpu p50", "cpu p99"):
        grid.add_column(heading, justify="right")
    for key, label in names.items():
        walls = [wall * 1000 for wall, _ in results[key]]
        cpus = [cpu * 1000 for _, cpu in results[key]]
        grid.add_row(
            label,
            f"{statistics.median(walls):.1f}",
            f"{percentile(walls, 0.99):.1f}",
            f"{statistics.median(cpus):.1f}",
            f"{percentile(cpus, 0.99):.1f}",
        )
    return grid


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=1_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--limit", type=int, default=MOUNTED_LIMIT, help="rows kept mounted")
    options = parser.parse_args(argv)
    if min(options.messages, options.samples, options.limit) < 1:
        parser.error("--messages, --samples and --limit must be at least 1")
    results = asyncio.run(measure(options.messages, options.samples, options.limit))
    results["baseline"] = asyncio.run(measure_baseline(options.limit, options.samples))
    Console().print(table(results, options.messages, options.limit))
    print("target: under 16 ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
