"""A pure-Python walk of a folder that honours ``.gitignore`` files, for grep and find when
ripgrep and fd are not installed.

Each folder's ``.gitignore`` applies below it, deeper files after shallower ones, the last
matching rule winning. Supported: comments, blank lines, ``!`` negation, a trailing ``/``
for folders only, anchoring by a ``/`` inside the pattern, ``*``, ``?``, ``[...]`` and
``**``. As in git, nothing inside an ignored folder can be re-included. Hidden files are
searched (as Pi's ``--hidden``), the ``.git`` folder never is, and symbolic links to folders
are not followed. A file an explicit glob selects is searched even when ignored, as with
ripgrep's ``--glob``, which Pi's grep passes through.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ALWAYS_SKIPPED = frozenset({".git"})
"""Folders never walked into."""


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """One line of a ``.gitignore``."""

    base: str
    """The folder of the ``.gitignore``, relative to the walk's root ('' for the root)."""
    pattern: re.Pattern[str]
    """Matches a path relative to :attr:`base`."""
    negated: bool
    """A ``!`` rule re-includes what an earlier rule ignored."""
    folders_only: bool
    """A trailing ``/``: the rule applies to folders only."""


def glob_to_regex(glob: str) -> str:
    """The regular expression of a gitignore-style glob over ``/``-separated paths."""
    parts: list[str] = []
    index = 0
    while index < len(glob):
        character = glob[index]
        if glob.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif glob.startswith("/**", index) and index + 3 == len(glob):
            parts.append("/.*")
            index += 3
        elif glob.startswith("**", index):
            parts.append(".*")
            index += 2
        elif character == "*":
            parts.append("[^/]*")
            index += 1
        elif character == "?":
            parts.append("[^/]")
            index += 1
        elif character == "[":
            end = glob.find("]", index + 2)
            if end < 0:
                parts.append(re.escape(character))
                index += 1
            else:
                body = glob[index + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                parts.append(f"[{body}]")
                index = end + 1
        elif character == "\\" and index + 1 < len(glob):
            parts.append(re.escape(glob[index + 1]))
            index += 2
        else:
            parts.append(re.escape(character))
            index += 1
    return "".join(parts)


def parse_gitignore(text: str, base: str) -> list[IgnoreRule]:
    """The rules of one ``.gitignore`` whose folder is ``base``."""
    rules: list[IgnoreRule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith("\\"):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        expression = glob_to_regex(line)
        if not anchored:
            expression = f"(?:.*/)?{expression}"
        rules.append(IgnoreRule(base, re.compile(f"{expression}\\Z"), negated, folders_only))
    return rules


def is_ignored(rules: list[IgnoreRule], relative: str, is_folder: bool) -> bool:
    """Whether the last rule matching ``relative`` (a root-relative path) ignores it."""
    ignored = False
    for rule in rules:
        if rule.folders_only and not is_folder:
            continue
        if rule.base:
            if not relative.startswith(rule.base + "/"):
                continue
            candidate = relative[len(rule.base) + 1 :]
        else:
            candidate = relative
        if rule.pattern.match(candidate):
            ignored = not rule.negated
    return ignored


def walk(
    root: Path,
    respect_gitignore: bool = True,
    include_file: Callable[[str], bool] | None = None,
) -> Iterator[tuple[str, bool]]:
    """Every path under ``root`` as ``(relative path, is folder)``, in sorted order, hidden
    ones included, ignored ones (and everything under an ignored folder) left out.

    ``include_file`` overrides the rules for files, as ripgrep's ``--glob`` does: a file it
    accepts is yielded even when ignored (if its folder is walked at all).
    """

    def visit(folder: Path, relative: str, rules: list[IgnoreRule]) -> Iterator[tuple[str, bool]]:
        if respect_gitignore:
            ignore_file = folder / ".gitignore"
            if ignore_file.is_file():
                try:
                    text = ignore_file.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    text = ""
                rules = rules + parse_gitignore(text, relative)
        try:
            children = sorted(os.scandir(folder), key=lambda child: child.name)
        except OSError:
            return
        for child in children:
            child_relative = f"{relative}/{child.name}" if relative else child.name
            try:
                is_folder = child.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_folder and child.name in ALWAYS_SKIPPED:
                continue
            overridden = not is_folder and include_file is not None and include_file(child_relative)
            if (
                respect_gitignore
                and not overridden
                and is_ignored(rules, child_relative, is_folder)
            ):
                continue
            yield child_relative, is_folder
            if is_folder:
                yield from visit(Path(child.path), child_relative, rules)

    yield from visit(root, "", [])


__all__ = ["ALWAYS_SKIPPED", "IgnoreRule", "glob_to_regex", "is_ignored", "parse_gitignore", "walk"]
