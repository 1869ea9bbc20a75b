"""One model request as a way of managing the context would send it, for its bill.

The benchmark's arms (:mod:`pifold_bench.arms`) and the native compaction arm
(:mod:`pifold_agent.pricing.compaction`) answer every request with one: the messages as
digests and estimated tokens (what a prefix cache and a price need), the rewrites declared
since the previous request, and the calls made beside it (a summarisation).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SideCall:
    """A model call an arm makes besides the trace's own requests."""

    label: str
    """What it was, for example ``compaction 2``."""
    prompt_tokens: int
    """Estimated tokens of its whole prompt (sent uncached)."""
    output_tokens: int
    """Estimated tokens it generates."""


@dataclass(frozen=True, slots=True)
class ArmRequest:
    """One request as an arm would send it."""

    digests: tuple[str, ...]
    """Per-message digests, in order."""
    tokens: tuple[int, ...]
    """Per-message estimated tokens, in the same order."""
    causes: tuple[str, ...] = ()
    """Rewrites the arm declared since its previous request (commits, compactions, clears)."""
    side_calls: tuple[SideCall, ...] = ()
    """Calls made before this request (billed in full, outside the window)."""

    @property
    def total_tokens(self) -> int:
        """The request's window: the sum of its messages' estimates."""
        return sum(self.tokens)


__all__ = ["ArmRequest", "SideCall"]
