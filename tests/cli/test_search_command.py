"""``pifold search``: the engine's search for a person, through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pifold_cli.app import app
from pifold_core.search import INDEX_NAME
from tests.core.search.planted import SECRET, planted_engine

RUNNER = CliRunner()


def test_json_names_the_fold_entry_and_snippet(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    engine.close()
    result = RUNNER.invoke(app, ["search", str(engine.state_dir), SECRET, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["total"] == 1 and "rebuilt" not in report
    (hit,) = report["hits"]
    assert {"fold", "entry", "role", "tool", "snippet"} <= set(hit)
    assert hit["fold"].startswith("fold-") and hit["entry"] == "e00003"
    assert (hit["role"], hit["tool"]) == ("tool_result", "read")
    assert SECRET in hit["snippet"]


def test_the_table_and_the_filters(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    engine.close()
    state = str(engine.state_dir)
    table = RUNNER.invoke(app, ["search", state, SECRET, "--tool", "read", "--path", "deploy"])
    assert table.exit_code == 0, table.output
    assert "e00003" in table.stdout and "1 hits in all; showing 1 to 1" in table.stdout
    none = RUNNER.invoke(app, ["search", state, SECRET, "--tool", "bash"])
    assert none.exit_code == 1 and "no hits" in none.stdout
    pattern = RUNNER.invoke(app, ["search", state, r"ZEPHYR-\d+", "--regex", "--limit", "1"])
    assert pattern.exit_code == 0 and "e00003" in pattern.stdout


def test_a_missing_index_is_rebuilt_in_memory_and_said(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    engine.close()
    (engine.state_dir / INDEX_NAME).unlink()
    result = RUNNER.invoke(app, ["search", str(engine.state_dir), SECRET, "--json"])
    assert result.exit_code == 0, result.output
    assert "note: search index rebuilt in memory: it was missing" in result.stderr
    assert json.loads(result.stdout)["rebuilt"].startswith("search index rebuilt in memory")
    assert not (engine.state_dir / INDEX_NAME).exists()  # read-only: nothing written


def test_bad_usage_exits_2_without_a_traceback(tmp_path: Path) -> None:
    engine, _ = planted_engine(tmp_path)
    engine.close()
    state = str(engine.state_dir)
    for arguments, message in (
        ([state, '"open'], "unbalanced quote"),
        ([state, "x", "--limit", "51"], "limit"),
        ([state, "(a+)+", "--regex"], "exponential"),
        ([str(tmp_path / "nowhere"), "x"], "is not a folder"),
        ([str(tmp_path), "x"], "holds no pifold session"),
    ):
        result = RUNNER.invoke(app, ["search", *arguments])
        assert result.exit_code == 2, (arguments, result.output)
        assert message in result.stderr and "Traceback" not in result.output
