"""Failed requests (:mod:`pifold_agent.loop.request_retry`): overflow recovery then the same
request, transient retries after a bounded backoff, fatal ends."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.loop import ToolOutcome
from pifold_agent.loop.config import AgentConfig
from pifold_agent.loop.events import CommitDone, OverflowRecovered, RetryWait, RunEnd
from pifold_agent.loop.request_retry import retry_delay
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import JsonValue
from tests.agent.loop.helpers import (
    FunctionTool,
    assert_session_consistent,
    kinds,
    make_agent,
    of_type,
    open_engine,
)
from tests.core.builders import CharCounter, filler
from tests.helpers.scripts import write_script


async def dump(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
    return ToolOutcome(filler(3_000, seed=len(context.call_id), stem=context.call_id))


def long_turn(turns: int) -> list[dict[str, object]]:
    """One user ask and ``turns`` replies that each call the dump tool."""
    lines: list[dict[str, object]] = [{"user": "dump everything"}]
    for number in range(turns):
        call = {"id": f"d{number}", "name": "dump", "arguments": {}}
        lines.append({"assistant": f"step {number}", "tool_calls": [call]})
    return lines


async def test_overflow_recovers_then_sends_the_same_request_again(tmp_path: Path) -> None:
    lines = [*long_turn(6), {"error": "context_too_long", "message": "prompt is too long"}]
    lines.append({"assistant": "all dumped"})
    provider = ScriptedProvider(
        load_script(write_script(tmp_path / "script.jsonl", lines)), CharCounter()
    )
    engine = open_engine(tmp_path)
    agent, recorder, events = make_agent(engine, provider, [FunctionTool("dump", dump)])
    result = await agent.run(provider.opening_prompt())

    assert result.outcome == "stop" and result.final_text == "all dumped"
    recovered = of_type(events, "overflow_recovery")
    assert len(recovered) == 1 and isinstance(recovered[0], OverflowRecovered)
    assert recovered[0].fits
    commits = [event for event in of_type(events, "commit") if isinstance(event, CommitDone)]
    assert [commit.cause for commit in commits] == ["overflow"]
    assert commits[0].tokens_after < commits[0].tokens_before
    # The refused request and its retry: the same entries, the retry smaller.
    refused, retried = provider.requests[-2], provider.requests[-1]
    assert len(str(retried.messages)) < len(str(refused.messages))
    assert list(retried.messages) == engine.view.projection.messages()[:-1]
    failed = [entry for entry in recorder.entries if entry.extra.get("stop_reason") == "error"]
    assert len(failed) == 1 and failed[0].id not in engine.view.transcript.index_of
    assert engine.view.audit_counts.rewrites == 1
    assert_session_consistent(engine, recorder)


async def test_overflow_recovery_is_bounded(tmp_path: Path) -> None:
    refusal = {"error": "context_too_long", "message": "prompt is too long"}
    lines = [*long_turn(6), refusal, refusal, refusal, {"assistant": "never played"}]
    provider = ScriptedProvider(
        load_script(write_script(tmp_path / "script.jsonl", lines)), CharCounter()
    )
    engine = open_engine(tmp_path)
    agent, recorder, events = make_agent(engine, provider, [FunctionTool("dump", dump)])
    result = await agent.run(provider.opening_prompt())

    assert result.outcome == "error" and result.error == "prompt is too long"
    assert len(of_type(events, "overflow_recovery")) == 2
    commits = [event for event in of_type(events, "commit") if isinstance(event, CommitDone)]
    assert all(commit.tokens_after < commit.tokens_before for commit in commits)
    assert kinds(engine.view.transcript.entries)[-1] == "tool_result"
    assert_session_consistent(engine, recorder)


async def test_a_refusal_with_nothing_to_fold_ends_the_run_at_once(tmp_path: Path) -> None:
    """Nothing foldable: the run ends on one error naming the prefix, the budget and what
    to do, with no commit that changes nothing ("5 -> 5 tokens" twice before; issue 22)."""
    refusal = {"error": "context_too_long", "message": "prompt is too long"}
    lines = [*long_turn(2), refusal, refusal, refusal, {"assistant": "never played"}]
    provider = ScriptedProvider(
        load_script(write_script(tmp_path / "script.jsonl", lines)), CharCounter()
    )
    engine = open_engine(tmp_path)
    agent, recorder, events = make_agent(engine, provider, [FunctionTool("dump", dump)])
    result = await agent.run(provider.opening_prompt())

    prefix = engine.view.prefix_tokens
    assert prefix > 0
    assert result.outcome == "error" and result.error == (
        "prompt is too long; nothing is left to fold (nothing staged: no pending mark, no "
        "staged refold or pin, and no tool result due to clip): the window holds about "
        f"{engine.expected_tokens():,} tokens, {prefix:,} of them the fixed prefix (system "
        "prompt and tool definitions), against a budget of 200,000; the model's window is "
        "smaller than the budget: lower --budget to what the model's server serves, or offer "
        "fewer tools"
    )
    assert of_type(events, "overflow_recovery") == [] and of_type(events, "commit") == []
    assert engine.view.commit_count == 0
    assert [event.message for event in of_type(events, "error")] == [result.error]  # type: ignore[attr-defined]
    assert len(provider.requests) == 3  # the two batches' requests and the refused one
    assert_session_consistent(engine, recorder)


async def test_transient_failures_are_retried_with_the_wait_as_an_event(tmp_path: Path) -> None:
    lines: list[dict[str, object]] = [
        {"user": "hello"},
        {"error": "transient", "message": "overloaded"},
        {"error": "transient", "message": "rate limited", "retry_after_s": 0.02},
        {"assistant": "hi"},
    ]
    provider = ScriptedProvider(
        load_script(write_script(tmp_path / "script.jsonl", lines)), CharCounter()
    )
    engine = open_engine(tmp_path)
    agent, recorder, events = make_agent(engine, provider, retry_base_delay_s=0.01)
    result = await agent.run(provider.opening_prompt())

    assert result.outcome == "stop" and result.final_text == "hi"
    waits = [event for event in of_type(events, "retry_wait") if isinstance(event, RetryWait)]
    assert [(wait.attempt, wait.delay_s, wait.error) for wait in waits] == [
        (1, 0.01, "overloaded"),
        (2, 0.02, "rate limited"),
    ]
    assert len(provider.requests) == 3
    assert provider.requests[0].messages == provider.requests[2].messages
    assert kinds(engine.view.transcript.entries) == ["user", "assistant"]
    assert len(recorder.entries) == 4  # the two failures stay in the session file
    assert_session_consistent(engine, recorder)


async def test_transient_retries_run_out(tmp_path: Path) -> None:
    lines: list[dict[str, object]] = [{"user": "hello"}]
    lines += [{"error": "transient", "message": f"overloaded {n}"} for n in range(3)]
    lines.append({"assistant": "never played"})
    provider = ScriptedProvider(
        load_script(write_script(tmp_path / "script.jsonl", lines)), CharCounter()
    )
    engine = open_engine(tmp_path)
    agent, recorder, events = make_agent(
        engine, provider, retry_base_delay_s=0.001, transient_retries=2
    )
    result = await agent.run(provider.opening_prompt())

    assert (result.outcome, result.error) == ("error", "overloaded 2")
    assert len(of_type(events, "retry_wait")) == 2
    assert_session_consistent(engine, recorder)


async def test_a_fatal_error_ends_the_run_with_the_message(tmp_path: Path) -> None:
    lines: list[dict[str, object]] = [
        {"user": "hello"},
        {"error": "fatal", "message": "invalid x-api-key"},
        {"assistant": "never played"},
    ]
    provider = ScriptedProvider(
        load_script(write_script(tmp_path / "script.jsonl", lines)), CharCounter()
    )
    engine = open_engine(tmp_path)
    agent, recorder, events = make_agent(engine, provider)
    result = await agent.run(provider.opening_prompt())

    assert (result.outcome, result.error) == ("error", "invalid x-api-key")
    end = of_type(events, "run_end")[-1]
    assert isinstance(end, RunEnd) and end.error == "invalid x-api-key"
    assert [event.type for event in events].count("error") == 1
    assert len(provider.requests) == 1
    assert kinds(engine.view.transcript.entries) == ["user"]
    assert_session_consistent(engine, recorder)


async def test_a_reply_the_provider_ended_as_aborted_is_never_replayed(tmp_path: Path) -> None:
    from pifold_agent.providers.base import StreamDone
    from pifold_core.entries import TextBlock
    from tests.agent.loop.helpers import ProgrammedProvider

    cut = StreamDone((TextBlock("half an answ"),), "aborted")
    provider = ProgrammedProvider([cut])
    engine = open_engine(tmp_path)
    agent, recorder, _ = make_agent(engine, provider)
    result = await agent.run("hello")

    assert (result.outcome, result.error) == ("error", "the provider ended the reply as aborted")
    assert kinds(engine.view.transcript.entries) == ["user"]
    assert recorder.entries[-1].extra["stop_reason"] == "aborted"
    assert_session_consistent(engine, recorder)


@given(
    st.integers(min_value=1, max_value=12),
    st.none() | st.floats(min_value=-5.0, max_value=500.0),
    st.floats(min_value=0.0, max_value=10.0),
    st.floats(min_value=0.0, max_value=120.0),
)
def test_the_backoff_doubles_follows_the_provider_and_stays_within_bounds(
    attempt: int, retry_after_s: float | None, base: float, longest: float
) -> None:
    config = AgentConfig(Path("."), retry_base_delay_s=base, retry_max_delay_s=longest)
    delay = retry_delay(config, attempt, retry_after_s)
    assert 0.0 <= delay <= max(0.0, longest)
    wanted = base * 2 ** (attempt - 1) if retry_after_s is None else retry_after_s
    assert delay == max(0.0, min(wanted, longest))
    if retry_after_s is None and attempt > 1:
        assert delay >= retry_delay(config, attempt - 1, None)
