"""Issue 18, defect 1: a reply's usage can no longer brick a session.

Each provider's usage goes through the real SDK against the local server: an implausible
figure is recorded as unknown with a warning, a missing one is unknown (never zero), and the
engine measures nothing from a prompt it does not know. A session an earlier release already
bricked (``recordings/bricked_usage``, written by that release) opens again and continues.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from pifold_agent.loop import Agent, AgentConfig
from pifold_agent.loop.events import AgentEvent, ReplyWarningEvent
from pifold_agent.providers.base import ProviderRequest, ReplyWarning
from pifold_agent.providers.reply_door import ReplyDoor
from pifold_agent.providers.reply_usage import MAX_TOKEN_COUNT, token_count
from pifold_agent.run_input import HeadlessOptions
from pifold_agent.sessions import SessionFile, find
from pifold_agent.sessions.paths import project_directory
from pifold_cli.app import app
from pifold_core.composition import Reading
from pifold_core.engine import Engine
from pifold_core.entries import TextBlock, Usage
from tests.agent.providers.hostile_replies import ABSENT, ReplySpec
from tests.agent.providers.hostile_sse import render
from tests.agent.providers.local_server import Reply, collect, done_of, serve
from tests.agent.providers.sdk_adapters import PROVIDERS, adapter, sound_reply
from tests.cli.test_run_command import run
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_lossless, assert_reopens_identically

REQUEST = ProviderRequest(
    system="s", messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}], tools=()
)
BRICKED = Path(__file__).parent / "recordings" / "bricked_usage"
RUNNER = CliRunner()


def reply(provider: str, usage: Any) -> Reply:
    """A one-line answer whose usage is ``{"prompt", "output", "cached"}`` as given."""
    return render(provider, ReplySpec(text=("Hi.",), usage=usage), random.Random(0))


async def usage_of(provider: str, usage: Any) -> tuple[Usage | None, list[str]]:
    """The usage the adapter recorded for that reply, and its warnings."""
    with serve([reply(provider, usage)]) as server:
        events = await collect(adapter(provider, server.base_url), REQUEST)
    done = done_of(events)
    assert done.stop_reason == "stop" and done.content == (TextBlock("Hi."),)
    warnings = [event.message for event in events if isinstance(event, ReplyWarning)]
    assert done.extra.get("reply_warnings", []) == warnings
    return done.usage, warnings


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_negative_and_absurd_figures_are_recorded_as_unknown(provider: str) -> None:
    usage, warnings = await usage_of(provider, {"prompt": -5, "output": 1e300})
    assert usage is not None
    assert usage.prompt_tokens is None and usage.output_tokens is None
    assert any("was -5" in warning and "recorded as unknown" in warning for warning in warnings)
    assert any("was 1e+300" in warning for warning in warnings)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_whole_float_counts_and_a_fraction_is_unknown(provider: str) -> None:
    usage, warnings = await usage_of(provider, {"prompt": 1200.0, "output": 12.5})
    assert usage is not None
    assert usage.prompt_tokens == 1200 and usage.output_tokens is None
    assert len(warnings) == 1 and "was 12.5" in warnings[0]


@pytest.mark.parametrize("provider", ["openai", "openai-chat"])
async def test_a_missing_prompt_is_unknown_not_the_cached_part(provider: str) -> None:
    # Before, the prompt read as 0 and the cached 500 tokens as the whole measurement.
    usage, warnings = await usage_of(provider, {"prompt": ABSENT, "output": 7, "cached": 500})
    assert usage == Usage(None, 7, None, None)
    assert any("has no" in warning for warning in warnings)


@pytest.mark.parametrize("provider", ["openai", "openai-chat"])
async def test_more_cached_than_the_prompt_makes_the_prompt_unknown(provider: str) -> None:
    usage, warnings = await usage_of(provider, {"prompt": 100, "output": 7, "cached": 900})
    assert usage == Usage(None, 7, None, None)
    assert any("900 cached tokens in a prompt of 100" in warning for warning in warnings)


figures = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


@given(figures)
def test_a_figure_is_a_plausible_count_or_unknown(value: Any) -> None:
    door = ReplyDoor()
    count = token_count(door, value, "figure")
    if count is None:
        assert door.warnings and "figure" in door.warnings[0]
    else:
        assert 0 <= count <= MAX_TOKEN_COUNT and count == value and not door.warnings
        assert isinstance(count, int) and not isinstance(count, bool)


async def test_the_agent_records_an_unknown_usage_and_measures_nothing(tmp_path: Path) -> None:
    session = SessionFile.create(tmp_path, tmp_path / "sessions")
    engine = Engine.open(session.state_directory, small_options(budget=50_000), CharCounter())
    events: list[AgentEvent] = []
    with serve([reply("openai-chat", {"prompt": -5, "output": 1e300})]) as server:
        agent = Agent(
            engine, adapter("openai-chat", server.base_url), [], session, AgentConfig(tmp_path)
        )
        agent.subscribe(events.append)
        result = await agent.run("hello")
    assert result.outcome == "stop" and result.final_text == "Hi."
    answer = engine.view.transcript.entries[-1]
    assert answer.usage is not None and answer.usage.figures == (None, None, None, None)
    assert answer.to_record()["usage"] == {
        "input": None,
        "output": None,
        "cache_read": None,
        "cache_write": None,
    }
    # Missing is not zero: no measurement was taken from it.
    assert engine.composition().reading is Reading.NOT_MEASURED
    warnings = [event.message for event in events if isinstance(event, ReplyWarningEvent)]
    assert len(warnings) == 2
    assert_reopens_identically(engine)
    engine.close()
    reopened = SessionFile.open(session.path)
    assert reopened.problems == [] and reopened.messages()[-1].usage == answer.usage
    reopened.close()
    session.close()


def bricked_copy(root: Path) -> tuple[Path, Path]:
    """The bricked session under a fresh sessions folder, as the project of ``root/work``."""
    cwd = root / "work"
    cwd.mkdir()
    folder = project_directory(cwd, root / "sessions")
    shutil.copytree(BRICKED, folder, ignore=shutil.ignore_patterns("README.md"))
    return cwd, root / "sessions"


def test_a_session_an_earlier_release_bricked_opens_and_verifies(tmp_path: Path) -> None:
    cwd, sessions = bricked_copy(tmp_path)
    session = find("7a99b728", cwd, sessions)
    messages = session.messages()
    assert session.problems == [] and len(messages) == 13
    engine = Engine.open(session.state_directory, read_only=True)
    legacy = [entry.usage for entry in engine.view.transcript.entries if entry.usage is not None][
        :2
    ]
    assert [usage.as_written for usage in legacy if usage is not None] == [
        '{"input":0,"output":1e+300,"cache_read":0,"cache_write":0}',
        '{"input":907,"output":-3,"cache_read":-7,"cache_write":0}',
    ]
    # The fold over them was made from those exact bytes, and still verifies.
    assert [fold.start for fold in engine.view.forest.folds.values()] == [0]
    assert_lossless(engine)
    # The session file reads the same usage the engine's log does.
    assert [entry.usage for entry in messages if entry.usage is not None][:2] == legacy
    engine.close()
    session.close()
    result = RUNNER.invoke(app, ["doctor", str(session.state_directory)])
    assert "damaged" not in result.output and "Traceback" not in result.output


def test_a_session_an_earlier_release_bricked_continues(tmp_path: Path) -> None:
    cwd, sessions = bricked_copy(tmp_path)
    with serve([sound_reply("openai-chat", "Continued.")]) as server:
        options = HeadlessOptions(
            prompt="Go on.",
            provider="openai-chat",
            model="m",
            base_url=f"{server.base_url}/v1",
            cwd=cwd,
            sessions_dir=sessions,
            continue_session=True,
            # The recorded session ran at 6,000 tokens; the memory tool and the search action
            # since take more of the head than that leaves (the calibrated estimate of the
            # prompt and tools alone passes 6,000), so the run states a budget that fits.
            budget=20_000,
        )
        code, out, err = run(options)
    assert (code, out) == (0, "Continued.\n"), err
    assert "Traceback" not in err


def test_the_cli_survives_the_bad_usage_chunk_and_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIFOLD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    replies = [
        reply("openai-chat", {"prompt": -5, "output": 1e300}),
        reply("openai-chat", {"prompt": 1200.0, "output": 12.5}),
        reply("openai-chat", {"prompt": 1500, "output": 9}),
    ]
    with serve(replies) as server:
        common = ["--base-url", f"{server.base_url}/v1", "--provider", "openai-chat"]
        first = RUNNER.invoke(app, ["-p", "hello", *common, "--model", "m"])
        second = RUNNER.invoke(app, ["-p", "again", "--continue", *common, "--model", "m"])
        third = RUNNER.invoke(app, ["-p", "and again", "--continue", *common, "--model", "m"])
    for result in (first, second, third):
        assert result.exit_code == 0, result.output
        assert result.stdout == "Hi.\n"
        assert "Traceback" not in result.output
