"""``pifold bench`` on the command line: JSON, SVG, tables and exit codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pifold_agent.bundled_traces import bundled_traces
from pifold_bench.prepare import ARM_NAMES
from pifold_cli.app import app

RUNNER = CliRunner()


def write_trajectory(path: Path, steps: int = 8) -> Path:
    """A small mini-swe-agent trajectory with tool calls, results and recorded usage."""
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the failing test in src/app.py"},
    ]
    clock = 1_700_000_000.0
    for step in range(steps):
        clock += 10
        prompt = 1_500 + step * 900
        messages.append(
            {
                "role": "assistant",
                "content": f"Step {step}: reading a module.",
                "tool_calls": [
                    {
                        "id": f"call_{step}",
                        "type": "function",
                        "function": {
                            "name": "bash",
                            "arguments": json.dumps({"command": f"cat src/m{step}.py"}),
                        },
                    }
                ],
                "extra": {
                    "timestamp": clock,
                    "response": {
                        "id": f"r{step}",
                        "model": "gpt-5.4",
                        "usage": {
                            "prompt_tokens": prompt,
                            "completion_tokens": 30,
                            "prompt_tokens_details": {"cached_tokens": max(0, prompt - 900)},
                        },
                    },
                },
            }
        )
        body = "\n".join(
            f"{line}: def handler_{step}_{line}(value): return value" for line in range(80)
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"call_{step}",
                "content": body,
                "extra": {"timestamp": clock + 1},
            }
        )
    messages.append(
        {
            "role": "assistant",
            "content": "Done.",
            "extra": {
                "timestamp": clock + 5,
                "response": {"id": "last", "model": "gpt-5.4", "usage": {"prompt_tokens": 9_000}},
            },
        }
    )
    document = {"trajectory_format": "mini-swe-agent-1.1", "messages": messages, "info": {}}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_json_reports_every_arm_with_its_figures_and_windows(tmp_path: Path) -> None:
    trace = write_trajectory(tmp_path / "small.traj.json")
    svg = tmp_path / "chart.svg"
    result = RUNNER.invoke(
        app, ["bench", str(trace), "--budget", "3000", "--json", "--svg-out", str(svg)]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["budget"] == 3000 and document["prices_as_of"]
    (report,) = document["traces"]
    assert report["format"] == "mini-swe-agent" and report["requests"] == 9
    assert report["pricing"]["model"] == "gpt-5.4" and report["pricing"]["own_model"]
    assert report["pricing"]["recorded_family"] == report["pricing"]["family"]
    assert report["model_check"]["requests"] == 9 and report["model_check_skipped"] is None
    assert report["native_turn_prefix_summary_tokens"] == 1_250
    assert list(report["arms"]) == list(ARM_NAMES)
    for figures in report["arms"].values():
        assert len(figures["windows"]) == 9
        assert figures["appends"] + figures["attributed"] + figures["unattributed"] == 9
        assert figures["total_tokens"] == (
            figures["fresh_input"]
            + figures["cache_read"]
            + figures["cache_write"]
            + figures["output"]
        )
        assert figures["recall"]["planted"] == report["planted_values"] == 8
        recall = figures["recall"]
        split = ("visible_raw", "visible_in_brief", "recoverable", "lost")
        assert sum(recall[name] for name in split) == 8
        assert sum(figures["uncached_by_cause"].values()) == figures["uncached_input"]
        assert 0 <= figures["cold_cache_commits"] <= figures["events"]
    assert report["cache_lifetime_source"] == "600 s, the gpt-5.4 model descriptor's " + (
        "(openai-automatic agrees)"
    )
    assert report["arms"]["none"]["first_over_budget"] is not None
    # Under 20,000 tokens there is nothing native may cut (it keeps the newest 20,000), so
    # it sends what none sends and the requests over the budget are counted, not hidden.
    native = report["arms"]["native"]
    assert native["events"] == 0
    assert native["over_budget"] == report["arms"]["none"]["over_budget"] > 0
    assert report["arms"]["fold"]["recall"]["lost"] == 0
    root = ElementTree.fromstring(svg.read_text(encoding="utf-8"))
    assert len(root.findall("{http://www.w3.org/2000/svg}polyline")) == len(ARM_NAMES)


def test_arms_can_be_chosen_and_keep_report_order(tmp_path: Path) -> None:
    trace = write_trajectory(tmp_path / "small.traj.json")
    result = RUNNER.invoke(
        app, ["bench", str(trace), "--json", "--arms", "native,fold", "--arms", "none"]
    )
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout)["traces"][0]["arms"]) == ["fold", "native", "none"]


def test_tables_headlines_and_chart_are_printed(tmp_path: Path) -> None:
    trace = write_trajectory(tmp_path / "small.traj.json")
    result = RUNNER.invoke(app, ["bench", str(trace), "--budget", "3000"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for text in (
        "model check",
        "tokens and cost",
        "fold vs native",
        "fold-unbatched vs fold",
        "fold-immediate vs fold",
        "fold-no-cold vs fold",
        "cache lifetime 600 s",
        "in brief",
    ):
        assert text in result.output
    assert "window per request" in result.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--arms", "fold,magic"], "unknown arm(s) magic"),
        (["--budget", "0"], "--budget must be from 1,000 to 10,000,000 tokens, got 0"),
        (["--price-model", "gpt-99"], "not in the price file"),
        (["--plant", "-1"], "--plant must be 0 or more"),
    ],
)
def test_bad_arguments_exit_2_naming_the_problem(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    trace = write_trajectory(tmp_path / "small.traj.json")
    result = RUNNER.invoke(app, ["bench", str(trace), *arguments], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert message in result.output


def test_an_unreadable_trace_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    for path in (empty, tmp_path / "missing.jsonl"):
        result = RUNNER.invoke(app, ["bench", str(path)], env={"COLUMNS": "200"})
        assert result.exit_code == 2, result.output


def test_markdown_beside_the_traces_is_skipped_with_a_note(tmp_path: Path) -> None:
    trace = write_trajectory(tmp_path / "small.traj.json")
    notes = tmp_path / "PROVENANCE.md"
    notes.write_text("# where this trace comes from\n", encoding="utf-8")
    result = RUNNER.invoke(
        app, ["bench", str(notes), str(trace), "--json", "--arms", "fold"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "skipped" in result.stderr and "PROVENANCE.md" in result.stderr
    assert [trace["format"] for trace in json.loads(result.stdout)["traces"]] == ["mini-swe-agent"]
    only_notes = RUNNER.invoke(app, ["bench", str(notes)], env={"COLUMNS": "200"})
    assert only_notes.exit_code == 2 and "no session file given" in only_notes.output


def test_licences_beside_the_traces_are_skipped_too(tmp_path: Path) -> None:
    trace = write_trajectory(tmp_path / "small.traj.json")
    licence = tmp_path / "LICENSE"
    licence.write_text("MIT License\n", encoding="utf-8")
    result = RUNNER.invoke(
        app, ["bench", str(licence), str(trace), "--json", "--arms", "fold"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "skipped" in result.stderr and "LICENSE" in result.stderr


def test_with_no_trace_it_benches_the_bundled_ones() -> None:
    result = RUNNER.invoke(
        app, ["bench", "--json", "--arms", "fold", "--no-sensitivity"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    benched = [Path(trace["trace"]).parent.name for trace in json.loads(result.stdout)["traces"]]
    assert benched == [path.parent.name for path in bundled_traces()]
    assert len(benched) == 7
