"""Identifiers worth keeping in a brief, found in one pass per entry (DESIGN §3).

A brief keeps in sight what a summary loses and what the agent searches for later. This
module finds those values in an entry's text, once per entry:

* **fatal lines**: whole lines that read as fatal or as an error code even in the middle of
  noisy output (``error[E0425]``, ``FATAL``, ``npm ERR!``, ``exit code 2``, ``Traceback``,
  ``AssertionError:``, ``panic:``, HTTP 4xx/5xx status lines, ``error:``, ``FAILED``);
* **keys**: continuation keys, hashes and ``UPPER_SNAKE`` constants;
* **versions**: ``v1.2.3``, ``==2.4.1``, ``@types/node@20.11.5``, ``go1.22.3``, ``1.2.3``;
* **definitions**: the names a result defined (``def name(``, ``class Name``, ``function
  name``, ``fn name``, ``func Name``, ``export const name =``);
* **paths** and **numbers** (three digits or more, those of six or more first);

and, beside them, every identifier-like token (the above plus ``snake_case``, ``camelCase``
and dotted names), which is how a later use by the agent is recognised.

Work is linear in the text: one tokenising pass classifies each distinct token once against
one precompiled alternation, and two keyword scans find fatal lines and definitions. The
result is cached by the entry's wire digest, so the span brief that follows a tool brief
over the same results, or a preview followed by its commit, scans nothing twice. Nothing
here depends on time, randomness or the cache's state: the same text gives the same values.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pifold_core.entries import Entry

ENTRY_SCAN_CHARS = 200_000
"""Characters of one entry's text that are scanned; the rest of a larger entry is not."""

SPAN_SCAN_CHARS = 1_000_000
"""Characters of a span's entries scanned for one brief, stalest entries first."""

PER_CLASS = 64
"""Values kept per class and entry (a brief shows at most :data:`MAX_IDENTIFIERS`)."""

FATAL_LINES = 16
"""Fatal lines kept per entry."""

MAX_IDENTIFIERS = 40
"""Values a brief offers at most, before the room decides how many fit."""

USED_FIRST = 12
"""Values the agent used later that go before everything else; more would crowd out the
fatal lines and the other classes (an agent's later edit repeats much of the code it read)."""

FATAL_FIRST = 6
"""Fatal lines that go before the other classes."""

CACHE_ENTRIES = 512
"""Entries whose scan is remembered (enough for a commit's folds and their consolidation)."""

_TOKEN = re.compile(r"[\w@.+/~-]+(?:==[\w.+-]+)?")
_EXTENSIONS = (
    "py|pyi|ts|tsx|js|jsx|mjs|rs|go|c|h|cc|cpp|hpp|java|kt|rb|php|md|json|jsonl|toml|yaml|"
    "yml|txt|sh|cfg|ini|lock|html|css|sql|rst"
)
_CLASS = re.compile(
    r"(?P<version>v\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?|[\w.-]*==\d+(?:\.\w+)+"
    r"|(?:@?[\w.-]+/)?[\w.-]+@\d+(?:\.\w+)+|go\d+\.\d+(?:\.\d+)?|\d+\.\d+\.\d+(?:-[\w.]+)?)"
    r"|(?P<path>(?:~?/|\./|\.\./)?(?:[\w@.+-]+/)+[\w@.+-]+|[\w-]+\.(?:" + _EXTENSIONS + r"))"
    r"|(?P<constant>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"
    r"|(?P<hash>(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64})"
    r"|(?P<key>(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9][\w-]{11,63})"
    r"|(?P<number>\d{3,}(?:\.\d+)?)"
    r"|(?P<code>[A-Za-z_]\w*(?:_[A-Za-z0-9]|[a-z][A-Z])\w*|[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+)"
)
_KEY_GROUPS = frozenset({"constant", "hash", "key"})
_HTTP_REASONS = (
    "Bad Request|Unauthorized|Payment Required|Forbidden|Not Found|Method Not Allowed|Conflict|"
    "Gone|Unprocessable Entity|Too Many Requests|Internal Server Error|Not Implemented|"
    "Bad Gateway|Service Unavailable|Gateway Timeout"
)
_FATAL = re.compile(
    r"\berror\[E\d+\]|\bFATAL\b|\bfatal:|\bnpm (?:ERR!|error)|\bexit(?:ed)?(?: with)?"
    r" (?:code|status)[:=]? ?[1-9]\d*|\bTraceback\b|\bpanic:|\bSegmentation fault\b"
    r"|\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?::|$)|(?:^[ \t]*|:[ \t]?)error:|\bERROR\b"
    r"|\bFAIL(?:ED)?\b|\bCRITICAL\b|\bPermission denied\b|\bNo such file or directory\b"
    r"|\bcommand not found\b|\bHTTP/\d(?:\.\d)? [45]\d\d\b"
    r"|\bstatus(?:[ _]code)?[\"']?[=: ]+[45]\d\d\b"
    r"|\b[45]\d\d (?:" + _HTTP_REASONS + r")\b"
)
_FATAL_KEYWORDS = (
    "error[|error:|FATAL|fatal:|npm |exit|Traceback|panic:|Segmentation fault|Error|Exception|"
    "ERROR|FAIL|CRITICAL|Permission denied|No such file or directory|command not found|HTTP/|"
    "status"
)
_FATAL_WORDS = (
    *_FATAL_KEYWORDS.split("|"),
    *_HTTP_REASONS.split("|"),
)
"""A literal that every match of :data:`_FATAL` contains: lines are found by fast substring
search and only the lines holding one are matched against the pattern, which is slow to run
over a whole text (it would be tried at nearly every position)."""
_DEFINITION = re.compile(
    # A function's name must be followed by its parameters (or generics), a class's must be
    # capitalised, and an export by its value: "def" or "class" in prose is not a definition.
    r"\b(?:(?:async )?def|(?:pub(?:\(\w+\))? )?fn|func(?: \([^)\n]{0,80}\))?|function\*?)"
    r" +([A-Za-z_$][\w$]*) ?[(<]"
    r"|\bclass +([A-Z][\w$]*)"
    r"|\bexport (?:default )?(?:async )?(?:const|let|var) +([A-Za-z_$][\w$]*) ?[=:]"
    r"|\bexport (?:default )?(?:async )?(?:function\*?|class) +([A-Za-z_$][\w$]*)"
)
_LINE_CHARS = 160
LONG_NUMBER_DIGITS = 6
"""Numbers this long or longer come before shorter ones."""


@dataclass(frozen=True, slots=True)
class Found:
    """What one text holds: each class in order of first appearance, each value once."""

    fatal: tuple[str, ...]
    """Fatal or error-code lines, whitespace collapsed, at most 160 characters each."""
    keys: tuple[str, ...]
    """Continuation keys, hashes and constants."""
    versions: tuple[str, ...]
    """Version strings."""
    definitions: tuple[str, ...]
    """Names of the functions and classes the text defines."""
    paths: tuple[str, ...]
    """File paths."""
    numbers: tuple[str, ...]
    """Numbers of three digits or more."""
    token_lines: str
    """Every identifier-like token, one a line (none holds a line break), for recognising a
    later use: one string, not a set, because the cache of scans holds 512 entries' and a
    set of short strings costs about eight times their text (26 of 40 MB traced while
    driving 3,000 entries, issue 23 item 5)."""

    def tokens(self) -> frozenset[str]:
        """Every identifier-like token, for recognising a later use."""
        return frozenset(self.token_lines.split("\n")) if self.token_lines else frozenset()

    def values(self) -> frozenset[str]:
        """The values of every ranked class (fatal lines aside)."""
        return frozenset(value for values in self.ranked_classes() for value in values)

    def ranked_classes(self) -> tuple[tuple[str, ...], ...]:
        """The classes a brief takes in turn after fatal lines, most telling first."""
        return (self.keys, self.versions, self.definitions, self.paths, self.numbers)


def _fatal_lines(text: str) -> list[str]:
    starts: set[int] = set()
    for word in _FATAL_WORDS:
        position = text.find(word)
        while position >= 0:
            starts.add(text.rfind("\n", 0, position) + 1)
            line_end = text.find("\n", position)
            if line_end < 0:
                break
            position = text.find(word, line_end)
    lines: list[str] = []
    for start in sorted(starts):
        end = text.find("\n", start)
        raw = text[start : len(text) if end < 0 else end]
        if _FATAL.search(raw) is None:
            continue
        line = " ".join(raw.split())
        if len(line) > _LINE_CHARS:
            line = line[: _LINE_CHARS - 1].rstrip() + "…"
        if len(line) >= 8 and line not in lines:
            lines.append(line)
            if len(lines) >= FATAL_LINES:
                break
    return lines


def scan_text(text: str) -> Found:
    """Every identifier in ``text`` (its first :data:`ENTRY_SCAN_CHARS` characters)."""
    text = text[:ENTRY_SCAN_CHARS]
    # Dicts as ordered sets: membership stays constant-time however long a class grows.
    classes: dict[str, dict[str, None]] = {
        "keys": {},
        "version": {},
        "definitions": {},
        "path": {},
        "number": {},
    }
    tokens: set[str] = set()
    classify = _CLASS.fullmatch
    for raw in dict.fromkeys(_TOKEN.findall(text)):
        token = raw.rstrip(".-")
        if len(token) < 3:
            continue
        match = classify(token)
        if match is None:
            continue
        tokens.add(token)
        group = match.lastgroup
        if group == "code" or group is None:
            continue
        bucket = classes["keys"] if group in _KEY_GROUPS else classes[group]
        if len(bucket) < PER_CLASS:
            bucket.setdefault(token, None)
    definitions = classes["definitions"]
    names = (next(group for group in groups if group) for groups in _DEFINITION.findall(text))
    for name in dict.fromkeys(names):
        if len(name) >= 3:
            tokens.add(name)
            if len(definitions) < PER_CLASS:
                definitions.setdefault(name, None)
    # Long numbers (ids, counts, sizes) say more than the many short ones (line numbers).
    numbers = sorted(classes["number"], key=lambda number: len(number) < LONG_NUMBER_DIGITS)
    return Found(
        fatal=tuple(_fatal_lines(text)),
        keys=tuple(classes["keys"]),
        versions=tuple(classes["version"]),
        definitions=tuple(definitions),
        paths=tuple(classes["path"]),
        numbers=tuple(numbers),
        token_lines="\n".join(tokens),
    )


def found_in_values(values: Sequence[str]) -> Found:
    """The values a brief already lists, sorted back into their classes.

    A consolidated brief ranks its children's identifiers with the same rules as a span's
    without reading their entries again: each value is classified as :func:`scan_text`
    would have (a line with a fatal keyword, else by its form; a plain name is taken for a
    definition).
    """
    classes: dict[str, dict[str, None]] = {
        name: {} for name in ("fatal", "keys", "version", "definitions", "path", "number")
    }
    for value in values:
        match = None if " " in value else _CLASS.fullmatch(value)
        group = match.lastgroup if match is not None else None
        if group is None and _FATAL.search(value):
            group = "fatal"
        elif group is None or group == "code":
            group = "definitions"
        elif group in _KEY_GROUPS:
            group = "keys"
        classes[group].setdefault(value, None)
    return Found(
        fatal=tuple(classes["fatal"]),
        keys=tuple(classes["keys"]),
        versions=tuple(classes["version"]),
        definitions=tuple(classes["definitions"]),
        paths=tuple(classes["path"]),
        numbers=tuple(classes["number"]),
        token_lines="\n".join(dict.fromkeys(values)),
    )


_CACHE: OrderedDict[str, Found] = OrderedDict()
# Engines may run in worker threads (the app's): the cache's get-then-reorder is one step.
_CACHE_LOCK = threading.Lock()


def scan_entry(entry: Entry) -> Found:
    """:func:`scan_text` of the entry's text, remembered by its wire digest."""
    key = entry.wire_digest
    with _CACHE_LOCK:
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
            return found
    found = scan_text(entry.text)
    with _CACHE_LOCK:
        _CACHE[key] = found
        if len(_CACHE) > CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return found


def forget_scans() -> None:
    """Empty the cache of entry scans (a brief never depends on what it holds)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def scan_entries(entries: Iterable[Entry]) -> list[Found]:
    """The scans of ``entries`` in order, up to :data:`SPAN_SCAN_CHARS` characters of text."""
    found: list[Found] = []
    scanned = 0
    for entry in entries:
        if scanned >= SPAN_SCAN_CHARS:
            break
        found.append(scan_entry(entry))
        scanned += min(len(entry.text), ENTRY_SCAN_CHARS)
    return found


LATER_ENTRIES = 24
"""Entries after a span that are read for what the agent used."""

LATER_CHARS = 16_000
"""Characters of the agent's later text and tool-call arguments read, at most."""


def later_uses(later: Sequence[Entry]) -> list[str]:
    """Tokens the agent wrote after a span, in the order it first wrote them.

    Read: the assistant entries among the first :data:`LATER_ENTRIES` of ``later`` (the
    entries after the span, as they exist when the fold is made), their text and every
    string in their tool calls' arguments, up to :data:`LATER_CHARS` characters in all.
    """
    pieces: list[str] = []
    room = LATER_CHARS
    for entry in later[:LATER_ENTRIES]:
        if entry.kind != "assistant":
            continue
        for text in (entry.text, *(_argument_text(call.arguments) for call in entry.tool_calls)):
            if room <= 0:
                break
            pieces.append(text[:room])
            room -= len(pieces[-1])
    tokens = (raw.rstrip(".-") for raw in _TOKEN.findall("\n".join(pieces)))
    return [token for token in dict.fromkeys(tokens) if len(token) >= 3]


def _argument_text(arguments: object) -> str:
    """Every string and number inside tool-call arguments, one per line, in order."""
    found: list[str] = []
    pending = [arguments]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int | float):
            found.append(str(value))
        elif isinstance(value, dict):
            pending.extend(reversed(list(value.values())))
        elif isinstance(value, list | tuple):
            pending.extend(reversed(value))
    return "\n".join(found)


def rank(found: Sequence[Found], uses: Sequence[str], limit: int = MAX_IDENTIFIERS) -> list[str]:
    """The values a brief should show, most telling first, each once.

    First up to :data:`USED_FIRST` of the span's identifiers the agent used later (those of
    a ranked class before plain code words, each group in the order the agent used them),
    then up to :data:`FATAL_FIRST` fatal lines, then the other classes in turn (a key, a
    version, a definition, a path, a number, then the next of each), each class in order of
    first appearance.
    """
    chosen: dict[str, None] = {}
    joined = "\n".join(item.token_lines for item in found if item.token_lines)
    span_tokens = frozenset(joined.split("\n")) if joined else frozenset()
    span_values: frozenset[str] = frozenset().union(*(item.values() for item in found))
    used = [token for token in uses if token in span_tokens]
    # Keys, paths, numbers and the like the agent used before plain code words it repeated.
    used.sort(key=lambda token: token not in span_values)
    for token in used[: min(USED_FIRST, limit)]:
        chosen[token] = None
    lines: list[str] = []
    for item in found:
        for line in item.fatal:
            if len(lines) >= FATAL_FIRST or len(chosen) >= limit:
                break
            if line not in chosen:
                chosen[line] = None
                lines.append(line)
    classes = [_merged([item.ranked_classes()[index] for item in found]) for index in range(5)]
    # Each entry put its long numbers first; across entries too.
    classes[-1].sort(key=lambda number: len(number) < LONG_NUMBER_DIGITS)
    for value in _in_turn(classes):
        if len(chosen) >= limit:
            break
        # A value already shown inside a kept line would only repeat it.
        if value in chosen or any(value in line for line in lines):
            continue
        chosen[value] = None
    return list(chosen)


def _merged(lists: Sequence[Sequence[str]]) -> list[str]:
    merged: dict[str, None] = {}
    for values in lists:
        for value in values:
            if len(merged) >= PER_CLASS:
                return list(merged)
            merged.setdefault(value, None)
    return list(merged)


def _in_turn(classes: Sequence[Sequence[str]]) -> Iterable[str]:
    """The first of each class, then the second of each, ...: no class crowds out the rest."""
    longest = max((len(values) for values in classes), default=0)
    for position in range(longest):
        for values in classes:
            if position < len(values):
                yield values[position]
