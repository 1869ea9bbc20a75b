"""The prompt: multi-line input with history, ``/`` and ``@`` completion, ``!command``, and
the strip of steering and follow-up messages waiting to land (issue 13, DESIGN §10)."""

from __future__ import annotations

from pifold_tui.app.prompt.completion import Candidate, CompletionQuery, PathIndex, query_at
from pifold_tui.app.prompt.history import PromptHistory, history_file_for
from pifold_tui.app.prompt.popup import CompletionPopup
from pifold_tui.app.prompt.prompt_area import (
    DEMO_PLACEHOLDER,
    NO_MODEL_PLACEHOLDER,
    PromptArea,
    PromptInput,
)
from pifold_tui.app.prompt.steering_strip import QueuedMessage, SteeringStrip

__all__ = [
    "DEMO_PLACEHOLDER",
    "NO_MODEL_PLACEHOLDER",
    "Candidate",
    "CompletionPopup",
    "CompletionQuery",
    "PathIndex",
    "PromptArea",
    "PromptHistory",
    "PromptInput",
    "QueuedMessage",
    "SteeringStrip",
    "history_file_for",
    "query_at",
]
