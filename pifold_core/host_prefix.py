"""The host's fixed prefix: its size, counted by the engine, and the floor it sets (issue 22).

Every request a host sends opens with its own system prompt and tool definitions, the same
bytes for the whole session. The engine never sees them, yet they fill the window like any
message: with a real local model the bundled agent's came to 2,848 tokens against an engine
estimate of 65 for the conversation, and the commit aim (1,200) sat below them, so overflow
recovery committed nothing twice before the server refused. So the host states their size
(:meth:`pifold_core.engine.Engine.set_host_prefix`, counted here with the engine's own
counter: :func:`prefix_tokens`), the meter adds it to every estimate
(:mod:`pifold_core.measure`), every figure shows it on its own, and when the prefix alone
leaves no room (:func:`prefix_floor`) the floor is named, as the runway rule names its floors
(:mod:`pifold_core.runway`): no fold can take the prefix out of a request.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pifold_core.canonical import JsonValue
from pifold_core.options import EngineOptions
from pifold_core.tokens import TokenCounter

PREFIX_ADVICE = (
    "raise the budget (--budget, as far as the model's window allows) or offer fewer tools"
)
"""What a person can do about a prefix too large for the budget."""


def prefix_tokens(counter: TokenCounter, system: str, tools: Sequence[JsonValue]) -> int:
    """The estimated size of a host's fixed prefix: its system prompt and its tool
    definitions as sent (each a JSON object), counted by ``counter``."""
    definitions = json.dumps(list(tools), ensure_ascii=False, separators=(",", ":"))
    return counter.count_text(system) + (counter.count_text(definitions) if tools else 0)


@dataclass(frozen=True, slots=True)
class PrefixFloor:
    """A prefix that alone leaves a request no room, or no commit its aim, in provider
    tokens."""

    prefix_tokens: int
    """The prefix as the provider is expected to count it (calibrated)."""
    budget: int
    """The serving budget."""
    aim_tokens: int
    """The occupancy a commit aims for (``minTarget`` of the budget)."""
    budget_that_works: int
    """The smallest budget (rounded up to 1,000) whose aim sits above the prefix."""

    @property
    def over_budget(self) -> bool:
        """Whether the prefix alone is more than a request may carry."""
        return self.prefix_tokens > self.budget

    def describe(self) -> str:
        """One line naming the floor, its size, the budget and what to do."""
        fixed = (
            "the fixed prefix (system prompt and tool definitions) is "
            f"{self.prefix_tokens:,} tokens"
        )
        if self.over_budget:
            return (
                f"{fixed}, more than the budget of {self.budget:,}: no request fits, and no "
                f"fold can take the prefix out; {PREFIX_ADVICE} (a budget of "
                f"{self.budget_that_works:,} would work)"
            )
        return (
            f"{fixed}, above the commit aim of {self.aim_tokens:,} (minTarget of the "
            f"{self.budget:,} budget): no commit can fold the window down to its aim; "
            f"{PREFIX_ADVICE} (a budget of {self.budget_that_works:,} would work)"
        )


def prefix_floor(options: EngineOptions, prefix: int) -> PrefixFloor | None:
    """The floor a prefix of ``prefix`` provider tokens sets under ``options``, or ``None``
    when a commit can reach its aim above it."""
    aim = options.min_tokens
    if prefix <= aim:
        return None
    works = int(math.ceil(prefix / options.thresholds.min_target / 1_000) * 1_000)
    return PrefixFloor(prefix, options.budget, aim, works)


__all__ = ["PREFIX_ADVICE", "PrefixFloor", "prefix_floor", "prefix_tokens"]
