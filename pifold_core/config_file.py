"""Reading a user's configuration file without trusting what stands at its path.

``settings.json`` and ``models.json`` are read at start-up by every command. Whatever is at
the path is looked at before it is opened: a FIFO would block the open (and the command)
until something writes to it, and a device such as ``/dev/zero`` (a symlink to one, say)
never ends; both, and anything else that is not a regular file, are refused with what they
are. The open itself does not wait (``O_NONBLOCK``), should a FIFO replace the file after the
look, and the read stops at :data:`MAX_CONFIG_BYTES`: a configuration file is a few hundred
bytes, and a larger one is refused rather than read into memory whole.

A file that other users may write (group or world write permission) or that another user
owns is read, with a warning: the options it holds steer pifold's budget, folding and
colours, and the models table its budgets and prices, which a stranger should not set
unseen; but none of it runs code, names a path pifold writes, or holds a key, so a refusal
would stop the user over a mode that is, on systems with one group per user, the umask's
ordinary default (0664). The warning names the file, what is loose and the fix.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_CONFIG_BYTES = 1024 * 1024
"""The most a configuration file may hold."""


class ConfigFileError(Exception):
    """The file cannot be read as configuration; the message says why (no path: the caller
    names the file its own way)."""


@dataclass(frozen=True, slots=True)
class ConfigRead:
    """A configuration file's bytes, its status, and what is loose about it."""

    data: bytes
    """Everything the file holds."""
    status: os.stat_result
    """Its status as opened (size, times, inode)."""
    warning: str | None
    """Who else may change it, with the fix; ``None`` when it is private to its owner."""


def kind_of(mode: int) -> str:
    """What a path that is not a regular file is, for a refusal."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_config_file(path: Path, limit: int = MAX_CONFIG_BYTES) -> ConfigRead | None:
    """The file at ``path``, or ``None`` when nothing is there.

    Raises:
        ConfigFileError: it is not a regular file, cannot be read, or is larger than
            ``limit`` bytes.
    """
    try:
        looked = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigFileError(f"cannot read: {error.strerror or error}") from None
    if not stat.S_ISREG(looked.st_mode):
        # Refused from its status alone: opening a FIFO to read would wait for a writer.
        raise ConfigFileError(f"cannot read: it is {kind_of(looked.st_mode)}, not a regular file")
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigFileError(f"cannot read: {error.strerror or error}") from None
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(stream.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise ConfigFileError(
                f"cannot read: it is {kind_of(status.st_mode)}, not a regular file"
            )
        try:
            data = stream.read(limit + 1)
        except OSError as error:
            raise ConfigFileError(f"cannot read: {error.strerror or error}") from None
    if len(data) > limit:
        raise ConfigFileError(
            f"cannot read: larger than {limit:,} bytes (a configuration file is a few hundred)"
        )
    return ConfigRead(data, status, loose_warning(path, status))


def loose_warning(path: Path, status: os.stat_result) -> str | None:
    """Who besides its owner may change the file, and the fix; ``None`` when nobody."""
    loose = []
    if status.st_uid != os.getuid():
        loose.append(f"it is owned by another user (uid {status.st_uid})")
    if status.st_mode & stat.S_IWOTH:
        loose.append("every user may write it")
    elif status.st_mode & stat.S_IWGRP:
        loose.append("its group may write it")
    if not loose:
        return None
    mode = stat.S_IMODE(status.st_mode)
    return (
        f"{path} (mode {mode:04o}): {' and '.join(loose)}, so others can change pifold's "
        f"configuration; read anyway. Fix: chmod go-w {path}"
        + (" and make it your own" if status.st_uid != os.getuid() else "")
    )


__all__ = [
    "MAX_CONFIG_BYTES",
    "ConfigFileError",
    "ConfigRead",
    "kind_of",
    "loose_warning",
    "read_config_file",
]
