"""How the agent loop behaves: its working directory, prompt, limits, retries and helpers.

A host builds one :class:`AgentConfig` per session (``pifold -p`` and the app through
:func:`pifold_agent.run_setup.agent_config`); the loop reads it and never changes it. The
retry figures are read where a failed request is retried
(:mod:`pifold_agent.loop.request_retry`), the approver where a guarded tool is about to run
(:mod:`pifold_agent.loop.approval`), the follower after every tool batch
(:mod:`pifold_agent.loop.followers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pifold_agent.loop.approval import Approver
from pifold_agent.loop.followers import BatchFollower


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """How the loop behaves; the defaults are Pi's."""

    cwd: Path
    """The working directory tools run in."""
    system_prompt: str | None = None
    """Sent with every request; byte-stable for the session (date, never a time). ``None``:
    the default prompt over the agent's tools, ``cwd`` and today's date."""
    session_id: str | None = None
    """A stable id for the provider's prompt cache key."""
    max_output_tokens: int | None = None
    """The model's output reservation, when known."""
    cache_lifetime_s: int | None = None
    """The model's prompt-cache lifetime (its descriptor's), passed with every request so
    the engine can commit when the cache is cold anyway; ``None``: unknown."""
    transient_retries: int = 3
    """How many times a transient failure is retried before the run ends."""
    retry_base_delay_s: float = 2.0
    """The first backoff wait; each next one doubles."""
    retry_max_delay_s: float = 60.0
    """No wait is longer, whatever the provider asks."""
    waiting_notice_s: float = 5.0
    """How often a request with nothing back yet says it is waiting (``server_waiting``)."""
    overflow_recoveries: int = 2
    """How many overflow recoveries one request may take before the run ends."""
    approver: Approver | None = None
    """Asked before every write, edit and bash call (``None``: nothing is asked, as with
    ``--yes``); see :mod:`pifold_agent.loop.approval`."""
    prompt_context: str = ""
    """Appended to the default system prompt: the project's context files and memory index
    as the session started with them (:mod:`pifold_agent.memory.session_prompt`)."""
    follower: BatchFollower | None = None
    """Asked after every tool batch for notes to append after its results (the memory's
    resurfacing); see :mod:`pifold_agent.loop.followers`."""


__all__ = ["AgentConfig"]
