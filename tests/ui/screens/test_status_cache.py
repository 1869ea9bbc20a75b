"""``/fold-status``'s section on the provider's own cache report, beside the wire audit."""

from __future__ import annotations

import dataclasses
import io

from rich.console import Console

from pifold_agent.cache_report.records import CACHE_KEY, PROVIDER_DATA, verdict_record
from pifold_agent.cache_report.reports import ProviderCacheReport
from pifold_agent.cache_report.tally import CacheTally
from pifold_agent.cache_report.verdict import EngineFacts, judge
from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock, Usage
from pifold_tui.screens.status import ReportStyles, StatusFigures, status_report


def plain(figures: StatusFigures) -> str:
    console = Console(width=160, file=io.StringIO(), record=True, color_system=None)
    console.print(status_report(figures, ReportStyles()))
    return console.export_text()


def reply(number: int, read: int, report: ProviderCacheReport, facts: EngineFacts) -> Entry:
    verdict = verdict_record(judge(report, facts, read))
    return Entry(
        f"a{number}",
        "assistant",
        number,
        (TextBlock("ok"),),
        usage=Usage(input_tokens=1000 - read, output_tokens=5, cache_read_tokens=read),
        extra={"stop_reason": "stop", PROVIDER_DATA: {CACHE_KEY: verdict}},
    )


def test_the_section_names_the_ratio_the_misses_and_the_last_cause(
    read_only_engine: Engine,
) -> None:
    entries = [
        reply(1, 0, ProviderCacheReport("not_compared"), EngineFacts(1, "append", first=True)),
        reply(
            2,
            400,
            ProviderCacheReport("miss", "messages_changed", 600),
            EngineFacts(2, "attributed", 3, ("commit 1",)),
        ),
        reply(3, 0, ProviderCacheReport("miss", "tools_changed", 900), EngineFacts(3, "append")),
    ]
    figures = dataclasses.replace(
        StatusFigures.read(read_only_engine), cache=CacheTally.of(entries)
    )
    text = plain(figures)
    assert "Provider's cache" in text
    ratio = next(line for line in text.splitlines() if line.startswith("read from cache"))
    assert ratio.split()[3:5] == ["400", "13.3%"] and "of 3,000 prompt tokens" in ratio
    explained = next(line for line in text.splitlines() if line.startswith("explained misses"))
    assert explained.split()[2] == "1"
    unexplained = next(line for line in text.splitlines() if line.startswith("unexplained misses"))
    assert unexplained.split()[2] == "1" and "nothing pifold knows says why" in unexplained
    last = next(line for line in text.splitlines() if line.startswith("last miss"))
    assert "request 3: UNEXPLAINED (tools_changed)" in last and "900 tokens not reused" in last


def test_a_session_without_reports_says_so(read_only_engine: Engine) -> None:
    text = plain(StatusFigures.read(read_only_engine))
    assert "Provider's cache" in text
    assert "this provider or model gives no cache report" in text
