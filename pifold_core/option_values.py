"""The rules for one option's value, each refusal naming the option (DESIGN §9).

:mod:`pifold_core.options` builds every option from these checks: a number that is finite,
an integer at or above a floor, a boolean that is a real JSON ``true`` or ``false``, and an
object set whole (exactly its keys). Each raises :class:`OptionsError` with the user-facing
camelCase name, because people read these messages while editing ``settings.json``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from decimal import Decimal


class OptionsError(ValueError):
    """An option is unknown or breaks a rule; the message names the option and the rule."""


def check_number(option: str, value: object) -> float:
    """``value`` as a finite float, or :class:`OptionsError` naming ``option``."""
    # bool is an int subclass; a JSON true must not pass for 1.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OptionsError(f"{option} must be a number, got {value!r}")
    # An integer past float's range (JSON allows 1e400 written out) is as unusable as inf.
    if isinstance(value, int) and abs(value) > sys.float_info.max:
        raise OptionsError(
            f"{option} must be a finite number, got an integer of {value.bit_length()} bits"
        )
    if not math.isfinite(value):
        raise OptionsError(f"{option} must be a finite number, got {value!r}")
    return float(value)


def check_integer(option: str, value: object, minimum: int) -> int:
    """``value`` as an integer of at least ``minimum``, or :class:`OptionsError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionsError(f"{option} must be an integer, got {value!r}")
    if value < minimum:
        raise OptionsError(f"{option} must be at least {minimum}, got {value}")
    return value


def written_decimal(value: float) -> Decimal:
    """``value`` as the decimal number the user wrote, for arithmetic without binary error."""
    # repr is the shortest string that reads back as the float: the number the user wrote.
    return Decimal(repr(value))


def check_boolean(option: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False``, else :class:`OptionsError`."""
    if not isinstance(value, bool):
        raise OptionsError(f"{option} must be true or false, got {value!r}")
    return value


def whole_object(option: str, value: object, keys: tuple[str, ...]) -> Mapping[str, object]:
    """``value`` as a mapping holding exactly ``keys``: these objects are set whole."""
    if not isinstance(value, Mapping):
        raise OptionsError(f"{option} must be an object with {', '.join(keys)}, got {value!r}")
    unknown = [str(key) for key in value if key not in keys]
    if unknown:
        raise OptionsError(f"{option}: unknown key {quoted(unknown)} (keys: {', '.join(keys)})")
    missing = [key for key in keys if key not in value]
    if missing:
        raise OptionsError(
            f"{option} is set whole: missing {quoted(missing)} (keys: {', '.join(keys)})"
        )
    return value


def quoted(names: list[str]) -> str:
    """``names`` quoted and joined, for a message."""
    return ", ".join(repr(name) for name in names)


__all__ = [
    "OptionsError",
    "check_boolean",
    "check_integer",
    "check_number",
    "quoted",
    "whole_object",
    "written_decimal",
]
