"""How long a request may wait in silence before it is abandoned: ``--timeout`` or
``PIFOLD_REQUEST_TIMEOUT``, in seconds.

The SDKs' own 600 s applies to each wait for the next byte. A hosted API answers in seconds,
so it stays the default there. A local server on a CPU first processes the whole prompt and
sends nothing meanwhile: a 1.5B model on two cores took 459 s over a 9,000-token prompt,
close to the limit, and a larger model or prompt passes it. A ``--base-url`` server
therefore waits 1,800 s by default. The flag wins over the variable; either must be a
positive number of seconds (at most a day).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

TIMEOUT_VARIABLE = "PIFOLD_REQUEST_TIMEOUT"
"""The environment variable that sets the request timeout when ``--timeout`` is absent."""

HOSTED_TIMEOUT_SECONDS = 600.0
"""The default for Anthropic's and OpenAI's own endpoints (the SDKs' default)."""

LOCAL_TIMEOUT_SECONDS = 1_800.0
"""The default for a ``--base-url`` server, whose first request may be a long prefill."""

LONGEST_TIMEOUT_SECONDS = 86_400.0
"""The largest timeout accepted: a day."""


class RequestTimeoutError(ValueError):
    """A timeout that is not a positive number of seconds; the message names where it came
    from and what was given."""


def request_timeout_s(
    flag: float | None, environment: Mapping[str, str], base_url: str | None
) -> float:
    """The request timeout in seconds: ``--timeout``, else the variable, else the default
    for the kind of server.

    Raises:
        RequestTimeoutError: the flag or the variable is not in (0, a day].
    """
    if flag is not None:
        return _checked(flag, "--timeout", str(flag))
    raw = environment.get(TIMEOUT_VARIABLE, "").strip()
    if raw:
        try:
            seconds = float(raw)
        except ValueError:
            seconds = math.nan
        return _checked(seconds, TIMEOUT_VARIABLE, raw)
    return LOCAL_TIMEOUT_SECONDS if base_url is not None else HOSTED_TIMEOUT_SECONDS


def _checked(seconds: float, source: str, given: str) -> float:
    if not (math.isfinite(seconds) and 0 < seconds <= LONGEST_TIMEOUT_SECONDS):
        raise RequestTimeoutError(
            f"{source} must be a number of seconds above 0 and at most "
            f"{LONGEST_TIMEOUT_SECONDS:,.0f}, got {given!r}"
        )
    return seconds


__all__ = [
    "HOSTED_TIMEOUT_SECONDS",
    "LOCAL_TIMEOUT_SECONDS",
    "LONGEST_TIMEOUT_SECONDS",
    "TIMEOUT_VARIABLE",
    "RequestTimeoutError",
    "request_timeout_s",
]
