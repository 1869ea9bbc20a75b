"""A running SHA-256 of the session log, the digest a checkpoint names (issue 12).

Kept apart from :mod:`pifold_core.checkpoint` because the session state
(:mod:`pifold_core.session_state`) holds one, and the checkpoint modules read that state.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

_READ_CHUNK = 1 << 22
"""Bytes read at a time while hashing the log forward."""


class LogDigest:
    """A running SHA-256 of the log's bytes, read forward as the log grows, so writing a
    checkpoint reads only what was appended since the previous one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._hash = hashlib.sha256()
        self.position = 0
        """Bytes of the log hashed so far."""

    def seed(self, hashed: Any, position: int) -> None:
        """Continue from a hash of the log's first ``position`` bytes (a verified reopen)."""
        self._hash, self.position = hashed, position

    def through(self, end: int) -> str:
        """The SHA-256 of the log's first ``end`` bytes (``end`` at or past the position)."""
        if end < self.position:
            raise ValueError(f"the log digest is past byte {end} already")
        with open(self.path, "rb") as handle:
            handle.seek(self.position)
            while self.position < end:
                chunk = handle.read(min(_READ_CHUNK, end - self.position))
                if not chunk:
                    raise OSError(f"{self.path} ends before byte {end}")
                self._hash.update(chunk)
                self.position += len(chunk)
        return self._hash.hexdigest()


__all__ = ["LogDigest"]
