"""``grep``: search file contents for a pattern, with ripgrep when installed.

ripgrep runs in JSON mode with ``--hidden`` and ``--sort path`` (a stable order, so the
same search always gives the same result); without it a pure-Python search
(:mod:`pifold_agent.tools.text_search`) walks the folder with the same ``.gitignore``
rules, skips binary files and streams each file. Either way only regular files are searched:
a FIFO or a device named as the path is refused, one met in the tree is skipped. A path or
a line that is not UTF-8 comes back with replacement characters. Matches read
``path:line: text`` and context lines ``path-line- text``, paths relative to the searched
folder. At most ``limit`` matches (100 by default) are reported; each line is cut to 500
characters; the whole output to 50 KB. Notices say which limit was reached and how to get
more.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import shutil
import stat
from pathlib import Path
from typing import Any

from pifold_agent.tools.arguments import (
    ToolInputError,
    failure,
    optional_boolean,
    optional_integer,
    optional_string,
    required_string,
    resolve_path,
)
from pifold_agent.tools.blocking import in_thread, refusal
from pifold_agent.tools.built_in import BuiltIn
from pifold_agent.tools.ls import listed_folder
from pifold_agent.tools.protocol import (
    Footprint,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    Touches,
)
from pifold_agent.tools.text_search import Hit, Search, glob_matches, python_search
from pifold_agent.tools.truncation import (
    GREP_MAX_LINE_CHARACTERS,
    MAX_BYTES,
    format_size,
    output_limit,
    truncate_head,
    truncate_line,
)
from pifold_core.canonical import JsonValue

DEFAULT_LIMIT = 100
"""Matches reported unless the call asks for another limit."""


async def ripgrep_search(executable: str, search: Search) -> tuple[list[Hit], int] | str:
    """The hits and match count from ripgrep, or its error text."""
    command = [executable, "--json", "--line-number", "--color=never", "--hidden"]
    # The same files as the pure-Python walk: .gitignore honoured outside a repository too,
    # hidden files searched, the .git folder never.
    command += ["--sort", "path", "--no-require-git", "--glob", "!.git"]
    if search.ignore_case:
        command.append("--ignore-case")
    if search.literal:
        command.append("--fixed-strings")
    if search.glob is not None:
        command += ["--glob", search.glob]
    if search.context:
        command += ["--context", str(search.context)]
    command += ["--", search.pattern, str(search.root)]
    process = await asyncio.create_subprocess_exec(
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
    )
    assert process.stdout is not None and process.stderr is not None
    hits: list[Hit] = []
    matches = 0
    base = search.root if search.root.is_dir() else search.root.parent
    try:
        while line := await process.stdout.readline():
            event = json.loads(line)
            kind = event.get("type")
            if kind not in ("match", "context"):
                continue
            if kind == "match" and matches >= search.limit:
                break
            data = event["data"]
            path = Path(_ripgrep_text(data["path"]))
            relative = path.relative_to(base).as_posix() if path.is_absolute() else path.as_posix()
            text = _ripgrep_text(data["lines"]).removesuffix("\n").removesuffix("\r")
            hits.append(Hit(relative, int(data["line_number"]), text, kind == "match"))
            matches += kind == "match"
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        errors, code = await asyncio.shield(_ended(process))
    if code == 2 and not hits:
        return errors.decode("utf-8", "replace").strip() or "ripgrep failed"
    return _without_context_past_the_limit(hits, search.context), matches


def _ripgrep_text(field: Any) -> str:
    """A path or line of ripgrep's JSON: ``text`` when it is UTF-8, else ``bytes`` in
    base64, decoded here with replacement characters."""
    if "text" in field:
        return str(field["text"])
    return base64.b64decode(field.get("bytes", "")).decode("utf-8", "replace")


async def _ended(process: asyncio.subprocess.Process) -> tuple[bytes, int]:
    """ripgrep's error output and exit code, once it has ended (it was killed if need be)."""
    assert process.stderr is not None
    errors = await process.stderr.read()
    return errors, await process.wait()


def _without_context_past_the_limit(hits: list[Hit], context: int) -> list[Hit]:
    """Drop the context ripgrep printed before the match that stopped the search: only the
    last reported match's own context may follow it."""
    last = max((index for index, hit in enumerate(hits) if hit.is_match), default=-1)
    if last < 0:
        return []
    end = last + 1
    while (
        end < len(hits)
        and hits[end].path == hits[last].path
        and hits[end].line <= hits[last].line + context
    ):
        end += 1
    return hits[:end]


def render(hits: list[Hit], matches: int, limit: int, max_bytes: int = MAX_BYTES) -> ToolOutcome:
    """The result text with its notices."""
    if not hits:
        return ToolOutcome("No matches found", details={"matches": 0})
    lines_cut = False
    printed: list[str] = []
    for hit in hits:
        text, cut = truncate_line(hit.text)
        lines_cut = lines_cut or cut
        separator = ":" if hit.is_match else "-"
        printed.append(f"{hit.path}{separator}{hit.line}{separator} {text}")
    truncation = truncate_head("\n".join(printed), max_lines=len(printed) + 1, max_bytes=max_bytes)
    notices: list[str] = []
    if matches >= limit:
        notices.append(
            f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern"
        )
    if truncation.truncated:
        notices.append(f"{format_size(max_bytes)} limit reached")
    if lines_cut:
        notices.append(
            f"Some lines truncated to {GREP_MAX_LINE_CHARACTERS} chars. "
            "Use read tool to see full lines"
        )
    output = truncation.content
    if notices:
        output += "\n\n[" + ". ".join(notices) + "]"
    details: dict[str, JsonValue] = {
        "matches": matches,
        "matchLimitReached": matches >= limit,
        "linesTruncated": lines_cut,
        "truncation": truncation.to_details(),
    }
    return ToolOutcome(output, details=details)


PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Regular expression (or text, with literal)."},
        "path": {"type": "string", "description": "File or folder to search (default: .)."},
        "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.py."},
        "ignoreCase": {"type": "boolean", "description": "Match regardless of case."},
        "literal": {"type": "boolean", "description": "Treat the pattern as plain text."},
        "context": {"type": "integer", "description": "Lines of context around each match."},
        "limit": {"type": "integer", "description": "Most matches to report (default 100)."},
    },
    "required": ["pattern"],
}
"""The JSON schema of the arguments."""


class GrepTool:
    """Pi's ``grep``."""

    name = "grep"
    traits = ToolTraits(Touches.SEARCHES, headline=("pattern",), position=4)
    description = (
        "Search file contents for a regular expression (ripgrep when installed). Respects "
        ".gitignore and includes hidden files. Output: path:line: text, at most 100 matches "
        "or 50KB unless limit says otherwise."
    )

    def __init__(self, ripgrep: str | None = None, use_ripgrep: bool = True) -> None:
        self.ripgrep = ripgrep or (shutil.which("rg") if use_ripgrep else None)
        """The ripgrep executable, or None for the pure-Python search."""

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """The folder (or file) searched."""
        return listed_folder(arguments, cwd)

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            pattern = required_string(arguments, "pattern")
            shown = optional_string(arguments, "path") or "."
            search = Search(
                pattern=pattern,
                root=resolve_path(shown, context.cwd),
                glob=optional_string(arguments, "glob"),
                ignore_case=optional_boolean(arguments, "ignoreCase"),
                literal=optional_boolean(arguments, "literal"),
                context=optional_integer(arguments, "context", 0) or 0,
                limit=optional_integer(arguments, "limit", 1) or DEFAULT_LIMIT,
            )
        except ToolInputError as error:
            return failure(f"grep: {error}")
        if "\x00" in pattern or "\x00" in (search.glob or ""):
            return failure("grep: the pattern or glob holds a NUL character (ripgrep takes none)")
        try:
            mode = os.stat(search.root).st_mode
        except FileNotFoundError:
            return failure(f"Path not found: {shown}")
        except OSError as error:
            return failure(f"grep: cannot search {shown}: {error.strerror or error}")
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            return failure(f"grep: {refusal(shown, mode, 'grep searches')}")
        if self.ripgrep is not None:
            found = await ripgrep_search(self.ripgrep, search)
            if isinstance(found, str):
                return failure(f"grep: {found}")
            return render(*found, search.limit, output_limit(context.result_limit_bytes))
        try:
            hits, matches = await in_thread(python_search, search)
        except re.error as error:
            return failure(f"grep: invalid pattern {pattern!r}: {error}")
        return render(hits, matches, search.limit, output_limit(context.result_limit_bytes))


TOOL = BuiltIn(GrepTool)
"""How :mod:`pifold_agent.tools.registry` finds and builds ``grep``."""


__all__ = [
    "DEFAULT_LIMIT",
    "TOOL",
    "GrepTool",
    "Hit",
    "Search",
    "glob_matches",
    "python_search",
    "render",
]
