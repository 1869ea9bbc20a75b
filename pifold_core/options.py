"""Engine options and their validation (DESIGN §9).

Validation is atomic: an impossible policy is refused with the rule it breaks, never clamped
or partly applied. Every value is checked where it is stored (each dataclass's
``__post_init__``), so no route into :class:`EngineOptions` — constructor, settings mapping or
session record — can build an invalid one. Error messages use the user-facing camelCase names
because they are shown to people editing ``settings.json``; the checks of one value live in
:mod:`pifold_core.option_values`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from palettes.sampling import MAP_NAMES
from pifold_core.canonical import JsonValue
from pifold_core.option_values import (
    OptionsError,
    check_boolean,
    check_integer,
    check_number,
    quoted,
    whole_object,
    written_decimal,
)

PALETTE_MAPS: tuple[str, ...] = MAP_NAMES
"""Colour maps the fold bar can use: the palettes' own list (:mod:`palettes.sampling`, which
imports neither numpy nor the colour libraries)."""

OPTION_NAMES: tuple[str, ...] = (
    "thresholds",
    "providerInputBudget",
    "blacklistAutoFoldTools",
    "toolFoldThreshold",
    "preCommitNotice",
    "noticeLeadShare",
    "palette",
)
"""The seven user-facing options, in the order DESIGN §9 lists them."""

THRESHOLD_KEYS: tuple[str, ...] = ("maxTarget", "minTarget", "consolidateAfter", "minFoldChars")
"""Keys of the ``thresholds`` object, all required."""

PALETTE_KEYS: tuple[str, ...] = ("map", "start", "end")
"""Keys of the ``palette`` object, all required."""


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
        max_target = check_number("thresholds.maxTarget", self.max_target)
        min_target = check_number("thresholds.minTarget", self.min_target)
        rule = "the rule 0 < minTarget < maxTarget < 1"
        if not min_target > 0:
            raise OptionsError(f"thresholds.minTarget breaks {rule}: {min_target:g} is not above 0")
        if not max_target < 1:
            raise OptionsError(f"thresholds.maxTarget breaks {rule}: {max_target:g} is not below 1")
        if not min_target < max_target:
            raise OptionsError(
                f"thresholds break {rule}: minTarget {min_target:g} is not below "
                f"maxTarget {max_target:g}"
            )
        check_integer("thresholds.consolidateAfter", self.consolidate_after, 2)
        check_integer("thresholds.minFoldChars", self.min_fold_chars, 1)
        # Store floats so equal settings compare, hash and serialise alike whether a file
        # wrote 1 or 1.0.
        object.__setattr__(self, "max_target", max_target)
        object.__setattr__(self, "min_target", min_target)

    @classmethod
    def from_settings(cls, value: object) -> Thresholds:
        """The ``thresholds`` object of a settings mapping, all four keys required."""
        keys = whole_object("thresholds", value, THRESHOLD_KEYS)
        return cls(
            max_target=keys["maxTarget"],  # type: ignore[arg-type]  # checked in __post_init__
            min_target=keys["minTarget"],  # type: ignore[arg-type]
            consolidate_after=keys["consolidateAfter"],  # type: ignore[arg-type]
            min_fold_chars=keys["minFoldChars"],  # type: ignore[arg-type]
        )

    def to_record(self) -> dict[str, JsonValue]:
        return {
            "maxTarget": self.max_target,
            "minTarget": self.min_target,
            "consolidateAfter": self.consolidate_after,
            "minFoldChars": self.min_fold_chars,
        }


@dataclass(frozen=True, slots=True)
class PaletteOption:
    """The fold bar's colours: a map and the slice of it the categories span."""

    map_name: str = "batlow"
    """One of :data:`PALETTE_MAPS`."""
    start: float = 0.0
    """Map position of the first category's shade, in [0, 1]."""
    end: float = 1.0
    """Map position of the last category's shade, in [0, 1]; below ``start`` the slice runs
    backwards, but it may not equal ``start`` (every shade would be the same)."""

    def __post_init__(self) -> None:
        if not isinstance(self.map_name, str) or self.map_name not in PALETTE_MAPS:
            raise OptionsError(
                f"palette.map must be one of {', '.join(PALETTE_MAPS)}, got {self.map_name!r}"
            )
        start = check_number("palette.start", self.start)
        end = check_number("palette.end", self.end)
        for option, position in (("palette.start", start), ("palette.end", end)):
            if not 0 <= position <= 1:
                raise OptionsError(f"{option} must lie in [0, 1], got {position:g}")
        if start == end:
            raise OptionsError(f"palette breaks the rule start != end (both are {start:g})")
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    @classmethod
    def from_settings(cls, value: object) -> PaletteOption:
        """The ``palette`` object of a settings mapping, all three keys required."""
        keys = whole_object("palette", value, PALETTE_KEYS)
        return cls(
            map_name=keys["map"],  # type: ignore[arg-type]  # checked in __post_init__
            start=keys["start"],  # type: ignore[arg-type]
            end=keys["end"],  # type: ignore[arg-type]
        )

    def to_settings(self) -> dict[str, JsonValue]:
        return {"map": self.map_name, "start": self.start, "end": self.end}


def _check_distinct(palette: PaletteOption) -> None:
    """Refuse a slice so narrow that adjacent categories' colours fall under ΔE′ 6
    (:mod:`palettes.distinct`), naming the narrowest that works.

    Only where a person sets the palette (a settings file, the settings screen, ``pifold
    settings``): a session's log replays the palette it ran with and never refuses it. The
    default needs no check, so ``palettes`` (numpy, cmap) is imported only for another.
    """
    if palette == PaletteOption():
        return
    from palettes.distinct import slice_problem
    from palettes.sampling import PaletteSetting

    problem = slice_problem(PaletteSetting(palette.map_name, palette.start, palette.end))
    if problem is not None:
        raise OptionsError(problem)


DEFAULT_BUDGET = 100_000
"""Serving budget used when neither the deployment nor a model descriptor states one."""

MIN_BUDGET = 1_000
"""The smallest serving budget any route accepts. Below it not one ordinary request fits: a
host's system prompt and tool definitions alone take more (the bundled agent's take about
2,000 tokens), and ``minTarget`` × budget (200 tokens at the default 0.2) is smaller than the
placeholder of a single fold, so no commit could ever reach its aim."""

MAX_BUDGET = 10_000_000
"""The largest serving budget any route accepts. The widest context windows offered today
hold one to two million tokens; ten million leaves room for the next ones, while a budget
mistyped with extra zeros (``1000000000``) is refused instead of quietly turning folding off
(no window would ever reach its trigger)."""


def budget_problem(value: object, name: str = "providerInputBudget") -> str | None:
    """What is wrong with ``value`` as a serving budget, naming ``name`` (the option, or a
    command's ``--budget``) and the rule, or ``None`` when it is one. The one budget rule:
    the settings file, the settings screen, ``-p``, the app, ``replay``, ``demo``, ``bench``
    and ``inspect`` all refuse with this message."""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{name} must be a whole number of tokens, got {value!r}"
    if not MIN_BUDGET <= value <= MAX_BUDGET:
        return f"{name} must be from {MIN_BUDGET:,} to {MAX_BUDGET:,} tokens, got {value:,}"
    return None


def check_budget(value: object, name: str = "providerInputBudget") -> int:
    """``value`` as a serving budget, or :class:`OptionsError` with :func:`budget_problem`'s
    message."""
    problem = budget_problem(value, name)
    if problem is None and isinstance(value, int):
        return value
    raise OptionsError(problem)


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
    """``toolFoldThreshold``: oldest share of the window whose tool results a commit clips;
    0 turns clipping off."""
    pre_commit_notice: bool = False
    """``preCommitNotice``: append one note per approach before a threshold commit."""
    notice_lead_share: float = 0.10
    """``noticeLeadShare``: how far below ``maxTarget`` the notice speaks."""
    palette: PaletteOption = field(default_factory=PaletteOption)
    """``palette``: the fold bar's colours (the engine stores it; only the UI reads it)."""

    def __post_init__(self) -> None:
        check_budget(self.budget)
        if not isinstance(self.thresholds, Thresholds):
            raise OptionsError(f"thresholds must be Thresholds, got {self.thresholds!r}")
        # A str is iterable too; without this check "bash" would blacklist b, a, s and h.
        if not isinstance(self.blacklist, frozenset):
            raise OptionsError(
                f"blacklistAutoFoldTools must be a set of tool names, got {self.blacklist!r}"
            )
        if not all(isinstance(name, str) and name for name in self.blacklist):
            raise OptionsError("blacklistAutoFoldTools must hold non-empty tool names")
        check_integer("evidenceThresholdBytes", self.evidence_threshold_bytes, 1024)
        tool_fold_threshold = check_number("toolFoldThreshold", self.tool_fold_threshold)
        if not 0 <= tool_fold_threshold < 1:
            raise OptionsError(
                f"toolFoldThreshold must lie in [0, 1) (0 turns clipping off), "
                f"got {tool_fold_threshold:g}"
            )
        check_boolean("preCommitNotice", self.pre_commit_notice)
        lead = check_number("noticeLeadShare", self.notice_lead_share)
        if not lead > 0:
            raise OptionsError(f"noticeLeadShare must be greater than 0, got {lead:g}")
        band = self.thresholds
        # The notice speaks at maxTarget - noticeLeadShare; at or below minTarget it would
        # speak right after every commit, which is no warning at all. Decimal arithmetic on the
        # written values, because in binary 0.8 - 0.6 lands just above 0.2 and would pass.
        if not written_decimal(band.max_target) - written_decimal(lead) > written_decimal(
            band.min_target
        ):
            raise OptionsError(
                "noticeLeadShare and thresholds break the rule notice inside the band "
                f"(maxTarget - noticeLeadShare > minTarget): {band.max_target:g} - {lead:g} "
                f"is not above {band.min_target:g}"
            )
        if not isinstance(self.palette, PaletteOption):
            raise OptionsError(f"palette must be PaletteOption, got {self.palette!r}")
        object.__setattr__(self, "tool_fold_threshold", tool_fold_threshold)
        object.__setattr__(self, "notice_lead_share", lead)

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

    @classmethod
    def from_settings(
        cls, mapping: Mapping[str, object], base: EngineOptions | None = None
    ) -> EngineOptions:
        """``base`` (the defaults when None) with the user-facing options in ``mapping`` set.

        Atomic: the result is built whole and validated whole, so either every option in
        ``mapping`` is taken or :class:`OptionsError` is raised; ``base`` is frozen and never
        changes either way.
        """
        if not isinstance(mapping, Mapping):
            raise OptionsError(f"settings must be an object of options, got {mapping!r}")
        unknown = [str(name) for name in mapping if name not in OPTION_NAMES]
        if unknown:
            hint = ""
            if any(name in THRESHOLD_KEYS for name in unknown):
                hint = "; maxTarget, minTarget, consolidateAfter and minFoldChars go in thresholds"
            plural = "s" if len(unknown) > 1 else ""
            raise OptionsError(
                f"unknown option{plural} {quoted(unknown)} "
                f"(options: {', '.join(OPTION_NAMES)}){hint}"
            )
        changes: dict[str, Any] = {}
        if "thresholds" in mapping:
            changes["thresholds"] = Thresholds.from_settings(mapping["thresholds"])
        if "providerInputBudget" in mapping:
            changes["budget"] = mapping["providerInputBudget"]
        if "blacklistAutoFoldTools" in mapping:
            changes["blacklist"] = _tool_names(mapping["blacklistAutoFoldTools"])
        if "toolFoldThreshold" in mapping:
            changes["tool_fold_threshold"] = mapping["toolFoldThreshold"]
        if "preCommitNotice" in mapping:
            changes["pre_commit_notice"] = mapping["preCommitNotice"]
        if "noticeLeadShare" in mapping:
            changes["notice_lead_share"] = mapping["noticeLeadShare"]
        if "palette" in mapping:
            changes["palette"] = PaletteOption.from_settings(mapping["palette"])
            _check_distinct(changes["palette"])
        # replace() reruns __post_init__, so rules that tie options together (the notice
        # inside the band) are checked against the merged result, not the mapping alone.
        return dataclasses.replace(base or cls(), **changes)

    def to_settings(self) -> dict[str, JsonValue]:
        """The seven user-facing options, in the shape :meth:`from_settings` takes."""
        return {
            "thresholds": self.thresholds.to_record(),
            "providerInputBudget": self.budget,
            "blacklistAutoFoldTools": sorted(self.blacklist),
            "toolFoldThreshold": self.tool_fold_threshold,
            "preCommitNotice": self.pre_commit_notice,
            "noticeLeadShare": self.notice_lead_share,
            "palette": self.palette.to_settings(),
        }

    def to_record(self) -> dict[str, JsonValue]:
        """Every option, as the session log records it."""
        return {**self.to_settings(), "evidenceThresholdBytes": self.evidence_threshold_bytes}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> EngineOptions:
        """Options from a session log; logs written before an option existed get its default."""
        defaults = cls()
        thresholds = record.get("thresholds", {})
        palette = record.get("palette")
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
            tool_fold_threshold=record.get("toolFoldThreshold", defaults.tool_fold_threshold),
            pre_commit_notice=record.get("preCommitNotice", defaults.pre_commit_notice),
            notice_lead_share=record.get("noticeLeadShare", defaults.notice_lead_share),
            palette=defaults.palette if palette is None else PaletteOption.from_settings(palette),
        )


def _tool_names(value: object) -> frozenset[str]:
    # Only a JSON array is taken: a lone string would otherwise be read letter by letter.
    if not isinstance(value, list | tuple):
        raise OptionsError(f"blacklistAutoFoldTools must be a list of tool names, got {value!r}")
    for name in value:
        if not isinstance(name, str) or not name:
            raise OptionsError(
                f"blacklistAutoFoldTools must hold non-empty tool names, got {name!r}"
            )
    return frozenset(value)


__all__ = [
    "DEFAULT_BUDGET",
    "EVIDENCE_THRESHOLD_BYTES",
    "MAX_BUDGET",
    "MIN_BUDGET",
    "OPTION_NAMES",
    "PALETTE_KEYS",
    "PALETTE_MAPS",
    "THRESHOLD_KEYS",
    "EngineOptions",
    "OptionsError",
    "PaletteOption",
    "Thresholds",
    "budget_problem",
    "check_budget",
]
