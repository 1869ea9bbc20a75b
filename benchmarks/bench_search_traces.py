"""The search index's upkeep on real sessions (issue 21): its share of the commits' CPU.

Run: ``.venv/bin/python benchmarks/bench_search_traces.py [--budgets 20000 50000 100000]
[--repeat 3]``

:mod:`bench_search` measures the upkeep on a long synthetic session, whose text is unlike
real text where the index is concerned: every line holds random numbers, so each commit's
text brings about 30 new words per thousand characters, against 5 to 12 over a whole
bundled trace (``vocabulary`` below). This one replays each vendored trace
(``pifold_agent/data/traces``) through the real engine, ``prepare_request`` before every
assistant message as a host does, at each budget, and times every commit and, inside it,
the upkeep (:meth:`SessionSearch.after_commit`), CPU beside wall. Each trace is replayed
``--repeat`` times into fresh state folders, interleaved, so a busy moment of the shared
machine falls on every trace alike.

Printed per budget and trace: commits, their CPU, the upkeep's, its share and the baseline
from the same run (the same commits' CPU less the upkeep's: the engine does nothing else for
search at a commit). A short trace makes few commits and its first is the largest (it folds
most of what came before and creates the index file), so the shares swing from trace to
trace; the row of all traces together is the figure.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.importers.detect import load_trace
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.options import EngineOptions
from pifold_core.search.text import searchable_text

sys.path.insert(0, str(Path(__file__).parent))
from bench_search import upkeep_timed

_WORD = re.compile(r"[^\W_]+")
"""Words as the index's tokenizer cuts them (runs of letters and digits)."""


@dataclass
class Tally:
    """One trace's sums at one budget, over the repeats."""

    commits: int = 0
    commit_cpu: float = 0.0
    commit_wall: float = 0.0
    upkeep_cpu: float = 0.0
    upkeep_wall: float = 0.0
    upkeeps: list[tuple[float, float]] = field(default_factory=list)


def _clocks() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def replay(entries: list[Entry], budget: int, tally: Tally, folder: Path) -> None:
    """Drive one fresh engine through ``entries``, adding its commits to ``tally``."""
    engine = Engine.open(folder, EngineOptions(budget=budget))
    seen = len(tally.upkeeps)
    try:
        for entry in entries:
            if entry.kind == "assistant":
                cpu, wall = _clocks()
                request = engine.prepare_request()
                if request.commit is not None:
                    now_cpu, now_wall = _clocks()
                    tally.commits += 1
                    tally.commit_cpu += now_cpu - cpu
                    tally.commit_wall += now_wall - wall
            engine.append(entry)
        problem = engine._session_search().upkeep_problem
    finally:
        engine.close()
    if problem is not None:
        raise SystemExit(f"the upkeep wrote nothing: {problem}")
    mine = tally.upkeeps[seen:]
    tally.upkeep_cpu += sum(cpu for cpu, _ in mine)
    tally.upkeep_wall += sum(wall for _, wall in mine)


def vocabulary(entries: list[Entry]) -> float:
    """Distinct words per thousand characters of the trace's searchable text."""
    texts = [searchable_text(entry) for entry in entries]
    words = {word.lower() for text in texts for word in _WORD.findall(text)}
    return 1000 * len(words) / max(1, sum(map(len, texts)))


def _share(part: float, whole: float) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[20_000, 50_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    traces = {path.parent.name: load_trace(path).entries for path in bundled_traces()}
    upkeeps: list[tuple[float, float]] = []
    tallies = {
        (budget, name): Tally(upkeeps=upkeeps) for budget in arguments.budgets for name in traces
    }
    with (
        upkeep_timed(upkeeps),
        tempfile.TemporaryDirectory(prefix="bench-search-traces-") as folder,
    ):
        for round_number in range(arguments.repeat):
            for budget in arguments.budgets:
                for name, entries in traces.items():
                    state = Path(folder) / f"{round_number}-{budget}-{name}"
                    replay(entries, budget, tallies[budget, name], state)
    console = Console(width=120)
    for budget in arguments.budgets:
        table = Table(
            title=f"search upkeep on the bundled traces, budget {budget:,}, "
            f"{arguments.repeat} replays each (goal <= 10 %)"
        )
        for heading in (
            "trace",
            "words / k chars",
            "commits",
            "commits' CPU / wall ms",
            "baseline CPU ms",
            "upkeep CPU / wall ms",
            "share",
        ):
            table.add_column(heading, justify="left" if heading == "trace" else "right")
        whole = Tally()
        for name, entries in traces.items():
            tally = tallies[budget, name]
            whole.commits += tally.commits
            whole.commit_cpu += tally.commit_cpu
            whole.upkeep_cpu += tally.upkeep_cpu
            whole.commit_wall += tally.commit_wall
            whole.upkeep_wall += tally.upkeep_wall
            table.add_row(
                name,
                f"{vocabulary(entries):.1f}",
                f"{tally.commits:,}",
                f"{tally.commit_cpu * 1000:.0f} / {tally.commit_wall * 1000:.0f}",
                f"{(tally.commit_cpu - tally.upkeep_cpu) * 1000:.0f}",
                f"{tally.upkeep_cpu * 1000:.1f} / {tally.upkeep_wall * 1000:.1f}",
                _share(tally.upkeep_cpu, tally.commit_cpu),
            )
        table.add_row(
            "all traces",
            "",
            f"{whole.commits:,}",
            f"{whole.commit_cpu * 1000:.0f} / {whole.commit_wall * 1000:.0f}",
            f"{(whole.commit_cpu - whole.upkeep_cpu) * 1000:.0f}",
            f"{whole.upkeep_cpu * 1000:.1f} / {whole.upkeep_wall * 1000:.1f}",
            _share(whole.upkeep_cpu, whole.commit_cpu),
        )
        console.print(table)


if __name__ == "__main__":
    main()
