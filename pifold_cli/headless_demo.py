"""``pifold demo --headless``: the bundled real session played through the whole agent loop.

Unlike ``pifold demo`` (a replay that feeds the trace's entries to the engine directly),
this runs the agent: the scripted provider plays each recorded assistant message as a
streamed reply to the engine's projection, the loop answers its tool calls with the recorded
results, the user's later messages arrive through the steering and follow-up queues, and the
engine folds and commits exactly as it would behind a live model. At the end every fold is
peeked and compared byte for byte with the entries it covers.
"""

from __future__ import annotations

import asyncio
import datetime
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pifold_agent.bundled_traces import demo_trace
from pifold_agent.importers import load_trace
from pifold_agent.loop import Agent, AgentConfig, AgentEvent, MemoryRecorder, RunResult
from pifold_agent.loop.events import CommitDone, MessageEnd, MessageStart, OverflowRecovered
from pifold_agent.loop.system_prompt import system_prompt
from pifold_agent.replay import verify_folds
from pifold_agent.replay_report import over_budget_problem, requests_over_budget
from pifold_agent.scripted.provider import ScriptedProvider, script_from_entries
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.options import EngineOptions, OptionsError, check_budget
from pifold_core.settings import SettingsError, SettingsFile
from pifold_core.tokens import TiktokenCounter


@dataclass
class DemoFigures:
    """What the headless demo measured."""

    outcome: str = ""
    """How the run ended (``stop`` when the whole script played)."""
    error: str | None = None
    events: Counter[str] = field(default_factory=Counter)
    """Events emitted, by type."""
    requests: int = 0
    appends: int = 0
    rewrites: int = 0
    unattributed: int = 0
    commits: list[CommitDone] = field(default_factory=list)
    overflows: list[OverflowRecovered] = field(default_factory=list)
    folds: int = 0
    verified_folds: int = 0
    failures: list[str] = field(default_factory=list)
    entries: int = 0
    user_messages: int = 0
    """User messages delivered: the prompt, steering and follow-ups."""
    peak_tokens: int = 0
    """The largest request the engine projected (its own count)."""
    final_tokens: int = 0
    budget: int = 0
    request_tokens: list[int] = field(default_factory=list)
    """Expected occupancy of each request as it went out (the figure ``replay`` counts)."""

    @property
    def over_budget(self) -> int:
        """Requests over the budget even after overflow recovery, counted as ``replay``
        counts them."""
        return requests_over_budget(self.request_tokens, self.budget)


async def play(entries: list[Entry], options: EngineOptions, state_dir: Path) -> DemoFigures:
    """Play a transcript's replies through the agent loop over a fresh engine."""
    engine = Engine.open(state_dir, options)
    figures = DemoFigures(budget=options.budget)
    try:
        counter = TiktokenCounter()
        provider = ScriptedProvider(script_from_entries(entries), counter)
        recorder = MemoryRecorder()
        tools = provider.recorded_tools()
        cwd = Path.cwd()
        # The date of the first message, so the demo's prompt is the same on every run.
        first = datetime.datetime.fromtimestamp(entries[0].timestamp_ms / 1000, datetime.UTC)
        prompt_text = system_prompt(tools, cwd, first.date())
        agent = Agent(engine, provider, tools, recorder, AgentConfig(cwd, prompt_text))
        provider.attach(agent.queues)

        def observe(event: AgentEvent) -> None:
            figures.events[event.type] += 1
            if isinstance(event, CommitDone):
                figures.commits.append(event)
            elif isinstance(event, OverflowRecovered):
                figures.overflows.append(event)
            elif isinstance(event, MessageEnd) and event.entry.kind == "user":
                figures.user_messages += 1
            if isinstance(event, MessageStart) and event.role == "assistant":
                # Emitted as the request goes out: the projection is exactly what was sent.
                figures.peak_tokens = max(figures.peak_tokens, engine.view.projection.tokens)
                figures.request_tokens.append(engine.expected_tokens())

        agent.subscribe(observe)
        result: RunResult = await agent.run(provider.opening_prompt())
        figures.outcome, figures.error = result.outcome, result.error
        counts = engine.view.audit_counts
        figures.requests, figures.appends = counts.requests, counts.appends
        figures.rewrites, figures.unattributed = counts.rewrites, counts.unattributed
        figures.folds = len(engine.view.forest.folds)
        figures.verified_folds, figures.failures = verify_folds(engine)
        figures.entries = len(engine.view.transcript.entries)
        figures.final_tokens = engine.view.projection.tokens
    finally:
        engine.close()
    return figures


def run_demo(entries: list[Entry], options: EngineOptions, state_dir: Path | None) -> DemoFigures:
    """Play the demo in ``state_dir`` (a temporary folder when ``None``)."""
    if state_dir is not None:
        return asyncio.run(play(entries, options, state_dir))
    with tempfile.TemporaryDirectory(prefix="pifold-demo-") as folder:
        return asyncio.run(play(entries, options, Path(folder) / "state"))


def demo_rows(figures: DemoFigures) -> list[tuple[str, str]]:
    """The demo's figures as label and value rows."""
    events = figures.events
    commits = figures.commits
    share = figures.appends / figures.requests if figures.requests else 0.0
    return [
        ("run outcome", figures.outcome + (f" ({figures.error})" if figures.error else "")),
        ("model requests (streamed replies)", f"{figures.requests:,}"),
        ("text and tool-call deltas streamed", f"{events['message_update']:,}"),
        ("tool calls answered", f"{events['tool_execution_end']:,}"),
        ("user messages (prompt, steering, follow-ups)", f"{figures.user_messages:,}"),
        ("pure appends", f"{figures.appends:,} ({share:.1%})"),
        ("attributed rewrites", f"{figures.rewrites:,}"),
        ("unattributed rewrites", f"{figures.unattributed:,}"),
        ("commits (cause: tokens before → after)", _commit_text(commits)),
        ("overflow recoveries", f"{len(figures.overflows):,}"),
        ("folds", f"{figures.folds:,}"),
        ("folds verified byte for byte", f"{figures.verified_folds} / {figures.folds}"),
        ("entries in the engine", f"{figures.entries:,}"),
        ("budget", f"{figures.budget:,} tokens"),
        ("largest request (engine's count)", f"{figures.peak_tokens:,} tokens"),
        ("requests over budget", f"{figures.over_budget:,}"),
        ("final window (engine's count)", f"{figures.final_tokens:,} tokens"),
    ]


def _commit_text(commits: list[CommitDone]) -> str:
    if not commits:
        return "none"
    return "; ".join(
        f"{commit.cause}: {commit.tokens_before:,} → {commit.tokens_after:,}" for commit in commits
    )


def headless_demo(budget: int, console: Console) -> int:
    """Play the bundled session headless and print what the engine did; the exit code."""
    try:
        check_budget(budget, "--budget")
    except OptionsError as error:
        console.print(f"[red]error:[/] {error}")
        return 2
    try:
        options = replace(SettingsFile(base=EngineOptions(budget=budget)).load(), budget=budget)
    except SettingsError as error:
        console.print(f"[red]error:[/] {error}")
        return 2
    console.print(
        "[bold]pifold demo --headless[/]: the bundled real Pi session (pi-mono, MIT) played "
        "through the agent loop by the scripted provider: each recorded reply streamed to "
        "the engine's projection, its tool calls answered with the recorded results."
    )
    entries = load_trace(demo_trace()).entries
    figures = run_demo(entries, options, None)
    table = Table(title="what the engine did", show_header=False)
    table.add_column("figure", style="bold")
    table.add_column("value", justify="right")
    for label, value in demo_rows(figures):
        table.add_row(label, value)
    console.print(table)
    for failure in figures.failures:
        console.print(f"[red]fold failure:[/] {failure}")
    if figures.over_budget:
        peak = max(figures.request_tokens)
        problem = over_budget_problem(figures.over_budget, peak, figures.budget)
        console.print(f"[red]error:[/] {problem}")
    healthy = (
        figures.outcome == "stop"
        and not figures.unattributed
        and not figures.failures
        and not figures.over_budget
    )
    return 0 if healthy else 1


__all__ = ["DemoFigures", "demo_rows", "headless_demo", "play", "run_demo"]
