"""The footer's cache figure: tokens read, the hit ratio, the last miss's cause, unexplained,
counted as each reply is recorded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_agent.cache_report.records import CACHE_KEY, PROVIDER_DATA, verdict_record
from pifold_agent.cache_report.reports import REPORT_KINDS, ProviderCacheReport
from pifold_agent.cache_report.tally import CacheTally
from pifold_agent.cache_report.verdict import EngineFacts, judge
from pifold_agent.loop.recorder import MemoryRecorder
from pifold_core.entries import Entry, TextBlock, Usage
from pifold_tui.app.footer import SessionFooter, UsageTotals, footer_text
from tests.ui.app.footer_host import FooterApp, Shown


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


VERDICTS = st.lists(
    st.none()
    | st.tuples(
        st.builds(
            ProviderCacheReport,
            kind=st.sampled_from(REPORT_KINDS),
            reason=st.none() | st.just("messages_changed"),
            missed_tokens=st.none() | st.integers(min_value=0, max_value=5_000),
        ),
        st.builds(
            EngineFacts,
            request=st.integers(min_value=1, max_value=1_000),
            classification=st.sampled_from(["append", "attributed", "unattributed"]),
            causes=st.just(("commit 1",)),
            expired=st.booleans(),
        ),
        st.integers(min_value=0, max_value=1_000),
    ),
    max_size=12,
)
"""A session's replies: ``None`` is a reply without a verdict (no cache report), a tuple the
report, what the engine knew, and the tokens read."""


def replies_of(verdicts: list[tuple[ProviderCacheReport, EngineFacts, int] | None]) -> list[Entry]:
    """The session's messages: a user message before each reply, as the loop records them."""
    entries: list[Entry] = []
    for number, verdict in enumerate(verdicts, start=1):
        entries.append(Entry(f"u{number}", "user", 2 * number, (TextBlock("go on"),)))
        if verdict is None:
            usage = Usage(input_tokens=1_000, output_tokens=10)
            entries.append(Entry(f"a{number}", "assistant", 2 * number + 1, (), usage=usage))
        else:
            entries.append(
                replace(
                    reply(number, verdict[2], verdict[0], verdict[1]), timestamp_ms=2 * number + 1
                )
            )
    return entries


class CountedRecorder(MemoryRecorder):
    """A session in memory that counts how often its messages are read whole."""

    def __init__(self, entries: list[Entry]) -> None:
        super().__init__(entries)
        self.reads = 0
        """Calls of :meth:`recorded`."""

    def recorded(self) -> Sequence[Entry]:
        self.reads += 1
        return super().recorded()


async def test_the_footer_counts_cache_figures_as_replies_are_recorded() -> None:
    """The footer's cache figures after any session equal a count over every message, whether
    the messages were there when it opened or recorded since; a repaint reads none again."""
    async with FooterApp().run_test(size=(200, 3)) as pilot:
        footer = pilot.app.query_one(SessionFooter)

        @settings(max_examples=60, deadline=None)
        @given(VERDICTS, st.integers(min_value=0, max_value=24))
        def check(
            verdicts: list[tuple[ProviderCacheReport, EngineFacts, int] | None], split: int
        ) -> None:
            entries = replies_of(verdicts)
            recorder = CountedRecorder(entries[:split])
            footer.open(Shown(recorder), "")
            for entry in entries[split:]:
                recorder.record(entry)
                footer.record(entry)
            for _ in range(3):
                footer.show()
            whole = CacheTally.of(entries)
            assert footer.cache is not None
            assert footer.cache.tally() == whole
            figure = whole.footer_figure()
            shown = str(footer.render())
            assert (f", {figure})" in shown) if figure else ("hit" not in shown)
            assert recorder.reads == 1  # when it opened, never on a repaint

        check()
