"""The seven options (DESIGN §9): every rule refused by name, never clamped, atomically."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from palettes.sampling import MAP_NAMES
from pifold_core.canonical import canonical_bytes
from pifold_core.options import (
    MAX_BUDGET,
    MIN_BUDGET,
    OPTION_NAMES,
    PALETTE_MAPS,
    EngineOptions,
    OptionsError,
    PaletteOption,
    Thresholds,
)

BAND = {"maxTarget": 0.8, "minTarget": 0.2, "consolidateAfter": 10, "minFoldChars": 8000}


def _with_band(**changes: object) -> dict[str, object]:
    return {"thresholds": {**BAND, **changes}}


# Each case: a settings mapping and the words the refusal must contain (option and rule).
REFUSALS: list[tuple[dict[str, Any], tuple[str, ...]]] = [
    (_with_band(minTarget=0.0), ("thresholds.minTarget", "0 < minTarget < maxTarget < 1")),
    (_with_band(minTarget=-0.1), ("thresholds.minTarget", "0 < minTarget")),
    (_with_band(maxTarget=1.0), ("thresholds.maxTarget", "maxTarget < 1")),
    (_with_band(minTarget=0.5, maxTarget=0.5), ("thresholds", "minTarget < maxTarget")),
    (_with_band(minTarget=0.9, maxTarget=0.6), ("thresholds", "minTarget < maxTarget")),
    (_with_band(maxTarget="0.8"), ("thresholds.maxTarget", "number")),
    (_with_band(maxTarget=math.nan), ("thresholds.maxTarget", "finite")),
    (_with_band(consolidateAfter=1), ("thresholds.consolidateAfter", "at least 2")),
    (_with_band(consolidateAfter=3.0), ("thresholds.consolidateAfter", "integer")),
    (_with_band(consolidateAfter=True), ("thresholds.consolidateAfter", "integer")),
    (_with_band(minFoldChars=0), ("thresholds.minFoldChars", "at least 1")),
    (_with_band(minFoldChars=8000.5), ("thresholds.minFoldChars", "integer")),
    ({"providerInputBudget": 0}, ("providerInputBudget", "from 1,000 to 10,000,000 tokens")),
    ({"providerInputBudget": -5}, ("providerInputBudget", "from 1,000 to 10,000,000 tokens")),
    ({"providerInputBudget": 999}, ("providerInputBudget", "from 1,000 to 10,000,000 tokens")),
    (
        {"providerInputBudget": 10_000_001},
        ("providerInputBudget", "from 1,000 to 10,000,000 tokens, got 10,000,001"),
    ),
    ({"providerInputBudget": 1e5}, ("providerInputBudget", "whole number")),
    ({"providerInputBudget": True}, ("providerInputBudget", "whole number")),
    ({"providerInputBudget": "100000"}, ("providerInputBudget", "whole number")),
    ({"blacklistAutoFoldTools": "bash"}, ("blacklistAutoFoldTools", "list")),
    ({"blacklistAutoFoldTools": ["bash", ""]}, ("blacklistAutoFoldTools", "non-empty")),
    ({"blacklistAutoFoldTools": ["bash", 3]}, ("blacklistAutoFoldTools", "non-empty")),
    ({"toolFoldThreshold": 1.0}, ("toolFoldThreshold", "[0, 1)")),
    ({"toolFoldThreshold": -0.01}, ("toolFoldThreshold", "[0, 1)")),
    ({"toolFoldThreshold": False}, ("toolFoldThreshold", "number")),
    ({"preCommitNotice": 1}, ("preCommitNotice", "true or false")),
    ({"preCommitNotice": 0}, ("preCommitNotice", "true or false")),
    ({"preCommitNotice": "true"}, ("preCommitNotice", "true or false")),
    ({"noticeLeadShare": 0}, ("noticeLeadShare", "greater than 0")),
    ({"noticeLeadShare": -0.1}, ("noticeLeadShare", "greater than 0")),
    ({"noticeLeadShare": 0.6}, ("noticeLeadShare", "notice inside the band")),
    ({"noticeLeadShare": 0.7}, ("noticeLeadShare", "maxTarget - noticeLeadShare > minTarget")),
    ({"noticeLeadShare": math.inf}, ("noticeLeadShare", "finite")),
    ({"palette": {"map": "jet", "start": 0, "end": 1}}, ("palette.map", "batlow")),
    ({"palette": {"map": "batlow", "start": -0.1, "end": 1}}, ("palette.start", "[0, 1]")),
    ({"palette": {"map": "batlow", "start": 0, "end": 1.5}}, ("palette.end", "[0, 1]")),
    ({"palette": {"map": "batlow", "start": 0.4, "end": 0.4}}, ("palette", "start != end")),
    ({"palette": {"map": "batlow", "start": "0", "end": 1}}, ("palette.start", "number")),
    ({"palette": {"map": "batlow", "start": 0}}, ("palette", "set whole", "'end'")),
    ({"palette": {"map": "batlow", "start": 0, "end": 1, "x": 2}}, ("palette", "unknown key")),
    ({"palette": "batlow"}, ("palette", "object")),
    ({"thresholds": {"maxTarget": 0.7}}, ("thresholds", "set whole", "'minTarget'")),
    ({"thresholds": {**BAND, "maxTargte": 0.7}}, ("thresholds", "unknown key", "'maxTargte'")),
    ({"thresholds": [0.8, 0.2]}, ("thresholds", "object")),
]


@pytest.mark.parametrize(("mapping", "words"), REFUSALS)
def test_every_rule_is_refused_naming_the_option_and_the_rule(
    mapping: dict[str, Any], words: tuple[str, ...]
) -> None:
    with pytest.raises(OptionsError) as caught:
        EngineOptions.from_settings(mapping)
    for word in words:
        assert word in str(caught.value)


def test_the_notice_rule_is_checked_against_the_merged_band() -> None:
    # Neither mapping is wrong alone; the lead only breaks the rule with the narrow band.
    narrow = EngineOptions.from_settings(
        {**_with_band(maxTarget=0.35, minTarget=0.3), "noticeLeadShare": 0.01}
    )
    with pytest.raises(OptionsError, match="notice inside the band"):
        EngineOptions.from_settings({"noticeLeadShare": 0.06}, base=narrow)
    wide = EngineOptions.from_settings({"noticeLeadShare": 0.5})
    with pytest.raises(OptionsError, match="notice inside the band"):
        EngineOptions.from_settings(_with_band(maxTarget=0.6), base=wide)


def test_the_edges_of_each_range_are_accepted_unchanged() -> None:
    options = EngineOptions.from_settings(
        {
            "thresholds": {
                "maxTarget": 0.99,
                "minTarget": 0.01,
                "consolidateAfter": 2,
                "minFoldChars": 1,
            },
            "providerInputBudget": 1_000,
            "toolFoldThreshold": 0,
            "noticeLeadShare": 0.5,
            "palette": {"map": "cividis", "start": 1, "end": 0},
        }
    )
    assert options.thresholds == Thresholds(0.99, 0.01, 2, 1)
    assert options.budget == 1_000
    assert EngineOptions.from_settings({"providerInputBudget": 10_000_000}).budget == 10_000_000
    assert options.tool_fold_threshold == 0.0
    assert options.notice_lead_share == 0.5
    # A backwards slice is a choice, not an error, and is not swapped.
    assert (options.palette.start, options.palette.end) == (1.0, 0.0)


def test_unknown_names_are_refused_by_name_with_the_list_of_options() -> None:
    with pytest.raises(OptionsError) as caught:
        EngineOptions.from_settings({"maxTarget": 0.7})
    message = str(caught.value)
    assert "unknown option 'maxTarget'" in message
    assert all(name in message for name in OPTION_NAMES)
    assert "go in thresholds" in message
    with pytest.raises(OptionsError, match="unknown options 'budget', 'colour'"):
        EngineOptions.from_settings({"budget": 5, "colour": "red", "preCommitNotice": True})


def test_a_mapping_with_one_bad_value_changes_nothing() -> None:
    base = EngineOptions.from_settings({"providerInputBudget": 50_000, "preCommitNotice": True})
    before = base.to_record()
    with pytest.raises(OptionsError, match="toolFoldThreshold"):
        EngineOptions.from_settings(
            {
                "providerInputBudget": 90_000,
                "blacklistAutoFoldTools": ["bash"],
                "preCommitNotice": False,
                "toolFoldThreshold": 1.5,
            },
            base=base,
        )
    assert base.to_record() == before
    assert base.budget == 50_000 and base.pre_commit_notice and not base.blacklist


def test_unspecified_options_keep_the_base_values() -> None:
    base = EngineOptions.from_settings({"providerInputBudget": 60_000, "noticeLeadShare": 0.2})
    changed = EngineOptions.from_settings({"blacklistAutoFoldTools": ["read"]}, base=base)
    assert changed.budget == 60_000
    assert changed.notice_lead_share == 0.2
    assert changed.blacklist == frozenset({"read"})
    assert EngineOptions.from_settings({}) == EngineOptions()
    assert EngineOptions.from_settings({}, base=base) == base


def test_the_constructor_validates_too() -> None:
    with pytest.raises(OptionsError, match="blacklistAutoFoldTools"):
        EngineOptions(blacklist={"bash"})  # type: ignore[arg-type]
    with pytest.raises(OptionsError, match="preCommitNotice"):
        EngineOptions(pre_commit_notice=1)  # type: ignore[arg-type]
    with pytest.raises(OptionsError, match="evidenceThresholdBytes"):
        EngineOptions(evidence_threshold_bytes=100)
    with pytest.raises(OptionsError, match="palette"):
        EngineOptions(palette="batlow")  # type: ignore[arg-type]
    with pytest.raises(OptionsError, match="start != end"):
        PaletteOption("viridis", 0.5, 0.5)


def test_the_palette_names_match_the_palettes_package() -> None:
    assert PALETTE_MAPS == MAP_NAMES


def test_defaults_are_those_of_the_design() -> None:
    assert EngineOptions().to_settings() == {
        "thresholds": BAND,
        "providerInputBudget": 100_000,
        "blacklistAutoFoldTools": [],
        "toolFoldThreshold": 0.5,
        "preCommitNotice": False,
        "noticeLeadShare": 0.1,
        "palette": {"map": "batlow", "start": 0.0, "end": 1.0},
    }


def test_the_record_carries_every_field_and_reads_back() -> None:
    options = EngineOptions.from_settings(
        {
            "toolFoldThreshold": 0.3,
            "preCommitNotice": True,
            "noticeLeadShare": 0.05,
            "palette": {"map": "magma", "start": 0.9, "end": 0.1},
            "blacklistAutoFoldTools": ["bash", "grep"],
        }
    )
    record = json.loads(canonical_bytes(options.to_record()))
    assert set(record) == {*OPTION_NAMES, "evidenceThresholdBytes"}
    assert EngineOptions.from_record(record) == options


def test_records_written_before_the_new_options_still_open() -> None:
    old_record = {
        "providerInputBudget": 100_000,
        "thresholds": BAND,
        "blacklistAutoFoldTools": ["bash"],
        "evidenceThresholdBytes": 32_768,
    }
    options = EngineOptions.from_record(old_record)
    assert options.budget == 100_000
    assert options.blacklist == frozenset({"bash"})
    assert options.tool_fold_threshold == 0.5
    assert options.pre_commit_notice is False
    assert options.notice_lead_share == 0.1
    assert options.palette == PaletteOption()


def _unit(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False, exclude_min=True, exclude_max=True)


@st.composite
def settings_mappings(draw: st.DrawFn) -> dict[str, Any]:
    """Any accepted settings mapping, each option present or not."""
    min_target = draw(_unit(0.0, 0.9))
    max_target = draw(_unit(min_target + 0.01, 1.0))
    # Mostly inside the band, so most drawn mappings are accepted and really round-trip.
    lead = draw(_unit(0.0, max_target - min_target) | _unit(0.0, 1.0))
    full: dict[str, Any] = {
        "thresholds": {
            "maxTarget": max_target,
            "minTarget": min_target,
            "consolidateAfter": draw(st.integers(2, 10_000)),
            "minFoldChars": draw(st.integers(1, 10**7)),
        },
        "providerInputBudget": draw(st.integers(MIN_BUDGET, MAX_BUDGET)),
        "blacklistAutoFoldTools": draw(st.lists(st.text(min_size=1, max_size=12), max_size=4)),
        "toolFoldThreshold": draw(st.floats(0.0, 1.0, exclude_max=True)),
        "preCommitNotice": draw(st.booleans()),
        "noticeLeadShare": lead,
        "palette": {
            "map": draw(st.sampled_from(PALETTE_MAPS)),
            "start": draw(st.floats(0.0, 1.0)),
            "end": draw(st.floats(0.0, 1.0)),
        },
    }
    keep = draw(st.sets(st.sampled_from(OPTION_NAMES)))
    return {name: value for name, value in full.items() if name in keep}


@given(settings_mappings())
def test_any_accepted_mapping_round_trips(mapping: dict[str, Any]) -> None:
    try:
        options = EngineOptions.from_settings(mapping)
    except OptionsError as error:
        # Only the cross-field rules may refuse a drawn mapping, and they must say so.
        assert any(
            rule in str(error) for rule in ("notice inside the band", "start != end", "too narrow")
        )
        return
    settings = options.to_settings()
    # Through JSON, as a settings file would carry it.
    again = EngineOptions.from_settings(json.loads(json.dumps(settings)))
    assert again == options
    assert again.to_settings() == settings
    for name, value in mapping.items():
        if name == "blacklistAutoFoldTools":
            assert settings[name] == sorted(set(value))
        else:
            assert settings[name] == value
