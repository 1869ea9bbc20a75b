"""What a failed connection to a provider says: the URL, the cause, and whether to retry.

Both SDKs report every failure to connect as ``Connection error.``, with the cause three
exceptions down. A stopped local server then cost 20 to 55 s of retries before the run
ended with those two words. Here the cause is found and named with the URL, and two causes
end the run at once instead of being retried: a connection refused by this machine (the
server is not running there; waiting will not start it) and a host name that does not
resolve (a typo, not a network flap: a temporary resolver failure is still retried). A
refused connection to another host, a reset, or a timeout stays transient.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx2

from pifold_agent.providers.base import ErrorClass, ProviderError

TEMPORARY_RESOLVER_FAILURE = socket.EAI_AGAIN
"""``getaddrinfo``'s "try again": the resolver could not answer now, worth a retry."""


def connection_failure(error: BaseException, summary: str) -> ProviderError:
    """The error for an SDK's connection failure: ``summary`` is the SDK's words, used
    when no cause is found."""
    url = _request_url(error)
    where = f" to {url}" if url else ""
    for cause in _causes(error):
        if isinstance(cause, ConnectionRefusedError):
            local = _is_this_machine(url)
            hint = " (is the server running and listening there?)" if local else ""
            kind = ErrorClass.FATAL if local else ErrorClass.TRANSIENT
            return ProviderError(kind, f"cannot connect{where}: connection refused{hint}")
        if isinstance(cause, socket.gaierror):
            host = urlsplit(url).hostname if url else None
            named = f"host {host!r}" if host else "the host"
            kind = (
                ErrorClass.TRANSIENT
                if cause.errno == TEMPORARY_RESOLVER_FAILURE
                else ErrorClass.FATAL
            )
            return ProviderError(
                kind, f"cannot connect{where}: {named} does not resolve ({cause.strerror})"
            )
        if isinstance(cause, TimeoutError | httpx2.TimeoutException):
            return ProviderError(
                ErrorClass.TRANSIENT,
                f"no answer{where} in time (a longer wait: --timeout SECONDS, or "
                "PIFOLD_REQUEST_TIMEOUT)",
            )
    detail = _deepest_words(error)
    words = f"{summary} ({detail})" if detail and detail != summary else summary
    return ProviderError(ErrorClass.TRANSIENT, f"connection failed{where}: {words}")


def _causes(error: BaseException) -> Iterator[BaseException]:
    """``error`` and everything that caused it, grouped exceptions included, each once."""
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        pending += [link for link in (current.__cause__, current.__context__) if link is not None]
        if isinstance(current, BaseExceptionGroup):
            pending += list(current.exceptions)


def _deepest_words(error: BaseException) -> str:
    """The words of the innermost cause that has any."""
    words = ""
    for cause in _causes(error):
        text = str(cause).strip()
        if text:
            words = text
    return words


def _request_url(error: BaseException) -> str | None:
    """The URL the failed request went to (both SDKs keep the request on the error)."""
    request = getattr(error, "request", None)
    url = getattr(request, "url", None)
    return str(url) if url is not None else None


def _is_this_machine(url: str | None) -> bool:
    """Whether ``url``'s host is this machine (a loopback address or ``localhost``)."""
    host = urlsplit(url).hostname if url else None
    if host is None:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


__all__ = ["connection_failure"]
