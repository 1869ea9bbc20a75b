"""A settings file that is refused: open with the defaults, say so, replace it on request.

A hand-edited ``settings.json`` with one bad value must not stop the app from opening, since
``/fold-settings``, the place to repair it, is inside the app (issue 19). The app opens with
the defaults instead, names the refused file and its reason, and a deliberate Save replaces
it, after the refused file is kept aside as ``settings.json.refused-<UTC time>`` so nothing
the user wrote is lost.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from pifold_core.options import EngineOptions
from pifold_core.settings import SettingsError, SettingsFile

REFUSED_SUFFIX = ".refused-"
"""Between the settings file's name and the time it was kept aside."""


def load_or_defaults(settings: SettingsFile) -> tuple[EngineOptions, SettingsError | None]:
    """The file's options, or its base (the defaults) and why the file was refused."""
    try:
        return settings.load(), None
    except SettingsError as error:
        return settings.base, error


def refused_notice(error: SettingsError) -> str:
    """What the app says when it opened with the defaults because of ``error``."""
    return (
        f"settings file {error.path} refused: {error.reason}. This session runs with the "
        "defaults; /fold-settings shows the file and Save replaces it (the refused one is "
        "kept beside it)."
    )


def keep_aside(path: Path, now: datetime | None = None) -> Path:
    """Rename the refused file at ``path`` to ``<name>.refused-<UTC time>`` beside it (a
    number is added if that name is taken) and return the new path; an atomic rename, so the
    file is either still there or kept aside, never lost or half copied."""
    moment = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}{REFUSED_SUFFIX}{moment}")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}{REFUSED_SUFFIX}{moment}-{number}")
    os.rename(path, target)
    return target


__all__ = ["REFUSED_SUFFIX", "keep_aside", "load_or_defaults", "refused_notice"]
