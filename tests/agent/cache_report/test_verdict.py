"""Every miss explained by what the engine knew, or unexplained: the rules, exhaustively."""

from __future__ import annotations

import itertools

import pytest

from pifold_agent.cache_report.reports import (
    ANTHROPIC_CHANGES,
    OPENAI_REASONS,
    REPORT_KINDS,
    ProviderCacheReport,
)
from pifold_agent.cache_report.verdict import (
    EXPIRY,
    HEAD_CHANGE,
    MODEL_SWITCH,
    EngineFacts,
    judge,
)

COMMIT_CAUSE = "commit 3"


def facts(
    classification: str = "append",
    expired: bool = False,
    head_changed: bool = False,
    first: bool = False,
) -> EngineFacts:
    causes = (COMMIT_CAUSE,) if classification == "attributed" else ()
    divergence = None if classification == "append" else 4
    return EngineFacts(7, classification, divergence, causes, expired, head_changed, first)


def miss(reason: str) -> ProviderCacheReport:
    return ProviderCacheReport("miss", reason=reason, missed_tokens=900)


def test_a_commit_explains_the_messages_it_rewrote() -> None:
    verdict = judge(miss("messages_changed"), facts("attributed"), 200)
    assert (verdict.outcome, verdict.cause) == ("explained", COMMIT_CAUSE)
    verdict = judge(miss("input_changed"), facts("attributed"), 200)
    assert (verdict.outcome, verdict.cause) == ("explained", COMMIT_CAUSE)


def test_messages_changed_with_the_prefix_intact_is_unexplained() -> None:
    verdict = judge(miss("messages_changed"), facts("append"), 0)
    assert (verdict.outcome, verdict.cause) == ("unexplained", None)


def test_an_unattributed_rewrite_explains_nothing_even_with_an_expiry() -> None:
    verdict = judge(miss("messages_changed"), facts("unattributed", expired=True), 0)
    assert verdict.outcome == "unexplained"
    silent = judge(ProviderCacheReport("hit"), facts("unattributed", expired=True), 0)
    assert silent.outcome == "unexplained"


def test_a_head_change_explains_system_and_tools() -> None:
    for reason in ("system_changed", "tools_changed", "input_changed"):
        verdict = judge(miss(reason), facts(head_changed=True), 0)
        assert (verdict.outcome, verdict.cause) == ("explained", HEAD_CHANGE)
        assert judge(miss(reason), facts(), 0).outcome == "unexplained"


def test_no_divergence_and_nothing_read_is_an_expiry_when_the_lifetime_passed() -> None:
    for kind in ("hit", "baseline_missing", "pending", "unavailable", "unknown"):
        report = ProviderCacheReport(kind)  # type: ignore[arg-type]
        assert judge(report, facts(expired=True), 0).cause == EXPIRY
        assert judge(report, facts(), 0).outcome == "unexplained"
        assert judge(report, facts(), 10).outcome == "hit"
        assert judge(report, facts(), None).outcome == "hit"


def test_the_first_request_is_not_a_miss() -> None:
    assert judge(ProviderCacheReport("not_compared"), facts(first=True), 0).outcome == "first"
    assert judge(ProviderCacheReport("not_compared"), None, 0).outcome == "first"


def test_a_model_switch_explains_model_changed_only_when_the_model_switched() -> None:
    assert judge(miss("model_changed"), facts(), 0, model_switched=True).cause == MODEL_SWITCH
    assert judge(miss("model_changed"), facts(), 0).outcome == "unexplained"
    # Another provider's cache is its own: nothing read after a switch is explained too.
    silent = judge(ProviderCacheReport("not_compared"), facts(), 0, model_switched=True)
    assert silent.cause == MODEL_SWITCH


def test_without_an_engine_audit_a_miss_is_unaudited() -> None:
    verdict = judge(miss("messages_changed"), None, 0)
    assert (verdict.outcome, verdict.cause, verdict.missed) == ("unaudited", None, True)


REASONS = sorted(ANTHROPIC_CHANGES | OPENAI_REASONS | {"previously_unseen_reason"})
REPORTS = [
    *(ProviderCacheReport(kind) for kind in REPORT_KINDS if kind != "miss"),  # type: ignore[arg-type]
    *(miss(reason) for reason in REASONS),
]
FACTS = [
    None,
    *(
        facts(classification, expired, head, first)
        for classification, expired, head, first in itertools.product(
            ("append", "attributed", "unattributed"), *([(False, True)] * 3)
        )
    ),
]


@pytest.mark.parametrize("report", REPORTS, ids=lambda report: report.reason or report.kind)
def test_every_combination_keeps_the_rules(report: ProviderCacheReport) -> None:
    for engine, read, switched in itertools.product(FACTS, (None, 0, 250), (False, True)):
        verdict = judge(report, engine, read, switched)
        named = report.kind == "miss"
        first = engine.first if engine is not None else report.kind == "not_compared"
        # A miss is a divergence the provider named, or nothing read after the first request.
        assert verdict.missed == (named or (read == 0 and not first)), (report, engine, read)
        if not verdict.missed:
            assert verdict.outcome == ("first" if first else "hit") and verdict.cause is None
            continue
        if engine is None:
            assert verdict.outcome == "unaudited" and verdict.cause is None
            continue
        # Explained exactly when a cause is named, and only by a fact that holds.
        assert (verdict.outcome == "explained") == (verdict.cause is not None)
        allowed = set()
        if engine.classification == "attributed":
            allowed.add(COMMIT_CAUSE)
        if engine.head_changed:
            allowed.add(HEAD_CHANGE)
        if engine.expired and not named:
            allowed.add(EXPIRY)
        if switched:
            allowed.add(MODEL_SWITCH)
        if engine.classification == "unattributed":
            allowed = set()
        if verdict.cause is not None:
            assert verdict.cause in allowed, (report, engine, read, switched)
        # Nothing the engine knows that could explain it: unexplained, always.
        if not allowed:
            assert verdict.outcome == "unexplained", (report, engine, read, switched)
        # A reason that no fact of pifold's maps to stays unexplained, whatever holds.
        if named and report.reason not in (
            "messages_changed",
            "input_changed",
            "system_changed",
            "tools_changed",
            "model_changed",
        ):
            assert verdict.outcome == "unexplained"
