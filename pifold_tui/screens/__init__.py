"""The fold screens for the human (DESIGN §11): each needs nothing but an engine.

``status`` (``/fold-status``) and ``fold`` (``/fold``) live here beside ``editor`` and
``settings``; ``pifold_tui.inspect`` mounts them all over a session folder. Their names,
keys, slash commands and help lines are one table, :mod:`~pifold_tui.screens.catalogue`.
"""

from __future__ import annotations
