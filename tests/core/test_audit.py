"""The wire audit: append, attributed rewrite, unattributed rewrite (DESIGN §4)."""

from __future__ import annotations

import dataclasses

import pytest

from pifold_core.audit import WireAudit


def test_classification() -> None:
    audit = WireAudit()
    first = audit.observe(["a", "b"], 10)
    assert first.classification == "append" and first.number == 1
    assert audit.observe(["a", "b"], 10).classification == "append"  # identical request
    assert audit.observe(["a", "b", "c"], 12).classification == "append"

    audit.declare("commit 1 (threshold)")
    record = audit.observe(["a", "X", "c", "d"], 9)
    assert record.classification == "attributed"
    assert record.causes == ("commit 1 (threshold)",)
    assert record.first_divergence == 1

    # Causes are spent by the request that carried them.
    record = audit.observe(["a", "Y"], 5)
    assert record.classification == "unattributed"
    assert record.first_divergence == 1
    assert record.causes == ()

    # A shorter request is a rewrite even when its messages match a prefix.
    record = audit.observe(["a"], 2)
    assert record.classification == "unattributed"
    assert record.first_divergence == 1

    assert audit.counts.requests == 6
    assert (audit.counts.appends, audit.counts.rewrites, audit.counts.unattributed) == (3, 1, 2)
    assert audit.last is record


def test_declared_cause_without_a_rewrite_is_still_an_append() -> None:
    audit = WireAudit()
    audit.observe(["a"], 1)
    audit.declare("commit 1 (threshold)")
    record = audit.observe(["a", "b"], 2)
    assert record.classification == "append"
    assert audit.pending_causes == []


def test_classify_changes_nothing_until_the_request_is_accepted() -> None:
    audit = WireAudit()
    audit.observe(["a", "b"], 10)
    audit.declare("commit 1")
    before = (dataclasses.replace(audit.counts), list(audit.previous), list(audit.pending_causes))
    record = audit.classify(["a", "X"], 10)
    assert record.classification == "attributed" and record.number == 2
    # The host could not log it: nothing was counted, and the cause is still pending.
    assert (audit.counts, audit.previous, audit.pending_causes) == before
    audit.accept(record, ["a", "X"])
    assert audit.counts.requests == 2 and audit.counts.rewrites == 1
    assert audit.pending_causes == [] and audit.previous == ["a", "X"]
    with pytest.raises(ValueError, match="is not the next one"):
        audit.accept(record, ["a", "X"])
