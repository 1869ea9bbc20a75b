"""Engine options and their validation (DESIGN §9).

Validation is atomic: an impossible policy is refused with the rule it breaks, never clamped
or partly applied.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from pifold_core.canonical import JsonValue


class OptionsError(ValueError):
    """An option is unknown or breaks a rule; the message names the option and the rule."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The band (set whole or not at all)."""

    max_target: float = 0.80
    """Share of the budget at which a commit fires."""
    min_target: float = 0.20
    """Share of the budget at which a commit stops folding."""
    consolidate_after: int = 10
    """Visible roots a parent is owed before they are consolidated."""
    min_fold_chars: int = 8_000
    """Smallest source worth folding; also the largest raw gap absorbed between folds."""

    def __post_init__(self) -> None:
        for name in ("max_target", "min_target"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise OptionsError(f"thresholds.{name} must be a number, got {value!r}")
            if not math.isfinite(value) or not 0 < value < 1:
                raise OptionsError(f"thresholds.{name} must lie strictly between 0 and 1")
        if not self.min_target < self.max_target:
            raise OptionsError(
                "thresholds break the rule minTarget < maxTarget "
                f"({self.min_target} >= {self.max_target})"
            )
        for name in ("consolidate_after", "min_fold_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionsError(f"thresholds.{name} must be an integer, got {value!r}")
        if self.consolidate_after < 2:
            raise OptionsError("thresholds.consolidate_after must be at least 2")
        if self.min_fold_chars < 1:
            raise OptionsError("thresholds.min_fold_chars must be at least 1")

    def to_record(self) -> dict[str, JsonValue]:
        return {
            "maxTarget": self.max_target,
            "minTarget": self.min_target,
            "consolidateAfter": self.consolidate_after,
            "minFoldChars": self.min_fold_chars,
        }


DEFAULT_BUDGET = 200_000
"""Serving budget used when neither the deployment nor a model descriptor states one."""

EVIDENCE_THRESHOLD_BYTES = 32 * 1024
"""Tool results larger than this (UTF-8 bytes of text) go to an evidence artifact."""


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """Everything the engine's behaviour depends on."""

    budget: int = DEFAULT_BUDGET
    """``providerInputBudget``: tokens a request may carry, net of output reservation."""
    thresholds: Thresholds = field(default_factory=Thresholds)
    """The band and size rules."""
    blacklist: frozenset[str] = frozenset()
    """``blacklistAutoFoldTools``: tools whose results stay raw."""
    evidence_threshold_bytes: int = EVIDENCE_THRESHOLD_BYTES
    """Tool results above this size are kept whole as evidence, previewed in the transcript."""
    tool_fold_threshold: float = 0.50
    """``toolFoldThreshold``: oldest share of the window whose tool results a commit clips."""
    pre_commit_notice: bool = False
    """``preCommitNotice``: append one note per approach before a threshold commit."""
    notice_lead_share: float = 0.10
    """``noticeLeadShare``: how far below ``maxTarget`` the notice speaks."""

    def __post_init__(self) -> None:
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or self.budget < 1:
            raise OptionsError(f"providerInputBudget must be a positive integer: {self.budget!r}")
        if not all(isinstance(name, str) and name for name in self.blacklist):
            raise OptionsError("blacklistAutoFoldTools must hold non-empty tool names")
        if self.evidence_threshold_bytes < 1024:
            raise OptionsError("evidence threshold must be at least 1024 bytes")

    @property
    def max_tokens(self) -> int:
        """The occupancy at which a commit fires."""
        return int(self.thresholds.max_target * self.budget)

    @property
    def min_tokens(self) -> int:
        """The occupancy a commit aims to reach."""
        return int(self.thresholds.min_target * self.budget)

    @property
    def span_cut_chars(self) -> int:
        """Size at which the runtime cuts a span inside one long turn."""
        return 2 * self.thresholds.min_fold_chars

    def to_record(self) -> dict[str, JsonValue]:
        return {
            "providerInputBudget": self.budget,
            "thresholds": self.thresholds.to_record(),
            "blacklistAutoFoldTools": sorted(self.blacklist),
            "evidenceThresholdBytes": self.evidence_threshold_bytes,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> EngineOptions:
        thresholds = record.get("thresholds", {})
        return cls(
            budget=int(record["providerInputBudget"]),
            thresholds=Thresholds(
                max_target=float(thresholds["maxTarget"]),
                min_target=float(thresholds["minTarget"]),
                consolidate_after=int(thresholds["consolidateAfter"]),
                min_fold_chars=int(thresholds["minFoldChars"]),
            ),
            blacklist=frozenset(record.get("blacklistAutoFoldTools", [])),
            evidence_threshold_bytes=int(
                record.get("evidenceThresholdBytes", EVIDENCE_THRESHOLD_BYTES)
            ),
        )
