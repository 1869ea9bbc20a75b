"""Checks on the repository itself (docs/gates.md, G86): no tracked file names a personal home
folder, such as a Linux or macOS home path with a real user name or a Windows profile path.

The bundled traces under ``pifold_agent/data/`` are exempt: they are real sessions whose
authors' own paths are part of the recording (see each one's ``PROVENANCE.md``). The patterns are
proven to fire, on planted text and on that exempt data, so a clean result means something.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

EXEMPT = "pifold_agent/data/"
"""Tracked files under this folder are recorded sessions and keep their paths."""

PLACEHOLDER_NAMES = frozenset(
    {"user", "username", "you", "me", "name", "someone", "example", "shared"}
)
"""Names that stand for anyone in docs and examples (``Shared`` is macOS's common folder)."""

_NAME = r"([A-Za-z0-9._-]+)"
HOME_PATTERNS = (
    re.compile(r"(?<![A-Za-z0-9._-])/home/" + _NAME + "/"),
    re.compile(r"(?<![A-Za-z0-9._-])/Users/" + _NAME + "/"),
)
"""A Linux or macOS home folder with a concrete name, followed by something inside it."""

WINDOWS_PROFILE = re.compile(r"\b[A-Za-z]:(?:\\\\|\\|/)Users(?:\\\\|\\|/)", re.IGNORECASE)
"""A Windows profile folder: a drive letter, a colon, then ``Users`` between separators (a
backslash, an escaped one as in JSON or a string literal, or a slash)."""


def personal_paths(text: str) -> list[str]:
    """Every personal home path in ``text``, placeholders left out."""
    found: list[str] = []
    for pattern in HOME_PATTERNS:
        for match in pattern.finditer(text):
            if match.group(1).lower() not in PLACEHOLDER_NAMES:
                found.append(match.group(0))
    found.extend(match.group(0) for match in WINDOWS_PROFILE.finditer(text))
    return found


def tracked_files() -> list[str]:
    """Paths git tracks, relative to the repository root (skips the test outside a clone)."""
    git = shutil.which("git")
    if git is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        [git, "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    return [name for name in listed.decode("utf-8").split("\0") if name]


def _text(relative: str) -> str | None:
    """The file's text as it stands in the working tree (``None`` if it was deleted)."""
    path = REPO_ROOT / relative
    if not path.is_file():
        return None
    return path.read_bytes().decode("utf-8", errors="replace")


def _sample(*parts: str, sep: str = "/") -> str:
    """A path built at run time, so this file never holds one the check would flag."""
    return sep.join(parts)


def test_the_patterns_find_personal_paths_and_spare_placeholders() -> None:
    linux = _sample("", "home", "alice", "src", "pifold")
    mac = _sample("", "Users", "Bob.Smith", "Library")
    windows = _sample("C:", "Users", "carol", "AppData", sep="\\")
    escaped = _sample("D:", "Users", "dave", sep="\\\\")  # as written inside JSON
    forward = _sample("c:", "users", "erin", sep="/")
    for text in (linux, mac, windows, escaped, forward):
        assert personal_paths(f"see {text} for details"), text
    assert personal_paths(f"{linux}\n{mac}") == [
        _sample("", "home", "alice", ""),
        _sample("", "Users", "Bob.Smith", ""),
    ]
    spared = [
        _sample("", "home", "<name>", ".config"),
        _sample("", "home", "user", "project"),
        _sample("", "Users", "you", "code"),
        _sample("", "Users", "Shared", "data"),
        _sample("", "home", ""),  # the folder itself, no one in it
        _sample("", "root", ".config", "pi-fold"),
        "~/.config/pi-fold/settings.json",
        _sample("", "srv", "home", "x"),  # 'home' must be the top-level folder
        _sample("", "var", "www", "Users"),
    ]
    for text in spared:
        assert personal_paths(text) == [], text


def test_no_tracked_file_outside_the_bundled_data_names_a_personal_home_path() -> None:
    offenders: list[str] = []
    checked = 0
    for relative in tracked_files():
        if relative.startswith(EXEMPT):
            continue
        text = _text(relative)
        if text is None:
            continue
        checked += 1
        for line_number, line in enumerate(text.splitlines(), start=1):
            for path in personal_paths(line):
                offenders.append(f"{relative}:{line_number}: {path}")
    assert checked > 100  # the whole repository was read, not an empty listing
    assert offenders == [], "personal home paths in tracked files:\n" + "\n".join(offenders)


def test_the_bundled_session_is_exempt_because_it_carries_its_authors_paths() -> None:
    exempt = [relative for relative in tracked_files() if relative.startswith(EXEMPT)]
    assert exempt, f"nothing is tracked under {EXEMPT}: drop the exemption"
    found = [path for relative in exempt for path in personal_paths(_text(relative) or "")]
    assert found, f"the check finds nothing under {EXEMPT}: the patterns have gone inert"
