"""Tool call ids (and tool names) in the one form every provider accepts when they are sent.

Providers differ in what they allow in an id, and a reply may carry anything; what is sent
back must pass every API's check, and two different ids must stay different.
"""

from __future__ import annotations

import hashlib
import re

CALL_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""What every provider accepts as a tool call id."""


def normalise_call_id(call_id: str) -> str:
    """A call id every provider accepts, the same for the same input.

    An id already valid is kept. Otherwise disallowed characters become ``_``; an id that is
    then empty or longer than 64 characters becomes a prefix plus a hash of the original, so
    two different long ids never collide.
    """
    if CALL_ID_PATTERN.match(call_id):
        return call_id
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", call_id)
    if cleaned and len(cleaned) <= 64:
        return cleaned
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{cleaned[:47]}_{digest}" if cleaned else f"call_{digest}"


__all__ = ["CALL_ID_PATTERN", "normalise_call_id"]
