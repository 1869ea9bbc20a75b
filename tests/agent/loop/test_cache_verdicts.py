"""The loop's part of the cache report: which reply a request names, and the verdict kept."""

from __future__ import annotations

from pifold_agent.cache_report.records import (
    CACHE_KEY,
    PROVIDER_DATA,
    REPLY_ID_KEY,
    REPORT_KEY,
    read_verdict,
    report_record,
)
from pifold_agent.cache_report.reports import ProviderCacheReport
from pifold_agent.cache_report.verdict import EngineFacts
from pifold_agent.loop.cache_verdicts import previous_reply, with_verdict
from pifold_agent.providers.base import StreamDone
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry, TextBlock, Usage


def reply(name: str, provider: str, model: str, stop: str = "stop") -> Entry:
    extra: dict[str, JsonValue] = {
        "stop_reason": stop,
        "provider": provider,
        PROVIDER_DATA: {REPLY_ID_KEY: f"msg_{name}"},
    }
    return Entry(name, "assistant", 1, (TextBlock("ok"),), model=model, extra=extra)


def done(report: ProviderCacheReport, read: int, model: str = "claude-sonnet-4-5") -> StreamDone:
    usage = Usage(input_tokens=500 - read, output_tokens=5, cache_read_tokens=read)
    return StreamDone(
        (TextBlock("ok"),), "stop", usage, model, extra={REPORT_KEY: report_record(report)}
    )


def test_the_baseline_is_the_last_reply_in_context_of_the_same_provider() -> None:
    user = Entry("u", "user", 0, (TextBlock("go"),))
    entries = [user, reply("a", "anthropic", "m"), user, reply("b", "anthropic", "m", "error")]
    baseline = previous_reply(entries, "anthropic")
    assert baseline is not None and baseline.compared_id("anthropic") == "msg_a"
    assert baseline.compared_id("openai") is None
    assert previous_reply([user], "anthropic") is None


def test_the_verdict_replaces_the_report_and_a_provider_switch_explains_the_cold_start() -> None:
    facts = EngineFacts(4, "append")
    other = previous_reply([reply("a", "openai", "gpt-5.6")], "anthropic")
    judged = with_verdict(done(ProviderCacheReport("not_compared"), 0), facts, other, "anthropic")
    assert REPORT_KEY not in judged.extra
    verdict = read_verdict(judged.extra[CACHE_KEY])
    assert verdict is not None and (verdict.outcome, verdict.cause) == ("explained", "model switch")
    same = previous_reply([reply("a", "anthropic", "claude-sonnet-4-5")], "anthropic")
    judged = with_verdict(done(ProviderCacheReport("hit"), 0), facts, same, "anthropic")
    verdict = read_verdict(judged.extra[CACHE_KEY])
    assert verdict is not None and verdict.outcome == "unexplained"


def test_a_reply_without_a_report_or_a_failed_one_gets_no_verdict() -> None:
    plain = StreamDone((TextBlock("ok"),), "stop")
    assert with_verdict(plain, None, None, "anthropic") is plain
    failed = StreamDone((), "error", extra={REPORT_KEY: report_record(ProviderCacheReport("hit"))})
    assert with_verdict(failed, None, None, "anthropic").extra == {}
