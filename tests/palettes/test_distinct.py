"""The palette rule: a slice whose adjacent colours fall under ΔE′ 6 is refused, naming the
slice and the narrowest that works (issue 19: batlow 0.5 → 0.51 was accepted)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palettes import MAP_NAMES, PaletteSetting, delta_e
from palettes.distinct import DISTINGUISHABLE, WIDTH_STEP, narrowest_working, slice_problem
from palettes.sampling import sample
from pifold_core.options import EngineOptions, OptionsError


def _closest(setting: PaletteSetting) -> float:
    return min(delta_e(first, second) for first, second in itertools.pairwise(sample(setting)))


def test_the_slice_of_the_issue_is_refused_in_the_settings_naming_what_works() -> None:
    with pytest.raises(OptionsError) as refused:
        EngineOptions.from_settings({"palette": {"map": "batlow", "start": 0.5, "end": 0.51}})
    message = str(refused.value)
    assert "palette batlow 0.5 → 0.51 is too narrow" in message
    assert "the narrowest that works from 0.5 is 0.25 wide (batlow 0.5 → 0.75)" in message
    EngineOptions.from_settings({"palette": {"map": "batlow", "start": 0.5, "end": 0.75}})


@settings(max_examples=60, deadline=None)
@given(
    map_name=st.sampled_from(MAP_NAMES),
    start=st.integers(0, 100),
    end=st.integers(0, 100),
)
def test_a_slice_is_taken_exactly_when_its_colours_stay_apart(
    map_name: str, start: int, end: int
) -> None:
    if start == end:
        return
    setting = PaletteSetting(map_name, start / 100, end / 100)
    mapping = {"palette": {"map": map_name, "start": setting.start, "end": setting.end}}
    problem = slice_problem(setting)
    if _closest(setting) >= DISTINGUISHABLE:
        assert problem is None
        assert EngineOptions.from_settings(mapping).palette.end == setting.end
        return
    assert problem is not None
    with pytest.raises(OptionsError, match="too narrow") as refused:
        EngineOptions.from_settings(mapping)
    assert f"palette {map_name} {setting.start:g} → {setting.end:g}" in str(refused.value)
    working = narrowest_working(setting)
    if working is None:
        assert "no slice from" in problem
        return
    # The slice it names starts where this one does, runs the same way, is wider, and works.
    assert working.start == setting.start
    assert (working.end > working.start) == (setting.end > setting.start)
    assert abs(working.end - working.start) > abs(setting.end - setting.start)
    assert _closest(working) >= DISTINGUISHABLE
    assert f"({map_name} {working.start:g} → {working.end:g})" in problem
    narrower = abs(working.end - working.start) - WIDTH_STEP
    assert (
        narrower <= abs(setting.end - setting.start) + 1e-9
        or _closest(
            PaletteSetting(
                map_name,
                setting.start,
                round(setting.start + narrower * (1 if setting.end > setting.start else -1), 6),
            )
        )
        < DISTINGUISHABLE
    )


def test_a_start_with_no_grid_step_of_room_has_no_wider_slice() -> None:
    # Hypothesis found it: 0.005 → 0.0 has no 0.01 step left toward 0, and the search built
    # a slice of zero width (refused by PaletteSetting) instead of answering "none".
    assert narrowest_working(PaletteSetting("batlow", 0.005, 0.0)) is None
    assert narrowest_working(PaletteSetting("batlow", 0.995, 1.0)) is None
