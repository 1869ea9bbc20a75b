"""The ``surfacing`` setting: suggestions at a commit (issue 21, part 3), off by default.

Read from the settings file like ``memoryResurfacing`` (a host setting: the engine's options
never hold it) and handed to the engine once at setup (:meth:`Engine.set_surfacing`); with it
on, the request after each commit carries one note naming the folds most related to the
fresh tail (:mod:`pifold_core.search.suggestions`).
"""

from __future__ import annotations

from pifold_core.settings import host_setting_in_force

SETTING = "surfacing"
"""The settings file's switch for suggestions at a commit (off by default)."""


def surfacing_enabled(read_settings: bool = True) -> bool:
    """Whether commits carry suggestions: the settings file's ``surfacing``, off by default."""
    return host_setting_in_force(SETTING, read_settings)


__all__ = ["SETTING", "surfacing_enabled"]
