"""Verdicts kept with the assistant message read back, and a session's figures summed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.cache_report.records import (
    CACHE_KEY,
    PROVIDER_DATA,
    entry_verdict,
    read_report,
    read_verdict,
    report_record,
    verdict_record,
)
from pifold_agent.cache_report.reports import REPORT_KINDS, ProviderCacheReport
from pifold_agent.cache_report.tally import CacheTally
from pifold_agent.cache_report.verdict import EngineFacts, judge
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry, TextBlock, Usage

COUNTS = st.none() | st.integers(min_value=0, max_value=10**8)
REPORTS = st.builds(
    ProviderCacheReport,
    kind=st.sampled_from(REPORT_KINDS),
    reason=st.none() | st.sampled_from(["messages_changed", "input_changed", "tools_changed"]),
    missed_tokens=COUNTS,
    reusable_tokens=COUNTS,
    problem=st.none() | st.just("cache_missed_tokens was 'x', not a token count"),
)
FACTS = st.none() | st.builds(
    EngineFacts,
    request=st.integers(min_value=1, max_value=10**6),
    classification=st.sampled_from(["append", "attributed", "unattributed"]),
    first_divergence=st.none() | st.integers(min_value=0, max_value=1000),
    causes=st.just(("commit 2",)),
    expired=st.booleans(),
    head_changed=st.booleans(),
    first=st.booleans(),
)


@given(REPORTS, FACTS, COUNTS, st.booleans())
def test_a_kept_verdict_reads_back_as_judged(
    report: ProviderCacheReport, facts: EngineFacts | None, read: int | None, switched: bool
) -> None:
    verdict = judge(report, facts, read, switched)
    back = read_verdict(verdict_record(verdict))
    assert back is not None
    assert (back.report, back.outcome, back.cause, back.read_tokens) == (
        verdict.report,
        verdict.outcome,
        verdict.cause,
        verdict.read_tokens,
    )
    assert read_report(report_record(report)) == report


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=12),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(
                st.sampled_from(["outcome", "report", "cause", "read", "request", "audit", "x"]),
                children,
                max_size=5,
            )
        ),
        max_leaves=10,
    )
)
def test_anything_else_kept_reads_as_no_verdict_or_a_sound_one(record: object) -> None:
    verdict = read_verdict(record)
    assert verdict is None or verdict.report.kind in REPORT_KINDS


def assistant(
    number: int, prompt: int, read: int, cache: dict[str, JsonValue] | None = None
) -> Entry:
    extra: dict[str, JsonValue] = {"stop_reason": "stop"}
    if cache is not None:
        extra[PROVIDER_DATA] = {CACHE_KEY: cache}
    usage = Usage(input_tokens=prompt - read, output_tokens=10, cache_read_tokens=read)
    return Entry(f"a{number}", "assistant", number, (TextBlock("ok"),), usage=usage, extra=extra)


def kept(report: ProviderCacheReport, facts: EngineFacts, read: int) -> dict[str, JsonValue]:
    return verdict_record(judge(report, facts, read))


def test_the_tally_sums_ratio_misses_and_names_the_last_miss() -> None:
    first = EngineFacts(1, "append", first=True)
    commit = EngineFacts(2, "attributed", 3, ("commit 1",))
    stray = EngineFacts(3, "append")
    entries = [
        Entry("u", "user", 0, (TextBlock("go"),)),
        assistant(1, 1000, 0, kept(ProviderCacheReport("not_compared"), first, 0)),
        assistant(
            2, 1200, 600, kept(ProviderCacheReport("miss", "messages_changed", 500), commit, 600)
        ),
        assistant(3, 1300, 0, kept(ProviderCacheReport("hit"), stray, 0)),
        assistant(4, 1500, 1300),  # a provider not asked: usage only
        assistant(5, 1600, 1500, {"outcome": "nonsense"}),
    ]
    tally = CacheTally.of(entries)
    assert (tally.prompt_tokens, tally.read_tokens) == (6600, 3400)
    assert (tally.judged, tally.reported, tally.misses) == (3, 2, 2)
    assert (tally.explained, tally.unexplained) == (1, 1)
    assert tally.last_miss is not None and tally.last_miss.request == 3
    assert tally.last_miss.describe() == "UNEXPLAINED"
    assert tally.footer_figure() == "52% hit · last miss: UNEXPLAINED · 1 unexplained"
    figures = tally.to_json()
    assert figures["unexplained"] == 1 and figures["lastMiss"]["request"] == 3


def test_a_session_without_verdicts_says_nothing_in_the_footer() -> None:
    assert CacheTally.of([]).footer_figure() is None
    assert CacheTally.of([assistant(1, 1000, 400)]).footer_figure() is None
    assert CacheTally.of([]).to_json()["hitRatio"] is None


def test_a_verdict_on_a_non_object_provider_data_is_none() -> None:
    entry = Entry("a", "assistant", 1, (TextBlock("ok"),), extra={PROVIDER_DATA: [1]})
    assert entry_verdict(entry) is None
