"""``--base-url`` checked before any request: an ``http``/``https`` URL that names a host.

Without the check, ``--base-url not-a-url`` was taken as given and every request then
failed as ``Connection error.`` after the retries. Imported by the provider choice, so it
stays free of the SDKs and their HTTP client.
"""

from __future__ import annotations

from urllib.parse import urlsplit


class BaseUrlError(ValueError):
    """A ``--base-url`` that names no server; the message says what is wrong with it."""


def checked_base_url(text: str) -> str:
    """``text`` when it is an ``http``/``https`` URL with a host (and a valid port).

    Raises:
        BaseUrlError: naming what is wrong, with an example of a right one.
    """
    example = "for example --base-url http://127.0.0.1:8080/v1"
    stripped = text.strip()
    try:
        parts = urlsplit(stripped)
        port = parts.port  # raises on a port that is not a number in range
    except ValueError as error:
        raise BaseUrlError(f"--base-url {text!r} is not a valid URL ({error}); {example}") from None
    if parts.scheme not in ("http", "https"):
        reason = "has no scheme" if not parts.scheme else f"has the scheme {parts.scheme!r}"
        raise BaseUrlError(
            f"--base-url {text!r} {reason}: it must start with http:// or https://; {example}"
        )
    if not parts.hostname:
        raise BaseUrlError(f"--base-url {text!r} names no host; {example}")
    if port == 0:
        raise BaseUrlError(f"--base-url {text!r} has port 0; {example}")
    return stripped


__all__ = ["BaseUrlError", "checked_base_url"]
