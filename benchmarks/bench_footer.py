"""How long the footer takes to repaint in a long session.

Run from the repository root::

    .venv/bin/python benchmarks/bench_footer.py [--messages 4000]

The footer repaints on every reply and every resize. It shows the provider's cache figures
(:mod:`pifold_agent.cache_report.tally`), which it now counts as each reply is recorded
(:meth:`~pifold_tui.app.footer.SessionFooter.record`); it used to count them again from every
recorded message of the session file at each repaint. Both are measured here in the same run,
on a real session file of ``--messages`` messages (half of them replies carrying a verdict):
the repaint as it is, and the repaint with the full recount it replaced, so the ratio holds on
a busy machine. CPU time per repaint is shown beside wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pifold_agent.cache_report.records import CACHE_KEY, PROVIDER_DATA, verdict_record
from pifold_agent.cache_report.reports import ProviderCacheReport
from pifold_agent.cache_report.tally import CacheTally
from pifold_agent.cache_report.verdict import EngineFacts, judge
from pifold_agent.sessions import SessionFile
from pifold_core.entries import Entry, TextBlock, Usage
from pifold_tui.app.footer import SessionFooter

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY))

from tests.ui.app.footer_host import FooterApp, Shown  # noqa: E402 (after the path)

REPAINTS = 200
"""Repaints per measurement."""


def session_of(folder: Path, messages: int) -> SessionFile:
    """A session file of ``messages`` messages: a prompt, then a reply with a cache verdict
    (every fifth one a miss a commit explains), turn after turn."""
    session = SessionFile.create(folder / "project", sessions_dir=folder / "sessions")
    for turn in range(messages // 2):
        session.record(Entry(f"u{turn}", "user", 2 * turn, (TextBlock(f"prompt {turn}"),)))
        missed = turn % 5 == 4
        report = ProviderCacheReport("miss", "messages_changed", 700) if missed else None
        facts = EngineFacts(turn + 1, "attributed" if missed else "append", 2, ("commit 1",))
        read = 300 if missed else 900
        verdict = judge(report or ProviderCacheReport("hit"), facts, read)
        session.record(
            Entry(
                f"a{turn}",
                "assistant",
                2 * turn + 1,
                (TextBlock(f"answer {turn}"),),
                usage=Usage(input_tokens=1_000 - read, output_tokens=10, cache_read_tokens=read),
                extra={PROVIDER_DATA: {CACHE_KEY: verdict_record(verdict)}},
            )
        )
    return session


def per_repaint(action: Callable[[], object]) -> tuple[float, float]:
    """Median wall milliseconds of one call of ``action``, and mean CPU milliseconds."""
    walls = []
    cpu_started = time.process_time()
    for _ in range(REPAINTS):
        started = time.perf_counter()
        action()
        walls.append((time.perf_counter() - started) * 1000.0)
    cpu = (time.process_time() - cpu_started) * 1000.0 / REPAINTS
    return statistics.median(walls), cpu


async def measure(session: SessionFile) -> None:
    """Print the two repaints' figures."""
    async with FooterApp().run_test(size=(160, 3)) as pilot:
        footer = pilot.app.query_one(SessionFooter)
        footer.open(Shown(session), "esc abort · ctrl+p commands · /help")

        def recounted() -> None:
            # The repaint before: the cache figures counted from every recorded message.
            CacheTally.of(session.recorded()).footer_figure()
            footer.show()

        rows = {"repaint (running tally)": footer.show, "repaint with full recount": recounted}
        figures = {name: per_repaint(action) for name, action in rows.items()}
    print(f"{'measurement':<28}{'median wall ms':>16}{'CPU ms':>10}")
    for name, (wall, cpu) in figures.items():
        print(f"{name:<28}{wall:>16.3f}{cpu:>10.3f}")
    now, before = figures["repaint (running tally)"][1], figures["repaint with full recount"][1]
    print(f"CPU ratio, recount / running: {before / now:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=4_000, help="messages in the session")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        session = session_of(Path(folder), arguments.messages)
        print(f"{len(session.recorded()):,} recorded messages, {REPAINTS} repaints each")
        asyncio.run(measure(session))


if __name__ == "__main__":
    main()
