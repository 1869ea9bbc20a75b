"""A session billed as the simulated provider bills it, and native compaction beside it.

The real loop, engine and scripted provider run a short session of follow-ups (each message
about 1,500 tokens, so the prompt passes Anthropic's 1,024-token cache minimum at once).
Wrapped in :class:`BilledProvider`, every request's usage is its simulated bill: the prompt
the scripted provider counted, split into fresh input, cache reads and writes; that usage is
what the session records and the engine measures (one figure everywhere), and the footer's
price formula on it gives the bill's cost. Native compaction, fed the same entries, is billed
beside it on its own cache and compacts once the window passes the budget.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pifold_agent.loop import Agent, AgentConfig, MemoryRecorder
from pifold_agent.pricing.prices import load_price_book
from pifold_agent.pricing.session_bill import BilledProvider, SessionBill
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from tests.agent.loop.helpers import assert_session_consistent
from tests.core.builders import CharCounter, small_options

START_MS = 1_800_000_000_000
MINUTE_MS = 60_000
BUDGET = 24_000
SONNET = load_price_book().lookup("claude-sonnet-4-5")[0]


class Clock:
    """The host's clock: a minute on per request, and past the cache's lifetime before
    request number ``pause_before`` (1-based) when it is given."""

    def __init__(self, pause_before: int | None = None) -> None:
        self.now_ms = START_MS
        self.pause_before = pause_before
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        self.now_ms += MINUTE_MS
        if self.calls == self.pause_before:
            self.now_ms += (SONNET.rules.lifetime_seconds + 1) * 1000
        return self.now_ms


def _script(path: Path, replies: int) -> Path:
    lines: list[dict[str, object]] = [{"script": "pifold", "version": 1}]
    for number in range(replies):
        lines.append({"user": f"question {number} " + "q" * 6_000})
        lines.append({"assistant": f"answer {number} " + "a" * 6_000})
    path.mkdir(parents=True, exist_ok=True)
    target = path / "script.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return target


def _billed_session(
    tmp_path: Path, replies: int, clock: Clock | None = None
) -> tuple[Agent, Engine, MemoryRecorder, SessionBill]:
    counter = CharCounter()
    scripted = ScriptedProvider(load_script(_script(tmp_path, replies)), counter)
    engine = Engine.open(tmp_path / "state", small_options(budget=BUDGET), counter)
    recorder = MemoryRecorder()
    bill = SessionBill(SONNET, counter, BUDGET, recorder.recorded)
    provider = BilledProvider(scripted, bill, clock if clock is not None else Clock())
    agent = Agent(engine, provider, [], recorder, AgentConfig(Path.cwd(), "system"))
    scripted.attach(agent.queues)
    opening = scripted.opening_prompt()
    assert opening is not None
    assert asyncio.run(agent.run(opening)).outcome == "stop"
    return agent, engine, recorder, bill


def _replies(recorder: MemoryRecorder) -> list[Entry]:
    return [entry for entry in recorder.recorded() if entry.kind == "assistant"]


def test_each_request_reports_its_bill_and_the_engine_measures_it(tmp_path: Path) -> None:
    _, engine, recorder, bill = _billed_session(tmp_path, replies=4)
    replies = _replies(recorder)
    assert len(replies) == bill.folded.requests == 4
    usages = [reply.usage for reply in replies]
    assert all(usage is not None for usage in usages)
    first, *later = [usage for usage in usages if usage is not None]
    assert first.cache_read_tokens == 0 and first.cache_write_tokens > 0  # a cold start
    for usage in later:  # each request appends to the previous one: its prefix is read
        assert usage.cache_read_tokens > 0 and usage.input_tokens < usage.prompt_tokens
    totals = bill.folded
    assert totals.cache_read == sum(usage.cache_read_tokens for usage in usages if usage)
    assert totals.output == sum(usage.output_tokens for usage in usages if usage)
    # The footer prices usage with the standard rates: the same dollars as the bill.
    rates = SONNET.rates
    footer_cost = sum(
        (
            usage.input_tokens * rates.input
            + usage.output_tokens * rates.output
            + usage.cache_read_tokens * rates.cache_read
            + usage.cache_write_tokens * rates.cache_write
        )
        / 1_000_000
        for usage in usages
        if usage is not None
    )
    assert abs(footer_cost - totals.cost) < 1e-9
    last = engine._state.meter.last
    assert last is not None and last.tokens == later[-1].prompt_tokens
    assert_session_consistent(engine, recorder)
    engine.close()


def test_compaction_is_billed_beside_the_session_on_the_same_entries(tmp_path: Path) -> None:
    _, engine, recorder, bill = _billed_session(tmp_path, replies=12)
    assert bill.compaction.requests == bill.folded.requests == 12
    # About 3,000 tokens a turn: past the 24,000 budget the native arm compacts (keeping the
    # newest 20,000), and each compaction's summarisation call is billed too.
    assert bill.native.compactions >= 1
    assert bill.compaction.side_calls >= bill.native.compactions
    assert len(bill.native.entries) == len(recorder.recorded()) - 1  # all but the last reply
    assert bill.compaction.cost > 0 and bill.folded.cost > 0
    engine.close()


def test_a_pause_past_the_cache_lifetime_reads_nothing_on_either_side(tmp_path: Path) -> None:
    _, plain_engine, _, plain = _billed_session(tmp_path / "plain", replies=4)
    _, engine, recorder, paused = _billed_session(tmp_path / "paused", 4, Clock(pause_before=3))
    third = _replies(recorder)[2].usage
    assert third is not None and third.cache_read_tokens == 0 and third.cache_write_tokens > 0
    assert paused.folded.cache_read < plain.folded.cache_read
    assert paused.compaction.cache_read < plain.compaction.cache_read
    assert paused.folded.cost > plain.folded.cost and paused.compaction.cost > plain.compaction.cost
    plain_engine.close()
    engine.close()
