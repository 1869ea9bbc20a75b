"""``find``: file paths matching a glob, with fd when installed.

fd runs with ``--glob --hidden`` (its results sorted here, so they do not depend on the
order of its parallel walk); without it a pure-Python walk with
the same ``.gitignore`` rules does the matching. A pattern without ``/`` matches file names
(``*.py``), one with ``/`` matches the path from the searched folder (``src/**/*.py``).
Paths come back relative to that folder, depth first and by name, folders with a trailing
``/``; at most ``limit`` of them (1,000 by default) and 50 KB, with a notice when either
limit is reached. Names that are not UTF-8 come back with replacement characters; fd is
killed when the call is aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
from pathlib import Path

from pifold_agent.tools.arguments import (
    ToolInputError,
    failure,
    optional_integer,
    optional_string,
    required_string,
    resolve_path,
)
from pifold_agent.tools.blocking import in_thread
from pifold_agent.tools.built_in import BuiltIn
from pifold_agent.tools.gitignore import glob_to_regex, walk
from pifold_agent.tools.ls import listed_folder
from pifold_agent.tools.protocol import (
    Footprint,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    Touches,
)
from pifold_agent.tools.truncation import MAX_BYTES, format_size, output_limit, truncate_head
from pifold_core.canonical import JsonValue

DEFAULT_LIMIT = 1_000
"""Paths reported unless the call asks for another limit."""


def python_find(root: Path, pattern: str, limit: int) -> list[str]:
    """Up to ``limit + 1`` matching paths (one more than asked, to tell that there are
    more)."""
    expression = re.compile(glob_to_regex(pattern.lstrip("/")) + r"\Z")
    found: list[str] = []
    for relative, is_folder in walk(root):
        target = relative if "/" in pattern else relative.rsplit("/", 1)[-1]
        if expression.match(target):
            found.append(relative + "/" if is_folder else relative)
            if len(found) > limit:
                break
    return found


async def fd_find(executable: str, root: Path, pattern: str, limit: int) -> list[str] | str:
    """Up to ``limit + 1`` paths from fd, or its error text."""
    command = [executable, "--glob", "--color=never", "--hidden", "--exclude", ".git"]
    if "/" in pattern:
        command.append("--full-path")
        pattern = f"{root.as_posix().rstrip('/')}/{pattern.lstrip('/')}"
    # No --max-results: fd walks in parallel, so which results it stops at would vary from
    # run to run. Everything is sorted and cut here, the same call giving the same answer.
    command += ["--", pattern, str(root)]
    process = await asyncio.create_subprocess_exec(
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
    )
    try:
        output, errors = await process.communicate()
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await asyncio.shield(process.wait())
        raise
    if process.returncode not in (0, 1):
        return errors.decode("utf-8", "replace").strip() or "fd failed"
    found: list[str] = []
    for line in output.decode("utf-8", "replace").splitlines():
        if not line:
            continue
        folder = line.endswith("/")
        path = Path(line)
        relative = path.relative_to(root).as_posix() if path.is_absolute() else path.as_posix()
        relative = relative.removeprefix("./")
        if folder or (root / relative).is_dir():
            relative += "/"
        found.append(relative)
    # The walk's order: depth first, each folder's entries by name.
    found.sort(key=lambda relative: relative.rstrip("/").split("/"))
    return found[: limit + 1]


def render(found: list[str], limit: int, max_bytes: int = MAX_BYTES) -> ToolOutcome:
    """The result text with its notices."""
    if not found:
        return ToolOutcome("No files found matching pattern", details={"results": 0})
    more = len(found) > limit
    shown = found[:limit]
    truncation = truncate_head("\n".join(shown), max_lines=len(shown) + 1, max_bytes=max_bytes)
    notices: list[str] = []
    if more:
        notices.append(
            f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
        )
    if truncation.truncated:
        notices.append(f"{format_size(max_bytes)} limit reached")
    output = truncation.content
    if notices:
        output += "\n\n[" + ". ".join(notices) + "]"
    details: dict[str, JsonValue] = {
        "results": len(shown),
        "resultLimitReached": more,
        "truncation": truncation.to_details(),
    }
    return ToolOutcome(output, details=details)


PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Glob, e.g. *.py or src/**/*.ts."},
        "path": {"type": "string", "description": "Folder to search (default: .)."},
        "limit": {"type": "integer", "description": "Most paths to report (default 1000)."},
    },
    "required": ["pattern"],
}
"""The JSON schema of the arguments."""


class FindTool:
    """Pi's ``find``."""

    name = "find"
    traits = ToolTraits(Touches.SEARCHES, headline=("pattern",), position=5)
    description = (
        "Find files by glob pattern (fd when installed). Respects .gitignore and includes "
        "hidden files. Returns paths relative to the searched folder, at most 1000 unless "
        "limit says otherwise."
    )

    def __init__(self, fd: str | None = None, use_fd: bool = True) -> None:
        self.fd = fd or ((shutil.which("fd") or shutil.which("fdfind")) if use_fd else None)
        """The fd executable, or None for the pure-Python walk."""

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """The folder searched."""
        return listed_folder(arguments, cwd)

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            pattern = required_string(arguments, "pattern")
            shown = optional_string(arguments, "path") or "."
            root = resolve_path(shown, context.cwd)
            limit = optional_integer(arguments, "limit", 1) or DEFAULT_LIMIT
        except ToolInputError as error:
            return failure(f"find: {error}")
        if "\x00" in pattern:
            return failure("find: the pattern holds a NUL character, which no file name can")
        if not root.exists():
            return failure(f"Path not found: {shown}")
        if not root.is_dir():
            return failure(f"Not a directory: {shown}")
        if self.fd is not None:
            found = await fd_find(self.fd, root, pattern, limit)
            if isinstance(found, str):
                return failure(f"find: {found}")
        else:
            found = await in_thread(python_find, root, pattern, limit)
        return render(found, limit, output_limit(context.result_limit_bytes))


TOOL = BuiltIn(FindTool)
"""How :mod:`pifold_agent.tools.registry` finds and builds ``find``."""


__all__ = ["DEFAULT_LIMIT", "TOOL", "FindTool", "fd_find", "python_find", "render"]
