"""The settings file: the seven options persisted between sessions (DESIGN §9).

``settings.json`` holds a JSON object with any of the seven user-facing option names (see
:meth:`EngineOptions.from_settings`); options it does not set take the base values. The file is
written atomically, so a crash mid-save leaves the previous settings readable, and a running
session learns of changes through listeners (after :meth:`SettingsFile.save`, or when
:meth:`SettingsFile.reload_if_changed` sees the file changed on disk).

A session's ``providerInputBudget`` normally comes from the model descriptor: pass options
carrying that budget as ``base``. The file may still set it, and :meth:`SettingsFile.save` only
writes it when the file set it before or it differs from the base, so saving the palette does
not pin one model's budget for every later model.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from pifold_core.config_file import ConfigFileError, read_config_file
from pifold_core.options import EngineOptions, OptionsError

SETTINGS_DIRECTORY_NAME = "pi-fold"
"""Directory under the XDG config home (``~/.config`` by default)."""

SETTINGS_FILE_NAME = "settings.json"

HOST_SETTINGS: dict[str, bool] = {"memoryResurfacing": True, "surfacing": False}
"""Settings the agent reads beside the engine's options, with their defaults: not engine
options (the engine never sees them), kept through every save. ``memoryResurfacing``: notes
come back when a tool touches their paths (:mod:`pifold_agent.memory.resurfacing`).
``surfacing``: the request after a commit carries a note naming the folds most related to
the fresh tail (:mod:`pifold_core.search.suggestions`); off until measured to help."""

Listener = Callable[[EngineOptions], None]
"""Called with the new options after they change."""

Signature = tuple[int, int, int]
"""``(mtime_ns, size, inode)`` of the file as last read or written."""


def host_setting_in_force(name: str, read_settings: bool = True) -> bool:
    """Host setting ``name`` as the settings file sets it, else its default
    (:data:`HOST_SETTINGS`); the default too when the file is not read or is refused (the run
    reports a refused file itself)."""
    if not read_settings:
        return HOST_SETTINGS[name]
    settings = SettingsFile()
    try:
        settings.load()
    except SettingsError:
        return HOST_SETTINGS[name]
    return settings.host_setting(name)


def settings_path(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CONFIG_HOME/pi-fold/settings.json``, else ``~/.config/pi-fold/settings.json``.

    The XDG Base Directory specification says a relative ``XDG_CONFIG_HOME`` is invalid and
    must be ignored, so only an absolute one counts.
    """
    config_home = environ.get("XDG_CONFIG_HOME", "")
    if config_home and os.path.isabs(config_home):
        base = Path(config_home)
    else:
        home = environ.get("HOME") or str(Path.home())
        base = Path(home) / ".config"
    return base / SETTINGS_DIRECTORY_NAME / SETTINGS_FILE_NAME


class SettingsError(Exception):
    """A settings file cannot be read or is refused; the message names the file and reason."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"settings file {path}: {reason}")
        self.path = path
        """The file."""
        self.reason = reason
        """What is wrong with it, naming the option and rule when an option is refused."""


@dataclass(frozen=True, slots=True)
class ReloadResult:
    """What :meth:`SettingsFile.reload_if_changed` found."""

    options: EngineOptions
    """The options now in force (the last good ones when the file was refused)."""
    changed: bool
    """The options changed and the listeners were told."""
    error: SettingsError | None = None
    """Why a changed file was refused; ``None`` when it was read or did not change."""


def parse_settings(
    data: bytes, path: Path, base: EngineOptions
) -> tuple[EngineOptions, frozenset[str], dict[str, bool]]:
    """The options a file's bytes set on top of ``base``, the names it holds, and the host
    settings it sets (:data:`HOST_SETTINGS`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsError(path, f"not UTF-8 text (byte {error.start})") from None
    try:
        value = json.loads(text, object_pairs_hook=_refuse_duplicates, parse_constant=_refuse)
    except json.JSONDecodeError as error:
        raise SettingsError(
            path, f"invalid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    except ValueError as error:
        raise SettingsError(path, f"invalid JSON: {error}") from None
    except RecursionError:
        raise SettingsError(path, "invalid JSON: nested too deeply to read") from None
    if not isinstance(value, dict):
        raise SettingsError(
            path, f"the top level must be an object of options, not {type(value).__name__}"
        )
    host = {name: value.pop(name) for name in list(value) if name in HOST_SETTINGS}
    for name, setting in host.items():
        if not isinstance(setting, bool):
            raise SettingsError(path, f"{name} must be true or false, got {setting!r}")
    try:
        options = EngineOptions.from_settings(value, base)
    except OptionsError as error:
        raise SettingsError(path, str(error)) from None
    return options, frozenset(value) | frozenset(host), host


def _refuse_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # json keeps the last of two equal keys; a file that says two things is refused instead.
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"key {key!r} appears twice in one object")
        result[key] = value
    return result


def _refuse(constant: str) -> object:
    raise ValueError(f"{constant} is not a JSON number")


class SettingsFile:
    """One settings file, the options last read from or written to it, and its listeners.

    Not thread-safe: load, save and reload from the thread that owns the session.
    """

    def __init__(self, path: Path | None = None, base: EngineOptions | None = None) -> None:
        self.path = settings_path() if path is None else path
        """The file."""
        self.base = base or EngineOptions()
        """Values for the options the file does not set."""
        self.options = self.base
        """The options in force: the last good load or save, else ``base``."""
        self.names: frozenset[str] = frozenset()
        """The option names the last good file set."""
        self.host: dict[str, bool] = {}
        """The host settings (:data:`HOST_SETTINGS`) the last good file set."""
        self.error: SettingsError | None = None
        """Why the file was last refused, until a good load or save."""
        self.warning: str | None = None
        """Who besides its owner may change the file (said, never refused: see
        :mod:`pifold_core.config_file`), as of the last read; ``None`` when nobody."""
        self._signature: Signature | None = None
        self._listeners: list[Listener] = []

    @property
    def found(self) -> bool:
        """The file existed when it was last read or written."""
        return self._signature is not None

    def load(self, *, missing_ok: bool = True) -> EngineOptions:
        """Read the file: a missing file gives ``base`` (unless ``missing_ok`` is false).

        A FIFO, a device or a folder at the path is refused without being opened for
        reading, and so is a file over a megabyte; a file others may write is read, and
        :attr:`warning` says so.

        Raises:
            SettingsError: the file cannot be read, is not a JSON object, or holds a refused
                option. The options in force stay as they were.
        """
        try:
            found = read_config_file(self.path)
        except ConfigFileError as error:
            self._refused(_signature_of(self.path), SettingsError(self.path, str(error)))
        if found is None:
            if not missing_ok:
                raise SettingsError(self.path, "no such file")
            self._signature = None
            self.warning = None
            self.host = {}
            self._accept(self.base, frozenset())
            return self.options
        data, status = found.data, found.status
        self.warning = found.warning
        signature = (status.st_mtime_ns, status.st_size, status.st_ino)
        try:
            options, names, host = parse_settings(data, self.path, self.base)
        except SettingsError as error:
            self._refused(signature, error)
        self._signature = signature
        self.host = host
        self._accept(options, names)
        return options

    def save(self, options: EngineOptions) -> None:
        """Write ``options`` atomically, then tell the listeners.

        A temporary file in the same directory is written, flushed and synced, then renamed
        over the settings file, and the directory is synced so the rename survives a crash:
        a reader sees the old file or the new one, never part of one.
        """
        settings = options.to_settings()
        if "providerInputBudget" not in self.names and options.budget == self.base.budget:
            del settings["providerInputBudget"]
        settings.update(self.host)  # the agent's own settings survive a save of the options
        data = (json.dumps(settings, indent=2) + "\n").encode("utf-8")
        try:
            status = _write_atomically(self.path, data)
        except OSError as error:
            raise SettingsError(self.path, _reason(error, "write")) from error
        # A rename keeps the temporary file's inode, size and mtime, so this is the settings
        # file's signature now and the next reload does not mistake our own write for a change.
        self._signature = (status.st_mtime_ns, status.st_size, status.st_ino)
        self._accept(options, frozenset(settings))
        self._notify(options)

    def host_setting(self, name: str) -> bool:
        """A host setting's value: the file's, else its default (:data:`HOST_SETTINGS`)."""
        return self.host.get(name, HOST_SETTINGS[name])

    def subscribe(self, callback: Listener) -> Callable[[], None]:
        """Call ``callback`` whenever the options change; returns a function that stops it."""
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def reload_if_changed(self) -> ReloadResult:
        """Re-read the file if it changed on disk since the last load or save.

        The listeners hear of it only when the file is good and its options differ from the
        ones in force; a refused file tells nobody and the last good options stay.
        """
        if _signature_of(self.path) == self._signature:
            return ReloadResult(self.options, False)
        before = self.options
        try:
            options = self.load()
        except SettingsError as error:
            return ReloadResult(self.options, False, error)
        if options == before:
            return ReloadResult(options, False)
        self._notify(options)
        return ReloadResult(options, True)

    def _accept(self, options: EngineOptions, names: frozenset[str]) -> None:
        self.options = options
        self.names = names
        self.error = None

    def _refused(self, signature: Signature | None, error: SettingsError) -> NoReturn:
        # Remember the refused file's signature so polling does not re-read it until it
        # changes again; the options in force are left alone.
        if signature is not None:
            self._signature = signature
        self.error = error
        raise error

    def _notify(self, options: EngineOptions) -> None:
        # A copy, so a listener may unsubscribe while being called.
        for listener in list(self._listeners):
            listener(options)


def _write_atomically(path: Path, data: bytes) -> os.stat_result:
    """Replace ``path`` by ``data`` all at once; the written file's status."""
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    # A save killed halfway left its temporary file; this save is the writer now, so it goes.
    for leftover in directory.glob(f".{path.name}.*.tmp"):
        if leftover.is_file() and not leftover.is_symlink():
            leftover.unlink(missing_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
            if path.exists():
                # mkstemp makes the file private; keep whatever mode the user gave the old one.
                os.fchmod(stream.fileno(), path.stat().st_mode & 0o777)
            status = os.fstat(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_directory(directory)
    return status


def _sync_directory(directory: Path) -> None:
    try:
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        # Some platforms cannot open a directory for syncing; the rename itself is atomic.
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _signature_of(path: Path) -> Signature | None:
    try:
        status = os.stat(path)
    except OSError:
        # Missing or unreachable: either way there is nothing to compare, and load() will
        # say which it is.
        return None
    return (status.st_mtime_ns, status.st_size, status.st_ino)


def _reason(error: OSError, verb: str = "read") -> str:
    return f"cannot {verb}: {error.strerror or error}"
