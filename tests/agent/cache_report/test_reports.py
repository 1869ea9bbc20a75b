"""Each provider's documented cache report read into one shape; anything else is unknown."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.cache_report.reports import (
    ANTHROPIC_CHANGES,
    OPENAI_REASONS,
    REPORT_KINDS,
    ProviderCacheReport,
    anthropic_report,
    openai_report,
)


@pytest.mark.parametrize("reason", sorted(ANTHROPIC_CHANGES))
def test_an_anthropic_change_is_a_miss_with_its_tokens(reason: str) -> None:
    diagnostics = {"cache_miss_reason": {"type": reason, "cache_missed_input_tokens": 6455}}
    assert anthropic_report(diagnostics, True, True) == ProviderCacheReport(
        "miss", reason=reason, missed_tokens=6455
    )


def test_anthropic_null_diagnostics_is_no_divergence_and_a_null_reason_is_pending() -> None:
    assert anthropic_report(None, True, True).kind == "hit"
    assert anthropic_report(None, False, True).kind == "hit"
    assert anthropic_report({"cache_miss_reason": None}, True, True).kind == "pending"
    assert anthropic_report({}, True, True).kind == "pending"


def test_anthropic_not_found_and_unavailable() -> None:
    missing = {"cache_miss_reason": {"type": "previous_message_not_found"}}
    assert anthropic_report(missing, True, True).kind == "baseline_missing"
    unavailable = {"cache_miss_reason": {"type": "unavailable"}}
    assert anthropic_report(unavailable, True, True).kind == "unavailable"


def test_nothing_compared_is_not_compared_whatever_came_back() -> None:
    diagnostics = {"cache_miss_reason": {"type": "messages_changed"}}
    assert anthropic_report(diagnostics, True, False).kind == "not_compared"
    assert openai_report({"type": "cache_miss"}, False).kind == "not_compared"


@pytest.mark.parametrize(
    "diagnostics",
    [
        "messages_changed",
        [1, 2],
        {"cache_miss_reason": "messages_changed"},
        {"cache_miss_reason": {"type": "prefix_drifted", "cache_missed_input_tokens": 3}},
        {"cache_miss_reason": {"type": "messages_changed"}},
        {"cache_miss_reason": {"type": "messages_changed", "cache_missed_input_tokens": -1}},
        {"cache_miss_reason": {"type": "messages_changed", "cache_missed_input_tokens": 1.5}},
        {"cache_miss_reason": {"type": "messages_changed", "cache_missed_input_tokens": True}},
        {"cache_miss_reason": {"type": 7, "cache_missed_input_tokens": 3}},
    ],
)
def test_a_malformed_anthropic_report_is_unknown_with_its_problem(diagnostics: object) -> None:
    report = anthropic_report(diagnostics, True, True)
    assert report.kind == "unknown"
    assert report.problem and report.reason is None and report.missed_tokens is None


@pytest.mark.parametrize("reason", sorted(OPENAI_REASONS))
def test_an_openai_miss_keeps_reason_and_counts(reason: str) -> None:
    diagnostics = {
        "type": "cache_miss",
        "reason": reason,
        "cache_missed_tokens": 10052,
        "comparison_reusable_tokens": 10100,
    }
    assert openai_report(diagnostics, True) == ProviderCacheReport(
        "miss", reason=reason, missed_tokens=10052, reusable_tokens=10100
    )


def test_openai_hit_not_found_unavailable_and_absent() -> None:
    assert openai_report({"type": "cache_hit"}, True).kind == "hit"
    assert openai_report({"type": "comparison_response_not_found"}, True).kind == (
        "baseline_missing"
    )
    assert openai_report({"type": "unavailable"}, True).kind == "unavailable"
    assert openai_report(None, True).kind == "unavailable"


def test_an_openai_reason_the_enum_does_not_list_is_still_a_miss() -> None:
    diagnostics = {"type": "cache_miss", "reason": "region_changed", "cache_missed_tokens": 5}
    report = openai_report(diagnostics, True)
    assert (report.kind, report.reason) == ("miss", "region_changed")


@pytest.mark.parametrize(
    "diagnostics",
    [
        "cache_hit",
        {"type": "cache_partial_hit"},
        {"type": "cache_miss", "cache_missed_tokens": 5},
        {"type": "cache_miss", "reason": "", "cache_missed_tokens": 5},
        {"type": "cache_miss", "reason": "x" * 65, "cache_missed_tokens": 5},
        {"type": "cache_miss", "reason": "input_changed"},
        {"type": "cache_miss", "reason": "input_changed", "cache_missed_tokens": math.inf},
        {"type": "cache_miss", "reason": "input_changed", "cache_missed_tokens": 10**12},
        {
            "type": "cache_miss",
            "reason": "input_changed",
            "cache_missed_tokens": 5,
            "comparison_reusable_tokens": "many",
        },
    ],
)
def test_a_malformed_openai_report_is_unknown_with_its_problem(diagnostics: object) -> None:
    report = openai_report(diagnostics, True)
    assert report.kind == "unknown" and report.problem


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=30), children, max_size=4)
    ),
    max_leaves=12,
)


@given(
    JSON
    | st.fixed_dictionaries(
        {"cache_miss_reason": st.fixed_dictionaries({"type": JSON}, optional={"x": JSON})}
    )
)
def test_any_anthropic_reply_reads_as_a_report_never_an_error(value: object) -> None:
    report = anthropic_report(value, True, True)
    assert report.kind in REPORT_KINDS
    assert (report.kind == "unknown") == (report.problem is not None)
    assert report.kind != "miss" or report.missed_tokens is not None


@given(
    JSON
    | st.fixed_dictionaries(
        {"type": st.sampled_from(["cache_miss", "cache_hit", "unavailable"]) | JSON},
        optional={"reason": JSON, "cache_missed_tokens": JSON},
    )
)
def test_any_openai_reply_reads_as_a_report_never_an_error(value: object) -> None:
    report = openai_report(value, True)
    assert report.kind in REPORT_KINDS
    assert (report.kind == "unknown") == (report.problem is not None)
    if report.kind == "miss":
        assert report.reason and report.missed_tokens is not None
