"""A cache verdict as the session keeps it, and read back.

The verdict on a request is kept with the assistant message that answered it, under
``extra.provider_data.cache`` (the session file and the engine's log both keep an entry's
``extra``; no provider is ever sent it), so a reopened session, ``pifold replay`` and the
status screen all read the same figures. The record is flat JSON::

    {"outcome": "explained", "cause": "commit 3", "report": "miss",
     "reason": "messages_changed", "missed": 5120, "read": 0,
     "request": 7, "audit": "attributed", "divergence": 12}

Reading back is forgiving: a record that is not in this shape (an older release's, a hand
edit) reads as ``None`` (no verdict), never an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, cast

from pifold_agent.cache_report.reports import (
    REPORT_KINDS,
    ProviderCacheReport,
    ReportKind,
    token_figure,
)
from pifold_agent.cache_report.verdict import OUTCOMES, CacheVerdict, EngineFacts, Outcome
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry

PROVIDER_DATA: Final = "provider_data"
"""The key of an assistant entry's ``extra`` that holds what the provider's reply said."""

CACHE_KEY: Final = "cache"
"""The key, inside ``provider_data``, of the request's cache verdict."""

REPLY_ID_KEY: Final = "reply_id"
"""The key, inside ``provider_data``, of the reply's own id (the next request's baseline)."""

REPORT_KEY: Final = "cache_report"
"""The key an adapter hands its :class:`ProviderCacheReport` under (``StreamDone.extra``);
the loop replaces it with the verdict."""

MAX_TEXT: Final = 200
"""The longest cause or reason read back."""


def verdict_record(verdict: CacheVerdict) -> dict[str, JsonValue]:
    """The verdict as kept with the assistant message."""
    record: dict[str, JsonValue] = {"outcome": verdict.outcome, "report": verdict.report.kind}
    report = verdict.report
    optional: dict[str, JsonValue] = {
        "cause": verdict.cause,
        "reason": report.reason,
        "missed": report.missed_tokens,
        "reusable": report.reusable_tokens,
        "problem": report.problem,
        "read": verdict.read_tokens,
    }
    facts = verdict.facts
    if facts is not None:
        optional.update(
            request=facts.request,
            audit=facts.classification,
            divergence=facts.first_divergence,
            expired=facts.expired or None,
            head_changed=facts.head_changed or None,
        )
    record.update({key: value for key, value in optional.items() if value is not None})
    return record


def report_record(report: ProviderCacheReport) -> dict[str, JsonValue]:
    """An adapter's report as it travels in ``StreamDone.extra`` (the loop judges it)."""
    record: dict[str, JsonValue] = {"report": report.kind}
    for key, value in (
        ("reason", report.reason),
        ("missed", report.missed_tokens),
        ("reusable", report.reusable_tokens),
        ("problem", report.problem),
    ):
        if value is not None:
            record[key] = value
    return record


def read_report(record: object) -> ProviderCacheReport | None:
    """A report back from :func:`report_record` (or a verdict record), ``None`` if malformed."""
    if not isinstance(record, Mapping):
        return None
    kind = record.get("report")
    if kind not in REPORT_KINDS:
        return None
    return ProviderCacheReport(
        kind=cast(ReportKind, kind),
        reason=_text(record.get("reason")),
        missed_tokens=token_figure(record.get("missed")),
        reusable_tokens=token_figure(record.get("reusable")),
        problem=_text(record.get("problem")),
    )


def read_verdict(record: object) -> CacheVerdict | None:
    """A kept verdict, ``None`` when ``record`` is not one."""
    report = read_report(record)
    if report is None or not isinstance(record, Mapping):
        return None
    outcome = record.get("outcome")
    if outcome not in OUTCOMES:
        return None
    request = token_figure(record.get("request"))
    audit = _text(record.get("audit"))
    facts = None
    if request is not None and audit is not None:
        facts = EngineFacts(
            request=request,
            classification=audit,
            first_divergence=token_figure(record.get("divergence")),
            expired=record.get("expired") is True,
            head_changed=record.get("head_changed") is True,
        )
    return CacheVerdict(
        report,
        facts,
        token_figure(record.get("read")),
        cast(Outcome, outcome),
        _text(record.get("cause")),
    )


def entry_verdict(entry: Entry) -> CacheVerdict | None:
    """The verdict kept with an assistant message, if any."""
    data = entry.extra.get(PROVIDER_DATA)
    if not isinstance(data, Mapping):
        return None
    return read_verdict(data.get(CACHE_KEY))


def entry_reply_id(entry: Entry) -> str | None:
    """The provider's id for the reply an assistant message is, if it was kept."""
    data = entry.extra.get(PROVIDER_DATA)
    if not isinstance(data, Mapping):
        return None
    value = data.get(REPLY_ID_KEY)
    return value if isinstance(value, str) and value else None


def _text(value: object) -> str | None:
    if isinstance(value, str) and value and len(value) <= MAX_TEXT and value.isprintable():
        return value
    return None


__all__ = [
    "CACHE_KEY",
    "PROVIDER_DATA",
    "REPLY_ID_KEY",
    "REPORT_KEY",
    "entry_reply_id",
    "entry_verdict",
    "read_report",
    "read_verdict",
    "report_record",
    "verdict_record",
]
