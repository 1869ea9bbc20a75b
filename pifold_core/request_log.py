"""One model request's log record: classified, logged, then counted (DESIGN §4, §8).

:meth:`pifold_core.engine.Engine.prepare_request` decides the commits; what a request then
leaves in the log lives here. The order is the rule: the audit classifies the request
without changing anything, the record is written, and only then does the audit count it
and the state learn of it, so a request whose record could not be written was never sent
and a reopened engine numbers requests as the live one did.
"""

from __future__ import annotations

from typing import Any

from pifold_core.audit import RequestRecord, request_digest
from pifold_core.canonical import WIRE_FORMAT_VERSION
from pifold_core.runway import Floor
from pifold_core.session_state import SessionState


def log_request(
    state: SessionState,
    digests: list[str],
    now_ms: int | None,
    cache_lifetime_s: int | None,
    host_head: str | None,
    floor_before: Floor | None,
) -> RequestRecord:
    """Classify, log and count the request whose message digests are ``digests``.

    ``floor_before`` is the floor in force before this request's commits: a floor newly set
    at this request is logged with it, so a reopened status names the same floor.

    Raises:
        OSError: the record could not be written; nothing was counted.
    """
    record = state.audit.classify(digests, state.projection.tokens)
    body: dict[str, Any] = {
        "n": record.number,
        "count": len(digests),
        "prefix": request_digest(digests),
        "class": record.classification,
        "wire": WIRE_FORMAT_VERSION,
    }
    if now_ms is not None:
        body["at"] = now_ms
    if cache_lifetime_s is not None:
        body["lifetime"] = cache_lifetime_s
    if host_head is not None:
        body["head"] = host_head
    if state.floor is not None and state.floor is not floor_before:
        body["floor"] = state.floor.to_record()
    state.journal.append("request", body)
    state.audit.accept(record, digests)
    state.after_request(record.number, now_ms, host_head)
    return record


__all__ = ["log_request"]
