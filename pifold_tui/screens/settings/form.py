"""The settings form as data: its fields, the mapping they spell, and its verdict (no Textual).

The form never checks a value itself. What the user typed becomes a settings mapping of the
same shape as ``settings.json`` and goes through :meth:`EngineOptions.from_settings`, the
validator the file goes through, so a refused value shows exactly the rule the file would
break and nothing is ever clamped into range.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from palettes import PaletteSetting
from pifold_core.canonical import JsonValue
from pifold_core.options import EngineOptions, OptionsError

FieldKind = Literal["number", "list", "switch"]


@dataclass(frozen=True, slots=True)
class FormField:
    """One typed field of the form."""

    key: str
    """Its place in ``settings.json``: an option name, or ``option.key`` inside an object."""
    label: str
    """What the form calls it."""
    kind: FieldKind
    """How its text becomes a JSON value."""
    help: str
    """What it means, shown under it."""


FIELDS: tuple[FormField, ...] = (
    FormField(
        "thresholds.maxTarget", "maxTarget", "number", "share of the budget where a commit fires"
    ),
    FormField("thresholds.minTarget", "minTarget", "number", "share a commit folds down to"),
    FormField(
        "thresholds.consolidateAfter", "consolidateAfter", "number", "roots of one level per parent"
    ),
    FormField("thresholds.minFoldChars", "minFoldChars", "number", "smallest source worth folding"),
    FormField("providerInputBudget", "providerInputBudget", "number", "tokens a request may carry"),
    FormField(
        "blacklistAutoFoldTools", "blacklistAutoFoldTools", "list", "tools whose results stay raw"
    ),
    FormField(
        "toolFoldThreshold", "toolFoldThreshold", "number", "oldest share clipped; 0 turns it off"
    ),
    FormField("preCommitNotice", "preCommitNotice", "switch", "a note before a threshold commit"),
    FormField("noticeLeadShare", "noticeLeadShare", "number", "how far below maxTarget it speaks"),
)
"""The typed fields, in DESIGN §9's order; the palette has its own controls."""

PALETTE_KEYS = ("palette.map", "palette.start", "palette.end")
"""The palette's three controls, as the mapping names them."""


def field_texts(options: EngineOptions) -> dict[str, str]:
    """The text each typed field starts with, for ``options``."""
    settings = options.to_settings()
    texts: dict[str, str] = {}
    for form_field in FIELDS:
        value = _lookup(settings, form_field.key)
        if form_field.kind == "list" and isinstance(value, list):
            texts[form_field.key] = ", ".join(str(name) for name in value)
        elif form_field.kind == "switch":
            texts[form_field.key] = "true" if value else "false"
        else:
            texts[form_field.key] = json.dumps(value)
    return texts


def _lookup(settings: Mapping[str, JsonValue], key: str) -> JsonValue:
    option, _, inner = key.partition(".")
    value = settings[option]
    if inner and isinstance(value, dict):
        return value[inner]
    return value


def field_value(form_field: FormField, text: str) -> JsonValue:
    """The JSON value a field's text spells.

    A number field's text is read as a JSON literal when it is one; anything else is passed
    on as the string typed, so the validator refuses it by name ("must be a number, got
    'abc'") rather than the form guessing.
    """
    if form_field.kind == "list":
        return [name.strip() for name in text.split(",") if name.strip()]
    if form_field.kind == "switch":
        return text == "true"
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return text
    return value


def settings_mapping(
    texts: Mapping[str, str], palette: tuple[str, float, float]
) -> dict[str, JsonValue]:
    """The ``settings.json`` object the form spells: all seven options, set whole."""
    mapping: dict[str, JsonValue] = {}
    for form_field in FIELDS:
        value = field_value(form_field, texts[form_field.key])
        option, _, inner = form_field.key.partition(".")
        if inner:
            group = mapping.setdefault(option, {})
            assert isinstance(group, dict)
            group[inner] = value
        else:
            mapping[option] = value
    map_name, start, end = palette
    mapping["palette"] = {"map": map_name, "start": start, "end": end}
    return mapping


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the validator said about the form."""

    options: EngineOptions | None
    """The options the form sets, when every rule holds."""
    error: str | None
    """The rule broken, in the validator's words, when one is."""
    fields: tuple[str, ...] = ()
    """Keys of the fields the error names."""

    @property
    def valid(self) -> bool:
        return self.options is not None


ALL_KEYS: tuple[str, ...] = (*(form_field.key for form_field in FIELDS), *PALETTE_KEYS)


def blamed_fields(error: str) -> tuple[str, ...]:
    """The fields an error message names: ``thresholds.maxTarget``, or a bare key such as
    ``minTarget`` inside a rule that ties several together."""
    words = set(error.replace(",", " ").replace("(", " ").replace(")", " ").split())
    return tuple(key for key in ALL_KEYS if key in error or key.rpartition(".")[2] in words)


def judge(mapping: Mapping[str, JsonValue], base: EngineOptions) -> Verdict:
    """The validator's verdict on ``mapping`` over ``base``."""
    try:
        options = EngineOptions.from_settings(mapping, base)
    except OptionsError as error:
        return Verdict(None, str(error), blamed_fields(str(error)))
    return Verdict(options, None)


def palette_setting(options: EngineOptions) -> PaletteSetting:
    palette = options.palette
    return PaletteSetting(palette.map_name, palette.start, palette.end)
