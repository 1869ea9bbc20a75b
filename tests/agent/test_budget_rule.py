"""One budget rule (issue 19): every route refuses the same budgets with the same words, and
``pifold demo`` counts and fails on requests over the budget as ``pifold replay`` does."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from pifold_agent.bundled_traces import bundled_trace
from pifold_cli import app as cli
from pifold_cli import replay_command
from pifold_cli.headless_demo import headless_demo
from pifold_core.options import (
    MAX_BUDGET,
    MIN_BUDGET,
    EngineOptions,
    OptionsError,
    budget_problem,
)
from tests.cli.test_run_command import looked, options, run

RUNNER = CliRunner()

REFUSED = [5, MIN_BUDGET - 1, MAX_BUDGET + 1, 0]
"""Budgets every route refuses: ``-p`` once took 5, and none had an upper bound."""


def _flat(text: str) -> str:
    """Output with Rich's line wrapping undone, for matching one sentence."""
    return " ".join(text.split())


@pytest.mark.parametrize("budget", REFUSED)
def test_every_route_refuses_a_budget_with_the_same_words(tmp_path: Path, budget: int) -> None:
    words = budget_problem(budget, "--budget")
    assert words is not None and f"from {MIN_BUDGET:,} to {MAX_BUDGET:,} tokens" in words
    trace = bundled_trace("gemini-cli")
    for arguments in (
        ["replay", str(trace), "--budget", str(budget)],
        ["demo", "--budget", str(budget)],
        ["demo", "--headless", "--budget", str(budget)],
        ["bench", str(trace), "--budget", str(budget)],
    ):
        result = RUNNER.invoke(cli.app, arguments, env={"COLUMNS": "200"})
        assert result.exit_code == 2, (arguments, result.output)
        assert words in _flat(result.output), arguments
        assert "Traceback" not in result.output
    output = io.StringIO()
    assert headless_demo(budget, Console(file=output, width=200)) == 2
    assert words in _flat(output.getvalue())
    code, _, err = run(options(tmp_path, prompt="x", script=looked(tmp_path), budget=budget))
    assert code == 2 and words in _flat(err)
    # The settings file, the settings screen and a session's log: the option's own name.
    with pytest.raises(OptionsError) as refused:
        EngineOptions.from_settings({"providerInputBudget": budget})
    assert str(refused.value) == budget_problem(budget)
    assert str(refused.value) == words.replace("--budget", "providerInputBudget")


@pytest.mark.parametrize("budget", [MIN_BUDGET, MAX_BUDGET])
def test_the_edges_of_the_rule_are_taken(budget: int) -> None:
    assert budget_problem(budget, "--budget") is None
    assert EngineOptions.from_settings({"providerInputBudget": budget}).budget == budget


def test_the_demo_counts_requests_over_budget_and_exits_as_replay_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The demo on a small bundled trace (the figures are the trace's, not the demo's)."""
    trace = bundled_trace("gemini-cli")
    replayed = RUNNER.invoke(cli.app, ["replay", str(trace), "--budget", "5000", "--json"])
    report = json.loads(replayed.stdout)
    assert report["over_budget"] > 0 and replayed.exit_code == 1
    monkeypatch.setattr(replay_command, "demo_trace", lambda: trace)
    demo = RUNNER.invoke(cli.app, ["demo", "--budget", "5000"], env={"COLUMNS": "200"})
    assert demo.exit_code == 1, demo.output
    row = next(line for line in demo.output.splitlines() if "requests over budget" in line)
    assert row.split("│")[2].strip() == f"{report['over_budget']:,}"
    assert f"{report['over_budget']} request(s) over the budget" in _flat(demo.output)
