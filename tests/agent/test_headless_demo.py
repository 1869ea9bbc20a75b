"""``pifold demo --headless``'s driver: a real trace played through the whole loop."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from pifold_agent.bundled_traces import traces_folder
from pifold_agent.headless_demo import demo_rows, headless_demo, run_demo
from pifold_agent.importers import load_trace
from pifold_core.options import EngineOptions

TRACE = traces_folder() / "pi-v3-paradocs"


def test_a_real_trace_plays_through_the_loop_with_every_fold_verified(tmp_path: Path) -> None:
    path = next(item for item in sorted(TRACE.iterdir()) if item.suffix == ".jsonl")
    trace = load_trace(path)
    figures = run_demo(trace.entries, EngineOptions(budget=60_000), tmp_path / "state")

    assert figures.outcome == "stop", figures.error
    replies = sum(entry.kind == "assistant" for entry in trace.entries)
    assert figures.requests == replies
    assert figures.unattributed == 0 and not figures.failures
    assert figures.commits and figures.verified_folds == figures.folds > 0
    assert figures.events["message_update"] > replies  # streamed in chunks
    rows = dict(demo_rows(figures))
    assert rows["unattributed rewrites"] == "0"
    assert rows["folds verified byte for byte"] == f"{figures.folds} / {figures.folds}"


def test_a_budget_under_one_token_is_refused() -> None:
    output = io.StringIO()
    assert headless_demo(0, Console(file=output)) == 2
    assert "--budget must be a positive number of tokens" in output.getvalue()
