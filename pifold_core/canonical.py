"""Canonical JSON bytes and SHA-256 digests.

Every digest pifold records (entry digests, projected-message digests, fold sources, log
checksums) is computed over *canonical bytes*, so the same value always hashes the same way
whatever order its keys were built in.

The canonical form, stated once:

* objects with keys sorted by code point, no insignificant whitespace (``,`` and ``:``);
* strings as UTF-8, escaping only what JSON requires (``"``, ``\\``, C0 controls); a lone
  surrogate, which has no UTF-8 form, is written as its ``\\uXXXX`` escape;
* integers in plain decimal; finite floats in Python's shortest round-trip ``repr``
  (``0.1``, ``1e-07``, ``-0.0``); ``NaN`` and infinities are refused;
* ``true``, ``false``, ``null``; lists in order.

The format version below is recorded next to every stored object so a later change of rule
can never silently reinterpret old bytes.

A second serialisation, the **wire form** (:func:`wire_bytes`), is what a host sends: the
same rules except that object keys keep the order the engine gives them (the provider's
order for tool-call arguments) instead of being sorted. It is exactly
``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` encoded as strict UTF-8, so a
host that serialises a request that way sends the bytes the wire audit digested. The state
log is written in wire form too, so key order survives a restart; its checksums, fold
sources and record digests stay canonical.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

CANONICAL_FORMAT_VERSION = 1
"""Version of the canonical JSON rule above, recorded with stored objects."""

WIRE_FORMAT_VERSION = 1
"""Version of the wire form (:func:`wire_bytes`), recorded with every logged request."""

HASH_ALGORITHM = "sha256"
"""The one hash algorithm pifold uses, recorded with stored objects."""

JsonValue = Any
"""A value made of dict (string keys), list, str, int, float, bool and None."""


class CanonicalError(ValueError):
    """A value cannot be written as canonical JSON (a non-finite number, a bad key, ...)."""


_ENCODER = json.JSONEncoder(
    ensure_ascii=False,
    allow_nan=False,
    sort_keys=True,
    separators=(",", ":"),
    check_circular=True,
)


def canonical_text(value: JsonValue) -> str:
    """Return the canonical JSON text of ``value``.

    Keys should be strings. Like ``json``, an int, float, bool or None key is written as its
    string form (so ``{1: "a"}`` and ``{"1": "a"}`` give the same bytes); a dict mixing key
    types that cannot be sorted together is refused.

    Raises:
        CanonicalError: when the value holds a non-finite float or unsortable keys.
    """
    try:
        return _ENCODER.encode(value)
    except RecursionError:
        raise CanonicalError("value nests too deeply to write as JSON") from None
    except ValueError as error:
        raise CanonicalError(_describe_problem(value) or str(error)) from error
    except TypeError as error:
        raise CanonicalError(f"value is not JSON: {error}") from error


def canonical_bytes(value: JsonValue) -> bytes:
    """Return the canonical UTF-8 bytes of ``value``."""
    text = canonical_text(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # Only lone surrogates fail here; their JSON escape is the canonical spelling.
        return text.encode("utf-8", "backslashreplace")


_WIRE_ENCODER = json.JSONEncoder(
    ensure_ascii=False,
    allow_nan=False,
    sort_keys=False,
    separators=(",", ":"),
    check_circular=True,
)


def wire_bytes(value: JsonValue) -> bytes:
    """The bytes a host sends for ``value``: keys in the order given, strict UTF-8.

    Raises:
        CanonicalError: a non-finite number, a value that is not JSON, or a string that has
            no UTF-8 form (a lone surrogate): such bytes could never be read back as sent.
    """
    try:
        text = _WIRE_ENCODER.encode(value)
    except RecursionError:
        raise CanonicalError("value nests too deeply to write as JSON") from None
    except ValueError as error:
        raise CanonicalError(_describe_problem(value) or str(error)) from error
    except TypeError as error:
        raise CanonicalError(f"value is not JSON: {error}") from error
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise CanonicalError(
            f"text holds a lone surrogate {text[error.start : error.end]!r} at character "
            f"{error.start}, which has no UTF-8 form"
        ) from None


def wire_digest_of(value: JsonValue) -> str:
    """Lowercase hex SHA-256 of the wire bytes of ``value`` (what the audit compares)."""
    return sha256_hex(wire_bytes(value))


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def digest_of(value: JsonValue) -> str:
    """Lowercase hex SHA-256 of the canonical bytes of ``value``."""
    return sha256_hex(canonical_bytes(value))


def parse_json(data: bytes | str) -> JsonValue:
    """Parse JSON text, refusing ``NaN``/``Infinity`` literals that canonical JSON never writes."""

    def refuse_constant(name: str) -> float:
        raise CanonicalError(f"JSON constant {name} is not allowed")

    return json.loads(data, parse_constant=refuse_constant)


def _describe_problem(value: JsonValue, path: str = "$") -> str | None:
    """Find the first non-finite float and name where it sits, for a clear error."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"non-finite number {value!r} at {path}"
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"non-string key {key!r} at {path}"
            found = _describe_problem(item, f"{path}.{key}")
            if found:
                return found
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _describe_problem(item, f"{path}[{index}]")
            if found:
                return found
    return None
