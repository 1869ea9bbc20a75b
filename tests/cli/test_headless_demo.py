"""``pifold demo --headless``'s driver: a real trace played through the whole loop."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from pifold_agent.bundled_traces import traces_folder
from pifold_agent.importers import load_trace
from pifold_agent.replay_report import requests_over_budget
from pifold_cli.headless_demo import demo_rows, headless_demo, run_demo
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
    assert "--budget must be from 1,000 to 10,000,000 tokens, got 0" in output.getvalue()


def test_requests_over_the_budget_are_counted_as_replay_counts_them(tmp_path: Path) -> None:
    """At 12,000 tokens this session's host prompt and tail outgrow the budget: the demo says
    how many requests went over, by replay's own count (issue 19: it said nothing, exit 0)."""
    path = next(item for item in sorted(TRACE.iterdir()) if item.suffix == ".jsonl")
    trace = load_trace(path)
    figures = run_demo(trace.entries, EngineOptions(budget=12_000), tmp_path / "state")
    replies = sum(entry.kind == "assistant" for entry in trace.entries)
    assert len(figures.request_tokens) == replies  # one figure per request sent
    assert figures.over_budget == requests_over_budget(figures.request_tokens, 12_000) > 0
    assert dict(demo_rows(figures))["requests over budget"] == f"{figures.over_budget:,}"
    assert figures.unattributed == 0 and not figures.failures
