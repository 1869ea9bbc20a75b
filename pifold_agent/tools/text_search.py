"""grep's pure-Python search, used when ripgrep is not installed, and the types both share.

It walks the folder with the ``.gitignore`` rules of :mod:`pifold_agent.tools.gitignore`,
searches regular files only (a FIFO, a device or a socket in the tree is skipped, never
opened: :func:`~pifold_agent.tools.blocking.open_regular`), skips binary files (a NUL
byte in the first 8 KiB, as ripgrep does) and uses Python's ``re``. Files are streamed line
by line, so a 2 GB log costs a line of memory, not 2 GB; a line is searched in its first
:data:`LINE_KEPT_BYTES` (a longer one is minified code or data, and its match is cut to 500
characters anyway). A match is printed with up to ``context`` lines before and after it,
each line once.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from pifold_agent.tools.blocking import open_regular
from pifold_agent.tools.gitignore import glob_to_regex, walk
from pifold_agent.tools.line_stream import LineStream

BINARY_SNIFF_BYTES = 8 * 1024
"""A NUL byte this near the start marks a file binary."""

LINE_KEPT_BYTES = 1024 * 1024
"""How much of one line is searched."""


@dataclass(frozen=True, slots=True)
class Search:
    """One grep call's parameters, checked."""

    pattern: str
    root: Path
    glob: str | None
    ignore_case: bool
    literal: bool
    context: int
    limit: int


@dataclass(frozen=True, slots=True)
class Hit:
    """A line to print: a match or a context line."""

    path: str
    line: int
    text: str
    is_match: bool


def glob_matches(glob: str, relative: str) -> bool:
    """ripgrep's ``--glob``: a glob without ``/`` matches the file name, else the path."""
    target = relative if "/" in glob else relative.rsplit("/", 1)[-1]
    return re.fullmatch(glob_to_regex(glob.lstrip("/")), target) is not None


def python_search(search: Search) -> tuple[list[Hit], int]:
    """The hits and the number of matches, without ripgrep."""
    flags = re.IGNORECASE if search.ignore_case else 0
    expression = re.compile(re.escape(search.pattern) if search.literal else search.pattern, flags)
    if not search.root.is_dir():
        files = [(search.root.name, search.root)]
    else:
        glob = search.glob
        selected = (lambda relative: glob_matches(glob, relative)) if glob is not None else None
        files = [
            (relative, search.root / relative)
            for relative, is_folder in walk(search.root, include_file=selected)
            if not is_folder and (selected is None or selected(relative))
        ]
    hits: list[Hit] = []
    matches = 0
    for relative, path in files:
        if matches >= search.limit:
            break
        matches = _search_file(path, relative, expression, search, hits, matches)
    return hits, matches


def _search_file(
    path: Path,
    relative: str,
    expression: re.Pattern[str],
    search: Search,
    hits: list[Hit],
    matches: int,
) -> int:
    """Append the file's hits; the match count so far, this file's included."""
    try:
        handle = open_regular(path, relative, "grep searches")
    except OSError:
        return matches  # not a regular file, unreadable, a link loop: not searched
    with handle:
        try:
            if b"\0" in handle.read(BINARY_SNIFF_BYTES):
                return matches
            handle.seek(0)
            return _search_lines(LineStream(handle), relative, expression, search, hits, matches)
        except OSError:
            return matches  # a read failed midway: what was found stays


def _search_lines(
    stream: LineStream,
    relative: str,
    expression: re.Pattern[str],
    search: Search,
    hits: list[Hit],
    matches: int,
) -> int:
    before: deque[tuple[int, str]] = deque(maxlen=search.context or 1)
    printed = 0  # lines up to this number (1-based) were printed
    after = 0
    number = 0
    while (line := stream.line(LINE_KEPT_BYTES)) is not None:
        if matches >= search.limit and after == 0:
            break
        number += 1
        if stream.finished and not line.kept:
            break  # the empty "line" after a final newline is not a line of the file
        text = line.kept.decode("utf-8", "replace").removesuffix("\r")
        if matches < search.limit and expression.search(text):
            matches += 1
            if search.context:
                hits.extend(
                    Hit(relative, earlier, shown, False)
                    for earlier, shown in before
                    if earlier > printed
                )
            hits.append(Hit(relative, number, text, True))
            printed = number
            after = search.context
        elif after > 0:
            hits.append(Hit(relative, number, text, False))
            printed = number
            after -= 1
        before.append((number, text))
    return matches


__all__ = [
    "BINARY_SNIFF_BYTES",
    "LINE_KEPT_BYTES",
    "Hit",
    "Search",
    "glob_matches",
    "python_search",
]
