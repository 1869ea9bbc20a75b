"""The bundled agent, without a UI: the loop, its tools, the providers, session files,
native compaction, the trace importers, replay and pricing, and the session set-up that the
terminal app (:mod:`pifold_tui`) and the command line (:mod:`pifold_cli`) share."""

from __future__ import annotations
