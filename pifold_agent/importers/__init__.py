"""Trace importers: real agent session files turned into pifold transcript entries.

:func:`load_trace` detects the format from the file's content and returns the model's view of
the session (not the host's UI telemetry), one assistant entry per model request. Supported:
Pi sessions (v1 linear, v3 tree), Claude Code transcripts, Codex CLI rollouts, mini-swe-agent
and SWE-agent trajectories, and Gemini CLI histories.
"""

from __future__ import annotations

from pifold_agent.importers.detect import load_trace
from pifold_agent.importers.trace import TRACE_FORMATS, ImportedTrace, TraceFormatError

__all__ = ["TRACE_FORMATS", "ImportedTrace", "TraceFormatError", "load_trace"]
