"""The footer's cache figure: tokens read, the hit ratio, the last miss's cause, unexplained."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.cache_report.records import CACHE_KEY, PROVIDER_DATA, verdict_record
from pifold_agent.cache_report.reports import ProviderCacheReport
from pifold_agent.cache_report.tally import CacheTally
from pifold_agent.cache_report.verdict import EngineFacts, judge
from pifold_core.entries import Entry, TextBlock, Usage
from pifold_tui.app.footer import UsageTotals, footer_text


def reply(number: int, read: int, report: ProviderCacheReport, facts: EngineFacts) -> Entry:
    return Entry(
        f"a{number}",
        "assistant",
        number,
        (TextBlock("ok"),),
        usage=Usage(input_tokens=1_000 - read, output_tokens=10, cache_read_tokens=read),
        extra={PROVIDER_DATA: {CACHE_KEY: verdict_record(judge(report, facts, read))}},
    )


def test_the_cache_figure_names_the_ratio_and_the_last_miss() -> None:
    replies = [
        reply(1, 0, ProviderCacheReport("not_compared"), EngineFacts(1, "append", first=True)),
        reply(2, 900, ProviderCacheReport("hit"), EngineFacts(2, "append")),
        reply(
            3,
            300,
            ProviderCacheReport("miss", "messages_changed", 700),
            EngineFacts(3, "attributed", 2, ("commit 1",)),
        ),
    ]
    totals = UsageTotals()
    for entry in replies:
        assert entry.usage is not None
        totals.add(entry.usage, None)
    note = CacheTally.of(replies).footer_figure()
    line = footer_text("claude-sonnet-4-5", totals, False, Path("/w"), "", 200, cache_note=note)
    assert "(cache 1.2k, 40% hit · last miss: commit 1)" in line.plain
    unexplained = [*replies, reply(4, 0, ProviderCacheReport("hit"), EngineFacts(4, "append"))]
    note = CacheTally.of(unexplained).footer_figure()
    assert note == "30% hit · last miss: UNEXPLAINED · 1 unexplained"
