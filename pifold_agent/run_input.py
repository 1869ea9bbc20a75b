"""What a headless run is given: its options, and its messages as text it can send.

The prompt of ``-p`` and piped stdin are the user's bytes, and nothing promises they are
UTF-8 (the README's ``pifold -p "summarise this log" < build.log`` meets a stray Latin-1 byte
sooner or later). They are decoded with replacement: every byte that is not part of valid
UTF-8 becomes U+FFFD, and one warning line says how many were replaced, so the run goes on
and the user knows the text the model reads is not exactly theirs. The prompt reaches
Python as ``str`` already, its stray bytes escaped as lone surrogates (``surrogateescape``),
which no JSON encoder or provider takes: they are replaced the same way.

Piped stdin is read up to :data:`MAX_PIPED_BYTES`; more than that (``< /dev/zero``, a
multi-gigabyte log) is refused, since no model's window holds it anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

MAX_PIPED_BYTES = 32 * 1024 * 1024
"""The most piped stdin read: eight million tokens or so, beyond every model's window."""

REPLACEMENT = "\ufffd"
"""What each byte that is not UTF-8 becomes."""

_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: a byte ``surrogateescape`` kept, or a half of a pair on its own."""

_CHUNK_BYTES = 1024 * 1024


class CommandError(Exception):
    """A failure to report on stderr: the message, and the exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
        """The exit status: 2 before anything ran, 1 for a run that failed."""


@dataclass(frozen=True, slots=True)
class HeadlessOptions:
    """The command line of one headless run."""

    prompt: str | None
    """``-p``: the prompt."""
    as_json: bool = False
    """``--json``: every event as a JSON line on stdout."""
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    """The environment variable holding the key (a compatible server's)."""
    script: Path | None = None
    """``--script``: a script or trace for the scripted provider."""
    no_fold: bool = False
    """``--no-fold``: Pi's native compaction (summaries in the session file) instead of
    folding; no engine state is kept."""
    budget: int | None = None
    text_calls: bool = True
    """``--no-text-calls`` clears it: a call a local model writes as text stays text
    (:mod:`pifold_agent.providers.text_calls`)."""
    timeout_s: float | None = None
    """``--timeout``: seconds a request may wait for the server's next byte (see
    :mod:`pifold_agent.providers.request_timeout`)."""
    continue_session: bool = False
    resume: str | None = None
    yes: bool = False
    """``--yes``: start a new session when ``--continue`` finds none, without asking."""
    cwd: Path = Path(".")
    sessions_dir: Path | None = None
    """Where sessions live (``~/.pifold/sessions`` when ``None``)."""


@dataclass(frozen=True, slots=True)
class Messages:
    """The user messages of a run, in order, and what decoding them had to replace."""

    texts: list[str]
    """Piped stdin first (when any), then the prompt."""
    warnings: list[str]
    """One line per source whose bytes were not all UTF-8."""


def clean_text(text: str) -> tuple[str, int]:
    """``text`` with every lone surrogate replaced by U+FFFD, and how many there were."""
    cleaned, replaced = _SURROGATE.subn(REPLACEMENT, text)
    return cleaned, replaced


def decode_bytes(data: bytes) -> tuple[str, int]:
    """UTF-8 with each invalid byte replaced by U+FFFD, and how many bytes were replaced."""
    return clean_text(data.decode("utf-8", "surrogateescape"))


def read_piped(stdin: TextIO) -> tuple[str, int]:
    """What is piped on ``stdin``, decoded, and how many bytes were replaced.

    Raises:
        CommandError: more than :data:`MAX_PIPED_BYTES` are piped.
    """
    binary: BinaryIO | None = getattr(stdin, "buffer", None)
    if binary is None:  # a text stream with no bytes under it (a test's StringIO)
        text = stdin.read(MAX_PIPED_BYTES + 1)
        data_size = len(text.encode("utf-8", "surrogatepass"))
        if len(text) > MAX_PIPED_BYTES or data_size > MAX_PIPED_BYTES:
            raise _too_much_piped()
        return clean_text(text)
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_PIPED_BYTES:
        chunk = binary.read(_CHUNK_BYTES)
        if not chunk:
            return decode_bytes(b"".join(chunks))
        chunks.append(chunk)
        size += len(chunk)
    raise _too_much_piped()


def _too_much_piped() -> CommandError:
    return CommandError(
        f"piped stdin is larger than {MAX_PIPED_BYTES // (1024 * 1024)} MiB, more than any "
        "model's window holds; save it to a file and ask the agent to read the part that "
        "matters"
    )


def _replaced(count: int, source: str) -> str:
    noun = "byte was" if count == 1 else "bytes were"
    return f"{source} is not valid UTF-8: {count:,} {noun} replaced by U+FFFD"


def gather_messages(prompt: str | None, stdin: TextIO | None) -> Messages:
    """The messages to send: piped stdin first, then the prompt.

    Raises:
        CommandError: the prompt is empty, stdin is too large, or there is nothing to send.
    """
    texts: list[str] = []
    warnings: list[str] = []
    if stdin is not None and not stdin.isatty():
        piped, replaced = read_piped(stdin)
        if replaced:
            warnings.append(_replaced(replaced, "piped stdin"))
        if piped.strip():
            texts.append(piped)
    if prompt is not None:
        cleaned, replaced = clean_text(prompt)
        if not cleaned.strip():
            raise CommandError("the prompt given to -p is empty")
        if replaced:
            warnings.append(_replaced(replaced, "the prompt given to -p"))
        texts.append(cleaned)
    if not texts:
        raise CommandError("nothing to send: give a prompt with -p or pipe text on stdin")
    return Messages(texts, warnings)


__all__ = [
    "MAX_PIPED_BYTES",
    "CommandError",
    "HeadlessOptions",
    "Messages",
    "clean_text",
    "decode_bytes",
    "gather_messages",
    "read_piped",
]
