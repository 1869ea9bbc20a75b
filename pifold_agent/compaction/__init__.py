"""Pi's native compaction: the ``/compact`` escape hatch and the behaviour of ``--no-fold``.

One implementation, shared with the benchmark's ``native`` arm:

* :mod:`~pifold_agent.compaction.settings`: ``reserveTokens`` / ``keepRecentTokens``, the
  trigger (context over the window minus the reserve) and Pi's characters / 4 estimate;
* :mod:`~pifold_agent.compaction.planning`: pure planning (cut point, split turn, what is
  summarised and kept, the files touched), deterministic and free of I/O;
* :mod:`~pifold_agent.compaction.prompts`: the serialised history, the summarisation
  prompts and the summary message the model sees afterwards;
* :mod:`~pifold_agent.compaction.summariser`: the summarisation requests, through a
  :class:`~pifold_agent.providers.base.Provider`.

A host plans with :func:`plan_compaction` over the current branch, calls :func:`summarise`,
then records Pi's ``compaction`` entry (``firstKeptEntryId``, ``summary``, ``tokensBefore``)
through :mod:`pifold_agent.sessions`; the window is then :func:`summary_entry` followed by
the kept entries (:class:`pifold_agent.native_window.NativeWindow` does all this as the
agent's context window under ``--no-fold``). With folding on, threshold compaction never
runs (DESIGN §8).
"""

from __future__ import annotations

from pifold_agent.compaction.planning import (
    CompactionPlan,
    FileOperations,
    PlanningError,
    file_operations,
    find_cut_point,
    find_turn_start,
    plan_compaction,
)
from pifold_agent.compaction.prompts import (
    serialise,
    summary_entry,
    summary_message_text,
)
from pifold_agent.compaction.settings import (
    CompactionSettings,
    CompactionSettingsError,
    estimate_context_tokens,
    estimate_tokens,
    measured_context,
)
from pifold_agent.compaction.summariser import CompactionError, CompactionSummary, summarise

__all__ = [
    "CompactionError",
    "CompactionPlan",
    "CompactionSettings",
    "CompactionSettingsError",
    "CompactionSummary",
    "FileOperations",
    "PlanningError",
    "estimate_context_tokens",
    "estimate_tokens",
    "file_operations",
    "find_cut_point",
    "find_turn_start",
    "measured_context",
    "plan_compaction",
    "serialise",
    "summarise",
    "summary_entry",
    "summary_message_text",
]
