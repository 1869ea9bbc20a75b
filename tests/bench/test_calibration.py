"""Fitting the host's preamble, the tokenizer scale and prefix resets to recorded usage."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pifold_agent.pricing.prices import CacheRules
from pifold_bench.calibration import (
    Calibration,
    ModelCheck,
    calibrate,
    lifetime_source,
    request_times,
)
from pifold_bench.list_arms import LinearArm
from pifold_bench.prepare import BenchSettings, prepare_entries
from pifold_bench.report import check_line
from pifold_bench.run import ArmRun, check_model, model_check_skipped, run_arm
from pifold_core.entries import Entry, TextBlock, Usage
from tests.bench.conftest import BOOK, prepared
from tests.bench.helpers import QuarterCounter, Session

RULES = CacheRules("r", "automatic", 1024, 128, 300, 0)
COUNTER = QuarterCounter()


def recorded_session(
    preamble: int,
    scale: float,
    reads: dict[int, int] | None = None,
    gap_ms: int = 1000,
    prompts: dict[int, int] | None = None,
    model: str = "m",
) -> list[Entry]:
    """User/assistant pairs whose recorded prompts are ``preamble + scale x history``."""
    entries: list[Entry] = []
    history = 0
    clock = 1_700_000_000_000
    for number in range(8):
        clock += gap_ms
        user = Entry(f"u{number}", "user", clock, (TextBlock("x" * 4000),))
        entries.append(user)
        history += COUNTER.count_message(user.wire, user.wire_digest)
        prompt = (prompts or {}).get(number, preamble + round(scale * history))
        read = (reads or {}).get(number, max(0, prompt - 1200))
        usage = Usage(input_tokens=prompt - read, cache_read_tokens=read, output_tokens=10)
        answer = Entry(
            f"a{number}", "assistant", clock + 1, (TextBlock("ok"),), usage=usage, model=model
        )
        entries.append(answer)
        history += COUNTER.count_message(answer.wire, answer.wire_digest)
    return entries


def test_preamble_and_scale_are_recovered() -> None:
    calibration = calibrate(recorded_session(3000, 1.2), COUNTER, RULES)
    assert abs(calibration.preamble_tokens - 3000) <= 5
    assert abs(calibration.scale - 1.2) < 0.01
    assert calibration.checked_requests == tuple(range(8))
    assert calibration.main_model == "m"
    assert calibration.billed(1000) == round(1000 * calibration.scale)


def test_a_warm_request_served_no_cache_is_a_prefix_reset() -> None:
    entries = recorded_session(3000, 1.0, reads={3: 0, 5: 500})
    assert calibrate(entries, COUNTER, RULES).prefix_resets == {3, 5}


def test_a_cold_request_served_no_cache_is_not_a_reset() -> None:
    entries = recorded_session(3000, 1.0, reads={3: 0}, gap_ms=10 * 60_000)
    assert calibrate(entries, COUNTER, RULES).prefix_resets == frozenset()


def test_the_check_stops_where_the_recorded_prompt_shrank() -> None:
    entries = recorded_session(3000, 1.0, prompts={5: 2000})
    calibration = calibrate(entries, COUNTER, RULES)
    assert calibration.checked_requests == (0, 1, 2, 3, 4)
    assert calibration.recorded_compaction_at == 5
    reads = [entry.usage.cache_read_tokens for entry in entries if entry.usage is not None][:5]
    assert calibration.recorded_cache_read == sum(reads)


def test_a_trace_without_usage_is_billed_as_estimated() -> None:
    entries = [
        Entry("u", "user", 1, (TextBlock("hi"),)),
        Entry("a", "assistant", 2, (TextBlock("ok"),)),
    ]
    calibration = calibrate(entries, COUNTER, RULES)
    assert (calibration.preamble_tokens, calibration.scale) == (0, 1.0)
    assert calibration.checked_requests == ()


def test_request_times_never_run_backwards() -> None:
    entries = [
        Entry("u1", "user", 5000, (TextBlock("a"),)),
        Entry("a1", "assistant", 5001, (TextBlock("b"),)),
        Entry("u2", "user", 4000, (TextBlock("c"),)),
        Entry("a2", "assistant", 4001, (TextBlock("d"),)),
        Entry("u3", "user", 9000, (TextBlock("e"),)),
        Entry("a3", "assistant", 9001, (TextBlock("f"),)),
    ]
    assert request_times(entries) == [5000, 5000, 9000]


def test_the_model_check_tolerance_is_ten_percent() -> None:
    assert ModelCheck(3, 1090, 1000).within_tolerance is True
    assert ModelCheck(3, 889, 1000).within_tolerance is False
    assert ModelCheck(3, 5, 0).within_tolerance is None


def test_a_host_prefix_reset_rewrites_the_whole_prompt_under_breakpoints() -> None:
    entries = Session().long_turn(batches=4, characters=8_000)
    plain = prepared(entries, budget=1_000_000)
    sonnet = BOOK.models["claude-sonnet-4-5"]
    preamble = 2_000

    def run_with(resets: frozenset[int]) -> ArmRun:
        calibration = Calibration(preamble, 1.0, resets, (), 0, None, None)
        trace = replace(plain, calibration=calibration, prices=sonnet)
        return run_arm(LinearArm(COUNTER), trace, recall=False)

    steady = run_with(frozenset())
    reset = run_with(frozenset({2}))
    windows = reset.windows
    assert windows == steady.windows and len(windows) == 5
    # The breakpoints are Pi's: after the preamble and at the end of the request. Request 1
    # reads what request 0 wrote (preamble and history) and writes the rest.
    assert (reset.bills[1].cache_read, reset.bills[1].cache_write) == (
        preamble + windows[0],
        windows[1] - windows[0],
    )
    # At the reset the preamble's bytes change, so no entry matches any prefix: the whole
    # prompt, preamble included, is written again and nothing is read.
    bill = reset.bills[2]
    assert (bill.cache_read, bill.cache_write, bill.fresh_input) == (0, preamble + windows[2], 0)
    # Without the reset the same request reads everything request 1 sent.
    assert steady.bills[2].cache_read == preamble + windows[1]
    # The request after the reset reads the new entries as usual.
    assert reset.bills[3].cache_read == preamble + windows[2]
    assert reset.bills[3].cache_write == windows[3] - windows[2]


def test_resets_are_judged_by_the_recorded_family_and_a_foreign_price_skips_the_check() -> None:
    # Six minutes apart: warm for OpenAI's ten-minute lifetime, cold for Anthropic's five.
    # The provider served request 3 nothing, so under the recorded (OpenAI) rules the host
    # reset its prefix there, however the trace is priced.
    entries = recorded_session(3000, 1.0, reads={3: 0}, gap_ms=6 * 60_000, model="gpt-5.4")
    own = prepare_entries(entries, Path("t.jsonl"), "synthetic", BenchSettings(), COUNTER, BOOK)
    foreign = prepare_entries(
        entries,
        Path("t.jsonl"),
        "synthetic",
        BenchSettings(price_model="claude-sonnet-4-5"),
        COUNTER,
        BOOK,
    )
    assert own.calibration.prefix_resets == foreign.calibration.prefix_resets == {3}
    assert own.recorded_family == foreign.recorded_family == "openai-automatic"
    assert foreign.prices.rules.family == "anthropic-breakpoints"
    # Anthropic reads simulated against OpenAI reads recorded would compare nothing.
    assert model_check_skipped(own) is None and check_model(own, COUNTER) is not None
    reason = model_check_skipped(foreign)
    assert reason is not None and "anthropic-breakpoints" in reason
    assert check_model(foreign, COUNTER) is None
    assert "skipped" in check_line(None, reason)


def test_the_lifetime_source_names_the_descriptor_the_option_or_the_disagreement() -> None:
    prices, own = BOOK.lookup("claude-opus-4-5")
    assert own
    assert lifetime_source(prices, from_option=False) == (
        "300 s, the claude-opus-4-5 model descriptor's (anthropic-breakpoints agrees)"
    )
    longer = replace(prices, rules=replace(prices.rules, lifetime_seconds=3_600))
    assert lifetime_source(longer, from_option=True) == "3,600 s, set by --cache-lifetime"
    # Should the price file and the descriptor ever part, the bill's lifetime is the one the
    # engine arms get, and the report says the descriptor disagrees.
    assert lifetime_source(longer, from_option=False) == (
        "3,600 s, the price file's anthropic-breakpoints (the claude-opus-4-5 descriptor "
        "says 300 s)"
    )
    unknown = replace(prices, model="house-model-7")
    assert lifetime_source(unknown, from_option=False) == (
        "300 s, the price file's anthropic-breakpoints (house-model-7 has no descriptor)"
    )
