"""The brief probe: how many planted values a commit's briefs keep in sight.

Recall (:mod:`pifold_bench.recall`) says whether a planted value is visible anywhere in an
arm's final window, recoverable by peeks, or lost. This probe asks a narrower question of
the arms that run the engine: of the planted values whose tool result a commit folded, how
many can the model still read **in the brief** of the fold that hides them, without a peek.

For each planted value at the end of the arm's run:

* *folded*: the entry that carries it lies inside a collapsed fold the window shows (the
  outermost collapsed fold of its chain: every fold around that one is expanded);
* *in shown brief*: folded, and the value's text appears in that fold's brief;
* *in first brief*: folded, and the value appears in the brief of the innermost fold around
  its entry, the one made when the entry was first folded (a consolidated parent shares its
  room between its children's briefs, so it may keep less than the first brief did).

Arms that do not run the engine (native, none, clip-only) have no briefs: the probe gives
None for them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pifold_bench.arms import Arm, EngineArm
from pifold_bench.recall import PlantedValue
from pifold_core.engine import Engine
from pifold_core.folds import Fold


@dataclass(frozen=True, slots=True)
class BriefProbe:
    """Planted values against the briefs of the folds that hold them, in one arm."""

    planted: int
    """Values planted in the trace."""
    folded: int
    """Values whose entry a collapsed fold in the final window holds."""
    in_shown_brief: int
    """Folded values whose text is in the brief of the fold the window shows."""
    in_first_brief: int
    """Folded values whose text is in the brief of the innermost fold around their entry."""
    hidden: list[str] = field(default_factory=list)
    """Folded values that the shown brief does not carry, for inspection."""


def probe_arm(arm: Arm, values: Sequence[PlantedValue]) -> BriefProbe | None:
    """The probe for ``arm`` at the end of its run; None for an arm without an engine."""
    if not isinstance(arm, EngineArm):
        return None
    return probe_engine(arm.engine, values)


def probe_engine(engine: Engine, values: Sequence[PlantedValue]) -> BriefProbe:
    """The probe over ``engine``'s forest as it stands now."""
    folded = in_shown = in_first = 0
    hidden: list[str] = []
    for value in values:
        index = engine.view.transcript.index_of.get(value.entry_id)
        if index is None:
            continue
        chain = engine.view.forest.chain_at(index)
        shown = _shown_fold(chain, engine.view.forest.expanded)
        if shown is None:
            continue
        folded += 1
        if value.text in shown.brief:
            in_shown += 1
        else:
            hidden.append(value.text)
        if value.text in chain[-1].brief:
            in_first += 1
    return BriefProbe(len(values), folded, in_shown, in_first, hidden)


def _shown_fold(chain: Sequence[Fold], expanded: set[str]) -> Fold | None:
    """The collapsed fold whose placeholder stands for the entry (chain: outermost first)."""
    for fold in chain:
        if fold.handle not in expanded:
            return fold
    return None


def probe_line(probes: Mapping[str, BriefProbe | None]) -> str | None:
    """The report's line: per engine arm, planted values its folds' briefs show of those
    its folds hold (None when no arm has an engine)."""
    cells = [
        f"{name} {probe.in_shown_brief}/{probe.folded}"
        for name, probe in probes.items()
        if probe is not None
    ]
    if not cells:
        return None
    return "brief probe (planted values shown in a brief / folded): " + ", ".join(cells)
